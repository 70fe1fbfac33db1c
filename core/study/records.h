/* SPDX-License-Identifier: MIT */
/*
 * records: the adjudicator's decisions, the members' memos and flags, and
 * the codebook's versions, read as rows for the exports - one ordered pass
 * each, a callback per row.
 *
 * It decides nothing: each row carries what core/study/access needs to decide
 * whether and how the actor may see it (in_round, closed, decided), and
 * the caller asks.  Strings are borrowed for the callback's duration.
 */
#ifndef BUGCODER_RECORDS_H
#define BUGCODER_RECORDS_H

#include <stddef.h>

#include "core/base/err.h"
#include "core/store/store.h"

/* A resolution of one dimension, or a settlement of an item
 * (kind "settled": dimension, coders and codes empty, rationale the
 * settle note).  Code lists are ';'-joined. */
struct resolution_row {
	long long item_id;
	const char *repo;
	long long number;
	const char *dimension;
	const char *coder1, *coder1_codes, *coder2, *coder2_codes;
	const char *final, *rationale, *cause, *adjudicator, *resolved_at;
	const char *kind;	/* "resolution" or "settled" */
	int in_round, closed;
};

/* One item and member with a memo or a flag. */
struct memo_row {
	long long item_id, member_id;
	const char *repo;
	long long number;
	const char *member;
	const char *memo;	/* NULL when only flags */
	int discuss, uncertain;
	const char *updated_at;	/* the latest change of memo or flag */
	int in_round, closed, decided;
};

/* One stored version of the codebook, in the order they were stored. */
struct codebook_row {
	const char *version;
	const char *json;
	size_t len;
	int current;
};

/* Call fn for every row (of round `round`, or all when NULL), in
 * (item, kind, dimension) order.  fn returns 0 to go on, -1 to stop with
 * `e` filled.  0 at the end, or -1. */
int records_resolutions(struct store *st, const char *round,
			int (*fn)(const struct resolution_row *r, void *data,
				  struct err *e),
			void *data, struct err *e);
/* ... in (item, member) order. */
int records_memos(struct store *st, const char *round,
		  int (*fn)(const struct memo_row *r, void *data,
			    struct err *e),
		  void *data, struct err *e);
/* ... in the order stored. */
int records_codebooks(struct store *st,
		      int (*fn)(const struct codebook_row *r, void *data,
				struct err *e),
		      void *data, struct err *e);

#endif
