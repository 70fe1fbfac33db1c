/* SPDX-License-Identifier: MIT */
/*
 * markdown_details: HTML blocks (markdown.c), read with tui/html.c's
 * tokenizer and shown as GitHub shows them, and the <details> sections
 * they open - a <summary> title line, a body that can be closed (struct
 * md_sections).
 */
#define _XOPEN_SOURCE_EXTENDED 1
#include <cmark-gfm.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/text.h"
#include "tui/html.h"
#include "tui/markdown.h"
#include "tui/markdown_int.h"

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
		md_blank(m);
		md_emit_para(m, base);
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
void md_section_title(struct md *m, const char *title)
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
		md_para_add(m, title, strlen(title), SLOT_MD_STRONG);
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
		/* md_blank() would title again: write the blank line here */
		m->in_summary = 1;
		md_blank(m);
		m->in_summary = 0;
	}
	if (m->sec) {
		ALLOC_GROW(m->sec->title, sc->k + 1, m->sec->alloc_title);
		m->sec->title[sc->k] = m->d->nr;
	}
	m->block++;
	md_emit_para(m, SLOT_MD_STRONG);
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

void md_details_close(struct md *m)
{
	struct section *sc = open_section(m);

	if (m->nsec <= 0)
		return;
	if (sc) {
		if (!sc->titled)
			md_section_title(m, "Details");
		/* a closed section keeps its title only */
		if (sc->closed) {
			doc_truncate(m->d, sc->body);
			m->need_blank = 1;
		}
	}
	m->nsec--;
}

/* An HTML block: its text wrapped like a paragraph, its tags read. */
void md_html_block(struct md *m, const char *lit)
{
	struct html_tok_state h;
	enum slot base = SLOT_NORMAL;

	if (!lit)
		return;
	html_init(&h, lit, strlen(lit));
	buf_reset(&m->para);
	md_html_reset(m);
	m->collapse = 1;
	while (html_next(&h) != HTML_END) {
		const char *n = h.name;

		if (h.kind == HTML_TEXT) {
			md_para_add_source(m, h.text.ptr, h.text.len,
					   md_html_slot(m, m->in_summary ?
							SLOT_MD_STRONG :
							base));
			continue;
		}
		if (!block_tag(n)) {
			md_html_inline_tag(m, &h, base);
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
				md_section_title(m, NULL);
			}
			continue;
		}
		if (m->in_summary)
			continue;
		html_flush(m, base);
		if (h.kind == HTML_OPEN && !strcmp(n, "details")) {
			details_open(m);
		} else if (h.kind == HTML_CLOSE && !strcmp(n, "details")) {
			md_details_close(m);
		} else if (h.kind == HTML_OPEN && !strcmp(n, "hr")) {
			int i, w = md_text_cols(m);

			md_blank(m);
			md_line_begin(m, SLOT_MD_RULE, 0, md_anchor(m, 0));
			for (i = 0; i < w; i++)
				doc_puts(m->d, glyph(G_RULE), SLOT_MD_RULE);
			md_line_end(m);
			m->need_blank = 1;
		} else if (h.kind == HTML_OPEN && !strcmp(n, "li")) {
			md_para_add(m, glyph(G_BULLET), strlen(glyph(G_BULLET)),
				    SLOT_MD_BULLET);
			md_para_add(m, " ", 1, SLOT_NORMAL);
		} else if (is_heading(n)) {
			base = h.kind == HTML_OPEN ? SLOT_MD_HEADING :
			       SLOT_NORMAL;
		}
	}
	if (m->in_summary) {
		/* a summary goes on in the next block: title it now */
		m->in_summary = 0;
		md_section_title(m, NULL);
	}
	html_flush(m, base);
	m->collapse = 0;
	md_html_reset(m);
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
