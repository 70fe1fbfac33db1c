/* SPDX-License-Identifier: MIT */
/*
 * agreement: see agreement.h.
 */
#include "core/study/agreement.h"

#include "core/study/access.h"

_Static_assert(CODEBOOK_MANY_MAX <= AGREE_MULTI_MAX,
	       "a set of codes must fit agree_multi()");

#include <stdlib.h>
#include <string.h>

#include "core/base/buf.h"
#include "core/study/round.h"
#include "core/study/screening.h"

void agreement_release(struct agreement *ag)
{
	size_t i;

	if (!ag)
		return;
	for (i = 0; i < ag->nr_annotators; i++)
		free(ag->annotators[i]);
	free(ag->annotators);
	free(ag->annotator_ids);
	for (i = 0; i < ag->nr_dims; i++) {
		agree_table_release(&ag->dims[i].table);
		free(ag->dims[i].per_code);
		free(ag->dims[i].pairs);
		free(ag->dims[i].count);
		free(ag->dims[i].labels);
		free(ag->dims[i].sets);
		free(ag->dims[i].present);
	}
	free(ag->dims);
	free(ag->round);
	if (ag->frozen_cb) {
		codebook_release(ag->frozen_cb);
		free(ag->frozen_cb);
	}
	if (ag->screen_cb) {
		codebook_release(ag->screen_cb);
		free(ag->screen_cb);
	}
	memset(ag, 0, sizeof(*ag));
}

/* A closed round's record: whether there is one and the codebook version
 * it was closed with (loaded into ag->frozen_cb when known). */
static int load_record(struct store *st, struct agreement *ag,
		       long long round_id, struct err *e)
{
	sqlite3_stmt *s;
	int rc;

	s = store_prepare(st, "SELECT c.json FROM round_frozen f LEFT JOIN "
			  "codebooks c ON c.id = f.codebook_id WHERE "
			  "f.round_id = ?", e);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, round_id);
	rc = store_step(st, s, "reading the round's record", e);
	if (rc > 0) {
		ag->frozen = 1;
		if (sqlite3_column_type(s, 0) != SQLITE_NULL) {
			ag->frozen_cb = xcalloc(1, sizeof(*ag->frozen_cb));
			if (codebook_parse(ag->frozen_cb, (const char *)
					   sqlite3_column_text(s, 0),
					   (size_t)sqlite3_column_bytes(s, 0),
					   "the round's codebook", e) < 0)
				rc = -1;
		}
	}
	sqlite3_finalize(s);
	return rc < 0 ? -1 : 0;
}

static int load_annotators(struct store *st, struct agreement *ag,
			   long long round_id, struct err *e)
{
	sqlite3_stmt *s;
	size_t alloc = 0;
	int rc;

	s = store_prepare(st, round_id ?
		"SELECT m.id, m.name FROM round_annotators ra JOIN members m "
		"ON m.id = ra.member_id WHERE ra.round_id = ?1 ORDER BY m.name" :
		/* the whole study's annotators are whoever submitted work,
		 * whatever role they hold now: a later role change never
		 * changes past agreement */
		"SELECT DISTINCT m.id, m.name FROM submissions s JOIN members m "
		"ON m.id = s.member_id WHERE NOT m.machine OR EXISTS (SELECT 1 "
		"FROM round_annotators ra WHERE ra.member_id = m.id) ORDER BY "
		"m.name", e);
	if (!s)
		return -1;
	if (round_id)
		sqlite3_bind_int64(s, 1, round_id);
	while ((rc = store_step(st, s, "loading annotators", e)) > 0) {
		ALLOC_GROW(ag->annotators, ag->nr_annotators + 1, alloc);
		ag->annotator_ids = xrealloc(ag->annotator_ids, alloc *
					     sizeof(long long));
		ag->annotator_ids[ag->nr_annotators] =
			sqlite3_column_int64(s, 0);
		ag->annotators[ag->nr_annotators++] =
			xstrdup((const char *)sqlite3_column_text(s, 1));
	}
	sqlite3_finalize(s);
	if (rc < 0)
		return -1;
	return 0;
}

static int coder_index(const struct agreement *ag, long long id)
{
	size_t i;

	for (i = 0; i < ag->nr_annotators; i++)
		if (ag->annotator_ids[i] == id)
			return (int)i;
	return -1;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

/* Per dimension, per coder, per unit: a code index (select one) or a set
 * (select many); plus whether the coder submitted the unit. */
struct grid {
	size_t n_units, n_coders;
	long long *units;	/* sorted item ids */
	unsigned char *submitted;	/* coder * n_units + unit */
	int **one;		/* per dim: coder * n_units + unit */
	uint64_t **many;	/* per dim: coder * n_units + unit */
};

static long unit_index(const struct grid *g, long long item)
{
	long long *p;

	if (!g->n_units)	/* bsearch() may not be given a NULL array */
		return -1;
	p = bsearch(&item, g->units, g->n_units, sizeof(*p), cmp_ll);
	return p ? (long)(p - g->units) : -1;
}

static int load_units(struct store *st, struct agreement *ag,
		      long long round_id, struct grid *g, struct err *e)
{
	struct buf sql = BUF_INIT;
	sqlite3_stmt *s;
	size_t alloc = 0, i;
	int rc;

	/* items at least two of the annotators submitted */
	if (ag->screen)
		buf_addstr(&sql, "SELECT item_id FROM screen_labels WHERE "
			   "submitted_at IS NOT NULL AND member_id IN (SELECT "
			   "value FROM json_each(?1)) AND item_id IN (SELECT "
			   "item_id FROM screen_assignments WHERE round_id = "
			   "?2)");
	else if (ag->frozen)
		buf_addstr(&sql, "SELECT item_id FROM round_submissions WHERE "
			   "round_id = ?2 AND member_id IN (SELECT value FROM "
			   "json_each(?1))");
	else
		buf_addstr(&sql, "SELECT item_id FROM submissions WHERE "
			   "member_id IN (SELECT value FROM json_each(?1))");
	if (round_id && !ag->frozen && !ag->screen)
		buf_addstr(&sql, " AND item_id IN (SELECT item_id FROM "
			   "assignments WHERE round_id = ?2)");
	if (!round_id)
		buf_addstr(&sql, " AND " ACCESS_COUNTED_SQL("item_id"));
	buf_addstr(&sql, " GROUP BY item_id HAVING count(*) >= ?3 ORDER BY "
		   "item_id");
	s = store_prepare(st, sql.ptr, e);
	buf_release(&sql);
	if (!s)
		return -1;
	buf_addch(&sql, '[');
	for (i = 0; i < ag->nr_annotators; i++)
		buf_addf(&sql, "%s%lld", i ? "," : "", ag->annotator_ids[i]);
	buf_addch(&sql, ']');
	sqlite3_bind_text(s, 1, sql.ptr, -1, SQLITE_TRANSIENT);
	buf_release(&sql);
	if (round_id)
		sqlite3_bind_int64(s, 2, round_id);
	sqlite3_bind_int(s, 3, ag->nr_annotators == 2 ? 2 : 2);
	while ((rc = store_step(st, s, "loading submissions", e)) > 0) {
		ALLOC_GROW(g->units, g->n_units + 1, alloc);
		g->units[g->n_units++] = sqlite3_column_int64(s, 0);
	}
	sqlite3_finalize(s);
	if (rc < 0)
		return -1;
	return 0;
}

static int load_grid(struct store *st, struct agreement *ag,
		     const struct codebook *cb, long long round_id,
		     struct grid *g, struct err *e)
{
	sqlite3_stmt *s;
	size_t cells = g->n_units * g->n_coders, d, i;
	int rc;

	g->submitted = xcalloc(cells + 1, 1);
	g->one = xcalloc(ag->nr_dims + 1, sizeof(*g->one));
	g->many = xcalloc(ag->nr_dims + 1, sizeof(*g->many));
	for (d = 0; d < ag->nr_dims; d++) {
		g->one[d] = xmalloc((cells + 1) * sizeof(int));
		for (i = 0; i < cells; i++)
			g->one[d][i] = AGREE_MISSING;
		g->many[d] = xcalloc(cells + 1, sizeof(uint64_t));
	}
	s = store_prepare(st, ag->screen ? "SELECT item_id, member_id FROM "
			  "screen_labels WHERE submitted_at IS NOT NULL" :
			  ag->frozen ? "SELECT item_id, member_id FROM "
			  "round_submissions WHERE round_id = ?1" :
			  "SELECT item_id, member_id FROM submissions", e);
	if (!s)
		return -1;
	if (ag->frozen && !ag->screen)
		sqlite3_bind_int64(s, 1, round_id);
	while ((rc = store_step(st, s, "loading submissions", e)) > 0) {
		long u = unit_index(g, sqlite3_column_int64(s, 0));
		int c = coder_index(ag, sqlite3_column_int64(s, 1));

		if (u >= 0 && c >= 0)
			g->submitted[(size_t)c * g->n_units + (size_t)u] = 1;
	}
	sqlite3_finalize(s);
	if (rc < 0)
		return -1;

	s = store_prepare(st, ag->screen ? "SELECT item_id, member_id, '"
			  SCREENING_DIM "', code FROM screen_labels" :
			  ag->frozen ? "SELECT item_id, member_id, "
			  "dimension, code FROM round_labels WHERE round_id = "
			  "?1" : "SELECT item_id, member_id, dimension, code "
			  "FROM labels", e);
	if (!s)
		return -1;
	if (ag->frozen && !ag->screen)
		sqlite3_bind_int64(s, 1, round_id);
	while ((rc = store_step(st, s, "loading labels", e)) > 0) {
		long u = unit_index(g, sqlite3_column_int64(s, 0));
		int c = coder_index(ag, sqlite3_column_int64(s, 1));
		const char *dim = (const char *)sqlite3_column_text(s, 2);
		const char *code = (const char *)sqlite3_column_text(s, 3);
		size_t cell;
		int k;

		if (u < 0 || c < 0)
			continue;
		cell = (size_t)c * g->n_units + (size_t)u;
		if (!g->submitted[cell])
			continue;
		for (d = 0; d < ag->nr_dims; d++)
			if (!strcmp(ag->dims[d].dim->key, dim))
				break;
		if (d == ag->nr_dims)
			continue;
		k = dimension_code_index(ag->dims[d].dim, code);
		if (k < 0)
			continue;	/* not in the current codebook */
		if (ag->dims[d].dim->select_many) {
			if (k < AGREE_MULTI_MAX)
				g->many[d][cell] |= (uint64_t)1 << k;
		} else {
			g->one[d][cell] = k;
		}
	}
	sqlite3_finalize(s);
	(void)cb;
	if (rc < 0)
		return -1;
	return 0;
}

static void grid_release(struct grid *g, size_t nr_dims)
{
	size_t d;

	for (d = 0; g->one && d < nr_dims; d++) {
		free(g->one[d]);
		free(g->many[d]);
	}
	free(g->one);
	free(g->many);
	free(g->units);
	free(g->submitted);
	memset(g, 0, sizeof(*g));
}

static int compute_two(struct agreement_dim *ad, const struct grid *g,
		       size_t d, struct err *e)
{
	size_t n = g->n_units, u;
	int c;

	ad->per_code = xcalloc((size_t)ad->k + 1, sizeof(*ad->per_code));
	if (ad->dim->select_many) {
		uint64_t *a = xcalloc(n + 1, sizeof(*a));
		uint64_t *b = xcalloc(n + 1, sizeof(*b));
		size_t m = 0;
		int rc;

		for (u = 0; u < n; u++) {
			if (!g->submitted[u] || !g->submitted[n + u])
				continue;
			a[m] = g->many[d][u];
			b[m] = g->many[d][n + u];
			m++;
		}
		ad->n_items = m;
		rc = agree_multi(ad->k, a, b, m, ad->per_code, &ad->multi, e);
		free(a);
		free(b);
		return rc;
	}
	{
		int *a = xcalloc(n + 1, sizeof(int));
		int *b = xcalloc(n + 1, sizeof(int));
		size_t m = 0;
		int rc;

		for (u = 0; u < n; u++) {
			if (!g->submitted[u] || !g->submitted[n + u])
				continue;
			a[m] = g->one[d][u];
			b[m] = g->one[d][n + u];
			m++;
		}
		rc = agree_table_from_labels(&ad->table, ad->k, a, b, m,
					     &ad->n_dropped, e);
		free(a);
		free(b);
		if (rc < 0)
			return -1;
		ad->n_items = (size_t)agree_table_total(&ad->table);
		if (agree_cohen(&ad->table, &ad->cohen, e) < 0)
			return -1;
		for (c = 0; c < ad->k; c++)
			if (agree_code(&ad->table, c, &ad->per_code[c], e) < 0)
				return -1;
	}
	return 0;
}

/* Three or more coders on a select-many dimension: each code present or
 * absent, Fleiss' kappa per code and their mean, and the share of items
 * whose submitted sets are all identical. */
static int many_coders_sets(struct agreement *ag, struct agreement_dim *ad,
			    const struct grid *g, size_t d, struct err *e)
{
	size_t n = g->n_units, nc = ag->nr_annotators, c, u, same = 0;
	size_t units = 0;
	double sum = 0;
	int k, defined = 0;

	ad->per_code = xcalloc((size_t)ad->k + 1, sizeof(*ad->per_code));
	for (u = 0; u < n; u++) {
		uint64_t first = 0;
		int seen = 0, all = 1;

		for (c = 0; c < nc; c++) {
			size_t cell = c * n + u;

			if (!g->submitted[cell])
				continue;
			if (!seen++)
				first = g->many[d][cell];
			else if (first != g->many[d][cell])
				all = 0;
		}
		if (seen >= 2) {
			units++;
			same += all;
		}
	}
	for (k = 0; k < ad->k && k < AGREE_MULTI_MAX; k++) {
		struct agree_counts cnt = AGREE_COUNTS_INIT;
		struct agree_fleiss f;

		agree_counts_init(&cnt, n, 2);
		for (u = 0; u < n; u++)
			for (c = 0; c < nc; c++) {
				size_t cell = c * n + u;

				if (g->submitted[cell])
					cnt.n[u * 2 + (g->many[d][cell] >> k &
						       1)] += 1;
			}
		if (agree_fleiss(&cnt, &f, e) < 0) {
			agree_counts_release(&cnt);
			return -1;
		}
		agree_counts_release(&cnt);
		ad->per_code[k].kappa = f.kappa;
		if (f.kappa.defined) {
			sum += f.kappa.value;
			defined++;
		}
	}
	ad->n_items = units;
	ad->multi.n = units;
	ad->multi.k = ad->k;
	ad->multi.n_defined = defined;
	ad->multi.exact.defined = units > 0;
	ad->multi.exact.value = units ? (double)same / (double)units : 0;
	ad->multi.exact.why = units ? NULL : "no items";
	ad->multi.mean_kappa.defined = defined > 0;
	ad->multi.mean_kappa.value = defined ? sum / defined : 0;
	ad->multi.mean_kappa.why = defined ? NULL : "no code's kappa is "
				   "defined";
	return 0;
}

static int compute_many_coders(struct agreement *ag,
			       struct agreement_dim *ad, const struct grid *g,
			       size_t d, struct err *e)
{
	size_t n = g->n_units, nc = ag->nr_annotators, c, u, p = 0;
	int *v = xmalloc((n * nc + 1) * sizeof(int));
	struct agree_labels l;
	struct agree_counts counts = AGREE_COUNTS_INIT;
	int ret = -1;

	if (ad->dim->select_many) {
		free(v);
		return many_coders_sets(ag, ad, g, d, e);
	}
	for (c = 0; c < nc; c++)
		for (u = 0; u < n; u++) {
			size_t cell = c * n + u;

			v[cell] = g->submitted[cell] ? g->one[d][cell] :
				  AGREE_MISSING;
		}
	l.n_coders = (int)nc;
	l.n_units = n;
	l.k = ad->k;
	l.v = v;
	if (agree_counts_from_labels(&counts, &l, e) < 0 ||
	    agree_fleiss(&counts, &ad->fleiss, e) < 0 ||
	    agree_alpha(&counts, AGREE_NOMINAL, NULL, &ad->alpha, e) < 0 ||
	    agree_pairwise(&l, &ad->pairwise, e) < 0)
		goto out;
	ad->n_items = ad->fleiss.n_units;
	ad->nr_pairs = nc * (nc - 1) / 2;
	ad->pairs = xcalloc(ad->nr_pairs + 1, sizeof(*ad->pairs));
	for (c = 0; c < nc; c++) {
		size_t c2;

		for (c2 = c + 1; c2 < nc; c2++) {
			struct agree_table t = AGREE_TABLE_INIT;
			struct agreement_pair *pr = &ad->pairs[p++];

			pr->a = (int)c;
			pr->b = (int)c2;
			if (agree_table_from_labels(&t, ad->k, v + c * n,
						    v + c2 * n, n, NULL,
						    e) < 0)
				goto out;
			if (agree_cohen(&t, &pr->cohen, e) < 0) {
				agree_table_release(&t);
				goto out;
			}
			agree_table_release(&t);
		}
	}
	ret = 0;
	ad->labels = v;
	ad->n_units = n;
	v = NULL;
out:
	agree_counts_release(&counts);
	free(v);
	return ret;
}

/* A copy of a select-many dimension's sets and who submitted, for
 * core/study/headline (code groups). */
static void keep_sets(struct agreement_dim *ad, const struct grid *g,
		      size_t d)
{
	size_t cells = g->n_units * g->n_coders;

	ad->n_units = g->n_units;
	ad->sets = xcalloc(cells + 1, sizeof(*ad->sets));
	ad->present = xcalloc(cells + 1, 1);
	if (cells) {
		memcpy(ad->sets, g->many[d], cells * sizeof(*ad->sets));
		memcpy(ad->present, g->submitted, cells);
	}
}

int agreement_compute(struct store *st, const struct actor *a,
		      const struct codebook *cb, const char *round,
		      const char *dim, struct agreement *ag, struct err *e)
{
	struct grid g;
	struct round_info r;
	long long round_id = 0;
	size_t d, i, c;
	int ret = -1, blind;

	memset(ag, 0, sizeof(*ag));
	memset(&g, 0, sizeof(g));
	memset(&r, 0, sizeof(r));
	if (round) {
		if (round_get(st, round, &r, e) < 0)
			return -1;
		round_id = r.id;
	}
	if (r.screen) {
		/* a screening round: its question stands for the codebook */
		ag->screen = 1;
		ag->screen_cb = xcalloc(1, sizeof(*ag->screen_cb));
		if (screening_codebook_from(r.reasons, ag->screen_cb, e) < 0) {
			round_info_release(&r);
			agreement_release(ag);
			return -1;
		}
		cb = ag->screen_cb;
	}
	if (dim && !codebook_dim(cb, dim)) {
		err_set(e, ERR_INPUT, "--dimension %s: not in %s %s", dim,
			r.screen ? "the screening question of round" :
			"codebook", r.screen ? round : cb->name);
		round_info_release(&r);
		agreement_release(ag);
		return -1;
	}
	/* agreement pools everyone's labels: the actor must be allowed to
	 * see every annotator's work on the items it covers */
	if (!access_rule(a, 0, round != NULL, r.closed_at != NULL)) {
		round_info_release(&r);
		agreement_release(ag);
		return err_set(e, ERR_PERM, "agreement shows other annotators' "
			       "labels: %s may see it for a closed round "
			       "only (--round NAME)", a->name);
	}
	round_info_release(&r);
	ag->round = round ? xstrdup(round) : NULL;
	if (load_annotators(st, ag, round_id, e) < 0)
		goto out;
	/* the per-annotator counts and confusion grids would tell a blind
	 * adjudicator who chose what: the annotators go unnamed for them */
	if ((blind = access_blind(st, e)) < 0)
		goto out;
	if (!access_names_coders(a, blind, 0))
		for (c = 0; c < ag->nr_annotators; c++) {
			struct buf n = BUF_INIT;

			buf_addf(&n, "annotator %zu", c + 1);
			free(ag->annotators[c]);
			ag->annotators[c] = buf_detach(&n, NULL);
		}
	if (round_id && !ag->screen && load_record(st, ag, round_id, e) < 0)
		goto out;
	ag->dims = xcalloc(cb->nr_dims + 1, sizeof(*ag->dims));
	for (d = 0; d < cb->nr_dims; d++) {
		const struct dimension *dd = &cb->dims[d];

		if (dim && strcmp(dim, dd->key))
			continue;
		/* a closed round counts codes as its codebook had them */
		if (ag->frozen_cb && codebook_dim(ag->frozen_cb, dd->key))
			dd = codebook_dim(ag->frozen_cb, dd->key);
		ag->dims[ag->nr_dims].dim = dd;
		ag->dims[ag->nr_dims].k = (int)dd->nr_codes;
		ag->nr_dims++;
	}
	g.n_coders = ag->nr_annotators;
	if (ag->nr_annotators >= 2) {
		if (load_units(st, ag, round_id, &g, e) < 0 ||
		    load_grid(st, ag, cb, round_id, &g, e) < 0)
			goto out;
	}
	for (d = 0; d < ag->nr_dims; d++) {
		struct agreement_dim *ad = &ag->dims[d];

		ad->count = xcalloc((size_t)ad->k * (ag->nr_annotators + 1) +
				    1, sizeof(long));
		for (c = 0; c < ag->nr_annotators; c++)
			for (i = 0; i < g.n_units; i++) {
				size_t cell = c * g.n_units + i;
				int k;

				if (!g.submitted[cell])
					continue;
				if (ad->dim->select_many) {
					for (k = 0; k < ad->k &&
					     k < AGREE_MULTI_MAX; k++)
						if (g.many[d][cell] >> k & 1)
							ad->count[(size_t)k *
							ag->nr_annotators + c]++;
				} else if (g.one[d][cell] >= 0) {
					ad->count[(size_t)g.one[d][cell] *
						  ag->nr_annotators + c]++;
				}
			}
		if (ag->nr_annotators < 2) {
			agree_table_init(&ad->table, ad->k);
			if (agree_cohen(&ad->table, &ad->cohen, e) < 0)
				goto out;
			continue;
		}
		if (ad->dim->select_many)
			keep_sets(ad, &g, d);
		if (ag->nr_annotators == 2) {
			if (compute_two(ad, &g, d, e) < 0)
				goto out;
		} else if (compute_many_coders(ag, ad, &g, d, e) < 0) {
			goto out;
		}
	}
	ret = 0;
out:
	grid_release(&g, ag->nr_dims);
	if (ret < 0)
		agreement_release(ag);
	return ret;
}
