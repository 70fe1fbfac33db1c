/* SPDX-License-Identifier: MIT */
/*
 * html: a small tokenizer for the HTML that GitHub lets into issues and
 * comments - tags with their attributes, text with its character
 * references decoded, comments dropped.
 *
 * It is a tokenizer, not a parser: it builds no tree, implies no tags and
 * knows nothing of nesting; markdown.c gives the tags their meaning.
 * cmark-gfm hands HTML over in pieces (one inline tag at a time, or a
 * block of raw lines), never as a whole document, which is what the tree
 * builders of libxml2 or gumbo expect; the subset GitHub keeps after its
 * own sanitizing (img, details, summary, br, a, b, i, code, kbd, sub,
 * sup, p, div, headings, lists, tables) needs only the tokens.  It
 * follows the HTML tokenizer's rules where they matter here: tag names
 * are case-insensitive, attribute values are quoted with " or ' or not
 * at all, a '<' that starts no tag is text, and unterminated input ends
 * as text.  Nothing it returns is sanitized: text and attribute values
 * go through core/base/text before they are drawn.
 */
#ifndef BUGCODER_TUI_HTML_H
#define BUGCODER_TUI_HTML_H

#include <stddef.h>

#include "core/base/buf.h"

enum html_tok {
	HTML_END,	/* no more input */
	HTML_TEXT,	/* text, references decoded */
	HTML_OPEN,	/* <name ...> or <name .../> */
	HTML_CLOSE,	/* </name> */
};

struct html_tok_state {
	const char *s;
	size_t len, pos;
	enum html_tok kind;
	char name[16];		/* lower case; longer names are cut */
	int self_closing;	/* <br/> */
	struct buf text;	/* HTML_TEXT: the decoded text */
	const char *attrs;	/* HTML_OPEN: the raw attributes */
	size_t attrs_len;
};

/* Start tokenizing s[0..len) (which must outlive the state). */
void html_init(struct html_tok_state *h, const char *s, size_t len);
void html_release(struct html_tok_state *h);
/* The next token; HTML_END at the end. */
enum html_tok html_next(struct html_tok_state *h);
/* The value of attribute `name` (lower case) of the last HTML_OPEN,
 * references decoded, into out; 1 when it is there, else 0. */
int html_attr(const struct html_tok_state *h, const char *name,
	      struct buf *out);
/* Append s[0..len) to out with character references (&amp; &#39;
 * &#x27; ...) decoded; unknown references stay as they are. */
void html_decode(struct buf *out, const char *s, size_t len);

#endif
