/* SPDX-License-Identifier: MIT */
/*
 * store_check: the study's pages checked (quick or full), and the full
 * check run at the first write when it is due: after an unclean stop or
 * a day after the last one that passed, whose time the study keeps.
 */
#include "core/store/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/base/buf.h"
#include "core/store/store_int.h"

#define DAILY_CHECK_SECONDS (24 * 60 * 60)
#define CHECKED_AT_KEY "integrity_checked_at"

/* store_check(), saying "nothing was written" when `writing`. */
int store_check_pages(struct store *st, int full, int writing,
		      struct err *e)
{
	sqlite3_stmt *s;
	struct buf msg = BUF_INIT, why = BUF_INIT;
	int rc, n = 0, ret = 0;

	s = store_prepare(st, full ? "PRAGMA integrity_check(20)" :
			  "PRAGMA quick_check(20)", e);
	if (!s) {
		/* a file too damaged to prepare on is damaged */
		buf_addf(&why, "checking the study: %s",
			 sqlite3_errmsg(st->db));
		ret = store_damage_msg(st, e, why.ptr, writing);
		goto out;
	}
	while ((rc = store_step_rc(s)) == SQLITE_ROW) {
		const char *t = (const char *)sqlite3_column_text(s, 0);

		if (t && !strcmp(t, "ok"))
			continue;
		if (n++ < 1)
			buf_addstr(&msg, t ? t : "?");
	}
	if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED ||
	    rc == SQLITE_INTERRUPT || rc == SQLITE_NOMEM) {
		/* the check did not run through: it says nothing of the
		 * pages it did not read */
		ret = store_error(st, e, "checking the study");
	} else if (rc != SQLITE_DONE) {
		buf_addf(&why, "checking the study: %s",
			 sqlite3_errmsg(st->db));
		ret = store_damage_msg(st, e, why.ptr, writing);
	} else if (n) {
		buf_addf(&why, "%s%s", msg.ptr, n > 1 ? ", and more" : "");
		ret = store_damage_msg(st, e, why.ptr, writing);
	}
out:
	sqlite3_finalize(s);
	buf_release(&msg);
	buf_release(&why);
	return ret;
}

int store_check(struct store *st, int full, struct err *e)
{
	return store_check_pages(st, full, 0, e);
}

/* "2024-01-02T03:04:05Z" as seconds since the epoch, or -1. */
static long long iso_seconds(const char *s)
{
	struct tm tm;
	char z = 0;

	memset(&tm, 0, sizeof(tm));
	if (!s || sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%c", &tm.tm_year,
			 &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
			 &tm.tm_sec, &z) != 7 || z != 'Z')
		return -1;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	return (long long)timegm(&tm);
}

/* Is the full check recorded at `last` (NULL: never) a day old? */
static int check_is_old(const char *last)
{
	char now[32];
	long long a, b;

	store_now(now);
	a = iso_seconds(last);
	b = iso_seconds(now);
	return a < 0 || b < 0 || b - a >= DAILY_CHECK_SECONDS;
}

/* The full check at the first write of a connection, when it is due:
 * after an unclean stop, or a day after the last one.  *record is set
 * when it ran and passed (the caller records it once it holds the write
 * lock).  0, or -1 with `e` filled. */
int store_first_write_checks(struct store *st, int *record, struct err *e)
{
	char *last = NULL;
	int due = st->unclean;

	*record = 0;
	if (!due && !st->no_daily) {
		if (store_meta_read(st, CHECKED_AT_KEY, &last, e) < 0)
			return -1;
		due = check_is_old(last);
		free(last);
	}
	if (!due)
		return 0;
	if (store_check_pages(st, 1, 1, e) < 0)
		return -1;
	*record = 1;
	return 0;
}

/* The time of a full check that passed, in the caller's transaction. */
int store_record_check(struct store *st, struct err *e)
{
	char now[32];

	store_now(now);
	return store_meta_set(st, CHECKED_AT_KEY, now, e);
}

void store_interactive(struct store *st)
{
	st->no_daily = 1;
}

/* Note a full check that passed, when the study can be written at once
 * (a busy or read-only study is checked again another time). */
void store_note_check(struct store *st)
{
	struct err ignored = ERR_INIT;

	st->unclean = 0;
	if (st->readonly || st->depth || !strcmp(st->path, ":memory:"))
		return;
	store_busy_timeout(st, 0);
	if (store_exec(st, "BEGIN IMMEDIATE", &ignored) == 0) {
		if (store_record_check(st, &ignored) == 0)
			store_exec(st, "COMMIT", &ignored);
		if (!sqlite3_get_autocommit(st->db))
			sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	}
	store_busy_timeout(st, -1);
}

int store_verify(struct store *st, int writing, struct err *e)
{
	if (store_check_pages(st, 1, writing, e) < 0)
		return -1;
	store_note_check(st);
	return 0;
}
