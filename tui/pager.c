/* SPDX-License-Identifier: MIT */
/*
 * pager: scrolling and search over a line source (see pager.h).
 *
 * With wrapping on, a position is a line and a row of it (`sub`); the
 * rows of a line are counted from its text when needed, only for the
 * lines near the position, so a long source costs what a short one does.
 */
#define _XOPEN_SOURCE_EXTENDED 1
#include "tui/pager.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/text.h"

void pager_init(struct pager *p, const struct pager_src *src, void *ctx)
{
	memset(p, 0, sizeof(*p));
	p->src = src;
	p->ctx = ctx;
	p->match = NO_MATCH;
	p->mark = NO_MATCH;
	buf_init(&p->pat, 0);
}

void pager_release(struct pager *p)
{
	if (!p)
		return;
	buf_release(&p->pat);
	free(p->hits);
	free(p->brk);
	free(p->row_at);
	p->hits = NULL;
	p->brk = NULL;
	p->row_at = NULL;
	p->nr_hits = p->alloc_hits = p->alloc_brk = 0;
	p->nr_row_at = p->alloc_row_at = 0;
	p->rows_cols = 0;
}

void pager_changed(struct pager *p)
{
	p->rows_cols = 0;
}

size_t pager_count(const struct pager *p)
{
	return p->src ? p->src->count(p->ctx) : 0;
}

int pager_width(const struct pager *p)
{
	int w = p->cols - (p->cursor_on ? 1 : 0);

	return w < 1 ? 1 : w;
}

/* The rows line i takes: 1 unless it is a code line and wrapping is on. */
static size_t line_rows(struct pager *p, size_t i)
{
	struct draw_text t;

	if (!p->wrap)
		return 1;
	if (p->src->rows) {
		size_t r = p->src->rows(p->ctx, i, pager_width(p));

		if (r)
			return r;
	}
	memset(&t, 0, sizeof(t));
	if (!p->src->get(p->ctx, i, &t, WANT_ROWS))
		return 1;
	return draw_wrap_rows(&t, pager_width(p), &p->brk, &p->alloc_brk);
}

/* The position that shows the last line at the bottom. */
static void max_pos(struct pager *p, size_t *top, int *sub)
{
	size_t n = pager_count(p);
	size_t rows = p->rows > 0 ? (size_t)p->rows : 1;
	size_t acc = 0, i = n;

	*top = 0;
	*sub = 0;
	if (!p->wrap) {
		*top = n > rows ? n - rows : 0;
		return;
	}
	while (i > 0) {
		size_t r = line_rows(p, --i);

		if (acc + r >= rows) {
			*top = i;
			*sub = (int)(acc + r - rows);
			return;
		}
		acc += r;
	}
}

static int pos_before(size_t t1, int s1, size_t t2, int s2)
{
	return t1 < t2 || (t1 == t2 && s1 < s2);
}

/* A jump (search, hunk, file) may bring any line to the top, leaving
 * blank rows under the end; scrolling down never goes further. */
void pager_clamp(struct pager *p)
{
	size_t n = pager_count(p);

	if (p->top >= n) {
		p->top = n ? n - 1 : 0;
		p->sub = 0;
	}
	if (p->hscroll < 0)
		p->hscroll = 0;
	if (p->cursor >= n)
		p->cursor = n ? n - 1 : 0;
	if (p->mark != NO_MATCH && p->mark >= n)
		p->mark = n ? n - 1 : NO_MATCH;
	if (!p->wrap || p->sub < 0) {
		p->sub = 0;
	} else if (p->sub && n) {
		size_t r = line_rows(p, p->top);

		if ((size_t)p->sub >= r)
			p->sub = (int)r - 1;
	}
}

void pager_set_size(struct pager *p, int rows, int cols)
{
	p->rows = rows < 1 ? 1 : rows;
	p->cols = cols < 1 ? 1 : cols;
	pager_clamp(p);
}

#define PAGER_ROW_STEP 256

/* Count the rows of every line at the current width, keeping the rows
 * before every PAGER_ROW_STEP-th line. */
static void count_rows(struct pager *p)
{
	size_t n = pager_count(p), i, acc = 0;

	p->nr_row_at = 0;
	for (i = 0; i < n; i++) {
		if (i % PAGER_ROW_STEP == 0) {
			ALLOC_GROW(p->row_at, p->nr_row_at + 1,
				   p->alloc_row_at);
			p->row_at[p->nr_row_at++] = acc;
		}
		acc += line_rows(p, i);
	}
	p->rows_total = acc;
	p->rows_cols = pager_width(p);
	p->rows_lines = n;
}

/* The rows of lines [0, line) as the pane shows them. */
static size_t rows_before(struct pager *p, size_t line)
{
	size_t n = pager_count(p), acc, i;

	if (!p->wrap)
		return line;
	if (p->rows_cols != pager_width(p) || p->rows_lines != n)
		count_rows(p);
	if (line >= n)
		return p->rows_total;
	i = line - line % PAGER_ROW_STEP;
	acc = p->row_at[line / PAGER_ROW_STEP];
	for (; i < line; i++)
		acc += line_rows(p, i);
	return acc;
}

void pager_goto(struct pager *p, size_t line)
{
	p->top = line;
	p->sub = 0;
	if (p->cursor_on)
		p->cursor = line;
	pager_clamp(p);
}

void pager_set_wrap(struct pager *p, int on)
{
	p->wrap = !!on;
	p->sub = 0;
	p->hscroll = 0;
	pager_clamp(p);
}

static int step_down(struct pager *p)
{
	size_t n = pager_count(p);

	if ((size_t)p->sub + 1 < line_rows(p, p->top)) {
		p->sub++;
		return 1;
	}
	if (p->top + 1 >= n)
		return 0;
	p->top++;
	p->sub = 0;
	return 1;
}

static int step_up(struct pager *p)
{
	if (p->sub > 0) {
		p->sub--;
		return 1;
	}
	if (!p->top)
		return 0;
	p->top--;
	p->sub = (int)line_rows(p, p->top) - 1;
	return 1;
}

static int move_by(struct pager *p, long delta)
{
	size_t old = p->top, lt;
	int old_sub = p->sub, ls;

	if (!p->wrap) {
		if (delta < 0) {
			size_t d = (size_t)-delta;

			p->top = p->top > d ? p->top - d : 0;
		} else {
			max_pos(p, &lt, &ls);
			if (lt < p->top)
				lt = p->top;
			p->top += (size_t)delta;
			if (p->top > lt)
				p->top = lt;
		}
		pager_clamp(p);
		return p->top != old;
	}
	if (delta < 0) {
		while (delta++ < 0 && step_up(p))
			;
	} else {
		max_pos(p, &lt, &ls);
		/* a jump may have gone further: stay there */
		if (pos_before(lt, ls, p->top, p->sub)) {
			lt = p->top;
			ls = p->sub;
		}
		while (delta-- > 0 && pos_before(p->top, p->sub, lt, ls) &&
		       step_down(p))
			;
	}
	return p->top != old || p->sub != old_sub;
}

/* The last line with a row in view. */
static size_t last_visible(struct pager *p)
{
	size_t n = pager_count(p), i = p->top;
	long used = -(long)p->sub;

	while (i < n) {
		used += p->wrap ? (long)line_rows(p, i) : 1;
		if (used > p->rows)
			break;
		i++;
	}
	return i > p->top ? i - 1 : p->top;
}

size_t pager_last_in_view(struct pager *p)
{
	return last_visible(p);
}

int pager_in_view(struct pager *p, size_t line)
{
	return line < pager_count(p) && line >= p->top &&
	       line <= last_visible(p);
}

/* Bring the view to the cursor (line moves) or the cursor into the view
 * (the view moved). */
static int cursor_follow(struct pager *p, int scroll)
{
	size_t last;
	int moved = 0;

	if (!scroll) {
		last = last_visible(p);
		if (p->cursor < p->top)
			p->cursor = p->top;
		else if (p->cursor > last)
			p->cursor = last;
		return 0;
	}
	if (p->cursor < p->top) {
		p->top = p->cursor;
		p->sub = 0;
		return 1;
	}
	while (p->cursor > last_visible(p) && move_by(p, 1))
		moved = 1;
	return moved;
}

void pager_cursor(struct pager *p, int on)
{
	p->cursor_on = on && pager_count(p) > 0;
	p->mark = NO_MATCH;
	if (p->cursor_on) {
		p->cursor = p->top;
		pager_clamp(p);
	}
}

void pager_mark(struct pager *p)
{
	if (!p->cursor_on) {
		pager_cursor(p, 1);
		if (!p->cursor_on)
			return;
	} else if (p->mark != NO_MATCH) {
		p->mark = NO_MATCH;
		return;
	}
	p->mark = p->cursor;
}

int pager_cursor_range(const struct pager *p, size_t *from, size_t *to)
{
	if (!p->cursor_on)
		return 0;
	*from = *to = p->cursor;
	if (p->mark != NO_MATCH) {
		if (p->mark < p->cursor)
			*from = p->mark;
		else
			*to = p->mark;
	}
	return 1;
}

static int pager_move(struct pager *p, enum action a);

int pager_action(struct pager *p, enum action a)
{
	size_t n = pager_count(p), old = p->cursor;
	int r;

	if (!p->cursor_on)
		return pager_move(p, a);
	if (a == ACT_LINE_DOWN || a == ACT_LINE_UP) {
		if (a == ACT_LINE_DOWN && p->cursor + 1 < n)
			p->cursor++;
		else if (a == ACT_LINE_UP && p->cursor > 0)
			p->cursor--;
		return cursor_follow(p, 1) || p->cursor != old;
	}
	r = pager_move(p, a);
	cursor_follow(p, 0);
	return r || p->cursor != old;
}

static int pager_move(struct pager *p, enum action a)
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
		old = p->top != 0 || p->sub != 0;
		p->top = 0;
		p->sub = 0;
		return old;
	case ACT_BOTTOM: {
		size_t m;
		int ms;

		max_pos(p, &m, &ms);
		old = p->top != m || p->sub != ms;
		p->top = m;
		p->sub = ms;
		return old;
	}
	case ACT_SCROLL_LEFT:
		old = p->hscroll;
		p->hscroll = p->hscroll > HSCROLL_STEP ?
			     p->hscroll - HSCROLL_STEP : 0;
		return old != p->hscroll;
	case ACT_SCROLL_RIGHT:
		if (p->wrap)
			return 0;
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

/* ---- search ---------------------------------------------------------- */

static size_t count_in(const char *s, size_t len, const char *pat,
		       size_t plen)
{
	size_t n = 0, from = 0;
	long f;

	if (!plen)
		return 0;
	while (from < len &&
	       (f = text_find(s + from, len - from, pat, plen)) >= 0) {
		n++;
		from += (size_t)f + plen;
	}
	return n;
}

static size_t line_matches(struct pager *p, size_t i)
{
	struct draw_text t;

	if (p->src->matches)
		return p->src->matches(p->ctx, i, p->pat.ptr, p->pat.len);
	memset(&t, 0, sizeof(t));
	p->src->get(p->ctx, i, &t, WANT_ALL);
	return count_in(t.s, t.len, p->pat.ptr, p->pat.len);
}

/* Count every match of the pattern afresh. */
static void collect(struct pager *p)
{
	size_t n = pager_count(p), i;

	p->nr_hits = 0;
	p->total = 0;
	for (i = 0; i < n; i++) {
		size_t k = line_matches(p, i);

		if (!k)
			continue;
		ALLOC_GROW(p->hits, p->nr_hits + 1, p->alloc_hits);
		p->hits[p->nr_hits].line = i;
		p->hits[p->nr_hits].nr = k;
		p->nr_hits++;
		p->total += k;
	}
}

/* Index of the first hit on a line >= `line` (nr_hits when none). */
static size_t hit_at(const struct pager *p, size_t line)
{
	size_t lo = 0, hi = p->nr_hits;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->hits[mid].line < line)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void pager_show_col(struct pager *p, int col)
{
	/* a sigil, the mark of text to the left and the mark at the edge
	 * take a column each */
	int room = pager_width(p) - 3;

	if (room < 1)
		room = 1;
	if (col >= p->hscroll && col < p->hscroll + room)
		return;
	/* a little of what comes before the column stays in view */
	p->hscroll = col > room / 4 ? col - room / 4 : 0;
}

/* Bring the current match into view: down the rows of a wrapped line,
 * or sideways in a long one. */
static void show_match(struct pager *p)
{
	struct draw_text t;
	size_t from = 0, k;
	long f = -1;
	int verbatim;

	p->match_off = 0;
	memset(&t, 0, sizeof(t));
	verbatim = p->src->get(p->ctx, p->match, &t, WANT_ALL);
	for (k = 0; k <= p->match_nth; k++) {
		f = text_find(t.s + from, t.len - from, p->pat.ptr,
			      p->pat.len);
		if (f < 0)
			break;
		if (k < p->match_nth)
			from += (size_t)f + p->pat.len;
	}
	if (f < 0)
		return;
	from += (size_t)f;
	p->match_off = from + 1;
	if (!verbatim)
		return;
	if (p->wrap) {
		size_t nb = draw_wrap_rows(&t, pager_width(p), &p->brk,
					   &p->alloc_brk), r = 0;

		while (r + 1 < nb && p->brk[r + 1] <= from)
			r++;
		if (r >= (size_t)p->rows)
			p->sub = (int)r;
		return;
	}
	if (t.fixed && t.fixed <= from)
		pager_show_col(p, text_width(t.s + t.fixed, from - t.fixed));
	else if (!t.fixed)
		pager_show_col(p, text_width(t.s, from));
}

int pager_search(struct pager *p, const char *pat, int dir, int *wrapped)
{
	size_t n = pager_count(p), k;

	if (wrapped)
		*wrapped = 0;
	if (pat) {
		buf_set(&p->pat, pat);
		p->match = NO_MATCH;
	}
	if (!p->pat.len || !n)
		return 0;
	if (p->match == NO_MATCH || p->match >= n) {
		/* a new search starts at the top line itself */
		collect(p);
		if (!p->total) {
			p->match = NO_MATCH;
			return 0;
		}
		if (dir > 0) {
			k = hit_at(p, p->top);
			if (k == p->nr_hits) {
				k = 0;
				if (wrapped)
					*wrapped = 1;
			}
			p->match_nth = 0;
		} else {
			k = hit_at(p, p->top);
			if (k == 0) {
				k = p->nr_hits - 1;
				if (wrapped)
					*wrapped = 1;
			} else {
				k--;
			}
			p->match_nth = p->hits[k].nr - 1;
		}
	} else {
		k = hit_at(p, p->match);
		if (k == p->nr_hits || p->hits[k].line != p->match)
			k = k < p->nr_hits ? k : 0;
		if (dir > 0) {
			if (p->match_nth + 1 < p->hits[k].nr) {
				p->match_nth++;
			} else {
				k++;
				if (k == p->nr_hits) {
					k = 0;
					if (wrapped)
						*wrapped = 1;
				}
				p->match_nth = 0;
			}
		} else {
			if (p->match_nth > 0 && p->match_nth <
			    p->hits[k].nr) {
				p->match_nth--;
			} else {
				if (k == 0) {
					k = p->nr_hits - 1;
					if (wrapped)
						*wrapped = 1;
				} else {
					k--;
				}
				p->match_nth = p->hits[k].nr - 1;
			}
		}
	}
	p->match = p->hits[k].line;
	p->top = p->match;
	p->sub = 0;
	if (p->cursor_on)
		p->cursor = p->match;	/* the cursor goes to the match */
	pager_clamp(p);
	show_match(p);
	return 1;
}

int pager_match_pos(const struct pager *p, size_t *n, size_t *m)
{
	size_t k, at = 0;

	*n = *m = 0;
	if (p->match == NO_MATCH || !p->total)
		return 0;
	for (k = 0; k < p->nr_hits && p->hits[k].line < p->match; k++)
		at += p->hits[k].nr;
	*n = at + p->match_nth + 1;
	*m = p->total;
	return 1;
}

/* ---- drawing --------------------------------------------------------- */

/* The cursor's column beside rows r0..r1 (before r1) of line i: the
 * cursor line's first row points at it, the range's other rows are
 * marked, every other row is blank.  The line's own colours and marks
 * stay as they are. */
static void cursor_rows(struct pager *p, WINDOW *w, int y, int x,
			size_t i, int r0, int r1)
{
	size_t from, to;
	int r;

	if (!pager_cursor_range(p, &from, &to))
		return;
	for (r = r0; r < r1; r++) {
		const char *g = " ";
		enum slot slot = SLOT_NORMAL;

		if (i == p->cursor && r == r0) {
			g = glyph(G_CURSOR);
			slot = SLOT_CURSOR;
		} else if (i >= from && i <= to) {
			g = glyph(G_RANGE);
			slot = SLOT_CURSOR;
		}
		draw_str(w, y + r, x, 1, g, strlen(g), slot);
	}
}

void pager_draw(struct pager *p, WINDOW *w, int y, int x, int highlight)
{
	size_t n = pager_count(p), i = p->top;
	int r = 0, first = p->sub, cols = pager_width(p), gx = x;

	/* the cursor takes the first column */
	if (p->cursor_on)
		x++;
	while (r < p->rows) {
		struct draw_text t;
		size_t nb, k, len;
		int verbatim, r0;

		if (i >= n) {
			draw_fill(w, y + r, gx, p->cols, SLOT_NORMAL);
			r++;
			continue;
		}
		memset(&t, 0, sizeof(t));
		t.fill = SLOT_NORMAL;
		verbatim = p->src->get(p->ctx, i, &t, p->wrap ? WANT_WRAP :
				       WANT_VISIBLE);
		if (highlight && p->pat.len) {
			t.pat = p->pat.ptr;
			t.plen = p->pat.len;
			if (i == p->match)
				t.cur_match = p->match_off;
		}
		if (!verbatim) {
			t.fixed = 0;
			if (!first) {
				draw_line(w, y + r, x, cols, &t);
				cursor_rows(p, w, y, gx, i, r, r + 1);
				r++;
			}
			first = 0;
			i++;
			continue;
		}
		if (!p->wrap) {
			t.hscroll = p->hscroll;
			t.mark_overflow = 1;
			t.mark_left = 1;
			draw_line(w, y + r, x, cols, &t);
			cursor_rows(p, w, y, gx, i, r, r + 1);
			r++;
			i++;
			continue;
		}
		nb = draw_wrap_rows(&t, cols, &p->brk, &p->alloc_brk);
		len = t.len;
		r0 = r;
		for (k = (size_t)first; k < nb && r < p->rows; k++) {
			t.cont = k > 0;
			t.from = p->brk[k];
			t.len = k + 1 < nb ? p->brk[k + 1] : len;
			draw_line(w, y + r++, x, cols, &t);
		}
		cursor_rows(p, w, y, gx, i, r0, r);
		first = 0;
		i++;
	}
}

void pager_position(struct pager *p, struct buf *out)
{
	size_t n = pager_count(p), total, above, below;

	if (!n) {
		buf_addstr(out, "empty");
		return;
	}
	/* scrolled sideways: by how much, before where */
	if (!p->wrap && p->hscroll > 0)
		buf_addf(out, "%s+%d ", glyph(G_LEFT), p->hscroll);
	total = rows_before(p, n);
	above = rows_before(p, p->top) + (size_t)(p->sub > 0 ? p->sub : 0);
	below = above + (size_t)p->rows;
	if (above == 0 && below >= total)
		buf_addstr(out, "all");
	else if (below >= total)
		buf_addstr(out, "end");
	else
		buf_addf(out, "%zu%%", below * 100 / total);
}
