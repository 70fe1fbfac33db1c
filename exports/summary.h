/* SPDX-License-Identifier: MIT */
/*
 * summary: the agreed data summarised the way bug studies present it
 * (`bugcoder report`; the agreement figures come from agree_report.h).
 *
 * Which items count: by default the items whose every dimension is
 * agreed or adjudicated (the rows of the default export; the others are
 * counted and left out); with `include_pending` every item the actor may
 * see, a dimension not decided yet counting under "(pending)".  Every
 * form states which at its top.
 *
 * The report is a list of tables, built once and rendered as aligned
 * text (with bar charts), Markdown, LaTeX (a fragment for \input) or JSON
 * ({"counting": ..., "tables": [{"id", "title", "columns", "rows"}]},
 * numbers as numbers, an undefined figure as null): the same cells in
 * every form.  The tables:
 *  - shares.DIM: items (and share of items) per code of every dimension;
 *    a select-many item counts once under each of its codes, so shares
 *    may add up to more than 100%; "(none)" counts items agreed to have
 *    no code.  Stage and phase shares are these tables for those
 *    dimensions;
 *  - repo.DIM: the same per repository (with more than one repository);
 *  - distributed: per dimension with codes marked "distributed": true,
 *    the items having such a code; distributed.stage: the same per code
 *    of the dimension "stage" (when the codebook has one);
 *  - cross[.BYCODE].counts / .row_share / .col_share: items per pair of
 *    codes of two dimensions (an item with several codes counts in every
 *    pair), with shares of the row's and of the column's pairs; with
 *    `by`, one set per code of a third dimension;
 *  - effort.size: fixes of at most `small` changed lines (of the fixes of
 *    known size) and "hard" bugs: open more than `hard_days` days with at
 *    least `hard_comments` comments (of the items whose days open is
 *    known); effort.quartiles: first quartile, median and third quartile
 *    of days open, comments and lines changed (R's default quantile,
 *    type 7); both overall, per repository and per code of `effort_by`;
 *  - agreement: per dimension and round, the agreement module's kappa
 *    with its interval and band, and the codebook versions the round was
 *    coded under (a round the actor may not see yet has no figures).
 *
 * Codebook strings are made terminal-safe (core/text) in the text and
 * Markdown forms; keys and repository names are restricted to safe
 * characters already.
 */
#ifndef BUGCODER_SUMMARY_H
#define BUGCODER_SUMMARY_H

#include "core/buf.h"
#include "core/codebook.h"
#include "core/err.h"
#include "core/member.h"
#include "core/store.h"

enum summary_format {
	SUMMARY_TEXT,
	SUMMARY_MARKDOWN,
	SUMMARY_LATEX,
	SUMMARY_JSON,
};

struct summary_opts {
	enum summary_format format;
	int unicode;		/* text: bars of Unicode blocks */
	const char *round;	/* only this round's items, or NULL */
	const char *cross[2];	/* dimension keys, or NULL for the first two */
	const char *by;		/* one cross table per code of this, or NULL */
	const char *effort_by;	/* effort per code of this dimension, or NULL */
	int include_pending;	/* count undecided items too */
	long small;		/* fixes of at most this many lines */
	double hard_days;	/* hard: open more than this many days */
	long hard_comments;	/* and at least this many comments */
};

#define SUMMARY_OPTS_INIT { SUMMARY_TEXT, 0, NULL, { NULL, NULL }, NULL, \
			    NULL, 0, 10, 30, 10 }

/* Append the summary of the data `a` may see (agreed.h's rule) to
 * `out`.  Returns 0, or -1 with `e` filled: ERR_INPUT for an unknown
 * dimension in --cross, --by or --effort-by, ERR_NOTFOUND for an unknown
 * round, ERR_PERM, ERR_DB.  On failure `out` may hold part of it. */
int summary_write(struct store *st, const struct actor *a,
		 const struct codebook *cb, const struct summary_opts *o,
		 struct buf *out, struct err *e);

#endif
