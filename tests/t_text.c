/* SPDX-License-Identifier: MIT */
/*
 * t_text: unit tests for core/base/text.c.
 *
 * Every hostile fixture docs/STYLE.md ("Text") lists is here, each with the
 * exact bytes it must turn into.  After every sanitize call the output is
 * checked by assert_sane_output(), which validates UTF-8 independently of
 * the code under test.  Runs under C.UTF-8 (glibc widths).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/base/buf.h"
#include "core/base/text.h"

/* Marks the sanitizer draws, as UTF-8. */
#define M_NUL	"\xe2\x90\x80"	/* U+2400 */
#define M_SOH	"\xe2\x90\x81"	/* U+2401 */
#define M_BEL	"\xe2\x90\x87"	/* U+2407 */
#define M_BS	"\xe2\x90\x88"	/* U+2408 */
#define M_LF	"\xe2\x90\x8a"	/* U+240A */
#define M_CR	"\xe2\x90\x8d"	/* U+240D */
#define M_ESC	"\xe2\x90\x9b"	/* U+241B */
#define M_US	"\xe2\x90\x9f"	/* U+241F */
#define M_DEL	"\xe2\x90\xa1"	/* U+2421 */
#define REPL	"\xef\xbf\xbd"	/* U+FFFD */

#define ZHONG	"\xe4\xb8\xad"	/* U+4E2D, width 2 */
#define WEN	"\xe6\x96\x87"	/* U+6587, width 2 */
#define GRIN	"\xf0\x9f\x98\x80"	/* U+1F600, width 2 */
#define ACUTE	"\xcc\x81"	/* U+0301 combining, width 0 */
#define RLO	"\xe2\x80\xae"	/* U+202E */

#define LIT(s) (s), (sizeof(s) - 1)

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * An independent UTF-8 check: decode greedily by the lead byte, then
 * reject overlongs, surrogates and values past U+10FFFF by value.
 * Returns the number of characters, or -1.
 */
static long check_utf8(const unsigned char *s, size_t len)
{
	static const uint32_t min[] = { 0, 0, 0x80, 0x800, 0x10000 };
	size_t i = 0;
	long nr = 0;

	while (i < len) {
		unsigned c = s[i];
		size_t n, k;
		uint32_t v;

		if (c < 0x80) {
			n = 1;
			v = c;
		} else if ((c & 0xe0) == 0xc0) {
			n = 2;
			v = c & 0x1f;
		} else if ((c & 0xf0) == 0xe0) {
			n = 3;
			v = c & 0x0f;
		} else if ((c & 0xf8) == 0xf0) {
			n = 4;
			v = c & 0x07;
		} else {
			return -1;
		}
		if (i + n > len)
			return -1;
		for (k = 1; k < n; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return -1;
			v = (v << 6) | (s[i + k] & 0x3f);
		}
		if (v < min[n] || (v >= 0xd800 && v <= 0xdfff) || v > 0x10ffff)
			return -1;
		i += n;
		nr++;
	}
	return nr;
}

/*
 * What text_sanitize() promises: valid UTF-8; no byte below 0x20 except
 * '\n' (only with TEXT_KEEP_NL); no DEL; no C1 control (U+0080..U+009F);
 * no raw bidi control.
 */
static void assert_sane_output(const char *out, size_t len, int keep_nl)
{
	const unsigned char *s = (const unsigned char *)out;
	size_t i;

	assert_true(check_utf8(s, len) >= 0);
	assert_true(text_valid_utf8(out, len));
	for (i = 0; i < len; i++) {
		if (s[i] == '\n')
			assert_true(keep_nl);
		else
			assert_true(s[i] >= 0x20);
		assert_int_not_equal(s[i], 0x7f);
		if (s[i] == 0xc2 && i + 1 < len)
			assert_false(s[i + 1] >= 0x80 && s[i + 1] <= 0x9f);
		if (s[i] == 0xe2 && i + 2 < len && s[i + 1] == 0x80)
			assert_false((s[i + 2] >= 0xaa && s[i + 2] <= 0xae) ||
				     s[i + 2] == 0x8e || s[i + 2] == 0x8f);
		if (s[i] == 0xe2 && i + 2 < len && s[i + 1] == 0x81)
			assert_false(s[i + 2] >= 0xa6 && s[i + 2] <= 0xa9);
		if (s[i] == 0xd8 && i + 1 < len)
			assert_int_not_equal(s[i + 1], 0x9c);
	}
	assert_int_equal(out[len], '\0');
}

/* Sanitize s and compare with the expected bytes and width. */
static void check_san(const char *s, size_t len, int tabstop, unsigned flags,
		      const char *want, size_t want_len, int want_width)
{
	struct buf out = BUF_INIT;
	int w;

	w = text_sanitize(&out, s, len, tabstop, flags);
	assert_sane_output(out.ptr, out.len, flags & TEXT_KEEP_NL);
	assert_int_equal(out.len, want_len);
	assert_memory_equal(out.ptr, want, want_len);
	assert_int_equal(w, want_width);
	buf_release(&out);
}

#define SAN(in, tab, flags, want, width) \
	check_san(LIT(in), (tab), (flags), LIT(want), (width))

/* ---- sanitizing -------------------------------------------------------- */

static void test_plain_ascii(void **state)
{
	SAN("hello, world", 8, 0, "hello, world", 12);
	SAN("", 8, 0, "", 0);
	SAN("~!@#$%^&*()_+{}|:\"<>?`-=[]\\;',./", 8, 0,
	    "~!@#$%^&*()_+{}|:\"<>?`-=[]\\;',./", 32);
}

static void test_appends(void **state)
{
	struct buf out = BUF_INIT;

	buf_addstr(&out, "pre:");
	assert_int_equal(text_sanitize(&out, LIT("x\ty"), 4, 0), 5);
	assert_string_equal(out.ptr, "pre:x   y");
	buf_release(&out);
}

static void test_newlines(void **state)
{
	SAN("a\nb\n", 8, TEXT_KEEP_NL, "a\nb\n", 0);
	SAN("a\nbc", 8, TEXT_KEEP_NL, "a\nbc", 2);
	SAN("a\nb", 8, 0, "a" M_LF "b", 3);
	SAN("\n\n", 8, TEXT_KEEP_NL, "\n\n", 0);
}

static void test_crlf(void **state)
{
	SAN("one\r\ntwo\r\n", 8, TEXT_KEEP_NL, "one\ntwo\n", 0);
	SAN("one\r\ntwo", 8, TEXT_KEEP_NL, "one\ntwo", 3);
	/* without TEXT_KEEP_NL a CRLF is one visible line-feed mark */
	SAN("one\r\ntwo", 8, 0, "one" M_LF "two", 7);
	/* a lone CR at the very end is a line end too */
	SAN("abc\r", 8, TEXT_KEEP_NL, "abc\n", 0);
	SAN("abc\r", 8, 0, "abc" M_LF, 4);
	SAN("\r", 8, TEXT_KEEP_NL, "\n", 0);
	/* CR CR LF: the first CR is a stray one */
	SAN("x\r\r\n", 8, TEXT_KEEP_NL, "x" M_CR "\n", 0);
}

static void test_cr_overwrite(void **state)
{
	/* "abc\rX" would put X over the a; it must stay on one line */
	SAN("abc\rX", 8, 0, "abc" M_CR "X", 5);
	SAN("abc\rX", 8, TEXT_KEEP_NL, "abc" M_CR "X", 5);
	SAN("cr:abc\rX|", 8, 0, "cr:abc" M_CR "X|", 9);
	SAN("\r\rz", 8, 0, M_CR M_CR "z", 3);
}

static void test_tabs(void **state)
{
	SAN("\tx", 8, 0, "        x", 9);
	SAN("ab\tc", 8, 0, "ab      c", 9);
	SAN("abcdefg\tx", 8, 0, "abcdefg x", 9);
	SAN("abcdefgh\tx", 8, 0, "abcdefgh        x", 17);
	SAN("a\tb\tc", 4, 0, "a   b   c", 9);
	SAN("\t\t", 2, 0, "    ", 4);
	SAN("a\tb", 1, 0, "a b", 3);
	/* tabstop < 1 means 8 */
	SAN("a\tb", 0, 0, "a       b", 9);
	SAN("a\tb", -3, 0, "a       b", 9);
	/* the column restarts after a kept newline */
	SAN("abcdef\n\tx", 8, TEXT_KEEP_NL, "abcdef\n        x", 9);
	SAN("abcdef\r\n\tx", 4, TEXT_KEEP_NL, "abcdef\n    x", 5);
	/* ... but not after a shown one */
	SAN("ab\n\tc", 8, 0, "ab" M_LF "     c", 9);
	/* wide and zero-width characters count by columns, not bytes */
	SAN(ZHONG "\tx", 4, 0, ZHONG "  x", 5);
	SAN("e" ACUTE "\tx", 4, 0, "e" ACUTE "   x", 5);
	/* a control picture is one column */
	SAN("\x01\tx", 4, 0, M_SOH "   x", 5);
}

static void test_c0_controls(void **state)
{
	SAN("a\0b", 8, 0, "a" M_NUL "b", 3);
	SAN("\0\0", 8, TEXT_KEEP_NL, M_NUL M_NUL, 2);
	SAN("ding\x07", 8, 0, "ding" M_BEL, 5);
	SAN("ab\x08\x08xy", 8, 0, "ab" M_BS M_BS "xy", 6);
	SAN("\x01\x1f", 8, 0, M_SOH M_US, 2);
	SAN("del\x7f", 8, 0, "del" M_DEL, 4);
	SAN("\x0b\x0c", 8, 0, "\xe2\x90\x8b\xe2\x90\x8c", 2);
}

static void test_escape_sequences(void **state)
{
	/* OSC 52: write "evil" to the clipboard */
	SAN("\x1b]52;c;ZXZpbA==\x07", 8, 0, M_ESC "]52;c;ZXZpbA==" M_BEL, 16);
	/* OSC 52 ended by ST (ESC \) */
	SAN("\x1b]52;c;ZXZpbA==\x1b\\", 8, 0,
	    M_ESC "]52;c;ZXZpbA==" M_ESC "\\", 17);
	/* clear screen, cursor position report request */
	SAN("\x1b[2J", 8, 0, M_ESC "[2J", 4);
	SAN("\x1b[6n", 8, 0, M_ESC "[6n", 4);
	/* set the window title */
	SAN("\x1b]0;evil\x07", 8, 0, M_ESC "]0;evil" M_BEL, 9);
	SAN("\x1b[31mred\x1b[0m", 8, 0, M_ESC "[31mred" M_ESC "[0m", 12);
}

static void test_c1_controls(void **state)
{
	/* 8-bit CSI, correctly encoded as U+009B */
	SAN("\xc2\x9b" "2J", 8, 0, REPL "2J", 3);
	SAN("\xc2\x80\xc2\x85\xc2\x9f", 8, 0, REPL REPL REPL, 3);
	/* 8-bit CSI as a raw byte is not UTF-8 at all */
	SAN("\x9b" "6n", 8, 0, REPL "6n", 3);
	/* U+00A0 is the first character past C1 and is kept */
	SAN("\xc2\xa0", 8, 0, "\xc2\xa0", 1);
}

static void test_invalid_utf8(void **state)
{
	SAN("\xff\xfe", 8, 0, REPL REPL, 2);
	SAN("a\xff" "b", 8, 0, "a" REPL "b", 3);
	/* truncated sequences: one mark for the whole unfinished part */
	SAN("\xe2\x82", 8, 0, REPL, 1);
	SAN("\xe2\x82" "A", 8, 0, REPL "A", 2);
	SAN("\xf0\x9f\x98", 8, 0, REPL, 1);
	SAN("\xf0\x9f\x98" "\xf0\x9f\x98\x80", 8, 0, REPL GRIN, 3);
	SAN("x\xc3", 8, 0, "x" REPL, 2);
	/* lone continuation bytes: one each */
	SAN("\x80\xbf", 8, 0, REPL REPL, 2);
	/* overlongs: the lead byte cannot start them, so each byte is bad */
	SAN("\xc0\xaf", 8, 0, REPL REPL, 2);
	SAN("\xc1\xbf", 8, 0, REPL REPL, 2);
	SAN("\xe0\x80\xaf", 8, 0, REPL REPL REPL, 3);
	SAN("\xf0\x80\x80\xaf", 8, 0, REPL REPL REPL REPL, 4);
	/* surrogates U+D800 and U+DFFF */
	SAN("\xed\xa0\x80", 8, 0, REPL REPL REPL, 3);
	SAN("\xed\xbf\xbf", 8, 0, REPL REPL REPL, 3);
	/* U+D7FF and U+E000 around them are fine (U+E000 is private use) */
	SAN("\xee\x80\x80", 8, 0, "\xee\x80\x80", 1);
	/* past U+10FFFF, and the old 5- and 6-byte forms */
	SAN("\xf4\x90\x80\x80", 8, 0, REPL REPL REPL REPL, 4);
	SAN("\xf8\x88\x80\x80\x80", 8, 0, REPL REPL REPL REPL REPL, 5);
	SAN("\xfc\x84\x80\x80\x80\x80", 8, 0,
	    REPL REPL REPL REPL REPL REPL, 6);
	/* a bad continuation does not swallow the next character */
	SAN("\xe4\xb8" ZHONG, 8, 0, REPL ZHONG, 3);
	SAN("\xe4\xb8\n", 8, TEXT_KEEP_NL, REPL "\n", 0);
}

static void test_bidi_controls(void **state)
{
	/* Trojan Source: RLO reverses what follows */
	SAN("if (admin" RLO " } {", 8, 0, "if (admin<U+202E> } {", 21);
	SAN("\xe2\x80\xaa\xe2\x80\xab\xe2\x80\xac\xe2\x80\xad", 8, 0,
	    "<U+202A><U+202B><U+202C><U+202D>", 32);
	SAN("\xe2\x81\xa6x\xe2\x81\xa9", 8, 0, "<U+2066>x<U+2069>", 17);
	SAN("\xe2\x81\xa7\xe2\x81\xa8", 8, 0, "<U+2067><U+2068>", 16);
	SAN("\xe2\x80\x8e\xe2\x80\x8f", 8, 0, "<U+200E><U+200F>", 16);
	SAN("\xd8\x9c", 8, 0, "<U+061C>", 8);
	/* neighbours that are not bidi controls stay as they are */
	SAN("\xe2\x80\xaf", 8, 0, "\xe2\x80\xaf", 1);	/* U+202F */
}

static void test_unprintable_become_replacement(void **state)
{
	SAN("\xcd\xb8", 8, 0, REPL, 1);			/* U+0378 unassigned */
	SAN("a\xe2\x80\xa8" "b", 8, 0, "a" REPL "b", 3);	/* U+2028 */
	SAN("\xef\xbf\xbe", 8, 0, REPL, 1);		/* U+FFFE */
	SAN("\xf4\x8f\xbf\xbf", 8, 0, REPL, 1);	/* U+10FFFF */
}

static void test_keeps_wide_and_combining(void **state)
{
	SAN(ZHONG WEN, 8, 0, ZHONG WEN, 4);
	SAN(GRIN "!", 8, 0, GRIN "!", 3);
	SAN("cafe" ACUTE, 8, 0, "cafe" ACUTE, 4);
	SAN(ACUTE "x", 8, 0, ACUTE "x", 1);
	/* zero width space and variation selector 16 are width 0 */
	SAN("a\xe2\x80\x8b" "b\xef\xb8\x8f", 8, 0,
	    "a\xe2\x80\x8b" "b\xef\xb8\x8f", 2);
	/* the replacement character itself is valid and kept */
	SAN(REPL, 8, 0, REPL, 1);
}

/* Every byte value, alone and in mixtures, comes out sane. */
static void test_sanitize_invariants(void **state)
{
	static const char *const pieces[] = {
		"\x1b", "[", "\r", "\n", "\t", "\0", "\x7f", "\xc2", "\x9b",
		"\xe2", "\x80", "\xae", "\xed", "\xa0", "\xf0", "\x9f", "\x98",
		"\xff", "a", " ", ZHONG, GRIN, ACUTE, RLO, "\xd8\x9c",
		"\xf4\x90", "\xcd\xb8",
	};
	size_t nr = sizeof(pieces) / sizeof(*pieces);
	struct buf in = BUF_INIT, out = BUF_INIT;
	unsigned seed = 12345;
	int round, c;

	for (c = 0; c < 256; c++) {
		char ch = (char)c;

		buf_reset(&out);
		text_sanitize(&out, &ch, 1, 8, 0);
		assert_sane_output(out.ptr, out.len, 0);
		assert_true(out.len > 0);
	}
	for (round = 0; round < 3000; round++) {
		int k, n = round % 40;
		unsigned flags = round & 1 ? TEXT_KEEP_NL : 0;

		buf_reset(&in);
		for (k = 0; k < n; k++) {
			seed = seed * 1103515245u + 12345u;
			if (seed >> 31) {
				size_t i = (seed >> 16) % nr;

				buf_add(&in, pieces[i], pieces[i][0] ?
					strlen(pieces[i]) : 1);
			} else {
				buf_addch(&in, (int)((seed >> 8) & 0xff));
			}
		}
		buf_reset(&out);
		text_sanitize(&out, in.ptr, in.len, 1 + round % 9, flags);
		assert_sane_output(out.ptr, out.len, flags & TEXT_KEEP_NL);
		/* sanitizing is idempotent on its own output when newlines
		 * are kept (tabs and CRs are already gone) */
		if (flags) {
			struct buf again = BUF_INIT;

			text_sanitize(&again, out.ptr, out.len, 8, flags);
			assert_int_equal(again.len, out.len);
			assert_memory_equal(again.ptr, out.ptr, out.len);
			buf_release(&again);
		}
	}
	buf_release(&in);
	buf_release(&out);
}

/* ---- decoding and widths ----------------------------------------------- */

static void test_decode(void **state)
{
	uint32_t cp = 0;

	assert_int_equal(text_decode(LIT("A"), &cp), 1);
	assert_int_equal(cp, 'A');
	assert_int_equal(text_decode(LIT("\xc3\xa9"), &cp), 2);
	assert_int_equal(cp, 0xe9);
	assert_int_equal(text_decode(LIT(ZHONG), &cp), 3);
	assert_int_equal(cp, 0x4e2d);
	assert_int_equal(text_decode(LIT(GRIN), &cp), 4);
	assert_int_equal(cp, 0x1f600);
	assert_int_equal(text_decode(LIT("\xf4\x8f\xbf\xbf"), &cp), 4);
	assert_int_equal(cp, 0x10ffff);
	assert_int_equal(text_decode("\0", 1, &cp), 1);
	assert_int_equal(cp, 0);
	/* invalid: one byte and U+FFFD */
	assert_int_equal(text_decode(LIT("\xc0\xaf"), &cp), 1);
	assert_int_equal(cp, 0xfffd);
	assert_int_equal(text_decode(LIT("\xed\xa0\x80"), &cp), 1);
	assert_int_equal(cp, 0xfffd);
	assert_int_equal(text_decode(ZHONG, 2, &cp), 1);
	assert_int_equal(cp, 0xfffd);
	assert_int_equal(text_decode(LIT("\xff"), &cp), 1);
	assert_int_equal(cp, 0xfffd);
	assert_int_equal(text_decode(LIT("\xf4\x90\x80\x80"), &cp), 1);
	assert_int_equal(cp, 0xfffd);
	assert_int_equal(text_decode("x", 0, &cp), 0);
}

static void test_valid_utf8(void **state)
{
	assert_true(text_valid_utf8("", 0));
	assert_true(text_valid_utf8(LIT("plain")));
	assert_true(text_valid_utf8("a\0b", 3));
	assert_true(text_valid_utf8(LIT(ZHONG WEN GRIN "e" ACUTE)));
	assert_true(text_valid_utf8(LIT("\xed\x9f\xbf\xee\x80\x80")));
	assert_true(text_valid_utf8(LIT("\xf4\x8f\xbf\xbf")));
	assert_true(text_valid_utf8(LIT("\xc2\x9b")));	/* C1 is valid UTF-8 */
	assert_false(text_valid_utf8(LIT("\xff\xfe")));
	assert_false(text_valid_utf8(LIT("\xc0\xaf")));
	assert_false(text_valid_utf8(LIT("\xe0\x80\xaf")));
	assert_false(text_valid_utf8(LIT("\xed\xa0\x80")));
	assert_false(text_valid_utf8(LIT("\xf4\x90\x80\x80")));
	assert_false(text_valid_utf8(LIT("\xf5\x80\x80\x80")));
	assert_false(text_valid_utf8(LIT("abc\x80")));
	assert_false(text_valid_utf8(ZHONG, 2));
	assert_false(text_valid_utf8(GRIN, 3));
}

static void test_char_width(void **state)
{
	assert_int_equal(text_char_width('a'), 1);
	assert_int_equal(text_char_width(' '), 1);
	assert_int_equal(text_char_width(0x4e2d), 2);
	assert_int_equal(text_char_width(0x1f600), 2);
	assert_int_equal(text_char_width(0x3000), 2);	/* ideographic space */
	assert_int_equal(text_char_width(0x301), 0);
	assert_int_equal(text_char_width(0x200b), 0);
	assert_int_equal(text_char_width(0xfe0f), 0);
	assert_int_equal(text_char_width(0xfffd), 1);
	assert_int_equal(text_char_width(0x241b), 1);
	assert_int_equal(text_char_width(0xe9), 1);
	assert_int_equal(text_char_width(0), -1);
	assert_int_equal(text_char_width('\t'), -1);
	assert_int_equal(text_char_width(0x1b), -1);
	assert_int_equal(text_char_width(0x7f), -1);
	assert_int_equal(text_char_width(0x85), -1);
	assert_int_equal(text_char_width(0x9b), -1);
	assert_int_equal(text_char_width(0x110000), -1);
	assert_int_equal(text_char_width(0xffffffffu), -1);
}

static void test_width(void **state)
{
	assert_int_equal(text_width("", 0), 0);
	assert_int_equal(text_width(LIT("abc")), 3);
	assert_int_equal(text_width(LIT(ZHONG WEN "ab")), 6);
	assert_int_equal(text_width(LIT("e" ACUTE)), 1);
	assert_int_equal(text_width(LIT(GRIN GRIN)), 4);
	assert_int_equal(text_width(LIT("<U+202E>")), 8);
	/* unsanitized bytes count as the one cell they would be drawn as */
	assert_int_equal(text_width(LIT("\xff\x1b")), 2);
}

/* ---- fitting, scrolling, truncating ------------------------------------ */

static void test_fit(void **state)
{
	int used = -1;

	assert_int_equal(text_fit(LIT("hello"), 3, &used), 3);
	assert_int_equal(used, 3);
	assert_int_equal(text_fit(LIT("hello"), 5, &used), 5);
	assert_int_equal(used, 5);
	assert_int_equal(text_fit(LIT("hello"), 80, &used), 5);
	assert_int_equal(used, 5);
	assert_int_equal(text_fit(LIT("hello"), 0, &used), 0);
	assert_int_equal(used, 0);
	assert_int_equal(text_fit(LIT("hello"), -4, &used), 0);
	assert_int_equal(used, 0);
	assert_int_equal(text_fit(LIT("hello"), 2, NULL), 2);
	/* a wide character at the boundary is left out whole */
	assert_int_equal(text_fit(LIT("ab" ZHONG), 3, &used), 2);
	assert_int_equal(used, 2);
	assert_int_equal(text_fit(LIT("ab" ZHONG), 4, &used), 5);
	assert_int_equal(used, 4);
	assert_int_equal(text_fit(LIT(GRIN "x"), 1, &used), 0);
	assert_int_equal(used, 0);
	assert_int_equal(text_fit(LIT(GRIN "x"), 2, &used), 4);
	assert_int_equal(used, 2);
	/* a combining mark stays with its base */
	assert_int_equal(text_fit(LIT("e" ACUTE "x"), 1, &used), 3);
	assert_int_equal(used, 1);
	assert_int_equal(text_fit(LIT(ZHONG ACUTE ACUTE "x"), 2, &used), 7);
	assert_int_equal(used, 2);
	/* a wide character with a mark that does not fit leaves both */
	assert_int_equal(text_fit(LIT("a" ZHONG ACUTE), 2, &used), 1);
	assert_int_equal(used, 1);
}

static void test_skip_cols(void **state)
{
	const char s[] = "a" ZHONG "b";	/* columns: a=0, ZHONG=1-2, b=3 */
	int pad = -1;

	assert_int_equal(text_skip_cols(LIT(s), 0, &pad), 0);
	assert_int_equal(pad, 0);
	assert_int_equal(text_skip_cols(LIT(s), 1, &pad), 1);
	assert_int_equal(pad, 0);
	/* column 2 is the right half of the wide character */
	assert_int_equal(text_skip_cols(LIT(s), 2, &pad), 4);
	assert_int_equal(pad, 1);
	assert_int_equal(text_skip_cols(LIT(s), 3, &pad), 4);
	assert_int_equal(pad, 0);
	assert_int_equal(text_skip_cols(LIT(s), 4, &pad), 5);
	assert_int_equal(pad, 0);
	assert_int_equal(text_skip_cols(LIT(s), 99, &pad), 5);
	assert_int_equal(pad, 0);
	assert_int_equal(text_skip_cols(LIT(s), -1, &pad), 0);
	assert_int_equal(pad, 0);
	assert_int_equal(text_skip_cols(LIT(s), 2, NULL), 4);
	/* marks belong to the character scrolled away */
	assert_int_equal(text_skip_cols(LIT("e" ACUTE "x"), 1, &pad), 3);
	assert_int_equal(pad, 0);
	assert_int_equal(text_skip_cols(LIT(GRIN ACUTE "x"), 1, &pad), 6);
	assert_int_equal(pad, 1);
}

static void check_trunc(const char *s, size_t len, int cols,
			const char *mark, const char *want, int want_w)
{
	struct buf out = BUF_INIT;
	int w;

	w = text_truncate(&out, s, len, cols, mark);
	assert_string_equal(out.ptr, want);
	assert_int_equal(w, want_w);
	assert_int_equal(text_width(out.ptr, out.len), want_w);
	assert_true(w <= (cols > 0 ? cols : 0));
	assert_true(text_valid_utf8(out.ptr, out.len));
	buf_release(&out);
}

static void test_truncate(void **state)
{
	check_trunc(LIT("hello world"), 5, "~", "hell~", 5);
	check_trunc(LIT("hello"), 5, "~", "hello", 5);
	check_trunc(LIT("hello"), 9, "~", "hello", 5);
	check_trunc(LIT("hello"), 4, "\xe2\x80\xa6", "hel\xe2\x80\xa6", 4);
	/* CJK at the boundary: the gap before the mark is filled */
	check_trunc(LIT("ab" ZHONG WEN), 4, "\xe2\x80\xa6",
		    "ab \xe2\x80\xa6", 4);
	check_trunc(LIT("ab" ZHONG WEN), 5, "~", "ab" ZHONG "~", 5);
	check_trunc(LIT("ab" ZHONG WEN), 6, "~", "ab" ZHONG WEN, 6);
	/* emoji at the boundary */
	check_trunc(LIT("a" GRIN GRIN), 3, "~", "a ~", 3);
	check_trunc(LIT(GRIN GRIN), 3, "~", GRIN "~", 3);
	check_trunc(LIT(GRIN GRIN), 1, "~", "~", 1);
	/* combining marks are not cut from their base */
	check_trunc(LIT("cafe" ACUTE "s!"), 5, "~", "cafe" ACUTE "~", 5);
	/* without a mark: a plain cut, no padding */
	check_trunc(LIT("ab" ZHONG), 3, NULL, "ab", 2);
	check_trunc(LIT("ab" ZHONG), 3, "", "ab", 2);
	/* a mark wider than the space is itself cut */
	check_trunc(LIT("abcdef"), 2, "...", "..", 2);
	check_trunc(LIT("abcdef"), 3, "...", "...", 3);
	check_trunc(LIT("abcdef"), 0, "~", "", 0);
	check_trunc(LIT("abcdef"), -1, "~", "", 0);
	check_trunc("", 0, 3, "~", "", 0);
}

/* ---- wrapping ---------------------------------------------------------- */

/*
 * Wrap and compare against the expected lines, given as one string with
 * '|' between lines.  Also checks the wrap invariants: lines in order,
 * within the input, no line wider than cols unless it is a single
 * character, and what lies between lines is only spaces and newlines.
 */
static void check_wrap(const char *s, size_t len, int cols, const char *want)
{
	struct text_lines l = TEXT_LINES_INIT;
	struct buf got = BUF_INIT;
	size_t i, prev_end = 0;

	text_wrap(&l, s, len, cols);
	for (i = 0; i < l.nr; i++) {
		const struct text_line *t = &l.v[i];
		size_t k;
		int w = text_width(s + t->off, t->len);

		assert_true(t->off >= prev_end);
		assert_true(t->off + t->len <= len);
		for (k = prev_end; k < t->off; k++)
			assert_true(s[k] == ' ' || s[k] == '\n');
		if (w > cols)
			assert_true(text_fit(s + t->off, t->len, 0, NULL) == 0
				    && text_width(s + t->off, t->len) <= 2);
		assert_true(text_valid_utf8(s + t->off, t->len));
		if (i)
			buf_addch(&got, '|');
		buf_add(&got, s + t->off, t->len);
		prev_end = t->off + t->len;
	}
	assert_string_equal(got.ptr, want);
	buf_release(&got);
	text_lines_release(&l);
}

static void test_wrap_words(void **state)
{
	check_wrap(LIT("the quick brown fox"), 10, "the quick|brown fox");
	check_wrap(LIT("the quick brown fox"), 9, "the quick|brown fox");
	check_wrap(LIT("the quick brown fox"), 8, "the|quick|brown|fox");
	check_wrap(LIT("the quick brown fox"), 80, "the quick brown fox");
	check_wrap(LIT("abcde fghij"), 5, "abcde|fghij");
	/* runs of spaces at a break disappear */
	check_wrap(LIT("aaa   bbb"), 5, "aaa|bbb");
	check_wrap(LIT("aaa   bbb"), 4, "aaa|bbb");
	/* spaces that fit are kept */
	check_wrap(LIT("a  b"), 4, "a  b");
	/* indentation is kept on the first line */
	check_wrap(LIT("    code here"), 20, "    code here");
	check_wrap(LIT("    code here"), 8, "    code|here");
}

static void test_wrap_long_words(void **state)
{
	check_wrap(LIT("aaaaaaaaaaaaaaa"), 6, "aaaaaa|aaaaaa|aaa");
	check_wrap(LIT("hi supercalifragilistic"), 8,
		   "hi|supercal|ifragili|stic");
	check_wrap(LIT("https://example.com/a/very/long/path ok"), 12,
		   "https://exam|ple.com/a/ve|ry/long/path|ok");
	check_wrap(LIT("abc"), 1, "a|b|c");
	/* cols < 1 is treated as 1 */
	check_wrap(LIT("abc"), 0, "a|b|c");
}

static void test_wrap_paragraphs(void **state)
{
	struct text_lines l = TEXT_LINES_INIT;

	check_wrap("", 0, 10, "");
	check_wrap(LIT("\n"), 10, "");
	check_wrap(LIT("a\n"), 10, "a");
	check_wrap(LIT("a\n\nb"), 10, "a||b");
	check_wrap(LIT("a\n\n\n"), 10, "a||");
	check_wrap(LIT("one two\nthree four five"), 10,
		   "one two|three four|five");

	text_wrap(&l, LIT("\n"), 10);
	assert_int_equal(l.nr, 1);
	assert_int_equal(l.v[0].off, 0);
	assert_int_equal(l.v[0].len, 0);
	text_wrap(&l, LIT("a\n\nb"), 10);
	assert_int_equal(l.nr, 3);
	assert_int_equal(l.v[1].off, 2);
	assert_int_equal(l.v[1].len, 0);
	assert_int_equal(l.v[2].off, 3);
	assert_int_equal(l.v[2].len, 1);
	/* reuse overwrites */
	text_wrap(&l, LIT("x"), 10);
	assert_int_equal(l.nr, 1);
	text_wrap(&l, "", 0, 10);
	assert_int_equal(l.nr, 0);
	text_lines_release(&l);
	assert_null(l.v);
	assert_int_equal(l.alloc, 0);
	text_lines_release(&l);
	text_lines_release(NULL);
}

static void test_wrap_cjk(void **state)
{
	const char s[] = ZHONG WEN ZHONG WEN ZHONG;

	check_wrap(LIT(s), 4, ZHONG WEN "|" ZHONG WEN "|" ZHONG);
	check_wrap(LIT(s), 5, ZHONG WEN "|" ZHONG WEN "|" ZHONG);
	check_wrap(LIT(s), 3, ZHONG "|" WEN "|" ZHONG "|" WEN "|" ZHONG);
	/* narrower than one character: one character per line */
	check_wrap(LIT(s), 1, ZHONG "|" WEN "|" ZHONG "|" WEN "|" ZHONG);
	check_wrap(LIT("ab " ZHONG WEN ZHONG WEN), 5,
		   "ab|" ZHONG WEN "|" ZHONG WEN);
	check_wrap(LIT("a" GRIN GRIN), 4, "a" GRIN "|" GRIN);
	/* a combining mark is never separated from its base */
	check_wrap(LIT("abcde" ACUTE "f"), 5, "abcde" ACUTE "|f");
	check_wrap(LIT("ab" ZHONG ACUTE "c"), 3, "ab|" ZHONG ACUTE "c");
}

static void test_wrap_offsets(void **state)
{
	struct text_lines l = TEXT_LINES_INIT;
	const char s[] = "hello big world";

	text_wrap(&l, LIT(s), 9);
	assert_int_equal(l.nr, 2);
	assert_int_equal(l.v[0].off, 0);
	assert_int_equal(l.v[0].len, 9);
	assert_int_equal(l.v[1].off, 10);
	assert_int_equal(l.v[1].len, 5);
	text_lines_release(&l);
}

/* ---- searching --------------------------------------------------------- */

static void test_find(void **state)
{
	assert_int_equal(text_find(LIT("Hello World"), LIT("world")), 6);
	assert_int_equal(text_find(LIT("Hello World"), LIT("WORLD")), 6);
	assert_int_equal(text_find(LIT("Hello World"), LIT("hello")), 0);
	assert_int_equal(text_find(LIT("Hello World"), LIT("o w")), 4);
	assert_int_equal(text_find(LIT("Hello World"), LIT("xyz")), -1);
	assert_int_equal(text_find(LIT("Hello World"), "", 0), 0);
	assert_int_equal(text_find("", 0, "", 0), 0);
	assert_int_equal(text_find("", 0, LIT("a")), -1);
	assert_int_equal(text_find(LIT("abc"), LIT("abcd")), -1);
	assert_int_equal(text_find(LIT("aaab"), LIT("AAB")), 1);
	assert_int_equal(text_find(LIT("abcab"), LIT("b")), 1);
	assert_int_equal(text_find(LIT("xyzAB"), LIT("ab")), 3);
	/* embedded NULs are ordinary bytes */
	assert_int_equal(text_find("a\0b\0c", 5, "\0C", 2), 3);
	/* folding is ASCII only: no locale surprises on UTF-8 bytes */
	assert_int_equal(text_find(LIT("\xc3\x84rger"), LIT("\xc3\xa4")), -1);
	assert_int_equal(text_find(LIT("\xc3\x84rger"), LIT("RGER")), 2);
	assert_int_equal(text_find(LIT("[@]"), LIT("`")), -1);
	assert_int_equal(text_find(LIT("x[y"), LIT("{")), -1);
}

/* ---- speed ------------------------------------------------------------- */

static void test_speed(void **state)
{
	struct buf in = BUF_INIT, out = BUF_INIT;
	struct text_lines l = TEXT_LINES_INIT;
	double t0, t_san, t_wrap, t_word;
	size_t i;

	for (i = 0; i < 200000; i++)
		buf_addf(&in, "+\tline %zu of a long diff with some text\r\n",
			 i);
	t0 = now();
	text_sanitize(&out, in.ptr, in.len, 8, TEXT_KEEP_NL);
	t_san = now() - t0;
	assert_sane_output(out.ptr, out.len, 1);

	t0 = now();
	text_wrap(&l, out.ptr, out.len, 30);
	t_wrap = now() - t0;
	assert_int_equal(l.nr, 400000);

	/* one word of 2 MB: must stay linear */
	buf_reset(&in);
	for (i = 0; i < 2000000; i++)
		buf_addch(&in, 'x');
	t0 = now();
	text_wrap(&l, in.ptr, in.len, 80);
	t_word = now() - t0;
	assert_int_equal(l.nr, 25000);

	print_message("sanitize %zu bytes: %.1f ms, wrap: %.1f ms, "
		      "2 MB word: %.1f ms\n", out.len, t_san * 1e3,
		      t_wrap * 1e3, t_word * 1e3);
	assert_true(t_san < 1.0);
	assert_true(t_wrap < 1.0);
	assert_true(t_word < 1.0);
	text_lines_release(&l);
	buf_release(&in);
	buf_release(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_ascii),
		cmocka_unit_test(test_appends),
		cmocka_unit_test(test_newlines),
		cmocka_unit_test(test_crlf),
		cmocka_unit_test(test_cr_overwrite),
		cmocka_unit_test(test_tabs),
		cmocka_unit_test(test_c0_controls),
		cmocka_unit_test(test_escape_sequences),
		cmocka_unit_test(test_c1_controls),
		cmocka_unit_test(test_invalid_utf8),
		cmocka_unit_test(test_bidi_controls),
		cmocka_unit_test(test_unprintable_become_replacement),
		cmocka_unit_test(test_keeps_wide_and_combining),
		cmocka_unit_test(test_sanitize_invariants),
		cmocka_unit_test(test_decode),
		cmocka_unit_test(test_valid_utf8),
		cmocka_unit_test(test_char_width),
		cmocka_unit_test(test_width),
		cmocka_unit_test(test_fit),
		cmocka_unit_test(test_skip_cols),
		cmocka_unit_test(test_truncate),
		cmocka_unit_test(test_wrap_words),
		cmocka_unit_test(test_wrap_long_words),
		cmocka_unit_test(test_wrap_paragraphs),
		cmocka_unit_test(test_wrap_cjk),
		cmocka_unit_test(test_wrap_offsets),
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_speed),
	};

	if (!setlocale(LC_ALL, "C.UTF-8"))
		fprintf(stderr, "t_text: no C.UTF-8 locale; widths will be "
			"wrong\n");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
