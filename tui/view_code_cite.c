/* SPDX-License-Identifier: MIT */
/*
 * view_code_cite: evidence on the annotator's screen - `.` shows a line
 * cursor in the focused pane (its pager's), `v` marks a range, `e` asks
 * for a dimension's key and cites the lines as the pane maps them
 * (view_ops.cite); a dimension cleared asks whether its citations go
 * too; E's list removes one.
 */
#define _XOPEN_SOURCE_EXTENDED 1
#include <stdlib.h>
#include <string.h>

#include "core/study/evidence.h"
#include "tui/screen.h"
#include "tui/view_code.h"
#include "tui/view_code_int.h"

/* ---- evidence ------------------------------------------------------- */

void code_cite_drop(struct screen *scr)
{
	struct code_state *cs = scr->priv;

	if (cs->citing) {
		evidence_cite_release(cs->citing);
		free(cs->citing);
		cs->citing = NULL;
	}
}

struct pager *code_focus_pager(struct screen *scr)
{
	struct view *v = &scr->panes[scr->focus];

	return v->ops->pager ? v->ops->pager(v) : NULL;
}

void code_panes_dirty(struct screen *scr)
{
	scr->panes[0].dirty = scr->panes[1].dirty = 1;
	scr->dirty |= DIRTY_PANES;
}

/* What `e` cites without a line cursor: the current search match when
 * it is in view, else what the pane offers (the fix pane: its first
 * changed line in view, and with `whole` the rest of their run). */
static int cite_target(struct screen *scr, int whole, size_t *from,
		       size_t *to)
{
	struct view *v = &scr->panes[scr->focus];
	struct pager *pg = code_focus_pager(scr);

	if (!pg)
		return 0;
	if (pg->match != NO_MATCH && pager_in_view(pg, pg->match)) {
		*from = *to = pg->match;
		return 1;
	}
	return v->ops->target && v->ops->target(v, whole, from, to);
}

/* `e`: the lines under the cursor (or, without one, cite_target()'s)
 * become the citation waiting for its dimension's key. */
void code_cite_begin(struct screen *scr)
{
	struct code_state *cs = scr->priv;
	struct view *v = &scr->panes[scr->focus];
	struct pager *pg = code_focus_pager(scr);
	struct evidence_cite c;
	struct err e = ERR_INIT;
	struct buf b = BUF_INIT;
	size_t from, to;

	code_cite_drop(scr);
	if (!pg || !v->ops->cite || (!pager_cursor_range(pg, &from, &to) &&
				     !cite_target(scr, 0, &from, &to))) {
		screen_msg(scr, MSG_ERR, "nothing to cite in view: . shows a "
			   "line cursor, v marks a range, e cites it (or a "
			   "search match, or the fix's first change in "
			   "view)");
		return;
	}
	if (v->ops->cite(v, from, to, &c, &e) < 0) {
		screen_msg(scr, MSG_ERR, "not cited: %s", e.msg);
		return;
	}
	cs->citing = xmalloc(sizeof(*cs->citing));
	*cs->citing = c;
	evidence_format(&c, &b);
	if (cs->last_dim >= 0 && (size_t)cs->last_dim < scr->cb.nr_dims) {
		char kn[32];
		int k = keymap_key_for(KEYMAP_MAIN, ACT_CITE);

		screen_msg(scr, MSG_INFO, "cite %s for which dimension? %s: "
			   "%s (last coded), or 1-%zu; Esc cancels", b.ptr,
			   k ? keyname_hint(k, kn) : "Enter",
			   scr->cb.dims[cs->last_dim].key,
			   scr->cb.nr_dims < 9 ? scr->cb.nr_dims : (size_t)9);
	}
	else
		screen_msg(scr, MSG_INFO, "cite %s for which dimension? 1-%zu "
			   "(Esc cancels)", b.ptr, scr->cb.nr_dims < 9 ?
			   scr->cb.nr_dims : (size_t)9);
	buf_release(&b);
}

/* The key after `e`: the dimension to cite the lines for - a digit, or
 * the cite key again (or Enter) for the one last coded. */
void code_cite_key(struct screen *scr, int key)
{
	struct code_state *cs = scr->priv;
	struct err e = ERR_INIT;
	struct buf b = BUF_INIT;
	struct pager *pg;
	size_t i = (size_t)(key - '1');
	const char *dim;

	/* the cite key again (e), or Enter: the dimension coded last */
	if ((keymap_lookup(KEYMAP_MAIN, key) == ACT_CITE || key == TK_ENTER) &&
	    cs->last_dim >= 0 && (size_t)cs->last_dim < scr->cb.nr_dims)
		i = (size_t)cs->last_dim;
	else if (key < '1' || key > '9' || i >= scr->cb.nr_dims) {
		screen_msg(scr, MSG_INFO, "not cited");
		code_cite_drop(scr);
		return;
	}
	dim = scr->cb.dims[i].key;
	evidence_format(cs->citing, &b);
	if (evidence_add(scr->st, scr->actor, &scr->cb, scr->item.id, dim,
			 cs->citing, NULL, &e) < 0) {
		if (e.code == ERR_STALE)
			code_save_failed(scr, &e, "not cited");
		else
			screen_msg(scr, MSG_ERR, "not cited: %s: %s", b.ptr,
				   e.msg);
	} else {
		code_reload_coding(scr);
		screen_msg(scr, MSG_OK, "cited %s for %s (E lists your "
			   "citations)", b.ptr, dim);
		pg = code_focus_pager(scr);
		if (pg)
			pg->mark = NO_MATCH;
		code_panes_dirty(scr);
	}
	buf_release(&b);
	code_cite_drop(scr);
}

/* `v`: a range at the line cursor, or, without one, the lines `e` would
 * cite with the rest of their run, under a cursor. */
void code_mark_range(struct screen *scr)
{
	struct pager *pg = code_focus_pager(scr);
	size_t from, to;

	if (!pg)
		return;
	if (!pg->cursor_on && cite_target(scr, 1, &from, &to)) {
		pager_cursor(pg, 1);
		pg->cursor = to;
		pg->mark = from;
		screen_msg(scr, MSG_INFO, "range of %zu line%s: e cites it, "
			   "j/k change it, v drops it", to - from + 1,
			   to == from ? "" : "s");
	} else {
		pager_mark(pg);
		screen_msg(scr, MSG_INFO, pg->mark != NO_MATCH ? "range from "
			   "the cursor line: j/k extend it, e cites it" :
			   "range dropped");
	}
	code_panes_dirty(scr);
}

/* ---- clearing a dimension: its citations ----------------------------- */

struct dim_count {
	const char *dim;
	size_t nr;
};

static int count_cites(const struct evidence_row *row, void *data)
{
	struct dim_count *dc = data;

	dc->nr += !strcmp(row->dimension, dc->dim);
	return 0;
}

/* A dimension was cleared: when it has citations, ask whether they go
 * too (the next key answers). */
void code_ask_drop(struct screen *scr, const char *dim)
{
	struct code_state *cs = scr->priv;
	struct dim_count dc = { dim, 0 };
	struct err e = ERR_INIT;

	if (evidence_each(scr->st, scr->actor, scr->item.id,
			  scr->actor->member_id, count_cites, &dc, &e) < 0 ||
	    !dc.nr)
		return;
	free(cs->drop_dim);
	cs->drop_dim = xstrdup(dim);
	cs->drop_nr = dc.nr;
	screen_msg(scr, MSG_INFO, "saved: %s cleared; drop its %zu "
		   "citation%s too? y drops, any other key keeps", dim, dc.nr,
		   dc.nr == 1 ? "" : "s");
}

/* The answer to code_ask_drop(): y drops the citations, any other key keeps
 * them (and is used up). */
void code_drop_key(struct screen *scr, int key)
{
	struct code_state *cs = scr->priv;
	struct err e = ERR_INIT;
	size_t n = 0;
	char *dim = cs->drop_dim;

	cs->drop_dim = NULL;
	if (key == 'y' || key == 'Y') {
		if (evidence_remove_dim(scr->st, scr->actor, scr->item.id, dim,
					&n, &e) < 0)
			screen_msg(scr, MSG_ERR, "citations of %s not dropped: "
				   "%s", dim, e.msg);
		else
			screen_msg(scr, MSG_OK, "dropped: %zu citation%s of %s",
				   n, n == 1 ? "" : "s", dim);
		code_reload_coding(scr);
	} else {
		screen_msg(scr, MSG_INFO, "kept: %zu citation%s of %s (E lists "
			   "them)", cs->drop_nr, cs->drop_nr == 1 ? "" : "s",
			   dim);
	}
	free(dim);
}

int code_remove_citation(struct screen *scr, long long id)
{
	struct err e = ERR_INIT;

	if (evidence_remove(scr->st, scr->actor, scr->item.id, id, &e) < 0) {
		screen_msg(scr, MSG_ERR, "not removed: %s", e.msg);
		return -1;
	}
	code_reload_coding(scr);
	code_panes_dirty(scr);
	return 0;
}
