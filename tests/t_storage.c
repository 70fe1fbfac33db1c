/* SPDX-License-Identifier: MIT */
/*
 * t_storage: the study file tells the truth - a damaged study is refused
 * for writing (quick_check) and named by the full check, the -wal is
 * empty once the last connection closes, a study in a read-only
 * directory is still read, and the backup copy is complete and private.
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

#include "core/buf.h"
#include "core/store.h"

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

	assert_int_equal(store_open(&st, path, STORE_CREATE, &e), 0);
	assert_int_equal(store_begin(&st, &e), 0);
	for (i = 0; i < 300; i++) {
		char v[128];

		snprintf(v, sizeof(v), "a fairly long value number %d to fill "
			 "several pages of the audit table", i);
		assert_int_equal(store_audit(&st, "alice", NULL, "memo", 0,
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

static void test_damaged_study_refused_for_writing(void **state)
{
	char *path = tmp_path("damaged.db");
	struct store st;
	struct err e = ERR_INIT;
	char junk[512];
	int fd;

	(void)state;
	make_study(path);
	/* scribble over a page in the middle of the audit table */
	memset(junk, 0x5a, sizeof(junk));
	fd = open(path, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, junk, sizeof(junk), 4096 * 20),
			 (ssize_t)sizeof(junk));
	close(fd);

	assert_int_equal(store_open(&st, path, 0, &e), 0);
	assert_int_equal(store_begin(&st, &e), -1);
	assert_int_equal(e.code, ERR_DB);
	assert_non_null(strstr(e.msg, "damaged"));
	assert_non_null(strstr(e.msg, "nothing was written"));
	assert_int_equal(store_check(&st, 1, &e), -1);
	assert_non_null(strstr(e.msg, "damaged"));
	store_close(&st);
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

	if (store_open(&st, path, 0, &e) < 0)
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

		assert_int_equal(store_open(&w, path.ptr, 0, &e), 0);
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
	assert_int_equal(store_open(&st, path, 0, &e), 0);
	assert_int_equal(store_backup(&st, copy, &e), 0);
	assert_int_equal(stat(copy, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0600);
	/* never over an existing file */
	assert_int_equal(store_backup(&st, copy, &e), -1);
	assert_non_null(strstr(e.msg, "already exists"));
	store_close(&st);

	assert_int_equal(store_open(&c, copy, 0, &e), 0);
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
		cmocka_unit_test(test_damaged_study_refused_for_writing),
		cmocka_unit_test(test_read_only_directory),
		cmocka_unit_test(test_backup),
	};

	return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
