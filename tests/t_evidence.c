/* SPDX-License-Identifier: MIT */
/*
 * t_evidence: citations (core/study/evidence) - the compact form as scripts
 * give it and the exports write it, parsed and formatted back.
 *
 * Every spec here is also what a libFuzzer harness may hand
 * evidence_parse(): malformed ones must fail with a message naming the
 * spec, never read or write outside it (run under `make SAN=1`).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "core/base/buf.h"
#include "core/base/err.h"
#include "core/study/evidence.h"

/* Parse `spec`, which must fail with a message containing `says`. */
static void refused(const char *spec, const char *says)
{
	struct evidence_cite c;
	struct err e = ERR_INIT;

	if (evidence_parse(spec, &c, &e) == 0) {
		evidence_cite_release(&c);
		fail_msg("%s: parsed, expected a refusal", spec);
	}
	assert_int_equal(e.code, ERR_INPUT);
	if (!strstr(e.msg, says))
		fail_msg("%s: \"%s\" does not say \"%s\"", spec, e.msg, says);
	if (!strstr(e.msg, spec))
		fail_msg("%s: \"%s\" does not name the spec", spec, e.msg);
}

/* A diff spec whose path is left out ("diff:12") made the path's length
 * -1, which took a copy of SIZE_MAX bytes: refused now, like every other
 * spec without a path. */
static void test_diff_without_path(void **state)
{
	(void)state;
	refused("diff:12", "which file");
	refused("diff:3-4", "which file");
	refused("diff::12", "which file");
	refused("diff::old:12", "which file");
	refused("diff::new:1-2", "which file");
	refused("diff:", "expected");
	refused("diff:x", "expected");
	refused("diff", "expected");
	refused(":", "expected");
	refused(":1", "cite the diff");
	refused("", "expected");
}

static void test_malformed(void **state)
{
	(void)state;
	refused("diff:a.py:0", "expected");
	refused("diff:a.py:3-1", "expected");
	refused("diff:a.py:1-", "expected");
	refused("diff:a.py:-1", "expected");
	refused("diff:a.py:1x", "expected");
	refused("diff:a.py:99999999999999999999999", "expected");
	refused("issue:12", "issue:body");
	refused("issue:body", "expected");
	refused("issue:comment:0:1", "issue:body");
	refused("issue:comment:x:1", "issue:body");
	refused("issue:comment::1", "issue:body");
	refused("issue:comment:4294967297:1", "issue:body");
	refused("issue:comment:+3:1", "issue:body");
	refused("issue:comment: 3:1", "issue:body");
	refused("pr:5:comment:4294967297:1", "pr:N:body");
	refused("issue:bodyx:1", "issue:body");
	refused("wiki:x:1", "cite the diff");
	refused("pr:12", "pr:N:body");
	refused("pr:x:body:1", "pr:N:body");
	refused("pr:0:body:1", "pr:N:body");
	refused("pr::body:1", "pr:N:body");
	refused("pr:5:1", "pr:N:body");
	refused("pr:5:body:x:1", "pr:N:body");
	refused("pr:5:comment:0:1", "pr:N:body");
	refused("pr:5:comment::1", "pr:N:body");
	refused("pr:5:comments:1:1", "pr:N:body");
	refused("pr:99999999999999999999:body:1", "pr:N:body");
}

struct parsed {
	const char *spec;
	enum evidence_pane pane;
	const char *path;
	int old_side, comment;
	long from, to;
	long long pr;
};

static void test_parse(void **state)
{
	static const struct parsed cases[] = {
		{ "diff:a/b.py:3", EVIDENCE_DIFF, "a/b.py", 0, 0, 3, 3, 0 },
		{ "diff:a/b.py:3-9", EVIDENCE_DIFF, "a/b.py", 0, 0, 3, 9, 0 },
		{ "diff:a/b.py:old:3-9", EVIDENCE_DIFF, "a/b.py", 1, 0, 3, 9, 0 },
		{ "diff:a/b.py:new:3", EVIDENCE_DIFF, "a/b.py", 0, 0, 3, 3, 0 },
		{ "diff:old:1", EVIDENCE_DIFF, "old", 0, 0, 1, 1, 0 },
		{ "diff:x:y.py:2", EVIDENCE_DIFF, "x:y.py", 0, 0, 2, 2, 0 },
		{ "issue:body:1-2", EVIDENCE_ISSUE, NULL, 0, 0, 1, 2, 0 },
		{ "issue:comment:3:7", EVIDENCE_ISSUE, NULL, 0, 3, 7, 7, 0 },
		{ "pr:5342:body:3-5", EVIDENCE_PR, NULL, 0, 0, 3, 5, 5342 },
		{ "pr:7:comment:2:1", EVIDENCE_PR, NULL, 0, 2, 1, 1, 7 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct parsed *w = &cases[i];
		struct evidence_cite c;
		struct err e = ERR_INIT;

		if (evidence_parse(w->spec, &c, &e) < 0)
			fail_msg("%s: %s", w->spec, e.msg);
		assert_int_equal(c.pane, w->pane);
		if (w->path)
			assert_string_equal(c.path, w->path);
		else
			assert_null(c.path);
		assert_int_equal(c.old_side, w->old_side);
		assert_int_equal(c.comment, w->comment);
		assert_int_equal(c.from, w->from);
		assert_int_equal(c.to, w->to);
		assert_int_equal(c.pr, w->pr);
		evidence_cite_release(&c);
	}
}

/* The compact form reads back as it was written, a path that ends like
 * a side (":old", ":new") included. */
static void test_round_trip(void **state)
{
	static const char *const specs[] = {
		"diff:a.py:3", "diff:a.py:old:3-4", "diff:a:old:new:5",
		"diff:a:new:new:5-6", "diff:a:new:old:7", "diff:a:old:old:8",
		"diff:x:y:z:9", "issue:body:1", "issue:comment:2:3-4",
		"pr:5342:body:3", "pr:5342:comment:1:1-2",
	};
	static const struct {
		const char *path;
		int old_side;
	} paths[] = {
		{ "src/x.py", 0 }, { "src/x.py", 1 }, { "notes:old", 0 },
		{ "notes:old", 1 }, { "notes:new", 0 }, { "notes:new", 1 },
		{ ":old", 0 }, { "old", 1 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		struct evidence_cite c;
		struct err e = ERR_INIT;
		struct buf b = BUF_INIT;

		if (evidence_parse(specs[i], &c, &e) < 0)
			fail_msg("%s: %s", specs[i], e.msg);
		evidence_format(&c, &b);
		assert_string_equal(b.ptr, specs[i]);
		evidence_cite_release(&c);
		buf_release(&b);
	}
	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		struct evidence_cite c, back;
		struct err e = ERR_INIT;
		struct buf b = BUF_INIT;

		memset(&c, 0, sizeof(c));
		c.pane = EVIDENCE_DIFF;
		c.path = (char *)paths[i].path;
		c.old_side = paths[i].old_side;
		c.from = 2;
		c.to = 5;
		evidence_format(&c, &b);
		if (evidence_parse(b.ptr, &back, &e) < 0)
			fail_msg("%s: %s", b.ptr, e.msg);
		assert_string_equal(back.path, paths[i].path);
		assert_int_equal(back.old_side, paths[i].old_side);
		assert_int_equal(back.from, 2);
		assert_int_equal(back.to, 5);
		evidence_cite_release(&back);
		buf_release(&b);
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_diff_without_path),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_round_trip),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
