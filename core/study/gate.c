/* SPDX-License-Identifier: MIT */
/*
 * gate: see gate.h.
 */
#include "core/study/gate.h"

#include <stdlib.h>
#include <string.h>

#include "core/study/headline.h"
#include "core/study/headline_text.h"
#include "core/study/agreement.h"
#include "core/base/buf.h"
#include "core/study/round.h"

void gate_release(struct gate_check *g)
{
	if (!g)
		return;
	free(g->after);
	free(g->dims);
	memset(g, 0, sizeof(*g));
}

int gate_check(struct store *st, const struct actor *a,
	       const struct codebook *cb, const char *after, double min_kappa,
	       int on_lower, struct gate_check *out, struct err *e)
{
	struct round_info r;
	struct agreement ag = AGREEMENT_INIT;
	struct headline sum = AGREE_SUMMARY_INIT;
	size_t d;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	if (!(min_kappa >= -1 && min_kappa <= 1))
		return err_set(e, ERR_INPUT, "--min-kappa %g: a kappa is "
			       "between -1 and 1", min_kappa);
	memset(&r, 0, sizeof(r));
	if (round_get(st, after, &r, e) < 0)
		return -1;
	out->after = xstrdup(after);
	out->min_kappa = min_kappa;
	out->on_lower = on_lower;
	out->closed = r.closed_at != NULL;
	round_info_release(&r);
	out->dims = xcalloc(cb->nr_dims + 1, sizeof(*out->dims));
	if (agreement_compute(st, a, cb, after, NULL, &ag, e) < 0 ||
	    headline_compute(&ag, NULL, &sum, e) < 0)
		goto out;
	out->pass = out->closed;
	for (d = 0; d < ag.nr_dims; d++) {
		const struct agree_level_summary *lv = &sum.dims[d].code;
		struct gate_dim *g;

		if (!ag.dims[d].dim->required)
			continue;
		g = &out->dims[out->nr_dims++];
		/* borrowed from `cb`, which outlives the agreement (a closed
		 * round's own codebook goes with it) */
		g->key = codebook_dim(cb, ag.dims[d].dim->key)->key;
		g->value = on_lower ? lv->ci.low : lv->kappa;
		if (on_lower && !lv->kappa.defined)
			g->value = lv->kappa;
		g->pass = g->value.defined && g->value.value >= min_kappa;
		out->pass &= g->pass;
	}
	ret = 0;
out:
	headline_release(&sum);
	agreement_release(&ag);
	if (ret < 0)
		gate_release(out);
	return ret;
}

void gate_describe(const struct gate_check *g, struct buf *out)
{
	size_t i;

	buf_addf(out, "round %s is %s", g->after, g->closed ? "closed" :
		 "still open");
	for (i = 0; i < g->nr_dims; i++) {
		const struct gate_dim *d = &g->dims[i];

		buf_addf(out, "; %s %s ", d->key, g->on_lower ?
			 "lower bound" : "kappa");
		if (d->value.defined)
			agree_fmt(out, d->value.value, 2);
		else
			buf_addf(out, "undefined (%s)", d->value.why);
		buf_addf(out, " %s ", d->pass ? ">=" : "<");
		agree_fmt(out, g->min_kappa, 2);
	}
}

void round_gates_free(struct round_gate *v, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		free(v[i].round);
		free(v[i].after);
	}
	free(v);
}

int round_gates(struct store *st, struct round_gate **v, size_t *nr,
		struct err *e)
{
	sqlite3_stmt *s;
	size_t alloc = 0;
	int rc;

	*v = NULL;
	*nr = 0;
	s = store_prepare(st, "SELECT r.name, a.name, g.min_kappa, "
			  "g.on_lower, g.forced FROM round_gates g JOIN rounds "
			  "r ON r.id = g.round_id JOIN rounds a ON a.id = "
			  "g.after_round_id ORDER BY r.id", e);
	if (!s)
		return -1;
	while ((rc = store_step(st, s, "reading the rounds' gates", e)) > 0) {
		struct round_gate *g;

		ALLOC_GROW(*v, *nr + 1, alloc);
		g = &(*v)[(*nr)++];
		g->round = xstrdup((const char *)sqlite3_column_text(s, 0));
		g->after = xstrdup((const char *)sqlite3_column_text(s, 1));
		g->min_kappa = sqlite3_column_double(s, 2);
		g->on_lower = sqlite3_column_int(s, 3);
		g->forced = sqlite3_column_int(s, 4);
	}
	sqlite3_finalize(s);
	if (rc < 0) {
		round_gates_free(*v, *nr);
		*v = NULL;
		*nr = 0;
		return -1;
	}
	return 0;
}
