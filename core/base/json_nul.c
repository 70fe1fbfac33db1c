/* SPDX-License-Identifier: MIT */
/*
 * json_nul: find a \u0000 escape in JSON text; see json_nul.h.
 */
#include "core/base/json_nul.h"

#include <string.h>

#include "core/base/buf.h"

/* Append to `path` the step into container level `lv` of the scan. */
struct jlevel {
	int array;		/* an array (else an object) */
	long index;		/* array: the element's index */
	size_t key, key_len;	/* object: the last key, in the text */
};

int json_find_nul(const char *text, size_t len, size_t *at,
		  struct buf *path)
{
	struct jlevel lv[64];
	int depth = 0, in_str = 0, is_key = 0, expect_key = 0;
	size_t i, str = 0;

	for (i = 0; i < len; i++) {
		char c = text[i];

		if (in_str) {
			if (c == '"') {
				in_str = 0;
				if (is_key && depth > 0 && depth <= 64) {
					lv[depth - 1].key = str;
					lv[depth - 1].key_len = i - str;
				}
				continue;
			}
			if (c != '\\' || i + 1 >= len)
				continue;
			if (text[i + 1] == 'u' && i + 5 < len &&
			    !memcmp(text + i + 2, "0000", 4) && !is_key) {
				int k;

				*at = i;
				buf_reset(path);
				for (k = 0; k < depth && k < 64; k++) {
					if (lv[k].array)
						buf_addf(path, "[%ld]",
							 lv[k].index);
					else if (lv[k].key_len || k)
						buf_addf(path, "%s%.*s",
							 k ? "." : "",
							 (int)lv[k].key_len,
							 text + lv[k].key);
				}
				return 1;
			}
			i++;		/* the escaped character */
			continue;
		}
		switch (c) {
		case '"':
			in_str = 1;
			str = i + 1;
			is_key = expect_key;
			expect_key = 0;
			break;
		case '{':
		case '[':
			if (depth < 64) {
				lv[depth].array = c == '[';
				lv[depth].index = 0;
				lv[depth].key = lv[depth].key_len = 0;
			}
			depth++;
			expect_key = c == '{';
			break;
		case '}':
		case ']':
			if (depth > 0)
				depth--;
			break;
		case ',':
			if (depth > 0 && depth <= 64 && lv[depth - 1].array)
				lv[depth - 1].index++;
			else if (depth > 0)
				expect_key = 1;
			break;
		case '\n':
			if (!depth)	/* the next line of JSON Lines */
				expect_key = 0;
			break;
		default:
			break;
		}
	}
	return 0;
}
