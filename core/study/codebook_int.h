/* SPDX-License-Identifier: MIT */
/*
 * codebook_int: what loading a codebook (codebook.c, the schema) and
 * reading its JSON text (codebook_scan.c: the byte check, the position
 * index, placing syntax errors, messages that name a place) share; not
 * API (that is codebook.h).
 */
#ifndef BUGCODER_CODEBOOK_INT_H
#define BUGCODER_CODEBOOK_INT_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "core/base/buf.h"
#include "core/base/err.h"

#define NO_POS SIZE_MAX

/* Where one JSON value starts, in document (pre-)order. */
struct pos {
	size_t key;		/* offset of a member's name, or NO_POS */
	size_t val;		/* offset of the value's first byte */
	size_t next;		/* index of the next sibling: one past the
				   subtree of this value */
};

struct loader {
	const char *origin;	/* file name for messages */
	const unsigned char *text;
	size_t len;
	size_t start;		/* 3 after a byte order mark, else 0 */
	struct pos *pos;
	size_t nr_pos, alloc_pos;
	struct buf path;	/* key path of what is being checked */
	struct buf quote;	/* scratch for quoted values in messages */
	struct err *e;
	size_t fail_at;		/* offset of the last error reported */
};

/* Fill l->e with "origin:line:col: path: message" for offset `off` of
 * the text, l->path naming what is checked, and return -1. */
__attribute__((format(printf, 3, 4)))
int loader_fail(struct loader *l, size_t off, const char *fmt, ...);

/* `str` quoted for a message (at most 40 characters, quotes, backslashes
 * and control characters escaped).  Lives in l->quote until the next
 * call. */
const char *loader_quote(struct loader *l, const char *str);

/* Add a member name (after a '.') or an index "[i]" to l->path; each
 * returns the old length, for loader_path_pop(). */
size_t loader_path_push(struct loader *l, const char *key);
size_t loader_path_push_index(struct loader *l, size_t i);
void loader_path_pop(struct loader *l, size_t old);

/* Pass 1: the text is UTF-8 without control characters other than TAB,
 * LF and CR.  0, or -1 via loader_fail(). */
int loader_check_bytes(struct loader *l);

/* The offset of the first non-blank byte at or after `off` (l->len if
 * none). */
size_t loader_skip_ws(const struct loader *l, size_t off);

/* Pass 3: index where every value (and member name) from offset `off`
 * starts into l->pos, checked against the cJSON tree `root` (NULL: not
 * checked).  0, or -1 via loader_fail(). */
int loader_index_positions(struct loader *l, const cJSON *root, size_t off);

/* Pass 2: place the syntax error cJSON stopped at (`at`, or NULL for
 * cJSON_GetErrorPtr()) and report it.  Always -1. */
int loader_syntax_error(struct loader *l, const char *at);

#endif
