/* SPDX-License-Identifier: MIT */
/*
 * recode: the labels a split code left to recode.
 *
 * `codebook update FILE --split DIM:OLD=NEW1,NEW2` loads a version where
 * OLD is gone and NEW1, NEW2 are new: every label on OLD is taken off
 * (its coder's submission stays: the item's other dimensions are still
 * what they were) and put back in its coder's queue as a recode - the
 * coder chooses between the new codes, seeing the old one - and a
 * resolution that chose OLD is taken back, so the item is decided again
 * once its coders have recoded.  Each label taken off, each resolution
 * taken back and each recode done is audited with its new value
 * (recode.queue, recode.resolution, recode.done).
 *
 * Until its coders have recoded it, an item's dimension is pending in
 * the agreed labels, drops out of agreement, and is named by
 * recode_describe().  A closed round keeps its record (round_labels):
 * its agreement is what it was when it closed.
 *
 * Who may recode is core/study/access's (LABEL_RECODE: the coder, wherever the
 * item is, between the new codes only); a coder free to label the item
 * anyway recodes it by setting the dimension.
 */
#ifndef BUGCODER_RECODE_H
#define BUGCODER_RECODE_H

#include <stddef.h>

#include "core/base/buf.h"
#include "core/study/codebook.h"
#include "core/base/err.h"
#include "core/study/member.h"
#include "core/store/store.h"

/* One split, parsed from DIM:OLD=NEW1,NEW2. */
struct code_split {
	const char *dim;
	const char *from;
	const char **to;	/* the new codes */
	size_t nr_to;
};

/* Parse "DIM:OLD=NEW1,NEW2[,...]" (DIM may be left out when OLD is a
 * code of one dimension of `old` only).  Pointers in `sp` point into
 * *copy; free *copy and sp->to.  0, or -1 (ERR_USAGE / ERR_INPUT). */
int code_split_parse(const char *arg, const struct codebook *old,
		     struct code_split *sp, char **copy, struct err *e);

/* Apply split `sp` in the caller's transaction, the new version `nc`
 * about to be stored: checks that `nc` has the new codes and not the
 * old, then takes every label on it off into the recode queue and takes
 * back the resolutions that chose it.  *labels and *resolutions count
 * them.  Audited. */
int recode_split(struct store *st, const struct actor *a,
		 const struct codebook *nc, const struct code_split *sp,
		 int *labels, int *resolutions, struct err *e);

/* Member `member_id`'s pending recode of `dim` on an item: 1 with *old
 * (the split code) and *choices (the new codes, ';'-joined) owned, 0
 * when none (both NULL), -1 with `e` filled.  old/choices may be NULL. */
int recode_pending(struct store *st, long long item_id, long long member_id,
		   const char *dim, char **old, char **choices,
		   struct err *e);

/* The member set `dim` of the item to `codes` (';'-joined, NULL when
 * cleared): a pending recode of it is done when the new codes include
 * one it was to choose between.  In the caller's transaction; audited
 * (recode.done).  0, or -1. */
int recode_settle(struct store *st, const struct actor *a, long long item_id,
		  const char *dim, const char *codes, struct err *e);

/* Check the codes a member gives `dim` of an item they may only recode:
 * codes[0..n) must keep nothing but their other codes there and add new
 * codes of the split, at least one.  0, or -1 (ERR_PERM) naming the
 * choice. */
int recode_check(struct store *st, const struct actor *a, long long item_id,
		 const char *item, const char *dim, const char *const *codes,
		 size_t n, struct err *e);

/* Items awaiting recoding: one line per dimension ("root_cause: 2 items
 * await recoding after misconfig was split into config_file,
 * config_flag: microsoft/DeepSpeed#4187, ..."), '\n'-terminated,
 * appended to `out`, for the items of round `round` (NULL: those that
 * count in the whole study; see ACCESS_COUNTED_SQL).  *items (may be
 * NULL) gets how many items.  Names items: for readers who may see
 * everyone's work.  0, or -1. */
int recode_describe(struct store *st, const char *round, struct buf *out,
		    size_t *items, struct err *e);

#endif
