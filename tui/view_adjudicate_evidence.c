/* SPDX-License-Identifier: MIT */
/*
 * view_adjudicate_evidence: the coders' evidence on the adjudicator's
 * screen - the list (`E`, a text view: per coder, as the screen names
 * them, each citation with its quote) and `e`, which shows the next
 * citation of the selected dimension in turn in the fix or issue pane
 * (the fix that has its lines), its lines under the line cursor.  The evidence is read afresh each time (evidence_each, which
 * blinds what the actor may not see).
 */
#define _XOPEN_SOURCE_EXTENDED 1
#include <stdlib.h>
#include <string.h>

#include "core/study/evidence.h"
#include "core/base/text.h"
#include "tui/doc.h"
#include "tui/screen.h"
#include "tui/view_adjudicate.h"

struct adj_ev {
	size_t coder;			/* shown index */
	char *dim;
	struct evidence_cite cite;	/* path owned */
	char *quote;
};

struct ev_list {
	const struct adj *adj;
	struct adj_ev *v;
	size_t nr, alloc;
};

static int ev_collect(const struct evidence_row *row, void *data)
{
	struct ev_list *l = data;
	const struct adj *adj = l->adj;
	struct adj_ev *ev;
	size_t n;

	for (n = 0; n < adj->is.nr_coders; n++)
		if (adj->is.coders[adj->shown[n]].member_id == row->member_id)
			break;
	if (n == adj->is.nr_coders)
		return 0;	/* not one of the coders compared */
	ALLOC_GROW(l->v, l->nr + 1, l->alloc);
	ev = &l->v[l->nr++];
	ev->coder = n;
	ev->dim = xstrdup(row->dimension);
	ev->cite = row->cite;
	ev->cite.path = row->cite.path ? xstrdup(row->cite.path) : NULL;
	ev->quote = xstrdup(row->quote ? row->quote : "");
	return 0;
}

static int ev_cmp(const void *a, const void *b)
{
	const struct adj_ev *x = a, *y = b;

	if (x->coder != y->coder)
		return x->coder < y->coder ? -1 : 1;
	return 0;
}

static void ev_release(struct ev_list *l)
{
	size_t i;

	for (i = 0; i < l->nr; i++) {
		free(l->v[i].dim);
		free(l->v[i].cite.path);
		free(l->v[i].quote);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* The item's evidence of the coders shown, Coder 1's first (each
 * coder's by dimension and age, as evidence_each gives it). */
static int ev_load(const struct adj *adj, struct ev_list *l, struct err *e)
{
	const struct screen *scr = adj->scr;
	size_t i;

	memset(l, 0, sizeof(*l));
	l->adj = adj;
	if (evidence_each(scr->st, scr->actor, scr->item.id, 0, ev_collect, l,
			  e) < 0) {
		ev_release(l);
		return -1;
	}
	/* a stable sort by coder: insertion keeps each coder's order */
	for (i = 1; i < l->nr; i++) {
		size_t k = i;

		while (k > 0 && ev_cmp(&l->v[k - 1], &l->v[k]) > 0) {
			struct adj_ev t = l->v[k - 1];

			l->v[k - 1] = l->v[k];
			l->v[k] = t;
			k--;
		}
	}
	return 0;
}

void adj_evidence_render(struct doc *d, struct screen *scr, int width)
{
	struct adj *adj = ADJ(scr);
	struct ev_list l;
	struct err e = ERR_INIT;
	struct buf b = BUF_INIT, q = BUF_INIT;
	struct text_lines tl = TEXT_LINES_INIT;
	size_t n, i, k, shown;

	if (ev_load(adj, &l, &e) < 0) {
		doc_line(d, e.msg, SLOT_STATUS_ERR, 0);
		return;
	}
	for (n = 0; n < adj->is.nr_coders; n++) {
		if (n)
			doc_line(d, "", SLOT_NORMAL, d->nr);
		buf_reset(&b);
		adj_coder_label(adj, n, &b);
		doc_line(d, b.ptr, SLOT_MD_HEADING, d->nr);
		shown = 0;
		for (i = 0; i < l.nr; i++) {
			const struct adj_ev *ev = &l.v[i];

			if (ev->coder != n)
				continue;
			shown++;
			buf_reset(&b);
			buf_addstr(&b, "  ");
			sanitize_line(&b, ev->dim);
			buf_addstr(&b, ": ");
			buf_reset(&q);
			evidence_format(&ev->cite, &q);
			sanitize_line(&b, q.ptr);
			doc_line(d, b.ptr, SLOT_META, d->nr);
			buf_reset(&q);
			text_sanitize(&q, ev->quote, strlen(ev->quote), 8,
				      TEXT_KEEP_NL);
			text_wrap(&tl, q.ptr, q.len, width > 8 ? width - 4 :
				  width);
			for (k = 0; k < tl.nr; k++) {
				doc_begin(d, SLOT_DIM, 0, d->nr);
				doc_puts(d, "    ", SLOT_DIM);
				doc_put(d, q.ptr + tl.v[k].off, tl.v[k].len,
					SLOT_DIM);
				doc_end(d);
			}
		}
		if (!shown)
			doc_line(d, "  (no evidence)", SLOT_DIM, d->nr);
	}
	if (!adj->is.nr_coders)
		doc_line(d, "Nobody has submitted this item yet.", SLOT_DIM, 0);
	text_lines_release(&tl);
	buf_release(&b);
	buf_release(&q);
	ev_release(&l);
}

void adj_next_evidence(struct adj *adj)
{
	struct screen *scr = adj->scr;
	struct ev_list l;
	struct err e = ERR_INIT;
	struct buf b = BUF_INIT, who = BUF_INIT;
	const struct adj_ev *ev = NULL;
	const char *dim;
	size_t i, nr = 0, at = 0;

	if (!adj->is.nr_dims)
		return;
	dim = adj->is.dims[adj->sel].dim->key;
	if (ev_load(adj, &l, &e) < 0) {
		screen_msg(scr, MSG_ERR, "%s", e.msg);
		return;
	}
	/* the selected dimension's citations, going round; a dimension
	 * selected anew starts at its first */
	if (adj->ev_dim != adj->sel) {
		adj->ev_dim = adj->sel;
		adj->ev_next = 0;
	}
	for (i = 0; i < l.nr; i++)
		if (!strcmp(l.v[i].dim, dim))
			nr++;
	if (!nr) {
		screen_msg(scr, MSG_INFO, "no evidence cited for %s (J/K "
			   "select a dimension; E lists them all)", dim);
		ev_release(&l);
		return;
	}
	if (adj->ev_next >= nr)
		adj->ev_next = 0;
	for (i = 0; i < l.nr; i++) {
		if (strcmp(l.v[i].dim, dim))
			continue;
		if (at++ == adj->ev_next) {
			ev = &l.v[i];
			break;
		}
	}
	adj_coder_label(adj, ev->coder, &who);
	evidence_format(&ev->cite, &b);
	if (screen_show_cite(scr, &ev->cite) < 0)
		screen_msg(scr, MSG_ERR, "%s's evidence for %s (%zu of %zu), "
			   "%s, is not in the %s", who.ptr, dim,
			   adj->ev_next + 1, nr, b.ptr,
			   ev->cite.pane == EVIDENCE_ISSUE ? "issue" :
			   "item's fixes");
	else
		screen_msg(scr, MSG_INFO, "%s's evidence for %s (%zu of %zu): "
			   "%s", who.ptr, dim, adj->ev_next + 1, nr, b.ptr);
	adj->ev_next++;
	buf_release(&b);
	buf_release(&who);
	ev_release(&l);
}
