/* SPDX-License-Identifier: MIT */
/*
 * edit: the text being typed into a field, a prompt or the memo, with
 * its cursor; the editing actions of keymap.h; and drawing it wrapped at
 * character boundaries with a visible cursor.
 *
 * The text is UTF-8 as typed or pasted; the cursor is a byte offset that
 * always sits on a character boundary.  Drawing sanitizes every visual
 * line, so pasted control characters show as marks; a character that
 * would not display (width -1) takes one column, as it is drawn as a
 * mark.  Visual lines are recomputed on every draw and move (memos are
 * short).
 */
#ifndef BUGCODER_TUI_EDIT_H
#define BUGCODER_TUI_EDIT_H

#include <stddef.h>

#include "core/base/buf.h"
#include "tui/draw.h"
#include "tui/keymap.h"

struct edit {
	struct buf text;
	size_t cur;		/* byte offset of the cursor */
	int multiline;		/* '\n' allowed (memo) */
	int width;		/* columns of the last draw, for up/down */
	int top;		/* first visual line shown */
	int changed;		/* edited since edit_set() */
};

void edit_init(struct edit *ed, int multiline);
void edit_release(struct edit *ed);
/* Replace the text (cursor at its end); clears `changed`. */
void edit_set(struct edit *ed, const char *s);

/* Insert a typed character (a key for which key_is_text() holds, or
 * '\n' in a multiline edit), or the text of a paste (TK_PASTE). */
void edit_insert_key(struct edit *ed, int key);
/* Insert text: in a one-line edit line ends and tabs become spaces; in
 * a multiline one tabs do; other control characters are left out. */
void edit_insert_text(struct edit *ed, const char *s, size_t len);
/* Apply an editing action (ACT_ED_*).  Returns 1 if it was one. */
int edit_action(struct edit *ed, enum action a);

/* Draw into `rows` x `cols` at (y, x), wrapped, the cursor shown when
 * `focused`. */
void edit_draw(struct edit *ed, WINDOW *w, int y, int x, int rows, int cols,
	       int focused);

#endif
