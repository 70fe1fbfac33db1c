/* SPDX-License-Identifier: MIT */
/*
 * round_list: rounds read (one by name, all, those an actor may see),
 * what changed after a round closed, the codebook versions it used, and
 * round_info released.
 */
#include "core/study/round.h"

#include "core/study/access.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/buf.h"
#include "core/base/suggest.h"
#include "core/study/round_int.h"

static char *dup_col(sqlite3_stmt *s, int i)
{
	const char *t = (const char *)sqlite3_column_text(s, i);

	return t ? xstrdup(t) : NULL;
}

static int fill(struct store *st, sqlite3_stmt *s, struct round_info *r,
		struct err *e)
{
	sqlite3_stmt *q;
	size_t alloc = 0;
	int rc;

	memset(r, 0, sizeof(*r));
	r->id = sqlite3_column_int64(s, 0);
	r->name = dup_col(s, 1);
	r->spec = dup_col(s, 2);
	r->has_seed = sqlite3_column_type(s, 3) != SQLITE_NULL;
	r->seed = sqlite3_column_int64(s, 3);
	r->stratify = dup_col(s, 4);
	r->created_at = dup_col(s, 5);
	r->created_by = dup_col(s, 6);
	r->closed_at = dup_col(s, 7);
	r->closed_by = dup_col(s, 8);
	r->screen = !strcmp((const char *)sqlite3_column_text(s, 9),
			    "screen");
	r->reasons = dup_col(s, 10);
	q = store_prepare(st, "SELECT m.name FROM round_annotators ra JOIN "
			  "members m ON m.id = ra.member_id WHERE ra.round_id "
			  "= ? ORDER BY m.name", e);
	if (!q)
		return -1;
	sqlite3_bind_int64(q, 1, r->id);
	while ((rc = store_step(st, q, "reading a round", e)) > 0) {
		ALLOC_GROW(r->annotators, r->nr_annotators + 1, alloc);
		r->annotators[r->nr_annotators++] = dup_col(q, 0);
	}
	sqlite3_finalize(q);
	if (rc < 0)
		return -1;
	q = store_prepare(st, r->screen ?
			  "SELECT count(*), sum((SELECT count(*) FROM "
			  "screen_labels s JOIN round_annotators ra ON "
			  "ra.member_id = s.member_id AND ra.round_id = "
			  "a.round_id WHERE s.item_id = a.item_id AND "
			  "s.submitted_at IS NOT NULL) = ?2) FROM "
			  "screen_assignments a WHERE a.round_id = ?1" :
			  "SELECT count(*), sum((SELECT count(*) FROM "
			  "submissions s JOIN round_annotators ra ON "
			  "ra.member_id = s.member_id AND ra.round_id = "
			  "a.round_id WHERE s.item_id = a.item_id) = ?2) "
			  "FROM assignments a WHERE a.round_id = ?1", e);
	if (!q)
		return -1;
	sqlite3_bind_int64(q, 1, r->id);
	sqlite3_bind_int64(q, 2, (long long)r->nr_annotators);
	rc = store_step(st, q, "reading a round", e);
	if (rc > 0) {
		r->nr_items = (size_t)sqlite3_column_int64(q, 0);
		r->nr_complete = (size_t)sqlite3_column_int64(q, 1);
	}
	sqlite3_finalize(q);
	return rc < 0 ? -1 : 0;
}

#define ROUND_COLS "SELECT id, name, spec, seed, stratify, created_at, " \
	"created_by, closed_at, closed_by, kind, reasons FROM rounds "

int round_unknown(struct store *st, const char *what, const char *name,
		  struct err *e)
{
	sqlite3_stmt *s = store_prepare(st, "SELECT name FROM rounds ORDER BY "
					"id", e);
	struct suggest sg;
	struct buf near = BUF_INIT;
	int rc;

	if (!s)
		return -1;
	suggest_init(&sg, name);
	while ((rc = store_step(st, s, "listing rounds", e)) == 1)
		suggest_add(&sg, (const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	if (rc < 0) {
		suggest_release(&sg);
		return -1;
	}
	if (suggest_result(&sg))
		buf_set(&near, suggest_result(&sg));
	suggest_release(&sg);
	err_set(e, ERR_NOTFOUND, "%s: no such round", what);
	if (near.len)
		err_suggest(e, near.ptr);
	buf_release(&near);
	return -1;
}

int round_get(struct store *st, const char *name, struct round_info *out,
	      struct err *e)
{
	sqlite3_stmt *s = store_prepare(st, ROUND_COLS "WHERE name = ?", e);
	int rc, ret;

	memset(out, 0, sizeof(*out));
	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	rc = store_step(st, s, "reading a round", e);
	if (rc != 1) {
		sqlite3_finalize(s);
		if (rc == 0)
			return round_unknown(st, name, name, e);
		return -1;
	}
	ret = fill(st, s, out, e);
	sqlite3_finalize(s);
	if (ret < 0)
		round_info_release(out);	/* fill() left it half made */
	return ret;
}

int round_list(struct store *st, struct round_info **v, size_t *nr,
	       struct err *e)
{
	sqlite3_stmt *s = store_prepare(st, ROUND_COLS "ORDER BY id", e);
	size_t alloc = 0;
	int rc;

	*v = NULL;
	*nr = 0;
	if (!s)
		return -1;
	while ((rc = store_step(st, s, "reading rounds", e)) > 0) {
		ALLOC_GROW(*v, *nr + 1, alloc);
		if (fill(st, s, &(*v)[*nr], e) < 0) {
			sqlite3_finalize(s);
			round_list_free(*v, *nr + 1);
			*v = NULL;
			*nr = 0;
			return -1;
		}
		(*nr)++;
	}
	sqlite3_finalize(s);
	if (rc < 0) {
		round_list_free(*v, *nr);
		*v = NULL;
		*nr = 0;
		return -1;
	}
	return 0;
}

int round_list_for(struct store *st, const struct actor *a,
		   struct round_info **v, size_t *nr, struct err *e)
{
	sqlite3_stmt *s = NULL;
	size_t i;
	int rc = 0;

	if (round_list(st, v, nr, e) < 0)
		return -1;
	for (i = 0; i < *nr; i++) {
		struct round_info *r = &(*v)[i];

		/* how far the others are would show, item by item, when
		 * they submit: the same rule as their labels */
		if (access_rule(a, 0, 1, r->closed_at != NULL))
			continue;
		r->own_only = 1;
		r->nr_complete = 0;
		sqlite3_finalize(s);
		s = store_prepare(st, r->screen ? "SELECT count(*) FROM "
				  "screen_labels s JOIN screen_assignments a "
				  "ON a.item_id = s.item_id WHERE a.round_id = "
				  "? AND s.member_id = ? AND s.submitted_at IS "
				  "NOT NULL" : "SELECT count(*) FROM "
				  "submissions s JOIN assignments a ON "
				  "a.item_id = s.item_id WHERE "
				  "a.round_id = ? AND s.member_id = ?", e);
		if (!s)
			goto fail;
		sqlite3_reset(s);
		sqlite3_bind_int64(s, 1, r->id);
		sqlite3_bind_int64(s, 2, a->member_id);
		rc = store_step(st, s, "reading a round's progress", e);
		if (rc < 0)
			goto fail;
		if (rc > 0)
			r->nr_complete = (size_t)sqlite3_column_int64(s, 0);
	}
	sqlite3_finalize(s);
	return 0;
fail:
	sqlite3_finalize(s);
	round_list_free(*v, *nr);
	*v = NULL;
	*nr = 0;
	return -1;
}

int round_later_changes(struct store *st, const struct round_info *r,
			struct buf *out, struct err *e)
{
	sqlite3_stmt *s;
	int rc;

	if (!r->closed_at)
		return 0;
	s = store_prepare(st, "SELECT p.dimension, count(*) FROM labels l "
			  "JOIN proposals p ON p.id = l.proposal_id JOIN "
			  "assignments a ON a.item_id = l.item_id JOIN "
			  "round_annotators ra ON ra.round_id = a.round_id AND "
			  "ra.member_id = l.member_id WHERE a.round_id = ?1 AND "
			  "p.status <> 'open' AND p.decided_at > ?2 GROUP BY "
			  "p.dimension ORDER BY p.dimension", e);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, r->id);
	sqlite3_bind_text(s, 2, r->closed_at, -1, SQLITE_STATIC);
	while ((rc = store_step(st, s, "reading later decisions", e)) == 1) {
		int n = sqlite3_column_int(s, 1);

		buf_addf(out, "%s: %d label%s moved by proposals decided "
			 "after the round closed\n",
			 (const char *)sqlite3_column_text(s, 0), n,
			 n == 1 ? "" : "s");
	}
	sqlite3_finalize(s);
	if (rc < 0)
		return -1;
	s = store_prepare(st, "SELECT DISTINCT au.dimension, au.old FROM audit "
			  "au WHERE au.action = 'codebook.map' AND au.at > ?2 "
			  "AND EXISTS (SELECT 1 FROM labels l JOIN assignments "
			  "a ON a.item_id = l.item_id WHERE a.round_id = ?1 AND "
			  "l.dimension = au.dimension) ORDER BY au.id", e);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, r->id);
	sqlite3_bind_text(s, 2, r->closed_at, -1, SQLITE_STATIC);
	while ((rc = store_step(st, s, "reading later decisions", e)) == 1)
		buf_addf(out, "%s: code %s was mapped onto another after the "
			 "round closed\n",
			 (const char *)sqlite3_column_text(s, 0),
			 (const char *)sqlite3_column_text(s, 1));
	sqlite3_finalize(s);
	if (rc < 0)
		return -1;
	/* a code split since: its labels on the round's items went back
	 * to their coders, who recode them; the record keeps the figures */
	s = store_prepare(st, "SELECT rc.dimension, rc.old_code, count(*), "
			  "sum(rc.done_at IS NULL) FROM recodes rc JOIN "
			  "assignments a ON a.item_id = rc.item_id JOIN "
			  "round_annotators ra ON ra.round_id = a.round_id AND "
			  "ra.member_id = rc.member_id WHERE a.round_id = ?1 "
			  "AND rc.split_at >= ?2 GROUP BY rc.dimension, "
			  "rc.old_code ORDER BY min(rc.id)", e);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, r->id);
	sqlite3_bind_text(s, 2, r->closed_at, -1, SQLITE_STATIC);
	while ((rc = store_step(st, s, "reading later decisions", e)) == 1) {
		int n = sqlite3_column_int(s, 2);
		int left = sqlite3_column_int(s, 3);

		buf_addf(out, "%s: code %s was split after the round closed; "
			 "%d of its %d label%s await%s recoding (the round's "
			 "record keeps its figures)\n",
			 (const char *)sqlite3_column_text(s, 0),
			 (const char *)sqlite3_column_text(s, 1), left, n,
			 n == 1 ? "" : "s", left == 1 ? "s" : "");
	}
	sqlite3_finalize(s);
	if (rc < 0)
		return -1;
	return 0;
}

int round_codebook_versions(struct store *st, long long round_id,
			    struct buf *out, struct err *e)
{
	sqlite3_stmt *s;
	int rc, n = 0;

	s = store_prepare(st, round_id ? "SELECT DISTINCT l.codebook_version "
			  "FROM labels l JOIN assignments a ON a.item_id = "
			  "l.item_id JOIN round_annotators ra ON ra.round_id = "
			  "a.round_id AND ra.member_id = l.member_id WHERE "
			  "a.round_id = ?1 ORDER BY 1" : "SELECT DISTINCT "
			  "codebook_version FROM labels ORDER BY 1", e);
	if (!s)
		return -1;
	if (round_id)
		sqlite3_bind_int64(s, 1, round_id);
	while ((rc = store_step(st, s, "reading the round's codebook versions",
				e)) == 1)
		buf_addf(out, "%s%s", n++ ? ", " : "",
			 (const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	if (rc < 0)
		return -1;
	return 0;
}

void round_info_release(struct round_info *r)
{
	size_t i;

	if (!r)
		return;
	free(r->name);
	free(r->spec);
	free(r->stratify);
	free(r->created_at);
	free(r->created_by);
	free(r->closed_at);
	free(r->closed_by);
	free(r->reasons);
	for (i = 0; i < r->nr_annotators; i++)
		free(r->annotators[i]);
	free(r->annotators);
	memset(r, 0, sizeof(*r));
}

void round_list_free(struct round_info *v, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		round_info_release(&v[i]);
	free(v);
}
