/* SPDX-License-Identifier: MIT */
/*
 * suggest: "did you mean" for a misspelt name - a command, an item, a
 * code, a dimension, a member, a codebook.
 *
 * Names are compared by the optimal string alignment distance (Levenshtein
 * with adjacent transpositions, as git's help.c weighs typos), counted in
 * bytes and case-insensitively for ASCII letters.  A candidate is offered
 * when it is close enough: at most a third of the longer name's length
 * (rounded up, at least 1, at most 3) edits away, or when the typed name
 * is a prefix of exactly one candidate.  Ties go to the candidate listed
 * first.
 */
#ifndef BUGCODER_SUGGEST_H
#define BUGCODER_SUGGEST_H

#include <stddef.h>

#include "core/base/err.h"

/* The edit distance between a and b (see above). */
size_t suggest_distance(const char *a, const char *b);

/* The candidate closest to `typed`, or NULL when none is close enough.
 * The pointer is one of cands[0..n) (borrowed). */
const char *suggest_closest(const char *typed, const char *const *cands,
			    size_t n);

/*
 * A set of candidates fed one at a time (from a query, say), keeping
 * the best; `best` is a copy (owned) or NULL.
 */
struct suggest {
	const char *typed;	/* borrowed */
	char *best;		/* owned, NULL when none is close enough */
	size_t best_dist;
	size_t nr_prefix;	/* candidates that `typed` is a prefix of */
	char *prefix;		/* the first of them, owned */
};

void suggest_init(struct suggest *s, const char *typed);
void suggest_add(struct suggest *s, const char *cand);
/* The suggestion (borrowed from `s`), or NULL. */
const char *suggest_result(const struct suggest *s);
void suggest_release(struct suggest *s);

/* Append "; did you mean SUGGESTION?" to e's message when `suggestion`
 * is not NULL.  Returns -1, for `return err_suggest(e, ...)`. */
int err_suggest(struct err *e, const char *suggestion);

#endif
