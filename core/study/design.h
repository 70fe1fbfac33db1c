/* SPDX-License-Identifier: MIT */
/*
 * design: which items the study's figures count, said in words, and the
 * selection flow from every issue seen to every bug agreed.
 *
 * The rule itself is core/study/access's (ACCESS_COUNTED_SQL): the items of
 * coding rounds count, or every item while the study has no round.
 * This module counts what that leaves in and out, for `status`, `agree`,
 * the report and the package, so that every figure says which items it
 * covers and how many lie outside every round.
 *
 * The flow (design_flow()) follows each repository's items through the
 * stages reviewers ask for (the ACM SIGSOFT Empirical Standards'
 * selection table): seen (imported or fetched, or still to fetch) ->
 * with a merged fix -> screened (decided in a screening round) ->
 * included / excluded per reason -> coded by every assigned coder ->
 * agreed without adjudication / adjudicated / still open.  Screening
 * columns are undefined (-1) while the study has no screening round.
 * The coding stages are core/study/consensus's decision, the same pass `status`,
 * `export` and the report read, so their numbers match.
 */
#ifndef BUGCODER_DESIGN_H
#define BUGCODER_DESIGN_H

#include <stddef.h>

#include "core/base/buf.h"
#include "core/study/codebook.h"
#include "core/base/err.h"
#include "core/study/member.h"
#include "core/store/store.h"

struct design_counts {
	long items;		/* every item, fetched or not */
	long missing;		/* never fetched */
	int rounds;		/* the study has a round (either kind) */
	int screens;		/* ... a screening round */
	long counted;		/* items whose coding counts */
	long outside;		/* fetched, not screened out, in no coding
				   round, while the study has rounds: */
	long in_no_round;	/*   in no round at all */
	long waiting;		/*   screened in, no coding round yet */
	long screening;		/*   being screened */
	long excluded;		/* screened out */
	long recoding;		/* counted items a split left to recode */
	char *coding_rounds;	/* their names, ", "-joined; owned */
};

#define DESIGN_COUNTS_INIT { 0 }

int design_count(struct store *st, struct design_counts *c, struct err *e);
void design_counts_release(struct design_counts *c);

/* Which items a figure over round `round` (NULL: the whole study)
 * counts, in one or more '\n'-terminated lines appended to `out`
 * ("Items counted: the 20 items of the coding rounds pilot, round1; 10
 * items outside every coding round are left out (...)"), with the items
 * a split left to recode.  0, or -1. */
int design_scope(struct store *st, const char *round, struct buf *out,
		 struct err *e);

/* One row of the flow: a repository, or the whole study (repo NULL). */
struct flow_row {
	char *repo;		/* owned; NULL for all */
	long seen, with_fix;
	long screened, included;	/* -1 while nothing is screened */
	long *excluded;		/* per reason of flow.reasons */
	long coded, agreed, adjudicated, open;
};

struct flow {
	int screens;		/* the study has a screening round */
	char **reasons;		/* the exclusion reasons, owned */
	size_t nr_reasons;
	struct flow_row *rows;	/* per repository, then the whole study */
	size_t nr_rows;
};

#define FLOW_INIT { 0 }

/* The flow of the items actor `a` may see the coding of (core/study/consensus's
 * rule: the coding stages of a round still open are counted for the
 * owner and adjudicators only).  0, or -1 with `e` filled. */
int design_flow(struct store *st, const struct actor *a,
		const struct codebook *cb, struct flow *f, struct err *e);
void flow_release(struct flow *f);

/* One item's place in the design, for the package's selection table.
 * Strings are borrowed for the callback. */
struct design_item {
	const char *item, *repo;
	int missing;		/* never fetched */
	int with_fix;
	const char *screen_round;	/* NULL: never screened */
	const char *decision;	/* include or the reason; NULL: undecided */
	const char *how;	/* agreed or adjudicated */
	const char *rationale;	/* an adjudicated decision's */
	const char *coding_round;	/* NULL: in none */
	int counted;		/* its coding counts (ACCESS_COUNTED_SQL) */
	int coded;		/* counted, and every assigned coder
				   submitted (core/study/consensus's "ready") */
	const char *status;	/* coded: agreed, adjudicated or open;
				   else NULL */
};

/* Call fn for every item of the study, in id order, as actor `a` may see
 * its coding (core/study/consensus's rule).  Stops at fn's first non-zero return
 * and returns it; 0 at the end; -1 with `e` filled. */
int design_items(struct store *st, const struct actor *a,
		 const struct codebook *cb,
		 int (*fn)(const struct design_item *it, void *data),
		 void *data, struct err *e);

#endif
