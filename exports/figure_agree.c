/* SPDX-License-Identifier: MIT */
/*
 * figure_agree: kappa per dimension and round with its 95% interval, as
 * a forest plot (agreement), from the report's agreement table, read by
 * its column names ("dimension", "round", "kappa", "ci low", "ci high",
 * "items", "note") so that the figure follows the table.  A value the
 * table leaves undefined is shown as such, with its reason.
 *
 * The calibration gates stored with the rounds (core/study/gate.h) are drawn
 * as dashed lines at their thresholds, each labelled on a line of its own
 * above the plot: "main waits for pilot: kappa >= 0.70".
 */
#include "exports/figure.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/study/gate.h"

#define ROW_H 9.0
#define MARK 2.2

struct arow {
	const char *dim, *round;	/* borrowed */
	int has_k, has_lo, has_hi, has_n;
	double k, lo, hi, n;
	const char *note;
	size_t round_idx;
	int head;		/* a dimension's first row */
};

struct agree_fig {
	const struct fig_ctx *x;
	struct arow *r;
	size_t nr;
	const char **rounds;	/* distinct, in table order */
	size_t nr_rounds;
	struct round_gate *gates;	/* those drawn */
	size_t nr_gates;
	double xmin;
};

static void marker(struct canvas *cv, size_t i, double x, double y)
{
	cairo_t *cr = cv->cr;

	switch (i % 4) {
	case 0:
		cairo_arc(cr, x, y, MARK, 0, 2 * M_PI);
		break;
	case 1:
		cairo_rectangle(cr, x - MARK * 0.9, y - MARK * 0.9,
				MARK * 1.8, MARK * 1.8);
		break;
	case 2:
		cairo_move_to(cr, x, y - MARK * 1.1);
		cairo_line_to(cr, x + MARK * 1.1, y + MARK * 0.9);
		cairo_line_to(cr, x - MARK * 1.1, y + MARK * 0.9);
		cairo_close_path(cr);
		break;
	default:
		cairo_move_to(cr, x, y - MARK * 1.2);
		cairo_line_to(cr, x + MARK * 1.2, y);
		cairo_line_to(cr, x, y + MARK * 1.2);
		cairo_line_to(cr, x - MARK * 1.2, y);
		cairo_close_path(cr);
	}
	cairo_fill(cr);
}

static void gate_text(struct buf *b, const struct round_gate *g)
{
	buf_addf(b, "%s waits for %s: %s >= %.2f%s", g->round, g->after,
		 g->on_lower ? "lower bound" : "kappa", g->min_kappa,
		 g->forced ? " (forced)" : "");
}

/* x of kappa v on the axis from x0 (a->xmin) to x1 (1) */
#define PX(v) (x0 + ((v) - a->xmin) / (1 - a->xmin) * (x1 - x0))

/* The gates' labels above the plot, one line each, from y; returns the
 * y below them. */
static double gate_labels(struct canvas *cv, const struct agree_fig *a,
			  struct buf *b, double x0, double x1, double y)
{
	size_t i;

	for (i = 0; i < a->nr_gates; i++) {
		double gx = PX(a->gates[i].min_kappa);

		buf_reset(b);
		gate_text(b, &a->gates[i]);
		fig_set(cv, fig_ink);
		fig_line(cv, FIG_MARGIN, y + 3.5, FIG_MARGIN + 10, y + 3.5,
			 0.6, 1.5);
		{
			char *s = fig_fit(cv, b->ptr, FIG_WIDTH -
					  2 * FIG_MARGIN - 13, NULL);

			fig_text(cv, FIG_MARGIN + 13, y + 5.8, FIG_LEFT, s);
			free(s);
		}
		(void)gx;
		y += FIG_SMALL + 2.5;
	}
	return y;
}

/* Under the rows from y0 to y: the grid with its labels, the axis and
 * the gates' dashed lines. */
static void grid(struct canvas *cv, const struct agree_fig *a, struct buf *b,
		 double x0, double x1, double y0, double y)
{
	double t, step;
	size_t i;

	fig_font(cv, FIG_SMALL, 0);
	step = 0.2;
	if (fig_text_width(cv, "-0.0") + 3 > PX(0.2) - PX(0))
		step = 0.5;
	for (t = ceil(a->xmin / step - 1e-9) * step; t <= 1.0001; t += step) {
		double tx = PX(t);

		fig_set(cv, fig_grid);
		fig_line(cv, tx, y0, tx, y, 0.3, 0);
		fig_set(cv, fig_ink);
		buf_reset(b);
		buf_addf(b, "%.1f", fabs(t) < 1e-9 ? 0.0 : t);
		fig_text(cv, tx, y + FIG_SMALL + 1.5, FIG_CENTER, b->ptr);
	}
	fig_set(cv, fig_ink);
	fig_line(cv, x0, y, x1, y, 0.6, 0);
	for (i = 0; i < a->nr_gates; i++)
		fig_line(cv, PX(a->gates[i].min_kappa), y0,
			 PX(a->gates[i].min_kappa), y, 0.6, 1.5);
}

/* Row r at y (after its dimension's name when it is the first): the
 * round, the kappa's mark and interval, or why it is undefined; returns
 * the y below it. */
static double draw_row(struct canvas *cv, const struct agree_fig *a,
		       const struct arow *r, struct buf *b, double lw,
		       double x0, double x1, double y)
{
	double cy;
	char *s;

	if (r->head) {
		fig_font(cv, FIG_SMALL, 1);
		fig_set(cv, fig_ink);
		s = fig_fit(cv, r->dim, lw, NULL);
		fig_text(cv, FIG_MARGIN, y + ROW_H - 2.5, FIG_LEFT, s);
		free(s);
		y += ROW_H;
	}
	cy = y + ROW_H / 2;
	fig_font(cv, FIG_SMALL, 0);
	fig_set(cv, fig_ink);
	s = fig_fit(cv, r->round, lw - 6, NULL);
	fig_text(cv, FIG_MARGIN + 6, cy + 2.2, FIG_LEFT, s);
	free(s);
	if (r->has_k) {
		struct rgb c = fig_category(r->round_idx,
					    a->nr_rounds);

		if (r->has_lo && r->has_hi) {
			fig_set(cv, fig_ink);
			fig_line(cv, PX(r->lo), cy, PX(r->hi), cy, 0.7,
				 0);
			fig_line(cv, PX(r->lo), cy - 1.5, PX(r->lo),
				 cy + 1.5, 0.7, 0);
			fig_line(cv, PX(r->hi), cy - 1.5, PX(r->hi),
				 cy + 1.5, 0.7, 0);
		}
		fig_set(cv, c);
		marker(cv, r->round_idx, PX(r->k), cy);
		buf_reset(b);
		buf_addf(b, "%.2f", r->k);
		if (r->has_lo && r->has_hi)
			buf_addf(b, " [%.2f, %.2f]", r->lo, r->hi);
		fig_set(cv, fig_ink);
		fig_text(cv, x1 + 4, cy + 2.2, FIG_LEFT, b->ptr);
	} else {
		buf_reset(b);
		buf_addf(b, "undefined%s%s", r->note && *r->note ?
			 ": " : "", r->note ? r->note : "");
		s = fig_fit(cv, b->ptr, FIG_WIDTH - FIG_MARGIN - x0 -
			    4, NULL);
		cairo_set_source_rgb(cv->cr, 1, 1, 1);
		fig_rect(cv, x0 + 1, cy - 3.5, fig_text_width(cv, s) +
			 2, 7.5);
		fig_set(cv, fig_ink);
		fig_text(cv, x0 + 2, cy + 2.2, FIG_LEFT, s);
		free(s);
	}
	return y + ROW_H;
}

static double draw(struct canvas *cv, void *data)
{
	struct agree_fig *a = data;
	struct buf b = BUF_INIT;
	double lw = 0.30 * FIG_WIDTH, vw, x0, x1, y, y0, yend;
	size_t i;

	fig_font(cv, FIG_SMALL, 0);
	vw = fig_text_width(cv, "-0.00 [-0.00, -0.00]") + 3;
	x0 = FIG_MARGIN + lw + 4;
	x1 = FIG_WIDTH - FIG_MARGIN - vw - 4;
	y = FIG_MARGIN;
	if (!a->nr) {
		fig_set(cv, fig_ink);
		fig_text(cv, FIG_MARGIN, y + FIG_LINE, FIG_LEFT,
			 "No agreement figures yet: no round to report.");
		return y + FIG_LINE + 2;
	}
	/* the gates' labels, one line each */
	y = gate_labels(cv, a, &b, x0, x1, y);
	y0 = y + 2;
	y = y0;
	for (i = 0; i < a->nr; i++)
		y += a->r[i].head ? 2 * ROW_H : ROW_H;
	/* grid, gates and axis under the rows */
	grid(cv, a, &b, x0, x1, y0, y);
	yend = y;
	y = y0;
	for (i = 0; i < a->nr; i++)
		y = draw_row(cv, a, &a->r[i], &b, lw, x0, x1, y);
	y = yend + FIG_SMALL + 3;
	fig_text(cv, (x0 + x1) / 2, y + FIG_SMALL, FIG_CENTER,
		 "kappa with its 95% interval");
	y += FIG_SMALL + 2;
	buf_release(&b);
	return y;
}
#undef PX

static int col(const struct summary *s, size_t t, const char *name)
{
	return summary_column_index(s, t, name);
}

/* The rows of report table t (its columns cd, cr, ck and, when not -1,
 * clo, chi, cn, cnote) into a->r, the rounds in table order into
 * a->rounds. */
static void read_rows(struct agree_fig *a, const struct summary *s, size_t t,
		      int cd, int cr, int ck, int clo, int chi, int cn,
		      int cnote)
{
	size_t rows, i, k;

	rows = summary_table_rows(s, t);
	a->r = xcalloc(rows + 1, sizeof(*a->r));
	a->rounds = xcalloc(rows + 1, sizeof(char *));
	for (i = 0; i < rows; i++) {
		struct arow *r = &a->r[a->nr++];

		r->dim = summary_text(s, t, i, (size_t)cd);
		r->round = summary_text(s, t, i, (size_t)cr);
		r->head = !i || strcmp(a->r[i - 1].dim, r->dim);
		r->has_k = summary_value(s, t, i, (size_t)ck, &r->k);
		r->has_lo = clo >= 0 && summary_value(s, t, i,
						      (size_t)clo, &r->lo);
		r->has_hi = chi >= 0 && summary_value(s, t, i,
						      (size_t)chi, &r->hi);
		r->has_n = cn >= 0 && summary_value(s, t, i,
						    (size_t)cn, &r->n);
		r->note = cnote >= 0 ? summary_text(s, t, i,
						    (size_t)cnote) : NULL;
		for (k = 0; k < a->nr_rounds; k++)
			if (!strcmp(a->rounds[k], r->round))
				break;
		if (k == a->nr_rounds)
			a->rounds[a->nr_rounds++] = r->round;
		r->round_idx = k;
	}
}

/* The left end of the axis (at most 0, a fifth, at least -1), and the
 * gates that wait for a round shown, into a->gates. */
static void scale_and_gates(struct agree_fig *a,
			    const struct round_gate *gates, size_t ngates)
{
	size_t i, k;

	a->xmin = 0;
	for (i = 0; i < a->nr; i++) {
		if (a->r[i].has_lo && a->r[i].lo < a->xmin)
			a->xmin = a->r[i].lo;
		if (a->r[i].has_k && a->r[i].k < a->xmin)
			a->xmin = a->r[i].k;
	}
	/* the gates that wait for a round shown */
	a->gates = xcalloc(ngates + 1, sizeof(*a->gates));
	for (i = 0; i < ngates; i++) {
		for (k = 0; k < a->nr_rounds; k++)
			if (!strcmp(a->rounds[k], gates[i].after))
				break;
		if (k == a->nr_rounds)
			continue;
		a->gates[a->nr_gates++] = gates[i];
		if (gates[i].min_kappa < a->xmin)
			a->xmin = gates[i].min_kappa;
	}
	a->xmin = floor(a->xmin * 5 - 1e-9) / 5;
	if (a->xmin < -1)
		a->xmin = -1;
}

/* Row r in figures.json: an element of "marks". */
static cJSON *mark_json(const struct arow *r)
{
	cJSON *m = cJSON_CreateObject();

	cJSON_AddStringToObject(m, "dimension", r->dim);
	cJSON_AddStringToObject(m, "round", r->round);
	if (r->has_n)
		cJSON_AddNumberToObject(m, "items", r->n);
	else
		cJSON_AddNullToObject(m, "items");
	if (r->has_k)
		cJSON_AddNumberToObject(m, "kappa", r->k);
	else
		cJSON_AddNullToObject(m, "kappa");
	if (r->has_lo && r->has_hi) {
		cJSON_AddNumberToObject(m, "ci_low", r->lo);
		cJSON_AddNumberToObject(m, "ci_high", r->hi);
	} else {
		cJSON_AddNullToObject(m, "ci_low");
		cJSON_AddNullToObject(m, "ci_high");
	}
	if (r->note && *r->note)
		cJSON_AddStringToObject(m, "note", r->note);
	return m;
}

/* Row r in the figure's CSV. */
static void mark_csv(struct csv_out *w, const struct arow *r)
{
	csvw_key(w, r->dim);
	csvw_text(w, r->round);
	if (r->has_n)
		csvw_double(w, r->n, 0);
	else
		csvw_null(w);
	if (r->has_k)
		csvw_double(w, r->k, 6);
	else
		csvw_null(w);
	if (r->has_lo && r->has_hi) {
		csvw_double(w, r->lo, 6);
		csvw_double(w, r->hi, 6);
	} else {
		csvw_null(w);
		csvw_null(w);
	}
	csvw_text(w, r->note ? r->note : "");
	csvw_end(w);
}

/* The gates drawn, in figures.json: "gates". */
static void gates_json(cJSON *entry, const struct agree_fig *a)
{
	cJSON *gj;
	size_t i;

	gj = cJSON_AddArrayToObject(entry, "gates");
	for (i = 0; i < a->nr_gates; i++) {
		cJSON *g = cJSON_CreateObject();
		struct buf gt = BUF_INIT;

		cJSON_AddStringToObject(g, "round", a->gates[i].round);
		cJSON_AddStringToObject(g, "after", a->gates[i].after);
		cJSON_AddNumberToObject(g, "min_kappa", a->gates[i].min_kappa);
		cJSON_AddBoolToObject(g, "on_lower", a->gates[i].on_lower);
		cJSON_AddBoolToObject(g, "forced", a->gates[i].forced);
		gate_text(&gt, &a->gates[i]);
		cJSON_AddStringToObject(g, "label", gt.ptr);
		buf_release(&gt);
		cJSON_AddItemToArray(gj, g);
	}
}

int figure_agreement(const struct fig_ctx *x, struct store *st,
		     struct err *e)
{
	const struct summary *s = x->main;
	int t = summary_table(s, "agreement");
	int cd, cr, ck, clo, chi, cn, cnote;
	struct agree_fig a;
	struct round_gate *gates = NULL;
	size_t ngates = 0, i;
	struct figure f;
	struct buf cap = BUF_INIT;
	const char *tid = "agreement";
	static const char *const head[] = {
		"dimension", "round", "items", "kappa", "ci_low", "ci_high",
		"note", NULL,
	};
	cJSON *marks;
	int ret = -1;

	if (t < 0)
		return 0;
	memset(&a, 0, sizeof(a));
	a.x = x;
	cd = col(s, (size_t)t, "dimension");
	cr = col(s, (size_t)t, "round");
	ck = col(s, (size_t)t, "kappa");
	clo = col(s, (size_t)t, "ci low");
	chi = col(s, (size_t)t, "ci high");
	cn = col(s, (size_t)t, "items");
	cnote = col(s, (size_t)t, "note");
	if (cd < 0 || cr < 0 || ck < 0)
		return err_set(e, ERR_INPUT, "agreement figure: the report's "
			       "agreement table has no dimension, round or "
			       "kappa column");
	if (round_gates(st, &gates, &ngates, e) < 0)
		return -1;
	read_rows(&a, s, (size_t)t, cd, cr, ck, clo, chi, cn, cnote);
	scale_and_gates(&a, gates, ngates);

	figure_start(&f, x, "agreement", "agreement",
		     "Agreement per dimension and round");
	buf_addstr(&cap, "Agreement per dimension and round: kappa (the "
		   "report's coefficient) with its 95% interval");
	if (a.nr_gates)
		buf_addstr(&cap, "; dashed: the calibration gates' "
			   "thresholds");
	buf_addstr(&cap, ". A round still open (blinding) or whose kappa "
		   "is undefined says so. Report table agreement.");
	fig_source(f.entry, x, &tid, 1, NULL);
	marks = cJSON_AddArrayToObject(f.entry, "marks");
	csvw_header(&f.csv, head);
	csvw_end(&f.csv);
	for (i = 0; i < a.nr; i++) {
		cJSON_AddItemToArray(marks, mark_json(&a.r[i]));
		mark_csv(&f.csv, &a.r[i]);
	}
	gates_json(f.entry, &a);
	ret = figure_finish(&f, x, draw, &a, cap.ptr, e);
	figure_release(&f);
	free(a.r);
	free(a.rounds);
	free(a.gates);
	round_gates_free(gates, ngates);
	buf_release(&cap);
	return ret;
}
