/* SPDX-License-Identifier: MIT */
/*
 * t_store: the study file - creation, modes, WAL, schema version and
 * migrations, transactions, settings, the append-only audit log and the
 * busy path.
 *
 * In-memory studies where the file does not matter; real files in a
 * mkdtemp() directory where it does.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <signal.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/base/buf.h"
#include "core/study/member.h"
#include "core/store/store.h"
#include "core/store/vfs.h"
#include "core/store/audit.h"
#include "core/study/study.h"

static char tmpdir[64];

static int make_tmpdir(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/t_store.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int remove_tmpdir(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static char *tmp_path(const char *name)
{
	struct buf b = BUF_INIT;

	buf_addf(&b, "%s/%s", tmpdir, name);
	return buf_detach(&b, NULL);
}

/* First column of the first row of `sql` as an integer. */
static long long query_int(struct store *st, const char *sql)
{
	sqlite3_stmt *s = NULL;
	long long v;

	assert_int_equal(sqlite3_prepare_v2(st->db, sql, -1, &s, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_step(s), SQLITE_ROW);
	v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return v;
}

/* First column of the first row of `sql` as an owned string. */
static char *query_text(struct store *st, const char *sql)
{
	sqlite3_stmt *s = NULL;
	char *v;

	assert_int_equal(sqlite3_prepare_v2(st->db, sql, -1, &s, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_step(s), SQLITE_ROW);
	v = xstrdup_or_null((const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	return v;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static const char *const tables[] = {
	"meta", "members", "codebooks", "items", "comments", "fixes",
	"rounds", "round_annotators", "assignments", "proposals", "labels",
	"submissions", "memos", "flags", "resolutions", "audit",
	"http_cache", "fetch_state", "drafts", "repo_aliases",
};

static void assert_schema(struct store *st)
{
	size_t i;

	assert_int_equal(query_int(st, "PRAGMA user_version"),
			 STORE_SCHEMA_VERSION);
	for (i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		sqlite3_stmt *s = NULL;

		assert_int_equal(sqlite3_prepare_v2(st->db, "SELECT count(*) "
				 "FROM sqlite_master WHERE type = 'table' AND "
				 "name = ?", -1, &s, NULL), SQLITE_OK);
		sqlite3_bind_text(s, 1, tables[i], -1, SQLITE_STATIC);
		assert_int_equal(sqlite3_step(s), SQLITE_ROW);
		if (sqlite3_column_int(s, 0) != 1)
			fail_msg("table %s missing", tables[i]);
		sqlite3_finalize(s);
	}
}

static void test_open_memory(void **state)
{
	struct store st;
	struct err e = ERR_INIT;

	(void)state;
	assert_int_equal(store_open_memory(&st, &e), 0);
	assert_int_equal(e.code, ERR_NONE);
	assert_non_null(st.db);
	assert_string_equal(st.path, ":memory:");
	assert_int_equal(st.depth, 0);
	assert_schema(&st);
	assert_int_equal(query_int(&st, "PRAGMA foreign_keys"), 1);
	assert_int_equal(query_int(&st, "SELECT count(*) FROM items"), 0);
	store_close(&st);
	assert_null(st.db);
	assert_null(st.path);
}

static void test_close_accepts_null(void **state)
{
	struct store st;

	(void)state;
	store_close(NULL);
	memset(&st, 0, sizeof(st));
	store_close(&st);	/* never opened */
	assert_null(st.db);
}

static void test_create_file(void **state)
{
	char *path = tmp_path("create.db");
	char *wal = tmp_path("create.db-wal");
	struct store st;
	struct err e = ERR_INIT;
	struct stat sb;
	mode_t old;
	char *mode;

	(void)state;
	/* a restrictive umask must not take the group's access away */
	old = umask(077);
	assert_int_equal(study_open(&st, path, STORE_CREATE, &e), 0);
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0660);
	assert_true(S_ISREG(sb.st_mode));

	mode = query_text(&st, "PRAGMA journal_mode");
	assert_string_equal(mode, "wal");
	free(mode);
	assert_int_equal(query_int(&st, "PRAGMA foreign_keys"), 1);
	assert_int_equal(query_int(&st, "PRAGMA synchronous"), 2);	/* FULL */
	assert_schema(&st);

	/* the write-ahead log made by a write is shared the same way */
	assert_int_equal(store_meta_set(&st, "title", "t", &e), 0);
	assert_int_equal(stat(wal, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0660);
	store_close(&st);
	umask(old);

	/* reopening keeps WAL mode and the schema */
	assert_int_equal(study_open(&st, path, 0, &e), 0);
	mode = query_text(&st, "PRAGMA journal_mode");
	assert_string_equal(mode, "wal");
	free(mode);
	assert_schema(&st);
	mode = store_meta_get(&st, "title");
	assert_string_equal(mode, "t");
	free(mode);
	store_close(&st);
	free(path);
	free(wal);
}

static void test_create_refuses_existing(void **state)
{
	char *path = tmp_path("existing.db");
	struct store st;
	struct err e = ERR_INIT;
	struct buf b = BUF_INIT;

	(void)state;
	write_file(path, "precious data\n");
	assert_int_equal(study_open(&st, path, STORE_CREATE, &e), -1);
	assert_int_equal(e.code, ERR_IO);
	assert_non_null(strstr(e.msg, path));
	assert_non_null(strstr(e.msg, "a file of 14 bytes that is not a study is there"));
	assert_null(st.db);
	/* the file is left exactly as it was */
	assert_int_equal(buf_read_file(&b, path), 0);
	assert_string_equal(b.ptr, "precious data\n");
	buf_release(&b);
	free(path);
}

static void test_create_in_missing_dir(void **state)
{
	char *path = tmp_path("no/such/dir/x.db");
	struct store st;
	struct err e = ERR_INIT;

	(void)state;
	assert_int_equal(study_open(&st, path, STORE_CREATE, &e), -1);
	assert_int_equal(e.code, ERR_IO);
	assert_non_null(strstr(e.msg, "No such file or directory"));
	assert_int_equal(access(path, F_OK), -1);
	free(path);
}

static void test_open_missing(void **state)
{
	char *path = tmp_path("missing.db");
	struct store st;
	struct err e = ERR_INIT;

	(void)state;
	assert_int_equal(study_open(&st, path, 0, &e), -1);
	assert_int_equal(e.code, ERR_NOTFOUND);
	assert_non_null(strstr(e.msg, "no study here"));
	assert_non_null(strstr(e.msg, "missing.db"));
	/* opening must never create the file */
	assert_int_equal(access(path, F_OK), -1);
	free(path);
}

static void test_open_not_sqlite(void **state)
{
	char *path = tmp_path("notes.txt");
	struct store st;
	struct err e = ERR_INIT;
	struct buf b = BUF_INIT;
	const char *text = "this is a plain text file, long enough to have a "
			   "header that is clearly not SQLite's.\n";

	(void)state;
	write_file(path, text);
	assert_int_equal(study_open(&st, path, 0, &e), -1);
	/* named as what it is: no study, no SQLite database at all */
	assert_int_equal(e.code, ERR_INPUT);
	assert_non_null(strstr(e.msg, "notes.txt: not a bugcoder study: a "
			       "file of 86 bytes that is not an SQLite "
			       "database"));
	assert_null(st.db);
	assert_int_equal(buf_read_file(&b, path), 0);
	assert_string_equal(b.ptr, text);
	buf_release(&b);
	free(path);
}

static void set_user_version(const char *path, int v, const char *extra)
{
	sqlite3 *db = NULL;
	char sql[64];

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	if (extra)
		assert_int_equal(sqlite3_exec(db, extra, NULL, NULL, NULL),
				 SQLITE_OK);
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", v);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
}

static void test_open_newer_version(void **state)
{
	char *path = tmp_path("newer.db");
	struct store st;
	struct err e = ERR_INIT;
	sqlite3 *db = NULL;
	sqlite3_stmt *s = NULL;
	char want[32];

	(void)state;
	assert_int_equal(study_open(&st, path, STORE_CREATE, &e), 0);
	store_close(&st);
	set_user_version(path, STORE_SCHEMA_VERSION + 1, NULL);

	assert_int_equal(study_open(&st, path, 0, &e), -1);
	assert_int_equal(e.code, ERR_INPUT);
	assert_non_null(strstr(e.msg, "newer than this bugcoder"));
	snprintf(want, sizeof(want), "version %d", STORE_SCHEMA_VERSION + 1);
	assert_non_null(strstr(e.msg, want));
	assert_null(st.db);

	/* and it is not touched: still the newer version */
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &s,
					    NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(s), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(s, 0), STORE_SCHEMA_VERSION + 1);
	sqlite3_finalize(s);
	sqlite3_close(db);
	free(path);
}

static void test_open_refuses_non_study(void **state)
{
	char *empty = tmp_path("empty.db");
	char *other = tmp_path("other.db");
	struct store st;
	struct err e = ERR_INIT;
	struct stat sb;
	sqlite3 *db = NULL;
	sqlite3_stmt *s = NULL;

	(void)state;
	/* an empty file is not a study, and stays empty */
	write_file(empty, "");
	assert_int_equal(study_open(&st, empty, 0, &e), -1);
	assert_int_equal(e.code, ERR_INPUT);
	assert_non_null(strstr(e.msg, "empty.db: not a bugcoder study (an "
			       "empty file)"));
	assert_int_equal(stat(empty, &sb), 0);
	assert_int_equal(sb.st_size, 0);

	/* another program's SQLite database (schema version 0) is not
	 * turned into a study either: no tables added, no WAL switch */
	set_user_version(other, 0, "CREATE TABLE older (x); "
			 "INSERT INTO older VALUES (7);");
	err_clear(&e);
	assert_int_equal(study_open(&st, other, 0, &e), -1);
	assert_int_equal(e.code, ERR_INPUT);
	assert_non_null(strstr(e.msg, "other.db: not a bugcoder study (an "
			       "SQLite database without a study in it)"));
	assert_int_equal(sqlite3_open(other, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT count(*) FROM "
					    "sqlite_master", -1, &s, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_step(s), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(s, 0), 1);
	sqlite3_finalize(s);
	assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &s,
					    NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(s), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(s, 0),
			    "delete");
	sqlite3_finalize(s);
	sqlite3_close(db);
	free(empty);
	free(other);
}

static void test_readonly(void **state)
{
	char *path = tmp_path("ro.db");
	struct store st;
	struct err e = ERR_INIT;
	char *v;

	(void)state;
	assert_int_equal(study_open(&st, path, STORE_CREATE, &e), 0);
	assert_int_equal(store_meta_set(&st, "k", "v", &e), 0);
	store_close(&st);

	assert_int_equal(study_open(&st, path, STORE_READONLY, &e), 0);
	v = store_meta_get(&st, "k");
	assert_string_equal(v, "v");
	free(v);
	err_clear(&e);
	assert_int_equal(store_meta_set(&st, "k", "w", &e), -1);
	assert_int_equal(e.code, ERR_DB);
	assert_non_null(strstr(e.msg, "readonly"));
	store_close(&st);
	free(path);
}

static void test_transactions(void **state)
{
	struct store st;
	struct err e = ERR_INIT;
	char *v;

	(void)state;
	assert_int_equal(store_open_memory(&st, &e), 0);

	/* commit without begin is a no-op */
	assert_int_equal(store_commit(&st, &e), 0);
	assert_int_equal(st.depth, 0);
	store_rollback(&st);
	assert_int_equal(st.depth, 0);

	/* committed */
	assert_int_equal(store_begin(&st, &e), 0);
	assert_int_equal(st.depth, 1);
	assert_false(sqlite3_get_autocommit(st.db));
	assert_int_equal(store_meta_set(&st, "a", "1", &e), 0);
	assert_int_equal(store_commit(&st, &e), 0);
	assert_int_equal(st.depth, 0);
	assert_true(sqlite3_get_autocommit(st.db));

	/* nested: only the outermost commit commits */
	assert_int_equal(store_begin(&st, &e), 0);
	assert_int_equal(store_begin(&st, &e), 0);
	assert_int_equal(st.depth, 2);
	assert_int_equal(store_meta_set(&st, "b", "2", &e), 0);
	assert_int_equal(store_commit(&st, &e), 0);
	assert_int_equal(st.depth, 1);
	assert_false(sqlite3_get_autocommit(st.db));
	assert_int_equal(store_commit(&st, &e), 0);
	assert_true(sqlite3_get_autocommit(st.db));

	/* a nested rollback undoes its own level only (t_savepoint); the
	 * outer rollback undoes the rest */
	assert_int_equal(store_begin(&st, &e), 0);
	assert_int_equal(store_meta_set(&st, "c", "3", &e), 0);
	assert_int_equal(store_begin(&st, &e), 0);
	assert_int_equal(store_meta_set(&st, "d", "4", &e), 0);
	store_rollback(&st);
	assert_int_equal(st.depth, 1);
	store_rollback(&st);
	assert_int_equal(st.depth, 0);
	assert_true(sqlite3_get_autocommit(st.db));
	assert_null(store_meta_get(&st, "c"));
	assert_null(store_meta_get(&st, "d"));

	v = store_meta_get(&st, "a");
	assert_string_equal(v, "1");
	free(v);
	v = store_meta_get(&st, "b");
	assert_string_equal(v, "2");
	free(v);
	store_close(&st);
}

static void test_close_rolls_back(void **state)
{
	char *path = tmp_path("close.db");
	struct store st;
	struct err e = ERR_INIT;

	(void)state;
	assert_int_equal(study_open(&st, path, STORE_CREATE, &e), 0);
	assert_int_equal(store_begin(&st, &e), 0);
	assert_int_equal(store_meta_set(&st, "lost", "x", &e), 0);
	store_close(&st);	/* with a transaction open */
	assert_int_equal(study_open(&st, path, 0, &e), 0);
	assert_null(store_meta_get(&st, "lost"));
	store_close(&st);
	free(path);
}

static void test_meta(void **state)
{
	struct store st;
	struct err e = ERR_INIT;
	char *v;

	(void)state;
	assert_int_equal(store_open_memory(&st, &e), 0);
	assert_null(store_meta_get(&st, "title"));
	assert_int_equal(store_meta_set(&st, "title", "First", &e), 0);
	v = store_meta_get(&st, "title");
	assert_string_equal(v, "First");
	free(v);
	/* overwrite, with characters that would break formatted SQL */
	assert_int_equal(store_meta_set(&st, "title",
					"O'Brien's \"study\"; DROP TABLE meta;--",
					&e), 0);
	v = store_meta_get(&st, "title");
	assert_string_equal(v, "O'Brien's \"study\"; DROP TABLE meta;--");
	free(v);
	assert_int_equal(query_int(&st, "SELECT count(*) FROM meta"), 1);
	assert_int_equal(store_meta_set(&st, "empty", "", &e), 0);
	v = store_meta_get(&st, "empty");
	assert_string_equal(v, "");
	free(v);
	store_close(&st);
}

static void test_exec_prepare_errors(void **state)
{
	struct store st;
	struct err e = ERR_INIT;

	(void)state;
	assert_int_equal(store_open_memory(&st, &e), 0);
	assert_int_equal(store_exec(&st, "SELEC nonsense", &e), -1);
	assert_int_equal(e.code, ERR_DB);
	assert_non_null(strstr(e.msg, "syntax error"));

	err_clear(&e);
	assert_null(store_prepare(&st, "SELECT * FROM no_such_table", &e));
	assert_int_equal(e.code, ERR_DB);
	assert_non_null(strstr(e.msg, "preparing a query"));
	assert_non_null(strstr(e.msg, "no_such_table"));
	store_close(&st);
}

static void test_foreign_keys_enforced(void **state)
{
	struct store st;
	struct err e = ERR_INIT;

	(void)state;
	assert_int_equal(store_open_memory(&st, &e), 0);
	assert_int_equal(store_exec(&st, "INSERT INTO comments (item_id, "
				    "position, body) VALUES (999, 0, 'x')",
				    &e), -1);
	assert_int_equal(e.code, ERR_DB);
	assert_non_null(strstr(e.msg, "FOREIGN KEY"));
	assert_int_equal(query_int(&st, "SELECT count(*) FROM comments"), 0);
	store_close(&st);
}

static void test_bind_text(void **state)
{
	struct store st;
	struct err e = ERR_INIT;
	sqlite3_stmt *s;

	(void)state;
	assert_int_equal(store_open_memory(&st, &e), 0);
	s = store_prepare(&st, "SELECT ?1 IS NULL, ?2", &e);
	assert_non_null(s);
	assert_int_equal(store_bind_text(s, 1, NULL), SQLITE_OK);
	{
		char tmp[8] = "abc";

		assert_int_equal(store_bind_text(s, 2, tmp), SQLITE_OK);
		tmp[0] = 'X';	/* bound as a copy */
	}
	assert_int_equal(sqlite3_step(s), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(s, 0), 1);
	assert_string_equal((const char *)sqlite3_column_text(s, 1), "abc");
	sqlite3_finalize(s);
	store_close(&st);
}

static void test_now(void **state)
{
	char out[32];
	struct tm tm;
	time_t t0, t;

	(void)state;
	setenv("BUGCODER_NOW", "2024-05-06T07:08:09Z", 1);
	store_now(out);
	assert_string_equal(out, "2024-05-06T07:08:09Z");

	/* empty means unset */
	setenv("BUGCODER_NOW", "", 1);
	t0 = time(NULL);
	store_now(out);
	assert_int_equal(strlen(out), 20);
	memset(&tm, 0, sizeof(tm));
	assert_non_null(strptime(out, "%Y-%m-%dT%H:%M:%SZ", &tm));
	t = timegm(&tm);
	assert_true(t >= t0 - 1 && t <= t0 + 2);
	unsetenv("BUGCODER_NOW");
	store_now(out);
	assert_int_equal(out[19], 'Z');
	assert_int_equal(out[10], 'T');
}

static void test_audit(void **state)
{
	struct store st;
	struct err e = ERR_INIT;
	sqlite3_stmt *s;

	(void)state;
	setenv("BUGCODER_NOW", "2024-02-03T04:05:06Z", 1);
	assert_int_equal(store_open_memory(&st, &e), 0);
	assert_int_equal(audit_write(&st, "root", "alice", "label", 0,
				     "symptom", "crash", "hang", &e), 0);
	assert_int_equal(audit_write(&st, "root", NULL, "import", 0, NULL,
				     NULL, NULL, &e), 0);
	s = store_prepare(&st, "SELECT at, actor, for_member, action, "
			  "item_id, dimension, old, new FROM audit "
			  "ORDER BY id", &e);
	assert_non_null(s);
	assert_int_equal(sqlite3_step(s), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(s, 0),
			    "2024-02-03T04:05:06Z");
	assert_string_equal((const char *)sqlite3_column_text(s, 1), "root");
	assert_string_equal((const char *)sqlite3_column_text(s, 2), "alice");
	assert_string_equal((const char *)sqlite3_column_text(s, 3), "label");
	assert_int_equal(sqlite3_column_type(s, 4), SQLITE_NULL);
	assert_string_equal((const char *)sqlite3_column_text(s, 5),
			    "symptom");
	assert_string_equal((const char *)sqlite3_column_text(s, 6), "crash");
	assert_string_equal((const char *)sqlite3_column_text(s, 7), "hang");
	assert_int_equal(sqlite3_step(s), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(s, 3),
			    "import");
	assert_int_equal(sqlite3_column_type(s, 2), SQLITE_NULL);
	assert_int_equal(sqlite3_column_type(s, 6), SQLITE_NULL);
	assert_int_equal(sqlite3_column_type(s, 7), SQLITE_NULL);
	assert_int_equal(sqlite3_step(s), SQLITE_DONE);
	sqlite3_finalize(s);

	/* append-only: neither UPDATE nor DELETE gets through */
	assert_int_equal(store_exec(&st, "UPDATE audit SET new = 'forged'",
				    &e), -1);
	assert_int_equal(e.code, ERR_DB);
	assert_non_null(strstr(e.msg, "append-only"));
	err_clear(&e);
	assert_int_equal(store_exec(&st, "DELETE FROM audit", &e), -1);
	assert_non_null(strstr(e.msg, "append-only"));
	err_clear(&e);
	assert_int_equal(store_exec(&st, "DELETE FROM audit WHERE id = 1",
				    &e), -1);
	assert_int_equal(query_int(&st, "SELECT count(*) FROM audit"), 2);
	assert_int_equal(query_int(&st, "SELECT count(*) FROM audit WHERE "
				   "new = 'hang'"), 1);
	store_close(&st);
	unsetenv("BUGCODER_NOW");
}

static void test_audit_item_id(void **state)
{
	struct store st;
	struct err e = ERR_INIT;

	(void)state;
	assert_int_equal(store_open_memory(&st, &e), 0);
	assert_int_equal(audit_write(&st, "root", NULL, "submit", 42, NULL,
				     NULL, "x", &e), 0);
	assert_int_equal(query_int(&st, "SELECT item_id FROM audit"), 42);
	/* actor and action are required */
	assert_int_equal(audit_write(&st, NULL, NULL, "x", 0, NULL, NULL,
				     NULL, &e), -1);
	assert_int_equal(e.code, ERR_DB);
	assert_non_null(strstr(e.msg, "writing the audit log"));
	store_close(&st);
}

static double now_ms(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return tv.tv_sec * 1000.0 + tv.tv_usec / 1000.0;
}

static void test_busy(void **state)
{
	char *path = tmp_path("busy.db");
	struct store a, b;
	struct err e = ERR_INIT;
	double t0, took;
	char *v;

	(void)state;
	assert_int_equal(study_open(&a, path, STORE_CREATE, &e), 0);
	assert_int_equal(study_open(&b, path, 0, &e), 0);
	/* keep the test fast: wait 100 ms instead of the real timeout */
	sqlite3_busy_timeout(b.db, 100);

	assert_int_equal(store_begin(&a, &e), 0);
	assert_int_equal(store_meta_set(&a, "holder", "a", &e), 0);

	t0 = now_ms();
	assert_int_equal(store_begin(&b, &e), -1);
	took = now_ms() - t0;
	assert_int_equal(e.code, ERR_BUSY);
	assert_int_equal(err_exit_code(e.code), 3);
	assert_non_null(strstr(e.msg, path));
	/* our own process holds it: no other process to name */
	assert_non_null(strstr(e.msg, ": the study is busy (another bugcoder "
			       "is writing); nothing was written: try "
			       "again"));
	assert_int_equal(b.depth, 0);
	assert_true(took >= 90);	/* it did wait for the timeout */
	assert_true(took < 3000);

	/* a reader still sees the last committed state meanwhile */
	assert_null(store_meta_get(&b, "holder"));

	/* once the writer is done, the second one gets in */
	assert_int_equal(store_commit(&a, &e), 0);
	err_clear(&e);
	assert_int_equal(store_begin(&b, &e), 0);
	assert_int_equal(store_meta_set(&b, "holder", "b", &e), 0);
	assert_int_equal(store_commit(&b, &e), 0);
	v = store_meta_get(&a, "holder");
	assert_string_equal(v, "b");
	free(v);
	store_close(&a);
	store_close(&b);
	free(path);
}

/* The privileged VFS opens the one study it was told of and nothing
 * else, whoever asks; no name is read as a URI. */
static void test_privileged_vfs_one_study(void **state)
{
	char *allowed = tmp_path("vfs-allowed.db"), *other = tmp_path("vfs-other.db");
	char *real_allowed, *dir;
	struct buf b = BUF_INIT, uri = BUF_INIT;
	struct store st;
	struct err e = ERR_INIT;
	sqlite3 *db = NULL;
	int rc;

	(void)state;
	assert_int_equal(study_open(&st, allowed, STORE_CREATE, &e), 0);
	store_close(&st);
	assert_int_equal(study_open(&st, other, STORE_CREATE, &e), 0);
	store_close(&st);
	dir = realpath(".", NULL);
	real_allowed = realpath(allowed, NULL);
	assert_non_null(real_allowed);
	vfs_allow(real_allowed);
	/* another file, through the privileged layer: refused */
	rc = sqlite3_open_v2(other, &db, SQLITE_OPEN_READWRITE, VFS_PRIVILEGED);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(db, "SELECT count(*) FROM sqlite_schema",
				  NULL, NULL, NULL);
	assert_int_not_equal(rc, SQLITE_OK);
	sqlite3_close(db);
	db = NULL;
	/* a URI naming the privileged layer is a plain (missing) name */
	buf_addf(&uri, "file:%s?vfs=" VFS_PRIVILEGED, other);
	{
		const char *plain = store_plain_name(uri.ptr, &b);

		assert_ptr_equal(plain, b.ptr);
		assert_int_equal(strncmp(plain, "./file:", 7), 0);
	}
	assert_int_equal(study_open(&st, uri.ptr, 0, &e), -1);
	assert_int_equal(e.code, ERR_NOTFOUND);
	/* the study itself: opened */
	rc = sqlite3_open_v2(real_allowed, &db, SQLITE_OPEN_READWRITE,
			     VFS_PRIVILEGED);
	assert_int_equal(rc, SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "SELECT count(*) FROM sqlite_schema",
				      NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	vfs_allow(NULL);
	buf_release(&b);
	buf_release(&uri);
	free(real_allowed);
	free(dir);
	free(allowed);
	free(other);
}

/* Another process holds the write lock: the message names it. */
static void test_busy_names_holder(void **state)
{
	char *path = tmp_path("busy-holder.db");
	struct store a, b;
	struct store_holder h, h2;
	struct err e = ERR_INIT;
	struct buf want = BUF_INIT;
	int fds[2], status;
	char c;
	pid_t pid;
	char *me = member_os_user();

	(void)state;
	assert_int_equal(study_open(&a, path, STORE_CREATE, &e), 0);
	store_close(&a);
	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct store w;

		close(fds[0]);
		if (study_open(&w, path, 0, &e) < 0 || store_begin(&w, &e) < 0 ||
		    store_meta_set(&w, "holder", "child", &e) < 0)
			_exit(1);
		if (write(fds[1], "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(fds[1]);
	/* every check is made before an assertion can leave this function:
	 * the child must be gone whatever fails (it holds our output) */
	{
		int got_byte = read(fds[0], &c, 1) == 1;
		int opened = got_byte && study_open(&b, path, 0, &e) == 0;
		int held, began, freed;
		struct err busy = ERR_INIT;

		if (opened)
			sqlite3_busy_timeout(b.db, 50);
		held = opened ? store_lock_holder(&b, &h) : -2;
		began = opened ? store_begin(&b, &busy) : 0;
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		freed = opened ? store_lock_holder(&b, &h2) : -2;
		assert_true(got_byte);
		assert_true(opened);
		assert_int_equal(held, 1);
		assert_int_equal(h.pid, pid);
		assert_int_equal(h.uid, getuid());
		assert_string_equal(h.user, me);
		assert_string_equal(h.program, "t_store");
		assert_true(h.since > 0 && h.since <= time(NULL));
		assert_int_equal(began, -1);
		assert_int_equal(busy.code, ERR_BUSY);
		buf_addf(&want, "%s's t_store (process %ld, running since ", me,
			 (long)pid);
		assert_non_null(strstr(busy.msg, want.ptr));
		assert_non_null(strstr(busy.msg, "nothing was written"));
		assert_null(strchr(busy.msg, '\n'));
		/* and nobody holds it once the writer is gone */
		assert_int_equal(freed, 0);
	}
	close(fds[0]);
	store_close(&b);
	buf_release(&want);
	free(me);
	free(path);
}

static void test_error_mapping(void **state)
{
	(void)state;
	assert_int_equal(err_exit_code(ERR_NONE), 0);
	assert_int_equal(err_exit_code(ERR_INPUT), 1);
	assert_int_equal(err_exit_code(ERR_PERM), 1);
	assert_int_equal(err_exit_code(ERR_NOTFOUND), 1);
	assert_int_equal(err_exit_code(ERR_IO), 1);
	assert_int_equal(err_exit_code(ERR_DB), 1);
	assert_int_equal(err_exit_code(ERR_USAGE), 2);
	assert_int_equal(err_exit_code(ERR_BUSY), 3);
	assert_int_equal(err_exit_code(ERR_NET), 3);
	assert_int_equal(err_exit_code(ERR_INTERRUPTED), 3);
}

static void test_err_one_line(void **state)
{
	struct err e = ERR_INIT;
	char long_text[600];

	(void)state;
	assert_int_equal(err_set(&e, ERR_INPUT, "a\nb\r\nc %d", 5), -1);
	assert_string_equal(e.msg, "a b  c 5");
	assert_int_equal(err_prefix(&e, "file.jsonl:%d", 7), -1);
	assert_string_equal(e.msg, "file.jsonl:7: a b  c 5");
	assert_int_equal(e.code, ERR_INPUT);
	assert_int_equal(err_set(NULL, ERR_INPUT, "x"), -1);
	assert_int_equal(err_prefix(NULL, "x"), -1);

	/* a long message is cut, never overflowed */
	memset(long_text, 'x', sizeof(long_text) - 1);
	long_text[sizeof(long_text) - 1] = '\0';
	err_set(&e, ERR_IO, "%s", long_text);
	assert_int_equal(strlen(e.msg), sizeof(e.msg) - 1);
	err_prefix(&e, "head");
	assert_int_equal(strlen(e.msg), sizeof(e.msg) - 1);
	assert_memory_equal(e.msg, "head: xxx", 9);

	err_clear(&e);
	assert_int_equal(e.code, ERR_NONE);
	assert_string_equal(e.msg, "");
	err_clear(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_memory),
		cmocka_unit_test(test_close_accepts_null),
		cmocka_unit_test(test_create_file),
		cmocka_unit_test(test_create_refuses_existing),
		cmocka_unit_test(test_create_in_missing_dir),
		cmocka_unit_test(test_open_missing),
		cmocka_unit_test(test_open_not_sqlite),
		cmocka_unit_test(test_open_newer_version),
		cmocka_unit_test(test_open_refuses_non_study),
		cmocka_unit_test(test_readonly),
		cmocka_unit_test(test_transactions),
		cmocka_unit_test(test_close_rolls_back),
		cmocka_unit_test(test_meta),
		cmocka_unit_test(test_exec_prepare_errors),
		cmocka_unit_test(test_foreign_keys_enforced),
		cmocka_unit_test(test_bind_text),
		cmocka_unit_test(test_now),
		cmocka_unit_test(test_audit),
		cmocka_unit_test(test_audit_item_id),
		cmocka_unit_test(test_busy),
		cmocka_unit_test(test_busy_names_holder),
		cmocka_unit_test(test_privileged_vfs_one_study),
		cmocka_unit_test(test_error_mapping),
		cmocka_unit_test(test_err_one_line),
	};

	return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
