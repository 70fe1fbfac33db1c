/* SPDX-License-Identifier: MIT */
/*
 * screening: screening rounds - deciding which items are in the study
 * before any is coded.
 *
 * A screening round (round_create() with `screen` set) gives its items
 * to its annotators, who answer one question of each: inclusion, with
 * the code `include` or one of the round's exclusion reasons (by default
 * not_a_bug, no_merged_fix, duplicate, out_of_scope).  They answer
 * through the same paths as coding - the screen, `label ITEM
 * inclusion=CODE --submit`, `labels import` - blinded the same way (an
 * annotator sees the others' answers once the round is closed).
 *
 * Inclusion is not a dimension of the study's codebook: the question is
 * built from the round's reasons (screening_codebook()), its answers are
 * kept in tables of their own, and codebook versions, updates, maps and
 * splits never see it.  So an item screened and then coded has both
 * records, and a codebook version's history says only what the taxonomy
 * was.
 *
 * The decision: when the round closes, an item every screener submitted
 * with the same answer is decided (agreed); an item whose screeners
 * differ goes to the adjudicator, whose resolution decides it
 * (adjudicated), open round or closed.  A decided item's answers freeze.
 * Items decided `include` are free for coding rounds as if never in a
 * round; items decided on a reason never enter one, nor any coding
 * figure, but stay in the study (`items`, the package) with the reason.
 * Every change is audited with its new value: screen.label, screen.submit,
 * screen.agreed, screen.adjudicated, screen.undecided.
 */
#ifndef BUGCODER_SCREENING_H
#define BUGCODER_SCREENING_H

#include <stddef.h>

#include "core/base/buf.h"
#include "core/study/codebook.h"
#include "core/base/err.h"
#include "core/study/label.h"
#include "core/study/member.h"
#include "core/store/store.h"

#define SCREENING_DIM "inclusion"
#define SCREENING_INCLUDE "include"

/* The exclusion reasons a round has without --reasons, comma-joined. */
#define SCREENING_DEFAULT_REASONS "not_a_bug,no_merged_fix,duplicate,out_of_scope"

/* Is `dim` the screening question's key? */
int screening_is_dim(const char *dim);

/* Check a comma-separated list of exclusion reasons (each a code key,
 * not `include`, none twice, at least one) and give it as the JSON
 * array stored with the round: *json owned.  0, or -1 (ERR_INPUT naming
 * the reason at fault). */
int screening_reasons_parse(const char *list, char **json, struct err *e);

/* The question of a round whose reasons are `reasons_json` (NULL: the
 * defaults) as a codebook of one required `select: one` dimension,
 * inclusion, so the screen, the picker and agreement read it as they
 * read any codebook.  Release with codebook_release().  0, or -1. */
int screening_codebook_from(const char *reasons_json, struct codebook *cb,
			 struct err *e);
/* The same for screening round `round_id`. */
int screening_codebook(struct store *st, long long round_id,
		    struct codebook *cb, struct err *e);
/* Is `cb` a screening question made by screening_codebook*()? */
int screening_is_codebook(const struct codebook *cb);

/* The screening round item `item_id` is being screened in: its id (0:
 * the item is not in the screening phase - in no screening round, or
 * in a coding round already).  -1 with `e` filled. */
long long screening_phase(struct store *st, long long item_id, struct err *e);

/* The actor's answer for an item they may screen (access: LABEL_SCREEN),
 * in the caller's transaction or its own: codes[0..n), n of 0 or 1 (0
 * clears it; refused once the actor submitted the item: a submitted
 * answer is complete).  Audited. */
int screening_label_set(struct store *st, const struct actor *a,
		     long long item_id, const char *const *codes, size_t n,
		     struct err *e);

/* Submit the actor's answer (refused without one).  Audited. */
int screening_submit(struct store *st, const struct actor *a,
		  long long item_id, struct err *e);

/* Member `member_id`'s answer on an item in its screening phase, as
 * coding_load() gives a coding (one dimension, inclusion; submitted from
 * the screening submission), the memo and flags included; blinding is
 * the caller's (coding_load() checks it first). */
int screening_coding_load(struct store *st, long long item_id,
		       long long member_id, struct coding *c, struct err *e);

/* Decide the items of screening round `round_id` that every screener
 * submitted with the same answer (round close); *nr (may be NULL) gets
 * how many.  In the caller's transaction.  Audited per item. */
int screening_decide_round(struct store *st, const struct actor *a,
			long long round_id, size_t *nr, struct err *e);

/* Undo the agreed decisions of round `round_id` (round reopen), but of
 * items already in a coding round: those stay decided.  Audited. */
int screening_undecide_round(struct store *st, const struct actor *a,
			  long long round_id, struct err *e);

/* The adjudicator's decision on an item's inclusion: `code` (include or
 * a reason of its round), with a rationale and an optional cause.  The
 * item must be ready (every screener of its round submitted) and in no
 * coding round yet.  Owner or adjudicator.  Audited. */
int screening_resolve(struct store *st, const struct actor *a,
		   long long item_id, const char *code, const char *rationale,
		   const char *cause, struct err *e);

/* One screening disagreement: an item whose screeners submitted
 * different answers and that no adjudicator decided.  coders[i] is how
 * the actor may know the i-th screener ("Coder N" for a blind
 * adjudicator), codes[i] their answer.  Borrowed for the callback. */
struct screening_disagreement {
	const char *item;
	const char *round;
	size_t nr_coders;
	const char *const *coders;
	const char *const *codes;
};

/* Call fn for every screening disagreement of round `round` (NULL: all)
 * the actor may see (owner and adjudicators; ERR_PERM for others).
 * Stops at fn's first non-zero return and returns it; 0 at the end. */
int screening_disagreements(struct store *st, const struct actor *a,
			 const char *round,
			 int (*fn)(const struct screening_disagreement *d,
				   void *data),
			 void *data, struct err *e);

/* One screener's answer, for the package.  Borrowed for the callback;
 * `annotator` is a name, or "Coder N" for a blind adjudicator while the
 * item is not decided. */
struct screening_answer {
	const char *item, *round, *annotator, *code;
	const char *labeled_at, *submitted_at;	/* submitted_at NULL: not */
};

/* Call fn for every screening answer actor `a` may see (core/study/access:
 * their own, and everyone's once the round is closed; all for the owner
 * and adjudicators), by item and member.  Stops at fn's first non-zero
 * return and returns it; 0 at the end; -1 with `e` filled. */
int screening_answers(struct store *st, const struct actor *a,
		      int (*fn)(const struct screening_answer *ans,
				void *data),
		      void *data, struct err *e);

/* The screening figures of the study, for `status` and the report. */
struct screening_counts {
	long rounds;		/* screening rounds */
	long screened;		/* items in a screening round */
	long decided, included, excluded;
	long undecided;		/* screened, not decided yet */
	long in_coding;		/* included items in a coding round */
};

int screening_count(struct store *st, struct screening_counts *c,
		    struct err *e);

#endif
