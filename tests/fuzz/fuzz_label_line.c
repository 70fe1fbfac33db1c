/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the lines of `label --from FILE` (core/
 * label_line's label_line_parse()): whatever the bytes, each line of the
 * input is a blank or comment line owning nothing, an item's line, or a
 * one-line refusal (ERR_INPUT) owning nothing; a line whose first word
 * starts with '#' is a comment unless that word is #N; an item's line has an
 * item that is a word of the line, dimensions and codes with no blank,
 * comma or '=' problem (a dimension before its '=', codes without ','),
 * and something to do (a dimension, or --submit); written back as
 * words, it parses the same.  Build with `make fuzz`; run as
 * `tests/fuzz/fuzz_label_line -max_total_time=60
 * tests/fuzz/seeds/label_line`.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/buf.h"
#include "core/base/err.h"
#include "core/base/label_line.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int has_blank(const char *s)
{
	return strpbrk(s, " \t\r\n") != NULL;
}

static void write_back(const struct label_line *l, struct buf *out)
{
	size_t i, j;

	/* --submit first: an item such as "#x" may follow it, not start a
	 * line (which would be a comment) */
	if (l->submit)
		buf_addstr(out, "--submit ");
	buf_addstr(out, l->item);
	for (i = 0; i < l->nr_dims; i++) {
		buf_addf(out, " %s=", l->dims[i].dim);
		for (j = 0; j < l->dims[i].nr; j++)
			buf_addf(out, "%s%s", j ? "," : "",
				 l->dims[i].codes[j]);
	}
}

static void check_line(const char *line, size_t len)
{
	struct label_line l = LABEL_LINE_INIT, back = LABEL_LINE_INIT;
	struct err e = ERR_INIT;
	struct buf again = BUF_INIT;
	size_t i, j;
	int rc = label_line_parse(line, len, &l, &e);

	if (rc < 0 || rc == 0) {
		if ((rc < 0 && (e.code != ERR_INPUT || !e.msg[0])) ||
		    l.item || l.dims || l.nr_dims || l.submit)
			abort();
		return;
	}
	/* a first word starting with '#' is #N, or the line a comment */
	for (i = 0; i < len && strchr(" \t\r", line[i]); i++)
		;
	if (i < len && line[i] == '#') {
		for (j = i + 1; j < len && line[j] >= '0' && line[j] <= '9';
		     j++)
			;
		if (j == i + 1 || (j < len && !strchr(" \t\r", line[j])))
			abort();
	}
	if (rc != 1 || !l.item || !*l.item || has_blank(l.item) ||
	    (l.item[0] == '-' && l.item[1]) ||
	    (!l.nr_dims && !l.submit))
		abort();
	for (i = 0; i < l.nr_dims; i++) {
		if (!*l.dims[i].dim || has_blank(l.dims[i].dim))
			abort();
		for (j = 0; j < l.dims[i].nr; j++)
			if (!*l.dims[i].codes[j] ||
			    strchr(l.dims[i].codes[j], ',') ||
			    has_blank(l.dims[i].codes[j]))
				abort();
	}
	write_back(&l, &again);
	if (label_line_parse(again.ptr, again.len, &back, &e) != 1 ||
	    strcmp(back.item, l.item) || back.nr_dims != l.nr_dims ||
	    back.submit != l.submit)
		abort();
	for (i = 0; i < l.nr_dims; i++) {
		if (strcmp(back.dims[i].dim, l.dims[i].dim) ||
		    back.dims[i].nr != l.dims[i].nr)
			abort();
		for (j = 0; j < l.dims[i].nr; j++)
			if (strcmp(back.dims[i].codes[j], l.dims[i].codes[j]))
				abort();
	}
	buf_release(&again);
	label_line_release(&back);
	label_line_release(&l);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;

	/* as label --from reads its input: line by line */
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);

		check_line(p, len);
		p += len + (nl != NULL);
	}
	return 0;
}
