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
 * The walk over the blocks and the container prefixes are here; a
 * block's inline content is markdown_inline.c's, code, tracebacks and
 * tables markdown_verbatim.c's, HTML blocks and <details>
 * markdown_details.c's (what they share: markdown_int.h).
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
#include "tui/markdown_int.h"

/* The anchor of a line starting at byte `off` of the current block; never
 * below the line before's (a blank line or a rule after a block of
 * several lines would be), as doc_find_anchor() bisects. */
unsigned long long md_anchor(struct md *m, size_t off)
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

int md_text_cols(struct md *m)
{
	int w = m->width - prefix_width(m);

	return w < MIN_WIDTH ? MIN_WIDTH : w;
}

/* Begin a display line with the container prefixes. */
void md_line_begin(struct md *m, enum slot slot, int verbatim,
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

void md_line_end(struct md *m)
{
	doc_end(m->d);
}

/* A blank line between blocks, unless in a tight list. */
void md_blank(struct md *m)
{
	struct container *c = top(m);
	int i;

	/* a section's body begins without a <summary>: GitHub titles it */
	if (m->nsec > 0 && m->nsec <= MAX_SECTIONS &&
	    !m->secs[m->nsec - 1].titled && !m->in_summary)
		md_section_title(m, "Details");

	if (c && (c->kind == CTR_ITEM || c->kind == CTR_LIST) && c->tight) {
		m->need_blank = 0;
		return;
	}
	if (!m->need_blank || !m->emitted) {
		m->need_blank = 0;
		return;
	}
	m->need_blank = 0;
	doc_begin(m->d, SLOT_NORMAL, 0, md_anchor(m, 0));
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

/* A container block - a quote, a list, an item, a footnote - entered
 * (its prefixes pushed) or left. */
static void container(struct md *m, cmark_node *n, int enter)
{
	if (!enter) {
		pop(m);
		m->need_blank = 1;
		return;
	}
	md_blank(m);
	switch (cmark_node_get_type(n)) {
	case CMARK_NODE_BLOCK_QUOTE: {
		char q[16];

		snprintf(q, sizeof(q), "%s ", glyph(G_QUOTE));
		push(m, CTR_QUOTE, q, q, SLOT_MD_QUOTE);
		break;
	}
	case CMARK_NODE_LIST: {
		struct container *c = push(m, CTR_LIST, "", "", SLOT_NORMAL);

		if (c) {
			c->tight = cmark_node_get_list_tight(n);
			c->ordered = cmark_node_get_list_type(n) ==
				     CMARK_ORDERED_LIST;
			c->number = cmark_node_get_list_start(n);
		}
		break;
	}
	case CMARK_NODE_ITEM:
		item_enter(m, n);
		break;
	default:	/* a footnote definition */
		push(m, CTR_NOTE, "  ", "  ", SLOT_NORMAL);
		break;
	}
}

/* A paragraph: its inlines wrapped, or, holding a traceback, its source
 * lines verbatim. */
static void paragraph(struct md *m, cmark_node *n)
{
	md_blank(m);
	m->block++;
	src_block(m, n);
	if (md_is_traceback(m, n))
		md_verbatim_source(m, cmark_node_get_start_line(n),
				   cmark_node_get_end_line(n),
				   cmark_node_get_start_column(n));
	else {
		md_collect_inlines(m, n, SLOT_NORMAL);
		md_emit_para(m, SLOT_NORMAL);
	}
	m->need_blank = 1;
}

/* A heading, its '#' marks kept in front. */
static void heading(struct md *m, cmark_node *n)
{
	int level = cmark_node_get_heading_level(n);
	size_t at;

	md_blank(m);
	m->block++;
	src_block(m, n);
	md_collect_inlines(m, n, SLOT_MD_HEADING);
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
	md_emit_para(m, SLOT_MD_HEADING);
	m->need_blank = 1;
}

/* A thematic break: a rule across the text's width. */
static void rule(struct md *m, cmark_node *n)
{
	int i, w = md_text_cols(m);

	md_blank(m);
	m->block++;
	src_block(m, n);
	md_line_begin(m, SLOT_MD_RULE, 0, md_anchor(m, 0));
	for (i = 0; i < w; i++)
		doc_puts(m->d, glyph(G_RULE), SLOT_MD_RULE);
	md_line_end(m);
	m->need_blank = 1;
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
		case CMARK_NODE_LIST:
		case CMARK_NODE_ITEM:
		case CMARK_NODE_FOOTNOTE_DEFINITION:
			container(m, n, enter);
			break;
		case CMARK_NODE_PARAGRAPH:
			paragraph(m, n);
			cmark_iter_reset(it, n, CMARK_EVENT_EXIT);
			break;
		case CMARK_NODE_HEADING:
			heading(m, n);
			cmark_iter_reset(it, n, CMARK_EVENT_EXIT);
			break;
		case CMARK_NODE_CODE_BLOCK:
			md_blank(m);
			m->block++;
			src_block(m, n);
			md_code_block(m, n);
			m->need_blank = 1;
			break;
		case CMARK_NODE_HTML_BLOCK:
			m->block++;
			src_block(m, n);
			md_html_block(m, cmark_node_get_literal(n));
			break;
		case CMARK_NODE_THEMATIC_BREAK:
			rule(m, n);
			break;
		default:
			ts = cmark_node_get_type_string(n);
			if (enter && ts && !strcmp(ts, "table")) {
				md_blank(m);
				m->block++;
				src_block(m, n);
				md_table(m, n);
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
		md_details_close(&m);
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
