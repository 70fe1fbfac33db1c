/* SPDX-License-Identifier: MIT */
/*
 * view_code_bar: how the annotator's screen looks around the panes - the
 * header's right side (flags, progress, the actor), the coding bar under
 * the panes (a cell per dimension, its height worked out from the
 * codebook alone so that picking never moves the panes) and the status
 * line's hints.
 */
#define _XOPEN_SOURCE_EXTENDED 1
#include <stdlib.h>
#include <string.h>

#include "core/base/text.h"
#include "tui/screen.h"
#include "tui/view_code_int.h"

#define BAR_VALUE_MAX 18

/* ---- layout --------------------------------------------------------- */

static int dim_label_width(const struct dimension *d, size_t i)
{
	return (i < 9 ? 2 : 0) + text_width(d->key, strlen(d->key)) + 2;
}

static int dim_value_width(const struct dimension *d)
{
	size_t i;
	int w = 3;

	for (i = 0; i < d->nr_codes; i++) {
		int k = text_width(d->codes[i].key, strlen(d->codes[i].key));

		if (k > w)
			w = k;
	}
	return w > BAR_VALUE_MAX ? BAR_VALUE_MAX : w;
}

/* Where cell i of the coding bar goes (cy and cx, may be NULL, have a
 * slot per dimension): rows needed for `cols`. */
static int bar_flow(const struct screen *scr, int cols, int *cy, int *cx)
{
	int row = 0, x = 1;
	size_t i;

	for (i = 0; i < scr->cb.nr_dims; i++) {
		const struct dimension *d = &scr->cb.dims[i];
		int w = dim_label_width(d, i) + dim_value_width(d);

		if (x + w > cols && x > 1) {
			row++;
			x = 1;
		}
		if (cy)
			cy[i] = row;
		if (cx)
			cx[i] = x;
		x += w + 2;
	}
	return row + 1;
}

/* The coding bar's height: the codebook's alone, so that picking never
 * moves the panes. */
int code_bar_rows(struct screen *scr)
{
	int rows = bar_flow(scr, scr->cols, NULL, NULL);

	return rows > 4 ? 4 : rows;
}

/* ---- drawing -------------------------------------------------------- */

void code_draw_header(struct screen *scr)
{
	struct code_state *cs = scr->priv;
	struct buf right = BUF_INIT;

	if (cs->coding.memo)
		buf_addstr(&right, "[memo] ");
	if (cs->coding.uncertain)
		buf_addstr(&right, "[uncertain] ");
	if (cs->coding.discuss)
		buf_addstr(&right, "[discuss] ");
	if (cs->coding.submitted)
		buf_addstr(&right, "[submitted] ");
	buf_addf(&right, " %zu/%zu done  ", cs->q.nr_submitted, cs->q.nr);
	sanitize_line(&right, scr->actor->name);
	buf_addch(&right, ' ');
	screen_draw_header(scr, right.ptr);
	buf_release(&right);
}

void code_draw_bar(struct screen *scr)
{
	struct code_state *cs = scr->priv;
	WINDOW *w = scr->bar;
	struct buf b = BUF_INIT;
	size_t i, n = scr->cb.nr_dims;
	/* a cell per dimension: the codebook sets how many there are */
	int *cy = xcalloc(n + 1, sizeof(*cy)), *cx = xcalloc(n + 1,
							      sizeof(*cx));

	werase(w);
	bar_flow(scr, scr->cols, cy, cx);
	for (i = 0; i < n; i++) {
		const struct dimension *d = &scr->cb.dims[i];
		const struct coded_dim *cd = coding_dim(&cs->coding, d->key);
		int x = cx[i], vw = dim_value_width(d);
		int active = scr->picking == (int)i;

		if (cy[i] >= scr->bar_rows)
			break;
		buf_reset(&b);
		if (i < 9) {
			/* `"` after the number: the actor cited evidence */
			int ev = i < 64 && (cs->ev_dims >> i & 1);

			buf_addf(&b, "%zu", i + 1);
			x += draw_str(w, cy[i], x, 1, b.ptr, b.len,
				      active ? SLOT_SEL : SLOT_BAR_KEY);
			x += draw_str(w, cy[i], x, 1, ev ? "\"" : " ", 1,
				      active ? SLOT_SEL : ev ? SLOT_BAR_KEY :
				      SLOT_BAR);
		}
		buf_reset(&b);
		sanitize_line(&b, d->key);
		buf_addstr(&b, ":");
		x += draw_str(w, cy[i], x, scr->cols - x, b.ptr, b.len,
			      active ? SLOT_SEL : SLOT_BAR);
		x += draw_str(w, cy[i], x, 1, " ", 1, SLOT_BAR);
		buf_reset(&b);
		if (cd) {
			size_t k;

			for (k = 0; k < cd->nr_codes; k++) {
				if (k)
					buf_addch(&b, ',');
				sanitize_line(&b, cd->codes[k]);
			}
			if (cd->proposal_id)
				buf_addstr(&b, "+");
			draw_str(w, cy[i], x, vw, b.ptr, b.len, SLOT_BAR_SET);
		} else if (cs->recode_was && cs->recode_was[i]) {
			/* a split took its code: recode it */
			buf_addstr(&b, "was ");
			sanitize_line(&b, cs->recode_was[i]);
			draw_str(w, cy[i], x, vw, b.ptr, b.len,
				 SLOT_BAR_MISSING);
		} else {
			draw_str(w, cy[i], x, vw, "[ ]", 3, d->required ?
				 SLOT_BAR_MISSING : SLOT_BAR_EMPTY);
		}
	}
	wnoutrefresh(w);
	buf_release(&b);
	free(cy);
	free(cx);
}

/* The status line's hints: the keys in force (a keys file's too). */
static void hints(struct screen *scr, struct buf *b)
{
	size_t n = scr->cb.nr_dims > 9 ? 9 : scr->cb.nr_dims;

	if (n && keymap_lookup(KEYMAP_MAIN, '1') == ACT_PICK_DIM &&
	    keymap_lookup(KEYMAP_MAIN, (int)('0' + n)) == ACT_PICK_DIM)
		buf_addf(b, "1-%zu code  ", n);
	else
		screen_hint(b, KEYMAP_MAIN, ACT_PICK_UNCODED, ACT_NONE, "code");
	screen_hint(b, KEYMAP_MAIN, ACT_SUBMIT, ACT_NONE, "submit");
	screen_hint(b, KEYMAP_MAIN, ACT_MEMO, ACT_NONE, "memo");
	screen_hint(b, KEYMAP_MAIN, ACT_UNCERTAIN, ACT_DISCUSS, "flag");
	if (!scr->split)
		screen_hint(b, KEYMAP_MAIN, ACT_SWITCH_PANE, ACT_NONE, "pane");
	screen_hint(b, KEYMAP_MAIN, ACT_NEXT_HUNK, ACT_PREV_HUNK, "hunk");
	screen_hint(b, KEYMAP_MAIN, ACT_SEARCH, ACT_NONE, "search");
	screen_hint(b, KEYMAP_MAIN, ACT_NEXT_ITEM, ACT_PREV_ITEM, "item");
	screen_hint(b, KEYMAP_MAIN, ACT_HELP, ACT_NONE, "help");
	screen_hint(b, KEYMAP_MAIN, ACT_QUIT, ACT_NONE, "quit");
	/* no trailing blanks */
	while (b->len && b->ptr[b->len - 1] == ' ')
		buf_setlen(b, b->len - 1);
}

void code_draw_status(struct screen *scr)
{
	struct code_state *cs = scr->priv;
	struct buf b = BUF_INIT, pos = BUF_INIT;

	if (cs->qpos != NOT_QUEUED)
		buf_addf(&pos, " item %zu/%zu ", cs->qpos + 1, cs->q.nr);
	else
		buf_addstr(&pos, " not in your queue ");
	hints(scr, &b);
	screen_draw_status(scr, b.ptr, pos.ptr);
	buf_release(&b);
	buf_release(&pos);
}
