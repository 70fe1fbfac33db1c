/* SPDX-License-Identifier: MIT */
/*
 * round: a set of items given to a set of annotators (the pilot, round 1,
 * ...).  Agreement is reported per round; blinding lifts when a round is
 * closed.
 *
 * A round codes its items against the codebook, or screens them (a
 * screening round, core/study/screening: its items are answered on inclusion).
 * An item is in at most one coding round, and in at most one screening
 * round.  Which items a new round may take (`--items all`, a sample):
 *  - never an item whose text was never fetched (`fetch --missing`);
 *  - a screening round: the items in no round of either kind;
 *  - a coding round: the items in no coding round that are free of
 *    screening - screened in (decided `include`), or, while the study has
 *    no screening round, never screened.  Once a study screens, an item
 *    not screened yet waits for screening; one screened out never enters
 *    a coding round; one still being screened waits for the decision.
 * What was left out is counted in the round_info round_create() gives,
 * and naming such an item explicitly is refused, saying why.
 *
 * A sample is drawn from those candidates, reproducibly from a seed that
 * is stored with the round: the candidates in id order are shuffled with
 * a 64-bit SplitMix generator (Fisher-Yates), and the first N are taken.
 * With stratify "repo", each repository contributes in proportion to its
 * share of the candidates (largest-remainder rounding, ties to the larger
 * stratum, then by name), so a 40% pilot has 40% of every framework.
 */
#ifndef BUGCODER_ROUND_H
#define BUGCODER_ROUND_H

#include <stddef.h>
#include <stdint.h>

#include "core/base/buf.h"
#include "core/base/err.h"
#include "core/study/member.h"
#include "core/store/store.h"

struct round_spec {
	const char *name;
	const char *items;	/* --items SPEC, or NULL */
	const char *sample;	/* --sample N or P%, or NULL */
	uint64_t seed;		/* --seed */
	int has_seed;
	const char *stratify;	/* "repo" or NULL */
	const char *const *annotators;
	size_t nr_annotators;
	int screen;		/* a screening round */
	const char *reasons;	/* its exclusion reasons, comma-separated;
				   NULL: the defaults */
	/* the calibration gate, checked by the caller (core/study/gate): */
	const char *gate_after;	/* the round it waited for, or NULL */
	double gate_min_kappa;
	int gate_on_lower;	/* the interval's lower bound was compared */
	int gate_forced;	/* the gate did not pass: --force */
	const char *gate_detail;	/* what the check found (audit) */
};

struct round_info {
	long long id;
	char *name;
	char *spec;		/* "items: ..." or "sample: 40%" */
	long long seed;
	int has_seed;
	char *stratify;
	char *created_at, *created_by;
	char *closed_at, *closed_by;	/* NULL while open */
	char **annotators;
	size_t nr_annotators;
	size_t nr_items;
	size_t nr_complete;	/* items every annotator of it submitted;
				   with own_only, those the actor submitted */
	int own_only;		/* progress is the actor's own (blinding) */
	int screen;		/* a screening round */
	char *reasons;		/* a screening round's reasons, as a JSON
				   array; NULL otherwise */
	/* round_create() only: the items `--items all` or the sample left
	 * out, and why */
	size_t left_missing;	/* never fetched */
	size_t left_unscreened;	/* the study screens; not screened yet */
	size_t left_screening;	/* being screened, not decided yet */
	size_t left_excluded;	/* screened out */
};

enum round_flags {
	ROUND_FORCE = 1 << 0,	/* close with unfinished items, reopen with
				   adjudicated ones */
};

/* Create a round.  Only the owner.  SPEC for --items is a comma-separated
 * list of item names, "all" (every candidate, see above),
 * "repo:OWNER/NAME" (its candidates), "@FILE" (one item name per line) or
 * "unfinished:ROUND" (the items of the closed round ROUND that not every
 * one of its annotators submitted; they move out of ROUND into the new
 * one, of the same kind, each move audited).  A sample takes N items or
 * P% of the candidates (rounded to nearest, at least 1).  Annotators
 * must be members with the annotator (or owner) role; a screening round
 * takes no machine.  A named item that may not go into the round is
 * refused, naming the item and why (the round it is in, never fetched,
 * screened out, ...).  *out (may be NULL) gets the round, with what was
 * left out.  Audited. */
int round_create(struct store *st, const struct actor *a,
		 const struct round_spec *spec, struct round_info *out,
		 struct err *e);

/* Fill `e` (ERR_NOTFOUND) with "WHAT: no such round" and, when a round
 * of the study has a name close to `name`, "; did you mean NAME?".  WHAT
 * is how the name was given ("--round r2", or the name).  Returns -1. */
int round_unknown(struct store *st, const char *what, const char *name,
		  struct err *e);
/* Put the items ids[0..n), each in no round, into the open round `name`
 * (after its items, in the order given): only the owner, and only items
 * round_create() would take by name (refused naming the first that may
 * not go in, and why).  In the caller's transaction; each audited
 * (round.add). */
int round_add_items(struct store *st, const struct actor *a,
		    const char *name, const long long *ids, size_t n,
		    struct err *e);

/* Close a round (owner or adjudicator): labels freeze, blinding lifts.
 * The study's full check runs first (store_verify()): a damaged study is
 * refused.  Refused while an item is not submitted by every annotator of the
 * round, saying how many and naming the first, unless `flags` has
 * ROUND_FORCE; a forced close is audited with the count.  Closing a
 * screening round decides the items its screeners agree on; *decided
 * (may be NULL) gets how many.  Returns 0, 1 when the round was closed
 * already (nothing to do, nothing changed), or -1. */
int round_close(struct store *st, const struct actor *a, const char *name,
		unsigned flags, struct err *e);
int round_close_decided(struct store *st, const struct actor *a,
			const char *name, unsigned flags, size_t *decided,
			struct err *e);

/* Reopen a closed round (owner only): its annotators may label again.
 * Refused, naming the first, when an item of the round has been resolved
 * or settled, unless `flags` has ROUND_FORCE (adjudicated items stay
 * frozen all the same).  Audited.  Returns 0, 1 when the round is open
 * already (nothing to do, nothing changed), or -1. */
int round_reopen(struct store *st, const struct actor *a, const char *name,
		 unsigned flags, struct err *e);

/* All rounds in creation order. */
int round_list(struct store *st, struct round_info **v, size_t *nr,
	       struct err *e);
/* All rounds as actor `a` may see them: an annotator of an open round
 * learns only their own progress (own_only set, nr_complete theirs). */
int round_list_for(struct store *st, const struct actor *a,
		   struct round_info **v, size_t *nr, struct err *e);
/* One round by name; ERR_NOTFOUND when absent. */
int round_get(struct store *st, const char *name, struct round_info *out,
	      struct err *e);
void round_info_release(struct round_info *r);
void round_list_free(struct round_info *v, size_t nr);

/* Later decisions that changed what closed round `r` covers: for each
 * dimension, the labels of its annotators on its items that proposals
 * decided after the close moved ("root_cause: 2 labels moved by
 * proposals decided after the round closed"), and codebook maps made
 * after the close on a dimension those labels use.  One line each,
 * '\n'-terminated, appended to `out`; nothing for an open round or when
 * nothing changed.  Returns 0, or -1 with `e` filled. */
int round_later_changes(struct store *st, const struct round_info *r,
			struct buf *out, struct err *e);

/* Append to `out` the codebook versions the round's annotators coded its
 * items with (round_id 0: every label of the study), sorted and joined
 * with ", " (nothing when there are no labels yet).  Returns 0, or -1
 * with `e` filled. */
int round_codebook_versions(struct store *st, long long round_id,
			    struct buf *out, struct err *e);

/* The SplitMix64 step, exposed for tests. */
uint64_t round_splitmix64(uint64_t *state);

#endif
