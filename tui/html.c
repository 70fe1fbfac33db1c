/* SPDX-License-Identifier: MIT */
/*
 * html: see html.h.
 */
#include "tui/html.h"

#include <string.h>

#include "core/base/text.h"

void html_init(struct html_tok_state *h, const char *s, size_t len)
{
	memset(h, 0, sizeof(*h));
	h->s = s;
	h->len = len;
	buf_init(&h->text, 0);
}

void html_release(struct html_tok_state *h)
{
	buf_release(&h->text);
}

static int is_alpha(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int is_space(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}

static int lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

static const struct {
	const char *name;
	unsigned cp;
} entities[] = {
	{ "amp", '&' }, { "lt", '<' }, { "gt", '>' }, { "quot", '"' },
	{ "apos", '\'' }, { "nbsp", 0xa0 }, { "copy", 0xa9 },
	{ "reg", 0xae }, { "hellip", 0x2026 }, { "mdash", 0x2014 },
	{ "ndash", 0x2013 }, { "rarr", 0x2192 }, { "larr", 0x2190 },
	{ "times", 0xd7 }, { "middot", 0xb7 }, { "laquo", 0xab },
	{ "raquo", 0xbb }, { "deg", 0xb0 }, { "plusmn", 0xb1 },
};

/* Decode one reference at s[0] == '&'; returns the bytes used (0: not a
 * reference) and appends the character. */
static size_t reference(struct buf *out, const char *s, size_t len)
{
	size_t i = 1, k;
	unsigned long v = 0;
	char u[4];

	if (len > 2 && s[1] == '#') {
		int hex = len > 3 && (s[2] == 'x' || s[2] == 'X');
		size_t digits = 0;

		for (i = hex ? 3 : 2; i < len && digits < 8; i++, digits++) {
			int c = lower((unsigned char)s[i]);

			if (c >= '0' && c <= '9')
				v = v * (hex ? 16 : 10) + (unsigned)(c - '0');
			else if (hex && c >= 'a' && c <= 'f')
				v = v * 16 + (unsigned)(c - 'a' + 10);
			else
				break;
		}
		if (!digits || i >= len || s[i] != ';')
			return 0;
		/* NUL, surrogates and what Unicode lacks: U+FFFD */
		if (!v || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
			v = 0xfffd;
		buf_add(out, u, text_encode((uint32_t)v, u));
		return i + 1;
	}
	while (i < len && i < 10 && is_alpha((unsigned char)s[i]))
		i++;
	if (i >= len || s[i] != ';' || i == 1)
		return 0;
	for (k = 0; k < sizeof(entities) / sizeof(entities[0]); k++)
		if (strlen(entities[k].name) == i - 1 &&
		    !memcmp(entities[k].name, s + 1, i - 1)) {
			buf_add(out, u, text_encode(entities[k].cp, u));
			return i + 1;
		}
	return 0;
}

void html_decode(struct buf *out, const char *s, size_t len)
{
	size_t i = 0, from = 0;

	while (i < len) {
		if (s[i] == '&') {
			size_t n;

			buf_add(out, s + from, i - from);
			from = i;
			n = reference(out, s + i, len - i);
			if (n) {
				i += n;
				from = i;
				continue;
			}
		}
		i++;
	}
	buf_add(out, s + from, len - from);
}

/* Does markup start at s[i] (a tag, an end tag, a comment or a
 * declaration)? */
static int markup_at(const char *s, size_t len, size_t i)
{
	if (i + 1 >= len || s[i] != '<')
		return 0;
	if (is_alpha((unsigned char)s[i + 1]) || s[i + 1] == '!' ||
	    s[i + 1] == '?')
		return 1;
	return s[i + 1] == '/' && i + 2 < len &&
	       is_alpha((unsigned char)s[i + 2]);
}

/* The end of a tag starting at s[i] == '<': the index after its '>',
 * quotes respected; 0 when it has none. */
static size_t tag_end(const char *s, size_t len, size_t i)
{
	char q = 0;

	for (i++; i < len; i++) {
		if (q) {
			if (s[i] == q)
				q = 0;
		} else if (s[i] == '"' || s[i] == '\'') {
			q = s[i];
		} else if (s[i] == '>') {
			return i + 1;
		}
	}
	return 0;
}

static size_t read_name(struct html_tok_state *h, size_t i)
{
	size_t k = 0;

	while (i < h->len && !is_space((unsigned char)h->s[i]) &&
	       h->s[i] != '>' && h->s[i] != '/') {
		if (k + 1 < sizeof(h->name))
			h->name[k++] = (char)lower((unsigned char)h->s[i]);
		i++;
	}
	h->name[k] = '\0';
	return i;
}

enum html_tok html_next(struct html_tok_state *h)
{
	const char *s = h->s;
	size_t len = h->len;

	for (;;) {
		size_t i = h->pos, end;

		if (i >= len)
			return h->kind = HTML_END;
		if (!markup_at(s, len, i)) {
			/* text up to the next markup */
			size_t j = i + 1;

			while (j < len && !markup_at(s, len, j))
				j++;
			buf_reset(&h->text);
			html_decode(&h->text, s + i, j - i);
			h->pos = j;
			return h->kind = HTML_TEXT;
		}
		if (i + 3 < len && !memcmp(s + i, "<!--", 4)) {
			const char *e = NULL;
			size_t k;

			for (k = i + 4; k + 3 <= len; k++)
				if (!memcmp(s + k, "-->", 3)) {
					e = s + k;
					break;
				}
			h->pos = e ? (size_t)(e - s) + 3 : len;
			continue;
		}
		end = tag_end(s, len, i);
		if (!end) {
			/* never closed: the rest is text */
			buf_reset(&h->text);
			html_decode(&h->text, s + i, len - i);
			h->pos = len;
			return h->kind = HTML_TEXT;
		}
		h->pos = end;
		if (s[i + 1] == '!' || s[i + 1] == '?')
			continue;
		if (s[i + 1] == '/') {
			read_name(h, i + 2);
			h->self_closing = 0;
			h->attrs = NULL;
			h->attrs_len = 0;
			return h->kind = HTML_CLOSE;
		}
		i = read_name(h, i + 1);
		h->attrs = s + i;
		h->attrs_len = end - 1 - i;
		h->self_closing = h->attrs_len && s[end - 2] == '/';
		return h->kind = HTML_OPEN;
	}
}

int html_attr(const struct html_tok_state *h, const char *name,
	      struct buf *out)
{
	const char *a = h->attrs;
	size_t len = h->attrs_len, i = 0, nl = strlen(name);

	if (h->kind != HTML_OPEN || !a)
		return 0;
	while (i < len) {
		size_t n0, n1, v0, v1;

		while (i < len && (is_space((unsigned char)a[i]) ||
				   a[i] == '/'))
			i++;
		n0 = i;
		while (i < len && !is_space((unsigned char)a[i]) &&
		       a[i] != '=' && a[i] != '/')
			i++;
		n1 = i;
		if (n1 == n0) {
			i++;
			continue;
		}
		while (i < len && is_space((unsigned char)a[i]))
			i++;
		v0 = v1 = i;
		if (i < len && a[i] == '=') {
			i++;
			while (i < len && is_space((unsigned char)a[i]))
				i++;
			if (i < len && (a[i] == '"' || a[i] == '\'')) {
				char q = a[i++];

				v0 = i;
				while (i < len && a[i] != q)
					i++;
				v1 = i;
				if (i < len)
					i++;
			} else {
				v0 = i;
				while (i < len &&
				       !is_space((unsigned char)a[i]))
					i++;
				v1 = i;
			}
		}
		if (n1 - n0 == nl) {
			size_t k;

			for (k = 0; k < nl; k++)
				if (lower((unsigned char)a[n0 + k]) != name[k])
					break;
			if (k == nl) {
				buf_reset(out);
				html_decode(out, a + v0, v1 - v0);
				return 1;
			}
		}
	}
	return 0;
}
