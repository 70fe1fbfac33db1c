/* SPDX-License-Identifier: MIT */
/*
 * agree: inter-annotator agreement statistics (the API; the arithmetic is
 * in core/stats/stat_*.c, one file per family: stat_two.c two annotators,
 * stat_sets.c "select many", stat_many.c more than two annotators,
 * stat_interval.c intervals and random draws, stat_bootstrap.c the
 * bootstrap, stat_band.c the bands; stat_int.h what they share).
 *
 * Pure functions over count tables: no SQLite, no printing, no exit, no
 * global state (but for the file-level pointers the bootstrap's sorts
 * hand to qsort() during a call: one thread at a time).  The agreement report builds the tables from submitted
 * labels (codes are indexes 0..k-1 into a codebook dimension) and this
 * module does the arithmetic.
 *
 * What is covered:
 *  - two annotators, one code per item: a k x k table (agree_cohen) with
 *    po, pe, Cohen's kappa, its standard errors, z, p and CI, kappa_max,
 *    Scott's pi, Bennett's S (= PABAK), Gwet's AC1, Krippendorff's alpha
 *    and the Landis & Koch band; per code, the collapsed 2 x 2 table
 *    (agree_code);
 *  - ordered codes: weighted kappa with SAS variances, weighted pi, S,
 *    AC2 and alpha (agree_weighted);
 *  - "select many" dimensions: a set of codes per item and annotator
 *    (agree_multi, agree_multi_alpha);
 *  - more than two annotators: Fleiss' kappa, multi-rater AC1 and S,
 *    Krippendorff's alpha (any metric, missing values allowed), Cohen's
 *    kappa per pair and its mean, Conger's kappa (agree_fleiss,
 *    agree_alpha, agree_pairwise, agree_conger);
 *  - intervals: Wald, percentile and BCa bootstraps over items done on
 *    the sample's distinct units (agree_boot_*), the exact lower bound
 *    of a kappa of 1 (agree_ci_perfect), with exact binomial and
 *    multinomial draws (agree_rng_*, agree_multinomial_*).
 *
 * Undefined values.  Every statistic is a struct agree_stat.  When it
 * cannot be computed (0/0, no items, a zero standard error, ...) `defined`
 * is 0, `value` is 0 and must not be shown, and `why` says why in a few
 * words.  Nothing here returns NaN or a silently substituted 0.
 *
 * Errors.  Functions that take a `struct err *` return -1 and fill it
 * (ERR_INPUT) for malformed input: k < 1, negative or non-finite counts,
 * codes out of range, bad weights.  An undefined statistic is not an
 * error.  Out of memory aborts, as everywhere in core/ (see buf.h).
 *
 * Limitations:
 *  - large-sample normal approximations, percentile and BCa bootstraps
 *    over items (agree_boot_*) and an exact lower bound for a kappa of 1
 *    (agree_ci_perfect); no Student t, no exact tests;
 *  - standard errors are given for (weighted) Cohen's kappa and Fleiss'
 *    kappa under the null, not for pi, S, AC1 or alpha (Gwet's variances);
 *  - a "select many" dimension has at most AGREE_MULTI_MAX codes.
 *
 * References (cited by the formulas in stat_*.c):
 *  Cohen 1960, Educ. Psychol. Meas. 20:37-46;
 *  Cohen 1968, Psychol. Bull. 70:213-220;
 *  Fleiss, Cohen & Everitt 1969, Psychol. Bull. 72:323-327;
 *  Fleiss 1971, Psychol. Bull. 76:378-382;
 *  Fleiss, Nee & Landis 1979, Psychol. Bull. 86:974-977;
 *  Scott 1955, Public Opinion Quarterly 19:321-325;
 *  Bennett, Alpert & Goldstein 1954; Brennan & Prediger 1981;
 *  Byrt, Bishop & Carlin 1993, J. Clin. Epidemiol. 46:423-429;
 *  Gwet 2008, Br. J. Math. Stat. Psychol. 61:29-48; Gwet 2014, Handbook
 *  of Inter-Rater Reliability, 4th ed.;
 *  Krippendorff 2004/2018, Content Analysis; Krippendorff 2011,
 *  "Computing Krippendorff's Alpha-Reliability";
 *  Landis & Koch 1977, Biometrics 33:159-174;
 *  Randolph 2005, Free-marginal multirater kappa;
 *  Efron 1987, JASA 82:171-185; Efron & Tibshirani 1993, An Introduction
 *  to the Bootstrap, ch. 6, 13, 14;
 *  Clopper & Pearson 1934, Biometrika 26:404-413;
 *  Hormann 1993, J. Stat. Comput. Simul. 46:101-110 (BTRS);
 *  Lemire 2019, ACM TOMACS 29(1):3;
 *  Passonneau 2004 (LREC) and 2006 (LREC), set-valued distances.
 */
#ifndef BUGCODER_AGREE_H
#define BUGCODER_AGREE_H

#include <stddef.h>
#include <stdint.h>

#include "core/base/err.h"

/* One statistic that may be undefined. */
struct agree_stat {
	double value;		/* 0 and meaningless unless `defined` */
	int defined;
	const char *why;	/* static text when !defined, else NULL */
};

/* Two-sided 97.5% normal quantile used for every 95% confidence interval. */
#define AGREE_Z975 1.959963984540054

/* A label that is not there (an annotator skipped the item). */
#define AGREE_MISSING (-1)

/* ---- two annotators ---------------------------------------------------- */

/* k x k count table: rows annotator A, columns annotator B.  k is the
 * number of codes of the dimension (the codebook's, including codes nobody
 * used: it is the q of Bennett's S and AC1). */
struct agree_table {
	int k;			/* codes */
	long *n;		/* k*k counts, n[i*k + j]: A said i, B said j */
};

#define AGREE_TABLE_INIT { 0, NULL }

/* Allocate a zeroed k x k table (k >= 1).  Free with agree_table_release(). */
void agree_table_init(struct agree_table *t, int k);
/* Free the counts and reset `t` to AGREE_TABLE_INIT.  Accepts NULL. */
void agree_table_release(struct agree_table *t);
/* Sum of all counts (the number of items). */
long agree_table_total(const struct agree_table *t);

/* Build a k x k table from two label vectors a[0..n) and b[0..n) (codes
 * 0..k-1, AGREE_MISSING when not labelled).  Items missing either label
 * are left out (listwise deletion, as irr, fmsb and psych do); their
 * number goes to *dropped when `dropped` is not NULL.  `t` must be
 * released or AGREE_TABLE_INIT; it is initialised here and owned by the
 * caller.  On a code out of range returns -1, fills `e` and leaves `t`
 * released. */
int agree_table_from_labels(struct agree_table *t, int k, const int *a,
			    const int *b, size_t n, size_t *dropped,
			    struct err *e);

/* Krippendorff's alpha and the pieces it is made of. */
struct agree_alpha {
	struct agree_stat alpha;	/* 1 - d_o / d_e */
	struct agree_stat d_o;		/* observed disagreement */
	struct agree_stat d_e;		/* disagreement by chance */
	struct agree_stat po;		/* share of matching value pairs */
	double n_values;		/* N: pairable values */
	size_t n_units;			/* units with >= 2 values */
};

/* Landis & Koch (1977) bands.  AGREE_BAND_NONE for an undefined value. */
enum agree_band {
	AGREE_BAND_NONE = 0,
	AGREE_BAND_POOR,		/* < 0 */
	AGREE_BAND_SLIGHT,		/* 0 - .20 */
	AGREE_BAND_FAIR,		/* .21 - .40 */
	AGREE_BAND_MODERATE,		/* .41 - .60 */
	AGREE_BAND_SUBSTANTIAL,		/* .61 - .80 */
	AGREE_BAND_ALMOST_PERFECT,	/* .81 - 1 */
};

struct agree_cohen {
	long n;				/* items in the table */
	int k;				/* codes (q) */
	int k_used;			/* codes used by either annotator */
	struct agree_stat po;		/* observed agreement */
	struct agree_stat pe;		/* chance agreement, own margins */
	struct agree_stat kappa;	/* Cohen's kappa */
	struct agree_stat se;		/* non-null SE (FCE 1969) */
	struct agree_stat se0;		/* SE under kappa = 0 */
	struct agree_stat z;		/* kappa / se0 */
	struct agree_stat p_two;	/* two-sided p of z */
	struct agree_stat p_one;	/* one-sided p, H1: kappa > 0 */
	struct agree_stat ci_low;	/* kappa - 1.959964 se, not clipped */
	struct agree_stat ci_high;	/* kappa + 1.959964 se, not clipped */
	struct agree_stat po_max;	/* largest po the margins allow */
	struct agree_stat kappa_max;	/* (po_max - pe) / (1 - pe) */
	struct agree_stat scott_pe;	/* chance, pooled margins */
	struct agree_stat scott_pi;	/* Scott's pi */
	struct agree_stat bennett_s;	/* Bennett's S, Brennan-Prediger */
	struct agree_stat pabak;	/* PABAK, (k po - 1)/(k - 1) = S */
	struct agree_stat ac1_pe;	/* Gwet's chance agreement */
	struct agree_stat ac1;		/* Gwet's AC1 */
	struct agree_alpha alpha;	/* Krippendorff's alpha, nominal */
	enum agree_band band;		/* Landis & Koch band of kappa */
	/* NULL, or why kappa, though it has a value, says nothing: one
	 * annotator used a single code, or the two have no code in
	 * common */
	const char *degenerate;
};

/* All unweighted two-annotator statistics of table `t`.  Returns 0 (some
 * statistics may be undefined, see `why`), or -1 with `e` filled when the
 * table is malformed.  `out` holds no pointers the caller must free. */
int agree_cohen(const struct agree_table *t, struct agree_cohen *out,
		struct err *e);

/* One code against all others: the 2 x 2 table collapsed from a k x k one
 * (a = both chose it, b = only A, c = only B, d = neither). */
struct agree_code {
	long n_a;			/* items A gave this code: a + b */
	long n_b;			/* items B gave this code: a + c */
	long both;			/* a */
	long neither;			/* d */
	struct agree_stat kappa;	/* Cohen's kappa of the 2 x 2 table */
	struct agree_stat pi;		/* its Scott's pi */
	struct agree_stat pos;		/* 2a / (2a + b + c) */
	struct agree_stat neg;		/* 2d / (2d + b + c) */
};

/* Statistics of code `code` against all others in `t`.  Returns 0, or -1
 * with `e` filled for a malformed table or a code out of range. */
int agree_code(const struct agree_table *t, int code, struct agree_code *out,
	       struct err *e);

/* The kappa of one code as reported: c->kappa, but undefined, with the
 * reason, when one annotator is constant on the code (never chose it, or
 * chose it on every item): its 2 x 2 kappa is then 0 by construction and
 * says nothing about agreement on the code. */
struct agree_stat agree_code_reported(const struct agree_code *c);

/* ---- weighted kappa ---------------------------------------------------- */

enum agree_weighting {
	AGREE_LINEAR,		/* 1 - |s_i - s_j| / (s_max - s_min) */
	AGREE_QUADRATIC,	/* 1 - (s_i - s_j)^2 / (s_max - s_min)^2 */
};

/* Fill w[0..k*k) with agreement weights of the given kind over code
 * scores s[0..k) (NULL means 0, 1, ..., k-1).  k == 1 gives w = {1}.
 * Returns -1 with `e` filled when all scores are equal but k > 1, or a
 * score is not finite. */
int agree_weights(double *w, int k, enum agree_weighting kind,
		  const double *scores, struct err *e);

/* Turn disagreement weights d[0..k*k) (0 on the diagonal, >= 0 elsewhere,
 * not necessarily symmetric, as in Cohen 1968) into agreement weights
 * w = 1 - d / max(d).  Kappa and its variances are invariant to the
 * rescaling.  Returns -1 with `e` filled for a negative, non-finite or
 * non-zero diagonal entry. */
int agree_weights_from_distance(double *w, int k, const double *d,
				struct err *e);

struct agree_weighted {
	long n;				/* items */
	int k;				/* codes (q) */
	struct agree_stat po;		/* sum w_ij p_ij */
	struct agree_stat pe;		/* sum w_ij p_i. p_.j */
	struct agree_stat kappa;	/* weighted kappa */
	struct agree_stat se;		/* non-null SE (FCE 1969 / SAS) */
	struct agree_stat se0;		/* SE under kappa_w = 0 */
	struct agree_stat z;		/* kappa / se0 */
	struct agree_stat p_two;	/* two-sided p of z */
	struct agree_stat p_one;	/* one-sided p, H1: kappa > 0 */
	struct agree_stat ci_low;	/* kappa -+ 1.959964 se, not clipped */
	struct agree_stat ci_high;
	struct agree_stat scott_pe;	/* sum w_ij pi_i pi_j */
	struct agree_stat scott_pi;	/* weighted Scott's pi */
	struct agree_stat bennett_s;	/* weighted S: pe = sum w / q^2 */
	struct agree_stat ac2_pe;	/* Gwet's AC2 chance agreement */
	struct agree_stat ac2;		/* Gwet's AC2 */
	struct agree_alpha alpha;	/* Krippendorff, distance 1 - w */
	enum agree_band band;		/* Landis & Koch band of kappa */
	const char *degenerate;		/* as in struct agree_cohen */
};

/* Weighted statistics of `t` with agreement weights w[0..k*k) (w[i*k+j]
 * for A = i, B = j; each in [0, 1], 1 on the diagonal).  With identity
 * weights every field equals its agree_cohen() counterpart.  Returns 0,
 * or -1 with `e` filled for a malformed table or weights. */
int agree_weighted(const struct agree_table *t, const double *w,
		   struct agree_weighted *out, struct err *e);

/* ---- "select many" dimensions ------------------------------------------ */

#define AGREE_MULTI_MAX 64

/* Distances between two code sets, for Krippendorff's alpha on sets. */
enum agree_set_metric {
	AGREE_SET_BINARY,	/* 0 if identical, else 1 */
	AGREE_SET_JACCARD,	/* 1 - |a & b| / |a | b| */
	AGREE_SET_PASSONNEAU,	/* 1/3 subset, 2/3 overlap, 1 disjoint */
	AGREE_SET_MASI,		/* 1 - Jaccard x (1, 2/3, 1/3, 0) */
};

struct agree_multi {
	size_t n;			/* items */
	int k;				/* codes */
	struct agree_stat exact;	/* share of items with identical sets */
	struct agree_stat mean_kappa;	/* mean of defined code kappas */
	int n_defined;			/* codes whose kappa is defined */
};

/* Agreement on a "select many" dimension of k codes (1 <= k <=
 * AGREE_MULTI_MAX).  a[i] and b[i] are the sets annotators A and B chose
 * for item i, bit c standing for code c; the empty set is a valid answer.
 * Pass only items both annotators labelled.  Each code is judged present
 * or absent on every item: when `codes` is not NULL, the caller's array
 * codes[0..k) receives each code's 2 x 2 statistics (agree_code()).  The
 * mean kappa leaves out codes whose kappa is undefined (a code nobody
 * used, or one both used everywhere, says nothing about agreement); their
 * number is k - n_defined.  Returns -1 with `e` filled when a set has a
 * bit at or above k. */
int agree_multi(int k, const uint64_t *a, const uint64_t *b, size_t n,
		struct agree_code *codes, struct agree_multi *out,
		struct err *e);

/* Distance between sets a and b under `metric`; two empty sets are
 * identical (0). */
double agree_set_distance(uint64_t a, uint64_t b, enum agree_set_metric metric);

/* Krippendorff's alpha of two annotators' sets a[0..n), b[0..n) with a set
 * distance: each distinct set is a value.  Returns 0, or -1 with `e`
 * filled for an unknown metric. */
int agree_multi_alpha(const uint64_t *a, const uint64_t *b, size_t n,
		      enum agree_set_metric metric, struct agree_alpha *out,
		      struct err *e);

/* ---- more than two annotators ------------------------------------------ */

/* A coders x units matrix of labels, borrowed from the caller. */
struct agree_labels {
	int n_coders;
	size_t n_units;
	int k;			/* codes */
	const int *v;		/* v[c*n_units + u], or AGREE_MISSING */
};

/* Units x codes matrix: how many coders gave unit u code c.  Counts are
 * doubles so that weighted or fractional counts (statsmodels accepts
 * them) work; from labels they are whole numbers. */
struct agree_counts {
	size_t n_units;
	int k;			/* codes */
	double *n;		/* n[u*k + c] */
};

#define AGREE_COUNTS_INIT { 0, 0, NULL }

/* Allocate a zeroed n_units x k matrix (k >= 1).  Free with
 * agree_counts_release(). */
void agree_counts_init(struct agree_counts *c, size_t n_units, int k);
/* Free the counts and reset `c` to AGREE_COUNTS_INIT.  Accepts NULL. */
void agree_counts_release(struct agree_counts *c);

/* Count the labels of `l` per unit and code into `c` (released or
 * AGREE_COUNTS_INIT; initialised here, owned by the caller).  Missing
 * labels are skipped.  On a code out of range returns -1, fills `e` and
 * leaves `c` released. */
int agree_counts_from_labels(struct agree_counts *c,
			     const struct agree_labels *l, struct err *e);

enum agree_metric {
	AGREE_NOMINAL,		/* d = 0 if same code, else 1 */
	AGREE_ORDINAL,		/* codes in rank order */
	AGREE_INTERVAL,		/* d = (v_c - v_k)^2 */
	AGREE_RATIO,		/* d = ((v_c - v_k) / (v_c + v_k))^2 */
	AGREE_CUSTOM,		/* d given as a k x k matrix */
};

/* Krippendorff's alpha of `c` under `metric`.  `arg` is NULL for nominal
 * and ordinal, the codes' numeric values v[0..k) for interval and ratio
 * (>= 0 for ratio), a k x k distance matrix for AGREE_CUSTOM.  Units with
 * fewer than two values are ignored.  Returns 0, or -1 with `e` filled
 * for malformed counts or a missing/invalid `arg`. */
int agree_alpha(const struct agree_counts *c, enum agree_metric metric,
		const double *arg, struct agree_alpha *out, struct err *e);

/* Nominal alpha of code `code` against all others (the data recoded to
 * "code" / "not code").  Returns 0, or -1 with `e` filled. */
int agree_alpha_code(const struct agree_counts *c, int code,
		     struct agree_alpha *out, struct err *e);

struct agree_fleiss {
	size_t n_units;			/* units with >= 2 ratings */
	double m;			/* ratings per unit, 0 when unequal */
	int k;				/* codes (q) */
	struct agree_stat po;		/* agreeing rater pairs */
	struct agree_stat pe;		/* sum p_j^2 */
	struct agree_stat kappa;	/* Fleiss' kappa */
	struct agree_stat se;		/* non-null SE (Gwet 2014, as
					   irrCAC's fleiss.kappa.raw) */
	struct agree_stat se0;		/* null SE (FNL 1979) */
	struct agree_stat z;		/* kappa / se0 */
	struct agree_stat p_two;	/* two-sided p of z */
	struct agree_stat p_one;	/* one-sided p, H1: kappa > 0 */
	struct agree_stat bennett_s;	/* free-marginal kappa (Randolph) */
	struct agree_stat ac1_pe;	/* Gwet's chance agreement */
	struct agree_stat ac1;		/* Gwet's AC1, multi-rater */
	enum agree_band band;		/* Landis & Koch band of kappa */
};

/* Fleiss' kappa and relatives of `c` (units x codes).  Units with fewer
 * than two ratings are ignored; units may have different numbers of
 * ratings, but then z is undefined.  Returns 0, or -1 with `e` filled for
 * malformed counts. */
int agree_fleiss(const struct agree_counts *c, struct agree_fleiss *out,
		 struct err *e);

/* Fleiss' kappa of code `code` against all others (Fleiss 1971, eq. 17)
 * into *kappa.  Returns 0, or -1 with `e` filled. */
int agree_fleiss_code(const struct agree_counts *c, int code,
		      struct agree_stat *kappa, struct err *e);

struct agree_pairwise {
	int n_pairs;			/* coder pairs: n(n-1)/2 */
	int n_undefined;		/* pairs whose kappa is undefined */
	struct agree_stat mean_kappa;	/* undefined if any pair's is */
	struct agree_stat mean_po;	/* mean observed agreement */
};

/* Cohen's kappa for every pair of coders of `l`, each on the units both
 * labelled (listwise deletion per pair), and the means.  Like ReCal3 the
 * mean kappa is undefined as soon as one pair's kappa is; the caller gets
 * the pairs' own values with agree_table_from_labels() on rows
 * l->v + c * l->n_units.  Returns 0, or -1 with `e` filled for fewer than
 * two coders or a code out of range. */
int agree_pairwise(const struct agree_labels *l, struct agree_pairwise *out,
		   struct err *e);

/* Conger's (1980) kappa of `l`: Fleiss' observed agreement against a
 * chance agreement built from each coder's own margins,
 *   pe = sum_c (mean_r p_rc^2 - s_c^2 / R),
 * s_c^2 the variance (divisor R - 1) over the R coders of the share p_rc
 * of coder r's labels in code c (Gwet 2014, sec. 2.4; irrCAC's
 * conger.kappa.raw).  With two coders it is Cohen's kappa.  Units with
 * fewer than two labels are left out.  Returns 0, or -1 with `e` filled
 * for malformed labels. */
int agree_conger(const struct agree_labels *l, struct agree_stat *kappa,
		 struct err *e);
/* The same, with its chance agreement pe in *pe (may be NULL). */
int agree_conger_pe(const struct agree_labels *l, struct agree_stat *kappa,
		    struct agree_stat *pe, struct err *e);

/* ---- intervals --------------------------------------------------------- */

enum agree_ci_method {
	AGREE_CI_BOOTSTRAP = 0,	/* percentile bootstrap over items */
	AGREE_CI_WALD,		/* kappa -+ 1.959964 se, clipped */
	AGREE_CI_BCA,		/* bias-corrected and accelerated bootstrap */
	AGREE_CI_EXACT,		/* kappa = 1: exact one-sided lower bound */
};

/* Below this many items an interval is printed with a warning: it rests
 * on too few items to say much. */
#define AGREE_SMALL_N 10

/* A 95% interval as reported: always inside [-1, 1] when defined. */
struct agree_ci {
	enum agree_ci_method method;	/* the method that gave it */
	struct agree_stat low, high;	/* the reported bounds */
	int clipped;			/* Wald bounds cut at -1 or 1 */
	struct agree_stat wald_low;	/* raw Wald bounds, never clipped */
	struct agree_stat wald_high;
	int boot;			/* bootstrap resamples asked for */
	int boot_used;			/* resamples with a value: `boot`
					   unless too many were degenerate */
	int boot_degenerate;		/* degenerate resamples, drawn again */
	uint64_t seed;			/* the bootstrap's seed */
	double bca_z0;			/* BCa: bias correction */
	double bca_accel;		/* BCa: acceleration (jackknife) */
	long n;				/* items behind the interval */
	double po_lower;		/* AGREE_CI_EXACT: exact lower bound
					   of the observed agreement */
};

/* Name of a method for reports: "bootstrap percentile", "Wald",
 * "bootstrap BCa" or "exact lower bound (kappa = 1)". */
const char *agree_ci_method_name(enum agree_ci_method m);

/*
 * Perfect agreement: a kappa of 1 has no bootstrap interval (every
 * resample gives 1) and no Wald interval (its SE is 0), yet n items all
 * agreeing say the agreement is high.  The one-sided exact (Clopper &
 * Pearson 1934) 95% lower bound of the observed agreement when all n of
 * n items agree is po_L = 0.05^(1/n); the kappa it gives at the observed
 * chance agreement pe is
 *
 *   kappa_L = (po_L - pe) / (1 - pe),
 *
 * cut at -1, reported as the interval [kappa_L, 1] with method
 * AGREE_CI_EXACT and po_L in `po_lower`.  The margins (pe) are taken as
 * known, as the bound is about agreement beyond them.  Undefined for
 * n < 1 or pe >= 1.
 */
double agree_perfect_lower(long n, double pe, double *po_lower);
void agree_ci_perfect(long n, double pe, struct agree_ci *out);

/* The Wald interval of `value` with standard error `se`, clipped to
 * [-1, 1] (`clipped` says whether it was), the raw bounds kept beside it.
 * Undefined, with the reason, when the value or SE is, or when the SE is
 * 0 (an interval of no width is not an interval). */
void agree_ci_wald(const struct agree_stat *value, const struct agree_stat *se,
		   struct agree_ci *out);

/* A small deterministic generator (splitmix64): the same seed gives the
 * same bootstrap on every platform. */
struct agree_rng {
	uint64_t s;
};

void agree_rng_seed(struct agree_rng *r, uint64_t seed);
uint64_t agree_rng_next(struct agree_rng *r);
/* Uniform in 0..n-1 (n >= 1), without modulo bias. */
uint64_t agree_rng_below(struct agree_rng *r, uint64_t n);

/* Uniform in [0, 1): the top 53 bits of one draw. */
double agree_rng_uniform(struct agree_rng *r);

/* A draw from the binomial distribution of `n` trials (n >= 0) with
 * success probability p (0 <= p <= 1), exact: inversion for small n p,
 * Hormann's (1993) transformed rejection (BTRS) above. */
long agree_rng_binomial(struct agree_rng *r, long n, double p);

/*
 * Draws from the multinomial distribution of n = sum count[0..np) trials
 * over np cells with probabilities count[i] / n.
 *
 * The cells with at least AGREE_MULTI_BIG items are drawn one by one,
 * biggest first, each a binomial draw given the ones before (Binomial(
 * trials left, count / items left)).  The small cells together get a
 * binomial share X of the trials first, and X items drawn uniformly from
 * their items are counted into them: a binomial draw costs about as much
 * as a dozen uniform ones, and a sample's distinct units are mostly
 * small.  Both are exact (a multinomial's cells, merged, are binomial;
 * given their total, multinomial again).
 *
 * agree_multinomial_init() plans the draws for `count` (borrowed: it
 * must outlive the plan), _draw() writes one draw into out[0..np),
 * _release() frees the plan.
 */
#define AGREE_MULTI_BIG 16

struct agree_multinomial {
	const long *count;	/* borrowed */
	size_t np;
	long n;			/* sum of the counts */
	size_t *big;		/* the big cells, biggest first */
	size_t nbig;
	long big_items;		/* items in them */
	size_t *small;		/* one entry per item of a small cell: the
				   cell */
	long small_items;
	double *lf;		/* log k!, k = 0..n, for the binomial */
};

void agree_multinomial_init(struct agree_multinomial *m, const long *count,
			    size_t np);
void agree_multinomial_draw(struct agree_multinomial *m, struct agree_rng *r,
			    long *out);
void agree_multinomial_release(struct agree_multinomial *m);

/* How a bootstrap interval is made. */
struct agree_boot_opts {
	enum agree_ci_method method;	/* AGREE_CI_BOOTSTRAP or _BCA */
	int boot;			/* resamples, >= 1 */
	uint64_t seed;
};

/*
 * The bootstrap over items, done on the sample's distinct units.
 *
 * A statistic of items that depends only on how many items of each kind
 * there are (a kappa depends on the counts of the cells of its table, a
 * Fleiss' kappa on how many units show each count vector) is a function
 * of those counts: `count[0..np)` items of each of np kinds ("patterns").
 * Resampling the n items with replacement gives pattern counts with the
 * multinomial distribution of n trials and probabilities count[i] / n,
 * so drawing that multinomial (agree_multinomial_draw()) gives exactly the
 * item bootstrap's distribution (Efron & Tibshirani 1993, ch. 6) at a
 * cost of np binomial draws a resample instead of n.
 *
 * fn(c, ctx, &v) computes the statistic of pattern counts c[0..np):
 * returns 1 with the value in v, or 0 when the resample is degenerate:
 * the statistic as reported would be undefined on it (a kappa whose
 * chance agreement is 1, one annotator constant, no code in common).
 *
 * Degenerate resamples are drawn again, and counted (boot_degenerate):
 * the reported statistic exists only where it is defined, so its
 * interval is the bootstrap distribution given a defined value, and it
 * always rests on `boot` replicates.  When the degenerate draws reach
 * `boot` (half of all draws or more) before the good ones do, the data
 * are too close to degenerate for a bootstrap: the interval is
 * undefined, with the counts kept.
 *
 * Percentile (Efron & Tibshirani 1993, ch. 13): the 2.5% and 97.5%
 * quantiles (type 7, as R's quantile()) of the replicates.
 *
 * BCa (Efron 1987; Efron & Tibshirani 1993, ch. 14): the quantiles at
 *   alpha_i = Phi(z0 + (z0 + z_i) / (1 - a (z0 + z_i))),  z_i = -+1.96,
 * with z0 = Phi^-1(share of replicates below the estimate, ties counted
 * half) and the acceleration from the jackknife over items (each
 * pattern's leave-one-out value weighted by its count; degenerate
 * leave-one-out values left out):
 *   a = sum c_p (m - t_p)^3 / (6 (sum c_p (m - t_p)^2)^(3/2)),
 * m the weighted mean of the t_p; a = 0 when they are all equal.
 * Undefined when every replicate lies on one side of the estimate.
 *
 * The bounds are values the statistic took, so a kappa's stay in
 * [-1, 1].  Undefined also when `value` is, or when the two quantiles
 * are the same (no spread to speak of).  When `rep` is not NULL it
 * receives the replicates, sorted (out->boot_used of them, at most
 * o->boot).  Returns 0, or -1 with `e` filled for boot < 1, another
 * method or a negative count.
 */
typedef int (*agree_boot_fn)(const long *count, void *ctx, double *value);

int agree_boot_patterns(const long *count, size_t np, agree_boot_fn fn,
			void *ctx, const struct agree_boot_opts *o,
			const struct agree_stat *value, struct agree_ci *out,
			double *rep, struct err *e);

/*
 * The bootstrap intervals of the statistics, by agree_boot_patterns():
 *
 * agree_boot_table: Cohen's kappa (w NULL) or weighted kappa with
 *   agreement weights w of table `t`; the patterns are its cells.  A
 *   resample is degenerate when one annotator is constant on it, or the
 *   chance agreement is 1, or (Cohen's) no code is common to both.
 * agree_boot_fleiss: Fleiss' kappa of `c`; the patterns are the distinct
 *   count vectors of its units with two ratings or more; degenerate
 *   when one code takes every rating.
 * agree_boot_conger: Conger's kappa of `l`; the patterns are the distinct
 *   label vectors of its units; degenerate when its chance agreement is
 *   1.
 * agree_boot_multi: the mean per-code kappa of a select-many dimension,
 *   two annotators' sets a[0..n), b[0..n) of k codes; the patterns are
 *   the distinct pairs of sets.  Each code's kappa counts when defined
 *   and neither annotator is constant on it (agree_code_reported());
 *   degenerate when no code's does.
 * agree_boot_multi_fleiss: the mean per-code Fleiss' kappa of a
 *   select-many dimension, `n_coders` coders' sets sets[c*n + u] of k
 *   codes, present[c*n + u] when coder c submitted unit u (units with
 *   two coders or more count); degenerate when no code's kappa is
 *   defined.
 * The Wald fields are filled from `value` and `se` when given (se may be
 * NULL).  Return 0, or -1 with `e` filled for malformed input or
 * options.
 */
int agree_boot_table(const struct agree_table *t, const double *w,
		     const struct agree_boot_opts *o,
		     const struct agree_stat *value,
		     const struct agree_stat *se, struct agree_ci *out,
		     struct err *e);
int agree_boot_fleiss(const struct agree_counts *c,
		      const struct agree_boot_opts *o,
		      const struct agree_stat *value, struct agree_ci *out,
		      struct err *e);
int agree_boot_conger(const struct agree_labels *l,
		      const struct agree_boot_opts *o,
		      const struct agree_stat *value, struct agree_ci *out,
		      struct err *e);
int agree_boot_multi(int k, const uint64_t *a, const uint64_t *b, size_t n,
		     const struct agree_boot_opts *o,
		     const struct agree_stat *value, struct agree_ci *out,
		     struct err *e);
int agree_boot_multi_fleiss(int k, const uint64_t *sets,
			    const unsigned char *present, size_t n,
			    int n_coders, const struct agree_boot_opts *o,
			    const struct agree_stat *value,
			    struct agree_ci *out, struct err *e);

/* The standard normal quantile Phi^-1(p), 0 < p < 1 (to double
 * precision, by Newton's method on erfc). */
double agree_normal_quantile(double p);

/* ---- interpretation ---------------------------------------------------- */

/* Landis & Koch band of `s`: AGREE_BAND_NONE when undefined.  A band owns
 * its upper boundary, as in the published labels (".21-.40 fair" ends at
 * .40): .20 is slight, .2000001 is fair, 0 is slight, 1 is almost perfect.
 * Values within 1e-9 of a boundary count as the boundary, so that a kappa
 * of .6 that rounding made .6000000000000001 stays moderate. */
enum agree_band agree_band(const struct agree_stat *s);

/* The Landis & Koch bands an interval [low, high] touches, lowest in
 * *from and highest in *to (equal when it lies in one band). */
void agree_band_range(double low, double high, enum agree_band *from,
		      enum agree_band *to);

/* Lower-case name of a band ("substantial"); "undefined" for NONE. */
const char *agree_band_name(enum agree_band band);

/* Lower boundary of a band (-1 for poor). */
double agree_band_lower(enum agree_band band);

/* Gwet's (2014) probabilistic benchmarking: the probability that the true
 * coefficient is at least `lower`, for a coefficient `coef` with standard
 * error `se`, taken as normal and truncated to [-1, 1].  se == 0 gives 0 or
 * 1.  Undefined for a negative or non-finite se or coef outside [-1, 1]. */
struct agree_stat agree_band_cumprob(double coef, double se, double lower);

/* The highest Landis & Koch band whose cumulative probability (above)
 * exceeds 0.95: Gwet's benchmark.  AGREE_BAND_NONE if undefined. */
enum agree_band agree_band_benchmark(double coef, double se);

#endif
