/* SPDX-License-Identifier: MIT */
/*
 * pager: less-style scrolling, sideways scrolling and search over lines
 * that a source supplies on demand.
 *
 * The pager never holds the lines: it asks its source for the few that
 * are visible, so a 200,000-line diff costs no more to draw than a short
 * one.  Search asks the source line by line (only when the user
 * searches).  Positions are line indexes, kept within range whenever the
 * size or the source changes.
 */
#ifndef BUGCODER_TUI_PAGER_H
#define BUGCODER_TUI_PAGER_H

#include <stddef.h>

#include "core/base/buf.h"
#include "tui/draw.h"
#include "tui/keymap.h"

/* How much of a line a source's get() gives: what fits the pane at its
 * sideways scroll, up to PAGER_WRAP_MAX bytes (a wrapped line), or all
 * of it (to find a match); WANT_ROWS is WANT_WRAP for counting the rows
 * it wraps to, which needs its text and `fixed` but no spans. */
enum pager_want {
	WANT_VISIBLE,
	WANT_WRAP,
	WANT_ALL,
	WANT_ROWS,
};

#define PAGER_WRAP_MAX 65536

struct pager_src {
	size_t (*count)(void *ctx);
	/* Fill the text fields of t for line i (s, len, base, spans,
	 * fixed), as much of it as `want` says; return 1 when the line
	 * scrolls sideways or wraps (code), else 0.  The text stays valid
	 * until the next call. */
	int (*get)(void *ctx, size_t i, struct draw_text *t,
		   enum pager_want want);
	/* How many times does line i contain pat?  NULL: count in the
	 * text get() gives. */
	size_t (*matches)(void *ctx, size_t i, const char *pat, size_t plen);
	/* The rows line i takes wrapped at `cols` columns (when wrapping),
	 * as draw_wrap_rows() counts them; 0: count them from get()'s text.
	 * NULL: always from the text. */
	size_t (*rows)(void *ctx, size_t i, int cols);
};

/* The lines that match the search, with their number of matches. */
struct pager_hit {
	size_t line;
	size_t nr;
};

struct pager {
	const struct pager_src *src;
	void *ctx;
	size_t top;		/* first visible line */
	int sub;		/* its rows scrolled off (when wrapping) */
	int hscroll;		/* columns scrolled to the left */
	int rows, cols;		/* of the text area */
	int wrap;		/* long code lines wrap, not scroll */
	struct buf pat;		/* last search */
	size_t match;		/* line of the current match or NO_MATCH */
	size_t match_nth;	/* which match of that line */
	size_t match_off;	/* 1 + its byte in the line's text;
				   0: unknown */
	struct pager_hit *hits;	/* every matching line, in order */
	size_t nr_hits, alloc_hits;
	size_t total;		/* matches in all */
	size_t *brk;		/* scratch: where a wrapped line's rows
				   begin */
	size_t alloc_brk;
	int cursor_on;		/* a line cursor is shown */
	size_t cursor;		/* its line (kept in view) */
	size_t mark;		/* the other end of a range, or NO_MATCH */
	/* the rows of the wrapped lines, counted for the position: the rows
	 * before every PAGER_ROW_STEP-th line, valid for the width, line
	 * count and source they were counted for (pager_changed()) */
	size_t *row_at;
	size_t nr_row_at, alloc_row_at;
	size_t rows_total;	/* rows of every line */
	int rows_cols;		/* width counted at; 0: not counted */
	size_t rows_lines;	/* lines counted */
};

#define NO_MATCH ((size_t)-1)
#define HSCROLL_STEP 8

void pager_init(struct pager *p, const struct pager_src *src, void *ctx);
void pager_release(struct pager *p);

void pager_set_size(struct pager *p, int rows, int cols);
/* The columns the lines have: the pager's, less the first one while the
 * line cursor is shown (it marks the cursor's lines there, leaving their
 * own colours and marks as they are). */
int pager_width(const struct pager *p);
/* The source's lines changed (a new text, or the same count of other
 * lines): what was counted of them is counted again when needed. */
void pager_changed(struct pager *p);
size_t pager_count(const struct pager *p);
/* Show line `line` at the top, even near the end (less's search does the
 * same); scrolling down from there does not go further. */
void pager_goto(struct pager *p, size_t line);
/* Keep top within range after the source changed. */
void pager_clamp(struct pager *p);

/* Apply a movement action.  Returns 1 when the view changed, 0 when the
 * action is not a movement or changed nothing.  With the line cursor
 * shown, a line up or down moves the cursor (scrolling to keep it in
 * view), and other movements bring it along into view. */
int pager_action(struct pager *p, enum action a);

/* Search for `pat` (NULL: the last pattern) from the current match or
 * the top, forward (dir > 0) or backward, wrapping around, match by
 * match (a line may hold several).  Returns 1 and shows the match's line
 * at the top, scrolled sideways (or down its wrapped rows) until the
 * match is in view; 0 when nothing matches; *wrapped (may be NULL) tells
 * whether the search went around the end.  The matches are counted
 * afresh when the pattern or the source changed (match == NO_MATCH). */
int pager_search(struct pager *p, const char *pat, int dir, int *wrapped);
/* The current match is the n-th of m (1-based); 0 when there is none. */
int pager_match_pos(const struct pager *p, size_t *n, size_t *m);

/* Wrap long code lines (on != 0) or scroll them sideways; the top line
 * stays the top line. */
void pager_set_wrap(struct pager *p, int on);
/* Scroll sideways so that column `col` of line `line`'s scrolling part
 * is in view (left as it is when it is already). */
void pager_show_col(struct pager *p, int col);

/* Draw the visible lines into w at (y, x); `highlight` shows the
 * matches of the last search. */
void pager_draw(struct pager *p, WINDOW *w, int y, int x, int highlight);

/* Show the line cursor (on the top line in view) or hide it; either way
 * no range is marked.  The cursor's column (pager_width()) shows G_CURSOR
 * on the cursor line and G_RANGE on the other lines of a range. */
void pager_cursor(struct pager *p, int on);
/* Start a range at the cursor (showing it first), or drop the range. */
void pager_mark(struct pager *p);
/* The lines the cursor covers: the range, else the cursor line.  0 when
 * no cursor is shown. */
int pager_cursor_range(const struct pager *p, size_t *from, size_t *to);

/* The last line with a row in view. */
size_t pager_last_in_view(struct pager *p);
/* Is line `line` (some row of it) in view? */
int pager_in_view(struct pager *p, size_t line);

/* The position, appended to out: "all" when the first and the last row
 * are both on screen, "end" when the last is, else the share of the rows
 * above and on screen ("37%"), counted in displayed rows (a wrapped line
 * is as many rows as it takes: the rows of every line are counted once
 * per width and source, then kept); after "«+N " when the lines are
 * scrolled N columns sideways. */
void pager_position(struct pager *p, struct buf *out);

#endif
