/* SPDX-License-Identifier: MIT */
/*
 * agree_report: the agreement of a study as text, JSON or CSV.
 *
 * What is shown is decided by core/study/headline (headline coefficient,
 * intervals inside [-1, 1], degenerate values undefined, the sentence);
 * this module lays it out.
 *
 * JSON is one object:
 *   {"round", "annotators": [...], "interval": {"method", "samples",
 *    "seed"}, "dimensions": [{"key", "name", "select", "scale", "items",
 *    "categories", "coefficient", "kappa": {"value", "ci95", "ci_method",
 *    ...}, "sentence", "observed_agreement", "expected_agreement",
 *    "cohen_kappa": {"value", "se", "se0", "z", "p", "ci95": [lo, hi],
 *    "ci_method", "ci_clipped", "wald_ci95": [raw lo, raw hi], ...},
 *    "scott_pi", "krippendorff_alpha", "gwet_ac1", "pabak", "band",
 *    "band_range", "band_source", "kappa_max", "prevalence_index",
 *    "bias_index", "weighted", "per_code": [{"code", "counts": {name: n},
 *    "count_a", "count_b", "kappa", ...}], "confusion", "groups"}]}
 * with null and an "undefined_reason" (per object) where a value is
 * undefined.  `p` is two-sided.  Select-many dimensions add
 * "exact_agreement" and "mean_kappa"; three or more annotators add
 * "fleiss_kappa", "conger_kappa" and "pairs".
 */
#ifndef BUGCODER_AGREE_REPORT_H
#define BUGCODER_AGREE_REPORT_H

#include "core/study/headline.h"
#include "core/study/agreement.h"
#include "core/base/buf.h"
#include "core/study/codebook.h"
#include "core/base/err.h"
#include "core/study/member.h"
#include "core/store/store.h"

enum report_format {
	REPORT_TEXT = 0,
	REPORT_JSON = 1,
	REPORT_CSV = 2,
};

/* Render a computed and summarised agreement into `out` (appending). */
void agree_render(const struct agreement *ag, const struct headline *sum,
		  enum report_format fmt, struct buf *out);

/* Compute, summarise with `opts` (NULL: the defaults) and render in one
 * call: what `bugcoder agree` and the replication package write.
 * Returns 0, or -1 with `e` filled. */
int report_agreement(struct store *st, const struct actor *a,
		     const struct codebook *cb, const char *round,
		     const char *dim, int format, const struct agree_opts *opts,
		     struct buf *out, struct err *e);

/* `agree --by-round`: per dimension (`dim`, NULL for all) a row per
 * round in creation order (state, codebook version, n, kappa, interval,
 * band) and the least-squares trend of kappa per round.  A round the
 * actor may not see yet (open, blinding) is listed without figures.
 * Returns 0, or -1 with `e` filled. */
int report_agreement_by_round(struct store *st, const struct actor *a,
			      const struct codebook *cb, const char *dim,
			      int format, const struct agree_opts *opts,
			      struct buf *out, struct err *e);

#endif
