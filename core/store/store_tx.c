/* SPDX-License-Identifier: MIT */
/*
 * store_tx: transactions (nested as savepoints), the write lock taken and
 * let go with the time it was held, the one time every row of a
 * transaction carries (store_now()), read snapshots, and the figures
 * written at store_close() for tests and the benchmark.
 */
#include "core/store/store.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/base/buf.h"
#include "core/base/priv.h"
#include "core/store/store_int.h"
#include "core/store/vfs.h"

/*
 * Figures for tests and the benchmark (BUGCODER_STATS=FILE, a hook:
 * ignored by a setgid program): every store_close() appends one line,
 * "reads R pages P prepares N lock_max S lock_total T", R the reads the
 * process made from studies and their -wal (vfs_reads()), P the study's
 * size in pages, N the statements prepared, S and T the longest and the
 * total time in seconds this connection held the write lock.
 */
static double lock_max, lock_total;

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The write lock was let go (commit or rollback of the outermost
 * transaction). */
void store_lock_released(struct store *st)
{
	double held;

	st->audit_known = 0;
	if (st->lock_since <= 0)
		return;
	held = now_seconds() - st->lock_since;
	st->lock_since = 0;
	lock_total += held;
	if (held > lock_max)
		lock_max = held;
}

void store_write_stats(struct store *st)
{
	const char *path = priv_hook_env("BUGCODER_STATS");
	sqlite3_stmt *s;
	long long pages = 0;
	FILE *f;

	if (!path || !*path)
		return;
	if (sqlite3_prepare_v2(st->db, "PRAGMA page_count", -1, &s, NULL) ==
	    SQLITE_OK) {
		if (store_step_rc(s) == SQLITE_ROW)
			pages = sqlite3_column_int64(s, 0);
		sqlite3_finalize(s);
	}
	f = fopen(path, "a");
	if (!f)
		return;
	fprintf(f, "reads %lld pages %lld prepares %lld lock_max %.6f "
		"lock_total %.6f\n", vfs_reads(), pages, store_prepares(),
		lock_max, lock_total);
	fclose(f);
}

/*
 * The time of the transaction in progress: every row one transaction
 * writes carries the same time as its audit rows, so that the state can
 * be checked against the log's replay to the second (core/study/replay.h).
 * Set when the first store of the process begins a transaction, cleared
 * when the last one ends.
 */
static int tx_open;
static char tx_now[32];

static void tx_started(void)
{
	if (tx_open++ == 0) {
		tx_now[0] = '\0';
		store_now(tx_now);
	}
}

void store_tx_ended(void)
{
	if (tx_open > 0 && --tx_open == 0)
		tx_now[0] = '\0';
}

/*
 * Tests make a race between two processes deterministic with
 * BUGCODER_TEST_BEGIN_GATE=PATH: the outermost store_begin() creates
 * PATH.waiting, then waits (at most a minute) until PATH exists before it
 * takes the write lock.  Whatever the process read before that is then
 * read before whatever the test does meanwhile.  A hook like the others:
 * ignored by a setgid binary (the file it creates is opened with the
 * user's rights, and a link planted at PATH.waiting could name one of
 * the study's own files through /proc/self/fd).
 */
static void test_begin_gate(void)
{
	const char *gate = priv_hook_env("BUGCODER_TEST_BEGIN_GATE");
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	struct buf waiting = BUF_INIT;
	FILE *f;
	int i;

	if (!gate || !*gate)
		return;
	buf_addf(&waiting, "%s.waiting", gate);
	f = fopen(waiting.ptr, "w");
	if (f)
		fclose(f);
	buf_release(&waiting);
	for (i = 0; i < 6000 && access(gate, F_OK); i++)
		nanosleep(&ts, NULL);
}

/* The busy message: who holds the write lock, when we can tell. */
static void busy_error(struct store *st, struct err *e)
{
	struct store_holder h;
	struct buf b = BUF_INIT;

	if (store_lock_holder(st, &h) > 0) {
		store_holder_describe(&h, &b);
		err_set(e, ERR_BUSY, "%s: the study is busy: %s holds the "
			"write lock; nothing was written: try again when it "
			"ends; %s%s can end it (`kill %ld`)", st->path, b.ptr,
			h.user, strcmp(h.user, "root") ? " or root" : "",
			(long)h.pid);
	} else {
		err_set(e, ERR_BUSY, "%s: the study is busy (another "
			"bugcoder is writing); nothing was written: try again",
			st->path);
	}
	buf_release(&b);
}

/* Savepoint names: one per nesting level (level 1 is the transaction). */
static void level_sql(char *sql, size_t size, const char *verb, int level)
{
	snprintf(sql, size, "%s store_level_%d", verb, level);
}

static int nested_begin(struct store *st, struct err *e)
{
	char sql[64];

	if (st->lost)
		return err_set(e, ERR_DB, "%s: the transaction was undone by an "
			       "error; nothing was written", st->path);
	level_sql(sql, sizeof(sql), "SAVEPOINT", st->depth + 1);
	if (store_exec(st, sql, e) < 0)
		return -1;
	st->depth++;
	return 0;
}

int store_begin(struct store *st, struct err *e)
{
	struct store_reader *r;
	int record = 0;

	if (st->depth > 0)
		return nested_begin(st, e);
	st->depth++;
	st->lost = 0;
	test_begin_gate();
	for (r = st->readers; r; r = r->next)
		r->release(r);
	if (st->readonly) {
		st->depth = 0;
		/* say which permission is missing, when one is */
		if (!(st->flags & STORE_PRIVILEGED) &&
		    store_explain_access(st->path, 1, e) < 0)
			return -1;
		return err_set(e, ERR_IO, "%s: the study can only be read here "
			       "(its directory is read-only or the disk is "
			       "full); nothing was written", st->path);
	}
	if (!st->checked && strcmp(st->path, ":memory:")) {
		/* outside the write lock (a check holds nobody up); depth
		 * stays 1, so a damage met says nothing was written */
		if (store_first_write_checks(st, &record, e) < 0) {
			st->depth = 0;
			return -1;
		}
		st->checked = 1;
		st->unclean = 0;
	}
	if (store_exec(st, "BEGIN IMMEDIATE", e) < 0) {
		st->depth = 0;
		/* a BEGIN that failed late may have opened the transaction
		 * all the same: never leave one behind */
		if (!sqlite3_get_autocommit(st->db))
			sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		if (e && e->code == ERR_BUSY)
			busy_error(st, e);
		return -1;
	}
	/* the time is taken once the write lock is held */
	tx_started();
	st->lock_since = now_seconds();
	st->audit_known = 0;
	if (record && store_record_check(st, e) < 0) {
		store_rollback(st);
		return -1;
	}
	return 0;
}

int store_commit(struct store *st, struct err *e)
{
	char sql[64];

	if (st->depth <= 0)
		return 0;
	if (st->lost) {
		store_rollback(st);
		return err_set(e, ERR_DB, "%s: the transaction was undone by an "
			       "error; nothing was written", st->path);
	}
	if (st->depth > 1) {
		level_sql(sql, sizeof(sql), "RELEASE", st->depth);
		if (store_exec(st, sql, e) < 0) {
			store_rollback(st);
			return -1;
		}
		st->depth--;
		return 0;
	}
	st->depth = 0;
	store_tx_ended();
	if (store_exec(st, "COMMIT", e) < 0) {
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		store_lock_released(st);
		return -1;
	}
	store_lock_released(st);
	st->commits++;
	/* a `cp` of the study alone, or a session killed next, keeps it */
	store_wal_checkpoint(st, 0);
	return 0;
}

void store_rollback(struct store *st)
{
	char sql[64];

	if (st->depth <= 0)
		return;
	/* whatever this level wrote to the audit chain is undone */
	st->audit_known = 0;
	if (st->depth > 1) {
		int level = st->depth--;

		if (st->lost)
			return;
		level_sql(sql, sizeof(sql), "ROLLBACK TO", level);
		if (sqlite3_exec(st->db, sql, NULL, NULL, NULL) == SQLITE_OK) {
			level_sql(sql, sizeof(sql), "RELEASE", level);
			sqlite3_exec(st->db, sql, NULL, NULL, NULL);
			return;
		}
		/* gone already (SQLite rolls back the whole transaction
		 * on some errors): the outer levels may only roll back */
		if (!sqlite3_get_autocommit(st->db))
			sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		st->lost = 1;
		return;
	}
	st->depth = 0;
	st->lost = 0;
	store_tx_ended();
	/* a ROLLBACK that fails (a lock, an interrupt) leaves the
	 * transaction open and every later write refused: try again */
	if (sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL) != SQLITE_OK &&
	    !sqlite3_get_autocommit(st->db))
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	store_lock_released(st);
}

void store_now(char out[32])
{
	static time_t last = (time_t)-1;	/* what `text` shows */
	static char text[32];
	const char *fixed = priv_hook_env("BUGCODER_NOW");
	time_t t;
	struct tm tm;

	if (tx_now[0]) {
		memcpy(out, tx_now, 32);
		return;
	}
	if (fixed && *fixed) {
		snprintf(out, 32, "%s", fixed);
		return;
	}
	t = time(NULL);
	if (t != last) {
		gmtime_r(&t, &tm);
		strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &tm);
		last = t;
	}
	memcpy(out, text, sizeof(text));
}

int store_read_begin(struct store *st, struct err *e)
{
	return store_exec(st, "SAVEPOINT read_snapshot", e);
}

void store_read_end(struct store *st)
{
	store_exec(st, "RELEASE read_snapshot", NULL);
}
