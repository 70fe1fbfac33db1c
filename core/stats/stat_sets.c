/* SPDX-License-Identifier: MIT */
/*
 * stat_sets: "select many" dimensions: a set of codes per item and annotator,
 * set distances and the agreement over them.  API in agree.h.
 */
#include "core/stats/agree.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/buf.h"
#include "core/stats/stat_int.h"

static int popcount64(uint64_t x)
{
	int n = 0;

	for (; x; x &= x - 1)
		n++;
	return n;
}

double agree_set_distance(uint64_t a, uint64_t b, enum agree_set_metric metric)
{
	uint64_t both = a & b, any = a | b;
	double jac, m;

	if (a == b)
		return 0;
	switch (metric) {
	case AGREE_SET_BINARY:
		return 1;
	case AGREE_SET_JACCARD:
		return 1 - (double)popcount64(both) / popcount64(any);
	case AGREE_SET_PASSONNEAU:
		if (both == a || both == b)
			return 1.0 / 3;
		return both ? 2.0 / 3 : 1;
	case AGREE_SET_MASI:
		jac = (double)popcount64(both) / popcount64(any);
		if (both == a || both == b)
			m = 2.0 / 3;
		else
			m = both ? 1.0 / 3 : 0;
		return 1 - jac * m;
	}
	return 1;
}

/*
 * Each code of a select-many dimension is a present/absent judgement on
 * every item, so it gets the 2 x 2 statistics of stat_code_2x2().  The summary
 * is the mean of the defined per-code kappas (unweighted: every code
 * counts the same, however rare) and the share of items whose two sets
 * are identical (the "exact set" agreement, dkpro's pa on sets).
 */
int agree_multi(int k, const uint64_t *a, const uint64_t *b, size_t n,
		struct agree_code *codes, struct agree_multi *out,
		struct err *e)
{
	uint64_t valid;
	size_t i, same = 0;
	double sum = 0;
	int c;

	if (k < 1 || k > AGREE_MULTI_MAX)
		return err_set(e, ERR_INPUT, "select-many dimension has %d "
			       "codes, need 1..%d", k, AGREE_MULTI_MAX);
	if (n && (!a || !b))
		return err_set(e, ERR_INPUT, "select-many: no labels");
	valid = k == 64 ? ~(uint64_t)0 : (((uint64_t)1 << k) - 1);
	for (i = 0; i < n; i++) {
		if ((a[i] | b[i]) & ~valid)
			return err_set(e, ERR_INPUT, "item %zu: code out of "
				       "range 0..%d", i + 1, k - 1);
		if (a[i] == b[i])
			same++;
	}
	memset(out, 0, sizeof(*out));
	out->n = n;
	out->k = k;
	if (!n)
		stat_undef(&out->exact, WHY_NO_ITEMS);
	else
		stat_set(&out->exact, (double)same / (double)n);
	for (c = 0; c < k; c++) {
		uint64_t bit = (uint64_t)1 << c;
		long both = 0, only_a = 0, only_b = 0, neither = 0;
		struct agree_code one;

		for (i = 0; i < n; i++) {
			int x = (a[i] & bit) != 0, y = (b[i] & bit) != 0;

			if (x && y)
				both++;
			else if (x)
				only_a++;
			else if (y)
				only_b++;
			else
				neither++;
		}
		stat_code_2x2(both, only_a, only_b, neither, &one);
		if (codes)
			codes[c] = one;
		if (one.kappa.defined) {
			sum += one.kappa.value;
			out->n_defined++;
		}
	}
	if (!n)
		stat_undef(&out->mean_kappa, WHY_NO_ITEMS);
	else if (!out->n_defined)
		stat_undef(&out->mean_kappa, WHY_NO_CODE_KAPPA);
	else
		stat_set(&out->mean_kappa, sum / out->n_defined);
	return 0;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/*
 * Alpha on sets (Passonneau 2004): every distinct set is a value and the
 * distance between values is a set distance.  Two coders, every unit
 * pairable, so unit u adds 1 to o(a_u, b_u) and to o(b_u, a_u) and
 * N = 2n; D_o and D_e are as in stat_alpha_from_coincidence(), computed over
 * the distinct sets (time grows with their number squared).
 */
int agree_multi_alpha(const uint64_t *a, const uint64_t *b, size_t n,
		      enum agree_set_metric metric, struct agree_alpha *out,
		      struct err *e)
{
	uint64_t *v;
	double *cnt, nn, obs = 0, exp_ = 0;
	size_t i, j, m = 0, same = 0;

	if (metric != AGREE_SET_BINARY && metric != AGREE_SET_JACCARD &&
	    metric != AGREE_SET_PASSONNEAU && metric != AGREE_SET_MASI)
		return err_set(e, ERR_INPUT, "unknown set distance %d", metric);
	if (n && (!a || !b))
		return err_set(e, ERR_INPUT, "select-many: no labels");
	memset(out, 0, sizeof(*out));
	if (!n) {
		alpha_undef(out, WHY_NO_PAIRABLE);
		return 0;
	}
	v = xmalloc(2 * n * sizeof(*v));
	cnt = xcalloc(2 * n, sizeof(*cnt));
	memcpy(v, a, n * sizeof(*v));
	memcpy(v + n, b, n * sizeof(*v));
	qsort(v, 2 * n, sizeof(*v), cmp_u64);
	for (i = 0; i < 2 * n; i++) {
		if (m && v[m - 1] == v[i]) {
			cnt[m - 1]++;
			continue;
		}
		v[m] = v[i];
		cnt[m++] = 1;
	}
	for (i = 0; i < n; i++) {
		obs += 2 * agree_set_distance(a[i], b[i], metric);
		if (a[i] == b[i])
			same++;
	}
	for (i = 0; i < m; i++)
		for (j = i + 1; j < m; j++)
			exp_ += 2 * cnt[i] * cnt[j] *
				agree_set_distance(v[i], v[j], metric);
	free(v);
	free(cnt);
	nn = 2.0 * (double)n;
	out->n_values = nn;
	out->n_units = n;
	stat_set(&out->po, 2.0 * (double)same / nn);
	stat_set(&out->d_o, obs / nn);
	stat_set(&out->d_e, exp_ / (nn * (nn - 1)));
	if (exp_ <= 0)
		stat_undef(&out->alpha, WHY_DE0);
	else
		stat_set(&out->alpha, 1 - out->d_o.value / out->d_e.value);
	return 0;
}
