/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the HTML in issues and comments: tui/html's
 * tokenizer on its own, and tui/markdown, which hands it the HTML that
 * cmark-gfm finds in the Markdown.  Whatever the bytes:
 *  - tokens move forward and stay inside the text; tag names are short
 *    and lower case; attributes lie inside the text; attribute lookups
 *    answer; decoding references never makes the text longer;
 *  - the rendering's lines are sanitized UTF-8 with no control
 *    characters, their spans inside them, anchors going up and below
 *    MD_ANCHOR_SPAN, source lines inside the text; <details> sections
 *    toggle.
 * The first byte picks the width (1 to 128 columns).  Build with `make
 * fuzz`; run as `tests/fuzz/fuzz_html -max_total_time=60
 * tests/fuzz/seeds/html`.
 */
#include <locale.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/buf.h"
#include "core/base/text.h"
#include "tui/doc.h"
#include "tui/html.h"
#include "tui/markdown.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void tokens(const char *s, size_t len)
{
	static const char *const names[] = { "href", "src", "alt", "open",
					      "align" };
	struct html_tok_state h;
	struct buf v = BUF_INIT;
	enum html_tok t;
	size_t last = 0, i;

	html_init(&h, s, len);
	while ((t = html_next(&h)) != HTML_END) {
		if (h.pos <= last || h.pos > len)
			abort();
		last = h.pos;
		if (t == HTML_OPEN || t == HTML_CLOSE) {
			size_t n = strlen(h.name);

			if (n >= sizeof(h.name))
				abort();
			for (i = 0; i < n; i++)
				if (h.name[i] >= 'A' && h.name[i] <= 'Z')
					abort();
		}
		if (t == HTML_OPEN) {
			if (h.attrs < s || h.attrs + h.attrs_len > s + len)
				abort();
			for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
				if (html_attr(&h, names[i], &v) &&
				    v.len > h.attrs_len)
					abort();
		} else if (t == HTML_TEXT && !h.text.ptr) {
			abort();
		}
	}
	buf_reset(&v);
	html_decode(&v, s, len);
	if (v.len > len)
		abort();
	buf_release(&v);
	html_release(&h);
}

static void check_doc(const struct doc *d, int src_lines)
{
	unsigned long long anchor = 0;
	size_t i, j;

	for (i = 0; i < d->nr; i++) {
		const struct doc_line *l = &d->lines[i];
		const char *s = d->text.ptr + l->off;

		if (l->off + l->len > d->text.len ||
		    !text_valid_utf8(s, l->len) ||
		    l->anchor < anchor || l->anchor >= MD_ANCHOR_SPAN ||
		    l->src_first < 0 || l->src_last < l->src_first ||
		    l->src_last > src_lines ||
		    l->span0 + l->nr_spans > d->nr_spans)
			abort();
		anchor = l->anchor;
		for (j = 0; j < l->len; j++) {
			unsigned char c = (unsigned char)s[j];

			if (c < 0x20 || c == 0x7f)
				abort();
		}
		for (j = l->span0; j < l->span0 + l->nr_spans; j++)
			if (d->spans[j].start > d->spans[j].end ||
			    d->spans[j].end > l->len)
				abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int init;
	struct doc d = DOC_INIT;
	struct md_sections sec = MD_SECTIONS_INIT;
	const char *s = (const char *)data + 1;
	size_t len, i;
	int width, lines = 1;

	if (!init) {
		setlocale(LC_ALL, "C.UTF-8");
		init = 1;
	}
	if (!size)
		return 0;
	width = data[0] % 128 + 1;
	len = size - 1;
	/* lines as cmark-gfm counts them: LF, CRLF or a lone CR end one */
	for (i = 0; i < len; i++)
		lines += s[i] == '\n' ||
			 (s[i] == '\r' && (i + 1 == len || s[i + 1] != '\n'));
	tokens(s, len);
	md_render(&d, s, len, width, 0);
	check_doc(&d, lines);
	doc_clear(&d);
	md_render_sections(&d, s, len, width, MD_ANCHOR_SPAN, &sec);
	if (sec.nr) {
		md_sections_toggle(&sec, 0);
		md_sections_toggle(&sec, sec.nr - 1);
		doc_clear(&d);
		sec.nr = 0;
		md_render_sections(&d, s, len, width, 0, &sec);
		check_doc(&d, lines);
	}
	md_sections_release(&sec);
	doc_release(&d);
	return 0;
}
