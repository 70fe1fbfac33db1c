/* SPDX-License-Identifier: MIT */
/*
 * stat_interval: intervals without resampling (Wald, the exact lower bound of a
 * kappa of 1), the random numbers the bootstrap draws (exact binomial and
 * multinomial) and the normal quantiles.  API in agree.h.
 */
#include "core/stats/agree.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/buf.h"
#include "core/stats/stat_int.h"

void stat_ci_undef(struct agree_ci *out, const char *why)
{
	stat_undef(&out->low, why);
	stat_undef(&out->high, why);
}

const char *agree_ci_method_name(enum agree_ci_method m)
{
	switch (m) {
	case AGREE_CI_WALD:
		return "Wald";
	case AGREE_CI_BCA:
		return "bootstrap BCa";
	case AGREE_CI_EXACT:
		return "exact lower bound (kappa = 1)";
	default:
		return "bootstrap percentile";
	}
}

double agree_perfect_lower(long n, double pe, double *po_lower)
{
	double pl, k;

	if (n < 1 || !(pe < 1))
		return NAN;
	/* P(all n agree | po = pl) = pl^n = 0.05 */
	pl = pow(0.05, 1.0 / (double)n);
	if (po_lower)
		*po_lower = pl;
	k = (pl - pe) / (1 - pe);
	return k < -1 ? -1 : k;
}

void agree_ci_perfect(long n, double pe, struct agree_ci *out)
{
	double pl = 0, k = agree_perfect_lower(n, pe, &pl);

	memset(out, 0, sizeof(*out));
	out->method = AGREE_CI_EXACT;
	out->n = n;
	stat_undef(&out->wald_low, WHY_SE_IS0);
	stat_undef(&out->wald_high, WHY_SE_IS0);
	if (isnan(k)) {
		stat_ci_undef(out, n < 1 ? WHY_NO_ITEMS : WHY_PERFECT_PE);
		return;
	}
	out->po_lower = pl;
	stat_set(&out->low, k);
	stat_set(&out->high, 1);
}

void stat_ci_raw_wald(const struct agree_stat *value,
			const struct agree_stat *se, struct agree_ci *out)
{
	if (!value || !value->defined) {
		const char *why = value ? value->why : WHY_NO_ITEMS;

		stat_undef(&out->wald_low, why);
		stat_undef(&out->wald_high, why);
	} else if (!se || !se->defined) {
		const char *why = se ? se->why : "no standard error";

		stat_undef(&out->wald_low, why);
		stat_undef(&out->wald_high, why);
	} else {
		stat_set(&out->wald_low, value->value - AGREE_Z975 * se->value);
		stat_set(&out->wald_high,
			 value->value + AGREE_Z975 * se->value);
	}
}

void agree_ci_wald(const struct agree_stat *value, const struct agree_stat *se,
		   struct agree_ci *out)
{
	double lo, hi;

	memset(out, 0, sizeof(*out));
	out->method = AGREE_CI_WALD;
	stat_ci_raw_wald(value, se, out);
	if (!out->wald_low.defined) {
		stat_ci_undef(out, out->wald_low.why);
		return;
	}
	if (!(se->value > 0)) {
		stat_ci_undef(out, WHY_SE_IS0);
		return;
	}
	lo = out->wald_low.value;
	hi = out->wald_high.value;
	out->clipped = lo < -1 || hi > 1;
	stat_set(&out->low, lo < -1 ? -1 : lo);
	stat_set(&out->high, hi > 1 ? 1 : hi);
}

/* splitmix64 (Steele, Lea & Flood 2014): a 64-bit state advanced by a
 * constant and mixed; every seed, 0 included, is a good one. */
void agree_rng_seed(struct agree_rng *r, uint64_t seed)
{
	r->s = seed;
}

uint64_t agree_rng_next(struct agree_rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint64_t agree_rng_below(struct agree_rng *r, uint64_t n)
{
	uint64_t lim, x;

	if (n <= 1)
		return 0;
	/* reject the top partial block, so that every residue is equally
	 * likely */
	lim = UINT64_MAX - UINT64_MAX % n;
	do
		x = agree_rng_next(r);
	while (x >= lim);
	return x % n;
}

double agree_rng_uniform(struct agree_rng *r)
{
	return (double)(agree_rng_next(r) >> 11) * 0x1.0p-53;
}

/*
 * Binomial(n, p) for p <= 1/2.
 *
 * n p < 10: inversion, walking up the probabilities from P(0) = q^n with
 * P(x) = P(x - 1) (a / x - s), s = p / q, a = (n + 1) s; about n p + 1
 * steps.  The rare u left over by rounding starts again.
 *
 * Otherwise BTRS (Hormann 1993, "The generation of binomial random
 * variates", J. Stat. Comput. Simul. 46:101-110): a transformed
 * rejection from a hat of the form (2a / (1/2 - |u|) + b) u + c around
 * the mean, with the constants the paper fits (b, a, alpha, v_r below),
 * a quick acceptance in the box |u| <= 0.43, v <= v_r, and otherwise the
 * exact test log v <= log f(k) - log f(m), the log-probabilities taken
 * with lgamma.  About 1.15 uniform pairs a draw, whatever n.
 */
static long binomial_low(struct agree_rng *r, long n, double p)
{
	double q = 1 - p, s = p / q, a = (double)(n + 1) * s;
	double f0 = pow(q, (double)n);

	for (;;) {
		double u = agree_rng_uniform(r), f = f0;
		long x = 0;

		while (u > f) {
			u -= f;
			if (++x > n)
				break;
			f *= a / (double)x - s;
		}
		if (x <= n)
			return x;
	}
}

/* log k!: from the table `lf` (k = 0..its size) when given */
static double log_fact(const double *lf, double k)
{
	return lf ? lf[(long)k] : lgamma(k + 1);
}

static long binomial_btrs(struct agree_rng *r, long n, double p,
			  const double *lf)
{
	double q = 1 - p, nn = (double)n;
	double spq = sqrt(nn * p * q);
	double b = 1.15 + 2.53 * spq;
	double a = -0.0873 + 0.0248 * b + 0.01 * p;
	double c = nn * p + 0.5;
	double alpha = (2.83 + 5.1 / b) * spq;
	double vr = 0.92 - 4.2 / b;
	double m = floor((nn + 1) * p);
	double h = 0, lpq = 0;
	int exact = 0;

	for (;;) {
		double u = agree_rng_uniform(r) - 0.5;
		double v = agree_rng_uniform(r);
		double us = 0.5 - fabs(u);
		double k = floor((2 * a / us + b) * u + c);

		if (k < 0 || k > nn)
			continue;
		if (us >= 0.07 && v <= vr)
			return (long)k;
		/* the exact test, its constants worked out the first time
		 * it is needed (most draws end in the box above) */
		if (!exact) {
			h = log_fact(lf, m) + log_fact(lf, nn - m);
			lpq = log(p / q);
			exact = 1;
		}
		v *= alpha / (a / (us * us) + b);
		if (v > 0 && log(v) <= h - log_fact(lf, k) -
		    log_fact(lf, nn - k) + (k - m) * lpq)
			return (long)k;
	}
}

/* Binomial(n, p), log-factorials from `lf` (at least 0..n) or lgamma. */
static long binomial(struct agree_rng *r, long n, double p, const double *lf)
{
	int flip = p > 0.5;
	long x;

	if (n <= 0 || p <= 0)
		return 0;
	if (p >= 1)
		return n;
	if (flip)
		p = 1 - p;
	x = (double)n * p < 10 ? binomial_low(r, n, p) :
				 binomial_btrs(r, n, p, lf);
	return flip ? n - x : x;
}

long agree_rng_binomial(struct agree_rng *r, long n, double p)
{
	return binomial(r, n, p, NULL);
}

/* The big cells biggest first (ties by index, so that the draws are the
 * same everywhere); a file-level pointer for qsort's comparison: the
 * bootstrap runs on one thread. */
static const long *sort_counts;

static int cmp_pattern(const void *x, const void *y)
{
	size_t a = *(const size_t *)x, b = *(const size_t *)y;

	if (sort_counts[a] != sort_counts[b])
		return sort_counts[a] > sort_counts[b] ? -1 : 1;
	return (a > b) - (a < b);
}

void agree_multinomial_init(struct agree_multinomial *m, const long *count,
			    size_t np)
{
	size_t i;
	long j, k;

	memset(m, 0, sizeof(*m));
	m->count = count;
	m->np = np;
	for (i = 0; i < np; i++) {
		m->n += count[i];
		if (count[i] >= AGREE_MULTI_BIG)
			m->nbig++;
		else
			m->small_items += count[i];
	}
	m->big = xcalloc(m->nbig + 1, sizeof(*m->big));
	m->small = xcalloc((size_t)m->small_items + 1, sizeof(*m->small));
	m->nbig = 0;
	for (i = 0, k = 0; i < np; i++) {
		if (count[i] >= AGREE_MULTI_BIG) {
			m->big[m->nbig++] = i;
			m->big_items += count[i];
		} else {
			for (j = 0; j < count[i]; j++)
				m->small[k++] = i;
		}
	}
	sort_counts = count;
	qsort(m->big, m->nbig, sizeof(*m->big), cmp_pattern);
	sort_counts = NULL;
	m->lf = xcalloc((size_t)m->n + 2, sizeof(*m->lf));
	for (j = 2; j <= m->n; j++)
		m->lf[j] = m->lf[j - 1] + log((double)j);
}

/* Uniform in 0..n-1 (n >= 1) without a division in the common case
 * (Lemire 2019, "Fast random integer generation in an interval"): the
 * high word of x n, redrawn when the low word falls in the short block
 * that would bias it. */
static uint64_t uniform_index(struct agree_rng *r, uint64_t n)
{
	unsigned __int128 m = (unsigned __int128)agree_rng_next(r) * n;
	uint64_t low = (uint64_t)m;

	if (low < n) {
		uint64_t t = -n % n;

		while (low < t) {
			m = (unsigned __int128)agree_rng_next(r) * n;
			low = (uint64_t)m;
		}
	}
	return (uint64_t)(m >> 64);
}

void agree_multinomial_draw(struct agree_multinomial *m, struct agree_rng *r,
			    long *out)
{
	long left = m->n, rest = m->big_items, xs, j;
	size_t i;

	memset(out, 0, m->np * sizeof(*out));
	/* the small cells' share, then which of their items */
	xs = !m->small_items ? 0 : !m->big_items ? m->n :
	     binomial(r, m->n, (double)m->small_items / (double)m->n, m->lf);
	for (j = 0; j < xs; j++)
		out[m->small[uniform_index(r, (uint64_t)m->small_items)]]++;
	left -= xs;
	for (i = 0; i < m->nbig && left > 0; i++) {
		long c = m->count[m->big[i]], x;

		/* the last cell takes what is left; the others a binomial
		 * draw given the cells before them */
		x = i + 1 == m->nbig || c >= rest ? left :
		    binomial(r, left, (double)c / (double)rest, m->lf);
		out[m->big[i]] = x;
		left -= x;
		rest -= c;
	}
}

void agree_multinomial_release(struct agree_multinomial *m)
{
	if (!m)
		return;
	free(m->big);
	free(m->small);
	free(m->lf);
	memset(m, 0, sizeof(*m));
}

int stat_cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

/* R's type 7 quantile of sorted v[0..n). */
double stat_quantile7(const double *v, size_t n, double p)
{
	double h = (double)(n - 1) * p;
	size_t lo = (size_t)floor(h);

	if (lo + 1 >= n)
		return v[n - 1];
	return v[lo] + (h - (double)lo) * (v[lo + 1] - v[lo]);
}

/* Phi^-1(p): Newton's method on Phi(x) = erfc(-x / sqrt 2) / 2 from a
 * start that a few steps take to full precision; the tails are solved on
 * the upper-tail side for accuracy. */
double agree_normal_quantile(double p)
{
	double x, q;
	int i;

	if (!(p > 0 && p < 1))
		return p <= 0 ? -HUGE_VAL : HUGE_VAL;
	if (p > 0.5)
		return -agree_normal_quantile(1 - p);
	/* p <= 1/2: x <= 0; a start from the tail approximation
	 * x ~ -sqrt(-2 ln p) (or 0 near the middle) */
	q = sqrt(-2 * log(p));
	x = p > 0.3 ? 0 : -(q - (2.515517 + 0.802853 * q + 0.010328 * q * q) /
			 (1 + 1.432788 * q + 0.189269 * q * q +
			  0.001308 * q * q * q));
	for (i = 0; i < 60; i++) {
		double f = normal_sf(-x) - p;		/* Phi(x) - p */
		double d = exp(-x * x / 2) / sqrt(2 * M_PI);
		double step;

		if (d <= 0)
			break;
		step = f / d;
		x -= step;
		if (fabs(step) <= 1e-15 * (1 + fabs(x)))
			break;
	}
	return x;
}

/* Phi(x) */
double stat_normal_cdf(double x)
{
	return normal_sf(-x);
}
