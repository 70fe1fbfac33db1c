/* SPDX-License-Identifier: MIT */
/*
 * t_drift: coder drift - the chi-square tail against published values,
 * the test of homogeneity against a hand computation, the times spent
 * per annotator and round, and that only the owner sees any of it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/buf.h"
#include "core/study/codebook.h"
#include "core/study/drift.h"
#include "core/study/member.h"
#include "core/store/store.h"
#include "exports/drift_out.h"

#define CODEBOOK "codebooks/llm-framework-bugs.json"

/* chi-square upper tails: the 5% critical values of every statistics
 * table; and the closed forms, Q(1, x) = erfc(sqrt(x / 2)) (erfc(1) =
 * 0.15729920705028513, erfc(sqrt(50)) = 1.5239706048320995e-23) and
 * Q(3, x) = erfc(sqrt(x / 2)) + sqrt(2x / pi) exp(-x / 2) (x = 2:
 * 0.5724067044708798) */
static void test_chi2_tail(void **state)
{
	(void)state;
	assert_true(fabs(drift_chi2_upper(3.841458820694124, 1) - 0.05) <
		    1e-12);
	assert_true(fabs(drift_chi2_upper(5.991464547107979, 2) - 0.05) <
		    1e-12);
	assert_true(fabs(drift_chi2_upper(9.487729036781154, 4) - 0.05) <
		    1e-12);
	assert_true(fabs(drift_chi2_upper(2, 3) - 0.5724067044708798) <
		    1e-12);
	assert_true(fabs(drift_chi2_upper(2, 1) - 0.15729920705028513) <
		    1e-12);
	assert_true(fabs(drift_chi2_upper(100, 1) / 1.5239706048320e-23 -
			 1) < 1e-6);
	assert_true(drift_chi2_upper(0, 3) == 1);
	assert_true(isnan(drift_chi2_upper(1, 0)));
	assert_true(isnan(drift_chi2_upper(-1, 2)));
}

static void exec(struct store *st, const char *sql)
{
	struct err e = ERR_INIT;

	if (store_exec(st, sql, &e) < 0)
		fail_msg("%s: %s", sql, e.msg);
}

/* alice codes symptom crash, crash, crash, hang in round r1 and crash,
 * hang, hang, hang in r2: [[3, 1], [1, 3]], every expected count 2,
 * X^2 = 4 x 1/2 = 2, df = 1, p = 0.1573 by the chi-square tail.  Every
 * expected count is under 5, so the p reported is the Monte Carlo one,
 * whose exact value is P(X^2 >= 2) over the tables with these margins:
 * the top-left cell is hypergeometric, (1, 16, 36, 16, 1) / 70 for 0..4,
 * and all but 2 give X^2 >= 2: 34/70.  bob codes crash throughout: one
 * code, no test. */
static void test_homogeneity_and_times(void **state)
{
	struct store st;
	struct codebook cb = CODEBOOK_INIT;
	struct actor owner = ACTOR_INIT, alice = ACTOR_INIT;
	struct drift d = DRIFT_INIT;
	struct err e = ERR_INIT;
	struct buf sql = BUF_INIT, out = BUF_INIT;
	char *me = member_os_user();
	size_t i, found = 0;
	int n;

	(void)state;
	setenv("BUGCODER_NOW", "2024-06-01T00:00:00Z", 1);
	assert_int_equal(store_open_memory(&st, &e), 0);
	assert_int_equal(codebook_load_file(&cb, CODEBOOK, &e), 0);
	buf_addf(&sql, "INSERT INTO members (id, name, role, added_at) VALUES "
		 "(1, '%s', 'owner', 'x'), (2, 'alice', 'annotator', 'x'), "
		 "(3, 'bob', 'annotator', 'x');", me);
	exec(&st, sql.ptr);
	exec(&st, "INSERT INTO rounds (id, name, created_at, created_by) "
	     "VALUES (1, 'r1', 'x', 'o'), (2, 'r2', 'x', 'o');"
	     "INSERT INTO round_annotators VALUES (1, 2), (1, 3), (2, 2), "
	     "(2, 3);");
	for (n = 1; n <= 8; n++) {
		buf_reset(&sql);
		buf_addf(&sql, "INSERT INTO items (id, repo, number, title, "
			 "imported_at) VALUES (%d, 'o/r', %d, 't', 'x');"
			 "INSERT INTO assignments VALUES (%d, %d, %d);"
			 "INSERT INTO labels (item_id, member_id, dimension, "
			 "code, codebook_version, labeled_at) VALUES "
			 "(%d, 2, 'symptom', '%s', '1.0', 'x'), "
			 "(%d, 3, 'symptom', 'crash', '1.0', 'x');"
			 "INSERT INTO submissions VALUES (%d, 2, 'x'), "
			 "(%d, 3, 'x');", n, n, n <= 4 ? 1 : 2, n, n, n,
			 n == 4 || n >= 6 ? "hang" : "crash", n, n, n);
		exec(&st, sql.ptr);
	}
	assert_int_equal(member_resolve(&st, NULL, &owner, &e), 0);
	assert_int_equal(member_resolve(&st, "alice", &alice, &e), 0);
	/* times: 30, 60, 90 s in r1; 20 s twice (added up) on item 5 */
	assert_int_equal(drift_add_time(&st, &alice, 1, 30, &e), 0);
	assert_int_equal(drift_add_time(&st, &alice, 2, 60, &e), 0);
	assert_int_equal(drift_add_time(&st, &alice, 3, 90, &e), 0);
	assert_int_equal(drift_add_time(&st, &alice, 5, 20, &e), 0);
	assert_int_equal(drift_add_time(&st, &alice, 5, 20, &e), 0);

	/* only the owner */
	assert_int_equal(drift_compute(&st, &alice, &cb, &d, &e), -1);
	assert_int_equal(e.code, ERR_PERM);
	assert_int_equal(drift_compute(&st, &owner, &cb, &d, &e), 0);

	assert_int_equal(d.nr_times, 2);
	assert_string_equal(d.times[0].round, "r1");
	assert_int_equal(d.times[0].items, 3);
	assert_true(d.times[0].median == 60);
	assert_string_equal(d.times[1].round, "r2");
	assert_int_equal(d.times[1].items, 1);
	assert_true(d.times[1].median == 40);

	for (i = 0; i < d.nr_codes; i++) {
		const struct drift_codes *c = &d.codes[i];

		if (strcmp(c->dim->key, "symptom"))
			continue;
		found++;
		assert_int_equal(c->nr_rounds, 2);
		if (!strcmp(c->annotator, "alice")) {
			assert_true(c->chi2.defined);
			assert_true(fabs(c->chi2.value - 2) < 1e-12);
			assert_true(c->df == 1);
			assert_true(fabs(c->p_asymptotic.value -
					 0.15729920705028513) < 1e-12);
			assert_true(c->small_expected);
			assert_int_equal(c->cells, 4);
			assert_int_equal(c->cells_under5, 4);
			assert_true(c->min_expected == 2);
			assert_int_equal(c->mc_tables, DRIFT_MC_TABLES);
			/* 2000 tables: a standard error of 0.011 */
			assert_true(fabs(c->p.value - 34.0 / 70) < 0.04);
		} else {
			assert_string_equal(c->annotator, "bob");
			assert_false(c->chi2.defined);
			assert_non_null(strstr(c->chi2.why, "one code"));
		}
	}
	assert_int_equal(found, 2);
	drift_write(&d, DRIFT_TEXT, &out);
	assert_non_null(strstr(out.ptr, "alice, symptom: chi2 = 2.00, df = 1; "
			       "expected counts are small (4 of 4 cells under "
			       "5, the smallest 2.00): Monte Carlo p = 0."));
	assert_non_null(strstr(out.ptr, "chi-square approximation would say p "
			       "= 0.157"));
	buf_reset(&out);
	drift_write(&d, DRIFT_CSV, &out);
	assert_non_null(strstr(out.ptr, "p_chi_square,alice,,symptom,1,"
			       "0.157299\r\n"));
	assert_non_null(strstr(out.ptr, "cells_expected_under_5,alice,,"
			       "symptom,4,4\r\n"));
	assert_non_null(strstr(out.ptr, "time,alice,r1,,3,60.0\r\n"));

	drift_release(&d);
	buf_release(&out);
	buf_release(&sql);
	actor_release(&owner);
	actor_release(&alice);
	codebook_release(&cb);
	store_close(&st);
	free(me);
}

/*
 * The Monte Carlo p-value against exact and R's values:
 *  - [[3, 1], [1, 3]]: exactly 34/70 (above);
 *  - a 3 x 4 table with small counts, against R 4.2.2:
 *      tab <- matrix(c(5, 2, 0, 1, 3, 4, 1, 0, 1, 6, 3, 2), 3,
 *                    byrow = TRUE)
 *      set.seed(3); chisq.test(tab, simulate.p.value = TRUE, B = 1e6)
 *    X-squared = 8.71759259259, p = 0.203103 (chisq.test(tab): df 6,
 *    p = 0.190094421426).
 * At 200,000 tables the standard error is about 0.001.
 */
static void test_monte_carlo(void **state)
{
	static const long two[4] = { 3, 1, 1, 3 };
	static const long r34[12] = { 5, 2, 0, 1, 3, 4, 1, 0, 1, 6, 3, 2 };
	static const long flat[4] = { 3, 0, 5, 0 };
	double x2 = 0, p = 0;
	size_t used = 0;

	(void)state;
	assert_int_equal(drift_chi2_monte_carlo(two, 2, 2, 200000, 1, &x2, &p,
						&used), 0);
	assert_true(fabs(x2 - 2) < 1e-12);
	assert_true(fabs(p - 34.0 / 70) < 0.005);
	assert_int_equal(drift_chi2_monte_carlo(r34, 3, 4, 200000, 2, &x2, &p,
						&used), 0);
	assert_int_equal(used, 4);
	assert_true(fabs(x2 - 8.71759259259) < 1e-9);
	assert_true(fabs(p - 0.203103) < 0.005);
	assert_true(fabs(drift_chi2_upper(x2, 6) - 0.190094421426) < 1e-9);
	/* one code only: no test */
	assert_int_equal(drift_chi2_monte_carlo(flat, 2, 2, 10, 1, &x2, &p,
						&used), -1);
	assert_int_equal(used, 1);
}

/* `round create --items unfinished:pilot` moves items alice submitted
 * in the pilot (bob did not) into round1: her labels and times stay the
 * pilot's, bob's work in round1 is round1's. */
static void test_round_a_label_was_made_in(void **state)
{
	struct store st;
	struct codebook cb = CODEBOOK_INIT;
	struct actor owner = ACTOR_INIT, bob = ACTOR_INIT, alice = ACTOR_INIT;
	struct drift d = DRIFT_INIT;
	struct err e = ERR_INIT;
	struct buf sql = BUF_INIT;
	char *me = member_os_user();
	size_t i;
	int n, seen = 0;

	(void)state;
	setenv("BUGCODER_NOW", "2024-06-01T00:00:00Z", 1);
	assert_int_equal(store_open_memory(&st, &e), 0);
	assert_int_equal(codebook_load_file(&cb, CODEBOOK, &e), 0);
	buf_addf(&sql, "INSERT INTO members (id, name, role, added_at) VALUES "
		 "(1, '%s', 'owner', 'x'), (2, 'alice', 'annotator', 'x'), "
		 "(3, 'bob', 'annotator', 'x');", me);
	exec(&st, sql.ptr);
	exec(&st, "INSERT INTO rounds (id, name, created_at, created_by, "
	     "closed_at) VALUES (1, 'pilot', 'x', 'o', 'y'), (2, 'round1', "
	     "'x', 'o', NULL);"
	     "INSERT INTO round_annotators VALUES (1, 2), (1, 3), (2, 2), "
	     "(2, 3);"
	     "INSERT INTO round_frozen VALUES (1, NULL, 'y');");
	/* items 1-2 done by both in the pilot; 3-4 by alice only, moved */
	for (n = 1; n <= 4; n++) {
		buf_reset(&sql);
		buf_addf(&sql, "INSERT INTO items (id, repo, number, title, "
			 "imported_at) VALUES (%d, 'o/r', %d, 't', 'x');"
			 "INSERT INTO assignments VALUES (%d, %d, %d);"
			 "INSERT INTO labels (item_id, member_id, dimension, "
			 "code, codebook_version, labeled_at) VALUES "
			 "(%d, 2, 'symptom', '%s', '1.0', 'x');"
			 "INSERT INTO submissions VALUES (%d, 2, 'x');"
			 "INSERT INTO round_submissions VALUES (1, %d, 2);"
			 "INSERT INTO round_labels VALUES (1, %d, 2, 'symptom', "
			 "'%s', '1.0');", n, n, n <= 2 ? 1 : 2, n, n, n,
			 n % 2 ? "crash" : "hang", n, n, n,
			 n % 2 ? "crash" : "hang");
		exec(&st, sql.ptr);
	}
	exec(&st, "INSERT INTO labels (item_id, member_id, dimension, code, "
	     "codebook_version, labeled_at) VALUES (1, 3, 'symptom', 'crash', "
	     "'1.0', 'x'), (2, 3, 'symptom', 'crash', '1.0', 'x'), (3, 3, "
	     "'symptom', 'hang', '1.0', 'x'), (4, 3, 'symptom', 'hang', "
	     "'1.0', 'x');"
	     "INSERT INTO submissions VALUES (1, 3, 'x'), (2, 3, 'x'), "
	     "(3, 3, 'x'), (4, 3, 'x');"
	     "INSERT INTO round_submissions VALUES (1, 1, 3), (1, 2, 3);"
	     "INSERT INTO round_labels VALUES (1, 1, 3, 'symptom', 'crash', "
	     "'1.0'), (1, 2, 3, 'symptom', 'crash', '1.0');");
	assert_int_equal(member_resolve(&st, NULL, &owner, &e), 0);
	assert_int_equal(member_resolve(&st, "alice", &alice, &e), 0);
	assert_int_equal(member_resolve(&st, "bob", &bob, &e), 0);
	assert_int_equal(drift_add_time(&st, &alice, 3, 50, &e), 0);
	assert_int_equal(drift_add_time(&st, &bob, 3, 70, &e), 0);
	assert_int_equal(drift_compute(&st, &owner, &cb, &d, &e), 0);
	for (i = 0; i < d.nr_codes; i++) {
		const struct drift_codes *c = &d.codes[i];

		if (strcmp(c->dim->key, "symptom"))
			continue;
		if (!strcmp(c->annotator, "alice")) {
			/* all four in the pilot, nothing in round1 */
			assert_int_equal(c->nr_rounds, 1);
			assert_string_equal(c->rounds[0], "pilot");
			assert_int_equal(c->count[0], 2);	/* crash */
			assert_int_equal(c->count[3], 2);	/* hang */
			assert_false(c->chi2.defined);
			seen++;
		} else {
			assert_int_equal(c->nr_rounds, 2);
			assert_string_equal(c->rounds[1], "round1");
			assert_int_equal(c->count[c->dim->nr_codes + 3], 2);
			seen++;
		}
	}
	assert_int_equal(seen, 2);
	assert_int_equal(d.nr_times, 2);
	assert_string_equal(d.times[0].annotator, "alice");
	assert_string_equal(d.times[0].round, "pilot");
	assert_string_equal(d.times[1].annotator, "bob");
	assert_string_equal(d.times[1].round, "round1");
	drift_release(&d);
	buf_release(&sql);
	actor_release(&owner);
	actor_release(&alice);
	actor_release(&bob);
	codebook_release(&cb);
	store_close(&st);
	free(me);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chi2_tail),
		cmocka_unit_test(test_monte_carlo),
		cmocka_unit_test(test_homogeneity_and_times),
		cmocka_unit_test(test_round_a_label_was_made_in),
	};

	return cmocka_run_group_tests_name("drift", tests, NULL, NULL);
}
