/* SPDX-License-Identifier: MIT */
/*
 * headline_multi: the headline of a "select many" dimension, at the
 * level of codes and of groups: the mean of the per-code (per-group)
 * kappas, the codes left out of it, the exact agreement of the sets and
 * the interval of the mean (resampling the sets).  See headline.h for
 * what is reported and headline.c for the rest.
 */
#include "core/study/headline_int.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/buf.h"

static const char WHY_NOBODY[] = "no annotator chose a code on this dimension";
static const char WHY_NO_CI_MEAN[] =
	"not computed for a mean of per-code kappas";

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
	ret = headline_interval(o, &lv->kappa, NULL, &src, &lv->ci, e);
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
int headline_level_multi(struct agree_level_summary *lv,
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
	headline_bands(lv);
	return ret;
}

/* Select many at the level of groups, two annotators: their sets of
 * groups gs (coders x units, 2 x ad->n_units) compared as agree_multi()
 * compares sets of codes. */
static int group_two(struct agree_level_summary *lv,
		     const struct agreement_dim *ad, const uint64_t *gs,
		     const struct agree_opts *o, struct err *e)
{
	size_t n = ad->n_units, k = (size_t)lv->k, i, cnt;
	struct agree_code *codes = xcalloc(k + 1, sizeof(*codes));
	struct agree_multi m;
	uint64_t *a, *b;
	int ret;

	two_sets(gs, ad->present, n, &a, &b, &cnt);
	ret = agree_multi(lv->k, a, b, cnt, codes, &m, e);
	if (!ret) {
		lv->n_items = cnt;
		lv->po = m.exact;
		for (i = 0; i < k; i++) {
			lv->code_kappa[i] = agree_code_reported(&codes[i]);
			lv->count[i * 2] = codes[i].n_a;
			lv->count[i * 2 + 1] = codes[i].n_b;
		}
		ret = multi_interval(lv, a, b, cnt, NULL, NULL, 0, 2, o, e);
	}
	free(a);
	free(b);
	free(codes);
	return ret;
}

/* Select many at the level of groups, three or more annotators: each
 * group present or absent in each coder's set gs[r * units + u], Fleiss'
 * kappa per group, the share of units whose sets are identical. */
static int group_many(struct agree_level_summary *lv,
		      const struct agreement_dim *ad, const uint64_t *gs,
		      size_t na, const struct agree_opts *o, struct err *e)
{
	size_t n = ad->n_units, k = (size_t)lv->k, units = 0, same = 0, u, r, i;
	int g, ret;

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
			for (i = 0; ad->present[r * n + u] && i < k; i++)
				lv->count[i * na + r] += gs[r * n + u] >> i & 1;
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
					c.n[u * 2 + (gs[r * n + u] >> g &
						     1)] += 1;
		}
		ret = agree_fleiss(&c, &f, e);
		agree_counts_release(&c);
		if (ret < 0)
			return -1;
		lv->code_kappa[g] = f.kappa;
	}
	lv->n_items = units;
	if (units)
		set(&lv->po, (double)same / (double)units);
	else
		undef(&lv->po, "no items");
	return multi_interval(lv, NULL, NULL, 0, gs, ad->present, n, na, o,
			      e);
}

/* Select many at the level of groups: each coder's set of codes becomes
 * the set of their groups, and each group is judged present or absent
 * as each code is (agree_multi() for two annotators, Fleiss' kappa per
 * group for more). */
int headline_level_multi_group(struct agree_level_summary *lv,
			       const struct agreement_dim *ad,
			       const int *gmap, size_t na,
			       const struct agree_opts *o, struct err *e)
{
	size_t n = ad->n_units, k = (size_t)lv->k, r, i;
	uint64_t *gs = xcalloc(na * n + 1, sizeof(*gs));
	int ret = -1;

	lv->coef = "mean per-group kappa";
	lv->count = xcalloc(k * na + 1, sizeof(*lv->count));
	lv->code_kappa = xcalloc(k + 1, sizeof(*lv->code_kappa));
	for (i = 0; i < na * n; i++)
		for (r = 0; r < (size_t)ad->k; r++)
			if (ad->sets[i] >> r & 1)
				gs[i] |= (uint64_t)1 << gmap[r];
	if ((na == 2 ? group_two(lv, ad, gs, o, e) :
	     group_many(lv, ad, gs, na, o, e)) < 0)
		goto out;
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
	headline_bands(lv);
	ret = 0;
out:
	free(gs);
	return ret;
}
