/* SPDX-License-Identifier: MIT */
/*
 * evidence: the lines of the fix's diff or of the issue an annotator
 * cites for a label.  Evidence is part of the annotator's work: saved at
 * once like a pick, audited, and blinded like the label (core/study/access).
 *
 * A citation, as scripts give it (`label ... --evidence SPEC`) and as the
 * exports write it in compact form:
 *   diff:PATH:L1-L2        lines L1..L2 of PATH after the fix (its new side)
 *   diff:PATH:old:L1-L2    ... before the fix (the old side)
 *   issue:body:L1-L2       lines of the issue's text
 *   issue:comment:N:L1-L2  lines of its N-th comment (from 1)
 *   pr:N:body:L1-L2        lines of pull request #N's description
 *   pr:N:comment:K:L1-L2   lines of its K-th comment (from 1)
 * "L1" alone is the one line.  A PATH that itself ends in ":old" or
 * ":new" is written with ":new:" for the new side, so the form reads
 * back as it was written.  The quoted text is taken from the item as
 * stored: for the diff, the hunk lines of that side in that range, with
 * their +/-/space sigils.  Every line cited must be there: in the text,
 * or shown by one fix's diff on that side (lines past the end of a
 * file's hunks, or between them, are not in the fix).
 */
#ifndef BUGCODER_EVIDENCE_H
#define BUGCODER_EVIDENCE_H

#include <stddef.h>

#include "core/base/buf.h"
#include "core/study/codebook.h"
#include "core/base/err.h"
#include "core/study/member.h"
#include "core/store/store.h"

enum evidence_pane { EVIDENCE_DIFF, EVIDENCE_ISSUE, EVIDENCE_PR };

struct evidence_cite {
	enum evidence_pane pane;
	char *path;		/* diff: the file; else NULL */
	int old_side;		/* diff: the lines before the fix */
	int comment;		/* issue, pr: 0 the body (description), else
				   the N-th comment */
	long from, to;		/* lines, from 1, from <= to */
	long long pr;		/* pr: the pull request's number */
};

/* Parse SPEC (above) into *c (release with evidence_cite_release()).
 * 0, or -1 with ERR_INPUT naming the part at fault. */
int evidence_parse(const char *spec, struct evidence_cite *c,
		   struct err *e);
void evidence_cite_release(struct evidence_cite *c);
/* The compact form of `c`, appended to `out`. */
void evidence_format(const struct evidence_cite *c, struct buf *out);

/* Cite `c` for the actor's label of dimension `dim` on `item_id`: the
 * same access as labelling (core/study/label's label_check_access()), the
 * dimension must be in `cb` and coded by the actor on the item (a
 * citation supports a label), and the lines must be in the item (else
 * ERR_INPUT saying what the item has).  One transaction, audited.
 * *id (may be NULL) gets the evidence's id. */
int evidence_add(struct store *st, const struct actor *a,
		 const struct codebook *cb, long long item_id,
		 const char *dim, const struct evidence_cite *c,
		 long long *id, struct err *e);
/* Remove the actor's evidence `id` (on `item_id`, when not 0): the same
 * access as labelling (a closed round or an adjudicated item keeps it).
 * One transaction, audited with what it cited (the old value).  0, or -1
 * with ERR_NOTFOUND when the actor has no such evidence there. */
int evidence_remove(struct store *st, const struct actor *a,
		    long long item_id, long long id, struct err *e);
/* Remove every citation of the actor's for `dim` on `item_id` (when a
 * label is cleared and its citations go with it), *removed (may be NULL)
 * how many.  One transaction, each audited. */
int evidence_remove_dim(struct store *st, const struct actor *a,
			long long item_id, const char *dim, size_t *removed,
			struct err *e);

struct evidence_row {
	long long id;
	long long member_id;
	long long item_id;
	const char *dimension;
	struct evidence_cite cite;
	const char *quote;
	const char *created_at;
	const char *repo;	/* evidence_list() only, else NULL */
	long long number;	/* ... and the item's number */
};

/* Call fn(row, data) for the evidence of member `member_id` (0: every
 * member) on `item_id` that the actor may see (core/study/access), by member,
 * dimension and id.  Stops at fn's first non-zero return and returns
 * it; 0 at the end; -1 with `e` filled. */
int evidence_each(struct store *st, const struct actor *a,
		  long long item_id, long long member_id,
		  int (*fn)(const struct evidence_row *row, void *data),
		  void *data, struct err *e);

/* Call fn(row, data) for every citation of the actor's own (member
 * actor->member_id) on `item_id`, or on every item when it is 0, by item
 * name, dimension and id; row->repo and row->number name the item.
 * Stops at fn's first non-zero return and returns it; 0 at the end; -1
 * with `e` filled. */
int evidence_list(struct store *st, const struct actor *a, long long item_id,
		  int (*fn)(const struct evidence_row *row, void *data),
		  void *data, struct err *e);

/*
 * Every citation in one ordered pass, for a reader that walks labels in
 * (item, member, dimension) order and asks, key by key, for theirs: one
 * query for the whole pass rather than one a label.  The caller shows
 * them only beside a label the actor may see (that label's member and
 * item, so the same access).
 */
struct evidence_cursor {
	struct store *st;	/* borrowed */
	sqlite3_stmt *s;
	int has;		/* the statement is on a row */
};

/* Start a pass.  0, or -1 with `e` filled; evidence_cursor_close() in
 * either case. */
int evidence_cursor_open(struct evidence_cursor *c, struct store *st,
			 struct err *e);
/* Call fn(row, data) for each citation of (item_id, member_id, dim);
 * keys must be asked in ascending order (item, member, dimension).
 * 0, or -1 with `e` filled. */
int evidence_cursor_at(struct evidence_cursor *c, long long item_id,
		       long long member_id, const char *dim,
		       int (*fn)(const struct evidence_row *row, void *data),
		       void *data, struct err *e);
void evidence_cursor_close(struct evidence_cursor *c);

#endif
