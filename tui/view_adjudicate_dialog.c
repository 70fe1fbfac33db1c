/* SPDX-License-Identifier: MIT */
/*
 * view_adjudicate_dialog: the dialog that asks for a rationale (or a
 * note to settle a discussion), tags a cause, and saves (see
 * view_adjudicate.c).  A rationale being typed when the screen is
 * stopped (Ctrl-C, hang-up, SIGTERM) is kept as the adjudicator's draft
 * and offered the next time the dialog opens on that dimension.
 */
#define _XOPEN_SOURCE_EXTENDED 1
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/study/adjudicate.h"
#include "core/study/draft.h"
#include "core/base/text.h"
#include "tui/screen.h"
#include "tui/view_adjudicate.h"

static const char *const causes[] = {
	NULL, "guideline_gap", "slip", "ambiguous", "code_missing"
};
#define NR_CAUSES (sizeof(causes) / sizeof(causes[0]))

struct dialog {
	int settle;		/* a note to settle, else a rationale */
	size_t dim;
	char **codes;
	size_t nr;
	char *source;		/* "Coder 1's code" ... */
	size_t cause;		/* index into causes[] */
	struct edit ed;
};

/* What the dialog is opened with (v->arg, copied by open). */
struct dialog_arg {
	int settle;
	size_t dim;
	const char *const *codes;
	size_t nr;
	const char *source;
};

static void restore_draft(struct view *v, const char *dim);

static int dialog_open(struct view *v)
{
	const struct dialog_arg *arg = v->arg;
	struct dialog *dl = v->priv;
	struct adj *adj = ADJ(v->scr);
	const struct dim_state *ds;
	size_t i;

	dl->settle = arg->settle;
	dl->dim = arg->dim;
	edit_init(&dl->ed, 0);
	if (!arg->settle) {
		dl->codes = xcalloc(arg->nr + 1, sizeof(*dl->codes));
		for (i = 0; i < arg->nr; i++)
			dl->codes[i] = xstrdup(arg->codes[i]);
		dl->nr = arg->nr;
		dl->source = xstrdup(arg->source);
	}
	if (dl->settle || dl->dim >= adj->is.nr_dims)
		return 0;
	/* changing a resolution: start from what it says */
	ds = &adj->is.dims[dl->dim];
	if (ds->status == DIM_RESOLVED) {
		edit_set(&dl->ed, ds->rationale);
		for (i = 1; i < NR_CAUSES; i++)
			if (ds->cause && !strcmp(ds->cause, causes[i]))
				dl->cause = i;
	}
	restore_draft(v, ds->dim->key);
	return 0;
}

/* A rationale being typed when the screen was stopped comes back. */
static void restore_draft(struct view *v, const char *dim)
{
	struct dialog *dl = v->priv;
	struct screen *scr = v->scr;
	struct err e = ERR_INIT;
	char *text, *cause;
	int found = 0, has_cause = 0;
	size_t i;

	text = draft_get(scr->st, scr->actor, scr->item.id, DRAFT_RATIONALE,
			 dim, "rationale", &found, &e);
	if (!found)
		return;
	cause = draft_get(scr->st, scr->actor, scr->item.id, DRAFT_RATIONALE,
			  dim, "cause", &has_cause, &e);
	edit_set(&dl->ed, text);
	dl->cause = 0;
	for (i = 1; has_cause && i < NR_CAUSES; i++)
		if (!strcmp(cause, causes[i]))
			dl->cause = i;
	screen_msg(scr, MSG_INFO, "the rationale you were typing when the "
		   "screen stopped is back: Enter saves it");
	free(text);
	free(cause);
}

/* The screen is stopped with the dialog open: keep what was typed. */
static int dialog_hangup(struct view *v)
{
	struct dialog *dl = v->priv;
	struct adj *adj = ADJ(v->scr);
	struct err e = ERR_INIT;
	struct draft_field f[2];

	if (!dl || dl->settle || !dl->ed.changed || !dl->ed.text.len ||
	    dl->dim >= adj->is.nr_dims)
		return 0;
	f[0].name = "rationale";
	f[0].text = dl->ed.text.ptr;
	f[1].name = "cause";
	f[1].text = causes[dl->cause];
	return draft_save(v->scr->st, v->scr->actor, v->scr->item.id,
			  DRAFT_RATIONALE, adj->is.dims[dl->dim].dim->key, f,
			  2, &e) == 0;
}

static void dialog_layout(struct view *v)
{
	screen_overlay_box(v->scr, v, 11, 78);
}

static void dialog_draw(struct view *v)
{
	struct dialog *dl = v->priv;
	struct adj *adj = ADJ(v->scr);
	struct buf b = BUF_INIT;
	int y = 1, x, w = v->cols - 2;
	size_t i;

	werase(v->win);
	if (dl->settle) {
		buf_addstr(&b, "Settle the discussion of ");
		sanitize_line(&b, v->scr->item_name);
		draw_frame(v->win, b.ptr, SLOT_DIALOG_TITLE);
		buf_reset(&b);
		buf_addf(&b, "A coder flagged the item for discussion; %d "
			 "dimension%s still disagree%s.", adj->is.nr_disagree,
			 adj->is.nr_disagree == 1 ? "" : "s",
			 adj->is.nr_disagree == 1 ? "s" : "");
		draw_str(v->win, y++, 1, w, b.ptr, b.len, SLOT_NORMAL);
		y++;
		draw_str(v->win, y, 1, w, "Note (optional):", 16,
			 SLOT_MD_STRONG);
		edit_draw(&dl->ed, v->win, y + 1, 1, 2, w, 1);
		y += 4;
		buf_reset(&b);
		buf_addstr(&b, "Enter settles   C-o $EDITOR   Esc cancels");
		draw_str(v->win, v->rows - 2, 1, w, b.ptr, b.len, SLOT_DIM);
		wnoutrefresh(v->win);
		buf_release(&b);
		return;
	}
	buf_addstr(&b, "Resolve ");
	sanitize_line(&b, adj->is.dims[dl->dim].dim->key);
	buf_addstr(&b, " of ");
	sanitize_line(&b, v->scr->item_name);
	draw_frame(v->win, b.ptr, SLOT_DIALOG_TITLE);

	x = 1 + draw_str(v->win, y, 1, w, "Final code: ", 12, SLOT_MD_STRONG);
	buf_reset(&b);
	for (i = 0; i < dl->nr; i++) {
		if (i)
			buf_addch(&b, ',');
		sanitize_line(&b, dl->codes[i]);
	}
	x += draw_str(v->win, y, x, w + 1 - x, b.ptr, b.len, SLOT_BAR_SET);
	buf_reset(&b);
	buf_addf(&b, "  (%s)", dl->source);
	draw_str(v->win, y++, x, w + 1 - x, b.ptr, b.len, SLOT_DIM);

	/* what the coders said */
	buf_reset(&b);
	for (i = 0; i < adj->is.nr_coders; i++) {
		if (i)
			buf_addstr(&b, "   ");
		adj_coder_label(adj, i, &b);
		buf_addstr(&b, ": ");
		adj_codes_of(adj_coder_dim(adj, i,
					   adj->is.dims[dl->dim].dim->key),
			     &b);
	}
	draw_str(v->win, y++, 1, w, b.ptr, b.len, SLOT_DIM);
	y++;
	draw_str(v->win, y, 1, w, "Rationale (required):", 21, SLOT_MD_STRONG);
	edit_draw(&dl->ed, v->win, y + 1, 1, 2, w, 1);
	y += 4;

	x = 1 + draw_str(v->win, y, 1, w, "Cause (Tab):", 12, SLOT_MD_STRONG);
	for (i = 0; i < NR_CAUSES; i++) {
		const char *c = causes[i] ? causes[i] : "none";
		int sel = i == dl->cause;

		x += draw_str(v->win, y, x, w + 1 - x, " ", 1, SLOT_NORMAL);
		if (sel)
			x += draw_str(v->win, y, x, w + 1 - x, "[", 1,
				      SLOT_SEL);
		x += draw_str(v->win, y, x, w + 1 - x, c, strlen(c),
			      sel ? SLOT_SEL : SLOT_NORMAL);
		if (sel)
			x += draw_str(v->win, y, x, w + 1 - x, "]", 1,
				      SLOT_SEL);
	}
	buf_reset(&b);
	buf_addstr(&b, "Enter saves   Tab cause   C-o $EDITOR   Esc cancels");
	draw_str(v->win, v->rows - 2, 1, w, b.ptr, b.len, SLOT_DIM);
	wnoutrefresh(v->win);
	buf_release(&b);
}

static int dialog_save(struct view *v, const char *text)
{
	struct dialog *dl = v->priv;
	struct adj *adj = ADJ(v->scr);

	if (dl->settle)
		return adj_save_settle(adj, text);
	if (!*text) {
		screen_msg(v->scr, MSG_ERR, "a resolution needs a rationale: "
			   "type it, or C-o for $EDITOR");
		return -1;
	}
	return adj_save_resolution(adj, dl->dim, dl->codes, dl->nr, text,
				   causes[dl->cause], dl->source);
}

static int dialog_handle(struct view *v, enum action a, int key)
{
	struct dialog *dl = v->priv;
	char *text;
	int r;

	switch (a) {
	case ACT_ACCEPT:
		return dialog_save(v, dl->ed.text.ptr) < 0 ? H_REDRAW :
		       H_CLOSE;
	case ACT_CANCEL:
		screen_msg(v->scr, MSG_INFO, "not saved");
		return H_CLOSE;
	case ACT_NEXT_CAUSE:
	case ACT_PREV_CAUSE:
		if (!dl->settle)
			dl->cause = (dl->cause + (a == ACT_NEXT_CAUSE ? 1 :
						  NR_CAUSES - 1)) % NR_CAUSES;
		return H_REDRAW;
	case ACT_RATIONALE_EDITOR:
		/* what comes back from the editor is saved at once, as
		 * with the memo */
		text = screen_run_editor(v->scr, dl->ed.text.ptr);
		if (!text)
			return H_REDRAW;
		edit_set(&dl->ed, text);
		r = dialog_save(v, text);
		free(text);
		return r < 0 ? H_REDRAW : H_CLOSE;
	case ACT_NONE:
		edit_insert_key(&dl->ed, key);
		return H_REDRAW;
	default:
		return edit_action(&dl->ed, a) ? H_REDRAW : H_HANDLED;
	}
}

static void dialog_close(struct view *v)
{
	struct dialog *dl = v->priv;
	size_t i;

	for (i = 0; i < dl->nr; i++)
		free(dl->codes[i]);
	free(dl->codes);
	free(dl->source);
	edit_release(&dl->ed);
}

const struct view_ops adj_dialog_view_ops = {
	.name = "rationale",
	.keymap = KEYMAP_RESOLVE,
	.priv_size = sizeof(struct dialog),
	.text_input = 1,
	.paste = 1,
	.open = dialog_open,
	.layout = dialog_layout,
	.draw = dialog_draw,
	.handle = dialog_handle,
	.close = dialog_close,
	.hangup = dialog_hangup,
	.kept = "the rationale being typed is kept as a draft, offered "
		"next time",
};

void adj_ask_rationale(struct adj *adj, size_t d, const char *const *codes,
		       size_t n, const char *source)
{
	struct dialog_arg arg = { 0, d, codes, n, source };

	adj->sel = d;
	adj->scr->dirty |= DIRTY_BAR;
	screen_push_with(adj->scr, &adj_dialog_view_ops, &arg);
}

void adj_ask_settle(struct adj *adj)
{
	struct dialog_arg arg = { 1, 0, NULL, 0, NULL };

	screen_push_with(adj->scr, &adj_dialog_view_ops, &arg);
}
