/* SPDX-License-Identifier: MIT */
/*
 * doc: a rendered document - display lines of sanitized text with styled
 * spans - that a pager shows and searches.
 *
 * All text lives in one buffer and all spans in one array, so a document
 * of thousands of lines is three allocations.  Lines are built with
 * doc_begin() / doc_put() / doc_end().  Every line carries an `anchor`, a
 * non-decreasing number naming the place in the source it came from, so
 * that re-rendering at another width can keep the reader's place.
 */
#ifndef BUGCODER_TUI_DOC_H
#define BUGCODER_TUI_DOC_H

#include <stddef.h>

#include "core/base/buf.h"
#include "tui/draw.h"

struct doc_line {
	size_t off;		/* into doc.text */
	unsigned len;		/* bytes */
	unsigned span0;		/* first span, into doc.spans */
	unsigned nr_spans;
	unsigned char slot;	/* enum slot of the line */
	unsigned char verbatim;	/* code: not wrapped, scrolls sideways */
	unsigned long long anchor;
	int src_first, src_last;	/* the source lines (from 1) it was
					   rendered from; 0: none */
};

struct doc {
	struct buf text;	/* every line's text, back to back */
	struct doc_line *lines;
	size_t nr, alloc;
	struct span *spans;	/* offsets relative to their line */
	size_t nr_spans, alloc_spans;
	int open;		/* a line is being built */
	int src_first, src_last;	/* what lines begun now come from
					   (doc_source()) */
};

#define DOC_INIT { BUF_INIT, NULL, 0, 0, NULL, 0, 0, 0, 0, 0 }

/* The source lines first..last (from 1; 0, 0: none) the lines begun from
 * now on are rendered from (Markdown: see tui/markdown.h). */
void doc_source(struct doc *d, int first, int last);

/* Forget every line, keeping the memory.  doc_release() frees it. */
void doc_clear(struct doc *d);
void doc_release(struct doc *d);

/* Start a line in `slot` (its default style). */
void doc_begin(struct doc *d, enum slot slot, int verbatim,
	       unsigned long long anchor);
/* Append sanitized text s[0..len) to the open line, styled `slot` (the
 * line's own slot when equal, no span then). */
void doc_put(struct doc *d, const char *s, size_t len, enum slot slot);
void doc_puts(struct doc *d, const char *s, enum slot slot);
/* Append untrusted text, sanitized into one line (controls visible). */
void doc_put_untrusted(struct doc *d, const char *s, enum slot slot);
/* Close the open line. */
void doc_end(struct doc *d);
/* A whole line of sanitized text. */
void doc_line(struct doc *d, const char *s, enum slot slot,
	      unsigned long long anchor);

/* Drop lines n and after. */
void doc_truncate(struct doc *d, size_t n);

/* A date from outside, "2024-01-02T03:04:05Z" shown as "2024-01-02
 * 03:04" ("?" when there is none). */
void doc_put_date(struct doc *d, const char *iso, enum slot slot);
/* "AUTHOR commented on DATE:" into the open line, saying plainly what was
 * not recorded. */
void doc_commented(struct doc *d, const char *author, const char *at);

/* Wrap the last line (closed) at `width` columns, at spaces where it can,
 * into as many lines as it takes, each keeping the styles of its text and
 * the line's slot and anchor: for prose-like lines built a piece at a
 * time (a title, a line of facts) that must not be cut at the edge. */
void doc_wrap_last(struct doc *d, int width);

/* Index of the last line whose anchor is <= `anchor` (0 if none). */
size_t doc_find_anchor(const struct doc *d, unsigned long long anchor);

/* Fill the text, spans and slot of line i into t (other fields of t are
 * left alone). */
void doc_get(const struct doc *d, size_t i, struct draw_text *t);

/* How many times does line i contain `pat` (ASCII case-insensitive)? */
size_t doc_match(const struct doc *d, size_t i, const char *pat, size_t plen);

/* A pager source over a doc: pager_init(&pg, &doc_pager_src, &doc). */
struct pager_src;
extern const struct pager_src doc_pager_src;

#endif
