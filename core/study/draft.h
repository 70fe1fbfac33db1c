/* SPDX-License-Identifier: MIT */
/*
 * draft: what a member was typing in a dialog when the screen was stopped
 * (Ctrl-C, a hang-up, SIGTERM) - an adjudicator's rationale, an
 * annotator's proposed code - kept in the study and offered again the
 * next time the same dialog opens for the same item and dimension.
 *
 * A draft is the member's own: nobody else reads it (it is not a label,
 * a memo or a resolution, and no export carries it), and it is not
 * audited.  It goes when what it drafted is saved.  A dialog's fields
 * are stored one row each, named by the dialog ("rationale", "cause";
 * "key", "name", "definition").
 */
#ifndef BUGCODER_DRAFT_H
#define BUGCODER_DRAFT_H

#include <stddef.h>

#include "core/base/err.h"
#include "core/study/member.h"
#include "core/store/store.h"

enum draft_kind {
	DRAFT_RATIONALE,
	DRAFT_PROPOSAL,
};

struct draft_field {
	const char *name;	/* "rationale", "key", ... */
	const char *text;	/* as typed; NULL or "" stores nothing */
};

/* Keep the actor's draft of `kind` for item/dimension: fields[0..n)
 * replace any draft there was.  All fields empty removes it.  One
 * transaction. */
int draft_save(struct store *st, const struct actor *a, long long item_id,
	       enum draft_kind kind, const char *dim,
	       const struct draft_field *fields, size_t n, struct err *e);

/* The text of field `field` of the actor's draft, or NULL when there is
 * none (*found stays 0, e untouched).  Owned: free() it. */
char *draft_get(struct store *st, const struct actor *a, long long item_id,
		enum draft_kind kind, const char *dim, const char *field,
		int *found, struct err *e);

/* Remove the actor's draft (after what it drafted is saved). */
int draft_remove(struct store *st, const struct actor *a, long long item_id,
		 enum draft_kind kind, const char *dim, struct err *e);

#endif
