/* SPDX-License-Identifier: MIT */
/*
 * text: untrusted text made safe for a terminal, and measured in columns.
 *
 * Everything that came from outside (issue bodies, comments, diffs, user
 * names, codebook strings) passes through here before it is drawn.  These
 * are pure functions over bytes; they never touch a terminal.  Widths are
 * wcwidth() under a UTF-8 locale (callers set the locale); the one width
 * policy lives in text_char_width().
 *
 * Sanitizing rules:
 *  - CRLF and a lone trailing CR become LF; any other CR is shown as the
 *    visible mark U+240D (SYMBOL FOR CARRIAGE RETURN);
 *  - TAB expands to the next multiple of `tabstop` columns (counted from
 *    the start of the current line of output, which is the start of `s`
 *    or the last kept '\n'; `tabstop` < 1 means 8);
 *  - other C0 controls, DEL, and C1 controls (U+0080..U+009F) become the
 *    matching visible "control picture" (U+2400 + c for C0, U+2421 for
 *    DEL) or U+FFFD for C1; ESC is thus drawn as U+241B, so an escape
 *    sequence shows as text and never reaches the terminal;
 *  - invalid UTF-8 (bad lead or continuation bytes, overlongs, surrogates,
 *    > U+10FFFF) becomes U+FFFD, one per maximal bad subsequence (Unicode's
 *    "maximal subpart": "\xE2\x82" is one, "\xC0\xAF" and "\xFF\xFE"
 *    are two, the surrogate "\xED\xA0\x80" is three);
 *  - bidirectional controls (U+202A..U+202E, U+2066..U+2069, U+200E,
 *    U+200F, U+061C) are made visible as "<U+202E>" style marks, so
 *    "Trojan Source" reordering is surfaced;
 *  - characters of width -1 that survive the above (unassigned, etc.)
 *    become U+FFFD.
 *  - LF is kept when TEXT_KEEP_NL is given, else shown as U+240A.
 */
#ifndef BUGCODER_TEXT_H
#define BUGCODER_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "core/base/buf.h"
#include "core/base/err.h"

enum text_flags {
	TEXT_KEEP_NL = 1 << 0,	/* keep '\n' as a line break */
};

/* Append a display-safe copy of s[0..len) to `out` following the rules
 * above.  Returns the width in columns of the last line appended.  The
 * output is valid UTF-8 with no byte below 0x20 other than '\n' (and that
 * only with TEXT_KEEP_NL), no DEL and no C1 control. */
int text_sanitize(struct buf *out, const char *s, size_t len, int tabstop,
		  unsigned flags);

/* Is s[0..len) valid UTF-8 (no overlongs, no surrogates)? */
int text_valid_utf8(const char *s, size_t len);

/* Decode one UTF-8 character at s (len bytes available).  Stores the code
 * point in *cp and returns its byte length (1..4), or returns 1 with *cp
 * = 0xFFFD for an invalid sequence, 0 when len == 0. */
size_t text_decode(const char *s, size_t len, uint32_t *cp);

/* UTF-8 of code point cp (<= U+10FFFF) into u; returns its length. */
size_t text_encode(uint32_t cp, char u[4]);

/* Columns a code point occupies (0, 1 or 2); -1 for controls. */
int text_char_width(uint32_t cp);

/* Display width of already sanitized text (no newlines expected).  Here
 * and in the functions below, a character of width -1 or an invalid byte
 * counts as one column, as it would be drawn as U+FFFD. */
int text_width(const char *s, size_t len);

/* Largest prefix of s that fits in `cols` columns, never splitting a
 * character (nor separating a base from following zero-width marks).
 * Returns its byte length and stores its width in *used (may be NULL). */
size_t text_fit(const char *s, size_t len, int cols, int *used);

/* Byte offset where column `col` starts (for horizontal scrolling); a
 * wide character straddling `col` is skipped and *pad (may be NULL) is set
 * to the number of blank columns to draw in its place. */
size_t text_skip_cols(const char *s, size_t len, int col, int *pad);

/* Append s to out cut to `cols` columns: if it does not fit, the last
 * column holds `mark` (e.g. "~" or "…"), with a blank before it when a wide
 * character left a gap.  A NULL or empty `mark` cuts without one.  Returns
 * the width appended (never more than `cols`). */
int text_truncate(struct buf *out, const char *s, size_t len, int cols,
		  const char *mark);

/*
 * Wrapping.  text_wrap() breaks sanitized text (which may hold '\n') into
 * lines of at most `cols` columns, at spaces where it can and mid-word
 * only when a word is longer than a line; never inside a character.
 * Each line is (start offset, byte length) into the input, without its
 * '\n' and without the spaces it was broken at.  Every '\n' ends a line,
 * so "a\n\nb" is three lines; a final '\n' starts no new line and empty
 * input gives none.  A character wider than `cols` gets a line of its
 * own; `cols` < 1 counts as 1.  `out` is overwritten (its memory reused);
 * free it with text_lines_release().  Linear in len.
 */
struct text_line {
	size_t off;
	size_t len;
};

struct text_lines {
	struct text_line *v;
	size_t nr, alloc;
};

#define TEXT_LINES_INIT { NULL, 0, 0 }

void text_wrap(struct text_lines *out, const char *s, size_t len, int cols);
/* Free the lines and reset `l` to TEXT_LINES_INIT.  Accepts NULL. */
void text_lines_release(struct text_lines *l);

/* Case-insensitive (ASCII) substring search; returns the offset of the
 * first match or -1.  An empty needle matches at 0. */
long text_find(const char *hay, size_t hlen, const char *needle, size_t nlen);

/* The noun for a count: `one` when n is 1, else `many` ("1 round", "0
 * rounds", "2 rounds").  Returns one of its arguments. */
const char *text_plural(long long n, const char *one, const char *many);

#endif
