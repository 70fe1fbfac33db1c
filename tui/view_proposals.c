/* SPDX-License-Identifier: MIT */
/*
 * view_proposals: the codes annotators proposed while coding, and the
 * owner's or an adjudicator's decision on each.
 *
 * An overlay of the adjudicator's screen (P), covering the panes and the
 * resolution panel but not the status line.  At the top, a table of the
 * open proposals (a: the decided ones too): id, dimension:key, name, who
 * proposed it on which item, how many labels carry it, its status.  Under
 * it, the selected proposal in full - name, who, when, and the definition
 * wrapped to the width - which scrolls like a pane (Space, b, g, G, /).
 * Every string that came from a member (key, name, definition, names of
 * members and items) is sanitized before it is drawn.
 *
 * Deciding: Enter or y asks on the status line "accept KEY into CODEBOOK
 * VERSION? y/n" and y saves it with proposal_accept() (one transaction: a
 * new codebook version with the code, the labels that carried the
 * proposal move to it).  m opens the picker on the proposal's dimension
 * and the code picked there is saved with proposal_map() (one
 * transaction); the picker stays on that dimension (Tab does not move)
 * and proposes nothing.  After each decision the screen's `decided`
 * callback reloads what it shows (the codebook after an accept), and the
 * table is read again.
 *
 * The picker is view_picker.c's own, wrapped: map_picker_ops passes every
 * call through to picker_view_ops but keeps Tab on the dimension, and
 * while it is open the screen's pick_ops are map_pick_ops, which turn a
 * pick into proposal_map().  The screen's own pick_ops come back when the
 * picker closes.
 *
 * Data: proposal_list() when the view opens, when `a` toggles, and after
 * each decision; keys otherwise only redraw.  Who may decide is
 * core/study/evolve.c's rule (the owner and adjudicators); the view is opened
 * from the adjudicator's screen only, which annotators cannot open.
 */
#define _XOPEN_SOURCE_EXTENDED 1
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/study/evolve.h"
#include "core/study/proposal.h"
#include "core/study/study.h"
#include "core/base/text.h"
#include "tui/doc.h"
#include "tui/screen.h"
#include "tui/view_picker.h"

#define MIN_DETAIL_ROWS 4

/* The table's columns. */
enum {
	COL_ID, COL_CODE, COL_NAME, COL_WHO, COL_ITEM, COL_LABELS, COL_STATUS,
	NR_COLS
};

static const char *const col_title[NR_COLS] = {
	"#", "code", "name", "by", "on item", "labels", "status"
};
static const int col_min[NR_COLS] = { 2, 12, 8, 4, 8, 6, 8 };
static const int col_max[NR_COLS] = { 8, 40, 48, 16, 32, 6, 8 };

struct proposals_view {
	struct proposal *v;	/* proposal_list(), by id */
	size_t nr;
	int all;		/* the decided ones too */
	size_t sel, top;	/* selected row, first row shown */
	void (*decided)(struct screen *scr, int new_codebook);

	int confirm;		/* "accept ...? y/n" is asked */
	long long confirm_id;

	/* mapping in the picker */
	int mapping;		/* the map picker is open */
	int mapped;		/* ... and has saved: close it */
	long long map_id;
	char *map_dim, *map_key;	/* owned copies, for messages */
	const struct pick_ops *saved_ops;	/* the screen's own */

	struct doc doc;		/* the selected proposal in full */
	long long doc_id;	/* rendered for this proposal (-1: for
				   the empty list, 0: to render again) */
	int doc_width;		/* ... at this width */
	struct pager pg;
	int list_rows;		/* table rows shown */
	int det_y, det_rows;	/* the detail's place in the window */
};

/* What screen_open_proposals() hands the view (a function pointer
 * cannot be a void *). */
struct decided_fn {
	void (*decided)(struct screen *scr, int new_codebook);
};

/* The proposals view under the map picker, or NULL. */
static struct view *pview_view(struct screen *scr)
{
	int i;

	for (i = scr->nr_overlays - 1; i >= 0; i--)
		if (scr->overlays[i]->ops == &proposals_view_ops)
			return scr->overlays[i];
	return NULL;
}

static struct proposals_view *pview_of(struct screen *scr)
{
	struct view *v = pview_view(scr);

	return v ? v->priv : NULL;
}

static const struct proposal *selected(const struct proposals_view *pv)
{
	return pv->sel < pv->nr ? &pv->v[pv->sel] : NULL;
}

static int is_open(const struct proposal *p)
{
	return p && p->status && !strcmp(p->status, "open");
}

/* Read the proposals again, keeping the selection on the same proposal
 * when it is still listed.  Returns 0, or -1 after saying why. */
static int reload(struct screen *scr, struct proposals_view *pv)
{
	struct proposal *v;
	struct err e = ERR_INIT;
	long long keep = selected(pv) ? selected(pv)->id : 0;
	size_t nr, i;

	if (proposal_list(scr->st, scr->actor, pv->all, &v, &nr, &e) < 0) {
		screen_msg(scr, MSG_ERR, "%s", e.msg);
		return -1;
	}
	proposal_list_free(pv->v, pv->nr);
	pv->v = v;
	if (pv->sel >= nr)
		pv->sel = nr ? nr - 1 : 0;
	/* a decided proposal leaves the open list: its place is taken by
	 * the next one, which stays selected */
	for (i = 0; keep && i < nr; i++)
		if (v[i].id == keep) {
			pv->sel = i;
			break;
		}
	pv->nr = nr;
	pv->doc_id = 0;
	return 0;
}

/* ---- the detail ------------------------------------------------------- */

/* Sanitized, wrapped text, a doc line per display line. */
static void put_wrapped(struct doc *d, const char *s, enum slot slot,
			int width)
{
	struct buf b = BUF_INIT;
	struct text_lines tl = TEXT_LINES_INIT;
	size_t i;

	text_sanitize(&b, s, strlen(s), 8, TEXT_KEEP_NL);
	text_wrap(&tl, b.ptr, b.len, width);
	for (i = 0; i < tl.nr; i++) {
		doc_begin(d, slot, 0, d->nr);
		doc_put(d, b.ptr + tl.v[i].off, tl.v[i].len, slot);
		doc_end(d);
	}
	text_lines_release(&tl);
	buf_release(&b);
}

static void render(struct screen *scr, struct proposals_view *pv, int width)
{
	struct doc *d = &pv->doc;
	const struct proposal *p = selected(pv);
	struct buf b = BUF_INIT;

	doc_clear(d);
	pv->doc_width = width;
	pv->doc_id = p ? p->id : -1;
	if (!p) {
		doc_line(d, pv->all ? "Nobody has proposed a code yet." :
			 "No open proposals: every proposed code is decided "
			 "(a shows them).", SLOT_DIM, 0);
		return;
	}
	buf_addf(&b, "%s:%s %s %s", p->dimension, p->key, glyph(G_DOT),
		 p->name ? p->name : "");
	put_wrapped(d, b.ptr, SLOT_MD_HEADING, width);

	buf_reset(&b);
	buf_addf(&b, "Proposal %lld by %s on %s, %s; %d label%s carr%s it.",
		 p->id, p->member, p->item ? p->item : "no item",
		 p->created_at ? p->created_at : "", p->nr_labels,
		 p->nr_labels == 1 ? "" : "s",
		 p->nr_labels == 1 ? "ies" : "y");
	put_wrapped(d, b.ptr, SLOT_DIM, width);

	buf_reset(&b);
	if (is_open(p)) {
		char *next = codebook_version_next(scr->cb.version ?
						   scr->cb.version : "1");

		buf_addf(&b, "Open: Enter accepts it into %s %s; m maps it "
			 "onto a code of %s.", scr->cb.name ? scr->cb.name :
			 "the codebook", next, p->dimension);
		free(next);
	} else if (p->status && !strcmp(p->status, "accepted")) {
		buf_addf(&b, "Accepted: %s:%s is a code of the codebook.",
			 p->dimension, p->decided_code ? p->decided_code :
			 p->key);
	} else {
		buf_addf(&b, "%s: onto %s:%s.", p->status && !strcmp(p->status,
			 "mapped") ? "Mapped" : p->status ? p->status : "?",
			 p->dimension, p->decided_code ? p->decided_code : "?");
	}
	put_wrapped(d, b.ptr, is_open(p) ? SLOT_NORMAL : SLOT_AGREED, width);

	doc_line(d, "", SLOT_NORMAL, d->nr);
	doc_line(d, "Definition", SLOT_MD_STRONG, d->nr);
	if (p->definition && *p->definition)
		put_wrapped(d, p->definition, SLOT_NORMAL, width);
	else
		doc_line(d, "(none)", SLOT_DIM, d->nr);
	buf_release(&b);
}

/* ---- the table -------------------------------------------------------- */

/* The text of a cell, sanitized. */
static void cell(const struct proposal *p, int col, struct buf *out)
{
	switch (col) {
	case COL_ID:
		buf_addf(out, "%lld", p->id);
		break;
	case COL_CODE:
		sanitize_line(out, p->dimension);
		buf_addch(out, ':');
		sanitize_line(out, p->key);
		break;
	case COL_NAME:
		sanitize_line(out, p->name);
		break;
	case COL_WHO:
		sanitize_line(out, p->member);
		break;
	case COL_ITEM:
		sanitize_line(out, p->item ? p->item : "-");
		break;
	case COL_LABELS:
		buf_addf(out, "%d", p->nr_labels);
		break;
	default:
		sanitize_line(out, p->status);
		break;
	}
}

/* Column widths for `avail` columns: as wide as their text, within
 * col_min..col_max.  When that is too wide, the item goes first (the
 * detail names it), then the name, the code and who proposed it give up
 * columns down to their minimum, in that order.  A column of width 0 is
 * not shown. */
static void widths(const struct proposals_view *pv, int avail,
		   int w[NR_COLS])
{
	static const int shrink[] = { COL_NAME, COL_CODE, COL_WHO };
	struct buf b = BUF_INIT;
	size_t i, k;
	int c, total;

	for (c = 0; c < NR_COLS; c++) {
		w[c] = (int)strlen(col_title[c]);
		for (i = 0; i < pv->nr; i++) {
			int tw;

			buf_reset(&b);
			cell(&pv->v[i], c, &b);
			tw = text_width(b.ptr, b.len);
			if (tw > w[c])
				w[c] = tw;
		}
		if (w[c] < col_min[c])
			w[c] = col_min[c];
		if (w[c] > col_max[c])
			w[c] = col_max[c];
	}
	total = 2 * (NR_COLS - 1);
	for (c = 0; c < NR_COLS; c++)
		total += w[c];
	if (total > avail) {
		total -= w[COL_ITEM] + 2;
		w[COL_ITEM] = 0;
	}
	for (k = 0; k < sizeof(shrink) / sizeof(shrink[0]); k++) {
		c = shrink[k];
		while (total > avail && w[c] > col_min[c]) {
			w[c]--;
			total--;
		}
	}
	buf_release(&b);
}

static void draw_row(struct view *v, int y, const int w[NR_COLS],
		     const struct proposal *p, int sel)
{
	struct buf b = BUF_INIT;
	int c, x = 2, end = v->cols - 1;
	int open = is_open(p);
	enum slot base = sel ? SLOT_SEL : open ? SLOT_NORMAL : SLOT_DIM;

	if (sel) {
		draw_fill(v->win, y, 1, v->cols - 2, SLOT_SEL);
		draw_str(v->win, y, 1, 1, ">", 1, SLOT_SEL);
	}
	for (c = 0; c < NR_COLS && x < end; c++) {
		int cw = w[c] < end - x ? w[c] : end - x;
		enum slot slot = base;

		if (!w[c])
			continue;
		buf_reset(&b);
		if (c == COL_ID || c == COL_LABELS) {
			struct buf t = BUF_INIT;

			cell(p, c, &t);
			buf_addf(&b, "%*s", w[c], t.ptr);
			buf_release(&t);
		} else {
			cell(p, c, &b);
		}
		if (c == COL_STATUS && !sel && !open)
			slot = SLOT_AGREED;
		draw_str(v->win, y, x, cw, b.ptr, b.len, slot);
		x += w[c] + 2;
	}
	buf_release(&b);
}

static void draw_table(struct view *v, struct proposals_view *pv)
{
	struct screen *scr = v->scr;
	struct buf b = BUF_INIT;
	int w[NR_COLS], c, x, r, width = v->cols - 2;
	size_t nr_open = 0, i;

	for (i = 0; i < pv->nr; i++)
		nr_open += is_open(&pv->v[i]);
	if (pv->all)
		buf_addf(&b, "%zu proposal%s, %zu open", pv->nr,
			 pv->nr == 1 ? "" : "s", nr_open);
	else
		buf_addf(&b, "%zu open proposal%s", pv->nr,
			 pv->nr == 1 ? "" : "s");
	buf_addf(&b, " %s codebook ", glyph(G_DOT));
	sanitize_line(&b, scr->cb.name);
	buf_addch(&b, ' ');
	sanitize_line(&b, scr->cb.version);
	buf_addstr(&b, pv->all ? "   (a: open ones only)" :
		   "   (a: the decided ones too)");
	draw_str(v->win, 1, 1, width, b.ptr, b.len, SLOT_MD_STRONG);

	widths(pv, width - 1, w);
	for (c = 0, x = 2; c < NR_COLS && x < v->cols - 1; c++) {
		int cw = w[c] < v->cols - 1 - x ? w[c] : v->cols - 1 - x;

		if (!w[c])
			continue;
		buf_reset(&b);
		if (c == COL_ID || c == COL_LABELS)
			buf_addf(&b, "%*s", w[c], col_title[c]);
		else
			buf_addstr(&b, col_title[c]);
		draw_str(v->win, 2, x, cw, b.ptr, b.len, SLOT_DIM);
		x += w[c] + 2;
	}

	/* keep the selected row shown */
	if (pv->sel < pv->top)
		pv->top = pv->sel;
	if (pv->sel >= pv->top + (size_t)pv->list_rows)
		pv->top = pv->sel - (size_t)pv->list_rows + 1;
	for (r = 0; r < pv->list_rows; r++) {
		i = pv->top + (size_t)r;
		if (i >= pv->nr)
			break;
		draw_row(v, 3 + r, w, &pv->v[i], i == pv->sel);
	}
	if (!pv->nr)
		draw_str(v->win, 3, 2, width - 1, pv->all ? "no proposals" :
			 "no open proposals", pv->all ? 12 : 17, SLOT_DIM);
	buf_release(&b);
}

/* ---- deciding --------------------------------------------------------- */

static void relist(struct view *v);

static void ask_accept(struct screen *scr, struct proposals_view *pv)
{
	const struct proposal *p = selected(pv);
	struct codebook cb = CODEBOOK_INIT;
	struct err e = ERR_INIT;
	char *next;

	if (!p) {
		screen_msg(scr, MSG_INFO, "no proposal to accept");
		return;
	}
	if (!is_open(p)) {
		screen_msg(scr, MSG_ERR, "proposal %lld is %s already", p->id,
			   p->status);
		return;
	}
	/* the version the study's current codebook leads to, as
	 * proposal_accept() will number it */
	if (study_codebook(scr->st, &cb, NULL, &e) < 0) {
		screen_msg(scr, MSG_ERR, "%s", e.msg);
		return;
	}
	next = codebook_version_next(cb.version ? cb.version : "1");
	screen_msg(scr, MSG_INFO, "accept %s into %s %s? y/n", p->key,
		   cb.name, next);
	pv->confirm = 1;
	pv->confirm_id = p->id;
	free(next);
	codebook_release(&cb);
}

static void accept(struct screen *scr, struct proposals_view *pv)
{
	struct codebook cb = CODEBOOK_INIT;
	struct err e = ERR_INIT;
	struct buf what = BUF_INIT;
	long long id = pv->confirm_id;
	int labels = 0;
	size_t i;

	for (i = 0; i < pv->nr; i++)
		if (pv->v[i].id == id) {
			buf_addf(&what, "%s:%s", pv->v[i].dimension,
				 pv->v[i].key);
			labels = pv->v[i].nr_labels;
		}
	if (proposal_accept(scr->st, scr->actor, id, NULL, &e) < 0) {
		screen_msg(scr, MSG_ERR, "not accepted: %s", e.msg);
		goto out;
	}
	if (study_codebook(scr->st, &cb, NULL, &e) < 0)
		screen_msg(scr, MSG_OK, "accepted: %s (%d label%s)", what.ptr,
			   labels, labels == 1 ? "" : "s");
	else
		screen_msg(scr, MSG_OK, "accepted: %s, codebook %s (%d "
			   "label%s)", what.ptr, cb.version, labels,
			   labels == 1 ? "" : "s");
	/* the screen reloads first: the table's detail reads its codebook */
	if (pv->decided)
		pv->decided(scr, 1);
	reload(scr, pv);
out:
	codebook_release(&cb);
	buf_release(&what);
}

/* The picker's choice: map the proposal onto `code` of `d`. */
static int map_onto(struct screen *scr, const struct dimension *d,
		    const char *code)
{
	struct proposals_view *pv = pview_of(scr);
	struct err e = ERR_INIT;
	int labels = 0;
	size_t i;

	if (!pv || !pv->mapping)
		return -1;
	if (strcmp(d->key, pv->map_dim)) {
		screen_msg(scr, MSG_ERR, "%s:%s maps onto a code of %s",
			   pv->map_dim, pv->map_key, pv->map_dim);
		return -1;
	}
	for (i = 0; i < pv->nr; i++)
		if (pv->v[i].id == pv->map_id)
			labels = pv->v[i].nr_labels;
	if (proposal_map(scr->st, scr->actor, pv->map_id, code, &e) < 0) {
		screen_msg(scr, MSG_ERR, "not mapped: %s", e.msg);
		return -1;
	}
	screen_msg(scr, MSG_OK, "mapped: %s:%s onto %s (%d label%s)",
		   pv->map_dim, pv->map_key, code, labels,
		   labels == 1 ? "" : "s");
	pv->mapped = 1;
	if (pv->decided)
		pv->decided(scr, 0);
	reload(scr, pv);
	return 0;
}

static int map_has(struct screen *scr, const char *dim, const char *code)
{
	return 0;
}

static int map_set(struct screen *scr, const struct dimension *d,
		   const char *const *codes, size_t n)
{
	if (!n) {
		screen_msg(scr, MSG_ERR, "nothing to clear: pick the code to "
			   "map onto (Esc: not mapped)");
		return -1;
	}
	return map_onto(scr, d, codes[0]);
}

static int map_toggle(struct screen *scr, const struct dimension *d,
		      const char *code)
{
	return map_onto(scr, d, code);
}

static const struct pick_ops map_pick_ops = {
	.has_code = map_has,
	.set_codes = map_set,
	.toggle = map_toggle,
	.one_pick = 1,
	.pick_verb = "map onto",
};

/* The picker, kept on one dimension and closed once the map is saved. */
static int map_picker_open(struct view *v)
{
	return picker_view_ops.open(v);
}

static void map_picker_layout(struct view *v)
{
	picker_view_ops.layout(v);
}

static void map_picker_draw(struct view *v)
{
	picker_view_ops.draw(v);
}

static int map_picker_handle(struct view *v, enum action a, int key)
{
	struct proposals_view *pv = pview_of(v->scr);
	int r;

	if (a == ACT_NEXT_DIM || a == ACT_PREV_DIM) {
		screen_msg(v->scr, MSG_INFO, "a %s proposal maps onto a code "
			   "of %s", pv ? pv->map_dim : "", pv ? pv->map_dim :
			   "its dimension");
		return H_REDRAW;
	}
	r = picker_view_ops.handle(v, a, key);
	if (pv && pv->mapped)
		return H_CLOSE;
	return r;
}

static void map_picker_close(struct view *v)
{
	struct screen *scr = v->scr;
	struct proposals_view *pv = pview_of(scr);

	picker_view_ops.close(v);
	if (!pv || !pv->mapping)
		return;
	if (!pv->mapped)
		screen_msg(scr, MSG_INFO, "not mapped");
	scr->pick_ops = pv->saved_ops;
	pv->mapping = pv->mapped = 0;
	relist(pview_view(scr));
}

static const struct view_ops map_picker_ops = {
	.name = "map picker",
	.keymap = KEYMAP_PICKER,
	.priv_size = sizeof(struct picker),
	.text_input = 1,
	.open = map_picker_open,
	.layout = map_picker_layout,
	.draw = map_picker_draw,
	.handle = map_picker_handle,
	.close = map_picker_close,
};

static void start_map(struct screen *scr, struct proposals_view *pv)
{
	const struct proposal *p = selected(pv);
	const struct dimension *d;
	size_t dim;

	if (!p) {
		screen_msg(scr, MSG_INFO, "no proposal to map");
		return;
	}
	if (!is_open(p)) {
		screen_msg(scr, MSG_ERR, "proposal %lld is %s already", p->id,
			   p->status);
		return;
	}
	d = codebook_dim(&scr->cb, p->dimension);
	if (!d) {
		screen_msg(scr, MSG_ERR, "%s is no longer a dimension of the "
			   "codebook", p->dimension);
		return;
	}
	free(pv->map_dim);
	free(pv->map_key);
	pv->map_dim = xstrdup(p->dimension);
	pv->map_key = xstrdup(p->key);
	pv->map_id = p->id;
	pv->mapping = 1;
	pv->mapped = 0;
	pv->saved_ops = scr->pick_ops;
	scr->pick_ops = &map_pick_ops;
	dim = (size_t)(d - scr->cb.dims);
	/* on failure the picker is closed, which gives the screen its own
	 * pick_ops back */
	if (screen_push_with(scr, &map_picker_ops, &dim))
		screen_msg(scr, MSG_INFO, "map %s:%s onto which code of %s? "
			   "(Esc: not mapped)", p->dimension, p->key,
			   p->dimension);
}

/* ---- the view --------------------------------------------------------- */

/* v->arg: the screen's `decided` callback (struct decided_fn) */
static int proposals_open(struct view *v)
{
	struct proposals_view *pv = v->priv;
	const struct decided_fn *fn = v->arg;

	buf_init(&pv->doc.text, 0);
	pv->decided = fn->decided;
	pager_init(&pv->pg, &doc_pager_src, &pv->doc);
	return reload(v->scr, pv);
}

static void proposals_layout(struct view *v)
{
	struct screen *scr = v->scr;
	struct proposals_view *pv = v->priv;
	int inner, max;

	/* the panes and the panel under them: all but the status line */
	v->y = scr->area_y;
	v->x = 0;
	v->rows = scr->rows - 1 - scr->area_y;
	v->cols = scr->cols;
	screen_place(v);
	inner = v->rows - 2;
	/* summary, header, the table, a rule, then the detail */
	max = (inner - 3) / 2;
	if (max > inner - 3 - MIN_DETAIL_ROWS)
		max = inner - 3 - MIN_DETAIL_ROWS;
	pv->list_rows = pv->nr ? (int)pv->nr : 1;
	if (pv->list_rows > max)
		pv->list_rows = max;
	if (pv->list_rows < 1)
		pv->list_rows = 1;
	pv->det_y = 3 + pv->list_rows + 1;
	pv->det_rows = v->rows - 1 - pv->det_y;
	if (pv->det_rows < 1)
		pv->det_rows = 1;
	pager_set_size(&pv->pg, pv->det_rows, v->cols - 4);
}

static void proposals_draw(struct view *v)
{
	struct proposals_view *pv = v->priv;
	const struct proposal *p = selected(pv);
	struct buf b = BUF_INIT;
	int width = v->cols - 4;

	if (pv->doc_id != (p ? p->id : -1) || pv->doc_width != width) {
		render(v->scr, pv, width);
		pager_goto(&pv->pg, 0);
	}
	werase(v->win);
	draw_frame(v->win, "Proposed codes (j/k select, Enter accept, m map, "
		   "a all, q close)", SLOT_DIALOG_TITLE);
	draw_table(v, pv);
	wattrset(v->win, slot_attr(SLOT_DIALOG));
	mvwhline(v->win, pv->det_y - 1, 1, ACS_HLINE, v->cols - 2);
	wattrset(v->win, A_NORMAL);
	pager_draw(&pv->pg, v->win, pv->det_y, 2, 1);
	pager_position(&pv->pg, &b);
	if ((int)b.len + 4 < v->cols)
		draw_str(v->win, v->rows - 1, v->cols - (int)b.len - 3,
			 (int)b.len, b.ptr, b.len, SLOT_DIALOG);
	wnoutrefresh(v->win);
	buf_release(&b);
}

/* The table's height follows the number of proposals. */
static void relist(struct view *v)
{
	int rows = v->scr->too_small ? 0 : v->rows;

	if (rows)
		proposals_layout(v);
	v->scr->dirty |= DIRTY_OVERLAY;
}

static int proposals_handle(struct view *v, enum action a, int key)
{
	struct screen *scr = v->scr;
	struct proposals_view *pv = v->priv;

	if (pv->confirm) {
		/* a y/n question takes the next key, whatever it is */
		pv->confirm = 0;
		if ((a == ACT_ACCEPT_PROPOSAL && key == 'y') || key == 'Y') {
			accept(scr, pv);
			relist(v);
		} else {
			screen_msg(scr, MSG_INFO, "not accepted");
		}
		return H_REDRAW;
	}
	switch (a) {
	case ACT_NEXT_PROPOSAL:
		if (pv->sel + 1 < pv->nr)
			pv->sel++;
		return H_REDRAW;
	case ACT_PREV_PROPOSAL:
		if (pv->sel)
			pv->sel--;
		return H_REDRAW;
	case ACT_ACCEPT_PROPOSAL:
		ask_accept(scr, pv);
		return H_REDRAW;
	case ACT_MAP_PROPOSAL:
		start_map(scr, pv);
		return H_HANDLED;
	case ACT_ALL_PROPOSALS:
		pv->all = !pv->all;
		if (reload(scr, pv) == 0)
			screen_msg(scr, MSG_INFO, pv->all ? "every proposal, "
				   "the decided ones too" : "the open "
				   "proposals");
		relist(v);
		return H_REDRAW;
	case ACT_CLOSE:
	case ACT_QUIT:
	case ACT_PROPOSALS:
		return H_CLOSE;
	case ACT_HELP:
	case ACT_SEARCH:
	case ACT_SEARCH_NEXT:
	case ACT_SEARCH_PREV:
	case ACT_REDRAW:
	case ACT_NONE:
		return H_UNHANDLED;
	default:
		return pager_action(&pv->pg, a) ? H_REDRAW : H_HANDLED;
	}
}

static void proposals_close(struct view *v)
{
	struct proposals_view *pv = v->priv;

	proposal_list_free(pv->v, pv->nr);
	free(pv->map_dim);
	free(pv->map_key);
	doc_release(&pv->doc);
	pager_release(&pv->pg);
}

static struct pager *proposals_pager(struct view *v)
{
	struct proposals_view *pv = v->priv;

	return &pv->pg;
}

const struct view_ops proposals_view_ops = {
	.name = "proposals",
	.keymap = KEYMAP_PROPOSALS,
	.priv_size = sizeof(struct proposals_view),
	.text_input = 1,	/* any key answers the y/n question */
	.open = proposals_open,
	.layout = proposals_layout,
	.draw = proposals_draw,
	.handle = proposals_handle,
	.close = proposals_close,
	.pager = proposals_pager,
};

struct view *screen_open_proposals(struct screen *scr,
				   void (*decided)(struct screen *scr,
						   int new_codebook))
{
	struct decided_fn fn = { decided };

	return screen_push_with(scr, &proposals_view_ops, &fn);
}
