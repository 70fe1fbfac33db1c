/* SPDX-License-Identifier: MIT */
/*
 * label: an annotator's work on an item - labels, submission, memo,
 * flags, proposed codes - and the audit trail of every change.
 *
 * Every function that changes something is one transaction (it nests
 * inside a caller's), checks the actor may do it, validates keys against
 * the current codebook, and writes an audit entry.
 *
 * Who may label is core/study/access's rule (access_label_items()): while the
 * study has no round, every annotator (and an owner coding for themself)
 * codes every item; once it has rounds, only the items of open rounds
 * that assign them.  An item being screened is answered on inclusion
 * (core/screen; label_set(), label_submit() and coding_load() pass it
 * there).  A submitted item is complete: clearing a required dimension of
 * it is refused, saying why.  After a split, a coder recodes their
 * labels on the split code (core/study/recode).
 *
 * Blinding: who may read another member's work is decided in
 * core/study/access (access_may_see()); coding_load() asks it.
 */
#ifndef BUGCODER_LABEL_H
#define BUGCODER_LABEL_H

#include <stddef.h>

#include "core/study/codebook.h"
#include "core/base/err.h"
#include "core/study/member.h"
#include "core/store/store.h"

struct coded_dim {
	char *dim;		/* dimension key */
	char **codes;		/* chosen code keys, sorted */
	size_t nr_codes;
	long long proposal_id;	/* proposal attached to the `other` label */
};

/* One member's work on one item. */
struct coding {
	long long item_id, member_id;
	struct coded_dim *dims;
	size_t nr_dims, alloc_dims;
	char *memo;		/* NULL when none */
	int uncertain, discuss;	/* flags */
	int submitted;
	char *submitted_at;	/* NULL unless submitted */
};

#define CODING_INIT { 0 }

/* Load `member_id`'s work on `item_id` as the actor may see it: fails
 * with ERR_PERM when blinding forbids it. */
int coding_load(struct store *st, const struct actor *a, long long item_id,
		long long member_id, struct coding *c, struct err *e);
void coding_release(struct coding *c);
/* The codes chosen for dimension `dim`, or NULL when none. */
const struct coded_dim *coding_dim(const struct coding *c, const char *dim);

/* Replace the actor's codes for one dimension of an item by codes[0..n)
 * (n == 0 clears the dimension).  A `select: one` dimension takes at most
 * one code.  `proposal_id` (0: keep the one already there) is attached
 * to the `other` label, when `other` is among the codes. */
int label_set(struct store *st, const struct actor *a,
	      const struct codebook *cb, long long item_id, const char *dim,
	      const char *const *codes, size_t n, long long proposal_id,
	      struct err *e);
/* Check codes[0..n) for dimension `dim` of `cb` as label_set() does (the
 * dimension and every code exist, one code for a `select: one`
 * dimension, none twice): 0 with *sorted an owned array of the codes in
 * key order (free() it; the strings stay the caller's), or -1 with `e`
 * filled (ERR_INPUT, with a suggestion). */
int label_check_codes(const struct codebook *cb, const char *dim,
		      const char *const *codes, size_t n,
		      const char ***sorted, struct err *e);

/* For a `select: many` dimension: add the code if absent, else remove
 * it; for a `select: one` dimension: set it (or clear it if it was the
 * chosen one). */
int label_toggle(struct store *st, const struct actor *a,
		 const struct codebook *cb, long long item_id, const char *dim,
		 const char *code, struct err *e);

/* Mark the item done for the actor.  Refused, naming the dimensions, when
 * a required dimension is not coded. */
int label_submit(struct store *st, const struct actor *a,
		 const struct codebook *cb, long long item_id, struct err *e);

/* Set the memo (empty text removes it). */
int label_memo(struct store *st, const struct actor *a, long long item_id,
	       const char *text, struct err *e);
/* Set or clear a flag: "uncertain" or "discuss". */
int label_flag(struct store *st, const struct actor *a, long long item_id,
	       const char *flag, int on, struct err *e);

/* Propose a new code for a dimension while coding `item_id`: stores the
 * proposal and labels the item with the dimension's `other` code, the
 * proposal attached.  *id (may be NULL) receives the proposal id. */
int label_propose(struct store *st, const struct actor *a,
		  const struct codebook *cb, long long item_id,
		  const char *dim, const char *key, const char *name,
		  const char *definition, long long *id, struct err *e);

/* Check that the actor may label `item_id` (role, round membership,
 * round still open). */
int label_check_access(struct store *st, const struct actor *a,
		       long long item_id, struct err *e);

/*
 * The annotator's queue: the items assigned to a member, in round order -
 * coding rounds, and screening rounds while their items are screened -
 * then the items outside rounds a split left them to recode (every item,
 * in import order, when the study has no rounds).  Items never fetched
 * are nobody's and stay out.  "Submitted" means done: the screening
 * answer submitted, or the coding submitted with nothing left to recode.
 *
 * Compact, since a study may hold 100,000 items: 8 bytes an item and a
 * bit for "submitted"; when the queue is every item of a study whose
 * ids have no gaps (no rounds, nothing deleted), the ids are implied
 * (position i is item i + 1) and only the bits are kept.  Read it with
 * queue_item() and queue_submitted().
 */
struct queue {
	long long *ids;		/* NULL: the items 1..nr */
	unsigned char *done;	/* a bit per position */
	size_t nr;
	size_t nr_submitted;
};

#define QUEUE_INIT { NULL, NULL, 0, 0 }

static inline long long queue_item(const struct queue *q, size_t i)
{
	return q->ids ? q->ids[i] : (long long)i + 1;
}

static inline int queue_submitted(const struct queue *q, size_t i)
{
	return (q->done[i / 8] >> (i % 8)) & 1;
}

/* Mark position i submitted (counted once). */
void queue_mark_submitted(struct queue *q, size_t i);

int queue_load(struct store *st, long long member_id, struct queue *q,
	       struct err *e);
void queue_release(struct queue *q);

#endif
