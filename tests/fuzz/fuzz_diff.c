/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for core/base/diff: whatever the bytes, the line index
 * gives back the text - lines in order, each starting where the one
 * before ended, no newline inside one, kinds in range - the streamed
 * parse (read in small pieces) gives the same index as the one over the
 * text in memory, and the hunk and file lists point at lines of theirs.
 * Build with `make fuzz`; run as `tests/fuzz/fuzz_diff -max_total_time=60`.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/diff.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct piece_reader {
	const char *text;
	char win[7];	/* a tiny window: every read moves it */
};

static const char *piece_read(void *arg, size_t off, size_t n)
{
	struct piece_reader *r = arg;
	static char *big;

	if (n <= sizeof(r->win)) {
		memcpy(r->win, r->text + off, n);
		return r->win;
	}
	free(big);
	big = malloc(n);
	if (!big)
		abort();
	memcpy(big, r->text + off, n);
	return big;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	struct diff d = DIFF_INIT, s = DIFF_INIT;
	struct piece_reader r = { text, { 0 } };
	size_t i, off = 0;

	diff_parse(&d, text, size);
	for (i = 0; i < d.nr_lines; i++) {
		struct diff_line l = diff_line_at(&d, i);
		size_t end = l.off + l.len;

		if (l.off != off || end > size || l.kind > DIFF_NOEOL ||
		    memchr(text + l.off, '\n', l.len))
			abort();
		/* what lies between this line and the next: "\r"? "\n"? */
		if (end < size && text[end] == '\r' &&
		    (end + 1 == size || text[end + 1] == '\n'))
			end++;
		if (end < size) {
			if (text[end] != '\n')
				abort();
			end++;
		}
		off = end;
	}
	if (off != size)
		abort();
	for (i = 0; i < d.nr_hunks; i++)
		if (d.hunks[i] >= d.nr_lines ||
		    diff_line_at(&d, d.hunks[i]).kind != DIFF_HUNK ||
		    (i && d.hunks[i] <= d.hunks[i - 1]))
			abort();
	for (i = 0; i < d.nr_files; i++)
		if (d.files[i].first_line + d.files[i].nr_lines > d.nr_lines)
			abort();

	diff_parse_read(&s, piece_read, &r, size);
	if (s.nr_lines != d.nr_lines || s.nr_hunks != d.nr_hunks ||
	    s.nr_files != d.nr_files || s.additions != d.additions ||
	    s.deletions != d.deletions)
		abort();
	for (i = 0; i < d.nr_lines; i++) {
		struct diff_line a = diff_line_at(&d, i);
		struct diff_line b = diff_line_at(&s, i);

		if (a.off != b.off || a.len != b.len || a.kind != b.kind)
			abort();
	}
	diff_release(&d);
	diff_release(&s);
	return 0;
}
