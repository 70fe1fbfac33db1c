/* SPDX-License-Identifier: MIT */
/*
 * access: who may see what, decided once.
 *
 * Every reader of the study - the screens, each command, every export,
 * agreement and the report - asks this module before it shows a member's
 * work (labels, memos, flags, submissions, progress, proposals) or the
 * name of whoever did it.  The rule has two halves:
 *
 *   Seeing work.  One's own work, always.  The owner and adjudicators see
 *   everyone's.  An annotator sees another member's work on an item only
 *   once the item's round is closed (an item in no round: never).  A
 *   non-member sees nobody's.
 *
 *   Knowing who.  With blind adjudication on (the study's default), an
 *   adjudicator who is not the owner sees the coders of an unresolved
 *   item as "Coder 1", "Coder 2", ... in an order drawn per item; their
 *   names appear only once the item is resolved or settled.
 *
 * access_rule() and access_names_coders() are the rule itself, over facts
 * the caller already read (bulk readers read rounds once, then ask per
 * row); access_may_see() reads the facts for one item.  Every function
 * that reads the study returns -1 on a database error, and callers
 * refuse: a check that cannot be answered never answers "yes".
 */
#ifndef BUGCODER_ACCESS_H
#define BUGCODER_ACCESS_H

#include "core/err.h"
#include "core/member.h"
#include "core/store.h"

/* May actor `a` see the work of member `worker_id` on an item that is
 * (`in_round`) in a round that is (`closed`)?  1 yes, 0 no. */
int access_rule(const struct actor *a, long long worker_id, int in_round,
		int closed);

/* Whether the actor may see every member's work on every item, whatever
 * the rounds (the owner and adjudicators). */
int access_sees_all(const struct actor *a);

/* Whether the actor reads the whole audit log, each row's detail and the
 * values a state check finds different (the owner); anyone else reads
 * their own rows, without detail.  `a` may be NULL (nobody known). */
int access_whole_log(const struct actor *a);

/* May actor `a`, who may see the work (access_rule()), also learn which
 * member coded what on an item that is (`resolved`: resolved or settled),
 * in a study whose adjudication is (`blind`)?  1 yes, 0 no (use "Coder
 * N"): only a blind adjudicator of an undecided item is told no. */
int access_names_coders(const struct actor *a, int blind, int resolved);

/* The round of `item_id`: *round_id 0 when the item is in none, *closed
 * whether that round is closed.  0, or -1 with `e` filled. */
int access_item_round(struct store *st, long long item_id,
		      long long *round_id, int *closed, struct err *e);

/* access_rule() for one item read from the study: 1 yes, 0 no, -1 with
 * `e` filled when the study cannot be read (the caller refuses). */
int access_may_see(struct store *st, const struct actor *a,
		   long long item_id, long long worker_id, struct err *e);

/* Is the study's adjudication blind?  1 yes, 0 no, -1 with `e` filled. */
int access_blind(struct store *st, struct err *e);

/* Turn blind adjudication on or off for the study: the owner only
 * (ERR_PERM for anyone else), in one audited transaction.  1 when it
 * changed, 0 when it already was so, -1 with `e` filled. */
int access_set_blind(struct store *st, const struct actor *a, int on,
		     struct err *e);

#endif
