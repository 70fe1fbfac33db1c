/* SPDX-License-Identifier: MIT */
/*
 * replay_compare: compare a replayed table with the study's, row by row,
 * naming the first difference; and compare the study's schema with the
 * one its migrations make.  See replay.c for the whole check.
 */
#include "core/study/replay.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/study/access.h"
#include "core/study/adjudicate.h"
#include "core/base/buf.h"
#include "core/study/evolve.h"
#include "core/study/item.h"
#include "core/store/schema.sql.h"
#include "core/study/replay_int.h"

#define NR_SCHEMA_STEPS (sizeof(migrations) / sizeof(migrations[0]))

/* ---- the comparison ----------------------------------------------------- */

static int type_rank(int t)
{
	switch (t) {
	case SQLITE_NULL:
		return 0;
	case SQLITE_INTEGER:
	case SQLITE_FLOAT:
		return 1;
	case SQLITE_TEXT:
		return 2;
	default:
		return 3;
	}
}

/* Column i of `a` against column j of `b`, in SQLite's order (NULL,
 * numbers, text by bytes, blobs): <0, 0, >0. */
static int value_cmp(sqlite3_stmt *a, int i, sqlite3_stmt *b, int j)
{
	int ta = sqlite3_column_type(a, i), tb = sqlite3_column_type(b, j);
	int ra = type_rank(ta), rb = type_rank(tb);

	if (ra != rb)
		return ra - rb;
	if (ra == 0)
		return 0;
	if (ra == 1) {
		if (ta == SQLITE_INTEGER && tb == SQLITE_INTEGER) {
			sqlite3_int64 x = sqlite3_column_int64(a, i);
			sqlite3_int64 y = sqlite3_column_int64(b, j);

			return x < y ? -1 : x > y;
		} else {
			double x = sqlite3_column_double(a, i);
			double y = sqlite3_column_double(b, j);

			return x < y ? -1 : x > y;
		}
	}
	{
		const void *x = sqlite3_column_blob(a, i);
		int nx = sqlite3_column_bytes(a, i);
		const void *y = sqlite3_column_blob(b, j);
		int ny = sqlite3_column_bytes(b, j);
		int c = memcmp(x ? x : "", y ? y : "",
			       (size_t)(nx < ny ? nx : ny));

		return c ? c : nx - ny;
	}
}

/* One value for a message: cut short, quoted when `quote`, "none" for
 * NULL. */
static void show_value(struct buf *out, sqlite3_stmt *s, int i, int quote)
{
	const char *t;
	size_t n;

	switch (sqlite3_column_type(s, i)) {
	case SQLITE_NULL:
		buf_addstr(out, "none");
		return;
	case SQLITE_INTEGER:
	case SQLITE_FLOAT:
		buf_addstr(out, (const char *)sqlite3_column_text(s, i));
		return;
	}
	t = (const char *)sqlite3_column_text(s, i);
	n = strlen(t ? t : "");
	if (quote)
		buf_addch(out, '"');
	if (n > 48) {
		buf_add(out, t, 45);
		buf_addstr(out, "...");
	} else {
		buf_add(out, t ? t : "", n);
	}
	if (quote)
		buf_addch(out, '"');
}

/* A name for id `id` from `sql` (one row: a name, or repo and number) */
static void name_of(struct store *st, const char *sql, long long id,
		    struct buf *out)
{
	sqlite3_stmt *s = store_prepare(st, sql, NULL);

	if (s) {
		sqlite3_bind_int64(s, 1, id);
		/* a name for a message: unreadable, the id stands */
		if (store_step(st, s, "", NULL) > 0) {
			if (sqlite3_column_count(s) == 2) {
				char *n = item_name((const char *)
						    sqlite3_column_text(s, 0),
						    sqlite3_column_int64(s, 1));

				buf_addstr(out, n);
				free(n);
			} else {
				buf_addstr(out, (const char *)
					   sqlite3_column_text(s, 0));
			}
			sqlite3_finalize(s);
			return;
		}
		sqlite3_finalize(s);
	}
	buf_addf(out, "%lld", id);
}

/* "item o/r#1, member alice, dimension symptom": the key of the row of
 * `s`; with `all` 0, only its item and dimension (what anyone may be
 * told). */
static void describe_key(struct store *st, sqlite3_stmt *s, int nkey,
			 int all, struct buf *out)
{
	int i;

	for (i = 0; i < nkey; i++) {
		const char *col = sqlite3_column_name(s, i);
		long long id = sqlite3_column_int64(s, i);
		size_t start = out->len;

		if (out->len)
			buf_addstr(out, ", ");
		if (!strcmp(col, "item_id")) {
			buf_addstr(out, "item ");
			name_of(st, "SELECT repo, number FROM items WHERE id "
				"= ?1", id, out);
		} else if (!all && strcmp(col, "dimension")) {
			buf_setlen(out, start);
		} else if (!strcmp(col, "member_id") ||
			   !strcmp(col, "adjudicator_id")) {
			buf_addstr(out, "member ");
			name_of(st, "SELECT name FROM members WHERE id = ?1",
				id, out);
		} else if (!strcmp(col, "round_id")) {
			buf_addstr(out, "round ");
			name_of(st, "SELECT name FROM rounds WHERE id = ?1",
				id, out);
		} else {
			buf_addf(out, "%s ", col);
			show_value(out, s, i, 0);
		}
	}
}

/* The first difference in table `t`: 0 when none (c->compared counted),
 * 1 with c->what filled, -1 on a database error. */
int replay_compare_table(struct replay *rp, const struct table *t, int all)
{
	struct buf sql = BUF_INIT, order = BUF_INIT, msg = BUF_INIT;
	sqlite3_stmt *a = NULL, *b = NULL;
	int k, ha, hb, ret = -1;

	for (k = 1; k <= t->nkey; k++)
		buf_addf(&order, "%s%d", k > 1 ? ", " : "", k);
	buf_addf(&sql, "SELECT %s FROM main.%s%s%s ORDER BY %s", t->cols,
		 t->name, t->where ? " WHERE " : "", t->where ? t->where : "",
		 order.ptr);
	a = store_prepare(rp->st, sql.ptr, rp->e);
	buf_reset(&sql);
	buf_addf(&sql, "SELECT * FROM temp.r_%s ORDER BY %s", t->name,
		 order.ptr);
	b = a ? store_prepare(rp->st, sql.ptr, rp->e) : NULL;
	if (!b)
		goto out;
	ha = store_step(rp->st, a, "reading the study", rp->e);
	hb = ha < 0 ? -1 : store_step(rp->st, b, "reading the replay", rp->e);
	while (ha > 0 || hb > 0) {
		int cmp = 0, col = -1;

		if (ha < 0 || hb < 0)
			goto out;
		if (!ha)
			cmp = 1;
		else if (!hb)
			cmp = -1;
		for (k = 0; !cmp && k < t->nkey; k++)
			cmp = value_cmp(a, k, b, k);
		for (k = t->nkey; !cmp && k < sqlite3_column_count(b); k++)
			if (value_cmp(a, k, b, k)) {
				col = k;
				break;
			}
		if (cmp || col >= 0) {
			sqlite3_stmt *at = cmp > 0 ? b : a;

			buf_addf(&msg, "%s", t->name);
			{
				struct buf key = BUF_INIT;

				describe_key(rp->st, at, t->nkey, all, &key);
				if (key.len)
					buf_addf(&msg, " (%s)", key.ptr);
				buf_release(&key);
			}
			if (!all)
				buf_addstr(&msg, ": not what the audit log "
					   "gives (the owner's `bugcoder audit "
					   "verify` says how)");
			else if (cmp < 0)
				buf_addstr(&msg, ": in the study, not in what "
					   "the audit log gives");
			else if (cmp > 0)
				buf_addstr(&msg, ": in what the audit log "
					   "gives, not in the study");
			else {
				buf_addf(&msg, ": %s is ",
					 sqlite3_column_name(b, col));
				show_value(&msg, a, col, 1);
				buf_addstr(&msg, " in the study, ");
				show_value(&msg, b, col, 1);
				buf_addstr(&msg, " by the audit log");
			}
			rp->c->failed = REPLAY_STATE;
			snprintf(rp->c->what, sizeof(rp->c->what), "%s",
				 msg.ptr);
			ret = 1;
			goto out;
		}
		rp->c->compared++;
		ha = store_step(rp->st, a, "reading the study", rp->e);
		hb = ha < 0 ? -1 : store_step(rp->st, b, "reading the replay",
					      rp->e);
	}
	if (ha < 0 || hb < 0)
		goto out;
	ret = 0;
out:
	sqlite3_finalize(a);
	sqlite3_finalize(b);
	buf_release(&sql);
	buf_release(&order);
	buf_release(&msg);
	return ret;
}

/* ---- the schema --------------------------------------------------------- */

/* `sql` with its white space made one space, and none beside ( ) , ; */
static void normalize_sql(const char *sql, struct buf *out)
{
	const char *p;
	int space = 0;

	buf_reset(out);
	for (p = sql ? sql : ""; *p; p++) {
		if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') {
			space = 1;
			continue;
		}
		if (space && out->len && !strchr("(),;", *p) &&
		    !strchr("(,", out->ptr[out->len - 1]))
			buf_addch(out, ' ');
		space = 0;
		buf_addch(out, *p);
	}
}

#define SCHEMA_SQL "SELECT type, name, tbl_name, sql FROM %s WHERE name " \
	"NOT LIKE 'sqlite\\_stat%%' ESCAPE '\\' AND name <> " \
	"'sqlite_sequence' ORDER BY type, name"

int replay_check_schema(struct store *st, struct replay_check *c,
			struct err *e)
{
	struct store fresh;
	int fresh_open = 0;
	sqlite3_stmt *a = NULL, *b = NULL;
	struct buf sql = BUF_INIT, na = BUF_INIT, nb = BUF_INIT;
	size_t i;
	int ha, hb, ret = -1;

	if (store_open_bare(&fresh, e) < 0) {
		err_prefix(e, "checking the schema");
		goto out;
	}
	fresh_open = 1;
	for (i = 0; i < NR_SCHEMA_STEPS; i++)
		if (store_exec(&fresh, migrations[i], e) < 0) {
			err_prefix(e, "checking the schema: step %zu", i + 1);
			goto out;
		}
	buf_addf(&sql, SCHEMA_SQL, "main.sqlite_schema");
	a = store_prepare(st, sql.ptr, e);
	if (!a)
		goto out;
	b = store_prepare(&fresh, sql.ptr, e);
	if (!b)
		goto out;
	ha = store_step(st, a, "reading the schema", e);
	if ((hb = store_step(&fresh, b, "making the schema", e)) < 0)
		goto out;
	while (ha > 0 || hb) {
		int cmp = 0;

		if (ha < 0)
			goto out;
		if (!ha)
			cmp = 1;
		else if (!hb)
			cmp = -1;
		else if (!(cmp = value_cmp(a, 0, b, 0)))
			cmp = value_cmp(a, 1, b, 1);
		if (!cmp) {
			normalize_sql((const char *)sqlite3_column_text(a, 3),
				      &na);
			normalize_sql((const char *)sqlite3_column_text(b, 3),
				      &nb);
		}
		if (cmp || value_cmp(a, 2, b, 2) || strcmp(na.ptr, nb.ptr)) {
			sqlite3_stmt *at = cmp > 0 ? b : a;

			c->failed = REPLAY_SCHEMA;
			snprintf(c->what, sizeof(c->what), "the %s %s %s",
				 sqlite3_column_text(at, 0),
				 sqlite3_column_text(at, 1),
				 cmp > 0 ? "that bugcoder makes is missing "
				 "(dropped?)" : cmp < 0 ? "is not one bugcoder "
				 "makes (added?)" : "is not as bugcoder makes "
				 "it (altered?)");
			ret = 0;
			goto out;
		}
		c->schema_objects++;
		ha = store_step(st, a, "reading the schema", e);
		if ((hb = store_step(&fresh, b, "making the schema", e)) < 0)
			goto out;
	}
	if (ha < 0)
		goto out;
	ret = 0;
out:
	sqlite3_finalize(a);
	sqlite3_finalize(b);
	if (fresh_open)
		store_close(&fresh);
	buf_release(&sql);
	buf_release(&na);
	buf_release(&nb);
	return ret;
}

