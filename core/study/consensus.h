/* SPDX-License-Identifier: MIT */
/*
 * agreed: the agreed label of every item, in one pass over the study.
 *
 * The definition is core/study/adjudicate's (see adjudicate.h): the coders of
 * an item are the members whose submissions count (its round's
 * annotators, or every submitter when it is in no round); it is ready
 * once they have all submitted (two when in no round); a dimension is
 * then agreed when every coder chose the same set of codes (the empty set
 * included), else disagreeing; a stored resolution overrides either and
 * makes it resolved.  adjudicate_state() works that out for one item with
 * several queries; this module gets the same answer for every item from
 * five ordered scans (items, fixes, submissions, labels, resolutions)
 * merged on the item id, so exporting 100,000 items costs a few table
 * scans rather than half a million queries.  tests/t_csv.c checks both
 * agree on a random study.
 *
 * The decision itself is consensus_ready() and consensus_decide() below, which
 * adjudicate_state() uses too: one rule, two ways of reading the study.
 *
 * Which items: those that count in the study's coding figures
 * (ACCESS_COUNTED_SQL: the items of coding rounds, or every item while
 * the study has no round); the others - outside every round, screened
 * out - are not in the pass.  A dimension a split left to recode is
 * pending until its coders have recoded it (consensus_decide_dim()).
 *
 * Who sees what: core/study/access's rule (access_rule()), applied to whole
 * items.  An agreed label reveals what every coder chose, so:
 *  - the owner and adjudicators see every item;
 *  - an annotator sees only the items whose round is closed (not the
 *    items in no round: their coders never become visible);
 *  - anyone else is refused (ERR_PERM).
 *
 * The scans run inside one read transaction (a savepoint), so the pass
 * sees one consistent snapshot even while annotators keep working.
 */
#ifndef BUGCODER_CONSENSUS_H
#define BUGCODER_CONSENSUS_H

#include <stddef.h>
#include <sqlite3.h>

#include "core/base/buf.h"
#include "core/study/codebook.h"
#include "core/base/err.h"
#include "core/study/member.h"
#include "core/store/store.h"

enum dim_status {
	DIM_PENDING,	/* not every coder has submitted */
	DIM_AGREED,
	DIM_DISAGREE,
	DIM_RESOLVED,
};

/* Is an item ready: have its coders all submitted?  `expected` is the
 * number of its round's annotators, 0 when it is in no round (then two
 * submissions make it ready). */
int consensus_ready(size_t nr_coders, size_t expected);

/* The one decision for a dimension of an item: a resolution decides it
 * (resolved); otherwise, once the item is ready, it is agreed when every
 * coder chose the same set of codes (the empty set included) and
 * disagreeing when not; before that, pending. */
enum dim_status consensus_decide(int ready, int all_same, int resolved);

/* consensus_decide() for a dimension a split left to recode (`recoding`: a
 * coder's label on it waits to be recoded): pending until recoded,
 * unless a resolution decides it. */
enum dim_status consensus_decide_dim(int ready, int all_same, int resolved,
				  int recoding);

struct consensus_dim {
	enum dim_status status;	/* DIM_PENDING ... DIM_RESOLVED */
	struct buf final;	/* ';'-joined codes when agreed or resolved,
				   in key order; else empty */
};

/* One item.  Strings are borrowed from the scan and stay valid until the
 * next consensus_next() or consensus_close(); NULL when the study has none. */
struct consensus_item {
	long long id;
	const char *repo;
	long long number;
	const char *url, *title, *created_at, *closed_at;
	double days_open;	/* < 0 when unknown */
	long long comments;
	long long additions, deletions;	/* -1 when unknown */
	long long changed_files, lines_changed;	/* -1 when unknown */
	int small_fix;		/* 1, 0, or -1 when unknown */
	struct buf fixes;	/* ';'-joined pull request numbers */
	struct buf fix_lines;	/* each fix's own lines changed, ';'-joined
				   in the same order ("?" when unknown) */
	struct buf fix_repeats;	/* per fix: 0, or the position (from 1) of
				   the earlier fix whose change it repeats
				   (a backport), left out of the sums */
	const char *round;	/* the item's round, or NULL */
	int ready;		/* every expected coder submitted */
	int complete;		/* every dimension agreed or resolved */
	int discuss;		/* a coder flagged it for discussion */
	int settled;		/* an adjudicator settled it */
	const char *last_submitted;	/* the latest submission's time, of
				   anyone's; NULL when none */
	int recoding;		/* a dimension waits for a recode */
	struct consensus_dim *dims;	/* one per codebook dimension */
};

struct consensus_round;		/* a round's annotators (private) */

struct consensus_iter {
	struct store *st;	/* borrowed */
	const struct codebook *cb;	/* borrowed; must outlive the iter */
	const struct actor *actor;	/* borrowed */
	sqlite3_stmt *items, *fixes, *subs, *labels, *res, *flags, *settled;
	sqlite3_stmt *recodes;
	int has_fix, has_sub, has_label, has_res, has_flag, has_settled;
	int has_recode;
	struct consensus_round *rounds;
	size_t nr_rounds;
	long long *coders;	/* the current item's coders, sorted */
	size_t nr_coders, alloc_coders;
	struct buf *cur;	/* per dimension: one coder's codes */
	struct buf last;	/* item.last_submitted */
	int in_savepoint;
	struct consensus_item item;	/* the current item */
};

/* Start a pass for actor `a` over the items of round `round` (NULL for
 * all), in item id order.  Returns 0, or -1 with `e` filled: ERR_PERM
 * for a non-member, ERR_NOTFOUND for an unknown round.  Call
 * consensus_close() in either case. */
int consensus_open(struct consensus_iter *it, struct store *st,
		const struct actor *a, const struct codebook *cb,
		const char *round, struct err *e);
/* Move to the next item visible to the actor: 1 with it->item filled, 0
 * at the end, -1 with `e` filled on a database error. */
int consensus_next(struct consensus_iter *it, struct err *e);
/* Leave the pull request numbers out (item.fixes stays empty): for a
 * reader that needs only the decisions.  Call right after consensus_open(). */
void consensus_skip_fixes(struct consensus_iter *it);
/* End the pass and free everything.  Accepts a failed or closed iter. */
void consensus_close(struct consensus_iter *it);

/* Does round `round` exist?  0, or -1 with ERR_NOTFOUND naming it. */
int consensus_check_round(struct store *st, const char *round, struct err *e);

/* The word for a dimension's status in exports: "agreed",
 * "adjudicated" (resolved) or "pending" (pending or disagreeing). */
const char *consensus_status_name(enum dim_status s);


#endif
