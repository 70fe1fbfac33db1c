/* SPDX-License-Identifier: MIT */
/*
 * doc: rendered documents (see doc.h).
 */
#define _XOPEN_SOURCE_EXTENDED 1
#include "tui/doc.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/text.h"
#include "tui/pager.h"

void doc_clear(struct doc *d)
{
	buf_reset(&d->text);
	d->nr = 0;
	d->nr_spans = 0;
	d->open = 0;
	d->src_first = d->src_last = 0;
}

void doc_source(struct doc *d, int first, int last)
{
	d->src_first = first;
	d->src_last = last;
}

void doc_release(struct doc *d)
{
	if (!d)
		return;
	buf_release(&d->text);
	free(d->lines);
	free(d->spans);
	memset(d, 0, sizeof(*d));
	buf_init(&d->text, 0);
}

void doc_begin(struct doc *d, enum slot slot, int verbatim,
	       unsigned long long anchor)
{
	struct doc_line *l;

	if (d->open)
		doc_end(d);
	ALLOC_GROW(d->lines, d->nr + 1, d->alloc);
	l = &d->lines[d->nr];
	l->off = d->text.len;
	l->len = 0;
	l->span0 = (unsigned)d->nr_spans;
	l->nr_spans = 0;
	l->slot = (unsigned char)slot;
	l->verbatim = (unsigned char)!!verbatim;
	l->anchor = anchor;
	l->src_first = d->src_first;
	l->src_last = d->src_last;
	d->open = 1;
}

void doc_put(struct doc *d, const char *s, size_t len, enum slot slot)
{
	struct doc_line *l;

	if (!d->open)
		doc_begin(d, SLOT_NORMAL, 0, d->nr ?
			  d->lines[d->nr - 1].anchor : 0);
	l = &d->lines[d->nr];
	if (!len)
		return;
	if (slot != l->slot) {
		struct span *sp;
		unsigned start = (unsigned)(d->text.len - l->off);

		/* extend the previous span when it continues */
		if (l->nr_spans) {
			sp = &d->spans[d->nr_spans - 1];
			if (sp->slot == slot && sp->end == start) {
				sp->end = start + (unsigned)len;
				goto add;
			}
		}
		ALLOC_GROW(d->spans, d->nr_spans + 1, d->alloc_spans);
		sp = &d->spans[d->nr_spans++];
		sp->start = start;
		sp->end = start + (unsigned)len;
		sp->slot = (unsigned char)slot;
		l->nr_spans++;
	}
add:
	buf_add(&d->text, s, len);
	l->len += (unsigned)len;
}

void doc_puts(struct doc *d, const char *s, enum slot slot)
{
	doc_put(d, s, strlen(s), slot);
}

void doc_put_untrusted(struct doc *d, const char *s, enum slot slot)
{
	struct buf b = BUF_INIT;

	if (!s)
		return;
	text_sanitize(&b, s, strlen(s), 8, 0);
	doc_put(d, b.ptr, b.len, slot);
	buf_release(&b);
}

void doc_end(struct doc *d)
{
	if (!d->open)
		return;
	d->nr++;
	d->open = 0;
}

/* "2024-01-02T03:04:05Z" -> "2024-01-02 03:04" (untrusted: sanitized
 * by the caller's doc_put_untrusted). */
void doc_put_date(struct doc *d, const char *iso, enum slot slot)
{
	char out[17];
	size_t n;

	if (!iso || !*iso) {
		doc_puts(d, "?", slot);
		return;
	}
	n = strlen(iso);
	if (n >= 16 && iso[10] == 'T') {
		memcpy(out, iso, 10);
		out[10] = ' ';
		memcpy(out + 11, iso + 11, 5);
		out[16] = '\0';
		doc_put_untrusted(d, out, slot);
	} else {
		doc_put_untrusted(d, iso, slot);
	}
}

/* "AUTHOR commented on DATE:", the same way. */
void doc_commented(struct doc *d, const char *author, const char *at)
{
	if (author && *author)
		doc_put_untrusted(d, author, SLOT_STATUS_OK);
	else
		doc_puts(d, "(author not recorded)", SLOT_META);
	doc_puts(d, " commented", SLOT_META);
	if (at && *at) {
		doc_puts(d, " on ", SLOT_META);
		doc_put_date(d, at, SLOT_META);
	} else {
		doc_puts(d, " (date not recorded)", SLOT_META);
	}
	doc_puts(d, ":", SLOT_META);
}

void doc_wrap_last(struct doc *d, int width)
{
	struct text_lines tl = TEXT_LINES_INIT;
	struct doc_line l;
	struct span *spans = NULL;
	char *text;
	size_t i, k;

	if (d->open)
		doc_end(d);
	if (!d->nr)
		return;
	l = d->lines[d->nr - 1];
	if (text_width(d->text.ptr + l.off, l.len) <= width)
		return;
	text_wrap(&tl, d->text.ptr + l.off, l.len, width);
	if (tl.nr < 2) {
		text_lines_release(&tl);
		return;
	}
	/* take the line out, then lay its pieces down again */
	text = xstrndup(d->text.ptr + l.off, l.len);
	if (l.nr_spans) {
		spans = xcalloc(l.nr_spans, sizeof(*spans));
		memcpy(spans, d->spans + l.span0, l.nr_spans * sizeof(*spans));
	}
	d->nr--;
	buf_setlen(&d->text, l.off);
	d->nr_spans = l.span0;
	for (i = 0; i < tl.nr; i++) {
		size_t at = tl.v[i].off, end = at + tl.v[i].len;

		doc_begin(d, (enum slot)l.slot, l.verbatim, l.anchor);
		d->lines[d->nr].src_first = l.src_first;
		d->lines[d->nr].src_last = l.src_last;
		while (at < end) {
			enum slot slot = (enum slot)l.slot;
			size_t stop = end;

			/* the span at `at`, or the plain text up to the next */
			for (k = 0; k < l.nr_spans; k++) {
				if (spans[k].start <= at && at < spans[k].end) {
					slot = (enum slot)spans[k].slot;
					if (spans[k].end < stop)
						stop = spans[k].end;
				} else if (spans[k].start > at &&
					   spans[k].start < stop) {
					stop = spans[k].start;
				}
			}
			doc_put(d, text + at, stop - at, slot);
			at = stop;
		}
		doc_end(d);
	}
	free(text);
	free(spans);
	text_lines_release(&tl);
}

void doc_line(struct doc *d, const char *s, enum slot slot,
	      unsigned long long anchor)
{
	doc_begin(d, slot, 0, anchor);
	doc_puts(d, s, slot);
	doc_end(d);
}

void doc_truncate(struct doc *d, size_t n)
{
	doc_end(d);
	if (n >= d->nr)
		return;
	buf_setlen(&d->text, d->lines[n].off);
	d->nr_spans = d->lines[n].span0;
	d->nr = n;
}

size_t doc_find_anchor(const struct doc *d, unsigned long long anchor)
{
	size_t lo = 0, hi = d->nr;

	/* first line with an anchor > `anchor`, minus one */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->lines[mid].anchor <= anchor)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? lo - 1 : 0;
}

void doc_get(const struct doc *d, size_t i, struct draw_text *t)
{
	const struct doc_line *l = &d->lines[i];

	t->s = d->text.ptr + l->off;
	t->len = l->len;
	t->spans = d->spans + l->span0;
	t->nr_spans = l->nr_spans;
	t->base = (enum slot)l->slot;
}

size_t doc_match(const struct doc *d, size_t i, const char *pat,
		 size_t plen)
{
	const struct doc_line *l = &d->lines[i];
	const char *s = d->text.ptr + l->off;
	size_t from = 0, n = 0;
	long f;

	while (plen && from < l->len &&
	       (f = text_find(s + from, l->len - from, pat, plen)) >= 0) {
		n++;
		from += (size_t)f + plen;
	}
	return n;
}

static size_t src_count(void *ctx)
{
	return ((const struct doc *)ctx)->nr;
}

static int src_get(void *ctx, size_t i, struct draw_text *t,
		   enum pager_want want)
{
	const struct doc *d = ctx;

	(void)want;
	doc_get(d, i, t);
	return d->lines[i].verbatim;
}

const struct pager_src doc_pager_src = {
	.count = src_count,
	.get = src_get,
};
