/* SPDX-License-Identifier: MIT */
/*
 * proposal: codes an annotator proposes while coding, attached to their
 * `other` label, and their decisions.  The owner or an adjudicator
 * decides: accepted, the code joins the codebook in a new version and
 * the labels that carried the proposal take it; mapped, those labels
 * take an existing code.  Each decision is one transaction, audited.
 * (codebook_revert(), core/study/evolve, opens an accepted proposal
 * again when the version it goes back to lacks its code.)
 */
#ifndef BUGCODER_PROPOSAL_H
#define BUGCODER_PROPOSAL_H

#include <stddef.h>

#include "core/base/err.h"
#include "core/store/store.h"
#include "core/study/member.h"

struct proposal {
	long long id;
	char *dimension, *key, *name, *definition;
	char *item;		/* "owner/repo#N" or NULL */
	char *member;
	char *created_at;
	char *status;		/* open, accepted, mapped */
	char *decided_code;	/* when decided */
	int nr_labels;		/* labels carrying it */
};

/* Proposals, open ones only unless `all`.  Owner and adjudicators. */
int proposal_list(struct store *st, const struct actor *a, int all,
		  struct proposal **v, size_t *nr, struct err *e);
void proposal_list_free(struct proposal *v, size_t nr);

/* The version after `version`, as proposal_accept() numbers it: the
 * last number bumped ("1.0" -> "1.1", "2" -> "3"), or ".1" added when it
 * ends without one ("1.0-beta" -> "1.0-beta.1").  Owned; free() it. */
char *codebook_version_next(const char *version);

/* Accept proposal `id`: a new codebook version (`version`, or the
 * current one with its last number bumped) gains the code, before the
 * dimension's `other` code; labels that carried it take it. */
int proposal_accept(struct store *st, const struct actor *a, long long id,
		    const char *version, struct err *e);

/* Map proposal `id` onto the existing code `code` of its dimension. */
int proposal_map(struct store *st, const struct actor *a, long long id,
		 const char *code, struct err *e);

#endif
