/* SPDX-License-Identifier: MIT */
/*
 * t_boot: the bootstrap of core/stats/agree.
 *
 *  - the binomial and multinomial draws against their exact
 *    distributions (chi-square goodness of fit on many draws);
 *  - the bootstrap over patterns (a multinomial draw over a table's
 *    cells, or over the distinct units of a study) against the plain
 *    bootstrap over items, written here the textbook way: the same
 *    distribution of replicates within Monte Carlo error (a two-sample
 *    Kolmogorov-Smirnov test) and the same intervals, for Cohen's,
 *    weighted, Fleiss' and Conger's kappa on seeded studies, large ones
 *    included.
 *
 * Runs with the repository root as working directory.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/stats/agree.h"
#include "core/base/buf.h"
#include "core/study/drift.h"
#include "core/base/err.h"

/* Percentile bootstrap options for the calls below. */
#define BOPTS(b, s) \
	(&(const struct agree_boot_opts){ AGREE_CI_BOOTSTRAP, (b), (s) })

/* ---- helpers ------------------------------------------------------------ */

static int cmp_d(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

/* Two-sample Kolmogorov-Smirnov statistic of sorted a[0..n), b[0..m). */
static double ks_stat(const double *a, size_t n, const double *b, size_t m)
{
	size_t i = 0, j = 0;
	double d = 0;

	while (i < n && j < m) {
		double x = a[i] < b[j] ? a[i] : b[j];

		while (i < n && a[i] <= x)
			i++;
		while (j < m && b[j] <= x)
			j++;
		if (fabs((double)i / n - (double)j / m) > d)
			d = fabs((double)i / n - (double)j / m);
	}
	return d;
}

/* The KS critical value at level 1e-4 (c(alpha) = sqrt(-ln(alpha/2)/2)):
 * a seeded test that fails only if the distributions differ. */
static double ks_limit(size_t n, size_t m)
{
	return sqrt(-log(1e-4 / 2) / 2) * sqrt((double)(n + m) / (n * m));
}

static double quantile7(const double *v, size_t n, double p)
{
	double h = (double)(n - 1) * p;
	size_t lo = (size_t)floor(h);

	if (lo + 1 >= n)
		return v[n - 1];
	return v[lo] + (h - (double)lo) * (v[lo + 1] - v[lo]);
}

/* log of the binomial probability of x in n trials with p */
static double lbinom(long n, long x, double p)
{
	return lgamma(n + 1.0) - lgamma(x + 1.0) - lgamma(n - x + 1.0) +
	       x * log(p) + (n - x) * log1p(-p);
}

/* ---- binomial and multinomial ------------------------------------------- */

/* Draws of Binomial(n, p) against the exact probabilities: cells with an
 * expected count below 5 are pooled with their neighbours, and the
 * chi-square statistic must not be past its 1e-6 tail. */
static void check_binomial(long n, double p, long draws, uint64_t seed)
{
	struct agree_rng r;
	long lo, hi, x, i, *obs;
	double *ex, x2 = 0, mean = 0, o = 0, e = 0, pv;
	int df = -1;

	lo = (long)floor(n * p - 12 * sqrt(n * p * (1 - p)) - 12);
	hi = (long)ceil(n * p + 12 * sqrt(n * p * (1 - p)) + 12);
	if (lo < 0)
		lo = 0;
	if (hi > n)
		hi = n;
	obs = calloc((size_t)(hi - lo + 1), sizeof(*obs));
	ex = calloc((size_t)(hi - lo + 1), sizeof(*ex));
	agree_rng_seed(&r, seed);
	for (i = 0; i < draws; i++) {
		x = agree_rng_binomial(&r, n, p);
		assert_true(x >= 0 && x <= n);
		mean += (double)x;
		if (x < lo)
			x = lo;
		if (x > hi)
			x = hi;
		obs[x - lo]++;
	}
	for (x = lo; x <= hi; x++)
		ex[x - lo] = draws * exp(lbinom(n, x, p));
	/* the tails pooled into the end cells */
	for (x = 0; x < lo; x++)
		ex[0] += draws * exp(lbinom(n, x, p));
	for (x = hi + 1; x <= n && x < hi + 1000; x++)
		ex[hi - lo] += draws * exp(lbinom(n, x, p));
	/* adjacent cells pooled until each expects 5 draws or more; what
	 * is left at the end joins the last pool */
	{
		double po[4096], pe[4096];
		int nb = 0, j;

		for (x = lo; x <= hi; x++) {
			o += (double)obs[x - lo];
			e += ex[x - lo];
			if (e >= 5 && nb < 4096) {
				po[nb] = o;
				pe[nb++] = e;
				o = e = 0;
			}
		}
		if (e > 0 && nb) {
			po[nb - 1] += o;
			pe[nb - 1] += e;
		}
		for (j = 0; j < nb; j++)
			x2 += (po[j] - pe[j]) * (po[j] - pe[j]) / pe[j];
		df = nb - 1;
	}
	mean /= (double)draws;
	pv = df >= 1 ? drift_chi2_upper(x2, df) : 1;
	if (pv < 1e-6 || fabs(mean - n * p) > 6 * sqrt(n * p * (1 - p) /
							draws) + 1e-12)
		print_error("binomial(%ld, %g): mean %g, X2 %g on %d df, "
			    "p %g\n", n, p, mean, x2, df, pv);
	assert_true(pv >= 1e-6);
	assert_true(fabs(mean - n * p) <=
		    6 * sqrt(n * p * (1 - p) / draws) + 1e-12);
	free(obs);
	free(ex);
}

static void test_binomial(void **state)
{
	static const struct {
		long n;
		double p;
	} cases[] = {
		{ 1, 0.5 }, { 5, 0.3 }, { 40, 0.1 }, { 30, 0.9 },
		{ 100, 0.5 }, { 1000, 0.02 }, { 1000, 0.37 }, { 997, 0.63 },
		{ 100000, 0.001 }, { 100000, 0.3 }, { 5000000, 0.17 },
		{ 27, 0.999 },
	};
	struct agree_rng r;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_binomial(cases[i].n, cases[i].p, 200000, 1000 + i);
	/* the edges */
	agree_rng_seed(&r, 1);
	assert_int_equal(agree_rng_binomial(&r, 0, 0.5), 0);
	assert_int_equal(agree_rng_binomial(&r, 10, 0), 0);
	assert_int_equal(agree_rng_binomial(&r, 10, 1), 10);
}

/* Each cell of a multinomial draw is Binomial(n, p_i), and the cells add
 * up to n: big cells (drawn one by one) and small ones (drawn together)
 * alike. */
static void test_multinomial(void **state)
{
	static const long count[] = { 0, 500, 3, 0, 120, 7, 1, 369, 15, 16 };
	enum { NP = 10, DRAWS = 40000 };
	struct agree_multinomial m;
	double sum[NP] = { 0 }, sq[NP] = { 0 }, cov = 0;
	long out[NP], n = 0;
	struct agree_rng r;
	size_t i;
	int d;

	(void)state;
	for (i = 0; i < NP; i++)
		n += count[i];
	agree_multinomial_init(&m, count, NP);
	assert_int_equal(m.nbig, 4);
	assert_int_equal(m.small_items, 3 + 7 + 1 + 15);
	agree_rng_seed(&r, 5);
	for (d = 0; d < DRAWS; d++) {
		long tot = 0;

		agree_multinomial_draw(&m, &r, out);
		for (i = 0; i < NP; i++) {
			tot += out[i];
			sum[i] += (double)out[i];
			sq[i] += (double)out[i] * out[i];
			if (!count[i])
				assert_int_equal(out[i], 0);
		}
		/* a small and a big cell: covariance -n p_i p_j */
		cov += (double)out[5] * out[9];
		assert_int_equal(tot, n);
	}
	for (i = 0; i < NP; i++) {
		double p = (double)count[i] / n, mu = sum[i] / DRAWS;
		double v = sq[i] / DRAWS - mu * mu;

		assert_true(fabs(mu - n * p) <=
			    6 * sqrt(n * p * (1 - p) / DRAWS) + 1e-9);
		/* the variance within 6 of its standard errors (about
		 * var * sqrt(2 / DRAWS)) */
		assert_true(fabs(v - n * p * (1 - p)) <=
			    6 * n * p * (1 - p) * sqrt(2.0 / DRAWS) + 1e-9);
	}
	{
		double p5 = 7.0 / n, p9 = 16.0 / n;
		double c = cov / DRAWS - (sum[5] / DRAWS) * (sum[9] / DRAWS);

		/* its standard error is about sqrt(var5 var9 / DRAWS) */
		assert_true(fabs(c + n * p5 * p9) <=
			    6 * sqrt(n * p5 * n * p9 / DRAWS));
	}
	agree_multinomial_release(&m);
}

/* ---- the item bootstrap, the textbook way -------------------------------- */

/* A random study: n items, k codes, labels of two coders who agree with
 * probability `agree`, codes skewed towards the first. */
static void random_pair(struct agree_rng *r, size_t n, int k, double agree,
			int *a, int *b)
{
	size_t i;

	for (i = 0; i < n; i++) {
		double u = agree_rng_uniform(r);
		int c = (int)floor(k * u * u);

		a[i] = c;
		b[i] = agree_rng_uniform(r) < agree ? c :
		       (int)agree_rng_below(r, (uint64_t)k);
	}
}

/* Cohen's (w NULL) or weighted kappa of items a, b as the report has
 * it: no value when it is undefined or degenerate (one coder constant;
 * for Cohen's, no code in common). */
static int kappa_of(const int *a, const int *b, size_t n, int k,
		    const double *w, double *out)
{
	struct agree_table t = AGREE_TABLE_INIT;
	struct agree_weighted wk;
	struct agree_cohen c;
	int ok;

	agree_table_from_labels(&t, k, a, b, n, NULL, NULL);
	if (w) {
		agree_weighted(&t, w, &wk, NULL);
		ok = wk.kappa.defined && !wk.degenerate;
		*out = wk.kappa.value;
	} else {
		agree_cohen(&t, &c, NULL);
		ok = c.kappa.defined && !c.degenerate;
		*out = c.kappa.value;
	}
	agree_table_release(&t);
	return ok;
}

/* `boot` replicates of the item bootstrap, sorted, a degenerate resample
 * drawn again (at most `boot` times); returns how many have a value. */
static size_t item_boot(const int *a, const int *b, size_t n, int k,
			const double *w, int boot, uint64_t seed, double *rep)
{
	int *ra = calloc(n, sizeof(int)), *rb = calloc(n, sizeof(int));
	struct agree_rng r;
	size_t i, used = 0;
	int j;

	agree_rng_seed(&r, seed);
	for (j = 0; (int)used < boot && j < 2 * boot; j++) {
		for (i = 0; i < n; i++) {
			size_t s = agree_rng_below(&r, n);

			ra[i] = a[s];
			rb[i] = b[s];
		}
		if (kappa_of(ra, rb, n, k, w, &rep[used]))
			used++;
	}
	qsort(rep, used, sizeof(*rep), cmp_d);
	free(ra);
	free(rb);
	return used;
}

/* The table's kappa as a pattern statistic, for agree_boot_patterns():
 * the cells are the patterns. */
struct cells {
	int k;
	const double *w;
};

static int cells_fn(const long *count, void *ctx, double *value)
{
	const struct cells *c = ctx;
	struct agree_table t;
	struct agree_weighted wk;
	struct agree_cohen ck;
	int ok;

	agree_table_init(&t, c->k);
	memcpy(t.n, count, (size_t)c->k * c->k * sizeof(long));
	if (c->w) {
		agree_weighted(&t, c->w, &wk, NULL);
		ok = wk.kappa.defined && !wk.degenerate;
		*value = wk.kappa.value;
	} else {
		agree_cohen(&t, &ck, NULL);
		ok = ck.kappa.defined && !ck.degenerate;
		*value = ck.kappa.value;
	}
	agree_table_release(&t);
	return ok;
}

/* The replicates of both bootstraps have one distribution, and the
 * intervals of agree_boot_table() are the item bootstrap's. */
static void compare_table(size_t n, int k, double agree, int weighted,
			  uint64_t seed)
{
	enum { B = 20000 };
	int *a = calloc(n, sizeof(int)), *b = calloc(n, sizeof(int));
	double *ri = calloc(B, sizeof(double)), *rp = calloc(B, sizeof(double));
	double *w = NULL, d, lim;
	struct agree_table t = AGREE_TABLE_INIT;
	struct agree_weighted wk;
	struct agree_cohen ck;
	struct agree_stat value;
	struct agree_ci ci, cp;
	struct agree_rng r;
	struct cells cells;
	size_t ni;

	agree_rng_seed(&r, seed);
	random_pair(&r, n, k, agree, a, b);
	agree_table_from_labels(&t, k, a, b, n, NULL, NULL);
	if (weighted) {
		w = calloc((size_t)k * k, sizeof(*w));
		agree_weights(w, k, AGREE_QUADRATIC, NULL, NULL);
		agree_weighted(&t, w, &wk, NULL);
		value = wk.kappa;
	} else {
		agree_cohen(&t, &ck, NULL);
		value = ck.kappa;
	}
	assert_true(value.defined);
	ni = item_boot(a, b, n, k, w, B, seed + 1, ri);
	cells.k = k;
	cells.w = w;
	assert_int_equal(agree_boot_patterns(t.n, (size_t)k * k, cells_fn,
					     &cells, BOPTS(B, seed + 2),
					     &value, &cp, rp, NULL), 0);
	d = ks_stat(ri, ni, rp, (size_t)cp.boot_used);
	lim = ks_limit(ni, (size_t)cp.boot_used);
	if (d > lim)
		print_error("n %zu k %d: KS %g > %g\n", n, k, d, lim);
	assert_true(d <= lim);
	/* the interval agree_boot_table() gives is the item bootstrap's,
	 * within Monte Carlo error (a few thousandths at B = 20000) */
	assert_int_equal(agree_boot_table(&t, w, BOPTS(B, seed + 3), &value, NULL,
					  &ci, NULL), 0);
	if (!ci.low.defined)
		print_error("n %zu k %d: %s (value %g)\n", n, k, ci.low.why,
			    value.value);
	assert_true(ci.low.defined && ci.high.defined);
	if (fabs(ci.low.value - quantile7(ri, ni, 0.025)) > 0.015 ||
	    fabs(ci.high.value - quantile7(ri, ni, 0.975)) > 0.015)
		print_error("n %zu k %d: %g-%g against items' %g-%g\n", n, k,
			    ci.low.value, ci.high.value,
			    quantile7(ri, ni, 0.025),
			    quantile7(ri, ni, 0.975));
	assert_true(fabs(ci.low.value - quantile7(ri, ni, 0.025)) <= 0.015);
	assert_true(fabs(ci.high.value - quantile7(ri, ni, 0.975)) <= 0.015);
	agree_table_release(&t);
	free(a);
	free(b);
	free(ri);
	free(rp);
	free(w);
}

static void test_table_vs_items(void **state)
{
	(void)state;
	compare_table(20, 3, 0.8, 0, 101);
	compare_table(60, 5, 0.7, 0, 202);
	compare_table(200, 8, 0.6, 0, 303);
	compare_table(90, 5, 0.6, 1, 404);
	compare_table(30, 2, 0.85, 0, 506);
	/* small and skewed: many resamples have a constant coder and are
	 * drawn again, in both bootstraps */
	compare_table(12, 2, 0.7, 0, 611);
	compare_table(15, 3, 0.8, 0, 708);
}

/* A large study: 20,000 items, fewer replicates. */
static void test_table_vs_items_large(void **state)
{
	enum { N = 20000, K = 10, B = 1500 };
	int *a = calloc(N, sizeof(int)), *b = calloc(N, sizeof(int));
	double *ri = calloc(B, sizeof(double)), *rp = calloc(B, sizeof(double));
	struct agree_table t = AGREE_TABLE_INIT;
	struct agree_cohen ck;
	struct agree_ci cp;
	struct agree_rng r;
	struct cells cells = { K, NULL };
	size_t ni;

	(void)state;
	agree_rng_seed(&r, 77);
	random_pair(&r, N, K, 0.75, a, b);
	agree_table_from_labels(&t, K, a, b, N, NULL, NULL);
	agree_cohen(&t, &ck, NULL);
	ni = item_boot(a, b, N, K, NULL, B, 78, ri);
	assert_int_equal(agree_boot_patterns(t.n, K * K, cells_fn, &cells,
					     BOPTS(B, 79), &ck.kappa, &cp, rp,
					     NULL), 0);
	assert_int_equal(ni, B);
	assert_int_equal(cp.boot_used, B);
	assert_true(ks_stat(ri, ni, rp, B) <= ks_limit(ni, B));
	agree_table_release(&t);
	free(a);
	free(b);
	free(ri);
	free(rp);
}

/* Three or more coders: units resampled the textbook way against the
 * bootstrap over distinct units, for Fleiss' and Conger's kappa. */
static void many_labels(struct agree_rng *r, size_t n, int R, int k,
			double agree, double missing, int *v)
{
	size_t u;
	int c;

	for (u = 0; u < n; u++) {
		double x = agree_rng_uniform(r);
		int truth = (int)floor(k * x * x);

		for (c = 0; c < R; c++) {
			int lab = agree_rng_uniform(r) < agree ? truth :
				  (int)agree_rng_below(r, (uint64_t)k);

			if (agree_rng_uniform(r) < missing)
				lab = AGREE_MISSING;
			v[(size_t)c * n + u] = lab;
		}
	}
}

static void compare_many(size_t n, int R, int k, double agree,
			 double missing, uint64_t seed)
{
	enum { B = 8000 };
	int *v = calloc(n * R, sizeof(int)), *rv = calloc(n * R, sizeof(int));
	double *rf = calloc(B, sizeof(double)), *rc = calloc(B, sizeof(double));
	struct agree_labels l = { R, n, k, v }, rl = { R, n, k, rv };
	struct agree_counts c = AGREE_COUNTS_INIT, rcnt = AGREE_COUNTS_INIT;
	struct agree_fleiss f;
	struct agree_stat cg;
	struct agree_ci cif, cic;
	struct agree_rng r;
	size_t nf = 0, nc = 0, u;
	int j, cc;

	agree_rng_seed(&r, seed);
	many_labels(&r, n, R, k, agree, missing, v);
	agree_counts_from_labels(&c, &l, NULL);
	agree_fleiss(&c, &f, NULL);
	agree_conger(&l, &cg, NULL);
	assert_true(f.kappa.defined && cg.defined);
	agree_rng_seed(&r, seed + 1);
	for (j = 0; j < B; j++) {
		struct agree_fleiss rf1;
		struct agree_stat rk;

		for (u = 0; u < n; u++) {
			size_t s = agree_rng_below(&r, n);

			for (cc = 0; cc < R; cc++)
				rv[(size_t)cc * n + u] = v[(size_t)cc * n + s];
		}
		agree_counts_from_labels(&rcnt, &rl, NULL);
		agree_fleiss(&rcnt, &rf1, NULL);
		agree_counts_release(&rcnt);
		if (rf1.kappa.defined)
			rf[nf++] = rf1.kappa.value;
		agree_conger(&rl, &rk, NULL);
		if (rk.defined)
			rc[nc++] = rk.value;
	}
	qsort(rf, nf, sizeof(double), cmp_d);
	qsort(rc, nc, sizeof(double), cmp_d);
	assert_int_equal(agree_boot_fleiss(&c, BOPTS(B, seed + 2), &f.kappa, &cif,
					   NULL), 0);
	assert_int_equal(agree_boot_conger(&l, BOPTS(B, seed + 3), &cg, &cic, NULL),
			 0);
	assert_true(cif.low.defined && cic.low.defined);
	if (fabs(cif.low.value - quantile7(rf, nf, 0.025)) > 0.02 ||
	    fabs(cif.high.value - quantile7(rf, nf, 0.975)) > 0.02 ||
	    fabs(cic.low.value - quantile7(rc, nc, 0.025)) > 0.02 ||
	    fabs(cic.high.value - quantile7(rc, nc, 0.975)) > 0.02)
		print_error("n %zu R %d: Fleiss %g-%g vs %g-%g, Conger %g-%g "
			    "vs %g-%g\n", n, R, cif.low.value, cif.high.value,
			    quantile7(rf, nf, 0.025), quantile7(rf, nf, 0.975),
			    cic.low.value, cic.high.value,
			    quantile7(rc, nc, 0.025), quantile7(rc, nc, 0.975));
	assert_true(fabs(cif.low.value - quantile7(rf, nf, 0.025)) <= 0.02);
	assert_true(fabs(cif.high.value - quantile7(rf, nf, 0.975)) <= 0.02);
	assert_true(fabs(cic.low.value - quantile7(rc, nc, 0.025)) <= 0.02);
	assert_true(fabs(cic.high.value - quantile7(rc, nc, 0.975)) <= 0.02);
	agree_counts_release(&c);
	free(v);
	free(rv);
	free(rf);
	free(rc);
}

static void test_many_vs_items(void **state)
{
	(void)state;
	compare_many(40, 3, 3, 0.7, 0.0, 11);
	compare_many(60, 4, 5, 0.6, 0.1, 12);
	compare_many(25, 5, 2, 0.8, 0.15, 13);
}

/* The same seed gives the same interval; the count of replicates is
 * reported. */
static void test_seeded(void **state)
{
	static const long v[] = { 10, 2, 1, 3, 9, 2, 0, 1, 12 };
	struct agree_table t;
	struct agree_cohen c;
	struct agree_ci a, b;

	(void)state;
	agree_table_init(&t, 3);
	memcpy(t.n, v, sizeof(v));
	agree_cohen(&t, &c, NULL);
	assert_int_equal(agree_boot_table(&t, NULL, BOPTS(2000, 9), &c.kappa, &c.se,
					  &a, NULL), 0);
	assert_int_equal(agree_boot_table(&t, NULL, BOPTS(2000, 9), &c.kappa, &c.se,
					  &b, NULL), 0);
	assert_true(a.low.value == b.low.value && a.high.value == b.high.value);
	assert_int_equal(a.boot, 2000);
	assert_int_equal(a.seed, 9);
	assert_true(a.boot_used > 1990);
	agree_table_release(&t);
}

/* ---- degenerate resamples, BCa, a kappa of 1 ---------------------------- */

/* Each annotator's minority code on a single item of its own: a resample
 * without either item has a constant annotator, about 60% of them, so
 * there is no interval; the counts say why. */
static void test_mostly_degenerate(void **state)
{
	static const long v[] = { 18, 1, 1, 0 };
	struct agree_table t;
	struct agree_cohen c;
	struct agree_ci ci;

	(void)state;
	agree_table_init(&t, 2);
	memcpy(t.n, v, sizeof(v));
	agree_cohen(&t, &c, NULL);
	assert_true(c.kappa.defined && !c.degenerate);
	assert_int_equal(agree_boot_table(&t, NULL, BOPTS(2000, 3), &c.kappa,
					  &c.se, &ci, NULL), 0);
	assert_false(ci.low.defined);
	assert_string_equal(ci.low.why, "half of the bootstrap resamples or "
			    "more are degenerate");
	assert_int_equal(ci.boot_degenerate, 2000);
	assert_true(ci.boot_used < 2000 && ci.boot_used > 1000);
	agree_table_release(&t);
}

/* A third of the resamples degenerate: drawn again, so the interval
 * rests on every one of its 2000 replicates, none of them 0 by
 * construction; the count is about the expected (1 - q) / q x 2000. */
static void test_degenerate_drawn_again(void **state)
{
	static const long v[] = { 8, 1, 0, 1 };
	struct agree_table t;
	struct agree_cohen c;
	struct agree_ci ci;
	double q = 1 - pow(0.9, 10), expect = (1 - q) / q * 2000;

	(void)state;
	agree_table_init(&t, 2);
	memcpy(t.n, v, sizeof(v));
	agree_cohen(&t, &c, NULL);
	assert_int_equal(agree_boot_table(&t, NULL, BOPTS(2000, 4), &c.kappa,
					  &c.se, &ci, NULL), 0);
	assert_true(ci.low.defined);
	assert_int_equal(ci.boot_used, 2000);
	/* binomial-ish spread: 6 standard deviations */
	assert_true(fabs(ci.boot_degenerate - expect) <
		    6 * sqrt(expect / q));
	assert_true(ci.low.value > -1 && ci.high.value <= 1);
	agree_table_release(&t);
}

/*
 * BCa against R's boot (1.3.28.1, R 4.2.2) on fixed data: 40 items, 3
 * codes (a and b below), Cohen's kappa of the item indices:
 *
 *   kap  <- function(d, i) { x <- d$a[i]; y <- d$b[i]; po <- mean(x == y)
 *             pe <- sum(sapply(0:2, function(l) mean(x == l) *
 *                                              mean(y == l)))
 *             (po - pe) / (1 - pe) }
 *   jack <- sapply(1:40, function(i) kap(d, (1:40)[-i]))
 *   L    <- 39 * (mean(jack) - jack)    # Efron & Tibshirani (14.15)
 *   a    <- sum(L^3) / (6 * sum(L^2)^1.5)
 *   set.seed(1); bo <- boot(d, kap, R = 200000)
 *   boot.ci(bo, type = c("perc", "bca"), L = L)
 *
 * gave t0 0.724409448818898, a -0.0428483768573412 (the jackknife: no
 * randomness, so exact), z0 -0.003923, percentile 0.525862-0.885167 and
 * BCa 0.505233-0.881188.  (boot's default L centres the jackknife values
 * on t0 rather than on their mean, a -0.0421599; we follow the book.)  R
 * interpolates its quantiles on the normal scale and counts ties with
 * the estimate as above it; at 200,000 resamples either moves a bound by
 * well under 0.005.
 */
static void test_bca_against_r(void **state)
{
	static const int a[40] = {
		0, 0, 1, 0, 0, 1, 1, 0, 1, 2, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1,
		2, 2, 1, 1, 2, 0, 2, 0, 2, 2, 1, 2, 0, 0, 1, 0, 1, 0, 2, 0,
	};
	static const int b[40] = {
		0, 1, 2, 1, 0, 1, 1, 0, 1, 2, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1,
		2, 1, 1, 0, 2, 0, 2, 0, 1, 2, 1, 2, 0, 0, 1, 0, 1, 2, 2, 0,
	};
	const struct agree_boot_opts bca = { AGREE_CI_BCA, 200000, 11 };
	struct agree_table t = AGREE_TABLE_INIT;
	struct agree_cohen c;
	struct agree_ci ci, pc;

	(void)state;
	agree_table_from_labels(&t, 3, a, b, 40, NULL, NULL);
	agree_cohen(&t, &c, NULL);
	assert_true(fabs(c.kappa.value - 0.724409448818898) < 1e-12);
	assert_int_equal(agree_boot_table(&t, NULL, &bca, &c.kappa, &c.se,
					  &ci, NULL), 0);
	assert_int_equal(agree_boot_table(&t, NULL, BOPTS(200000, 12),
					  &c.kappa, &c.se, &pc, NULL), 0);
	assert_int_equal(ci.method, AGREE_CI_BCA);
	if (fabs(ci.bca_accel - -0.0428483768573412) >= 1e-10)
		print_error("a %.15g z0 %g\n", ci.bca_accel, ci.bca_z0);
	assert_true(fabs(ci.bca_accel - -0.0428483768573412) < 1e-10);
	assert_true(fabs(ci.bca_z0 - -0.003923) < 0.01);
	if (fabs(ci.low.value - 0.505233) > 0.005 ||
	    fabs(ci.high.value - 0.881188) > 0.005 ||
	    fabs(pc.low.value - 0.525862) > 0.005 ||
	    fabs(pc.high.value - 0.885167) > 0.005)
		print_error("BCa %g-%g, percentile %g-%g\n", ci.low.value,
			    ci.high.value, pc.low.value, pc.high.value);
	assert_true(fabs(ci.low.value - 0.505233) <= 0.005);
	assert_true(fabs(ci.high.value - 0.881188) <= 0.005);
	assert_true(fabs(pc.low.value - 0.525862) <= 0.005);
	assert_true(fabs(pc.high.value - 0.885167) <= 0.005);
	agree_table_release(&t);
}

/* Phi^-1 against values every table prints. */
static void test_normal_quantile(void **state)
{
	(void)state;
	assert_true(fabs(agree_normal_quantile(0.975) - AGREE_Z975) < 1e-12);
	assert_true(fabs(agree_normal_quantile(0.5)) < 1e-15);
	assert_true(fabs(agree_normal_quantile(0.05) + 1.6448536269514722) <
		    1e-12);
	assert_true(fabs(agree_normal_quantile(1e-10) + 6.361340902404056) <
		    1e-9);
	assert_true(fabs(agree_normal_quantile(0.999) - 3.090232306167814) <
		    1e-12);
}

/* A kappa of 1: the exact lower bound, (0.05^(1/n) - pe) / (1 - pe). */
static void test_perfect_lower(void **state)
{
	struct agree_ci ci;
	double pl;

	(void)state;
	agree_ci_perfect(20, 0.5, &ci);
	pl = exp(log(0.05) / 20);
	assert_int_equal(ci.method, AGREE_CI_EXACT);
	assert_true(fabs(ci.po_lower - pl) < 1e-15);
	assert_true(fabs(pl - 0.8608916593317348) < 1e-12);
	assert_true(fabs(ci.low.value - (pl - 0.5) / 0.5) < 1e-15);
	assert_true(ci.high.defined && ci.high.value == 1);
	assert_int_equal(ci.n, 20);
	/* a tiny study: the bound goes below 0, and is cut at -1 */
	agree_ci_perfect(2, 0.9, &ci);
	assert_true(ci.low.defined && ci.low.value == -1);
	agree_ci_perfect(0, 0.5, &ci);
	assert_false(ci.low.defined);
	agree_ci_perfect(5, 1, &ci);
	assert_false(ci.low.defined);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_binomial),
		cmocka_unit_test(test_multinomial),
		cmocka_unit_test(test_table_vs_items),
		cmocka_unit_test(test_table_vs_items_large),
		cmocka_unit_test(test_many_vs_items),
		cmocka_unit_test(test_seeded),
		cmocka_unit_test(test_mostly_degenerate),
		cmocka_unit_test(test_degenerate_drawn_again),
		cmocka_unit_test(test_bca_against_r),
		cmocka_unit_test(test_normal_quantile),
		cmocka_unit_test(test_perfect_lower),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
