/* SPDX-License-Identifier: MIT */
/*
 * screen_test: see screen_test.h.
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

#include "core/base/buf.h"
#include "tests/lib/screen_test.h"

#define EXPECTED_DIR "tests/expected/"

char *st_slurp(const char *path)
{
	struct buf b = BUF_INIT;

	if (buf_read_file(&b, path) < 0) {
		buf_release(&b);
		return NULL;
	}
	return buf_detach(&b, NULL);
}

void st_spit(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	fputs(text, fp);
	assert_int_equal(fclose(fp), 0);
}

char *st_dump(const char *dir, const char *name)
{
	struct buf p = BUF_INIT;
	char *s;

	buf_addf(&p, "%s/%s", dir, name);
	s = st_slurp(p.ptr);
	if (!s)
		fail_msg("no dump %s", p.ptr);
	buf_release(&p);
	return s;
}

char *st_row(const char *dir, const char *name, int r)
{
	char *s = st_dump(dir, name), *p = s, *nl, *out;
	int i;

	for (i = 0; i < r && p; i++) {
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	if (!p) {
		free(s);
		return xstrdup("");
	}
	nl = strchr(p, '\n');
	out = xstrndup(p, nl ? (size_t)(nl - p) : strlen(p));
	free(s);
	return out;
}

void st_expect_screen(const char *dir, const char *name, const char *golden)
{
	struct buf p = BUF_INIT;
	char *got = st_dump(dir, name), *want;
	const char *upd = getenv("BUGCODER_UPDATE_EXPECTED");

	buf_addf(&p, EXPECTED_DIR "%s", golden);
	if (upd && *upd) {
		mkdir("tests/expected", 0777);
		st_spit(p.ptr, got);
		want = xstrdup(got);
	} else {
		want = st_slurp(p.ptr);
		if (!want)
			fail_msg("missing %s (BUGCODER_UPDATE_EXPECTED=1 "
				 "writes it)", p.ptr);
	}
	if (strcmp(got, want))
		fail_msg("screen %s differs from %s\n--- got:\n%s--- want:\n%s",
			 name, p.ptr, got, want);
	free(got);
	free(want);
	buf_release(&p);
}

void st_env(const char *dir, int rows, int cols, const char *keys,
	    const char *term)
{
	struct buf p = BUF_INIT;
	char n[16];

	buf_addf(&p, "%s/keys", dir);
	st_spit(p.ptr, keys);
	setenv("BUGCODER_KEYS", p.ptr, 1);
	setenv("BUGCODER_NO_DISPLAY", "1", 1);
	setenv("BUGCODER_DUMP_DIR", dir, 1);
	/* the user's own keys file is never read: a test writes its own */
	buf_reset(&p);
	buf_addf(&p, "%s/config", dir);
	setenv("XDG_CONFIG_HOME", p.ptr, 1);
	setenv("TERM", term ? term : "dumb", 1);
	snprintf(n, sizeof(n), "%d", rows);
	setenv("LINES", n, 1);
	snprintf(n, sizeof(n), "%d", cols);
	setenv("COLUMNS", n, 1);
	buf_release(&p);
}
