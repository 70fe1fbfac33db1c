/* SPDX-License-Identifier: MIT */
/*
 * view_memo: the memo editor overlay.
 *
 * A multi-line editor for the actor's memo on the item.  Esc (or C-x)
 * saves - one transaction, confirmed on the status line - and closes;
 * C-g closes without saving; C-o hands the text to $VISUAL/$EDITOR and
 * saves what comes back at once; what the study refuses (a memo is at
 * most 64 KiB: core/base/limits) stays in the editor.  A memo being typed when the screen is
 * stopped by a signal or a lost terminal, or left with q from the "too
 * small" notice, is saved, as Esc would save it: a dropped connection
 * does not lose it.
 */
#define _XOPEN_SOURCE_EXTENDED 1
#include <stdlib.h>
#include <string.h>

#include "tui/edit.h"
#include "tui/screen.h"
#include "tui/view_code.h"

struct memo {
	struct edit ed;
};

/* The memo saved on the item: "" when there is none. */
static const char *saved_memo(struct view *v)
{
	const struct coding *c = code_coding(v->scr);

	return c && c->memo ? c->memo : "";
}

static int memo_open(struct view *v)
{
	struct memo *m = v->priv;

	edit_init(&m->ed, 1);
	/* v->arg: a text from $EDITOR the study refused */
	edit_set(&m->ed, v->arg ? v->arg : saved_memo(v));
	return 0;
}

static void memo_layout(struct view *v)
{
	screen_overlay_box(v->scr, v, 16, 100);
}

static void memo_draw(struct view *v)
{
	struct memo *m = v->priv;
	struct buf b = BUF_INIT;

	werase(v->win);
	buf_addstr(&b, "Memo on ");
	sanitize_line(&b, v->scr->item_name);
	buf_addstr(&b, " - Esc saves, C-g cancels, C-o $EDITOR");
	draw_frame(v->win, b.ptr, SLOT_DIALOG_TITLE);
	edit_draw(&m->ed, v->win, 1, 1, v->rows - 2, v->cols - 2, 1);
	wnoutrefresh(v->win);
	buf_release(&b);
}

static int save(struct view *v)
{
	struct memo *m = v->priv;

	if (!strcmp(saved_memo(v), m->ed.text.ptr)) {
		screen_msg(v->scr, MSG_INFO, "memo unchanged");
		return 0;
	}
	return code_save_memo(v->scr, m->ed.text.ptr);
}

static int memo_handle(struct view *v, enum action a, int key)
{
	struct memo *m = v->priv;
	char *text;

	switch (a) {
	case ACT_SAVE_CLOSE:
		return save(v) < 0 ? H_REDRAW : H_CLOSE;
	case ACT_CANCEL:
		screen_msg(v->scr, MSG_INFO, "memo not changed");
		return H_CLOSE;
	case ACT_MEMO_EDITOR:
		text = screen_run_editor(v->scr, m->ed.text.ptr);
		if (text) {
			edit_set(&m->ed, text);
			save(v);
			free(text);
		}
		return H_REDRAW;
	case ACT_NONE:
		edit_insert_key(&m->ed, key);
		return H_REDRAW;
	default:
		return edit_action(&m->ed, a) ? H_REDRAW : H_HANDLED;
	}
}

static int memo_hangup(struct view *v)
{
	struct memo *m = v->priv;

	if (!m || !m->ed.changed || !strcmp(saved_memo(v), m->ed.text.ptr))
		return 0;
	return save(v) == 0;
}

static void memo_close(struct view *v)
{
	struct memo *m = v->priv;

	edit_release(&m->ed);
}

const struct view_ops memo_view_ops = {
	.name = "memo",
	.keymap = KEYMAP_MEMO,
	.priv_size = sizeof(struct memo),
	.text_input = 1,
	.paste = 1,
	.open = memo_open,
	.layout = memo_layout,
	.draw = memo_draw,
	.handle = memo_handle,
	.close = memo_close,
	.hangup = memo_hangup,
};

void code_open_memo(struct screen *scr, const char *text)
{
	screen_push_with(scr, &memo_view_ops, text);
}
