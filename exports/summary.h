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
 * Codebook strings are made terminal-safe (core/base/text) in the text and
 * Markdown forms; keys and repository names are restricted to safe
 * characters already.
 */
#ifndef BUGCODER_SUMMARY_H
#define BUGCODER_SUMMARY_H

#include "core/base/buf.h"
#include "core/study/codebook.h"
#include "core/base/err.h"
#include "core/study/member.h"
#include "core/store/store.h"

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
	int no_agreement;	/* leave the agreement table out (a caller
				   that has it from another build) */
};

#define SUMMARY_OPTS_INIT { SUMMARY_TEXT, 0, NULL, { NULL, NULL }, NULL, \
			    NULL, 0, 10, 30, 10, 0 }

/* Append the summary of the data `a` may see (agreed.h's rule) to
 * `out`.  Returns 0, or -1 with `e` filled: ERR_INPUT for an unknown
 * dimension in --cross, --by or --effort-by, ERR_NOTFOUND for an unknown
 * round, ERR_PERM, ERR_DB.  On failure `out` may hold part of it. */
int summary_write(struct store *st, const struct actor *a,
		 const struct codebook *cb, const struct summary_opts *o,
		 struct buf *out, struct err *e);

/*
 * The report as data, for writers that draw it (exports/figures.h): the
 * very tables summary_write() renders, built by the same pass, so a
 * figure shows the numbers of `report --format json` and no others.
 */
struct summary;

/* Build the report of the data `a` may see with options `o` (copied; its
 * strings must outlive the summary).  Returns 0 with *out set (free with
 * summary_free()), or -1 with `e` filled as summary_write() says. */
int summary_build(struct store *st, const struct actor *a,
		  const struct codebook *cb, const struct summary_opts *o,
		  struct summary **out, struct err *e);
/* Free a summary; accepts NULL. */
void summary_free(struct summary *s);

/* Items counted, items not agreed yet (counted only with
 * include_pending), repositories. */
size_t summary_items(const struct summary *s);
size_t summary_pending(const struct summary *s);
size_t summary_repositories(const struct summary *s);
/* The sentence saying which items count (the "statement" of the JSON
 * form); borrowed from `s`. */
const char *summary_statement(const struct summary *s);

/* The table with id `id` ("shares.symptom", "cross.training.counts",
 * "effort.size", "agreement", ...), as an index, or -1 when the report
 * has none. */
int summary_table(const struct summary *s, const char *id);
size_t summary_nr_tables(const struct summary *s);
/* Of table `t`: its id and title, its columns as the JSON form has them
 * (bars left out) and its data rows (the header row not counted).
 * Strings are borrowed from `s`. */
const char *summary_table_id(const struct summary *s, size_t t);
const char *summary_table_title(const struct summary *s, size_t t);
size_t summary_table_cols(const struct summary *s, size_t t);
size_t summary_table_rows(const struct summary *s, size_t t);
const char *summary_column(const struct summary *s, size_t t, size_t c);
/* The index of the column headed `name`, or -1. */
int summary_column_index(const struct summary *s, size_t t,
			 const char *name);
/* Cell (r, c) of the data rows: its text as the text form shows it
 * (borrowed), and through summary_value() its number: 1 with *v set for
 * a count, percentage or number, 0 for text or an undefined figure (JSON
 * null). */
const char *summary_text(const struct summary *s, size_t t, size_t r,
			 size_t c);
int summary_value(const struct summary *s, size_t t, size_t r, size_t c,
		  double *v);

/* The per-item values behind effort.quartiles, sorted ascending: group
 * 0 is every item counted, groups 1.. the repositories in name order
 * (summary_group_name()).  Days open are as the export writes them (two
 * decimals); an item whose figure is unknown has no value.  Borrowed
 * from `s`. */
enum summary_measure {
	SUMMARY_DAYS_OPEN,
	SUMMARY_COMMENTS,
	SUMMARY_LINES_CHANGED,
};
size_t summary_nr_groups(const struct summary *s);
const char *summary_group_name(const struct summary *s, size_t g);
const double *summary_values(const struct summary *s, size_t g,
			     enum summary_measure m, size_t *n);

#endif
