/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for core/base/csv, the reader of every CSV and TSV sheet
 * (labels, known bugs): whatever the bytes and whichever separator (',',
 * ';', TAB, or the one csv_sniff() picks), a text is either refused with
 * one line naming the line at fault and nothing kept, or read into
 * records of at least one field, without NUL bytes, whose lines go up
 * and stay inside the text; written back with every field quoted, the
 * records read the same; header matching (csv_same_name()) agrees with
 * itself.  Build with `make fuzz`; run as `tests/fuzz/fuzz_csv
 * -max_total_time=60 tests/fuzz/seeds/csv`.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/buf.h"
#include "core/base/csv.h"
#include "core/base/err.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void write_quoted(const struct csv *c, int sep, struct buf *out)
{
	size_t i, j;
	const char *p;

	for (i = 0; i < c->nr; i++) {
		for (j = 0; j < c->v[i].nr; j++) {
			if (j)
				buf_addch(out, (char)sep);
			buf_addch(out, '"');
			for (p = c->v[i].fields[j]; *p; p++) {
				if (*p == '"')
					buf_addch(out, '"');
				buf_addch(out, *p);
			}
			buf_addch(out, '"');
		}
		buf_addch(out, '\n');
	}
}

static void read_one(const char *text, size_t len, int sep)
{
	struct csv c = CSV_INIT, back = CSV_INIT;
	struct err e = ERR_INIT;
	struct buf again = BUF_INIT;
	size_t i, j, lines = 1;
	int last = 0;

	for (i = 0; i < len; i++)
		lines += text[i] == '\n';
	if (csv_parse_sep(&c, text, len, sep, "f.csv", &e) < 0) {
		if (e.code != ERR_INPUT || strncmp(e.msg, "f.csv:", 6) ||
		    strchr(e.msg, '\n') || c.nr || c.v)
			abort();
		return;
	}
	for (i = 0; i < c.nr; i++) {
		const struct csv_record *r = &c.v[i];

		if (!r->nr || r->line <= last || (size_t)r->line > lines)
			abort();
		last = r->line;
		for (j = 0; j < r->nr; j++)
			if (!r->fields[j])
				abort();
		/* the header tools on every record */
		if (r->nr && csv_column_ci(r, r->fields[0]) < 0 &&
		    strpbrk(r->fields[0], "\t ") == NULL)
			abort();
		(void)csv_column(r, "item");
	}
	write_quoted(&c, sep, &again);
	if (csv_parse_sep(&back, again.ptr, again.len, sep, "g.csv", &e) < 0 ||
	    back.nr != c.nr)
		abort();
	for (i = 0; i < c.nr; i++) {
		if (back.v[i].nr != c.v[i].nr)
			abort();
		for (j = 0; j < c.v[i].nr; j++)
			if (strcmp(back.v[i].fields[j], c.v[i].fields[j]))
				abort();
	}
	buf_release(&again);
	csv_release(&back);
	csv_release(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	int sniffed = csv_sniff(text, size);

	if (sniffed != ',' && sniffed != ';' && sniffed != '\t')
		abort();
	read_one(text, size, sniffed);
	read_one(text, size, size ? ",;\t"[data[0] % 3] : ',');
	return 0;
}
