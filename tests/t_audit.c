/*
 * t_audit: the hash-chained audit log - rows chained as they are written,
 * the first changed, removed or inserted row named by audit_verify(), the
 * rows of an older study chained by the migration, and who reads what.
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

#include "core/audit.h"
#include "core/buf.h"
#include "core/store.h"

static char tmpdir[64];

static int make_tmpdir(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/t_audit.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int remove_tmpdir(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static void exec_ok(struct store *st, const char *sql)
{
	char *msg = NULL;
	int rc = sqlite3_exec(st->db, sql, NULL, NULL, &msg);

	if (rc != SQLITE_OK)
		fail_msg("%s: %s", sql, msg ? msg : "?");
}

/* Five rows: three by alice, one by the owner for bob, one by bob. */
static void five_rows(struct store *st)
{
	struct err e = ERR_INIT;

	assert_int_equal(store_audit(st, "alice", NULL, "label", 0, "symptom",
				     NULL, "crash", &e), 0);
	assert_int_equal(store_audit(st, "alice", NULL, "label", 0, "symptom",
				     "crash", "hang", &e), 0);
	assert_int_equal(store_audit(st, "owner", "bob", "label", 0, "stage",
				     NULL, "init", &e), 0);
	assert_int_equal(store_audit(st, "bob", NULL, "submit", 0, NULL, NULL,
				     NULL, &e), 0);
	assert_int_equal(store_audit(st, "alice", NULL, "memo", 0, NULL, NULL,
				     "text with\nnewline, \"quotes\"", &e), 0);
}

static void test_hash_encoding(void **state)
{
	struct audit_row a = { .id = 1, .at = "t", .actor = "ab",
			       .action = "c" };
	struct audit_row b = { .id = 1, .at = "t", .actor = "a",
			       .for_member = "b", .action = "c" };
	struct audit_row n = { .id = 1, .at = "t", .actor = "a",
			       .for_member = "", .action = "c" };
	char ha[65], hb[65], hn[65], hp[65];

	(void)state;
	/* field boundaries and NULL versus empty all count */
	audit_row_hash("", &a, ha);
	audit_row_hash("", &b, hb);
	audit_row_hash("", &n, hn);
	assert_string_not_equal(ha, hb);
	assert_string_not_equal(hb, hn);
	assert_int_equal(strlen(ha), 64);
	/* the previous hash is part of it */
	audit_row_hash(ha, &b, hp);
	assert_string_not_equal(hp, hb);
	/* and it is a function of its input */
	audit_row_hash("", &a, hp);
	assert_string_equal(hp, ha);
}

static void test_chain_holds(void **state)
{
	struct store st;
	struct err e = ERR_INIT;
	struct audit_check c;

	(void)state;
	assert_int_equal(store_open_memory(&st, &e), 0);
	assert_int_equal(audit_verify(&st, &c, &e), 0);
	assert_int_equal(c.rows, 0);
	assert_int_equal(c.bad_id, 0);
	five_rows(&st);
	assert_int_equal(audit_verify(&st, &c, &e), 0);
	assert_int_equal(c.rows, 5);
	assert_int_equal(c.bad_id, 0);
	/* the append-only trigger still refuses changes */
	assert_int_not_equal(sqlite3_exec(st.db, "UPDATE audit SET new = 'x' "
					  "WHERE id = 2", NULL, NULL, NULL),
			     SQLITE_OK);
	assert_int_not_equal(sqlite3_exec(st.db, "DELETE FROM audit",
					  NULL, NULL, NULL), SQLITE_OK);
	store_close(&st);
}

static void test_changed_row_named(void **state)
{
	struct store st;
	struct err e = ERR_INIT;
	struct audit_check c;

	(void)state;
	assert_int_equal(store_open_memory(&st, &e), 0);
	five_rows(&st);
	exec_ok(&st, "DROP TRIGGER audit_no_update;"
		"UPDATE audit SET new = 'crash' WHERE id = 2");
	assert_int_equal(audit_verify(&st, &c, &e), 0);
	assert_int_equal(c.bad_id, 2);
	assert_non_null(strstr(c.reason, "does not match"));

	/* a forger who fixes row 2's hash breaks row 3 instead */
	{
		struct audit_row r = { .id = 2, .at = NULL, .actor = "alice",
				       .action = "label",
				       .dimension = "symptom", .old = "crash",
				       .new_value = "crash" };
		sqlite3_stmt *s;
		char prev[65], h[65], sql[256];

		assert_int_equal(sqlite3_prepare_v2(st.db, "SELECT at FROM "
				 "audit WHERE id = 2", -1, &s, NULL),
				 SQLITE_OK);
		assert_int_equal(sqlite3_step(s), SQLITE_ROW);
		r.at = (const char *)sqlite3_column_text(s, 0);
		{
			sqlite3_stmt *p;

			assert_int_equal(sqlite3_prepare_v2(st.db, "SELECT "
					 "hash FROM audit WHERE id = 1", -1,
					 &p, NULL), SQLITE_OK);
			assert_int_equal(sqlite3_step(p), SQLITE_ROW);
			snprintf(prev, sizeof(prev), "%s",
				 sqlite3_column_text(p, 0));
			sqlite3_finalize(p);
		}
		audit_row_hash(prev, &r, h);
		sqlite3_finalize(s);
		snprintf(sql, sizeof(sql), "UPDATE audit SET hash = '%s' "
			 "WHERE id = 2", h);
		exec_ok(&st, sql);
	}
	assert_int_equal(audit_verify(&st, &c, &e), 0);
	assert_int_equal(c.bad_id, 3);
	store_close(&st);
}

static void test_removed_row_named(void **state)
{
	struct store st;
	struct err e = ERR_INIT;
	struct audit_check c;

	(void)state;
	assert_int_equal(store_open_memory(&st, &e), 0);
	five_rows(&st);
	exec_ok(&st, "DROP TRIGGER audit_no_delete;"
		"DELETE FROM audit WHERE id = 3");
	assert_int_equal(audit_verify(&st, &c, &e), 0);
	assert_int_equal(c.bad_id, 4);
	assert_non_null(strstr(c.reason, "row 2"));
	store_close(&st);
}

static void test_inserted_row_named(void **state)
{
	struct store st;
	struct err e = ERR_INIT;
	struct audit_check c;

	(void)state;
	assert_int_equal(store_open_memory(&st, &e), 0);
	five_rows(&st);
	exec_ok(&st, "INSERT INTO audit (id, at, actor, action, hash) VALUES "
		"(6, 'now', 'mallory', 'label', 'feed')");
	assert_int_equal(audit_verify(&st, &c, &e), 0);
	assert_int_equal(c.bad_id, 6);
	/* and a row written after it by bugcoder does not hide it */
	assert_int_equal(store_audit(&st, "alice", NULL, "label", 0, NULL,
				     NULL, NULL, &e), 0);
	assert_int_equal(audit_verify(&st, &c, &e), 0);
	assert_int_equal(c.bad_id, 6);
	store_close(&st);
}

/* A study written before the chain: schema version 3, no hash column.
 * Opening it migrates and chains the rows it has. */
static void test_migration_chains_old_rows(void **state)
{
	struct buf path = BUF_INIT;
	struct store st;
	struct err e = ERR_INIT;
	struct audit_check c;

	(void)state;
	buf_addf(&path, "%s/old.db", tmpdir);
	assert_int_equal(store_open(&st, path.ptr, STORE_CREATE, &e), 0);
	five_rows(&st);
	exec_ok(&st, "DROP TABLE recodes;"	/* 9 -> 10 undone */
		"DROP TABLE screen_decisions;"
		"DROP TABLE screen_labels;"
		"DROP TABLE screen_assignments;"
		"ALTER TABLE rounds DROP COLUMN reasons;"
		"ALTER TABLE rounds DROP COLUMN kind;"
		"DROP TABLE machine_answers;"	/* 8 -> 9 undone */
		"ALTER TABLE members DROP COLUMN machine;"
		"DROP TABLE evidence;"	/* 7 -> 8 undone */
		"DROP TABLE coding_times;"	/* 6 -> 7 undone */
		"DROP TABLE round_labels;"	/* 5 -> 6 undone */
		"DROP TABLE round_submissions;"
		"DROP TABLE round_frozen;"
		"DROP TABLE repo_aliases;"	/* 4 -> 5 undone */
		"ALTER TABLE fixes DROP COLUMN repeats;"
		"ALTER TABLE items DROP COLUMN kind;"
		"ALTER TABLE items DROP COLUMN missing;"
		"DROP TRIGGER audit_no_update;"		/* 3 -> 4 undone */
		"ALTER TABLE audit DROP COLUMN hash;"
		"CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit"
		"  BEGIN SELECT RAISE(ABORT, 'the audit log is append-only');"
		"  END;"
		"PRAGMA user_version = 3");
	store_close(&st);

	assert_int_equal(store_open(&st, path.ptr, 0, &e), 0);
	assert_int_equal(audit_verify(&st, &c, &e), 0);
	assert_int_equal(c.rows, 5);
	assert_int_equal(c.bad_id, 0);
	/* new rows go on from the chained ones */
	assert_int_equal(store_audit(&st, "bob", NULL, "label", 0, NULL, NULL,
				     "x", &e), 0);
	assert_int_equal(audit_verify(&st, &c, &e), 0);
	assert_int_equal(c.rows, 6);
	assert_int_equal(c.bad_id, 0);
	/* and the chained rows are append-only again */
	assert_int_not_equal(sqlite3_exec(st.db, "UPDATE audit SET new = 'x' "
					  "WHERE id = 1", NULL, NULL, NULL),
			     SQLITE_OK);
	store_close(&st);
	buf_release(&path);
}

struct seen {
	int n;
	char actors[8][16];
};

static int collect(const struct audit_row *r, void *data)
{
	struct seen *s = data;

	if (s->n < 8)
		snprintf(s->actors[s->n], sizeof(s->actors[0]), "%s%s%s",
			 r->actor, r->for_member ? ">" : "",
			 r->for_member ? r->for_member : "");
	s->n++;
	return 0;
}

static void test_who_reads_what(void **state)
{
	struct store st;
	struct err e = ERR_INIT;
	struct actor owner = { "owner", "owner", 1, ROLE_OWNER, 0 };
	struct actor bob = { "bob", "bob", 3, ROLE_ANNOTATOR, 0 };
	struct actor alice = { "alice", "alice", 2, ROLE_ANNOTATOR, 0 };
	struct audit_filter f = { 0, NULL };
	struct seen s;

	(void)state;
	assert_int_equal(store_open_memory(&st, &e), 0);
	five_rows(&st);
	memset(&s, 0, sizeof(s));
	assert_int_equal(audit_list(&st, &owner, NULL, collect, &s, &e), 0);
	assert_int_equal(s.n, 5);
	/* bob: his own row and the one the owner wrote for him */
	memset(&s, 0, sizeof(s));
	assert_int_equal(audit_list(&st, &bob, NULL, collect, &s, &e), 0);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.actors[0], "owner>bob");
	assert_string_equal(s.actors[1], "bob");
	/* alice asking for bob's rows gets none */
	memset(&s, 0, sizeof(s));
	f.member = "bob";
	assert_int_equal(audit_list(&st, &alice, &f, collect, &s, &e), 0);
	assert_int_equal(s.n, 0);
	/* the owner asking for alice's gets her three */
	memset(&s, 0, sizeof(s));
	f.member = "alice";
	assert_int_equal(audit_list(&st, &owner, &f, collect, &s, &e), 0);
	assert_int_equal(s.n, 3);
	store_close(&st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hash_encoding),
		cmocka_unit_test(test_chain_holds),
		cmocka_unit_test(test_changed_row_named),
		cmocka_unit_test(test_removed_row_named),
		cmocka_unit_test(test_inserted_row_named),
		cmocka_unit_test(test_migration_chains_old_rows),
		cmocka_unit_test(test_who_reads_what),
	};

	return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
