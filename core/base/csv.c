/* SPDX-License-Identifier: MIT */
/*
 * csv: see csv.h.
 */
#include "core/base/csv.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/buf.h"

static int blank(int c)
{
	return c == ' ' || c == '\t';
}

/* The field ends: an unquoted one loses the spaces around it (people
 * type "a, b"), a quoted one is kept as quoted. */
static void add_field(struct csv_record *r, struct buf *f, size_t *alloc,
		      int quoted)
{
	if (!quoted) {
		size_t skip = 0;

		while (f->len && blank((unsigned char)f->ptr[f->len - 1]))
			f->len--;
		while (skip < f->len && blank((unsigned char)f->ptr[skip]))
			skip++;
		memmove(f->ptr, f->ptr + skip, f->len - skip);
		buf_setlen(f, f->len - skip);
	}
	ALLOC_GROW(r->fields, r->nr + 1, *alloc);
	r->fields[r->nr++] = buf_detach(f, NULL);
}

static int all_blank(const struct buf *f)
{
	size_t i;

	for (i = 0; i < f->len; i++)
		if (!blank((unsigned char)f->ptr[i]))
			return 0;
	return 1;
}

/* UTF-16 or UTF-32 text (a spreadsheet's "Unicode text"), by its byte
 * order mark or, without one, by the zero bytes of ASCII in it: the name
 * of the encoding, or NULL. */
static const char *wide_encoding(const unsigned char *t, size_t len)
{
	if (len >= 4 && ((t[0] == 0xff && t[1] == 0xfe && !t[2] && !t[3]) ||
			 (!t[0] && !t[1] && t[2] == 0xfe && t[3] == 0xff)))
		return "UTF-32";
	if (len >= 2 && ((t[0] == 0xff && t[1] == 0xfe) ||
			 (t[0] == 0xfe && t[1] == 0xff)))
		return "UTF-16";
	if (len >= 4 && ((t[0] && !t[1] && t[2] && !t[3]) ||
			 (!t[0] && t[1] && !t[2] && t[3])))
		return "UTF-16";
	return NULL;
}

int csv_parse(struct csv *out, const char *text, size_t len,
	      const char *origin, struct err *e)
{
	return csv_parse_sep(out, text, len, ',', origin, e);
}

int csv_sniff(const char *text, size_t len)
{
	static const char seps[] = ",;\t";
	size_t count[3] = { 0, 0, 0 }, i = 0, k;
	int quoted = 0, best = 0;

	if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3))
		i = 3;
	for (; i < len && (quoted || text[i] != '\n'); i++) {
		if (text[i] == '"')
			quoted = !quoted;
		else if (!quoted && (text[i] == ',' || text[i] == ';' ||
				     text[i] == '\t'))
			count[strchr(seps, text[i]) - seps]++;
	}
	for (k = 1; k < 3; k++)
		if (count[k] > count[best])
			best = (int)k;
	return seps[best];
}

int csv_parse_sep(struct csv *out, const char *text, size_t len, int sep,
		  const char *origin, struct err *e)
{
	struct csv_record rec = { NULL, 0, 1 };
	struct buf field = BUF_INIT;
	size_t i = 0, falloc = 0;
	int line = 1, quoted = 0, after_quote = 0, any = 0;
	const char *enc;

	memset(out, 0, sizeof(*out));
	if ((enc = wide_encoding((const unsigned char *)text, len)))
		return err_set(e, ERR_INPUT, "%s: %s text, not UTF-8 (as a "
			       "spreadsheet's \"Unicode text\" is saved): save "
			       "it as \"CSV UTF-8\", or convert it with "
			       "`iconv -f %s -t UTF-8`", origin, enc, enc);
	if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3))
		i = 3;
	for (; i <= len; i++) {
		int c = i < len ? (unsigned char)text[i] : -1;

		if (c == 0) {
			err_set(e, ERR_INPUT, "%s:%d: field %zu: a NUL byte",
				origin, line, rec.nr + 1);
			goto fail;
		}
		if (quoted) {
			if (c < 0) {
				err_set(e, ERR_INPUT, "%s:%d: unterminated "
					"quoted field", origin, rec.line);
				goto fail;
			}
			if (c == '"') {
				if (i + 1 < len && text[i + 1] == '"') {
					buf_addch(&field, '"');
					i++;
				} else {
					quoted = 0;
					after_quote = 1;
				}
			} else {
				if (c == '\n')
					line++;
				buf_addch(&field, c);
			}
			continue;
		}
		if (c == sep) {
			add_field(&rec, &field, &falloc, after_quote);
			after_quote = 0;
			any = 1;
			continue;
		}
		if (c == '\r' && i + 1 < len && text[i + 1] == '\n')
			continue;
		if (c == '\n' || c < 0) {
			if (any || field.len || after_quote || rec.nr) {
				add_field(&rec, &field, &falloc, after_quote);
				ALLOC_GROW(out->v, out->nr + 1, out->alloc);
				out->v[out->nr++] = rec;
			}
			memset(&rec, 0, sizeof(rec));
			falloc = 0;
			rec.line = ++line;
			after_quote = any = 0;
			continue;
		}
		if (after_quote) {
			if (blank(c))	/* spaces after the closing quote */
				continue;
			err_set(e, ERR_INPUT, "%s:%d: text after a closing "
				"quote", origin, line);
			goto fail;
		}
		if (c == '"' && all_blank(&field)) {
			buf_reset(&field);	/* spaces before the quote */
			quoted = 1;
			any = 1;
			continue;
		}
		buf_addch(&field, c);
	}
	buf_release(&field);
	return 0;
fail:
	{
		size_t j;

		for (j = 0; j < rec.nr; j++)
			free(rec.fields[j]);
		free(rec.fields);
	}
	buf_release(&field);
	csv_release(out);
	return -1;
}

void csv_release(struct csv *c)
{
	size_t i, j;

	if (!c)
		return;
	for (i = 0; i < c->nr; i++) {
		for (j = 0; j < c->v[i].nr; j++)
			free(c->v[i].fields[j]);
		free(c->v[i].fields);
	}
	free(c->v);
	memset(c, 0, sizeof(*c));
}

int csv_column(const struct csv_record *header, const char *name)
{
	size_t i;

	for (i = 0; i < header->nr; i++)
		if (!strcmp(header->fields[i], name))
			return (int)i;
	return -1;
}

int csv_same_name(const char *header, const char *name)
{
	const char *h = header, *end;

	while (*h == ' ' || *h == '\t')
		h++;
	end = h + strlen(h);
	while (end > h && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	for (; h < end && *name; h++, name++) {
		int a = (unsigned char)*h, b = (unsigned char)*name;

		if (a == ' ' || a == '-')
			a = '_';
		if (b == ' ' || b == '-')
			b = '_';
		if (a >= 'A' && a <= 'Z')
			a += 'a' - 'A';
		if (b >= 'A' && b <= 'Z')
			b += 'a' - 'A';
		if (a != b)
			return 0;
	}
	return h == end && !*name;
}

int csv_column_ci(const struct csv_record *header, const char *name)
{
	size_t i;

	for (i = 0; i < header->nr; i++)
		if (csv_same_name(header->fields[i], name))
			return (int)i;
	return -1;
}
