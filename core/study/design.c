/* SPDX-License-Identifier: MIT */
/*
 * design: see design.h.
 */
#include "core/study/design.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/study/access.h"
#include "core/study/consensus.h"
#include "core/study/item.h"
#include "core/study/recode.h"
#include "core/study/screening.h"

void design_counts_release(struct design_counts *c)
{
	if (!c)
		return;
	free(c->coding_rounds);
	memset(c, 0, sizeof(*c));
}

int design_count(struct store *st, struct design_counts *c, struct err *e)
{
	sqlite3_stmt *s;
	struct buf names = BUF_INIT;
	int rc;

	memset(c, 0, sizeof(*c));
	s = store_prepare(st,
		"SELECT count(*), coalesce(sum(i.missing), 0), "
		" EXISTS (SELECT 1 FROM rounds), EXISTS (SELECT 1 FROM rounds "
		" WHERE kind = 'screen'), "
		" coalesce(sum(" ACCESS_COUNTED_SQL("i.id") "), 0), "
		" coalesce(sum(NOT i.missing AND i.id NOT IN (SELECT item_id "
		"  FROM assignments) AND i.id NOT IN (SELECT item_id FROM "
		"  screen_assignments)), 0), "
		" coalesce(sum(i.id NOT IN (SELECT item_id FROM assignments) "
		"  AND i.id IN (SELECT item_id FROM screen_decisions WHERE "
		"  code = 'include')), 0), "
		" coalesce(sum(i.id IN (SELECT item_id FROM screen_assignments) "
		"  AND i.id NOT IN (SELECT item_id FROM assignments) AND i.id "
		"  NOT IN (SELECT item_id FROM screen_decisions)), 0), "
		" coalesce(sum(i.id IN (SELECT item_id FROM screen_decisions "
		"  WHERE code <> 'include')), 0), "
		" (SELECT count(DISTINCT item_id) FROM recodes WHERE done_at IS "
		"  NULL AND " ACCESS_COUNTED_SQL("item_id") ") "
		"FROM items i", e);
	if (!s)
		return -1;
	rc = store_step(st, s, "counting the study's items", e);
	if (rc > 0) {
		c->items = sqlite3_column_int64(s, 0);
		c->missing = sqlite3_column_int64(s, 1);
		c->rounds = sqlite3_column_int(s, 2);
		c->screens = sqlite3_column_int(s, 3);
		c->counted = sqlite3_column_int64(s, 4);
		if (c->rounds) {
			c->in_no_round = sqlite3_column_int64(s, 5);
			c->waiting = sqlite3_column_int64(s, 6);
			c->screening = sqlite3_column_int64(s, 7);
			c->outside = c->in_no_round + c->waiting +
				     c->screening;
		}
		c->excluded = sqlite3_column_int64(s, 8);
		c->recoding = sqlite3_column_int64(s, 9);
	}
	sqlite3_finalize(s);
	if (rc < 0)
		return -1;
	s = store_prepare(st, "SELECT name FROM rounds WHERE kind = 'code' "
			  "ORDER BY id", e);
	if (!s)
		return -1;
	while ((rc = store_step(st, s, "reading rounds", e)) > 0)
		buf_addf(&names, "%s%s", names.len ? ", " : "",
			 (const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	if (rc < 0) {
		buf_release(&names);
		return -1;
	}
	c->coding_rounds = buf_detach(&names, NULL);
	return 0;
}

static const char *s_(long n)
{
	return n == 1 ? "" : "s";
}

int design_scope(struct store *st, const char *round, struct buf *out,
		 struct err *e)
{
	struct design_counts c;
	sqlite3_stmt *s;
	int rc;

	if (round) {
		long n = 0;
		int screen = 0;

		s = store_prepare(st, "SELECT r.kind = 'screen', CASE r.kind "
				  "WHEN 'screen' THEN (SELECT count(*) FROM "
				  "screen_assignments WHERE round_id = r.id) "
				  "ELSE (SELECT count(*) FROM assignments WHERE "
				  "round_id = r.id) END FROM rounds r WHERE "
				  "r.name = ?", e);
		if (!s)
			return -1;
		sqlite3_bind_text(s, 1, round, -1, SQLITE_STATIC);
		rc = store_step(st, s, "reading the round", e);
		if (rc > 0) {
			screen = sqlite3_column_int(s, 0);
			n = sqlite3_column_int64(s, 1);
		}
		sqlite3_finalize(s);
		if (rc < 0)
			return -1;
		buf_addf(out, "Items counted: the %ld item%s of %sround %s%s\n",
			 n, s_(n), screen ? "screening " : "", round,
			 screen ? " (their inclusion)" : "");
		return screen ? 0 : recode_describe(st, round, out, NULL, e);
	}
	if (design_count(st, &c, e) < 0)
		return -1;
	if (!c.rounds) {
		buf_addf(out, "Items counted: every item, %ld (open coding: "
			 "the study has no round yet)\n", c.counted);
	} else {
		buf_addf(out, "Items counted: the %ld item%s of the coding "
			 "rounds (%s)", c.counted, s_(c.counted),
			 *c.coding_rounds ? c.coding_rounds : "none yet");
		if (c.outside) {
			int k = 0;

			buf_addf(out, "; %ld item%s outside every coding round "
				 "%s left out (", c.outside, s_(c.outside),
				 c.outside == 1 ? "is" : "are");
			if (c.in_no_round)
				buf_addf(out, "%s%ld in no round", k++ ? ", " :
					 "", c.in_no_round);
			if (c.waiting)
				buf_addf(out, "%s%ld screened in, waiting for "
					 "a coding round", k++ ? ", " : "",
					 c.waiting);
			if (c.screening)
				buf_addf(out, "%s%ld not decided in screening "
					 "yet", k++ ?
					 ", " : "", c.screening);
			buf_addch(out, ')');
		}
		if (c.excluded)
			buf_addf(out, "; %ld screened out", c.excluded);
		if (c.missing)
			buf_addf(out, "; %ld never fetched", c.missing);
		buf_addstr(out, "\n");
	}
	design_counts_release(&c);
	return recode_describe(st, NULL, out, NULL, e);
}

void flow_release(struct flow *f)
{
	size_t i;

	if (!f)
		return;
	for (i = 0; i < f->nr_reasons; i++)
		free(f->reasons[i]);
	free(f->reasons);
	for (i = 0; i < f->nr_rows; i++) {
		free(f->rows[i].repo);
		free(f->rows[i].excluded);
	}
	free(f->rows);
	memset(f, 0, sizeof(*f));
}

static void add_reason(struct flow *f, const char *r, size_t *alloc)
{
	size_t i;

	for (i = 0; i < f->nr_reasons; i++)
		if (!strcmp(f->reasons[i], r))
			return;
	ALLOC_GROW(f->reasons, f->nr_reasons + 1, *alloc);
	f->reasons[f->nr_reasons++] = xstrdup(r);
}

/* The exclusion reasons of every screening round, in round order, and
 * any other a decision used. */
static int load_reasons(struct store *st, struct flow *f, struct err *e)
{
	sqlite3_stmt *s;
	size_t alloc = 0;
	int rc;

	s = store_prepare(st, "SELECT reasons FROM rounds WHERE kind = "
			  "'screen' ORDER BY id", e);
	if (!s)
		return -1;
	while ((rc = store_step(st, s, "reading rounds", e)) > 0) {
		const char *j = (const char *)sqlite3_column_text(s, 0);
		cJSON *arr = j ? cJSON_Parse(j) : NULL, *it;

		f->screens = 1;
		cJSON_ArrayForEach(it, arr)
			if (cJSON_IsString(it))
				add_reason(f, it->valuestring, &alloc);
		cJSON_Delete(arr);
	}
	sqlite3_finalize(s);
	if (rc < 0)
		return -1;
	s = store_prepare(st, "SELECT DISTINCT code FROM screen_decisions "
			  "WHERE code <> 'include' ORDER BY code", e);
	if (!s)
		return -1;
	while ((rc = store_step(st, s, "reading decisions", e)) > 0)
		add_reason(f, (const char *)sqlite3_column_text(s, 0), &alloc);
	sqlite3_finalize(s);
	return rc < 0 ? -1 : 0;
}

static struct flow_row *row_of(struct flow *f, const char *repo,
			       size_t *alloc)
{
	size_t i;

	for (i = 0; i + 1 < f->nr_rows; i++)
		if (!strcmp(f->rows[i].repo, repo))
			return &f->rows[i];
	/* a new repository goes before the last row (the whole study) */
	ALLOC_GROW(f->rows, f->nr_rows + 1, *alloc);
	f->rows[f->nr_rows] = f->rows[f->nr_rows - 1];
	memset(&f->rows[f->nr_rows - 1], 0, sizeof(*f->rows));
	f->rows[f->nr_rows - 1].repo = xstrdup(repo);
	f->rows[f->nr_rows - 1].excluded = xcalloc(f->nr_reasons + 1,
						   sizeof(long));
	f->rows[f->nr_rows - 1].screened = f->screens ? 0 : -1;
	f->rows[f->nr_rows - 1].included = f->screens ? 0 : -1;
	f->nr_rows++;
	return &f->rows[f->nr_rows - 2];
}

static void tally(struct flow *f, struct flow_row *r, long seen, long fix,
		  long screened, long included, const char *reason)
{
	struct flow_row *all = &f->rows[f->nr_rows - 1];
	struct flow_row *t[2] = { r, all };
	size_t k, i;

	for (k = 0; k < 2; k++) {
		t[k]->seen += seen;
		t[k]->with_fix += fix;
		if (f->screens) {
			t[k]->screened += screened;
			t[k]->included += included;
		}
		for (i = 0; reason && i < f->nr_reasons; i++)
			if (!strcmp(f->reasons[i], reason))
				t[k]->excluded[i]++;
	}
}

int design_flow(struct store *st, const struct actor *a,
		const struct codebook *cb, struct flow *f, struct err *e)
{
	struct consensus_iter it;
	sqlite3_stmt *s;
	size_t alloc = 0, d;
	int rc, ret = -1;

	memset(f, 0, sizeof(*f));
	memset(&it, 0, sizeof(it));
	if (load_reasons(st, f, e) < 0)
		goto out;
	ALLOC_GROW(f->rows, 1, alloc);
	memset(&f->rows[0], 0, sizeof(*f->rows));
	f->rows[0].excluded = xcalloc(f->nr_reasons + 1, sizeof(long));
	f->rows[0].screened = f->screens ? 0 : -1;
	f->rows[0].included = f->screens ? 0 : -1;
	f->nr_rows = 1;
	/* the selection: every item, whatever it shows of anyone's work */
	s = store_prepare(st, "SELECT i.repo, i.has_fix, d.code FROM items i "
			  "LEFT JOIN screen_decisions d ON d.item_id = i.id "
			  "ORDER BY i.repo, i.id", e);
	if (!s)
		goto out;
	while ((rc = store_step(st, s, "reading items", e)) > 0) {
		const char *dec = (const char *)sqlite3_column_text(s, 2);
		struct flow_row *r = row_of(f, (const char *)
					    sqlite3_column_text(s, 0), &alloc);
		int in = dec && !strcmp(dec, SCREENING_INCLUDE);

		tally(f, r, 1, sqlite3_column_int(s, 1) != 0, dec != NULL, in,
		      dec && !in ? dec : NULL);
	}
	sqlite3_finalize(s);
	if (rc < 0)
		goto out;
	/* the coding: core/study/consensus's decision, item by item */
	if (consensus_open(&it, st, a, cb, NULL, e) < 0)
		goto out;
	consensus_skip_fixes(&it);
	while ((rc = consensus_next(&it, e)) > 0) {
		const struct consensus_item *t = &it.item;
		struct flow_row *r[2];
		int resolved = 0;
		size_t k;

		if (!t->ready)
			continue;
		r[0] = row_of(f, t->repo, &alloc);
		r[1] = &f->rows[f->nr_rows - 1];
		for (d = 0; d < cb->nr_dims; d++)
			resolved |= t->dims[d].status == DIM_RESOLVED;
		for (k = 0; k < 2; k++) {
			r[k]->coded++;
			if (!t->complete)
				r[k]->open++;
			else if (resolved)
				r[k]->adjudicated++;
			else
				r[k]->agreed++;
		}
	}
	if (rc < 0)
		goto out;
	ret = 0;
out:
	consensus_close(&it);
	if (ret < 0)
		flow_release(f);
	return ret;
}

/* What core/study/consensus decided of an item (index: item id). */
enum {
	CODED = 1 << 0,
	AGREED = 1 << 1,
	ADJUDICATED = 1 << 2,
	OPEN = 1 << 3,
};

int design_items(struct store *st, const struct actor *a,
		 const struct codebook *cb,
		 int (*fn)(const struct design_item *it, void *data),
		 void *data, struct err *e)
{
	struct consensus_iter it;
	unsigned char *mark = NULL;
	long long max_id = 0;
	sqlite3_stmt *s;
	int rc, stop = 0, ret = -1;

	memset(&it, 0, sizeof(it));
	s = store_prepare(st, "SELECT coalesce(max(id), 0) FROM items", e);
	if (!s)
		return -1;
	rc = store_step(st, s, "reading items", e);
	if (rc > 0)
		max_id = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	if (rc < 0)
		return -1;
	mark = xcalloc((size_t)max_id + 1, 1);
	if (consensus_open(&it, st, a, cb, NULL, e) < 0)
		goto out;
	consensus_skip_fixes(&it);
	while ((rc = consensus_next(&it, e)) > 0) {
		const struct consensus_item *t = &it.item;
		int resolved = 0;
		size_t d;

		if (!t->ready || t->id < 1 || t->id > max_id)
			continue;
		for (d = 0; d < cb->nr_dims; d++)
			resolved |= t->dims[d].status == DIM_RESOLVED;
		mark[t->id] = CODED | (!t->complete ? OPEN : resolved ?
				       ADJUDICATED : AGREED);
	}
	consensus_close(&it);
	if (rc < 0)
		goto out;
	s = store_prepare(st, "SELECT i.id, i.repo, i.number, i.missing, "
			  "i.has_fix, sr.name, d.code, d.how, d.rationale, "
			  "r.name, " ACCESS_COUNTED_SQL("i.id") " FROM items i "
			  "LEFT JOIN screen_assignments sa ON sa.item_id = i.id "
			  "LEFT JOIN rounds sr ON sr.id = sa.round_id LEFT JOIN "
			  "screen_decisions d ON d.item_id = i.id LEFT JOIN "
			  "assignments a ON a.item_id = i.id LEFT JOIN rounds r "
			  "ON r.id = a.round_id ORDER BY i.id", e);
	if (!s)
		goto out;
	while (!stop && (rc = store_step(st, s, "reading items", e)) > 0) {
		struct design_item di;
		long long id = sqlite3_column_int64(s, 0);
		unsigned char m = id >= 1 && id <= max_id ? mark[id] : 0;
		char *name = item_name((const char *)sqlite3_column_text(s, 1),
				       sqlite3_column_int64(s, 2));

		di.item = name;
		di.repo = (const char *)sqlite3_column_text(s, 1);
		di.missing = sqlite3_column_int(s, 3);
		di.with_fix = sqlite3_column_int(s, 4) != 0;
		di.screen_round = (const char *)sqlite3_column_text(s, 5);
		di.decision = (const char *)sqlite3_column_text(s, 6);
		di.how = (const char *)sqlite3_column_text(s, 7);
		di.rationale = (const char *)sqlite3_column_text(s, 8);
		di.coding_round = (const char *)sqlite3_column_text(s, 9);
		di.counted = sqlite3_column_int(s, 10);
		di.coded = (m & CODED) != 0;
		di.status = !(m & CODED) ? NULL : (m & OPEN) ? "open" :
			    (m & ADJUDICATED) ? "adjudicated" : "agreed";
		stop = fn(&di, data);
		free(name);
	}
	sqlite3_finalize(s);
	if (stop) {
		ret = stop;
		goto out;
	}
	if (rc < 0)
		goto out;
	ret = 0;
out:
	free(mark);
	return ret;
}
