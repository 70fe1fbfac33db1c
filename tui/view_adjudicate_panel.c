/* SPDX-License-Identifier: MIT */
/*
 * view_adjudicate_panel: the resolution panel under the panes - a row per
 * dimension (status, every coder's codes, the final code), then a row
 * per coder with flags and memo (see view_adjudicate.c).
 */
#define _XOPEN_SOURCE_EXTENDED 1
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/study/adjudicate.h"
#include "core/base/text.h"
#include "tui/screen.h"
#include "tui/view_adjudicate.h"

#define KEY_COL_MAX 14		/* dimension names in the panel */

struct panel_geom {
	int key_x, key_w;	/* dimension names */
	int coder_x, coder_w;	/* the first coder's column, each width */
	size_t nr_cols;		/* coder columns that fit before final */
	int final_x, final_w;
};

static void geometry(const struct adj *adj, struct panel_geom *g)
{
	const struct screen *scr = adj->scr;
	size_t i, n = adj->is.nr_coders > 2 ? adj->is.nr_coders : 2;
	int w = 9;

	for (i = 0; i < scr->cb.nr_dims; i++) {
		int k = text_width(scr->cb.dims[i].key,
				   strlen(scr->cb.dims[i].key));

		if (k > w)
			w = k;
	}
	g->key_x = 4;
	g->key_w = w > KEY_COL_MAX ? KEY_COL_MAX : w;
	g->final_w = scr->cols >= 120 ? 30 : scr->cols >= 100 ? 24 : 18;
	g->coder_x = g->key_x + g->key_w + 2;
	g->final_x = scr->cols - g->final_w;
	g->coder_w = (g->final_x - g->coder_x) / (int)n;
	if (g->coder_w < 4)
		g->coder_w = 4;
	/* on a wide screen the final code stays near the coders' */
	if (g->coder_w > 36) {
		g->coder_w = 36;
		g->final_x = g->coder_x + (int)n * g->coder_w;
	}
	/* with many coders the last ones get no column rather than one
	 * drawn over the final code (the rationale dialog lists them all) */
	g->nr_cols = n;
	if (g->coder_x + (int)n * g->coder_w > g->final_x)
		g->nr_cols = (size_t)((g->final_x - g->coder_x) / g->coder_w);
}

/* Does every coder shown have `code` for dimension `dim`? */
static int shared(const struct adj *adj, const char *dim, const char *code)
{
	size_t n, k;

	if (adj->is.nr_coders < 2)
		return 0;
	for (n = 0; n < adj->is.nr_coders; n++) {
		const struct coded_dim *cd = adj_coder_dim(adj, n, dim);

		for (k = 0; cd && k < cd->nr_codes; k++)
			if (!strcmp(cd->codes[k], code))
				break;
		if (!cd || k == cd->nr_codes)
			return 0;
	}
	return 1;
}

/*
 * Coder n's codes of a dimension in `cols` columns at (y, x): the codes
 * every coder shares first - bold where the coders disagree, so what
 * they have in common shows at a glance - then the others; what does not
 * fit is counted ("+2"), never left out unsaid, and a shared code is
 * never pushed out by one that is not.
 */
static void draw_codes(struct adj *adj, int y, int x, int cols,
		       const struct dim_state *ds, size_t n, enum slot slot)
{
	WINDOW *w = adj->scr->bar;
	const struct coded_dim *cd = adj_coder_dim(adj, n, ds->dim->key);
	const char **order;
	struct buf b = BUF_INIT;
	char more[32];
	size_t k, m = 0, nr = cd ? cd->nr_codes : 0;
	int used = 0, pass;

	if (!nr) {
		draw_str(w, y, x, cols, "(none)", 6, SLOT_DIM);
		return;
	}
	order = xcalloc(nr, sizeof(*order));
	for (pass = 0; pass < 2; pass++)
		for (k = 0; k < nr; k++)
			if (shared(adj, ds->dim->key, cd->codes[k]) == !pass)
				order[m++] = cd->codes[k];
	for (k = 0; k < nr && used < cols; k++) {
		int sh = ds->status == DIM_DISAGREE &&
			 shared(adj, ds->dim->key, order[k]);
		int need, room = cols - used;

		buf_reset(&b);
		if (k)
			buf_addch(&b, ',');
		sanitize_line(&b, order[k]);
		need = text_width(b.ptr, b.len);
		/* the codes after this one, if it is the last that fits */
		snprintf(more, sizeof(more), " +%zu", nr - k - 1);
		if (k + 1 < nr)
			room -= (int)strlen(more);
		if (need > room && k) {
			/* say how many are left, this one included */
			snprintf(more, sizeof(more), " +%zu", nr - k);
			draw_str(w, y, x + used, cols - used, more,
				 strlen(more), SLOT_DIM);
			break;
		}
		used += draw_str(w, y, x + used, room > 0 ? room : 1, b.ptr,
				 b.len, sh ? SLOT_AGREED : slot);
		if (need > room && k + 1 < nr) {
			draw_str(w, y, x + used, cols - used, more,
				 strlen(more), SLOT_DIM);
			break;
		}
	}
	free(order);
	buf_release(&b);
}

static void draw_dim_row(struct adj *adj, const struct panel_geom *g, int y,
			 size_t d)
{
	struct screen *scr = adj->scr;
	WINDOW *w = scr->bar;
	const struct dim_state *ds = &adj->is.dims[d];
	int sel = d == adj->sel, x;
	size_t n;
	struct buf b = BUF_INIT;
	enum slot mark, codes;

	switch (ds->status) {
	case DIM_AGREED:
	case DIM_RESOLVED:
		mark = SLOT_AGREED;
		codes = ds->status == DIM_AGREED ? SLOT_NORMAL : SLOT_DIM;
		break;
	case DIM_DISAGREE:
		mark = codes = SLOT_DISAGREE;
		break;
	default:
		mark = codes = SLOT_DIM;
		break;
	}
	if (sel)
		draw_str(w, y, 0, 1, ">", 1, SLOT_SEL);
	{
		const char *gl = glyph(ds->status == DIM_DISAGREE ? G_DIFFER :
				       ds->status == DIM_PENDING ? G_PENDING :
				       G_AGREED);

		draw_str(w, y, 1, 2, gl, strlen(gl), mark);
	}
	sanitize_line(&b, ds->dim->key);
	x = draw_str(w, y, g->key_x, g->key_w, b.ptr, b.len,
		     sel ? SLOT_SEL : ds->status == DIM_DISAGREE ?
		     SLOT_DISAGREE : SLOT_NORMAL);
	if (sel && x < g->key_w)
		draw_fill(w, y, g->key_x + x, g->key_w - x, SLOT_SEL);
	for (n = 0; n < adj->is.nr_coders && n < g->nr_cols; n++)
		draw_codes(adj, y, g->coder_x + (int)n * g->coder_w,
			   g->coder_w - 1, ds, n, codes);
	buf_reset(&b);
	switch (ds->status) {
	case DIM_AGREED:
		buf_addstr(&b, "agreed");
		break;
	case DIM_RESOLVED: {
		const char *p;

		buf_addf(&b, "%s ", glyph(G_ARROW));
		for (p = ds->final; p && *p; p++)
			buf_addch(&b, *p == ';' ? ',' : *p);
		if (ds->cause) {
			buf_addstr(&b, " (");
			sanitize_line(&b, ds->cause);
			buf_addch(&b, ')');
		}
		break;
	}
	case DIM_DISAGREE:
		buf_addstr(&b, "to resolve");
		break;
	default:
		buf_addstr(&b, "waiting");
		break;
	}
	{
		/* codes are codebook keys, checked when saved; sanitize
		 * anyway */
		struct buf s = BUF_INIT;

		sanitize_line(&s, b.ptr);
		draw_str(w, y, g->final_x, g->final_w, s.ptr, s.len,
			 ds->status == DIM_RESOLVED ? SLOT_BAR_SET :
			 ds->status == DIM_AGREED ? SLOT_AGREED :
			 ds->status == DIM_DISAGREE ? SLOT_DISAGREE : SLOT_DIM);
		buf_release(&s);
	}
	buf_release(&b);
}

static void draw_coder_row(struct adj *adj, int y, size_t n)
{
	struct screen *scr = adj->scr;
	WINDOW *w = scr->bar;
	const struct coding *c = &adj->is.coders[adj->shown[n]].coding;
	struct buf b = BUF_INIT;
	int x = 1;

	adj_coder_label(adj, n, &b);
	buf_addch(&b, ':');
	x += draw_str(w, y, x, scr->cols - x, b.ptr, b.len, SLOT_MD_STRONG);
	buf_reset(&b);
	if (c->uncertain)
		buf_addstr(&b, " [uncertain]");
	if (c->discuss)
		buf_addstr(&b, " [discuss]");
	if (b.len)
		x += draw_str(w, y, x, scr->cols - x, b.ptr, b.len,
			      SLOT_LABEL);
	buf_reset(&b);
	if (c->memo && *c->memo) {
		size_t len = strcspn(c->memo, "\n");

		x += draw_str(w, y, x, scr->cols - x, " memo: ", 7, SLOT_DIM);
		text_sanitize(&b, c->memo, len, 8, 0);
		if (c->memo[len])
			buf_addstr(&b, " (M: all of it)");
		draw_str(w, y, x, scr->cols - x, b.ptr, b.len, SLOT_NORMAL);
	} else {
		draw_str(w, y, x, scr->cols - x, " no memo", 8, SLOT_DIM);
	}
	buf_release(&b);
}

void adj_draw_panel(struct screen *scr)
{
	struct adj *adj = ADJ(scr);
	WINDOW *w = scr->bar;
	struct panel_geom g;
	struct buf b = BUF_INIT;
	size_t n, d, coders = adj->is.nr_coders;
	int y, dim_rows, coder_rows;

	werase(w);
	geometry(adj, &g);
	/* column titles */
	draw_fill(w, 0, 0, scr->cols, SLOT_PANE_TITLE);
	draw_str(w, 0, g.key_x, g.key_w, "dimension", 9, SLOT_PANE_TITLE);
	for (n = 0; (n < coders || n < 2) && n < g.nr_cols; n++) {
		buf_reset(&b);
		if (n < coders) {
			if (n < 9)
				buf_addf(&b, "%zu ", n + 1);
			adj_coder_label(adj, n, &b);
		} else {
			buf_addf(&b, "Coder %zu: not submitted", n + 1);
		}
		draw_str(w, 0, g.coder_x + (int)n * g.coder_w, g.coder_w - 1,
			 b.ptr, b.len, SLOT_PANE_TITLE);
	}
	draw_str(w, 0, g.final_x, g.final_w, "final", 5, SLOT_PANE_TITLE);

	coder_rows = (int)(coders > 2 ? coders : 2);
	dim_rows = scr->bar_rows - 1 - coder_rows;
	if (dim_rows < 1) {
		dim_rows = scr->bar_rows - 1;
		coder_rows = 0;
	}
	if (adj->sel < adj->top)
		adj->top = adj->sel;
	if (adj->sel >= adj->top + (size_t)dim_rows)
		adj->top = adj->sel - (size_t)dim_rows + 1;
	for (y = 0; y < dim_rows; y++) {
		d = adj->top + (size_t)y;
		if (d >= adj->is.nr_dims)
			break;
		draw_dim_row(adj, &g, 1 + y, d);
	}
	y = scr->bar_rows - coder_rows;
	if (!coders && coder_rows)
		draw_str(w, y, 1, scr->cols - 1, "Nobody has submitted this "
			 "item yet.", 35, SLOT_DIM);
	for (n = 0; n < coders && (int)n < coder_rows; n++)
		draw_coder_row(adj, y + (int)n, n);
	wnoutrefresh(w);
	buf_release(&b);
}
