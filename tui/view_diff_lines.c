/* SPDX-License-Identifier: MIT */
/*
 * view_diff_lines: the fix pane's diff lines as its pager reads them
 * (view_diff.c) - read through the study's window and sanitized only
 * when drawn, searched or measured, coloured by kind, a removed line
 * paired with its added line and their changed words marked (a cache of
 * the marks of the lines last drawn).
 */
#define _XOPEN_SOURCE_EXTENDED 1
#include <stdlib.h>
#include <string.h>

#include "core/base/diff.h"
#include "core/base/text.h"
#include "tui/doc.h"
#include "tui/view_diff_int.h"

/* The raw bytes of diff line `l`, at most `max` of them; an empty line if
 * it cannot be read (the item was re-imported under us). */
const char *dp_line_text(struct diff_pane *dp, const struct diff_line *l,
			 size_t max, size_t *len)
{
	size_t n = l->len < max ? l->len : max;
	const char *t = diff_source_read(&dp->src, l->off, n);

	*len = t ? n : 0;
	return t ? t : "";
}

const struct fix *dp_cur_fix(const struct diff_pane *dp)
{
	if (!dp->it || dp->fix >= dp->it->nr_fixes)
		return NULL;
	return &dp->it->fixes[dp->fix];
}

static size_t dp_count(void *ctx)
{
	struct diff_pane *dp = ctx;

	return dp->pre.nr + dp->d.nr_lines;
}

static enum slot kind_slot(unsigned kind)
{
	switch (kind) {
	case DIFF_FILE:
		return SLOT_DIFF_FILE;
	case DIFF_META:
		return SLOT_DIFF_META;
	case DIFF_HUNK:
		return SLOT_DIFF_HUNK;
	case DIFF_ADD:
		return SLOT_DIFF_ADD;
	case DIFF_DEL:
		return SLOT_DIFF_DEL;
	case DIFF_NOEOL:
		return SLOT_DIM;
	default:
		return SLOT_NORMAL;
	}
}

/* Bytes of a diff line enough to fill the pane at its sideways scroll. */
static size_t drawn_bytes(const struct diff_pane *dp)
{
	return ((size_t)(dp->pg.hscroll > 0 ? dp->pg.hscroll : 0) +
		(size_t)(dp->pg.cols > 0 ? dp->pg.cols : 0)) * 4 + 64;
}

int dp_kind_at(const struct diff_pane *dp, size_t i)
{
	return i < dp->d.nr_lines ? diff_line_at(&dp->d, i).kind : DIFF_OTHER;
}

/* The line paired with removed or added line i, or NO_LINE. */
size_t dp_partner(const struct diff_pane *dp, size_t i, int kind)
{
	size_t s = i, e = i, k, j;

	if (kind != DIFF_DEL && kind != DIFF_ADD)
		return NO_LINE;
	while (s > 0 && i - s < PAIR_SCAN && dp_kind_at(dp, s - 1) == kind)
		s--;
	if (s > 0 && dp_kind_at(dp, s - 1) == kind)
		return NO_LINE;		/* too long a run */
	k = i - s;
	if (kind == DIFF_DEL) {
		while (e - i < PAIR_SCAN && dp_kind_at(dp, e + 1) == DIFF_DEL)
			e++;
		for (j = e + 1; j <= e + 1 + k; j++)
			if (dp_kind_at(dp, j) != DIFF_ADD)
				return NO_LINE;
		return e + 1 + k;
	}
	/* an added line: the run of removed lines just before its run */
	if (!s || dp_kind_at(dp, s - 1) != DIFF_DEL)
		return NO_LINE;
	e = s - 1;
	j = e;
	while (j > 0 && e - j < PAIR_SCAN && dp_kind_at(dp, j - 1) == DIFF_DEL)
		j--;
	if (j > 0 && dp_kind_at(dp, j - 1) == DIFF_DEL)
		return NO_LINE;
	return j + k <= e ? j + k : NO_LINE;
}

/* A line of the file that ends in a CR of its own (a CRLF line of an LF
 * diff) shows it as U+240D at its end, when all of it (n bytes) was
 * read: a change from CRLF to LF is then seen, and marked, as the change
 * of that CR. */
static void file_cr(const struct diff_pane *dp, const struct diff_line *l,
		    size_t n, struct buf *out)
{
	if (n == l->len && diff_line_file_cr(&dp->d, l))
		buf_addstr(out, "\xe2\x90\x8d");
}

/* Sanitize diff line i whole (it is at most INTRA_MAX bytes) into out. */
int dp_whole_line(struct diff_pane *dp, size_t i, struct buf *out)
{
	struct diff_line l = diff_line_at(&dp->d, i);
	const char *raw;
	size_t n;

	buf_reset(out);
	if (l.len > INTRA_MAX)
		return -1;
	raw = dp_line_text(dp, &l, l.len, &n);
	text_sanitize(out, raw, n, 8, 0);
	file_cr(dp, &l, n, out);
	return 0;
}

/* The change marks of diff line i (of kind `kind`): spans into its
 * sanitized text, none when it pairs with no line or is too long. */
const struct intra *dp_intra_of(struct diff_pane *dp, size_t i, int kind)
{
	struct intra *c = &dp->intra[i % INTRA_CACHE];
	const struct diff_ranges *mine;
	size_t o, k;
	enum slot slot;

	if (c->line1 == i + 1)
		return c;
	c->line1 = i + 1;
	c->nr = 0;
	o = dp_partner(dp, i, kind);
	if (o == NO_LINE)
		return c;
	/* ia holds the removed line, ib the added one */
	if (dp_whole_line(dp, kind == DIFF_DEL ? i : o, &dp->ia) < 0 ||
	    dp_whole_line(dp, kind == DIFF_DEL ? o : i, &dp->ib) < 0 ||
	    !dp->ia.len || !dp->ib.len)
		return c;
	if (!diff_intraline(dp->ia.ptr + 1, dp->ia.len - 1, dp->ib.ptr + 1,
			    dp->ib.len - 1, &dp->ra, &dp->rb))
		return c;
	mine = kind == DIFF_DEL ? &dp->ra : &dp->rb;
	slot = kind == DIFF_DEL ? SLOT_DIFF_DEL_WORD : SLOT_DIFF_ADD_WORD;
	for (k = 0; k < mine->nr; k++) {
		ALLOC_GROW(c->spans, c->nr + 1, c->alloc);
		c->spans[c->nr].start = (unsigned)(mine->v[k].start + 1);
		c->spans[c->nr].end = (unsigned)(mine->v[k].end + 1);
		c->spans[c->nr].slot = (unsigned char)slot;
		c->nr++;
	}
	return c;
}

void dp_intra_forget(struct diff_pane *dp)
{
	size_t k;

	for (k = 0; k < INTRA_CACHE; k++)
		dp->intra[k].line1 = 0;
}

static int dp_get(void *ctx, size_t i, struct draw_text *t,
		  enum pager_want want)
{
	struct diff_pane *dp = ctx;
	struct diff_line l;
	const struct intra *in = NULL;
	const char *raw;
	size_t n, max;

	if (i < dp->pre.nr) {
		doc_get(&dp->pre, i, t);
		return dp->pre.lines[i].verbatim;
	}
	i -= dp->pre.nr;
	l = diff_line_at(&dp->d, i);
	/* the marks take no room: counting rows needs none */
	if ((l.kind == DIFF_DEL || l.kind == DIFF_ADD) && want != WANT_ROWS)
		in = dp_intra_of(dp, i, l.kind);
	buf_reset(&dp->line);
	/* only what can reach the screen is read and sanitized: every
	 * character but a zero-width mark takes at least a third of a
	 * column per byte, so a megabyte-long minified line costs what a
	 * short one does (search counts in the raw line, in dp_matches);
	 * one byte more tells where the last character ends */
	max = want == WANT_ALL ? l.len : want == WANT_WRAP ||
	      want == WANT_ROWS ? PAGER_WRAP_MAX : drawn_bytes(dp);
	raw = dp_line_text(dp, &l, max + 1, &n);
	if (n > max) {
		n = max;
		while (n && ((unsigned char)raw[n] & 0xc0) == 0x80)
			n--;
	}
	text_sanitize(&dp->line, raw, n, 8, 0);
	file_cr(dp, &l, n, &dp->line);
	t->s = dp->line.ptr;
	t->len = dp->line.len;
	t->base = kind_slot((unsigned)l.kind);
	t->spans = in ? in->spans : NULL;
	t->nr_spans = in ? in->nr : 0;
	/* the sigil column stays when the rest scrolls; file and hunk
	 * headers stay whole, so the place is named while reading a long
	 * line's end */
	if (l.kind == DIFF_ADD || l.kind == DIFF_DEL || l.kind == DIFF_CONTEXT)
		t->fixed = t->len ? 1 : 0;
	else if (l.kind == DIFF_HUNK || l.kind == DIFF_FILE ||
		 l.kind == DIFF_META)
		t->fixed = t->len;
	return 1;
}

static size_t dp_matches(void *ctx, size_t i, const char *pat, size_t plen)
{
	struct diff_pane *dp = ctx;
	struct diff_line l;
	const char *raw;
	size_t n, from = 0, k = 0;
	long f;

	if (i < dp->pre.nr)
		return doc_match(&dp->pre, i, pat, plen);
	l = diff_line_at(&dp->d, i - dp->pre.nr);
	raw = dp_line_text(dp, &l, l.len, &n);
	while (plen && from < n &&
	       (f = text_find(raw + from, n - from, pat, plen)) >= 0) {
		k++;
		from += (size_t)f + plen;
	}
	return k;
}

/* A diff line that cannot be wider than its bytes fits in one row when
 * it has no more bytes than the row has columns: every character takes
 * at most a column a byte once sanitized but a TAB (up to 8) and a bidi
 * control (shown as "<U+202E>"), whose first bytes are looked for.  That
 * saves sanitizing nearly every line when the rows of a long diff are
 * counted. */
static size_t dp_rows(void *ctx, size_t i, int cols)
{
	struct diff_pane *dp = ctx;
	struct diff_line l;
	const char *raw;
	size_t n, j;

	if (i < dp->pre.nr)
		return 0;
	j = i - dp->pre.nr;
	/* the rows are counted line after line: each from the last */
	if (dp->seq && dp->seq == j)
		l = diff_line_next(&dp->d, j - 1, &dp->seq_line);
	else
		l = diff_line_at(&dp->d, j);
	dp->seq = j + 1;
	dp->seq_line = l;
	if (cols < 1 || l.len + !!diff_line_file_cr(&dp->d, &l) > (size_t)cols)
		return 0;
	raw = dp_line_text(dp, &l, l.len, &n);
	if (memchr(raw, '\t', n) || memchr(raw, 0xe2, n) ||
	    memchr(raw, 0xd8, n))
		return 0;
	return 1;
}

const struct pager_src dp_src = {
	.count = dp_count,
	.get = dp_get,
	.matches = dp_matches,
	.rows = dp_rows,
};
