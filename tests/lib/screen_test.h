/* SPDX-License-Identifier: MIT */
/*
 * screen_test: what the screen tests share - running a screen on the
 * virtual terminal with a key script, and reading back its dumps.
 *
 * A dump is the text file `:dump-screen NAME` writes into the test's
 * directory: one line per screen row.  Failures go through cmocka's
 * fail_msg(), so these are for cmocka tests only.
 */
#ifndef BUGCODER_SCREEN_TEST_H
#define BUGCODER_SCREEN_TEST_H

/* The whole of file `path`, owned; NULL when unreadable. */
char *st_slurp(const char *path);
/* Write `text` to `path` (the test fails if it cannot). */
void st_spit(const char *path, const char *text);

/* Dump `name` of directory `dir`, owned; the test fails if missing. */
char *st_dump(const char *dir, const char *name);
/* Row r (0-based) of that dump, owned ("" past the end). */
char *st_row(const char *dir, const char *name, int r);
/* Compare a dump with tests/expected/`golden`; BUGCODER_UPDATE_EXPECTED=1
 * rewrites the golden file instead. */
void st_expect_screen(const char *dir, const char *name, const char *golden);

/* Set up the environment of a screen run: the key script `keys` written
 * to dir/keys, the virtual display of rows x cols, dumps into `dir`,
 * TERM `term` (NULL: dumb), XDG_CONFIG_HOME dir/config (so a keys file
 * of the user's is never read). */
void st_env(const char *dir, int rows, int cols, const char *keys,
	    const char *term);

#define assert_contains(hay, needle) do { \
		const char *h_ = (hay), *n_ = (needle); \
		if (!strstr(h_, n_)) \
			fail_msg("expected \"%s\" in:\n%s", n_, h_); \
	} while (0)

#define assert_not_contains(hay, needle) do { \
		const char *h_ = (hay), *n_ = (needle); \
		if (strstr(h_, n_)) \
			fail_msg("did not expect \"%s\" in:\n%s", n_, h_); \
	} while (0)

#endif
