/* SPDX-License-Identifier: MIT */
/*
 * headline_text: the figures of a headline (headline.h) as text, the
 * same for `agree`, the agreement screen, the report and the gate: a
 * value, an interval and how it was made, a p value, and the sentence
 * for a paper.
 */
#ifndef BUGCODER_HEADLINE_TEXT_H
#define BUGCODER_HEADLINE_TEXT_H

#include "core/base/buf.h"
#include "core/stats/agree.h"
#include "core/study/agreement.h"
#include "core/study/headline.h"

/* Append `v` with `decimals` decimals, never "-0.00": a value that rounds
 * to zero is written without its sign. */
void agree_fmt(struct buf *out, double v, int decimals);

/* Append "the interval: low-high" or its absence, for text: "0.62-0.91"
 * with `decimals` decimals and an en dash, or "undefined (why)".  Two
 * different bounds are never printed the same: more decimals are used
 * (up to 6) until they differ. */
void agree_fmt_ci(struct buf *out, const struct agree_ci *ci, int decimals);

/* Append how interval `ci` was made, for text: "bootstrap percentile,
 * 2000 resamples (12 degenerate, drawn again), seed 7", "Wald", "exact:
 * all 20 items agree, so observed agreement >= 0.861 (Clopper-Pearson)",
 * ..., and "; only 6 items, under 10: the interval says little" when
 * few items stand behind it. */
void agree_ci_describe(struct buf *out, const struct agree_ci *ci);

/* Append "p < .001" or "p = .023" style text for a two-sided p, or
 * "p undefined (why)". */
void agree_fmt_p(struct buf *out, const struct agree_stat *p);

/* Append the sentence for a paper about level `lv` of dimension `d`, e.g.
 * "Cohen's kappa for root cause was 0.79 (95% CI 0.62-0.91, bootstrap
 * percentile; n = 120 bugs, 9 codes, 2 annotators; observed agreement
 * 0.86): substantial agreement, moderate to almost perfect within the
 * interval (Landis & Koch, 1977)." (en dash in the range). */
void agree_sentence_build(const struct agreement *ag,
			  const struct agree_dim_summary *d,
			  const struct agree_level_summary *lv,
			  struct buf *out);

#endif
