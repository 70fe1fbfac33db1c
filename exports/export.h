/* SPDX-License-Identifier: MIT */
/*
 * export: the study's data as CSV or JSON Lines, for R, pandas and the
 * replication package.
 *
 * Four tables, each a writer into a caller's FILE:
 *  - agreed labels, one row per item: the item and its effort figures,
 *    then per codebook dimension the agreed code(s) and their status
 *    ("agreed", "adjudicated", or "pending" with EXPORT_PENDING);
 *  - raw labels, one row per chosen code, in the long format of
 *    DESIGN.md that `labels import` reads back:
 *    item,annotator,dimension,code,codebook_version,labeled_at;
 *  - resolutions, one row per resolved dimension of an item;
 *  - rounds, one row per round, with its spec and seed.
 * Column names and their meaning are in export.c next to the writers.
 *
 * The CSV dialect is csv_out.h's (CRLF, quoted as needed, the formula
 * guard on text cells unless EXPORT_NO_GUARD); JSON Lines is
 * json_out.h's: one object per line with the CSV's column names as keys,
 * numbers as numbers, null where the CSV cell is empty, booleans as
 * true/false, and lists of codes (select-many dimensions, the codes of a
 * resolution) and of pull request numbers as arrays.
 *
 * Values: dates are ISO 8601 as stored; days_open has two decimals;
 * small_fix is true or false (R's read.csv and pandas both read these as
 * logical); an unknown figure is an empty cell; fix_numbers and
 * select-many codes are joined by ';' in CSV.
 *
 * Who sees what (DESIGN.md's blinding, by label_may_see()'s rule):
 *  - raw labels: an annotator gets their own labels, and the others'
 *    only on items whose round is closed; owner and adjudicators all;
 *  - agreed labels and resolutions reveal every coder's choice, so an
 *    annotator gets only the items of closed rounds (see agreed.h);
 *  - rounds: every member.
 *
 * Writers never print or exit; they stop at the first write error
 * (ERR_IO), when *opts->stop becomes non-zero (ERR_INTERRUPTED, for
 * signal handlers), or at an injected fault (below), and leave the
 * clean-up of a partial file to the caller (atomic.h does it).
 *
 * Fault injection for tests: BUGCODER_FAIL_EXPORT_AFTER=N makes a writer
 * fail (ERR_IO) once N data rows are out; BUGCODER_STALL_EXPORT_AFTER=N
 * makes it flush and wait (sleeping, until killed or *stop is set)
 * after N rows, so a test can kill it mid-way deterministically.
 */
#ifndef BUGCODER_EXPORT_H
#define BUGCODER_EXPORT_H

#include <signal.h>
#include <stddef.h>
#include <stdio.h>

#include "core/study/codebook.h"
#include "core/base/err.h"
#include "core/study/member.h"
#include "core/store/store.h"

enum export_format {
	EXPORT_CSV,
	EXPORT_JSONL,
};

enum export_flags {
	EXPORT_PENDING = 1 << 0,	/* agreed: keep items not agreed yet */
	EXPORT_NO_GUARD = 1 << 1,	/* CSV: no formula guard */
};

struct export_opts {
	enum export_format format;
	unsigned flags;			/* enum export_flags */
	const char *round;		/* only this round's items, or NULL */
	volatile sig_atomic_t *stop;	/* may be NULL */
	size_t rows;			/* out: data rows written */
};

#define EXPORT_OPTS_INIT { EXPORT_CSV, 0, NULL, NULL, 0 }

/* Write the agreed labels of the items `a` may see to `out` (header
 * included).  `cb` is the current codebook: one column pair per
 * dimension.  Returns 0, or -1 with `e` filled. */
int export_agreed(struct store *st, const struct actor *a,
		  const struct codebook *cb, struct export_opts *o, FILE *out,
		  struct err *e);

/* Write every label `a` may see, one row per code, ordered by item,
 * annotator, dimension and code. */
int export_raw(struct store *st, const struct actor *a,
	       struct export_opts *o, FILE *out, struct err *e);

/* Write every resolution `a` may see, ordered by item and dimension. */
int export_resolutions(struct store *st, const struct actor *a,
		       struct export_opts *o, FILE *out, struct err *e);

/* Write the rounds (name, spec, seed, stratify, annotators, items,
 * created_at, created_by, closed_at, closed_by). */
int export_rounds(struct store *st, const struct actor *a,
		  struct export_opts *o, FILE *out, struct err *e);

/* Memos and flags the actor may see (access.h), one row per item and
 * member: item, annotator, memo, flags, updated_at. */
int export_memos(struct store *st, const struct actor *a,
		 struct export_opts *o, FILE *out, struct err *e);

/* The audit log (audit_out.h's columns): every row for the owner, their
 * own actions for anyone else, as `bugcoder audit`. */
int export_audit_log(struct store *st, const struct actor *a,
		     struct export_opts *o, FILE *out, struct err *e);

/* days open as exported: two decimals, halves rounded up (export.c). */
double export_days2(double days);

#endif
