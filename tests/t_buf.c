/* SPDX-License-Identifier: MIT */
/*
 * t_buf: the growable string type and the memory helpers.
 *
 * Every operation is followed by assert_sane_buf(), which checks the
 * invariants written in core/base/buf.h (git's assert_sane_strbuf idea): ptr
 * never NULL, always NUL-terminated at len, len < alloc when allocated,
 * and the shared empty string untouched when nothing is allocated.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/base/buf.h"

static void assert_sane_buf(const struct buf *b)
{
	assert_non_null(b->ptr);
	assert_int_equal(b->ptr[b->len], '\0');
	if (b->alloc == 0) {
		assert_ptr_equal(b->ptr, buf_empty);
		assert_int_equal(b->len, 0);
	} else {
		assert_true(b->len < b->alloc);
		assert_ptr_not_equal(b->ptr, buf_empty);
	}
	/* nobody may ever write into the shared empty string */
	assert_int_equal(buf_empty[0], '\0');
}

static void test_init_states(void **state)
{
	struct buf a = BUF_INIT, b;

	(void)state;
	assert_sane_buf(&a);
	assert_string_equal(a.ptr, "");

	buf_init(&b, 0);
	assert_sane_buf(&b);
	assert_int_equal(b.alloc, 0);

	buf_init(&b, 100);
	assert_sane_buf(&b);
	assert_true(b.alloc >= 101);
	assert_int_equal(b.len, 0);
	assert_string_equal(b.ptr, "");
	buf_release(&b);
	assert_sane_buf(&b);
	assert_int_equal(b.alloc, 0);

	/* release of NULL and of a never-grown buf are harmless */
	buf_release(NULL);
	buf_release(&a);
	assert_sane_buf(&a);
}

static void test_add(void **state)
{
	struct buf b = BUF_INIT;

	(void)state;
	buf_add(&b, "", 0);
	assert_sane_buf(&b);
	assert_int_equal(b.alloc, 0);	/* nothing to add: no allocation */

	buf_addstr(&b, "hello");
	assert_sane_buf(&b);
	assert_int_equal(b.len, 5);
	assert_string_equal(b.ptr, "hello");

	buf_addch(&b, ',');
	assert_sane_buf(&b);
	buf_addch(&b, ' ');
	assert_sane_buf(&b);
	buf_add(&b, "world!!!", 5);
	assert_sane_buf(&b);
	assert_string_equal(b.ptr, "hello, world");
	assert_int_equal(b.len, 12);

	/* embedded NUL bytes are tracked by len */
	buf_add(&b, "a\0b", 3);
	assert_sane_buf(&b);
	assert_int_equal(b.len, 15);
	assert_memory_equal(b.ptr + 12, "a\0b", 3);
	assert_int_equal(strlen(b.ptr), 13);

	buf_release(&b);
	assert_sane_buf(&b);
}

static void test_addch_from_empty(void **state)
{
	struct buf b = BUF_INIT;

	(void)state;
	buf_addch(&b, 'x');
	assert_sane_buf(&b);
	assert_int_equal(b.len, 1);
	assert_string_equal(b.ptr, "x");
	buf_addch(&b, '\0');
	assert_sane_buf(&b);
	assert_int_equal(b.len, 2);
	assert_int_equal(b.ptr[1], '\0');
	buf_release(&b);
}

static void test_growth_keeps_content(void **state)
{
	struct buf b = BUF_INIT;
	size_t i, last_alloc = 0;
	int grew = 0;

	(void)state;
	for (i = 0; i < 10000; i++) {
		buf_addch(&b, 'a' + (int)(i % 26));
		assert_sane_buf(&b);
		if (b.alloc != last_alloc) {
			assert_true(b.alloc > last_alloc);
			last_alloc = b.alloc;
			grew++;
		}
	}
	assert_int_equal(b.len, 10000);
	for (i = 0; i < 10000; i++)
		assert_int_equal(b.ptr[i], 'a' + (int)(i % 26));
	/* geometric growth: far fewer reallocations than appends */
	assert_true(grew < 40);
	buf_release(&b);
}

static void test_grow(void **state)
{
	struct buf b = BUF_INIT;
	size_t alloc;

	(void)state;
	buf_grow(&b, 0);
	assert_sane_buf(&b);
	assert_true(b.alloc >= 1);
	assert_int_equal(b.len, 0);

	buf_addstr(&b, "abc");
	buf_grow(&b, 1000);
	assert_sane_buf(&b);
	assert_true(b.alloc >= 1004);
	assert_string_equal(b.ptr, "abc");
	alloc = b.alloc;
	buf_grow(&b, 10);	/* already room: no change */
	assert_sane_buf(&b);
	assert_int_equal(b.alloc, alloc);
	buf_release(&b);
}

static void test_addf(void **state)
{
	struct buf b = BUF_INIT;
	char big[300];

	(void)state;
	buf_addf(&b, "%s", "");
	assert_sane_buf(&b);
	assert_int_equal(b.len, 0);

	buf_addf(&b, "%d-%s-%c", 42, "x", 'y');
	assert_sane_buf(&b);
	assert_string_equal(b.ptr, "42-x-y");
	assert_int_equal(b.len, 6);

	memset(big, 'z', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	buf_addf(&b, "[%s]", big);
	assert_sane_buf(&b);
	assert_int_equal(b.len, 6 + 2 + 299);
	assert_int_equal(b.ptr[6], '[');
	assert_int_equal(b.ptr[7 + 298], 'z');
	assert_int_equal(b.ptr[b.len - 1], ']');

	buf_addf(&b, "%lld#%05.1f", 12345678901LL, 3.14159);
	assert_sane_buf(&b);
	assert_string_equal(b.ptr + 307, "12345678901#003.1");
	buf_release(&b);
}

static void vadd_helper(struct buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	buf_vaddf(b, fmt, ap);
	va_end(ap);
}

static void test_vaddf(void **state)
{
	struct buf b = BUF_INIT;

	(void)state;
	vadd_helper(&b, "%s=%d", "n", 7);
	assert_sane_buf(&b);
	vadd_helper(&b, ";%s=%d", "m", -3);
	assert_sane_buf(&b);
	assert_string_equal(b.ptr, "n=7;m=-3");
	buf_release(&b);
}

static void test_set_and_setlen(void **state)
{
	struct buf b = BUF_INIT;

	(void)state;
	/* reset of a never-allocated buf must not write to buf_empty */
	buf_reset(&b);
	assert_sane_buf(&b);
	assert_int_equal(b.alloc, 0);

	buf_set(&b, "first value");
	assert_sane_buf(&b);
	assert_string_equal(b.ptr, "first value");
	buf_set(&b, "2nd");
	assert_sane_buf(&b);
	assert_string_equal(b.ptr, "2nd");
	assert_int_equal(b.len, 3);
	buf_set(&b, "");
	assert_sane_buf(&b);
	assert_int_equal(b.len, 0);

	buf_set(&b, "truncate me");
	buf_setlen(&b, 8);
	assert_sane_buf(&b);
	assert_string_equal(b.ptr, "truncate");
	buf_reset(&b);
	assert_sane_buf(&b);
	assert_string_equal(b.ptr, "");
	assert_true(b.alloc > 0);	/* memory is kept for reuse */

	/* growing with setlen makes room and terminates */
	buf_setlen(&b, 50);
	assert_sane_buf(&b);
	assert_int_equal(b.len, 50);
	buf_release(&b);

	/* setlen from the empty state allocates */
	buf_setlen(&b, 4);
	assert_sane_buf(&b);
	assert_int_equal(b.len, 4);
	assert_true(b.alloc >= 5);
	buf_release(&b);
}

static void test_detach(void **state)
{
	struct buf b = BUF_INIT;
	size_t len = 99;
	char *s;

	(void)state;
	/* detaching an empty buf still yields a string the caller frees */
	s = buf_detach(&b, &len);
	assert_sane_buf(&b);
	assert_non_null(s);
	assert_ptr_not_equal(s, buf_empty);
	assert_string_equal(s, "");
	assert_int_equal(len, 0);
	free(s);

	buf_addstr(&b, "owned by the caller");
	s = buf_detach(&b, &len);
	assert_sane_buf(&b);
	assert_int_equal(b.alloc, 0);
	assert_int_equal(b.len, 0);
	assert_string_equal(s, "owned by the caller");
	assert_int_equal(len, 19);
	free(s);

	buf_addstr(&b, "no length wanted");
	s = buf_detach(&b, NULL);
	assert_sane_buf(&b);
	assert_string_equal(s, "no length wanted");
	free(s);

	/* the buf is reusable after detach */
	buf_addstr(&b, "again");
	assert_sane_buf(&b);
	assert_string_equal(b.ptr, "again");
	buf_release(&b);
}

static char tmpdir[64];

static int make_tmpdir(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/t_buf.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int remove_tmpdir(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static void write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static void test_read_file(void **state)
{
	struct buf b = BUF_INIT;
	char path[128];
	char *big;
	size_t i, n = 200000;

	(void)state;
	snprintf(path, sizeof(path), "%s/small", tmpdir);
	write_file(path, "line 1\nli\0ne 2\n", 15);
	buf_addstr(&b, ">>");
	assert_int_equal(buf_read_file(&b, path), 0);	/* appends */
	assert_sane_buf(&b);
	assert_int_equal(b.len, 17);
	assert_memory_equal(b.ptr, ">>line 1\nli\0ne 2\n", 17);
	buf_release(&b);

	/* larger than the 64 KiB read chunk */
	big = malloc(n);
	assert_non_null(big);
	for (i = 0; i < n; i++)
		big[i] = (char)('0' + i % 10);
	snprintf(path, sizeof(path), "%s/big", tmpdir);
	write_file(path, big, n);
	assert_int_equal(buf_read_file(&b, path), 0);
	assert_sane_buf(&b);
	assert_int_equal(b.len, n);
	assert_memory_equal(b.ptr, big, n);
	free(big);
	buf_release(&b);

	/* an empty file reads as nothing */
	snprintf(path, sizeof(path), "%s/empty", tmpdir);
	write_file(path, "", 0);
	assert_int_equal(buf_read_file(&b, path), 0);
	assert_sane_buf(&b);
	assert_int_equal(b.len, 0);
	buf_release(&b);
}

static void test_read_file_errors(void **state)
{
	struct buf b = BUF_INIT;
	char path[128];

	(void)state;
	snprintf(path, sizeof(path), "%s/does-not-exist", tmpdir);
	errno = 0;
	assert_int_equal(buf_read_file(&b, path), -1);
	assert_int_equal(errno, ENOENT);
	assert_sane_buf(&b);
	assert_int_equal(b.len, 0);

	/* a directory opens but cannot be read */
	buf_addstr(&b, "kept");
	errno = 0;
	assert_int_equal(buf_read_file(&b, tmpdir), -1);
	assert_int_equal(errno, EISDIR);
	assert_sane_buf(&b);
	assert_string_equal(b.ptr, "kept");
	buf_release(&b);
}

static void test_read_fd_pipe(void **state)
{
	struct buf b = BUF_INIT;
	int fds[2];

	(void)state;
	assert_int_equal(pipe(fds), 0);
	assert_int_equal(write(fds[1], "from a pipe", 11), 11);
	close(fds[1]);
	assert_int_equal(buf_read_fd(&b, fds[0]), 0);
	close(fds[0]);
	assert_sane_buf(&b);
	assert_string_equal(b.ptr, "from a pipe");
	buf_release(&b);

	/* a closed descriptor: -1 with errno, buf still sane */
	errno = 0;
	assert_int_equal(buf_read_fd(&b, fds[0]), -1);
	assert_int_equal(errno, EBADF);
	assert_sane_buf(&b);
	assert_int_equal(b.len, 0);
	buf_release(&b);
}

static void test_xhelpers(void **state)
{
	char *s;
	int *v = NULL;
	size_t alloc = 0, i;

	(void)state;
	s = xstrdup("copy");
	assert_string_equal(s, "copy");
	free(s);
	s = xstrndup("abcdef", 3);
	assert_string_equal(s, "abc");
	free(s);
	s = xstrndup("a\0c", 3);	/* exactly n bytes, then NUL */
	assert_memory_equal(s, "a\0c", 4);
	free(s);
	assert_null(xstrdup_or_null(NULL));
	s = xstrdup_or_null("x");
	assert_string_equal(s, "x");
	free(s);

	s = xmalloc(0);		/* never NULL, even for zero bytes */
	assert_non_null(s);
	free(s);
	v = xcalloc(4, sizeof(int));
	for (i = 0; i < 4; i++)
		assert_int_equal(v[i], 0);
	v = xrealloc(v, 100 * sizeof(int));
	assert_int_equal(v[3], 0);
	free(v);
	v = NULL;

	/* ALLOC_GROW: first growth gives at least 8, then doubles */
	ALLOC_GROW(v, 1, alloc);
	assert_int_equal(alloc, 8);
	for (i = 0; i < 8; i++)
		v[i] = (int)i;
	ALLOC_GROW(v, 8, alloc);
	assert_int_equal(alloc, 8);
	ALLOC_GROW(v, 9, alloc);
	assert_int_equal(alloc, 16);
	ALLOC_GROW(v, 100, alloc);
	assert_int_equal(alloc, 100);
	for (i = 0; i < 8; i++)
		assert_int_equal(v[i], (int)i);
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_states),
		cmocka_unit_test(test_add),
		cmocka_unit_test(test_addch_from_empty),
		cmocka_unit_test(test_growth_keeps_content),
		cmocka_unit_test(test_grow),
		cmocka_unit_test(test_addf),
		cmocka_unit_test(test_vaddf),
		cmocka_unit_test(test_set_and_setlen),
		cmocka_unit_test(test_detach),
		cmocka_unit_test(test_read_file),
		cmocka_unit_test(test_read_file_errors),
		cmocka_unit_test(test_read_fd_pipe),
		cmocka_unit_test(test_xhelpers),
	};

	return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
