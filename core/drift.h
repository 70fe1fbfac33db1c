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
 * Codes: per dimension and annotator, the codes chosen in each round (a
 * select-many dimension counts each code chosen), and Pearson's
 * chi-square test of homogeneity over the rounds x codes table (codes
 * nobody chose left out): X^2 = sum (O - E)^2 / E with E = row total x
 * column total / n, df = (rounds - 1)(codes - 1), p the upper tail of
 * the chi-square distribution (the regularized gamma function Q(df/2,
 * X^2/2)).  Undefined, with the reason, below two rounds or two codes.
 *
 * Only the owner sees any of it: times are personal, and the code counts
 * of an open round are the annotators' blind work.
 */
#ifndef BUGCODER_DRIFT_H
#define BUGCODER_DRIFT_H

#include <stddef.h>

#include "core/agree.h"
#include "core/codebook.h"
#include "core/err.h"
#include "core/member.h"
#include "core/store.h"

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

struct drift_codes {
	const struct dimension *dim;	/* borrowed from the codebook */
	const char *annotator;		/* borrowed */
	size_t nr_rounds;
	const char **rounds;		/* borrowed names, in round order */
	long *count;			/* nr_rounds x dim->nr_codes */
	struct agree_stat chi2, p;	/* the test over the rounds */
	double df;
};

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
