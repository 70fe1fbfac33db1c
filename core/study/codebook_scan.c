/* SPDX-License-Identifier: MIT */
/*
 * codebook_scan: the codebook's JSON text as text, for codebook.c (see
 * there for the four passes): messages that name the file, line and
 * column, the byte check (pass 1), placing cJSON's syntax errors
 * (pass 2) and the position index of every value (pass 3).
 */
#include "core/study/codebook_int.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/base/buf.h"
#include "core/base/err.h"

#define QUOTE_MAX 40		/* characters of a value in a message */

/* ---- positions and messages ---------------------------------------------- */

static void line_col(const struct loader *l, size_t off, size_t *line,
		     size_t *col)
{
	size_t i;

	*line = 1;
	*col = 1;
	if (off > l->len)
		off = l->len;
	for (i = l->start; i < off; i++) {
		if (l->text[i] == '\n') {
			(*line)++;
			*col = 1;
		} else if ((l->text[i] & 0xC0) != 0x80) {
			(*col)++;
		}
	}
}

/* Fill l->e with "origin:line:col: path: message" and return -1. */
__attribute__((format(printf, 3, 4)))
int loader_fail(struct loader *l, size_t off, const char *fmt, ...)
{
	struct buf msg = BUF_INIT;
	size_t line, col;
	va_list ap;

	l->fail_at = off;
	line_col(l, off, &line, &col);
	va_start(ap, fmt);
	buf_vaddf(&msg, fmt, ap);
	va_end(ap);
	if (l->path.len)
		err_set(l->e, ERR_INPUT, "%s:%zu:%zu: %s: %s", l->origin,
			line, col, l->path.ptr, msg.ptr);
	else
		err_set(l->e, ERR_INPUT, "%s:%zu:%zu: %s", l->origin, line,
			col, msg.ptr);
	buf_release(&msg);
	return -1;
}

/* Length of the UTF-8 sequence at s[0..n), or 0 if it is not valid
 * (overlong forms, surrogates and code points above U+10FFFF included). */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	uint32_t cp, min;
	size_t len, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xC2 && s[0] <= 0xDF) {
		len = 2;
		cp = s[0] & 0x1F;
		min = 0x80;
	} else if (s[0] >= 0xE0 && s[0] <= 0xEF) {
		len = 3;
		cp = s[0] & 0x0F;
		min = 0x800;
	} else if (s[0] >= 0xF0 && s[0] <= 0xF4) {
		len = 4;
		cp = s[0] & 0x07;
		min = 0x10000;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3F);
	}
	if (cp < min || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
		return 0;
	return len;
}

/* Quote `s` for a message: at most QUOTE_MAX characters, with quotes,
 * backslashes and control characters (C0, DEL, C1) escaped so that the
 * message stays one printable line.  The result lives in l->quote until
 * the next call. */
const char *loader_quote(struct loader *l, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = strlen(str), i = 0, chars = 0, k;

	buf_set(&l->quote, "\"");
	while (i < n) {
		if (chars++ == QUOTE_MAX) {
			buf_addstr(&l->quote, "...");
			break;
		}
		if (s[i] == '"' || s[i] == '\\') {
			buf_addch(&l->quote, '\\');
			buf_addch(&l->quote, s[i++]);
			continue;
		}
		if (s[i] < 0x20 || s[i] == 0x7F) {
			buf_addf(&l->quote, "\\x%02x", s[i++]);
			continue;
		}
		k = utf8_len(s + i, n - i);
		if (!k) {
			buf_addf(&l->quote, "\\x%02x", s[i++]);
		} else if (k == 2 && s[i] == 0xC2 && s[i + 1] < 0xA0) {
			buf_addf(&l->quote, "\\u%04x", s[i + 1]);
			i += 2;
		} else {
			buf_add(&l->quote, s + i, k);
			i += k;
		}
	}
	buf_addch(&l->quote, '"');
	return l->quote.ptr;
}

size_t loader_path_push(struct loader *l, const char *key)
{
	size_t old = l->path.len;

	if (old)
		buf_addch(&l->path, '.');
	buf_addstr(&l->path, key);
	return old;
}

size_t loader_path_push_index(struct loader *l, size_t i)
{
	size_t old = l->path.len;

	buf_addf(&l->path, "[%zu]", i);
	return old;
}

void loader_path_pop(struct loader *l, size_t old)
{
	buf_setlen(&l->path, old);
}

/* ---- pass 1: bytes ------------------------------------------------------- */

int loader_check_bytes(struct loader *l)
{
	size_t i = l->start, k;
	unsigned char c;

	while (i < l->len) {
		c = l->text[i];
		if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
			return loader_fail(l, i, "control character 0x%02x", c);
		k = utf8_len(l->text + i, l->len - i);
		if (!k)
			return loader_fail(l, i, "invalid UTF-8 byte 0x%02x",
					   c);
		i += k;
	}
	return 0;
}

size_t loader_skip_ws(const struct loader *l, size_t off)
{
	while (off < l->len && (l->text[off] == ' ' || l->text[off] == '\t' ||
				l->text[off] == '\n' || l->text[off] == '\r'))
		off++;
	return off;
}

/* ---- pass 3: the position index ------------------------------------------ */

static size_t add_pos(struct loader *l, size_t key, size_t val)
{
	ALLOC_GROW(l->pos, l->nr_pos + 1, l->alloc_pos);
	l->pos[l->nr_pos].key = key;
	l->pos[l->nr_pos].val = val;
	l->pos[l->nr_pos].next = NO_POS;
	return l->nr_pos++;
}

/* Offset of the quote closing the string that opens at `off`, as cJSON
 * finds it (a backslash skips the byte after it), or l->len if the string
 * never closes. */
static size_t string_end(const struct loader *l, size_t off)
{
	size_t i = off + 1;

	while (i < l->len && l->text[i] != '"')
		i += l->text[i] == '\\' ? 2 : 1;
	return i < l->len ? i : l->len;
}

/* Step over the string opening at *off, refusing what cJSON lets by. */
static int scan_string(struct loader *l, size_t *off)
{
	size_t i, end = string_end(l, *off);

	if (end == l->len)
		return loader_fail(l, l->len, "unterminated string");
	for (i = *off + 1; i < end; i++) {
		if (l->text[i] < 0x20)
			return loader_fail(l, i, "control character 0x%02x "
					   "in a string (write it as an "
					   "escape)", l->text[i]);
		if (l->text[i] == '\\') {
			if (i + 5 < end && l->text[i + 1] == 'u' &&
			    !memcmp(l->text + i + 2, "0000", 4))
				return loader_fail(l, i, "\\u0000 in a string");
			i++;
		}
	}
	*off = end + 1;
	return 0;
}

static int scan_value(struct loader *l, size_t *off, size_t key, int depth);

/* Scan the members of an object or the elements of an array opening at
 * *off; `close` is '}' or ']'. */
static int scan_children(struct loader *l, size_t *off, int close, int depth)
{
	size_t i = loader_skip_ws(l, *off + 1), key = NO_POS;

	if (i < l->len && l->text[i] == close) {
		*off = i + 1;
		return 0;
	}
	for (;;) {
		if (close == '}') {
			key = i;
			if (i >= l->len || l->text[i] != '"')
				return loader_fail(l, i, "JSON syntax error");
			if (scan_string(l, &i) < 0)
				return -1;
			i = loader_skip_ws(l, i);
			if (i >= l->len || l->text[i] != ':')
				return loader_fail(l, i, "JSON syntax error");
			i = loader_skip_ws(l, i + 1);
		}
		if (scan_value(l, &i, key, depth + 1) < 0)
			return -1;
		i = loader_skip_ws(l, i);
		if (i >= l->len)
			return loader_fail(l, i, "JSON syntax error");
		if (l->text[i] == close)
			break;
		if (l->text[i] != ',')
			return loader_fail(l, i, "JSON syntax error");
		i = loader_skip_ws(l, i + 1);
	}
	*off = i + 1;
	return 0;
}

static int scan_value(struct loader *l, size_t *off, size_t key, int depth)
{
	static const char number[] = "0123456789+-.eE";
	size_t at = add_pos(l, key, *off), i = *off;

	if (depth > CJSON_NESTING_LIMIT || i >= l->len)
		return loader_fail(l, i, "JSON syntax error");
	switch (l->text[i]) {
	case '{':
	case '[':
		if (scan_children(l, &i, l->text[i] == '{' ? '}' : ']',
				  depth) < 0)
			return -1;
		break;
	case '"':
		if (scan_string(l, &i) < 0)
			return -1;
		break;
	case 't':
	case 'n':
		i += 4;
		break;
	case 'f':
		i += 5;
		break;
	default:
		while (i < l->len && l->text[i] && strchr(number, l->text[i]))
			i++;
		break;
	}
	if (i == *off || i > l->len)
		return loader_fail(l, *off, "JSON syntax error");
	*off = i;
	l->pos[at].next = l->nr_pos;
	return 0;
}

/* Does the index agree with the cJSON tree below `item` (node `at`)?
 * Always true unless the scan and cJSON read the text differently; the
 * check keeps that from ever turning into a wild index. */
static int index_matches(const struct loader *l, const cJSON *item, size_t at)
{
	const cJSON *it;
	size_t n;
	int c;

	if (at >= l->nr_pos)
		return 0;
	c = l->text[l->pos[at].val];
	if (cJSON_IsObject(item) ? c != '{' :
	    cJSON_IsArray(item) ? c != '[' :
	    cJSON_IsString(item) ? c != '"' :
	    cJSON_IsBool(item) ? c != 't' && c != 'f' :
	    cJSON_IsNull(item) ? c != 'n' : !cJSON_IsNumber(item))
		return 0;
	n = at + 1;
	for (it = item->child; it; it = it->next) {
		if (!index_matches(l, it, n))
			return 0;
		if (cJSON_IsObject(item) != (l->pos[n].key != NO_POS))
			return 0;
		n = l->pos[n].next;
	}
	return n == l->pos[at].next;
}

int loader_index_positions(struct loader *l, const cJSON *root, size_t off)
{
	if (scan_value(l, &off, NO_POS, 0) < 0)
		return -1;
	if (root && !index_matches(l, root, 0))
		return loader_fail(l, 0, "cannot locate the values of this "
				   "JSON text");
	return 0;
}

/* ---- pass 2: placing syntax errors (with help from the scan) ------------- */

/* Does the text end before its JSON value is complete?  cJSON reports
 * running out of input at the last byte, which cannot be told apart from
 * an error at that byte, so in that one case the position scan decides:
 * it fails at the very end only when it wants more input. */
static int truncated(const struct loader *l)
{
	struct err e = ERR_INIT;
	struct loader scan = *l;

	scan.pos = NULL;
	scan.nr_pos = scan.alloc_pos = 0;
	scan.path = (struct buf)BUF_INIT;
	scan.quote = (struct buf)BUF_INIT;
	scan.e = &e;
	scan.fail_at = 0;
	if (loader_index_positions(&scan, NULL,
				   loader_skip_ws(l, l->start)) == 0)
		scan.fail_at = 0;
	free(scan.pos);
	buf_release(&scan.path);
	buf_release(&scan.quote);
	return scan.fail_at >= l->len;
}

/* Does a string open at `q`, rather than close or sit inside one? */
static int opens_string(const struct loader *l, size_t q)
{
	size_t i = l->start;

	while (i < q)
		i = l->text[i] == '"' ? string_end(l, i) + 1 : i + 1;
	return i == q && l->text[q] == '"';
}

int loader_syntax_error(struct loader *l, const char *at)
{
	size_t off;
	unsigned char c;

	if (!at)
		at = cJSON_GetErrorPtr();
	off = at ? (size_t)((const unsigned char *)at - l->text) : l->len;
	if (off >= l->len || loader_skip_ws(l, off) == l->len ||
	    (off + 1 == l->len && truncated(l)))
		return loader_fail(l, l->len, "unexpected end of JSON text");
	/* cJSON places a string it cannot finish just after its quote. */
	if (off > 0 && opens_string(l, off - 1) &&
	    string_end(l, off - 1) == l->len)
		return loader_fail(l, off - 1, "unterminated string");
	c = l->text[off];
	if (c > 0x20 && c < 0x7F)
		return loader_fail(l, off, "JSON syntax error near '%c'", c);
	return loader_fail(l, off, "JSON syntax error");
}
