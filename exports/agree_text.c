/* SPDX-License-Identifier: MIT */
/*
 * agree_text: the agreement report as text, a block per dimension (and
 * per code group): the coefficients, the counts per code, the confusion
 * table and the sentence.
 */
#include "exports/agree_int.h"

#include <string.h>

static void num(struct buf *out, const struct agree_stat *s, int decimals)
{
	if (s->defined)
		agree_fmt(out, s->value, decimals);
	else
		buf_addstr(out, "undefined");
}

/* "undefined (why)" or the number. */
static void num_why(struct buf *out, const struct agree_stat *s,
		    int decimals)
{
	if (s->defined)
		agree_fmt(out, s->value, decimals);
	else
		buf_addf(out, "undefined (%s)", s->why);
}

/* The interval with how it was made: "95% CI 0.612-0.905 (bootstrap
 * percentile, 2000 resamples (0 degenerate, drawn again), seed 7)". */
void ar_ci_text(struct buf *out, const struct agree_ci *ci)
{
	if (ci->low.defined && ci->method == AGREE_CI_EXACT) {
		buf_addstr(out, "one-sided 95% lower bound ");
		agree_fmt(out, ci->low.value, 3);
	} else {
		buf_addstr(out, "95% CI ");
		agree_fmt_ci(out, ci, 3);
	}
	if (!ci->low.defined)
		return;
	buf_addstr(out, " (");
	agree_ci_describe(out, ci);
	if (ci->method == AGREE_CI_WALD && ci->clipped) {
		buf_addstr(out, "; raw ");
		agree_fmt(out, ci->wald_low.value, 3);
		buf_addstr(out, " to ");
		agree_fmt(out, ci->wald_high.value, 3);
	}
	buf_addch(out, ')');
}

static void kappa_line(struct buf *out, const char *label,
		       const struct agree_stat *k, const struct agree_ci *ci,
		       enum agree_band band)
{
	buf_addf(out, "  %-20s ", label);
	if (!k->defined) {
		buf_addf(out, "undefined (%s)\n", k->why);
		return;
	}
	agree_fmt(out, k->value, 3);
	if (band != AGREE_BAND_NONE)
		buf_addf(out, " (%s)", agree_band_name(band));
	buf_addstr(out, "  ");
	ar_ci_text(out, ci);
	buf_addch(out, '\n');
}

static void test_line(struct buf *out, const struct agree_stat *se,
		      const struct agree_stat *se0, const struct agree_stat *z,
		      const struct agree_stat *p)
{
	buf_addstr(out, "  ");
	if (se) {
		buf_addstr(out, "SE ");
		num(out, se, 3);
		buf_addstr(out, "  ");
	}
	buf_addstr(out, "SE0 ");
	num(out, se0, 3);
	buf_addstr(out, "  z ");
	if (z->defined) {
		agree_fmt(out, z->value, 2);
		buf_addstr(out, "  ");
		agree_fmt_p(out, p);
	} else {
		buf_addf(out, "undefined (%s)", z->why);
	}
	buf_addch(out, '\n');
}

/* Counts per annotator and the code's kappa, codes someone chose. */
static void code_table(const struct agreement *ag,
		       const struct agree_level_summary *lv, struct buf *out)
{
	size_t na = ag->nr_annotators, r;
	int i;

	buf_addf(out, "\n  %-30s", lv->group ? "group" : "code");
	for (r = 0; r < na; r++)
		buf_addf(out, " %8.8s", ag->annotators[r]);
	buf_addf(out, " %8s", na > 2 ? "Fleiss" : "kappa");
	if (lv->code_prevalence)
		buf_addf(out, " %7s %7s", "PI", "BI");
	buf_addch(out, '\n');
	for (i = 0; i < lv->k; i++) {
		long total = 0;

		for (r = 0; r < na; r++)
			total += lv->count[(size_t)i * na + r];
		if (!total)
			continue;
		buf_addf(out, "  %-30.30s", lv->names[i]);
		for (r = 0; r < na; r++)
			buf_addf(out, " %8ld", lv->count[(size_t)i * na + r]);
		if (lv->code_kappa[i].defined) {
			struct buf t = BUF_INIT;

			agree_fmt(&t, lv->code_kappa[i].value, 3);
			buf_addf(out, " %8s", t.ptr);
			buf_release(&t);
		} else {
			buf_addf(out, " %8s", "undef");
		}
		if (lv->code_prevalence) {
			struct buf t = BUF_INIT, u = BUF_INIT;

			agree_fmt(&t, lv->code_prevalence[i].value, 3);
			agree_fmt(&u, lv->code_bias[i].value, 3);
			buf_addf(out, " %7s %7s", t.ptr, u.ptr);
			buf_release(&t);
			buf_release(&u);
		}
		buf_addch(out, '\n');
	}
}

static void confusion_text(const struct agreement *ag,
			   const struct agree_level_summary *lv,
			   struct buf *out)
{
	int i, j, k = lv->k, used = 0;

	for (i = 0; i < k; i++)
		used += lv->count[(size_t)i * 2] ||
			lv->count[(size_t)i * 2 + 1];
	if (!used)
		return;
	buf_addf(out, "\n  confusion (rows %s, columns %s; numbered as "
		 "above)\n  %14s", ag->annotators[0], ag->annotators[1], "");
	for (j = 0; j < k; j++)
		if (lv->count[(size_t)j * 2] || lv->count[(size_t)j * 2 + 1])
			buf_addf(out, " %4d", j + 1);
	buf_addch(out, '\n');
	for (i = 0; i < k; i++) {
		if (!lv->count[(size_t)i * 2] && !lv->count[(size_t)i * 2 + 1])
			continue;
		buf_addf(out, "  %2d %-11.11s", i + 1, lv->names[i]);
		for (j = 0; j < k; j++)
			if (lv->count[(size_t)j * 2] ||
			    lv->count[(size_t)j * 2 + 1])
				buf_addf(out, " %4ld", lv->table.n[i * k + j]);
		buf_addch(out, '\n');
	}
}

static void weighted_text(const struct dimension *dim,
			  const struct agree_level_summary *lv,
			  struct buf *out)
{
	buf_addf(out, "  %s scale%s:\n", dim_scale_name(dim->scale),
		 lv->n_annotators > 2 ? " (kappas and AC2: means over the "
		 "pairs)" : "");
	kappa_line(out, "linear weighted kappa", &lv->kappa_linear,
		   &lv->ci_linear, agree_band(&lv->kappa_linear));
	kappa_line(out, "quadratic weighted", &lv->kappa_quadratic,
		   &lv->ci_quadratic, agree_band(&lv->kappa_quadratic));
	buf_addf(out, "  %-20s ", "Krippendorff's alpha");
	num_why(out, &lv->alpha_scale, 3);
	buf_addf(out, " (%s metric)\n", dim_scale_name(dim->scale));
	buf_addf(out, "  %-20s linear ", "Gwet's AC2");
	num_why(out, &lv->ac2_linear, 3);
	buf_addstr(out, ", quadratic ");
	num_why(out, &lv->ac2_quadratic, 3);
	buf_addch(out, '\n');
}

/* A select-many level: identical sets, the mean kappa per code. */
static void text_many(const struct agreement *ag,
		      const struct agree_dim_summary *ds,
		      const struct agree_level_summary *lv,
		      struct buf *out)
{
	buf_addf(out, "  select many: each %s judged present or "
		 "absent\n  identical sets      ", lv->group ? "group" :
		 "code");
	num_why(out, &lv->po, 3);
	buf_addch(out, '\n');
	kappa_line(out, lv->group ? "mean kappa per group" :
		   "mean kappa per code", &lv->kappa, &lv->ci,
		   lv->band);
	buf_addf(out, "  (the mean of %d of %d %s%s; %d left out: "
		 "their kappa is undefined)\n", lv->codes_defined,
		 lv->k, lv->group ? "group" : "code",
		 lv->k == 1 ? "" : "s", lv->codes_left_out);
	code_table(ag, lv, out);
}

/* Two annotators: Cohen's kappa and its company, the confusion
 * table. */
static void text_two(const struct agreement *ag,
		     const struct agree_dim_summary *ds,
		     const struct agree_level_summary *lv,
		     struct buf *out)
{
	const struct agreement_dim *ad = ds->ad;
	const struct dimension *dim = ad->dim;
	const struct agree_cohen *c = &lv->cohen;

	buf_addstr(out, "  observed agreement  ");
	num(out, &c->po, 3);
	buf_addstr(out, "    expected  ");
	num(out, &c->pe, 3);
	buf_addch(out, '\n');
	kappa_line(out, "Cohen's kappa", &lv->kappa, &lv->ci,
		   lv->band);
	if (lv->kappa.defined)
		test_line(out, &c->se, &c->se0, &c->z, &c->p_two);
	buf_addstr(out, "  kappa max ");
	num(out, &lv->kappa_max, 3);
	buf_addstr(out, "   prevalence index ");
	num(out, &lv->prevalence, 3);
	buf_addstr(out, lv->k > 2 ? "   bias index (generalised: "
		   AGREE_BIAS_FORMULA ") " : "   bias index ");
	num(out, &lv->bias, 3);
	buf_addstr(out, "\n  Scott's pi ");
	num(out, &c->scott_pi, 3);
	buf_addstr(out, "   Krippendorff's alpha ");
	num(out, &c->alpha.alpha, 3);
	buf_addstr(out, "   Gwet's AC1 ");
	num(out, &c->ac1, 3);
	buf_addstr(out, "   PABAK ");
	num(out, &c->pabak, 3);
	buf_addch(out, '\n');
	if (lv->weighted)
		weighted_text(dim, lv, out);
	if (ad->n_dropped && !lv->group)
		buf_addf(out, "  (%zu submitted item%s left out: a "
			 "coder left this dimension empty)\n",
			 ad->n_dropped, ad->n_dropped == 1 ? "" : "s");
	code_table(ag, lv, out);
	confusion_text(ag, lv, out);
}

/* Three or more annotators: Fleiss' and Conger's kappas, the pairs. */
static void text_fleiss(const struct agreement *ag,
			const struct agree_dim_summary *ds,
			const struct agree_level_summary *lv,
			struct buf *out)
{
	const struct dimension *dim = ds->ad->dim;
	const struct agree_fleiss *f = &lv->fleiss;
	size_t p;

	buf_addstr(out, "  observed agreement  ");
	num(out, &f->po, 3);
	buf_addch(out, '\n');
	kappa_line(out, "Fleiss' kappa", &lv->kappa, &lv->ci,
		   lv->band);
	if (lv->kappa.defined)
		test_line(out, &f->se, &f->se0, &f->z, &f->p_two);
	kappa_line(out, "Conger's kappa", &lv->conger, &lv->conger_ci,
		   agree_band(&lv->conger));
	buf_addstr(out, "  Krippendorff's alpha ");
	num_why(out, &lv->alpha, 3);
	buf_addstr(out, "   Gwet's AC1 ");
	num(out, &f->ac1, 3);
	buf_addch(out, '\n');
	if (lv->weighted)
		weighted_text(dim, lv, out);
	if (lv->n_dropped && !lv->group)
		buf_addf(out, "  (%zu item%s left out: fewer than two "
			 "coders coded this dimension)\n",
			 lv->n_dropped, lv->n_dropped == 1 ? "" : "s");
	buf_addstr(out, "  Cohen's kappa per pair:\n");
	for (p = 0; p < lv->nr_pairs; p++) {
		const struct agree_pair_summary *ps = &lv->pairs[p];

		buf_addf(out, "    %s / %s: ", ag->annotators[ps->a],
			 ag->annotators[ps->b]);
		num_why(out, &ps->kappa, 3);
		if (ps->kappa.defined) {
			buf_addstr(out, "  ");
			ar_ci_text(out, &ps->ci);
		}
		buf_addstr(out, "  observed ");
		num(out, &ps->po, 3);
		buf_addf(out, "  (n = %ld)\n", ps->n);
	}
	code_table(ag, lv, out);
}

static void text_level(const struct agreement *ag,
		       const struct agree_dim_summary *ds,
		       const struct agree_level_summary *lv, struct buf *out)
{
	if (ds->ad->dim->select_many)
		text_many(ag, ds, lv, out);
	else if (ag->nr_annotators == 2)
		text_two(ag, ds, lv, out);
	else
		text_fleiss(ag, ds, lv, out);
	buf_addstr(out, "\n  ");
	agree_sentence_build(ag, ds, lv, out);
	buf_addch(out, '\n');
}

void ar_render_text(const struct agreement *ag,
		    const struct headline *sum, struct buf *out)
{
	size_t i;

	buf_addf(out, "Agreement, %s%s; annotators: ", ag->round ? "round " :
		 "whole study", ag->round ? ag->round : "");
	for (i = 0; i < ag->nr_annotators; i++)
		buf_addf(out, "%s%s", i ? ", " : "", ag->annotators[i]);
	if (!ag->nr_annotators)
		buf_addstr(out, "none yet");
	buf_addch(out, '\n');
	if (sum->scope)
		buf_addstr(out, sum->scope);
	if (ag->nr_annotators < 2) {
		buf_addstr(out, "Agreement needs two annotators' submitted "
			   "labels on the same items.\n");
		return;
	}
	if (sum->opts.ci != AGREE_CI_WALD)
		buf_addf(out, "Intervals: 95%%, %s bootstrap over items, %d "
			 "resamples, seed %llu; degenerate resamples (the "
			 "kappa undefined) drawn again and counted\n",
			 sum->opts.ci == AGREE_CI_BCA ? "BCa" : "percentile",
			 sum->opts.boot, (unsigned long long)sum->opts.seed);
	else
		buf_addstr(out, "Intervals: 95%, Wald (kappa +- 1.96 SE), "
			   "clipped to [-1, 1] where marked\n");
	buf_addstr(out, "A kappa of 1: the exact one-sided 95% lower bound "
		   "from the observed agreement; under 10 items an interval "
		   "is marked\n");
	buf_addstr(out, "Bands: Landis & Koch (1977)\n");
	if (sum->later) {
		const char *p = sum->later, *nl;

		buf_addstr(out, "Changed since the round closed (the figures "
			   "use the labels as they are now):\n");
		for (; (nl = strchr(p, '\n')); p = nl + 1)
			buf_addf(out, "  %.*s\n", (int)(nl - p), p);
	}
	for (i = 0; i < sum->nr_dims; i++) {
		const struct agree_dim_summary *ds = &sum->dims[i];
		const struct agreement_dim *d = ds->ad;

		buf_addf(out, "\n%s (%s): n = %zu bugs, %d code%s", d->dim->key,
			 d->dim->name, ds->code.n_items, d->k,
			 d->k == 1 ? "" : "s");
		if (d->dim->scale != SCALE_NOMINAL)
			buf_addf(out, ", %s scale", dim_scale_name(
				d->dim->scale));
		buf_addch(out, '\n');
		if (ds->show_code)
			text_level(ag, ds, &ds->code, out);
		if (ds->show_group) {
			buf_addf(out, "\n %s by code group: %d group%s\n",
				 d->dim->key, ds->grp.k,
				 ds->grp.k == 1 ? "" : "s");
			text_level(ag, ds, &ds->grp, out);
		}
	}
}
