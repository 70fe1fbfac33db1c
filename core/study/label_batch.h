/* SPDX-License-Identifier: MIT */
/*
 * label_batch: many labels at once, in one short transaction - one
 * `label` of several dimensions (with its citations), `label --from` of
 * many lines, `labels import` of a sheet.
 *
 * The operations are those of core/study/label (label_set(), label_submit())
 * and core/study/evidence (evidence_add()), with the same checks, messages,
 * rows and audit rows, in the same order, as if each were made one by
 * one inside one transaction; but the work is done once, not once an
 * operation:
 *
 *  1. Read and checked first, in one read transaction, before the write
 *     lock is taken: each operation in order - its item found by name,
 *     its dimension and codes checked against the codebook, the access
 *     of its item and member (label_check_access(), once a pair), that
 *     member's labels and submission on the item (read once a pair), and
 *     what each operation then changes, worked out in memory.  A bad
 *     operation is named (its `where`) and nothing is written; a slow
 *     producer of the input never holds anyone up.
 *  2. Written in one transaction (BEGIN IMMEDIATE ... COMMIT), with
 *     statements prepared once: when no other process wrote meanwhile
 *     (PRAGMA data_version) only the writes are made; otherwise step 1
 *     runs again inside the write lock.  When a new codebook version
 *     came in meanwhile, the operations are checked against it (as calls
 *     made one by one inside the transaction would have read it).
 *
 * Limitations: a citation (LABEL_OP_CITE) is made by evidence_add() in
 * step 2, with its own access check and the item's text read to quote
 * it.  Inside a caller's transaction both steps run in it.
 */
#ifndef BUGCODER_LABEL_BATCH_H
#define BUGCODER_LABEL_BATCH_H

#include <stddef.h>

#include "core/study/codebook.h"
#include "core/base/err.h"
#include "core/study/evidence.h"
#include "core/study/member.h"
#include "core/store/store.h"

enum label_op_kind {
	LABEL_OP_SET,		/* label_set(): a dimension's codes */
	LABEL_OP_SUBMIT,	/* label_submit() */
	LABEL_OP_CITE,		/* evidence_add() */
};

/* One operation.  Everything is borrowed for the call. */
struct label_op {
	enum label_op_kind kind;
	const char *where;	/* put before this operation's errors
				   ("FILE:LINE"), or NULL */
	const char *item;	/* the item's name (item_find()), or NULL */
	long long item_id;	/* when `item` is NULL */
	const struct actor *as;	/* whose work: NULL for the batch's actor
				   (labels import: the owner for others) */
	const char *dim;	/* SET, CITE */
	const char *const *codes;	/* SET: n == 0 clears */
	size_t nr_codes;
	const struct evidence_cite *cite;	/* CITE */
};

/* Make ops[0..nr) as actor `a`, against codebook `cb` (the study's
 * current one).  All or nothing: 0, or -1 with `e` filled (the failing
 * operation's `where` before the message) and nothing written. */
int label_batch(struct store *st, const struct actor *a,
		const struct codebook *cb, const struct label_op *ops,
		size_t nr, struct err *e);

#endif
