/*
 * pager: scrolling and search over a line source (see pager.h).
 */
#define _XOPEN_SOURCE_EXTENDED 1
#include "tui/pager.h"

#include <string.h>

#include "core/text.h"

void pager_init(struct pager *p, const struct pager_src *src, void *ctx)
{
	memset(p, 0, sizeof(*p));
	p->src = src;
	p->ctx = ctx;
	p->match = NO_MATCH;
	buf_init(&p->pat, 0);
}

void pager_release(struct pager *p)
{
	if (!p)
		return;
	buf_release(&p->pat);
}

size_t pager_count(const struct pager *p)
{
	return p->src ? p->src->count(p->ctx) : 0;
}

/* The top that shows the last line at the bottom. */
static size_t max_top(const struct pager *p)
{
	size_t n = pager_count(p);
	size_t rows = p->rows > 0 ? (size_t)p->rows : 1;

	return n > rows ? n - rows : 0;
}

/* A jump (search, hunk, file) may bring any line to the top, leaving
 * blank rows under the end; scrolling down never goes further. */
void pager_clamp(struct pager *p)
{
	size_t n = pager_count(p);

	if (p->top >= n)
		p->top = n ? n - 1 : 0;
	if (p->hscroll < 0)
		p->hscroll = 0;
}

void pager_set_size(struct pager *p, int rows, int cols)
{
	p->rows = rows < 1 ? 1 : rows;
	p->cols = cols < 1 ? 1 : cols;
	pager_clamp(p);
}

void pager_goto(struct pager *p, size_t line)
{
	p->top = line;
	pager_clamp(p);
}

static int move_by(struct pager *p, long delta)
{
	size_t old = p->top;

	if (delta < 0) {
		size_t d = (size_t)-delta;

		p->top = p->top > d ? p->top - d : 0;
	} else {
		size_t limit = max_top(p);

		if (limit < p->top)
			limit = p->top;
		p->top += (size_t)delta;
		if (p->top > limit)
			p->top = limit;
	}
	pager_clamp(p);
	return p->top != old;
}

int pager_action(struct pager *p, enum action a)
{
	long page = p->rows > 1 ? p->rows - 1 : 1;
	int old;

	switch (a) {
	case ACT_LINE_DOWN:
		return move_by(p, 1);
	case ACT_LINE_UP:
		return move_by(p, -1);
	case ACT_PAGE_DOWN:
		return move_by(p, page);
	case ACT_PAGE_UP:
		return move_by(p, -page);
	case ACT_HALF_DOWN:
		return move_by(p, (p->rows + 1) / 2);
	case ACT_HALF_UP:
		return move_by(p, -(long)((p->rows + 1) / 2));
	case ACT_TOP:
		old = p->top != 0;
		p->top = 0;
		return old;
	case ACT_BOTTOM: {
		size_t m = max_top(p);

		old = p->top != m;
		p->top = m;
		return old;
	}
	case ACT_SCROLL_LEFT:
		old = p->hscroll;
		p->hscroll = p->hscroll > HSCROLL_STEP ?
			     p->hscroll - HSCROLL_STEP : 0;
		return old != p->hscroll;
	case ACT_SCROLL_RIGHT:
		p->hscroll += HSCROLL_STEP;
		return 1;
	case ACT_SCROLL_HOME:
		old = p->hscroll;
		p->hscroll = 0;
		return old != 0;
	default:
		return 0;
	}
}

static int line_matches(struct pager *p, size_t i)
{
	struct draw_text t;

	if (p->src->match)
		return p->src->match(p->ctx, i, p->pat.ptr, p->pat.len);
	memset(&t, 0, sizeof(t));
	p->src->get(p->ctx, i, &t);
	return text_find(t.s, t.len, p->pat.ptr, p->pat.len) >= 0;
}

int pager_search(struct pager *p, const char *pat, int dir, int *wrapped)
{
	size_t n = pager_count(p), i, start, k;

	if (wrapped)
		*wrapped = 0;
	if (pat) {
		buf_set(&p->pat, pat);
		p->match = NO_MATCH;
	}
	if (!p->pat.len || !n)
		return 0;
	/* a new search starts at the top line itself */
	if (p->match == NO_MATCH || p->match >= n)
		start = dir > 0 ? p->top : (p->top ? p->top - 1 : n - 1);
	else if (dir > 0)
		start = p->match + 1 < n ? p->match + 1 : 0;
	else
		start = p->match ? p->match - 1 : n - 1;
	i = start;
	for (k = 0; k < n; k++) {
		if (line_matches(p, i)) {
			if (wrapped)
				*wrapped = dir > 0 ? i < start : i > start;
			p->match = i;
			p->top = i;
			pager_clamp(p);
			return 1;
		}
		if (dir > 0)
			i = i + 1 < n ? i + 1 : 0;
		else
			i = i ? i - 1 : n - 1;
	}
	return 0;
}

void pager_draw(struct pager *p, WINDOW *w, int y, int x, int highlight)
{
	size_t n = pager_count(p), i;
	int r;

	for (r = 0; r < p->rows; r++) {
		struct draw_text t;

		i = p->top + (size_t)r;
		if (i >= n) {
			draw_fill(w, y + r, x, p->cols, SLOT_NORMAL);
			continue;
		}
		memset(&t, 0, sizeof(t));
		t.fill = SLOT_NORMAL;
		if (p->src->get(p->ctx, i, &t)) {
			t.hscroll = p->hscroll;
			t.mark_overflow = 1;
		}
		if (highlight && p->pat.len) {
			t.pat = p->pat.ptr;
			t.plen = p->pat.len;
		}
		draw_line(w, y + r, x, p->cols, &t);
	}
}

void pager_position(const struct pager *p, struct buf *out)
{
	size_t n = pager_count(p);
	size_t last = p->top + (size_t)p->rows;

	if (!n) {
		buf_addstr(out, "empty");
		return;
	}
	if (last > n)
		last = n;
	if (p->top == 0 && last >= n)
		buf_addstr(out, "all");
	else if (last >= n)
		buf_addstr(out, "end");
	else
		buf_addf(out, "%zu%%", last * 100 / n);
}
