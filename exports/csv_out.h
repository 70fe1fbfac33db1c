/* SPDX-License-Identifier: MIT */
/*
 * csv_out: writing CSV that R's read.csv, pandas and spreadsheets read
 * without fuss (RFC 4180).
 *
 * The dialect, chosen once for every file bugcoder writes:
 *  - comma separator, a header row, UTF-8 without a BOM;
 *  - records end with CRLF, as RFC 4180 says (and Python's csv module and
 *    spreadsheets write); CSV_LF selects LF instead.  read.csv, pandas and
 *    Python's csv module (opened with newline='') read either;
 *  - a cell is quoted when it holds a comma, a double quote, CR or LF (or
 *    is neutralised, below); quotes inside are doubled; embedded line
 *    breaks are kept exactly as stored;
 *  - an empty cell is "no value" (SQL NULL and the empty string look the
 *    same);
 *  - text is written as stored: it is not sanitized for a terminal.
 *
 * Formula guard (CSV_GUARD): a text cell starting with '=', '+', '-', '@',
 * TAB or CR would be run as a formula by a spreadsheet, so it gets a
 * single quote in front (the OWASP "CSV injection" advice) and is
 * quoted.  Only text cells are guarded: numbers (csvw_int, csvw_double)
 * never are, so -3 stays a number; nor are identifiers (csvw_key: item
 * names, member names, dimension and code keys, ';'-joined lists of
 * them) made only of the characters [A-Za-z0-9_.@#/;-] the program
 * restricts them to: such a cell cannot make a formula that runs
 * anything, and it must read back unchanged by `labels import` (a code
 * key may start with '-', a member name with '@').  A key cell with any
 * other character is guarded like text.
 *
 * A record is built in `row` and handed to the FILE when it ends, so
 * rows reach the stream whole and with one fwrite each.  With no FILE the
 * records accumulate in `row`, for callers that want a string.
 */
#ifndef BUGCODER_CSV_OUT_H
#define BUGCODER_CSV_OUT_H

#include <stddef.h>
#include <stdio.h>

#include "core/base/buf.h"

enum csv_out_flags {
	CSV_GUARD = 1 << 0,	/* neutralise formula starters in text */
	CSV_LF = 1 << 1,	/* end records with LF rather than CRLF */
};

struct csv_out {
	FILE *f;		/* borrowed; NULL: keep everything in `row` */
	struct buf row;		/* the record being built (or all of them) */
	unsigned flags;		/* enum csv_out_flags */
	int cells;		/* cells in the current record so far */
};

/* Start writing records to `f` (borrowed, may be NULL) with `flags`.
 * Release with csvw_release(). */
void csvw_init(struct csv_out *w, FILE *f, unsigned flags);
/* Free the row buffer.  Accepts NULL. */
void csvw_release(struct csv_out *w);

/* Append one cell to the current record.  csvw_text/csvw_textn take
 * free text (guarded); csvw_key an identifier (quoted if needed, never
 * guarded); csvw_int, csvw_uint and csvw_double numbers; csvw_bool
 * writes TRUE or FALSE (what R's read.csv and pandas read as logical);
 * csvw_null an empty cell.  A NULL string is an
 * empty cell. */
void csvw_text(struct csv_out *w, const char *s);
void csvw_textn(struct csv_out *w, const char *s, size_t len);
void csvw_key(struct csv_out *w, const char *s);
void csvw_int(struct csv_out *w, long long v);
void csvw_uint(struct csv_out *w, unsigned long long v);
void csvw_double(struct csv_out *w, double v, int decimals);
void csvw_bool(struct csv_out *w, int v);
void csvw_null(struct csv_out *w);
/* A whole header or record of text cells from a NULL-terminated list. */
void csvw_header(struct csv_out *w, const char *const *names);

/* End the record: write it to the FILE (when there is one).  Returns 0,
 * or -1 when the stream reported a write error (see ferror()). */
int csvw_end(struct csv_out *w);

/* The cell encoder under all of the above: append s[0..len) to `out`
 * quoted as the rules say, with the formula guard when `guard`. */
void csv_cell(struct buf *out, const char *s, size_t len, int guard);
/* Would the formula guard touch s[0..len)? */
int csv_formula_risk(const char *s, size_t len);

#endif
