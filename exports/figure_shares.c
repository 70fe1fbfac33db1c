/* SPDX-License-Identifier: MIT */
/*
 * figure_shares: items per code of every dimension as sorted bars
 * (shares-DIM, from the report's shares.DIM) and, with more than one
 * repository, the same per repository as small multiples on one shared
 * scale (shares-DIM-by-repo, from repo.DIM).
 *
 * Rows: the codebook's codes by count (then codebook order), the codes
 * marked "distributed": true in a group of their own below, then the
 * report's "(none)", "(not in codebook)" and "(pending)" rows.  At most
 * MAX_BARS rows are drawn: with more codes, the ones with the fewest
 * items are left out, and the figure says how many and with how many
 * items at most (figures.json names them).
 */
#include "exports/figure.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BARS 24
#define ROW_H 10.0		/* a bar's row */
#define BAR_H 6.5
#define PANELS_PER_ROW 3

enum group {
	G_GENERAL,
	G_DISTRIBUTED,
	G_EXTRA,
};

struct bar {
	const char *key;	/* borrowed from the summary */
	size_t row;		/* its row in the shares table */
	long order;		/* codebook order; extras after */
	enum group group;
	double n, pct;
	int has_pct;
	int shown;
	char *label;		/* as drawn, owned */
};

struct shares {
	const struct fig_ctx *x;
	const struct dimension *dim;
	const struct summary *s;
	size_t t;		/* shares.DIM */
	int rt;			/* repo.DIM, or -1 */
	struct bar *v;		/* every row */
	size_t nr;
	struct bar **shown;	/* drawn, in drawing order */
	size_t nr_shown;
	double left_max;	/* most items of a code left out */
	size_t nr_left;
	struct figure *f;
	/* layout, found on the first call */
	double label_w, value_w;
	/* by repository */
	size_t nr_panels;	/* repositories */
	int *pcol;		/* per panel: its count column in repo.DIM */
	double max_pct;		/* the shared scale */
};

static int cmp_rank(const void *a, const void *b)
{
	const struct bar *x = *(struct bar *const *)a;
	const struct bar *y = *(struct bar *const *)b;

	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int cmp_draw(const void *a, const void *b)
{
	const struct bar *x = *(struct bar *const *)a;
	const struct bar *y = *(struct bar *const *)b;

	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	return cmp_rank(a, b);
}

static void load(struct shares *sh)
{
	const struct summary *s = sh->s;
	size_t rows = summary_table_rows(s, sh->t), r, i;
	struct bar **rank;

	sh->v = xcalloc(rows + 1, sizeof(*sh->v));
	for (r = 0; r < rows; r++) {
		const char *key = summary_text(s, sh->t, r, 0);
		struct bar *b = &sh->v[sh->nr];
		int idx;

		if (!strcmp(key, "total"))
			continue;
		b->key = key;
		b->row = r;
		idx = dimension_code_index(sh->dim, key);
		b->order = idx >= 0 ? idx : (long)(sh->dim->nr_codes + r);
		b->group = idx < 0 ? G_EXTRA : sh->dim->codes[idx].distributed ?
			   G_DISTRIBUTED : G_GENERAL;
		summary_value(s, sh->t, r, 1, &b->n);
		b->has_pct = summary_value(s, sh->t, r, 2, &b->pct);
		sh->nr++;
	}
	rank = xcalloc(sh->nr + 1, sizeof(*rank));
	for (i = 0; i < sh->nr; i++)
		rank[i] = &sh->v[i];
	qsort(rank, sh->nr, sizeof(*rank), cmp_rank);
	for (i = 0; i < sh->nr; i++) {
		/* with more rows than fit, one row says what was left out */
		rank[i]->shown = sh->nr <= MAX_BARS || i < MAX_BARS - 1;
		if (!rank[i]->shown) {
			sh->nr_left++;
			if (rank[i]->n > sh->left_max)
				sh->left_max = rank[i]->n;
		}
	}
	qsort(rank, sh->nr, sizeof(*rank), cmp_draw);
	sh->shown = rank;
	for (i = 0; i < sh->nr; i++)
		if (rank[i]->shown)
			rank[sh->nr_shown++] = rank[i];
}

static void release(struct shares *sh)
{
	size_t i;

	for (i = 0; i < sh->nr; i++)
		free(sh->v[i].label);
	free(sh->v);
	free(sh->shown);
	free(sh->pcol);
}

static void value_text(struct buf *b, const struct bar *r)
{
	buf_reset(b);
	buf_addf(b, "%.0f", r->n);
	if (r->has_pct)
		buf_addf(b, " (%.1f%%)", r->pct);
}

/* Labels cut to fit the label column; the widths of the columns. */
static void prepare(struct shares *sh, struct canvas *cv, double label_max)
{
	struct buf b = BUF_INIT;
	size_t i;

	fig_font(cv, FIG_TEXT, 0);
	sh->label_w = 0;
	for (i = 0; i < sh->nr_shown; i++) {
		struct bar *r = sh->shown[i];
		char *full = fig_code_label(cv, sh->dim, r->key);
		int cut;

		free(r->label);
		r->label = fig_fit(cv, full, label_max, &cut);
		if (cut && sh->f)
			figure_shortened(sh->f, r->label, full, r->key);
		if (fig_text_width(cv, r->label) > sh->label_w)
			sh->label_w = fig_text_width(cv, r->label);
		free(full);
	}
	fig_font(cv, FIG_SMALL, 0);
	sh->value_w = 0;
	for (i = 0; i < sh->nr_shown; i++) {
		value_text(&b, sh->shown[i]);
		if (fig_text_width(cv, b.ptr) > sh->value_w)
			sh->value_w = fig_text_width(cv, b.ptr);
	}
	buf_release(&b);
}

static struct rgb group_colour(enum group g)
{
	return g == G_DISTRIBUTED ? fig_bar_dist : g == G_EXTRA ?
	       fig_bar_extra : fig_bar;
}

/* A heading row between groups; returns the new y. */
static double group_heading(struct canvas *cv, const struct bar *r,
			    const struct bar *prev, double x0, double x1,
			    double y)
{
	if (!prev || prev->group == r->group)
		return y;
	fig_set(cv, fig_grid);
	fig_line(cv, x0, y + 2, x1, y + 2, 0.5, 0);
	if (r->group == G_DISTRIBUTED) {
		fig_font(cv, FIG_SMALL, 1);
		fig_set(cv, fig_ink);
		fig_text(cv, x0, y + 2 + FIG_LINE, FIG_LEFT,
			 "Distributed only (codes marked distributed)");
		return y + 3 + FIG_LINE;
	}
	return y + 4;
}

/* The "left out" row; returns the new y. */
static double left_out_row(struct canvas *cv, const struct shares *sh,
			   double x, double y)
{
	struct buf b = BUF_INIT;

	if (!sh->nr_left)
		return y;
	buf_addf(&b, "+ %zu more code%s not drawn, %.0f item%s or fewer "
		 "each (figures.json lists them)", sh->nr_left,
		 sh->nr_left == 1 ? "" : "s", sh->left_max,
		 sh->left_max == 1 ? "" : "s");
	fig_font(cv, FIG_SMALL, 0);
	fig_set(cv, fig_ink);
	y = fig_paragraph(cv, x, y + FIG_SMALL + 1, FIG_WIDTH - x -
			  FIG_MARGIN, b.ptr);
	buf_release(&b);
	return y + 1;
}

static double draw_overall(struct canvas *cv, void *data)
{
	struct shares *sh = data;
	struct buf b = BUF_INIT;
	double x0 = FIG_MARGIN, y = FIG_MARGIN, xb, barw, max = 0;
	size_t i;

	prepare(sh, cv, 0.42 * FIG_WIDTH);
	sh->f = NULL;		/* shortened labels are recorded once */
	xb = x0 + sh->label_w + 4;
	barw = FIG_WIDTH - FIG_MARGIN - xb - sh->value_w - 3;
	for (i = 0; i < sh->nr_shown; i++)
		if (sh->shown[i]->n > max)
			max = sh->shown[i]->n;
	for (i = 0; i < sh->nr_shown; i++) {
		const struct bar *r = sh->shown[i];
		double len = max > 0 ? r->n / max * barw : 0;

		y = group_heading(cv, r, i ? sh->shown[i - 1] : NULL, x0,
				  FIG_WIDTH - FIG_MARGIN, y);
		fig_font(cv, FIG_TEXT, 0);
		fig_set(cv, fig_ink);
		fig_text(cv, xb - 4, y + ROW_H / 2 + 2.5, FIG_RIGHT, r->label);
		if (len > 0) {
			fig_set(cv, group_colour(r->group));
			fig_rect(cv, xb, y + (ROW_H - BAR_H) / 2, len, BAR_H);
		}
		value_text(&b, r);
		fig_font(cv, FIG_SMALL, 0);
		fig_set(cv, fig_ink);
		fig_text(cv, xb + len + 2, y + ROW_H / 2 + 2.3, FIG_LEFT,
			 b.ptr);
		/* the axis the bars stand on, row by row (not through a
		 * group's heading) */
		fig_line(cv, xb, y, xb, y + ROW_H, 0.6, 0);
		y += ROW_H;
	}
	y = left_out_row(cv, sh, x0, y);
	buf_release(&b);
	return y;
}

static double draw_by_repo(struct canvas *cv, void *data)
{
	struct shares *sh = data;
	const struct summary *s = sh->s;
	size_t nper = sh->nr_panels < PANELS_PER_ROW ? sh->nr_panels :
		      PANELS_PER_ROW;
	struct buf b = BUF_INIT;
	double y = FIG_MARGIN, pw, xl;
	size_t first, i, k;

	xl = FIG_MARGIN + sh->label_w + 4;
	pw = (FIG_WIDTH - FIG_MARGIN - xl) / (double)nper;
	for (first = 0; first < sh->nr_panels; first += nper) {

		/* panel titles */
		fig_font(cv, FIG_SMALL, 1);
		fig_set(cv, fig_ink);
		for (k = first; k < first + nper && k < sh->nr_panels; k++) {
			const char *name = summary_column(s, (size_t)sh->rt,
							  (size_t)sh->pcol[k]);
			char *t = fig_fit(cv, name, pw - 4, NULL);

			fig_text(cv, xl + (double)(k - first) * pw + 2,
				 y + FIG_SMALL + 1, FIG_LEFT, t);
			free(t);
		}
		y += FIG_SMALL + 4;
		for (i = 0; i < sh->nr_shown; i++) {
			const struct bar *r = sh->shown[i];

			y = group_heading(cv, r, i ? sh->shown[i - 1] : NULL,
					  FIG_MARGIN, FIG_WIDTH - FIG_MARGIN,
					  y);
			fig_font(cv, FIG_TEXT, 0);
			fig_set(cv, fig_ink);
			fig_text(cv, xl - 4, y + ROW_H / 2 + 2.5, FIG_RIGHT,
				 r->label);
			for (k = first; k < first + nper &&
			     k < sh->nr_panels; k++) {
				double n = 0, p = 0, len;
				double px = xl + (double)(k - first) * pw;
				double maxlen;
				int hp;

				summary_value(s, (size_t)sh->rt, r->row,
					      (size_t)sh->pcol[k], &n);
				hp = summary_value(s, (size_t)sh->rt, r->row,
						   (size_t)sh->pcol[k] + 1,
						   &p);
				buf_reset(&b);
				buf_addf(&b, "%.0f", n);
				if (hp)
					buf_addf(&b, " %.0f%%", p);
				fig_font(cv, FIG_SMALL, 0);
				maxlen = pw - 4 - sh->value_w;
				len = hp && sh->max_pct > 0 ?
				      p / sh->max_pct * maxlen : 0;
				if (len > 0) {
					fig_set(cv, group_colour(r->group));
					fig_rect(cv, px + 1, y + (ROW_H -
						 BAR_H) / 2, len, BAR_H);
				}
				fig_set(cv, fig_ink);
				fig_text(cv, px + 2 + len, y + ROW_H / 2 + 2.3,
					 FIG_LEFT, b.ptr);
				fig_line(cv, px + 1, y, px + 1, y + ROW_H, 0.6,
					 0);
			}
			y += ROW_H;
		}
		y += 4;
	}
	y = left_out_row(cv, sh, FIG_MARGIN, y - 4);
	buf_release(&b);
	return y;
}

/* The widest "n p%" of the panels, for the layout. */
static void panel_value_width(struct shares *sh, struct canvas *cv)
{
	struct buf b = BUF_INIT;
	size_t i, k;

	fig_font(cv, FIG_SMALL, 0);
	sh->value_w = 0;
	sh->max_pct = 0;
	for (i = 0; i < sh->nr_shown; i++)
		for (k = 0; k < sh->nr_panels; k++) {
			double n = 0, p = 0;
			int hp;

			summary_value(sh->s, (size_t)sh->rt, sh->shown[i]->row,
				      (size_t)sh->pcol[k], &n);
			hp = summary_value(sh->s, (size_t)sh->rt,
					   sh->shown[i]->row,
					   (size_t)sh->pcol[k] + 1, &p);
			buf_reset(&b);
			buf_addf(&b, "%.0f", n);
			if (hp)
				buf_addf(&b, " %.0f%%", p);
			if (fig_text_width(cv, b.ptr) > sh->value_w)
				sh->value_w = fig_text_width(cv, b.ptr);
			if (hp && p > sh->max_pct)
				sh->max_pct = p;
		}
	buf_release(&b);
}

static double draw_by_repo_measured(struct canvas *cv, void *data)
{
	struct shares *sh = data;

	prepare(sh, cv, 0.30 * FIG_WIDTH);
	panel_value_width(sh, cv);
	return draw_by_repo(cv, data);
}

static cJSON *mark_json(const struct shares *sh, const struct bar *r)
{
	cJSON *m = cJSON_CreateObject();

	cJSON_AddStringToObject(m, "code", r->key);
	if (r->label)
		cJSON_AddStringToObject(m, "label", r->label);
	cJSON_AddNumberToObject(m, "items", r->n);
	if (r->has_pct)
		cJSON_AddNumberToObject(m, "share", r->pct);
	else
		cJSON_AddNullToObject(m, "share");
	cJSON_AddStringToObject(m, "group", r->group == G_DISTRIBUTED ?
				"distributed" : r->group == G_EXTRA ? "extra" :
				"general");
	(void)sh;
	return m;
}

static void left_json(cJSON *entry, const struct shares *sh)
{
	cJSON *left = cJSON_AddArrayToObject(entry, "left_out");
	size_t i;

	for (i = 0; i < sh->nr; i++) {
		const struct bar *r = &sh->v[i];
		cJSON *m;

		if (r->shown)
			continue;
		m = cJSON_CreateObject();
		cJSON_AddStringToObject(m, "code", r->key);
		cJSON_AddNumberToObject(m, "items", r->n);
		cJSON_AddItemToArray(left, m);
	}
}

static int overall(struct shares *sh, struct err *e)
{
	const struct fig_ctx *x = sh->x;
	const struct dimension *dim = sh->dim;
	struct figure f;
	struct buf name = BUF_INIT, title = BUF_INIT, cap = BUF_INIT;
	const char *tid = summary_table_id(sh->s, sh->t);
	static const char *const head[] = {
		"code", "label", "group", "items", "share", "drawn", NULL,
	};
	cJSON *marks;
	size_t i;
	int ret;

	buf_addf(&name, "shares-%s", dim->key);
	buf_addf(&title, "Items per code of %s", dim->key);
	figure_start(&f, x, name.ptr, "shares", title.ptr);
	sh->f = &f;
	prepare(sh, x->probe, 0.42 * FIG_WIDTH);
	sh->f = NULL;
	buf_addf(&cap, "%s: items per code (share of the items). ", dim->key);
	fig_counting(&cap, x, sh->s);
	if (dim->select_many)
		buf_addstr(&cap, "; an item counts under each of its codes");
	buf_addf(&cap, ". Report table %s.", tid);
	if (sh->nr_left)
		buf_addf(&cap, " %zu code%s with %.0f item%s or fewer not "
			 "drawn.", sh->nr_left, sh->nr_left == 1 ? "" : "s",
			 sh->left_max, sh->left_max == 1 ? "" : "s");
	fig_source(f.entry, x, &tid, 1, NULL);
	cJSON_AddStringToObject(f.entry, "dimension", dim->key);
	cJSON_AddNumberToObject(f.entry, "items", (double)summary_items(sh->s));
	marks = cJSON_AddArrayToObject(f.entry, "marks");
	for (i = 0; i < sh->nr_shown; i++)
		cJSON_AddItemToArray(marks, mark_json(sh, sh->shown[i]));
	left_json(f.entry, sh);
	csvw_header(&f.csv, head);
	csvw_end(&f.csv);
	for (i = 0; i < sh->nr; i++) {
		const struct bar *r = &sh->v[i];

		csvw_key(&f.csv, r->key);
		csvw_text(&f.csv, r->label ? r->label : "");
		csvw_key(&f.csv, r->group == G_DISTRIBUTED ? "distributed" :
			 r->group == G_EXTRA ? "extra" : "general");
		csvw_double(&f.csv, r->n, 0);
		if (r->has_pct)
			csvw_double(&f.csv, r->pct, 1);
		else
			csvw_null(&f.csv);
		csvw_bool(&f.csv, r->shown);
		csvw_end(&f.csv);
	}
	ret = figure_finish(&f, x, draw_overall, sh, cap.ptr, e);
	figure_release(&f);
	buf_release(&name);
	buf_release(&title);
	buf_release(&cap);
	return ret;
}

static int by_repo(struct shares *sh, struct err *e)
{
	const struct fig_ctx *x = sh->x;
	const struct summary *s = sh->s;
	const struct dimension *dim = sh->dim;
	size_t rt = (size_t)sh->rt, cols = summary_table_cols(s, rt), c, i, k;
	struct buf name = BUF_INIT, title = BUF_INIT, cap = BUF_INIT;
	const char *tids[2];
	cJSON *panels;
	struct figure f;
	int ret;
	static const char *const head[] = {
		"repository", "code", "items", "share", NULL,
	};

	/* columns: DIM, all, all %, repo, repo %, ... */
	sh->pcol = xcalloc(cols + 1, sizeof(int));
	for (c = 3; c + 1 < cols; c += 2)
		sh->pcol[sh->nr_panels++] = (int)c;
	if (!sh->nr_panels)
		return 0;
	buf_addf(&name, "shares-%s-by-repo", dim->key);
	buf_addf(&title, "Items per code of %s, per repository", dim->key);
	figure_start(&f, x, name.ptr, "shares-by-repo", title.ptr);
	sh->f = &f;
	prepare(sh, x->probe, 0.30 * FIG_WIDTH);
	sh->f = NULL;
	panel_value_width(sh, x->probe);
	buf_addf(&cap, "%s per repository: items per code and share of the "
		 "repository's items; one scale for every panel (longest bar "
		 "%.1f%%). ", dim->key, sh->max_pct);
	fig_counting(&cap, x, s);
	tids[0] = summary_table_id(s, rt);
	tids[1] = summary_table_id(s, sh->t);
	buf_addf(&cap, ". Report table %s.", tids[0]);
	if (sh->nr_left)
		buf_addf(&cap, " %zu code%s with %.0f item%s or fewer "
			 "overall not drawn.", sh->nr_left, sh->nr_left == 1 ?
			 "" : "s", sh->left_max, sh->left_max == 1 ? "" : "s");
	fig_source(f.entry, x, tids, 2, NULL);
	cJSON_AddStringToObject(f.entry, "dimension", dim->key);
	cJSON_AddNumberToObject(f.entry, "scale_max_share", sh->max_pct);
	panels = cJSON_AddArrayToObject(f.entry, "panels");
	csvw_header(&f.csv, head);
	csvw_end(&f.csv);
	for (k = 0; k < sh->nr_panels; k++) {
		cJSON *p = cJSON_CreateObject(), *marks;
		const char *repo = summary_column(s, rt, (size_t)sh->pcol[k]);

		cJSON_AddStringToObject(p, "repository", repo);
		marks = cJSON_AddArrayToObject(p, "marks");
		for (i = 0; i < sh->nr_shown; i++) {
			const struct bar *r = sh->shown[i];
			cJSON *m = cJSON_CreateObject();
			double n = 0, pct = 0;
			int hp;

			summary_value(s, rt, r->row, (size_t)sh->pcol[k], &n);
			hp = summary_value(s, rt, r->row,
					   (size_t)sh->pcol[k] + 1, &pct);
			cJSON_AddStringToObject(m, "code", r->key);
			cJSON_AddNumberToObject(m, "items", n);
			if (hp)
				cJSON_AddNumberToObject(m, "share", pct);
			else
				cJSON_AddNullToObject(m, "share");
			cJSON_AddItemToArray(marks, m);
			csvw_text(&f.csv, repo);
			csvw_key(&f.csv, r->key);
			csvw_double(&f.csv, n, 0);
			if (hp)
				csvw_double(&f.csv, pct, 1);
			else
				csvw_null(&f.csv);
			csvw_end(&f.csv);
		}
		cJSON_AddItemToArray(panels, p);
	}
	left_json(f.entry, sh);
	ret = figure_finish(&f, x, draw_by_repo_measured, sh, cap.ptr, e);
	figure_release(&f);
	buf_release(&name);
	buf_release(&title);
	buf_release(&cap);
	return ret;
}

int figure_shares(const struct fig_ctx *x, struct err *e)
{
	const struct codebook *cb = x->cb;
	struct buf id = BUF_INIT;
	size_t d;
	int ret = 0;

	for (d = 0; d < cb->nr_dims && !ret; d++) {
		struct shares sh;
		int t;

		memset(&sh, 0, sizeof(sh));
		sh.x = x;
		sh.dim = &cb->dims[d];
		sh.s = x->main;
		buf_reset(&id);
		buf_addf(&id, "shares.%s", sh.dim->key);
		if ((t = summary_table(sh.s, id.ptr)) < 0)
			continue;
		sh.t = (size_t)t;
		buf_reset(&id);
		buf_addf(&id, "repo.%s", sh.dim->key);
		sh.rt = summary_table(sh.s, id.ptr);
		load(&sh);
		ret = overall(&sh, e);
		if (!ret && sh.rt >= 0)
			ret = by_repo(&sh, e);
		release(&sh);
	}
	buf_release(&id);
	return ret;
}
