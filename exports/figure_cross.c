/* SPDX-License-Identifier: MIT */
/*
 * figure_cross: the report's cross table (cross[.CODE].counts: items
 * per pair of codes of --cross D1,D2, one table per code of --by) as a
 * heat map with the count in every cell and the totals beside it.
 *
 * The shade grows with the count (ColorBrewer YlGnBu, so it prints in
 * grey); an empty cell stays white.  A cell is at least as wide as the
 * widest count.  With more rows than MAX_ROWS or more columns than fit, the rows or columns with the
 * fewest items are left out, and the caption says how many and with how
 * many items (figures.json names them).
 */
#include "exports/figure.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ROWS 30
#define MIN_CELL 11.0
#define MAX_CELL 20.0
#define CELL_H 10.0

struct heat {
	const struct summary *s;
	size_t t;
	const struct dimension *dx, *dy;
	size_t nr, nc;		/* data rows and columns (totals out) */
	size_t *rows, *cols;	/* the drawn ones, table order */
	size_t nrow, ncol;
	size_t left_rows, left_cols;
	double left_row_items, left_col_items;
	double max;
	double cell_w;		/* the narrowest a cell may be */
	double total_w;		/* the totals' column */
	char **rlabel, **clabel;	/* drawn, owned */
	struct figure *f;	/* while labels are first cut */
};

static double cell(const struct heat *h, size_t r, size_t c)
{
	double v = 0;

	summary_value(h->s, h->t, r, c + 1, &v);
	return v;
}

/* Keep the `keep` of n entries with the largest totals, in their
 * order; returns how many were kept into out[]. */
static size_t keep_largest(const double *tot, size_t n, size_t keep,
			   size_t *out)
{
	char *in = xcalloc(n + 1, 1);
	size_t i, k, m = 0;

	for (k = 0; k < keep && k < n; k++) {
		size_t best = n;

		for (i = 0; i < n; i++)
			if (!in[i] && (best == n || tot[i] > tot[best]))
				best = i;
		in[best] = 1;
	}
	for (i = 0; i < n; i++)
		if (in[i])
			out[m++] = i;
	free(in);
	return m;
}

static void choose(struct heat *h, size_t max_cols)
{
	double *rt = xcalloc(h->nr + 1, sizeof(double));
	double *ct = xcalloc(h->nc + 1, sizeof(double));
	size_t r, c;

	for (r = 0; r < h->nr; r++)
		summary_value(h->s, h->t, r, h->nc + 1, &rt[r]);
	for (c = 0; c < h->nc; c++)
		summary_value(h->s, h->t, h->nr, c + 1, &ct[c]);
	h->rows = xcalloc(h->nr + 1, sizeof(size_t));
	h->cols = xcalloc(h->nc + 1, sizeof(size_t));
	h->nrow = keep_largest(rt, h->nr, MAX_ROWS, h->rows);
	h->ncol = keep_largest(ct, h->nc, max_cols, h->cols);
	h->left_rows = h->nr - h->nrow;
	h->left_cols = h->nc - h->ncol;
	for (r = 0; r < h->nr; r++) {
		size_t k;
		int drawn = 0;

		for (k = 0; k < h->nrow; k++)
			drawn |= h->rows[k] == r;
		if (!drawn)
			h->left_row_items += rt[r];
	}
	for (c = 0; c < h->nc; c++) {
		size_t k;
		int drawn = 0;

		for (k = 0; k < h->ncol; k++)
			drawn |= h->cols[k] == c;
		if (!drawn)
			h->left_col_items += ct[c];
	}
	h->max = 0;
	for (r = 0; r < h->nrow; r++)
		for (c = 0; c < h->ncol; c++)
			if (cell(h, h->rows[r], h->cols[c]) > h->max)
				h->max = cell(h, h->rows[r], h->cols[c]);
	free(rt);
	free(ct);
}

static void labels(struct heat *h, struct canvas *cv, double rmax,
		   double cmax)
{
	size_t i;

	fig_font(cv, FIG_SMALL, 0);
	for (i = 0; i < h->nrow; i++) {
		const char *key = summary_text(h->s, h->t, h->rows[i], 0);
		char *full = fig_code_label(cv, h->dx, key);
		int cut;

		free(h->rlabel[i]);
		h->rlabel[i] = fig_fit(cv, full, rmax, &cut);
		if (cut && h->f)
			figure_shortened(h->f, h->rlabel[i], full, key);
		free(full);
	}
	for (i = 0; i < h->ncol; i++) {
		const char *key = summary_column(h->s, h->t, h->cols[i] + 1);
		char *full = fig_code_label(cv, h->dy, key);
		int cut;

		free(h->clabel[i]);
		h->clabel[i] = fig_fit(cv, full, cmax, &cut);
		if (cut && h->f)
			figure_shortened(h->f, h->clabel[i], full, key);
		free(full);
	}
}

static double widest(struct canvas *cv, char **v, size_t n)
{
	double w = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if (fig_text_width(cv, v[i]) > w)
			w = fig_text_width(cv, v[i]);
	return w;
}

static double draw(struct canvas *cv, void *data)
{
	struct heat *h = data;
	struct buf b = BUF_INIT;
	double rw, ch, cw, x0, y0, y, tw;
	size_t r, c;

	labels(h, cv, 0.32 * FIG_WIDTH, 70);
	fig_font(cv, FIG_SMALL, 0);
	rw = widest(cv, h->rlabel, h->nrow);
	ch = widest(cv, h->clabel, h->ncol);
	tw = h->total_w;
	x0 = FIG_MARGIN + rw + 3;
	cw = h->ncol ? (FIG_WIDTH - FIG_MARGIN - x0 - tw) / (double)h->ncol :
	     MAX_CELL;
	if (cw > MAX_CELL && cw > h->cell_w)
		cw = MAX_CELL > h->cell_w ? MAX_CELL : h->cell_w;
	y0 = FIG_MARGIN + ch + 3;

	/* column labels, reading upwards, and the totals' heading */
	fig_set(cv, fig_ink);
	for (c = 0; c < h->ncol; c++)
		fig_text_up(cv, x0 + (double)c * cw + cw / 2 + 2.2, y0 - 3,
			    h->clabel[c]);
	fig_text_up(cv, x0 + (double)h->ncol * cw + tw / 2 + 2.2, y0 - 3,
		    "total");
	y = y0;
	for (r = 0; r < h->nrow; r++) {
		double tot = 0;

		fig_set(cv, fig_ink);
		fig_text(cv, x0 - 3, y + CELL_H / 2 + 2.3, FIG_RIGHT,
			 h->rlabel[r]);
		for (c = 0; c < h->ncol; c++) {
			double v = cell(h, h->rows[r], h->cols[c]);
			double cx = x0 + (double)c * cw;
			struct rgb col;

			if (v <= 0)
				continue;
			col = fig_sequential(0.12 + 0.88 * v / h->max);
			fig_set(cv, col);
			fig_rect(cv, cx, y, cw, CELL_H);
			buf_reset(&b);
			buf_addf(&b, "%.0f", v);
			cairo_set_source_rgb(cv->cr, fig_dark(col) ? 1 : 0,
					     fig_dark(col) ? 1 : 0,
					     fig_dark(col) ? 1 : 0);
			fig_text(cv, cx + cw / 2, y + CELL_H / 2 + 2.3,
				 FIG_CENTER, b.ptr);
		}
		summary_value(h->s, h->t, h->rows[r], h->nc + 1, &tot);
		buf_reset(&b);
		buf_addf(&b, "%.0f", tot);
		fig_set(cv, fig_ink);
		fig_text(cv, x0 + (double)h->ncol * cw + tw / 2,
			 y + CELL_H / 2 + 2.3, FIG_CENTER, b.ptr);
		y += CELL_H;
	}
	/* the totals row */
	fig_text(cv, x0 - 3, y + CELL_H / 2 + 2.3, FIG_RIGHT, "total");
	for (c = 0; c <= h->ncol; c++) {
		double v = 0;

		summary_value(h->s, h->t, h->nr, c < h->ncol ? h->cols[c] + 1 :
			      h->nc + 1, &v);
		buf_reset(&b);
		buf_addf(&b, "%.0f", v);
		fig_text(cv, c < h->ncol ? x0 + (double)c * cw + cw / 2 :
			 x0 + (double)h->ncol * cw + tw / 2,
			 y + CELL_H / 2 + 2.3, FIG_CENTER, b.ptr);
	}
	/* the grid */
	cairo_set_source_rgb(cv->cr, fig_grid.r, fig_grid.g, fig_grid.b);
	for (r = 0; r <= h->nrow; r++)
		fig_line(cv, x0, y0 + (double)r * CELL_H,
			 x0 + (double)h->ncol * cw, y0 + (double)r * CELL_H,
			 0.3, 0);
	for (c = 0; c <= h->ncol; c++)
		fig_line(cv, x0 + (double)c * cw, y0, x0 + (double)c * cw,
			 y0 + (double)h->nrow * CELL_H, 0.3, 0);
	fig_set(cv, fig_ink);
	fig_line(cv, x0, y, x0 + (double)h->ncol * cw + tw, y, 0.5, 0);
	fig_line(cv, x0 + (double)h->ncol * cw, y0,
		 x0 + (double)h->ncol * cw, y + CELL_H, 0.5, 0);
	y += CELL_H + 2;
	buf_release(&b);
	return y;
}

/* "(none)" -> "none": a code key or slot name for a file name. */
static void file_part(struct buf *b, const char *s)
{
	for (; *s; s++)
		if (*s == ' ')
			buf_addch(b, '-');
		else if (*s != '(' && *s != ')')
			buf_addch(b, *s);
}

/* A cell holds its count: the width of the widest count (the column
 * totals included) into h->cell_w, the totals' column into h->total_w. */
static void measure(struct heat *h, struct canvas *probe)
{
	size_t r, c;

	h->cell_w = MIN_CELL;
	fig_font(probe, FIG_SMALL, 0);
	for (r = 0; r <= h->nr; r++)
		for (c = 0; c <= h->nc; c++) {
			double v = 0, w;
			struct buf n = BUF_INIT;

			summary_value(h->s, h->t, r, c + 1, &v);
			buf_addf(&n, "%.0f", v);
			w = fig_text_width(probe, n.ptr) + 3;
			if (r == h->nr && c == h->nc)
				h->total_w = w + 1;
			else if (w > h->cell_w)
				h->cell_w = w;
			buf_release(&n);
		}
	if (h->total_w < fig_text_width(probe, "total") + 4)
		h->total_w = fig_text_width(probe, "total") + 4;
}

/* The caption: what is drawn, how it is counted, what is left out. */
static void caption(struct buf *cap, const struct heat *h,
		    const struct fig_ctx *x, const char *kx, const char *ky,
		    const char *bycode, const char *tid)
{
	const struct summary_opts *ro = &x->o->report;

	buf_addf(cap, "%s (rows) x %s (columns)", kx, ky);
	if (bycode)
		buf_addf(cap, " where %s = %s", ro->by, bycode);
	buf_addf(cap, ": items per pair of codes, darker for more (most "
		 "%.0f); an item with several codes counts in every pair. ",
		 h->max);
	fig_counting(cap, x, h->s);
	buf_addf(cap, ". Report table %s.", tid);
	if (h->left_rows)
		buf_addf(cap, " %zu row%s with %.0f item%s not drawn.",
			 h->left_rows, h->left_rows == 1 ? "" : "s",
			 h->left_row_items, h->left_row_items == 1 ? "" : "s");
	if (h->left_cols)
		buf_addf(cap, " %zu column%s with %.0f item%s not drawn.",
			 h->left_cols, h->left_cols == 1 ? "" : "s",
			 h->left_col_items, h->left_col_items == 1 ? "" : "s");
}

/* Every cell of the table in figures.json ("marks" when drawn, else
 * "left_out") and in the CSV. */
static void record(struct figure *f, const struct heat *h, cJSON *marks,
		   cJSON *left)
{
	size_t r, c;

	for (r = 0; r < h->nr; r++)
		for (c = 0; c < h->nc; c++) {
			size_t k;
			int drawn = 0;
			cJSON *m = cJSON_CreateObject();
			const char *rk = summary_text(h->s, h->t, r, 0);
			const char *ck = summary_column(h->s, h->t, c + 1);

			for (k = 0; k < h->nrow; k++)
				drawn |= h->rows[k] == r;
			if (drawn) {
				drawn = 0;
				for (k = 0; k < h->ncol; k++)
					drawn |= h->cols[k] == c;
			}
			cJSON_AddStringToObject(m, "row", rk);
			cJSON_AddStringToObject(m, "column", ck);
			cJSON_AddNumberToObject(m, "items", cell(h, r, c));
			cJSON_AddItemToArray(drawn ? marks : left, m);
			csvw_key(&f->csv, rk);
			csvw_key(&f->csv, ck);
			csvw_double(&f->csv, cell(h, r, c), 0);
			csvw_bool(&f->csv, drawn);
			csvw_end(&f->csv);
		}
}

static int one(const struct fig_ctx *x, size_t t, const char *bycode,
	       struct err *e)
{
	const struct summary *s = x->main;
	const struct summary_opts *ro = &x->o->report;
	const struct codebook *cb = x->cb;
	struct heat h;
	struct figure f;
	struct buf name = BUF_INIT, title = BUF_INIT, cap = BUF_INIT;
	const char *tid = summary_table_id(s, t);
	const char *kx = ro->cross[0] ? ro->cross[0] : cb->dims[0].key;
	const char *ky = ro->cross[1] ? ro->cross[1] : cb->dims[1].key;
	static const char *const head[] = {
		"row", "column", "items", "drawn", NULL,
	};
	cJSON *marks, *left;
	size_t r, c, max_cols;
	int ret;

	memset(&h, 0, sizeof(h));
	h.s = s;
	h.t = t;
	h.dx = codebook_dim(cb, kx);
	h.dy = codebook_dim(cb, ky);
	if (summary_table_rows(s, t) < 2 || summary_table_cols(s, t) < 3)
		return 0;
	h.nr = summary_table_rows(s, t) - 1;
	h.nc = summary_table_cols(s, t) - 2;
	/* a cell holds its count: as many columns as fit at the width of
	 * the widest count (the column totals included) */
	measure(&h, x->probe);
	max_cols = (size_t)((FIG_WIDTH - 2 * FIG_MARGIN - 0.32 * FIG_WIDTH -
			     3 - h.total_w) / h.cell_w);
	if (!max_cols)
		max_cols = 1;
	choose(&h, max_cols);
	h.rlabel = xcalloc(h.nrow + 1, sizeof(char *));
	h.clabel = xcalloc(h.ncol + 1, sizeof(char *));

	buf_addf(&name, "cross-%s-%s", kx, ky);
	buf_addf(&title, "%s by %s", kx, ky);
	if (bycode) {
		buf_addch(&name, '-');
		file_part(&name, ro->by);
		buf_addch(&name, '-');
		file_part(&name, bycode);
		buf_addf(&title, " where %s = %s", ro->by, bycode);
	}
	figure_start(&f, x, name.ptr, "cross", title.ptr);
	h.f = &f;
	labels(&h, x->probe, 0.32 * FIG_WIDTH, 70);
	h.f = NULL;
	caption(&cap, &h, x, kx, ky, bycode, tid);
	fig_source(f.entry, x, &tid, 1, NULL);
	cJSON_AddStringToObject(f.entry, "rows", kx);
	cJSON_AddStringToObject(f.entry, "columns", ky);
	if (bycode) {
		cJSON_AddStringToObject(f.entry, "by", ro->by);
		cJSON_AddStringToObject(f.entry, "by_code", bycode);
	}
	cJSON_AddNumberToObject(f.entry, "max", h.max);
	marks = cJSON_AddArrayToObject(f.entry, "marks");
	left = cJSON_AddArrayToObject(f.entry, "left_out");
	csvw_header(&f.csv, head);
	csvw_end(&f.csv);
	record(&f, &h, marks, left);
	ret = figure_finish(&f, x, draw, &h, cap.ptr, e);
	figure_release(&f);
	for (r = 0; r < h.nrow; r++)
		free(h.rlabel[r]);
	for (c = 0; c < h.ncol; c++)
		free(h.clabel[c]);
	free(h.rlabel);
	free(h.clabel);
	free(h.rows);
	free(h.cols);
	buf_release(&name);
	buf_release(&title);
	buf_release(&cap);
	return ret;
}

int figure_cross(const struct fig_ctx *x, struct err *e)
{
	const struct summary *s = x->main;
	size_t t, n = summary_nr_tables(s);
	int ret = 0;

	if (x->cb->nr_dims < 2)
		return 0;
	for (t = 0; t < n && !ret; t++) {
		const char *id = summary_table_id(s, t);
		size_t len = strlen(id);
		char *code;

		if (!strcmp(id, "cross.counts"))
			code = NULL;
		else if (!strncmp(id, "cross.", 6) && len > 13 &&
			 !strcmp(id + len - 7, ".counts"))
			code = xstrndup(id + 6, len - 13);
		else
			continue;
		ret = one(x, t, code, e);
		free(code);
	}
	return ret;
}
