/* SPDX-License-Identifier: MIT */
/*
 * stat_bootstrap: percentile and BCa bootstrap intervals over items, resampling the
 * sample's distinct units, for every statistic in stat_*.c.  API in
 * agree.h.
 */
#include "core/stats/agree.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/buf.h"
#include "core/stats/stat_int.h"

/* Two replicates closer than this are one value (ties of the BCa bias
 * correction): kappas of different tables differ by far more. */
#define TIE_EPS 1e-12

/* Turn the replicates rep[0..used) into the interval: percentile, or BCa
 * with the jackknife values jack[0..nj) (weights wj). */
static void ci_from_replicates(double *rep, const struct agree_boot_opts *o,
			       const struct agree_stat *value,
			       const double *jack, const double *wj,
			       size_t nj, struct agree_ci *out)
{
	double lo, hi, pl = 0.025, ph = 0.975;
	size_t used = (size_t)out->boot_used, i;

	if (!value || !value->defined) {
		stat_ci_undef(out, value ? value->why : WHY_NO_ITEMS);
		return;
	}
	if ((int)used < o->boot || used < 2) {
		stat_ci_undef(out, WHY_BOOT_DEGEN);
		return;
	}
	qsort(rep, used, sizeof(*rep), stat_cmp_double);
	if (o->method == AGREE_CI_BCA) {
		double below = 0, mean = 0, wsum = 0, s2 = 0, s3 = 0, z0, a;
		int side;

		for (i = 0; i < used; i++)
			below += rep[i] < value->value - TIE_EPS ? 1 :
				 rep[i] <= value->value + TIE_EPS ? 0.5 : 0;
		if (below <= 0 || below >= (double)used) {
			stat_ci_undef(out, WHY_BCA_SIDE);
			return;
		}
		z0 = agree_normal_quantile(below / (double)used);
		for (i = 0; i < nj; i++) {
			mean += wj[i] * jack[i];
			wsum += wj[i];
		}
		mean = wsum > 0 ? mean / wsum : 0;
		for (i = 0; i < nj; i++) {
			double d = mean - jack[i];

			s2 += wj[i] * d * d;
			s3 += wj[i] * d * d * d;
		}
		a = s2 > 0 ? s3 / (6 * pow(s2, 1.5)) : 0;
		out->bca_z0 = z0;
		out->bca_accel = a;
		for (side = 0; side < 2; side++) {
			double z = side ? AGREE_Z975 : -AGREE_Z975;
			double den = 1 - a * (z0 + z);

			if (!(den > 0)) {
				stat_ci_undef(out, WHY_BCA_ACCEL);
				return;
			}
			*(side ? &ph : &pl) = stat_normal_cdf(z0 + (z0 + z) / den);
		}
	}
	lo = stat_quantile7(rep, used, pl);
	hi = stat_quantile7(rep, used, ph);
	if (hi - lo <= NEAR_ZERO) {
		stat_ci_undef(out, WHY_BOOT_FLAT);
		return;
	}
	/* a replicate is a kappa, in [-1, 1] but for rounding */
	stat_set(&out->low, lo < -1 ? -1 : lo);
	stat_set(&out->high, hi > 1 ? 1 : hi);
}

int agree_boot_patterns(const long *count, size_t np, agree_boot_fn fn,
			void *ctx, const struct agree_boot_opts *o,
			const struct agree_stat *value, struct agree_ci *out,
			double *rep, struct err *e)
{
	struct agree_multinomial mn;
	struct agree_rng rng;
	size_t i, nj = 0;
	long *draw, n = 0;
	double *v, *jack = NULL, *wj = NULL;
	int used = 0, degenerate = 0;

	if (!o || o->boot < 1)
		return err_set(e, ERR_INPUT, "bootstrap needs at least one "
			       "sample, not %d", o ? o->boot : 0);
	if (o->method != AGREE_CI_BOOTSTRAP && o->method != AGREE_CI_BCA)
		return err_set(e, ERR_INPUT, "bootstrap: method %d is not a "
			       "bootstrap", (int)o->method);
	for (i = 0; i < np; i++) {
		if (count[i] < 0)
			return err_set(e, ERR_INPUT, "bootstrap: pattern %zu "
				       "has a negative count", i);
		n += count[i];
	}
	out->method = o->method;
	out->seed = o->seed;
	out->boot = o->boot;
	out->n = n;
	draw = xcalloc(np + 1, sizeof(*draw));
	v = xcalloc((size_t)o->boot, sizeof(*v));
	agree_multinomial_init(&mn, count, np);
	agree_rng_seed(&rng, o->seed);
	while (n && value && value->defined && used < o->boot &&
	       degenerate < o->boot) {
		agree_multinomial_draw(&mn, &rng, draw);
		if (fn(draw, ctx, &v[used]))
			used++;
		else
			degenerate++;
	}
	out->boot_used = used;
	out->boot_degenerate = degenerate;
	if (o->method == AGREE_CI_BCA && used == o->boot) {
		/* the jackknife: each pattern with one item fewer */
		memcpy(draw, count, np * sizeof(*draw));
		jack = xcalloc(np + 1, sizeof(*jack));
		wj = xcalloc(np + 1, sizeof(*wj));
		for (i = 0; i < np; i++) {
			if (!count[i])
				continue;
			draw[i]--;
			if (fn(draw, ctx, &jack[nj]))
				wj[nj++] = (double)count[i];
			draw[i]++;
		}
	}
	ci_from_replicates(v, o, value, jack, wj, nj, out);
	if (rep && used)
		memcpy(rep, v, (size_t)used * sizeof(*rep));
	agree_multinomial_release(&mn);
	free(draw);
	free(v);
	free(jack);
	free(wj);
	return 0;
}

/* Weighted kappa of whole counts n[k*k] (w NULL: Cohen's), 0 when the
 * table is degenerate as the report sees it: no items, chance agreement
 * 1, one annotator constant, or (Cohen's) no code in common. */
static int table_kappa(const long *n, size_t k, const double *w,
		       double *row, double *col, double *kappa)
{
	double total = 0, po = 0, pe = 0;
	size_t i, j, rows_used = 0, cols_used = 0, common = 0;

	memset(row, 0, k * sizeof(*row));
	memset(col, 0, k * sizeof(*col));
	for (i = 0; i < k; i++)
		for (j = 0; j < k; j++) {
			double x = (double)n[i * k + j];

			if (!x)
				continue;
			row[i] += x;
			col[j] += x;
			total += x;
			po += (w ? w[i * k + j] : i == j) * x;
		}
	if (total <= 0)
		return 0;
	for (i = 0; i < k; i++) {
		rows_used += row[i] > 0;
		cols_used += col[i] > 0;
		common += row[i] > 0 && col[i] > 0;
	}
	if (rows_used == 1 || cols_used == 1 || (!w && !common))
		return 0;
	if (w) {
		for (i = 0; i < k; i++)
			for (j = 0; j < k; j++)
				pe += w[i * k + j] * row[i] * col[j];
	} else {
		for (i = 0; i < k; i++)
			pe += row[i] * col[i];
	}
	po /= total;
	pe /= total * total;
	if (1 - pe <= NEAR_ZERO)
		return 0;
	*kappa = (po - pe) / (1 - pe);
	return 1;
}

struct table_ctx {
	size_t k;
	const double *w;
	double *row, *col;
};

static int table_fn(const long *count, void *vctx, double *value)
{
	struct table_ctx *c = vctx;

	return table_kappa(count, c->k, c->w, c->row, c->col, value);
}

int agree_boot_table(const struct agree_table *t, const double *w,
		     const struct agree_boot_opts *o,
		     const struct agree_stat *value,
		     const struct agree_stat *se, struct agree_ci *out,
		     struct err *e)
{
	struct table_ctx ctx;
	int ret;

	if (stat_check_table(t, e) < 0)
		return -1;
	memset(out, 0, sizeof(*out));
	stat_ci_raw_wald(value, se, out);
	ctx.k = (size_t)t->k;
	ctx.w = w;
	ctx.row = xcalloc(ctx.k, sizeof(*ctx.row));
	ctx.col = xcalloc(ctx.k, sizeof(*ctx.col));
	ret = agree_boot_patterns(t->n, ctx.k * ctx.k, table_fn, &ctx, o,
				  value, out, NULL, e);
	free(ctx.row);
	free(ctx.col);
	return ret;
}

/*
 * Fleiss' kappa of units given as patterns: P distinct count vectors
 * x[p*k + j] (units with two ratings or more), each w[p] times.  As
 * agree_fleiss(): po the mean over units of sum_j x_j (x_j - 1) /
 * (m (m - 1)), p_j the mean of x_j / m, pe = sum p_j^2; no value when
 * one code takes every rating or pe is 1.
 */
struct fleiss_ctx {
	size_t k, np;
	const double *share;	/* P x k: x_j / m of each pattern */
	const double *agree;	/* P: its pairs' agreement */
	double *p;		/* k, scratch */
};

static int fleiss_fn(const long *w, void *vctx, double *value)
{
	struct fleiss_ctx *c = vctx;
	size_t pt, j, used = 0;
	double units = 0, po = 0, pe = 0;

	memset(c->p, 0, c->k * sizeof(*c->p));
	for (pt = 0; pt < c->np; pt++) {
		double x = (double)w[pt];

		if (!w[pt])
			continue;
		units += x;
		po += x * c->agree[pt];
		for (j = 0; j < c->k; j++)
			c->p[j] += x * c->share[pt * c->k + j];
	}
	if (units <= 0)
		return 0;
	for (j = 0; j < c->k; j++) {
		c->p[j] /= units;
		pe += c->p[j] * c->p[j];
		used += c->p[j] > 0;
	}
	if (used == 1 || 1 - pe <= NEAR_ZERO)
		return 0;
	*value = (po / units - pe) / (1 - pe);
	return 1;
}

/* Rows of doubles compared as a whole, for grouping units into
 * patterns. */
static size_t cmp_width;
static const double *cmp_rows;

static int cmp_row(const void *x, const void *y)
{
	const double *a = cmp_rows + *(const size_t *)x * cmp_width;
	const double *b = cmp_rows + *(const size_t *)y * cmp_width;
	size_t j;

	for (j = 0; j < cmp_width; j++)
		if (a[j] != b[j])
			return a[j] < b[j] ? -1 : 1;
	return 0;
}

/* Group rows[0..n) of `width` doubles into patterns: idx[] gets the row
 * indexes sorted, first[] the first sorted position of each pattern and
 * cnt[] how many rows it has; returns the number of patterns. */
static size_t group_rows(const double *rows, size_t n, size_t width,
			 size_t *idx, size_t *first, long *cnt)
{
	size_t i, np = 0;

	for (i = 0; i < n; i++)
		idx[i] = i;
	cmp_rows = rows;
	cmp_width = width;
	qsort(idx, n, sizeof(*idx), cmp_row);
	for (i = 0; i < n; i++) {
		if (np && !cmp_row(&idx[first[np - 1]], &idx[i])) {
			cnt[np - 1]++;
			continue;
		}
		first[np] = i;
		cnt[np++] = 1;
	}
	cmp_rows = NULL;
	return np;
}

int agree_boot_fleiss(const struct agree_counts *c,
		      const struct agree_boot_opts *o,
		      const struct agree_stat *value, struct agree_ci *out,
		      struct err *e)
{
	struct fleiss_ctx ctx;
	size_t kk, u, j, nu = 0, np, *idx, *first;
	double *rows, *share, *agree;
	long *cnt;
	int ret;

	if (stat_check_counts(c, e) < 0)
		return -1;
	memset(out, 0, sizeof(*out));
	stat_ci_raw_wald(value, NULL, out);
	kk = (size_t)c->k;
	rows = xcalloc(c->n_units * kk + 1, sizeof(*rows));
	for (u = 0; u < c->n_units; u++)
		if (stat_unit_total(c, u) >= 2)
			memcpy(rows + nu++ * kk, c->n + u * kk,
			       kk * sizeof(*rows));
	idx = xcalloc(nu + 1, sizeof(*idx));
	first = xcalloc(nu + 1, sizeof(*first));
	cnt = xcalloc(nu + 1, sizeof(*cnt));
	np = group_rows(rows, nu, kk, idx, first, cnt);
	share = xcalloc(np * kk + 1, sizeof(*share));
	agree = xcalloc(np + 1, sizeof(*agree));
	for (u = 0; u < np; u++) {
		const double *x = rows + idx[first[u]] * kk;
		double m = 0, a = 0;

		for (j = 0; j < kk; j++)
			m += x[j];
		for (j = 0; j < kk; j++) {
			a += x[j] * (x[j] - 1);
			share[u * kk + j] = x[j] / m;
		}
		agree[u] = a / (m * (m - 1));
	}
	ctx.k = kk;
	ctx.np = np;
	ctx.share = share;
	ctx.agree = agree;
	ctx.p = xcalloc(kk, sizeof(*ctx.p));
	ret = agree_boot_patterns(cnt, np, fleiss_fn, &ctx, o, value, out,
				  NULL, e);
	free(ctx.p);
	free(rows);
	free(idx);
	free(first);
	free(cnt);
	free(share);
	free(agree);
	return ret;
}

int agree_boot_conger(const struct agree_labels *l,
		      const struct agree_boot_opts *o,
		      const struct agree_stat *value, struct agree_ci *out,
		      struct err *e)
{
	struct conger_ctx ctx;
	size_t nu, u, np, *idx, *first;
	double *rows;
	int *v, r, ret;
	long *cnt;

	if (stat_check_labels(l, e) < 0)
		return -1;
	if (l->n_coders < 2)
		return err_set(e, ERR_INPUT, "Conger's kappa needs two coders");
	memset(out, 0, sizeof(*out));
	stat_ci_raw_wald(value, NULL, out);
	nu = l->n_units;
	/* a unit is the vector of its coders' labels */
	rows = xcalloc(nu * (size_t)l->n_coders + 1, sizeof(*rows));
	for (u = 0; u < nu; u++)
		for (r = 0; r < l->n_coders; r++)
			rows[u * (size_t)l->n_coders + (size_t)r] =
				l->v[(size_t)r * nu + u];
	idx = xcalloc(nu + 1, sizeof(*idx));
	first = xcalloc(nu + 1, sizeof(*first));
	cnt = xcalloc(nu + 1, sizeof(*cnt));
	np = group_rows(rows, nu, (size_t)l->n_coders, idx, first, cnt);
	v = xcalloc(np * (size_t)l->n_coders + 1, sizeof(*v));
	for (u = 0; u < np; u++)
		for (r = 0; r < l->n_coders; r++)
			v[(size_t)r * np + u] = l->v[(size_t)r * nu +
						    idx[first[u]]];
	stat_conger_ctx_init(&ctx, v, np, l->n_coders, l->k);
	ret = agree_boot_patterns(cnt, np, stat_conger_fn, &ctx, o, value, out,
				  NULL, e);
	stat_conger_ctx_release(&ctx);
	free(rows);
	free(idx);
	free(first);
	free(cnt);
	free(v);
	return ret;
}

/* Rows of `width` 64-bit words compared as a whole. */
static const uint64_t *cmp_urows;

static int cmp_urow(const void *x, const void *y)
{
	const uint64_t *a = cmp_urows + *(const size_t *)x * cmp_width;
	const uint64_t *b = cmp_urows + *(const size_t *)y * cmp_width;
	size_t j;

	for (j = 0; j < cmp_width; j++)
		if (a[j] != b[j])
			return a[j] < b[j] ? -1 : 1;
	return 0;
}

/* group_rows() for rows of 64-bit words. */
static size_t group_urows(const uint64_t *rows, size_t n, size_t width,
			  size_t *idx, size_t *first, long *cnt)
{
	size_t i, np = 0;

	for (i = 0; i < n; i++)
		idx[i] = i;
	cmp_urows = rows;
	cmp_width = width;
	qsort(idx, n, sizeof(*idx), cmp_urow);
	for (i = 0; i < n; i++) {
		if (np && !cmp_urow(&idx[first[np - 1]], &idx[i])) {
			cnt[np - 1]++;
			continue;
		}
		first[np] = i;
		cnt[np++] = 1;
	}
	cmp_urows = NULL;
	return np;
}

/* The mean per-code kappa of two annotators' sets as reported: each code
 * present or absent (stat_code_2x2()), its kappa counted when
 * agree_code_reported() keeps it. */
struct multi_ctx {
	int k;
	size_t np;
	const uint64_t *ab;	/* np x 2: the pattern's two sets */
};

static int multi_fn(const long *w, void *vctx, double *value)
{
	const struct multi_ctx *c = vctx;
	long both[AGREE_MULTI_MAX] = { 0 }, only_a[AGREE_MULTI_MAX] = { 0 };
	long only_b[AGREE_MULTI_MAX] = { 0 }, n = 0;
	double sum = 0;
	size_t p;
	int code, defined = 0;

	/* each pattern adds its weight to the cells of the codes it has */
	for (p = 0; p < c->np; p++) {
		uint64_t a = c->ab[2 * p], b = c->ab[2 * p + 1], m;
		long x = w[p];

		if (!x)
			continue;
		n += x;
		for (m = a & b; m; m &= m - 1)
			both[__builtin_ctzll(m)] += x;
		for (m = a & ~b; m; m &= m - 1)
			only_a[__builtin_ctzll(m)] += x;
		for (m = b & ~a; m; m &= m - 1)
			only_b[__builtin_ctzll(m)] += x;
	}
	for (code = 0; code < c->k; code++) {
		struct agree_code one;
		struct agree_stat ks;

		stat_code_2x2(both[code], only_a[code], only_b[code],
			 n - both[code] - only_a[code] - only_b[code], &one);
		ks = agree_code_reported(&one);
		if (ks.defined) {
			sum += ks.value;
			defined++;
		}
	}
	if (!defined)
		return 0;
	*value = sum / defined;
	return 1;
}

int agree_boot_multi(int k, const uint64_t *a, const uint64_t *b, size_t n,
		     const struct agree_boot_opts *o,
		     const struct agree_stat *value, struct agree_ci *out,
		     struct err *e)
{
	struct multi_ctx ctx;
	uint64_t *rows, *ab;
	size_t i, np, *idx, *first;
	long *cnt;
	int ret;

	if (k < 1 || k > AGREE_MULTI_MAX)
		return err_set(e, ERR_INPUT, "select-many dimension has %d "
			       "codes, need 1..%d", k, AGREE_MULTI_MAX);
	memset(out, 0, sizeof(*out));
	stat_ci_raw_wald(value, NULL, out);
	rows = xcalloc(2 * n + 1, sizeof(*rows));
	for (i = 0; i < n; i++) {
		rows[2 * i] = a[i];
		rows[2 * i + 1] = b[i];
	}
	idx = xcalloc(n + 1, sizeof(*idx));
	first = xcalloc(n + 1, sizeof(*first));
	cnt = xcalloc(n + 1, sizeof(*cnt));
	np = group_urows(rows, n, 2, idx, first, cnt);
	ab = xcalloc(2 * np + 1, sizeof(*ab));
	for (i = 0; i < np; i++) {
		ab[2 * i] = rows[2 * idx[first[i]]];
		ab[2 * i + 1] = rows[2 * idx[first[i]] + 1];
	}
	ctx.k = k;
	ctx.np = np;
	ctx.ab = ab;
	ret = agree_boot_patterns(cnt, np, multi_fn, &ctx, o, value, out,
				  NULL, e);
	free(rows);
	free(idx);
	free(first);
	free(cnt);
	free(ab);
	return ret;
}

/* The mean per-code Fleiss' kappa of units given as patterns: per
 * pattern and code, how many of its m coders chose the code. */
struct multi_fleiss_ctx {
	int k;
	size_t np;
	const double *yes;	/* np x k */
	const double *m;	/* np */
};

static int multi_fleiss_fn(const long *w, void *vctx, double *value)
{
	const struct multi_fleiss_ctx *c = vctx;
	double sum = 0, units = 0;
	size_t p;
	int code, defined = 0;

	for (p = 0; p < c->np; p++)
		units += (double)w[p];
	if (units <= 0)
		return 0;
	for (code = 0; code < c->k; code++) {
		double share = 0, po = 0, pe;

		for (p = 0; p < c->np; p++) {
			double y = c->yes[p * (size_t)c->k + (size_t)code];
			double m = c->m[p], x = (double)w[p];

			if (!w[p])
				continue;
			share += x * y / m;
			po += x * (y * (y - 1) + (m - y) * (m - y - 1)) /
			      (m * (m - 1));
		}
		share /= units;
		po /= units;
		if (share <= 0 || share >= 1)
			continue;
		pe = share * share + (1 - share) * (1 - share);
		if (1 - pe <= NEAR_ZERO)
			continue;
		sum += (po - pe) / (1 - pe);
		defined++;
	}
	if (!defined)
		return 0;
	*value = sum / defined;
	return 1;
}

int agree_boot_multi_fleiss(int k, const uint64_t *sets,
			    const unsigned char *present, size_t n,
			    int n_coders, const struct agree_boot_opts *o,
			    const struct agree_stat *value,
			    struct agree_ci *out, struct err *e)
{
	struct multi_fleiss_ctx ctx;
	size_t R = (size_t)n_coders, w = 2 * R, u, r, nu = 0, np, i;
	size_t *idx, *first;
	uint64_t *rows;
	double *yes, *m;
	long *cnt;
	int ret, code;

	if (k < 1 || k > AGREE_MULTI_MAX || n_coders < 2)
		return err_set(e, ERR_INPUT, "select-many dimension: %d codes, "
			       "%d coders", k, n_coders);
	memset(out, 0, sizeof(*out));
	stat_ci_raw_wald(value, NULL, out);
	/* a unit: per coder, whether they submitted it and their set */
	rows = xcalloc(n * w + 1, sizeof(*rows));
	for (u = 0; u < n; u++) {
		size_t seen = 0;

		for (r = 0; r < R; r++)
			seen += present[r * n + u] != 0;
		if (seen < 2)
			continue;
		for (r = 0; r < R; r++) {
			rows[nu * w + 2 * r] = present[r * n + u] != 0;
			rows[nu * w + 2 * r + 1] = present[r * n + u] ?
						   sets[r * n + u] : 0;
		}
		nu++;
	}
	idx = xcalloc(nu + 1, sizeof(*idx));
	first = xcalloc(nu + 1, sizeof(*first));
	cnt = xcalloc(nu + 1, sizeof(*cnt));
	np = group_urows(rows, nu, w, idx, first, cnt);
	yes = xcalloc(np * (size_t)k + 1, sizeof(*yes));
	m = xcalloc(np + 1, sizeof(*m));
	for (i = 0; i < np; i++) {
		const uint64_t *x = rows + idx[first[i]] * w;

		for (r = 0; r < R; r++) {
			if (!x[2 * r])
				continue;
			m[i]++;
			for (code = 0; code < k; code++)
				yes[i * (size_t)k + (size_t)code] +=
					(double)(x[2 * r + 1] >> code & 1);
		}
	}
	ctx.k = k;
	ctx.np = np;
	ctx.yes = yes;
	ctx.m = m;
	ret = agree_boot_patterns(cnt, np, multi_fleiss_fn, &ctx, o, value,
				  out, NULL, e);
	free(rows);
	free(idx);
	free(first);
	free(cnt);
	free(yes);
	free(m);
	return ret;
}
