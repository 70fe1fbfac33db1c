/* SPDX-License-Identifier: MIT */
/*
 * markdown: cmark-gfm AST -> display lines (see markdown.h).
 *
 * The AST is walked with cmark's iterator, never recursively, so hostile
 * nesting cannot overflow the stack; container prefixes (quote bars,
 * bullets) nest up to MAX_DEPTH levels and deeper levels share the last
 * indentation.  Inline content of a paragraph is collected into one
 * buffer with a style per byte, then wrapped with text_wrap() at the
 * width left after the prefixes.
 *
 * HTML (inline tags, and HTML blocks) is read with tui/html.c's
 * tokenizer and shown the way GitHub shows it: <img> as "[image: ALT]
 * <URL>" like a Markdown image, <a href> as a link, <b> <i> <code> <kbd>
 * <sub> <sup> <br> with their meaning in text, <details> as a section
 * whose <summary> is a title line and whose body can be closed (struct
 * md_sections); any other tag shows its text only.  Text and URLs from
 * HTML are sanitized like the rest.  GitHub's emoji shortcodes in text
 * become the emoji on a UTF-8 terminal.
 *
 * Limitations: a span nested in another takes the inner style only;
 * footnote definitions are shown where they stand, not at the end; HTML
 * tables are read as lines of text, not laid out.
 */
#define _XOPEN_SOURCE_EXTENDED 1
#include "tui/markdown.h"

#include <cmark-gfm.h>
#include <cmark-gfm-core-extensions.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/text.h"
#include "tui/emoji.h"
#include "tui/html.h"

#define MAX_DEPTH 24
#define MAX_HTML 16		/* inline HTML tags open at once */
#define MAX_SECTIONS 16		/* <details> open at once */
#define MAX_STYLE 64
#define MIN_WIDTH 12

enum ctr_kind { CTR_QUOTE, CTR_LIST, CTR_ITEM, CTR_NOTE };

struct container {
	enum ctr_kind kind;
	char first[24];		/* prefix of the first line */
	char rest[24];		/* prefix of the lines after it */
	enum slot slot;
	int used;		/* first line emitted */
	int tight;		/* lists and their items */
	int ordered, number;	/* lists: next item number */
};

struct md {
	struct doc *d;
	int vbase;		/* source line of verbatim line 0; 0: none */
	int width;
	const char *src;
	size_t srclen;
	struct container ctr[MAX_DEPTH];
	int depth;		/* may exceed MAX_DEPTH; extra levels are
				   not stored */
	int need_blank;
	int emitted;		/* lines emitted so far */
	unsigned long long base;
	unsigned block;
	struct buf para;	/* inline text of the current block */
	unsigned char *pslot;	/* style of every byte of para */
	size_t pslot_alloc;
	struct buf tmp;
	struct text_lines wrap;
	size_t *line_at;	/* source line n starts at line_at[n - 1] */
	size_t nr_lines, alloc_lines;	/* (built on first use) */
	/* inline HTML tags open: their style, and a link's target */
	struct html_open {
		char name[16];
		enum slot slot;
		size_t start;	/* para offset of a link's text */
		char *href;	/* owned */
	} hs[MAX_HTML];
	int hsp;
	int collapse;		/* in an HTML block: blanks collapse */
	/* <details> open */
	struct md_sections *sec;
	struct section {
		size_t k;	/* its number */
		size_t body;	/* doc line where its body starts */
		int closed, titled;
	} secs[MAX_SECTIONS];
	int nsec;		/* may exceed MAX_SECTIONS */
	int in_summary;
	size_t nr_sections;	/* numbering without a struct md_sections */
};

static void section_title(struct md *m, const char *title);

/* The anchor of a line starting at byte `off` of the current block; never
 * below the line before's (a blank line or a rule after a block of
 * several lines would be), as doc_find_anchor() bisects. */
static unsigned long long anchor(struct md *m, size_t off)
{
	unsigned long long a;

	if (off > 0xfffff)
		off = 0xfffff;
	a = m->base + ((unsigned long long)(m->block & 0xfffff) << 20) + off;
	if (m->d->nr && m->d->lines[m->d->nr - 1].anchor > a)
		a = m->d->lines[m->d->nr - 1].anchor;
	return a;
}

/* The lines rendered from here on come from block n's source lines. */
static void src_block(struct md *m, cmark_node *n)
{
	int first = cmark_node_get_start_line(n);
	int last = cmark_node_get_end_line(n);

	/* cmark-gfm ends an HTML block that opens a quote's line ("><?x?>")
	 * on the line before it starts */
	doc_source(m->d, first, last < first ? first : last);
}

static struct container *top(struct md *m)
{
	if (m->depth <= 0)
		return NULL;
	return &m->ctr[(m->depth > MAX_DEPTH ? MAX_DEPTH : m->depth) - 1];
}

static struct container *push(struct md *m, enum ctr_kind kind,
			      const char *first, const char *rest,
			      enum slot slot)
{
	struct container *c;

	m->depth++;
	if (m->depth > MAX_DEPTH)
		return NULL;
	c = &m->ctr[m->depth - 1];
	memset(c, 0, sizeof(*c));
	c->kind = kind;
	snprintf(c->first, sizeof(c->first), "%s", first);
	snprintf(c->rest, sizeof(c->rest), "%s", rest);
	c->slot = slot;
	return c;
}

static void pop(struct md *m)
{
	if (m->depth > 0)
		m->depth--;
}

static int stored_depth(struct md *m)
{
	return m->depth > MAX_DEPTH ? MAX_DEPTH : m->depth;
}

static int prefix_width(struct md *m)
{
	int i, w = 0;

	for (i = 0; i < stored_depth(m); i++)
		w += text_width(m->ctr[i].rest, strlen(m->ctr[i].rest));
	return w;
}

static int text_cols(struct md *m)
{
	int w = m->width - prefix_width(m);

	return w < MIN_WIDTH ? MIN_WIDTH : w;
}

/* Begin a display line with the container prefixes. */
static void line_begin(struct md *m, enum slot slot, int verbatim,
		       unsigned long long a)
{
	int i;

	doc_begin(m->d, slot, verbatim, a);
	for (i = 0; i < stored_depth(m); i++) {
		struct container *c = &m->ctr[i];

		doc_puts(m->d, c->used ? c->rest : c->first, c->slot);
		c->used = 1;
	}
	m->emitted++;
}

static void line_end(struct md *m)
{
	doc_end(m->d);
}

/* A blank line between blocks, unless in a tight list. */
static void blank(struct md *m)
{
	struct container *c = top(m);
	int i;

	/* a section's body begins without a <summary>: GitHub titles it */
	if (m->nsec > 0 && m->nsec <= MAX_SECTIONS &&
	    !m->secs[m->nsec - 1].titled && !m->in_summary)
		section_title(m, "Details");

	if (c && (c->kind == CTR_ITEM || c->kind == CTR_LIST) && c->tight) {
		m->need_blank = 0;
		return;
	}
	if (!m->need_blank || !m->emitted) {
		m->need_blank = 0;
		return;
	}
	m->need_blank = 0;
	doc_begin(m->d, SLOT_NORMAL, 0, anchor(m, 0));
	/* quote bars continue through the blank line; bullets do not */
	for (i = 0; i < stored_depth(m); i++) {
		struct container *k = &m->ctr[i];
		const char *p = k->used ? k->rest : k->first;
		size_t n = strlen(p);

		if (k->kind == CTR_QUOTE) {
			doc_puts(m->d, glyph(G_QUOTE), k->slot);
			if (i + 1 < stored_depth(m))
				doc_put(m->d, " ", 1, k->slot);
		} else if (i + 1 < stored_depth(m)) {
			int w = text_width(p, n);

			while (w-- > 0)
				doc_put(m->d, " ", 1, SLOT_NORMAL);
		}
	}
	doc_end(m->d);
}

/* ---- inline content ------------------------------------------------- */

static void para_add(struct md *m, const char *s, size_t len,
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
	para_add(m, m->tmp.ptr, m->tmp.len, slot);
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
		para_add(m, s + from, i - from, slot);
		para_add(m, u, text_encode(cp, u), slot);
		i = from = j + 1;
	}
	para_add(m, s + from, len - from, slot);
}

/* Text from the source (a text node, HTML text): sanitized, shortcodes
 * made emoji; in an HTML block runs of blanks and newlines are one
 * space, and none starts a line. */
static void para_add_source(struct md *m, const char *s, size_t len,
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
		para_add(m, t.ptr, t.len, SLOT_MD_LINK);
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
static enum slot html_slot(struct md *m, enum slot cur)
{
	int i;

	for (i = m->hsp > MAX_HTML ? MAX_HTML : m->hsp; i-- > 0;)
		if (m->hs[i].slot != SLOT_NORMAL)
			return m->hs[i].slot;
	return cur;
}

static void html_reset(struct md *m)
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
		para_add(m, "[image: ", 8, SLOT_MD_LINK);
		start = m->para.len;
		para_add_source(m, alt.ptr, alt.len, SLOT_MD_LINK);
		(void)start;
		para_add(m, "]", 1, SLOT_MD_LINK);
	} else {
		para_add(m, "[image]", 7, SLOT_MD_LINK);
	}
	if (html_attr(h, "src", &src) && src.len) {
		start = m->para.len;
		add_url(m, start, src.ptr);
	}
	buf_release(&alt);
	buf_release(&src);
}

/* An inline tag (or one inside an HTML block that is not a block). */
static void html_inline_tag(struct md *m, const struct html_tok_state *h,
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
			para_add(m, "\n", 1, cur);
			return;
		}
		if (k < 0 || h->self_closing)
			return;
		if (html_inline[k].open[0])
			para_add(m, html_inline[k].open,
				 strlen(html_inline[k].open),
				 html_inline[k].slot != SLOT_NORMAL ?
				 html_inline[k].slot : html_slot(m, cur));
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
			para_add(m, html_inline[j].close,
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
			para_add_source(m, h.text.ptr, h.text.len,
					html_slot(m, cur));
		else
			html_inline_tag(m, &h, cur);
	}
	html_release(&h);
}

/* Collect the inline content under `node` into m->para. */
static void collect_inlines(struct md *m, cmark_node *node, enum slot base)
{
	cmark_iter *it = cmark_iter_new(node);
	enum slot stack[MAX_STYLE];
	size_t link_start[MAX_STYLE];
	int sp = 0, deep = 0;
	cmark_event_type ev;

	buf_reset(&m->para);
	html_reset(m);
	stack[0] = base;
	while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
		cmark_node *n = cmark_iter_get_node(it);
		cmark_node_type type = cmark_node_get_type(n);
		int enter = ev == CMARK_EVENT_ENTER;
		enum slot cur = stack[sp];
		const char *ts;

		if (n == node)
			continue;
		switch (type) {
		case CMARK_NODE_TEXT: {
			const char *lit = cmark_node_get_literal(n);

			if (lit)
				para_add_source(m, lit, strlen(lit), sp ? cur :
						html_slot(m, cur));
			break;
		}
		case CMARK_NODE_CODE:
			para_add(m, "`", 1, SLOT_MD_CODE);
			para_add_untrusted(m, cmark_node_get_literal(n),
					   SLOT_MD_CODE);
			para_add(m, "`", 1, SLOT_MD_CODE);
			break;
		case CMARK_NODE_SOFTBREAK:
			/* GitHub shows a newline in an issue or comment as a
			 * line break */
			para_add(m, "\n", 1, cur);
			break;
		case CMARK_NODE_LINEBREAK:
			para_add(m, "\n", 1, cur);
			break;
		case CMARK_NODE_HTML_INLINE:
			html_inline_piece(m, cmark_node_get_literal(n), cur);
			break;
		case CMARK_NODE_FOOTNOTE_REFERENCE:
			para_add(m, "[^", 2, SLOT_MD_LINK);
			para_add_untrusted(m, cmark_node_get_literal(n),
					   SLOT_MD_LINK);
			para_add(m, "]", 1, SLOT_MD_LINK);
			break;
		case CMARK_NODE_EMPH:
		case CMARK_NODE_STRONG:
		case CMARK_NODE_LINK:
		case CMARK_NODE_IMAGE:
			if (enter) {
				enum slot s = type == CMARK_NODE_EMPH ?
					SLOT_MD_EMPH : type ==
					CMARK_NODE_STRONG ? SLOT_MD_STRONG :
					SLOT_MD_LINK;

				if (type == CMARK_NODE_IMAGE)
					para_add(m, "[image: ", 8,
						 SLOT_MD_LINK);
				if (sp + 1 < MAX_STYLE) {
					sp++;
					stack[sp] = s;
					link_start[sp] = m->para.len;
				} else {
					deep++;
				}
				break;
			}
			if (deep) {
				deep--;
				break;
			}
			if (type == CMARK_NODE_LINK ||
			    type == CMARK_NODE_IMAGE) {
				const char *url = cmark_node_get_url(n);
				size_t ls = link_start[sp];

				if (type == CMARK_NODE_IMAGE)
					para_add(m, "]", 1, SLOT_MD_LINK);
				/* the URL unless the text is the URL (an
				 * autolink) */
				add_url(m, type == CMARK_NODE_IMAGE ?
					m->para.len : ls, url);
			}
			if (sp > 0)
				sp--;
			break;
		default:
			ts = cmark_node_get_type_string(n);
			if (ts && !strcmp(ts, "strikethrough"))
				para_add(m, "~~", 2, cur);
			break;
		}
	}
	html_reset(m);
	cmark_iter_free(it);
}

/* Emit m->para wrapped, the first line starting with `lead`. */
static void emit_para(struct md *m, enum slot base)
{
	size_t i, b;

	text_wrap(&m->wrap, m->para.ptr, m->para.len, text_cols(m));
	for (i = 0; i < m->wrap.nr; i++) {
		size_t off = m->wrap.v[i].off, len = m->wrap.v[i].len;

		line_begin(m, base, 0, anchor(m, off));
		b = off;
		while (b < off + len) {
			size_t e = b + 1;

			while (e < off + len && m->pslot[e] == m->pslot[b])
				e++;
			doc_put(m->d, m->para.ptr + b, e - b,
				(enum slot)m->pslot[b]);
			b = e;
		}
		line_end(m);
	}
}

/* ---- verbatim blocks ------------------------------------------------ */

/* One verbatim source line, sanitized with tabs expanded. */
static void verbatim_line(struct md *m, const char *s, size_t len,
			  enum slot slot, const char *indent, size_t nr)
{
	buf_reset(&m->tmp);
	text_sanitize(&m->tmp, s, len, 8, 0);
	if (m->vbase > 0)
		doc_source(m->d, m->vbase + (int)nr, m->vbase + (int)nr);
	line_begin(m, slot, 1, anchor(m, nr));
	if (indent)
		doc_puts(m->d, indent, slot);
	doc_put(m->d, m->tmp.ptr, m->tmp.len, slot);
	line_end(m);
}

static void verbatim_text(struct md *m, const char *lit, enum slot slot,
			  const char *indent)
{
	const char *p = lit ? lit : "";
	size_t nr = 0;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		verbatim_line(m, p, len, slot, indent, nr++);
		if (!nl)
			break;
		p = nl + 1;
	}
}

static void code_block(struct md *m, cmark_node *n)
{
	int flen = 0, foff = 0, first;
	char fch = 0;

	if (cmark_node_get_fenced(n, &flen, &foff, &fch)) {
		char fence[32];
		int i;

		if (flen < 3 || flen > 30)
			flen = 3;
		for (i = 0; i < flen; i++)
			fence[i] = fch == '~' ? '~' : '`';
		fence[flen] = '\0';
		first = cmark_node_get_start_line(n);
		doc_source(m->d, first, first);
		line_begin(m, SLOT_MD_CODEBLOCK, 1, anchor(m, 0));
		doc_puts(m->d, fence, SLOT_MD_CODEBLOCK);
		doc_put_untrusted(m->d, cmark_node_get_fence_info(n),
				  SLOT_MD_CODEBLOCK);
		line_end(m);
		m->vbase = first + 1;
		verbatim_text(m, cmark_node_get_literal(n), SLOT_MD_CODEBLOCK,
			      NULL);
		m->vbase = 0;
		doc_source(m->d, cmark_node_get_end_line(n),
			   cmark_node_get_end_line(n));
		line_begin(m, SLOT_MD_CODEBLOCK, 1, anchor(m, 0xffffe));
		doc_puts(m->d, fence, SLOT_MD_CODEBLOCK);
		line_end(m);
	} else {
		m->vbase = cmark_node_get_start_line(n);
		verbatim_text(m, cmark_node_get_literal(n), SLOT_MD_CODEBLOCK,
			      "    ");
		m->vbase = 0;
	}
}

/* Source line n (1-based, without its '\n'), or NULL past the end.  The
 * line starts are found once per document: a paragraph looks up its own
 * lines without reading the source from the top, which made a body of
 * many short paragraphs quadratic. */
static const char *src_line(struct md *m, int n, size_t *len)
{
	size_t start, end;

	if (!m->line_at) {
		const char *p = m->src, *stop = m->src + m->srclen, *nl;

		ALLOC_GROW(m->line_at, 1, m->alloc_lines);
		m->line_at[m->nr_lines++] = 0;
		while (p < stop &&
		       (nl = memchr(p, '\n', (size_t)(stop - p)))) {
			ALLOC_GROW(m->line_at, m->nr_lines + 1,
				   m->alloc_lines);
			m->line_at[m->nr_lines++] = (size_t)(nl + 1 - m->src);
			p = nl + 1;
		}
	}
	if (n < 1 || (size_t)n > m->nr_lines)
		return NULL;
	start = m->line_at[n - 1];
	if (start >= m->srclen)
		return NULL;
	end = (size_t)n < m->nr_lines ? m->line_at[n] - 1 : m->srclen;
	*len = end - start;
	return m->src + start;
}

/* The source lines first..last (1-based) of a block, verbatim, with the
 * container markers of its first `col` - 1 columns taken off. */
static void source_lines(struct md *m, int first, int last, int col)
{
	const char *p;
	size_t nr = 0, len;
	int line;

	m->vbase = first < 1 ? 1 : first;
	for (line = first < 1 ? 1 : first; line <= last; line++) {
		int k = 0;

		if (!(p = src_line(m, line, &len)))
			break;
		while (k < col - 1 && (size_t)k < len &&
		       (p[k] == ' ' || p[k] == '>' || p[k] == '\t'))
			k++;
		if (len > (size_t)k && p[len - 1] == '\r')
			len--;
		verbatim_line(m, p + k, len - (size_t)k, SLOT_MD_CODEBLOCK,
			      NULL, nr++);
	}
	m->vbase = 0;
}

static int is_traceback(struct md *m, cmark_node *n)
{
	int first = cmark_node_get_start_line(n);
	int last = cmark_node_get_end_line(n);
	const char *p;
	size_t len;
	int line;

	for (line = first < 1 ? 1 : first; line <= last; line++) {
		if (!(p = src_line(m, line, &len)))
			break;
		if (text_find(p, len, "Traceback (most recent call last)",
			      33) >= 0)
			return 1;
	}
	return 0;
}

/* ---- tables --------------------------------------------------------- */

struct cell {
	char *text;	/* sanitized, owned */
	int width;
};

static void table(struct md *m, cmark_node *tbl)
{
	int ncols = cmark_gfm_extensions_get_table_columns(tbl);
	uint8_t *align = cmark_gfm_extensions_get_table_alignments(tbl);
	cmark_node *row, *cell;
	struct cell *cells = NULL;
	int *colw, nrows = 0, r, c;
	size_t alloc = 0;

	if (ncols <= 0 || ncols > 256)
		return;
	colw = xcalloc((size_t)ncols, sizeof(*colw));
	for (row = cmark_node_first_child(tbl); row;
	     row = cmark_node_next(row)) {
		ALLOC_GROW(cells, (size_t)(nrows + 1) * (size_t)ncols, alloc);
		for (c = 0, cell = cmark_node_first_child(row); c < ncols;
		     c++) {
			struct cell *k = &cells[nrows * ncols + c];

			if (cell) {
				char *nl;

				collect_inlines(m, cell, SLOT_NORMAL);
				k->text = xstrndup(m->para.ptr, m->para.len);
				/* a row is one line: a <br> in a cell (GitHub
				 * tables use them) is a space */
				while ((nl = strchr(k->text, '\n')))
					*nl = ' ';
				cell = cmark_node_next(cell);
			} else {
				k->text = xstrdup("");
			}
			k->width = text_width(k->text, strlen(k->text));
			if (k->width > colw[c])
				colw[c] = k->width;
		}
		nrows++;
	}
	/* " a │ b " with the header bold and ruled off */
	for (r = 0; r < nrows; r++) {
		int header = r == 0;

		line_begin(m, header ? SLOT_MD_STRONG : SLOT_NORMAL, 1,
			   anchor(m, (size_t)r));
		for (c = 0; c < ncols; c++) {
			struct cell *k = &cells[r * ncols + c];
			int gap = colw[c] - k->width, left = 0, i;

			if (align && align[c] == 'r')
				left = gap;
			else if (align && align[c] == 'c')
				left = gap / 2;
			if (c)
				doc_puts(m->d, glyph(G_QUOTE), SLOT_MD_RULE);
			doc_puts(m->d, " ", SLOT_NORMAL);
			for (i = 0; i < left; i++)
				doc_put(m->d, " ", 1, SLOT_NORMAL);
			doc_puts(m->d, k->text, header ? SLOT_MD_STRONG :
				 SLOT_NORMAL);
			for (i = left; i < gap + 1; i++)
				doc_put(m->d, " ", 1, SLOT_NORMAL);
		}
		line_end(m);
		if (header) {
			line_begin(m, SLOT_MD_RULE, 1, anchor(m, 0));
			for (c = 0; c < ncols; c++) {
				int i;

				if (c)
					doc_puts(m->d, glyph(G_CROSS),
						 SLOT_MD_RULE);
				for (i = 0; i < colw[c] + 2; i++)
					doc_puts(m->d, glyph(G_RULE),
						 SLOT_MD_RULE);
			}
			line_end(m);
		}
	}
	for (r = 0; r < nrows * ncols; r++)
		free(cells[r].text);
	free(cells);
	free(colw);
}

/* ---- HTML blocks and <details> sections ------------------------------ */

static int is_heading(const char *n)
{
	return n[0] == 'h' && n[1] >= '1' && n[1] <= '6' && !n[2];
}

/* Tags that end the text before them and start a new block. */
static int block_tag(const char *n)
{
	static const char *const names[] = {
		"p", "div", "details", "summary", "hr", "ul", "ol", "li",
		"table", "thead", "tbody", "tr", "td", "th", "blockquote",
		"pre", "center", "section", "article", "dl", "dt", "dd",
		"picture", "figure", "figcaption",
	};
	size_t k;

	if (is_heading(n))
		return 1;
	for (k = 0; k < sizeof(names) / sizeof(names[0]); k++)
		if (!strcmp(names[k], n))
			return 1;
	return 0;
}

/* Emit the text collected from an HTML block as a paragraph. */
static void html_flush(struct md *m, enum slot base)
{
	size_t i;

	while (m->para.len && (m->para.ptr[m->para.len - 1] == ' ' ||
			       m->para.ptr[m->para.len - 1] == '\n'))
		buf_setlen(&m->para, m->para.len - 1);
	for (i = 0; i < m->para.len; i++)
		if (m->para.ptr[i] != ' ' && m->para.ptr[i] != '\n')
			break;
	if (i < m->para.len) {
		blank(m);
		emit_para(m, base);
		m->need_blank = 1;
	}
	buf_reset(&m->para);
}

static struct section *open_section(struct md *m)
{
	return m->nsec > 0 && m->nsec <= MAX_SECTIONS ?
	       &m->secs[m->nsec - 1] : NULL;
}

/* The title line of the section just opened: its <summary> text in
 * m->para, or GitHub's "Details" when `title` says so. */
static void section_title(struct md *m, const char *title)
{
	struct section *sc = open_section(m);
	struct buf keep = BUF_INIT;
	unsigned char *kslot = NULL;

	if (!sc || sc->titled)
		return;
	sc->titled = 1;
	if (title) {
		/* the text being collected waits for the title */
		buf_add(&keep, m->para.ptr, m->para.len);
		if (m->para.len) {
			kslot = xmalloc(m->para.len);
			memcpy(kslot, m->pslot, m->para.len);
		}
		buf_reset(&m->para);
		para_add(m, title, strlen(title), SLOT_MD_STRONG);
	}
	/* the mark in front */
	{
		const char *g = glyph(sc->closed ? G_CLOSED : G_OPEN);
		size_t gl = strlen(g), at = m->para.len;

		buf_grow(&m->para, gl + 1);
		memmove(m->para.ptr + gl + 1, m->para.ptr, at);
		memcpy(m->para.ptr, g, gl);
		m->para.ptr[gl] = ' ';
		buf_setlen(&m->para, at + gl + 1);
		ALLOC_GROW(m->pslot, m->para.len + 1, m->pslot_alloc);
		memmove(m->pslot + gl + 1, m->pslot, at);
		memset(m->pslot, SLOT_MD_HEADING, gl + 1);
	}
	m->need_blank = m->emitted > 0;
	if (m->need_blank) {
		/* blank() would title again: write the blank line here */
		m->in_summary = 1;
		blank(m);
		m->in_summary = 0;
	}
	if (m->sec) {
		ALLOC_GROW(m->sec->title, sc->k + 1, m->sec->alloc_title);
		m->sec->title[sc->k] = m->d->nr;
	}
	m->block++;
	emit_para(m, SLOT_MD_STRONG);
	buf_reset(&m->para);
	sc->body = m->d->nr;
	m->need_blank = 0;
	if (title) {
		buf_add(&m->para, keep.ptr, keep.len);
		if (keep.len) {
			ALLOC_GROW(m->pslot, m->para.len + 1, m->pslot_alloc);
			memcpy(m->pslot, kslot, keep.len);
		}
	}
	buf_release(&keep);
	free(kslot);
}

static void details_open(struct md *m)
{
	struct section *sc;
	size_t k = m->sec ? m->sec->nr++ : m->nr_sections++;

	if (m->nsec++ >= MAX_SECTIONS)
		return;
	sc = &m->secs[m->nsec - 1];
	memset(sc, 0, sizeof(*sc));
	sc->k = k;
	sc->closed = m->sec && k < m->sec->alloc_closed && m->sec->closed[k];
	sc->body = m->d->nr;
}

static void details_close(struct md *m)
{
	struct section *sc = open_section(m);

	if (m->nsec <= 0)
		return;
	if (sc) {
		if (!sc->titled)
			section_title(m, "Details");
		/* a closed section keeps its title only */
		if (sc->closed) {
			doc_truncate(m->d, sc->body);
			m->need_blank = 1;
		}
	}
	m->nsec--;
}

/* An HTML block: its text wrapped like a paragraph, its tags read. */
static void html_block(struct md *m, const char *lit)
{
	struct html_tok_state h;
	enum slot base = SLOT_NORMAL;

	if (!lit)
		return;
	html_init(&h, lit, strlen(lit));
	buf_reset(&m->para);
	html_reset(m);
	m->collapse = 1;
	while (html_next(&h) != HTML_END) {
		const char *n = h.name;

		if (h.kind == HTML_TEXT) {
			para_add_source(m, h.text.ptr, h.text.len,
					html_slot(m, m->in_summary ?
						  SLOT_MD_STRONG : base));
			continue;
		}
		if (!block_tag(n)) {
			html_inline_tag(m, &h, base);
			continue;
		}
		if (h.kind == HTML_OPEN && !strcmp(n, "summary")) {
			struct section *sc = open_section(m);

			if (sc && !sc->titled) {
				html_flush(m, base);
				m->in_summary = 1;
			}
			continue;
		}
		if (h.kind == HTML_CLOSE && !strcmp(n, "summary")) {
			if (m->in_summary) {
				m->in_summary = 0;
				while (m->para.len && m->para.ptr[m->para.len
								   - 1] == ' ')
					buf_setlen(&m->para, m->para.len - 1);
				/* the text collected is the title */
				section_title(m, NULL);
			}
			continue;
		}
		if (m->in_summary)
			continue;
		html_flush(m, base);
		if (h.kind == HTML_OPEN && !strcmp(n, "details")) {
			details_open(m);
		} else if (h.kind == HTML_CLOSE && !strcmp(n, "details")) {
			details_close(m);
		} else if (h.kind == HTML_OPEN && !strcmp(n, "hr")) {
			int i, w = text_cols(m);

			blank(m);
			line_begin(m, SLOT_MD_RULE, 0, anchor(m, 0));
			for (i = 0; i < w; i++)
				doc_puts(m->d, glyph(G_RULE), SLOT_MD_RULE);
			line_end(m);
			m->need_blank = 1;
		} else if (h.kind == HTML_OPEN && !strcmp(n, "li")) {
			para_add(m, glyph(G_BULLET), strlen(glyph(G_BULLET)),
				 SLOT_MD_BULLET);
			para_add(m, " ", 1, SLOT_NORMAL);
		} else if (is_heading(n)) {
			base = h.kind == HTML_OPEN ? SLOT_MD_HEADING :
			       SLOT_NORMAL;
		}
	}
	if (m->in_summary) {
		/* a summary goes on in the next block: title it now */
		m->in_summary = 0;
		section_title(m, NULL);
	}
	html_flush(m, base);
	m->collapse = 0;
	html_reset(m);
	html_release(&h);
}

void md_sections_toggle(struct md_sections *sec, size_t k)
{
	if (k >= sec->alloc_closed) {
		size_t old = sec->alloc_closed;

		ALLOC_GROW(sec->closed, k + 1, sec->alloc_closed);
		memset(sec->closed + old, 0, sec->alloc_closed - old);
	}
	sec->closed[k] = !sec->closed[k];
}

size_t md_sections_at(const struct md_sections *sec, size_t top, size_t end)
{
	size_t k, pick = (size_t)-1;

	for (k = 0; k < sec->nr; k++) {
		if (sec->title[k] >= top && sec->title[k] < end)
			return k;
		if (sec->title[k] < top)
			pick = k;
	}
	return pick;
}

void md_sections_release(struct md_sections *sec)
{
	if (!sec)
		return;
	free(sec->closed);
	free(sec->title);
	memset(sec, 0, sizeof(*sec));
}

/* ---- blocks --------------------------------------------------------- */

static void item_enter(struct md *m, cmark_node *n)
{
	struct container *list = top(m);
	char first[24], rest[24];
	const char *ts = cmark_node_get_type_string(n);
	int task = ts && !strcmp(ts, "tasklist");
	size_t w, i;

	if (list && list->kind == CTR_LIST && list->ordered)
		snprintf(first, sizeof(first), "%d. ", list->number++);
	else
		snprintf(first, sizeof(first), "%s ", glyph(G_BULLET));
	if (task) {
		size_t l = strlen(first);

		snprintf(first + l, sizeof(first) - l, "[%s] ",
			 cmark_gfm_extensions_get_tasklist_item_checked(n) ?
			 "x" : " ");
	}
	w = (size_t)text_width(first, strlen(first));
	for (i = 0; i < w && i + 1 < sizeof(rest); i++)
		rest[i] = ' ';
	rest[i] = '\0';
	{
		struct container *c = push(m, CTR_ITEM, first, rest,
					   SLOT_MD_BULLET);

		if (c)
			c->tight = list ? list->tight : 0;
	}
}

static void render(struct md *m, cmark_node *root)
{
	cmark_iter *it = cmark_iter_new(root);
	cmark_event_type ev;

	while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
		cmark_node *n = cmark_iter_get_node(it);
		int enter = ev == CMARK_EVENT_ENTER;
		const char *ts;

		switch (cmark_node_get_type(n)) {
		case CMARK_NODE_DOCUMENT:
			break;
		case CMARK_NODE_BLOCK_QUOTE:
			if (enter) {
				char q[16];

				blank(m);
				snprintf(q, sizeof(q), "%s ", glyph(G_QUOTE));
				push(m, CTR_QUOTE, q, q, SLOT_MD_QUOTE);
			} else {
				pop(m);
				m->need_blank = 1;
			}
			break;
		case CMARK_NODE_LIST:
			if (enter) {
				struct container *c;

				blank(m);
				c = push(m, CTR_LIST, "", "", SLOT_NORMAL);
				if (c) {
					c->tight = cmark_node_get_list_tight(n);
					c->ordered = cmark_node_get_list_type(n)
						     == CMARK_ORDERED_LIST;
					c->number =
						cmark_node_get_list_start(n);
				}
			} else {
				pop(m);
				m->need_blank = 1;
			}
			break;
		case CMARK_NODE_ITEM:
			if (enter) {
				blank(m);
				item_enter(m, n);
			} else {
				pop(m);
				m->need_blank = 1;
			}
			break;
		case CMARK_NODE_FOOTNOTE_DEFINITION:
			if (enter) {
				blank(m);
				push(m, CTR_NOTE, "  ", "  ", SLOT_NORMAL);
			} else {
				pop(m);
				m->need_blank = 1;
			}
			break;
		case CMARK_NODE_PARAGRAPH:
			blank(m);
			m->block++;
			src_block(m, n);
			if (is_traceback(m, n))
				source_lines(m, cmark_node_get_start_line(n),
					     cmark_node_get_end_line(n),
					     cmark_node_get_start_column(n));
			else {
				collect_inlines(m, n, SLOT_NORMAL);
				emit_para(m, SLOT_NORMAL);
			}
			cmark_iter_reset(it, n, CMARK_EVENT_EXIT);
			m->need_blank = 1;
			break;
		case CMARK_NODE_HEADING: {
			int level = cmark_node_get_heading_level(n);
			size_t at;

			blank(m);
			m->block++;
			src_block(m, n);
			collect_inlines(m, n, SLOT_MD_HEADING);
			/* put the marks in front */
			at = m->para.len;
			buf_grow(&m->para, (size_t)level + 1);
			memmove(m->para.ptr + level + 1, m->para.ptr, at);
			memset(m->para.ptr, '#', (size_t)level);
			m->para.ptr[level] = ' ';
			buf_setlen(&m->para, at + (size_t)level + 1);
			ALLOC_GROW(m->pslot, m->para.len + 1, m->pslot_alloc);
			memmove(m->pslot + level + 1, m->pslot, at);
			memset(m->pslot, SLOT_MD_HEADING, (size_t)level + 1);
			emit_para(m, SLOT_MD_HEADING);
			cmark_iter_reset(it, n, CMARK_EVENT_EXIT);
			m->need_blank = 1;
			break;
		}
		case CMARK_NODE_CODE_BLOCK:
			blank(m);
			m->block++;
			src_block(m, n);
			code_block(m, n);
			m->need_blank = 1;
			break;
		case CMARK_NODE_HTML_BLOCK:
			m->block++;
			src_block(m, n);
			html_block(m, cmark_node_get_literal(n));
			break;
		case CMARK_NODE_THEMATIC_BREAK: {
			int i, w = text_cols(m);

			blank(m);
			m->block++;
			src_block(m, n);
			line_begin(m, SLOT_MD_RULE, 0, anchor(m, 0));
			for (i = 0; i < w; i++)
				doc_puts(m->d, glyph(G_RULE), SLOT_MD_RULE);
			line_end(m);
			m->need_blank = 1;
			break;
		}
		default:
			ts = cmark_node_get_type_string(n);
			if (enter && ts && !strcmp(ts, "table")) {
				blank(m);
				m->block++;
				src_block(m, n);
				table(m, n);
				cmark_iter_reset(it, n, CMARK_EVENT_EXIT);
				m->need_blank = 1;
			}
			break;
		}
	}
	cmark_iter_free(it);
}

void md_render(struct doc *d, const char *md, size_t len, int width,
	       unsigned long long anchor_base)
{
	md_render_sections(d, md, len, width, anchor_base, NULL);
}

void md_render_sections(struct doc *d, const char *md, size_t len,
			int width, unsigned long long anchor_base,
			struct md_sections *sec)
{
	static const char *const exts[] = {
		"table", "strikethrough", "autolink", "tasklist"
	};
	struct md m;
	cmark_parser *p;
	cmark_node *root;
	size_t i;

	memset(&m, 0, sizeof(m));
	m.d = d;
	m.width = width;
	m.src = md;
	m.srclen = len;
	m.base = anchor_base;
	m.sec = sec;
	buf_init(&m.para, 0);
	buf_init(&m.tmp, 0);

	cmark_gfm_core_extensions_ensure_registered();
	p = cmark_parser_new(CMARK_OPT_DEFAULT | CMARK_OPT_FOOTNOTES);
	for (i = 0; i < sizeof(exts) / sizeof(exts[0]); i++) {
		cmark_syntax_extension *e =
			cmark_find_syntax_extension(exts[i]);

		if (e)
			cmark_parser_attach_syntax_extension(p, e);
	}
	cmark_parser_feed(p, md, len);
	root = cmark_parser_finish(p);
	if (root) {
		render(&m, root);
		cmark_node_free(root);
	}
	/* sections never closed end with the document */
	while (m.nsec > 0)
		details_close(&m);
	doc_source(d, 0, 0);
	cmark_parser_free(p);
	buf_release(&m.para);
	buf_release(&m.tmp);
	free(m.pslot);
	free(m.line_at);
	text_lines_release(&m.wrap);
}

int md_source_lines(const struct doc *d, size_t from, size_t to,
		    unsigned long long *part, long *lo, long *hi)
{
	size_t i;

	*part = 0;
	*lo = *hi = 0;
	for (i = from; i <= to && i < d->nr; i++) {
		const struct doc_line *l = &d->lines[i];
		unsigned long long k = l->anchor / MD_ANCHOR_SPAN;

		if (!l->src_first || !l->len || k < 1)
			continue;
		if (*part && k != *part)
			return -1;
		*part = k;
		if (!*lo || l->src_first < *lo)
			*lo = l->src_first;
		if (l->src_last > *hi)
			*hi = l->src_last;
	}
	if (!*part)
		return -2;
	if (*hi < *lo)
		*hi = *lo;
	return 0;
}

int md_doc_lines(const struct doc *d, unsigned long long part, long lo,
		 long hi, size_t *from, size_t *to)
{
	size_t i;
	int found = 0;

	for (i = 0; i < d->nr; i++) {
		const struct doc_line *l = &d->lines[i];

		if (!l->src_first || !l->len ||
		    l->anchor / MD_ANCHOR_SPAN != part ||
		    l->src_last < lo || l->src_first > hi)
			continue;
		if (!found)
			*from = i;
		*to = i;
		found = 1;
	}
	return found;
}
