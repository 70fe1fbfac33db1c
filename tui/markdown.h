/* SPDX-License-Identifier: MIT */
/*
 * markdown: GitHub Markdown (cmark-gfm with the table, strikethrough,
 * autolink and tasklist extensions) rendered into display lines.
 *
 * Headings keep their '#' marks and are bold; emphasis is underlined,
 * strong text bold; lists get bullets or numbers and quotes a bar, nested
 * to any depth; links show their target as "text <url>"; tables are laid
 * out in columns.  Fenced and indented code, HTML blocks, tables and
 * paragraphs holding a Python traceback are kept verbatim, never
 * re-wrapped: long lines are marked verbatim so the pager scrolls them
 * sideways.  Every piece of text is sanitized (core/base/text) on the way in.
 */
#ifndef BUGCODER_TUI_MARKDOWN_H
#define BUGCODER_TUI_MARKDOWN_H

#include <stddef.h>

#include "tui/doc.h"

/* Append the rendering of Markdown md[0..len) at `width` columns to `d`.
 * Anchors of the new lines start at `anchor_base` and stay below
 * anchor_base + MD_ANCHOR_SPAN.  Each line records the source lines it
 * comes from (doc_line's src_first..src_last): a line of a code block or
 * a traceback its own source line, a fence its fence; a line of any other
 * block (a paragraph or list item's text, a heading, a table, a quote's
 * paragraph) every source line of that block, as wrapping and inline
 * markup leave no finer link; a blank line between blocks the block
 * before it. */
void md_render(struct doc *d, const char *md, size_t len, int width,
	       unsigned long long anchor_base);

/*
 * The <details> sections of a document, numbered in the order they come
 * across every md_render_sections() call given the same struct (reset
 * `nr` to 0 before rendering a document again).  A section shows its
 * <summary> as a title line, then its body unless it is closed.
 */
struct md_sections {
	size_t nr;		/* sections met so far */
	unsigned char *closed;	/* closed[k]: section k shows its title
				   only (k < alloc_closed; owned) */
	size_t alloc_closed;
	size_t *title;		/* doc line of section k's title
				   (owned) */
	size_t alloc_title;
};

#define MD_SECTIONS_INIT { 0, NULL, 0, NULL, 0 }

/* md_render(), with the sections numbered, recorded and closed in
 * `sec` (NULL: every section open). */
void md_render_sections(struct doc *d, const char *md, size_t len,
			int width, unsigned long long anchor_base,
			struct md_sections *sec);
/* Open section k if closed, close it if open. */
void md_sections_toggle(struct md_sections *sec, size_t k);
/* The section `o` means for a view of doc lines [top, end): the first
 * whose title is in view, else the last one that begins above it (the
 * one being read); (size_t)-1 when there is none. */
size_t md_sections_at(const struct md_sections *sec, size_t top,
		      size_t end);
void md_sections_release(struct md_sections *sec);

#define MD_ANCHOR_SPAN (1ULL << 40)

/*
 * Citing rendered text: a document whose texts were rendered one after
 * the other at anchors k * MD_ANCHOR_SPAN (k = 1 the first text, say an
 * issue's body, k = 2 its first comment ...), its other lines below
 * MD_ANCHOR_SPAN, maps back to the source lines of one text.
 */
/* The text (*part, k as above) and source lines *lo..*hi behind doc lines
 * from..to, lines without source (headers, blank lines) left out.  0;
 * -1 when the lines belong to two texts; -2 when none has a source. */
int md_source_lines(const struct doc *d, size_t from, size_t to,
		    unsigned long long *part, long *lo, long *hi);
/* The other way: the doc lines *from..*to rendered from source lines
 * lo..hi of text `part`; 0 when there are none. */
int md_doc_lines(const struct doc *d, unsigned long long part, long lo,
		 long hi, size_t *from, size_t *to);

#endif
