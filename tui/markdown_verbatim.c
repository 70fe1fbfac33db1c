/* SPDX-License-Identifier: MIT */
/*
 * markdown_verbatim: the blocks markdown.c keeps verbatim, never
 * re-wrapped - fenced and indented code, paragraphs holding a Python
 * traceback (shown as their source lines) - and tables, laid out in
 * columns.
 */
#define _XOPEN_SOURCE_EXTENDED 1
#include <cmark-gfm.h>
#include <cmark-gfm-core-extensions.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/text.h"
#include "tui/markdown.h"
#include "tui/markdown_int.h"

/* ---- verbatim blocks ------------------------------------------------ */

/* One verbatim source line, sanitized with tabs expanded. */
static void verbatim_line(struct md *m, const char *s, size_t len,
			  enum slot slot, const char *indent, size_t nr)
{
	buf_reset(&m->tmp);
	text_sanitize(&m->tmp, s, len, 8, 0);
	if (m->vbase > 0)
		doc_source(m->d, m->vbase + (int)nr, m->vbase + (int)nr);
	md_line_begin(m, slot, 1, md_anchor(m, nr));
	if (indent)
		doc_puts(m->d, indent, slot);
	doc_put(m->d, m->tmp.ptr, m->tmp.len, slot);
	md_line_end(m);
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

void md_code_block(struct md *m, cmark_node *n)
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
		md_line_begin(m, SLOT_MD_CODEBLOCK, 1, md_anchor(m, 0));
		doc_puts(m->d, fence, SLOT_MD_CODEBLOCK);
		doc_put_untrusted(m->d, cmark_node_get_fence_info(n),
				  SLOT_MD_CODEBLOCK);
		md_line_end(m);
		m->vbase = first + 1;
		verbatim_text(m, cmark_node_get_literal(n), SLOT_MD_CODEBLOCK,
			      NULL);
		m->vbase = 0;
		doc_source(m->d, cmark_node_get_end_line(n),
			   cmark_node_get_end_line(n));
		md_line_begin(m, SLOT_MD_CODEBLOCK, 1, md_anchor(m, 0xffffe));
		doc_puts(m->d, fence, SLOT_MD_CODEBLOCK);
		md_line_end(m);
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
void md_verbatim_source(struct md *m, int first, int last, int col)
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

int md_is_traceback(struct md *m, cmark_node *n)
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

void md_table(struct md *m, cmark_node *tbl)
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

				md_collect_inlines(m, cell, SLOT_NORMAL);
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

		md_line_begin(m, header ? SLOT_MD_STRONG : SLOT_NORMAL, 1,
			      md_anchor(m, (size_t)r));
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
		md_line_end(m);
		if (header) {
			md_line_begin(m, SLOT_MD_RULE, 1, md_anchor(m, 0));
			for (c = 0; c < ncols; c++) {
				int i;

				if (c)
					doc_puts(m->d, glyph(G_CROSS),
						 SLOT_MD_RULE);
				for (i = 0; i < colw[c] + 2; i++)
					doc_puts(m->d, glyph(G_RULE),
						 SLOT_MD_RULE);
			}
			md_line_end(m);
		}
	}
	for (r = 0; r < nrows * ncols; r++)
		free(cells[r].text);
	free(cells);
	free(colw);
}
