/* SPDX-License-Identifier: MIT */
/*
 * evolve_int: what the codebook's evolution (evolve.c) and the decisions
 * on proposals (proposal.c) share; not API (that is evolve.h and
 * proposal.h).
 */
#ifndef BUGCODER_EVOLVE_INT_H
#define BUGCODER_EVOLVE_INT_H

#include "core/base/err.h"
#include "core/store/store.h"

/* Move every label of dim=from (only those carrying proposal `pid` when
 * pid > 0) to dim=to; a member who already has `to` keeps one.  *moved
 * (when not NULL) gets the number of labels moved.  0, or -1 with `e`
 * filled; the caller holds the transaction. */
int evolve_move_labels(struct store *st, const char *dim, const char *from,
		       const char *to, long long pid, int *moved,
		       struct err *e);

#endif
