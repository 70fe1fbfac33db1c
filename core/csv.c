/*
 * csv: see csv.h.
 */
#include "core/csv.h"

#include <stdlib.h>
#include <string.h>

#include "core/buf.h"

static void add_field(struct csv_record *r, struct buf *f, size_t *alloc)
{
	ALLOC_GROW(r->fields, r->nr + 1, *alloc);
	r->fields[r->nr++] = buf_detach(f, NULL);
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

	memset(out, 0, sizeof(*out));
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
			add_field(&rec, &field, &falloc);
			after_quote = 0;
			any = 1;
			continue;
		}
		if (c == '\r' && i + 1 < len && text[i + 1] == '\n')
			continue;
		if (c == '\n' || c < 0) {
			if (any || field.len || after_quote || rec.nr) {
				add_field(&rec, &field, &falloc);
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
			err_set(e, ERR_INPUT, "%s:%d: text after a closing "
				"quote", origin, line);
			goto fail;
		}
		if (c == '"' && !field.len) {
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
