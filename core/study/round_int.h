/* SPDX-License-Identifier: MIT */
/*
 * round_int: what the round's files (round.c, round_sample.c,
 * round_close.c, round_list.c) share; not API (that is round.h).
 */
#ifndef BUGCODER_ROUND_INT_H
#define BUGCODER_ROUND_INT_H

#include <stddef.h>
#include <stdint.h>

#include "core/base/buf.h"
#include "core/base/err.h"
#include "core/store/store.h"

/* A candidate item of a new round. */
struct cand {
	long long id;
	char *repo;
};

struct cands {
	struct cand *v;
	size_t nr, alloc;
};

/* What the candidates of a new round left out (round_info's left_*). */
struct left {
	size_t missing, unscreened, screening, excluded;
};

/* round_sample.c */

/* Free the candidates' repositories and array; `c` is empty after. */
void round_cands_release(struct cands *c);

/*
 * The items a new round may take (see round.h), of repository `repo`
 * (NULL: all), in id order, into `out`; what was left out, and why,
 * into *left.
 */
int round_free_items(struct store *st, int screen, const char *repo,
		     struct cands *out, struct left *left, struct err *e);

/* Refuse item `id` for a new round (a screening round when `screen`)
 * when it may not go into it, naming it and why. */
int round_check_free(struct store *st, long long id, int screen,
		     struct err *e);

/* The items of round `rid` that not every annotator of the round
 * submitted, in round order: appended to `out` (may be NULL), counted in
 * *nr, the first named in *first (may be NULL; owned, NULL when none). */
int round_unfinished_items(struct store *st, long long rid, int screen,
			   struct cands *out, size_t *nr, char **first,
			   struct err *e);

/* --items SPEC (all, repo:R, unfinished:ROUND, @FILE or ids) read into
 * `out`: what was left out into *left, the closed round the items of
 * "unfinished:" come from into *from (0: none).  0, or -1 with `e`
 * filled. */
int round_parse_items(struct store *st, const char *spec, int screen,
		      struct cands *out, struct left *left, long long *from,
		      struct err *e);

/* --sample N or P% of `total` candidates into *want.  0, or -1 with `e`
 * filled. */
int round_parse_sample(const char *s, size_t total, size_t *want,
		       struct err *e);

/* Draw `want` of the candidates, in place: the chosen come first. */
void round_draw(struct cands *c, size_t want, uint64_t seed, int stratify);

#endif
