/* SPDX-License-Identifier: MIT */
/*
 * selection: the study's design as tables for the replication package -
 * where every item stands (selection.csv: from seen to agreed, the
 * screening decision with its reason, the coding round) and every
 * screener's answer (screening.csv, blinded as the raw labels are).
 * The selection flow of the report (core/study/design) is these rows counted
 * per repository, which is how the package's analysis.R recomputes it.
 * CSV only (RFC 4180, as every export).
 */
#ifndef BUGCODER_SELECTION_H
#define BUGCODER_SELECTION_H

#include <stdio.h>

#include "core/base/err.h"
#include "core/study/member.h"
#include "core/store/store.h"
#include "exports/export.h"

/* selection.csv: item, repo, fetched, with_fix, screening_round,
 * decision, decided, rationale, coding_round, counted, coded, status
 * (see the package's README.txt).  0, or -1 with `e` filled. */
int export_selection(struct store *st, const struct actor *a,
		     struct export_opts *o, FILE *out, struct err *e);

/* screening.csv: item, round, annotator, answer, labeled_at,
 * submitted_at.  0, or -1 with `e` filled. */
int export_screening(struct store *st, const struct actor *a,
		     struct export_opts *o, FILE *out, struct err *e);

#endif
