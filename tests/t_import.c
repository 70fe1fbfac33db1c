/* SPDX-License-Identifier: MIT */
/*
 * t_import: local files -> items.  JSON Lines, a single object, an array,
 * GitHub API issue objects and bundles; all or nothing per file; errors
 * that name the file, line and field; only the owner imports.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/base/buf.h"
#include "core/github/gh_map.h"
#include "core/github/github.h"
#include "core/study/import.h"
#include "core/study/item.h"
#include "core/study/member.h"
#include "core/store/store.h"

struct fixture {
	struct store st;
	struct actor owner, alice;
};

static int setup(void **state)
{
	struct fixture *f = xcalloc(1, sizeof(*f));
	struct err e = ERR_INIT;
	char *me = member_os_user();
	sqlite3_stmt *s;

	setenv("BUGCODER_NOW", "2024-06-01T00:00:00Z", 1);
	if (store_open_memory(&f->st, &e) < 0)
		return -1;
	s = store_prepare(&f->st, "INSERT INTO members (name, role, "
			  "added_at) VALUES (?, 'owner', 'x')", &e);
	sqlite3_bind_text(s, 1, me, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(s) != SQLITE_DONE)
		return -1;
	sqlite3_finalize(s);
	free(me);
	if (member_resolve(&f->st, NULL, &f->owner, &e) < 0 ||
	    member_add(&f->st, &f->owner, "alice", ROLE_ANNOTATOR, &e) < 0 ||
	    member_resolve(&f->st, "alice", &f->alice, &e) < 0)
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	actor_release(&f->owner);
	actor_release(&f->alice);
	store_close(&f->st);
	free(f);
	unsetenv("BUGCODER_NOW");
	return 0;
}

static long long q(struct store *st, const char *sql)
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

static char *qs(struct store *st, const char *sql)
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

static void assert_qs(struct store *st, const char *sql, const char *want)
{
	char *got = qs(st, sql);

	if (!want) {
		assert_null(got);
		return;
	}
	if (!got || strcmp(got, want))
		fail_msg("%s: got \"%s\", want \"%s\"", sql,
			 got ? got : "(null)", want);
	free(got);
}

static int imp(struct fixture *f, const struct actor *a, const char *text,
	       struct import_stats *stats, struct err *e)
{
	return import_text(&f->st, a, text, strlen(text), "items.jsonl", stats,
			   e);
}

/* The import fails with exactly `msg` and the study holds what it held. */
static void assert_refused(struct fixture *f, const char *text,
			   const char *msg)
{
	struct err e = ERR_INIT;
	struct import_stats stats;
	long long items = q(&f->st, "SELECT count(*) FROM items");
	long long audit = q(&f->st, "SELECT count(*) FROM audit");
	long long comments = q(&f->st, "SELECT count(*) FROM comments");

	memset(&stats, 0, sizeof(stats));
	if (imp(f, &f->owner, text, &stats, &e) != -1)
		fail_msg("accepted: %s", text);
	if (strcmp(e.msg, msg))
		fail_msg("message \"%s\", want \"%s\"", e.msg, msg);
	assert_int_equal(e.code, ERR_INPUT);
	assert_int_equal(stats.added + stats.updated, 0);
	assert_int_equal(q(&f->st, "SELECT count(*) FROM items"), items);
	assert_int_equal(q(&f->st, "SELECT count(*) FROM audit"), audit);
	assert_int_equal(q(&f->st, "SELECT count(*) FROM comments"), comments);
	assert_int_equal(f->st.depth, 0);
}

#define L(n, t) "{\"repo\": \"o/r\", \"number\": " #n ", \"title\": \"" t "\"}\n"

static void test_jsonl(void **state)
{
	struct fixture *f = *state;
	struct import_stats stats;
	struct err e = ERR_INIT;
	const char *text =
		"{\"repo\": \"microsoft/DeepSpeed\", \"number\": 4321, "
		"\"title\": \"ZeRO-3 hangs\", \"body\": \"## Bug\\nhangs\", "
		"\"state\": \"closed\", \"author\": \"rep\", "
		"\"created_at\": \"2024-01-02T00:00:00Z\", "
		"\"closed_at\": \"2024-01-09T12:00:00Z\", "
		"\"labels\": [\"bug\", \"training\"], "
		"\"url\": \"https://github.com/microsoft/DeepSpeed/issues/4321\", "
		"\"comments\": [{\"author\": \"a\", \"created_at\": "
		"\"2024-01-03T00:00:00Z\", \"body\": \"me too\"}, "
		"{\"author\": null, \"body\": \"ghost\"}], "
		"\"fixes\": [{\"number\": 4330, \"title\": \"fix\", "
		"\"merged_at\": \"2024-01-09T10:00:00Z\", \"additions\": 7, "
		"\"deletions\": 2, \"changed_files\": 1, "
		"\"diff\": \"diff --git a/x b/x\\n\"}]}\n"
		"\n"
		"{\"repo\": \"NVIDIA/Megatron-LM\", \"number\": 12, "
		"\"title\": \"no fix\"}\r\n"
		"   \n"
		L(5, "third");

	memset(&stats, 0, sizeof(stats));
	assert_int_equal(imp(f, &f->owner, text, &stats, &e), 0);
	assert_int_equal(stats.added, 3);
	assert_int_equal(stats.updated, 0);
	assert_int_equal(stats.skipped, 0);
	assert_int_equal(stats.comments, 2);
	assert_int_equal(stats.fixes, 1);
	assert_int_equal(q(&f->st, "SELECT count(*) FROM items"), 3);
	assert_qs(&f->st, "SELECT title FROM items WHERE number = 4321",
		  "ZeRO-3 hangs");
	assert_qs(&f->st, "SELECT body FROM items WHERE number = 4321",
		  "## Bug\nhangs");
	assert_qs(&f->st, "SELECT labels FROM items WHERE number = 4321",
		  "[\"bug\",\"training\"]");
	assert_qs(&f->st, "SELECT source FROM items WHERE number = 12",
		  "items.jsonl");
	assert_int_equal(q(&f->st, "SELECT lines_changed FROM items WHERE "
			   "number = 4321"), 9);
	assert_int_equal(q(&f->st, "SELECT small_fix FROM items WHERE "
			   "number = 4321"), 1);
	assert_int_equal(q(&f->st, "SELECT days_open * 10 FROM items WHERE "
			   "number = 4321"), 75);
	assert_int_equal(q(&f->st, "SELECT comment_count FROM items WHERE "
			   "number = 4321"), 2);
	assert_int_equal(q(&f->st, "SELECT count(*) FROM comments WHERE "
			   "author IS NULL AND body = 'ghost'"), 1);
	assert_int_equal(q(&f->st, "SELECT has_fix FROM items WHERE "
			   "number = 12"), 0);
	/* one audit entry for the file */
	assert_int_equal(q(&f->st, "SELECT count(*) FROM audit WHERE "
			   "action = 'import'"), 1);
	assert_qs(&f->st, "SELECT new FROM audit WHERE action = 'import'",
		  "3 added, 0 updated");
	assert_qs(&f->st, "SELECT old FROM audit WHERE action = 'import'",
		  "items.jsonl");
}

static void test_single_object_and_array(void **state)
{
	struct fixture *f = *state;
	struct import_stats stats;
	struct err e = ERR_INIT;

	memset(&stats, 0, sizeof(stats));
	/* a pretty-printed single object */
	assert_int_equal(imp(f, &f->owner, "{\n  \"repo\": \"o/r\",\n"
			     "  \"number\": 1,\n  \"title\": \"one\"\n}\n",
			     &stats, &e), 0);
	assert_int_equal(stats.added, 1);
	/* an array, pretty-printed too */
	assert_int_equal(imp(f, &f->owner, "[\n {\"repo\": \"o/r\", "
			     "\"number\": 2, \"title\": \"two\"},\n"
			     " {\"repo\": \"o/r\", \"number\": 3, "
			     "\"title\": \"three\"}\n]", &stats, &e), 0);
	assert_int_equal(stats.added, 3);	/* stats accumulate */
	/* a field error in a value spread over lines has no one line */
	assert_refused(f, "{\n  \"repo\": \"o/r\",\n  \"number\": 9\n}\n",
		       "items.jsonl: title: missing (required)");
	/* a one-line value names its line, even after blank lines */
	assert_refused(f, "\n\n{\"repo\": \"o/r\", \"number\": 9}\n",
		       "items.jsonl:3: title: missing (required)");
	assert_int_equal(q(&f->st, "SELECT count(*) FROM items"), 3);
	assert_qs(&f->st, "SELECT title FROM items WHERE number = 3",
		  "three");
}

static void test_reimport_keeps_ids(void **state)
{
	struct fixture *f = *state;
	struct import_stats stats;
	struct err e = ERR_INIT;
	long long id1, id2;

	memset(&stats, 0, sizeof(stats));
	assert_int_equal(imp(f, &f->owner, L(1, "a") L(2, "b"), &stats, &e),
			 0);
	id1 = q(&f->st, "SELECT id FROM items WHERE number = 1");
	id2 = q(&f->st, "SELECT id FROM items WHERE number = 2");
	assert_int_equal(store_exec(&f->st, "INSERT INTO labels (item_id, "
				    "member_id, dimension, code, "
				    "codebook_version, labeled_at) SELECT id, "
				    "2, 'symptom', 'crash', '1.0', 'x' FROM "
				    "items", &e), 0);

	memset(&stats, 0, sizeof(stats));
	assert_int_equal(imp(f, &f->owner, L(2, "b2") L(1, "a2") L(3, "c"),
			     &stats, &e), 0);
	assert_int_equal(stats.added, 1);
	assert_int_equal(stats.updated, 2);
	assert_int_equal(q(&f->st, "SELECT count(*) FROM items"), 3);
	assert_int_equal(q(&f->st, "SELECT id FROM items WHERE number = 1"),
			 id1);
	assert_int_equal(q(&f->st, "SELECT id FROM items WHERE number = 2"),
			 id2);
	assert_qs(&f->st, "SELECT title FROM items WHERE number = 1", "a2");
	assert_int_equal(q(&f->st, "SELECT count(*) FROM labels"), 2);
	assert_qs(&f->st, "SELECT new FROM audit WHERE action = 'import' "
		  "ORDER BY id DESC LIMIT 1", "1 added, 2 updated");
}

static void test_bad_field_line_7(void **state)
{
	struct fixture *f = *state;
	struct err e = ERR_INIT;

	/* something already in the study must survive a failed import */
	assert_int_equal(imp(f, &f->owner, L(100, "kept"), NULL, &e), 0);
	assert_refused(f,
		L(1, "a") L(2, "b") L(3, "c") L(4, "d") L(5, "e") L(6, "f")
		"{\"repo\": \"o/r\", \"number\": 7, \"title\": \"g\", "
		"\"fixes\": [{\"additions\": -3}]}\n"
		L(8, "h"),
		"items.jsonl:7: fixes[0].additions: expected a whole number "
		">= 0");
	assert_qs(&f->st, "SELECT title FROM items", "kept");
	assert_int_equal(q(&f->st, "SELECT count(*) FROM items"), 1);
}

static void test_malformed_json(void **state)
{
	struct fixture *f = *state;

	/* line 3, column 16: the second key where a comma belonged */
	assert_refused(f, L(1, "a") L(2, "b")
		       "{\"repo\": \"o/r\" \"number\": 3}\n" L(4, "d"),
		       "items.jsonl:3:16: invalid JSON");
	/* on the first line, and after blank lines (they count) */
	assert_refused(f, "{\"repo\": tru}\n", "items.jsonl:1:10: invalid JSON");
	assert_refused(f, L(1, "a") "\n\n  {\"repo\": x}\n",
		       "items.jsonl:4:12: invalid JSON");
	/* a pretty-printed file broken on its fourth line */
	assert_refused(f, "{\n  \"repo\": \"o/r\",\n  \"number\": 1,\n"
		       "  \"title\": \"x\",,\n}\n",
		       "items.jsonl:4:17: invalid JSON");
	/* junk after a value on a line */
	assert_refused(f, L(1, "a") "{\"repo\": \"o/r\"} junk\n",
		       "items.jsonl:2:17: invalid JSON");
	/* truncated */
	assert_refused(f, L(1, "a") "{\"repo\": \"o/r\", \"number\": 2, ",
		       "items.jsonl:2:29: invalid JSON");
}

static void test_missing_and_wrong_types(void **state)
{
	struct fixture *f = *state;

	assert_refused(f, "{\"number\": 1, \"title\": \"t\"}",
		       "items.jsonl:1: repo: missing (required)");
	assert_refused(f, L(1, "ok") "{\"repo\": \"o/r\", \"title\": \"t\"}\n",
		       "items.jsonl:2: number: missing (required)");
	assert_refused(f, "{\"repo\": \"o/r\", \"number\": 1}\n",
		       "items.jsonl:1: title: missing (required)");
	assert_refused(f, "{\"repo\": \"o/r\", \"number\": 1, \"title\": null}",
		       "items.jsonl:1: title: missing (required)");
	assert_refused(f, "{\"repo\": \"o/r\", \"number\": 1, \"title\": \"\"}",
		       "items.jsonl:1: title: must not be empty");
	assert_refused(f, "{\"repo\": \"o/r\", \"number\": \"1\", \"title\": "
		       "\"t\"}", "items.jsonl:1: number: expected a whole "
		       "number >= 0");
	assert_refused(f, "{\"repo\": \"o/r\", \"number\": 1.5, \"title\": "
		       "\"t\"}", "items.jsonl:1: number: expected a whole "
		       "number >= 0");
	assert_refused(f, "{\"repo\": \"o/r\", \"number\": 0, \"title\": "
		       "\"t\"}", "items.jsonl:1: number: must be positive");
	assert_refused(f, "{\"repo\": \"o/r\", \"number\": 1, \"title\": 5}",
		       "items.jsonl:1: title: expected a string");
	assert_refused(f, "{\"repo\": 5, \"number\": 1, \"title\": \"t\"}",
		       "items.jsonl:1: repo: expected a string");
	assert_refused(f, "{\"repo\": \"DeepSpeed\", \"number\": 1, "
		       "\"title\": \"t\"}", "items.jsonl:1: repo: \"DeepSpeed\" "
		       "is not owner/name");
	assert_refused(f, "{\"repo\": \"o/r\", \"number\": 1, \"title\": "
		       "\"t\", \"labels\": \"bug\"}",
		       "items.jsonl:1: labels: expected an array");
	assert_refused(f, "{\"repo\": \"o/r\", \"number\": 1, \"title\": "
		       "\"t\", \"labels\": [\"bug\", 3]}",
		       "items.jsonl:1: labels[1]: expected a string");
	assert_refused(f, "{\"repo\": \"o/r\", \"number\": 1, \"title\": "
		       "\"t\", \"comments\": {}}",
		       "items.jsonl:1: comments: expected an array");
	assert_refused(f, "{\"repo\": \"o/r\", \"number\": 1, \"title\": "
		       "\"t\", \"comments\": [{\"body\": \"x\"}, 7]}",
		       "items.jsonl:1: comments[1]: expected an object");
	assert_refused(f, "{\"repo\": \"o/r\", \"number\": 1, \"title\": "
		       "\"t\", \"comments\": [{\"body\": 1}]}",
		       "items.jsonl:1: comments[0].body: expected a string");
	assert_refused(f, "{\"repo\": \"o/r\", \"number\": 1, \"title\": "
		       "\"t\", \"comments\": [{\"author\": 1}]}",
		       "items.jsonl:1: comments[0].author: expected a user name");
	assert_refused(f, "{\"repo\": \"o/r\", \"number\": 1, \"title\": "
		       "\"t\", \"fixes\": \"#4\"}",
		       "items.jsonl:1: fixes: expected an array");
	assert_refused(f, "{\"repo\": \"o/r\", \"number\": 1, \"title\": "
		       "\"t\", \"fixes\": [{}, \"x\"]}",
		       "items.jsonl:1: fixes[1]: expected an object");
	assert_refused(f, "{\"repo\": \"o/r\", \"number\": 1, \"title\": "
		       "\"t\", \"fixes\": [{\"diff\": 3}]}",
		       "items.jsonl:1: fixes[0].diff: expected a string");
	assert_refused(f, "{\"repo\": \"o/r\", \"number\": 1, \"title\": "
		       "\"t\", \"fixes\": [{\"changed_files\": 3000000000}]}",
		       "items.jsonl:1: fixes[0].changed_files: too large");
	assert_refused(f, "42", "items.jsonl:1: expected an item object");
	assert_refused(f, L(1, "a") "[{\"repo\": \"o/r\", \"number\": 2, "
		       "\"title\": \"b\"}]\n",
		       "items.jsonl:2: expected one item object per line");
	assert_refused(f, "[{\"repo\": \"o/r\", \"number\": 1, \"title\": "
		       "\"t\"}, {\"repo\": \"o/r\", \"title\": \"t\"}]",
		       "items.jsonl:1: [1]: number: missing (required)");
}

/* A \u0000 would cut the text where cJSON ends the string: refused, with
 * the line, column and field; a number past any integer is refused, not
 * converted (that would be undefined). */
static void test_nul_escape_and_huge_numbers(void **state)
{
	struct fixture *f = *state;

	assert_refused(f, "{\"repo\": \"o/r\", \"number\": 1, \"title\": "
		       "\"a\\u0000b\"}",
		       "items.jsonl:1:41: title: a NUL character (\\u0000) in "
		       "the text");
	assert_refused(f, L(1, "a") "{\"repo\": \"o/r\", \"number\": 2, "
		       "\"title\": \"t\", \"comments\": [{\"body\": \"x\"}, "
		       "{\"author\": \"z\", \"body\": \"ok\\u0000 no\"}]}\n",
		       "items.jsonl:2:99: comments[1].body: a NUL character "
		       "(\\u0000) in the text");
	assert_refused(f, "[{\"repo\": \"o/r\", \"number\": 2, \"title\": "
		       "\"t\", \"fixes\": [{\"diff\": \"+\\u0000\"}]}]",
		       "items.jsonl:1:66: [0].fixes[0].diff: a NUL character "
		       "(\\u0000) in the text");
	/* an escaped backslash before u0000 is text, not a NUL */
	{
		struct err e = ERR_INIT;

		assert_int_equal(imp(f, &f->owner, "{\"repo\": \"o/r\", "
				     "\"number\": 3, \"title\": "
				     "\"C:\\\\u0000\"}", NULL, &e), 0);
	}
	assert_refused(f, "{\"repo\": \"o/r\", \"number\": 1e300, "
		       "\"title\": \"t\"}",
		       "items.jsonl:1: number: expected a whole number >= 0");
	assert_refused(f, "{\"repo\": \"o/r\", \"number\": -1e300, "
		       "\"title\": \"t\"}",
		       "items.jsonl:1: number: expected a whole number >= 0");
	assert_refused(f, "{\"repo\": \"o/r\", \"number\": 1, \"title\": "
		       "\"t\", \"fixes\": [{\"additions\": 1e300}]}",
		       "items.jsonl:1: fixes[0].additions: expected a whole "
		       "number >= 0");
}

static void test_bad_dates(void **state)
{
	struct fixture *f = *state;

	assert_refused(f, "{\"repo\": \"o/r\", \"number\": 1, \"title\": "
		       "\"t\", \"created_at\": \"last tuesday\"}",
		       "items.jsonl:1: created_at: not an ISO 8601 date: "
		       "\"last tuesday\"");
	assert_refused(f, L(1, "a") "{\"repo\": \"o/r\", \"number\": 2, "
		       "\"title\": \"t\", \"closed_at\": \"2024-02-30\"}\n",
		       "items.jsonl:2: closed_at: not an ISO 8601 date: "
		       "\"2024-02-30\"");
	assert_refused(f, "{\"repo\": \"o/r\", \"number\": 1, \"title\": "
		       "\"t\", \"closed_at\": 1704153600}",
		       "items.jsonl:1: closed_at: expected a string");
	assert_refused(f, "{\"repo\": \"o/r\", \"number\": 1, \"title\": "
		       "\"t\", \"comments\": [{\"created_at\": \"2024-13-01\"}]}",
		       "items.jsonl:1: comments[0].created_at: not an ISO 8601 "
		       "date: \"2024-13-01\"");
	assert_refused(f, "{\"repo\": \"o/r\", \"number\": 1, \"title\": "
		       "\"t\", \"fixes\": [{\"merged_at\": \"soon\"}]}",
		       "items.jsonl:1: fixes[0].merged_at: not an ISO 8601 "
		       "date: \"soon\"");
}

static void test_empty_and_nul(void **state)
{
	struct fixture *f = *state;
	struct err e = ERR_INIT;

	assert_refused(f, "", "items.jsonl: empty file, no items");
	assert_refused(f, " \n\r\n\t\n", "items.jsonl: empty file, no items");
	assert_int_equal(import_text(&f->st, &f->owner, L(1, "a") "\0" L(2, "b"),
				     sizeof(L(1, "a") "\0" L(2, "b")) - 1,
				     "nul.jsonl", NULL, &e), -1);
	assert_string_equal(e.msg, "nul.jsonl: a NUL byte in the file; not "
			    "JSON text");
	assert_int_equal(q(&f->st, "SELECT count(*) FROM items"), 0);
}

static void test_non_owner_refused(void **state)
{
	struct fixture *f = *state;
	struct err e = ERR_INIT;

	assert_int_equal(imp(f, &f->alice, L(1, "a"), NULL, &e), -1);
	assert_int_equal(e.code, ERR_PERM);
	assert_string_equal(e.msg, "import: not allowed for alice "
			    "(annotator)");
	assert_int_equal(q(&f->st, "SELECT count(*) FROM items"), 0);
}

static void test_duplicate_in_one_file(void **state)
{
	struct fixture *f = *state;
	struct err e = ERR_INIT;

	assert_int_equal(imp(f, &f->owner, L(1, "first") L(1, "second"),
			     NULL, &e), 0);
	assert_int_equal(q(&f->st, "SELECT count(*) FROM items"), 1);
	assert_qs(&f->st, "SELECT title FROM items", "second");
}

/* ---- GitHub API JSON ---------------------------------------------------- */

#define GH_ISSUE(n, extra) \
	"{\"url\": \"https://api.github.com/repos/octo/Hello/issues/" #n "\"," \
	" \"repository_url\": \"https://api.github.com/repos/octo/Hello\"," \
	" \"html_url\": \"https://github.com/octo/Hello/issues/" #n "\"," \
	" \"number\": " #n ", \"state\": \"closed\", \"title\": \"Issue " #n "\"," \
	" \"body\": \"It broke.\", \"user\": {\"login\": \"octocat\", \"id\": 1}," \
	" \"labels\": [{\"id\": 2, \"name\": \"bug\"}, {\"name\": \"p1\"}]," \
	" \"comments\": 4, \"created_at\": \"2011-04-22T13:33:48Z\"," \
	" \"closed_at\": \"2011-04-24T13:33:48Z\"" extra "}"

static void test_github_issue_list(void **state)
{
	struct fixture *f = *state;
	struct import_stats stats;
	struct err e = ERR_INIT;

	memset(&stats, 0, sizeof(stats));
	assert_int_equal(imp(f, &f->owner, "[" GH_ISSUE(1, "") ", "
			     GH_ISSUE(2, ", \"pull_request\": {\"url\": \"x\"}")
			     ", {\"repository_url\": "
			     "\"https://api.github.com/repos/octo/Hello\", "
			     "\"number\": 3, \"title\": \"ghost's\", "
			     "\"user\": null, \"state_reason\": "
			     "\"completed\"}]",
			     &stats, &e), 0);
	assert_int_equal(stats.added, 2);
	assert_int_equal(stats.skipped, 1);	/* the pull request */
	assert_int_equal(q(&f->st, "SELECT count(*) FROM items"), 2);
	assert_int_equal(q(&f->st, "SELECT count(*) FROM items WHERE "
			   "number = 2"), 0);
	assert_qs(&f->st, "SELECT repo FROM items WHERE number = 1",
		  "octo/Hello");
	assert_qs(&f->st, "SELECT author FROM items WHERE number = 1",
		  "octocat");
	assert_qs(&f->st, "SELECT author FROM items WHERE number = 3", NULL);
	assert_qs(&f->st, "SELECT state_reason FROM items WHERE number = 3",
		  "completed");
	assert_qs(&f->st, "SELECT labels FROM items WHERE number = 1",
		  "[\"bug\",\"p1\"]");
	assert_qs(&f->st, "SELECT url FROM items WHERE number = 1",
		  "https://github.com/octo/Hello/issues/1");
	/* the list gives a comment count without the comments */
	assert_int_equal(q(&f->st, "SELECT comment_count FROM items WHERE "
			   "number = 1"), 4);
	assert_int_equal(q(&f->st, "SELECT days_open FROM items WHERE "
			   "number = 1"), 2);
	assert_int_equal(q(&f->st, "SELECT count(*) FROM comments"), 0);
}

static void test_github_only_pulls(void **state)
{
	struct fixture *f = *state;
	struct import_stats stats;
	struct err e = ERR_INIT;

	/* a list holding only pull requests imports nothing, and says so */
	memset(&stats, 0, sizeof(stats));
	assert_int_equal(imp(f, &f->owner, GH_ISSUE(9, ", \"pull_request\": "
			     "{}"), &stats, &e), 0);
	assert_int_equal(stats.added, 0);
	assert_int_equal(stats.skipped, 1);
	assert_int_equal(q(&f->st, "SELECT count(*) FROM items"), 0);
}

static void test_github_bundle(void **state)
{
	struct fixture *f = *state;
	struct import_stats stats;
	struct err e = ERR_INIT;
	const char *text =
		"{\"issue\": " GH_ISSUE(7, "") ",\n"
		" \"comments\": [{\"user\": {\"login\": \"helper\"}, "
		"\"created_at\": \"2011-04-23T00:00:00Z\", \"body\": \"Me too\"},"
		" {\"user\": null, \"created_at\": \"2011-04-23T01:00:00Z\", "
		"\"body\": \"deleted account\"}],\n"
		" \"pull_requests\": [{\"number\": 8, \"title\": \"Fix it\", "
		"\"html_url\": \"https://github.com/octo/Hello/pull/8\", "
		"\"merged_at\": \"2011-04-24T12:00:00Z\", \"additions\": 100, "
		"\"deletions\": 3, \"changed_files\": 5, \"body\": null, "
		"\"user\": {\"login\": \"dev\"}, \"comments\": [{\"user\": "
		"{\"login\": \"reviewer\"}, \"created_at\": "
		"\"2011-04-24T10:00:00Z\", \"body\": \"Root cause: x\"}], "
		"\"diff\": \"diff --git a/a b/a\\n--- a/a\\n+++ b/a\\n"
		"@@ -1 +1 @@\\n-x\\n+y\\n\"}]}\n";

	memset(&stats, 0, sizeof(stats));
	assert_int_equal(imp(f, &f->owner, text, &stats, &e), 0);
	assert_int_equal(stats.added, 1);
	assert_int_equal(stats.comments, 2);
	assert_int_equal(stats.fixes, 1);
	assert_qs(&f->st, "SELECT repo || '#' || number FROM items",
		  "octo/Hello#7");
	/* comment bodies were given: there are 2, not the list's 4 */
	assert_int_equal(q(&f->st, "SELECT comment_count FROM items"), 4);
	assert_qs(&f->st, "SELECT author FROM comments WHERE position = 0",
		  "helper");
	assert_qs(&f->st, "SELECT author FROM comments WHERE position = 1",
		  NULL);
	assert_qs(&f->st, "SELECT url FROM fixes",
		  "https://github.com/octo/Hello/pull/8");
	assert_int_equal(q(&f->st, "SELECT number FROM fixes"), 8);
	/* the PR's figures are used, not the diff's */
	assert_int_equal(q(&f->st, "SELECT lines_changed FROM items"), 103);
	assert_int_equal(q(&f->st, "SELECT changed_files FROM items"), 5);
	assert_int_equal(q(&f->st, "SELECT small_fix FROM items"), 0);
	assert_int_equal(q(&f->st, "SELECT length(diff) > 0 FROM fixes"), 1);
	/* the pull request's conversation, when the bundle gives it */
	assert_qs(&f->st, "SELECT author || ': ' || body FROM fix_comments "
		  "WHERE fix = 0 AND position = 0", "reviewer: Root cause: x");
}

/* A fix of JSON Lines may carry its pull request's comments; the
 * GitHub object's count there is no list. */
static void test_fix_comments(void **state)
{
	struct fixture *f = *state;
	struct import_stats stats;
	struct err e = ERR_INIT;
	struct item it;
	long long id;

	memset(&stats, 0, sizeof(stats));
	assert_int_equal(imp(f, &f->owner, "{\"repo\": \"o/r\", \"number\": "
			     "1, \"title\": \"t\", \"fixes\": [{\"number\": 2, "
			     "\"comments\": [{\"author\": \"a\", \"body\": "
			     "\"one\"}, {\"author\": null, \"body\": \"two\"}]}, "
			     "{\"number\": 3}]}\n", &stats, &e), 0);
	id = q(&f->st, "SELECT id FROM items");
	assert_int_equal(item_load(&f->st, id, &it, &e), 0);
	assert_int_equal(it.nr_fixes, 2);
	assert_int_equal(it.fixes[0].nr_comments, 2);
	assert_string_equal(it.fixes[0].comments[0].author, "a");
	assert_string_equal(it.fixes[0].comments[1].body, "two");
	assert_null(it.fixes[0].comments[1].author);
	assert_int_equal(it.fixes[1].nr_comments, 0);
	item_release(&it);
	assert_refused(f, "{\"repo\": \"o/r\", \"number\": 1, \"title\": "
		       "\"t\", \"fixes\": [{\"comments\": 4}]}",
		       "items.jsonl:1: fixes[0].comments: expected an array");
}

static void test_github_errors(void **state)
{
	struct fixture *f = *state;

	assert_refused(f, "[" GH_ISSUE(1, "") ", {\"repository_url\": "
		       "\"https://api.github.com/repos/octo/Hello\", "
		       "\"number\": 2}]",
		       "items.jsonl:1: [1]: title: missing (required)");
	assert_refused(f, "{\"html_url\": \"nowhere\", \"number\": 2, "
		       "\"title\": \"t\"}",
		       "items.jsonl:1: repository_url: cannot tell the "
		       "repository");
	assert_refused(f, "{\"issue\": " GH_ISSUE(1, "") ", \"comments\": "
		       "[{\"user\": 5}]}",
		       "items.jsonl:1: comments[0].user: expected a user name");
	assert_refused(f, "{\"issue\": " GH_ISSUE(1, "") ", "
		       "\"pull_requests\": {}}",
		       "items.jsonl:1: pull_requests: expected an array");
	assert_refused(f, "{\"issue\": " GH_ISSUE(1, "") ", "
		       "\"pull_requests\": [{\"additions\": \"many\"}]}",
		       "items.jsonl:1: pull_requests[0].additions: expected a "
		       "whole number >= 0");
	assert_refused(f, "{\"repository_url\": "
		       "\"https://api.github.com/repos/octo/Hello\", "
		       "\"number\": 3, \"title\": \"t\", \"closed_at\": "
		       "\"2011-04-22T25:00:00Z\"}",
		       "items.jsonl:1: closed_at: not an ISO 8601 date: "
		       "\"2011-04-22T25:00:00Z\"");
	assert_refused(f, "{\"repository_url\": "
		       "\"https://api.github.com/repos/octo/Hello\", "
		       "\"number\": \"3\", \"title\": \"t\"}",
		       "items.jsonl:1: number: expected a whole number >= 0");
	/* issue numbers start at 1, as in our own format */
	assert_refused(f, "{\"repository_url\": "
		       "\"https://api.github.com/repos/octo/Hello\", "
		       "\"number\": 0, \"title\": \"t\"}",
		       "items.jsonl:1: number: must be positive");
}

static void test_github_repo_from_html_url(void **state)
{
	struct fixture *f = *state;
	struct err e = ERR_INIT;

	/* no repository_url: the repository comes from html_url */
	assert_int_equal(imp(f, &f->owner, "{\"html_url\": "
			     "\"https://github.com/octo/World/issues/3\", "
			     "\"number\": 3, \"title\": \"t\"}", NULL, &e), 0);
	assert_qs(&f->st, "SELECT repo FROM items", "octo/World");
}

static void test_import_file(void **state)
{
	struct fixture *f = *state;
	struct err e = ERR_INIT;
	struct import_stats stats;
	char dir[] = "/tmp/t_import.XXXXXX", path[64], cmd[96];
	FILE *fp;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/missing.jsonl", dir);
	assert_int_equal(import_file(&f->st, &f->owner, path, NULL, &e), -1);
	assert_int_equal(e.code, ERR_IO);
	assert_non_null(strstr(e.msg, path));
	assert_non_null(strstr(e.msg, "No such file or directory"));

	/* a directory is not readable as a file */
	err_clear(&e);
	assert_int_equal(import_file(&f->st, &f->owner, dir, NULL, &e), -1);
	assert_int_equal(e.code, ERR_IO);
	assert_non_null(strstr(e.msg, "Is a directory"));

	snprintf(path, sizeof(path), "%s/ok.jsonl", dir);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(L(1, "a") L(2, "b"), fp);
	fclose(fp);
	memset(&stats, 0, sizeof(stats));
	assert_int_equal(import_file(&f->st, &f->owner, path, &stats, &e), 0);
	assert_int_equal(stats.added, 2);
	{
		char *src = qs(&f->st, "SELECT DISTINCT source FROM items");

		assert_string_equal(src, path);
		free(src);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

static void test_item_object_direct(void **state)
{
	cJSON *obj = cJSON_Parse("{\"repo\": \"o/r\", \"number\": 3, "
				 "\"title\": \"t\", \"author\": {\"login\": "
				 "\"x\"}, \"fixes\": [{\"number\": 4, "
				 "\"diff_partial\": true, \"url\": \"u\"}]}");
	struct item it;
	struct err e = ERR_INIT;

	(void)state;
	assert_non_null(obj);
	assert_int_equal(import_item_object(obj, &it, "here", &e), 0);
	assert_string_equal(it.repo, "o/r");
	assert_int_equal(it.number, 3);
	assert_string_equal(it.author, "x");
	assert_int_equal(it.nr_fixes, 1);
	assert_int_equal(it.fixes[0].number, 4);
	assert_int_equal(it.fixes[0].diff_partial, 1);
	assert_string_equal(it.fixes[0].url, "u");
	assert_int_equal(it.fixes[0].additions, -1);
	item_release(&it);
	cJSON_Delete(obj);

	obj = cJSON_Parse("[1]");
	assert_int_equal(import_item_object(obj, &it, "here", &e), -1);
	assert_string_equal(e.msg, "here: expected an item object");
	item_release(&it);
	cJSON_Delete(obj);

	obj = cJSON_Parse(GH_ISSUE(5, ", \"pull_request\": {}"));
	assert_int_equal(import_github_issue(obj, NULL, NULL, &it, "there",
					     &e), 1);
	item_release(&it);
	cJSON_Delete(obj);
}

static void test_github_comment_count_out_of_range(void **state)
{
	/* "comments" beyond an int: converting it was undefined (and came
	 * out as a negative count); it is ignored, the comments given count */
	static const char *const counts[] = { "3e9", "1e300", "-5" };
	struct item it;
	struct err e = ERR_INIT;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		struct buf b = BUF_INIT;
		cJSON *obj;

		buf_addf(&b, "{\"repository_url\": \"https://api.github.com/"
			 "repos/o/r\", \"number\": 7, \"title\": \"t\", "
			 "\"comments\": %s}", counts[i]);
		obj = cJSON_Parse(b.ptr);
		assert_non_null(obj);
		assert_int_equal(import_github_issue(obj, NULL, NULL, &it,
						     "here", &e), 0);
		assert_int_equal(it.comment_count, 0);
		item_release(&it);
		assert_int_equal(gh_item_from_issue(&it, "o/r", obj, &e), 0);
		assert_int_equal(it.comment_count, 0);
		item_release(&it);
		cJSON_Delete(obj);
		buf_release(&b);
	}
}

int main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_jsonl),
		T(test_single_object_and_array),
		T(test_reimport_keeps_ids),
		T(test_bad_field_line_7),
		T(test_malformed_json),
		T(test_missing_and_wrong_types),
		T(test_bad_dates),
		T(test_nul_escape_and_huge_numbers),
		T(test_empty_and_nul),
		T(test_non_owner_refused),
		T(test_duplicate_in_one_file),
		T(test_github_issue_list),
		T(test_github_only_pulls),
		T(test_github_bundle),
		T(test_fix_comments),
		T(test_github_errors),
		T(test_github_repo_from_html_url),
		T(test_import_file),
		cmocka_unit_test(test_item_object_direct),
		cmocka_unit_test(test_github_comment_count_out_of_range),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
