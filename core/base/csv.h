/* SPDX-License-Identifier: MIT */
/*
 * csv: reading RFC 4180 CSV (quoted fields, doubled quotes, embedded
 * newlines and commas, CRLF or LF line ends, an optional UTF-8 BOM), and
 * what spreadsheet programs write besides: ';' or TAB separators.
 * Spaces and tabs around a cell are not part of it ("a, b" is "a" and
 * "b"; spaces around a quoted cell too), inside quotes they are.  Text in
 * UTF-16 or UTF-32 (what a spreadsheet saves as "Unicode text") is
 * refused as such, with how to convert it.
 *
 * The whole text is split into records up front; each record remembers
 * the line it started on, so errors can name it.
 */
#ifndef BUGCODER_CSV_H
#define BUGCODER_CSV_H

#include <stddef.h>

#include "core/base/err.h"

struct csv_record {
	char **fields;		/* owned, NUL-terminated */
	size_t nr;
	int line;		/* 1-based line where the record starts */
};

struct csv {
	struct csv_record *v;
	size_t nr, alloc;
};

#define CSV_INIT { NULL, 0, 0 }

/* Parse text[0..len).  Fails (ERR_INPUT, naming `origin` and the line)
 * on an unterminated quote or text after a closing quote.  Blank lines
 * are skipped. */
int csv_parse(struct csv *out, const char *text, size_t len,
	      const char *origin, struct err *e);
void csv_release(struct csv *c);

/* Index of column `name` in record `header`, or -1. */
int csv_column(const struct csv_record *header, const char *name);

/* csv_parse() with `sep` (',', ';' or '\t') between fields.  A NUL byte
 * anywhere is refused, naming the line and the field's number. */
int csv_parse_sep(struct csv *out, const char *text, size_t len, int sep,
		  const char *origin, struct err *e);

/* The separator a spreadsheet program most likely wrote text[0..len)
 * with: whichever of ',', ';' and TAB its first line (outside quotes)
 * holds most of; ',' when none. */
int csv_sniff(const char *text, size_t len);

/* Does header cell `header` name `name`, as people write headers: any
 * case, spaces around, and ' ', '-' and '_' alike ("PR URL" is pr_url)? */
int csv_same_name(const char *header, const char *name);

/* csv_column() by csv_same_name(). */
int csv_column_ci(const struct csv_record *header, const char *name);

#endif
