/* SPDX-License-Identifier: MIT */
/*
 * headline_text: the headline's figures as text (see headline_text.h):
 * a value without "-0.00", an interval with an en dash, how an interval
 * was made, a p value in APA style, and the sentence for a paper.
 */
#include "core/study/headline_text.h"

#include <stdio.h>
#include <string.h>

#include "core/study/codebook.h"

void agree_fmt(struct buf *out, double v, int decimals)
{
	char tmp[64];
	const char *p;

	snprintf(tmp, sizeof(tmp), "%.*f", decimals, v);
	/* "-0.00": the sign of a value that rounds to zero says nothing */
	if (tmp[0] == '-') {
		for (p = tmp + 1; *p == '0' || *p == '.'; p++)
			;
		if (!*p) {
			buf_addstr(out, tmp + 1);
			return;
		}
	}
	buf_addstr(out, tmp);
}

#define EN_DASH "\xe2\x80\x93"

void agree_fmt_ci(struct buf *out, const struct agree_ci *ci, int decimals)
{
	struct buf lo = BUF_INIT, hi = BUF_INIT;

	if (!ci->low.defined || !ci->high.defined) {
		buf_addf(out, "undefined (%s)", ci->low.why ? ci->low.why :
			 "no interval");
		return;
	}
	/* an interval of some width is never shown as 0.00-0.00 */
	for (;; decimals++) {
		buf_reset(&lo);
		buf_reset(&hi);
		agree_fmt(&lo, ci->low.value, decimals);
		agree_fmt(&hi, ci->high.value, decimals);
		if (strcmp(lo.ptr, hi.ptr) || ci->low.value == ci->high.value ||
		    decimals >= 6)
			break;
	}
	buf_addstr(out, lo.ptr);
	buf_addstr(out, EN_DASH);
	buf_addstr(out, hi.ptr);
	buf_release(&lo);
	buf_release(&hi);
}

void agree_ci_describe(struct buf *out, const struct agree_ci *ci)
{
	switch (ci->method) {
	case AGREE_CI_WALD:
		buf_addstr(out, ci->clipped ? "Wald, clipped to [-1, 1]" :
			   "Wald");
		break;
	case AGREE_CI_EXACT:
		buf_addf(out, "exact: all %ld item%s agree, so observed "
			 "agreement >= ", ci->n, ci->n == 1 ? "" : "s");
		agree_fmt(out, ci->po_lower, 3);
		buf_addstr(out, " (Clopper-Pearson)");
		break;
	default:
		buf_addf(out, "%s, %d resamples (%d degenerate, drawn "
			 "again), seed %llu", agree_ci_method_name(ci->method),
			 ci->boot, ci->boot_degenerate,
			 (unsigned long long)ci->seed);
		if (ci->method == AGREE_CI_BCA && ci->low.defined) {
			buf_addstr(out, ", z0 ");
			agree_fmt(out, ci->bca_z0, 3);
			buf_addstr(out, ", a ");
			agree_fmt(out, ci->bca_accel, 3);
		}
		break;
	}
	if (ci->n < AGREE_SMALL_N && ci->low.defined)
		buf_addf(out, "; only %ld item%s, under %d: the interval says "
			 "little", ci->n, ci->n == 1 ? "" : "s", AGREE_SMALL_N);
}

void agree_fmt_p(struct buf *out, const struct agree_stat *p)
{
	char tmp[32], *q;

	if (!p->defined) {
		buf_addf(out, "p undefined (%s)", p->why);
		return;
	}
	if (p->value < 0.001) {
		buf_addstr(out, "p < .001");
		return;
	}
	snprintf(tmp, sizeof(tmp), "%.3f", p->value);
	q = tmp[0] == '0' ? tmp + 1 : tmp;	/* APA: no leading zero */
	buf_addf(out, "p = %s", q);
}

/* "root_cause" -> "root cause": the dimension's name, lower-cased in
 * ASCII only (tolower() in a single-byte locale would break UTF-8). */
static void prose_name(const struct dimension *dim, struct buf *out)
{
	const char *p;

	for (p = dim->name; *p; p++)
		buf_addch(out, *p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
}

/* ", 3 more left out: a coder left the dimension empty" */
static void dropped_text(struct buf *out,
			 const struct agree_level_summary *lv)
{
	if (lv->n_dropped)
		buf_addf(out, " (%zu more left out: a coder left the dimension "
			 "empty)", lv->n_dropped);
}

/* "95% CI 0.62-0.91, bootstrap percentile, ..." or the one-sided bound,
 * or why there is none. */
static void sentence_ci(struct buf *out, const struct agree_ci *ci)
{
	if (!ci->low.defined) {
		buf_addf(out, "no 95%% CI: %s", ci->low.why);
		return;
	}
	if (ci->method == AGREE_CI_EXACT) {
		buf_addstr(out, "one-sided 95% lower bound ");
		agree_fmt(out, ci->low.value, 2);
		buf_addstr(out, ", ");
		agree_ci_describe(out, ci);
		return;
	}
	buf_addstr(out, "95% CI ");
	agree_fmt_ci(out, ci, 2);
	buf_addstr(out, ", ");
	agree_ci_describe(out, ci);
}

void agree_sentence_build(const struct agreement *ag,
			  const struct agree_dim_summary *d,
			  const struct agree_level_summary *lv,
			  struct buf *out)
{
	const struct dimension *dim = d->ad->dim;
	const char *unit = lv->group ? (lv->k == 1 ? "group" : "groups") :
			   (lv->k == 1 ? "code" : "codes");

	/* a sentence starts with a capital */
	buf_addch(out, lv->coef[0] >= 'a' && lv->coef[0] <= 'z' ?
		  lv->coef[0] - 'a' + 'A' : lv->coef[0]);
	buf_addstr(out, lv->coef + 1);
	buf_addstr(out, " for ");
	prose_name(dim, out);
	if (lv->group)
		buf_addstr(out, " (code groups)");
	if (!lv->kappa.defined) {
		buf_addf(out, " is undefined: %s (n = %zu bugs", lv->kappa.why,
			 lv->n_items);
		dropped_text(out, lv);
		buf_addf(out, ", %d %s, %zu annotator%s", lv->k, unit,
			 ag->nr_annotators, ag->nr_annotators == 1 ? "" : "s");
		if (lv->po.defined) {
			buf_addstr(out, dim->select_many ?
				   "; identical sets " :
				   "; observed agreement ");
			agree_fmt(out, lv->po.value, 2);
		}
		buf_addstr(out, ").");
		return;
	}
	buf_addstr(out, " was ");
	agree_fmt(out, lv->kappa.value, 2);
	buf_addstr(out, " (");
	sentence_ci(out, &lv->ci);
	buf_addf(out, "; n = %zu bugs", lv->n_items);
	dropped_text(out, lv);
	buf_addf(out, ", %d %s, %zu annotators", lv->k, unit,
		 ag->nr_annotators);
	if (dim->select_many) {
		buf_addf(out, "; the mean of %d %s kappa%s", lv->codes_defined,
			 lv->group ? "group" : "code",
			 lv->codes_defined == 1 ? "" : "s");
		if (lv->codes_left_out)
			buf_addf(out, ", %d %s left out as undefined",
				 lv->codes_left_out, lv->group ?
				 (lv->codes_left_out == 1 ? "group" :
				  "groups") : (lv->codes_left_out == 1 ?
					       "code" : "codes"));
	}
	buf_addstr(out, "; ");
	buf_addstr(out, dim->select_many ? "identical sets " :
		   "observed agreement ");
	if (lv->po.defined)
		agree_fmt(out, lv->po.value, 2);
	else
		buf_addf(out, "undefined, %s", lv->po.why);
	buf_addf(out, "), %s agreement", agree_band_name(lv->band));
	if (lv->band_low != lv->band_high)
		buf_addf(out, ", %s to %s within the interval",
			 agree_band_name(lv->band_low),
			 agree_band_name(lv->band_high));
	buf_addstr(out, " (Landis & Koch, 1977)");
	if (ag->nr_annotators > 2 && !dim->select_many) {
		buf_addstr(out, "; Conger's kappa ");
		if (lv->conger.defined) {
			agree_fmt(out, lv->conger.value, 2);
			buf_addstr(out, " (");
			sentence_ci(out, &lv->conger_ci);
			buf_addch(out, ')');
		} else {
			buf_addf(out, "undefined (%s)", lv->conger.why);
		}
		buf_addstr(out, ", Krippendorff's alpha ");
		if (lv->alpha.defined)
			agree_fmt(out, lv->alpha.value, 2);
		else
			buf_addf(out, "undefined (%s)", lv->alpha.why);
	}
	buf_addch(out, '.');
}
