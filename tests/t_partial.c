/* SPDX-License-Identifier: MIT */
/*
 * t_partial: files put in place whole (core/base/partial, what `backup`
 * writes through): the temporary is hidden beside the target, 0600 and
 * locked while written; it goes in place only whole and never over a
 * file; leftovers of killed writers are removed, and nothing else - not
 * a temporary still held, not a name that only looks alike.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/buf.h"
#include "core/base/partial.h"

static char dir[] = "/tmp/t_partial.XXXXXX";

static int make_dir(void **state)
{
	return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	struct buf b = BUF_INIT;

	while (d && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		buf_reset(&b);
		buf_addf(&b, "%s/%s", dir, de->d_name);
		unlink(b.ptr);
	}
	if (d)
		closedir(d);
	buf_release(&b);
	return rmdir(dir);
}

static void touch(const char *name)
{
	struct buf b = BUF_INIT;
	int fd;

	buf_addf(&b, "%s/%s", dir, name);
	fd = open(b.ptr, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "x", 1), 1);
	close(fd);
	buf_release(&b);
}

static int there(const char *name)
{
	struct buf b = BUF_INIT;
	struct stat sb;
	int r;

	buf_addf(&b, "%s/%s", dir, name);
	r = lstat(b.ptr, &sb) == 0;
	buf_release(&b);
	return r;
}

static void test_write_and_publish(void **state)
{
	struct partial p = PARTIAL_INIT;
	struct err e = ERR_INIT;
	struct buf target = BUF_INIT, prefix = BUF_INIT;
	struct stat sb;
	int fd;

	buf_addf(&target, "%s/copy.db", dir);
	buf_addf(&prefix, "%s/.copy.db.bugcoder-tmp-", dir);
	assert_int_equal(partial_open(&p, target.ptr, &e), 0);
	assert_int_equal(strncmp(p.tmp, prefix.ptr, prefix.len), 0);
	assert_int_equal(strlen(p.tmp), prefix.len + 6);
	assert_int_equal(stat(p.tmp, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0600);
	assert_false(there("copy.db"));
	/* held: another opening of it cannot lock it, and the cleaning
	 * leaves it */
	fd = open(p.tmp, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(flock(fd, LOCK_EX | LOCK_NB), -1);
	close(fd);
	assert_int_equal(partial_clean(dir), 0);
	assert_int_equal(stat(p.tmp, &sb), 0);
	fd = open(p.tmp, O_WRONLY);
	assert_int_equal(write(fd, "whole", 5), 5);
	close(fd);
	assert_int_equal(partial_publish(&p, &e), 0);
	assert_null(p.tmp);
	assert_int_equal(stat(target.ptr, &sb), 0);
	assert_int_equal(sb.st_size, 5);
	/* only the copy is there */
	assert_int_equal(partial_clean(dir), 0);
	/* a file there is never replaced: at the start... */
	assert_int_equal(partial_open(&p, target.ptr, &e), -1);
	assert_int_equal(e.code, ERR_IO);
	assert_non_null(strstr(e.msg, "copy.db: already exists"));
	unlink(target.ptr);
	/* ...nor when it appears meanwhile: the temporary goes */
	assert_int_equal(partial_open(&p, target.ptr, &e), 0);
	touch("copy.db");
	assert_int_equal(partial_publish(&p, &e), -1);
	assert_non_null(strstr(e.msg, "already exists"));
	assert_int_equal(stat(target.ptr, &sb), 0);
	assert_int_equal(sb.st_size, 1);
	unlink(target.ptr);
	assert_int_equal(partial_clean(dir), 0);
	buf_release(&target);
	buf_release(&prefix);
}

static void test_leftovers_cleaned(void **state)
{
	struct partial p = PARTIAL_INIT;
	struct err e = ERR_INIT;
	struct buf target = BUF_INIT;

	/* a killed writer's temporary and its journal, a -wal whose
	 * temporary is gone */
	touch(".a.db.bugcoder-tmp-Ab12Cd");
	touch(".a.db.bugcoder-tmp-Ab12Cd-journal");
	touch(".b.db.bugcoder-tmp-zzzzzz-wal");
	/* not ours: no dot, a short tail, another tag, a user's file */
	touch("a.db.bugcoder-tmp-Ab12Cd");
	touch(".a.db.bugcoder-tmp-Ab1");
	touch(".a.db.other-tmp-Ab12Cd");
	touch("a.db");
	assert_int_equal(partial_clean(dir), 3);
	assert_false(there(".a.db.bugcoder-tmp-Ab12Cd"));
	assert_false(there(".a.db.bugcoder-tmp-Ab12Cd-journal"));
	assert_false(there(".b.db.bugcoder-tmp-zzzzzz-wal"));
	assert_true(there("a.db.bugcoder-tmp-Ab12Cd"));
	assert_true(there(".a.db.bugcoder-tmp-Ab1"));
	assert_true(there(".a.db.other-tmp-Ab12Cd"));
	assert_true(there("a.db"));
	/* partial_open() cleans first */
	touch(".c.db.bugcoder-tmp-qwerty");
	buf_addf(&target, "%s/c.db", dir);
	assert_int_equal(partial_open(&p, target.ptr, &e), 0);
	assert_false(there(".c.db.bugcoder-tmp-qwerty"));
	partial_abort(&p);
	assert_int_equal(partial_clean(dir), 0);
	buf_release(&target);
}

/* A target's name never makes the temporary's an SQLite URI. */
static void test_never_a_uri(void **state)
{
	struct partial p = PARTIAL_INIT;
	struct err e = ERR_INIT;
	char cwd[4096];

	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(dir), 0);
	assert_int_equal(partial_open(&p, "file:x.db?vfs=unix", &e), 0);
	assert_int_equal(strncmp(p.tmp, "./.file:x.db?vfs=unix", 21), 0);
	partial_abort(&p);
	assert_int_equal(partial_open(&p, "file:sub/x.db", &e), -1);
	assert_int_equal(partial_open(&p, "sub/", &e), -1);
	assert_non_null(strstr(e.msg, "not a file name"));
	assert_int_equal(chdir(cwd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write_and_publish),
		cmocka_unit_test(test_leftovers_cleaned),
		cmocka_unit_test(test_never_a_uri),
	};

	return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
