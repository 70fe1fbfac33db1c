/* SPDX-License-Identifier: MIT */
/*
 * csv_out: see csv_out.h.
 */
#include "exports/csv_out.h"

#include <stdio.h>
#include <string.h>

void csvw_init(struct csv_out *w, FILE *f, unsigned flags)
{
	w->f = f;
	buf_init(&w->row, 512);
	w->flags = flags;
	w->cells = 0;
}

void csvw_release(struct csv_out *w)
{
	if (!w)
		return;
	buf_release(&w->row);
	w->cells = 0;
}

int csv_formula_risk(const char *s, size_t len)
{
	if (!len)
		return 0;
	switch (s[0]) {
	case '=':
	case '+':
	case '-':
	case '@':
	case '\t':
	case '\r':
		return 1;
	}
	return 0;
}

/* Quoted: separators, quotes, line ends, and spaces at either end (which
 * a reader drops from an unquoted cell). */
static int needs_quotes(const char *s, size_t len)
{
	size_t i;

	if (len && (s[0] == ' ' || s[0] == '\t' || s[len - 1] == ' ' ||
		    s[len - 1] == '\t'))
		return 1;
	for (i = 0; i < len; i++) {
		char c = s[i];

		if (c == ',' || c == '"' || c == '\n' || c == '\r')
			return 1;
	}
	return 0;
}

void csv_cell(struct buf *out, const char *s, size_t len, int guard)
{
	const char *p, *end = s + len, *q;

	guard = guard && csv_formula_risk(s, len);
	if (!guard && !needs_quotes(s, len)) {
		buf_add(out, s, len);
		return;
	}
	buf_grow(out, len + 4);
	buf_addch(out, '"');
	if (guard)
		buf_addch(out, '\'');
	for (p = s; p < end; p = q + 1) {
		q = memchr(p, '"', (size_t)(end - p));
		if (!q) {
			buf_add(out, p, (size_t)(end - p));
			break;
		}
		buf_add(out, p, (size_t)(q - p) + 1);
		buf_addch(out, '"');
	}
	buf_addch(out, '"');
}

static void sep(struct csv_out *w)
{
	if (w->cells++)
		buf_addch(&w->row, ',');
}

void csvw_textn(struct csv_out *w, const char *s, size_t len)
{
	sep(w);
	if (s)
		csv_cell(&w->row, s, len, (w->flags & CSV_GUARD) != 0);
}

void csvw_text(struct csv_out *w, const char *s)
{
	csvw_textn(w, s, s ? strlen(s) : 0);
}

/* Made only of the characters identifiers are restricted to? */
static int plain_key(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || strchr("_.@#/;-", c)))
			return 0;
	}
	return 1;
}

void csvw_key(struct csv_out *w, const char *s)
{
	size_t len = s ? strlen(s) : 0;

	sep(w);
	if (s)
		csv_cell(&w->row, s, len, (w->flags & CSV_GUARD) &&
			 !plain_key(s, len));
}

static void add_number(struct buf *b, unsigned long long u, int minus)
{
	char tmp[24], *p = tmp + sizeof(tmp);

	do {
		*--p = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (minus)
		*--p = '-';
	buf_add(b, p, (size_t)(tmp + sizeof(tmp) - p));
}

void csvw_int(struct csv_out *w, long long v)
{
	sep(w);
	add_number(&w->row, v < 0 ? 0ULL - (unsigned long long)v :
		   (unsigned long long)v, v < 0);
}

void csvw_uint(struct csv_out *w, unsigned long long v)
{
	sep(w);
	add_number(&w->row, v, 0);
}

void csvw_double(struct csv_out *w, double v, int decimals)
{
	sep(w);
	buf_addf(&w->row, "%.*f", decimals, v);
}

void csvw_bool(struct csv_out *w, int v)
{
	sep(w);
	buf_addstr(&w->row, v ? "TRUE" : "FALSE");
}

void csvw_null(struct csv_out *w)
{
	sep(w);
}

void csvw_header(struct csv_out *w, const char *const *names)
{
	for (; *names; names++)
		csvw_text(w, *names);
}

int csvw_end(struct csv_out *w)
{
	if (w->flags & CSV_LF)
		buf_addch(&w->row, '\n');
	else
		buf_add(&w->row, "\r\n", 2);
	w->cells = 0;
	if (!w->f)
		return 0;
	if (fwrite(w->row.ptr, 1, w->row.len, w->f) != w->row.len) {
		buf_reset(&w->row);
		return -1;
	}
	buf_reset(&w->row);
	return 0;
}
