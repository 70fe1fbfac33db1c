/*
 * t_parse: the parsers of what users type or hand over, on good input,
 * on bad input (refused with one line naming the part at fault) and on
 * every input a fuzzer of tests/fuzz/ found to break one:
 *
 *  - evidence specs (core/evidence's evidence_parse());
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/err.h"
#include "core/evidence.h"

/* ---- evidence specs --------------------------------------------------- */

/* SPEC parses, and its compact form is `compact`. */
static void parses_as(const char *spec, const char *compact)
{
	struct evidence_cite c;
	struct err e = ERR_INIT;
	struct buf b = BUF_INIT;

	if (evidence_parse(spec, &c, &e) < 0)
		fail_msg("%s: %s", spec, e.msg);
	evidence_format(&c, &b);
	assert_string_equal(b.ptr, compact);
	buf_release(&b);
	evidence_cite_release(&c);
}

/* SPEC is refused with a one-line message that contains `what`. */
static void refused(const char *spec, const char *what)
{
	struct evidence_cite c;
	struct err e = ERR_INIT;

	if (evidence_parse(spec, &c, &e) == 0)
		fail_msg("%s: accepted", spec);
	assert_int_equal(e.code, ERR_INPUT);
	assert_non_null(strstr(e.msg, what));
	assert_null(strchr(e.msg, '\n'));
	assert_null(c.path);
}

static void test_evidence_specs(void **state)
{
	parses_as("diff:src/a.c:3-5", "diff:src/a.c:3-5");
	parses_as("diff:src/a.c:new:7", "diff:src/a.c:7");
	parses_as("diff:src/a.c:old:2-2", "diff:src/a.c:old:2");
	parses_as("issue:body:1-4", "issue:body:1-4");
	parses_as("issue:comment:2:9", "issue:comment:2:9");
	refused("diff:a.c:5-3", "expected diff:PATH");
	refused("diff:a.c:0", "expected diff:PATH");
	refused("diff::4", "which file");
	refused("issue:comment:0:1", "issue:comment:N");
	refused("pr:1", "cite the diff");
}

/* The path left out ("diff:12"): the last ':' is the one after "diff",
 * before where the path would start; its length came out as -1 and
 * was copied as SIZE_MAX bytes. */
static void test_evidence_path_left_out(void **state)
{
	refused("diff:12", "which file");
	refused("diff:1-2", "which file");
	refused("diff:", "expected diff:PATH");
	refused("issue:3", "issue:body");
}

/* A file whose name ends like a side ("x:old") keeps its side in the
 * compact form, so exports read back as they were written. */
static void test_evidence_path_like_a_side(void **state)
{
	parses_as("diff:x:old:new:3", "diff:x:old:new:3");
	parses_as("diff:x:new:new:3-4", "diff:x:new:new:3-4");
	parses_as("diff:x:old:old:3", "diff:x:old:old:3");
	parses_as("diff:x:new:old:3", "diff:x:new:old:3");
	parses_as("diff:x:old:3", "diff:x:old:3");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_evidence_specs),
		cmocka_unit_test(test_evidence_path_left_out),
		cmocka_unit_test(test_evidence_path_like_a_side),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
