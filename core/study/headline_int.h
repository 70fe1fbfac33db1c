/* SPDX-License-Identifier: MIT */
/*
 * headline_int: what the headline's files (headline.c, headline_multi.c)
 * share; not API (that is headline.h): where an interval's resamples come
 * from, the small setters of a reported value, and the steps of a
 * dimension's summary that headline.c calls in headline_multi.c.
 */
#ifndef BUGCODER_HEADLINE_INT_H
#define BUGCODER_HEADLINE_INT_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/base/err.h"
#include "core/stats/agree.h"
#include "core/study/agreement.h"
#include "core/study/headline.h"

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

static inline void src_init(struct ci_src *s, long n, double pe)
{
	memset(s, 0, sizeof(*s));
	s->n = n;
	s->pe = pe;
	s->perfect_low = NAN;
}

/* A kappa this close to 1 is 1: only rounding can put it there. */
#define KAPPA_ONE (1 - 1e-12)

static inline void undef(struct agree_stat *s, const char *why)
{
	s->value = 0;
	s->defined = 0;
	s->why = why;
}

static inline void set(struct agree_stat *s, double v)
{
	s->value = v;
	s->defined = 1;
	s->why = NULL;
}

static inline void ci_none(struct agree_ci *ci, enum agree_ci_method m,
		    const char *why)
{
	memset(ci, 0, sizeof(*ci));
	ci->method = m;
	undef(&ci->low, why);
	undef(&ci->high, why);
	undef(&ci->wald_low, why);
	undef(&ci->wald_high, why);
}

/* The interval of a reported kappa `k` with SE `se` (NULL: none) from
 * source `src` into *ci, with options `o` (bootstrap, BCa or Wald; a
 * kappa of 1 gets the exact lower bound).  0, or -1 with `e` filled. */
int headline_interval(const struct agree_opts *o,
		      const struct agree_stat *k, const struct agree_stat *se,
		      const struct ci_src *src, struct agree_ci *ci,
		      struct err *e);

/* The Landis & Koch band of lv->kappa and the bands lv->ci spans. */
void headline_bands(struct agree_level_summary *lv);

/* Select many, codes only (headline_multi.c): lv from the agreement's
 * dimension `ad` of n_ann annotators, with the mean per-code kappa and
 * its interval.  0, or -1 with `e` filled; lv is released by the
 * caller. */
int headline_level_multi(struct agree_level_summary *lv,
			 const struct agreement_dim *ad, size_t n_ann,
			 const struct agree_opts *o, struct err *e);

/* Select many at the level of groups (headline_multi.c): gmap[c] is the
 * group of code c, lv->k the number of groups.  0, or -1 with `e`
 * filled. */
int headline_level_multi_group(struct agree_level_summary *lv,
			       const struct agreement_dim *ad,
			       const int *gmap, size_t na,
			       const struct agree_opts *o, struct err *e);

#endif
