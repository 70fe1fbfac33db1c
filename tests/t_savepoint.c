/* SPDX-License-Identifier: MIT */
/*
 * t_savepoint: nested transactions, one savepoint per level.  A nested
 * store_rollback() undoes its own level only: the caller's transaction
 * stays open with its earlier writes until the caller commits or rolls
 * back; the audit chain stays whole across an undone level; and when
 * SQLite itself undid the whole transaction, the outer commit fails
 * rather than report success for writes that are gone.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "core/store/audit.h"
#include "core/store/store.h"

static void assert_meta(struct store *st, const char *key, const char *want)
{
	char *v = store_meta_get(st, key);

	if (!want) {
		assert_null(v);
		return;
	}
	assert_non_null(v);
	assert_string_equal(v, want);
	free(v);
}

static void test_inner_rollback_keeps_outer(void **state)
{
	struct store st;
	struct err e = ERR_INIT;

	(void)state;
	assert_int_equal(store_open_memory(&st, &e), 0);
	assert_int_equal(store_begin(&st, &e), 0);
	assert_int_equal(store_meta_set(&st, "outer", "1", &e), 0);

	/* an inner level writes, then fails */
	assert_int_equal(store_begin(&st, &e), 0);
	assert_int_equal(st.depth, 2);
	assert_int_equal(store_meta_set(&st, "inner", "2", &e), 0);
	assert_meta(&st, "inner", "2");
	store_rollback(&st);

	/* the caller's transaction is still open, its write still there */
	assert_int_equal(st.depth, 1);
	assert_false(sqlite3_get_autocommit(st.db));
	assert_meta(&st, "outer", "1");
	assert_meta(&st, "inner", NULL);

	/* it goes on writing, and its commit keeps its own writes */
	assert_int_equal(store_meta_set(&st, "after", "3", &e), 0);
	assert_int_equal(store_commit(&st, &e), 0);
	assert_int_equal(st.depth, 0);
	assert_true(sqlite3_get_autocommit(st.db));
	assert_meta(&st, "outer", "1");
	assert_meta(&st, "after", "3");
	assert_meta(&st, "inner", NULL);
	store_close(&st);
}

static void test_outer_rollback_after_inner(void **state)
{
	struct store st;
	struct err e = ERR_INIT;

	(void)state;
	assert_int_equal(store_open_memory(&st, &e), 0);
	assert_int_equal(store_begin(&st, &e), 0);
	assert_int_equal(store_meta_set(&st, "a", "1", &e), 0);
	assert_int_equal(store_begin(&st, &e), 0);
	assert_int_equal(store_meta_set(&st, "b", "2", &e), 0);
	store_rollback(&st);
	assert_meta(&st, "a", "1");
	/* the caller sees the failure and rolls back its own level */
	store_rollback(&st);
	assert_int_equal(st.depth, 0);
	assert_true(sqlite3_get_autocommit(st.db));
	assert_meta(&st, "a", NULL);
	assert_meta(&st, "b", NULL);
	/* nothing left half open: a new transaction starts cleanly */
	assert_int_equal(store_begin(&st, &e), 0);
	assert_int_equal(store_meta_set(&st, "c", "3", &e), 0);
	assert_int_equal(store_commit(&st, &e), 0);
	assert_meta(&st, "c", "3");
	store_close(&st);
}

static void test_three_levels(void **state)
{
	struct store st;
	struct err e = ERR_INIT;

	(void)state;
	assert_int_equal(store_open_memory(&st, &e), 0);
	assert_int_equal(store_begin(&st, &e), 0);
	assert_int_equal(store_meta_set(&st, "l1", "1", &e), 0);
	assert_int_equal(store_begin(&st, &e), 0);
	assert_int_equal(store_meta_set(&st, "l2", "2", &e), 0);
	assert_int_equal(store_begin(&st, &e), 0);
	assert_int_equal(store_meta_set(&st, "l3", "3", &e), 0);
	/* the innermost fails: level 2 keeps its write */
	store_rollback(&st);
	assert_int_equal(st.depth, 2);
	assert_meta(&st, "l2", "2");
	assert_meta(&st, "l3", NULL);
	/* level 2 succeeds: its write is level 1's now */
	assert_int_equal(store_commit(&st, &e), 0);
	assert_int_equal(st.depth, 1);
	assert_false(sqlite3_get_autocommit(st.db));
	/* a released level is not undone by a later sibling's failure */
	assert_int_equal(store_begin(&st, &e), 0);
	assert_int_equal(store_meta_set(&st, "sibling", "4", &e), 0);
	store_rollback(&st);
	assert_int_equal(store_commit(&st, &e), 0);
	assert_true(sqlite3_get_autocommit(st.db));
	assert_meta(&st, "l1", "1");
	assert_meta(&st, "l2", "2");
	assert_meta(&st, "l3", NULL);
	assert_meta(&st, "sibling", NULL);
	store_close(&st);
}

static void test_audit_chain_after_inner_rollback(void **state)
{
	struct store st;
	struct err e = ERR_INIT;
	struct audit_check c;

	(void)state;
	assert_int_equal(store_open_memory(&st, &e), 0);
	assert_int_equal(store_begin(&st, &e), 0);
	assert_int_equal(audit_write(&st, "root", NULL, "one", 0, NULL, NULL,
				     NULL, &e), 0);
	assert_int_equal(store_begin(&st, &e), 0);
	assert_int_equal(audit_write(&st, "root", NULL, "undone", 0, NULL,
				     NULL, NULL, &e), 0);
	store_rollback(&st);
	/* the next row follows "one", not the row that was undone */
	assert_int_equal(audit_write(&st, "root", NULL, "two", 0, NULL, NULL,
				     NULL, &e), 0);
	assert_int_equal(store_commit(&st, &e), 0);
	memset(&c, 0, sizeof(c));
	assert_int_equal(audit_verify(&st, &c, &e), 0);
	assert_int_equal(c.bad_id, 0);
	assert_int_equal(c.rows, 2);
	store_close(&st);
}

static void test_transaction_gone_under_inner(void **state)
{
	struct store st;
	struct err e = ERR_INIT;

	(void)state;
	assert_int_equal(store_open_memory(&st, &e), 0);
	assert_int_equal(store_begin(&st, &e), 0);
	assert_int_equal(store_meta_set(&st, "a", "1", &e), 0);
	assert_int_equal(store_begin(&st, &e), 0);
	/* as SQLite does on some errors: the whole transaction undone */
	assert_int_equal(sqlite3_exec(st.db, "ROLLBACK", NULL, NULL, NULL),
			 SQLITE_OK);
	store_rollback(&st);
	assert_int_equal(st.depth, 1);
	/* no new level on a transaction that is gone */
	assert_int_equal(store_begin(&st, &e), -1);
	assert_int_equal(st.depth, 1);
	/* the caller's commit says so rather than report success */
	e = (struct err)ERR_INIT;
	assert_int_equal(store_commit(&st, &e), -1);
	assert_non_null(strstr(e.msg, "nothing was written"));
	assert_int_equal(st.depth, 0);
	assert_true(sqlite3_get_autocommit(st.db));
	assert_meta(&st, "a", NULL);
	/* and the connection works again */
	assert_int_equal(store_begin(&st, &e), 0);
	assert_int_equal(store_meta_set(&st, "b", "2", &e), 0);
	assert_int_equal(store_commit(&st, &e), 0);
	assert_meta(&st, "b", "2");
	store_close(&st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_inner_rollback_keeps_outer),
		cmocka_unit_test(test_outer_rollback_after_inner),
		cmocka_unit_test(test_three_levels),
		cmocka_unit_test(test_audit_chain_after_inner_rollback),
		cmocka_unit_test(test_transaction_gone_under_inner),
	};

	setenv("BUGCODER_NOW", "2024-02-03T04:05:06Z", 1);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
