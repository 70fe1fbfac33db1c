/*
 * agree_report: the agreement of a study as text, JSON or CSV.
 *
 * JSON is one object:
 *   {"round": ..., "annotators": [...], "dimensions": [{"key", "items",
 *    "categories", "observed_agreement", "expected_agreement",
 *    "cohen_kappa": {"value", "se", "se0", "z", "p", "ci95": [lo, hi]},
 *    "scott_pi", "krippendorff_alpha", "gwet_ac1", "pabak", "band",
 *    "per_code": [{"code", "count_a", "count_b", "kappa",
 *    "positive_agreement"}], "confusion": {"codes": [...],
 *    "counts": [[...]]}}]}
 * with null and an "undefined_reason" (per object) where a value is
 * undefined.  `p` is two-sided.  Select-many dimensions add "select":
 * "many", "exact_agreement" and "mean_kappa"; three or more annotators add
 * "fleiss_kappa" and "pairs".
 */
#ifndef BUGCODER_AGREE_REPORT_H
#define BUGCODER_AGREE_REPORT_H

#include "core/agreement.h"
#include "core/buf.h"
#include "core/codebook.h"
#include "core/err.h"
#include "core/member.h"
#include "core/store.h"

enum report_format {
	REPORT_TEXT = 0,
	REPORT_JSON = 1,
	REPORT_CSV = 2,
};

/* Render a computed agreement into `out` (appending). */
void agree_render(const struct agreement *ag, enum report_format fmt,
		  struct buf *out);

/* The copy-ready sentence for one dimension, e.g. "Cohen's kappa for root
 * cause was 0.82 (95% CI 0.76-0.88, n = 120 bugs, 2 annotators), almost
 * perfect agreement." (with an en dash). */
void agree_sentence(const struct agreement *ag, const struct agreement_dim *d,
		    struct buf *out);

/* Compute and render in one call: what `bugcoder agree` and the
 * replication package write. */
int report_agreement(struct store *st, const struct actor *a,
		     const struct codebook *cb, const char *round,
		     const char *dim, int format, struct buf *out,
		     struct err *e);

#endif
