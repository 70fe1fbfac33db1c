/* SPDX-License-Identifier: MIT */
/*
 * figure_effort: the cumulative distribution of lines changed (with the
 * --small mark and its share), days open and comments, one line for
 * every item counted and, with more than one repository, one per
 * repository (effort-lines, effort-days, effort-comments).
 *
 * The values are the very ones behind the report's effort.quartiles (the
 * same pass, summary_values()); the legend states each line's count and
 * median from effort.quartiles, and for lines changed the share of
 * fixes of at most --small lines from effort.size.  The x axis is
 * logarithmic (log10(1 + x)), as effort figures are heavily skewed; a
 * line is a step function, F(x) = the share of values <= x.
 */
#include "exports/figure.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PLOT_H 105.0
#define AXIS_W 20.0		/* the y axis' labels */
#define MAX_LINES 9		/* "all" and 8 repositories; then left out */

struct measure {
	enum summary_measure m;
	const char *file, *what, *col;	/* file name, words, quartile col */
	const char *unit;
};

static const struct measure measures[] = {
	{ SUMMARY_LINES_CHANGED, "effort-lines", "lines changed by the fix",
	  "lines changed", "lines" },
	{ SUMMARY_DAYS_OPEN, "effort-days", "days open", "days open", "days" },
	{ SUMMARY_COMMENTS, "effort-comments", "comments", "comments",
	  "comments" },
};

struct line {
	size_t group;		/* in the summary */
	const char *name;	/* borrowed */
	const double *v;
	size_t n;
	int has_median;
	double median;
	int has_small;
	double small_share;	/* effort.size "share" */
	char *legend;		/* owned */
};

struct cdf {
	const struct fig_ctx *x;
	const struct measure *ms;
	struct line *l;
	size_t nr;
	size_t left;		/* repositories not drawn */
	double vmax;
};

static double lx(double v)
{
	return log10(1 + (v > 0 ? v : 0));
}

/* Dash pattern of line i (0: every item, solid and thick). */
static void line_style(struct canvas *cv, size_t i, size_t n)
{
	static const double dashes[][2] = {
		{ 0, 0 }, { 3, 1.5 }, { 1, 1.2 }, { 4, 1.5 },
	};
	struct rgb c = i ? fig_category(i - 1, n > 1 ? n - 1 : 1) : fig_ink;
	size_t k = i ? (i - 1) % 4 : 0;

	cairo_set_source_rgb(cv->cr, c.r, c.g, c.b);
	cairo_set_line_width(cv->cr, i ? 0.9 : 1.4);
	if (dashes[k][0] > 0)
		cairo_set_dash(cv->cr, dashes[k], 2, 0);
	else
		cairo_set_dash(cv->cr, NULL, 0, 0);
}

/* Where the plot is drawn: its corners, and the log of the largest
 * value (the right end). */
struct plot {
	double x0, x1, y0, y1, top;
};

/* x of value v (log scale), y of share f */
#define PX(v) (p->x0 + lx(v) / p->top * (p->x1 - p->x0))
#define PY(f) (p->y1 - (f) * (p->y1 - p->y0))

/* The grid, the axes and the x axis' label; returns the y below them. */
static double axes(struct canvas *cv, const struct cdf *c,
		   const struct plot *p, struct buf *b)
{
	double y, tick;
	size_t k;

	/* grid and axes */
	fig_font(cv, FIG_SMALL, 0);
	for (k = 0; k <= 4; k++) {
		double f = (double)k / 4;

		fig_set(cv, fig_grid);
		fig_line(cv, p->x0, PY(f), p->x1, PY(f), 0.3, 0);
		fig_set(cv, fig_ink);
		buf_reset(b);
		buf_addf(b, "%.0f%%", f * 100);
		fig_text(cv, p->x0 - 2, PY(f) + 2.2, FIG_RIGHT, b->ptr);
	}
	for (tick = 0; tick <= c->vmax * 1.0001 || tick == 0;
	     tick = tick ? tick * 10 : 1) {
		fig_set(cv, fig_grid);
		fig_line(cv, PX(tick), p->y0, PX(tick), p->y1, 0.3, 0);
		fig_set(cv, fig_ink);
		buf_reset(b);
		buf_addf(b, "%.0f", tick);
		fig_text(cv, PX(tick), p->y1 + FIG_SMALL + 1.5, FIG_CENTER,
			 b->ptr);
		if (c->vmax <= 0)
			break;
	}
	fig_set(cv, fig_ink);
	fig_line(cv, p->x0, p->y0, p->x0, p->y1, 0.6, 0);
	fig_line(cv, p->x0, p->y1, p->x1, p->y1, 0.6, 0);
	y = p->y1 + FIG_SMALL + 3;
	buf_reset(b);
	buf_addf(b, "%s (log scale); y: share of values at most x",
		 c->ms->what);
	fig_text(cv, (p->x0 + p->x1) / 2, y + FIG_SMALL, FIG_CENTER, b->ptr);
	y += FIG_SMALL + 3;
	return y;
}

/* The steps of every line. */
static void steps(struct canvas *cv, const struct cdf *c,
		  const struct plot *p)
{
	double prev;
	size_t i, k;

	/* the steps, the lines of repositories first, "all" on top */
	for (k = c->nr; k-- > 0;) {
		const struct line *l = &c->l[k];

		if (!l->n)
			continue;
		line_style(cv, k, c->nr);
		cairo_move_to(cv->cr, PX(l->v[0]), PY(0));
		prev = 0;
		for (i = 0; i < l->n; i++) {
			double f;

			if (i + 1 < l->n && l->v[i + 1] == l->v[i])
				continue;
			f = (double)(i + 1) / (double)l->n;
			cairo_line_to(cv->cr, PX(l->v[i]), PY(prev));
			cairo_line_to(cv->cr, PX(l->v[i]), PY(f));
			prev = f;
		}
		cairo_line_to(cv->cr, p->x1, PY(1));
		cairo_stroke(cv->cr);
		cairo_set_dash(cv->cr, NULL, 0, 0);
	}
}

/* The --small mark: the share of fixes of at most so many lines. */
static void small_mark(struct canvas *cv, const struct cdf *c,
		       const struct plot *p, struct buf *b)
{
	if (c->ms->m == SUMMARY_LINES_CHANGED && c->nr && c->l[0].has_small) {
		double sx = PX((double)c->x->o->report.small);
		double sy = PY(c->l[0].small_share / 100);

		fig_set(cv, fig_ink);
		fig_line(cv, sx, p->y0, sx, p->y1, 0.6, 2);
		fig_line(cv, p->x0, sy, sx, sy, 0.6, 2);
		buf_reset(b);
		buf_addf(b, "\xe2\x89\xa4 %ld: %.1f%%", c->x->o->report.small,
			 c->l[0].small_share);
		cairo_set_source_rgba(cv->cr, 1, 1, 1, 0.85);
		fig_rect(cv, sx + 1.5, p->y0 + 1,
			 fig_text_width(cv, b->ptr) + 2, FIG_SMALL + 1.5);
		fig_set(cv, fig_ink);
		fig_text(cv, sx + 2.5, p->y0 + FIG_SMALL + 0.5, FIG_LEFT,
			 b->ptr);
	}
}

#undef PX
#undef PY

/* The legend, one line each, from y; returns the y below it. */
static double legend(struct canvas *cv, const struct cdf *c, struct buf *b,
		     double y)
{
	size_t k;

	y += 3;
	for (k = 0; k < c->nr; k++) {
		line_style(cv, k, c->nr);
		cairo_move_to(cv->cr, FIG_MARGIN, y + 3.5);
		cairo_line_to(cv->cr, FIG_MARGIN + 14, y + 3.5);
		cairo_stroke(cv->cr);
		cairo_set_dash(cv->cr, NULL, 0, 0);
		fig_set(cv, fig_ink);
		{
			char *t = fig_fit(cv, c->l[k].legend, FIG_WIDTH -
					  2 * FIG_MARGIN - 17, NULL);

			fig_text(cv, FIG_MARGIN + 17, y + 5.8, FIG_LEFT, t);
			free(t);
		}
		y += FIG_SMALL + 2.5;
	}
	if (c->left) {
		buf_reset(b);
		buf_addf(b, "+ %zu more repositor%s not drawn (figures.json "
			 "has them)", c->left, c->left == 1 ? "y" : "ies");
		fig_text(cv, FIG_MARGIN, y + 5.8, FIG_LEFT, b->ptr);
		y += FIG_SMALL + 2.5;
	}
	return y;
}

static double draw(struct canvas *cv, void *data)
{
	struct cdf *c = data;
	struct plot pl;
	double y;
	struct buf b = BUF_INIT;

	pl.x0 = FIG_MARGIN + AXIS_W;
	pl.x1 = FIG_WIDTH - FIG_MARGIN - 4;
	pl.y0 = FIG_MARGIN + 4;
	pl.y1 = pl.y0 + PLOT_H;
	pl.top = lx(c->vmax) > 0 ? lx(c->vmax) : 1;
	y = axes(cv, c, &pl, &b);
	steps(cv, c, &pl);
	small_mark(cv, c, &pl, &b);
	y = legend(cv, c, &b, y);
	buf_release(&b);
	return y;
}

/* The row of effort table t named `name`, or -1. */
static int group_row(const struct summary *s, int t, const char *name)
{
	size_t r, n;

	if (t < 0)
		return -1;
	n = summary_table_rows(s, (size_t)t);
	for (r = 0; r < n; r++)
		if (!strcmp(summary_text(s, (size_t)t, r, 0), name))
			return (int)r;
	return -1;
}

/* Line l of the figure: group g's values, its median (from report table
 * tq, column qc) and share of small fixes (table ts, column sc), its
 * legend; c->vmax grows to its largest value. */
static void read_line(struct cdf *c, struct line *l, size_t g, int tq,
		      int ts, int qc, int sc)
{
	const struct summary *s = c->x->main;
	const struct measure *ms = c->ms;
	int r;

	l->group = g;
	l->name = summary_group_name(s, g);
	l->v = summary_values(s, g, ms->m, &l->n);
	if (l->n && l->v[l->n - 1] > c->vmax)
		c->vmax = l->v[l->n - 1];
	r = group_row(s, tq, l->name);
	if (r >= 0 && qc >= 0)
		l->has_median = summary_value(s, (size_t)tq, (size_t)r,
					      (size_t)qc, &l->median);
	r = group_row(s, ts, l->name);
	if (r >= 0 && sc >= 0)
		l->has_small = summary_value(s, (size_t)ts, (size_t)r,
					     (size_t)sc,
					     &l->small_share);
	{
		struct buf lg = BUF_INIT;

		buf_addf(&lg, "%s: %zu %s", g ? l->name :
			 "every item", l->n, l->n == 1 ?
			 "value" : "values");
		if (l->has_median)
			buf_addf(&lg, ", median %g", l->median);
		if (ms->m == SUMMARY_LINES_CHANGED && l->has_small)
			buf_addf(&lg, ", %.1f%% \xe2\x89\xa4 %ld lines",
				 l->small_share, c->x->o->report.small);
		l->legend = buf_detach(&lg, NULL);
	}
}

/* The caption of the figure titled `title`. */
static void caption(struct buf *cap, const struct fig_ctx *x,
		    const struct measure *ms, const char *title)
{
	const struct summary *s = x->main;

	buf_addf(cap, "%s: the share of items with at most x %s", title,
		 ms->unit);
	if (summary_repositories(s) > 1)
		buf_addstr(cap, ", every item and per repository");
	if (ms->m == SUMMARY_LINES_CHANGED)
		buf_addf(cap, "; dashed: fixes of at most %ld lines (report "
			 "effort.size, column share)",
			 x->o->report.small);
	buf_addstr(cap, ". Items whose figure is unknown are left out. ");
	fig_counting(cap, x, s);
	buf_addstr(cap, ". Report table effort.quartiles");
	if (ms->m == SUMMARY_LINES_CHANGED)
		buf_addstr(cap, " and effort.size");
	buf_addch(cap, '.');
}

/* Line l in figures.json (an element of "lines") and its steps in the
 * CSV. */
static void record_line(struct figure *f, cJSON *lines,
			const struct measure *ms, const struct line *l)
{
	cJSON *o = cJSON_CreateObject();
	size_t k;

	cJSON_AddStringToObject(o, "group", l->name);
	cJSON_AddNumberToObject(o, "values", (double)l->n);
	if (l->has_median)
		cJSON_AddNumberToObject(o, "median", l->median);
	else
		cJSON_AddNullToObject(o, "median");
	if (ms->m == SUMMARY_LINES_CHANGED) {
		if (l->has_small)
			cJSON_AddNumberToObject(o, "small_share",
						l->small_share);
		else
			cJSON_AddNullToObject(o, "small_share");
	}
	cJSON_AddStringToObject(o, "legend", l->legend);
	cJSON_AddItemToArray(lines, o);
	for (k = 0; k < l->n; k++) {
		if (k + 1 < l->n && l->v[k + 1] == l->v[k])
			continue;
		csvw_key(&f->csv, l->name);
		csvw_double(&f->csv, l->v[k], 2);
		csvw_uint(&f->csv, k + 1);
		csvw_uint(&f->csv, l->n);
		csvw_double(&f->csv, (double)(k + 1) / (double)l->n, 6);
		csvw_end(&f->csv);
	}
}

static int one(const struct fig_ctx *x, const struct measure *ms,
	       struct err *e)
{
	const struct summary *s = x->main;
	int tq = summary_table(s, "effort.quartiles");
	int ts = summary_table(s, "effort.size");
	size_t ng = summary_nr_groups(s), g, i;
	struct cdf c;
	struct figure f;
	struct buf col = BUF_INIT, cap = BUF_INIT, title = BUF_INIT;
	const char *tids[2];
	static const char *const head[] = {
		"group", "value", "at_most", "of", "share", NULL,
	};
	cJSON *lines;
	int qc, sc, ret;

	memset(&c, 0, sizeof(c));
	c.x = x;
	c.ms = ms;
	c.l = xcalloc(ng + 1, sizeof(*c.l));
	buf_addf(&col, "%s median", ms->col);
	qc = tq >= 0 ? summary_column_index(s, (size_t)tq, col.ptr) : -1;
	sc = ts >= 0 ? summary_column_index(s, (size_t)ts, "share") : -1;
	for (g = 0; g < ng; g++) {
		/* per repository only when there are several */
		if (g && summary_repositories(s) < 2)
			break;
		if (c.nr >= MAX_LINES) {
			c.left++;
			continue;
		}
		read_line(&c, &c.l[c.nr++], g, tq, ts, qc, sc);
	}
	buf_addf(&title, "Cumulative distribution of %s", ms->what);
	figure_start(&f, x, ms->file, "effort", title.ptr);
	caption(&cap, x, ms, title.ptr);
	tids[0] = "effort.quartiles";
	tids[1] = "effort.size";
	fig_source(f.entry, x, tids, ms->m == SUMMARY_LINES_CHANGED ? 2 : 1,
		   NULL);
	cJSON_AddStringToObject(f.entry, "measure", ms->col);
	if (ms->m == SUMMARY_LINES_CHANGED)
		cJSON_AddNumberToObject(f.entry, "small",
					(double)x->o->report.small);
	lines = cJSON_AddArrayToObject(f.entry, "lines");
	csvw_header(&f.csv, head);
	csvw_end(&f.csv);
	for (i = 0; i < c.nr; i++)
		record_line(&f, lines, ms, &c.l[i]);
	if (c.left)
		cJSON_AddNumberToObject(f.entry, "repositories_left_out",
					(double)c.left);
	ret = figure_finish(&f, x, draw, &c, cap.ptr, e);
	figure_release(&f);
	for (i = 0; i < c.nr; i++)
		free(c.l[i].legend);
	free(c.l);
	buf_release(&col);
	buf_release(&cap);
	buf_release(&title);
	return ret;
}

int figure_effort(const struct fig_ctx *x, struct err *e)
{
	size_t i;

	for (i = 0; i < sizeof(measures) / sizeof(*measures); i++)
		if (one(x, &measures[i], e) < 0)
			return -1;
	return 0;
}
