/* SPDX-License-Identifier: MIT */
/*
 * text: see text.h.
 *
 * All functions work on bytes and never allocate except through the
 * caller's struct buf or struct text_lines.  Printable ASCII takes a fast
 * path everywhere (one byte, one column, no decoding); only other bytes go
 * through the UTF-8 decoder and wcwidth().
 *
 * Invalid UTF-8 is replaced following Unicode's "substitution of maximal
 * subparts" (chapter 3, U+FFFD practice, also what WHATWG and Python do):
 * a lead byte followed by a valid but unfinished continuation is one bad
 * sequence, and every byte that cannot start or continue anything is one
 * bad sequence on its own.  So "\xE2\x82" gives one U+FFFD, "\xC0\xAF"
 * (overlong) gives two, and "\xED\xA0\x80" (a surrogate) gives three.
 *
 * Limitations: widths are those of the C library, which knows nothing of
 * emoji presentation sequences or grapheme clusters; a ZWJ sequence
 * measures as the sum of its parts.
 */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700	/* wcwidth() */
#endif

#include "core/base/text.h"

#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "core/base/buf.h"

#define BAD_CP ((uint32_t)-1)	/* decode(): the bytes were invalid */
#define REPLACEMENT 0xFFFDu

static inline int is_print_ascii(unsigned char c)
{
	return c >= 0x20 && c < 0x7f;
}

/*
 * Decode the character at s (len >= 1 bytes).  Returns the number of bytes
 * consumed.  A valid sequence stores its code point in *cp; an invalid one
 * stores BAD_CP and consumes its maximal subpart (at least one byte).
 */
static size_t decode(const unsigned char *s, size_t len, uint32_t *cp)
{
	unsigned c = s[0];
	unsigned lo = 0x80, hi = 0xbf;
	size_t need, k;
	uint32_t v;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c < 0xc2) {
		/* continuation byte, or C0/C1: always overlong */
		*cp = BAD_CP;
		return 1;
	} else if (c < 0xe0) {
		need = 1;
		v = c & 0x1f;
	} else if (c < 0xf0) {
		need = 2;
		v = c & 0x0f;
		if (c == 0xe0)
			lo = 0xa0;	/* overlong below U+0800 */
		else if (c == 0xed)
			hi = 0x9f;	/* surrogates U+D800..U+DFFF */
	} else if (c < 0xf5) {
		need = 3;
		v = c & 0x07;
		if (c == 0xf0)
			lo = 0x90;	/* overlong below U+10000 */
		else if (c == 0xf4)
			hi = 0x8f;	/* above U+10FFFF */
	} else {
		*cp = BAD_CP;
		return 1;
	}
	for (k = 1; k <= need; k++) {
		if (k >= len || s[k] < lo || s[k] > hi) {
			*cp = BAD_CP;
			return k;
		}
		v = (v << 6) | (s[k] & 0x3f);
		lo = 0x80;
		hi = 0xbf;
	}
	*cp = v;
	return need + 1;
}

size_t text_decode(const char *s, size_t len, uint32_t *cp)
{
	size_t n;

	if (!len)
		return 0;
	n = decode((const unsigned char *)s, len, cp);
	if (*cp == BAD_CP) {
		*cp = REPLACEMENT;
		return 1;
	}
	return n;
}

int text_valid_utf8(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	uint32_t cp;

	while (i < len) {
		if (p[i] < 0x80) {
			i++;
			continue;
		}
		i += decode(p + i, len - i, &cp);
		if (cp == BAD_CP)
			return 0;
	}
	return 1;
}

/*
 * The one width policy.  Controls are -1 whatever the locale says; the rest
 * is wcwidth(), which gives -1 for unassigned and non-printable characters
 * (and for everything non-ASCII outside a UTF-8 locale).
 */
int text_char_width(uint32_t cp)
{
	if (cp >= 0x20 && cp < 0x7f)
		return 1;
	if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0) || cp > 0x10ffff)
		return -1;
	return wcwidth((wchar_t)cp);
}

/* Width used when measuring: anything unprintable is drawn as one cell
 * (U+FFFD or a caret form), so it counts as 1. */
static inline int cell_width(uint32_t cp)
{
	int w = text_char_width(cp);

	return w < 0 ? 1 : w;
}

/* Decode at s[i] for measuring: returns bytes and stores the width. */
static inline size_t next_char(const char *s, size_t len, size_t i, int *w)
{
	const unsigned char *p = (const unsigned char *)s + i;
	uint32_t cp;
	size_t n;

	if (*p < 0x80) {
		*w = 1;
		return 1;
	}
	n = decode(p, len - i, &cp);
	*w = cp == BAD_CP ? 1 : cell_width(cp);
	return n;
}

size_t text_encode(uint32_t cp, char u[4])
{
	if (cp < 0x80) {
		u[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		u[0] = (char)(0xc0 | (cp >> 6));
		u[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		u[0] = (char)(0xe0 | (cp >> 12));
		u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		u[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	u[0] = (char)(0xf0 | (cp >> 18));
	u[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	u[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	u[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

static void add_cp(struct buf *out, uint32_t cp)
{
	char u[4];

	buf_add(out, u, text_encode(cp, u));
}

static int is_bidi_control(uint32_t cp)
{
	return (cp >= 0x202a && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069) ||
	       cp == 0x200e || cp == 0x200f || cp == 0x061c;
}

int text_sanitize(struct buf *out, const char *s, size_t len, int tabstop,
		  unsigned flags)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	int col = 0;

	if (tabstop < 1)
		tabstop = 8;
	buf_grow(out, len);
	while (i < len) {
		size_t start = i;
		unsigned char c;
		uint32_t cp;
		int w;

		while (i < len && is_print_ascii(p[i]))
			i++;
		if (i > start) {
			buf_add(out, p + start, i - start);
			col += (int)(i - start);
			continue;
		}
		c = p[i];
		if (c == '\n' || (c == '\r' && (i + 1 == len ||
						p[i + 1] == '\n'))) {
			/* LF, CRLF, or a lone CR ending the text */
			i += c == '\r' && i + 1 < len ? 2 : 1;
			if (flags & TEXT_KEEP_NL) {
				buf_addch(out, '\n');
				col = 0;
			} else {
				add_cp(out, 0x240a);
				col++;
			}
			continue;
		}
		if (c == '\t') {
			int n = tabstop - col % tabstop;

			i++;
			buf_grow(out, (size_t)n);
			memset(out->ptr + out->len, ' ', (size_t)n);
			buf_setlen(out, out->len + (size_t)n);
			col += n;
			continue;
		}
		if (c < 0x20) {
			/* includes a CR in mid-line, shown as U+240D */
			i++;
			add_cp(out, 0x2400 + c);
			col++;
			continue;
		}
		if (c == 0x7f) {
			i++;
			add_cp(out, 0x2421);
			col++;
			continue;
		}
		i += decode(p + i, len - i, &cp);
		if (cp == BAD_CP || cp < 0xa0) {
			/* invalid UTF-8, or a C1 control */
			add_cp(out, REPLACEMENT);
			col++;
			continue;
		}
		if (is_bidi_control(cp)) {
			buf_addf(out, "<U+%04X>", (unsigned)cp);
			col += 8;
			continue;
		}
		w = text_char_width(cp);
		if (w < 0) {
			add_cp(out, REPLACEMENT);
			col++;
		} else {
			buf_add(out, p + start, i - start);
			col += w;
		}
	}
	return col;
}

int text_width(const char *s, size_t len)
{
	size_t i = 0;
	int col = 0;

	while (i < len) {
		int w;

		if ((unsigned char)s[i] < 0x80) {
			i++;
			col++;
			continue;
		}
		i += next_char(s, len, i, &w);
		col += w;
	}
	return col;
}

size_t text_fit(const char *s, size_t len, int cols, int *used)
{
	size_t i = 0;
	int col = 0;

	if (cols < 0)
		cols = 0;
	while (i < len) {
		size_t n;
		int w;

		if ((unsigned char)s[i] < 0x80) {
			if (col >= cols)
				break;
			i++;
			col++;
			continue;
		}
		n = next_char(s, len, i, &w);
		/* zero-width marks always fit, so they stay with their base */
		if (w > cols - col)
			break;
		i += n;
		col += w;
	}
	if (used)
		*used = col;
	return i;
}

size_t text_skip_cols(const char *s, size_t len, int col, int *pad)
{
	size_t i = 0;
	int at = 0;

	if (pad)
		*pad = 0;
	if (col <= 0)
		return 0;
	while (i < len && at < col) {
		int w;

		i += next_char(s, len, i, &w);
		at += w;
	}
	/* marks of zero width belong to the character scrolled away */
	while (i < len) {
		int w;
		size_t n = next_char(s, len, i, &w);

		if (w)
			break;
		i += n;
	}
	if (pad && at > col)
		*pad = at - col;
	return i;
}

int text_truncate(struct buf *out, const char *s, size_t len, int cols,
		  const char *mark)
{
	size_t n, mlen = mark ? strlen(mark) : 0;
	int used, mw;

	if (cols <= 0)
		return 0;
	n = text_fit(s, len, cols, &used);
	if (n == len || !mlen) {
		buf_add(out, s, n);
		return used;
	}
	mw = text_width(mark, mlen);
	if (mw >= cols) {
		/* the mark alone fills the space */
		n = text_fit(mark, mlen, cols, &used);
		buf_add(out, mark, n);
		return used;
	}
	n = text_fit(s, len, cols - mw, &used);
	buf_add(out, s, n);
	/* a wide character that did not fit leaves a gap: fill it so the
	 * mark sits in the last column */
	for (; used < cols - mw; used++)
		buf_addch(out, ' ');
	buf_add(out, mark, mlen);
	return used + mw;
}

static void push_line(struct text_lines *out, size_t off, size_t len)
{
	ALLOC_GROW(out->v, out->nr + 1, out->alloc);
	out->v[out->nr].off = off;
	out->v[out->nr].len = len;
	out->nr++;
}

#define NONE ((size_t)-1)

/*
 * Greedy wrap of one paragraph s[start..end) (no '\n' inside).  Each
 * character is decoded once, except the one that overflows a line, which is
 * looked at again on the next line: linear time.
 *
 * A break opportunity is a run of spaces after some non-space text of the
 * current line; the line ends before the run and the next line starts
 * after it.  Leading spaces (indentation) are kept on the first line.
 */
static void wrap_para(struct text_lines *out, const char *s, size_t start,
		      size_t end, int cols)
{
	size_t i = start, ls = start;	/* ls: start of the current line */
	size_t sp = NONE;		/* start of the last space run */
	size_t ws = NONE;		/* first byte after that run */
	int col = 0, wcol = 0;		/* wcol: column at ws */
	int prev_space = 0;
	size_t nr0 = out->nr;

	while (i < end) {
		size_t n;
		int w;

		if (s[i] == ' ') {
			if (col + 1 > cols) {
				/* a space overflows: break here, drop the run
				 * (which may have begun before this space) */
				size_t stop = sp != NONE && ws == NONE ? sp : i;

				push_line(out, ls, stop - ls);
				while (i < end && s[i] == ' ')
					i++;
				ls = i;
				col = 0;
				sp = ws = NONE;
				prev_space = 0;
				continue;
			}
			if (!prev_space && i > ls) {
				sp = i;
				ws = NONE;
			}
			prev_space = 1;
			col++;
			i++;
			continue;
		}
		n = next_char(s, end, i, &w);
		if (prev_space && sp != NONE && ws == NONE) {
			ws = i;
			wcol = col;
		}
		prev_space = 0;
		if (w > cols - col && col > 0) {
			if (ws != NONE) {
				/* break at the last space; the word so far
				 * moves down and i is looked at again */
				push_line(out, ls, sp - ls);
				ls = ws;
				col -= wcol;
			} else {
				/* a word longer than a line */
				push_line(out, ls, i - ls);
				ls = i;
				col = 0;
			}
			sp = ws = NONE;
			continue;
		}
		col += w;
		i += n;
	}
	if (ls < end || out->nr == nr0)
		push_line(out, ls, end - ls);
}

void text_wrap(struct text_lines *out, const char *s, size_t len, int cols)
{
	size_t i = 0;

	out->nr = 0;
	if (cols < 1)
		cols = 1;
	while (i < len) {
		const char *nl = memchr(s + i, '\n', len - i);
		size_t end = nl ? (size_t)(nl - s) : len;

		wrap_para(out, s, i, end, cols);
		i = nl ? end + 1 : len;
	}
}

void text_lines_release(struct text_lines *l)
{
	if (!l)
		return;
	free(l->v);
	l->v = NULL;
	l->nr = l->alloc = 0;
}

static inline unsigned char ascii_lower(unsigned char c)
{
	return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
}

long text_find(const char *hay, size_t hlen, const char *needle, size_t nlen)
{
	const unsigned char *h = (const unsigned char *)hay;
	const unsigned char *n = (const unsigned char *)needle;
	unsigned char lo, up;
	size_t i, k;

	if (!nlen)
		return 0;
	if (nlen > hlen)
		return -1;
	lo = ascii_lower(n[0]);
	up = lo >= 'a' && lo <= 'z' ? lo - ('a' - 'A') : lo;
	for (i = 0; i <= hlen - nlen; i++) {
		if (h[i] != lo && h[i] != up)
			continue;
		for (k = 1; k < nlen; k++)
			if (ascii_lower(h[i + k]) != ascii_lower(n[k]))
				break;
		if (k == nlen)
			return (long)i;
	}
	return -1;
}

const char *text_plural(long long n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}
