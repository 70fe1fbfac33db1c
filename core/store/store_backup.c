/* SPDX-License-Identifier: MIT */
/*
 * store_backup: a copy of the study made with SQLite's online backup,
 * under a temporary name until it is whole and has passed the full
 * check.
 */
#include "core/store/store.h"

#include <string.h>

#include "core/base/buf.h"
#include "core/base/partial.h"
#include "core/store/store_int.h"
#include "core/store/vfs.h"

/* integrity_check on the copy `db`: 0, -1 with `problem` saying what is
 * wrong, or -2 when the check could not run through (interrupted, out of
 * memory, an I/O error) with `problem` saying why. */
static int copy_check(sqlite3 *db, struct buf *problem)
{
	sqlite3_stmt *s;
	int rc, n = 0;

	if (sqlite3_prepare_v2(db, "PRAGMA integrity_check(20)", -1, &s,
			       NULL) != SQLITE_OK) {
		buf_addstr(problem, sqlite3_errmsg(db));
		return store_is_damage(sqlite3_errcode(db)) ? -1 : -2;
	}
	while ((rc = store_step_rc(s)) == SQLITE_ROW) {
		const char *t = (const char *)sqlite3_column_text(s, 0);

		if (t && !strcmp(t, "ok"))
			continue;
		if (n++ == 0)
			buf_addstr(problem, t ? t : "?");
	}
	if (rc != SQLITE_DONE && !n)
		buf_addstr(problem, sqlite3_errmsg(db));
	sqlite3_finalize(s);
	if (n > 1)
		buf_addstr(problem, ", and more");
	if (!n && rc != SQLITE_DONE && !store_is_damage(rc))
		return -2;	/* not run through: says nothing of damage */
	return rc == SQLITE_DONE && !n ? 0 : -1;
}

int store_backup(struct store *st, const char *path, struct err *e)
{
	struct partial part = PARTIAL_INIT;
	sqlite3 *dst = NULL;
	sqlite3_backup *b = NULL;
	struct buf plain = BUF_INIT, problem = BUF_INIT;
	int rc, ret = -1;

	/* written under a temporary name (core/base/partial), so a backup
	 * killed mid-way leaves nothing under `path` */
	if (partial_open(&part, path, e) < 0)
		return -1;
	if (sqlite3_open_v2(store_plain_name(part.tmp, &plain), &dst,
			    SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
			    VFS_PLAIN) != SQLITE_OK) {
		err_set(e, ERR_IO, "%s: %s", path, dst ? sqlite3_errmsg(dst) :
			"cannot open");
		goto out;
	}
	/* private until it is whole: no journal, no syncs but the last */
	if (sqlite3_exec(dst, "PRAGMA journal_mode = OFF; "
			 "PRAGMA synchronous = OFF", NULL, NULL, NULL) !=
	    SQLITE_OK) {
		err_set(e, ERR_IO, "%s: %s", path, sqlite3_errmsg(dst));
		goto out;
	}
	b = sqlite3_backup_init(dst, "main", st->db, "main");
	if (!b) {
		err_set(e, ERR_DB, "%s: %s", path, sqlite3_errmsg(dst));
		goto out;
	}
	/* in steps, so a writer waits at most one step */
	while ((rc = sqlite3_backup_step(b, 256)) == SQLITE_OK ||
	       rc == SQLITE_BUSY || rc == SQLITE_LOCKED)
		if (rc != SQLITE_OK)
			sqlite3_sleep(20);
	sqlite3_backup_finish(b);
	b = NULL;
	if (rc != SQLITE_DONE) {
		err_set(e, rc == SQLITE_FULL || rc == SQLITE_IOERR ? ERR_IO :
			ERR_DB, "%s: backup failed: %s", path,
			sqlite3_errstr(rc));
		goto out;
	}
	if (sqlite3_exec(dst, "PRAGMA journal_mode = DELETE", NULL, NULL,
			 NULL) != SQLITE_OK) {
		err_set(e, ERR_IO, "%s: %s", path, sqlite3_errmsg(dst));
		goto out;
	}
	/* the full check, on the copy just written (its pages are the
	 * study's): a damaged study gives no backup that looks sound */
	rc = copy_check(dst, &problem);
	if (rc == -2) {
		err_set(e, ERR_DB, "%s: checking the copy failed (%.300s); no "
			"copy was kept", path, problem.ptr);
		goto out;
	}
	if (rc < 0) {
		err_set(e, ERR_DB, "%s: the study is damaged (%.300s); no "
			"copy was kept: restore it from an earlier backup "
			"(`bugcoder doctor` runs the full check)", st->path,
			problem.ptr);
		goto out;
	}
	store_note_check(st);
	ret = 0;
out:
	if (dst && sqlite3_close(dst) != SQLITE_OK && ret == 0)
		ret = err_set(e, ERR_IO, "%s: closing the copy failed", path);
	if (ret == 0)
		ret = partial_publish(&part, e);
	else
		partial_abort(&part);
	buf_release(&plain);
	buf_release(&problem);
	return ret;
}
