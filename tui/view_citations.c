/* SPDX-License-Identifier: MIT */
/*
 * view_citations: the annotator's own citations of the item shown, to
 * review them (E on the coding screen).
 *
 * An overlay over the panes: per dimension, in the codebook's order, the
 * codes chosen (or that the dimension is not coded now: its citations
 * stayed when it was cleared), then each citation - its id, what it
 * cites, the lines it quotes.  j/k select one (the line cursor's column
 * marks it), Enter closes the list and shows its lines in their pane
 * under the line cursor, x (Del) removes it at once (audited; the list
 * is read again).  Only the actor's own evidence is read
 * (evidence_each() with the actor's member id).
 */
#define _XOPEN_SOURCE_EXTENDED 1
#include <stdlib.h>
#include <string.h>

#include "core/study/evidence.h"
#include "core/base/text.h"
#include "tui/doc.h"
#include "tui/screen.h"
#include "tui/view_code.h"

struct cite_entry {
	long long id;
	char *dim;
	struct evidence_cite cite;	/* path owned */
	size_t first, last;		/* its doc lines */
};

struct citations_view {
	struct cite_entry *v;
	size_t nr, alloc;
	size_t sel;
	struct doc doc;
	struct pager pg;
	int width;		/* rendered for; 0: to render again */
};

static void entries_release(struct citations_view *cv)
{
	size_t i;

	for (i = 0; i < cv->nr; i++) {
		free(cv->v[i].dim);
		free(cv->v[i].cite.path);
	}
	free(cv->v);
	cv->v = NULL;
	cv->nr = cv->alloc = 0;
}

struct loading {
	struct citations_view *cv;
	struct buf quotes;	/* every quote, NUL-separated, in order */
};

static int collect(const struct evidence_row *row, void *data)
{
	struct loading *l = data;
	struct citations_view *cv = l->cv;
	struct cite_entry *ce;

	ALLOC_GROW(cv->v, cv->nr + 1, cv->alloc);
	ce = &cv->v[cv->nr++];
	memset(ce, 0, sizeof(*ce));
	ce->id = row->id;
	ce->dim = xstrdup(row->dimension);
	ce->cite = row->cite;
	ce->cite.path = row->cite.path ? xstrdup(row->cite.path) : NULL;
	buf_addstr(&l->quotes, row->quote ? row->quote : "");
	buf_addch(&l->quotes, '\0');
	return 0;
}

/* The dimension's place in the codebook (its end for one it lacks). */
static size_t dim_rank(const struct codebook *cb, const char *dim)
{
	size_t i;

	for (i = 0; i < cb->nr_dims; i++)
		if (!strcmp(cb->dims[i].key, dim))
			return i;
	return cb->nr_dims;
}

/* Sort the entries by the codebook's order of dimensions, then as
 * cited; qv[i], the quote of entry i, follows its entry. */
static void sort_entries(struct citations_view *cv,
			 const struct codebook *cb, const char **qv)
{
	size_t *rank = xcalloc(cv->nr, sizeof(*rank));
	size_t i, k;

	for (i = 0; i < cv->nr; i++)
		rank[i] = dim_rank(cb, cv->v[i].dim);
	/* a stable insertion sort: few entries */
	for (i = 1; i < cv->nr; i++)
		for (k = i; k > 0 && rank[k - 1] > rank[k]; k--) {
			struct cite_entry t = cv->v[k - 1];
			const char *tq = qv[k - 1];
			size_t tr = rank[k - 1];

			cv->v[k - 1] = cv->v[k];
			qv[k - 1] = qv[k];
			rank[k - 1] = rank[k];
			cv->v[k] = t;
			qv[k] = tq;
			rank[k] = tr;
		}
	free(rank);
}

/* The heading of a dimension's citations: the dimension and what the
 * actor codes it now. */
static void dim_heading(struct citations_view *cv, struct screen *scr,
			const char *dim, int first)
{
	const struct coded_dim *cd = coding_dim(code_coding(scr), dim);
	struct buf b = BUF_INIT;
	size_t d;

	if (!first)
		doc_line(&cv->doc, "", SLOT_NORMAL, cv->doc.nr);
	sanitize_line(&b, dim);
	if (cd && cd->nr_codes) {
		buf_addstr(&b, " = ");
		for (d = 0; d < cd->nr_codes; d++) {
			if (d)
				buf_addch(&b, ',');
			sanitize_line(&b, cd->codes[d]);
		}
	} else {
		buf_addstr(&b, " (not coded now: cleared, its citations "
			   "kept)");
	}
	doc_line(&cv->doc, b.ptr, SLOT_MD_HEADING, cv->doc.nr);
	buf_release(&b);
}

/* One citation: its id and lines, then its quote wrapped at `width`. */
static void entry_lines(struct citations_view *cv, struct cite_entry *ce,
			const char *quote, int width)
{
	struct buf b = BUF_INIT, q = BUF_INIT;
	struct text_lines tl = TEXT_LINES_INIT;
	size_t k;

	ce->first = cv->doc.nr;
	buf_addf(&b, "#%lld  ", ce->id);
	evidence_format(&ce->cite, &q);
	sanitize_line(&b, q.ptr);
	doc_line(&cv->doc, b.ptr, SLOT_META, cv->doc.nr);
	buf_reset(&q);
	text_sanitize(&q, quote, strlen(quote), 8, TEXT_KEEP_NL);
	text_wrap(&tl, q.ptr, q.len, width > 12 ? width - 6 : width);
	for (k = 0; k < tl.nr; k++) {
		doc_begin(&cv->doc, SLOT_DIM, 0, cv->doc.nr);
		doc_puts(&cv->doc, "    ", SLOT_DIM);
		doc_put(&cv->doc, q.ptr + tl.v[k].off, tl.v[k].len, SLOT_DIM);
		doc_end(&cv->doc);
	}
	ce->last = cv->doc.nr - 1;
	text_lines_release(&tl);
	buf_release(&b);
	buf_release(&q);
}

/* Read the citations and lay the list out at `width` columns. */
static int load(struct view *v, int width)
{
	struct screen *scr = v->scr;
	struct citations_view *cv = v->priv;
	struct loading l = { cv, BUF_INIT };
	struct err e = ERR_INIT;
	const char *quote;
	const char **qv;
	size_t i;
	int ret = 0;

	entries_release(cv);
	doc_clear(&cv->doc);
	cv->width = width;
	pager_changed(&cv->pg);
	if (evidence_each(scr->st, scr->actor, scr->item.id,
			  scr->actor->member_id, collect, &l, &e) < 0) {
		doc_line(&cv->doc, e.msg, SLOT_STATUS_ERR, 0);
		ret = -1;
		goto out;
	}
	if (!cv->nr) {
		doc_line(&cv->doc, "No citations of yours on this item yet.",
			 SLOT_DIM, 0);
		doc_line(&cv->doc, "e cites the line cursor's lines (.), a "
			 "search match in view, or the fix's first change "
			 "in view (after ]).", SLOT_DIM, 1);
		doc_wrap_last(&cv->doc, width);
		goto out;
	}
	/* by the codebook's order of dimensions, then as cited; the quotes
	 * follow their entries' first order */
	qv = xcalloc(cv->nr, sizeof(*qv));
	for (i = 0, quote = l.quotes.ptr; i < cv->nr; i++) {
		qv[i] = quote;
		quote += strlen(quote) + 1;
	}
	sort_entries(cv, &scr->cb, qv);
	for (i = 0; i < cv->nr; i++) {
		struct cite_entry *ce = &cv->v[i];

		if (!i || strcmp(cv->v[i - 1].dim, ce->dim))
			dim_heading(cv, scr, ce->dim, !i);
		entry_lines(cv, ce, qv[i], width);
	}
	free(qv);
out:
	if (cv->sel >= cv->nr)
		cv->sel = cv->nr ? cv->nr - 1 : 0;
	buf_release(&l.quotes);
	return ret;
}

/* The selection under the line cursor's column, in view. */
static void select_entry(struct citations_view *cv)
{
	const struct cite_entry *ce;

	if (!cv->nr) {
		pager_cursor(&cv->pg, 0);
		return;
	}
	ce = &cv->v[cv->sel];
	if (!cv->pg.cursor_on)
		pager_cursor(&cv->pg, 1);
	cv->pg.cursor = ce->first;
	cv->pg.mark = ce->last;
	/* out of view: its heading (or the line before it) on top */
	if (ce->first < cv->pg.top || ce->last > pager_last_in_view(&cv->pg))
		pager_goto(&cv->pg, ce->first > 0 ? ce->first - 1 : 0);
	/* pager_goto() put the cursor on the top line: back on the entry */
	cv->pg.cursor = ce->first;
	cv->pg.mark = ce->last;
}

static int cv_open(struct view *v)
{
	struct citations_view *cv = v->priv;

	buf_init(&cv->doc.text, 0);
	pager_init(&cv->pg, &doc_pager_src, &cv->doc);
	return 0;
}

static void cv_layout(struct view *v)
{
	struct citations_view *cv = v->priv;

	screen_overlay_box(v->scr, v, 0, 100);
	pager_set_size(&cv->pg, v->rows - 2, v->cols - 4);
	/* the cursor's column comes out of the width */
	if (v->cols - 5 != cv->width) {
		load(v, v->cols - 5);
		select_entry(cv);
	}
	pager_clamp(&cv->pg);
}

static void cv_draw(struct view *v)
{
	struct citations_view *cv = v->priv;
	struct buf title = BUF_INIT, pos = BUF_INIT;

	werase(v->win);
	buf_addf(&title, "Your citations (%zu): j/k select, Enter show, "
		 "x remove, q close", cv->nr);
	draw_frame(v->win, title.ptr, SLOT_DIALOG_TITLE);
	pager_draw(&cv->pg, v->win, 1, 2, 1);
	pager_position(&cv->pg, &pos);
	if ((int)pos.len + 4 < v->cols)
		draw_str(v->win, v->rows - 1, v->cols - (int)pos.len - 3,
			 (int)pos.len, pos.ptr, pos.len, SLOT_DIALOG);
	wnoutrefresh(v->win);
	buf_release(&title);
	buf_release(&pos);
}

static int cv_handle(struct view *v, enum action a, int key)
{
	struct screen *scr = v->scr;
	struct citations_view *cv = v->priv;
	struct evidence_cite c;
	struct buf b = BUF_INIT;
	long long id;

	(void)key;
	switch (a) {
	case ACT_NEXT_CITATION:
		if (cv->sel + 1 < cv->nr)
			cv->sel++;
		select_entry(cv);
		return H_REDRAW;
	case ACT_PREV_CITATION:
		if (cv->sel)
			cv->sel--;
		select_entry(cv);
		return H_REDRAW;
	case ACT_SHOW_CITATION:
		if (!cv->nr)
			return H_HANDLED;
		/* the list goes away with its entries: a copy */
		c = cv->v[cv->sel].cite;
		c.path = c.path ? xstrdup(c.path) : NULL;
		evidence_format(&c, &b);
		screen_pop(scr);
		if (screen_show_cite(scr, &c) < 0)
			screen_msg(scr, MSG_ERR, "%s is not in what the panes "
				   "show", b.ptr);
		else
			screen_msg(scr, MSG_INFO, "%s (e cites again, E lists)",
				   b.ptr);
		evidence_cite_release(&c);
		buf_release(&b);
		return H_HANDLED;
	case ACT_REMOVE_CITATION:
		if (!cv->nr)
			return H_HANDLED;
		id = cv->v[cv->sel].id;
		evidence_format(&cv->v[cv->sel].cite, &b);
		if (code_remove_citation(scr, id) == 0)
			screen_msg(scr, MSG_OK, "removed: #%lld %s of %s", id,
				   b.ptr, cv->v[cv->sel].dim);
		buf_release(&b);
		load(v, cv->width);
		select_entry(cv);
		scr->dirty |= DIRTY_STATUS;
		return H_REDRAW;
	case ACT_CLOSE:
	case ACT_QUIT:
	case ACT_CITATIONS:
		return H_CLOSE;
	case ACT_HELP:
	case ACT_SEARCH:
	case ACT_SEARCH_NEXT:
	case ACT_SEARCH_PREV:
	case ACT_REDRAW:
	case ACT_NONE:
		return H_UNHANDLED;
	default:
		return pager_action(&cv->pg, a) ? H_REDRAW : H_HANDLED;
	}
}

static void cv_close(struct view *v)
{
	struct citations_view *cv = v->priv;

	entries_release(cv);
	doc_release(&cv->doc);
	pager_release(&cv->pg);
}

static struct pager *cv_pager(struct view *v)
{
	struct citations_view *cv = v->priv;

	return &cv->pg;
}

const struct view_ops citations_view_ops = {
	.name = "citations",
	.keymap = KEYMAP_CITATIONS,
	.priv_size = sizeof(struct citations_view),
	.open = cv_open,
	.layout = cv_layout,
	.draw = cv_draw,
	.handle = cv_handle,
	.close = cv_close,
	.pager = cv_pager,
};
