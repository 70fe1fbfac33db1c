/* SPDX-License-Identifier: MIT */
/*
 * t_screen: the annotator's screen, driven in-process.
 *
 * Every test builds a fresh study in tests/tmp (the bundled codebook,
 * members alice and bob (annotators) and carol (adjudicator), five items
 * written here so their text is known exactly, and in some tests the
 * sample items of tests/sample/items.jsonl), runs the real tui_code()
 * with a key script on a virtual screen (BUGCODER_NO_DISPLAY: newterm on
 * /dev/null, TERM=dumb unless a test wants colours, fixed LINES and
 * COLUMNS), and compares the dumped rows with expected text - whole
 * screens in tests/expected/ for the layouts, single rows elsewhere.
 * After each session the study is opened again through SQL and checked
 * for exactly the labels, memos, flags, proposals and submissions the
 * keys should have saved.
 *
 * BUGCODER_UPDATE_EXPECTED=1 rewrites the files in tests/expected/
 * instead of comparing (look at the diff before committing them);
 * BUGCODER_KEEP_TMP=1 keeps each test's directory (study, keys, dumps);
 * an argument runs only the tests matching it (`t_screen 'test_memo*'`).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/base/buf.h"
#include "core/study/import.h"
#include "core/study/item.h"
#include "core/study/label.h"
#include "core/study/member.h"
#include "core/study/replay.h"
#include "core/store/store.h"
#include "core/study/study.h"
#include "tui/keymap.h"
#include "tui/tui.h"
#include "tests/lib/screen_test.h"

#define CODEBOOK "codebooks/llm-framework-bugs.json"
#define SAMPLE "tests/sample/items.jsonl"

struct fixture {
	char dir[64];
	struct buf path;	/* the study */
	struct store st;
	struct actor owner, alice, bob;
	long long widget, hostile, nofix, twofix, sample_first;
	struct err err;		/* of the last run */
	const char *term;
};

/* ---- helpers ---------------------------------------------------------- */

static char *slurp(const char *path)
{
	return st_slurp(path);
}

static void spit(const char *path, const char *text)
{
	st_spit(path, text);
}

static long long q(struct fixture *f, const char *sql)
{
	sqlite3_stmt *s = NULL;
	long long v = -1;

	if (sqlite3_prepare_v2(f->st.db, sql, -1, &s, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(f->st.db));
	if (sqlite3_step(s) == SQLITE_ROW)
		v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return v;
}

/* The first column of every row of `sql`, joined by "|". */
static char *qs(struct fixture *f, const char *sql)
{
	sqlite3_stmt *s = NULL;
	struct buf b = BUF_INIT;

	if (sqlite3_prepare_v2(f->st.db, sql, -1, &s, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(f->st.db));
	while (sqlite3_step(s) == SQLITE_ROW) {
		const char *t = (const char *)sqlite3_column_text(s, 0);

		buf_addf(&b, "%s%s", b.len ? "|" : "", t ? t : "NULL");
	}
	sqlite3_finalize(s);
	return buf_detach(&b, NULL);
}

#define assert_sql_str(f, sql, want) do { \
		char *got_ = qs((f), (sql)); \
		if (strcmp(got_, (want))) \
			fail_msg("%s\n  got:  \"%s\"\n  want: \"%s\"", (sql), \
				 got_, (want)); \
		free(got_); \
	} while (0)

/* alice's labels as "dim=code|dim=code" in order */
static char *labels_of(struct fixture *f, const char *who)
{
	struct buf sql = BUF_INIT;
	char *r;

	buf_addf(&sql, "SELECT l.dimension || '=' || l.code FROM labels l "
		 "JOIN members m ON m.id = l.member_id WHERE m.name = '%s' "
		 "ORDER BY l.item_id, l.dimension, l.code", who);
	r = qs(f, sql.ptr);
	buf_release(&sql);
	return r;
}

#define assert_labels(f, want) do { \
		char *got_ = labels_of((f), "alice"); \
		if (strcmp(got_, (want))) \
			fail_msg("labels\n  got:  \"%s\"\n  want: \"%s\"", \
				 got_, (want)); \
		free(got_); \
	} while (0)

static char *dump(struct fixture *f, const char *name)
{
	return st_dump(f->dir, name);
}

/* Row r (0-based) of dump `name`, owned. */
static char *row(struct fixture *f, const char *name, int r)
{
	return st_row(f->dir, name, r);
}

/* The first row of dump `name` that contains `needle`, or -1. */
static int find_row(struct fixture *f, const char *name, const char *needle)
{
	char *s = dump(f, name), *p = s;
	int r = 0;

	while (p && *p) {
		char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char *line = xstrndup(p, len);
		int hit = strstr(line, needle) != NULL;

		free(line);
		if (hit) {
			free(s);
			return r;
		}
		r++;
		p = nl ? nl + 1 : NULL;
	}
	free(s);
	return -1;
}

static void assert_row(struct fixture *f, const char *name, int r,
		       const char *want)
{
	char *got = row(f, name, r);

	if (strcmp(got, want))
		fail_msg("%s row %d\n  got:  \"%s\"\n  want: \"%s\"", name, r,
			 got, want);
	free(got);
}

static void assert_row_contains(struct fixture *f, const char *name, int r,
				const char *want)
{
	char *got = row(f, name, r);

	if (!strstr(got, want))
		fail_msg("%s row %d\n  got:  \"%s\"\n  want it to contain: "
			 "\"%s\"", name, r, got, want);
	free(got);
}

/* Compare dump `name` with tests/expected/`golden`. */
static void expect_screen(struct fixture *f, const char *name,
			  const char *golden)
{
	st_expect_screen(f->dir, name, golden);
}

/* Run the screen as alice on `item` (NULL: the default) at rows x cols
 * with the key script `keys`.  Returns tui_code()'s result. */
static int run(struct fixture *f, int rows, int cols, const char *item,
	       const char *keys)
{
	st_env(f->dir, rows, cols, keys, f->term);
	err_clear(&f->err);
	return tui_code(&f->st, &f->alice, item, &f->err);
}

#define RUN_OK(f, rows, cols, item, keys) do { \
		if (run((f), (rows), (cols), (item), (keys)) < 0) \
			fail_msg("tui_code: %s", (f)->err.msg); \
	} while (0)

/* ---- the items -------------------------------------------------------- */

static const char widget_body[] =
	"## Describe the bug\n"
	"\n"
	"Starting a widget **crashes** with *some* `ValueError`. See\n"
	"[the docs](https://example.org/docs).\n"
	"\n"
	"- first point\n"
	"- second point\n"
	"  - nested point\n"
	"\n"
	"> quoted text from the reporter\n"
	"\n"
	"| option | value |\n"
	"|--------|------:|\n"
	"| ready  | false |\n"
	"| retries | 3 |\n"
	"\n"
	"```python\n"
	"engine = Engine(config)  # a very long comment that goes on and on "
	"beyond the width of any reasonable pane of a terminal screen: END\n"
	"```\n"
	"\n"
	"Traceback (most recent call last):\n"
	"  File \"run.py\", line 3, in <module>\n"
	"    start(cfg)\n"
	"ValueError: engine not ready\n";

static const char widget_diff[] =
	"diff --git a/widgets/core.py b/widgets/core.py\n"
	"index 1111111..2222222 100644\n"
	"--- a/widgets/core.py\n"
	"+++ b/widgets/core.py\n"
	"@@ -10,6 +10,7 @@ def start(config):\n"
	"     engine = Engine(config)\n"
	"-    engine.run()\n"
	"+    if engine.ready:\n"
	"+        engine.run()\n"
	"     return engine\n"
	"@@ -40,4 +41,4 @@ def stop(engine):\n"
	"-    engine.halt(force=True)\n"
	"+    engine.halt(force=False)  # keep the queue: a long line that "
	"runs past the edge of the pane and has to scroll sideways: TAIL\n"
	"     engine.close()\n"
	"diff --git a/widgets/util.py b/widgets/util.py\n"
	"index 3333333..4444444 100644\n"
	"--- a/widgets/util.py\n"
	"+++ b/widgets/util.py\n"
	"@@ -1,3 +1,4 @@\n"
	" import os\n"
	"+import sys\n"
	" \n"
	" def helper():\n";

static const char hostile_title[] =
	"Hostile \x1b]0;evil\x07 title \x1b[2J\x1b[6n end";
static const char hostile_body[] =
	"OSC52 \x1b]52;c;ZXZpbA==\x07 clip\n"
	"\n"
	"CSI8 \xc2\x9b" "31m red\n"
	"\n"
	"cr:abc\rX|\n"
	"\n"
	"back\bspace and bell\x07 here\n"
	"\n"
	"invalid \xff\xfe bytes\n"
	"\n"
	"bidi \xe2\x80\xae" "desrever\n"
	"\n"
	"wide \xe4\xbd\x9c\xe4\xbd\x9c\xe4\xbd\x9c\xe4\xbd\x9c\xe4\xbd\x9c"
	"\xe4\xbd\x9c\xe4\xbd\x9c\xe4\xbd\x9c\xe4\xbd\x9c\xe4\xbd\x9c"
	"\xe4\xbd\x9c\xe4\xbd\x9c\xe4\xbd\x9c\xe4\xbd\x9c\xe4\xbd\x9c"
	"\xe4\xbd\x9c\xe4\xbd\x9c\xe4\xbd\x9c\xe4\xbd\x9c\xe4\xbd\x9c"
	"\xe4\xbd\x9c\xe4\xbd\x9c\xe4\xbd\x9c\xe4\xbd\x9c\xe4\xbd\x9c"
	"\xe4\xbd\x9c\xe4\xbd\x9c\xe4\xbd\x9c\xe4\xbd\x9c\xe4\xbd\x9c "
	"emoji \xf0\x9f\x98\x80\xf0\x9f\x98\x80\n"
	"\n"
	"```\n"
	"code \x1b[31mred\x1b[0m and\ttab\n"
	"```\n";
static const char hostile_diff[] =
	"diff --git a/x.txt b/x.txt\r\n"
	"--- a/x.txt\r\n"
	"+++ b/x.txt\r\n"
	"@@ -1,2 +1,2 @@\r\n"
	"-old \x1b]52;c;ZXZpbA==\x07 line\r\n"
	"+new \x1b[2J line\r\n"
	" same\r\n";

static void set_fix(struct fix *x, long long number, const char *title,
		    const char *body, const char *diff, int partial)
{
	memset(x, 0, sizeof(*x));
	x->number = number;
	x->title = xstrdup(title);
	x->body = body ? xstrdup(body) : NULL;
	x->merged_at = xstrdup("2024-01-05T12:00:00Z");
	x->additions = x->deletions = x->changed_files = -1;
	if (diff) {
		x->diff = xstrdup(diff);
		x->diff_len = strlen(diff);
	}
	x->diff_partial = partial;
}

static long long save(struct fixture *f, struct item *it)
{
	struct err e = ERR_INIT;
	long long id;

	if (store_begin(&f->st, &e) < 0 || item_save(&f->st, it, &e) < 0 ||
	    store_commit(&f->st, &e) < 0)
		fail_msg("saving %s#%lld: %s", it->repo, it->number, e.msg);
	id = it->id;
	item_release(it);
	return id;
}

static void base_item(struct item *it, const char *repo, long long number,
		      const char *title, const char *body)
{
	memset(it, 0, sizeof(*it));
	it->repo = xstrdup(repo);
	it->number = number;
	it->title = xstrdup(title);
	it->body = body ? xstrdup(body) : NULL;
	it->state = xstrdup("closed");
	it->author = xstrdup("reporter");
	it->created_at = xstrdup("2024-01-02T03:04:05Z");
	it->closed_at = xstrdup("2024-01-09T10:00:00Z");
	it->days_open = -1;
	it->comment_count = -1;
}

static void add_items(struct fixture *f)
{
	struct item it;

	base_item(&it, "acme/widgets", 1, "Widget crashes on start when "
		  "the engine is not ready", widget_body);
	it.url = xstrdup("https://github.com/acme/widgets/issues/1");
	it.labels = xcalloc(2, sizeof(char *));
	it.labels[0] = xstrdup("bug");
	it.labels[1] = xstrdup("engine");
	it.nr_labels = 2;
	it.comments = xcalloc(2, sizeof(*it.comments));
	it.comments[0].author = xstrdup("bob-gh");
	it.comments[0].created_at = xstrdup("2024-01-03T10:00:00Z");
	it.comments[0].body = xstrdup("I see this too.\nWith **two** lines.");
	it.comments[1].author = xstrdup("maintainer");
	it.comments[1].created_at = xstrdup("2024-01-05T12:00:00Z");
	it.comments[1].body = xstrdup("Fixed by #2.");
	it.nr_comments = 2;
	it.fixes = xcalloc(1, sizeof(*it.fixes));
	set_fix(&it.fixes[0], 2, "Check that the engine is ready",
		"Waits for `engine.ready`.", widget_diff, 0);
	it.nr_fixes = 1;
	f->widget = save(f, &it);

	base_item(&it, "evil/repo", 66, hostile_title, hostile_body);
	free(it.author);
	it.author = xstrdup("mallory\x1b[31m");
	it.labels = xcalloc(1, sizeof(char *));
	it.labels[0] = xstrdup("bug\x1b[0m");
	it.nr_labels = 1;
	it.fixes = xcalloc(1, sizeof(*it.fixes));
	set_fix(&it.fixes[0], 67, "Fix \x1b[2J it\r!", NULL, hostile_diff, 0);
	it.nr_fixes = 1;
	f->hostile = save(f, &it);

	base_item(&it, "acme/widgets", 3, "Docs typo, no fix linked",
		  "The docs say *widgit*.");
	f->nofix = save(f, &it);

	base_item(&it, "acme/widgets", 4, "Two fixes, the second partial",
		  "Needed two pull requests.");
	it.fixes = xcalloc(2, sizeof(*it.fixes));
	set_fix(&it.fixes[0], 5, "First half", NULL, widget_diff, 0);
	set_fix(&it.fixes[1], 6, "Second half", NULL,
		"diff --git a/b.py b/b.py\n--- a/b.py\n+++ b/b.py\n"
		"@@ -1 +1 @@\n-b = 1\n+b = 2\n", 1);
	it.nr_fixes = 2;
	f->twofix = save(f, &it);
}

static void import_sample(struct fixture *f)
{
	struct import_stats stats;
	struct err e = ERR_INIT;

	memset(&stats, 0, sizeof(stats));
	if (import_file(&f->st, &f->owner, SAMPLE, &stats, &e) < 0)
		fail_msg("%s", e.msg);
	f->sample_first = q(f, "SELECT min(id) FROM items WHERE repo <> "
			    "'acme/widgets' AND repo <> 'evil/repo'");
}

static int setup(void **state)
{
	struct fixture *f = xcalloc(1, sizeof(*f));
	struct err e = ERR_INIT;

	setenv("LC_ALL", "C.UTF-8", 1);
	setenv("TZ", "UTC", 1);
	setenv("BUGCODER_NOW", "2024-06-01T00:00:00Z", 1);
	unsetenv("NO_COLOR");
	unsetenv("ESCDELAY");
	unsetenv("VISUAL");
	mkdir("tests/tmp", 0777);
	snprintf(f->dir, sizeof(f->dir), "tests/tmp/screen-XXXXXX");
	if (!mkdtemp(f->dir))
		fail_msg("mkdtemp: %s", strerror(errno));
	buf_init(&f->path, 0);
	buf_addf(&f->path, "%s/study.db", f->dir);
	if (study_create(&f->st, f->path.ptr, "screen tests", CODEBOOK,
			 &e) < 0)
		fail_msg("%s", e.msg);
	if (member_resolve(&f->st, NULL, &f->owner, &e) < 0 ||
	    member_add(&f->st, &f->owner, "alice", ROLE_ANNOTATOR, &e) < 0 ||
	    member_add(&f->st, &f->owner, "bob", ROLE_ANNOTATOR, &e) < 0 ||
	    member_add(&f->st, &f->owner, "carol", ROLE_ADJUDICATOR, &e) < 0 ||
	    member_resolve(&f->st, "alice", &f->alice, &e) < 0 ||
	    member_resolve(&f->st, "bob", &f->bob, &e) < 0)
		fail_msg("%s", e.msg);
	add_items(f);
	*state = f;
	return 0;
}

/* Whatever the screen saved is in the audit log, so that the study is
 * what replaying the log gives (core/study/replay). */
static int state_is_the_logs(struct fixture *f)
{
	struct replay_check c;
	struct err e = ERR_INIT;

	if (replay_verify(&f->st, &f->owner, NULL, &c, &e) < 0) {
		print_error("audit verify: %s\n", e.msg);
		return -1;
	}
	if (c.failed) {
		print_error("audit verify: %s\n", c.what);
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	struct buf cmd = BUF_INIT;
	const char *keep = getenv("BUGCODER_KEEP_TMP");
	int ret = state_is_the_logs(f);

	store_close(&f->st);
	actor_release(&f->owner);
	actor_release(&f->alice);
	actor_release(&f->bob);
	if (!keep || !*keep) {
		buf_addf(&cmd, "rm -rf '%s'", f->dir);
		if (system(cmd.ptr) != 0)
			fprintf(stderr, "could not remove %s\n", f->dir);
	}
	buf_release(&cmd);
	buf_release(&f->path);
	free(f);
	return ret;
}

/* ---- layouts ---------------------------------------------------------- */

static void test_split_200(void **state)
{
	struct fixture *f = *state;

	RUN_OK(f, 50, 200, NULL, ":dump-screen s\n");
	expect_screen(f, "s", "split-200x50.txt");
	assert_labels(f, "");
}

static void test_split_120(void **state)
{
	struct fixture *f = *state;

	RUN_OK(f, 35, 120, NULL, ":dump-screen s\n");
	expect_screen(f, "s", "split-120x35.txt");
}

static void test_single_80(void **state)
{
	struct fixture *f = *state;

	RUN_OK(f, 24, 80, NULL,
	       ":dump-screen issue\n<Tab>\n:dump-screen fix\n"
	       "<Tab>\n:dump-screen back\n");
	expect_screen(f, "issue", "single-80x24-issue.txt");
	expect_screen(f, "fix", "single-80x24-fix.txt");
	assert_row_contains(f, "issue", 1, "issue [Tab: fix]");
	assert_row_contains(f, "fix", 1, "fix #2 (+4 -2, 2 files) "
			    "[Tab: issue]");
	assert_row_contains(f, "back", 1, "issue [Tab: fix]");
}

/* z gives the focused pane the whole width of a wide terminal (so it
 * scrolls with the terminal's own scrolling) and shows both again. */
static void test_zoom(void **state)
{
	struct fixture *f = *state;
	char *s;

	RUN_OK(f, 50, 200, NULL, "<Tab>\nz\n:dump-screen zoomed\n"
	       "<Tab>\n:dump-screen other\nz\n:dump-screen both\n");
	assert_row_contains(f, "zoomed", 1, "fix #2 (+4 -2, 2 files) "
			    "[Tab: issue]");
	s = dump(f, "zoomed");
	assert_contains(s, "zoomed: Tab switches panes, z shows both");
	free(s);
	assert_row_contains(f, "other", 1, "issue [Tab: fix]");
	s = dump(f, "both");
	assert_contains(s, "\u2502");	/* the separator is back */
	assert_contains(s, "both panes");
	free(s);
	RUN_OK(f, 24, 80, NULL, "z\n:dump-screen narrow\n");
	s = dump(f, "narrow");
	assert_contains(s, "one pane at a time already");
	free(s);
}

static void test_too_small(void **state)
{
	struct fixture *f = *state;
	char *s;

	RUN_OK(f, 20, 60, NULL, ":dump-screen small\nj\n"
	       ":resize 24 80\n:dump-screen ok\n");
	s = dump(f, "small");
	assert_contains(s, "terminal too small: 60x20");
	assert_contains(s, "needs at least 80x24");
	free(s);
	assert_row_contains(f, "ok", 0, "acme/widgets#1");
	assert_row_contains(f, "ok", 1, "issue [Tab: fix]");
}

static void test_resize_keeps_place(void **state)
{
	struct fixture *f = *state;
	char *before, *after;

	/* scroll the issue so "Traceback" is the top line, then resize
	 * from split to single pane and back */
	RUN_OK(f, 35, 120, NULL,
	       "/Traceback\n<Enter>\n:dump-screen wide\n"
	       ":resize 24 80\n:dump-screen narrow\n"
	       ":resize 40 200\n:dump-screen wider\n"
	       ":resize 30 100\n:dump-screen back\n");
	before = row(f, "wide", 2);
	assert_contains(before, "Traceback (most recent call last):");
	assert_row(f, "narrow", 2, "Traceback (most recent call last):");
	after = row(f, "wider", 2);
	assert_contains(after, "Traceback (most recent call last):");
	free(after);
	after = row(f, "back", 2);
	assert_contains(after, "Traceback (most recent call last):");
	free(after);
	free(before);
	/* the layout follows the size: one pane at 80, two from 100 */
	assert_row_contains(f, "narrow", 1, "[Tab: fix]");
	assert_row_contains(f, "back", 1, "issue *");
	assert_row_contains(f, "back", 1, "fix #2");
}

/* ---- markdown and the issue pane -------------------------------------- */

static void test_markdown(void **state)
{
	struct fixture *f = *state;
	char *s;

	RUN_OK(f, 60, 90, NULL, ":dump-screen md\n");
	s = dump(f, "md");
	/* headings keep their marks; links show their target */
	assert_contains(s, "## Describe the bug");
	assert_contains(s, "Starting a widget crashes with some `ValueError`. "
			"See");
	assert_contains(s, "the docs <https://example.org/docs>.");
	/* lists, nesting, quotes, tables */
	assert_contains(s, "\xe2\x80\xa2 first point");
	assert_contains(s, "  \xe2\x80\xa2 nested point");
	assert_contains(s, "\xe2\x94\x82 quoted text from the reporter");
	assert_contains(s, "\n option  \xe2\x94\x82 value\n"
			"\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80"
			"\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80"
			"\xe2\x94\x80\xe2\x94\xbc\xe2\x94\x80");
	assert_contains(s, "\n ready   \xe2\x94\x82 false\n");
	assert_contains(s, "\n retries \xe2\x94\x82     3\n");
	/* code and tracebacks verbatim */
	assert_contains(s, "```python");
	assert_contains(s, "  File \"run.py\", line 3, in <module>\n"
			"    start(cfg)\nValueError: engine not ready");
	/* the thread */
	assert_contains(s, "2 comments");
	assert_contains(s, "bob-gh commented on 2024-01-03 10:00:");
	assert_contains(s, "I see this too.\nWith two lines.");
	assert_contains(s, "labels: [bug] [engine]");
	assert_contains(s, "opened by reporter on 2024-01-02 03:04, closed "
			"2024-01-09 10:00 (7 days)");
	free(s);
	s = dump(f, "md.attr");
	/* the heading is bold, emphasis underlined */
	assert_contains(s, "colour cells: 0");
	free(s);
}

static void test_code_scrolls_sideways(void **state)
{
	struct fixture *f = *state;
	char *s;

	/* the long code line is cut with a mark, prose is wrapped; l
	 * scrolls code only */
	RUN_OK(f, 24, 80, NULL, "/engine = Engine\n<Enter>\n:dump-screen a\n"
	       "llllllllll\n:dump-screen b\n^\n:dump-screen c\n");
	s = row(f, "a", 2);
	assert_int_equal(strncmp(s, "engine = Engine(config)  # a very long",
				 38), 0);
	assert_int_equal(s[strlen(s) - 1], '>');
	free(s);
	s = dump(f, "b");
	assert_contains(s, "pane of a terminal screen: END");
	/* prose does not move */
	assert_contains(s, "bob-gh commented on");
	free(s);
	s = row(f, "c", 2);
	assert_int_equal(strncmp(s, "engine = Engine(config)", 23), 0);
	free(s);
}

/* ---- the fix pane ----------------------------------------------------- */

static void test_hunks_and_files(void **state)
{
	struct fixture *f = *state;

	RUN_OK(f, 30, 120, NULL,
	       "]\n:dump-screen h1\n]\n:dump-screen h2\n]\n:dump-screen h3\n"
	       "[\n:dump-screen back\n}\n:dump-screen f2\n{\n"
	       ":dump-screen f1\n{\n:dump-screen top\n");
	/* ] focuses the fix pane and puts the hunk at its top */
	assert_row_contains(f, "h1", 1, "fix #2 (+4 -2, 2 files) *");
	assert_row_contains(f, "h1", 2, "@@ -10,6 +10,7 @@ def start(config):");
	assert_row_contains(f, "h1", 4, "-    engine.run()");
	assert_row_contains(f, "h1", 5, "+    if engine.ready:");
	assert_row_contains(f, "h2", 2, "@@ -40,4 +41,4 @@ def stop(engine):");
	assert_row_contains(f, "h3", 2, "@@ -1,3 +1,4 @@");
	assert_row_contains(f, "back", 2, "@@ -40,4 +41,4 @@");
	assert_row_contains(f, "f2", 2, "diff --git a/widgets/util.py");
	assert_row_contains(f, "f1", 2, "diff --git a/widgets/core.py");
	assert_row_contains(f, "top", 2, "#2 Check that the engine is ready");
}

/* ---- evidence ------------------------------------------------------- */

/* A range of the fix cited for symptom (new-side numbers from the hunk
 * header, the removed line inside left out), a removed line alone for
 * root_cause (old side); the bar marks both; bob sees neither.  (A
 * citation supports a label: both are coded first.) */
static void test_cite_diff(void **state)
{
	struct fixture *f = *state;

	RUN_OK(f, 24, 80, NULL, "142<Esc>\n].jjvjj\n:dump-screen r\ne\n"
	       ":dump-screen ask\n1\n:dump-screen a\nkke2\n:dump-screen b\n"
	       "]e\n:dump-screen hdr\n");
	assert_row_contains(f, "ask", 23, "cite diff:widgets/core.py:11-12 "
			    "for which dimension? e: root_cause (last coded)");
	assert_row_contains(f, "a", 23, "cited diff:widgets/core.py:11-12 "
			    "for symptom");
	assert_row_contains(f, "a", 21, "1\"symptom:");
	assert_row_contains(f, "a", 21, "2 root_cause:");
	assert_row_contains(f, "b", 23, "cited diff:widgets/core.py:old:11 "
			    "for root_cause");
	assert_row_contains(f, "b", 21, "2\"root_cause:");
	/* a hunk header alone is no line of the file */
	assert_row_contains(f, "hdr", 23, "not cited: no lines of a hunk");
	assert_sql_str(f, "SELECT e.dimension || ' ' || e.pane || ' ' || "
		       "e.path || ' ' || e.old_side || ' ' || e.line_from || "
		       "'-' || e.line_to FROM evidence e JOIN members m ON "
		       "m.id = e.member_id WHERE m.name = 'alice' ORDER BY "
		       "e.id", "symptom diff widgets/core.py 0 11-12|"
		       "root_cause diff widgets/core.py 1 11-11");
	assert_sql_str(f, "SELECT quote FROM evidence ORDER BY id LIMIT 1",
		       "+    if engine.ready:\n+        engine.run()\n");

	/* blind: bob's screen marks nothing of alice's */
	st_env(f->dir, 24, 80, ":dump-screen bob\n", f->term);
	if (tui_code(&f->st, &f->bob, "acme/widgets#1", &f->err) < 0)
		fail_msg("tui_code: %s", f->err.msg);
	assert_row_contains(f, "bob", 21, "1 symptom:");
	assert_row_contains(f, "bob", 21, "2 root_cause:");
}

/* Lines of the issue: a traceback line is its own source line; a
 * wrapped paragraph's row stands for the paragraph's lines (symptom and
 * fix_pattern coded first). */
static void test_cite_issue(void **state)
{
	struct fixture *f = *state;

	RUN_OK(f, 24, 80, NULL, "14<Esc>31<Esc>\n./start(cfg)\n<Enter>\ne3\n:dump-screen a\n"
	       "/Starting a\n<Enter>\ne1\n:dump-screen b\n.e\n:dump-screen c\n"
	       ".e5\n:dump-screen d\n");
	assert_row_contains(f, "a", 23, "cited issue:body:23 for fix_pattern");
	/* phase has no code: nothing to support */
	assert_row_contains(f, "d", 23, "not cited: issue:body:");
	assert_row_contains(f, "d", 23, "alice has no code for phase");
	assert_row_contains(f, "b", 23, "cited issue:body:3-4 for symptom");
	/* no cursor: the search match in view is what e cites */
	assert_row_contains(f, "c", 23, "cite issue:body:3-4 for which "
			    "dimension? e: fix_pattern (last coded)");
	assert_sql_str(f, "SELECT e.dimension || ' ' || e.comment || ' ' || "
		       "e.line_from || '-' || e.line_to || ' ' || e.quote "
		       "FROM evidence e ORDER BY e.id",
		       "fix_pattern 0 23-23     start(cfg)\n|symptom 0 3-4 Starting "
		       "a widget **crashes** with *some* `ValueError`. See\n"
		       "[the docs](https://example.org/docs).\n");
}

/* Nothing under a cursor, no match in view, in the issue pane: nothing
 * to cite, and the status line says how to. */
static void test_cite_nothing(void **state)
{
	struct fixture *f = *state;

	RUN_OK(f, 24, 80, NULL, "14<Esc>\ne\n:dump-screen a\n");
	assert_row_contains(f, "a", 23, "nothing to cite in view");
	assert_int_equal(q(f, "SELECT count(*) FROM evidence"), 0);
}

/* A line of the fix cited for the dimension being coded in three keys
 * from the moment it is on screen: ] puts the hunk's first change in
 * view, e cites it, e (the dimension coded last) saves; ] v e e cites
 * the run of changed lines. */
static void test_cite_in_three_keys(void **state)
{
	struct fixture *f = *state;

	RUN_OK(f, 24, 80, NULL, "14<Esc>\n]ee\n:dump-screen a\ng]vee\n"
	       ":dump-screen b\n");
	assert_row_contains(f, "a", 23, "cited diff:widgets/core.py:old:11 "
			    "for symptom");
	/* the run: the removed line and the two added ones (the new side) */
	assert_row_contains(f, "b", 23, "cited diff:widgets/core.py:11-12 "
			    "for symptom");
	assert_sql_str(f, "SELECT e.path || ':' || e.old_side || ':' || "
		       "e.line_from || '-' || e.line_to || ' ' || e.quote FROM "
		       "evidence e ORDER BY e.id",
		       "widgets/core.py:1:11-11 -    engine.run()\n|"
		       "widgets/core.py:0:11-12 +    if engine.ready:\n"
		       "+        engine.run()\n");
}

/* E lists one's citations per dimension with their quotes; j/k select,
 * Enter shows the lines in their pane, x removes one (audited).
 * Clearing a cited dimension asks whether its citations go: y drops
 * them, another key keeps them. */
static void test_citations_list(void **state)
{
	struct fixture *f = *state;
	char *s;

	RUN_OK(f, 24, 80, NULL, "142<Esc>\n]ee\n<Tab>/Starting a\n<Enter>\n"
	       "e1\nE\n:dump-screen l\nj\n:dump-screen l2\n<Enter>\n"
	       ":dump-screen show\nEkx\n:dump-screen x\nq\n");
	s = dump(f, "l");
	assert_contains(s, "Your citations (2)");
	assert_contains(s, "symptom = hang");
	assert_contains(s, "issue:body:3-4");
	assert_contains(s, "Starting a widget **crashes**");
	assert_contains(s, "root_cause = ");
	assert_contains(s, "diff:widgets/core.py:old:11");
	assert_contains(s, "-    engine.run()");
	free(s);
	/* Enter on the second (root_cause's): the fix pane, its line under
	 * the cursor */
	assert_row_contains(f, "show", 1, "fix #2");
	assert_row_contains(f, "show", 23, "diff:widgets/core.py:old:11 (e "
			    "cites again");
	assert_int_equal(find_row(f, "show", "\xe2\x96\xb6-    engine.run()"),
			 2);
	/* x on the first (symptom's) */
	assert_row_contains(f, "x", 23, "removed: #");
	assert_row_contains(f, "x", 23, "issue:body:3-4 of symptom");
	s = dump(f, "x");
	assert_contains(s, "Your citations (1)");
	assert_not_contains(s, "Starting a widget **crashes**");
	free(s);
	assert_sql_str(f, "SELECT dimension FROM evidence", "root_cause");
	assert_sql_str(f, "SELECT dimension || ' ' || old FROM audit WHERE "
		       "action = 'evidence.remove'", "symptom issue:body:3-4");

	/* clearing root_cause: keep (n), then clearing after a new code:
	 * drop (y) */
	RUN_OK(f, 24, 80, NULL, "2<Del>\n:dump-screen ask\nn\n"
	       ":dump-screen kept\n<Esc>E\n:dump-screen k2\nq\n24<Esc>\n"
	       "2<Del>y\n:dump-screen drop\n");
	assert_row_contains(f, "ask", 23, "saved: root_cause cleared; drop "
			    "its 1 citation too? y drops");
	assert_row_contains(f, "kept", 23, "kept: 1 citation of root_cause");
	s = dump(f, "k2");
	assert_contains(s, "root_cause (not coded now: cleared, its citations "
			"kept)");
	free(s);
	assert_row_contains(f, "drop", 23, "dropped: 1 citation of "
			    "root_cause");
	assert_int_equal(q(f, "SELECT count(*) FROM evidence"), 0);
	assert_int_equal(q(f, "SELECT count(*) FROM audit WHERE action = "
			   "'evidence.remove'"), 2);
}

static void test_fix_header_and_scroll(void **state)
{
	struct fixture *f = *state;
	char *s;

	RUN_OK(f, 30, 120, NULL, "<Tab>\n:dump-screen a\n]]\nllllllllllll\n"
	       ":dump-screen b\n");
	s = dump(f, "a");
	assert_contains(s, "#2 Check that the engine is ready");
	assert_contains(s, "+4 -2, 2 files, merged 2024-01-05");
	assert_contains(s, "  M widgets/core.py  +3 -2");
	assert_contains(s, "  M widgets/util.py  +1 -0");
	assert_contains(s, "Waits for `engine.ready`.");
	free(s);
	/* sideways: the diff scrolled by 96 columns shows the tail */
	s = dump(f, "b");
	assert_contains(s, "sideways: TAIL");
	free(s);
}

static void test_no_fix(void **state)
{
	struct fixture *f = *state;
	char *s;

	RUN_OK(f, 30, 120, "acme/widgets#3", ":dump-screen a\n]\n"
	       ":dump-screen b\n");
	s = dump(f, "a");
	assert_contains(s, "fix: none");
	assert_contains(s, "No fix: this item has no linked pull request.");
	free(s);
	assert_row_contains(f, "b", 29, "no hunks in this fix");
}

static void test_two_fixes(void **state)
{
	struct fixture *f = *state;
	char *s;

	RUN_OK(f, 30, 200, "acme/widgets#4", ":dump-screen a\nF\n"
	       ":dump-screen b\nF\n:dump-screen c\n");
	s = dump(f, "a");
	assert_contains(s, "fix 1/2 #5");
	assert_contains(s, "(fix 1 of 2; F shows the next)");
	assert_not_contains(s, "Partial diff");
	free(s);
	s = dump(f, "b");
	assert_contains(s, "fix 2/2 #6 (+1 -1, 1 file)");
	assert_contains(s, "Partial diff: GitHub listed only some files");
	assert_contains(s, "fix 2 of 2");
	free(s);
	assert_row_contains(f, "c", 1, "fix 1/2 #5");
}

/* ---- coding ----------------------------------------------------------- */

static void test_picker_definitions(void **state)
{
	struct fixture *f = *state;
	char *s;

	RUN_OK(f, 30, 100, NULL, "2\n:dump-screen picker\n<Down>\n"
	       ":dump-screen down\n<PgDn><PgDn>\n:dump-screen end\n"
	       "<Esc>\n:dump-screen closed\n");
	expect_screen(f, "picker", "picker-100x30.txt");
	s = dump(f, "picker");
	assert_contains(s, "2/5 root_cause (one code, required)");
	assert_contains(s, "( )  1 api_misuse");
	assert_contains(s, "Definition: Framework code calls a library");
	assert_contains(s, "Include: ");
	free(s);
	s = dump(f, "down");
	assert_contains(s, "incorrect_implementation \xc2\xb7 Incorrect "
			"implementation");
	free(s);
	s = dump(f, "end");
	assert_contains(s, "( )  g other");
	free(s);
	s = dump(f, "closed");
	assert_not_contains(s, "root_cause (one code");
	free(s);
	assert_labels(f, "");
}

static void test_pick_by_number(void **state)
{
	struct fixture *f = *state;
	char *s;

	/* symptom has 10 codes: 1-9 and a pick at once; a pick moves on
	 * to the next dimension to code */
	RUN_OK(f, 24, 80, NULL, "14\n:dump-screen a\n<Esc>1\n:dump-screen p\n"
	       "a\n:dump-screen b\n<Esc>11\n:dump-screen c\n<Esc>\n");
	assert_row_contains(f, "a", 23, "saved: symptom = hang");
	assert_row_contains(f, "a", 21, "1 symptom: hang");
	s = dump(f, "a");
	assert_contains(s, "2/5 root_cause (one code, required)");
	free(s);
	s = dump(f, "p");
	assert_contains(s, "1-9, a or Enter pick");
	assert_contains(s, "(*)  4 hang");
	free(s);
	assert_row_contains(f, "b", 23, "saved: symptom = other");
	assert_row_contains(f, "c", 23, "saved: symptom = crash");
	assert_labels(f, "symptom=crash");
}

static void test_letters(void **state)
{
	struct fixture *f = *state;
	char *s;

	/* root_cause has 16 codes: 1-9, then a-g, each one key */
	RUN_OK(f, 30, 100, NULL, "2\n:dump-screen list\nd\n:dump-screen a\n"
	       "<Esc>21\n:dump-screen b\n<Esc>29\n:dump-screen c\n"
	       "<Esc>2a\n:dump-screen d\n<Esc>2h\n:dump-screen e\n"
	       "<Esc><Esc>\n");
	s = dump(f, "list");
	assert_contains(s, "1-9, a-g or Enter pick");
	assert_contains(s, "( )  9 incorrect_assignment");
	assert_contains(s, "( )  a numerical_issue");
	free(s);
	assert_row_contains(f, "a", 29,
			    "saved: root_cause = distributed_communication");
	assert_row_contains(f, "b", 29, "saved: root_cause = api_misuse");
	assert_row_contains(f, "c", 29,
			    "saved: root_cause = incorrect_assignment");
	assert_row_contains(f, "d", 29, "saved: root_cause = numerical_issue");
	assert_row_contains(f, "e", 29, "no code h in root_cause: 1-9, a-g "
			    "pick, / filters");
	assert_labels(f, "root_cause=numerical_issue");
	/* four saves, four audit entries */
	assert_int_equal(q(f, "SELECT count(*) FROM audit WHERE action = "
			   "'label'"), 4);
}

static void test_filter(void **state)
{
	struct fixture *f = *state;
	char *s;

	RUN_OK(f, 30, 100, NULL, "2/shape\n:dump-screen f\n<Enter>\n"
	       ":dump-screen done\n<Esc>2/zzz\n:dump-screen none\n<Esc>\n"
	       ":dump-screen ended\n<Esc>\n:dump-screen closed\n");
	s = dump(f, "f");
	assert_contains(s, "/shape_  (1 of 16; Enter picks, Esc ends the "
			"filter)");
	assert_contains(s, "( )  6 tensor_shape_misalignment");
	assert_not_contains(s, "api_misuse");
	free(s);
	assert_row_contains(f, "done", 29,
			    "saved: root_cause = tensor_shape_misalignment");
	s = dump(f, "none");
	assert_contains(s, "no code matches");
	free(s);
	/* Esc ends the filter, then closes */
	s = dump(f, "ended");
	assert_contains(s, "2/5 root_cause");
	assert_contains(s, "api_misuse");
	free(s);
	s = dump(f, "closed");
	assert_not_contains(s, "2/5 root_cause");
	free(s);
	assert_labels(f, "root_cause=tensor_shape_misalignment");
}

static void test_multi_select(void **state)
{
	struct fixture *f = *state;
	char *s;

	/* fix_pattern is `select: many`: a key that adds a code moves on
	 * (to phase: stage is optional); back with S-Tab, a second code;
	 * a key that removes one stays; Space toggles and stays; Enter is
	 * done */
	RUN_OK(f, 30, 100, NULL, "3\n1\n:dump-screen moved\n<S-Tab><S-Tab>"
	       "6\n:dump-screen two\n<S-Tab><S-Tab>1\n:dump-screen one\n"
	       "<Down><Space>\n:dump-screen space\n<Enter>\n"
	       ":dump-screen done\n<Esc>\n:dump-screen closed\n"
	       "3/sync\n<Enter>\n<Esc>\n:dump-screen synced\n");
	s = dump(f, "moved");
	assert_contains(s, "5/5 phase");
	assert_contains(s, "saved: fix_pattern = conditional_logic");
	free(s);
	s = dump(f, "two");
	assert_contains(s, "5/5 phase");
	assert_contains(s, "saved: fix_pattern = api_correction, "
			"conditional_logic");
	free(s);
	s = dump(f, "one");
	assert_contains(s, "3/5 fix_pattern");
	/* Enter closes a many-code dimension: the hint must not promise a
	 * toggle from it; and it says what a digit does (adds and moves on,
	 * or removes a chosen code), not that digits toggle */
	assert_contains(s, "1-9 add and go on (a chosen one: remove), Space "
			"toggle, Enter done");
	assert_not_contains(s, "1-9 or Space toggle");
	assert_not_contains(s, "Enter toggle");
	assert_contains(s, "[ ]  1 conditional_logic");
	assert_contains(s, "[x]  6 api_correction");
	assert_contains(s, "[ ]  2 parameter_handling");
	free(s);
	s = dump(f, "space");
	assert_contains(s, "3/5 fix_pattern");
	assert_contains(s, "[x]  2 parameter_handling");
	free(s);
	s = dump(f, "done");
	assert_contains(s, "5/5 phase");
	free(s);
	assert_row_contains(f, "closed", 27, "fix_pattern: api_correction,"
			    "pa");
	assert_row_contains(f, "synced", 27,
			    "fix_pattern: api_correction,pa");
	assert_labels(f, "fix_pattern=api_correction|"
		      "fix_pattern=parameter_handling|"
		      "fix_pattern=synchronization");
}

static void test_clear_and_repick(void **state)
{
	struct fixture *f = *state;

	RUN_OK(f, 24, 80, NULL, "41<Esc>4<Del>\n:dump-screen a\n<Esc>\n");
	assert_row_contains(f, "a", 23, "saved: stage cleared");
	assert_labels(f, "");
	assert_int_equal(q(f, "SELECT count(*) FROM audit WHERE action = "
			   "'label'"), 2);
}

static void test_tab_between_dimensions(void **state)
{
	struct fixture *f = *state;
	char *s;

	RUN_OK(f, 30, 100, NULL, "1<Tab>\n:dump-screen a\n<S-Tab><S-Tab>\n"
	       ":dump-screen b\n2\n");
	s = dump(f, "a");
	assert_contains(s, "2/5 root_cause");
	free(s);
	s = dump(f, "b");
	assert_contains(s, "5/5 phase");
	free(s);
	assert_labels(f, "phase=inference");
}

/* A screen left open across `codebook update --map` saved a code the
 * new version no longer has.  Now the pick is refused in the write
 * transaction, the codebook is read again, the picker that showed the
 * old codes closes, and the status line says so; the next pick uses the
 * new version. */
static void test_stale_codebook(void **state)
{
	struct fixture *f = *state;
	char *cb = slurp(CODEBOOK), *p, *s;
	struct buf v2 = BUF_INIT, path = BUF_INIT, keys = BUF_INIT;

	assert_non_null(cb);
	p = strstr(cb, "\"version\": \"1.0\"");
	assert_non_null(p);
	buf_add(&v2, cb, (size_t)(p - cb));
	buf_addstr(&v2, "\"version\": \"2.0\"");
	p += strlen("\"version\": \"1.0\"");
	s = strstr(p, "\"key\": \"configuration_error\"");
	assert_non_null(s);
	buf_add(&v2, p, (size_t)(s - p));
	buf_addstr(&v2, "\"key\": \"misconfig\"");
	buf_addstr(&v2, s + strlen("\"key\": \"configuration_error\""));
	buf_addf(&path, "%s/v2.json", f->dir);
	spit(path.ptr, v2.ptr);
	/* 2 opens root_cause; the update comes in between two keys (no
	 * idle moment to notice it); 3 was configuration_error */
	buf_addf(&keys, "2\n:dump-screen open\n:exec ./bugcoder --study %s "
		 "codebook update %s --map root_cause:configuration_error="
		 "misconfig >/dev/null 2>&1\n3\n:dump-screen a\n2\n"
		 ":dump-screen b\n3\n:dump-screen c\n", f->path.ptr,
		 path.ptr);
	RUN_OK(f, 30, 100, NULL, keys.ptr);
	s = dump(f, "open");
	assert_contains(s, "( )  3 configuration_error");
	free(s);
	assert_row_contains(f, "a", 29, "not saved: the codebook is now "
			    "llm-framework-bugs 2.0; reloaded, pick again");
	s = dump(f, "a");
	assert_not_contains(s, "root_cause (one code");
	free(s);
	s = dump(f, "b");
	assert_contains(s, "( )  3 misconfig");
	assert_not_contains(s, "configuration_error");
	free(s);
	assert_row_contains(f, "c", 29, "saved: root_cause = misconfig");
	assert_labels(f, "root_cause=misconfig");
	assert_sql_str(f, "SELECT codebook_version FROM labels", "2.0");
	free(cb);
	buf_release(&v2);
	buf_release(&path);
	buf_release(&keys);
}

/* An open screen did not notice what other processes changed: labels
 * the same annotator set from the command line, a new codebook version.
 * Now, idle, it asks SQLite whether the study changed (PRAGMA
 * data_version) and redraws what did; :run stands for the other
 * process, and the pause after it for the user's. */
static void test_fresh_screen(void **state)
{
	struct fixture *f = *state;
	struct buf keys = BUF_INIT, path = BUF_INIT;
	char *cb = slurp(CODEBOOK), *name, *s;

	assert_non_null(cb);
	name = qs(f, "SELECT repo || '#' || number FROM items ORDER BY id "
		  "LIMIT 1");
	/* version 2.0, the same codes */
	s = strstr(cb, "\"version\": \"1.0\"");
	assert_non_null(s);
	s[12] = '2';
	buf_addf(&path, "%s/v2.json", f->dir);
	spit(path.ptr, cb);
	buf_addf(&keys, ":dump-screen before\n:run ./bugcoder --study %s --as "
		 "alice label %s symptom=hang root_cause=concurrency >/dev/null "
		 "2>&1\n:dump-screen after\n1\n:dump-screen picker\n:run "
		 "./bugcoder --study %s codebook update %s >/dev/null 2>&1\n"
		 ":dump-screen reloaded\n", f->path.ptr, name, f->path.ptr,
		 path.ptr);
	RUN_OK(f, 24, 80, name, keys.ptr);
	assert_row_contains(f, "before", 21, "1 symptom: [ ]");
	assert_row_contains(f, "after", 21, "1 symptom: hang");
	assert_row_contains(f, "after", 21, "2 root_cause: concurrency");
	s = dump(f, "picker");
	assert_contains(s, "symptom (one code");
	free(s);
	s = dump(f, "reloaded");
	assert_not_contains(s, "symptom (one code");
	free(s);
	assert_row_contains(f, "reloaded", 23, "the codebook is now "
			    "llm-framework-bugs 2.0, loaded elsewhere");
	/* and the next pick is saved under 2.0 */
	RUN_OK(f, 24, 80, name, "11\n");
	assert_sql_str(f, "SELECT DISTINCT codebook_version FROM labels "
		       "ORDER BY 1", "1.0|2.0");
	free(name);
	free(cb);
	buf_release(&keys);
	buf_release(&path);
}

/* A pick behind another writer froze the screen for 8 s, then said "not
 * saved ... busy" and left the picker open, where typing the same keys
 * again could save a different code.  Now the save waits briefly, the
 * pick shows as pending, the picker closes, and the pick is retried
 * while the screen is idle until it is saved or Esc drops it. */
static void test_busy_pick_pends(void **state)
{
	struct fixture *f = *state;
	struct buf keys = BUF_INIT, hold = BUF_INIT;
	char *s;

	/* another process holds the write lock from `held` to `release` */
	buf_addf(&hold, "%s/hold.py", f->dir);
	spit(hold.ptr, "import os, sqlite3, sys, time\n"
	     "db, d = sys.argv[1], sys.argv[2]\n"
	     "c = sqlite3.connect(db, isolation_level=None)\n"
	     "c.execute('BEGIN IMMEDIATE')\n"
	     "open(d + '/held', 'w').close()\n"
	     "while not os.path.exists(d + '/release'):\n"
	     "    time.sleep(0.01)\n"
	     "c.execute('COMMIT')\n"
	     "os.remove(d + '/held')\n");
	buf_addf(&keys,
		 ":exec python3 %s %s %s &\n"
		 ":exec while [ ! -e %s/held ]; do sleep 0.01; done\n"
		 "14\n:dump-screen pending\n"
		 /* a second pick waits for the first */
		 "21\n:dump-screen second\n<Esc>\n"
		 /* still busy: the retry keeps it */
		 ":run true\n:dump-screen still\n"
		 /* the other writer is done: the next idle moment saves */
		 ":exec touch %s/release; while [ -e %s/held ]; do sleep 0.01; "
		 "done\n:run true\n:dump-screen saved\n",
		 hold.ptr, f->path.ptr, f->dir, f->dir, f->dir, f->dir);
	RUN_OK(f, 24, 80, NULL, keys.ptr);
	assert_row_contains(f, "pending", 23, "pending: ");
	assert_row_contains(f, "pending", 23, "symptom = hang - the study is "
			    "busy");
	s = dump(f, "pending");
	assert_not_contains(s, "symptom (one code");	/* picker closed */
	assert_not_contains(s, "Esc close");	/* not moved on either */
	free(s);
	assert_row_contains(f, "second", 23, "not saved: ");
	assert_row_contains(f, "second", 23, "is still pending");
	assert_row_contains(f, "still", 23, "pending: ");
	assert_row_contains(f, "saved", 23, "saved: symptom = hang");
	assert_row_contains(f, "saved", 21, "1 symptom: hang");
	assert_labels(f, "symptom=hang");

	/* Esc drops a pending pick */
	buf_reset(&keys);
	buf_addf(&keys,
		 ":exec python3 %s %s %s &\n"
		 ":exec while [ ! -e %s/held ]; do sleep 0.01; done\n"
		 "11\n:dump-screen p2\n<Esc>\n:dump-screen dropped\n"
		 ":exec touch %s/release; while [ -e %s/held ]; do sleep 0.01; "
		 "done\n:run true\n",
		 hold.ptr, f->path.ptr, f->dir, f->dir, f->dir, f->dir);
	{
		struct buf rel = BUF_INIT;

		buf_addf(&rel, "%s/release", f->dir);
		unlink(rel.ptr);
		buf_release(&rel);
	}
	RUN_OK(f, 24, 80, NULL, keys.ptr);
	assert_row_contains(f, "p2", 23, "symptom = crash");
	assert_row_contains(f, "dropped", 23, "dropped: ");
	assert_labels(f, "symptom=hang");
	buf_release(&keys);
	buf_release(&hold);
}

static void test_pick_uncoded(void **state)
{
	struct fixture *f = *state;
	char *s;

	/* c opens the first dimension not coded yet; each pick moves on
	 * to the next required one, the last closes the picker */
	RUN_OK(f, 24, 80, NULL, "c2\n2\n1\n1\n:dump-screen a\nc\n"
	       ":dump-screen b\n4\n:dump-screen c\nc\n:dump-screen d\n");
	s = dump(f, "a");
	assert_not_contains(s, "/5 ");
	free(s);
	s = dump(f, "b");
	assert_contains(s, "4/5 stage");
	free(s);
	s = dump(f, "c");
	assert_not_contains(s, "/5 ");
	free(s);
	assert_labels(f, "fix_pattern=conditional_logic|phase=training|"
		      "root_cause=incorrect_implementation|stage=memory|"
		      "symptom=incorrect_functionality");
	assert_row_contains(f, "d", 23, "every dimension is coded; s submits");
}

static void test_propose(void **state)
{
	struct fixture *f = *state;
	char *s;

	RUN_OK(f, 30, 100, NULL, "2+\n:dump-screen form\nfp16_overflow\t"
	       "FP16 overflow\tA value exceeds the fp16 range\n"
	       ":dump-screen typed\n<Enter>\n:dump-screen done\n");
	s = dump(f, "form");
	assert_contains(s, "Propose a new code for root_cause");
	assert_contains(s, "Key:");
	assert_contains(s, "Definition:");
	free(s);
	s = dump(f, "done");
	assert_contains(s, "saved: proposal root_cause=fp16_overflow");
	assert_contains(s, "2 root_cause: other+");
	assert_not_contains(s, "Propose a new code");
	free(s);
	assert_labels(f, "root_cause=other");
	assert_sql_str(f, "SELECT dimension || ':' || key || ':' || name || "
		       "':' || definition || ':' || status FROM proposals",
		       "root_cause:fp16_overflow:FP16 overflow:A value "
		       "exceeds the fp16 range:open");
	assert_int_equal(q(f, "SELECT count(*) FROM labels WHERE "
			   "proposal_id = (SELECT id FROM proposals)"), 1);
}

/* A proposal being typed was lost on Ctrl-C, a hang-up or SIGTERM.
 * Now it is kept as a draft and offered when the form opens again for
 * the same item and dimension; proposing removes the draft. */
static void test_proposal_draft_kept(void **state)
{
	struct fixture *f = *state;
	char *s;

	assert_int_equal(run(f, 30, 100, NULL, "2+\nfp16_overflow\tFP16 "
			     "over\n:signal HUP\nlost\n"), -1);
	assert_int_equal(f->err.code, ERR_INTERRUPTED);
	assert_non_null(strstr(f->err.msg, "the proposal being typed is "
			       "kept as a draft"));
	assert_int_equal(q(f, "SELECT count(*) FROM proposals"), 0);
	assert_sql_str(f, "SELECT field || '=' || text FROM drafts ORDER BY "
		       "field", "key=fp16_overflow|name=FP16 over");
	/* another dimension's form starts empty; this one's has the draft */
	RUN_OK(f, 30, 100, NULL, "1+\n:dump-screen other\n<Esc><Esc>2+\n"
	       ":dump-screen back\n\t<End>flow\tA value exceeds the fp16 "
	       "range\n<Enter>\n");
	s = dump(f, "other");
	assert_not_contains(s, "fp16_overflow");
	free(s);
	s = dump(f, "back");
	assert_contains(s, "fp16_overflow");
	assert_contains(s, "FP16 over");
	assert_contains(s, "the proposal you were typing when the screen "
			"stopped is back");
	free(s);
	assert_sql_str(f, "SELECT key || ':' || name || ':' || definition "
		       "FROM proposals", "fp16_overflow:FP16 overflow:A value "
		       "exceeds the fp16 range");
	assert_int_equal(q(f, "SELECT count(*) FROM drafts"), 0);
}

/* Opening the picker again lands on the chosen code: Enter there must
 * not save it anew, which would detach the proposal it carries. */
static void test_repick_keeps_proposal(void **state)
{
	struct fixture *f = *state;
	char *s;

	RUN_OK(f, 30, 100, NULL, "2+fp16_overflow\tFP16 overflow\tToo big\n"
	       "<Enter>\n2\n<Enter>\n:dump-screen again\n");
	s = dump(f, "again");
	assert_contains(s, "2 root_cause: other+");
	assert_contains(s, "already saved: root_cause = other (with its "
			"proposal)");
	free(s);
	assert_int_equal(q(f, "SELECT count(*) FROM labels WHERE dimension = "
			   "'root_cause' AND code = 'other' AND proposal_id = "
			   "(SELECT id FROM proposals)"), 1);
	/* another code, then other again: a choice the user made, saved
	 * (without the proposal) */
	RUN_OK(f, 30, 100, NULL, "23\n<Esc>2g\n:dump-screen moved\n<Esc>\n");
	assert_row_contains(f, "moved", 29, "saved: root_cause = other");
	assert_labels(f, "root_cause=other");
	assert_int_equal(q(f, "SELECT count(*) FROM audit WHERE action = "
			   "'label' AND dimension = 'root_cause'"), 3);
}

static void test_propose_refused(void **state)
{
	struct fixture *f = *state;
	char *s;

	/* a key that exists already: refused, the form stays */
	RUN_OK(f, 30, 100, NULL, "2+api_misuse\tAPI\tdup\n<Enter>\n"
	       ":dump-screen a\n<Esc><Esc>\n");
	s = dump(f, "a");
	assert_contains(s, "Propose a new code for root_cause");
	assert_contains(s, "not proposed: root_cause=api_misuse: the code "
			"already exists");
	free(s);
	assert_int_equal(q(f, "SELECT count(*) FROM proposals"), 0);
	assert_labels(f, "");
}

/* ---- memo, flags, submit ---------------------------------------------- */

static void test_memo(void **state)
{
	struct fixture *f = *state;
	char *s;

	RUN_OK(f, 24, 80, NULL, "m\nFirst line\n<Enter>\nsecond "
	       "\xc3\xa9t\xc3\xa9\n:dump-screen editing\n<Esc>\n:dump-screen saved\n"
	       "m\n<Up><End> extra\n<C-g>\n:dump-screen cancelled\n");
	s = dump(f, "editing");
	assert_contains(s, "Memo on acme/widgets#1");
	assert_contains(s, "First line");
	assert_contains(s, "second \xc3\xa9t\xc3\xa9");
	free(s);
	assert_row_contains(f, "saved", 23, "saved: memo (2 lines)");
	assert_row_contains(f, "saved", 0, "[memo]");
	assert_row_contains(f, "cancelled", 23, "memo not changed");
	assert_sql_str(f, "SELECT text FROM memos",
		       "First line\nsecond \xc3\xa9t\xc3\xa9");
}

static void test_memo_editor(void **state)
{
	struct fixture *f = *state;
	struct buf ed = BUF_INIT, script = BUF_INIT;

	buf_addf(&ed, "%s/editor.sh", f->dir);
	spit(ed.ptr, "#!/bin/sh\nprintf 'from the editor\\nline two\\n' "
	     ">> \"$1\"\n");
	chmod(ed.ptr, 0755);
	setenv("EDITOR", ed.ptr, 1);
	RUN_OK(f, 24, 80, NULL, "M\n:dump-screen a\n");
	assert_row_contains(f, "a", 23, "saved: memo (2 lines)");
	assert_sql_str(f, "SELECT text FROM memos",
		       "from the editor\nline two");
	/* an editor that writes CRLF: lines end with LF, as typed */
	spit(ed.ptr, "#!/bin/sh\nprintf 'dos one\\r\\ndos two\\r\\n' > "
	     "\"$1\"\n");
	RUN_OK(f, 24, 80, NULL, "M\n");
	assert_sql_str(f, "SELECT text FROM memos", "dos one\ndos two");
	/* a NUL byte would cut the text short, silently: refused */
	spit(ed.ptr, "#!/bin/sh\nprintf 'kept\\000lost\\n' > \"$1\"\n");
	RUN_OK(f, 24, 80, NULL, "M\n:dump-screen n\n");
	unsetenv("EDITOR");
	assert_row_contains(f, "n", 23, "NUL byte: not changed");
	assert_sql_str(f, "SELECT text FROM memos", "dos one\ndos two");
	buf_release(&ed);
	buf_release(&script);
}

/* A memo being typed when the connection drops (SIGHUP), or the screen
 * is told to stop (SIGTERM), is saved as Esc would save it; one not
 * changed is not written. */
static void test_memo_saved_on_hangup(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(run(f, 24, 80, NULL, "m\nhalf a thought\n"
			     ":signal HUP\nlost\n"), -1);
	assert_int_equal(f->err.code, ERR_INTERRUPTED);
	assert_non_null(strstr(f->err.msg, "SIGHUP"));
	assert_non_null(strstr(f->err.msg, "memo being typed is saved"));
	assert_sql_str(f, "SELECT text FROM memos", "half a thought");
	assert_int_equal(run(f, 24, 80, NULL, "m\n<End>, and more\n"
			     ":signal TERM\n"), -1);
	assert_sql_str(f, "SELECT text FROM memos", "half a thought, and more");
	/* opened, not changed: nothing to write */
	assert_int_equal(run(f, 24, 80, NULL, "m\n:signal HUP\n"), -1);
	assert_null(strstr(f->err.msg, "memo"));
	assert_int_equal(q(f, "SELECT count(*) FROM audit WHERE action = "
			   "'memo'"), 2);
	/* the terminal made too small, then q from its notice: the memo
	 * being typed is kept as well */
	RUN_OK(f, 24, 80, NULL, "m\n<C-u>before the resize\n:resize 10 40\n"
	       "q\n");
	assert_sql_str(f, "SELECT text FROM memos", "before the resize");
	/* the usage of the script command */
	assert_int_equal(run(f, 24, 80, NULL, ":signal KILL\n"), -1);
	assert_non_null(strstr(f->err.msg, "usage: :signal"));
}

/* A bracketed paste is one event: text in a field, ignored on the
 * main screen, where its characters would run as commands. */
static void test_paste(void **state)
{
	struct fixture *f = *state;

	/* "14" would code symptom 4 and "s" submit */
	RUN_OK(f, 24, 80, NULL, ":paste 14s\\nq\n:dump-screen main\n");
	assert_row_contains(f, "main", 23, "paste ignored");
	assert_labels(f, "");
	assert_int_equal(q(f, "SELECT count(*) FROM submissions"), 0);
	/* the memo keeps its lines; CRLF is one line end (a lone CR
	 * too), a tab four spaces, an escape character is left out */
	RUN_OK(f, 24, 80, NULL, "m\n:paste one\\r\\ntwo\\tx\\e[31m red\\r\n"
	       "<Esc>\n");
	assert_sql_str(f, "SELECT text FROM memos",
		       "one\ntwo    x[31m red\n");
	/* a one-line field: line ends become spaces */
	RUN_OK(f, 24, 80, NULL, "/\n:paste Widget\\ncrashes\n<Enter>\n"
	       ":dump-screen s\n");
	assert_row_contains(f, "s", 2, "Widget crashes on start");
	{
		char *st = row(f, "s", 23);

		assert_null(strstr(st, "not found"));
		free(st);
	}
	/* the script command's escapes */
	assert_int_equal(run(f, 24, 80, NULL, ":paste bad\\q\n"), -1);
	assert_non_null(strstr(f->err.msg, ":paste knows the escapes"));
}

static void test_flags(void **state)
{
	struct fixture *f = *state;

	RUN_OK(f, 24, 80, NULL, "u\n:dump-screen u\nd\nu\n:dump-screen d\n");
	assert_row_contains(f, "u", 23, "saved: uncertain on");
	assert_row_contains(f, "u", 0, "[uncertain]");
	assert_row_contains(f, "d", 23, "saved: uncertain off");
	assert_row_contains(f, "d", 0, "[discuss]");
	assert_sql_str(f, "SELECT flag FROM flags", "discuss");
}

static void test_submit_missing(void **state)
{
	struct fixture *f = *state;

	RUN_OK(f, 24, 80, NULL, "14<Esc>s\n:dump-screen a\n");
	assert_row_contains(f, "a", 23, "not submitted: required dimensions "
			    "not coded: root_cause, fix_pattern, phase");
	assert_row_contains(f, "a", 0, "acme/widgets#1");
	assert_int_equal(q(f, "SELECT count(*) FROM submissions"), 0);
	assert_labels(f, "symptom=hang");
}

static void test_submit_moves_on(void **state)
{
	struct fixture *f = *state;

	/* five keys code the item (a pick moves on to the next required
	 * dimension), one submits */
	RUN_OK(f, 24, 80, NULL, "11\n2\n1\n1\ns\n"
	       ":dump-screen a\n"
	       "<\n:dump-screen back\n");
	assert_row_contains(f, "a", 0, "evil/repo#66");
	assert_row_contains(f, "a", 0, "1/4 done");
	assert_row_contains(f, "a", 23, "submitted acme/widgets#1 (1/4 done); "
			    "now evil/repo#66");
	assert_row_contains(f, "back", 0, "[submitted]");
	assert_sql_str(f, "SELECT i.repo || '#' || i.number FROM submissions s "
		       "JOIN items i ON i.id = s.item_id",
		       "acme/widgets#1");
	assert_labels(f, "fix_pattern=conditional_logic|phase=training|"
		      "root_cause=incorrect_implementation|symptom=crash");
}

/* The time an item is open: the gaps between keys (a test clock gives
 * them), without the one over DRIFT_IDLE_CUTOFF, saved on leaving the
 * item, on submitting it and on quitting. */
static void test_drift_time(void **state)
{
	struct fixture *f = *state;

	setenv("BUGCODER_KEY_GAPS", "10,500,20,30,7,5", 1);
	RUN_OK(f, 24, 80, NULL, "jj>jj<q\n");
	unsetenv("BUGCODER_KEY_GAPS");
	/* widget: 10 (+500 idle, left out) + 20 for `>`; then 30 + 7 + 5
	 * on evil/repo#66 (the `<` counts there); `q` (5 more) on widget */
	assert_sql_str(f, "SELECT i.repo || '#' || i.number || '=' || "
		       "CAST(t.seconds AS INTEGER) FROM coding_times t "
		       "JOIN items i ON i.id = t.item_id ORDER BY i.id",
		       "acme/widgets#1=35|evil/repo#66=42");

	/* submitting saves the time at once */
	setenv("BUGCODER_KEY_GAPS", "3", 1);
	RUN_OK(f, 24, 80, "acme/widgets#4", "11\n2\n1\n1\ns\n"
	       ":dump-screen a\nq\n");
	unsetenv("BUGCODER_KEY_GAPS");
	assert_sql_str(f, "SELECT CAST(t.seconds AS INTEGER) FROM "
		       "coding_times t JOIN items i ON i.id = t.item_id "
		       "WHERE i.number = 4", "18");
}

static void test_navigation(void **state)
{
	struct fixture *f = *state;

	RUN_OK(f, 24, 80, NULL, ">\n:dump-screen n1\n>>>\n:dump-screen end\n"
	       "<\n:dump-screen p\nt\n:dump-screen todo\n");
	assert_row_contains(f, "n1", 0, "evil/repo#66");
	assert_row_contains(f, "n1", 23, "item 2/4");
	assert_row_contains(f, "end", 0, "acme/widgets#4");
	assert_row_contains(f, "end", 23, "last item of your queue");
	assert_row_contains(f, "p", 0, "acme/widgets#3");
	assert_row_contains(f, "todo", 0, "acme/widgets#4");
}

/* ---- search, help, codebook ------------------------------------------- */

static void test_search(void **state)
{
	struct fixture *f = *state;
	char *s;

	RUN_OK(f, 24, 80, NULL, "/engine\n<Enter>\n:dump-screen s1\nn\n"
	       ":dump-screen s2\nN\n:dump-screen s3\n/nothing-like-it\n"
	       "<Enter>\n:dump-screen none\n");
	assert_row_contains(f, "s1", 2, "Widget crashes on start when the "
			    "engine");
	s = dump(f, "s1.attr");
	/* the match is highlighted (reverse + underline in mono) */
	assert_contains(s, "RRRRRR");
	free(s);
	assert_row_contains(f, "s2", 2, "labels: [bug] [engine]");
	assert_row_contains(f, "s3", 2, "Widget crashes on start");
	assert_row_contains(f, "none", 23, "no match: nothing-like-it");
}

static void test_search_diff(void **state)
{
	struct fixture *f = *state;

	RUN_OK(f, 30, 120, NULL, "<Tab>/halt\n<Enter>\n:dump-screen a\nn\n"
	       ":dump-screen b\n<Tab>/Traceback\n<Enter>\n<Tab>n\n"
	       ":dump-screen c\n");
	assert_row_contains(f, "a", 2, "-    engine.halt(force=True)");
	assert_row_contains(f, "b", 2, "+    engine.halt(force=False)");
	/* n in the other pane looks for the last pattern there */
	assert_row_contains(f, "c", 29, "no match: Traceback");
}

static void test_help(void **state)
{
	struct fixture *f = *state;
	char *s;

	RUN_OK(f, 40, 120, NULL, "?\n:dump-screen help\nG\n"
	       ":dump-screen end\nq\n:dump-screen closed\n");
	s = dump(f, "help");
	assert_contains(s, "Coding screen");
	assert_contains(s, "1 2 3 4 5 6 7 8 9");
	assert_contains(s, "(pick-dimension)");
	assert_contains(s, "(next-hunk)");
	free(s);
	s = dump(f, "end");
	assert_contains(s, "Search prompt");
	free(s);
	s = dump(f, "closed");
	assert_not_contains(s, "Coding screen");
	free(s);
}

static void test_codebook_view(void **state)
{
	struct fixture *f = *state;
	char *s;

	RUN_OK(f, 40, 120, NULL, "C\n:dump-screen cb\n/6 tensor_shape_mis\n"
	       "<Enter>\n:dump-screen found\n<Esc>\n:dump-screen closed\n");
	s = dump(f, "cb");
	assert_contains(s, "1. symptom - Symptom  (one code, required)");
	assert_contains(s, "Definition: The process aborts");
	free(s);
	assert_row_contains(f, "found", 2, "6 tensor_shape_misalignment");
	s = dump(f, "closed");
	assert_not_contains(s, "1. symptom - Symptom");
	free(s);
}

/* ---- safety ----------------------------------------------------------- */

static void test_hostile(void **state)
{
	struct fixture *f = *state;
	char *s, *p;
	int rows = 0;

	RUN_OK(f, 40, 160, "evil/repo#66", ":dump-screen h\n<Tab>\n"
	       ":dump-screen d\n");
	expect_screen(f, "h", "hostile-160x40.txt");
	s = dump(f, "h");
	/* no control character reaches the screen; escapes show as marks */
	for (p = s; *p; p++)
		if ((unsigned char)*p < 0x20 && *p != '\n')
			fail_msg("control byte 0x%02x on screen", *p);
	assert_contains(s, "\xe2\x90\x9b]0;evil\xe2\x90\x87 title");
	assert_contains(s, "OSC52 \xe2\x90\x9b]52;c;ZXZpbA==\xe2\x90\x87 clip");
	/* CommonMark takes a lone CR for a line end: no overwrite */
	assert_contains(s, "\ncr:abc ");
	assert_contains(s, "\nX| ");
	assert_contains(s, "back\xe2\x90\x88space and bell\xe2\x90\x87 here");
	assert_contains(s, "code \xe2\x90\x9b[31mred\xe2\x90\x9b[0m and   "
			"tab");
	assert_contains(s, "invalid \xef\xbf\xbd\xef\xbf\xbd bytes");
	assert_contains(s, "<U+202E>");
	/* the layout holds: 40 rows, header first, bar and status last */
	for (p = s; *p; p++)
		rows += *p == '\n';
	assert_int_equal(rows, 40);
	free(s);
	assert_row_contains(f, "h", 0, " evil/repo#66  Hostile ");
	assert_row_contains(f, "h", 38, "1 symptom: [ ]");
	s = dump(f, "d");
	assert_contains(s, "-old \xe2\x90\x9b]52;c;ZXZpbA==\xe2\x90\x87 line");
	assert_contains(s, "+new \xe2\x90\x9b[2J line");
	assert_contains(s, "Fix \xe2\x90\x9b[2J it\xe2\x90\x8d!");
	/* CRLF is not shown as a mark */
	assert_not_contains(s, "\xe2\x90\x8d\n");
	free(s);
}

static void test_no_color(void **state)
{
	struct fixture *f = *state;
	char *s;

	f->term = "xterm";
	RUN_OK(f, 30, 120, NULL, "]\n:dump-screen c\n");
	s = dump(f, "c.attr");
	assert_not_contains(s, "colour cells: 0\n");
	/* the added line of the hunk is green: the DIFF_ADD slot */
	assert_contains(s, "|+++++++++++++++++++++");
	free(s);
	setenv("NO_COLOR", "1", 1);
	RUN_OK(f, 30, 120, NULL, "]\n:dump-screen m\n");
	unsetenv("NO_COLOR");
	s = dump(f, "m.attr");
	assert_contains(s, "colour cells: 0\n");
	free(s);
	/* same text either way, sigils kept */
	s = dump(f, "m");
	assert_contains(s, "+    if engine.ready:");
	assert_contains(s, "-    engine.run()");
	free(s);
	/* an empty NO_COLOR means colours */
	setenv("NO_COLOR", "", 1);
	RUN_OK(f, 30, 120, NULL, ":dump-screen e\n");
	unsetenv("NO_COLOR");
	s = dump(f, "e.attr");
	assert_not_contains(s, "colour cells: 0\n");
	free(s);
}

/* Without a UTF-8 codeset, glyphs fall back to ASCII and text outside
 * ASCII shows as '?' rather than as mangled bytes. */
static void test_ascii_locale(void **state)
{
	struct fixture *f = *state;
	char *s;

	setenv("LC_ALL", "C", 1);
	RUN_OK(f, 40, 90, NULL, ":dump-screen a\n");
	setenv("LC_ALL", "C.UTF-8", 1);
	s = dump(f, "a");
	assert_contains(s, "acme/widgets#1 - closed");
	assert_contains(s, "\n* first point");
	assert_contains(s, "\n  * nested point");
	assert_contains(s, "\n| quoted text");
	assert_contains(s, "---------------");
	free(s);
	/* each character outside ASCII takes the one column it measures,
	 * as a '?': nothing vanishes and nothing shifts */
	setenv("LC_ALL", "C", 1);
	RUN_OK(f, 40, 160, "evil/repo#66", ":dump-screen h\n");
	setenv("LC_ALL", "C.UTF-8", 1);
	s = dump(f, "h");
	assert_contains(s, "\nwide " "??????????" "??????????"
			"??????????" " emoji ?? ");
	assert_contains(s, "invalid ?? bytes");
	free(s);
}

static void test_blinding(void **state)
{
	struct fixture *f = *state;
	struct codebook cb = CODEBOOK_INIT;
	struct err e = ERR_INIT;
	const char *crash = "crash";
	char *s;

	/* bob codes and writes a memo on the first item */
	if (study_codebook(&f->st, &cb, NULL, &e) < 0 ||
	    label_set(&f->st, &f->bob, &cb, f->widget, "symptom", &crash, 1,
		      0, &e) < 0 ||
	    label_memo(&f->st, &f->bob, f->widget, "bob's secret", &e) < 0 ||
	    label_flag(&f->st, &f->bob, f->widget, "discuss", 1, &e) < 0)
		fail_msg("%s", e.msg);
	codebook_release(&cb);
	RUN_OK(f, 30, 120, NULL, ":dump-screen a\n1\n:dump-screen p\n<Esc>\n"
	       "m\n:dump-screen m\n<C-g>\n");
	s = dump(f, "a");
	assert_contains(s, "1 symptom: [ ]");
	assert_not_contains(s, "symptom: crash");
	assert_not_contains(s, "[discuss]");
	assert_not_contains(s, "[memo]");
	free(s);
	s = dump(f, "p");
	assert_contains(s, "( )  1 crash");
	free(s);
	s = dump(f, "m");
	assert_not_contains(s, "secret");
	free(s);
	assert_labels(f, "");
}

/* ---- sample study, errors, speed -------------------------------------- */

static void test_sample_item(void **state)
{
	struct fixture *f = *state;
	char *s;

	import_sample(f);
	RUN_OK(f, 50, 200, "microsoft/DeepSpeed#3468", ":dump-screen a\n"
	       "12\n22\n31<Enter>\n42\n51\ns\n:dump-screen b\n");
	s = dump(f, "a");
	assert_contains(s, "microsoft/DeepSpeed#3468");
	assert_contains(s, "GatheredParameters");
	assert_contains(s, "diff --git a/deepspeed/runtime/zero/");
	free(s);
	assert_sql_str(f, "SELECT i.repo || '#' || i.number FROM submissions s "
		       "JOIN items i ON i.id = s.item_id",
		       "microsoft/DeepSpeed#3468");
	assert_int_equal(q(f, "SELECT count(*) FROM labels"), 5);
}

/* A codebook with more dimensions than a fixed table would hold: the
 * coding bar lays out as many as fit and every one codes. */
static void test_many_dimensions(void **state)
{
	struct fixture *f = *state;
	struct buf cb = BUF_INIT, path = BUF_INIT, db = BUF_INIT;
	struct err e = ERR_INIT;
	struct item it;
	int i;

	buf_addstr(&cb, "{\"name\": \"many\", \"version\": \"1\", "
		   "\"dimensions\": [");
	for (i = 0; i < 70; i++)
		buf_addf(&cb, "%s{\"key\": \"d%02d\", \"name\": \"D%d\", "
			 "\"select\": \"one\", \"required\": false, "
			 "\"codes\": [{\"key\": \"yes\", \"name\": \"Yes\", "
			 "\"definition\": \"y\"}, {\"key\": \"no\", \"name\": "
			 "\"No\", \"definition\": \"n\"}%s]}", i ? ", " : "", i,
			 i, i ? "" : ", {\"key\": \"a_code_key_far_longer_"
			 "than_half_of_the_list_of_the_picker\", \"name\": "
			 "\"Long\", \"definition\": \"l\"}");
	buf_addstr(&cb, "]}\n");
	buf_addf(&path, "%s/many.json", f->dir);
	spit(path.ptr, cb.ptr);
	/* the fixture's study gives way to one with this codebook */
	store_close(&f->st);
	actor_release(&f->owner);
	actor_release(&f->alice);
	actor_release(&f->bob);
	buf_addf(&db, "%s/many.db", f->dir);
	if (study_create(&f->st, db.ptr, "many", path.ptr, &e) < 0 ||
	    member_resolve(&f->st, NULL, &f->owner, &e) < 0 ||
	    member_add(&f->st, &f->owner, "alice", ROLE_ANNOTATOR, &e) < 0 ||
	    member_add(&f->st, &f->owner, "bob", ROLE_ANNOTATOR, &e) < 0 ||
	    member_resolve(&f->st, "alice", &f->alice, &e) < 0 ||
	    member_resolve(&f->st, "bob", &f->bob, &e) < 0)
		fail_msg("%s", e.msg);
	base_item(&it, "acme/many", 1, "Many dimensions", "Body.");
	save(f, &it);

	RUN_OK(f, 30, 200, NULL, ":dump-screen a\n1\n:dump-screen p\n1\n"
	       "1<S-Tab>2\n:dump-screen b\n:resize 24 80\n:dump-screen c\n");
	/* a key wider than its column is cut with a mark, not overdrawn by
	 * the name beside it */
	{
		char *d = dump(f, "p");

		assert_contains(d, "3 a_code_key_far_longer_than_half"
				"\xe2\x80\xa6 Long ");
		free(d);
	}
	assert_row_contains(f, "a", 25, " 1 d00: [ ]");
	assert_row_contains(f, "a", 28, " d69: [ ]");
	assert_row_contains(f, "b", 25, " 1 d00: yes");
	assert_row_contains(f, "b", 28, " d69: no");
	assert_row_contains(f, "c", 19, " 1 d00: yes");
	assert_labels(f, "d00=yes|d69=no");
	buf_release(&cb);
	buf_release(&path);
	buf_release(&db);
}

static void test_errors(void **state)
{
	struct fixture *f = *state;
	struct actor carol = ACTOR_INIT;
	struct err e = ERR_INIT;

	assert_int_equal(run(f, 24, 80, NULL, "<Nope>\n"), -1);
	assert_non_null(strstr(f->err.msg, "bad key name"));
	assert_int_equal(run(f, 24, 80, NULL, ":frobnicate\n"), -1);
	assert_non_null(strstr(f->err.msg, "unknown command"));
	assert_int_equal(run(f, 24, 80, "nosuch/repo#9", ""), -1);
	assert_int_equal(f->err.code, ERR_NOTFOUND);
	if (member_resolve(&f->st, "carol", &carol, &e) < 0)
		fail_msg("%s", e.msg);
	setenv("BUGCODER_KEYS", "/dev/null", 1);
	assert_int_equal(tui_code(&f->st, &carol, NULL, &e), -1);
	assert_int_equal(e.code, ERR_PERM);
	actor_release(&carol);
	/* the terminal is back after every failure: a new run works */
	RUN_OK(f, 24, 80, NULL, ":dump-screen a\n");
	assert_row_contains(f, "a", 0, "acme/widgets#1");
}

/* The man page names every action the keymap binds, in parentheses, so
 * that its KEYS section cannot drift from tui/keymap.c. */
static void test_manpage_keys(void **state)
{
	struct buf help = BUF_INIT;
	char *man = slurp("tui/bugcoder.1.in"), *p;

	(void)state;
	assert_non_null(man);
	keymap_help(&help);
	for (p = help.ptr; (p = strchr(p, '\t'));) {
		char *end = strchr(p + 1, '\t');
		struct buf a = BUF_INIT, b = BUF_INIT;

		assert_non_null(end);
		buf_add(&a, p + 1, (size_t)(end - p - 1));
		buf_addf(&b, "%s)", a.ptr);
		buf_addf(&a, ",");
		if (!strstr(man, a.ptr) && !strstr(man, b.ptr))
			fail_msg("tui/bugcoder.1.in does not name the action "
				 "%s", b.ptr);
		buf_release(&a);
		buf_release(&b);
		p = strchr(end, '\n');
		if (!p)
			break;
	}
	assert_non_null(strstr(man, "@VERSION@"));
	free(man);
	buf_release(&help);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* An issue body of thousands of short paragraphs (GitHub allows 65,536
 * characters) renders in linear time, on opening and at every width. */
static void test_many_paragraphs(void **state)
{
	struct fixture *f = *state;
	struct buf body = BUF_INIT;
	struct item it;
	double t0, t;
	int i;

	for (i = 0; i < 21000; i++)
		buf_addstr(&body, "a\n\n");
	buf_addstr(&body, "Traceback (most recent call last):\n  File "
		   "\"x.py\", line 1\nValueError: last\n");
	base_item(&it, "acme/long", 1, "Many paragraphs", body.ptr);
	save(f, &it);
	t0 = now();
	RUN_OK(f, 30, 100, "acme/long#1", "G\n:dump-screen a\n"
	       ":resize 30 120\n:resize 30 100\n:resize 30 140\n");
	t = now() - t0;
	/* the traceback at the end is still found, kept verbatim */
	{
		char *d = dump(f, "a");

		assert_contains(d, "\nValueError: last");
		free(d);
	}
	print_message("21,000 paragraphs: open and three widths in %.3f s\n",
		      t);
	/* generous (sanitizer builds); it was 9 s, quadratic */
	assert_true(t < 2.0);
	buf_release(&body);
}

/* A diff of minified lines, each a megabyte: a redraw reads and
 * sanitizes what fits in the pane, not whole lines. */
static void test_huge_lines(void **state)
{
	struct fixture *f = *state;
	struct buf diff = BUF_INIT, keys = BUF_INIT, bench = BUF_INIT;
	struct item it;
	double total = 0;
	char *s, *p;
	int i, k, n = 0;

	buf_addstr(&diff, "diff --git a/app.min.js b/app.min.js\n"
		   "--- a/app.min.js\n+++ b/app.min.js\n@@ -1,20 +1,20 @@\n");
	for (i = 0; i < 20; i++) {
		buf_addch(&diff, i % 2 ? '-' : '+');
		for (k = 0; k < 75000; k++)
			buf_addf(&diff, "var a%02d=f(b);", i);
		buf_addstr(&diff, "END\n");
	}
	base_item(&it, "acme/min", 1, "Minified", "Big lines.");
	it.fixes = xcalloc(1, sizeof(*it.fixes));
	set_fix(&it.fixes[0], 2, "Minified bundle", NULL, diff.ptr, 0);
	it.nr_fixes = 1;
	save(f, &it);

	buf_addstr(&keys, "<Tab>\n");
	for (i = 0; i < 100; i++)
		buf_addstr(&keys, i % 2 ? "h" : "l");
	buf_addstr(&keys, "\n:dump-screen a\n/END\n<Enter>\n"
		   ":dump-screen b\n");
	buf_addf(&bench, "%s/bench", f->dir);
	setenv("BUGCODER_BENCH", bench.ptr, 1);
	RUN_OK(f, 40, 100, "acme/min#1", keys.ptr);
	unsetenv("BUGCODER_BENCH");
	s = dump(f, "a");
	/* cut at the pane's edge, marked */
	assert_contains(s, "\xe2\x94\x82+var a00=f(b);var a00=f(b);var "
			"a00=f(b);var a00=f>\n");
	assert_contains(s, "\xe2\x94\x82-var a01=f(b);");
	free(s);
	/* search still reads whole lines: the end of the first is found
	 * and scrolled into view, under the sigil that stays */
	assert_row_contains(f, "b", 2, "\xe2\x94\x82+");
	assert_row_contains(f, "b", 2, "a00=f(b);END");
	/* the sideways keys each redraw the twenty lines */
	s = slurp(bench.ptr);
	assert_non_null(s);
	for (p = s; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : "") {
		if ((*p == 'l' || *p == 'h') && p[1] == '\t') {
			total += strtod(p + 2, NULL) / 1e6;
			n++;
		}
	}
	free(s);
	assert_int_equal(n, 100);
	print_message("20 lines of 1 MB: 100 sideways keys in %.3f s\n",
		      total);
	/* it was 1.5 s (0.25 s now with sanitizers) */
	assert_true(total < 0.7);
	buf_release(&diff);
	buf_release(&keys);
	buf_release(&bench);
}

static void test_big_diff(void **state)
{
	struct fixture *f = *state;
	struct buf diff = BUF_INIT, keys = BUF_INIT;
	struct item it;
	double t0, t_open, t_scroll;
	int i;

	/* 200,000 lines: 100 files of 2,000 lines each */
	for (i = 0; i < 100; i++) {
		int k;

		buf_addf(&diff, "diff --git a/f%03d.py b/f%03d.py\n"
			 "index 1111111..2222222 100644\n"
			 "--- a/f%03d.py\n+++ b/f%03d.py\n", i, i, i, i);
		for (k = 0; k < 4; k++) {
			int j;

			buf_addf(&diff, "@@ -%d,332 +%d,332 @@ def f():\n",
				 k * 500 + 1, k * 500 + 1);
			for (j = 0; j < 498; j++)
				buf_addf(&diff, "%c    x_%d_%d = compute(%d)"
					 "  # \tline\n", j % 3 == 0 ? '+' :
					 j % 3 == 1 ? '-' : ' ', i, j, j);
		}
	}
	base_item(&it, "acme/big", 1, "A very large diff", "Big.");
	it.fixes = xcalloc(1, sizeof(*it.fixes));
	set_fix(&it.fixes[0], 2, "Huge change", NULL, diff.ptr, 0);
	it.nr_fixes = 1;
	save(f, &it);

	t0 = now();
	RUN_OK(f, 50, 200, "acme/big#1", ":dump-screen open\n");
	t_open = now() - t0;
	assert_row_contains(f, "open", 1, "fix #2");

	buf_addstr(&keys, "<Tab>G\n:dump-screen end\ng\n");
	for (i = 0; i < 1000; i++)
		buf_addstr(&keys, "<PgDn>");
	buf_addstr(&keys, "\n");
	for (i = 0; i < 300; i++)
		buf_addstr(&keys, "]");
	buf_addstr(&keys, "\n}}}\n/x_99_497\n<Enter>\n:dump-screen found\n");
	t0 = now();
	RUN_OK(f, 50, 200, "acme/big#1", keys.ptr);
	t_scroll = now() - t0;
	assert_row_contains(f, "end", 1, "end");
	assert_row_contains(f, "found", 2, "x_99_497 = compute(497)");
	print_message("200,000-line diff: open %.3f s; G, 1000 PgDn, 300 ], "
		      "3 }, a search: %.3f s\n", t_open, t_scroll);
	/* generous bounds (sanitizer builds are slow); the report prints
	 * the real figures */
	assert_true(t_open < 3.0);
	assert_true(t_scroll < 6.0);
	buf_release(&diff);
	buf_release(&keys);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
		T(test_split_200),
		T(test_split_120),
		T(test_single_80),
		T(test_zoom),
		T(test_too_small),
		T(test_resize_keeps_place),
		T(test_markdown),
		T(test_code_scrolls_sideways),
		T(test_hunks_and_files),
		T(test_cite_diff),
		T(test_cite_issue),
		T(test_cite_nothing),
		T(test_cite_in_three_keys),
		T(test_citations_list),
		T(test_fix_header_and_scroll),
		T(test_no_fix),
		T(test_two_fixes),
		T(test_picker_definitions),
		T(test_pick_by_number),
		T(test_letters),
		T(test_filter),
		T(test_multi_select),
		T(test_clear_and_repick),
		T(test_tab_between_dimensions),
		T(test_pick_uncoded),
		T(test_stale_codebook),
		T(test_fresh_screen),
		T(test_busy_pick_pends),
		T(test_propose),
		T(test_proposal_draft_kept),
		T(test_repick_keeps_proposal),
		T(test_propose_refused),
		T(test_memo),
		T(test_memo_editor),
		T(test_memo_saved_on_hangup),
		T(test_paste),
		T(test_flags),
		T(test_submit_missing),
		T(test_drift_time),
		T(test_submit_moves_on),
		T(test_navigation),
		T(test_search),
		T(test_search_diff),
		T(test_help),
		T(test_codebook_view),
		T(test_hostile),
		T(test_no_color),
		T(test_ascii_locale),
		T(test_blinding),
		T(test_sample_item),
		T(test_many_dimensions),
		T(test_errors),
		T(test_many_paragraphs),
		T(test_huge_lines),
		T(test_big_diff),
		cmocka_unit_test(test_manpage_keys),
#undef T
	};

	/* t_screen test_memo runs the tests matching a pattern */
	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
