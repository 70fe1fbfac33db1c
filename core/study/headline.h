/* SPDX-License-Identifier: MIT */
/*
 * headline: what is reported about a computed agreement (its text and
 * the sentence for a paper: headline_text.h).
 *
 * core/study/agreement gathers the labels and core/stats/agree does the arithmetic;
 * this module decides what a reader is shown, the same way for `agree`
 * (text, JSON, CSV), the agreement screen and the replication package:
 *
 *  - the headline coefficient of a dimension: Cohen's kappa for two
 *    annotators, Fleiss' kappa for three or more (with Conger's kappa and
 *    Krippendorff's alpha beside it), the mean per-code kappa for "select
 *    many";
 *  - a degenerate kappa (one annotator used a single code, or the two
 *    have no code in common) is reported as undefined with that reason,
 *    never as a number;
 *  - a 95% interval that never leaves [-1, 1]: percentile bootstrap over
 *    items (the default, at every size: it resamples the count tables,
 *    see agree_boot_patterns()), BCa, or Wald clipped to [-1, 1] and
 *    marked so, the raw Wald bounds kept beside it; degenerate resamples
 *    drawn again and counted; a kappa of 1 gets the exact one-sided
 *    lower bound (agree_ci_perfect()) whatever the method; every
 *    interval carries the number of items behind it, for the warning
 *    below AGREE_SMALL_N;
 *  - Cohen's, Fleiss', Conger's, weighted and mean per-code kappas, the
 *    pairs' and the groups' all get that interval;
 *  - the Landis & Koch (1977) band of the value and the bands the
 *    interval spans;
 *  - per-code counts over the items in the computation only (an item a
 *    coder left empty, dropped listwise, counts for nobody);
 *  - ordinal and interval dimensions: linearly and quadratically weighted
 *    kappa and Krippendorff's alpha with the matching metric;
 *  - kappa max, Byrt's prevalence and bias indices (for more than two
 *    codes the bias index is this program's generalisation, see
 *    AGREE_BIAS_FORMULA);
 *  - dimensions whose codes carry "group": the same at the level of the
 *    groups (a code without a group is a group of its own).
 *
 * Limitations: weighted kappa and AC2 for three or more annotators are
 * the means of the pairs' values, without interval.
 */
#ifndef BUGCODER_HEADLINE_H
#define BUGCODER_HEADLINE_H

#include <stddef.h>
#include <stdint.h>

#include "core/stats/agree.h"
#include "core/study/agreement.h"
#include "core/base/buf.h"
#include "core/base/err.h"

/* The default bootstrap: 2000 samples (Efron & Tibshirani 1993 ask for
 * 1000-2000 for percentile intervals) from a fixed seed, so that the
 * same study gives the same figures on every run. */
#define AGREE_BOOT_DEFAULT 2000
#define AGREE_SEED_DEFAULT 20260101ULL

enum agree_level {
	AGREE_LEVEL_BOTH = 0,	/* codes, and groups if codes have one */
	AGREE_LEVEL_CODE,
	AGREE_LEVEL_GROUP,
};

struct agree_opts {
	enum agree_ci_method ci;	/* BOOTSTRAP, BCA or WALD */
	int boot;		/* bootstrap samples */
	uint64_t seed;
	enum agree_level level;
};

#define AGREE_OPTS_INIT { AGREE_CI_BOOTSTRAP, AGREE_BOOT_DEFAULT, \
			  AGREE_SEED_DEFAULT, AGREE_LEVEL_BOTH }

/* Byrt, Bishop & Carlin's (1993) bias index is defined for two codes,
 * BI = (b - c) / n; for k codes this program reports half the summed
 * differences of the two annotators' margins (for two codes |BI|). */
#define AGREE_BIAS_FORMULA "sum_i |p_i. - p_.i| / 2"

/* Cohen's kappa of one pair of annotators (three or more). */
struct agree_pair_summary {
	int a, b;			/* indexes into the annotators */
	long n;				/* items both labelled */
	struct agree_stat kappa;	/* undefined when degenerate */
	struct agree_stat po;
	struct agree_ci ci;
};

/* One dimension at one level (codes or groups). */
struct agree_level_summary {
	int group;			/* 0: codes, 1: groups */
	int k;				/* codes or groups */
	const char **names;		/* k names, borrowed from the
					   codebook */
	const char *coef;		/* "Cohen's kappa", "Fleiss' kappa",
					   "mean per-code kappa" */
	size_t n_items;
	size_t n_annotators;
	struct agree_stat kappa;	/* the headline value, as reported */
	struct agree_ci ci;
	struct agree_stat po;		/* observed agreement (exact sets
					   for select many) */
	enum agree_band band;		/* of kappa */
	enum agree_band band_low;	/* bands the interval spans */
	enum agree_band band_high;
	struct agree_stat alpha;	/* Krippendorff's alpha, nominal */
	struct agree_table table;	/* two annotators, select one */
	struct agree_cohen cohen;	/* its statistics, unmasked */
	struct agree_fleiss fleiss;	/* three or more, select one */
	size_t n_dropped;		/* items a coder left empty, out */
	int codes_defined;		/* select many: codes in the mean */
	int codes_left_out;		/* select many: codes whose kappa is
					   undefined, left out of it */
	struct agree_stat conger;	/* three or more annotators */
	struct agree_ci conger_ci;
	struct agree_stat kappa_max;	/* two annotators */
	struct agree_stat prevalence;	/* Byrt's PI, two codes only */
	struct agree_stat bias;		/* Byrt's BI; for k > 2 our
					   generalisation, AGREE_BIAS_FORMULA */
	long *count;			/* k x n_annotators, items in the
					   computation only */
	struct agree_stat *code_kappa;	/* k: Cohen (2x2) or Fleiss per
					   category */
	struct agree_stat *code_prevalence;	/* k, two annotators */
	struct agree_stat *code_bias;		/* k, two annotators */
	/* ordinal and interval dimensions */
	int weighted;			/* the fields below are filled */
	struct agree_stat kappa_linear;
	struct agree_ci ci_linear;
	struct agree_stat kappa_quadratic;
	struct agree_ci ci_quadratic;
	struct agree_stat alpha_scale;	/* ordinal or interval metric */
	struct agree_stat ac2_linear;	/* Gwet's AC2, linear weights */
	struct agree_stat ac2_quadratic;	/* and quadratic */
	/* three or more annotators */
	struct agree_pair_summary *pairs;
	size_t nr_pairs;
};

struct agree_dim_summary {
	const struct agreement_dim *ad;	/* borrowed */
	struct agree_level_summary code;
	int has_groups;			/* some code has a "group" */
	struct agree_level_summary grp;	/* if has_groups, asked for */
	int show_code, show_group;	/* what --level asked for */
};

struct headline {
	struct agree_opts opts;
	size_t nr_dims;
	struct agree_dim_summary *dims;	/* parallel to agreement.dims */
	char *later;			/* a closed round: what later
					   decisions changed, one line each
					   (round_later_changes()), or NULL;
					   owned, set by the caller */
	char *scope;			/* which items count, one line each
					   (design_scope()), or NULL; owned,
					   set by the caller */
};

#define AGREE_SUMMARY_INIT { AGREE_OPTS_INIT, 0, NULL, NULL, NULL }

/* Summarise every dimension of `ag` (which must outlive `out`) with
 * options `o` (NULL: AGREE_OPTS_INIT).  Returns 0, or -1 with `e` filled
 * for bad options (boot < 1) or malformed data; `out` is then released.
 * Release with headline_release(). */
int headline_compute(const struct agreement *ag, const struct agree_opts *o,
		    struct headline *out, struct err *e);
void headline_release(struct headline *s);

/* The interval of Cohen's kappa of a two-annotator table `t` as the
 * headline gets it: the kappa as reported into *kappa (undefined when
 * degenerate), its interval with options `o` (NULL: the defaults) into
 * *ci.  For tables outside agreement_compute() (machine coders).
 * Returns 0, or -1 with `e` filled. */
int agree_table_interval(const struct agree_opts *o,
			 const struct agree_table *t, struct agree_stat *kappa,
			 struct agree_ci *ci, struct err *e);

/* Least-squares slope of y over x = 0, 1, 2, ... for the points with
 * defined[i] set: the change per round of a coefficient.  Undefined with
 * fewer than two points. */
struct agree_stat agree_trend_slope(const double *y, const int *defined,
				    size_t n);

/* Its standard error, sqrt(s^2 / Sxx) with s^2 the residual variance on
 * m - 2 degrees of freedom (the rounds taken as fixed, their kappas as
 * independent observations).  Undefined with fewer than three points. */
struct agree_stat agree_trend_se(const double *y, const int *defined,
				 size_t n);

#endif
