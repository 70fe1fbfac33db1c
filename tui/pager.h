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

#include "core/buf.h"
#include "tui/draw.h"
#include "tui/keymap.h"

struct pager_src {
	size_t (*count)(void *ctx);
	/* Fill the text fields of t for line i (s, len, base, spans);
	 * return 1 when the line scrolls sideways (code), else 0.  The
	 * text stays valid until the next call. */
	int (*get)(void *ctx, size_t i, struct draw_text *t);
	/* Does line i contain pat?  NULL: search the text get() gives. */
	int (*match)(void *ctx, size_t i, const char *pat, size_t plen);
};

struct pager {
	const struct pager_src *src;
	void *ctx;
	size_t top;		/* first visible line */
	int hscroll;		/* columns scrolled to the left */
	int rows, cols;		/* of the text area */
	struct buf pat;		/* last search */
	size_t match;		/* line of the current match or NO_MATCH */
};

#define NO_MATCH ((size_t)-1)
#define HSCROLL_STEP 8

void pager_init(struct pager *p, const struct pager_src *src, void *ctx);
void pager_release(struct pager *p);

void pager_set_size(struct pager *p, int rows, int cols);
size_t pager_count(const struct pager *p);
/* Show line `line` at the top, even near the end (less's search does the
 * same); scrolling down from there does not go further. */
void pager_goto(struct pager *p, size_t line);
/* Keep top within range after the source changed. */
void pager_clamp(struct pager *p);

/* Apply a movement action.  Returns 1 when the view changed, 0 when the
 * action is not a movement or changed nothing. */
int pager_action(struct pager *p, enum action a);

/* Search for `pat` (NULL: the last pattern) from the current match or
 * the top, forward (dir > 0) or backward, wrapping around.  Returns 1 and
 * shows the match at the top, 0 when nothing matches; *wrapped (may be
 * NULL) tells whether the search went around the end. */
int pager_search(struct pager *p, const char *pat, int dir, int *wrapped);

/* Draw the visible lines into w at (y, x); `highlight` shows the
 * matches of the last search. */
void pager_draw(struct pager *p, WINDOW *w, int y, int x, int highlight);

/* "lines 12-40 of 300" style position, appended to out. */
void pager_position(const struct pager *p, struct buf *out);

#endif
