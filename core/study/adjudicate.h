/* SPDX-License-Identifier: MIT */
/*
 * adjudicate: disagreements, their resolutions, and the agreed labels.
 *
 * For one item, the coders are the members whose submissions count: the
 * annotators of the item's round, or (with no round) every member who
 * submitted it.  The item is ready for adjudication once every annotator
 * of its round has submitted (at least two when it is in no round).  A
 * dimension is then
 *   agreed      every coder chose the same set of codes (the empty set
 *               included, for a dimension nobody coded);
 *   disagree    the sets differ and no resolution is stored;
 *   resolved    an adjudicator stored the final code(s) with a rationale.
 * The agreed label of a dimension is the common set, or the resolution.
 *
 * Adjudication is blind by default: the two coders appear as "Coder 1"
 * and "Coder 2" in an order drawn per item from the study's secret salt,
 * stable across sessions, unless the owner turns blinding off.
 */
#ifndef BUGCODER_ADJUDICATE_H
#define BUGCODER_ADJUDICATE_H

#include <stddef.h>

#include "core/study/codebook.h"
#include "core/base/err.h"
#include "core/study/label.h"
#include "core/study/member.h"
#include "core/store/store.h"
#include "core/study/consensus.h"
#include "core/base/buf.h"

struct coder {
	long long member_id;
	char *name;
	struct coding coding;	/* what they submitted */
};

struct dim_state {
	const struct dimension *dim;	/* borrowed from the codebook */
	enum dim_status status;
	char *final;		/* ';'-joined codes when agreed/resolved */
	char *rationale;	/* resolved only */
	char *cause;		/* resolved only, may be NULL */
	char *adjudicator;	/* resolved only */
	int was_disagreement;	/* resolved: the coders differed */
};

struct item_state {
	long long item_id;
	size_t nr_expected;	/* coders the item waits for */
	struct coder *coders;	/* submitted coders, by member id */
	size_t nr_coders;
	size_t order[2];	/* coders[order[0]] is shown as Coder 1 */
	struct dim_state *dims;	/* one per codebook dimension */
	size_t nr_dims;
	int ready;		/* every expected coder submitted */
	int discuss;		/* a coder flagged it "discuss" */
	int uncertain;		/* a coder flagged it "uncertain" */
	int settled;		/* an adjudicator closed the discussion */
	int nr_disagree;	/* dimensions still disagreeing */
};

#define ITEM_STATE_INIT { 0 }

/* Work out the state of one item.  Only the owner and adjudicators (who
 * see everyone's work).  `cb` must outlive `out`. */
int adjudicate_state(struct store *st, const struct actor *a,
		     const struct codebook *cb, long long item_id,
		     struct item_state *out, struct err *e);
void item_state_release(struct item_state *s);

/* Does the item still need the adjudicator: ready, and a disagreement
 * left or flagged "discuss" and not settled? */
int item_state_needs_adjudication(const struct item_state *s);

/* The adjudicator's queue: ready items that need adjudication (the
 * items adjudicate_disagreements() lists, found by the same one pass
 * over the study), oldest first (by the time the last submission came
 * in, then by id).  *ids is owned (free()). */
int adjudicate_queue(struct store *st, const struct actor *a,
		     const struct codebook *cb, long long **ids, size_t *nr,
		     struct err *e);

/* Store the final code(s) for a dimension of an item, with a rationale
 * (required) and an optional cause: guideline_gap, slip, ambiguous or
 * code_missing.  Owner or adjudicator; the item must be ready.  Audited.
 * The dimension `inclusion` decides a screened item's inclusion
 * (screening_resolve()). */
int adjudicate_resolve(struct store *st, const struct actor *a,
		       const struct codebook *cb, long long item_id,
		       const char *dim, const char *const *codes, size_t n,
		       const char *rationale, const char *cause,
		       struct err *e);

/* One dimension's final code(s) for adjudicate_resolve_all(). */
struct resolve_dim {
	const char *dim;
	const char *const *codes;
	size_t nr;
};
/* adjudicate_resolve() for each of v[0..nr) with the one rationale and
 * cause, in one transaction: all are saved, or none (the study is left
 * as it was and `e` says which failed). */
int adjudicate_resolve_all(struct store *st, const struct actor *a,
			   const struct codebook *cb, long long item_id,
			   const struct resolve_dim *v, size_t nr,
			   const char *rationale, const char *cause,
			   struct err *e);

/* Mark a discussed item as needing nothing more. */
int adjudicate_settle(struct store *st, const struct actor *a,
		      long long item_id, const char *note, struct err *e);

/* Is `cause` one of the causes above? */
int adjudicate_valid_cause(const char *cause);

/* Is blind adjudication on for this study? */
int adjudicate_blind(struct store *st);

/* One entry of the disagreement list: an item and dimension where the
 * coders differ (reason "disagree"), or an item flagged for discussion
 * whose labels agree (reason "discuss", dimension NULL).  coders[i] is
 * how the actor may know the i-th coder ("Coder 1" for a blind
 * adjudicator, else the member's name); codes[i] their ';'-joined codes.
 * Everything is borrowed for the callback's duration. */
struct disagreement {
	const char *item;	/* owner/repo#N */
	const char *round;	/* NULL when in no round */
	const char *dimension;
	const char *reason;
	size_t nr_coders;
	const char *const *coders;
	const char *const *codes;
};

/* Call fn(d, data) for every open disagreement the actor may see (owner
 * and adjudicators: ERR_PERM for others), of round `round` (NULL: all),
 * in item order.  Stops at fn's first non-zero return and returns it; 0
 * at the end; -1 with `e` filled. */
int adjudicate_disagreements(struct store *st, const struct actor *a,
			     const struct codebook *cb, const char *round,
			     int (*fn)(const struct disagreement *d,
				       void *data),
			     void *data, struct err *e);

/* The blind coder order: the study's salt (owned; made on first use;
 * NULL with `e` filled when it cannot be read or stored) and
 * whether item `item_id`'s first two coders, in member order, show
 * swapped (Coder 1 is the second).  Every reader that names coders
 * "Coder N" uses these, so an item's Coder 1 is the same everywhere. */
char *adjudicate_salt(struct store *st, struct err *e);
int adjudicate_swap(const char *salt, long long item_id);

/* "Coder N": how a blind adjudicator knows member `member_id` on item
 * `item_id` (the screen's numbering), or "a coder" when they have not
 * submitted it.  Replaces out's content.  0, or -1 with `e` filled. */
int adjudicate_coder_label(struct store *st, const char *salt,
			   long long item_id, long long member_id,
			   struct buf *out, struct err *e);

#endif
