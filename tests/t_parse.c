/*
 * t_parse: the parsers of what users type or hand over, on good input,
 * on bad input (refused with one line naming the part at fault) and on
 * every input a fuzzer of tests/fuzz/ found to break one:
 *
 *  - evidence specs (core/evidence's evidence_parse());
 *  - the keys file and key names (tui/keymap's keymap_load_text(),
 *    key_parse(), keyname_of());
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <curses.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/err.h"
#include "core/evidence.h"
#include "tui/keymap.h"

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

/* ---- the keys file -------------------------------------------------- */

/* Key name `name` is key `key`, and that key's name is `name`. */
static void key_named(const char *name, int key)
{
	char out[32];
	int k = -1;

	assert_int_equal(key_parse(name, strlen(name), &k), strlen(name));
	assert_int_equal(k, key);
	assert_string_equal(keyname_of(key, out), name);
}

static void test_key_names(void **state)
{
	int k;

	key_named("x", 'x');
	key_named("<C-x>", TK_CTRL('x'));
	key_named("<Space>", ' ');
	key_named("<lt>", '<');
	key_named("<F5>", TK_FN(KEY_F(5)));
	key_named("<F24>", TK_FN(KEY_F(24)));
	/* F25 and up were read, then shown as <key289>, which reads as
	 * nothing: every function key curses has is named alike */
	key_named("<F30>", TK_FN(KEY_F(30)));
	key_named("<F63>", TK_FN(KEY_F(63)));
	assert_int_equal(key_parse("<F64>", 5, &k), 0);
	assert_int_equal(key_parse("<F99>", 5, &k), 0);
	/* junk after the number was read as F1 */
	assert_int_equal(key_parse("<F1x>", 5, &k), 0);
	assert_int_equal(key_parse("<F0>", 4, &k), 0);
	assert_int_equal(key_parse("<Nope>", 6, &k), 0);
}

static void test_keys_file(void **state)
{
	static const char text[] = "# mine\r\nbind main x submit\r\n"
		"bind main y fly\nbind nope x quit\nbind main <F30> quit\n"
		"bind main z\0 quit\nbind main \x1b[31m quit\n";
	struct buf warn = BUF_INIT;

	assert_int_equal(keymap_load_text(text, sizeof(text) - 1, "k", &warn),
			 4);
	assert_string_equal(warn.ptr,
			    "k:3: no action \"fly\" (line ignored)\n"
			    "k:4: no keymap \"nope\" (line ignored)\n"
			    "k:6: a NUL byte (line ignored)\n"
			    "k:7: no key \"\xe2\x90\x9b[31m\" (line ignored)\n");
	assert_int_equal(keymap_lookup(KEYMAP_MAIN, 'x'), ACT_SUBMIT);
	assert_int_equal(keymap_lookup(KEYMAP_MAIN, TK_FN(KEY_F(30))),
			 ACT_QUIT);
	keymap_reset();
	buf_release(&warn);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_evidence_specs),
		cmocka_unit_test(test_evidence_path_left_out),
		cmocka_unit_test(test_evidence_path_like_a_side),
		cmocka_unit_test(test_key_names),
		cmocka_unit_test(test_keys_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
