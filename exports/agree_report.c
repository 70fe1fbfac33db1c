/* SPDX-License-Identifier: MIT */
/*
 * agree_report: see agree_report.h.  The forms are laid out by
 * agree_text.c, agree_json.c and agree_csv.c, the machine coders by
 * agree_machines.c, `--by-round` by agree_by_round.c (agree_int.h).
 */
#include "exports/agree_report.h"

#include <string.h>

#include "core/study/access.h"
#include "core/study/design.h"
#include "core/study/headline_text.h"
#include "core/study/round.h"
#include "exports/agree_int.h"

void agree_render(const struct agreement *ag, const struct headline *sum,
		  enum report_format fmt, struct buf *out)
{
	switch (fmt) {
	case REPORT_JSON:
		ar_render_json(ag, sum, out);
		break;
	case REPORT_CSV:
		ar_render_csv(ag, sum, out);
		break;
	default:
		ar_render_text(ag, sum, out);
		break;
	}
}

int report_agreement(struct store *st, const struct actor *a,
		     const struct codebook *cb, const char *round,
		     const char *dim, int format, const struct agree_opts *opts,
		     struct buf *out, struct err *e)
{
	struct machine_agreement ma = MACHINE_AGREEMENT_INIT;
	struct agreement ag = AGREEMENT_INIT;
	struct headline sum = AGREE_SUMMARY_INIT;
	int ret = -1;

	if (agreement_compute(st, a, cb, round, dim, &ag, e) < 0)
		return -1;
	if (headline_compute(&ag, opts, &sum, e) < 0)
		goto out;
	{
		struct buf scope = BUF_INIT;

		/* which items count: names items awaiting recoding, so
		 * only for readers who may see everyone's work */
		if (access_sees_all(a) || round) {
			if (design_scope(st, round, &scope, e) < 0) {
				buf_release(&scope);
				goto out;
			}
		}
		if (scope.len)
			sum.scope = buf_detach(&scope, NULL);
		buf_release(&scope);
	}
	if (round) {
		struct round_info r;
		struct buf later = BUF_INIT;

		memset(&r, 0, sizeof(r));
		if (round_get(st, round, &r, e) < 0)
			goto out;
		ret = round_later_changes(st, &r, &later, e);
		round_info_release(&r);
		if (ret < 0) {
			buf_release(&later);
			goto out;
		}
		ret = -1;
		if (later.len)
			sum.later = buf_detach(&later, NULL);
		buf_release(&later);
	}
	if (!ag.screen &&
	    machine_agreement(st, a, cb, round, dim, opts, &ma, e) < 0)
		goto out;
	agree_render(&ag, &sum, (enum report_format)format, out);
	if (ma.nr_machines)
		ar_render_machines(&ma, round, format, out);
	ret = 0;
out:
	machine_agreement_release(&ma);
	headline_release(&sum);
	agreement_release(&ag);
	return ret;
}

