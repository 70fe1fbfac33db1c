/* SPDX-License-Identifier: MIT */
/*
 * t_parse: the parsers of what users type or hand over, on good input,
 * on bad input (refused with one line naming the part at fault) and on
 * every input a fuzzer of tests/fuzz/ found to break one:
 *
 *  - evidence specs (core/study/evidence's evidence_parse());
 *  - the keys file and key names (tui/keymap's keymap_load_text(),
 *    key_parse(), keyname_of());
 *  - Markdown with HTML in it, rendered (tui/markdown, tui/html);
 *  - the lines of `label --from` (core/base/label_line).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <curses.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/buf.h"
#include "core/base/err.h"
#include "core/study/evidence.h"
#include "core/base/label_line.h"
#include "tui/doc.h"
#include "tui/keymap.h"
#include "tui/markdown.h"

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
	refused("pr:1", "pr:N:body:L1-L2");
	refused("xyz:1", "cite the diff");
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
			    "k:6: a NUL byte in the line (line ignored)\n"
			    "k:7: no key \"\xe2\x90\x9b[31m\" (line ignored)\n");
	assert_int_equal(keymap_lookup(KEYMAP_MAIN, 'x'), ACT_SUBMIT);
	assert_int_equal(keymap_lookup(KEYMAP_MAIN, TK_FN(KEY_F(30))),
			 ACT_QUIT);
	keymap_reset();
	buf_release(&warn);
}

/* ---- Markdown and its HTML ------------------------------------------ */

static void render(struct doc *d, const char *md, int width)
{
	doc_clear(d);
	md_render(d, md, strlen(md), width, 0);
	assert_true(d->nr > 0);
}

/* Anchors never go down (a resize finds the reader's place by
 * bisecting them): the blank line after a paragraph of several lines
 * took the paragraph's first anchor. */
static void test_markdown_anchors_go_up(void **state)
{
	struct doc d = DOC_INIT;
	size_t i;

	render(&d, "one two three four five six seven eight nine ten\n\n"
	       "after\n\n| a |\n|---|\n| 1 |\n| 2 |\n\nend\n", 12);
	for (i = 1; i < d.nr; i++)
		assert_true(d.lines[i].anchor >= d.lines[i - 1].anchor);
	assert_int_equal(doc_find_anchor(&d, d.lines[2].anchor), 2);
	doc_release(&d);
}

/* A <br> in a table cell (as GitHub tables write line breaks) stays in
 * its row: it put a newline inside a display line. */
static void test_markdown_br_in_table_cell(void **state)
{
	struct doc d = DOC_INIT;
	struct buf all = BUF_INIT;
	size_t i;

	render(&d, "| a | b |\n|---|---|\n| one<br>two | <br/> |\n", 80);
	for (i = 0; i < d.nr; i++) {
		assert_null(memchr(d.text.ptr + d.lines[i].off, '\n',
				   d.lines[i].len));
		buf_add(&all, d.text.ptr + d.lines[i].off, d.lines[i].len);
		buf_addch(&all, '\n');
	}
	assert_non_null(strstr(all.ptr, "one two"));
	buf_release(&all);
	doc_release(&d);
}

/* cmark-gfm ends an HTML block that opens a quote's line before the
 * line it starts on; the source lines of what it renders stay in
 * order. */
static void test_markdown_source_lines_in_order(void **state)
{
	struct doc d = DOC_INIT;
	size_t i;

	render(&d, "text\n><?pi?> x\n", 40);
	for (i = 0; i < d.nr; i++)
		assert_true(d.lines[i].src_first <= d.lines[i].src_last);
	assert_int_equal(d.lines[d.nr - 1].src_first, 2);
	doc_release(&d);
}

/* ---- label --from lines --------------------------------------------- */

static void line_refused(const char *line, size_t len, const char *msg)
{
	struct label_line l = LABEL_LINE_INIT;
	struct err e = ERR_INIT;

	assert_int_equal(label_line_parse(line, len, &l, &e), -1);
	assert_int_equal(e.code, ERR_INPUT);
	assert_string_equal(e.msg, msg);
	assert_null(l.item);
	assert_null(l.dims);
}

static void test_label_lines(void **state)
{
	static const char good[] = "  o/r#1\tsymptom=hang root_cause="
		"concurrency,,memory, stage= --submit\r";
	struct label_line l = LABEL_LINE_INIT;
	struct err e = ERR_INIT;
	struct buf big = BUF_INIT;
	int i;

	assert_int_equal(label_line_parse(good, strlen(good), &l, &e), 1);
	assert_string_equal(l.item, "o/r#1");
	assert_int_equal(l.submit, 1);
	assert_int_equal(l.nr_dims, 3);
	assert_string_equal(l.dims[0].dim, "symptom");
	assert_int_equal(l.dims[0].nr, 1);
	assert_string_equal(l.dims[0].codes[0], "hang");
	assert_string_equal(l.dims[1].dim, "root_cause");
	assert_int_equal(l.dims[1].nr, 2);
	assert_string_equal(l.dims[1].codes[0], "concurrency");
	assert_string_equal(l.dims[1].codes[1], "memory");
	assert_string_equal(l.dims[2].dim, "stage");
	assert_int_equal(l.dims[2].nr, 0);
	/* parsing again releases what was there; #3 is an item, not a
	 * comment (its line was skipped, saving nothing and saying so) */
	assert_int_equal(label_line_parse("#3 --submit", 11, &l, &e), 1);
	assert_string_equal(l.item, "#3");
	assert_int_equal(l.nr_dims, 0);
	assert_int_equal(label_line_parse(" \t\r", 3, &l, &e), 0);
	assert_null(l.item);
	assert_int_equal(label_line_parse("# o/r#1 x=y", 11, &l, &e), 0);
	assert_int_equal(label_line_parse("#mine x=y", 9, &l, &e), 0);
	assert_int_equal(label_line_parse("#", 1, &l, &e), 0);
	assert_int_equal(label_line_parse("#12a x=y", 8, &l, &e), 0);
	assert_int_equal(label_line_parse("", 0, &l, &e), 0);

	line_refused("o/r#1", 5, "expected ITEM DIM=CODE ... [--submit]");
	line_refused("--submit", 8, "expected ITEM DIM=CODE ... [--submit]");
	line_refused("o/r#1 hang", 10, "'hang' is not DIM=CODE");
	line_refused("o/r#1 =hang", 11, "'=hang' is not DIM=CODE");
	line_refused("o/r#1 a=b -q x", 14, "unknown option -q (a line is "
		     "ITEM DIM=CODE ... [--submit])");
	/* a NUL byte ended the line, the rest read as nothing */
	line_refused("o/r#1 a=b\0 c=d", 15, "a NUL byte in the line");
	buf_addstr(&big, "o/r#1");
	for (i = 0; i < LABEL_LINE_MAX_WORDS; i++)
		buf_addstr(&big, " a=b");
	line_refused(big.ptr, big.len, "more than 256 words");
	/* a long comment is a comment */
	big.ptr[0] = '#';
	assert_int_equal(label_line_parse(big.ptr, big.len, &l, &e), 0);
	buf_release(&big);
	label_line_release(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_evidence_specs),
		cmocka_unit_test(test_evidence_path_left_out),
		cmocka_unit_test(test_evidence_path_like_a_side),
		cmocka_unit_test(test_key_names),
		cmocka_unit_test(test_keys_file),
		cmocka_unit_test(test_markdown_anchors_go_up),
		cmocka_unit_test(test_markdown_br_in_table_cell),
		cmocka_unit_test(test_markdown_source_lines_in_order),
		cmocka_unit_test(test_label_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
