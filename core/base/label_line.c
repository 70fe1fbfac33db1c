/* SPDX-License-Identifier: MIT */
/*
 * label_line: see label_line.h.
 */
#include "core/base/label_line.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/buf.h"

void label_line_release(struct label_line *l)
{
	size_t i, j;

	if (!l)
		return;
	for (i = 0; i < l->nr_dims; i++) {
		for (j = 0; j < l->dims[i].nr; j++)
			free(l->dims[i].codes[j]);
		free(l->dims[i].codes);
		free(l->dims[i].dim);
	}
	free(l->dims);
	free(l->item);
	memset(l, 0, sizeof(*l));
}

static int blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* Does a line whose first word is w[0..n) start with a comment?  '#'
 * does, unless the word is #N, an item. */
static int comment(const char *w, size_t n)
{
	size_t i;

	if (w[0] != '#')
		return 0;
	for (i = 1; i < n; i++)
		if (w[i] < '0' || w[i] > '9')
			return 1;
	return n == 1;
}

/* DIM=CODE,CODE (s[0..n), '=' at s[eq]) into d. */
static void split_dim(const char *s, size_t n, size_t eq,
		      struct label_line_dim *d)
{
	size_t i = eq + 1, alloc = 0;

	d->dim = xstrndup(s, eq);
	d->codes = NULL;
	d->nr = 0;
	while (i < n) {
		size_t k = i;

		while (k < n && s[k] != ',')
			k++;
		if (k > i) {
			ALLOC_GROW(d->codes, d->nr + 1, alloc);
			d->codes[d->nr++] = xstrndup(s + i, k - i);
		}
		i = k + 1;
	}
}

int label_line_parse(const char *line, size_t len, struct label_line *out,
		     struct err *e)
{
	const char *w[LABEL_LINE_MAX_WORDS];
	size_t wl[LABEL_LINE_MAX_WORDS], i = 0, alloc = 0;
	int n = 0, k, item = -1, nr_pos = 0, submit = 0;

	label_line_release(out);
	if (memchr(line, '\0', len))
		return err_set(e, ERR_INPUT, "a NUL byte in the line");
	while (i < len) {
		size_t s;

		while (i < len && blank(line[i]))
			i++;
		if (i == len)
			break;
		if (n == LABEL_LINE_MAX_WORDS) {
			if (comment(w[0], wl[0]))
				return 0;
			return err_set(e, ERR_INPUT, "more than %d words",
				       LABEL_LINE_MAX_WORDS);
		}
		s = i;
		while (i < len && !blank(line[i]))
			i++;
		w[n] = line + s;
		wl[n++] = i - s;
	}
	if (!n || comment(w[0], wl[0]))
		return 0;
	/* the shape first, so that a refusal owns nothing: options, the
	 * words' number, then each DIM=CODE */
	for (k = 0; k < n; k++) {
		if (wl[k] == 8 && !memcmp(w[k], "--submit", 8)) {
			submit = 1;
			continue;
		}
		if (w[k][0] == '-' && wl[k] > 1)
			return err_set(e, ERR_INPUT, "unknown option %.*s (a "
				       "line is ITEM DIM=CODE ... [--submit])",
				       (int)wl[k], w[k]);
		if (item < 0)
			item = k;
		nr_pos++;
	}
	if (nr_pos < 1 || (nr_pos < 2 && !submit))
		return err_set(e, ERR_INPUT, "expected ITEM DIM=CODE ... "
			       "[--submit]");
	for (k = item + 1; k < n; k++) {
		if (wl[k] == 8 && !memcmp(w[k], "--submit", 8))
			continue;
		if (!memchr(w[k], '=', wl[k]) || w[k][0] == '=')
			return err_set(e, ERR_INPUT, "'%.*s' is not DIM=CODE",
				       (int)wl[k], w[k]);
	}
	for (k = 0; k < n; k++) {
		if (wl[k] == 8 && !memcmp(w[k], "--submit", 8)) {
			out->submit = 1;
		} else if (k == item) {
			out->item = xstrndup(w[k], wl[k]);
		} else {
			size_t eq = (size_t)((const char *)memchr(w[k], '=',
								 wl[k]) - w[k]);

			ALLOC_GROW(out->dims, out->nr_dims + 1, alloc);
			split_dim(w[k], wl[k], eq, &out->dims[out->nr_dims++]);
		}
	}
	return 1;
}
