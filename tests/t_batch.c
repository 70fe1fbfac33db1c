/* SPDX-License-Identifier: MIT */
/*
 * t_batch: core/study/label_batch makes exactly what the one-by-one calls make.
 *
 * Two studies are built alike; on one the operations run one by one
 * (label_set(), label_submit() in one transaction), on the other as one
 * label_batch().  Their labels, submissions and audit rows - every
 * column, the hash chain included - must be the same, and a refused
 * batch must say what the one-by-one calls say (after its `where`) and
 * leave its study exactly as it was.
 *
 * And one label, made as the command makes it on a study file of 3,000
 * items, reads a small fraction of the study's pages (SQLite's count of
 * pages read into the cache), never the whole study.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/base/buf.h"
#include "core/study/codebook.h"
#include "core/study/item.h"
#include "core/study/label.h"
#include "core/study/label_batch.h"
#include "core/study/member.h"
#include "core/store/store.h"
#include "core/study/study.h"

#define CODEBOOK "codebooks/llm-framework-bugs.json"

struct study {
	struct store st;
	struct actor owner, alice, bob, dave, owner_for_bob;
	long long item[8];	/* 1..3 open round r1, 4 closed r0, 5
				   adjudicated (r1), 6 and 7 in no round */
};

struct fixture {
	struct codebook cb;
	struct study a, b;	/* one by one, and batched */
};

static void exec(struct store *st, const char *sql)
{
	struct err e = ERR_INIT;

	if (store_exec(st, sql, &e) < 0)
		fail_msg("%s: %s", sql, e.msg);
}

static void must(int rc, const struct err *e, const char *what)
{
	if (rc < 0)
		fail_msg("%s: %s", what, e->msg);
}

static void build(struct study *s, const struct codebook *cb)
{
	struct err e = ERR_INIT;
	char *me = member_os_user();
	struct buf sql = BUF_INIT;
	const char *crash = "crash";
	sqlite3_stmt *q;
	int i;

	must(store_open_memory(&s->st, &e), &e, "open");
	q = store_prepare(&s->st, "INSERT INTO members (name, role, "
			  "added_at) VALUES (?, 'owner', 'x')", &e);
	sqlite3_bind_text(q, 1, me, -1, SQLITE_STATIC);
	assert_int_equal(sqlite3_step(q), SQLITE_DONE);
	sqlite3_finalize(q);
	must(member_resolve(&s->st, NULL, &s->owner, &e), &e, "owner");
	must(member_add(&s->st, &s->owner, "alice", ROLE_ANNOTATOR, &e), &e,
	     "alice");
	must(member_add(&s->st, &s->owner, "bob", ROLE_ANNOTATOR, &e), &e,
	     "bob");
	must(member_add(&s->st, &s->owner, "dave", ROLE_ANNOTATOR, &e), &e,
	     "dave");
	must(member_resolve(&s->st, "alice", &s->alice, &e), &e, "alice");
	must(member_resolve(&s->st, "bob", &s->bob, &e), &e, "bob");
	must(member_resolve(&s->st, "dave", &s->dave, &e), &e, "dave");
	must(member_resolve(&s->st, "bob", &s->owner_for_bob, &e), &e, "bob");
	/* the owner labelling for bob: the audit names both */
	free(s->owner_for_bob.os_user);
	s->owner_for_bob.os_user = xstrdup(me);
	s->owner_for_bob.acting_for = strcmp(me, "bob") != 0;
	for (i = 1; i <= 7; i++) {
		buf_reset(&sql);
		buf_addf(&sql, "INSERT INTO items (repo, number, title, "
			 "imported_at) VALUES ('o/r', %d, 't', 'x')", i);
		exec(&s->st, sql.ptr);
		s->item[i] = sqlite3_last_insert_rowid(s->st.db);
	}
	exec(&s->st, "INSERT INTO rounds (name, created_at, created_by) "
	     "VALUES ('r1', 'x', 'root'); INSERT INTO rounds (name, "
	     "created_at, created_by, closed_at, closed_by) VALUES ('r0', "
	     "'x', 'root', 'y', 'root');"
	     "INSERT INTO round_annotators SELECT r.id, m.id FROM rounds r, "
	     "members m WHERE m.name IN ('alice', 'bob');"
	     "INSERT INTO assignments (round_id, item_id, position) SELECT "
	     "(SELECT id FROM rounds WHERE name = 'r1'), id, id FROM items "
	     "WHERE number IN (1, 2, 3, 5);"
	     "INSERT INTO assignments (round_id, item_id, position) SELECT "
	     "(SELECT id FROM rounds WHERE name = 'r0'), id, id FROM items "
	     "WHERE number = 4;"
	     "INSERT INTO resolutions (item_id, dimension, code, rationale, "
	     "adjudicator_id, resolved_at) SELECT i.id, 'symptom', 'crash', "
	     "'r', m.id, 'x' FROM items i, members m WHERE i.number = 5 AND "
	     "m.name = 'bob'");
	/* a proposal on alice's `other` label of item 2, and bob's work
	 * there */
	must(label_propose(&s->st, &s->alice, cb, s->item[2], "root_cause",
			   "new_cause", "New cause", "a definition", NULL, &e),
	     &e, "propose");
	must(label_set(&s->st, &s->bob, cb, s->item[2], "symptom", &crash, 1,
		       0, &e), &e, "bob");
	buf_release(&sql);
	free(me);
}

static void release(struct study *s)
{
	actor_release(&s->owner);
	actor_release(&s->alice);
	actor_release(&s->bob);
	actor_release(&s->dave);
	actor_release(&s->owner_for_bob);
	store_close(&s->st);
}

static int setup(void **state)
{
	struct fixture *f = xcalloc(1, sizeof(*f));
	struct err e = ERR_INIT;

	setenv("BUGCODER_NOW", "2024-06-01T00:00:00Z", 1);
	if (codebook_load_file(&f->cb, CODEBOOK, &e) < 0) {
		print_error("setup: %s\n", e.msg);
		return -1;
	}
	build(&f->a, &f->cb);
	build(&f->b, &f->cb);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	release(&f->a);
	release(&f->b);
	codebook_release(&f->cb);
	free(f);
	unsetenv("BUGCODER_NOW");
	return 0;
}

/* Every row of the tables a batch writes, as text. */
static void dump(struct study *s, struct buf *out)
{
	static const char *const sql[] = {
		"SELECT item_id, member_id, dimension, code, codebook_version, "
		"ifnull(proposal_id, '-'), labeled_at FROM labels ORDER BY "
		"1, 2, 3, 4",
		"SELECT item_id, member_id, submitted_at FROM submissions "
		"ORDER BY 1, 2",
		"SELECT id, at, actor, ifnull(for_member, '-'), action, "
		"ifnull(item_id, '-'), ifnull(dimension, '-'), ifnull(old, "
		"'-'), ifnull(new, '-'), hash FROM audit ORDER BY id",
		"SELECT id, item_id, member_id, dimension, quote FROM evidence "
		"ORDER BY id",
	};
	size_t i;

	buf_reset(out);
	for (i = 0; i < sizeof(sql) / sizeof(sql[0]); i++) {
		sqlite3_stmt *q = NULL;
		int c, n;

		assert_int_equal(sqlite3_prepare_v2(s->st.db, sql[i], -1, &q,
						    NULL), SQLITE_OK);
		n = sqlite3_column_count(q);
		while (sqlite3_step(q) == SQLITE_ROW) {
			for (c = 0; c < n; c++)
				buf_addf(out, "%s|", (const char *)
					 sqlite3_column_text(q, c));
			buf_addch(out, '\n');
		}
		sqlite3_finalize(q);
		buf_addstr(out, "--\n");
	}
}

/* A script of operations, written once for both studies. */
struct step {
	enum label_op_kind kind;
	int item;		/* item[] index; 0 with `name` */
	const char *name;	/* an item name, for item_find() */
	char who;		/* 'a'lice, 'b' the owner for bob, 'd'ave */
	const char *dim;
	const char *codes[3];	/* NULL-terminated */
};

static const struct actor *who(struct study *s, char w)
{
	return w == 'b' ? &s->owner_for_bob : w == 'd' ? &s->dave : &s->alice;
}

static size_t nr_codes(const struct step *p)
{
	size_t n = 0;

	while (n < 3 && p->codes[n])
		n++;
	return n;
}

static long long item_of(struct study *s, const struct step *p,
			 struct err *e)
{
	return p->name ? item_find(&s->st, p->name, e) : s->item[p->item];
}

/* The steps one by one, in one transaction: 0, or -1 with `e` as the
 * first failing call left it (prefixed "x:N", N the step from 1) and the
 * study rolled back. */
static int one_by_one(struct study *s, const struct codebook *cb,
		      const struct step *steps, size_t n, struct err *e)
{
	size_t i;

	must(store_begin(&s->st, e), e, "begin");
	for (i = 0; i < n; i++) {
		const struct step *p = &steps[i];
		long long id = item_of(s, p, e);
		int rc;

		if (id < 0)
			rc = -1;
		else if (p->kind == LABEL_OP_SET)
			rc = label_set(&s->st, who(s, p->who), cb, id, p->dim,
				       p->codes, nr_codes(p), 0, e);
		else
			rc = label_submit(&s->st, who(s, p->who), cb, id, e);
		if (rc < 0) {
			err_prefix(e, "x:%zu", i + 1);
			store_rollback(&s->st);
			return -1;
		}
	}
	return store_commit(&s->st, e);
}

static int batched(struct study *s, const struct codebook *cb,
		   const struct step *steps, size_t n, struct err *e)
{
	struct label_op *ops = xcalloc(n + 1, sizeof(*ops));
	char (*where)[16] = xcalloc(n + 1, sizeof(*where));
	size_t i;
	int rc;

	for (i = 0; i < n; i++) {
		const struct step *p = &steps[i];

		snprintf(where[i], sizeof(where[i]), "x:%zu", i + 1);
		ops[i].kind = p->kind;
		ops[i].where = where[i];
		ops[i].item = p->name;
		ops[i].item_id = p->name ? 0 : s->item[p->item];
		ops[i].as = who(s, p->who);
		ops[i].dim = p->dim;
		ops[i].codes = p->codes;
		ops[i].nr_codes = nr_codes(p);
	}
	rc = label_batch(&s->st, &s->alice, cb, ops, n, e);
	free(ops);
	free(where);
	return rc;
}

#define SET LABEL_OP_SET
#define SUBMIT LABEL_OP_SUBMIT

static const struct step work[] = {
	{ SET, 1, NULL, 'a', "symptom", { "crash" } },
	{ SET, 1, NULL, 'a', "root_cause", { "api_misuse" } },
	{ SET, 1, NULL, 'a', "fix_pattern", { "conditional_logic",
					      "algorithm_rewrite" } },
	{ SET, 1, NULL, 'a', "phase", { "training" } },
	{ SET, 1, NULL, 'a', "symptom", { "hang" } },	/* again */
	{ SET, 1, NULL, 'a', "stage", { NULL } },	/* nothing to clear */
	{ SUBMIT, 1, NULL, 'a', NULL, { NULL } },
	{ SUBMIT, 1, NULL, 'a', NULL, { NULL } },	/* submitted already */
	{ SET, 0, "o/r#2", 'a', "root_cause", { "other" } },	/* proposal */
	{ SET, 0, "o/r#2", 'a', "symptom", { "crash" } },
	{ SET, 2, NULL, 'b', "symptom", { "hang" } },	/* for bob */
	{ SET, 2, NULL, 'b', "symptom", { "hang" } },	/* the same: no row */
	{ SET, 3, NULL, 'a', "fix_pattern", { "conditional_logic" } },
	{ SET, 3, NULL, 'a', "fix_pattern", { NULL } },	/* cleared */
	{ SET, 1, NULL, 'a', "fix_pattern", { "algorithm_rewrite" } },
};

static void test_same_rows_as_one_by_one(void **state)
{
	struct fixture *f = *state;
	struct buf a = BUF_INIT, b = BUF_INIT;
	struct err e = ERR_INIT;
	size_t n = sizeof(work) / sizeof(work[0]);

	must(one_by_one(&f->a, &f->cb, work, n, &e), &e, "one by one");
	must(batched(&f->b, &f->cb, work, n, &e), &e, "batch");
	dump(&f->a, &a);
	dump(&f->b, &b);
	assert_string_equal(b.ptr, a.ptr);
	/* and the work was done: the proposal kept on `other`, the owner
	 * named for bob, one submission */
	assert_non_null(strstr(a.ptr, "|root_cause|other|1.0|1|"));
	assert_non_null(strstr(a.ptr, "|bob|label|"));
	buf_release(&a);
	buf_release(&b);
}

/* A refused batch says what the one-by-one calls said, and leaves the
 * study as it was. */
static void refused(struct fixture *f, const struct step *bad)
{
	struct step steps[4];
	struct buf before = BUF_INIT, after = BUF_INIT, tmp = BUF_INIT;
	struct err ea = ERR_INIT, eb = ERR_INIT;

	memcpy(steps, work, 3 * sizeof(*steps));
	steps[3] = *bad;
	dump(&f->a, &tmp);
	dump(&f->b, &before);
	assert_string_equal(before.ptr, tmp.ptr);
	assert_int_equal(one_by_one(&f->a, &f->cb, steps, 4, &ea), -1);
	assert_int_equal(batched(&f->b, &f->cb, steps, 4, &eb), -1);
	assert_string_equal(eb.msg, ea.msg);
	assert_int_equal(eb.code, ea.code);
	assert_non_null(strstr(eb.msg, "x:4: "));
	dump(&f->b, &after);
	assert_string_equal(after.ptr, before.ptr);
	buf_release(&before);
	buf_release(&after);
	buf_release(&tmp);
}

static void test_refusals_change_nothing(void **state)
{
	static const struct step bad[] = {
		{ SET, 4, NULL, 'a', "symptom", { "crash" } },	/* closed */
		{ SET, 5, NULL, 'a', "symptom", { "crash" } },	/* decided */
		{ SET, 1, NULL, 'd', "symptom", { "crash" } },	/* not his */
		{ SET, 1, NULL, 'a', "symptom", { "no_such_code" } },
		{ SET, 1, NULL, 'a', "no_such_dim", { "crash" } },
		{ SET, 1, NULL, 'a', "symptom", { "crash", "hang" } },
		{ SET, 1, NULL, 'a', "fix_pattern", { "conditional_logic",
						      "conditional_logic" } },
		{ SUBMIT, 2, NULL, 'a', NULL, { NULL } },	/* not coded */
		{ SET, 0, "o/r#99", 'a', "symptom", { "crash" } },
		{ SET, 0, "nonsense", 'a', "symptom", { "crash" } },
	};
	struct fixture *f = *state;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		refused(f, &bad[i]);
}

/* A batch in the caller's transaction runs in it. */
static void test_inside_a_transaction(void **state)
{
	struct fixture *f = *state;
	struct buf a = BUF_INIT, b = BUF_INIT;
	struct err e = ERR_INIT;
	size_t n = sizeof(work) / sizeof(work[0]);

	must(one_by_one(&f->a, &f->cb, work, n, &e), &e, "one by one");
	must(store_begin(&f->b.st, &e), &e, "begin");
	must(batched(&f->b, &f->cb, work, n, &e), &e, "batch");
	assert_int_equal(f->b.st.depth, 1);
	must(store_commit(&f->b.st, &e), &e, "commit");
	dump(&f->a, &a);
	dump(&f->b, &b);
	assert_string_equal(b.ptr, a.ptr);
	buf_release(&a);
	buf_release(&b);
}

/* ---- what one label reads ---------------------------------------------- */

/* Pages the connection has read from the study file since it opened. */
static int pages_read(struct store *st)
{
	int cur = 0, high = 0;

	assert_int_equal(sqlite3_db_status(st->db, SQLITE_DBSTATUS_CACHE_MISS,
					   &cur, &high, 0), SQLITE_OK);
	return cur;
}

static void open_file(struct store *st, const char *path,
		      struct actor *as, const char *name)
{
	struct err e = ERR_INIT;

	must(study_open(st, path, 0, &e), &e, "open");
	must(member_resolve(st, name, as, &e), &e, name);
}

/*
 * One `label` of four dimensions with --submit, as the command runs it
 * (open, the member, the codebook, one batch), on a study of 3,000 items
 * with long texts and two coders' labels: it reads a small fraction of
 * the study's pages - its own rows' pages, never the whole study (no scan
 * before a write).  The same counter, run over a full check, sees nearly
 * every page: it counts what a scan would cost.
 */
static void test_one_label_reads_its_rows(void **state)
{
	static const char *const dims[][2] = {
		{ "symptom", "crash" }, { "root_cause", "api_misuse" },
		{ "fix_pattern", "conditional_logic" }, { "phase", "training" },
	};
	char dir[] = "/tmp/t_batch.XXXXXX";
	struct buf path = BUF_INIT, side = BUF_INIT;
	struct codebook cb = CODEBOOK_INIT;
	struct store st;
	struct actor owner, dave;
	struct err e = ERR_INIT;
	struct label_op ops[5];
	const char *codes[4];
	sqlite3_stmt *q;
	long long pages;
	int read, i;

	(void)state;
	setenv("BUGCODER_NOW", "2024-06-01T00:00:00Z", 1);
	assert_non_null(mkdtemp(dir));
	buf_addf(&path, "%s/study.db", dir);
	must(study_create_in(&st, path.ptr, 0, "pages", CODEBOOK, &e), &e,
	     "create");
	must(member_resolve(&st, NULL, &owner, &e), &e, "owner");
	for (i = 0; i < 3; i++)
		must(member_add(&st, &owner, (const char *[]){ "alice", "bob",
				"dave" }[i], ROLE_ANNOTATOR, &e), &e, "add");
	actor_release(&owner);
	/* 3,000 items with 3 KB texts; alice and bob labelled and submitted
	 * every one */
	exec(&st, "BEGIN;"
	     "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n "
	     " WHERE i < 3000) "
	     "INSERT INTO items (repo, number, title, body, imported_at) "
	     "SELECT 'o/r', i, 'bug ' || i, printf('%.3000c', 'x') || i, 'x' "
	     "FROM n;"
	     "INSERT INTO labels SELECT i.id, m.id, d.dim, d.code, '1.0', "
	     " NULL, 'x' FROM items i, members m, (SELECT 'symptom' AS dim, "
	     " 'crash' AS code UNION ALL SELECT 'root_cause', 'api_misuse' "
	     " UNION ALL SELECT 'fix_pattern', 'conditional_logic' UNION ALL "
	     " SELECT 'phase', 'training') d WHERE m.name IN ('alice', 'bob');"
	     "INSERT INTO submissions SELECT i.id, m.id, 'x' FROM items i, "
	     " members m WHERE m.name IN ('alice', 'bob');"
	     "COMMIT");
	/* the full check of the day, done and recorded */
	must(store_verify(&st, 1, &e), &e, "verify");
	store_close(&st);

	open_file(&st, path.ptr, &dave, "dave");
	must(study_codebook(&st, &cb, NULL, &e), &e, "codebook");
	for (i = 0; i < 4; i++) {
		codes[i] = dims[i][1];
		memset(&ops[i], 0, sizeof(ops[i]));
		ops[i].kind = LABEL_OP_SET;
		ops[i].item = "o/r#1500";
		ops[i].dim = dims[i][0];
		ops[i].codes = &codes[i];
		ops[i].nr_codes = 1;
	}
	memset(&ops[4], 0, sizeof(ops[4]));
	ops[4].kind = LABEL_OP_SUBMIT;
	ops[4].item = "o/r#1500";
	must(label_batch(&st, &dave, &cb, ops, 5, &e), &e, "label");
	read = pages_read(&st);
	q = store_prepare(&st, "SELECT (SELECT page_count FROM "
			  "pragma_page_count), (SELECT count(*) FROM labels "
			  "WHERE member_id = ?)", &e);
	sqlite3_bind_int64(q, 1, dave.member_id);
	assert_int_equal(sqlite3_step(q), SQLITE_ROW);
	pages = sqlite3_column_int64(q, 0);
	assert_int_equal(sqlite3_column_int(q, 1), 4);
	sqlite3_finalize(q);
	actor_release(&dave);
	codebook_release(&cb);
	store_close(&st);
	print_message("one label read %d of %lld pages\n", read, pages);
	assert_true(pages > 2000);
	assert_true(read > 0);
	assert_true(read * 20 < pages);

	/* the counter sees a scan */
	open_file(&st, path.ptr, &dave, "dave");
	must(store_verify(&st, 0, &e), &e, "verify");
	assert_true(pages_read(&st) * 2 > pages);
	actor_release(&dave);
	store_close(&st);

	for (i = 0; i < 3; i++) {
		buf_reset(&side);
		buf_addf(&side, "%s%s", path.ptr,
			 (const char *[]){ "", "-wal", "-shm" }[i]);
		unlink(side.ptr);
	}
	assert_int_equal(rmdir(dir), 0);
	buf_release(&side);
	buf_release(&path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_same_rows_as_one_by_one,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_refusals_change_nothing,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_inside_a_transaction,
						setup, teardown),
		cmocka_unit_test(test_one_label_reads_its_rows),
	};

	return cmocka_run_group_tests_name("batch", tests, NULL, NULL);
}
