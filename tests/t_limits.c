/* SPDX-License-Identifier: MIT */
/*
 * t_limits: free texts are at most 64 KiB (core/base/limits), checked where
 * they are stored, so that every way in meets the check: a memo, a
 * proposal's name and definition, a settle note, a dialog's draft and a
 * machine coder's rationale.  A refused text changes nothing; 64 KiB is
 * taken.  (tests/test_hardening.py drives the commands and screens.)
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "core/study/adjudicate.h"
#include "core/base/buf.h"
#include "core/study/codebook.h"
#include "core/study/draft.h"
#include "core/study/label.h"
#include "core/base/limits.h"
#include "core/study/machine.h"
#include "core/study/member.h"
#include "core/store/store.h"

#define CODEBOOK "codebooks/llm-framework-bugs.json"

struct fixture {
	struct store st;
	struct codebook cb;
	struct actor owner, alice;
	long long item;
	char *big, *max;	/* LIMIT_TEXT_MAX + 1 and LIMIT_TEXT_MAX */
};

static long long q(struct store *st, const char *sql)
{
	struct err e = ERR_INIT;
	sqlite3_stmt *s = store_prepare(st, sql, &e);
	long long v;

	if (!s)
		fail_msg("%s: %s", sql, e.msg);
	assert_int_equal(sqlite3_step(s), SQLITE_ROW);
	v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return v;
}

static int setup(void **state)
{
	struct fixture *f = xcalloc(1, sizeof(*f));
	struct err e = ERR_INIT;
	sqlite3_stmt *s;
	char *me = member_os_user();

	setenv("BUGCODER_NOW", "2024-06-01T00:00:00Z", 1);
	if (store_open_memory(&f->st, &e) < 0 ||
	    codebook_load_file(&f->cb, CODEBOOK, &e) < 0)
		goto fail;
	s = store_prepare(&f->st, "INSERT INTO members (name, role, "
			  "added_at) VALUES (?, 'owner', 'x')", &e);
	if (!s)
		goto fail;
	sqlite3_bind_text(s, 1, me, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(s) != SQLITE_DONE)
		goto fail;
	sqlite3_finalize(s);
	if (store_exec(&f->st, "INSERT INTO items (repo, number, title, "
		       "imported_at) VALUES ('o/r', 1, 't', 'x')", &e) < 0 ||
	    member_resolve(&f->st, NULL, &f->owner, &e) < 0 ||
	    member_add(&f->st, &f->owner, "alice", ROLE_ANNOTATOR, &e) < 0 ||
	    member_resolve(&f->st, "alice", &f->alice, &e) < 0)
		goto fail;
	f->item = q(&f->st, "SELECT id FROM items");
	f->big = xcalloc(LIMIT_TEXT_MAX + 2, 1);
	memset(f->big, 'x', LIMIT_TEXT_MAX + 1);
	f->max = xstrndup(f->big, LIMIT_TEXT_MAX);
	free(me);
	*state = f;
	return 0;
fail:
	print_error("setup: %s\n", e.msg);
	free(me);
	return -1;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	actor_release(&f->owner);
	actor_release(&f->alice);
	codebook_release(&f->cb);
	store_close(&f->st);
	free(f->big);
	free(f->max);
	free(f);
	return 0;
}

/* `e` says `what` is one byte over the limit. */
static void over(const struct err *e, const char *what)
{
	struct buf want = BUF_INIT;

	buf_addf(&want, "%s is %d bytes, more than the limit of 64 KiB "
		 "(65536 bytes): shorten it; nothing was saved", what,
		 LIMIT_TEXT_MAX + 1);
	assert_int_equal(e->code, ERR_INPUT);
	assert_string_equal(e->msg, want.ptr);
	buf_release(&want);
}

static void test_limit_text(void **state)
{
	struct fixture *f = *state;
	struct err e = ERR_INIT;

	assert_int_equal(limit_text("x", NULL, &e), 0);
	assert_int_equal(limit_text("x", "", &e), 0);
	assert_int_equal(limit_text("x", f->max, &e), 0);
	assert_int_equal(limit_text("the memo", f->big, &e), -1);
	over(&e, "the memo");
}

static void test_memo_and_proposal(void **state)
{
	struct fixture *f = *state;
	struct err e = ERR_INIT;

	assert_int_equal(label_memo(&f->st, &f->alice, f->item, f->big, &e),
			 -1);
	over(&e, "the memo");
	assert_int_equal(q(&f->st, "SELECT count(*) FROM memos"), 0);
	assert_int_equal(label_memo(&f->st, &f->alice, f->item, f->max, &e),
			 0);
	assert_int_equal(q(&f->st, "SELECT length(text) FROM memos"),
			 LIMIT_TEXT_MAX);
	assert_int_equal(label_propose(&f->st, &f->alice, &f->cb, f->item,
				       "root_cause", "k1", f->big, "d", NULL,
				       &e), -1);
	over(&e, "the proposal's name");
	assert_int_equal(label_propose(&f->st, &f->alice, &f->cb, f->item,
				       "root_cause", "k1", "n", f->big, NULL,
				       &e), -1);
	over(&e, "the proposal's definition");
	assert_int_equal(q(&f->st, "SELECT count(*) FROM proposals"), 0);
	assert_int_equal(label_propose(&f->st, &f->alice, &f->cb, f->item,
				       "root_cause", "k1", f->max, f->max,
				       NULL, &e), 0);
}

static void test_settle_note_and_draft(void **state)
{
	struct fixture *f = *state;
	struct err e = ERR_INIT;
	struct draft_field fields[2] = { { "rationale", "short" },
					 { "cause", NULL } };

	assert_int_equal(adjudicate_settle(&f->st, &f->owner, f->item, f->big,
					   &e), -1);
	over(&e, "the settle note");
	assert_int_equal(q(&f->st, "SELECT count(*) FROM settled"), 0);
	fields[1].text = f->big;
	assert_int_equal(draft_save(&f->st, &f->owner, f->item,
				    DRAFT_RATIONALE, "symptom", fields, 2, &e),
			 -1);
	over(&e, "the draft");
	assert_int_equal(q(&f->st, "SELECT count(*) FROM drafts"), 0);
	fields[1].text = f->max;
	assert_int_equal(draft_save(&f->st, &f->owner, f->item,
				    DRAFT_RATIONALE, "symptom", fields, 2, &e),
			 0);
	assert_int_equal(q(&f->st, "SELECT count(*) FROM drafts"), 2);
}

static void test_machine_rationale(void **state)
{
	struct fixture *f = *state;
	struct machine_answer ans;
	struct err e = ERR_INIT;
	struct buf doc = BUF_INIT;

	buf_addf(&doc, "{\"labels\": {\"symptom\": \"hang\", \"root_cause\": "
		 "\"api_misuse\", \"fix_pattern\": [\"conditional_logic\"], "
		 "\"phase\": \"training\"}, \"rationale\": \"%s\"}", f->big);
	assert_int_equal(machine_parse(&f->cb, doc.ptr, doc.len, &ans, &e),
			 -1);
	over(&e, "the answer's rationale");
	assert_null(ans.dims);
	buf_reset(&doc);
	buf_addf(&doc, "{\"labels\": {\"symptom\": \"hang\", \"root_cause\": "
		 "\"api_misuse\", \"fix_pattern\": [\"conditional_logic\"], "
		 "\"phase\": \"training\"}, \"rationale\": \"%s\"}", f->max);
	assert_int_equal(machine_parse(&f->cb, doc.ptr, doc.len, &ans, &e),
			 0);
	assert_int_equal(strlen(ans.rationale), LIMIT_TEXT_MAX);
	machine_answer_release(&ans);
	buf_release(&doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_limit_text, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_memo_and_proposal, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_settle_note_and_draft,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_machine_rationale, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
