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
 * sideways.  Every piece of text is sanitized (core/text) on the way in.
 */
#ifndef BUGCODER_TUI_MARKDOWN_H
#define BUGCODER_TUI_MARKDOWN_H

#include <stddef.h>

#include "tui/doc.h"

/* Append the rendering of Markdown md[0..len) at `width` columns to `d`.
 * Anchors of the new lines start at `anchor_base` and stay below
 * anchor_base + MD_ANCHOR_SPAN. */
void md_render(struct doc *d, const char *md, size_t len, int width,
	       unsigned long long anchor_base);

#define MD_ANCHOR_SPAN (1ULL << 40)

#endif
