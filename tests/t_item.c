/* SPDX-License-Identifier: MIT */
/*
 * t_item: items, their dates and effort figures, saving (an upsert that
 * keeps ids), loading, and finding them by name.
 */
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/buf.h"
#include "core/base/diff.h"
#include "core/study/item.h"
#include "core/store/store.h"
#include "core/study/study.h"

/* one file: 2 lines added, 1 deleted */
#define DIFF_ONE \
	"diff --git a/src/a.py b/src/a.py\n" \
	"index 1111111..2222222 100644\n" \
	"--- a/src/a.py\n" \
	"+++ b/src/a.py\n" \
	"@@ -1,3 +1,4 @@\n" \
	" ctx\n" \
	"-old\n" \
	"+new\n" \
	"+added\n" \
	" ctx2\n"

/* two files: 3 added, 1 deleted */
#define DIFF_TWO \
	"diff --git a/x b/x\n" \
	"--- a/x\n" \
	"+++ b/x\n" \
	"@@ -1 +1 @@\n" \
	"-a\n" \
	"+b\n" \
	"diff --git a/y b/y\n" \
	"new file mode 100644\n" \
	"--- /dev/null\n" \
	"+++ b/y\n" \
	"@@ -0,0 +1,2 @@\n" \
	"+1\n" \
	"+2\n"

static void make_item(struct item *it, const char *repo, long long number,
		      const char *title)
{
	memset(it, 0, sizeof(*it));
	it->repo = xstrdup(repo);
	it->number = number;
	it->title = xstrdup(title);
}

static void add_label(struct item *it, const char *name)
{
	it->labels = xrealloc(it->labels, (it->nr_labels + 1) *
			      sizeof(char *));
	it->labels[it->nr_labels++] = xstrdup(name);
}

static void add_comment(struct item *it, const char *author,
			const char *at, const char *body)
{
	struct comment *c;

	it->comments = xrealloc(it->comments, (it->nr_comments + 1) *
				sizeof(*c));
	c = &it->comments[it->nr_comments++];
	c->author = xstrdup_or_null(author);
	c->created_at = xstrdup_or_null(at);
	c->body = xstrdup_or_null(body);
}

static struct fix *add_fix(struct item *it, long long number, int add,
			   int del, int files, const char *diff)
{
	struct fix *f;

	it->fixes = xrealloc(it->fixes, (it->nr_fixes + 1) * sizeof(*f));
	f = &it->fixes[it->nr_fixes++];
	memset(f, 0, sizeof(*f));
	f->number = number;
	f->additions = add;
	f->deletions = del;
	f->changed_files = files;
	if (diff) {
		f->diff = xstrdup(diff);
		f->diff_len = strlen(diff);
	}
	return f;
}

static int open_mem(void **state)
{
	struct store *st = xcalloc(1, sizeof(*st));
	struct err e = ERR_INIT;

	setenv("BUGCODER_NOW", "2024-06-01T00:00:00Z", 1);
	if (store_open_memory(st, &e) < 0) {
		free(st);
		return -1;
	}
	*state = st;
	return 0;
}

static int close_mem(void **state)
{
	store_close(*state);
	free(*state);
	unsetenv("BUGCODER_NOW");
	return 0;
}

static long long count(struct store *st, const char *sql)
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

/* ---- dates -------------------------------------------------------------- */

static void assert_date(const char *s, double want)
{
	double t = -12345;

	if (item_parse_date(s, &t) != 0)
		fail_msg("%s: refused", s);
	if (t != want)
		fail_msg("%s: got %.0f, want %.0f", s, t, want);
}

static void test_parse_date_valid(void **state)
{
	(void)state;
	assert_date("2024-01-02T03:04:05Z", 1704164645);
	assert_date("2024-01-02", 1704153600);
	assert_date("2024-01-02T03:04:05", 1704164645);	/* UTC assumed */
	assert_date("2024-01-02 03:04:05Z", 1704164645);
	assert_date("2024-01-02T03:04Z", 1704164640);	/* no seconds */
	assert_date("2024-01-02T03:04:05.123Z", 1704164645);
	assert_date("2024-01-02T03:04:05.999999Z", 1704164645);
	/* offsets: local time minus offset is UTC */
	assert_date("2024-01-02T05:04:05+02:00", 1704164645);
	assert_date("2024-01-01T21:34:05-05:30", 1704164645);
	assert_date("2024-01-02T03:04:05+00:00", 1704164645);
	/* leap days, the epoch, before it, a century leap year */
	assert_date("2024-02-29T12:00:00Z", 1709208000);
	assert_date("2000-02-29", 951782400);
	assert_date("2000-03-01", 951868800);
	assert_date("1970-01-01T00:00:00Z", 0);
	assert_date("1969-12-31T00:00:00Z", -86400);
	assert_date("2016-12-31T23:59:60Z", 1483228800);	/* leap second */
}

static void test_parse_date_invalid(void **state)
{
	static const char *const bad[] = {
		"", "2024", "2024-01", "2024-1-02", "24-01-02", "2024/01/02",
		"2024-00-10", "2024-13-01", "2024-01-00", "2024-01-32",
		"2024-04-31", "2024-02-30", "2023-02-29", "1900-02-29",
		"2024-01-02T", "2024-01-02T3:04:05Z", "2024-01-02T24:00:00Z",
		"2024-01-02T03:60:00Z", "2024-01-02T03:04:61Z",
		"2024-01-02T03:04:05Zjunk", "2024-01-02T03:04:05+0200",
		"2024-01-02T03:04:05+02", "2024-01-02Z", "yesterday",
		"2024-01-02T03:04:05 Z", "x024-01-02",
	};
	size_t i;
	double t = 77;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (item_parse_date(bad[i], &t) != -1)
			fail_msg("\"%s\" was accepted", bad[i]);
	assert_int_equal(item_parse_date(NULL, &t), -1);
	assert_true(t == 77);	/* untouched on failure */
}

/* ---- effort figures ----------------------------------------------------- */

static void test_effort_days_and_comments(void **state)
{
	struct item it;

	(void)state;
	make_item(&it, "o/r", 1, "t");
	it.created_at = xstrdup("2024-01-02T00:00:00Z");
	it.closed_at = xstrdup("2024-01-09T06:00:00Z");
	add_comment(&it, "a", NULL, "x");
	add_comment(&it, NULL, NULL, NULL);	/* ghost, no body */
	item_compute_effort(&it);
	assert_true(fabs(it.days_open - 7.25) < 1e-9);
	assert_int_equal(it.comment_count, 2);
	/* no fix: sizes unknown, not small */
	assert_int_equal(it.additions, -1);
	assert_int_equal(it.deletions, -1);
	assert_int_equal(it.changed_files, -1);
	assert_int_equal(it.lines_changed, -1);
	assert_int_equal(it.small_fix, 0);

	/* the count from an issue list is kept when larger */
	it.comment_count = 9;
	item_compute_effort(&it);
	assert_int_equal(it.comment_count, 9);

	/* closed before opened, or a date missing: unknown */
	free(it.closed_at);
	it.closed_at = xstrdup("2023-12-31T00:00:00Z");
	item_compute_effort(&it);
	assert_true(it.days_open < 0);
	free(it.closed_at);
	it.closed_at = NULL;
	item_compute_effort(&it);
	assert_true(it.days_open < 0);
	/* same instant: zero days, not unknown */
	it.closed_at = xstrdup("2024-01-02T00:00:00Z");
	item_compute_effort(&it);
	assert_true(it.days_open == 0);
	/* across time zones */
	free(it.closed_at);
	it.closed_at = xstrdup("2024-01-02T14:00:00+02:00");
	item_compute_effort(&it);
	assert_true(fabs(it.days_open - 0.5) < 1e-9);
	item_release(&it);
}

static void test_effort_from_pr_figures(void **state)
{
	struct item it;

	(void)state;
	make_item(&it, "o/r", 1, "t");
	/* the PR's own figures win over the diff */
	add_fix(&it, 10, 7, 2, 1, DIFF_TWO);
	item_compute_effort(&it);
	assert_int_equal(it.additions, 7);
	assert_int_equal(it.deletions, 2);
	assert_int_equal(it.changed_files, 1);
	assert_int_equal(it.lines_changed, 9);
	assert_int_equal(it.small_fix, 1);
	item_release(&it);
}

static void test_effort_counted_from_diff(void **state)
{
	struct item it;

	(void)state;
	make_item(&it, "o/r", 1, "t");
	add_fix(&it, 10, -1, -1, -1, DIFF_TWO);
	item_compute_effort(&it);
	assert_int_equal(it.fixes[0].additions, 3);
	assert_int_equal(it.fixes[0].deletions, 1);
	assert_int_equal(it.fixes[0].changed_files, 2);
	assert_int_equal(it.additions, 3);
	assert_int_equal(it.deletions, 1);
	assert_int_equal(it.changed_files, 2);
	assert_int_equal(it.lines_changed, 4);
	assert_int_equal(it.small_fix, 1);
	item_release(&it);

	/* only the missing figure is counted */
	make_item(&it, "o/r", 2, "t");
	add_fix(&it, 11, 50, -1, 4, DIFF_ONE);
	item_compute_effort(&it);
	assert_int_equal(it.additions, 50);
	assert_int_equal(it.deletions, 1);
	assert_int_equal(it.changed_files, 4);
	assert_int_equal(it.lines_changed, 51);
	assert_int_equal(it.small_fix, 0);
	item_release(&it);
}

static void test_effort_several_fixes(void **state)
{
	struct item it;
	struct fix *f;

	(void)state;
	make_item(&it, "o/r", 1, "t");
	add_fix(&it, 10, 3, 1, 1, NULL);
	add_fix(&it, 11, -1, -1, -1, DIFF_ONE);	/* 2 + 1, 1 file */
	f = add_fix(&it, 12, 0, 4, 1, NULL);
	f->diff_partial = 1;
	item_compute_effort(&it);
	assert_int_equal(it.additions, 5);
	assert_int_equal(it.deletions, 6);
	assert_int_equal(it.changed_files, 3);
	assert_int_equal(it.lines_changed, 11);
	assert_int_equal(it.small_fix, 0);
	assert_int_equal(it.diff_partial, 1);
	item_release(&it);
}

/* a fix merged to main and its cherry-pick to a release branch: the same
 * change at other lines, with other blob ids */
static void test_effort_repeated_change_counted_once(void **state)
{
	static const char main_fix[] =
		"diff --git a/src/a.py b/src/a.py\n"
		"index 1111111..2222222 100644\n"
		"--- a/src/a.py\n"
		"+++ b/src/a.py\n"
		"@@ -10,3 +10,3 @@ def f():\n"
		" ctx\n"
		"-old\n"
		"+new\n"
		" ctx2\n";
	static const char backport[] =
		"diff --git a/src/a.py b/src/a.py\n"
		"index 3333333..4444444 100644\n"
		"--- a/src/a.py\n"
		"+++ b/src/a.py\n"
		"@@ -80,3 +80,3 @@ def f():\r\n"
		" other ctx\r\n"
		"-old\r\n"
		"+new\r\n"
		" more ctx\r\n";
	struct item it;
	struct fix fx[3];

	(void)state;
	memset(&it, 0, sizeof(it));
	memset(fx, 0, sizeof(fx));
	fx[0].diff = (char *)main_fix;
	fx[0].diff_len = strlen(main_fix);
	fx[1].diff = (char *)backport;
	fx[1].diff_len = strlen(backport);
	fx[2].diff = (char *)DIFF_ONE;
	fx[2].diff_len = strlen(DIFF_ONE);
	for (int i = 0; i < 3; i++)
		fx[i].additions = fx[i].deletions = fx[i].changed_files = -1;
	it.fixes = fx;
	it.nr_fixes = 3;
	item_compute_effort(&it);
	assert_int_equal(fx[0].repeats, 0);
	assert_int_equal(fx[1].repeats, 1);	/* repeats fix 0 */
	assert_int_equal(fx[2].repeats, 0);
	/* each keeps its own figures; the item counts the change once */
	assert_int_equal(fx[1].additions, 1);
	assert_int_equal(fx[1].deletions, 1);
	assert_int_equal(it.additions, 1 + 2);
	assert_int_equal(it.deletions, 1 + 1);
	assert_int_equal(it.changed_files, 2);
	assert_int_equal(it.lines_changed, 5);

	/* a different change to the same file is not a repeat */
	fx[1].diff_len = strlen(backport) - strlen("+new\r\n more ctx\r\n");
	fx[1].additions = fx[1].deletions = fx[1].changed_files = -1;
	it.nr_fixes = 2;
	item_compute_effort(&it);
	assert_int_equal(fx[1].repeats, 0);
	assert_int_equal(it.deletions, 2);
}

static void test_effort_small_fix_boundary(void **state)
{
	struct item it;

	(void)state;
	make_item(&it, "o/r", 1, "t");
	add_fix(&it, 10, 6, 4, 1, NULL);	/* exactly 10 */
	item_compute_effort(&it);
	assert_int_equal(it.lines_changed, ITEM_SMALL_FIX);
	assert_int_equal(it.small_fix, 1);
	it.fixes[0].deletions = 5;		/* 11 */
	item_compute_effort(&it);
	assert_int_equal(it.lines_changed, 11);
	assert_int_equal(it.small_fix, 0);
	it.fixes[0].additions = 0;		/* a pure deletion */
	it.fixes[0].deletions = 0;
	item_compute_effort(&it);
	assert_int_equal(it.lines_changed, 0);
	assert_int_equal(it.small_fix, 1);
	item_release(&it);
}

static void test_effort_unknown_size(void **state)
{
	struct item it;

	(void)state;
	/* a fix with neither figures nor a diff has an unknown size, which
	 * must not be counted as a small fix of 0 lines */
	make_item(&it, "o/r", 1, "t");
	add_fix(&it, 10, -1, -1, -1, NULL);
	item_compute_effort(&it);
	assert_int_equal(it.additions, -1);
	assert_int_equal(it.deletions, -1);
	assert_int_equal(it.changed_files, -1);
	assert_int_equal(it.lines_changed, -1);
	assert_int_equal(it.small_fix, 0);
	/* one known fix beside it does not make the total known */
	add_fix(&it, 11, 1, 1, 1, NULL);
	item_compute_effort(&it);
	assert_int_equal(it.lines_changed, -1);
	assert_int_equal(it.small_fix, 0);
	item_release(&it);
}

static void test_effort_huge_figures_do_not_wrap(void **state)
{
	struct item it;

	(void)state;
	/* import accepts up to 2e9 per figure: the sums must not overflow
	 * an int (undefined behaviour, and a wrapped total came out negative,
	 * so stored as unknown, or as a "small fix") */
	make_item(&it, "o/r", 1, "t");
	add_fix(&it, 10, 2000000000, 2000000000, 2000000000, NULL);
	item_compute_effort(&it);
	assert_int_equal(it.additions, 2000000000);
	assert_int_equal(it.lines_changed, INT_MAX);
	assert_int_equal(it.small_fix, 0);
	add_fix(&it, 11, 2000000000, 1, 2000000000, NULL);
	item_compute_effort(&it);
	assert_int_equal(it.additions, INT_MAX);
	assert_int_equal(it.deletions, 2000000001);
	assert_int_equal(it.changed_files, INT_MAX);
	assert_int_equal(it.lines_changed, INT_MAX);
	assert_int_equal(it.small_fix, 0);
	item_release(&it);
}

/* ---- names -------------------------------------------------------------- */

static void test_name_and_repo(void **state)
{
	char *n;

	(void)state;
	n = item_name("microsoft/DeepSpeed", 4321);
	assert_string_equal(n, "microsoft/DeepSpeed#4321");
	free(n);

	assert_true(item_valid_repo("microsoft/DeepSpeed"));
	assert_true(item_valid_repo("NVIDIA/Megatron-LM"));
	assert_true(item_valid_repo("a_b/c.d-e"));
	assert_false(item_valid_repo("DeepSpeed"));
	assert_false(item_valid_repo("/DeepSpeed"));
	assert_false(item_valid_repo("microsoft/"));
	assert_false(item_valid_repo("a/b/c"));
	assert_false(item_valid_repo("a b/c"));
	assert_false(item_valid_repo("a/c;rm"));
	assert_false(item_valid_repo("a/\x1b[2J"));
	assert_false(item_valid_repo(""));
	{
		char longname[260];

		memset(longname, 'a', sizeof(longname) - 1);
		longname[sizeof(longname) - 1] = '\0';
		longname[100] = '/';
		assert_false(item_valid_repo(longname));
	}
}

static void test_release_null_and_twice(void **state)
{
	struct item it;

	(void)state;
	item_release(NULL);
	make_item(&it, "o/r", 1, "t");
	add_label(&it, "bug");
	add_comment(&it, "a", "2024-01-01", "b");
	add_fix(&it, 1, 1, 1, 1, DIFF_ONE);
	item_release(&it);
	assert_null(it.repo);
	assert_null(it.fixes);
	assert_int_equal(it.nr_fixes, 0);
	item_release(&it);	/* zeroed: harmless */
}

/* ---- save and load ------------------------------------------------------ */

static void full_item(struct item *it)
{
	struct fix *f;

	make_item(it, "microsoft/DeepSpeed", 4321, "ZeRO-3 hangs with "
		  "'quotes' and \"doubles\"");
	it->body = xstrdup("## Describe the bug\nTraining hangs.\n");
	it->state = xstrdup("closed");
	it->state_reason = xstrdup("completed");
	it->author = xstrdup("reporter");
	it->created_at = xstrdup("2024-01-02T03:04:05Z");
	it->closed_at = xstrdup("2024-01-09T10:00:00Z");
	it->url = xstrdup("https://github.com/microsoft/DeepSpeed/issues/4321");
	it->source = xstrdup("items.jsonl");
	add_label(it, "bug");
	add_label(it, "training");
	add_comment(it, "helper", "2024-01-03T00:00:00Z", "Try this.");
	add_comment(it, NULL, "2024-01-04T00:00:00Z", "from a ghost");
	add_comment(it, "reporter", NULL, NULL);
	f = add_fix(it, 4330, -1, -1, -1, DIFF_ONE);
	f->title = xstrdup("Fix the hang");
	f->body = xstrdup("Syncs the stream.");
	f->url = xstrdup("https://github.com/microsoft/DeepSpeed/pull/4330");
	f->merged_at = xstrdup("2024-01-09T09:00:00Z");
	f = add_fix(it, 0, 5, 0, 1, NULL);	/* number unknown */
	f->diff_partial = 1;
}

static void test_save_and_load(void **state)
{
	struct store *st = *state;
	struct item it, got;
	struct err e = ERR_INIT;
	long long id;

	full_item(&it);
	assert_int_equal(item_save(st, &it, &e), 0);
	assert_true(it.id > 0);
	id = it.id;
	/* the figures were computed on the way */
	assert_int_equal(it.lines_changed, 8);

	assert_int_equal(item_load(st, id, &got, &e), 0);
	assert_int_equal(got.id, id);
	assert_string_equal(got.repo, "microsoft/DeepSpeed");
	assert_int_equal(got.number, 4321);
	assert_string_equal(got.title, it.title);
	assert_string_equal(got.body, it.body);
	assert_string_equal(got.state, "closed");
	assert_string_equal(got.state_reason, "completed");
	assert_string_equal(got.author, "reporter");
	assert_string_equal(got.created_at, "2024-01-02T03:04:05Z");
	assert_string_equal(got.closed_at, "2024-01-09T10:00:00Z");
	assert_string_equal(got.url, it.url);
	assert_string_equal(got.source, "items.jsonl");
	assert_int_equal(got.nr_labels, 2);
	assert_string_equal(got.labels[0], "bug");
	assert_string_equal(got.labels[1], "training");

	assert_int_equal(got.nr_comments, 3);
	assert_string_equal(got.comments[0].author, "helper");
	assert_string_equal(got.comments[0].body, "Try this.");
	assert_null(got.comments[1].author);	/* the ghost stays NULL */
	assert_string_equal(got.comments[1].body, "from a ghost");
	assert_null(got.comments[2].created_at);
	assert_null(got.comments[2].body);

	assert_int_equal(got.nr_fixes, 2);
	assert_int_equal(got.fixes[0].number, 4330);
	assert_string_equal(got.fixes[0].title, "Fix the hang");
	assert_string_equal(got.fixes[0].body, "Syncs the stream.");
	assert_string_equal(got.fixes[0].merged_at, "2024-01-09T09:00:00Z");
	assert_string_equal(got.fixes[0].diff, DIFF_ONE);
	assert_int_equal(got.fixes[0].diff_len, strlen(DIFF_ONE));
	/* counted from the diff and stored with the fix */
	assert_int_equal(got.fixes[0].additions, 2);
	assert_int_equal(got.fixes[0].deletions, 1);
	assert_int_equal(got.fixes[0].changed_files, 1);
	assert_int_equal(got.fixes[0].diff_partial, 0);
	assert_int_equal(got.fixes[1].number, 0);
	assert_null(got.fixes[1].diff);
	assert_null(got.fixes[1].title);
	assert_int_equal(got.fixes[1].diff_partial, 1);

	/* effort figures as stored */
	assert_true(fabs(got.days_open - (7 + (6 * 3600 + 55 * 60 + 55) /
					  86400.0)) < 1e-9);
	assert_int_equal(got.comment_count, 3);
	assert_int_equal(got.additions, 7);
	assert_int_equal(got.deletions, 1);
	assert_int_equal(got.changed_files, 2);
	assert_int_equal(got.lines_changed, 8);
	assert_int_equal(got.small_fix, 1);
	assert_int_equal(got.diff_partial, 1);

	assert_int_equal(count(st, "SELECT has_fix FROM items"), 1);
	assert_int_equal(count(st, "SELECT count(*) FROM items WHERE "
			       "imported_at = '2024-06-01T00:00:00Z'"), 1);
	assert_int_equal(count(st, "SELECT count(*) FROM items WHERE "
			       "labels = '[\"bug\",\"training\"]'"), 1);
	item_release(&it);
	item_release(&got);
}

static void test_save_without_fix(void **state)
{
	struct store *st = *state;
	struct item it, got;
	struct err e = ERR_INIT;

	make_item(&it, "o/r", 5, "no fix");
	assert_int_equal(item_save(st, &it, &e), 0);
	assert_int_equal(count(st, "SELECT has_fix FROM items WHERE number = 5"),
			 0);
	assert_int_equal(count(st, "SELECT small_fix IS NULL AND lines_changed "
			       "IS NULL AND days_open IS NULL AND additions "
			       "IS NULL FROM items WHERE number = 5"), 1);
	assert_int_equal(item_load(st, it.id, &got, &e), 0);
	assert_int_equal(got.nr_fixes, 0);
	assert_int_equal(got.nr_comments, 0);
	assert_int_equal(got.nr_labels, 0);
	assert_int_equal(got.lines_changed, -1);
	assert_int_equal(got.additions, -1);
	assert_true(got.days_open < 0);
	assert_int_equal(got.small_fix, 0);
	assert_null(got.body);
	item_release(&it);
	item_release(&got);

	/* unknown size: stored NULL, so it is left out of the small-fix
	 * share rather than counted as small */
	make_item(&it, "o/r", 6, "size unknown");
	add_fix(&it, 7, -1, -1, -1, NULL);
	assert_int_equal(item_save(st, &it, &e), 0);
	assert_int_equal(count(st, "SELECT has_fix = 1 AND small_fix IS NULL "
			       "AND lines_changed IS NULL FROM items WHERE "
			       "number = 6"), 1);
	item_release(&it);
}

static void test_save_is_upsert(void **state)
{
	struct store *st = *state;
	struct item it, again, got;
	struct err e = ERR_INIT;
	long long id;

	full_item(&it);
	assert_int_equal(item_save(st, &it, &e), 0);
	id = it.id;
	assert_int_equal(count(st, "SELECT count(*) FROM comments"), 3);
	assert_int_equal(count(st, "SELECT count(*) FROM fixes"), 2);

	/* a label on the item, as an annotator would have made it */
	assert_int_equal(store_exec(st, "INSERT INTO members (name, role, "
				    "added_at) VALUES ('alice', 'annotator', "
				    "'x')", &e), 0);
	{
		sqlite3_stmt *s = store_prepare(st, "INSERT INTO labels "
			"(item_id, member_id, dimension, code, "
			"codebook_version, labeled_at) VALUES (?, 1, "
			"'symptom', 'hang', '1.0', 'x')", &e);

		assert_non_null(s);
		sqlite3_bind_int64(s, 1, id);
		assert_int_equal(sqlite3_step(s), SQLITE_DONE);
		sqlite3_finalize(s);
	}

	/* the same repo and number again, changed */
	make_item(&again, "microsoft/DeepSpeed", 4321, "Retitled");
	add_comment(&again, "only", NULL, "one comment now");
	add_fix(&again, 4331, 1, 1, 1, NULL);
	setenv("BUGCODER_NOW", "2024-07-01T00:00:00Z", 1);
	assert_int_equal(item_save(st, &again, &e), 0);
	setenv("BUGCODER_NOW", "2024-06-01T00:00:00Z", 1);
	assert_int_equal(again.id, id);		/* the id is kept */
	assert_int_equal(count(st, "SELECT count(*) FROM items"), 1);
	assert_int_equal(count(st, "SELECT count(*) FROM comments"), 1);
	assert_int_equal(count(st, "SELECT count(*) FROM fixes"), 1);
	assert_int_equal(count(st, "SELECT count(*) FROM labels"), 1);
	assert_int_equal(count(st, "SELECT count(*) FROM items WHERE "
			       "imported_at = '2024-07-01T00:00:00Z'"), 1);

	assert_int_equal(item_load(st, id, &got, &e), 0);
	assert_string_equal(got.title, "Retitled");
	assert_null(got.body);		/* replaced, not merged */
	assert_int_equal(got.nr_labels, 0);
	assert_int_equal(got.nr_comments, 1);
	assert_string_equal(got.comments[0].body, "one comment now");
	assert_int_equal(got.nr_fixes, 1);
	assert_int_equal(got.fixes[0].number, 4331);
	assert_int_equal(got.lines_changed, 2);
	assert_int_equal(got.comment_count, 1);

	/* a different number is a different item */
	item_release(&again);
	make_item(&again, "microsoft/DeepSpeed", 4322, "Other");
	assert_int_equal(item_save(st, &again, &e), 0);
	assert_true(again.id != id);
	assert_int_equal(count(st, "SELECT count(*) FROM items"), 2);
	item_release(&it);
	item_release(&again);
	item_release(&got);
}

static void test_save_refuses_bad_item(void **state)
{
	struct store *st = *state;
	struct item it;
	struct err e = ERR_INIT;

	make_item(&it, "o/r", 1, "t");
	free(it.title);
	it.title = NULL;	/* title is required */
	assert_int_equal(item_save(st, &it, &e), -1);
	assert_int_equal(e.code, ERR_DB);
	assert_non_null(strstr(e.msg, "saving an item"));
	assert_int_equal(count(st, "SELECT count(*) FROM items"), 0);
	item_release(&it);
}

static void test_load_missing(void **state)
{
	struct store *st = *state;
	struct item got;
	struct err e = ERR_INIT;

	assert_int_equal(item_load(st, 999, &got, &e), -1);
	assert_int_equal(e.code, ERR_NOTFOUND);
	assert_string_equal(e.msg, "no item with id 999");
	assert_null(got.repo);
	assert_int_equal(got.nr_fixes, 0);
}

static long long save_simple(struct store *st, const char *repo,
			     long long n)
{
	struct item it;
	struct err e = ERR_INIT;
	long long id;

	make_item(&it, repo, n, "t");
	assert_int_equal(item_save(st, &it, &e), 0);
	id = it.id;
	item_release(&it);
	return id;
}

static void assert_find(struct store *st, const char *name, long long want)
{
	struct err e = ERR_INIT;
	long long got = item_find(st, name, &e);

	if (got != want)
		fail_msg("%s: got %lld (%s), want %lld", name, got, e.msg,
			 want);
}

static void assert_find_fails(struct store *st, const char *name, int code,
			      const char *msg)
{
	struct err e = ERR_INIT;

	if (item_find(st, name, &e) != -1)
		fail_msg("%s: found", name);
	if (e.code != code)
		fail_msg("%s: code %d, want %d (%s)", name, e.code, code,
			 e.msg);
	if (!strstr(e.msg, msg))
		fail_msg("%s: message \"%s\" lacks \"%s\"", name, e.msg, msg);
}

static void test_find(void **state)
{
	struct store *st = *state;
	long long ds1, ds7, fork7, mlm12;

	ds1 = save_simple(st, "microsoft/DeepSpeed", 1);
	ds7 = save_simple(st, "microsoft/DeepSpeed", 7);
	fork7 = save_simple(st, "someone/DeepSpeed", 7);
	mlm12 = save_simple(st, "NVIDIA/Megatron-LM", 12);

	assert_find(st, "microsoft/DeepSpeed#1", ds1);
	assert_find(st, "microsoft/DeepSpeed#7", ds7);
	assert_find(st, "someone/DeepSpeed#7", fork7);
	assert_find(st, "NVIDIA/Megatron-LM#12", mlm12);
	assert_find(st, "Megatron-LM#12", mlm12);	/* repo#N, unique */
	assert_find(st, "DeepSpeed#1", ds1);		/* only one has #1 */
	assert_find(st, "#12", mlm12);
	assert_find(st, "12", mlm12);
	assert_find(st, "1", ds1);

	assert_find_fails(st, "DeepSpeed#7", ERR_INPUT, "ambiguous");
	assert_find_fails(st, "#7", ERR_INPUT, "ambiguous");
	assert_find_fails(st, "7", ERR_INPUT, "owner/repo#number");
	assert_find_fails(st, "microsoft/DeepSpeed#99", ERR_NOTFOUND,
			  "microsoft/DeepSpeed#99: no such item");
	assert_find_fails(st, "other/DeepSpeed#1", ERR_NOTFOUND,
			  "no such item");
	assert_find_fails(st, "ColossalAI#1", ERR_NOTFOUND, "no such item");
	assert_find_fails(st, "99", ERR_NOTFOUND, "no such item");
	assert_find_fails(st, "", ERR_INPUT, "not an item name");
	assert_find_fails(st, "abc", ERR_INPUT, "not an item name");
	assert_find_fails(st, "microsoft/DeepSpeed#", ERR_INPUT,
			  "not an item name");
	assert_find_fails(st, "#0", ERR_INPUT, "not an item name");
	assert_find_fails(st, "#-3", ERR_INPUT, "not an item name");
	assert_find_fails(st, "DeepSpeed#7x", ERR_INPUT, "not an item name");
	assert_find_fails(st, "#", ERR_INPUT, "not an item name");
	/* a name that would break formatted SQL is just not found */
	assert_find_fails(st, "x' OR '1'='1#1", ERR_NOTFOUND, "no such item");

	/* URLs wherever an item is named */
	assert_find(st, "https://github.com/microsoft/DeepSpeed/issues/7", ds7);
	assert_find(st, "https://github.com/microsoft/DeepSpeed/pull/7/files",
		    ds7);
	assert_find(st, "https://github.com/NVIDIA/Megatron-LM/issues/12#"
		    "issuecomment-1", mlm12);
	assert_find(st, "https://api.github.com/repos/microsoft/DeepSpeed/"
		    "issues/1", ds1);
	assert_find_fails(st, "https://github.com/microsoft/DeepSpeed/wiki",
			  ERR_INPUT, "not a GitHub issue or pull request URL");
	assert_find_fails(st, "https://github.com/microsoft/DeepSpeed/issues/"
			  "1e300", ERR_INPUT, "not a GitHub issue");

	/* a renamed repository: the old name is an alias */
	assert_int_equal(store_begin(st, NULL), 0);
	assert_int_equal(item_note_alias(st, "microsoft/DeepSpeed",
					 "deepspeedai/DeepSpeed", NULL), 0);
	assert_int_equal(store_commit(st, NULL), 0);
	assert_find(st, "deepspeedai/DeepSpeed#7", ds7);
	assert_find(st, "microsoft/DeepSpeed#7", ds7);
	assert_find(st, "https://github.com/microsoft/DeepSpeed/issues/1", ds1);
	/* saving under the old name updates the same item */
	assert_int_equal(save_simple(st, "microsoft/DeepSpeed", 7), ds7);
	/* and a second rename carries the first alias along */
	assert_int_equal(store_begin(st, NULL), 0);
	assert_int_equal(item_note_alias(st, "deepspeedai/DeepSpeed",
					 "deepspeedai/DS", NULL), 0);
	assert_int_equal(store_commit(st, NULL), 0);
	assert_find(st, "microsoft/DeepSpeed#7", ds7);
	assert_find(st, "deepspeedai/DS#7", ds7);
}

static void test_parse_ref(void **state)
{
	static const struct {
		const char *s;
		const char *repo;	/* NULL: refused */
		long long number;
		int kind;
	} cases[] = {
		{ "a/b#1", "a/b", 1, ITEM_REF_ANY },
		{ "https://github.com/a/b/issues/42", "a/b", 42,
		  ITEM_REF_ISSUE },
		{ "http://ghe.example/a/b.c/pull/9?x=1", "a/b.c", 9,
		  ITEM_REF_PULL },
		{ "https://api.github.com/repos/a/b/pulls/3", "a/b", 3,
		  ITEM_REF_PULL },
		{ "https://github.com/a/b/issues/2147483647", "a/b",
		  2147483647LL, ITEM_REF_ISSUE },
		{ "https://github.com/a/b/issues/2147483648", NULL, 0, 0 },
		/* a host that is neither GitHub nor the configured API */
		{ "https://example.com/a/b/issues/1", NULL, 0, 0 },
		{ "https://ghe.example.org/a/b/issues/1", NULL, 0, 0 },
		{ "a/b#99999999999999999999999999", NULL, 0, 0 },
		{ "a/b#1e300", NULL, 0, 0 },
		{ "a/b#0", NULL, 0, 0 },
		{ "a/b#-1", NULL, 0, 0 },
		{ "a/b# 1", NULL, 0, 0 },
		{ "https://github.com/a/b/issues/", NULL, 0, 0 },
		{ "https://github.com/a/b/commit/1", NULL, 0, 0 },
		{ "https://github.com/a/issues/1", NULL, 0, 0 },
		{ "https://github.com/a b/c/issues/1", NULL, 0, 0 },
		{ "#5", NULL, 0, 0 },
		{ "b#5", NULL, 0, 0 },
		{ "", NULL, 0, 0 },
	};
	size_t i, len;
	char *r;
	long long num;

	(void)state;
	/* GitHub Enterprise's API: its host names items too */
	item_set_api_host("http://ghe.example/api/v3");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *repo = (char *)1;
		long long n = 0;
		int kind = -1;
		int rc = item_parse_ref(cases[i].s, &repo, &n, &kind);

		if (!cases[i].repo) {
			if (rc != -1 || repo)
				fail_msg("%s: taken", cases[i].s);
			continue;
		}
		if (rc != 0 || !repo)
			fail_msg("%s: refused", cases[i].s);
		assert_string_equal(repo, cases[i].repo);
		assert_int_equal(n, cases[i].number);
		assert_int_equal(kind, cases[i].kind);
		free(repo);
	}
	assert_non_null(item_url_foreign_host("https://example.com/a/b/issues/1",
					      &len));
	assert_int_equal(len, strlen("example.com"));
	assert_null(item_url_foreign_host("https://GitHub.com/a/b/issues/1",
					  &len));
	assert_null(item_url_foreign_host("a/b#1", &len));
	/* without it, github.com alone */
	item_set_api_host(NULL);
	assert_int_equal(item_parse_ref("http://ghe.example/a/b.c/pull/9",
					&r, &num, NULL), -1);
	assert_null(r);
	assert_int_equal(item_parse_ref("https://www.github.com/a/b/pull/9",
					&r, &num, NULL), 0);
	free(r);
}

/*
 * A diff read lazily from a study file: a large diff (on a chain of
 * overflow pages) is read in windows through a held blob handle, and
 * holding it never stops this connection from writing after another
 * process has written (the store releases it before a write).
 */
static void test_diff_source_lazy(void **state)
{
	char dir[] = "/tmp/bugcoder-t-item-XXXXXX";
	struct store a, b;
	struct err e = ERR_INIT;
	struct item it, got;
	struct buf diff = BUF_INIT, path = BUF_INIT;
	struct diff_source src;
	struct diff d = DIFF_INIT, mem = DIFF_INIT;
	const char *p;
	size_t i;

	(void)state;
	assert_non_null(mkdtemp(dir));
	buf_addf(&path, "%s/study.db", dir);
	assert_int_equal(study_open(&a, path.ptr, STORE_CREATE, &e), 0);
	buf_addstr(&diff, "diff --git a/x.c b/x.c\n--- a/x.c\n+++ b/x.c\n");
	for (i = 0; i < 20000; i++)
		buf_addf(&diff, "@@ -%zu,1 +%zu,1 @@\n-old line %zu\n"
			 "+new line %zu\n", i + 1, i + 1, i, i);
	make_item(&it, "o/r", 1, "big");
	add_fix(&it, 2, -1, -1, -1, diff.ptr);
	assert_int_equal(store_begin(&a, &e), 0);
	assert_int_equal(item_save(&a, &it, &e), 0);
	assert_int_equal(store_commit(&a, &e), 0);

	assert_int_equal(item_load_flags(&a, it.id, &got, ITEM_LOAD_NO_DIFF,
					 &e), 0);
	assert_null(got.fixes[0].diff);
	assert_true(got.fixes[0].has_diff);
	assert_int_equal(diff_source_open(&a, &got.fixes[0], &src, &e), 0);
	assert_int_equal(src.len, diff.len);
	diff_parse_source(&d, &src);
	diff_parse(&mem, diff.ptr, diff.len);
	assert_int_equal(d.nr_lines, mem.nr_lines);
	assert_int_equal(d.nr_hunks, 20000);
	/* every line, last first (a jump to the end), reads back right */
	for (i = d.nr_lines; i-- > 0;) {
		struct diff_line l = diff_line_at(&d, i);
		struct diff_line m = diff_line_at(&mem, i);

		p = diff_source_read(&src, l.off, l.len);
		assert_non_null(p);
		assert_int_equal(l.len, m.len);
		assert_memory_equal(p, diff.ptr + m.off, m.len);
	}
	assert_null(diff_source_read(&src, diff.len, 1));

	/* another process writes; we still write, then read again */
	assert_int_equal(study_open(&b, path.ptr, 0, &e), 0);
	assert_int_equal(store_meta_set(&b, "x", "1", &e), 0);
	assert_int_equal(store_begin(&a, &e), 0);
	assert_int_equal(store_meta_set(&a, "y", "2", &e), 0);
	assert_int_equal(store_commit(&a, &e), 0);
	p = diff_source_read(&src, diff_line_at(&d, 5).off,
			     diff_line_at(&d, 5).len);
	assert_non_null(p);
	assert_memory_equal(p, diff.ptr + diff_line_at(&mem, 5).off,
			    diff_line_at(&mem, 5).len);

	diff_source_close(&src);
	assert_null(a.readers);
	diff_release(&d);
	diff_release(&mem);
	item_release(&got);
	item_release(&it);
	store_close(&b);
	store_close(&a);
	buf_reset(&diff);
	buf_addf(&diff, "rm -rf '%s'", dir);
	assert_int_equal(system(diff.ptr), 0);
	buf_release(&diff);
	buf_release(&path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_date_valid),
		cmocka_unit_test(test_parse_date_invalid),
		cmocka_unit_test(test_effort_days_and_comments),
		cmocka_unit_test(test_effort_from_pr_figures),
		cmocka_unit_test(test_effort_counted_from_diff),
		cmocka_unit_test(test_effort_several_fixes),
		cmocka_unit_test(test_effort_repeated_change_counted_once),
		cmocka_unit_test(test_effort_small_fix_boundary),
		cmocka_unit_test(test_effort_unknown_size),
		cmocka_unit_test(test_effort_huge_figures_do_not_wrap),
		cmocka_unit_test(test_name_and_repo),
		cmocka_unit_test(test_release_null_and_twice),
		cmocka_unit_test_setup_teardown(test_save_and_load, open_mem,
						close_mem),
		cmocka_unit_test_setup_teardown(test_save_without_fix,
						open_mem, close_mem),
		cmocka_unit_test_setup_teardown(test_save_is_upsert, open_mem,
						close_mem),
		cmocka_unit_test_setup_teardown(test_save_refuses_bad_item,
						open_mem, close_mem),
		cmocka_unit_test_setup_teardown(test_load_missing, open_mem,
						close_mem),
		cmocka_unit_test_setup_teardown(test_find, open_mem,
						close_mem),
		cmocka_unit_test(test_diff_source_lazy),
		cmocka_unit_test(test_parse_ref),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
