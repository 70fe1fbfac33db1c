/* SPDX-License-Identifier: MIT */
/*
 * agree_summary: see agree_summary.h.
 */
#include "core/study/headline.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/study/codebook.h"

static const char WHY_NOBODY[] = "no annotator chose a code on this dimension";
static const char WHY_NO_CI_MEAN[] =
	"not computed for a mean of per-code kappas";
static const char WHY_NO_CI_PAIRS[] =
	"not computed for a mean of pairs' kappas";
static const char WHY_PI_K[] =
	"Byrt's prevalence index is for two codes: see the codes";
static const char WHY_FEWER_2[] = "fewer than two annotators";
static const char WHY_NO_SE[] =
	"no standard error for this coefficient (--ci bootstrap gives an "
	"interval)";

static void undef(struct agree_stat *s, const char *why)
{
	s->value = 0;
	s->defined = 0;
	s->why = why;
}

static void set(struct agree_stat *s, double v)
{
	s->value = v;
	s->defined = 1;
	s->why = NULL;
}

static void ci_none(struct agree_ci *ci, enum agree_ci_method m,
		    const char *why)
{
	memset(ci, 0, sizeof(*ci));
	ci->method = m;
	undef(&ci->low, why);
	undef(&ci->high, why);
	undef(&ci->wald_low, why);
	undef(&ci->wald_high, why);
}

/* The reported value of a kappa: undefined when degenerate. */
static struct agree_stat masked(const struct agree_stat *k,
				const char *degenerate)
{
	struct agree_stat s = *k;

	if (s.defined && degenerate)
		undef(&s, degenerate);
	return s;
}

/* Where the resamples of an interval come from (one of the sources),
 * and what a kappa of 1 is bounded with. */
struct ci_src {
	long n;				/* items behind the value */
	double pe;			/* chance agreement, for kappa = 1 */
	double perfect_low;		/* or that bound itself (NAN: from
					   pe) */
	const struct agree_table *t;	/* Cohen's, or weighted with w */
	const double *w;
	const struct agree_counts *c;	/* Fleiss' */
	const struct agree_labels *l;	/* Conger's */
	int k;				/* select many: codes, and */
	const uint64_t *a, *b;		/* two coders' sets (n of each), */
	const uint64_t *sets;		/* or more coders' (coders x units) */
	const unsigned char *present;
	int coders;
	size_t units;
};

static void src_init(struct ci_src *s, long n, double pe)
{
	memset(s, 0, sizeof(*s));
	s->n = n;
	s->pe = pe;
	s->perfect_low = NAN;
}

/* A kappa this close to 1 is 1: only rounding can put it there. */
#define KAPPA_ONE (1 - 1e-12)

/* The interval of a reported kappa `k` with SE `se` (NULL: none) from
 * source `src`. */
static int interval(const struct agree_opts *o, const struct agree_stat *k,
		    const struct agree_stat *se, const struct ci_src *src,
		    struct agree_ci *ci, struct err *e)
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
	return interval(o ? o : &def, kappa, &c.se, &src, ci, e);
}

static void bands_of(struct agree_level_summary *lv)
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
		if (interval(o, ks, &wk.se, &src, ci, e) < 0)
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
	if (interval(o, &lv->kappa, &lv->cohen.se, &src, &lv->ci, e) < 0)
		return -1;
	bands_of(lv);
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
	size_t k = (size_t)lv->k, u, r, r2, p = 0;
	double *w = NULL, *vals = NULL, sum_l = 0, sum_q = 0;
	double ac_l = 0, ac_q = 0;
	int code, undef_l = 0, undef_q = 0, ret = -1;

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
	if (interval(o, &lv->kappa, &lv->fleiss.se, &src, &lv->ci, e) < 0)
		goto out;
	src_init(&src, (long)lv->fleiss.n_units, cpe.value);
	src.l = &l;
	if (interval(o, &lv->conger, NULL, &src, &lv->conger_ci, e) < 0)
		goto out;
	bands_of(lv);
	undef(&lv->kappa_max, "for two annotators");
	undef(&lv->prevalence, "for two annotators");
	undef(&lv->bias, "for two annotators");

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
				goto out;
			if (agree_cohen(&t, &ck, e) < 0) {
				agree_table_release(&t);
				goto out;
			}
			ps->kappa = masked(&ck.kappa, ck.degenerate);
			src_init(&src, ck.n, ck.pe.value);
			src.t = &t;
			if (interval(o, &ps->kappa, &ck.se, &src, &ps->ci,
				     e) < 0) {
				agree_table_release(&t);
				goto out;
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


/* The mean of the defined per-code kappas lv->code_kappa[0..k) into
 * lv->kappa, with how many codes count and how many are left out. */
static void code_mean(struct agree_level_summary *lv)
{
	double sum = 0;
	int i;

	lv->codes_defined = lv->codes_left_out = 0;
	for (i = 0; i < lv->k; i++) {
		if (lv->code_kappa[i].defined) {
			sum += lv->code_kappa[i].value;
			lv->codes_defined++;
		} else {
			lv->codes_left_out++;
		}
	}
	if (!lv->n_items)
		undef(&lv->kappa, "no items");
	else if (lv->codes_defined)
		set(&lv->kappa, sum / lv->codes_defined);
	else
		undef(&lv->kappa, lv->group ? "no group has a defined kappa" :
		      "no code has a defined kappa");
}

/* The lower bound of a mean per-code kappa of 1 (every code that counts
 * agrees on every item): the mean of the codes' exact lower bounds
 * (agree_perfect_lower()), code c's chance agreement from the shares
 * share[c * n_ann + r] of the items on which annotator r chose it. */
static double mean_perfect_lower(const struct agree_level_summary *lv,
				 const double *share, size_t n_ann)
{
	double sum = 0;
	size_t r;
	int i, m = 0;

	for (i = 0; i < lv->k; i++) {
		double pe, p = 0, q = 0;

		if (!lv->code_kappa[i].defined)
			continue;
		if (n_ann == 2) {
			p = share[(size_t)i * 2];
			q = share[(size_t)i * 2 + 1];
			pe = p * q + (1 - p) * (1 - q);
		} else {
			for (r = 0; r < n_ann; r++)
				p += share[(size_t)i * n_ann + r];
			p /= (double)n_ann;
			pe = p * p + (1 - p) * (1 - p);
		}
		sum += agree_perfect_lower((long)lv->n_items, pe, NULL);
		m++;
	}
	return m ? sum / m : NAN;
}

/* The mean per-code kappa of select-many sets and its interval: two
 * annotators' sets a, b of the `n` units both submitted, or (a NULL)
 * n_ann coders' sets[r * units + u] with present[]; lv->code_kappa and
 * lv->n_items are set. */
static int multi_interval(struct agree_level_summary *lv,
			  const uint64_t *a, const uint64_t *b, size_t n,
			  const uint64_t *sets, const unsigned char *present,
			  size_t units, size_t n_ann,
			  const struct agree_opts *o, struct err *e)
{
	double *share = xcalloc((size_t)lv->k * n_ann + 1, sizeof(*share));
	double *seen = xcalloc(n_ann + 1, sizeof(*seen));
	struct ci_src src;
	size_t u, r;
	int i, ret;

	code_mean(lv);
	src_init(&src, (long)lv->n_items, NAN);
	src.k = lv->k;
	if (a) {
		for (u = 0; u < n; u++)
			for (i = 0; i < lv->k; i++) {
				share[(size_t)i * 2] += (double)(a[u] >> i & 1);
				share[(size_t)i * 2 + 1] +=
					(double)(b[u] >> i & 1);
			}
		for (i = 0; n && i < 2 * lv->k; i++)
			share[i] /= (double)n;
		src.a = a;
		src.b = b;
	} else {
		for (u = 0; u < units; u++) {
			size_t m = 0;

			for (r = 0; r < n_ann; r++)
				m += present[r * units + u] != 0;
			if (m < 2)
				continue;
			for (r = 0; r < n_ann; r++) {
				if (!present[r * units + u])
					continue;
				seen[r]++;
				for (i = 0; i < lv->k; i++)
					share[(size_t)i * n_ann + r] += (double)
						(sets[r * units + u] >> i & 1);
			}
		}
		for (r = 0; r < n_ann; r++)
			for (i = 0; seen[r] && i < lv->k; i++)
				share[(size_t)i * n_ann + r] /= seen[r];
		src.sets = sets;
		src.present = present;
		src.coders = (int)n_ann;
		src.units = units;
	}
	if (lv->kappa.defined && lv->kappa.value >= KAPPA_ONE)
		src.perfect_low = mean_perfect_lower(lv, share, n_ann);
	ret = interval(o, &lv->kappa, NULL, &src, &lv->ci, e);
	free(share);
	free(seen);
	return ret;
}

/* The sets of the units both of two annotators submitted, from a
 * coders x units matrix: a[0..*n), b[0..*n) (owned by the caller). */
static void two_sets(const uint64_t *sets, const unsigned char *present,
		     size_t units, uint64_t **a, uint64_t **b, size_t *n)
{
	size_t u;

	*a = xcalloc(units + 1, sizeof(**a));
	*b = xcalloc(units + 1, sizeof(**b));
	*n = 0;
	for (u = 0; u < units; u++) {
		if (!present[u] || !present[units + u])
			continue;
		(*a)[*n] = sets[u];
		(*b)[*n] = sets[units + u];
		(*n)++;
	}
}

/* Select many, codes only: agreement.c's figures, with counts and an
 * exact agreement that is undefined when nobody chose anything; the
 * per-code kappas as reported (agree_code_reported(): a code one
 * annotator never chose, or chose on every item, has a 2 x 2 kappa of 0
 * by construction and is undefined here), their mean over the codes
 * that say something, and its interval. */
static int level_multi(struct agree_level_summary *lv,
		       const struct agreement_dim *ad, size_t n_ann,
		       const struct agree_opts *o, struct err *e)
{
	size_t k = (size_t)ad->k, i;
	long total = 0;
	int ret = 0;

	lv->coef = "mean per-code kappa";
	lv->n_items = ad->n_items;
	lv->po = ad->multi.exact;
	lv->count = xcalloc(k * n_ann + 1, sizeof(*lv->count));
	memcpy(lv->count, ad->count, k * n_ann * sizeof(*lv->count));
	for (i = 0; i < k * n_ann; i++)
		total += lv->count[i];
	if (!total && lv->n_items)
		undef(&lv->po, WHY_NOBODY);
	lv->code_kappa = xcalloc(k + 1, sizeof(*lv->code_kappa));
	for (i = 0; i < k; i++) {
		if (!ad->per_code)
			undef(&lv->code_kappa[i], "not computed");
		else if (n_ann == 2)
			lv->code_kappa[i] = agree_code_reported(
				&ad->per_code[i]);
		else
			lv->code_kappa[i] = ad->per_code[i].kappa;
	}
	if (ad->sets && n_ann == 2) {
		uint64_t *a, *b;
		size_t n;

		two_sets(ad->sets, ad->present, ad->n_units, &a, &b, &n);
		ret = multi_interval(lv, a, b, n, NULL, NULL, 0, 2, o, e);
		free(a);
		free(b);
	} else if (ad->sets) {
		ret = multi_interval(lv, NULL, NULL, 0, ad->sets, ad->present,
				     ad->n_units, n_ann, o, e);
	} else {
		code_mean(lv);
		ci_none(&lv->ci, o->ci, lv->kappa.defined ? WHY_NO_CI_MEAN :
			lv->kappa.why);
	}
	undef(&lv->conger, "for select one");
	undef(&lv->alpha, "for select one");
	undef(&lv->kappa_max, "for select one");
	undef(&lv->prevalence, "for select one");
	undef(&lv->bias, "for select one");
	ci_none(&lv->conger_ci, o->ci, "for select one");
	bands_of(lv);
	return ret;
}

/* Select many at the level of groups: each coder's set of codes becomes
 * the set of their groups, and each group is judged present or absent
 * as each code is (agree_multi() for two annotators, Fleiss' kappa per
 * group for more). */
static int level_multi_group(struct agree_level_summary *lv,
			     const struct agreement_dim *ad,
			     const int *gmap, size_t na,
			     const struct agree_opts *o, struct err *e)
{
	size_t n = ad->n_units, k = (size_t)lv->k, u, r, i;
	uint64_t *gs = xcalloc(na * n + 1, sizeof(*gs));
	int ret = -1;

	lv->coef = "mean per-group kappa";
	lv->count = xcalloc(k * na + 1, sizeof(*lv->count));
	lv->code_kappa = xcalloc(k + 1, sizeof(*lv->code_kappa));
	for (i = 0; i < na * n; i++)
		for (r = 0; r < (size_t)ad->k; r++)
			if (ad->sets[i] >> r & 1)
				gs[i] |= (uint64_t)1 << gmap[r];
	if (na == 2) {
		struct agree_code *codes = xcalloc(k + 1, sizeof(*codes));
		struct agree_multi m;
		uint64_t *a, *b;
		size_t cnt;

		two_sets(gs, ad->present, n, &a, &b, &cnt);
		ret = agree_multi(lv->k, a, b, cnt, codes, &m, e);
		if (!ret) {
			lv->n_items = cnt;
			lv->po = m.exact;
			for (i = 0; i < k; i++) {
				lv->code_kappa[i] = agree_code_reported(
					&codes[i]);
				lv->count[i * 2] = codes[i].n_a;
				lv->count[i * 2 + 1] = codes[i].n_b;
			}
			ret = multi_interval(lv, a, b, cnt, NULL, NULL, 0, 2,
					     o, e);
		}
		free(a);
		free(b);
		free(codes);
		if (ret < 0)
			goto out;
	} else {
		size_t units = 0, same = 0;
		int g;

		for (u = 0; u < n; u++) {
			uint64_t first = 0;
			int seen = 0, all = 1;

			for (r = 0; r < na; r++) {
				if (!ad->present[r * n + u])
					continue;
				if (!seen++)
					first = gs[r * n + u];
				else if (first != gs[r * n + u])
					all = 0;
			}
			if (seen < 2)
				continue;
			units++;
			same += all;
			for (r = 0; r < na; r++)
				for (i = 0; ad->present[r * n + u] && i < k;
				     i++)
					lv->count[i * na + r] +=
						gs[r * n + u] >> i & 1;
		}
		for (g = 0; g < lv->k; g++) {
			struct agree_counts c = AGREE_COUNTS_INIT;
			struct agree_fleiss f;

			agree_counts_init(&c, n, 2);
			for (u = 0; u < n; u++) {
				int seen = 0;

				for (r = 0; r < na; r++)
					seen += ad->present[r * n + u];
				for (r = 0; seen >= 2 && r < na; r++)
					if (ad->present[r * n + u])
						c.n[u * 2 + (gs[r * n + u] >>
							     g & 1)] += 1;
			}
			ret = agree_fleiss(&c, &f, e);
			agree_counts_release(&c);
			if (ret < 0)
				goto out;
			lv->code_kappa[g] = f.kappa;
		}
		lv->n_items = units;
		if (units)
			set(&lv->po, (double)same / (double)units);
		else
			undef(&lv->po, "no items");
		if (multi_interval(lv, NULL, NULL, 0, gs, ad->present, n, na,
				   o, e) < 0)
			goto out;
	}
	{
		long total = 0;

		for (i = 0; i < k * na; i++)
			total += lv->count[i];
		if (!total && lv->n_items)
			undef(&lv->po, WHY_NOBODY);
	}
	undef(&lv->conger, "for select one");
	undef(&lv->alpha, "for select one");
	undef(&lv->kappa_max, "for select one");
	undef(&lv->prevalence, "for select one");
	undef(&lv->bias, "for select one");
	ci_none(&lv->conger_ci, o->ci, "for select one");
	bands_of(lv);
	ret = 0;
out:
	free(gs);
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

static int summarize_dim(const struct agreement *ag,
			 const struct agreement_dim *ad,
			 struct agree_dim_summary *ds,
			 const struct agree_opts *o, struct err *e)
{
	const struct dimension *dim = ad->dim;
	size_t na = ag->nr_annotators, k = (size_t)ad->k, i, j;
	struct agree_level_summary *lv = &ds->code;
	int *gmap = NULL, ret = -1;

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
		if (level_multi(lv, ad, na, o, e) < 0)
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
	gmap = xcalloc(k + 1, sizeof(*gmap));
	lv = &ds->grp;
	lv->group = 1;
	lv->n_annotators = na;
	lv->names = xcalloc(k + 1, sizeof(*lv->names));
	lv->k = group_map(dim, gmap, lv->names);
	if (dim->select_many) {
		if (level_multi_group(lv, ad, gmap, na, o, e) < 0)
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

/* ---- text ------------------------------------------------------------- */

void agree_fmt(struct buf *out, double v, int decimals)
{
	char tmp[64];
	const char *p;

	snprintf(tmp, sizeof(tmp), "%.*f", decimals, v);
	/* "-0.00": the sign of a value that rounds to zero says nothing */
	if (tmp[0] == '-') {
		for (p = tmp + 1; *p == '0' || *p == '.'; p++)
			;
		if (!*p) {
			buf_addstr(out, tmp + 1);
			return;
		}
	}
	buf_addstr(out, tmp);
}

#define EN_DASH "\xe2\x80\x93"

void agree_fmt_ci(struct buf *out, const struct agree_ci *ci, int decimals)
{
	struct buf lo = BUF_INIT, hi = BUF_INIT;

	if (!ci->low.defined || !ci->high.defined) {
		buf_addf(out, "undefined (%s)", ci->low.why ? ci->low.why :
			 "no interval");
		return;
	}
	/* an interval of some width is never shown as 0.00-0.00 */
	for (;; decimals++) {
		buf_reset(&lo);
		buf_reset(&hi);
		agree_fmt(&lo, ci->low.value, decimals);
		agree_fmt(&hi, ci->high.value, decimals);
		if (strcmp(lo.ptr, hi.ptr) || ci->low.value == ci->high.value ||
		    decimals >= 6)
			break;
	}
	buf_addstr(out, lo.ptr);
	buf_addstr(out, EN_DASH);
	buf_addstr(out, hi.ptr);
	buf_release(&lo);
	buf_release(&hi);
}

void agree_ci_describe(struct buf *out, const struct agree_ci *ci)
{
	switch (ci->method) {
	case AGREE_CI_WALD:
		buf_addstr(out, ci->clipped ? "Wald, clipped to [-1, 1]" :
			   "Wald");
		break;
	case AGREE_CI_EXACT:
		buf_addf(out, "exact: all %ld item%s agree, so observed "
			 "agreement >= ", ci->n, ci->n == 1 ? "" : "s");
		agree_fmt(out, ci->po_lower, 3);
		buf_addstr(out, " (Clopper-Pearson)");
		break;
	default:
		buf_addf(out, "%s, %d resamples (%d degenerate, drawn "
			 "again), seed %llu", agree_ci_method_name(ci->method),
			 ci->boot, ci->boot_degenerate,
			 (unsigned long long)ci->seed);
		if (ci->method == AGREE_CI_BCA && ci->low.defined) {
			buf_addstr(out, ", z0 ");
			agree_fmt(out, ci->bca_z0, 3);
			buf_addstr(out, ", a ");
			agree_fmt(out, ci->bca_accel, 3);
		}
		break;
	}
	if (ci->n < AGREE_SMALL_N && ci->low.defined)
		buf_addf(out, "; only %ld item%s, under %d: the interval says "
			 "little", ci->n, ci->n == 1 ? "" : "s", AGREE_SMALL_N);
}

void agree_fmt_p(struct buf *out, const struct agree_stat *p)
{
	char tmp[32], *q;

	if (!p->defined) {
		buf_addf(out, "p undefined (%s)", p->why);
		return;
	}
	if (p->value < 0.001) {
		buf_addstr(out, "p < .001");
		return;
	}
	snprintf(tmp, sizeof(tmp), "%.3f", p->value);
	q = tmp[0] == '0' ? tmp + 1 : tmp;	/* APA: no leading zero */
	buf_addf(out, "p = %s", q);
}

/* "root_cause" -> "root cause": the dimension's name, lower-cased in
 * ASCII only (tolower() in a single-byte locale would break UTF-8). */
static void prose_name(const struct dimension *dim, struct buf *out)
{
	const char *p;

	for (p = dim->name; *p; p++)
		buf_addch(out, *p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
}

/* ", 3 more left out: a coder left the dimension empty" */
static void dropped_text(struct buf *out,
			 const struct agree_level_summary *lv)
{
	if (lv->n_dropped)
		buf_addf(out, " (%zu more left out: a coder left the dimension "
			 "empty)", lv->n_dropped);
}

/* "95% CI 0.62-0.91, bootstrap percentile, ..." or the one-sided bound,
 * or why there is none. */
static void sentence_ci(struct buf *out, const struct agree_ci *ci)
{
	if (!ci->low.defined) {
		buf_addf(out, "no 95%% CI: %s", ci->low.why);
		return;
	}
	if (ci->method == AGREE_CI_EXACT) {
		buf_addstr(out, "one-sided 95% lower bound ");
		agree_fmt(out, ci->low.value, 2);
		buf_addstr(out, ", ");
		agree_ci_describe(out, ci);
		return;
	}
	buf_addstr(out, "95% CI ");
	agree_fmt_ci(out, ci, 2);
	buf_addstr(out, ", ");
	agree_ci_describe(out, ci);
}

void agree_sentence_build(const struct agreement *ag,
			  const struct agree_dim_summary *d,
			  const struct agree_level_summary *lv,
			  struct buf *out)
{
	const struct dimension *dim = d->ad->dim;
	const char *unit = lv->group ? (lv->k == 1 ? "group" : "groups") :
			   (lv->k == 1 ? "code" : "codes");

	/* a sentence starts with a capital */
	buf_addch(out, lv->coef[0] >= 'a' && lv->coef[0] <= 'z' ?
		  lv->coef[0] - 'a' + 'A' : lv->coef[0]);
	buf_addstr(out, lv->coef + 1);
	buf_addstr(out, " for ");
	prose_name(dim, out);
	if (lv->group)
		buf_addstr(out, " (code groups)");
	if (!lv->kappa.defined) {
		buf_addf(out, " is undefined: %s (n = %zu bugs", lv->kappa.why,
			 lv->n_items);
		dropped_text(out, lv);
		buf_addf(out, ", %d %s, %zu annotator%s", lv->k, unit,
			 ag->nr_annotators, ag->nr_annotators == 1 ? "" : "s");
		if (lv->po.defined) {
			buf_addstr(out, dim->select_many ?
				   "; identical sets " :
				   "; observed agreement ");
			agree_fmt(out, lv->po.value, 2);
		}
		buf_addstr(out, ").");
		return;
	}
	buf_addstr(out, " was ");
	agree_fmt(out, lv->kappa.value, 2);
	buf_addstr(out, " (");
	sentence_ci(out, &lv->ci);
	buf_addf(out, "; n = %zu bugs", lv->n_items);
	dropped_text(out, lv);
	buf_addf(out, ", %d %s, %zu annotators", lv->k, unit,
		 ag->nr_annotators);
	if (dim->select_many) {
		buf_addf(out, "; the mean of %d %s kappa%s", lv->codes_defined,
			 lv->group ? "group" : "code",
			 lv->codes_defined == 1 ? "" : "s");
		if (lv->codes_left_out)
			buf_addf(out, ", %d %s left out as undefined",
				 lv->codes_left_out, lv->group ?
				 (lv->codes_left_out == 1 ? "group" :
				  "groups") : (lv->codes_left_out == 1 ?
					       "code" : "codes"));
	}
	buf_addstr(out, "; ");
	buf_addstr(out, dim->select_many ? "identical sets " :
		   "observed agreement ");
	if (lv->po.defined)
		agree_fmt(out, lv->po.value, 2);
	else
		buf_addf(out, "undefined, %s", lv->po.why);
	buf_addf(out, "), %s agreement", agree_band_name(lv->band));
	if (lv->band_low != lv->band_high)
		buf_addf(out, ", %s to %s within the interval",
			 agree_band_name(lv->band_low),
			 agree_band_name(lv->band_high));
	buf_addstr(out, " (Landis & Koch, 1977)");
	if (ag->nr_annotators > 2 && !dim->select_many) {
		buf_addstr(out, "; Conger's kappa ");
		if (lv->conger.defined) {
			agree_fmt(out, lv->conger.value, 2);
			buf_addstr(out, " (");
			sentence_ci(out, &lv->conger_ci);
			buf_addch(out, ')');
		} else {
			buf_addf(out, "undefined (%s)", lv->conger.why);
		}
		buf_addstr(out, ", Krippendorff's alpha ");
		if (lv->alpha.defined)
			agree_fmt(out, lv->alpha.value, 2);
		else
			buf_addf(out, "undefined (%s)", lv->alpha.why);
	}
	buf_addch(out, '.');
}
