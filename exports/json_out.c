/* SPDX-License-Identifier: MIT */
/*
 * json_out: see json_out.h.
 */
#include "exports/json_out.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/base/text.h"

void json_quote(struct buf *b, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t i = 0, run = 0;

	buf_grow(b, len + 2);
	buf_addch(b, '"');
	while (i < len) {
		unsigned char c = s[i];

		if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
			i++;
			run++;
			continue;
		}
		buf_add(b, s + i - run, run);
		run = 0;
		if (c >= 0x80) {
			uint32_t cp;
			size_t n = text_decode(s + i, len - i, &cp);

			if (cp == 0xFFFD && n == 1)	/* invalid */
				buf_add(b, "\xEF\xBF\xBD", 3);
			else
				buf_add(b, s + i, n);
			i += n;
			continue;
		}
		buf_addch(b, '\\');
		switch (c) {
		case '"':
			buf_addch(b, '"');
			break;
		case '\\':
			buf_addch(b, '\\');
			break;
		case '\n':
			buf_addch(b, 'n');
			break;
		case '\r':
			buf_addch(b, 'r');
			break;
		case '\t':
			buf_addch(b, 't');
			break;
		case '\b':
			buf_addch(b, 'b');
			break;
		case '\f':
			buf_addch(b, 'f');
			break;
		default:
			buf_add(b, "u00", 3);
			buf_addch(b, hex[c >> 4]);
			buf_addch(b, hex[c & 15]);
		}
		i++;
	}
	buf_add(b, s + i - run, run);
	buf_addch(b, '"');
}

void jsonw_begin(struct json_out *j, struct buf *b)
{
	j->b = b;
	j->fields = 0;
	buf_addch(b, '{');
}

void jsonw_end(struct json_out *j)
{
	buf_add(j->b, "}\n", 2);
}

static void key(struct json_out *j, const char *k)
{
	if (j->fields++)
		buf_addch(j->b, ',');
	buf_addch(j->b, '"');
	buf_addstr(j->b, k);
	buf_add(j->b, "\":", 2);
}

void jsonw_strn(struct json_out *j, const char *k, const char *s, size_t len)
{
	key(j, k);
	if (s)
		json_quote(j->b, s, len);
	else
		buf_add(j->b, "null", 4);
}

void jsonw_str(struct json_out *j, const char *k, const char *s)
{
	jsonw_strn(j, k, s, s ? strlen(s) : 0);
}

void jsonw_int(struct json_out *j, const char *k, long long v)
{
	key(j, k);
	buf_addf(j->b, "%lld", v);
}

void jsonw_uint(struct json_out *j, const char *k, unsigned long long v)
{
	key(j, k);
	buf_addf(j->b, "%llu", v);
}

void jsonw_double(struct json_out *j, const char *k, double v, int decimals)
{
	key(j, k);
	if (isfinite(v))
		buf_addf(j->b, "%.*f", decimals, v);
	else
		buf_add(j->b, "null", 4);
}

void jsonw_bool(struct json_out *j, const char *k, int v)
{
	key(j, k);
	buf_addstr(j->b, v ? "true" : "false");
}

void jsonw_null(struct json_out *j, const char *k)
{
	key(j, k);
	buf_add(j->b, "null", 4);
}

void jsonw_list(struct json_out *j, const char *k, const char *joined,
		char sep, int numbers)
{
	const char *p, *q;

	key(j, k);
	if (!joined) {
		buf_add(j->b, "null", 4);
		return;
	}
	buf_addch(j->b, '[');
	for (p = joined; *p; p = *q ? q + 1 : q) {
		q = strchr(p, sep);
		if (!q)
			q = p + strlen(p);
		if (p != joined)
			buf_addch(j->b, ',');
		if (numbers && q - p == 1 && *p == '?')
			buf_add(j->b, "null", 4);	/* unknown */
		else if (numbers)
			buf_add(j->b, p, (size_t)(q - p));
		else
			json_quote(j->b, p, (size_t)(q - p));
	}
	buf_addch(j->b, ']');
}
