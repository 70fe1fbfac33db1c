/* SPDX-License-Identifier: MIT */
/*
 * store: the study file's statements: prepared (and cached), bound,
 * stepped, run, and their errors told apart (busy, damaged, no
 * permission).  See store.h; the rest of the store is in store_open.c,
 * store_explain.c, store_tx.c, store_lock.c, store_check.c,
 * store_backup.c and store_meta.c (shared through store_int.h).
 *
 * Limitations: one process writes at a time (SQLite's rule); others wait
 * up to the busy timeout and then get ERR_BUSY, which the CLI reports as a
 * transient failure (exit 3).
 */
#include "core/store/store.h"

#include "core/base/buf.h"
#include "core/store/store_int.h"

/* Statements prepared, for the figures of store_write_stats(). */
static long long nr_prepares;

long long store_prepares(void)
{
	return nr_prepares;
}

int store_step_rc(sqlite3_stmt *s)
{
	return sqlite3_step(s);
}

int store_is_damage(int rc)
{
	return rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB;
}

int store_damaged(struct store *st)
{
	return st->db && store_is_damage(sqlite3_errcode(st->db));
}

/* The one message for a damaged study: why, whether anything was
 * written (`writing`: a write the caller gives up), and what to do. */
int store_damage_msg(struct store *st, struct err *e, const char *why,
		     int writing)
{
	return err_set(e, ERR_DB, "%s: the study is damaged (%.300s)%s: "
		       "restore it from a backup (`bugcoder doctor` runs the "
		       "full check)", st->path ? st->path : "study", why,
		       writing ? "; nothing was written" : "");
}

static int damaged_error(struct store *st, struct err *e, const char *what,
			 const char *msg)
{
	struct buf why = BUF_INIT;

	buf_addf(&why, "%s: %s", what, msg);
	/* a study found damaged as it is opened: whatever the command was
	 * to do, it did nothing */
	store_damage_msg(st, e, why.ptr, st->depth > 0 || st->will_write ||
			 !st->commits);
	buf_release(&why);
	return -1;
}

int store_damage(struct store *st, struct err *e, const char *why)
{
	store_damage_msg(st, e, why, st->depth > 0 || st->will_write ||
			 !st->commits);
	return -1;
}

int store_error(struct store *st, struct err *e, const char *what)
{
	int rc = sqlite3_errcode(st->db);
	int code = (rc == SQLITE_BUSY || rc == SQLITE_LOCKED) ? ERR_BUSY :
		   ERR_DB;

	if (store_is_damage(rc))
		return damaged_error(st, e, what, sqlite3_errmsg(st->db));
	if ((rc == SQLITE_READONLY || rc == SQLITE_CANTOPEN ||
	     rc == SQLITE_PERM) && st->path &&
	    store_explain_access(st->path, rc == SQLITE_READONLY, e) < 0)
		return -1;	/* the message says what it could not do */
	if (code == ERR_BUSY)
		return err_set(e, code, "%s: the study is busy (another "
			       "bugcoder is writing); try again", what);
	return err_set(e, code, "%s: %s", what, sqlite3_errmsg(st->db));
}

int store_step(struct store *st, sqlite3_stmt *s, const char *what,
	       struct err *e)
{
	int rc = sqlite3_step(s);

	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	return store_error(st, e, what);
}

int store_step_done(struct store *st, sqlite3_stmt *s, const char *what,
		    struct err *e)
{
	int rc = store_step(st, s, what, e);

	if (rc > 0)
		return err_set(e, ERR_DB, "%s: the statement returned a row "
			       "where none was due", what);
	return rc;
}

void store_small_cache(struct store *st)
{
	store_exec(st, "PRAGMA cache_size = -512", NULL);
}

int store_exec(struct store *st, const char *sql, struct err *e)
{
	char *msg = NULL;

	if (sqlite3_exec(st->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		int rc = sqlite3_errcode(st->db);

		if ((rc == SQLITE_READONLY || rc == SQLITE_CANTOPEN ||
		     rc == SQLITE_PERM) && st->path &&
		    store_explain_access(st->path, rc == SQLITE_READONLY,
					 e) < 0) {
			sqlite3_free(msg);
			return -1;
		}
		if (store_is_damage(rc)) {
			damaged_error(st, e, "running a statement", msg ? msg :
				      sqlite3_errmsg(st->db));
			sqlite3_free(msg);
			return -1;
		}
		err_set(e, (rc == SQLITE_BUSY || rc == SQLITE_LOCKED) ?
			ERR_BUSY : ERR_DB, "%s: %s", st->path ? st->path :
			"study", msg ? msg : sqlite3_errmsg(st->db));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

sqlite3_stmt *store_prepare(struct store *st, const char *sql, struct err *e)
{
	sqlite3_stmt *s = NULL;

	nr_prepares++;
	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK) {
		store_error(st, e, "preparing a query");
		return NULL;
	}
	return s;
}

sqlite3_stmt *store_cached(struct store *st, const char *sql, struct err *e)
{
	struct store_stmt *c;
	size_t i;

	for (i = 0; i < st->nr_cache; i++) {
		c = &st->cache[i];
		if (c->sql != sql)
			continue;
		if (sqlite3_stmt_busy(c->s)) {
			err_set(e, ERR_DB, "a cached statement is still in "
				"use: %.60s", sql);
			return NULL;
		}
		sqlite3_reset(c->s);
		sqlite3_clear_bindings(c->s);
		return c->s;
	}
	nr_prepares++;
	ALLOC_GROW(st->cache, st->nr_cache + 1, st->alloc_cache);
	c = &st->cache[st->nr_cache];
	if (sqlite3_prepare_v3(st->db, sql, -1, SQLITE_PREPARE_PERSISTENT,
			       &c->s, NULL) != SQLITE_OK) {
		store_error(st, e, "preparing a query");
		return NULL;
	}
	c->sql = sql;
	st->nr_cache++;
	return c->s;
}

void store_done(sqlite3_stmt *s)
{
	if (s)
		sqlite3_reset(s);
}

int store_bind_text(sqlite3_stmt *s, int i, const char *text)
{
	if (!text)
		return sqlite3_bind_null(s, i);
	return sqlite3_bind_text(s, i, text, -1, SQLITE_TRANSIENT);
}

int store_bind_static(sqlite3_stmt *s, int i, const char *text)
{
	if (!text)
		return sqlite3_bind_null(s, i);
	return sqlite3_bind_text(s, i, text, -1, SQLITE_STATIC);
}
