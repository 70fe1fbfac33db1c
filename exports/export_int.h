/* SPDX-License-Identifier: MIT */
/*
 * export_int: what the writers of export.h's tables (export.c,
 * export_records.c) share among themselves; not API, included by them
 * only.  The prefix ex_ is for "export".
 */
#ifndef BUGCODER_EXPORT_INT_H
#define BUGCODER_EXPORT_INT_H

#include <stdio.h>

#include "core/base/buf.h"
#include "core/base/err.h"
#include "core/study/member.h"
#include "core/store/store.h"
#include "exports/export.h"

/* A table being written: its rows counted, Ctrl-C and the injected
 * faults (BUGCODER_FAIL_EXPORT_AFTER, BUGCODER_STALL_EXPORT_AFTER)
 * checked after each. */
struct progress {
	struct export_opts *o;
	FILE *out;
	long long fail_after;	/* BUGCODER_FAIL_EXPORT_AFTER, or -1 */
	long long stall_after;	/* BUGCODER_STALL_EXPORT_AFTER, or -1 */
};

/* Start writing a table of `o` into `out` (o->rows set to 0). */
void ex_progress_init(struct progress *p, struct export_opts *o, FILE *out);
/* Called once a data row is out.  Returns 0 to go on, -1 to stop. */
int ex_progress_row(struct progress *p, int write_failed, struct err *e);
/* The table is written: flushed, and not interrupted.  Returns 0, or -1
 * with `e` filled. */
int ex_finish(struct progress *p, struct err *e);
/* Write the line in `b` to `out` and empty `b`.  Returns 0, or -1 when
 * the write failed. */
int ex_write_line(FILE *out, struct buf *b);
/* The csv_out flags the options ask for (the formula guard or not). */
unsigned ex_csv_flags(const struct export_opts *o);
/* "repo#number" into `b` (emptied first). */
void ex_item_name(struct buf *b, const char *repo, long long number);
/* May the actor export anything?  Everyone but non-members.  Returns 0,
 * or -1 with `e` filled (ERR_PERM). */
int ex_require_member(const struct actor *a, struct err *e);

/*
 * How the actor may know the member whose work a row shows, by
 * core/study/access's rule: 0 when the row is hidden from them; 1 with *out the
 * member's name, or "Coder N" (the adjudicator's screen numbering) for a
 * blind adjudicator of an undecided item; -1 with `e` on an error.
 * *out is borrowed from `name` or from the namer until the next call.
 */
struct row_namer {
	int blind;		/* the study's adjudication is blind */
	char *salt;		/* the coder order's salt, read when needed */
	struct buf coder;	/* "Coder N" */
	long long item, member;	/* whom `coder` names */
};

int ex_name_row(struct store *st, const struct actor *a,
		struct row_namer *nm, long long item_id, long long member_id,
		const char *name, int in_round, int closed, int decided,
		const char **out, struct err *e);
/* Free what the namer holds (not nm itself). */
void ex_row_namer_release(struct row_namer *nm);

#endif
