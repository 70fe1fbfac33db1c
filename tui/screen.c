/* SPDX-License-Identifier: MIT */
/*
 * screen: the frame every screen is built on (see screen.h) - windows
 * and overlays and their state, the status line and its search prompt,
 * the frame's layout and its one draw routine (header, panes,
 * separator, panel, status line, overlays, the "too small" notice), the
 * keys every screen shares and their routing to the prompt, the
 * overlays, the focused pane and the screen's own actions, the loop's
 * client, $EDITOR, and the start and end of a screen (its state
 * allocated and freed, its windows released, what was typed saved on a
 * hang-up).
 *
 * The screens themselves - the annotator's (view_code.c), the
 * adjudicator's (view_adjudicate.c), agreement on its own
 * (view_agree.c) - are a struct screen_ops each: their state, their
 * panel under the panes, their header's right side, their status hints
 * and their own actions.
 */
#define _XOPEN_SOURCE_EXTENDED 1
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/study/evidence.h"
#include "core/base/text.h"
#include "tui/screen.h"
#include "tui/settings.h"
#include "tui/ui.h"

/* ---- windows and overlays ----------------------------------------------- */

void screen_place(struct view *v)
{
	if (v->win)
		delwin(v->win);
	v->win = newwin(v->rows > 0 ? v->rows : 1, v->cols > 0 ? v->cols : 1,
			v->y, v->x);
	if (!v->win)
		die("cannot create a %dx%d window", v->rows, v->cols);
	leaveok(v->win, TRUE);
	v->dirty = 1;
}

static WINDOW *place(WINDOW *old, int rows, int cols, int y, int x)
{
	WINDOW *w;

	if (old)
		delwin(old);
	w = newwin(rows, cols, y, x);
	if (!w)
		die("cannot create a %dx%d window", rows, cols);
	leaveok(w, TRUE);
	return w;
}

void screen_overlay_box(struct screen *scr, struct view *v, int max_rows,
			int max_cols)
{
	int rows = scr->area_rows, cols = scr->cols;

	if (max_rows > 0 && rows > max_rows)
		rows = max_rows;
	/* a narrow margin would only show slivers of the panes: none */
	if (max_cols > 0 && cols > max_cols + 8)
		cols = max_cols;
	v->rows = rows;
	v->cols = cols;
	v->y = scr->area_y + (scr->area_rows - rows) / 2;
	v->x = (scr->cols - cols) / 2;
	screen_place(v);
}

/* Close v and free what the framework owns of it. */
static void view_free(struct view *v)
{
	v->ops->close(v);
	free(v->priv);
	if (v->win)
		delwin(v->win);
	free(v);
}

struct view *screen_push_with(struct screen *scr, const struct view_ops *ops,
			      const void *arg)
{
	struct view *v;

	v = xcalloc(1, sizeof(*v));
	v->ops = ops;
	v->scr = scr;
	v->arg = arg;
	if (ops->priv_size)
		v->priv = xcalloc(1, ops->priv_size);
	/* close() releases what a failed open() left */
	if ((ops->open && ops->open(v) < 0) ||
	    scr->nr_overlays == MAX_OVERLAYS) {
		view_free(v);
		return NULL;
	}
	scr->overlays[scr->nr_overlays++] = v;
	if (!scr->too_small)
		ops->layout(v);
	v->dirty = 1;
	scr->dirty |= DIRTY_OVERLAY;
	return v;
}

struct view *screen_push(struct screen *scr, const struct view_ops *ops)
{
	return screen_push_with(scr, ops, NULL);
}

void screen_pop(struct screen *scr)
{
	struct view *v;

	if (!scr->nr_overlays)
		return;
	v = scr->overlays[--scr->nr_overlays];
	view_free(v);
	/* what it covered shows again */
	scr->dirty |= DIRTY_ALL;
}

struct view *screen_top(struct screen *scr)
{
	return scr->nr_overlays ? scr->overlays[scr->nr_overlays - 1] : NULL;
}

/* ---- the status line ---------------------------------------------------- */

void screen_msg(struct screen *scr, enum msg_kind kind, const char *fmt, ...)
{
	va_list ap;

	buf_reset(&scr->msg);
	va_start(ap, fmt);
	buf_vaddf(&scr->msg, fmt, ap);
	va_end(ap);
	scr->msg_kind = kind;
	scr->dirty |= DIRTY_STATUS;
}

/* ---- layout and drawing ------------------------------------------------- */

void screen_layout_frame(struct screen *scr, int panel_rows)
{
	int i, left;

	scr->too_small = scr->rows < SCREEN_MIN_ROWS ||
			 scr->cols < SCREEN_MIN_COLS;
	scr->dirty = DIRTY_ALL;
	if (scr->too_small)
		return;
	/* zoomed, a wide terminal shows one pane at a time too: a pane as
	 * wide as the terminal scrolls with the terminal's own scrolling,
	 * a few bytes a line instead of a repaint (slow SSH links) */
	scr->split = scr->cols >= SCREEN_SPLIT_COLS && !scr->zoom;
	scr->bar_rows = panel_rows;
	scr->bar_y = scr->rows - 1 - scr->bar_rows;
	scr->area_y = 1;
	scr->area_rows = scr->bar_y - scr->area_y;
	scr->hdr = place(scr->hdr, 1, scr->cols, 0, 0);
	scr->bar = place(scr->bar, scr->bar_rows, scr->cols, scr->bar_y, 0);
	scr->status = place(scr->status, 1, scr->cols, scr->rows - 1, 0);
	if (scr->sep)
		delwin(scr->sep);
	scr->sep = NULL;
	if (scr->split) {
		left = (scr->cols - 1) / 2;
		scr->panes[PANE_ISSUE].x = 0;
		scr->panes[PANE_ISSUE].cols = left;
		scr->panes[PANE_DIFF].x = left + 1;
		scr->panes[PANE_DIFF].cols = scr->cols - left - 1;
		scr->sep = place(NULL, scr->area_rows, 1, scr->area_y, left);
	} else {
		for (i = 0; i < 2; i++) {
			scr->panes[i].x = 0;
			scr->panes[i].cols = scr->cols;
		}
	}
	for (i = 0; i < 2; i++) {
		scr->panes[i].y = scr->area_y;
		scr->panes[i].rows = scr->area_rows;
		scr->panes[i].ops->layout(&scr->panes[i]);
	}
	for (i = 0; i < scr->nr_overlays; i++)
		scr->overlays[i]->ops->layout(scr->overlays[i]);
}

void screen_draw_header(struct screen *scr, const char *right)
{
	WINDOW *w = scr->hdr;
	struct buf left = BUF_INIT;
	int rw, used;

	draw_fill(w, 0, 0, scr->cols, SLOT_HEADER);
	rw = text_width(right, strlen(right));
	buf_addch(&left, ' ');
	sanitize_line(&left, scr->item_name);
	buf_addstr(&left, "  ");
	used = draw_str(w, 0, 0, scr->cols - rw - 1, left.ptr, left.len,
			SLOT_HEADER);
	buf_reset(&left);
	sanitize_line(&left, scr->item.title);
	draw_str(w, 0, used, scr->cols - rw - 1 - used, left.ptr, left.len,
		 SLOT_HEADER);
	if (rw <= scr->cols)
		draw_str(w, 0, scr->cols - rw, rw, right, strlen(right),
			 SLOT_HEADER);
	wnoutrefresh(w);
	buf_release(&left);
}

void screen_draw_status(struct screen *scr, const char *hints,
			const char *pos)
{
	WINDOW *w = scr->status;
	struct buf b = BUF_INIT;
	int pw = pos ? (int)strlen(pos) : 0;
	enum slot slot = SLOT_STATUS;

	werase(w);
	if (scr->prompting) {
		draw_str(w, 0, 0, 1, "/", 1, SLOT_STATUS);
		edit_draw(&scr->prompt, w, 0, 1, 1, scr->cols - pw - 2, 1);
	} else {
		if (scr->msg_kind != MSG_NONE) {
			sanitize_line(&b, scr->msg.ptr);
			slot = scr->msg_kind == MSG_ERR ? SLOT_STATUS_ERR :
			       scr->msg_kind == MSG_OK ? SLOT_STATUS_OK :
			       SLOT_STATUS;
			/* a message matters more than the position */
			if (text_width(b.ptr, b.len) + pw >= scr->cols)
				pw = 0;
		} else {
			buf_addstr(&b, hints);
		}
		draw_str(w, 0, 0, scr->cols - pw - (pw ? 1 : 0), b.ptr, b.len,
			 slot);
	}
	if (pw && pw < scr->cols)
		draw_str(w, 0, scr->cols - pw, pw, pos, (size_t)pw, SLOT_DIM);
	wnoutrefresh(w);
	buf_release(&b);
}

static void draw_too_small(struct screen *scr)
{
	char msg[160];
	int y = scr->rows / 2 - 1;

	werase(stdscr);
	snprintf(msg, sizeof(msg), "terminal too small: %dx%d", scr->cols,
		 scr->rows);
	mvwaddnstr(stdscr, y > 0 ? y : 0, 0, msg, scr->cols);
	snprintf(msg, sizeof(msg), "bugcoder needs at least %dx%d (q quits)",
		 SCREEN_MIN_COLS, SCREEN_MIN_ROWS);
	mvwaddnstr(stdscr, y > 0 ? y + 1 : 1, 0, msg, scr->cols);
	wnoutrefresh(stdscr);
}

/* Draw the panes (and their separator) that are dirty; returns 1 when
 * anything was drawn, so the overlays above must be drawn again. */
static int draw_panes(struct screen *scr)
{
	int i, under = 0;

	if (scr->ops->no_panes)
		return 0;
	if (scr->dirty & DIRTY_PANES)
		scr->panes[0].dirty = scr->panes[1].dirty = 1;
	for (i = 0; i < 2; i++) {
		struct view *v = &scr->panes[i];

		if (!v->dirty || (!scr->split && i != scr->focus))
			continue;
		touchwin(v->win);
		v->ops->draw(v);
		v->dirty = 0;
		under = 1;
	}
	if (scr->split && (scr->dirty & DIRTY_PANES) && scr->sep) {
		int y;

		werase(scr->sep);
		wattrset(scr->sep, slot_attr(SLOT_SEP));
		for (y = 0; y < scr->area_rows; y++)
			mvwaddch(scr->sep, y, 0, ACS_VLINE);
		wattrset(scr->sep, A_NORMAL);
		wnoutrefresh(scr->sep);
	}
	return under;
}

/* Draw the overlays that are dirty, all of them when `under` changed. */
static void draw_overlays(struct screen *scr, int under)
{
	int i;

	for (i = 0; i < scr->nr_overlays; i++) {
		struct view *v = scr->overlays[i];

		if (under || v->dirty || (scr->dirty & DIRTY_OVERLAY)) {
			touchwin(v->win);
			v->ops->draw(v);
			v->dirty = 0;
			under = 1;
		}
	}
}

void screen_draw(struct screen *scr)
{
	int under;

	if (scr->too_small) {
		if (scr->dirty)
			draw_too_small(scr);
		scr->dirty = 0;
		return;
	}
	if ((scr->dirty & DIRTY_HEADER) && scr->ops->draw_header)
		scr->ops->draw_header(scr);
	under = draw_panes(scr);
	if ((scr->dirty & DIRTY_BAR) && scr->ops->draw_panel) {
		scr->ops->draw_panel(scr);
		/* an overlay (agreement) may cover the panel too */
		under = 1;
	}
	if (scr->dirty & DIRTY_STATUS)
		scr->ops->draw_status(scr);
	draw_overlays(scr, under);
	scr->dirty = 0;
}

/* ---- keys --------------------------------------------------------------- */

static struct view *pager_owner(struct screen *scr, struct pager **pg)
{
	struct view *v = screen_top(scr);

	if (!v)
		v = &scr->panes[scr->focus];
	*pg = v->ops->pager ? v->ops->pager(v) : NULL;
	return v;
}

static void search(struct screen *scr, const char *pat, int dir)
{
	struct pager *pg;
	struct view *v = pager_owner(scr, &pg);
	int wrapped = 0;

	if (!pg) {
		screen_msg(scr, MSG_INFO, "nothing to search here");
		return;
	}
	/* one last pattern for every pane, as in less and vi: n in a pane
	 * searched for something else starts a search there */
	if (!pat && !scr->last_search.len) {
		screen_msg(scr, MSG_INFO, "no search yet: / searches");
		return;
	}
	if (pat)
		buf_set(&scr->last_search, pat);
	else if (strcmp(pg->pat.ptr, scr->last_search.ptr))
		pat = scr->last_search.ptr;
	if (!pager_search(pg, pat, dir, &wrapped)) {
		struct buf b = BUF_INIT;

		sanitize_line(&b, pg->pat.ptr);
		screen_msg(scr, MSG_ERR, "no match: %s", b.ptr);
		buf_release(&b);
	} else {
		size_t n, m;

		pager_match_pos(pg, &n, &m);
		screen_msg(scr, MSG_INFO, "match %zu/%zu%s", n, m, wrapped ?
			   " (search wrapped around)" : "");
	}
	v->dirty = 1;
	scr->dirty |= screen_top(scr) ? DIRTY_OVERLAY : 0;
}

static void prompt_key(struct screen *scr, int key)
{
	enum action a = keymap_lookup(KEYMAP_PROMPT, key);

	scr->dirty |= DIRTY_STATUS;
	switch (a) {
	case ACT_ACCEPT:
		scr->prompting = 0;
		search(scr, scr->prompt.text.len ? scr->prompt.text.ptr : NULL,
		       1);
		return;
	case ACT_CANCEL:
		scr->prompting = 0;
		return;
	case ACT_ED_BACKSPACE:
		if (!scr->prompt.text.len) {
			scr->prompting = 0;
			return;
		}
		edit_action(&scr->prompt, a);
		return;
	default:
		if (!edit_action(&scr->prompt, a))
			edit_insert_key(&scr->prompt, key);
	}
}

static void diff_action(struct screen *scr, enum action a, int key)
{
	struct view *v = &scr->panes[PANE_DIFF];
	int r;

	if (scr->focus != PANE_DIFF) {
		scr->focus = PANE_DIFF;
		scr->dirty |= DIRTY_PANES;
	}
	r = v->ops->handle(v, a, key);
	if (r & H_REDRAW)
		v->dirty = 1;
}

int screen_show_cite(struct screen *scr, const struct evidence_cite *c)
{
	/* a pull request's text is in the fix pane, above its diff */
	int pane = c->pane == EVIDENCE_ISSUE ? PANE_ISSUE : PANE_DIFF;
	struct view *v = &scr->panes[pane];
	struct pager *pg = v->ops->pager ? v->ops->pager(v) : NULL;
	size_t from, to;

	if (!pg || !v->ops->find || !v->ops->find(v, c, &from, &to))
		return -1;
	scr->focus = pane;
	pager_cursor(pg, 1);
	pager_goto(pg, from);
	pg->mark = to;
	v->dirty = 1;
	scr->dirty |= DIRTY_PANES;
	return 0;
}

int screen_action(struct screen *scr, enum action a, int key)
{
	char kn[32];

	switch (a) {
	case ACT_QUIT:
		scr->quit = 1;
		return 1;
	case ACT_HELP:
		screen_open_help(scr);
		return 1;
	case ACT_CODEBOOK:
		screen_open_codebook(scr);
		return 1;
	case ACT_AGREEMENT:
		/* an overlay of the frame's, as help and the codebook
		 * are: every round */
		screen_push_with(scr, &agree_view_ops, NULL);
		return 1;
	case ACT_REDRAW:
		clearok(curscr, TRUE);
		scr->dirty = DIRTY_ALL;
		return 1;
	case ACT_SEARCH:
		scr->prompting = 1;
		edit_set(&scr->prompt, "");
		scr->dirty |= DIRTY_STATUS;
		return 1;
	case ACT_SEARCH_NEXT:
	case ACT_SEARCH_PREV:
		search(scr, NULL, a == ACT_SEARCH_NEXT ? 1 : -1);
		return 1;
	case ACT_SWITCH_PANE:
		scr->focus = !scr->focus;
		scr->dirty |= DIRTY_PANES;
		return 1;
	case ACT_ZOOM:
		if (scr->cols < SCREEN_SPLIT_COLS) {
			screen_msg(scr, MSG_INFO, "one pane at a time already "
				   "at this width (Tab switches)");
			return 1;
		}
		scr->zoom = !scr->zoom;
		screen_layout_frame(scr, scr->bar_rows);
		screen_msg(scr, MSG_INFO, scr->zoom ? "zoomed: Tab switches "
			   "panes, z shows both" : "both panes");
		return 1;
	case ACT_NEXT_HUNK:
	case ACT_PREV_HUNK:
	case ACT_NEXT_FILE:
	case ACT_PREV_FILE:
	case ACT_NEXT_FIX:
		diff_action(scr, a, key);
		return 1;
	case ACT_NONE:
		/* Esc out of habit is not worth a message */
		if (key != TK_ESC)
			screen_msg(scr, MSG_INFO, "%s: no such key here; ? "
				   "shows the keys", keyname_of(key, kn));
		return 1;
	default:
		return 0;
	}
}

void screen_hint(struct buf *out, enum keymap_id km, enum action a,
		 enum action a2, const char *what)
{
	int k = keymap_key_for(km, a), k2 = 0;
	char kn[32];

	if (!k)
		return;
	buf_addstr(out, keyname_hint(k, kn));
	if (a2 != ACT_NONE && (k2 = keymap_key_for(km, a2)))
		buf_addf(out, "/%s", keyname_hint(k2, kn));
	buf_addf(out, " %s  ", what);
}

int screen_wrap_setting(int pane)
{
	return settings_get(pane == PANE_DIFF ? SET_WRAP_FIX :
			    SET_WRAP_ISSUE);
}

void screen_toggle_wrap(struct screen *scr, int pane, struct pager *pg)
{
	struct buf err = BUF_INIT, safe = BUF_INIT;
	int on = !pg->wrap;

	pager_set_wrap(pg, on);
	if (settings_remember(pane == PANE_DIFF ? SET_WRAP_FIX :
			      SET_WRAP_ISSUE, on, &err) < 0) {
		sanitize_line(&safe, err.ptr);
		screen_msg(scr, MSG_ERR, "%s: long %slines %s, this time (not "
			   "kept for the next: %s)", pane == PANE_DIFF ?
			   "fix" : "issue", pane == PANE_DIFF ? "" : "code ",
			   on ? "wrap" : "scroll sideways", safe.ptr);
	} else if (pane == PANE_DIFF) {
		/* "kept": the next session starts the same way */
		screen_msg(scr, MSG_INFO, on ? "fix: long lines wrap (kept; w "
			   "scrolls them sideways)" : "fix: long lines scroll "
			   "sideways (kept; w wraps them)");
	} else {
		screen_msg(scr, MSG_INFO, on ? "issue: long code lines wrap "
			   "(kept; w scrolls them sideways)" : "issue: long "
			   "code lines scroll sideways (kept; w wraps them)");
	}
	buf_release(&err);
	buf_release(&safe);
}

/* Let the open overlays save what was typed; returns what the topmost
 * that did says it kept, or NULL when none saved anything. */
static const char *keep_typed(struct screen *scr)
{
	const char *kept = NULL;
	int i;

	for (i = scr->nr_overlays - 1; i >= 0; i--) {
		struct view *v = scr->overlays[i];

		if (v->ops->hangup && v->ops->hangup(v) && !kept)
			kept = v->ops->kept ? v->ops->kept :
			       "the memo being typed is saved too";
	}
	return kept;
}

/* Give a key to what has it first: the "too small" notice (q quits,
 * keeping a memo being typed), the search prompt, the topmost overlay.
 * Returns 1 when it was used there, 0 when it is for the screen itself. */
static int route_key(struct screen *scr, int key)
{
	struct view *v;
	enum action a;
	int r;

	if (scr->too_small) {
		/* q leaves from here even with the memo open, where q is
		 * text: what was typed there is kept, as Esc keeps it */
		if (key == 'q' || key == TK_CTRL('c')) {
			keep_typed(scr);
			scr->quit = 1;
		}
		return 1;
	}
	/* a message stays while overlays are used (it confirms what they
	 * saved) and goes with the next key on the main screen */
	if (scr->msg_kind != MSG_NONE && !scr->nr_overlays &&
	    !scr->prompting) {
		scr->msg_kind = MSG_NONE;
		scr->dirty |= DIRTY_STATUS;
	}
	if (scr->prompting) {
		prompt_key(scr, key);
		return 1;
	}
	v = screen_top(scr);
	if (key == TK_PASTE && !(v && v->ops->paste)) {
		/* pasted text would run as commands here */
		screen_msg(scr, MSG_INFO, "paste ignored: paste into a memo, "
			   "a rationale, a proposal or a search");
		return 1;
	}
	if (!v)
		return 0;
	if (key == TK_PASTE) {
		r = v->ops->handle(v, ACT_NONE, key);
		if (r & H_REDRAW)
			v->dirty = 1;
		return 1;
	}
	a = keymap_lookup(v->ops->keymap, key);
	if (a == ACT_NONE && !(v->ops->text_input && key_is_text(key)))
		return 1;
	r = v->ops->handle(v, a, key);
	if (r & H_CLOSE) {
		/* the view may have closed itself already */
		if (screen_top(scr) == v)
			screen_pop(scr);
	} else if (r & H_REDRAW) {
		v->dirty = 1;
	} else if (r == H_UNHANDLED) {
		screen_action(scr, a, key);
	}
	return 1;
}

/* ---- the end ------------------------------------------------------------ */

/* Close the overlays and panes and free the windows (not the data). */
static void release_windows(struct screen *scr)
{
	size_t i;

	while (scr->nr_overlays)
		screen_pop(scr);
	for (i = 0; i < 2; i++) {
		struct view *v = &scr->panes[i];

		if (v->opened)
			v->ops->close(v);
		v->opened = 0;
		free(v->priv);
		v->priv = NULL;
		if (v->win)
			delwin(v->win);
		v->win = NULL;
	}
	if (scr->hdr)
		delwin(scr->hdr);
	if (scr->bar)
		delwin(scr->bar);
	if (scr->status)
		delwin(scr->status);
	if (scr->sep)
		delwin(scr->sep);
	scr->hdr = scr->bar = scr->status = scr->sep = NULL;
}

void screen_hangup(struct screen *scr, struct err *e)
{
	const char *kept;

	if (e->code != ERR_INTERRUPTED && e->code != ERR_IO)
		return;
	/* what is kept now may wait for another writer as long as the
	 * command line would */
	store_busy_timeout(scr->st, -1);
	kept = keep_typed(scr);
	if (kept) {
		char msg[sizeof(e->msg)];

		snprintf(msg, sizeof(msg), "%s", e->msg);
		err_set(e, e->code, "%s; %s", msg, kept);
	}
}

/* ---- the screen's life -------------------------------------------------- */

/* A screen of overlays only: they take every row but the status line. */
static void layout_overlays_only(struct screen *scr)
{
	int i;

	scr->too_small = scr->rows < SCREEN_MIN_ROWS ||
			 scr->cols < SCREEN_MIN_COLS;
	scr->dirty = DIRTY_ALL;
	if (scr->too_small)
		return;
	scr->area_y = 0;
	scr->area_rows = scr->rows - 1;
	scr->status = place(scr->status, 1, scr->cols, scr->rows - 1, 0);
	for (i = 0; i < scr->nr_overlays; i++)
		scr->overlays[i]->ops->layout(scr->overlays[i]);
}

void screen_relayout(struct screen *scr)
{
	if (scr->ops->no_panes)
		layout_overlays_only(scr);
	else
		screen_layout_frame(scr, scr->ops->panel_rows ?
				    scr->ops->panel_rows(scr) : 0);
}

static void layout_cb(void *ctx, int rows, int cols)
{
	struct screen *scr = ctx;

	scr->rows = rows;
	scr->cols = cols;
	screen_relayout(scr);
}

static void draw_cb(void *ctx)
{
	screen_draw(ctx);
}

/* A key: the screen's own prompts, then the frame's (the notice, the
 * search prompt, the overlays), then the focused pane, the screen's own
 * actions, the actions every screen shares. */
static void key_cb(void *ctx, int key)
{
	struct screen *scr = ctx;
	const struct screen_ops *ops = scr->ops;

	if (ops->key && ops->key(scr, key))
		return;
	if (!route_key(scr, key) && !ops->no_panes) {
		enum action a = keymap_lookup(ops->keymap, key);
		struct view *v = &scr->panes[scr->focus];
		int r = v->ops->handle(v, a, key);

		if (r & H_REDRAW)
			v->dirty = 1;
		if (r == H_UNHANDLED && !(ops->action &&
					  ops->action(scr, a, key)))
			screen_action(scr, a, key);
	}
	if (ops->after_key)
		ops->after_key(scr);
}

static int done_cb(void *ctx)
{
	struct screen *scr = ctx;

	return scr->quit;
}

static void idle_cb(void *ctx)
{
	struct screen *scr = ctx;

	scr->ops->idle(scr);
}

void screen_init(struct screen *scr, const struct screen_ops *ops,
		 struct store *st, const struct actor *a)
{
	size_t i;

	memset(scr, 0, sizeof(*scr));
	scr->ops = ops;
	scr->st = st;
	scr->actor = a;
	scr->picking = -1;
	scr->pick_ops = ops->pick_ops;
	/* no windows until the terminal is set up: nothing is laid out
	 * before the loop */
	scr->too_small = 1;
	buf_init(&scr->msg, 0);
	buf_init(&scr->last_search, 0);
	edit_init(&scr->prompt, 0);
	if (!ops->no_panes)
		for (i = 0; i < 2; i++) {
			struct view *v = &scr->panes[i];

			v->scr = scr;
			v->ops = i == PANE_ISSUE ? &issue_view_ops :
				 &diff_view_ops;
			v->priv = xcalloc(1, v->ops->priv_size);
		}
	if (ops->private_size)
		scr->priv = xcalloc(1, ops->private_size);
	scr->client.ctx = scr;
	scr->client.layout = layout_cb;
	scr->client.draw = draw_cb;
	scr->client.key = key_cb;
	scr->client.done = done_cb;
	scr->client.idle = ops->idle ? idle_cb : NULL;
	scr->client.idle_ms = ops->idle_ms;
}

void screen_open_panes(struct screen *scr)
{
	int i;

	for (i = 0; i < 2; i++) {
		struct view *v = &scr->panes[i];

		v->ops->open(v);
		v->opened = 1;
		if (!scr->too_small && scr->rows)
			v->ops->layout(v);
	}
}

void screen_set_idle(struct screen *scr, int ms)
{
	scr->client.idle_ms = ms;
}

int screen_start(struct screen *scr, struct err *e)
{
	struct buf w = BUF_INIT;

	if (scr->started)
		return 0;
	if (ui_start(e) < 0)
		return -1;
	scr->started = 1;
	if (ui_keys_warning(&w))
		screen_msg(scr, MSG_ERR, "%s", w.ptr);
	buf_release(&w);
	return 0;
}

int screen_run(struct screen *scr, struct err *e)
{
	int ret;

	if (screen_start(scr, e) < 0)
		return -1;
	ret = ui_run(&scr->client, e);
	if (ret < 0) {
		if (scr->ops->hangup)
			scr->ops->hangup(scr, e);
		else
			screen_hangup(scr, e);
	}
	return ret;
}

void screen_fini(struct screen *scr)
{
	release_windows(scr);
	if (scr->started)
		ui_stop();
	scr->started = 0;
	if (scr->ops->close)
		scr->ops->close(scr);
	free(scr->priv);
	scr->priv = NULL;
	item_release(&scr->item);
	free(scr->item_name);
	scr->item_name = NULL;
	codebook_release(&scr->cb);
	buf_release(&scr->msg);
	buf_release(&scr->last_search);
	edit_release(&scr->prompt);
}

/* ---- $EDITOR ------------------------------------------------------------ */

char *screen_run_editor(struct screen *scr, const char *text)
{
	const char *tmp = getenv("TMPDIR");
	struct buf path = BUF_INIT, out = BUF_INIT;
	struct err e = ERR_INIT;
	char *ret = NULL;
	int fd;

	if (!text)
		text = "";
	buf_addf(&path, "%s/bugcoder-memo-XXXXXX.md", tmp && *tmp ? tmp :
		 "/tmp");
	fd = mkstemps(path.ptr, 3);
	if (fd < 0) {
		screen_msg(scr, MSG_ERR, "cannot make a temporary file: %s",
			   strerror(errno));
		goto out;
	}
	{
		size_t left = strlen(text);
		ssize_t n = 0;
		int err = 0;

		/* all of it (a short write would hand the editor a cut
		 * text to save), and the descriptor closed either way */
		while (left && (n = write(fd, text, left)) > 0) {
			text += n;
			left -= (size_t)n;
		}
		if (left)
			err = n < 0 ? errno : ENOSPC;
		if (close(fd) < 0 && !err)
			err = errno;
		if (err) {
			screen_msg(scr, MSG_ERR, "%s: %s", path.ptr,
				   strerror(err));
			unlink(path.ptr);
			goto out;
		}
	}
	if (ui_edit_file(path.ptr, &e) < 0) {
		screen_msg(scr, MSG_ERR, "%s", e.msg);
	} else if (buf_read_file(&out, path.ptr) < 0) {
		screen_msg(scr, MSG_ERR, "%s: %s", path.ptr, strerror(errno));
	} else if (memchr(out.ptr, '\0', out.len)) {
		/* the text would end there, silently */
		screen_msg(scr, MSG_ERR, "the edited text has a NUL byte: "
			   "not changed");
	} else {
		size_t i, k;

		/* lines end with LF, as typed in the screen; editors end
		 * the file with a newline, the text does not */
		for (i = k = 0; i < out.len; i++)
			if (out.ptr[i] != '\r' || i + 1 >= out.len ||
			    out.ptr[i + 1] != '\n')
				out.ptr[k++] = out.ptr[i];
		buf_setlen(&out, k);
		if (out.len && out.ptr[out.len - 1] == '\n')
			buf_setlen(&out, out.len - 1);
		if (out.len && out.ptr[out.len - 1] == '\r')
			buf_setlen(&out, out.len - 1);
		ret = buf_detach(&out, NULL);
	}
	unlink(path.ptr);
out:
	scr->dirty |= DIRTY_ALL;
	buf_release(&path);
	buf_release(&out);
	return ret;
}
