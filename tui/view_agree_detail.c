/* SPDX-License-Identifier: MIT */
/*
 * view_agree_detail: the agreement view's detail (view_agree.c), for one
 * dimension and one scope - the copy-ready sentences, the calibration
 * gates, the other statistics, the confusion grid shaded by count, the
 * per-code and per-pair kappas, bars of how often each annotator chose
 * each code and, for the owner, coder drift - rendered into a document
 * that scrolls like a pane.
 */
#define _XOPEN_SOURCE_EXTENDED 1
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/text.h"
#include "core/study/agreement.h"
#include "core/study/drift.h"
#include "core/study/gate.h"
#include "core/study/headline_text.h"
#include "exports/agree_report.h"
#include "tui/doc.h"
#include "tui/draw.h"
#include "tui/view_agree_int.h"

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

/* The detail's title: the dimension, its name and the scope. */
static void render_title(struct doc *d, const struct scope *sc,
			 const struct dimension *dim)
{
	struct buf b = BUF_INIT;

	doc_begin(d, SLOT_MD_HEADING, 0, d->nr);
	doc_put_untrusted(d, dim->key, SLOT_MD_HEADING);
	if (dim->name) {
		doc_puts(d, " - ", SLOT_MD_HEADING);
		doc_put_untrusted(d, dim->name, SLOT_MD_HEADING);
	}
	buf_addf(&b, " %s ", glyph(G_DOT));
	agree_scope_label(sc, &b);
	doc_puts(d, b.ptr, SLOT_MD_HEADING);
	doc_end(d);
	buf_release(&b);
}

/* The other statistics of the dimension, in one line (wrapped), and
 * its weighted figures on an ordinal or interval scale. */
static void render_stats(struct doc *d, const struct agreement *ag,
			 const struct agreement_dim *ad,
			 const struct agree_level_summary *lv,
			 const struct dimension *dim, int width)
{
	struct buf b = BUF_INIT;

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
	buf_release(&b);
}

/* Without a confusion grid (more than two annotators, or a `select:
 * many` dimension): the kappa of each code chosen. */
static void render_per_code(struct doc *d, const struct agreement *ag,
			    const struct agree_level_summary *lv,
			    const struct dimension *dim)
{
	int labw = label_width(dim, lv->count, ag->nr_annotators, 28);
	struct buf b = BUF_INIT;
	size_t i;

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
	buf_release(&b);
}

/* Cohen's kappa of each pair of annotators, when there are pairs. */
static void render_pairs(struct doc *d, const struct agreement *ag,
			 const struct agree_level_summary *lv)
{
	struct buf b = BUF_INIT;
	size_t i;

	if (!lv->nr_pairs)
		return;
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
	buf_release(&b);
}

void agree_detail_render(struct agree_view *av, const struct codebook *cb,
			 int width)
{
	struct doc *d = &av->doc;
	const struct scope *sc = &av->sc[av->cur];
	const struct dimension *dim = &cb->dims[av->dim];
	const struct agreement_dim *ad = agree_scope_dim(sc, av->dim);
	const struct agreement *ag = &sc->ag;
	const struct agree_dim_summary *ds;
	const struct agree_level_summary *lv;
	struct buf b = BUF_INIT;

	doc_clear(d);
	av->width = width;
	av->doc_dim = av->dim;
	av->doc_cur = av->cur;
	render_title(d, sc, dim);
	if (!ad) {
		para(d, sc->why ? sc->why : "not computed", width, SLOT_NOTICE);
		goto out;
	}
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
	render_stats(d, ag, ad, lv, dim, width);
	doc_line(d, "", SLOT_NORMAL, d->nr);

	if (ag->nr_annotators == 2 && !dim->select_many) {
		render_grid(d, ag, ad, lv, width);
		doc_line(d, "", SLOT_NORMAL, d->nr);
	} else {
		render_per_code(d, ag, lv, dim);
	}
	render_pairs(d, ag, lv);
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
