/* SPDX-License-Identifier: MIT */
/*
 * draw: the theme and the few primitives every view draws with.
 *
 * The theme is a table of semantic slots, each with a colour spec (for
 * terminals with colours) and a mono spec (attributes only), as ncdu's
 * UI_COLORS.  A non-empty NO_COLOR, or a terminal without colours, picks
 * the mono column; eight colours are enough, and the user's own
 * background is kept (use_default_colors).  Meaning never rides on colour
 * alone: diff sigils, markers and glyphs are kept in every mode.
 *
 * The primitives only draw text that has been through text_sanitize()
 * already (they also refuse control bytes, as a second line of defence),
 * measure in columns, never split a character, and mark lines cut at the
 * right edge.  They draw into a WINDOW, clipped to it (never wrapping onto
 * the next row), and never refresh.
 */
#ifndef BUGCODER_TUI_DRAW_H
#define BUGCODER_TUI_DRAW_H

#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif
#include <curses.h>
#include <stddef.h>

#include "core/base/buf.h"

#define SLOT_LIST(_) \
	_(NORMAL) _(HEADER) _(PANE_TITLE) _(PANE_FOCUS) _(SEP) \
	_(BAR) _(BAR_KEY) _(BAR_SET) _(BAR_MISSING) _(BAR_EMPTY) \
	_(STATUS) _(STATUS_OK) _(STATUS_ERR) _(SEL) _(MARK) _(SEARCH) \
	_(CTRL) _(DIFF_ADD) _(DIFF_DEL) _(DIFF_HUNK) _(DIFF_FILE) \
	_(DIFF_META) _(MD_HEADING) _(MD_STRONG) _(MD_EMPH) _(MD_CODE) \
	_(MD_CODEBLOCK) _(MD_LINK) _(MD_QUOTE) _(MD_HTML) _(MD_RULE) \
	_(MD_BULLET) _(META) _(LABEL) _(NOTICE) _(DIALOG) _(DIALOG_TITLE) \
	_(OVERFLOW) _(CURSOR) _(DIM) _(NUMBER) _(DISAGREE) _(AGREED) \
	_(DIFF_ADD_WORD) _(DIFF_DEL_WORD) _(SEARCH_CUR)

#define SLOT_ENUM(id) SLOT_##id,
enum slot {
	SLOT_LIST(SLOT_ENUM)
	NR_SLOTS
};
#undef SLOT_ENUM

/* Set up colour pairs (when `color`) and the glyph set (UTF-8 or ASCII).
 * Call after the screen exists; again after a new screen. */
void draw_init(int color, int utf8);
/* Are colours in use?  Is the codeset UTF-8? */
int draw_color(void);
int draw_utf8(void);

/* The curses attributes (colour pair included) of a slot. */
attr_t slot_attr(enum slot s);
/* The one-character name of a slot in screen dumps. */
char slot_char(enum slot s);

enum glyph {
	G_ELLIPSIS,	/* "…" or "~" */
	G_BULLET,	/* "•" or "*" */
	G_QUOTE,	/* "│" or "|" */
	G_RULE,		/* "─" or "-" */
	G_OVERFLOW,	/* ">" */
	G_DOT,		/* "·" or "-" */
	G_CHECK,	/* "✓" or "x" */
	G_CROSS,	/* "┼" or "+" */
	G_AGREED,	/* "✓" or "ok": a dimension that needs nothing more */
	G_DIFFER,	/* "≠" or "!=": coders disagree */
	G_PENDING,	/* "…" or "..": waiting for a coder */
	G_ARROW,	/* "→" or "->" */
	G_WRAP,		/* "↪" or "\\": a wrapped line goes on */
	G_CHANGE,	/* "»" or ">": a change lies past the edge */
	G_OPEN,		/* "▾" or "v": an open section */
	G_CLOSED,	/* "▸" or ">": a closed one */
	G_LEFT,		/* "«" or "<": a line goes on to the left (it is
			   scrolled sideways) */
	G_CURSOR,	/* "▶" or ">": the line cursor */
	G_RANGE,	/* "┃" or "|": a line of the cursor's range */
	NR_GLYPHS
};
const char *glyph(enum glyph g);

/* A styled byte range of a line: bytes [start, end) drawn in `slot`. */
struct span {
	unsigned start, end;
	unsigned char slot;
};

/* Is a span of this slot a change inside a line (intra-line diff)? */
int slot_is_change(enum slot s);

/* One line to draw: sanitized UTF-8 s[0..len), scrolled `hscroll`
 * columns to the left, in `base` with `spans` on top and every
 * (ASCII-case-insensitive) occurrence of `pat` highlighted (the one at
 * byte `cur_match` - 1 more strongly); when `mark_overflow` a line cut at the
 * right shows G_OVERFLOW in its last column, or G_CHANGE when a change
 * span (slot_is_change) begins past the edge.  The first `fixed` bytes
 * (a diff's sigil) stay in place while the rest scrolls; a line that is
 * all `fixed` (a hunk header) does not scroll.  With `mark_left`, a line
 * scrolled sideways (hscroll > 0) that has text after `fixed` shows
 * G_LEFT in the column after `fixed`, then its text from column
 * `hscroll`: text to the left of the pane is never hidden unmarked, a
 * line shorter than the scroll included.  A row of a
 * wrapped line (`cont`) starts with G_WRAP in the first column, then the
 * text from byte `from`; hscroll and `fixed` do not apply to it.  The
 * rest of the row is filled with `fill`. */
struct draw_text {
	const char *s;
	size_t len;
	int hscroll;
	enum slot base;
	enum slot fill;
	const struct span *spans;
	size_t nr_spans;
	const char *pat;
	size_t plen;
	int mark_overflow;
	int mark_left;		/* G_LEFT where text is scrolled off */
	size_t fixed;		/* bytes kept in place (the sigil) */
	size_t cur_match;	/* 1 + byte of the current match; 0: none */
	int cont;		/* a continuation row of a wrapped line */
	size_t from;		/* its first byte */
};

/* Draw t at (y, x) in `cols` columns.  Returns the columns drawn
 * (before the fill). */
int draw_line(WINDOW *w, int y, int x, int cols, const struct draw_text *t);

/* Where the rows of t wrapped at `cols` columns begin: the first row
 * takes `cols` columns, each further one `cols` - 1 (its first column
 * holds G_WRAP).  Stores the first byte of every row in (*v)[0..n) and
 * returns n (at least 1); *v grows as ALLOC_GROW grows it. */
size_t draw_wrap_rows(const struct draw_text *t, int cols, size_t **v,
		      size_t *alloc);

/* Draw sanitized s[0..len) at (y, x) in at most `cols` columns, cut with
 * an ellipsis when too long.  Returns the columns used. */
int draw_str(WINDOW *w, int y, int x, int cols, const char *s, size_t len,
	     enum slot slot);
/* Same for text from outside: sanitizes it first (newlines and tabs are
 * made visible or expanded; the result is one line). */
int draw_untrusted(WINDOW *w, int y, int x, int cols, const char *s,
		   enum slot slot);
/* Fill `cols` columns at (y, x) with blanks in `slot`. */
void draw_fill(WINDOW *w, int y, int x, int cols, enum slot slot);
/* A frame around the whole window with a title in its top border. */
void draw_frame(WINDOW *w, const char *title, enum slot title_slot);

/* Append a one-line sanitized copy of s (may be NULL) to out. */
void sanitize_line(struct buf *out, const char *s);

#endif
