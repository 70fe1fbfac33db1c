/* SPDX-License-Identifier: MIT */
/*
 * json_nul: find a \u0000 escape in JSON text before cJSON parses it.
 * Used by the importer and by the GitHub client, below both.
 */
#ifndef BUGCODER_JSON_NUL_H
#define BUGCODER_JSON_NUL_H

#include <stddef.h>

struct buf;

/*
 * Find the first \u0000 escape in a JSON string value of text[0..len)
 * (JSON, or JSON Lines): cJSON would end the string there, silently
 * cutting the text.  Returns 1 with *at its offset and `path` the field
 * holding it ("comments[2].body"), or 0 when there is none.
 */
int json_find_nul(const char *text, size_t len, size_t *at,
		  struct buf *path);

#endif
