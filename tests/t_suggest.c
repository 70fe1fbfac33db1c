/* SPDX-License-Identifier: MIT */
/*
 * t_suggest: edit distance and "did you mean".
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/base/suggest.h"

static void test_distance(void **state)
{
	(void)state;
	assert_int_equal(suggest_distance("", ""), 0);
	assert_int_equal(suggest_distance("abc", ""), 3);
	assert_int_equal(suggest_distance("", "abc"), 3);
	assert_int_equal(suggest_distance("kitten", "sitting"), 3);
	assert_int_equal(suggest_distance("round", "round"), 0);
	/* an adjacent transposition is one edit */
	assert_int_equal(suggest_distance("roudn", "round"), 1);
	assert_int_equal(suggest_distance("ca", "ac"), 1);
	/* ASCII case does not count */
	assert_int_equal(suggest_distance("Alice", "alice"), 0);
	assert_int_equal(suggest_distance("hang", "hnag"), 1);
}

static void test_closest(void **state)
{
	static const char *const cmds[] = { "init", "member", "codebook",
					    "import", "items", "round",
					    "label", "labels", "agree" };
	size_t n = sizeof(cmds) / sizeof(cmds[0]);

	(void)state;
	assert_string_equal(suggest_closest("rund", cmds, n), "round");
	assert_string_equal(suggest_closest("lable", cmds, n), "label");
	assert_string_equal(suggest_closest("agre", cmds, n), "agree");
	assert_string_equal(suggest_closest("codebok", cmds, n), "codebook");
	/* a prefix of exactly one */
	assert_string_equal(suggest_closest("mem", cmds, n), "member");
	/* nothing close */
	assert_null(suggest_closest("xyzzy", cmds, n));
	assert_null(suggest_closest("", cmds, n));
	/* the name itself is no suggestion */
	assert_null(suggest_closest("round", cmds, 0));
}

static void test_feed(void **state)
{
	struct suggest s;

	(void)state;
	suggest_init(&s, "configuration_eror");
	suggest_add(&s, "api_misuse");
	suggest_add(&s, "configuration_error");
	suggest_add(&s, "misconfig");
	assert_string_equal(suggest_result(&s), "configuration_error");
	suggest_release(&s);
	suggest_init(&s, "z");
	suggest_add(&s, "api_misuse");
	assert_null(suggest_result(&s));
	suggest_release(&s);
	suggest_release(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_distance),
		cmocka_unit_test(test_closest),
		cmocka_unit_test(test_feed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
