/* SPDX-License-Identifier: MIT */
/*
 * markdown_int: what the files of the Markdown renderer share - its
 * state while one text renders (struct md), and the calls between them
 * (markdown.c: container prefixes, display lines, the walk over the
 * blocks; _inline.c: inline content and inline HTML; _verbatim.c: code,
 * tracebacks and tables; _details.c: HTML blocks and <details>).
 * Nothing here is for other files (markdown.h is).
 */
#ifndef BUGCODER_TUI_MARKDOWN_INT_H
#define BUGCODER_TUI_MARKDOWN_INT_H

#include <cmark-gfm.h>
#include <stddef.h>

#include "core/base/buf.h"
#include "core/base/text.h"
#include "tui/doc.h"
#include "tui/draw.h"
#include "tui/markdown.h"

struct html_tok_state;


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


/* markdown.c */

/* The anchor of a line starting at byte `off` of the current block. */
unsigned long long md_anchor(struct md *m, size_t off);
/* The columns left for text after the container prefixes. */
int md_text_cols(struct md *m);
/* Begin a display line with the container prefixes; end it. */
void md_line_begin(struct md *m, enum slot slot, int verbatim,
		   unsigned long long a);
void md_line_end(struct md *m);
/* A blank line between blocks, unless in a tight list. */
void md_blank(struct md *m);

/* markdown_inline.c */

/* Append s[0..len) (trusted: the renderer's own) to the paragraph in
 * style `slot`. */
void md_para_add(struct md *m, const char *s, size_t len, enum slot slot);
/* Append source text, sanitized, in style `slot`. */
void md_para_add_source(struct md *m, const char *s, size_t len,
			enum slot slot);
/* The style of text under the open HTML tags (`cur` when none
 * styles). */
enum slot md_html_slot(struct md *m, enum slot cur);
/* Forget the inline HTML tags open. */
void md_html_reset(struct md *m);
/* An inline tag (or one inside an HTML block that is not a block). */
void md_html_inline_tag(struct md *m, const struct html_tok_state *h,
			enum slot cur);
/* Collect the inline content under `node` into the paragraph. */
void md_collect_inlines(struct md *m, cmark_node *node, enum slot base);
/* Emit m->para wrapped. */
void md_emit_para(struct md *m, enum slot base);

/* markdown_verbatim.c */

/* A fenced or indented code block, verbatim. */
void md_code_block(struct md *m, cmark_node *n);
/* The source lines first..last (1-based) of a block, verbatim, with the
 * container markers of its first `col` - 1 columns taken off. */
void md_verbatim_source(struct md *m, int first, int last, int col);
/* Does paragraph n hold a Python traceback? */
int md_is_traceback(struct md *m, cmark_node *n);
/* A table, laid out in columns. */
void md_table(struct md *m, cmark_node *tbl);

/* markdown_details.c */

/* The title line of the section just opened: its <summary> text in
 * m->para, or GitHub's "Details" when `title` says so. */
void md_section_title(struct md *m, const char *title);
/* End the innermost <details> section. */
void md_details_close(struct md *m);
/* An HTML block: its text wrapped like a paragraph, its tags read. */
void md_html_block(struct md *m, const char *lit);

#endif
