/*
 * csv: reading RFC 4180 CSV (quoted fields, doubled quotes, embedded
 * newlines and commas, CRLF or LF line ends, an optional UTF-8 BOM).
 *
 * The whole text is split into records up front; each record remembers
 * the line it started on, so errors can name it.
 */
#ifndef BUGCODER_CSV_H
#define BUGCODER_CSV_H

#include <stddef.h>

#include "core/err.h"

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

#endif
