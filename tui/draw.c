/* SPDX-License-Identifier: MIT */
/*
 * draw: theme table and drawing primitives (see draw.h).
 *
 * Limitations: one colour pair per slot, so a span replaces the colour of
 * the text under it rather than mixing with it; italics are drawn as
 * underline, which every terminal has.
 */
#define _XOPEN_SOURCE_EXTENDED 1
#include "tui/draw.h"

#include <stdint.h>
#include <string.h>

#include "core/base/text.h"

#define DEF (-1)	/* the terminal's own colour */

struct theme_slot {
	char dump;		/* name in attribute dumps */
	short fg, bg;		/* colour spec */
	attr_t color_attr;
	attr_t mono_attr;	/* mono spec */
};

static const struct theme_slot theme[NR_SLOTS] = {
	[SLOT_NORMAL]       = { '.', DEF, DEF, 0, 0 },
	[SLOT_HEADER]       = { 'H', COLOR_WHITE, COLOR_BLUE, A_BOLD,
				A_REVERSE | A_BOLD },
	[SLOT_PANE_TITLE]   = { 't', COLOR_CYAN, DEF, 0, A_UNDERLINE },
	[SLOT_PANE_FOCUS]   = { 'T', COLOR_BLACK, COLOR_CYAN, 0, A_REVERSE },
	[SLOT_SEP]          = { '|', COLOR_BLUE, DEF, 0, 0 },
	[SLOT_BAR]          = { 'b', DEF, DEF, 0, 0 },
	[SLOT_BAR_KEY]      = { 'k', COLOR_YELLOW, DEF, A_BOLD, A_BOLD },
	[SLOT_BAR_SET]      = { 'v', COLOR_GREEN, DEF, A_BOLD, A_BOLD },
	[SLOT_BAR_MISSING]  = { 'x', COLOR_RED, DEF, 0, A_UNDERLINE },
	[SLOT_BAR_EMPTY]    = { 'e', DEF, DEF, A_DIM, 0 },
	[SLOT_STATUS]       = { 's', DEF, DEF, 0, 0 },
	[SLOT_STATUS_OK]    = { 'o', COLOR_GREEN, DEF, A_BOLD, A_BOLD },
	[SLOT_STATUS_ERR]   = { 'E', COLOR_WHITE, COLOR_RED, A_BOLD,
				A_BOLD | A_UNDERLINE },
	[SLOT_SEL]          = { 'S', DEF, DEF, A_REVERSE, A_REVERSE },
	[SLOT_MARK]         = { 'm', COLOR_GREEN, DEF, A_BOLD, A_BOLD },
	/* matches are underlined in mono, the current one reversed too:
	 * changed words are reversed without underline */
	[SLOT_SEARCH]       = { '/', COLOR_BLACK, COLOR_YELLOW, 0,
				A_UNDERLINE | A_BOLD },
	[SLOT_CTRL]         = { '!', COLOR_WHITE, COLOR_MAGENTA, A_BOLD,
				A_BOLD | A_REVERSE },
	[SLOT_DIFF_ADD]     = { '+', COLOR_GREEN, DEF, 0, 0 },
	[SLOT_DIFF_DEL]     = { '-', COLOR_RED, DEF, 0, 0 },
	[SLOT_DIFF_HUNK]    = { '@', COLOR_CYAN, DEF, 0, A_BOLD },
	[SLOT_DIFF_FILE]    = { 'f', COLOR_YELLOW, DEF, A_BOLD, A_BOLD },
	[SLOT_DIFF_META]    = { 'i', COLOR_YELLOW, DEF, 0, 0 },
	[SLOT_MD_HEADING]   = { '#', COLOR_MAGENTA, DEF, A_BOLD, A_BOLD },
	[SLOT_MD_STRONG]    = { 'B', DEF, DEF, A_BOLD, A_BOLD },
	[SLOT_MD_EMPH]      = { '_', DEF, DEF, A_UNDERLINE, A_UNDERLINE },
	[SLOT_MD_CODE]      = { '`', COLOR_CYAN, DEF, 0, 0 },
	[SLOT_MD_CODEBLOCK] = { 'c', COLOR_CYAN, DEF, 0, 0 },
	[SLOT_MD_LINK]      = { 'l', COLOR_BLUE, DEF, A_UNDERLINE,
				A_UNDERLINE },
	[SLOT_MD_QUOTE]     = { 'q', COLOR_GREEN, DEF, 0, 0 },
	[SLOT_MD_HTML]      = { 'h', COLOR_MAGENTA, DEF, 0, 0 },
	[SLOT_MD_RULE]      = { 'r', COLOR_BLUE, DEF, 0, 0 },
	[SLOT_MD_BULLET]    = { '*', COLOR_YELLOW, DEF, A_BOLD, A_BOLD },
	[SLOT_META]         = { 'a', COLOR_YELLOW, DEF, 0, 0 },
	[SLOT_LABEL]        = { 'L', COLOR_MAGENTA, DEF, A_BOLD, A_BOLD },
	[SLOT_NOTICE]       = { 'N', COLOR_RED, DEF, A_BOLD, A_BOLD },
	[SLOT_DIALOG]       = { 'd', COLOR_CYAN, DEF, 0, 0 },
	[SLOT_DIALOG_TITLE] = { 'D', DEF, DEF, A_BOLD, A_BOLD },
	[SLOT_OVERFLOW]     = { '>', COLOR_BLUE, DEF, A_BOLD, A_BOLD },
	[SLOT_CURSOR]       = { 'C', DEF, DEF, A_REVERSE, A_REVERSE },
	[SLOT_DIM]          = { 'g', DEF, DEF, A_DIM, 0 },
	[SLOT_NUMBER]       = { 'n', COLOR_YELLOW, DEF, A_BOLD, A_BOLD },
	/* a disagreement: bold and underlined in every mode, never colour
	 * alone; agreement is bold */
	[SLOT_DISAGREE]     = { 'X', COLOR_RED, DEF, A_BOLD | A_UNDERLINE,
				A_BOLD | A_UNDERLINE },
	[SLOT_AGREED]       = { 'A', COLOR_GREEN, DEF, A_BOLD, A_BOLD },
	/* the changed words of a changed line: reverse video in every
	 * mode, so they show on 8 colours and with NO_COLOR alike */
	[SLOT_DIFF_ADD_WORD] = { 'P', COLOR_GREEN, DEF, A_REVERSE | A_BOLD,
				 A_REVERSE | A_BOLD },
	[SLOT_DIFF_DEL_WORD] = { 'R', COLOR_RED, DEF, A_REVERSE | A_BOLD,
				 A_REVERSE },
	[SLOT_SEARCH_CUR]   = { '=', COLOR_BLACK, COLOR_GREEN,
				A_BOLD | A_UNDERLINE,
				A_REVERSE | A_BOLD | A_UNDERLINE },
};

static const char *const glyphs_utf8[NR_GLYPHS] = {
	[G_ELLIPSIS] = "\xe2\x80\xa6", [G_BULLET] = "\xe2\x80\xa2",
	[G_QUOTE] = "\xe2\x94\x82", [G_RULE] = "\xe2\x94\x80",
	[G_OVERFLOW] = ">", [G_DOT] = "\xc2\xb7", [G_CHECK] = "\xe2\x9c\x93",
	[G_CROSS] = "\xe2\x94\xbc", [G_AGREED] = "\xe2\x9c\x93",
	[G_DIFFER] = "\xe2\x89\xa0", [G_PENDING] = "\xe2\x80\xa6",
	[G_ARROW] = "\xe2\x86\x92", [G_WRAP] = "\xe2\x86\xaa",
	[G_CHANGE] = "\xc2\xbb", [G_OPEN] = "\xe2\x96\xbe",
	[G_CLOSED] = "\xe2\x96\xb8", [G_LEFT] = "\xc2\xab",
	[G_CURSOR] = "\xe2\x96\xb6", [G_RANGE] = "\xe2\x94\x83",
};
static const char *const glyphs_ascii[NR_GLYPHS] = {
	[G_ELLIPSIS] = "~", [G_BULLET] = "*", [G_QUOTE] = "|",
	[G_RULE] = "-", [G_OVERFLOW] = ">", [G_DOT] = "-", [G_CHECK] = "x",
	[G_CROSS] = "+", [G_AGREED] = "ok", [G_DIFFER] = "!=",
	[G_PENDING] = "..", [G_ARROW] = "->", [G_WRAP] = "\\",
	[G_CHANGE] = ">", [G_OPEN] = "v", [G_CLOSED] = ">", [G_LEFT] = "<",
	[G_CURSOR] = ">", [G_RANGE] = "|",
};

static attr_t attrs[NR_SLOTS];
static int use_color, use_utf8 = 1;

void draw_init(int color, int utf8)
{
	int i, defaults;

	use_utf8 = utf8;
	use_color = color;
	if (!color) {
		for (i = 0; i < NR_SLOTS; i++)
			attrs[i] = theme[i].mono_attr;
		return;
	}
	defaults = use_default_colors() == OK;
	for (i = 0; i < NR_SLOTS; i++) {
		short fg = theme[i].fg, bg = theme[i].bg;

		attrs[i] = theme[i].color_attr;
		if (fg == DEF && bg == DEF)
			continue;
		if (!defaults) {
			if (fg == DEF)
				fg = COLOR_WHITE;
			if (bg == DEF)
				bg = COLOR_BLACK;
		}
		if (i + 1 >= COLOR_PAIRS ||
		    init_pair((short)(i + 1), fg, bg) == ERR) {
			attrs[i] = theme[i].mono_attr;
			continue;
		}
		attrs[i] |= COLOR_PAIR(i + 1);
	}
}

int draw_color(void)
{
	return use_color;
}

int draw_utf8(void)
{
	return use_utf8;
}

attr_t slot_attr(enum slot s)
{
	return (unsigned)s < NR_SLOTS ? attrs[s] : 0;
}

char slot_char(enum slot s)
{
	return (unsigned)s < NR_SLOTS ? theme[s].dump : '?';
}

const char *glyph(enum glyph g)
{
	if ((unsigned)g >= NR_GLYPHS)
		return "?";
	return use_utf8 ? glyphs_utf8[g] : glyphs_ascii[g];
}

/* Write s[0..n) (sanitized text) in `a`.  Without a UTF-8 codeset every
 * non-ASCII character becomes '?' per column it would take; any control
 * byte that slipped through becomes '?' too. */
static void put(WINDOW *w, const char *s, size_t n, attr_t a)
{
	size_t i = 0, run = 0;

	wattrset(w, a);
	while (i < n) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x20 && c != 0x7f && (c < 0x80 || use_utf8)) {
			i++;
			run++;
			continue;
		}
		if (run)
			waddnstr(w, s + i - run, (int)run);
		run = 0;
		if (c < 0x80) {
			waddch(w, '?');
			i++;
		} else {
			uint32_t cp;
			size_t k = text_decode(s + i, n - i, &cp);
			int cw = text_char_width(cp);

			/* outside a UTF-8 locale every non-ASCII character
			 * measures -1, which text_fit() counts as one
			 * column: draw that column, or the text vanishes */
			if (cw < 0)
				cw = 1;
			i += k ? k : 1;
			while (cw-- > 0)
				waddch(w, '?');
		}
	}
	if (run)
		waddnstr(w, s + i - run, (int)run);
	wattrset(w, A_NORMAL);
}

/* The columns of `cols` at (y, x) that are inside w: 0 when (y, x) is
 * not.  Writing past the right edge would wrap onto the next row, and a
 * failed wmove() would leave the text where the last one ended. */
static int clip(WINDOW *w, int y, int x, int cols)
{
	int rows, width;

	getmaxyx(w, rows, width);
	if (y < 0 || y >= rows || x < 0 || x >= width)
		return 0;
	return cols < width - x ? cols : width - x;
}

void draw_fill(WINDOW *w, int y, int x, int cols, enum slot slot)
{
	cols = clip(w, y, x, cols);
	if (cols <= 0)
		return;
	wattrset(w, slot_attr(slot));
	mvwhline(w, y, x, ' ', cols);
	wattrset(w, A_NORMAL);
}

#define MAX_MATCHES 64

static int is_ctrl_picture(uint32_t cp)
{
	return (cp >= 0x2400 && cp <= 0x2426) || cp == 0xfffd;
}

int slot_is_change(enum slot s)
{
	return s == SLOT_DIFF_ADD_WORD || s == SLOT_DIFF_DEL_WORD;
}

struct matches {
	size_t start[MAX_MATCHES], end[MAX_MATCHES];
	size_t nr;
};

/* The matches of t->pat that touch bytes [from0, to). */
static void find_matches(const struct draw_text *t, size_t from0, size_t to,
			 struct matches *m)
{
	size_t from = 0;

	m->nr = 0;
	if (!t->pat || !t->plen)
		return;
	while (m->nr < MAX_MATCHES && from < t->len) {
		long f = text_find(t->s + from, t->len - from, t->pat,
				   t->plen);
		size_t s0, e0;

		if (f < 0)
			break;
		s0 = from + (size_t)f;
		e0 = s0 + t->plen;
		from = e0;
		if (s0 >= to)
			break;
		if (e0 > from0) {
			m->start[m->nr] = s0;
			m->end[m->nr] = e0;
			m->nr++;
		}
	}
}

/* Draw bytes [i, end) of t at the cursor, each character in the
 * attribute its spans, a control picture or a match give it. */
static void draw_range(WINDOW *w, const struct draw_text *t, size_t i,
		       size_t end, const struct matches *mt)
{
	attr_t base = slot_attr(t->base), run_attr = 0;
	size_t run_from = i, start = i, k, m;

	while (i < end) {
		uint32_t cp;
		size_t n = text_decode(t->s + i, end - i, &cp);
		attr_t a = base;

		if (!n)
			break;
		for (k = 0; k < t->nr_spans; k++)
			if (i >= t->spans[k].start && i < t->spans[k].end)
				a = slot_attr(t->spans[k].slot);
		if (is_ctrl_picture(cp))
			a = slot_attr(SLOT_CTRL);
		for (m = 0; m < mt->nr; m++)
			if (i >= mt->start[m] && i < mt->end[m])
				a = slot_attr(mt->start[m] + 1 == t->cur_match ?
					      SLOT_SEARCH_CUR : SLOT_SEARCH);
		if (i == start) {
			run_attr = a;
		} else if (a != run_attr) {
			put(w, t->s + run_from, i - run_from, run_attr);
			run_from = i;
			run_attr = a;
		}
		i += n;
	}
	if (i > run_from)
		put(w, t->s + run_from, i - run_from, run_attr);
}

/* The slot of the first change span that begins at or after byte `end`
 * (NR_SLOTS when none does). */
static enum slot change_past(const struct draw_text *t, size_t end)
{
	size_t k;

	for (k = 0; k < t->nr_spans; k++)
		if (slot_is_change((enum slot)t->spans[k].slot) &&
		    t->spans[k].start >= end)
			return (enum slot)t->spans[k].slot;
	return NR_SLOTS;
}

int draw_line(WINDOW *w, int y, int x, int cols, const struct draw_text *t)
{
	size_t start, end, fixed = 0;
	struct matches mt;
	int pad = 0, used = 0, room, overflow = 0, lead = 0, left = 0;
	enum slot change;

	cols = clip(w, y, x, cols);
	if (cols <= 0)
		return 0;
	wmove(w, y, x);
	if (t->cont) {
		/* a wrapped line goes on: the mark in the sigil column */
		wattrset(w, slot_attr(t->base));
		waddstr(w, glyph(G_WRAP));
		lead = 1;
		start = t->from < t->len ? t->from : t->len;
	} else {
		if (t->fixed >= t->len) {
			/* a line that never scrolls (a hunk header) */
			start = 0;
		} else if (t->fixed) {
			fixed = text_fit(t->s, t->fixed, cols, &lead);
			start = fixed + text_skip_cols(t->s + fixed,
						       t->len - fixed,
						       t->hscroll, &pad);
		} else {
			start = text_skip_cols(t->s, t->len, t->hscroll,
					       &pad);
		}
		/* scrolled sideways: say so on every line that has text
		 * to the left, a line all gone to the left too */
		left = t->mark_left && t->hscroll > 0 && t->len > t->fixed &&
		       lead < cols;
	}
	lead += left;
	if (pad > cols - lead)
		pad = cols - lead;
	room = cols - lead - pad;
	end = start + text_fit(t->s + start, t->len - start, room, &used);
	if (end < t->len && t->mark_overflow && room > 0) {
		end = start + text_fit(t->s + start, t->len - start, room - 1,
				       &used);
		overflow = 1;
	}
	find_matches(t, fixed ? 0 : start, end, &mt);
	if (fixed)
		draw_range(w, t, 0, fixed, &mt);
	if (left) {
		wattrset(w, slot_attr(SLOT_OVERFLOW));
		waddstr(w, glyph(G_LEFT));
		wattrset(w, A_NORMAL);
	}
	if (pad) {
		wattrset(w, slot_attr(t->base));
		whline(w, ' ', pad);
		wmove(w, y, x + lead + pad);
	}
	draw_range(w, t, start, end, &mt);
	used += pad + lead;
	if (overflow) {
		change = change_past(t, end);
		wattrset(w, slot_attr(change != NR_SLOTS ? change :
				      SLOT_OVERFLOW));
		mvwaddstr(w, y, x + used, glyph(change != NR_SLOTS ?
						 G_CHANGE : G_OVERFLOW));
		used++;
	}
	if (used < cols)
		draw_fill(w, y, x + used, cols - used, t->fill);
	wattrset(w, A_NORMAL);
	return used;
}

size_t draw_wrap_rows(const struct draw_text *t, int cols, size_t **v,
		      size_t *alloc)
{
	size_t n = 0, at = 0;
	int room = cols < 2 ? 1 : cols;

	for (;;) {
		size_t k;

		ALLOC_GROW(*v, n + 1, *alloc);
		(*v)[n++] = at;
		k = text_fit(t->s + at, t->len - at, room, NULL);
		if (!k && at < t->len) {
			/* a character wider than the row: alone on it */
			uint32_t cp;

			k = text_decode(t->s + at, t->len - at, &cp);
		}
		at += k;
		if (at >= t->len)
			break;
		room = cols < 3 ? 1 : cols - 1;
	}
	return n;
}

int draw_str(WINDOW *w, int y, int x, int cols, const char *s, size_t len,
	     enum slot slot)
{
	struct buf b = BUF_INIT;
	int used;

	cols = clip(w, y, x, cols);
	if (cols <= 0)
		return 0;
	used = text_truncate(&b, s, len, cols, glyph(G_ELLIPSIS));
	wmove(w, y, x);
	put(w, b.ptr, b.len, slot_attr(slot));
	buf_release(&b);
	return used;
}

void sanitize_line(struct buf *out, const char *s)
{
	if (s)
		text_sanitize(out, s, strlen(s), 8, 0);
}

int draw_untrusted(WINDOW *w, int y, int x, int cols, const char *s,
		   enum slot slot)
{
	struct buf b = BUF_INIT;
	int used;

	sanitize_line(&b, s);
	used = draw_str(w, y, x, cols, b.ptr, b.len, slot);
	buf_release(&b);
	return used;
}

void draw_frame(WINDOW *w, const char *title, enum slot title_slot)
{
	int rows, cols;

	getmaxyx(w, rows, cols);
	(void)rows;
	wattrset(w, slot_attr(SLOT_DIALOG));
	box(w, 0, 0);
	wattrset(w, A_NORMAL);
	if (title && cols > 6) {
		mvwaddch(w, 0, 1, ' ');
		cols = draw_str(w, 0, 2, cols - 5, title, strlen(title),
				title_slot);
		mvwaddch(w, 0, 2 + cols, ' ');
	}
}
