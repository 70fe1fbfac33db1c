/* SPDX-License-Identifier: MIT */
/*
 * t_label: an annotator's work on an item - labels, toggles, submission
 * with the required-dimension check, memos, flags, proposed codes - and
 * the rules around it: blinding (label_may_see), round access, the queue
 * and the audit trail.
 *
 * The codebook is the bundled codebooks/llm-framework-bugs.json: symptom
 * (one, required), root_cause (one, required), fix_pattern (many,
 * required), stage (one, optional), phase (one, required).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "core/base/buf.h"
#include "core/study/codebook.h"
#include "core/study/access.h"
#include "core/study/adjudicate.h"
#include "core/study/label.h"
#include "core/study/member.h"
#include "core/study/round.h"
#include "core/store/store.h"
#include "core/base/text.h"

#define CODEBOOK "codebooks/llm-framework-bugs.json"

struct fixture {
	struct store st;
	struct codebook cb;
	char *me;
	struct actor owner, alice, bob, carol;
	long long item1, item2, item3;
};

static long long q(struct store *st, const char *sql)
{
	sqlite3_stmt *s = NULL;
	long long v;

	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(st->db));
	assert_int_equal(sqlite3_step(s), SQLITE_ROW);
	v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return v;
}

static void exec(struct store *st, const char *sql)
{
	struct err e = ERR_INIT;

	if (store_exec(st, sql, &e) < 0)
		fail_msg("%s: %s", sql, e.msg);
}

static long long add_item(struct store *st, int number)
{
	sqlite3_stmt *s = NULL;
	long long id;

	assert_int_equal(sqlite3_prepare_v2(st->db, "INSERT INTO items (repo, "
			 "number, title, imported_at) VALUES ('o/r', ?, 't', "
			 "'x') RETURNING id", -1, &s, NULL), SQLITE_OK);
	sqlite3_bind_int(s, 1, number);
	assert_int_equal(sqlite3_step(s), SQLITE_ROW);
	id = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return id;
}

static int setup(void **state)
{
	struct fixture *f = xcalloc(1, sizeof(*f));
	struct err e = ERR_INIT;
	sqlite3_stmt *s;

	setenv("BUGCODER_NOW", "2024-06-01T00:00:00Z", 1);
	if (store_open_memory(&f->st, &e) < 0 ||
	    codebook_load_file(&f->cb, CODEBOOK, &e) < 0) {
		print_error("setup: %s\n", e.msg);
		return -1;
	}
	f->me = member_os_user();
	s = store_prepare(&f->st, "INSERT INTO members (name, role, "
			  "added_at) VALUES (?, 'owner', 'x')", &e);
	sqlite3_bind_text(s, 1, f->me, -1, SQLITE_STATIC);
	if (sqlite3_step(s) != SQLITE_DONE)
		return -1;
	sqlite3_finalize(s);
	if (member_resolve(&f->st, NULL, &f->owner, &e) < 0 ||
	    member_add(&f->st, &f->owner, "alice", ROLE_ANNOTATOR, &e) < 0 ||
	    member_add(&f->st, &f->owner, "bob", ROLE_ANNOTATOR, &e) < 0 ||
	    member_add(&f->st, &f->owner, "carol", ROLE_ADJUDICATOR, &e) < 0 ||
	    member_resolve(&f->st, "alice", &f->alice, &e) < 0 ||
	    member_resolve(&f->st, "bob", &f->bob, &e) < 0 ||
	    member_resolve(&f->st, "carol", &f->carol, &e) < 0) {
		print_error("setup: %s\n", e.msg);
		return -1;
	}
	f->item1 = add_item(&f->st, 1);
	f->item2 = add_item(&f->st, 2);
	f->item3 = add_item(&f->st, 3);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	actor_release(&f->owner);
	actor_release(&f->alice);
	actor_release(&f->bob);
	actor_release(&f->carol);
	codebook_release(&f->cb);
	store_close(&f->st);
	free(f->me);
	free(f);
	unsetenv("BUGCODER_NOW");
	return 0;
}

/* A round named `name` over `items` (0-terminated) for `annotators`
 * (NULL-terminated member names); closed or not. */
static void make_round(struct fixture *f, const char *name, int closed,
		       const long long *items, const char *const *annotators)
{
	struct buf sql = BUF_INIT;
	long long rid;
	int i;

	buf_addf(&sql, "INSERT INTO rounds (name, created_at, created_by, "
		 "closed_at, closed_by) VALUES ('%s', 'x', 'root', %s, %s)",
		 name, closed ? "'2024-06-02T00:00:00Z'" : "NULL",
		 closed ? "'root'" : "NULL");
	exec(&f->st, sql.ptr);
	rid = sqlite3_last_insert_rowid(f->st.db);
	for (i = 0; items[i]; i++) {
		buf_reset(&sql);
		buf_addf(&sql, "INSERT INTO assignments (round_id, item_id, "
			 "position) VALUES (%lld, %lld, %d)", rid, items[i], i);
		exec(&f->st, sql.ptr);
	}
	for (i = 0; annotators[i]; i++) {
		buf_reset(&sql);
		buf_addf(&sql, "INSERT INTO round_annotators SELECT %lld, id "
			 "FROM members WHERE name = '%s'", rid, annotators[i]);
		exec(&f->st, sql.ptr);
	}
	buf_release(&sql);
}

static void close_round(struct fixture *f, const char *name)
{
	struct buf sql = BUF_INIT;

	buf_addf(&sql, "UPDATE rounds SET closed_at = 'now', closed_by = "
		 "'root' WHERE name = '%s'", name);
	exec(&f->st, sql.ptr);
	buf_release(&sql);
}

static int set1(struct fixture *f, const struct actor *a, long long item,
		const char *dim, const char *code, struct err *e)
{
	return label_set(&f->st, a, &f->cb, item, dim, &code, code ? 1 : 0, 0,
			 e);
}

/* The codes a member chose for a dimension, joined by ';' ("" if none),
 * read straight from the table. */
static char *codes_of(struct fixture *f, const struct actor *a,
		      long long item, const char *dim)
{
	sqlite3_stmt *s = NULL;
	struct buf b = BUF_INIT;

	assert_int_equal(sqlite3_prepare_v2(f->st.db, "SELECT code FROM labels "
			 "WHERE item_id = ? AND member_id = ? AND dimension = ? "
			 "ORDER BY code", -1, &s, NULL), SQLITE_OK);
	sqlite3_bind_int64(s, 1, item);
	sqlite3_bind_int64(s, 2, a->member_id);
	sqlite3_bind_text(s, 3, dim, -1, SQLITE_STATIC);
	while (sqlite3_step(s) == SQLITE_ROW)
		buf_addf(&b, "%s%s", b.len ? ";" : "",
			 sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	return buf_detach(&b, NULL);
}

static void assert_codes(struct fixture *f, const struct actor *a,
			 long long item, const char *dim, const char *want)
{
	char *got = codes_of(f, a, item, dim);

	if (strcmp(got, want))
		fail_msg("%s %s: \"%s\", want \"%s\"", a->name, dim, got, want);
	free(got);
}

/* The last audit row as "actor|for|action|item|dim|old|new". */
static void assert_last_audit(struct fixture *f, const char *want_fmt)
{
	sqlite3_stmt *s = NULL;
	struct buf got = BUF_INIT, want = BUF_INIT;
	const char *p;
	int i;

	assert_int_equal(sqlite3_prepare_v2(f->st.db, "SELECT actor, "
			 "for_member, action, item_id, dimension, old, new FROM "
			 "audit ORDER BY id DESC LIMIT 1", -1, &s, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_step(s), SQLITE_ROW);
	for (i = 0; i < 7; i++) {
		const char *t = (const char *)sqlite3_column_text(s, i);

		buf_addf(&got, "%s%s", i ? "|" : "", t ? t : "NULL");
	}
	sqlite3_finalize(s);
	for (p = want_fmt; *p; p++)
		if (*p == '@')
			buf_addstr(&want, f->me);
		else
			buf_addch(&want, *p);
	if (strcmp(got.ptr, want.ptr))
		fail_msg("audit \"%s\", want \"%s\"", got.ptr, want.ptr);
	buf_release(&got);
	buf_release(&want);
}

static long long audit_count(struct fixture *f)
{
	return q(&f->st, "SELECT count(*) FROM audit");
}

/* ---- the codebook the tests rely on ------------------------------------- */

static void test_codebook_shape(void **state)
{
	struct fixture *f = *state;
	const struct dimension *d;

	d = codebook_dim(&f->cb, "symptom");
	assert_non_null(d);
	assert_false(d->select_many);
	assert_true(d->required);
	d = codebook_dim(&f->cb, "root_cause");
	assert_non_null(d);
	assert_false(d->select_many);
	assert_true(d->required);
	d = codebook_dim(&f->cb, "fix_pattern");
	assert_non_null(d);
	assert_true(d->select_many);
	assert_true(d->required);
	d = codebook_dim(&f->cb, "stage");
	assert_non_null(d);
	assert_false(d->required);
	d = codebook_dim(&f->cb, "phase");
	assert_non_null(d);
	assert_true(d->required);
	assert_string_equal(f->cb.version, "1.0");
}

/* ---- labels ------------------------------------------------------------- */

static void test_set_and_load(void **state)
{
	struct fixture *f = *state;
	struct coding c = CODING_INIT;
	const struct coded_dim *d;
	struct err e = ERR_INIT;

	assert_int_equal(set1(f, &f->alice, f->item1, "symptom", "hang", &e),
			 0);
	assert_codes(f, &f->alice, f->item1, "symptom", "hang");
	assert_int_equal(q(&f->st, "SELECT count(*) FROM labels WHERE "
			   "codebook_version = '1.0' AND labeled_at = "
			   "'2024-06-01T00:00:00Z' AND proposal_id IS NULL"), 1);
	assert_last_audit(f, "@|alice|label|1|symptom|NULL|hang");

	/* replacing a one-code dimension */
	assert_int_equal(set1(f, &f->alice, f->item1, "symptom", "crash", &e),
			 0);
	assert_codes(f, &f->alice, f->item1, "symptom", "crash");
	assert_last_audit(f, "@|alice|label|1|symptom|hang|crash");
	assert_int_equal(q(&f->st, "SELECT count(*) FROM labels"), 1);

	assert_int_equal(coding_load(&f->st, &f->alice, f->item1,
				     f->alice.member_id, &c, &e), 0);
	assert_int_equal(c.item_id, f->item1);
	assert_int_equal(c.member_id, f->alice.member_id);
	d = coding_dim(&c, "symptom");
	assert_non_null(d);
	assert_int_equal(d->nr_codes, 1);
	assert_string_equal(d->codes[0], "crash");
	assert_null(coding_dim(&c, "root_cause"));
	assert_null(c.memo);
	assert_int_equal(c.submitted, 0);
	assert_null(c.submitted_at);
	assert_int_equal(c.uncertain, 0);
	assert_int_equal(c.discuss, 0);
	coding_release(&c);
	assert_null(c.dims);

	/* setting the same again changes nothing and logs nothing */
	{
		long long n = audit_count(f);

		assert_int_equal(set1(f, &f->alice, f->item1, "symptom",
				      "crash", &e), 0);
		assert_int_equal(audit_count(f), n);
	}
	/* clearing */
	assert_int_equal(set1(f, &f->alice, f->item1, "symptom", NULL, &e), 0);
	assert_codes(f, &f->alice, f->item1, "symptom", "");
	assert_last_audit(f, "@|alice|label|1|symptom|crash|NULL");
	/* bob's labels are his own */
	assert_int_equal(set1(f, &f->bob, f->item1, "symptom", "hang", &e), 0);
	assert_codes(f, &f->bob, f->item1, "symptom", "hang");
	assert_codes(f, &f->alice, f->item1, "symptom", "");
}

static void test_set_many(void **state)
{
	struct fixture *f = *state;
	struct err e = ERR_INIT;
	const char *two[] = { "synchronization", "conditional_logic" };
	const char *dup[] = { "synchronization", "synchronization" };
	struct coding c = CODING_INIT;
	const struct coded_dim *d;

	assert_int_equal(label_set(&f->st, &f->alice, &f->cb, f->item1,
				   "fix_pattern", two, 2, 0, &e), 0);
	assert_codes(f, &f->alice, f->item1, "fix_pattern",
		     "conditional_logic;synchronization");
	assert_last_audit(f, "@|alice|label|1|fix_pattern|NULL|"
			  "conditional_logic;synchronization");
	assert_int_equal(coding_load(&f->st, &f->alice, f->item1,
				     f->alice.member_id, &c, &e), 0);
	d = coding_dim(&c, "fix_pattern");
	assert_non_null(d);
	assert_int_equal(d->nr_codes, 2);
	/* sorted */
	assert_string_equal(d->codes[0], "conditional_logic");
	assert_string_equal(d->codes[1], "synchronization");
	coding_release(&c);

	assert_int_equal(label_set(&f->st, &f->alice, &f->cb, f->item1,
				   "fix_pattern", dup, 2, 0, &e), -1);
	assert_int_equal(e.code, ERR_INPUT);
	assert_string_equal(e.msg, "fix_pattern=synchronization: code given "
			    "twice");
	assert_codes(f, &f->alice, f->item1, "fix_pattern",
		     "conditional_logic;synchronization");
}

static void test_set_refused(void **state)
{
	struct fixture *f = *state;
	struct err e = ERR_INIT;
	const char *two[] = { "crash", "hang" };
	long long n = audit_count(f);

	assert_int_equal(label_set(&f->st, &f->alice, &f->cb, f->item1,
				   "symptom", two, 2, 0, &e), -1);
	assert_int_equal(e.code, ERR_INPUT);
	assert_string_equal(e.msg, "symptom takes one code, not 2");

	assert_int_equal(set1(f, &f->alice, f->item1, "nosuch", "crash", &e),
			 -1);
	assert_int_equal(e.code, ERR_INPUT);
	assert_string_equal(e.msg, "nosuch: no such dimension in codebook "
			    "llm-framework-bugs");

	assert_int_equal(set1(f, &f->alice, f->item1, "symptom", "explodes",
			      &e), -1);
	assert_int_equal(e.code, ERR_INPUT);
	assert_string_equal(e.msg, "symptom=explodes: no such code in "
			    "dimension symptom");

	/* an adjudicator does not label; neither does a non-member */
	assert_int_equal(set1(f, &f->carol, f->item1, "symptom", "crash", &e),
			 -1);
	assert_int_equal(e.code, ERR_PERM);
	assert_string_equal(e.msg, "carol is an adjudicator and does not "
			    "label items");
	{
		struct actor none = ACTOR_INIT;

		none.name = "nobody";
		none.os_user = "nobody";
		assert_int_equal(set1(f, &none, f->item1, "symptom", "crash",
				      &e), -1);
		assert_int_equal(e.code, ERR_PERM);
		assert_string_equal(e.msg, "nobody is not a member and does "
				    "not label items");
	}
	assert_int_equal(q(&f->st, "SELECT count(*) FROM labels"), 0);
	assert_int_equal(audit_count(f), n);
	assert_int_equal(f->st.depth, 0);
}

static void test_owner_codes_for_self(void **state)
{
	struct fixture *f = *state;
	struct err e = ERR_INIT;

	assert_int_equal(set1(f, &f->owner, f->item2, "phase", "training", &e),
			 0);
	assert_codes(f, &f->owner, f->item2, "phase", "training");
	assert_last_audit(f, "@|NULL|label|2|phase|NULL|training");
}

static void test_toggle(void **state)
{
	struct fixture *f = *state;
	struct err e = ERR_INIT;

	/* select one: set, replace, clear */
	assert_int_equal(label_toggle(&f->st, &f->alice, &f->cb, f->item1,
				      "symptom", "crash", &e), 0);
	assert_codes(f, &f->alice, f->item1, "symptom", "crash");
	assert_int_equal(label_toggle(&f->st, &f->alice, &f->cb, f->item1,
				      "symptom", "hang", &e), 0);
	assert_codes(f, &f->alice, f->item1, "symptom", "hang");
	assert_int_equal(label_toggle(&f->st, &f->alice, &f->cb, f->item1,
				      "symptom", "hang", &e), 0);
	assert_codes(f, &f->alice, f->item1, "symptom", "");

	/* select many: add, add, remove */
	assert_int_equal(label_toggle(&f->st, &f->alice, &f->cb, f->item1,
				      "fix_pattern", "synchronization", &e), 0);
	assert_int_equal(label_toggle(&f->st, &f->alice, &f->cb, f->item1,
				      "fix_pattern", "api_correction", &e), 0);
	assert_codes(f, &f->alice, f->item1, "fix_pattern",
		     "api_correction;synchronization");
	assert_int_equal(label_toggle(&f->st, &f->alice, &f->cb, f->item1,
				      "fix_pattern", "synchronization", &e), 0);
	assert_codes(f, &f->alice, f->item1, "fix_pattern", "api_correction");

	assert_int_equal(label_toggle(&f->st, &f->alice, &f->cb, f->item1,
				      "fix_pattern", "nope", &e), -1);
	assert_int_equal(e.code, ERR_INPUT);
	assert_int_equal(label_toggle(&f->st, &f->alice, &f->cb, f->item1,
				      "nodim", "x", &e), -1);
	assert_string_equal(e.msg, "nodim: no such dimension");
	assert_codes(f, &f->alice, f->item1, "fix_pattern", "api_correction");
}

/* ---- submission --------------------------------------------------------- */

static void test_submit_requires_dimensions(void **state)
{
	struct fixture *f = *state;
	struct coding c = CODING_INIT;
	struct err e = ERR_INIT;
	long long n;

	assert_int_equal(label_submit(&f->st, &f->alice, &f->cb, f->item1, &e),
			 -1);
	assert_int_equal(e.code, ERR_INPUT);
	assert_string_equal(e.msg, "not submitted: required dimensions not "
			    "coded: symptom, root_cause, fix_pattern, phase");

	assert_int_equal(set1(f, &f->alice, f->item1, "symptom", "hang", &e),
			 0);
	assert_int_equal(set1(f, &f->alice, f->item1, "root_cause",
			      "concurrency", &e), 0);
	assert_int_equal(set1(f, &f->alice, f->item1, "fix_pattern",
			      "synchronization", &e), 0);
	n = audit_count(f);
	assert_int_equal(label_submit(&f->st, &f->alice, &f->cb, f->item1, &e),
			 -1);
	/* one missing: singular */
	assert_string_equal(e.msg, "not submitted: required dimension not "
			    "coded: phase");
	assert_int_equal(q(&f->st, "SELECT count(*) FROM submissions"), 0);
	assert_int_equal(audit_count(f), n);
	assert_int_equal(f->st.depth, 0);

	/* stage is optional */
	assert_int_equal(set1(f, &f->alice, f->item1, "phase", "training", &e),
			 0);
	assert_int_equal(label_submit(&f->st, &f->alice, &f->cb, f->item1, &e),
			 0);
	assert_int_equal(q(&f->st, "SELECT count(*) FROM submissions WHERE "
			   "submitted_at = '2024-06-01T00:00:00Z'"), 1);
	assert_last_audit(f, "@|alice|submit|1|NULL|NULL|2024-06-01T00:00:00Z");
	assert_int_equal(coding_load(&f->st, &f->alice, f->item1,
				     f->alice.member_id, &c, &e), 0);
	assert_int_equal(c.submitted, 1);
	assert_string_equal(c.submitted_at, "2024-06-01T00:00:00Z");
	coding_release(&c);

	/* submitting twice is fine and changes nothing */
	n = audit_count(f);
	assert_int_equal(label_submit(&f->st, &f->alice, &f->cb, f->item1, &e),
			 0);
	assert_int_equal(q(&f->st, "SELECT count(*) FROM submissions"), 1);
	assert_int_equal(audit_count(f), n);

	/* bob has submitted nothing */
	assert_int_equal(label_submit(&f->st, &f->bob, &f->cb, f->item1, &e),
			 -1);
	assert_int_equal(q(&f->st, "SELECT count(*) FROM submissions"), 1);
}

/* ---- memo and flags ----------------------------------------------------- */

static void test_memo(void **state)
{
	struct fixture *f = *state;
	struct coding c = CODING_INIT;
	struct err e = ERR_INIT;

	assert_int_equal(label_memo(&f->st, &f->alice, f->item1,
				    "looks like a race", &e), 0);
	assert_last_audit(f, "@|alice|memo|1|NULL|NULL|looks like a race");
	assert_int_equal(label_memo(&f->st, &f->alice, f->item1,
				    "a race in all-reduce; it's 'quoted'", &e),
			 0);
	assert_last_audit(f, "@|alice|memo|1|NULL|looks like a race|a race in "
			  "all-reduce; it's 'quoted'");
	assert_int_equal(coding_load(&f->st, &f->alice, f->item1,
				     f->alice.member_id, &c, &e), 0);
	assert_string_equal(c.memo, "a race in all-reduce; it's 'quoted'");
	coding_release(&c);
	assert_int_equal(q(&f->st, "SELECT count(*) FROM memos"), 1);

	/* empty text removes it */
	assert_int_equal(label_memo(&f->st, &f->alice, f->item1, "", &e), 0);
	assert_int_equal(q(&f->st, "SELECT count(*) FROM memos"), 0);
	assert_last_audit(f, "@|alice|memo|1|NULL|a race in all-reduce; it's "
			  "'quoted'|NULL");
	assert_int_equal(label_memo(&f->st, &f->alice, f->item1, NULL, &e), 0);
	assert_int_equal(coding_load(&f->st, &f->alice, f->item1,
				     f->alice.member_id, &c, &e), 0);
	assert_null(c.memo);
	coding_release(&c);

	assert_int_equal(label_memo(&f->st, &f->carol, f->item1, "x", &e), -1);
	assert_int_equal(e.code, ERR_PERM);
}

static void test_flags(void **state)
{
	struct fixture *f = *state;
	struct coding c = CODING_INIT;
	struct err e = ERR_INIT;

	assert_int_equal(label_flag(&f->st, &f->alice, f->item1, "uncertain",
				    1, &e), 0);
	assert_last_audit(f, "@|alice|flag|1|uncertain|off|on");
	assert_int_equal(label_flag(&f->st, &f->alice, f->item1, "discuss", 1,
				    &e), 0);
	assert_int_equal(coding_load(&f->st, &f->alice, f->item1,
				     f->alice.member_id, &c, &e), 0);
	assert_int_equal(c.uncertain, 1);
	assert_int_equal(c.discuss, 1);
	coding_release(&c);

	/* setting twice keeps one row */
	assert_int_equal(label_flag(&f->st, &f->alice, f->item1, "uncertain",
				    1, &e), 0);
	assert_int_equal(q(&f->st, "SELECT count(*) FROM flags"), 2);

	assert_int_equal(label_flag(&f->st, &f->alice, f->item1, "uncertain",
				    0, &e), 0);
	assert_last_audit(f, "@|alice|flag|1|uncertain|on|off");
	assert_int_equal(coding_load(&f->st, &f->alice, f->item1,
				     f->alice.member_id, &c, &e), 0);
	assert_int_equal(c.uncertain, 0);
	assert_int_equal(c.discuss, 1);
	coding_release(&c);

	assert_int_equal(label_flag(&f->st, &f->alice, f->item1, "urgent", 1,
				    &e), -1);
	assert_int_equal(e.code, ERR_INPUT);
	assert_string_equal(e.msg, "urgent: unknown flag (uncertain or "
			    "discuss)");
	assert_int_equal(q(&f->st, "SELECT count(*) FROM flags"), 1);
}

/* ---- proposals ---------------------------------------------------------- */

static void test_propose_one(void **state)
{
	struct fixture *f = *state;
	struct coding c = CODING_INIT;
	const struct coded_dim *d;
	struct err e = ERR_INIT;
	long long pid = 0;

	assert_int_equal(set1(f, &f->alice, f->item1, "root_cause",
			      "concurrency", &e), 0);
	assert_int_equal(label_propose(&f->st, &f->alice, &f->cb, f->item1,
				       "root_cause", "checkpoint_format",
				       "Checkpoint format", "The saved format "
				       "does not match the loader.", &pid, &e),
			 0);
	assert_true(pid > 0);
	assert_int_equal(q(&f->st, "SELECT count(*) FROM proposals WHERE "
			   "dimension = 'root_cause' AND key = "
			   "'checkpoint_format' AND status = 'open' AND "
			   "item_id = 1"), 1);
	/* the item is labelled `other`, the proposal attached */
	assert_codes(f, &f->alice, f->item1, "root_cause", "other");
	assert_int_equal(q(&f->st, "SELECT proposal_id FROM labels WHERE "
			   "dimension = 'root_cause'"), pid);
	assert_int_equal(coding_load(&f->st, &f->alice, f->item1,
				     f->alice.member_id, &c, &e), 0);
	d = coding_dim(&c, "root_cause");
	assert_non_null(d);
	assert_int_equal(d->proposal_id, pid);
	coding_release(&c);
	assert_int_equal(q(&f->st, "SELECT count(*) FROM audit WHERE action = "
			   "'propose' AND new = 'checkpoint_format'"), 1);
}

static void test_propose_many(void **state)
{
	struct fixture *f = *state;
	struct err e = ERR_INIT;
	long long pid = 0;

	assert_int_equal(set1(f, &f->alice, f->item1, "fix_pattern",
			      "synchronization", &e), 0);
	assert_int_equal(label_propose(&f->st, &f->alice, &f->cb, f->item1,
				       "fix_pattern", "retry_loop", "Retry",
				       "Retries the operation.", &pid, &e), 0);
	/* `other` is added beside what was chosen */
	assert_codes(f, &f->alice, f->item1, "fix_pattern",
		     "other;synchronization");
	assert_int_equal(q(&f->st, "SELECT proposal_id FROM labels WHERE "
			   "dimension = 'fix_pattern' AND code = 'other'"),
			 pid);
	/* the proposal rides on `other` alone ... */
	assert_int_equal(q(&f->st, "SELECT count(*) FROM labels WHERE "
			   "proposal_id IS NOT NULL"), 1);
	/* ... and stays attached while other codes are toggled */
	assert_int_equal(label_toggle(&f->st, &f->alice, &f->cb, f->item1,
				      "fix_pattern", "conditional_logic", &e),
			 0);
	assert_codes(f, &f->alice, f->item1, "fix_pattern",
		     "conditional_logic;other;synchronization");
	assert_int_equal(q(&f->st, "SELECT proposal_id FROM labels WHERE "
			   "dimension = 'fix_pattern' AND code = 'other'"),
			 pid);
	assert_int_equal(label_toggle(&f->st, &f->alice, &f->cb, f->item1,
				      "fix_pattern", "synchronization", &e), 0);
	assert_int_equal(q(&f->st, "SELECT proposal_id FROM labels WHERE "
			   "dimension = 'fix_pattern' AND code = 'other'"),
			 pid);
	/* dropping `other` drops the attachment */
	assert_int_equal(label_toggle(&f->st, &f->alice, &f->cb, f->item1,
				      "fix_pattern", "other", &e), 0);
	assert_int_equal(q(&f->st, "SELECT count(*) FROM labels WHERE "
			   "proposal_id IS NOT NULL"), 0);
}

static void test_propose_refused(void **state)
{
	struct fixture *f = *state;
	struct err e = ERR_INIT;

	assert_int_equal(label_propose(&f->st, &f->alice, &f->cb, f->item1,
				       "symptom", "hang", "Hang", "d", NULL,
				       &e), -1);
	assert_int_equal(e.code, ERR_INPUT);
	assert_string_equal(e.msg, "symptom=hang: the code already exists");
	assert_int_equal(label_propose(&f->st, &f->alice, &f->cb, f->item1,
				       "symptom", "bad key", "N", "d", NULL,
				       &e), -1);
	assert_int_equal(e.code, ERR_INPUT);
	assert_non_null(strstr(e.msg, "bad key: a code key is"));
	assert_int_equal(label_propose(&f->st, &f->alice, &f->cb, f->item1,
				       "symptom", "newcode", "", "d", NULL,
				       &e), -1);
	assert_string_equal(e.msg, "a proposal needs a name and a definition");
	assert_int_equal(label_propose(&f->st, &f->alice, &f->cb, f->item1,
				       "symptom", "newcode", "N", NULL, NULL,
				       &e), -1);
	assert_string_equal(e.msg, "a proposal needs a name and a definition");
	assert_int_equal(label_propose(&f->st, &f->alice, &f->cb, f->item1,
				       "nodim", "newcode", "N", "d", NULL,
				       &e), -1);
	assert_string_equal(e.msg, "nodim: no such dimension");
	assert_int_equal(label_propose(&f->st, &f->carol, &f->cb, f->item1,
				       "symptom", "newcode", "N", "d", NULL,
				       &e), -1);
	assert_int_equal(e.code, ERR_PERM);
	assert_int_equal(q(&f->st, "SELECT count(*) FROM proposals"), 0);
	assert_int_equal(q(&f->st, "SELECT count(*) FROM labels"), 0);
	assert_int_equal(f->st.depth, 0);
}

/* ---- blinding ----------------------------------------------------------- */

static void bob_codes_item1(struct fixture *f)
{
	struct err e = ERR_INIT;

	assert_int_equal(set1(f, &f->bob, f->item1, "symptom", "crash", &e),
			 0);
	assert_int_equal(label_memo(&f->st, &f->bob, f->item1, "bob's note",
				    &e), 0);
	assert_int_equal(label_flag(&f->st, &f->bob, f->item1, "discuss", 1,
				    &e), 0);
}

static void assert_alice_blind(struct fixture *f)
{
	struct coding c = CODING_INIT;
	struct err e = ERR_INIT;

	assert_false(access_may_see(&f->st, &f->alice, f->item1,
				   f->bob.member_id, NULL));
	assert_int_equal(coding_load(&f->st, &f->alice, f->item1,
				     f->bob.member_id, &c, &e), -1);
	assert_int_equal(e.code, ERR_PERM);
	assert_string_equal(e.msg, "another annotator's work is hidden until "
			    "the round is closed");
	/* nothing of bob's leaked into the struct */
	assert_null(c.dims);
	assert_null(c.memo);
	assert_int_equal(c.discuss, 0);
}

static void assert_sees_bob(struct fixture *f, const struct actor *a)
{
	struct coding c = CODING_INIT;
	struct err e = ERR_INIT;
	const struct coded_dim *d;

	assert_true(access_may_see(&f->st, a, f->item1, f->bob.member_id, NULL));
	assert_int_equal(coding_load(&f->st, a, f->item1, f->bob.member_id,
				     &c, &e), 0);
	d = coding_dim(&c, "symptom");
	assert_non_null(d);
	assert_string_equal(d->codes[0], "crash");
	assert_string_equal(c.memo, "bob's note");
	assert_int_equal(c.discuss, 1);
	coding_release(&c);
}

static void test_blind_without_rounds(void **state)
{
	struct fixture *f = *state;

	bob_codes_item1(f);
	/* each sees their own */
	assert_true(access_may_see(&f->st, &f->alice, f->item1,
				  f->alice.member_id, NULL));
	assert_true(access_may_see(&f->st, &f->bob, f->item1,
				  f->bob.member_id, NULL));
	/* an item in no round is never closed: alice stays blind */
	assert_alice_blind(f);
	/* the owner and the adjudicator see everything */
	assert_sees_bob(f, &f->owner);
	assert_sees_bob(f, &f->carol);
	/* a non-member sees nothing */
	{
		struct actor none = ACTOR_INIT;

		assert_false(access_may_see(&f->st, &none, f->item1,
					   f->bob.member_id, NULL));
	}
}

static void test_blind_until_round_closed(void **state)
{
	struct fixture *f = *state;
	const long long items[] = { f->item1, f->item2, 0 };
	const char *const ann[] = { "alice", "bob", NULL };

	make_round(f, "pilot", 0, items, ann);
	bob_codes_item1(f);
	assert_alice_blind(f);
	assert_sees_bob(f, &f->owner);
	assert_sees_bob(f, &f->carol);

	close_round(f, "pilot");
	/* once the round is closed, annotators may compare */
	assert_sees_bob(f, &f->alice);
	/* but only for items of a closed round */
	assert_false(access_may_see(&f->st, &f->alice, f->item3,
				   f->bob.member_id, NULL));
}

/* ---- rounds and access -------------------------------------------------- */

static void test_round_access(void **state)
{
	struct fixture *f = *state;
	const long long items[] = { f->item1, 0 };
	const char *const ann[] = { "alice", NULL };
	struct err e = ERR_INIT;

	make_round(f, "r1", 0, items, ann);
	assert_int_equal(label_check_access(&f->st, &f->alice, f->item1, &e),
			 0);
	assert_int_equal(set1(f, &f->alice, f->item1, "symptom", "hang", &e),
			 0);

	/* bob is not in the round */
	assert_int_equal(set1(f, &f->bob, f->item1, "symptom", "hang", &e),
			 -1);
	assert_int_equal(e.code, ERR_PERM);
	assert_string_equal(e.msg, "o/r#1 is in round r1, which bob does not "
			    "annotate");
	assert_int_equal(label_memo(&f->st, &f->bob, f->item1, "x", &e), -1);
	assert_int_equal(label_flag(&f->st, &f->bob, f->item1, "discuss", 1,
				    &e), -1);
	assert_int_equal(label_submit(&f->st, &f->bob, &f->cb, f->item1, &e),
			 -1);
	assert_string_equal(e.msg, "o/r#1 is in round r1, which bob does not "
			    "annotate");
	/* nor the owner, who is not one of its annotators */
	assert_int_equal(set1(f, &f->owner, f->item1, "symptom", "hang", &e),
			 -1);
	assert_int_equal(e.code, ERR_PERM);
	/* once the study has a round, an item in no round is nobody's */
	assert_int_equal(set1(f, &f->bob, f->item2, "symptom", "hang", &e),
			 -1);
	assert_int_equal(e.code, ERR_PERM);
	assert_non_null(strstr(e.msg, "o/r#2 is in no round (the study's "
			       "rounds: r1)"));

	close_round(f, "r1");
	assert_int_equal(set1(f, &f->alice, f->item1, "symptom", "crash", &e),
			 -1);
	assert_int_equal(e.code, ERR_PERM);
	assert_string_equal(e.msg, "o/r#1 is in round r1, which is closed; "
			    "labels can no longer change (the owner may "
			    "`round reopen r1`)");
	assert_int_equal(label_toggle(&f->st, &f->alice, &f->cb, f->item1,
				      "symptom", "crash", &e), -1);
	assert_int_equal(e.code, ERR_PERM);
	assert_codes(f, &f->alice, f->item1, "symptom", "hang");
	assert_codes(f, &f->bob, f->item1, "symptom", "");
	assert_int_equal(f->st.depth, 0);
}

/* ---- the queue ---------------------------------------------------------- */

static void test_queue_without_rounds(void **state)
{
	struct fixture *f = *state;
	struct queue qu = QUEUE_INIT;
	struct err e = ERR_INIT;

	assert_int_equal(set1(f, &f->alice, f->item2, "symptom", "hang", &e),
			 0);
	assert_int_equal(set1(f, &f->alice, f->item2, "root_cause", "other",
			      &e), 0);
	assert_int_equal(set1(f, &f->alice, f->item2, "fix_pattern", "other",
			      &e), 0);
	assert_int_equal(set1(f, &f->alice, f->item2, "phase", "both", &e), 0);
	assert_int_equal(label_submit(&f->st, &f->alice, &f->cb, f->item2, &e),
			 0);

	assert_int_equal(queue_load(&f->st, f->alice.member_id, &qu, &e), 0);
	assert_int_equal(qu.nr, 3);
	assert_int_equal(queue_item(&qu, 0), f->item1);
	assert_int_equal(queue_item(&qu, 1), f->item2);
	assert_int_equal(queue_item(&qu, 2), f->item3);
	assert_int_equal(queue_submitted(&qu, 0), 0);
	assert_int_equal(queue_submitted(&qu, 1), 1);
	assert_int_equal(qu.nr_submitted, 1);
	queue_release(&qu);
	assert_null(qu.ids);
	assert_null(qu.done);

	assert_int_equal(queue_load(&f->st, f->bob.member_id, &qu, &e), 0);
	assert_int_equal(qu.nr, 3);
	assert_int_equal(qu.nr_submitted, 0);
	queue_release(&qu);
	queue_release(NULL);
}

static void test_queue_with_rounds(void **state)
{
	struct fixture *f = *state;
	struct queue qu = QUEUE_INIT;
	struct err e = ERR_INIT;
	const long long r1[] = { f->item3, f->item1, 0 };
	const long long r2[] = { f->item2, 0 };
	const char *const ab[] = { "alice", "bob", NULL };
	const char *const a[] = { "alice", NULL };

	make_round(f, "r1", 0, r1, a);
	make_round(f, "r2", 0, r2, ab);
	/* alice: round 1 in its order, then round 2 */
	assert_int_equal(queue_load(&f->st, f->alice.member_id, &qu, &e), 0);
	assert_int_equal(qu.nr, 3);
	assert_int_equal(queue_item(&qu, 0), f->item3);
	assert_int_equal(queue_item(&qu, 1), f->item1);
	assert_int_equal(queue_item(&qu, 2), f->item2);
	queue_release(&qu);
	/* bob: only round 2 */
	assert_int_equal(queue_load(&f->st, f->bob.member_id, &qu, &e), 0);
	assert_int_equal(qu.nr, 1);
	assert_int_equal(queue_item(&qu, 0), f->item2);
	queue_release(&qu);
	/* carol is in no round */
	assert_int_equal(queue_load(&f->st, f->carol.member_id, &qu, &e), 0);
	assert_int_equal(qu.nr, 0);
	queue_release(&qu);
}

/* Ids with a gap: the queue holds them, in id order, and the
 * submitted bits follow positions, not ids. */
static void test_queue_with_gaps(void **state)
{
	struct fixture *f = *state;
	struct queue qu = QUEUE_INIT;
	struct err e = ERR_INIT;

	assert_int_equal(set1(f, &f->alice, f->item3, "symptom", "hang", &e),
			 0);
	assert_int_equal(set1(f, &f->alice, f->item3, "root_cause", "other",
			      &e), 0);
	assert_int_equal(set1(f, &f->alice, f->item3, "fix_pattern", "other",
			      &e), 0);
	assert_int_equal(set1(f, &f->alice, f->item3, "phase", "both", &e), 0);
	assert_int_equal(label_submit(&f->st, &f->alice, &f->cb, f->item3, &e),
			 0);
	/* item1 is the first imported; nothing refers to it yet */
	assert_true(f->item1 < f->item2 && f->item2 < f->item3);
	exec(&f->st, "DELETE FROM items WHERE id = (SELECT min(id) FROM "
	     "items)");
	assert_int_equal(queue_load(&f->st, f->alice.member_id, &qu, &e), 0);
	assert_int_equal(qu.nr, 2);
	assert_non_null(qu.ids);
	assert_int_equal(queue_item(&qu, 0), f->item2);
	assert_int_equal(queue_item(&qu, 1), f->item3);
	assert_int_equal(queue_submitted(&qu, 0), 0);
	assert_int_equal(queue_submitted(&qu, 1), 1);
	assert_int_equal(qu.nr_submitted, 1);
	/* marking is counted once, and out of range is ignored */
	queue_mark_submitted(&qu, 0);
	queue_mark_submitted(&qu, 0);
	queue_mark_submitted(&qu, 2);
	assert_int_equal(qu.nr_submitted, 2);
	assert_int_equal(queue_submitted(&qu, 0), 1);
	queue_release(&qu);
}

static void test_coding_release_null(void **state)
{
	struct coding c = CODING_INIT;

	(void)state;
	coding_release(NULL);
	coding_release(&c);
	assert_null(c.dims);
	assert_null(coding_dim(&c, "symptom"));
}

static void test_round_get_failure_owns_nothing(void **state)
{
	struct fixture *f = *state;
	const long long items[] = { f->item1, 0 };
	const char *const who[] = { "alice", NULL };
	struct round_info r;
	struct err e = ERR_INIT;

	make_round(f, "r1", 0, items, who);
	assert_int_equal(round_get(&f->st, "r1", &r, &e), 0);
	assert_string_equal(r.name, "r1");
	round_info_release(&r);
	/* a failure after the round's row was read (here: the annotators
	 * cannot be read) left the strings already copied in `r`, which
	 * callers do not release on failure: a leak on every such error */
	exec(&f->st, "ALTER TABLE round_annotators RENAME TO ra_gone");
	assert_int_equal(round_get(&f->st, "r1", &r, &e), -1);
	assert_null(r.name);
	assert_null(r.spec);
	assert_null(r.created_at);
	assert_int_equal(r.nr_annotators, 0);
}

int main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_codebook_shape),
		T(test_set_and_load),
		T(test_set_many),
		T(test_set_refused),
		T(test_owner_codes_for_self),
		T(test_toggle),
		T(test_submit_requires_dimensions),
		T(test_memo),
		T(test_flags),
		T(test_propose_one),
		T(test_propose_many),
		T(test_propose_refused),
		T(test_blind_without_rounds),
		T(test_blind_until_round_closed),
		T(test_round_access),
		T(test_queue_without_rounds),
		T(test_queue_with_rounds),
		T(test_queue_with_gaps),
		T(test_round_get_failure_owns_nothing),
		cmocka_unit_test(test_coding_release_null),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
