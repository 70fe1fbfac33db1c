/* SPDX-License-Identifier: MIT */
/*
 * view_agree: the agreement view.
 *
 * At the top, a table of the codebook's dimensions: for the scope shown
 * (the whole study, or one round; Tab changes it) the kappa, its 95%
 * confidence interval, the Landis & Koch band and n; then a sparkline of
 * the kappa per round and, as far as the width allows, a column per
 * round, so the trend across rounds shows.  Under it, for the selected
 * dimension (j/k) and the scope, a detail that scrolls like a pane: the
 * copy-ready sentence, the other statistics, the confusion matrix as a
 * grid shaded by count (characters, not colour: ' ' and four shades,
 * with the count beside; the diagonal is agreement), and bars of how
 * often each annotator chose each code.
 *
 * Which kappa: Cohen's for two annotators on a `select: one` dimension
 * (with its CI); the mean of the per-code kappas (marked "m") for
 * `select: many`; Fleiss' (marked "F") for more than two annotators.
 *
 * Everything is computed once, when the view opens: agreement_compute()
 * for each round (round_list()) and for the whole study.  Keys only
 * redraw.  Who sees what is agreement_compute()'s rule - the owner and
 * adjudicators everything, an annotator the closed rounds only; a scope
 * the actor may not see says so instead of showing numbers.
 *
 * The view is an overlay of the annotator's and the adjudicator's
 * screens (covering the panes and the panel, not the status line), and a
 * screen of its own: tui_agree() for `bugcoder agree --screen`.
 *
 * Limitations: the confusion grid needs two annotators and a `select:
 * one` dimension (otherwise the detail lists the per-code or pairwise
 * kappas); names of annotators and codes are cut to fit.
 */
#define _XOPEN_SOURCE_EXTENDED 1
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/study/headline.h"
#include "core/study/headline_text.h"
#include "core/study/agreement.h"
#include "core/study/drift.h"
#include "core/study/gate.h"
#include "core/study/round.h"
#include "core/study/study.h"
#include "core/base/text.h"
#include "exports/agree_report.h"
#include "tui/doc.h"
#include "tui/screen.h"
#include "tui/tui.h"
#include "tui/ui.h"

#define NAME_MAX_W 16		/* dimension names in the table */
#define ROUND_COL_W 8		/* a per-round column */
#define MIN_DETAIL_ROWS 3

struct scope {
	char *round;		/* NULL: the whole study */
	int ok;			/* computed; else `why` says why not */
	int denied;		/* not for this actor (blinding) */
	char *why;
	struct agreement ag;
	struct headline sum;	/* what is reported, per dimension */
};

struct agree_view {
	struct scope *sc;	/* the rounds in creation order, then the
				   whole study */
	size_t nr_sc;
	size_t dim;		/* selected dimension (codebook index) */
	size_t cur;		/* the scope shown */
	size_t top_dim;		/* first dimension row shown */
	struct doc doc;		/* the detail */
	int width;		/* the detail is rendered for this width, */
	size_t doc_dim, doc_cur;	/* dimension and scope */
	struct pager pg;
	int table_rows;		/* dimension rows shown */
	int det_y, det_rows;	/* the detail's place in the window */
	struct round_gate *gates;	/* the rounds' calibration gates */
	size_t nr_gates;
	struct drift drift;	/* the owner's: coder drift */
	int has_drift;
};

/* ---- figures ---------------------------------------------------------- */

/* One dimension in one scope, as the table shows it. */
struct cell {
	int shown;		/* the scope was computed */
	struct agree_stat k;	/* the kappa of the dimension */
	char stat;		/* ' ' Cohen, 'm' mean of codes, 'F' Fleiss */
	int has_ci;
	double lo, hi;
	enum agree_band band;
	size_t n;
};

static const struct agreement_dim *scope_dim(const struct scope *sc,
					     size_t d)
{
	if (!sc->ok || d >= sc->ag.nr_dims)
		return NULL;
	return &sc->ag.dims[d];
}

/* The summary of dimension d in scope sc, at the level of codes. */
static const struct agree_level_summary *scope_level(const struct scope *sc,
						     size_t d)
{
	if (!sc->ok || d >= sc->sum.nr_dims)
		return NULL;
	return &sc->sum.dims[d].code;
}

static void cell_of(const struct scope *sc, size_t d, struct cell *c)
{
	const struct agreement_dim *ad = scope_dim(sc, d);
	const struct agree_level_summary *lv = scope_level(sc, d);

	memset(c, 0, sizeof(*c));
	c->stat = ' ';
	if (!ad || !lv)
		return;
	c->shown = 1;
	c->n = lv->n_items;
	c->k = lv->kappa;
	c->band = lv->band;
	if (ad->dim->select_many)
		c->stat = 'm';
	else if (sc->ag.nr_annotators > 2)
		c->stat = 'F';
	if (lv->ci.low.defined && lv->ci.high.defined) {
		c->has_ci = 1;
		c->lo = lv->ci.low.value;
		c->hi = lv->ci.high.value;
	}
}

static void scope_label(const struct scope *sc, struct buf *out)
{
	if (!sc->round) {
		buf_addstr(out, "whole study");
		return;
	}
	buf_addstr(out, "round ");
	sanitize_line(out, sc->round);
}

/* ---- glyphs ----------------------------------------------------------- */

/* The shade of a grid cell: level 0 (empty) to 4 (the largest). */
static const char *shade(int level)
{
	static const char *const utf8[5] = {
		" ", "\xe2\x96\x91", "\xe2\x96\x92", "\xe2\x96\x93",
		"\xe2\x96\x88"
	};
	static const char *const ascii[5] = { " ", ".", ":", "*", "#" };

	if (level < 0)
		level = 0;
	if (level > 4)
		level = 4;
	return draw_utf8() ? utf8[level] : ascii[level];
}

/* One sparkline character for a kappa (8 levels over 0..1). */
static const char *spark(const struct cell *c)
{
	static const char *const utf8[8] = {
		"\xe2\x96\x81", "\xe2\x96\x82", "\xe2\x96\x83", "\xe2\x96\x84",
		"\xe2\x96\x85", "\xe2\x96\x86", "\xe2\x96\x87", "\xe2\x96\x88"
	};
	static const char ascii[] = "_.-=+*#@";
	static char one[2];
	int lvl;

	if (!c->shown)
		return " ";
	if (!c->k.defined)
		return "?";
	lvl = c->k.value <= 0 ? 0 : (int)ceil(c->k.value * 8) - 1;
	if (lvl < 0)
		lvl = 0;
	if (lvl > 7)
		lvl = 7;
	if (draw_utf8())
		return utf8[lvl];
	one[0] = ascii[lvl];
	one[1] = '\0';
	return one;
}

/* A bar of `count` out of `max` in `width` columns: full blocks and an
 * eighth-block end in UTF-8, '#' in ASCII. */
static void bar(struct buf *out, long count, long max, int width)
{
	static const char *const part[8] = {
		"", "\xe2\x96\x8f", "\xe2\x96\x8e", "\xe2\x96\x8d",
		"\xe2\x96\x8c", "\xe2\x96\x8b", "\xe2\x96\x8a", "\xe2\x96\x89"
	};
	long eighths, i;

	if (max <= 0 || count <= 0 || width <= 0)
		return;
	if (!draw_utf8()) {
		long n = (count * width + max / 2) / max;

		if (n < 1)
			n = 1;
		for (i = 0; i < n; i++)
			buf_addch(out, '#');
		return;
	}
	eighths = (count * width * 8 + max / 2) / max;
	if (eighths < 1)
		eighths = 1;
	for (i = 0; i < eighths / 8; i++)
		buf_addstr(out, "\xe2\x96\x88");
	buf_addstr(out, part[eighths % 8]);
}

/* ---- the detail ------------------------------------------------------- */

/* Sanitized text `s` wrapped at `width`, one doc line each. */
static void para(struct doc *d, const char *s, int width, enum slot slot)
{
	struct buf b = BUF_INIT;
	struct text_lines tl = TEXT_LINES_INIT;
	size_t i;

	text_sanitize(&b, s, strlen(s), 8, 0);
	text_wrap(&tl, b.ptr, b.len, width > 10 ? width : 10);
	for (i = 0; i < tl.nr; i++) {
		doc_begin(d, slot, 0, d->nr);
		doc_put(d, b.ptr + tl.v[i].off, tl.v[i].len, slot);
		doc_end(d);
	}
	text_lines_release(&tl);
	buf_release(&b);
}

static void stat_text(struct buf *b, const char *label,
		      const struct agree_stat *s)
{
	buf_addf(b, "%s ", label);
	if (s->defined)
		agree_fmt(b, s->value, 3);
	else
		buf_addstr(b, "undefined");
}

/* "12 crash" cut to `w` columns and padded to it. */
static void code_label(struct buf *out, const struct dimension *dim, int k,
		       int w)
{
	struct buf t = BUF_INIT, c = BUF_INIT;
	int used;

	buf_addf(&t, "%2d ", k + 1);
	sanitize_line(&t, dim->codes[k].key);
	used = text_truncate(&c, t.ptr, t.len, w, glyph(G_ELLIPSIS));
	buf_add(out, c.ptr, c.len);
	for (; used < w; used++)
		buf_addch(out, ' ');
	buf_release(&t);
	buf_release(&c);
}

static int label_width(const struct dimension *dim, const long *count,
		       size_t nr_ann, int cap)
{
	int w = 8, k;
	size_t a;

	for (k = 0; k < (int)dim->nr_codes; k++) {
		int used = 0, kw;

		for (a = 0; a < nr_ann; a++)
			used |= count[(size_t)k * nr_ann + a] != 0;
		if (!used)
			continue;
		kw = 3 + text_width(dim->codes[k].key,
				    strlen(dim->codes[k].key));
		if (kw > w)
			w = kw;
	}
	return w > cap ? cap : w;
}

static void name_of(struct buf *out, const struct agreement *ag, size_t a,
		    int w)
{
	struct buf t = BUF_INIT, c = BUF_INIT;
	int used;

	sanitize_line(&t, ag->annotators[a]);
	used = text_truncate(&c, t.ptr, t.len, w, glyph(G_ELLIPSIS));
	buf_add(out, c.ptr, c.len);
	for (; used < w; used++)
		buf_addch(out, ' ');
	buf_release(&t);
	buf_release(&c);
}

static void render_grid(struct doc *d, const struct agreement *ag,
			const struct agreement_dim *ad,
			const struct agree_level_summary *lv, int width)
{
	const struct agree_table *t = &lv->table;
	int k = t->k, i, j, nu = 0, w = 1, labw;
	long i10;
	int *used = xcalloc((size_t)k + 1, sizeof(int));
	long max = 0;
	struct buf b = BUF_INIT;

	for (i = 0; i < k; i++)
		for (j = 0; j < k; j++) {
			long n = t->n[i * k + j];

			if (n) {
				used[i] = used[j] = 1;
				if (n > max)
					max = n;
			}
		}
	for (i = 0; i < k; i++)
		nu += used[i];
	if (!nu) {
		doc_line(d, "No items in the table: nothing to show.",
			 SLOT_DIM, d->nr);
		free(used);
		return;
	}
	for (i10 = max; i10 >= 10; i10 /= 10)
		w++;
	labw = label_width(ad->dim, lv->count, ag->nr_annotators, 24);

	buf_addstr(&b, "Confusion: rows ");
	sanitize_line(&b, ag->annotators[0]);
	buf_addstr(&b, ", columns ");
	sanitize_line(&b, ag->annotators[1]);
	buf_addstr(&b, "; codes numbered as in the codebook, shaded by "
		   "count, the diagonal is agreement");
	para(d, b.ptr, width, SLOT_MD_STRONG);

	/* column numbers */
	doc_begin(d, SLOT_DIM, 1, d->nr);
	buf_reset(&b);
	for (i = 0; i < labw; i++)
		buf_addch(&b, ' ');
	for (j = 0; j < k; j++)
		if (used[j])
			buf_addf(&b, " %*d", w + 2, j + 1);
	doc_put(d, b.ptr, b.len, SLOT_DIM);
	doc_end(d);

	for (i = 0; i < k; i++) {
		if (!used[i])
			continue;
		doc_begin(d, SLOT_NORMAL, 1, d->nr);
		buf_reset(&b);
		code_label(&b, ad->dim, i, labw);
		doc_put(d, b.ptr, b.len, SLOT_NORMAL);
		for (j = 0; j < k; j++) {
			long n = t->n[i * k + j];
			int lvl;
			enum slot s;

			if (!used[j])
				continue;
			buf_reset(&b);
			if (!n) {
				buf_addf(&b, "  %*s", w, "");
				doc_put(d, b.ptr, b.len, SLOT_NORMAL);
				doc_puts(d, glyph(G_DOT), SLOT_DIM);
				continue;
			}
			lvl = (int)((4 * n + max - 1) / max);
			s = i == j ? SLOT_AGREED : SLOT_DISAGREE;
			doc_puts(d, " ", SLOT_NORMAL);
			doc_puts(d, shade(lvl), s);
			buf_addf(&b, "%*ld", w + 1, n);
			doc_put(d, b.ptr, b.len, s);
		}
		doc_end(d);
	}
	buf_reset(&b);
	buf_addf(&b, "shades: %s%s%s%s up to a quarter, a half, three "
		 "quarters, all of the largest cell (%ld)", shade(1), shade(2),
		 shade(3), shade(4), max);
	para(d, b.ptr, width, SLOT_DIM);
	buf_release(&b);
	free(used);
}

static void render_bars(struct doc *d, const struct agreement *ag,
			const struct agreement_dim *ad,
			const struct agree_level_summary *lv, int width)
{
	size_t na = ag->nr_annotators, a;
	int k, labw, namew = 4, cw = 1, side, barw;
	long max = 0, n;
	struct buf b = BUF_INIT;

	if (!na)
		return;
	for (k = 0; k < ad->k; k++)
		for (a = 0; a < na; a++)
			if ((n = lv->count[(size_t)k * na + a]) > max)
				max = n;
	doc_line(d, "Codes chosen, per annotator (items in the computation)",
		 SLOT_MD_STRONG, d->nr);
	if (!max) {
		doc_line(d, "No code was chosen.", SLOT_DIM, d->nr);
		return;
	}
	for (n = max; n >= 10; n /= 10)
		cw++;
	for (a = 0; a < na; a++) {
		int w = text_width(ag->annotators[a],
				   strlen(ag->annotators[a]));

		if (w > namew)
			namew = w;
	}
	if (namew > 10)
		namew = 10;
	labw = label_width(ad->dim, lv->count, na, 28);
	/* two annotators side by side when each bar still gets 8 columns */
	side = na == 2 && (width - labw - 2 * (namew + cw + 4)) / 2 >= 8;
	barw = side ? (width - labw - 2 * (namew + cw + 4)) / 2 :
	       width - labw - namew - cw - 3;
	if (barw > 40)
		barw = 40;
	if (barw < 4)
		barw = 4;
	for (k = 0; k < ad->k; k++) {
		int any = 0;

		for (a = 0; a < na; a++)
			any |= lv->count[(size_t)k * na + a] != 0;
		if (!any)
			continue;
		for (a = 0; a < na; a++) {
			long c = lv->count[(size_t)k * na + a];
			int used;

			if (a == 0 || !side) {
				if (a)
					doc_end(d);
				doc_begin(d, SLOT_NORMAL, 1, d->nr);
				buf_reset(&b);
				if (a == 0)
					code_label(&b, ad->dim, k, labw);
				else
					buf_addf(&b, "%*s", labw, "");
				doc_put(d, b.ptr, b.len, SLOT_NORMAL);
			}
			buf_reset(&b);
			buf_addch(&b, ' ');
			name_of(&b, ag, a, namew);
			buf_addch(&b, ' ');
			doc_put(d, b.ptr, b.len, SLOT_DIM);
			buf_reset(&b);
			bar(&b, c, max, barw);
			used = text_width(b.ptr, b.len);
			doc_put(d, b.ptr, b.len, a % 2 ? SLOT_MD_CODE :
				SLOT_BAR_SET);
			buf_reset(&b);
			buf_addf(&b, "%*s %*ld", barw - used, "", cw, c);
			doc_put(d, b.ptr, b.len, SLOT_NUMBER);
		}
		doc_end(d);
	}
	buf_release(&b);
}

/* The calibration gates that concern scope `sc`: the gate the round was
 * created behind, and the gates that wait for it, with where the
 * selected dimension stands. */
static void render_gates(struct doc *d, const struct agree_view *av,
			 const struct scope *sc,
			 const struct agree_level_summary *lv,
			 const struct dimension *dim, int width)
{
	struct buf b = BUF_INIT;
	size_t i;

	if (!sc->round)
		return;
	for (i = 0; i < av->nr_gates; i++) {
		const struct round_gate *g = &av->gates[i];

		buf_reset(&b);
		if (!strcmp(g->round, sc->round)) {
			buf_addstr(&b, "Gate: this round was created after ");
			sanitize_line(&b, g->after);
			buf_addf(&b, " reached %s ", g->on_lower ?
				 "a 95% lower bound of kappa" : "kappa");
			agree_fmt(&b, g->min_kappa, 2);
			buf_addstr(&b, " on every required dimension");
			buf_addstr(&b, g->forced ? " - forced, the gate did "
				   "not pass." : ".");
		} else if (!strcmp(g->after, sc->round) && dim->required) {
			const struct agree_stat *v = g->on_lower ?
				&lv->ci.low : &lv->kappa;
			int pass = v->defined && v->value >= g->min_kappa;

			buf_addstr(&b, "Gate for round ");
			sanitize_line(&b, g->round);
			buf_addf(&b, ": needs %s >= ", g->on_lower ?
				 "the lower bound" : "kappa");
			agree_fmt(&b, g->min_kappa, 2);
			buf_addstr(&b, "; this dimension has ");
			if (v->defined)
				agree_fmt(&b, v->value, 2);
			else
				buf_addstr(&b, "none");
			buf_addf(&b, ": %s%s", pass ? "passes" : "does not "
				 "pass", g->forced ? " (the gate was forced)" :
				 "");
			buf_addch(&b, '.');
		} else {
			continue;
		}
		para(d, b.ptr, width, SLOT_NOTICE);
	}
	buf_release(&b);
}

static void render_drift(struct doc *d, const struct agree_view *av,
			 const struct dimension *dim, int width);

static void render(struct agree_view *av, const struct codebook *cb,
		   int width)
{
	struct doc *d = &av->doc;
	const struct scope *sc = &av->sc[av->cur];
	const struct dimension *dim = &cb->dims[av->dim];
	const struct agreement_dim *ad = scope_dim(sc, av->dim);
	const struct agreement *ag = &sc->ag;
	const struct agree_dim_summary *ds;
	const struct agree_level_summary *lv;
	struct buf b = BUF_INIT;
	size_t i;

	doc_clear(d);
	av->width = width;
	av->doc_dim = av->dim;
	av->doc_cur = av->cur;
	doc_begin(d, SLOT_MD_HEADING, 0, d->nr);
	doc_put_untrusted(d, dim->key, SLOT_MD_HEADING);
	if (dim->name) {
		doc_puts(d, " - ", SLOT_MD_HEADING);
		doc_put_untrusted(d, dim->name, SLOT_MD_HEADING);
	}
	buf_addf(&b, " %s ", glyph(G_DOT));
	scope_label(sc, &b);
	doc_puts(d, b.ptr, SLOT_MD_HEADING);
	doc_end(d);
	if (!ad) {
		para(d, sc->why ? sc->why : "not computed", width, SLOT_NOTICE);
		goto out;
	}
	buf_reset(&b);
	ds = &sc->sum.dims[av->dim];
	lv = &ds->code;
	if (ag->nr_annotators < 2) {
		buf_addf(&b, "Agreement needs two annotators; %zu submitted "
			 "in this scope.", ag->nr_annotators);
		para(d, b.ptr, width, SLOT_NORMAL);
		goto out;
	}
	/* the sentences, from the one builder agree and the package use */
	agree_sentence_build(ag, ds, lv, &b);
	para(d, b.ptr, width, SLOT_NORMAL);
	if (ds->show_group) {
		buf_reset(&b);
		agree_sentence_build(ag, ds, &ds->grp, &b);
		para(d, b.ptr, width, SLOT_NORMAL);
	}
	render_gates(d, av, sc, lv, dim, width);
	buf_reset(&b);
	if (dim->select_many) {
		stat_text(&b, "identical sets", &lv->po);
	} else if (ag->nr_annotators > 2) {
		stat_text(&b, "observed", &lv->po);
		buf_addstr(&b, "   ");
		stat_text(&b, "Conger's kappa", &lv->conger);
		buf_addstr(&b, "   ");
		stat_text(&b, "Krippendorff's alpha", &lv->alpha);
		buf_addstr(&b, "   ");
		stat_text(&b, "Gwet's AC1", &lv->fleiss.ac1);
	} else {
		const struct agree_cohen *c = &lv->cohen;

		stat_text(&b, "observed", &c->po);
		buf_addstr(&b, "   ");
		stat_text(&b, "expected", &c->pe);
		buf_addstr(&b, "   ");
		stat_text(&b, "kappa max", &lv->kappa_max);
		buf_addstr(&b, "   ");
		stat_text(&b, "prevalence index", &lv->prevalence);
		buf_addstr(&b, "   ");
		stat_text(&b, lv->k > 2 ? "bias index (generalised, "
			  AGREE_BIAS_FORMULA ")" : "bias index", &lv->bias);
		buf_addstr(&b, "   ");
		stat_text(&b, "Scott's pi", &c->scott_pi);
		buf_addstr(&b, "   ");
		stat_text(&b, "Krippendorff's alpha", &c->alpha.alpha);
		buf_addstr(&b, "   ");
		stat_text(&b, "Gwet's AC1", &c->ac1);
		buf_addstr(&b, "   ");
		stat_text(&b, "PABAK", &c->pabak);
		if (ad->n_dropped)
			buf_addf(&b, "   (%zu submitted item%s left out: a "
				 "coder left the dimension empty)",
				 ad->n_dropped, ad->n_dropped == 1 ? "" : "s");
	}
	para(d, b.ptr, width, SLOT_DIM);
	if (lv->weighted) {
		buf_reset(&b);
		buf_addf(&b, "%s scale: ", dim_scale_name(dim->scale));
		stat_text(&b, "linear weighted kappa", &lv->kappa_linear);
		buf_addstr(&b, "   ");
		stat_text(&b, "quadratic", &lv->kappa_quadratic);
		buf_addstr(&b, "   ");
		stat_text(&b, "Krippendorff's alpha", &lv->alpha_scale);
		para(d, b.ptr, width, SLOT_DIM);
	}
	doc_line(d, "", SLOT_NORMAL, d->nr);

	if (ag->nr_annotators == 2 && !dim->select_many) {
		render_grid(d, ag, ad, lv, width);
		doc_line(d, "", SLOT_NORMAL, d->nr);
	} else {
		int labw = label_width(dim, lv->count, ag->nr_annotators, 28);

		doc_line(d, dim->select_many ? "Per code (present or absent): "
			 "kappa" : "Per code: Fleiss' kappa of the code "
			 "against the others", SLOT_MD_STRONG, d->nr);
		for (i = 0; i < (size_t)lv->k; i++) {
			size_t r;
			long total = 0;

			for (r = 0; r < ag->nr_annotators; r++)
				total += lv->count[i * ag->nr_annotators + r];
			if (!total)
				continue;
			doc_begin(d, SLOT_NORMAL, 1, d->nr);
			buf_reset(&b);
			code_label(&b, dim, (int)i, labw);
			buf_addch(&b, ' ');
			stat_text(&b, "kappa", &lv->code_kappa[i]);
			doc_put(d, b.ptr, b.len, SLOT_NORMAL);
			doc_end(d);
		}
		doc_line(d, "", SLOT_NORMAL, d->nr);
	}
	if (lv->nr_pairs) {
		doc_line(d, "Cohen's kappa per pair of annotators",
			 SLOT_MD_STRONG, d->nr);
		for (i = 0; i < lv->nr_pairs; i++) {
			const struct agree_pair_summary *p = &lv->pairs[i];

			doc_begin(d, SLOT_NORMAL, 1, d->nr);
			buf_reset(&b);
			buf_addstr(&b, "  ");
			name_of(&b, ag, (size_t)p->a, 10);
			buf_addf(&b, " %s ", draw_utf8() ? "\xc3\x97" : "x");
			name_of(&b, ag, (size_t)p->b, 10);
			buf_addch(&b, ' ');
			stat_text(&b, "kappa", &p->kappa);
			if (p->ci.low.defined) {
				buf_addstr(&b, "  95% CI ");
				agree_fmt_ci(&b, &p->ci, 2);
			}
			buf_addstr(&b, "  ");
			stat_text(&b, "observed", &p->po);
			buf_addf(&b, "  n = %ld", p->n);
			doc_put(d, b.ptr, b.len, SLOT_NORMAL);
			doc_end(d);
		}
		doc_line(d, "", SLOT_NORMAL, d->nr);
	}
	render_bars(d, ag, ad, lv, width);
	render_drift(d, av, dim, width);
out:

	buf_release(&b);
}

/* Coder drift, for the owner: the median time per item of each
 * annotator and round, and how each annotator's codes of this dimension
 * moved between rounds (core/study/drift.h). */
static void render_drift(struct doc *d, const struct agree_view *av,
			 const struct dimension *dim, int width)
{
	struct buf b = BUF_INIT;
	size_t i, k;

	if (!av->has_drift)
		return;
	doc_line(d, "", SLOT_NORMAL, d->nr);
	doc_line(d, "Coder drift (the owner's view)", SLOT_MD_STRONG, d->nr);
	for (i = 0; i < av->drift.nr_times; i++) {
		const struct drift_time *t = &av->drift.times[i];

		buf_reset(&b);
		buf_addf(&b, "  %s, round %s: %zu item%s timed, median %.0f s "
			 "an item", t->annotator, t->round, t->items,
			 t->items == 1 ? "" : "s", t->median);
		para(d, b.ptr, width, SLOT_NORMAL);
	}
	if (!av->drift.nr_times)
		para(d, "  no times yet (the annotator's screen records "
		     "them)", width, SLOT_NORMAL);
	for (i = 0; i < av->drift.nr_codes; i++) {
		const struct drift_codes *c = &av->drift.codes[i];

		if (strcmp(c->dim->key, dim->key))
			continue;
		buf_reset(&b);
		buf_addf(&b, "  %s's codes over %zu round%s: ", c->annotator,
			 c->nr_rounds, c->nr_rounds == 1 ? "" : "s");
		if (c->chi2.defined)
			buf_addf(&b, "chi-square %.2f, df %.0f, p %s%.3f%s%s",
				 c->chi2.value, c->df, c->p.value < 0.001 ?
				 "< " : "", c->p.value < 0.001 ? 0.001 :
				 c->p.value, c->small_expected ?
				 " (Monte Carlo: small expected counts)" : "",
				 c->p.value < 0.05 ? ", the mix moved" : "");
		else
			buf_addf(&b, "no test (%s)", c->chi2.why);
		for (k = 0; k < c->nr_rounds; k++)
			buf_addf(&b, "%s%s", k ? ", " : "; rounds ",
				 c->rounds[k]);
		para(d, b.ptr, width, SLOT_NORMAL);
	}
	buf_release(&b);
}

/* ---- the view --------------------------------------------------------- */

static void scope_release(struct scope *sc)
{
	free(sc->round);
	free(sc->why);
	headline_release(&sc->sum);
	agreement_release(&sc->ag);
}

static int agree_open(struct view *v)
{
	struct screen *scr = v->scr;
	const char *want = v->arg;	/* the round to show first, or NULL */
	struct agree_view *av = v->priv;
	struct round_info *rounds = NULL;
	size_t nr = 0, i, best = 0;
	struct err e = ERR_INIT;
	int found = 0;

	buf_init(&av->doc.text, 0);
	pager_init(&av->pg, &doc_pager_src, &av->doc);
	if (round_list(scr->st, &rounds, &nr, &e) < 0) {
		screen_msg(scr, MSG_ERR, "%s", e.msg);
		return -1;
	}
	av->nr_sc = nr + 1;
	av->sc = xcalloc(av->nr_sc, sizeof(*av->sc));
	for (i = 0; i < av->nr_sc; i++) {
		struct scope *sc = &av->sc[i];

		sc->round = i < nr ? xstrdup(rounds[i].name) : NULL;
		err_clear(&e);
		if (agreement_compute(scr->st, scr->actor, &scr->cb, sc->round,
				      NULL, &sc->ag, &e) < 0) {
			sc->denied = e.code == ERR_PERM;
			sc->why = xstrdup(sc->denied ? (sc->round ?
				"Agreement on a round is shown to annotators "
				"once the round is closed." :
				"Agreement over the whole study is for the "
				"owner and adjudicators; an annotator sees "
				"closed rounds.") : e.msg);
			continue;
		}
		if (headline_compute(&sc->ag, NULL, &sc->sum, &e) < 0) {
			sc->why = xstrdup(e.msg);
			continue;
		}
		sc->ok = 1;
		best = i;
		if (want && sc->round && !strcmp(want, sc->round)) {
			av->cur = i;
			found = 1;
		}
	}
	round_list_free(rounds, nr);
	if (round_gates(scr->st, &av->gates, &av->nr_gates, &e) < 0)
		screen_msg(scr, MSG_ERR, "%s", e.msg);
	/* drift is the owner's alone (core/study/drift decides) */
	if (scr->actor->role == ROLE_OWNER) {
		err_clear(&e);
		if (drift_compute(scr->st, scr->actor, &scr->cb, &av->drift,
				  &e) == 0)
			av->has_drift = 1;
		else
			screen_msg(scr, MSG_ERR, "%s", e.msg);
	}
	/* the whole study if it may be seen, else the last round that may */
	if (!found)
		av->cur = av->sc[nr].ok ? nr : best;
	av->doc_dim = av->doc_cur = (size_t)-1;
	return 0;
}

static void agree_layout(struct view *v)
{
	struct screen *scr = v->scr;
	struct agree_view *av = v->priv;
	int inner, dims = (int)scr->cb.nr_dims;

	/* the panes and the panel under them: all but the status line */
	v->y = scr->area_y;
	v->x = 0;
	v->rows = scr->rows - 1 - scr->area_y;
	v->cols = scr->cols;
	screen_place(v);
	inner = v->rows - 2;
	/* scope line, header, dimensions, rule, then the detail */
	av->table_rows = dims;
	if (av->table_rows > inner - 3 - MIN_DETAIL_ROWS)
		av->table_rows = inner - 3 - MIN_DETAIL_ROWS;
	if (av->table_rows < 1)
		av->table_rows = 1;
	av->det_y = 1 + 2 + av->table_rows + 1;
	av->det_rows = v->rows - 1 - av->det_y;
	if (av->det_rows < 1)
		av->det_rows = 1;
	pager_set_size(&av->pg, av->det_rows, v->cols - 4);
	if (av->width != v->cols - 4)
		av->doc_dim = (size_t)-1;
}

/* The per-round value, right-aligned in `w` columns. */
static void value_text(struct buf *b, const struct cell *c, int w)
{
	char t[32];

	if (!c->shown)
		snprintf(t, sizeof(t), "-");
	else if (!c->k.defined)
		snprintf(t, sizeof(t), "undef");
	else
		snprintf(t, sizeof(t), "%.2f%c", c->k.value, c->stat);
	buf_addf(b, "%*s", w, t);
}

static void draw_table(struct view *v, struct agree_view *av)
{
	const struct codebook *cb = &v->scr->cb;
	const struct scope *cur = &av->sc[av->cur];
	size_t nr_rounds = av->nr_sc - 1, d, r;
	struct buf b = BUF_INIT, h = BUF_INIT;
	int namew = 9, x, y, width = v->cols - 2, spark_w, nr_cols = 0;
	int fixed;

	for (d = 0; d < cb->nr_dims; d++) {
		int w = text_width(cb->dims[d].key, strlen(cb->dims[d].key));

		if (w > namew)
			namew = w;
	}
	if (namew > NAME_MAX_W)
		namew = NAME_MAX_W;
	/* " name  kappa   95% CI        band            n" */
	fixed = 1 + namew + 2 + 6 + 2 + 11 + 2 + 14 + 2 + 5;
	spark_w = nr_rounds > 5 ? (int)nr_rounds : 5;
	if (nr_rounds && fixed + 2 + spark_w <= width)
		nr_cols = (width - fixed - 2 - spark_w) / ROUND_COL_W;
	if (nr_cols > (int)nr_rounds)
		nr_cols = (int)nr_rounds;
	if (!nr_rounds || fixed + 2 + spark_w > width)
		spark_w = 0;

	/* the scope line */
	buf_addstr(&b, "Shown: ");
	scope_label(cur, &b);
	if (cur->ok) {
		size_t i;

		buf_addf(&b, " %s annotators ", glyph(G_DOT));
		for (i = 0; i < cur->ag.nr_annotators; i++) {
			if (i)
				buf_addstr(&b, ", ");
			sanitize_line(&b, cur->ag.annotators[i]);
		}
		if (!cur->ag.nr_annotators)
			buf_addstr(&b, "none yet");
	}
	if (av->nr_sc > 1)
		buf_addstr(&b, "   (Tab: next round)");
	draw_str(v->win, 1, 1, width, b.ptr, b.len, SLOT_MD_STRONG);

	/* the header */
	buf_reset(&b);
	buf_addf(&b, " %-*s  %6s  %-11s  %-14s  %5s", namew, "dimension",
		 "kappa", "95% CI", "band", "n");
	if (spark_w)
		buf_addf(&b, "  %-*s", spark_w, "trend");
	x = draw_str(v->win, 2, 1, width, b.ptr, b.len, SLOT_DIM);
	for (r = nr_rounds - (size_t)nr_cols; r < nr_rounds; r++) {
		struct buf t = BUF_INIT;

		buf_reset(&h);
		sanitize_line(&t, av->sc[r].round);
		text_truncate(&h, t.ptr, t.len, ROUND_COL_W - 1,
			      glyph(G_ELLIPSIS));
		buf_reset(&t);
		buf_addf(&t, "%*s", ROUND_COL_W - text_width(h.ptr, h.len),
			 "");
		buf_add(&t, h.ptr, h.len);
		x += draw_str(v->win, 2, 1 + x, width - x, t.ptr, t.len,
			      r == av->cur ? SLOT_SEL : SLOT_DIM);
		buf_release(&t);
	}

	/* keep the selected dimension shown */
	if (av->dim < av->top_dim)
		av->top_dim = av->dim;
	if (av->dim >= av->top_dim + (size_t)av->table_rows)
		av->top_dim = av->dim - (size_t)av->table_rows + 1;
	for (y = 0; y < av->table_rows; y++) {
		struct cell c;
		struct buf name = BUF_INIT;
		int sel;
		enum slot base;

		d = av->top_dim + (size_t)y;
		if (d >= cb->nr_dims)
			break;
		sel = d == av->dim;
		base = sel ? SLOT_SEL : SLOT_NORMAL;
		cell_of(cur, d, &c);
		draw_fill(v->win, 3 + y, 1, width, base);
		buf_reset(&b);
		sanitize_line(&name, cb->dims[d].key);
		buf_addch(&b, sel ? '>' : ' ');
		text_truncate(&b, name.ptr, name.len, namew,
			      glyph(G_ELLIPSIS));
		buf_release(&name);
		x = draw_str(v->win, 3 + y, 1, width, b.ptr, b.len, base);
		buf_reset(&b);
		buf_addf(&b, "%*s", 1 + namew - x + 2, "");
		value_text(&b, &c, 6);
		buf_addstr(&b, "  ");
		if (c.has_ci) {
			char ci[40];

			snprintf(ci, sizeof(ci), "%.2f%s%.2f", c.lo,
				 draw_utf8() ? "\xe2\x80\x93" : "..", c.hi);
			buf_addstr(&b, ci);
			buf_addf(&b, "%*s", 11 - text_width(ci, strlen(ci)),
				 "");
		} else {
			buf_addf(&b, "%-11s", c.shown ? "-" : "");
		}
		buf_addf(&b, "  %-14s  ", c.shown && c.k.defined ?
			 agree_band_name(c.band) : c.shown ? "undefined" :
			 cur->denied ? "closed rounds" : "not computed");
		if (c.shown)
			buf_addf(&b, "%5zu", c.n);
		else
			buf_addf(&b, "%5s", "-");
		x += draw_str(v->win, 3 + y, 1 + x, width - x, b.ptr, b.len,
			      base);
		if (spark_w) {
			buf_reset(&b);
			buf_addstr(&b, "  ");
			for (r = 0; r < nr_rounds; r++) {
				struct cell rc;

				cell_of(&av->sc[r], d, &rc);
				buf_addstr(&b, spark(&rc));
			}
			buf_addf(&b, "%*s", spark_w - (int)nr_rounds, "");
			x += draw_str(v->win, 3 + y, 1 + x, width - x, b.ptr,
				      b.len, sel ? SLOT_SEL : SLOT_BAR_SET);
		}
		for (r = nr_rounds - (size_t)nr_cols; r < nr_rounds; r++) {
			struct cell rc;

			cell_of(&av->sc[r], d, &rc);
			buf_reset(&b);
			value_text(&b, &rc, ROUND_COL_W);
			x += draw_str(v->win, 3 + y, 1 + x, width - x, b.ptr,
				      b.len, base);
		}
	}
	buf_release(&b);
	buf_release(&h);
}

static void agree_draw(struct view *v)
{
	struct agree_view *av = v->priv;
	struct screen *scr = v->scr;
	struct buf b = BUF_INIT;
	int width = v->cols - 4;

	if (av->doc_dim != av->dim || av->doc_cur != av->cur ||
	    av->width != width) {
		render(av, &scr->cb, width);
		pager_goto(&av->pg, 0);
	}
	werase(v->win);
	draw_frame(v->win, "Agreement (j/k dimension, Tab round, Space "
		   "scroll, q close)", SLOT_DIALOG_TITLE);
	draw_table(v, av);
	wattrset(v->win, slot_attr(SLOT_DIALOG));
	mvwhline(v->win, av->det_y - 1, 1, ACS_HLINE, v->cols - 2);
	wattrset(v->win, A_NORMAL);
	pager_draw(&av->pg, v->win, av->det_y, 2, 1);
	pager_position(&av->pg, &b);
	if ((int)b.len + 4 < v->cols)
		draw_str(v->win, v->rows - 1, v->cols - (int)b.len - 3,
			 (int)b.len, b.ptr, b.len, SLOT_DIALOG);
	wnoutrefresh(v->win);
	buf_release(&b);
}

static int agree_handle(struct view *v, enum action a, int key)
{
	struct agree_view *av = v->priv;
	size_t n = v->scr->cb.nr_dims;

	(void)key;
	switch (a) {
	case ACT_NEXT_DIM:
		if (av->dim + 1 < n)
			av->dim++;
		return H_REDRAW;
	case ACT_PREV_DIM:
		if (av->dim)
			av->dim--;
		return H_REDRAW;
	case ACT_NEXT_ROUND:
		av->cur = (av->cur + 1) % av->nr_sc;
		return H_REDRAW;
	case ACT_PREV_ROUND:
		av->cur = (av->cur + av->nr_sc - 1) % av->nr_sc;
		return H_REDRAW;
	case ACT_CLOSE:
	case ACT_QUIT:
	case ACT_AGREEMENT:
		return H_CLOSE;
	case ACT_HELP:
	case ACT_SEARCH:
	case ACT_SEARCH_NEXT:
	case ACT_SEARCH_PREV:
	case ACT_REDRAW:
		return H_UNHANDLED;
	default:
		return pager_action(&av->pg, a) ? H_REDRAW : H_HANDLED;
	}
}

static void agree_close(struct view *v)
{
	struct agree_view *av = v->priv;
	size_t i;

	for (i = 0; i < av->nr_sc; i++)
		scope_release(&av->sc[i]);
	free(av->sc);
	round_gates_free(av->gates, av->nr_gates);
	drift_release(&av->drift);
	doc_release(&av->doc);
	pager_release(&av->pg);
}

static struct pager *agree_pager(struct view *v)
{
	struct agree_view *av = v->priv;

	return &av->pg;
}

const struct view_ops agree_view_ops = {
	.name = "agreement",
	.keymap = KEYMAP_AGREE,
	.priv_size = sizeof(struct agree_view),
	.open = agree_open,
	.layout = agree_layout,
	.draw = agree_draw,
	.handle = agree_handle,
	.close = agree_close,
	.pager = agree_pager,
};

struct view *screen_open_agreement(struct screen *scr, const char *round)
{
	return screen_push_with(scr, &agree_view_ops, round);
}

/* ---- the view as a screen of its own ---------------------------------- */

static void solo_status(struct screen *scr)
{
	screen_draw_status(scr, "j/k dimension  Tab round  Space/b scroll  / "
			   "search  ? help  q quit", NULL);
}

/* closing the view leaves the screen */
static void solo_after_key(struct screen *scr)
{
	if (!scr->nr_overlays)
		scr->quit = 1;
}

static const struct screen_ops solo_screen_ops = {
	.name = "agreement",
	.keymap = KEYMAP_AGREE,
	.help_intro = "The agreement of the study's annotators, computed "
		"once when the screen opened: per dimension the kappa, its "
		"95% confidence interval, the Landis & Koch band and the "
		"number of bugs, per round and for the whole study; below, "
		"the selected dimension's confusion matrix and how often "
		"each annotator chose each code. An \"m\" marks the mean of "
		"per-code kappas (a dimension of several codes per bug), an "
		"\"F\" Fleiss' kappa (more than two annotators).",
	.no_panes = 1,
	.draw_status = solo_status,
	.after_key = solo_after_key,
};

int tui_agree(struct store *st, const struct actor *a, const char *round,
	      struct err *e)
{
	struct screen scr;
	struct round_info r;
	int ret = -1;

	memset(&r, 0, sizeof(r));
	screen_init(&scr, &solo_screen_ops, st, a);
	if (study_codebook(st, &scr.cb, NULL, e) < 0)
		goto out;
	if (round) {
		if (round_get(st, round, &r, e) < 0)
			goto out;
		round_info_release(&r);
	}
	if (!screen_open_agreement(&scr, round)) {
		err_set(e, ERR_INPUT, "%s", scr.msg.len ? scr.msg.ptr :
			"cannot compute the agreement");
		goto out;
	}
	ret = screen_run(&scr, e);
out:
	screen_fini(&scr);
	return ret;
}
