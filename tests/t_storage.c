/* SPDX-License-Identifier: MIT */
/*
 * t_storage: the study file tells the truth - a write pays no scan of the
 * whole study, yet one that meets a damaged page is refused and says so;
 * the full check runs a day after the last one and after an unclean
 * stop, and names the damage; the -wal is empty once the last connection
 * closes, a study in a read-only directory is still read, and the backup
 * copy is complete, private and checked.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/base/buf.h"
#include "core/store/store.h"
#include "core/store/audit.h"
#include "core/study/study.h"

static char tmpdir[128];

static int make_tmpdir(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/t_storage.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int remove_tmpdir(void **state)
{
	char cmd[300];

	(void)state;
	snprintf(cmd, sizeof(cmd), "chmod -R u+w '%s'; rm -rf '%s'", tmpdir,
		 tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static char *tmp_path(const char *name)
{
	struct buf b = BUF_INIT;

	buf_addf(&b, "%s/%s", tmpdir, name);
	return buf_detach(&b, NULL);
}

/* A study with some pages of data in it. */
static void make_study(const char *path)
{
	struct store st;
	struct err e = ERR_INIT;
	int i;

	assert_int_equal(study_open(&st, path, STORE_CREATE, &e), 0);
	assert_int_equal(store_begin(&st, &e), 0);
	for (i = 0; i < 300; i++) {
		char v[128];

		snprintf(v, sizeof(v), "a fairly long value number %d to fill "
			 "several pages of the audit table", i);
		assert_int_equal(audit_write(&st, "alice", NULL, "memo", 0,
					     NULL, NULL, v, &e), 0);
	}
	assert_int_equal(store_commit(&st, &e), 0);
	store_close(&st);
}

static off_t file_size(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0 ? sb.st_size : -1;
}

static void test_last_close_leaves_no_wal(void **state)
{
	char *path = tmp_path("clean.db");
	struct buf wal = BUF_INIT;

	(void)state;
	make_study(path);
	buf_addf(&wal, "%s-wal", path);
	/* gone, or empty: the study file alone holds everything */
	assert_true(file_size(wal.ptr) <= 0);
	buf_release(&wal);
	free(path);
}

/* Scribble over page `page` (from 1) of the study at `path`; 0 for a
 * page in the middle of the audit table, which make_study() filled
 * last. */
static void scribble(const char *path, long page)
{
	char junk[512];
	struct stat sb;
	int fd;

	if (!page) {
		assert_int_equal(stat(path, &sb), 0);
		page = (long)(sb.st_size / 4096) - 6;
	}
	memset(junk, 0x5a, sizeof(junk));
	fd = open(path, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, junk, sizeof(junk), 4096 * (page - 1)),
			 (ssize_t)sizeof(junk));
	close(fd);
}

static void assert_damaged_write(const struct err *e)
{
	assert_int_equal(e->code, ERR_DB);
	if (!strstr(e->msg, "the study is damaged") ||
	    !strstr(e->msg, "nothing was written") ||
	    !strstr(e->msg, "restore it from a backup") ||
	    !strstr(e->msg, "bugcoder doctor"))
		fail_msg("not the damaged study's message: %s", e->msg);
}

static void set_checked_at(const char *path, const char *when)
{
	struct store st;
	struct err e = ERR_INIT;

	assert_int_equal(study_open(&st, path, 0, &e), 0);
	assert_int_equal(store_meta_set(&st, "integrity_checked_at", when,
					&e), 0);
	store_close(&st);
}

static void test_damage_met_by_a_write(void **state)
{
	char *path = tmp_path("damaged.db");
	struct store st;
	struct err e = ERR_INIT;
	char *at;

	(void)state;
	make_study(path);
	/* the first write of a later connection runs the full check (none
	 * was recorded) */
	assert_int_equal(study_open(&st, path, 0, &e), 0);
	assert_int_equal(store_begin(&st, &e), 0);
	assert_int_equal(store_commit(&st, &e), 0);
	at = store_meta_get(&st, "integrity_checked_at");
	assert_non_null(at);
	free(at);
	store_close(&st);
	scribble(path, 0);

	/* no scan before the write: one that does not meet the page is
	 * made (SQLite reports what it reads, not what it does not) */
	assert_int_equal(study_open(&st, path, 0, &e), 0);
	assert_int_equal(store_begin(&st, &e), 0);
	assert_int_equal(audit_write(&st, "alice", NULL, "memo", 0, NULL,
				     NULL, "after the damage", &e), 0);
	assert_int_equal(store_commit(&st, &e), 0);
	/* one that reads it is refused, and says what to do */
	assert_int_equal(store_begin(&st, &e), 0);
	assert_int_equal(store_exec(&st, "INSERT INTO meta (key, value) "
				    "SELECT 'all', group_concat(new) FROM audit",
				    &e), -1);
	assert_damaged_write(&e);
	store_rollback(&st);
	/* a read that meets it says the study is damaged */
	memset(&e, 0, sizeof(e));
	assert_int_equal(store_exec(&st, "SELECT group_concat(new) FROM "
				    "audit", &e), -1);
	assert_non_null(strstr(e.msg, "the study is damaged"));
	assert_null(strstr(e.msg, "nothing was written"));
	assert_int_equal(store_check(&st, 1, &e), -1);
	assert_non_null(strstr(e.msg, "damaged"));
	store_close(&st);
	free(path);
}

static void test_daily_check(void **state)
{
	char *path = tmp_path("daily.db");
	struct store st;
	struct err e = ERR_INIT;
	char *at;

	(void)state;
	make_study(path);
	setenv("BUGCODER_NOW", "2030-05-01T12:00:00Z", 1);
	/* checked a day ago: checked again at the first write, and the
	 * time recorded in the write's transaction */
	set_checked_at(path, "2030-04-30T12:00:00Z");
	assert_int_equal(study_open(&st, path, 0, &e), 0);
	assert_int_equal(store_begin(&st, &e), 0);
	assert_int_equal(store_commit(&st, &e), 0);
	at = store_meta_get(&st, "integrity_checked_at");
	assert_string_equal(at, "2030-05-01T12:00:00Z");
	free(at);
	store_close(&st);

	/* checked less than a day ago: not again, even on a damaged one */
	set_checked_at(path, "2030-04-30T12:00:01Z");
	scribble(path, 0);
	assert_int_equal(study_open(&st, path, 0, &e), 0);
	assert_int_equal(store_begin(&st, &e), 0);
	store_rollback(&st);
	store_close(&st);

	/* a day old: the damage is found before anything is written */
	set_checked_at(path, "2030-04-30T11:59:59Z");
	assert_int_equal(study_open(&st, path, 0, &e), 0);
	assert_int_equal(store_begin(&st, &e), -1);
	assert_damaged_write(&e);
	store_close(&st);

	/* the screens never pay it */
	assert_int_equal(study_open(&st, path, 0, &e), 0);
	store_interactive(&st);
	assert_int_equal(store_begin(&st, &e), 0);
	store_rollback(&st);
	store_close(&st);
	unsetenv("BUGCODER_NOW");
	free(path);
}

/* A process that writes and is gone without closing the study (as one
 * killed would): its -wal stays behind. */
static void write_and_vanish(const char *path)
{
	int status = -1;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		struct store st;
		struct err e = ERR_INIT;

		if (study_open(&st, path, 0, &e) < 0 ||
		    audit_write(&st, "alice", NULL, "memo", 0, NULL, NULL,
				"the last words", &e) < 0)
			_exit(1);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_unclean_stop_checked(void **state)
{
	char *path = tmp_path("unclean.db");
	struct buf wal = BUF_INIT;
	struct store st;
	struct err e = ERR_INIT;

	(void)state;
	make_study(path);
	buf_addf(&wal, "%s-wal", path);
	write_and_vanish(path);
	assert_true(file_size(wal.ptr) > 0);
	/* found at open, checked in full at the first write */
	assert_int_equal(study_open(&st, path, 0, &e), 0);
	assert_int_equal(st.unclean, 1);
	assert_int_equal(store_begin(&st, &e), 0);
	assert_int_equal(st.unclean, 0);
	store_rollback(&st);
	store_close(&st);
	/* a clean close leaves nothing to find */
	assert_int_equal(study_open(&st, path, 0, &e), 0);
	assert_int_equal(st.unclean, 0);
	store_close(&st);

	/* and a damage found that way refuses the write, even in a
	 * screen */
	write_and_vanish(path);
	scribble(path, 0);
	assert_int_equal(study_open(&st, path, 0, &e), 0);
	store_interactive(&st);
	assert_int_equal(store_begin(&st, &e), -1);
	assert_damaged_write(&e);
	store_close(&st);
	buf_release(&wal);
	free(path);
}

/* The read-only checks, in a process that cannot write the directory:
 * exits 0 when they hold, else the number of the check that failed. */
static int read_only_checks(const char *path)
{
	struct store st;
	struct err e = ERR_INIT;
	char *title;
	int ret = 0;

	if (study_open(&st, path, 0, &e) < 0)
		return 1;
	title = store_meta_get(&st, "title");
	if (!title || strcmp(title, "kept"))
		ret = 2;
	else if (store_begin(&st, &e) != -1)
		ret = 3;
	/* the missing permission named, else why it can only be read */
	else if (!strstr(e.msg, "no write permission") &&
		 !strstr(e.msg, "can only be read here"))
		ret = 4;
	free(title);
	store_close(&st);
	return ret;
}

static void test_read_only_directory(void **state)
{
	char *dir = tmp_path("ro");
	struct buf path = BUF_INIT;
	struct err e = ERR_INIT;
	int status = -1;
	pid_t pid;

	(void)state;
	assert_int_equal(mkdir(dir, 0755), 0);
	buf_addf(&path, "%s/s.db", dir);
	make_study(path.ptr);
	{
		struct store w;

		assert_int_equal(study_open(&w, path.ptr, 0, &e), 0);
		assert_int_equal(store_meta_set(&w, "title", "kept", &e), 0);
		store_close(&w);
	}
	assert_int_equal(chmod(path.ptr, 0444), 0);
	assert_int_equal(chmod(dir, 0555), 0);
	assert_int_equal(chmod(tmpdir, 0755), 0);

	/* root writes anywhere: the checks run as nobody then */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (geteuid() == 0 && (setgroups(0, NULL) < 0 ||
				       setgid(65534) < 0 || setuid(65534) < 0))
			_exit(100);
		_exit(read_only_checks(path.ptr));
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	chmod(dir, 0755);
	buf_release(&path);
	free(dir);
}

static void test_backup(void **state)
{
	char *path = tmp_path("orig.db"), *copy = tmp_path("copy.db");
	struct store st, c;
	struct err e = ERR_INIT;
	struct stat sb;
	sqlite3_stmt *s;

	(void)state;
	make_study(path);
	assert_int_equal(study_open(&st, path, 0, &e), 0);
	assert_int_equal(store_backup(&st, copy, &e), 0);
	assert_int_equal(stat(copy, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0600);
	/* never over an existing file */
	assert_int_equal(store_backup(&st, copy, &e), -1);
	assert_non_null(strstr(e.msg, "already exists"));
	store_close(&st);

	assert_int_equal(study_open(&c, copy, 0, &e), 0);
	assert_int_equal(store_check(&c, 1, &e), 0);
	assert_int_equal(sqlite3_prepare_v2(c.db, "SELECT count(*) FROM audit",
					    -1, &s, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(s), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(s, 0), 300);
	sqlite3_finalize(s);
	store_close(&c);
	free(path);
	free(copy);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_last_close_leaves_no_wal),
		cmocka_unit_test(test_damage_met_by_a_write),
		cmocka_unit_test(test_daily_check),
		cmocka_unit_test(test_unclean_stop_checked),
		cmocka_unit_test(test_read_only_directory),
		cmocka_unit_test(test_backup),
	};

	return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
