/* SPDX-License-Identifier: MIT */
/*
 * drift: is an annotator drifting?  Two signs a team can see before
 * kappa drops: the time they spend on an item, and how their choice of
 * codes moves from round to round.
 *
 * Time: the annotator's screen adds up, per item, the time between keys
 * while the item is open, leaving out any gap of more than
 * DRIFT_IDLE_CUTOFF seconds (a coffee, a meeting), and saves it with
 * drift_add_time() when it leaves the item.  Figures are per annotator
 * and round: how many items have a time, and the median seconds an item.
 *
 * Which round: the round a label was made in, not the round its item is
 * in now (`round create --items unfinished:R` moves items on, with the
 * labels one annotator already submitted).  A closed round's record
 * (round_labels) holds what its annotators submitted by its close; a
 * label counts in the first closed round whose record holds it, and a
 * submitted label in no record counts in its item's round if that is
 * still open.  A time counts in the first closed round whose record has
 * the annotator's submission of the item, else in the item's round.
 *
 * Codes: per dimension and annotator, the codes chosen in each round (a
 * select-many dimension counts each code chosen), and Pearson's
 * chi-square test of homogeneity over the rounds x codes table (codes
 * nobody chose left out): X^2 = sum (O - E)^2 / E with E = row total x
 * column total / n, df = (rounds - 1)(codes - 1), p the upper tail of
 * the chi-square distribution (the regularized gamma function Q(df/2,
 * X^2/2)).  Undefined, with the reason, below two rounds or two codes.
 * When expected counts are small (one under 1, or more than a fifth
 * under 5: Cochran 1954) the chi-square distribution is a poor guide:
 * the test says so, and its p-value is the Monte Carlo one (Hope 1968,
 * as R's chisq.test(simulate.p.value = TRUE)): DRIFT_MC_TABLES random
 * tables with the same margins (drawn row by row, each cell a
 * hypergeometric draw given the cells before it), p = (1 + tables with
 * X^2 at least the observed) / (tables + 1), from a fixed seed.
 *
 * Only the owner sees any of it: times are personal, and the code counts
 * of an open round are the annotators' blind work.
 */
#ifndef BUGCODER_DRIFT_H
#define BUGCODER_DRIFT_H

#include <stddef.h>
#include <stdint.h>

#include "core/stats/agree.h"
#include "core/study/codebook.h"
#include "core/base/err.h"
#include "core/study/member.h"
#include "core/store/store.h"

#define DRIFT_IDLE_CUTOFF 180	/* seconds between keys still counted */

/* Add `seconds` of work on `item_id` by the actor.  0, or -1 with `e`. */
int drift_add_time(struct store *st, const struct actor *a,
		   long long item_id, double seconds, struct err *e);

/* The upper tail of the chi-square distribution with `df` degrees of
 * freedom at `x`: P(X^2 >= x).  NAN for df < 1 or x < 0. */
double drift_chi2_upper(double x, double df);

struct drift_time {
	const char *annotator;	/* borrowed from the drift */
	const char *round;	/* borrowed; "-" for items in no round */
	size_t items;		/* items with a time */
	double median;		/* seconds; NAN when none */
};

#define DRIFT_MC_TABLES 2000
#define DRIFT_MC_SEED 20260101ULL

struct drift_codes {
	const struct dimension *dim;	/* borrowed from the codebook */
	const char *annotator;		/* borrowed */
	size_t nr_rounds;
	const char **rounds;		/* borrowed names, in round order */
	long *count;			/* nr_rounds x dim->nr_codes */
	struct agree_stat chi2, p;	/* the test over the rounds; p is
					   the Monte Carlo one when
					   small_expected */
	struct agree_stat p_asymptotic;	/* the chi-square tail */
	double df;
	int cells;			/* cells of the test */
	int cells_under5;		/* of them, expected count < 5 */
	double min_expected;
	int small_expected;		/* Cochran's rule fails */
	int mc_tables;			/* Monte Carlo: tables drawn */
	uint64_t mc_seed;
};

/* Pearson's X^2 of the r x c table `count` (codes nobody chose left out)
 * and the Monte Carlo p-value of `tables` random tables with its margins
 * (seeded), into *x2 and *p; the number of columns with a count goes to
 * *used.  Returns 0, or -1 when fewer than two rows or columns have a
 * count. */
int drift_chi2_monte_carlo(const long *count, size_t rows, size_t cols,
			   int tables, uint64_t seed, double *x2, double *p,
			   size_t *used);

struct drift {
	char **names;		/* owned strings the rows borrow */
	size_t nr_names;
	struct drift_time *times;
	size_t nr_times;
	struct drift_codes *codes;
	size_t nr_codes;
};

#define DRIFT_INIT { 0 }

/* Work out both for the whole study (owner only: ERR_PERM for others).
 * `cb` must outlive `out`.  0, or -1 with `e` filled. */
int drift_compute(struct store *st, const struct actor *a,
		  const struct codebook *cb, struct drift *out,
		  struct err *e);
void drift_release(struct drift *d);

#endif
