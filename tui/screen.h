/* SPDX-License-Identifier: MIT */
/*
 * screen: the frame every screen is built on - its windows, overlays,
 * layout, status line, search, one draw routine and loop - and the
 * views that live in it.
 *
 * Every view is a `struct view` driven by a `const struct view_ops`
 * (tig's structure): open loads (no drawing), layout places it for the
 * current terminal size, draw draws into its own WINDOW with
 * wnoutrefresh only, handle answers an action with H_* flags, close
 * releases.  The two panes (issue, fix) live side by side or one at a
 * time; overlays (picker, memo, form, help, codebook) stack on top of
 * them and get the keys first.  Actions a view does not handle fall back
 * to the screen's own (screen_ops.action), then to the frame's
 * (screen_action), as tig's views fall back to pager_request.
 *
 * Each screen is a `struct screen_ops` in the same way: the annotator's
 * (view_code.c), the adjudicator's (view_adjudicate.c), agreement on its
 * own (view_agree.c).  The frame allocates and frees a screen's state
 * (scr->priv) as it does a view's (v->priv): a new screen costs its
 * panel and its keys only.
 *
 * What is one screen's alone stays in its files: the annotator's saving
 * and its work on the item are view_code.h's, for the overlays only that
 * screen opens (the memo editor, the citations); the picker, which
 * several screens open, reaches a screen's picks through its pick_ops.
 */
#ifndef BUGCODER_TUI_SCREEN_H
#define BUGCODER_TUI_SCREEN_H

#include <stddef.h>

#include "core/base/buf.h"
#include "core/study/codebook.h"
#include "core/study/item.h"
#include "core/study/label.h"
#include "core/study/member.h"
#include "core/store/store.h"
#include "tui/doc.h"
#include "tui/draw.h"
#include "tui/edit.h"
#include "tui/keymap.h"
#include "tui/pager.h"
#include "tui/ui.h"

struct screen;
struct view;

enum handled {
	H_UNHANDLED = 0,
	H_HANDLED = 1 << 0,	/* used; nothing to redraw */
	H_REDRAW = 1 << 1,	/* used; redraw this view */
	H_CLOSE = 1 << 2,	/* close this overlay */
};

struct evidence_cite;

struct view_ops {
	const char *name;
	enum keymap_id keymap;
	size_t priv_size;	/* the view's own state (v->priv), allocated
				   cleared by the framework before open()
				   and freed after close() (a pane's: once,
				   with the screen); close() releases what
				   it holds, never v->priv itself */
	int text_input;		/* unbound printable keys reach handle()
				   as ACT_NONE with the key */
	int paste;		/* so does TK_PASTE (a text field) */
	int (*open)(struct view *v);		/* load, no drawing */
	void (*layout)(struct view *v);		/* on open and resize */
	void (*draw)(struct view *v);
	int (*handle)(struct view *v, enum action a, int key);
	void (*close)(struct view *v);
	struct pager *(*pager)(struct view *v);	/* for search; may be
						   NULL */
	/* The screen ends without the user (a signal, a lost terminal):
	 * save what was typed if closing the view would have saved it;
	 * returns 1 when it saved something.  May be NULL. */
	int (*hangup)(struct view *v);
	/* what a hangup that saved says it did: "the memo being typed is
	 * saved"; NULL for that default */
	const char *kept;
	/* The citation (core/study/evidence.h) of the pane's lines from..to (the
	 * pager's): 0, or -1 with `e` saying why those lines cannot be
	 * cited.  NULL: nothing here can be cited. */
	int (*cite)(struct view *v, size_t from, size_t to,
		    struct evidence_cite *c, struct err *e);
	/* The other way: the pager lines *from..*to showing citation c;
	 * 0 when this pane does not show them.  The fix pane shows another
	 * fix of the item when that one has them.  May be NULL. */
	int (*find)(struct view *v, const struct evidence_cite *c,
		    size_t *from, size_t *to);
	/* Without a line cursor or a search match in view: the pager lines
	 * *from..*to that `e` cites of what the pane shows (the fix pane:
	 * its first changed line in view), with `whole` the rest of their
	 * run too (`v`); 0 when there are none.  May be NULL. */
	int (*target)(struct view *v, int whole, size_t *from, size_t *to);
};

struct view {
	const struct view_ops *ops;
	struct screen *scr;
	WINDOW *win;
	int y, x, rows, cols;	/* where layout put it */
	int dirty;
	void *priv;		/* the view's own state */
	int opened;		/* a pane: open() ran (it runs again for
				   every item shown) */
	const void *arg;	/* what screen_push_with() was given (not
				   owned) */
};

enum screen_dirty {
	DIRTY_HEADER = 1 << 0,
	DIRTY_BAR = 1 << 1,
	DIRTY_STATUS = 1 << 2,
	DIRTY_PANES = 1 << 3,
	DIRTY_OVERLAY = 1 << 4,
	DIRTY_ALL = 0xff,
};

enum msg_kind { MSG_NONE, MSG_INFO, MSG_OK, MSG_ERR };

#define MAX_OVERLAYS 4
#define PANE_ISSUE 0
#define PANE_DIFF 1

/* Below this size only a "terminal too small" notice is drawn. */
#define SCREEN_MIN_ROWS 24
#define SCREEN_MIN_COLS 80
/* From this width the panes are side by side. */
#define SCREEN_SPLIT_COLS 100

/*
 * What the picker does with a pick: each screen that opens the picker
 * brings its own (screen_ops.pick_ops) - the annotator's saves the
 * actor's labels (view_code.c), the adjudicator's collects a final code
 * - and an overlay may take the picks over while it is open (the map
 * picker of view_proposals.c).  The functions return 0, or -1 after
 * saying why on the status line.
 */
struct pick_ops {
	/* is `code` shown as chosen for `dim`? */
	int (*has_code)(struct screen *scr, const char *dim,
			const char *code);
	/* a `select: one` pick (n == 1), or Del (n == 0; codes then holds
	 * one NULL) */
	int (*set_codes)(struct screen *scr, const struct dimension *dim,
			 const char *const *codes, size_t n);
	/* a `select: many` toggle */
	int (*toggle)(struct screen *scr, const struct dimension *dim,
		      const char *code);
	/* After a decision in dimension index `dim`: the dimension the
	 * picker moves on to, or -1 when it closes.  NULL: a pick closes
	 * the picker of a `select: one` dimension and keeps a `select:
	 * many` one open (a code's key toggles). */
	long (*next_dim)(struct screen *scr, size_t dim);
	/* Is a pick waiting for a busy study (kept pending)?  The picker
	 * then closes.  May be NULL. */
	int (*pending)(struct screen *scr);
	/* `+`: save the code proposed in the form (key, name, definition)
	 * for `dim`.  NULL: `+` proposes nothing here. */
	int (*propose)(struct screen *scr, const struct dimension *dim,
		       const char *key, const char *name,
		       const char *definition);
	int one_pick;		/* a pick is the whole decision and closes
				   the picker, in a `select: many`
				   dimension too (nothing toggles, Del and
				   Tab do nothing) */
	const char *pick_verb;	/* the picker's hint: "pick" */
};

/*
 * A screen is the frame (struct screen) and a `struct screen_ops`, as a
 * view is a struct view and its view_ops: the annotator's (view_code.c),
 * the adjudicator's (view_adjudicate.c), agreement on its own
 * (view_agree.c).  The frame owns the windows, the overlays, the layout,
 * the message and prompt lines, search, the one draw routine
 * (screen_draw) and the loop (screen_run); a screen brings its state
 * (scr->priv, allocated and freed by the frame), its panel under the
 * panes, its header's right side, its status hints and its keys.
 */
struct screen_ops {
	const char *name;
	enum keymap_id keymap;	/* its main keys: KEYMAP_MAIN, ... */
	size_t private_size;	/* scr->priv: allocated cleared by
				   screen_init(), freed by screen_fini()
				   after close() */
	const struct pick_ops *pick_ops;	/* the picker's; NULL: the
						   screen opens no picker */
	const char *help_intro;	/* the help's first paragraph, or NULL */
	int no_panes;		/* overlays only: no header, no panes, no
				   panel, the status line at the bottom */
	/* the height of the panel under the panes (scr->bar) */
	int (*panel_rows)(struct screen *scr);
	/* the header row (screen_draw_header), the panel, the status line
	 * (screen_draw_status); draw_header and draw_panel may be NULL */
	void (*draw_header)(struct screen *scr);
	void (*draw_panel)(struct screen *scr);
	void (*draw_status)(struct screen *scr);
	/* A key before the frame routes it (a prompt of the screen's own):
	 * 1 when it used it.  May be NULL. */
	int (*key)(struct screen *scr, int key);
	/* The screen's own actions, after the focused pane's: 1 when `a`
	 * was one (the rest are screen_action()'s).  May be NULL. */
	int (*action)(struct screen *scr, enum action a, int key);
	/* after every key the frame routed (may be NULL) */
	void (*after_key)(struct screen *scr);
	/* after idle_ms without a key (ui.h); may be NULL */
	void (*idle)(struct screen *scr);
	int idle_ms;
	/* the loop ended with `e` (a signal, a lost terminal); NULL:
	 * screen_hangup() */
	void (*hangup)(struct screen *scr, struct err *e);
	/* release what scr->priv holds (not priv itself); may be NULL */
	void (*close)(struct screen *scr);
};

struct screen {
	const struct screen_ops *ops;
	void *priv;		/* the screen's own state (ops) */
	struct store *st;
	const struct actor *actor;
	struct codebook cb;	/* the codebook; on an item being screened,
				   its screening question (core/study/screening) */
	struct item item;	/* the item shown */
	char *item_name;	/* owned, "owner/repo#N" */

	struct view panes[2];	/* PANE_ISSUE, PANE_DIFF */
	struct view *overlays[MAX_OVERLAYS];
	int nr_overlays;
	int focus;		/* PANE_ISSUE or PANE_DIFF */

	/* layout, from the terminal size */
	int rows, cols;
	int split;		/* panes side by side */
	int zoom;		/* the focused pane takes the whole width */
	int too_small;
	int area_y, area_rows;	/* the panes */
	int bar_y, bar_rows;	/* the panel under them */
	WINDOW *hdr, *bar, *status, *sep;

	unsigned dirty;
	struct buf msg;
	enum msg_kind msg_kind;
	int prompting;		/* the search prompt is open */
	struct edit prompt;
	struct buf last_search;	/* for n/N in a pane not searched yet */
	int picking;		/* dimension the picker shows, or -1 */
	const struct pick_ops *pick_ops;	/* ops->pick_ops, or another
						   overlay's while it is open */
	struct ui_client client;	/* the loop's (screen_run) */
	int started;		/* the terminal is set up */
	int quit;
};

#define NOT_QUEUED ((size_t)-1)

/* The pane views and overlays (one file each). */
extern const struct view_ops issue_view_ops;
extern const struct view_ops diff_view_ops;
extern const struct view_ops picker_view_ops;
extern const struct view_ops form_view_ops;
/*
 * The text view (view_help.c): a read-only overlay that scrolls and
 * searches like a pane, its text rendered by `render` at every width.
 * q, Esc and `close_action` (ACT_NONE: none more) close it.
 */
struct text_spec {
	const char *title;
	void (*render)(struct doc *d, struct screen *scr, int width);
	int max_cols;		/* 0: the whole width */
	enum action close_action;
};

/* Open the text view of `spec` (which must outlive it); NULL on
 * failure. */
struct view *screen_open_text(struct screen *scr,
			      const struct text_spec *spec);
/* The keys in force, and the codebook with every definition. */
void screen_open_help(struct screen *scr);
void screen_open_codebook(struct screen *scr);
/* Is v the codebook's text view (which shows codes of scr->cb)? */
int screen_is_codebook(const struct view *v);
/* The agreement overlay (view_agree.c), the frame's `A`: open it with
 * screen_push_with() on a round's name (NULL: every round; copied). */
extern const struct view_ops agree_view_ops;
extern const struct view_ops proposals_view_ops;	/* view_proposals.c */

/* Open an overlay on top of the others, its state (ops->priv_size)
 * allocated cleared.  Returns the view or NULL (open() failed, or too
 * many overlays). */
struct view *screen_push(struct screen *scr, const struct view_ops *ops);
/* The same, handing open() `arg` (v->arg, not owned: what open() copies
 * need not outlive the call; a view that reads it later needs it to
 * outlive the view). */
struct view *screen_push_with(struct screen *scr, const struct view_ops *ops,
			      const void *arg);
/* Close the topmost overlay: its close(), then its window and its state
 * are freed. */
void screen_pop(struct screen *scr);
/* The frame overlays use: the pane area with a margin. */
void screen_overlay_box(struct screen *scr, struct view *v, int max_rows,
			int max_cols);
/* (Re)create v->win at v->y, v->x, v->rows, v->cols. */
void screen_place(struct view *v);

/* Status line. */
void screen_msg(struct screen *scr, enum msg_kind kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Open the picker (view_picker.c) on dimension index `dim`, its picks
 * the screen's (scr->pick_ops); nothing on a screen without them. */
void screen_open_picker(struct screen *scr, size_t dim);
/* Show citation c in its pane, under the line cursor (the fix pane
 * showing the fix that has its lines); the pane gets the focus.  0, or
 * -1 when neither pane shows it. */
int screen_show_cite(struct screen *scr, const struct evidence_cite *c);
/* Run $EDITOR on `text` and return the edited text (owned) or NULL after
 * saying why on the status line. */
char *screen_run_editor(struct screen *scr, const char *text);

/* Open the proposed codes (view_proposals.c), for the owner and
 * adjudicators.  Each decision is saved at once; then `decided` (may be
 * NULL) is called so the screen can reload what it shows - with
 * `new_codebook` set after an accept, when scr->cb must be loaded again
 * (study_codebook) before anything draws from it.  Returns the view, or
 * NULL after saying why on the status line. */
struct view *screen_open_proposals(struct screen *scr,
				   void (*decided)(struct screen *scr,
						   int new_codebook));

/* Actions every view may fall back to. */
int screen_action(struct screen *scr, enum action a, int key);

/* `w` in pane `pane` (PANE_ISSUE or PANE_DIFF), whose pager is `pg`:
 * its long lines wrap, or scroll sideways again; the choice is kept for
 * the next sessions (tui/settings.h) and the status line says so. */
void screen_toggle_wrap(struct screen *scr, int pane, struct pager *pg);
/* The wrap a pane starts with: the user's setting. */
int screen_wrap_setting(int pane);

/* Append a hint for the status line to `out`: the key in force in keymap
 * `km` for action `a` (and, when `a2` is not ACT_NONE, "/" and its key),
 * then `what` - "s submit  ", "]/[ hunk  "; nothing when no key does
 * `a`, so the hints follow a keys file. */
void screen_hint(struct buf *out, enum keymap_id km, enum action a,
		 enum action a2, const char *what);

/*
 * The frame every screen shares (screen.c), for the screens built on it
 * (view_code.c, view_adjudicate.c, view_agree.c).
 */

/* Set scr up for a screen of `ops` on study `st` as actor `a`: cleared,
 * the panes (unless ops->no_panes), scr->priv allocated cleared
 * (ops->private_size).  Nothing is laid out until the loop runs. */
void screen_init(struct screen *scr, const struct screen_ops *ops,
		 struct store *st, const struct actor *a);
/* Set the terminal up (ui_start) and put a keys file's first bad line
 * on the status line.  0, or -1 with `e`. */
int screen_start(struct screen *scr, struct err *e);
/* Run the loop (screen_start() first when not started): 0 when the
 * screen quit, -1 when a signal or a lost terminal ended it, after
 * ops->hangup (else screen_hangup()) had its say in `e`. */
int screen_run(struct screen *scr, struct err *e);
/* Close the overlays and the panes, free the windows, restore the
 * terminal, ops->close() then free scr->priv, release the item, the
 * codebook and the status line. */
void screen_fini(struct screen *scr);
/* scr->item is new: the panes open (again) on it, laid out when the
 * screen is. */
void screen_open_panes(struct screen *scr);
/* How long the loop waits without a key before ops->idle. */
void screen_set_idle(struct screen *scr, int ms);

/* The topmost overlay, or NULL. */
struct view *screen_top(struct screen *scr);
/* Lay the frame out for scr->rows x scr->cols: the header row, the
 * panes, a panel of `panel_rows` rows under them (scr->bar), the status
 * line, and the overlays.  Sets too_small instead below the minimum. */
void screen_layout_frame(struct screen *scr, int panel_rows);
/* The same with the panel as high as ops->panel_rows says (after what
 * sets it changed); nothing before the loop has laid the screen out. */
void screen_relayout(struct screen *scr);
/* Draw the header row: the item's name and title on the left, `right`
 * (sanitized text) on the right. */
void screen_draw_header(struct screen *scr, const char *right);
/* The status line: the search prompt, else the message, else `hints`;
 * `pos` (may be NULL) at the right. */
void screen_draw_status(struct screen *scr, const char *hints,
			const char *pos);
/* Draw what is dirty, in one order: the header, the panes, the panel,
 * the status line, the overlays (all of them when anything under them
 * was drawn); below the minimum size, the "too small" notice alone. */
void screen_draw(struct screen *scr);
/* After the loop ended with `e` (a signal, a lost terminal): let the
 * open overlays save what was typed (the memo), and say so in `e`. */
void screen_hangup(struct screen *scr, struct err *e);

#endif
