/* SPDX-License-Identifier: MIT */
/*
 * markdown_inline: a block's inline content (markdown.c) - text, emphasis,
 * code spans, links and images, GitHub's emoji shortcodes, and inline
 * HTML (<img>, <a href>, <b>, <kbd> ... read with tui/html.c's
 * tokenizer) - collected into one buffer with a style per byte, then
 * wrapped at the width left after the container prefixes.
 */
#define _XOPEN_SOURCE_EXTENDED 1
#include <cmark-gfm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/text.h"
#include "tui/emoji.h"
#include "tui/html.h"
#include "tui/markdown.h"
#include "tui/markdown_int.h"

/* ---- inline content ------------------------------------------------- */

void md_para_add(struct md *m, const char *s, size_t len,
		 enum slot slot)
{
	size_t at = m->para.len;

	buf_add(&m->para, s, len);
	ALLOC_GROW(m->pslot, m->para.len + 1, m->pslot_alloc);
	memset(m->pslot + at, slot, len);
}

static void para_add_untrusted(struct md *m, const char *s, enum slot slot)
{
	if (!s)
		return;
	buf_reset(&m->tmp);
	text_sanitize(&m->tmp, s, strlen(s), 8, 0);
	md_para_add(m, m->tmp.ptr, m->tmp.len, slot);
}

static int shortcode_byte(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
	       c == '+' || c == '-';
}

/* Add sanitized text, its emoji shortcodes (":tada:") turned into the
 * emoji when the terminal shows UTF-8 (else kept as text). */
static void para_add_text(struct md *m, const char *s, size_t len,
			  enum slot slot)
{
	size_t i = 0, from = 0;

	while (draw_utf8() && i < len) {
		size_t j = i + 1;
		uint32_t cp;
		char u[4];

		if (s[i] != ':') {
			i++;
			continue;
		}
		while (j < len && j - i <= 40 &&
		       shortcode_byte((unsigned char)s[j]))
			j++;
		if (j >= len || s[j] != ':' || j == i + 1) {
			i = j < len && s[j] == ':' ? j : i + 1;
			continue;
		}
		cp = emoji_lookup(s + i + 1, j - i - 1);
		if (!cp || text_char_width(cp) < 1) {
			i = j;
			continue;
		}
		md_para_add(m, s + from, i - from, slot);
		md_para_add(m, u, text_encode(cp, u), slot);
		i = from = j + 1;
	}
	md_para_add(m, s + from, len - from, slot);
}

/* Text from the source (a text node, HTML text): sanitized, shortcodes
 * made emoji; in an HTML block runs of blanks and newlines are one
 * space, and none starts a line. */
void md_para_add_source(struct md *m, const char *s, size_t len,
			enum slot slot)
{
	struct buf b = BUF_INIT;
	size_t i;

	text_sanitize(&b, s, len, 8, TEXT_KEEP_NL);
	if (m->collapse) {
		struct buf c = BUF_INIT;

		for (i = 0; i < b.len; i++) {
			char ch = b.ptr[i];

			if (ch == ' ' || ch == '\n') {
				char last = c.len ? c.ptr[c.len - 1] :
					    m->para.len ?
					    m->para.ptr[m->para.len - 1] : '\n';

				if (last == ' ' || last == '\n')
					continue;
				ch = ' ';
			}
			buf_addch(&c, ch);
		}
		buf_release(&b);
		b = c;
	}
	para_add_text(m, b.ptr, b.len, slot);
	buf_release(&b);
}

/* Does a link's text say all its URL does?  Then the URL is not shown
 * again: an autolink ("https://x", "www.x", "a@b") is its own text. */
static int link_is_text(const char *text, size_t tlen, const char *url,
			size_t ulen)
{
	static const char *const schemes[] = { "", "http://", "mailto:" };
	size_t k;

	for (k = 0; k < sizeof(schemes) / sizeof(schemes[0]); k++) {
		size_t sl = strlen(schemes[k]);

		if (ulen == sl + tlen && !memcmp(url, schemes[k], sl) &&
		    !memcmp(url + sl, text, tlen))
			return 1;
	}
	return 0;
}

/* Append " <url>" (sanitized) unless the link text from para offset
 * `start` is the URL itself. */
static void add_url(struct md *m, size_t start, const char *url)
{
	struct buf u = BUF_INIT, t = BUF_INIT;

	if (!url || !*url)
		return;
	text_sanitize(&u, url, strlen(url), 8, 0);
	if (u.len && !link_is_text(m->para.ptr + start, m->para.len - start,
				   u.ptr, u.len)) {
		buf_addf(&t, " <%s>", u.ptr);
		md_para_add(m, t.ptr, t.len, SLOT_MD_LINK);
	}
	buf_release(&u);
	buf_release(&t);
}

/* ---- HTML ------------------------------------------------------------ */

static const struct {
	const char *name;
	enum slot slot;
	const char *open, *close;	/* text in place of the tags */
} html_inline[] = {
	{ "a", SLOT_MD_LINK, "", "" },
	{ "b", SLOT_MD_STRONG, "", "" },
	{ "strong", SLOT_MD_STRONG, "", "" },
	{ "i", SLOT_MD_EMPH, "", "" },
	{ "em", SLOT_MD_EMPH, "", "" },
	{ "u", SLOT_MD_EMPH, "", "" },
	{ "ins", SLOT_MD_EMPH, "", "" },
	{ "mark", SLOT_MD_STRONG, "", "" },
	{ "code", SLOT_MD_CODE, "`", "`" },
	{ "tt", SLOT_MD_CODE, "`", "`" },
	{ "samp", SLOT_MD_CODE, "`", "`" },
	{ "kbd", SLOT_MD_CODE, "[", "]" },
	{ "sub", SLOT_NORMAL, "_(", ")" },
	{ "sup", SLOT_NORMAL, "^(", ")" },
	{ "s", SLOT_NORMAL, "~~", "~~" },
	{ "del", SLOT_NORMAL, "~~", "~~" },
	{ "strike", SLOT_NORMAL, "~~", "~~" },
	{ "q", SLOT_NORMAL, "\"", "\"" },
};

static int inline_tag(const char *name)
{
	size_t k;

	for (k = 0; k < sizeof(html_inline) / sizeof(html_inline[0]); k++)
		if (!strcmp(html_inline[k].name, name))
			return (int)k;
	return -1;
}

/* The style of text under the open HTML tags (`cur` when none styles). */
enum slot md_html_slot(struct md *m, enum slot cur)
{
	int i;

	for (i = m->hsp > MAX_HTML ? MAX_HTML : m->hsp; i-- > 0;)
		if (m->hs[i].slot != SLOT_NORMAL)
			return m->hs[i].slot;
	return cur;
}

void md_html_reset(struct md *m)
{
	int i;

	for (i = 0; i < m->hsp && i < MAX_HTML; i++)
		free(m->hs[i].href);
	m->hsp = 0;
}

/* An <img>: "[image: ALT] <SRC>", as a Markdown image shows. */
static void html_img(struct md *m, const struct html_tok_state *h)
{
	struct buf alt = BUF_INIT, src = BUF_INIT;
	size_t start;

	if (html_attr(h, "alt", &alt) && alt.len) {
		md_para_add(m, "[image: ", 8, SLOT_MD_LINK);
		start = m->para.len;
		md_para_add_source(m, alt.ptr, alt.len, SLOT_MD_LINK);
		(void)start;
		md_para_add(m, "]", 1, SLOT_MD_LINK);
	} else {
		md_para_add(m, "[image]", 7, SLOT_MD_LINK);
	}
	if (html_attr(h, "src", &src) && src.len) {
		start = m->para.len;
		add_url(m, start, src.ptr);
	}
	buf_release(&alt);
	buf_release(&src);
}

/* An inline tag (or one inside an HTML block that is not a block). */
void md_html_inline_tag(struct md *m, const struct html_tok_state *h,
			enum slot cur)
{
	int k = inline_tag(h->name), i;

	if (h->kind == HTML_OPEN) {
		struct html_open *o;

		if (!strcmp(h->name, "img")) {
			html_img(m, h);
			return;
		}
		if (!strcmp(h->name, "br")) {
			md_para_add(m, "\n", 1, cur);
			return;
		}
		if (k < 0 || h->self_closing)
			return;
		if (html_inline[k].open[0])
			md_para_add(m, html_inline[k].open,
				    strlen(html_inline[k].open),
				    html_inline[k].slot != SLOT_NORMAL ?
				    html_inline[k].slot : md_html_slot(m, cur));
		if (m->hsp++ >= MAX_HTML)
			return;
		o = &m->hs[m->hsp - 1];
		snprintf(o->name, sizeof(o->name), "%s", h->name);
		o->slot = html_inline[k].slot;
		o->start = m->para.len;
		o->href = NULL;
		if (!strcmp(h->name, "a")) {
			struct buf href = BUF_INIT;

			if (html_attr(h, "href", &href))
				o->href = buf_detach(&href, NULL);
			buf_release(&href);
		}
		return;
	}
	if (h->kind != HTML_CLOSE || k < 0)
		return;
	/* close up to the matching open tag */
	for (i = (m->hsp > MAX_HTML ? MAX_HTML : m->hsp); i-- > 0;)
		if (!strcmp(m->hs[i].name, h->name))
			break;
	if (i < 0) {
		if (m->hsp > MAX_HTML)
			m->hsp--;
		return;
	}
	while (m->hsp > i) {
		struct html_open *o;
		int j;

		if (m->hsp > MAX_HTML) {
			m->hsp--;
			continue;
		}
		o = &m->hs[m->hsp - 1];
		j = inline_tag(o->name);
		if (!strcmp(o->name, "a"))
			add_url(m, o->start, o->href);
		if (j >= 0 && html_inline[j].close[0])
			md_para_add(m, html_inline[j].close,
				    strlen(html_inline[j].close),
				    html_inline[j].slot != SLOT_NORMAL ?
				    html_inline[j].slot : cur);
		free(o->href);
		o->href = NULL;
		m->hsp--;
	}
}

/* Inline HTML inside a paragraph: one tag (or a comment), usually. */
static void html_inline_piece(struct md *m, const char *lit, enum slot cur)
{
	struct html_tok_state h;

	if (!lit)
		return;
	html_init(&h, lit, strlen(lit));
	while (html_next(&h) != HTML_END) {
		if (h.kind == HTML_TEXT)
			md_para_add_source(m, h.text.ptr, h.text.len,
					   md_html_slot(m, cur));
		else
			md_html_inline_tag(m, &h, cur);
	}
	html_release(&h);
}

/* The spans open while a block's inlines are collected: emphasis,
 * strong text, links and images, each with its style (stack[0]: the
 * block's) and where a link's text starts; spans nested deeper than
 * MAX_STYLE are counted only. */
struct spans {
	enum slot stack[MAX_STYLE];
	size_t link_start[MAX_STYLE];
	int sp, deep;
};

/* Emphasis, strong text, a link or an image entered or left: an image
 * shows as "[image: ALT]" and a link or an image its URL after it. */
static void span(struct md *m, struct spans *sp, cmark_node *n, int enter)
{
	cmark_node_type type = cmark_node_get_type(n);

	if (enter) {
		enum slot s = type == CMARK_NODE_EMPH ? SLOT_MD_EMPH :
			      type == CMARK_NODE_STRONG ? SLOT_MD_STRONG :
			      SLOT_MD_LINK;

		if (type == CMARK_NODE_IMAGE)
			md_para_add(m, "[image: ", 8, SLOT_MD_LINK);
		if (sp->sp + 1 < MAX_STYLE) {
			sp->sp++;
			sp->stack[sp->sp] = s;
			sp->link_start[sp->sp] = m->para.len;
		} else {
			sp->deep++;
		}
		return;
	}
	if (sp->deep) {
		sp->deep--;
		return;
	}
	if (type == CMARK_NODE_LINK || type == CMARK_NODE_IMAGE) {
		const char *url = cmark_node_get_url(n);
		size_t ls = sp->link_start[sp->sp];

		if (type == CMARK_NODE_IMAGE)
			md_para_add(m, "]", 1, SLOT_MD_LINK);
		/* the URL unless the text is the URL (an autolink) */
		add_url(m, type == CMARK_NODE_IMAGE ? m->para.len : ls, url);
	}
	if (sp->sp > 0)
		sp->sp--;
}

/* Collect the inline content under `node` into m->para. */
void md_collect_inlines(struct md *m, cmark_node *node, enum slot base)
{
	cmark_iter *it = cmark_iter_new(node);
	struct spans sp;
	cmark_event_type ev;

	buf_reset(&m->para);
	md_html_reset(m);
	sp.sp = sp.deep = 0;
	sp.stack[0] = base;
	while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
		cmark_node *n = cmark_iter_get_node(it);
		cmark_node_type type = cmark_node_get_type(n);
		int enter = ev == CMARK_EVENT_ENTER;
		enum slot cur = sp.stack[sp.sp];
		const char *ts;

		if (n == node)
			continue;
		switch (type) {
		case CMARK_NODE_TEXT: {
			const char *lit = cmark_node_get_literal(n);

			if (lit)
				md_para_add_source(m, lit, strlen(lit),
						   sp.sp ? cur :
						   md_html_slot(m, cur));
			break;
		}
		case CMARK_NODE_CODE:
			md_para_add(m, "`", 1, SLOT_MD_CODE);
			para_add_untrusted(m, cmark_node_get_literal(n),
					   SLOT_MD_CODE);
			md_para_add(m, "`", 1, SLOT_MD_CODE);
			break;
		case CMARK_NODE_SOFTBREAK:
			/* GitHub shows a newline in an issue or comment as a
			 * line break */
			md_para_add(m, "\n", 1, cur);
			break;
		case CMARK_NODE_LINEBREAK:
			md_para_add(m, "\n", 1, cur);
			break;
		case CMARK_NODE_HTML_INLINE:
			html_inline_piece(m, cmark_node_get_literal(n), cur);
			break;
		case CMARK_NODE_FOOTNOTE_REFERENCE:
			md_para_add(m, "[^", 2, SLOT_MD_LINK);
			para_add_untrusted(m, cmark_node_get_literal(n),
					   SLOT_MD_LINK);
			md_para_add(m, "]", 1, SLOT_MD_LINK);
			break;
		case CMARK_NODE_EMPH:
		case CMARK_NODE_STRONG:
		case CMARK_NODE_LINK:
		case CMARK_NODE_IMAGE:
			span(m, &sp, n, enter);
			break;
		default:
			ts = cmark_node_get_type_string(n);
			if (ts && !strcmp(ts, "strikethrough"))
				md_para_add(m, "~~", 2, cur);
			break;
		}
	}
	md_html_reset(m);
	cmark_iter_free(it);
}

/* Emit m->para wrapped, the first line starting with `lead`. */
void md_emit_para(struct md *m, enum slot base)
{
	size_t i, b;

	text_wrap(&m->wrap, m->para.ptr, m->para.len, md_text_cols(m));
	for (i = 0; i < m->wrap.nr; i++) {
		size_t off = m->wrap.v[i].off, len = m->wrap.v[i].len;

		md_line_begin(m, base, 0, md_anchor(m, off));
		b = off;
		while (b < off + len) {
			size_t e = b + 1;

			while (e < off + len && m->pslot[e] == m->pslot[b])
				e++;
			doc_put(m->d, m->para.ptr + b, e - b,
				(enum slot)m->pslot[b]);
			b = e;
		}
		md_line_end(m);
	}
}
