/* SPDX-License-Identifier: MIT */
/*
 * t_html: the HTML tokenizer of tui/html.c - tags, attributes, text and
 * character references, comments, and the broken input it must survive.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "core/base/buf.h"
#include "tui/html.h"

/* The tokens of s as "T(text) O(name/) C(name)" with attribute `attr`
 * shown as O(name attr=value). */
static char *tokens(const char *s, const char *attr)
{
	struct html_tok_state h;
	struct buf out = BUF_INIT, v = BUF_INIT;
	enum html_tok t;

	html_init(&h, s, strlen(s));
	while ((t = html_next(&h)) != HTML_END) {
		switch (t) {
		case HTML_TEXT:
			buf_addf(&out, "T(%s)", h.text.ptr);
			break;
		case HTML_OPEN:
			buf_addf(&out, "O(%s%s", h.name,
				 h.self_closing ? "/" : "");
			if (attr && html_attr(&h, attr, &v))
				buf_addf(&out, " %s=%s", attr, v.ptr);
			buf_addstr(&out, ")");
			break;
		case HTML_CLOSE:
			buf_addf(&out, "C(%s)", h.name);
			break;
		default:
			break;
		}
	}
	html_release(&h);
	buf_release(&v);
	return buf_detach(&out, NULL);
}

#define assert_tokens(s, attr, want) do { \
		char *got_ = tokens((s), (attr)); \
		assert_string_equal(got_, (want)); \
		free(got_); \
	} while (0)

static void test_tags_and_text(void **state)
{
	(void)state;
	assert_tokens("a <b>bold</b> c", NULL, "T(a )O(b)T(bold)C(b)T( c)");
	assert_tokens("<BR>x<br/>", NULL, "O(br)T(x)O(br/)");
	assert_tokens("<details>\n<summary>Env</summary>", NULL,
		      "O(details)T(\n)O(summary)T(Env)C(summary)");
	assert_tokens("", NULL, "");
}

static void test_attributes(void **state)
{
	(void)state;
	/* GitHub's pasted screenshot */
	assert_tokens("<img width=\"825\" height=\"479\" alt=\"Image\" "
		      "src=\"https://github.com/user-attachments/assets/0f\" "
		      "/>", "src",
		      "O(img/ src=https://github.com/user-attachments/"
		      "assets/0f)");
	assert_tokens("<img alt='it''s' src=x>", "alt", "O(img alt=it)");
	assert_tokens("<img ALT=unquoted src=x>", "alt",
		      "O(img alt=unquoted)");
	assert_tokens("<a href=\"https://e.org/?a=1&amp;b=2\">x</a>", "href",
		      "O(a href=https://e.org/?a=1&b=2)T(x)C(a)");
	/* a '>' inside quotes does not end the tag */
	assert_tokens("<img alt=\"a > b\" src=y>", "alt", "O(img alt=a > b)");
	/* a missing attribute */
	assert_tokens("<img src=y>", "alt", "O(img)");
	/* a valueless attribute does not swallow the next */
	assert_tokens("<details open title=t>", "title",
		      "O(details title=t)");
}

static void test_references(void **state)
{
	struct buf b = BUF_INIT;

	(void)state;
	assert_tokens("&lt;tag&gt; &amp; &quot;q&quot; &#39;s&#x27; &nbsp;",
		      NULL, "T(<tag> & \"q\" 's' \xc2\xa0)");
	/* unknown or unterminated references stay */
	assert_tokens("&bogus; & x &#12", NULL, "T(&bogus; & x &#12)");
	/* a NUL or a surrogate becomes U+FFFD */
	html_decode(&b, "&#0;&#xD800;", 12);
	assert_string_equal(b.ptr, "\xef\xbf\xbd\xef\xbf\xbd");
	buf_release(&b);
}

static void test_comments_and_broken_input(void **state)
{
	(void)state;
	assert_tokens("a<!-- hidden <b> -->b", NULL, "T(a)T(b)");
	assert_tokens("a<!-- never closed", NULL, "T(a)");
	assert_tokens("<!DOCTYPE html>x", NULL, "T(x)");
	/* a '<' that starts no tag is text */
	assert_tokens("1 < 2 and a<b", NULL, "T(1 < 2 and a)T(<b)");
	assert_tokens("x <3 y", NULL, "T(x <3 y)");
	/* an unterminated tag ends as text */
	assert_tokens("x <img src=\"a", NULL, "T(x )T(<img src=\"a)");
	/* long names are cut, not overflowed */
	assert_tokens("<abcdefghijklmnopqrstuvwxyz>", NULL,
		      "O(abcdefghijklmno)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tags_and_text),
		cmocka_unit_test(test_attributes),
		cmocka_unit_test(test_references),
		cmocka_unit_test(test_comments_and_broken_input),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
