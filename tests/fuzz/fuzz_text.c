/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for core/base/text: whatever the bytes, sanitized output is
 * valid UTF-8 without controls, and fitting, skipping, truncating and
 * wrapping stay inside the text and within the columns asked for.
 * Build with `make fuzz`; run as `tests/fuzz/fuzz_text -max_total_time=60`.
 */
#include <locale.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/buf.h"
#include "core/base/text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int init;
	struct buf out = BUF_INIT, cut = BUF_INIT;
	struct text_lines lines = TEXT_LINES_INIT;
	size_t i, n;
	int used, pad, cols = size ? data[0] % 100 + 1 : 10;

	if (!init) {
		setlocale(LC_ALL, "C.UTF-8");
		init = 1;
	}
	text_sanitize(&out, (const char *)data, size, 8, TEXT_KEEP_NL);
	if (!text_valid_utf8(out.ptr, out.len))
		abort();
	for (i = 0; i < out.len; i++) {
		unsigned char c = (unsigned char)out.ptr[i];

		if ((c < 0x20 && c != '\n') || c == 0x7f)
			abort();
	}
	text_wrap(&lines, out.ptr, out.len, cols);
	for (i = 0; i < lines.nr; i++) {
		const char *s = out.ptr + lines.v[i].off;

		if (lines.v[i].off + lines.v[i].len > out.len)
			abort();
		if (!memchr(s, '\n', lines.v[i].len) &&
		    text_width(s, lines.v[i].len) > cols) {
			/* only a character wider than the line may overflow
			 * it, alone with its zero-width marks */
			uint32_t cp = 0;
			size_t l1 = 0, len = lines.v[i].len;

			/* (after any zero-width marks left at its start) */
			while (l1 < len) {
				l1 += text_decode(s + l1, len - l1, &cp);
				if (text_char_width(cp) > 0)
					break;
			}
			if (text_char_width(cp) <= cols ||
			    text_width(s + l1, len - l1) != 0)
				abort();
		}
	}
	buf_reset(&cut);
	text_sanitize(&cut, (const char *)data, size, 8, 0);
	n = text_fit(cut.ptr, cut.len, cols, &used);
	if (n > cut.len || used > cols)
		abort();
	n = text_skip_cols(cut.ptr, cut.len, cols / 2, &pad);
	if (n > cut.len)
		abort();
	buf_reset(&out);
	if (text_truncate(&out, cut.ptr, cut.len, cols, "~") > cols)
		abort();
	text_lines_release(&lines);
	buf_release(&out);
	buf_release(&cut);
	return 0;
}
