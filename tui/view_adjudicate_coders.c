/* SPDX-License-Identifier: MIT */
/*
 * view_adjudicate_coders: the adjudicator's screen's coders - their
 * labels ("Coder 1", or the name when blinding is off), their codes per
 * dimension, the order they are shown in, and where the disagreements
 * are (see view_adjudicate.c).
 */
#define _XOPEN_SOURCE_EXTENDED 1
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/study/adjudicate.h"
#include "core/base/text.h"
#include "tui/screen.h"
#include "tui/view_adjudicate.h"

/* "Coder 2", or the member's name when blinding is off (sanitized). */
void adj_coder_label(const struct adj *adj, size_t n, struct buf *out)
{
	if (adj->blind || n >= adj->is.nr_coders) {
		buf_addf(out, "Coder %zu", n + 1);
		return;
	}
	sanitize_line(out, adj->is.coders[adj->shown[n]].name);
}

const struct coded_dim *adj_coder_dim(const struct adj *adj, size_t n,
				      const char *dim)
{
	if (n >= adj->is.nr_coders)
		return NULL;
	return coding_dim(&adj->is.coders[adj->shown[n]].coding, dim);
}

void adj_codes_of(const struct coded_dim *cd, struct buf *out)
{
	size_t i;

	for (i = 0; cd && i < cd->nr_codes; i++) {
		if (i)
			buf_addch(out, ',');
		sanitize_line(out, cd->codes[i]);
	}
}

/* The screen's order: Coder 1 and 2 as drawn per item, then the rest. */
void adj_set_order(struct adj *adj)
{
	const struct item_state *s = &adj->is;
	size_t i, n = 0;

	free(adj->shown);
	adj->shown = xcalloc(s->nr_coders + 1, sizeof(*adj->shown));
	if (s->nr_coders >= 1)
		adj->shown[n++] = s->order[0];
	if (s->nr_coders >= 2)
		adj->shown[n++] = s->order[1];
	for (i = 0; i < s->nr_coders; i++)
		if (s->nr_coders >= 2 && i != s->order[0] && i != s->order[1])
			adj->shown[n++] = i;
}

size_t adj_first_disagreement(const struct adj *adj, size_t after)
{
	size_t k, n = adj->is.nr_dims;

	for (k = 1; k <= n; k++) {
		size_t i = (after + k) % n;

		if (adj->is.dims[i].status == DIM_DISAGREE)
			return i;
	}
	return after < n ? after : 0;
}
