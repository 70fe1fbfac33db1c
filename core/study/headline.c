/* SPDX-License-Identifier: MIT */
/*
 * headline: see headline.h.  The "select many" levels are in
 * headline_multi.c, the text in headline_text.c; what they share is in
 * headline_int.h.
 */
#include "core/study/headline.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/study/codebook.h"
#include "core/study/headline_int.h"

static const char WHY_NO_CI_PAIRS[] =
	"not computed for a mean of pairs' kappas";
static const char WHY_PI_K[] =
	"Byrt's prevalence index is for two codes: see the codes";
static const char WHY_FEWER_2[] = "fewer than two annotators";
static const char WHY_NO_SE[] =
	"no standard error for this coefficient (--ci bootstrap gives an "
	"interval)";

/* The reported value of a kappa: undefined when degenerate. */
static struct agree_stat masked(const struct agree_stat *k,
				const char *degenerate)
{
	struct agree_stat s = *k;

	if (s.defined && degenerate)
		undef(&s, degenerate);
	return s;
}

/* The interval of a reported kappa `k` with SE `se` (NULL: none) from
 * source `src`. */
int headline_interval(const struct agree_opts *o,
		      const struct agree_stat *k, const struct agree_stat *se,
		      const struct ci_src *src, struct agree_ci *ci,
		      struct err *e)
{
	struct agree_boot_opts bo;
	int rc = 0;

	if (!k->defined) {
		ci_none(ci, o->ci, k->why);
		/* the raw Wald bounds of a degenerate kappa stay unshown:
		 * the value itself is not reported */
		ci->n = src->n;
		return 0;
	}
	if (k->value >= KAPPA_ONE) {
		struct agree_ci wald;

		if (isnan(src->perfect_low)) {
			agree_ci_perfect(src->n, src->pe, ci);
		} else {
			agree_ci_perfect(src->n, 0, ci);
			ci->low.value = src->perfect_low;
		}
		/* the raw Wald bounds stay beside it, as always */
		agree_ci_wald(k, se, &wald);
		ci->wald_low = wald.wald_low;
		ci->wald_high = wald.wald_high;
		return 0;
	}
	if (o->ci == AGREE_CI_WALD) {
		agree_ci_wald(k, se, ci);
		if (!se && !ci->low.defined)
			ci->low.why = ci->high.why = WHY_NO_SE;
		ci->n = src->n;
		return 0;
	}
	bo.method = o->ci;
	bo.boot = o->boot;
	bo.seed = o->seed;
	if (src->t)
		rc = agree_boot_table(src->t, src->w, &bo, k, se, ci, e);
	else if (src->c)
		rc = agree_boot_fleiss(src->c, &bo, k, ci, e);
	else if (src->l)
		rc = agree_boot_conger(src->l, &bo, k, ci, e);
	else if (src->a)
		rc = agree_boot_multi(src->k, src->a, src->b, (size_t)src->n,
				      &bo, k, ci, e);
	else if (src->sets)
		rc = agree_boot_multi_fleiss(src->k, src->sets, src->present,
					     src->units, src->coders, &bo, k,
					     ci, e);
	else
		ci_none(ci, o->ci, "no interval for this coefficient");
	if (rc < 0)
		return -1;
	if (se && !src->t) {
		struct agree_ci wald;

		agree_ci_wald(k, se, &wald);
		ci->wald_low = wald.wald_low;
		ci->wald_high = wald.wald_high;
	}
	ci->n = src->n;
	return 0;
}

int agree_table_interval(const struct agree_opts *o,
			 const struct agree_table *t, struct agree_stat *kappa,
			 struct agree_ci *ci, struct err *e)
{
	static const struct agree_opts def = AGREE_OPTS_INIT;
	struct agree_cohen c;
	struct ci_src src;

	if (agree_cohen(t, &c, e) < 0)
		return -1;
	*kappa = masked(&c.kappa, c.degenerate);
	src_init(&src, c.n, c.pe.value);
	src.t = t;
	return headline_interval(o ? o : &def, kappa, &c.se, &src, ci, e);
}

void headline_bands(struct agree_level_summary *lv)
{
	lv->band = agree_band(&lv->kappa);
	if (lv->ci.low.defined && lv->ci.high.defined) {
		agree_band_range(lv->ci.low.value, lv->ci.high.value,
				 &lv->band_low, &lv->band_high);
	} else {
		lv->band_low = lv->band;
		lv->band_high = lv->band;
	}
}

static void level_release(struct agree_level_summary *lv)
{
	agree_table_release(&lv->table);
	free(lv->names);
	free(lv->count);
	free(lv->code_kappa);
	free(lv->code_prevalence);
	free(lv->code_bias);
	free(lv->pairs);
	memset(lv, 0, sizeof(*lv));
}

/* Counts per code (unit u gives one count per coder) as a units x k
 * matrix, for alpha. */
static void counts_of_table(const struct agree_table *t,
			    struct agree_counts *c)
{
	size_t k = (size_t)t->k, i, j, u = 0;
	long x;

	agree_counts_init(c, (size_t)agree_table_total(t), t->k);
	for (i = 0; i < k; i++)
		for (j = 0; j < k; j++)
			for (x = 0; x < t->n[i * k + j]; x++, u++) {
				c->n[u * k + i] += 1;
				c->n[u * k + j] += 1;
			}
}

/* Byrt, Bishop & Carlin 1993, a 2 x 2 table a b / c d of n items:
 * PI = (a - d) / n, BI = (b - c) / n.  For k codes the bias index is
 * half the summed differences of the margins, sum |p_i. - p_.i| / 2 (for
 * two codes |BI|): the share of items whose label one annotator would
 * have to change for the margins to match. */
static void prevalence_bias(struct agree_level_summary *lv)
{
	const struct agree_table *t = &lv->table;
	size_t k = (size_t)t->k, i, j;
	double n = (double)agree_table_total(t), sum = 0;

	lv->code_prevalence = xcalloc(k, sizeof(*lv->code_prevalence));
	lv->code_bias = xcalloc(k, sizeof(*lv->code_bias));
	if (n <= 0) {
		undef(&lv->prevalence, "no items");
		undef(&lv->bias, "no items");
		for (i = 0; i < k; i++) {
			undef(&lv->code_prevalence[i], "no items");
			undef(&lv->code_bias[i], "no items");
		}
		return;
	}
	for (i = 0; i < k; i++) {
		double r = 0, c = 0, a = (double)t->n[i * k + i], d;

		for (j = 0; j < k; j++) {
			r += (double)t->n[i * k + j];
			c += (double)t->n[j * k + i];
		}
		d = n - r - c + a;
		set(&lv->code_prevalence[i], (a - d) / n);
		set(&lv->code_bias[i], (r - c) / n);
		sum += fabs(r - c);
	}
	if (k == 2) {
		set(&lv->prevalence, ((double)t->n[0] - (double)t->n[3]) / n);
		set(&lv->bias, ((double)t->n[1] - (double)t->n[2]) / n);
	} else {
		undef(&lv->prevalence, WHY_PI_K);
		set(&lv->bias, sum / 2 / n);
	}
}

/* Weighted kappas and alpha of a two-annotator table on an ordinal or
 * interval scale. */
static int weighted_two(struct agree_level_summary *lv,
			const struct dimension *dim,
			const struct agree_opts *o, struct err *e)
{
	const struct agree_table *t = &lv->table;
	size_t k = (size_t)t->k, i;
	double *w = xcalloc(k * k, sizeof(*w));
	double *v = NULL;
	struct agree_counts c = AGREE_COUNTS_INIT;
	struct agree_weighted wk;
	struct agree_alpha al;
	struct ci_src src;
	int pass, ret = -1;

	if (dim->scale == SCALE_INTERVAL) {
		v = xcalloc(k, sizeof(*v));
		for (i = 0; i < k; i++)
			v[i] = dim->codes[i].value;
	}
	for (pass = 0; pass < 2; pass++) {
		struct agree_stat *ks = pass ? &lv->kappa_quadratic :
					       &lv->kappa_linear;
		struct agree_ci *ci = pass ? &lv->ci_quadratic :
					     &lv->ci_linear;

		if (k < 2) {
			undef(ks, "needs at least two codes");
			undef(pass ? &lv->ac2_quadratic : &lv->ac2_linear,
			      ks->why);
			ci_none(ci, o->ci, ks->why);
			continue;
		}
		if (agree_weights(w, (int)k, pass ? AGREE_QUADRATIC :
				  AGREE_LINEAR, v, e) < 0 ||
		    agree_weighted(t, w, &wk, e) < 0)
			goto out;
		*ks = masked(&wk.kappa, wk.degenerate);
		*(pass ? &lv->ac2_quadratic : &lv->ac2_linear) = wk.ac2;
		src_init(&src, wk.n, wk.pe.value);
		src.t = t;
		src.w = w;
		if (headline_interval(o, ks, &wk.se, &src, ci, e) < 0)
			goto out;
	}
	counts_of_table(t, &c);
	if (agree_alpha(&c, dim->scale == SCALE_INTERVAL ? AGREE_INTERVAL :
			AGREE_ORDINAL, v, &al, e) < 0)
		goto out;
	lv->alpha_scale = al.alpha;
	lv->weighted = 1;
	ret = 0;
out:
	agree_counts_release(&c);
	free(w);
	free(v);
	return ret;
}

/* Two annotators, select one: `lv->table` is filled. */
static int level_two(struct agree_level_summary *lv,
		     const struct dimension *dim, int scaled,
		     const struct agree_opts *o, struct err *e)
{
	const struct agree_table *t = &lv->table;
	size_t k = (size_t)t->k, i, j;
	struct ci_src src;
	int c;

	if (agree_cohen(t, &lv->cohen, e) < 0)
		return -1;
	lv->coef = "Cohen's kappa";
	lv->n_items = (size_t)lv->cohen.n;
	lv->kappa = masked(&lv->cohen.kappa, lv->cohen.degenerate);
	lv->po = lv->cohen.po;
	lv->alpha = lv->cohen.alpha.alpha;
	src_init(&src, lv->cohen.n, lv->cohen.pe.value);
	src.t = t;
	if (headline_interval(o, &lv->kappa, &lv->cohen.se, &src, &lv->ci,
			      e) < 0)
		return -1;
	headline_bands(lv);
	ci_none(&lv->conger_ci, o->ci, "for three or more annotators");
	lv->kappa_max = lv->cohen.kappa_max;
	if (lv->kappa_max.defined && lv->cohen.degenerate)
		undef(&lv->kappa_max, lv->cohen.degenerate);
	prevalence_bias(lv);
	lv->count = xcalloc(k * 2 + 1, sizeof(*lv->count));
	lv->code_kappa = xcalloc(k + 1, sizeof(*lv->code_kappa));
	for (i = 0; i < k; i++) {
		struct agree_code one;

		for (j = 0; j < k; j++) {
			lv->count[i * 2] += t->n[i * k + j];
			lv->count[i * 2 + 1] += t->n[j * k + i];
		}
		c = (int)i;
		if (agree_code(t, c, &one, e) < 0)
			return -1;
		/* one annotator never chose the code, or chose it on every
		 * item: its 2 x 2 kappa is 0 by construction */
		lv->code_kappa[i] = agree_code_reported(&one);
	}
	if (scaled && dim->scale != SCALE_NOMINAL)
		return weighted_two(lv, dim, o, e);
	return 0;
}

/* Three or more annotators: the items `lv->count` counts (those with
 * two labels or more), per code and annotator. */
static void count_many(struct agree_level_summary *lv, const int *v,
		       size_t n_units, size_t n_ann)
{
	size_t k = (size_t)lv->k, u, r;

	/* counts over the units in the computation (two labels or more) */
	lv->count = xcalloc(k * n_ann + 1, sizeof(*lv->count));
	for (u = 0; u < n_units; u++) {
		int m = 0;

		for (r = 0; r < n_ann; r++)
			m += v[r * n_units + u] != AGREE_MISSING;
		if (m < 2)
			continue;
		for (r = 0; r < n_ann; r++) {
			int x = v[r * n_units + u];

			if (x != AGREE_MISSING)
				lv->count[(size_t)x * n_ann + r]++;
		}
	}
}

/* Three or more annotators: Cohen's kappa of every pair with its
 * interval into lv->pairs, and with weights w (linear, then quadratic;
 * NULL: nominal) the means of the pairs' weighted kappas and AC2.  0, or
 * -1 with `e` filled. */
static int pair_kappas(struct agree_level_summary *lv, const int *v,
		       size_t n_units, size_t n_ann, const double *w,
		       const struct agree_opts *o, struct err *e)
{
	struct ci_src src;
	size_t k = (size_t)lv->k, r, r2, p = 0;
	double sum_l = 0, sum_q = 0, ac_l = 0, ac_q = 0;
	int undef_l = 0, undef_q = 0;

	lv->nr_pairs = n_ann * (n_ann - 1) / 2;
	lv->pairs = xcalloc(lv->nr_pairs + 1, sizeof(*lv->pairs));
	for (r = 0; r < n_ann; r++)
		for (r2 = r + 1; r2 < n_ann; r2++) {
			struct agree_table t = AGREE_TABLE_INIT;
			struct agree_pair_summary *ps = &lv->pairs[p++];
			struct agree_cohen ck;
			struct agree_weighted wk;

			ps->a = (int)r;
			ps->b = (int)r2;
			if (agree_table_from_labels(&t, lv->k, v + r * n_units,
						    v + r2 * n_units, n_units,
						    NULL, e) < 0)
				return -1;
			if (agree_cohen(&t, &ck, e) < 0) {
				agree_table_release(&t);
				return -1;
			}
			ps->kappa = masked(&ck.kappa, ck.degenerate);
			src_init(&src, ck.n, ck.pe.value);
			src.t = &t;
			if (headline_interval(o, &ps->kappa, &ck.se, &src,
					      &ps->ci, e) < 0) {
				agree_table_release(&t);
				return -1;
			}
			ps->n = ck.n;
			ps->po = ck.po;
			if (w) {
				agree_weighted(&t, w, &wk, NULL);
				if (wk.kappa.defined && !wk.degenerate &&
				    wk.ac2.defined) {
					sum_l += wk.kappa.value;
					ac_l += wk.ac2.value;
				} else {
					undef_l++;
				}
				agree_weighted(&t, w + k * k, &wk, NULL);
				if (wk.kappa.defined && !wk.degenerate &&
				    wk.ac2.defined) {
					sum_q += wk.kappa.value;
					ac_q += wk.ac2.value;
				} else {
					undef_q++;
				}
			}
			agree_table_release(&t);
		}
	if (w) {
		const char *why = "weighted kappa is undefined for some pair "
				  "of annotators";

		if (undef_l) {
			undef(&lv->kappa_linear, why);
			undef(&lv->ac2_linear, why);
		} else {
			set(&lv->kappa_linear, sum_l / (double)lv->nr_pairs);
			set(&lv->ac2_linear, ac_l / (double)lv->nr_pairs);
		}
		if (undef_q) {
			undef(&lv->kappa_quadratic, why);
			undef(&lv->ac2_quadratic, why);
		} else {
			set(&lv->kappa_quadratic, sum_q /
						  (double)lv->nr_pairs);
			set(&lv->ac2_quadratic, ac_q / (double)lv->nr_pairs);
		}
		ci_none(&lv->ci_linear, o->ci, WHY_NO_CI_PAIRS);
		ci_none(&lv->ci_quadratic, o->ci, WHY_NO_CI_PAIRS);
	}
	return 0;
}

/* Three or more annotators, select one: labels v (n_ann x n_units). */
static int level_many(struct agree_level_summary *lv,
		      const struct dimension *dim, int scaled,
		      const int *v, size_t n_units, size_t n_ann,
		      const struct agree_opts *o, struct err *e)
{
	struct agree_labels l;
	struct agree_counts c = AGREE_COUNTS_INIT;
	struct agree_alpha al;
	struct agree_stat cpe;
	struct ci_src src;
	size_t k = (size_t)lv->k, u;
	double *w = NULL, *vals = NULL;
	int code, ret = -1;

	l.n_coders = (int)n_ann;
	l.n_units = n_units;
	l.k = lv->k;
	l.v = v;
	if (agree_counts_from_labels(&c, &l, e) < 0 ||
	    agree_fleiss(&c, &lv->fleiss, e) < 0 ||
	    agree_alpha(&c, AGREE_NOMINAL, NULL, &al, e) < 0 ||
	    agree_conger_pe(&l, &lv->conger, &cpe, e) < 0)
		goto out;
	lv->coef = "Fleiss' kappa";
	lv->n_items = lv->fleiss.n_units;
	lv->n_dropped = n_units - lv->fleiss.n_units;
	lv->kappa = lv->fleiss.kappa;
	lv->po = lv->fleiss.po;
	lv->alpha = al.alpha;
	src_init(&src, (long)lv->fleiss.n_units, lv->fleiss.pe.value);
	src.c = &c;
	if (headline_interval(o, &lv->kappa, &lv->fleiss.se, &src, &lv->ci,
			      e) < 0)
		goto out;
	src_init(&src, (long)lv->fleiss.n_units, cpe.value);
	src.l = &l;
	if (headline_interval(o, &lv->conger, NULL, &src, &lv->conger_ci,
			      e) < 0)
		goto out;
	headline_bands(lv);
	undef(&lv->kappa_max, "for two annotators");
	undef(&lv->prevalence, "for two annotators");
	undef(&lv->bias, "for two annotators");

	count_many(lv, v, n_units, n_ann);
	lv->code_kappa = xcalloc(k + 1, sizeof(*lv->code_kappa));
	for (code = 0; code < lv->k; code++)
		if (agree_fleiss_code(&c, code, &lv->code_kappa[code], e) < 0)
			goto out;

	if (scaled && dim->scale != SCALE_NOMINAL && k >= 2) {
		w = xcalloc(2 * k * k, sizeof(*w));
		if (dim->scale == SCALE_INTERVAL) {
			vals = xcalloc(k, sizeof(*vals));
			for (u = 0; u < k; u++)
				vals[u] = dim->codes[u].value;
		}
		if (agree_weights(w, lv->k, AGREE_LINEAR, vals, e) < 0 ||
		    agree_weights(w + k * k, lv->k, AGREE_QUADRATIC, vals,
				  e) < 0)
			goto out;
	}
	if (pair_kappas(lv, v, n_units, n_ann, w, o, e) < 0)
		goto out;
	if (w) {
		if (agree_alpha(&c, dim->scale == SCALE_INTERVAL ?
				AGREE_INTERVAL : AGREE_ORDINAL, vals, &al,
				e) < 0)
			goto out;
		lv->alpha_scale = al.alpha;
		lv->weighted = 1;
	}
	ret = 0;
out:
	agree_counts_release(&c);
	free(w);
	free(vals);
	return ret;
}

/* Map of codes to groups: group[c] for every code, names of the groups
 * in order of first appearance (a code without a group is its own). */
static int group_map(const struct dimension *dim, int *group,
		     const char **names)
{
	size_t i, j;
	int n = 0;

	for (i = 0; i < dim->nr_codes; i++) {
		const char *g = dim->codes[i].group ? dim->codes[i].group :
			       dim->codes[i].key;

		for (j = 0; j < (size_t)n; j++)
			if (!strcmp(names[j], g))
				break;
		if (j == (size_t)n)
			names[n++] = g;
		group[i] = (int)j;
	}
	return n;
}

/* The level of the groups of dimension `ad` (its codes' "group"; a code
 * without one is a group of its own) into lv, as the level of the codes
 * is computed.  0, or -1 with `e` filled. */
static int level_groups(struct agree_level_summary *lv,
			const struct agreement_dim *ad, size_t na,
			const struct agree_opts *o, struct err *e)
{
	const struct dimension *dim = ad->dim;
	size_t k = (size_t)ad->k, i, j;
	int *gmap, ret = -1;

	gmap = xcalloc(k + 1, sizeof(*gmap));
	lv->group = 1;
	lv->n_annotators = na;
	lv->names = xcalloc(k + 1, sizeof(*lv->names));
	lv->k = group_map(dim, gmap, lv->names);
	if (dim->select_many) {
		if (headline_level_multi_group(lv, ad, gmap, na, o, e) < 0)
			goto out;
	} else if (na == 2) {
		size_t g = (size_t)lv->k;

		agree_table_init(&lv->table, lv->k);
		for (i = 0; i < k; i++)
			for (j = 0; j < k; j++)
				lv->table.n[(size_t)gmap[i] * g +
					    (size_t)gmap[j]] +=
					ad->table.n[i * k + j];
		lv->n_dropped = ad->n_dropped;
		if (level_two(lv, dim, 0, o, e) < 0)
			goto out;
	} else {
		size_t cells = na * ad->n_units;
		int *v = xcalloc(cells + 1, sizeof(*v));

		for (i = 0; i < cells; i++)
			v[i] = ad->labels[i] == AGREE_MISSING ? AGREE_MISSING :
			       gmap[ad->labels[i]];
		j = (size_t)level_many(lv, dim, 0, v, ad->n_units, na, o, e);
		free(v);
		if ((int)j < 0)
			goto out;
	}
	ret = 0;
out:
	free(gmap);
	return ret;
}

static int summarize_dim(const struct agreement *ag,
			 const struct agreement_dim *ad,
			 struct agree_dim_summary *ds,
			 const struct agree_opts *o, struct err *e)
{
	const struct dimension *dim = ad->dim;
	size_t na = ag->nr_annotators, k = (size_t)ad->k, i;
	struct agree_level_summary *lv = &ds->code;

	ds->ad = ad;
	for (i = 0; i < k; i++)
		ds->has_groups |= dim->codes[i].group != NULL;
	ds->show_code = o->level != AGREE_LEVEL_GROUP || !ds->has_groups ||
			(dim->select_many && !ad->sets);
	ds->show_group = ds->has_groups && o->level != AGREE_LEVEL_CODE &&
			 (!dim->select_many || ad->sets);
	lv->k = ad->k;
	lv->n_annotators = na;
	lv->names = xcalloc(k + 1, sizeof(*lv->names));
	for (i = 0; i < k; i++)
		lv->names[i] = dim->codes[i].key;
	if (na < 2) {
		lv->coef = "Cohen's kappa";
		undef(&lv->kappa, WHY_FEWER_2);
		undef(&lv->po, WHY_FEWER_2);
		undef(&lv->conger, WHY_FEWER_2);
		undef(&lv->alpha, WHY_FEWER_2);
		undef(&lv->kappa_max, WHY_FEWER_2);
		undef(&lv->prevalence, WHY_FEWER_2);
		undef(&lv->bias, WHY_FEWER_2);
		ci_none(&lv->ci, o->ci, WHY_FEWER_2);
		ci_none(&lv->conger_ci, o->ci, WHY_FEWER_2);
		lv->count = xcalloc(k * (na + 1) + 1, sizeof(*lv->count));
		lv->code_kappa = xcalloc(k + 1, sizeof(*lv->code_kappa));
		for (i = 0; i < k; i++)
			undef(&lv->code_kappa[i], WHY_FEWER_2);
		ds->show_group = 0;
		ds->show_code = 1;
		return 0;
	}
	if (dim->select_many) {
		if (headline_level_multi(lv, ad, na, o, e) < 0)
			return -1;
	} else if (na == 2) {
		agree_table_init(&lv->table, ad->k);
		memcpy(lv->table.n, ad->table.n,
		       k * k * sizeof(*lv->table.n));
		lv->n_dropped = ad->n_dropped;
		if (level_two(lv, dim, 1, o, e) < 0)
			return -1;
	} else if (level_many(lv, dim, 1, ad->labels, ad->n_units, na, o,
			      e) < 0) {
		return -1;
	}
	if (!ds->show_group)
		return 0;

	/* the same at the level of the groups */
	return level_groups(&ds->grp, ad, na, o, e);
}

int headline_compute(const struct agreement *ag, const struct agree_opts *o,
		    struct headline *out, struct err *e)
{
	static const struct agree_opts def = AGREE_OPTS_INIT;
	size_t d;

	memset(out, 0, sizeof(*out));
	out->opts = o ? *o : def;
	if (out->opts.boot < 1)
		return err_set(e, ERR_INPUT, "--boot %d: need at least one "
			       "bootstrap sample", out->opts.boot);
	out->dims = xcalloc(ag->nr_dims + 1, sizeof(*out->dims));
	out->nr_dims = ag->nr_dims;
	for (d = 0; d < ag->nr_dims; d++)
		if (summarize_dim(ag, &ag->dims[d], &out->dims[d], &out->opts,
				  e) < 0) {
			headline_release(out);
			return -1;
		}
	return 0;
}

void headline_release(struct headline *s)
{
	size_t d;

	if (!s)
		return;
	for (d = 0; d < s->nr_dims; d++) {
		level_release(&s->dims[d].code);
		level_release(&s->dims[d].grp);
	}
	free(s->dims);
	free(s->later);
	free(s->scope);
	s->dims = NULL;
	s->later = NULL;
	s->scope = NULL;
	s->nr_dims = 0;
}

/*
 * slope = sum (x - xbar)(y - ybar) / sum (x - xbar)^2 over the rounds
 * with a value, x the round's position among all rounds (a round without
 * a value leaves a gap rather than closing it up).
 */
struct agree_stat agree_trend_slope(const double *y, const int *defined,
				    size_t n)
{
	struct agree_stat s;
	double sx = 0, sy = 0, sxy = 0, sxx = 0, m = 0, xbar, ybar;
	size_t i;

	for (i = 0; i < n; i++)
		if (defined[i]) {
			sx += (double)i;
			sy += y[i];
			m++;
		}
	if (m < 2) {
		undef(&s, "needs two rounds with a value");
		return s;
	}
	xbar = sx / m;
	ybar = sy / m;
	for (i = 0; i < n; i++)
		if (defined[i]) {
			sxy += ((double)i - xbar) * (y[i] - ybar);
			sxx += ((double)i - xbar) * ((double)i - xbar);
		}
	set(&s, sxy / sxx);
	return s;
}

struct agree_stat agree_trend_se(const double *y, const int *defined,
				 size_t n)
{
	struct agree_stat s, slope = agree_trend_slope(y, defined, n);
	double sx = 0, sy = 0, sxx = 0, rss = 0, m = 0, xbar, ybar;
	size_t i;

	for (i = 0; i < n; i++)
		if (defined[i]) {
			sx += (double)i;
			sy += y[i];
			m++;
		}
	if (!slope.defined || m < 3) {
		undef(&s, "needs three rounds with a value");
		return s;
	}
	xbar = sx / m;
	ybar = sy / m;
	for (i = 0; i < n; i++)
		if (defined[i]) {
			double fit = ybar + slope.value * ((double)i - xbar);

			sxx += ((double)i - xbar) * ((double)i - xbar);
			rss += (y[i] - fit) * (y[i] - fit);
		}
	set(&s, sqrt(rss / (m - 2) / sxx));
	return s;
}
