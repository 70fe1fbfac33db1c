/* SPDX-License-Identifier: MIT */
/*
 * json_out: JSON Lines records, one object per line.
 *
 * Objects are built into a `struct buf` field by field; keys are given
 * by the caller and written as they are (callers pass plain keys).
 * Strings are escaped as RFC 8259 requires (quote, backslash, the C0
 * controls) and nothing more: '/' and non-ASCII stay as they are, so
 * the output is UTF-8.  A byte sequence that is not valid UTF-8 cannot
 * stand in JSON and becomes U+FFFD; everything else is kept as stored.
 * A NULL string is written as null.  No formula guard: JSON is for
 * programs, not spreadsheets.
 */
#ifndef BUGCODER_JSON_OUT_H
#define BUGCODER_JSON_OUT_H

#include <stddef.h>

#include "core/base/buf.h"

struct json_out {
	struct buf *b;		/* borrowed: where the object goes */
	int fields;		/* fields written in the current object */
};

/* Open an object ("{") in `b`. */
void jsonw_begin(struct json_out *j, struct buf *b);
/* Close it ("}") and end the line. */
void jsonw_end(struct json_out *j);

/* "key": value fields. */
void jsonw_str(struct json_out *j, const char *key, const char *s);
void jsonw_strn(struct json_out *j, const char *key, const char *s,
		size_t len);
void jsonw_int(struct json_out *j, const char *key, long long v);
void jsonw_uint(struct json_out *j, const char *key, unsigned long long v);
void jsonw_double(struct json_out *j, const char *key, double v,
		  int decimals);
void jsonw_bool(struct json_out *j, const char *key, int v);
void jsonw_null(struct json_out *j, const char *key);
/* An array of the strings in a `sep`-joined list ("a;b" -> ["a","b"];
 * "" -> []); NULL is null.  With `numbers`, the items are written as
 * bare numbers (they must be digits, or "?" for an unknown one, written
 * null). */
void jsonw_list(struct json_out *j, const char *key, const char *joined,
		char sep, int numbers);

/* Append s[0..len) as a JSON string literal. */
void json_quote(struct buf *b, const char *s, size_t len);

#endif
