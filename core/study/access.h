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
 *   Labelling.  Rounds are the study's design.  While a study has no
 *   round, it is open coding: every member who labels may code every
 *   item.  Once it has a round (of either kind), a member labels only
 *   the items of open rounds that assign them: an item of an open coding
 *   round that names them as an annotator is coded against the codebook;
 *   an item of an open screening round that names them is answered on
 *   inclusion alone, until its screening is decided.  Everything else is
 *   refused, naming the item and the rounds it is (or is not) in.  Two
 *   exceptions: an item whose text was never fetched is nobody's to code;
 *   and after a code was split, its coder recodes their own labels on it
 *   (between the new codes only) wherever the item is.
 *
 * access_rule() and access_names_coders() are the rule itself, over facts
 * the caller already read (bulk readers read rounds once, then ask per
 * row); access_may_see() reads the facts for one item.  Every function
 * that reads the study returns -1 on a database error, and callers
 * refuse: a check that cannot be answered never answers "yes".
 */
#ifndef BUGCODER_ACCESS_H
#define BUGCODER_ACCESS_H

#include "core/base/err.h"
#include "core/study/member.h"
#include "core/store/store.h"

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

/* The round of `item_id` - its coding round, else its screening round
 * -: *round_id 0 when the item is in none, *closed whether that round is
 * closed.  0, or -1 with `e` filled. */
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
/* What an actor may do with an item's labels. */
enum label_may {
	LABEL_NO = 0,		/* refused; the verdict says why */
	LABEL_CODE,		/* code it against the codebook */
	LABEL_SCREEN,		/* answer inclusion, nothing else */
	LABEL_RECODE,		/* only recode the dimensions a split left
				   to recode (their new codes only) */
};

/* One item's verdict.  `why` is owned (free it, or
 * access_verdicts_release()); set when refused, NULL otherwise. */
struct label_verdict {
	enum label_may may;
	char *why;
	long long round_id;	/* the round it is coded or screened in, 0 */
	int submitted;		/* the actor submitted it (in that round's
				   kind: screening or coding) */
	int outside;		/* refused for being in no round */
	int recode;		/* a split left the actor's labels here to
				   recode */
};

/*
 * The labelling rule (see the top of this file) for the items ids[0..n)
 * at once: out[i] for ids[i].  A batch (an import, `label --from`) asks
 * once; the study's rounds are read once, then a row per item.  A role
 * that does not label (an adjudicator, a non-member) is refused for
 * every item.  0, or -1 with `e` filled (an unknown item id is an
 * error, ERR_NOTFOUND); out[] is released on failure.
 */
int access_label_items(struct store *st, const struct actor *a,
		       const long long *ids, size_t n,
		       struct label_verdict *out, struct err *e);
void access_verdicts_release(struct label_verdict *v, size_t n);

/* access_label_items() for one item: its verdict in *v (may be NULL);
 * returns v->may, or -1 with `e` filled. */
int access_label_item(struct store *st, const struct actor *a,
		      long long item_id, struct label_verdict *v,
		      struct err *e);

/*
 * Which items count in the study's coding figures (agreement over the
 * whole study, the agreed labels, status, the report, the package): the
 * items of coding rounds, or every item while the study has no round at
 * all (open coding).  Items screened out never count; an item outside
 * every round once the study has rounds is left out, and said so.  This
 * SQL condition says it of the item whose id is in column `col`, for
 * readers that filter in SQL (its text is a constant).
 */
#define ACCESS_COUNTED_SQL(col) \
	"(" col " IN (SELECT item_id FROM assignments) OR NOT EXISTS " \
	"(SELECT 1 FROM rounds))"

/* Does the study have any round (of either kind)?  1, 0, or -1. */
int access_has_rounds(struct store *st, struct err *e);

#endif
