/* SPDX-License-Identifier: MIT */
/*
 * summary_int: what the parts of the report (summary.c, summary_tally.c,
 * summary_table.c, summary_tables.c) share among themselves; not API,
 * included by them only.  The prefix sum_ is for "summary".
 *
 * One agreed pass fills the tallies (summary_tally.c); the tables are
 * built from them (summary_tables.c) as lists of typed cells, and each
 * form lays a table out (summary_table.c).
 */
#ifndef BUGCODER_SUMMARY_INT_H
#define BUGCODER_SUMMARY_INT_H

#include <stddef.h>

#include "core/base/buf.h"
#include "core/base/err.h"
#include "core/study/codebook.h"
#include "core/study/member.h"
#include "core/store/store.h"
#include "exports/summary.h"

/* ---- tallies (summary_tally.c) ------------------------------------- */


/* Slots of a dimension: its codes, then "(none)", "(not in codebook)",
 * "(pending)". */
#define EXTRA_SLOTS 3

struct nums {
	double *v;
	size_t nr, alloc;
};

struct tally {
	char *name;		/* "all", a repository, or DIM=CODE */
	size_t items;
	long **counts;		/* per dimension: nr_codes + EXTRA_SLOTS */
	struct nums days, comments, lines;
	size_t small, sized;	/* fixes <= N lines; fixes of known size */
	size_t hard, dated;	/* hard bugs; items of known days open */
};

struct tallies {
	const struct codebook *cb;
	const struct summary_opts *o;
	struct tally *v;	/* v[0] is every repository */
	size_t nr, alloc;
	struct tally *by_code;	/* per slot of effort_by, or NULL */
	int eb;			/* effort_by's dimension, -1 if none */
	size_t pending;		/* items seen but not counted */
	int cx, cy, cb3;	/* cross dimensions and --by, -1 if none */
	long *cross;		/* (slots of --by or 1) x kx x ky counts */
	long *dist;		/* per dimension: items with a distributed
				   code */
	int stage;		/* the dimension "stage", -1 if none */
	long *stage_items;	/* per stage slot: items */
	long *stage_dist;	/* per stage slot x dimension */
	size_t last;		/* the tally found last */
};

static inline size_t nslots(const struct dimension *dim)
{
	return dim->nr_codes + EXTRA_SLOTS;
}

/* Fill `ts` (its cb and o set by the caller) from one pass over the
 * items the actor may see: checks the options' dimensions first.
 * Returns 0, or -1 with `e` filled; sum_tallies_release() either way. */
int sum_collect(struct tallies *ts, struct store *st, const struct actor *a,
		struct err *e);
/* Free what `ts` holds (not ts itself). */
void sum_tallies_release(struct tallies *ts);
/* Quantile p of v[0..n) as R's default (type 7): sorts v; NAN when
 * n == 0. */
double sum_quantile(double *v, size_t n, double p);
/* qsort() order of doubles, ascending. */
int sum_cmp_double(const void *a, const void *b);

/* ---- a table of typed cells (summary_table.c) ----------------------- */

enum cell_kind {
	CELL_TEXT,
	CELL_INT,
	CELL_PCT,		/* v is a percentage */
	CELL_NUM,
	CELL_NONE,		/* undefined: "-", null */
	CELL_BAR,		/* text only */
};

struct cell {
	enum cell_kind kind;
	char *s;		/* owned: the text shown */
	double v;
};

struct table {
	char *id, *title;	/* owned */
	size_t cols;
	struct cell *cell;	/* row-major; row 0 is the header */
	size_t nr, alloc;
	int bar;		/* the last column holds bars (text only) */
};

struct report {
	struct table *t;
	size_t nr, alloc;
};

/* A new table at the end of `r`, with copies of id and title; the table
 * belongs to `r` (and moves when r grows: use it before the next). */
struct table *sum_table_new(struct report *r, size_t cols, int bar,
			    const char *id, const char *title);
/* Free the tables of `r` and what they hold (not r itself). */
void sum_report_release(struct report *r);
/* A new cell at the end of `t`, its text NULL for the caller to set
 * (an owned string). */
struct cell *sum_cell_new(struct table *t, enum cell_kind k, double v);
/* Cells: a text, a count, n of `of` as a percentage (undefined when
 * of == 0), a number (two decimals at most; undefined when NAN), a bar
 * of share/max (text only). */
void sum_add_text(struct table *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void sum_add_int(struct table *t, long long n);
void sum_add_pct(struct table *t, double n, double of);
void sum_add_num(struct table *t, double v);
void sum_add_bar(struct table *t, double share, double max, int unicode);

/* `s` made safe for the terminal, appended to `out`. */
void sum_add_safe(struct buf *out, const char *s);
/* `s` escaped for a Markdown table cell, a LaTeX text. */
void sum_md_cell(struct buf *out, const char *s);
/* A JSON number: whole numbers without decimals. */
void sum_json_num(struct buf *out, double v);
/* The columns shown outside text (the bars are text only). */
size_t sum_shown_cols(const struct table *t);
/* One table in a form, appended to `out` (JSON: one element of the
 * "tables" array, `first` the first one). */
void sum_render_text(const struct table *t, struct buf *out);
void sum_render_markdown(const struct table *t, struct buf *out);
void sum_render_latex(const struct table *t, struct buf *out);
void sum_render_json(const struct table *t, struct buf *out, int first);

/* ---- the tables of the report (summary_tables.c) -------------------- */

/* shares.DIM: the items of each code of dimension d. */
void sum_shares_table(struct report *r, const struct tallies *ts, size_t d);
/* repo.DIM: the same per repository. */
void sum_repo_table(struct report *r, const struct tallies *ts, size_t d);
/* distributed and distributed.stage: items with a distributed code. */
void sum_distributed_tables(struct report *r, const struct tallies *ts);
/* cross[.CODE].counts, .row_share, .col_share: the cross tables of code b
 * of --by, or of every item. */
void sum_cross_tables(struct report *r, const struct tallies *ts, size_t b);
/* effort.size and effort.quartiles; sorts the tallies' values in place. */
void sum_effort_tables(struct report *r, struct tallies *ts);
/* agreement: kappa per dimension and round (report_agreement_by_round()).
 * Returns 0, or -1 with `e` filled. */
int sum_agreement_table(struct report *r, struct store *st,
			const struct actor *a, const struct codebook *cb,
			const struct summary_opts *o, struct err *e);
/* flow: the selection flow per repository.  Returns 0, or -1 with `e`
 * filled. */
int sum_flow_table(struct report *r, struct store *st,
		   const struct actor *a, const struct codebook *cb,
		   struct err *e);

#endif
