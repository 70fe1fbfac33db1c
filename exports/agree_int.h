/* SPDX-License-Identifier: MIT */
/*
 * agree_int: what the writers of the agreement report (agree_report.c,
 * agree_text.c, agree_json.c, agree_csv.c, agree_machines.c,
 * agree_by_round.c) share among themselves; not API, included by them
 * only.  The prefix ar_ is for "agreement report".
 */
#ifndef BUGCODER_AGREE_INT_H
#define BUGCODER_AGREE_INT_H

#include <cjson/cJSON.h>

#include "core/base/buf.h"
#include "core/study/agreement.h"
#include "core/study/headline.h"
#include "core/study/headline_text.h"
#include "core/study/machine.h"
#include "exports/agree_report.h"

/* agree_json.c */

/* Add `s` to `obj` under `key` (null when undefined); the first reason
 * an undefined value gives goes to *why (why NULL: none kept). */
void ar_add_stat(cJSON *obj, const char *key, const struct agree_stat *s,
		 const char **why);
/* Add "undefined_reason": why to `obj`, when why is not NULL. */
void ar_finish_why(cJSON *obj, const char *why);
/* The reported interval into `o`: "ci95", how it was made, the raw Wald
 * bounds. */
void ar_ci_json(cJSON *o, const struct agree_ci *ci);
/* A kappa as reported, with its interval: a new object, owned by the
 * caller (or by the tree it is added to). */
cJSON *ar_value_ci_json(const struct agree_stat *k, const struct agree_ci *ci);
/* The "interval" object of the options: new, owned as above. */
cJSON *ar_opts_json(const struct agree_opts *o);
/* The report as one JSON object, appended to `out`. */
void ar_render_json(const struct agreement *ag, const struct headline *sum,
		    struct buf *out);

/* agree_text.c */

/* "95% CI lo-hi (how it was made)", or the one-sided lower bound of a
 * kappa of 1, appended to `out`. */
void ar_ci_text(struct buf *out, const struct agree_ci *ci);
/* The report as text, appended to `out`. */
void ar_render_text(const struct agreement *ag, const struct headline *sum,
		    struct buf *out);

/* agree_csv.c */

/* A number cell (",value", or "," when undefined). */
void ar_cell(struct buf *out, const struct agree_stat *s);
/* A text cell, quoted when it must be ("," alone when s is NULL). */
void ar_cell_str(struct buf *out, const char *s);
/* bootstrap_samples and bootstrap_seed of an interval */
void ar_csv_boot(struct buf *out, const struct agree_ci *ci);
/* The columns after annotator_b, to the end of the row (lv NULL: the
 * interval's columns only; many: three or more annotators). */
void ar_csv_tail(struct buf *out, const struct agree_ci *ci,
		 const struct agree_level_summary *lv, int many);
/* The report as CSV, header first, appended to `out`. */
void ar_render_csv(const struct agreement *ag, const struct headline *sum,
		   struct buf *out);

/* agree_machines.c */

/* The machine coders, appended to the report in `out` in its format
 * (REPORT_*): text after it, CSV rows in its table, and in JSON a
 * "machines" member put into its object. */
void ar_render_machines(const struct machine_agreement *ma,
			const char *round, int format, struct buf *out);

#endif
