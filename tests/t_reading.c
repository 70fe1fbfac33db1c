/* SPDX-License-Identifier: MIT */
/*
 * t_reading: reading real bugs on the annotator's screen - long diff
 * lines wrapped or scrolled under a fixed sigil column, the changed words
 * of a changed line marked (and a mark at the edge when they lie past
 * it), HTML inside Markdown, links, shortcodes and search.
 *
 * Like t_screen, every test builds a fresh study in tests/tmp with items
 * written here, runs the real tui_code() on a virtual screen with a key
 * script, and reads the dumped rows (and their attributes, in the .attr
 * file beside each dump: one letter per cell - r reverse, b bold, u
 * underline, upper case when combined - then, with colours, one letter
 * per cell naming the theme slot).  Golden screens are in
 * tests/expected/reading-*.txt (BUGCODER_UPDATE_EXPECTED=1 rewrites
 * them).
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
#include <unistd.h>

#include <sqlite3.h>

#include "core/base/buf.h"
#include "core/study/import.h"
#include "core/study/item.h"
#include "core/study/member.h"
#include "core/store/store.h"
#include "core/study/study.h"
#include "tui/draw.h"
#include "tui/tui.h"
#include "tests/lib/screen_test.h"

#define CODEBOOK "codebooks/llm-framework-bugs.json"

struct fixture {
	char dir[64];
	struct buf path;
	struct store st;
	struct actor owner, alice;
	struct err err;
	const char *term;
};

/* A one-line fix as DeepSpeed's ZeRO partitioning had: the change is at
 * column 130 of the line; and a change near column 300. */
#define PAD40 "                                        "
static const char long_diff[] =
	"diff --git a/zero/partition.py b/zero/partition.py\n"
	"--- a/zero/partition.py\n"
	"+++ b/zero/partition.py\n"
	"@@ -100,3 +100,3 @@ def partition(param):\n"
	"             start = secondary_start_index(param)\n"
	"-            sec_numel = param.ds_numel - secondary_start if "
	"param.ds_numel > secondary_start_index_in_this_partition_group "
	"else oldvalue\n"
	"+            sec_numel = param.ds_numel - secondary_start if "
	"param.ds_numel > secondary_start_index_in_this_partition_group "
	"else max(0, newvalue)\n"
	"             return sec_numel\n"
	"@@ -300,14 +300,14 @@ def config():\n"
	"-    settings = dict(" PAD40 PAD40 PAD40 PAD40 PAD40 PAD40
	"alpha=1, beta=2, gamma=3)\n"
	"+    settings = dict(" PAD40 PAD40 PAD40 PAD40 PAD40 PAD40
	"alpha=1, beta=9, gamma=3)\n"
	"     return settings\n"
	"     # one\n     # two\n     # three\n     # four\n"
	"     # five\n     # six\n     # seven\n     # eight\n"
	"     # nine\n     # ten\n     # eleven\n     # twelve\n";

static void set_fix(struct fix *x, long long number, const char *title,
		    const char *diff)
{
	memset(x, 0, sizeof(*x));
	x->number = number;
	x->title = xstrdup(title);
	x->merged_at = xstrdup("2024-01-05T12:00:00Z");
	x->additions = x->deletions = x->changed_files = -1;
	x->diff = xstrdup(diff);
	x->diff_len = strlen(diff);
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

static void save(struct fixture *f, struct item *it)
{
	struct err e = ERR_INIT;

	if (store_begin(&f->st, &e) < 0 || item_save(&f->st, it, &e) < 0 ||
	    store_commit(&f->st, &e) < 0)
		fail_msg("saving %s#%lld: %s", it->repo, it->number, e.msg);
	item_release(it);
}

static void add_long(struct fixture *f, const char *body)
{
	struct item it;

	base_item(&it, "acme/zero", 1, "Partition size wrong", body ? body :
		  "See the fix.");
	it.fixes = xcalloc(1, sizeof(*it.fixes));
	set_fix(&it.fixes[0], 2, "Clamp the partition size", long_diff);
	it.nr_fixes = 1;
	save(f, &it);
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
	mkdir("tests/tmp", 0777);
	snprintf(f->dir, sizeof(f->dir), "tests/tmp/reading-XXXXXX");
	if (!mkdtemp(f->dir))
		fail_msg("mkdtemp: %s", strerror(errno));
	buf_init(&f->path, 0);
	buf_addf(&f->path, "%s/study.db", f->dir);
	if (study_create(&f->st, f->path.ptr, "reading tests", CODEBOOK,
			 &e) < 0)
		fail_msg("%s", e.msg);
	if (member_resolve(&f->st, NULL, &f->owner, &e) < 0 ||
	    member_add(&f->st, &f->owner, "alice", ROLE_ANNOTATOR, &e) < 0 ||
	    member_resolve(&f->st, "alice", &f->alice, &e) < 0)
		fail_msg("%s", e.msg);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	struct buf cmd = BUF_INIT;
	const char *keep = getenv("BUGCODER_KEEP_TMP");

	store_close(&f->st);
	actor_release(&f->owner);
	actor_release(&f->alice);
	if (!keep || !*keep) {
		buf_addf(&cmd, "rm -rf '%s'", f->dir);
		if (system(cmd.ptr) != 0)
			fprintf(stderr, "could not remove %s\n", f->dir);
	}
	buf_release(&cmd);
	buf_release(&f->path);
	free(f);
	return 0;
}

static void run(struct fixture *f, int rows, int cols, const char *item,
		const char *keys)
{
	st_env(f->dir, rows, cols, keys, f->term);
	err_clear(&f->err);
	if (tui_code(&f->st, &f->alice, item, &f->err) < 0)
		fail_msg("tui_code: %s", f->err.msg);
}

static char *dump(struct fixture *f, const char *name)
{
	return st_dump(f->dir, name);
}

static char *row(struct fixture *f, const char *name, int r)
{
	return st_row(f->dir, name, r);
}

/* The first row of dump `name` that contains `needle`, or -1. */
static int find_row(struct fixture *f, const char *name, const char *needle)
{
	int r;

	for (r = 0; r < 60; r++) {
		char *s = row(f, name, r);
		int hit = strstr(s, needle) != NULL;

		free(s);
		if (hit)
			return r;
	}
	return -1;
}

#define assert_row_has(f, name, r, want) do { \
		char *got_ = row((f), (name), (r)); \
		if (!strstr(got_, (want))) \
			fail_msg("%s row %d\n  got:  \"%s\"\n  want it " \
				 "to contain: \"%s\"", (name), (r), got_, \
				 (want)); \
		free(got_); \
	} while (0)

/* The screen column of byte `at` of a dumped row: its characters before
 * it (every one here is one column wide, the marks too). */
static size_t col_of(const char *row, const char *at)
{
	size_t col = 0;

	for (; row < at; row++)
		if (((unsigned char)*row & 0xc0) != 0x80)
			col++;
	return col;
}

/* The theme slot letter of the cell `k` columns into the first `needle`
 * of row r of dump `name` (one-column characters), from the colour part
 * of its .attr file. */
static char pair_at(struct fixture *f, const char *name, int r,
		    const char *needle, int k)
{
	struct buf an = BUF_INIT;
	char *text = row(f, name, r), *attr, *p, *rowp;
	const char *at = strstr(text, needle);
	size_t col;
	int i;
	char c;

	if (!at)
		fail_msg("%s row %d has no \"%s\": %s", name, r, needle, text);
	col = col_of(text, at) + (size_t)k;
	buf_addf(&an, "%s.attr", name);
	attr = dump(f, an.ptr);
	p = strstr(attr, "colour cells: ");
	assert_non_null(p);
	p = strchr(p, '\n') + 1;
	for (i = 0, rowp = p; i < r && rowp; i++) {
		rowp = strchr(rowp, '\n');
		if (rowp)
			rowp++;
	}
	assert_non_null(rowp);
	c = '.';
	for (i = 0; rowp[i] && rowp[i] != '\n'; i++)
		if ((size_t)i == col)
			c = rowp[i];
	free(text);
	free(attr);
	buf_release(&an);
	return c;
}

#define WRAP_MARK "\xe2\x86\xaa"
#define CHANGE_MARK "\xc2\xbb"

/* ---- long lines: sideways, wrapped, intra-line marks ------------------- */

/* At 80 columns the change of the ZeRO line lies past the edge: the row
 * ends with a change mark; ] scrolls sideways to it, keeping the sigils
 * in their column. */
static void test_change_past_edge(void **state)
{
	struct fixture *f = *state;
	int r;

	add_long(f, NULL);
	run(f, 24, 80, NULL, "<Tab>\n:dump-screen top\n]\n:dump-screen h1\n"
	    "]\n:dump-screen h2\n^\n:dump-screen home\n");
	r = find_row(f, "top", "-            sec_numel");
	assert_true(r > 0);
	assert_row_has(f, "top", r, CHANGE_MARK);
	assert_row_has(f, "top", r + 1, "+            sec_numel");
	assert_row_has(f, "top", r + 1, CHANGE_MARK);
	/* ] puts the hunk on top, the first change in view */
	assert_row_has(f, "h1", 2, "@@ -100,3 +100,3 @@");
	assert_row_has(f, "h1", 4, "oldvalue");
	assert_row_has(f, "h1", 5, "max(0, newvalue)");
	{
		char *s = row(f, "h1", 4), *t = row(f, "h1", 5);

		assert_int_equal(s[0], '-');
		assert_int_equal(t[0], '+');
		free(s);
		free(t);
	}
	/* the change near column 300 */
	assert_row_has(f, "h2", 2, "@@ -300,14 +300,14 @@");
	assert_row_has(f, "h2", 3, "beta=2");
	assert_row_has(f, "h2", 4, "beta=9");
	/* ^ scrolls back: the mark at the edge again */
	assert_row_has(f, "home", 3, "-    settings = dict(");
	assert_row_has(f, "home", 3, CHANGE_MARK);
}

/* The changed words are reverse video in colour, on 8 colours and with
 * NO_COLOR; only they are. */
static void test_intraline_attrs(void **state)
{
	struct fixture *f = *state;
	char *s, *a;

	add_long(f, NULL);
	f->term = "xterm";
	run(f, 24, 80, NULL, "<Tab>]]\n:dump-screen c\n");
	/* the slots of the changed digits: R removed, P added */
	assert_int_equal(pair_at(f, "c", 3, "beta=2", 5), 'R');
	assert_int_equal(pair_at(f, "c", 3, "beta=2", 4), '-');
	assert_int_equal(pair_at(f, "c", 4, "beta=9", 5), 'P');
	assert_int_equal(pair_at(f, "c", 4, "beta=9", 4), '+');
	setenv("NO_COLOR", "1", 1);
	run(f, 24, 80, NULL, "<Tab>]]\n:dump-screen m\n");
	unsetenv("NO_COLOR");
	s = dump(f, "m.attr");
	assert_contains(s, "colour cells: 0\n");
	free(s);
	/* row 3 is "-... beta=2 ...", row 4 "+... beta=9 ...": the digit
	 * alone is reversed */
	s = row(f, "m", 3);
	a = row(f, "m.attr", 3);
	{
		const char *d = strstr(s, "beta=2");
		size_t at;

		assert_non_null(d);
		at = col_of(s, d) + 5;
		assert_true(strlen(a) > at);
		assert_int_equal(a[at], 'r');
		assert_int_equal(a[at - 1], '.');
		assert_true(a[at + 1] == '.' || a[at + 1] == '\0');
	}
	free(s);
	free(a);
	s = row(f, "m", 4);
	a = row(f, "m.attr", 4);
	{
		const char *d = strstr(s, "beta=9");
		size_t at;

		assert_non_null(d);
		at = col_of(s, d) + 5;
		assert_true(strlen(a) > at);
		assert_int_equal(a[at], 'R');	/* reverse and bold */
		assert_int_equal(a[at - 1], '.');
	}
	free(s);
	free(a);
}

/* The line cursor keeps the colours and marks of the lines it is on: it
 * takes a column of its own at the left (a pointer on its line, a bar on
 * the rest of a range) instead of painting them over in reverse. */
static void test_cursor_keeps_marks(void **state)
{
	struct fixture *f = *state;
	char *s, *a;
	int r;

	add_long(f, NULL);
	f->term = "xterm";
	run(f, 24, 80, NULL, "<Tab>]\n.jj\n:dump-screen c\nvj\n"
	    ":dump-screen v\n");
	r = find_row(f, "c", "oldvalue");
	assert_true(r > 2);
	s = row(f, "c", r);
	/* the pointer, then the sigil and the text as they were */
	assert_int_equal(strncmp(s, "\xe2\x96\xb6-", 4), 0);
	free(s);
	/* the changed words keep their colour, the sigil its own */
	assert_int_equal(pair_at(f, "c", r, "oldvalue", 0), 'R');
	assert_int_equal(pair_at(f, "c", r, "-", 0), '-');
	assert_int_equal(pair_at(f, "c", r + 1, "max(0, newvalue)", 0), 'P');
	/* a range: a bar beside its other line */
	s = row(f, "v", r);
	assert_int_equal(strncmp(s, "\xe2\x94\x83-", 4), 0);
	free(s);
	s = row(f, "v", r + 1);
	assert_int_equal(strncmp(s, "\xe2\x96\xb6+", 4), 0);
	free(s);
	/* without colour: the changed word alone is reversed, not the
	 * whole row */
	f->term = NULL;
	setenv("NO_COLOR", "1", 1);
	run(f, 24, 80, NULL, "<Tab>]\n.jj\n:dump-screen m\n");
	unsetenv("NO_COLOR");
	s = row(f, "m", r);
	a = row(f, "m.attr", r);
	{
		const char *d = strstr(s, "oldvalue");
		size_t at;

		assert_non_null(d);
		at = col_of(s, d);
		assert_int_equal(a[at], 'r');
		assert_int_equal(a[1], '.');	/* the sigil */
		assert_int_equal(a[at - 2], '.');
	}
	free(s);
	free(a);
}

/* Without colour the current search match, the other matches and the
 * changed words of a line all look different. */
static void test_mono_marks_distinct(void **state)
{
	attr_t cur, other, add, del;

	(void)state;
	draw_init(0, 1);
	cur = slot_attr(SLOT_SEARCH_CUR);
	other = slot_attr(SLOT_SEARCH);
	add = slot_attr(SLOT_DIFF_ADD_WORD);
	del = slot_attr(SLOT_DIFF_DEL_WORD);
	assert_true(cur != other && cur != add && cur != del);
	assert_true(other != add && other != del && add != del);
	/* matches are underlined, changed words never are */
	assert_true(cur & A_UNDERLINE);
	assert_true(other & A_UNDERLINE);
	assert_false(add & A_UNDERLINE);
	assert_false(del & A_UNDERLINE);
}

/* w wraps the fix pane: continuation rows start with the mark in the
 * sigil column, the change is on screen, the top line stays; w again
 * scrolls sideways. */
static void test_wrap(void **state)
{
	struct fixture *f = *state;
	int r;

	add_long(f, NULL);
	run(f, 24, 80, NULL, "<Tab>]\nw\n:dump-screen on80\nw\n"
	    ":dump-screen off80\n");
	st_expect_screen(f->dir, "on80", "reading-wrap-on-80x24.txt");
	st_expect_screen(f->dir, "off80", "reading-wrap-off-80x24.txt");
	assert_row_has(f, "on80", 2, "@@ -100,3 +100,3 @@");
	r = find_row(f, "on80", "-            sec_numel");
	assert_true(r > 0);
	assert_row_has(f, "on80", r + 1, WRAP_MARK);
	assert_true(find_row(f, "on80", "oldvalue") > r);
	assert_row_has(f, "off80", 2, "@@ -100,3 +100,3 @@");
	run(f, 50, 200, NULL, "<Tab>w\n:dump-screen on200\nw\n"
	    ":dump-screen off200\n");
	st_expect_screen(f->dir, "on200", "reading-wrap-on-200x50.txt");
	st_expect_screen(f->dir, "off200", "reading-wrap-off-200x50.txt");
	r = find_row(f, "on200", "alpha=1, beta=2");
	assert_true(r > 0);
	assert_row_has(f, "on200", r, WRAP_MARK);
}

/* Scrolling a wrapped pane goes row by row; n finds a match on a
 * continuation row; ] jumps from a wrapped line. */
static void test_wrap_moves(void **state)
{
	struct fixture *f = *state;

	add_long(f, NULL);
	run(f, 24, 80, NULL, "<Tab>w/sec_numel = param\n<Enter>\n"
	    ":dump-screen s0\nj\n:dump-screen j1\nj\n:dump-screen j2\nk\n"
	    ":dump-screen k1\nk\n:dump-screen k2\n]\n:dump-screen h2\n"
	    "g/gamma=3\n<Enter>\n:dump-screen s\n");
	assert_row_has(f, "s0", 2, "-            sec_numel = param");
	assert_row_has(f, "s0", 23, "match 1/2");
	/* j goes down one row: the line's second row is on top */
	assert_row_has(f, "j1", 2, WRAP_MARK);
	assert_row_has(f, "j1", 2, "oldvalue");
	assert_row_has(f, "j2", 2, "+            sec_numel = param");
	assert_row_has(f, "k1", 2, WRAP_MARK);
	assert_row_has(f, "k2", 2, "-            sec_numel = param");
	assert_row_has(f, "h2", 2, "@@ -300,14 +300,14 @@");
	assert_true(find_row(f, "s", "gamma=3") >= 2);
	assert_row_has(f, "s", 23, "match 1/2");
}

/* ---- the position mark ------------------------------------------------ */

/* A fix as DeepSpeed's engine fixes look: long lines of context that wrap
 * in a 59-column pane, and the one added line - the fix itself - last. */
#define CTX_LONG "            self.optimizer.step_with_overlapped_communication(" \
	"grads, partition_id=self.partition_id, group=self.dp_process_group)"
static const char tail_diff[] =
	"diff --git a/deepspeed/runtime/engine.py b/deepspeed/runtime/engine.py\n"
	"--- a/deepspeed/runtime/engine.py\n"
	"+++ b/deepspeed/runtime/engine.py\n"
	"@@ -2010,16 +2010,17 @@ def _take_model_step(self, lr_kwargs):\n"
	" " CTX_LONG "\n" " " CTX_LONG "\n" " " CTX_LONG "\n"
	" " CTX_LONG "\n" " " CTX_LONG "\n" " " CTX_LONG "\n"
	" " CTX_LONG "\n" " " CTX_LONG "\n" " " CTX_LONG "\n"
	" " CTX_LONG "\n" " " CTX_LONG "\n" " " CTX_LONG "\n"
	" " CTX_LONG "\n" " " CTX_LONG "\n" " " CTX_LONG "\n"
	" " CTX_LONG "\n"
	"+        self.timers(STEP_GLOBAL_TIMER).stop(sync=True)  # the fix\n";

static void add_tail(struct fixture *f)
{
	struct item it;

	base_item(&it, "microsoft/DeepSpeed", 5642, "Timer not stopped after "
		  "the optimizer step", "```\n" CTX_LONG "\n" CTX_LONG "\n"
		  CTX_LONG "\n" CTX_LONG "\n" CTX_LONG "\n" CTX_LONG "\n"
		  CTX_LONG "\n" CTX_LONG "\n" CTX_LONG "\n" CTX_LONG "\n"
		  CTX_LONG "\n" CTX_LONG "\n```\n\nTHE LAST LINE of the issue.");
	it.fixes = xcalloc(1, sizeof(*it.fixes));
	set_fix(&it.fixes[0], 5643, "Stop the step timer", tail_diff);
	it.nr_fixes = 1;
	save(f, &it);
}

/* The position word at the right of row 1 that belongs to the pane whose
 * title is `title` (side by side: the issue's ends before the
 * separator). */
static char *pos_of(struct fixture *f, const char *name, const char *title)
{
	char *r = row(f, name, 1), *at = strstr(r, title), *end, *sp;
	char *sep = strstr(r, "\xe2\x94\x82");

	if (!at)
		fail_msg("%s row 1 has no \"%s\": %s", name, title, r);
	end = sep && sep > at ? sep : r + strlen(r);
	while (end > at && end[-1] == ' ')
		end--;
	*end = '\0';
	sp = strrchr(at, ' ');
	sp = xstrdup(sp ? sp + 1 : at);
	free(r);
	return sp;
}

/* With wrap on, a fix whose wrapped lines push its last line below the
 * pane says how much is above and on screen, not "all"; at the bottom it
 * says "end" with the last line in view.  The same holds in the issue
 * pane, and with wrap off, where a line is a row. */
static void test_position_counts_rows(void **state)
{
	struct fixture *f = *state;
	char *p;

	add_tail(f);
	run(f, 35, 120, NULL, "<Tab>w<Tab>w\n:dump-screen top\nG<Tab>G\n"
	    ":dump-screen end\n");
	assert_int_equal(find_row(f, "top", "timers(STEP"), -1);
	p = pos_of(f, "top", "fix #5643");
	if (!strcmp(p, "all") || !strcmp(p, "end") || !strchr(p, '%'))
		fail_msg("the fix pane says \"%s\" with its last line hidden",
			 p);
	free(p);
	assert_int_equal(find_row(f, "top", "THE LAST LINE"), -1);
	p = pos_of(f, "top", "issue");
	assert_non_null(strchr(p, '%'));
	free(p);
	assert_true(find_row(f, "end", "timers(STEP") > 1);
	assert_true(find_row(f, "end", "THE LAST LINE") > 1);
	p = pos_of(f, "end", "fix #5643");
	assert_string_equal(p, "end");
	free(p);
	p = pos_of(f, "end", "issue");
	assert_string_equal(p, "end");
	free(p);
	/* the choice is kept: the next session starts wrapped */
	run(f, 35, 120, NULL, ":dump-screen again\n");
	p = pos_of(f, "again", "fix #5643");
	assert_non_null(strchr(p, '%'));
	free(p);
	assert_int_equal(find_row(f, "again", "timers(STEP"), -1);
	/* one line a row: the same words */
	run(f, 35, 120, NULL, "w<Tab>w\n");
	run(f, 35, 120, NULL, ":dump-screen off\n");
	p = pos_of(f, "off", "fix #5643");
	assert_string_equal(p, "all");
	free(p);
	assert_true(find_row(f, "off", "+        self.timers") > 1);
}

/* Wrap is a setting of one's own: the keys file's `set` lines give its
 * default per pane, w changes it and keeps the choice in the settings
 * file beside the keys file, which wins from then on. */
static void test_wrap_setting(void **state)
{
	struct fixture *f = *state;
	struct buf dir = BUF_INIT, keys = BUF_INIT, set = BUF_INIT;
	char *s;

	add_tail(f);
	buf_addf(&dir, "%s/config", f->dir);
	mkdir(dir.ptr, 0777);
	buf_addstr(&dir, "/bugcoder");
	mkdir(dir.ptr, 0777);
	buf_addf(&keys, "%s/keys", dir.ptr);
	buf_addf(&set, "%s/settings", dir.ptr);
	st_spit(keys.ptr, "set wrap-fix on\nset wrap-issue off\n"
		"set wrap-fox on\nset wrap-fix maybe\n");
	run(f, 35, 120, NULL, ":dump-screen k\n");
	/* the fix pane wraps, the issue's code scrolls sideways */
	assert_true(find_row(f, "k", "\xe2\x94\x82\xe2\x86\xaa") > 1);
	s = row(f, "k", 34);
	assert_contains(s, "keys:3: no setting \"wrap-fox\"");
	free(s);
	assert_null(st_slurp(set.ptr));
	/* w: kept in the settings file */
	run(f, 35, 120, NULL, "<Tab>w\n:dump-screen w\n");
	assert_row_has(f, "w", 34, "fix: long lines scroll sideways (kept");
	s = st_slurp(set.ptr);
	assert_non_null(s);
	assert_contains(s, "set wrap-fix off\n");
	assert_contains(s, "set wrap-issue off\n");
	free(s);
	/* which wins over the keys file */
	run(f, 35, 120, NULL, ":dump-screen next\n");
	assert_int_equal(find_row(f, "next", "\xe2\x94\x82\xe2\x86\xaa"),
			 -1);
	buf_release(&dir);
	buf_release(&keys);
	buf_release(&set);
}

/* ---- hunk and file jumps ---------------------------------------------- */

#define REAL_ITEMS "tests/fixtures/reading-real.jsonl"

/* The items of tests/fixtures/reading-real.jsonl: real-looking bugs of
 * DeepSpeed, Megatron-LM and Colossal-AI (tests/bench/hunk_jumps.py
 * measures every jump on them). */
static void add_real(struct fixture *f)
{
	struct import_stats stats;
	struct err e = ERR_INIT;

	memset(&stats, 0, sizeof(stats));
	if (import_file(&f->st, &f->owner, REAL_ITEMS, &stats, &e) < 0)
		fail_msg("%s", e.msg);
}

/* Does every changed row (a '+' or '-' first) of dump `name` from row
 * `from` to `to` have the mark of text scrolled off to the left right
 * after its sigil? */
static void assert_changed_rows_marked(struct fixture *f, const char *name,
				       int from, int to, int split_x)
{
	int r, seen = 0;

	for (r = from; r <= to; r++) {
		char *s = row(f, name, r), *p = s;

		if (split_x) {
			p = strstr(s, "\xe2\x94\x82");
			p = p ? p + 3 : s + strlen(s);
		}
		if ((*p == '+' || *p == '-') && strncmp(p + 1, "\xc2\xab", 2))
			fail_msg("%s row %d: a changed line scrolled without "
				 "the mark: %s", name, r, s);
		seen += *p == '+' || *p == '-';
		free(s);
	}
	assert_true(seen > 0);
}

/* The Megatron fix's first hunk: its first change ("False" -> "True" at
 * column 98) lies past the right edge, beside short added lines.  ]
 * scrolls just far enough to show the change whole; every changed line
 * scrolled says so ("+<<" even when all of it is to the left), and the
 * title gives the offset.  The next hunk's first change is a short line:
 * no scroll there, its long pair keeps its mark at the edge. */
static void test_jump_keeps_line_starts(void **state)
{
	struct fixture *f = *state;
	char *s;

	add_real(f);
	run(f, 35, 120, "NVIDIA/Megatron-LM#1474", "]\n:dump-screen h1\n"
	    "]\n:dump-screen h2\n^\n:dump-screen home\n");
	assert_row_has(f, "h1", 1, "fix #3694");
	assert_row_has(f, "h1", 1, "\xc2\xab+");
	assert_row_has(f, "h1", 2, "@@ -210,5 +210,8 @@");
	assert_true(find_row(f, "h1", "non_blocking=False)") > 2);
	assert_true(find_row(f, "h1", "non_blocking=True)") > 2);
	assert_changed_rows_marked(f, "h1", 3, 10, 1);
	/* the short added lines are not bare: they say they go on left */
	s = row(f, "h1", 6);
	assert_contains(s, "\xe2\x94\x82+\xc2\xab");
	free(s);
	/* the next hunk starts with a short change: seen from its start */
	assert_row_has(f, "h2", 2, "@@ -301,3 +304,4 @@");
	assert_row_has(f, "h2", 4, "+        assert self.capacity is not None");
	assert_row_has(f, "h2", 5, "-        self.input_splits = num_local");
	assert_row_has(f, "h2", 6, CHANGE_MARK);
	s = row(f, "h2", 1);
	assert_not_contains(s, "\xc2\xab");
	free(s);
	s = dump(f, "h2");
	assert_not_contains(s, "+\xc2\xab");
	free(s);
	/* ^ back to the left: no mark anywhere */
	s = dump(f, "home");
	assert_not_contains(s, "\xc2\xab");
	free(s);
}

/* Wrap on: a jump never scrolls sideways; the change is on the rows the
 * line wraps to. */
static void test_jump_wrapped(void **state)
{
	struct fixture *f = *state;
	char *s;

	add_real(f);
	run(f, 35, 120, "NVIDIA/Megatron-LM#1474", "<Tab>w]\n:dump-screen w\n");
	s = dump(f, "w");
	assert_not_contains(s, "\xc2\xab");
	assert_contains(s, "non_blocking=True)");
	free(s);
	assert_row_has(f, "w", 2, "@@ -210,5 +210,8 @@");
}

/* A change from CRLF to LF: the removed line's CR shows (U+240D at its
 * end) and is its changed "word"; citing the line quotes it with its CR. */
static void test_crlf_change_visible(void **state)
{
	struct fixture *f = *state;
	char *s;
	int r;

	add_real(f);
	run(f, 24, 80, "hpcaitech/ColossalAI#5580", "<Tab>\n:dump-screen c\n"
	    "14<Esc>\n/OMP\n<Enter>\n.e1\n:dump-screen e\n");
	r = find_row(f, "c", "-export OMP_NUM_THREADS=8");
	assert_true(r > 2);
	assert_row_has(f, "c", r, "-export OMP_NUM_THREADS=8\xe2\x90\x8d");
	s = row(f, "c", r + 1);
	assert_string_equal(s, "+export OMP_NUM_THREADS=8");
	free(s);
	/* the CR stands out (reverse, as a control character and within
	 * the changed word "8\r"); the rest of the line does not */
	s = row(f, "c.attr", r);
	assert_true(s[25] == 'r' || s[25] == 'R');
	assert_int_equal(s[1], '.');
	assert_int_equal(s[20], '.');
	free(s);
	assert_row_has(f, "e", 23, "cited diff:applications/ColossalChat/");
	{
		sqlite3_stmt *st;

		assert_int_equal(sqlite3_prepare_v2(f->st.db, "SELECT quote "
			"FROM evidence", -1, &st, NULL), SQLITE_OK);
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		assert_string_equal((const char *)sqlite3_column_text(st, 0),
				    "-export OMP_NUM_THREADS=8\r\n");
		sqlite3_finalize(st);
	}
}

/* The fix pane's title wraps with the pane (Megatron's "for dev", the
 * mark of a backport, at its end); o closes and opens the <details> of
 * the pull request's description as it does the issue's. */
static void test_fix_title_and_details(void **state)
{
	struct fixture *f = *state;
	char *s;

	add_real(f);
	run(f, 35, 120, "NVIDIA/Megatron-LM#1474", "<Tab>\n:dump-screen t\n"
	    "/Test log\n<Enter>\no\n:dump-screen closed\no\n"
	    ":dump-screen open\n");
	s = dump(f, "t");
	assert_contains(s, "#3694 Pad dropped tokens before the all-to-all");
	assert_contains(s, "for dev");
	assert_contains(s, "\xe2\x96\xbe Test log");
	assert_contains(s, "all 4 MoE functional tests pass");
	free(s);
	s = dump(f, "closed");
	assert_contains(s, "\xe2\x96\xb8 Test log");
	assert_not_contains(s, "all 4 MoE functional tests pass");
	assert_contains(s, "section closed (o opens it)");
	free(s);
	s = dump(f, "open");
	assert_contains(s, "all 4 MoE functional tests pass");
	free(s);
	/* in the diff there is no section to close */
	run(f, 35, 120, "NVIDIA/Megatron-LM#1474", "]o\n:dump-screen d\n");
	assert_row_has(f, "d", 34, "no <details> section here");
}

/* The root cause stated only in the pull request's description: the fix
 * pane shows the description and the pull request's comments, and their
 * lines are cited like the issue's (pr:N:body, pr:N:comment:K). */
static void test_cite_pr_text(void **state)
{
	struct fixture *f = *state;
	char *s;

	add_real(f);
	run(f, 35, 120, "microsoft/DeepSpeed#5337", "<Tab>\n:dump-screen p\n"
	    "22<Esc>\n/The gradients of the first\n<Enter>\n.e2\n"
	    ":dump-screen b\n/also explains\n<Enter>\ne2\n:dump-screen c\n");
	s = dump(f, "p");
	assert_contains(s, "## Root cause");
	assert_contains(s, "1 comment on the pull request");
	assert_contains(s, "reviewer commented on 2024-04-02 15:00:");
	assert_contains(s, "This also explains the divergence");
	free(s);
	assert_row_has(f, "b", 34, "cited pr:5342:body:3 for root_cause");
	assert_row_has(f, "c", 34, "cited pr:5342:comment:1:1-2 for "
		       "root_cause");
	{
		sqlite3_stmt *st;

		assert_int_equal(sqlite3_prepare_v2(f->st.db, "SELECT pane, pr, "
			"comment, quote FROM evidence ORDER BY id", -1, &st,
			NULL), SQLITE_OK);
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		assert_string_equal((const char *)sqlite3_column_text(st, 0),
				    "pr");
		assert_int_equal(sqlite3_column_int(st, 1), 5342);
		assert_int_equal(sqlite3_column_int(st, 2), 0);
		assert_non_null(strstr((const char *)sqlite3_column_text(st,
			3), "were never averaged"));
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		assert_int_equal(sqlite3_column_int(st, 2), 1);
		sqlite3_finalize(st);
	}
}

/* An item whose author and dates were not recorded says so, in words. */
static void test_unknown_author(void **state)
{
	struct fixture *f = *state;
	char *s;

	add_real(f);
	run(f, 24, 80, "hpcaitech/ColossalAI#5580", ":dump-screen a\n");
	s = dump(f, "a");
	assert_contains(s, "author and opening date not recorded");
	assert_contains(s, "(author not recorded) commented (date not "
			"recorded):");
	assert_not_contains(s, "ghost");
	assert_not_contains(s, " on ?");
	free(s);
}

/* ---- HTML, links, shortcodes ----------------------------------------- */

static const char html_body[] =
	"### Describe the bug\n"
	"\n"
	"Training stops with a wrong partition size.\n"
	"\n"
	"<img width=\"825\" height=\"479\" alt=\"Image\" "
	"src=\"https://github.com/user-attachments/assets/"
	"0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b\" />\n"
	"\n"
	"<img width=\"600\" alt=\"loss curve\" "
	"src=\"https://github.com/user-attachments/assets/"
	"11112222-3333-4444-5555-666677778888\" />\n"
	"See [the log](https://example.org/logs/run-42) for details.\n"
	"\n"
	"<details>\n"
	"<summary>Environment</summary>\n"
	"\n"
	"torch 2.1, CUDA 12.1, 8 GPUs\n"
	"\n"
	"</details>\n"
	"\n"
	"Press <kbd>Ctrl</kbd>+<kbd>C</kbd>, then H<sub>2</sub>O and "
	"x<sup>2</sup>, <b>bold</b>, <i>it</i>, <code>a &lt; b</code>,<br>"
	"a <a href=\"https://example.org/a\">link</a> and "
	"<span style=\"color:red\">plain</span> <unknown>text</unknown>.\n"
	"\n"
	"Fixed by [4330](https://github.com/microsoft/DeepSpeed/pull/4330) "
	"and https://example.org/auto :warning: :tada: :nosuchcode:\n"
	"\n"
	"<details><summary>Logs</summary>\n"
	"line one of the log\n"
	"</details>\n"
	"\n"
	"The end.\n"
	"\n"
	"<img alt=\"evil&#27;[2J\" src=\"x&#x1b;]52;c;Zg==&#7;\">\n";

static void add_html(struct fixture *f)
{
	struct item it;

	base_item(&it, "acme/html", 1, "HTML in an issue", html_body);
	save(f, &it);
}

/* <img> shows "[image: ALT] <URL>" wrapped, never cut, and no tag is
 * shown as source; the other tags show with their meaning. */
static void test_html(void **state)
{
	struct fixture *f = *state;
	char *s;

	add_html(f);
	run(f, 50, 80, "acme/html#1", ":dump-screen h\n");
	st_expect_screen(f->dir, "h", "reading-html-80x50.txt");
	s = dump(f, "h");
	/* wrapped where the URL is too long for a line, never cut */
	assert_contains(s, "[image: Image]\n<https://github.com/user-"
			"attachments/assets/0f1e2d3c-4b5a-6978-8a9b-"
			"0c1d2e3f4a5b\n>");
	assert_contains(s, "[image: loss curve]\n<https://github.com/user-"
			"attachments/assets/11112222-3333-4444-5555-"
			"666677778888\n>");
	/* text right under an <img> line belongs to its HTML block, where
	 * GitHub reads no Markdown: shown whole */
	assert_contains(s, "See [the log](https://example.org/logs/run-42) "
			"for details.");
	assert_contains(s, "\xe2\x96\xbe Environment");
	assert_contains(s, "torch 2.1, CUDA 12.1, 8 GPUs");
	assert_contains(s, "Press [Ctrl]+[C], then H_(2)O and x^(2), bold, "
			"it, `a < b`,");
	assert_contains(s, "a link <https://example.org/a> and plain text.");
	assert_contains(s, "\xe2\x96\xbe Logs");
	assert_contains(s, "line one of the log");
	/* no tag as source */
	assert_not_contains(s, "<img");
	assert_not_contains(s, "<details");
	assert_not_contains(s, "<summary");
	assert_not_contains(s, "<kbd");
	assert_not_contains(s, "<span");
	assert_not_contains(s, "unknown>");
	/* escapes written as references reach the screen as marks only */
	assert_contains(s, "[image: evil\xe2\x90\x9b[2J] <x\xe2\x90\x9b]52;c;"
			"Zg==\xe2\x90\x87>");
	assert_not_contains(s, "\x1b");
	free(s);
}

/* A link whose URL ends with its text shows the URL; an autolink shows
 * its URL once; shortcodes become emoji on UTF-8, text on ASCII. */
static void test_links_and_shortcodes(void **state)
{
	struct fixture *f = *state;
	char *s;

	add_html(f);
	run(f, 50, 80, "acme/html#1", ":dump-screen l\n");
	s = dump(f, "l");
	assert_contains(s, "Fixed by 4330 <https://github.com/microsoft/"
			"DeepSpeed/pull/4330> and\nhttps://example.org/auto "
			"\xe2\x9a\xa0 \xf0\x9f\x8e\x89 :nosuchcode:");
	assert_not_contains(s, "<https://example.org/auto>");
	free(s);
	setenv("LC_ALL", "C", 1);
	run(f, 50, 80, "acme/html#1", ":dump-screen a\n");
	setenv("LC_ALL", "C.UTF-8", 1);
	s = dump(f, "a");
	assert_contains(s, ":warning: :tada: :nosuchcode:");
	assert_contains(s, "v Environment");
	free(s);
}

/* o closes the first section in view and opens it again; the place is
 * kept. */
static void test_details_toggle(void **state)
{
	struct fixture *f = *state;
	char *s;

	add_html(f);
	run(f, 24, 80, "acme/html#1", "/Environment\n<Enter>\no\n"
	    ":dump-screen closed\no\n:dump-screen open\n"
	    "/Logs\n<Enter>\no\n:dump-screen logs\n");
	s = dump(f, "closed");
	assert_contains(s, "\xe2\x96\xb8 Environment");
	assert_not_contains(s, "torch 2.1");
	assert_contains(s, "section closed (o opens it)");
	free(s);
	assert_row_has(f, "closed", 2, "\xe2\x96\xb8 Environment");
	s = dump(f, "open");
	assert_contains(s, "\xe2\x96\xbe Environment");
	assert_contains(s, "torch 2.1");
	free(s);
	s = dump(f, "logs");
	assert_contains(s, "\xe2\x96\xb8 Logs");
	assert_not_contains(s, "line one of the log");
	assert_contains(s, "The end.");
	free(s);
}

/* A match past the right edge of a code line is scrolled into view and
 * highlighted more strongly than the others; the status line counts. */
static void test_search_offscreen(void **state)
{
	struct fixture *f = *state;
	char *s, *a;
	const char *at;

	add_long(f, "```\nx = 1" PAD40 PAD40 PAD40 " needle here\n```\n");
	run(f, 24, 80, NULL, "/needle\n<Enter>\n:dump-screen s\nn\n"
	    ":dump-screen s2\n/no-such-thing\n<Enter>\n:dump-screen none\n");
	assert_row_has(f, "s", 2, "needle here");
	assert_row_has(f, "s", 23, "match 1/1");
	assert_row_has(f, "s2", 23, "match 1/1 (search wrapped around)");
	assert_row_has(f, "none", 23, "no match: no-such-thing");
	/* the current match: reverse and bold in mono */
	s = row(f, "s", 2);
	a = row(f, "s.attr", 2);
	at = strstr(s, "needle");
	assert_non_null(at);
	assert_int_equal(a[col_of(s, at)], 'R');
	free(s);
	free(a);
	/* w wraps the issue pane's code too: the match on the row that
	 * goes on */
	run(f, 24, 80, NULL, "w\n:dump-screen w\n");
	{
		int r = find_row(f, "w", "x = 1");

		assert_true(r > 0);
		assert_row_has(f, "w", r + 1, WRAP_MARK);
		assert_true(find_row(f, "w", "needle here") == r + 1 ||
			    find_row(f, "w", "needle here") == r + 2);
		assert_row_has(f, "w", 23, "issue: long code lines wrap");
	}
	/* two matches on one diff line: n steps through both */
	run(f, 24, 80, NULL, "<Tab>/secondary_start\n<Enter>\n"
	    ":dump-screen d1\nn\n:dump-screen d2\nn\n:dump-screen d3\n");
	assert_row_has(f, "d1", 23, "match 1/5");
	assert_row_has(f, "d2", 23, "match 2/5");
	assert_row_has(f, "d3", 23, "match 3/5");
	assert_row_has(f, "d3", 2, "secondary_start");
}

/* ---- one key per decision -------------------------------------------- */

/* The bench's key script codes and submits an item of the bundled
 * codebook in six keys. */
static void test_six_keys(void **state)
{
	struct fixture *f = *state;
	char *keys = st_slurp("tests/bench/code-one-item.keys"), *p;
	sqlite3_stmt *st;
	int n = 0;

	assert_non_null(keys);
	for (p = keys; *p;) {
		char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		if (len && *p != '#' && *p != ':')
			n += (int)len;
		p += len + (nl ? 1 : 0);
	}
	assert_int_equal(n, 6);
	add_long(f, NULL);
	run(f, 24, 80, NULL, keys);
	free(keys);
	assert_int_equal(sqlite3_prepare_v2(f->st.db, "SELECT group_concat("
		"dimension || '=' || code, '|') FROM (SELECT dimension, code "
		"FROM labels ORDER BY dimension)", -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(st, 0),
			    "fix_pattern=synchronization|phase=training|"
			    "root_cause=tensor_shape_misalignment|"
			    "symptom=hang");
	sqlite3_finalize(st);
	assert_int_equal(sqlite3_prepare_v2(f->st.db, "SELECT count(*) FROM "
		"submissions", -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(st, 0), 1);
	sqlite3_finalize(st);
}

/* The bench's citation script cites a line of the fix for the dimension
 * being coded in three keys, replayed after the coding keys. */
static void test_three_key_citation(void **state)
{
	struct fixture *f = *state;
	char *code = st_slurp("tests/bench/code-one-item.keys");
	char *cite = st_slurp("tests/bench/cite-one-line.keys"), *p;
	struct buf both = BUF_INIT;
	sqlite3_stmt *st;
	int n = 0;

	assert_non_null(code);
	assert_non_null(cite);
	for (p = cite; *p;) {
		char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		if (len && *p != '#' && *p != ':')
			n += (int)len;
		p += len + (nl ? 1 : 0);
	}
	assert_true(n <= 3);
	add_long(f, NULL);
	buf_addf(&both, "%s\n%s", code, cite);
	run(f, 24, 80, NULL, both.ptr);
	assert_int_equal(sqlite3_prepare_v2(f->st.db, "SELECT dimension, "
		"pane, quote FROM evidence", -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(st, 0), "phase");
	assert_string_equal((const char *)sqlite3_column_text(st, 1), "diff");
	assert_int_equal(sqlite3_column_text(st, 2)[0], '-');
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	free(code);
	free(cite);
	buf_release(&both);
}

/* ---- keys of one's own ------------------------------------------------ */

/* A keys file binds keys; its bad lines are named by file and line and
 * left out; ? shows the keys in force. */
static void test_keys_file(void **state)
{
	struct fixture *f = *state;
	struct buf path = BUF_INIT, want = BUF_INIT;
	char *s;

	add_long(f, NULL);
	buf_addf(&path, "%s/config", f->dir);
	mkdir(path.ptr, 0777);
	buf_addstr(&path, "/bugcoder");
	mkdir(path.ptr, 0777);
	buf_addstr(&path, "/keys");
	st_spit(path.ptr,
		"# my keys\n"
		"bind main x submit\n"
		"bind nosuch x submit\n"
		"bind main s none\n"
		"bind main y fly\n"
		"\n"
		"bind generic <Bogus> quit\n"
		"frobnicate\n"
		"bind picker \x1b[2J quit\n"
		"bind generic <C-j> line-down\n");
	run(f, 24, 80, NULL, ":dump-screen start\nx\n:dump-screen x\ns\n"
	    ":dump-screen s\n?/Submit the\n<Enter>\n:dump-screen help\n"
	    "q\nj\n:dump-screen hint\n");
	buf_addf(&want, "%s:3: no keymap \"nosuch\" (line ignored); 4 more "
		 "bad lines", path.ptr);
	{
		char *r = row(f, "start", 23), *full = dump(f, "start");

		/* the path may be cut at 80 columns: the start of it */
		if (strncmp(r, want.ptr, 40))
			fail_msg("start row 23: %s\nwant: %s", r, want.ptr);
		free(r);
		free(full);
	}
	assert_row_has(f, "x", 23, "not submitted: required dimensions");
	assert_row_has(f, "s", 23, "s: no such key here");
	/* the hint line names the keys in force */
	assert_row_has(f, "hint", 23, "x submit");
	s = row(f, "hint", 23);
	assert_not_contains(s, "s submit");
	free(s);
	/* ? lists x for submit, and not s */
	s = dump(f, "help");
	assert_contains(s, "\xe2\x94\x82   x                           Submit "
			"the item");
	assert_not_contains(s, "\xe2\x94\x82   s  ");
	assert_not_contains(s, "\x1b");
	free(s);
	buf_release(&path);
	buf_release(&want);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
		T(test_change_past_edge),
		T(test_intraline_attrs),
		T(test_cursor_keeps_marks),
		T(test_mono_marks_distinct),
		T(test_wrap),
		T(test_wrap_moves),
		T(test_position_counts_rows),
		T(test_wrap_setting),
		T(test_jump_keeps_line_starts),
		T(test_jump_wrapped),
		T(test_crlf_change_visible),
		T(test_fix_title_and_details),
		T(test_unknown_author),
		T(test_cite_pr_text),
		T(test_html),
		T(test_links_and_shortcodes),
		T(test_details_toggle),
		T(test_search_offscreen),
		T(test_six_keys),
		T(test_three_key_citation),
		T(test_keys_file),
#undef T
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
