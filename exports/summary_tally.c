/* SPDX-License-Identifier: MIT */
/*
 * summary_tally: the one pass over the agreed items that the report is
 * made from: per dimension the items of each code, overall, per
 * repository and per code of --effort-by, the effort measures, the cross
 * tables and the distributed codes per stage.
 */
#include "exports/summary_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/study/consensus.h"
#include "exports/export.h"

#define MAX_CODES 64		/* codes of one item in one dimension */

static void nums_add(struct nums *n, double v)
{
	ALLOC_GROW(n->v, n->nr + 1, n->alloc);
	n->v[n->nr++] = v;
}

static void tally_init(struct tally *t, const struct codebook *cb,
		       const char *name)
{
	size_t d;

	memset(t, 0, sizeof(*t));
	t->name = xstrdup(name);
	t->counts = xcalloc(cb->nr_dims + 1, sizeof(*t->counts));
	for (d = 0; d < cb->nr_dims; d++)
		t->counts[d] = xcalloc(nslots(&cb->dims[d]), sizeof(long));
}

static void tally_release(struct tally *t, const struct codebook *cb)
{
	size_t d;

	for (d = 0; d < cb->nr_dims; d++)
		free(t->counts[d]);
	free(t->counts);
	free(t->name);
	free(t->days.v);
	free(t->comments.v);
	free(t->lines.v);
}

static struct tally *repo_tally(struct tallies *ts, const char *repo)
{
	size_t i;

	if (ts->last && ts->last < ts->nr &&
	    !strcmp(ts->v[ts->last].name, repo))
		return &ts->v[ts->last];
	for (i = 1; i < ts->nr; i++)
		if (!strcmp(ts->v[i].name, repo))
			return &ts->v[ts->last = i];
	ALLOC_GROW(ts->v, ts->nr + 1, ts->alloc);
	tally_init(&ts->v[ts->nr], ts->cb, repo);
	ts->last = ts->nr;
	return &ts->v[ts->nr++];
}

/* The code slots of one dimension of an item, into idx[] (at most
 * `max`). */
static size_t code_slots(const struct dimension *dim,
			 const struct consensus_dim *ad, int *idx, size_t max)
{
	const char *p = ad->final.ptr, *q;
	char key[128];
	size_t n = 0;

	if (ad->status != DIM_AGREED && ad->status != DIM_RESOLVED) {
		idx[0] = (int)dim->nr_codes + 2;
		return 1;
	}
	if (!*p) {
		idx[0] = (int)dim->nr_codes;
		return 1;
	}
	while (*p && n < max) {
		size_t len;
		int i;

		q = strchr(p, ';');
		len = q ? (size_t)(q - p) : strlen(p);
		if (len < sizeof(key)) {
			memcpy(key, p, len);
			key[len] = '\0';
			i = dimension_code_index(dim, key);
		} else {
			i = -1;
		}
		idx[n++] = i < 0 ? (int)dim->nr_codes + 1 : i;
		p = q ? q + 1 : p + len;
	}
	return n;
}

static void tally_item(struct tally *x, const struct consensus_item *it,
		       const struct summary_opts *o)
{
	x->items++;
	/* days open as the export writes them, so that the report can be
	 * recomputed from the CSV */
	if (it->days_open >= 0) {
		double days = export_days2(it->days_open);

		nums_add(&x->days, days);
		x->dated++;
		x->hard += days > o->hard_days &&
			   it->comments >= o->hard_comments;
	}
	nums_add(&x->comments, (double)it->comments);
	if (it->lines_changed >= 0) {
		nums_add(&x->lines, (double)it->lines_changed);
		x->sized++;
		x->small += it->lines_changed <= o->small;
	}
}

static void count_item(struct tallies *ts, const struct consensus_item *it)
{
	const struct codebook *cb = ts->cb;
	int *slots[64];
	size_t nslot[64] = { 0 };
	int buf[64][MAX_CODES];
	struct tally *t[2];
	size_t d, i, j, k, b;
	int is_dist[64] = { 0 };

	/* repo_tally() may grow ts->v: take v[0] only after it */
	t[1] = repo_tally(ts, it->repo ? it->repo : "");
	t[0] = &ts->v[0];
	for (d = 0; d < cb->nr_dims && d < 64; d++) {
		const struct dimension *dim = &cb->dims[d];

		slots[d] = buf[d];
		nslot[d] = code_slots(dim, &it->dims[d], buf[d], MAX_CODES);
		for (i = 0; i < nslot[d]; i++) {
			int s = buf[d][i];

			for (k = 0; k < 2; k++)
				t[k]->counts[d][s]++;
			if (s < (int)dim->nr_codes &&
			    dim->codes[s].distributed)
				is_dist[d] = 1;
		}
		ts->dist[d] += is_dist[d];
	}
	for (k = 0; k < 2; k++)
		tally_item(t[k], it, ts->o);
	if (ts->eb >= 0)
		for (i = 0; i < nslot[ts->eb]; i++)
			tally_item(&ts->by_code[slots[ts->eb][i]], it, ts->o);
	if (ts->stage >= 0)
		for (i = 0; i < nslot[ts->stage]; i++) {
			int s = slots[ts->stage][i];

			ts->stage_items[s]++;
			for (d = 0; d < cb->nr_dims && d < 64; d++)
				ts->stage_dist[(size_t)s * cb->nr_dims + d] +=
					is_dist[d];
		}
	if (ts->cx >= 0) {
		size_t kx = nslots(&cb->dims[ts->cx]);
		size_t ky = nslots(&cb->dims[ts->cy]);
		size_t nb = ts->cb3 >= 0 ? nslot[ts->cb3] : 1;

		for (b = 0; b < nb; b++) {
			size_t base = ts->cb3 >= 0 ?
				(size_t)slots[ts->cb3][b] * kx * ky : 0;

			for (i = 0; i < nslot[ts->cx]; i++)
				for (j = 0; j < nslot[ts->cy]; j++)
					ts->cross[base +
						  (size_t)slots[ts->cx][i] * ky +
						  (size_t)slots[ts->cy][j]]++;
		}
	}
}

int sum_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Quantile p of v[0..n) as R's default (type 7): sorts v; NAN when
 * n == 0. */
double sum_quantile(double *v, size_t n, double p)
{
	double h, lo;
	size_t i;

	if (!n)
		return NAN;
	qsort(v, n, sizeof(*v), sum_cmp_double);
	h = (double)(n - 1) * p;
	lo = floor(h);
	i = (size_t)lo;
	if (i + 1 >= n)
		return v[n - 1];
	return v[i] + (h - lo) * (v[i + 1] - v[i]);
}

static int cmp_tally(const void *a, const void *b)
{
	return strcmp(((const struct tally *)a)->name,
		      ((const struct tally *)b)->name);
}

static int find_dim(const struct codebook *cb, const char *key,
		    const char *opt, struct err *e)
{
	size_t i;

	for (i = 0; i < cb->nr_dims; i++)
		if (!strcmp(cb->dims[i].key, key))
			return (int)i;
	return err_set(e, ERR_INPUT, "%s: %s is not a dimension of codebook "
		       "%s", opt, key, cb->name);
}

int sum_collect(struct tallies *ts, struct store *st,
		const struct actor *a, struct err *e)
{
	const struct codebook *cb = ts->cb;
	const struct summary_opts *o = ts->o;
	struct consensus_iter it;
	size_t i;
	int rc;

	ts->cx = ts->cy = ts->cb3 = ts->eb = ts->stage = -1;
	if (cb->nr_dims > 64)
		return err_set(e, ERR_INPUT, "codebook %s: the report reads at "
			       "most 64 dimensions", cb->name);
	if (o->cross[0] || o->cross[1]) {
		if (!o->cross[0] || !o->cross[1])
			return err_set(e, ERR_INPUT, "--cross takes two "
				       "dimensions, DIM1,DIM2");
		if ((ts->cx = find_dim(cb, o->cross[0], "--cross", e)) < 0 ||
		    (ts->cy = find_dim(cb, o->cross[1], "--cross", e)) < 0)
			return -1;
	} else if (cb->nr_dims >= 2) {
		ts->cx = 0;
		ts->cy = 1;
	}
	if (o->by && (ts->cb3 = find_dim(cb, o->by, "--by", e)) < 0)
		return -1;
	if (o->by && ts->cx < 0)
		return err_set(e, ERR_INPUT, "--by needs a cross table: the "
			       "codebook has one dimension");
	if (o->effort_by &&
	    (ts->eb = find_dim(cb, o->effort_by, "--effort-by", e)) < 0)
		return -1;
	for (i = 0; i < cb->nr_dims; i++)
		if (!strcmp(cb->dims[i].key, "stage"))
			ts->stage = (int)i;
	if (ts->cx >= 0)
		ts->cross = xcalloc((ts->cb3 >= 0 ?
				     nslots(&cb->dims[ts->cb3]) : 1) *
				    nslots(&cb->dims[ts->cx]) *
				    nslots(&cb->dims[ts->cy]), sizeof(long));
	if (ts->eb >= 0) {
		const struct dimension *dim = &cb->dims[ts->eb];

		ts->by_code = xcalloc(nslots(dim), sizeof(*ts->by_code));
		for (i = 0; i < nslots(dim); i++) {
			struct buf n = BUF_INIT;

			buf_addf(&n, "%s=%s", dim->key, i < dim->nr_codes ?
				 dim->codes[i].key : i == dim->nr_codes ?
				 "(none)" : i == dim->nr_codes + 1 ?
				 "(not in codebook)" : "(pending)");
			tally_init(&ts->by_code[i], cb, n.ptr);
			buf_release(&n);
		}
	}
	ts->dist = xcalloc(cb->nr_dims + 1, sizeof(long));
	if (ts->stage >= 0) {
		size_t k = nslots(&cb->dims[ts->stage]);

		ts->stage_items = xcalloc(k, sizeof(long));
		ts->stage_dist = xcalloc(k * cb->nr_dims, sizeof(long));
	}
	ALLOC_GROW(ts->v, 1, ts->alloc);
	tally_init(&ts->v[0], cb, "all");
	ts->nr = 1;
	if (consensus_open(&it, st, a, cb, o->round, e) < 0) {
		consensus_close(&it);
		return -1;
	}
	consensus_skip_fixes(&it);
	while ((rc = consensus_next(&it, e)) > 0) {
		if (!it.item.complete) {
			ts->pending++;
			if (!o->include_pending)
				continue;
		}
		count_item(ts, &it.item);
	}
	consensus_close(&it);
	if (rc < 0)
		return -1;
	qsort(ts->v + 1, ts->nr - 1, sizeof(*ts->v), cmp_tally);
	return 0;
}

void sum_tallies_release(struct tallies *ts)
{
	size_t i;

	for (i = 0; i < ts->nr; i++)
		tally_release(&ts->v[i], ts->cb);
	if (ts->by_code)
		for (i = 0; i < nslots(&ts->cb->dims[ts->eb]); i++)
			tally_release(&ts->by_code[i], ts->cb);
	free(ts->by_code);
	free(ts->v);
	free(ts->cross);
	free(ts->dist);
	free(ts->stage_items);
	free(ts->stage_dist);
}
