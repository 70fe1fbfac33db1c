/* SPDX-License-Identifier: MIT */
/*
 * view_code_int: what the files of the annotator's screen share - its
 * state, and the calls between them (view_code.c: the screen, its items
 * and keys, the time on an item; _save.c: saving, and a pick kept
 * pending; _cite.c: evidence; _bar.c: the header, the coding bar and the
 * status line).  Nothing here is for other screens (view_code.h is).
 */
#ifndef BUGCODER_TUI_VIEW_CODE_INT_H
#define BUGCODER_TUI_VIEW_CODE_INT_H

#include <stddef.h>

#include "core/base/buf.h"
#include "core/base/err.h"
#include "core/study/codebook.h"
#include "core/study/label.h"
#include "tui/screen.h"

struct evidence_cite;
struct pending_pick;

/*
 * Busy, not frozen.  A save waits only PICK_BUSY_MS for another writer (a
 * long import, say); then the pick is kept as pending (view_code_save.c)
 * and retried every PENDING_RETRY_MS while no key comes; without one
 * pending, the screen looks for changes made elsewhere every IDLE_MS.
 */
#define PICK_BUSY_MS 300
#define PENDING_RETRY_MS 250
#define IDLE_MS 2000

/* The annotator's screen's own state (scr->priv; the frame holds the
 * item, its name and the codebook). */
struct code_state {
	struct codebook study_cb;	/* the study's codebook while scr->cb
					   is a screening question (else
					   empty) */
	char **recode_was;	/* per dimension of cb: the split code the
				   actor is to recode there, or NULL */
	struct queue q;
	size_t qpos;		/* index in q, or NOT_QUEUED */
	struct coding coding;	/* the actor's own work on the item */
	double item_secs;	/* work on the item not yet saved (drift) */
	double last_key;	/* the clock at the last key; < 0: none */
	const char *key_gaps;	/* test clock (BUGCODER_KEY_GAPS); NULL: real */
	double fake_now;	/* that clock's time */
	unsigned long long ev_dims;	/* bit i: dimension i (of the first
					   64) has the actor's evidence */
	struct evidence_cite *citing;	/* lines waiting for `e`'s dimension
					   key (owned); NULL: none */
	int last_dim;		/* the dimension last coded on the item,
				   which `e e` cites for; -1: none yet */
	char *drop_dim;		/* a dimension just cleared whose
				   citations the next key drops (y) or
				   keeps (owned); NULL: none asked */
	size_t drop_nr;		/* ... how many there are */
	int cb_stale;		/* a save met a newer codebook version
				   (loaded again once the key is handled) */
	struct pending_pick *pending;	/* a pick that met a busy study,
					   retried while idle; owned */
};

/* view_code.c */

/* Read the actor's coding of the item again (with which dimensions have
 * the actor's evidence and which await a recode); marks the header, the
 * bar and the status line dirty. */
void code_reload_coding(struct screen *scr);

/* view_code_save.c */

/* The picker's picks on this screen: they save the actor's labels. */
extern const struct pick_ops code_pick_ops;
/* Say why a save failed ("what: why"); a newer codebook version met is
 * loaded again once the key is handled. */
void code_save_failed(struct screen *scr, const struct err *e,
		      const char *what);
/* Set flag `flag` ("uncertain", "discuss") on or off, and say so. */
void code_toggle_flag(struct screen *scr, const char *flag, int on);
/* The pending pick: "ITEM DIM = CODES" appended to b. */
void code_pending_text(const struct pending_pick *p, struct buf *b);
/* Drop the pending pick (not saved). */
void code_pending_drop(struct screen *scr);
/* Free a pending pick (NULL: nothing). */
void code_pending_free(struct pending_pick *p);
/* Try the pending pick again: 1 saved (or given up, said why, or none
 * pending), 0 still busy. */
int code_pending_retry(struct screen *scr);

/* view_code_cite.c */

/* The focused pane's pager, or NULL. */
struct pager *code_focus_pager(struct screen *scr);
/* Both panes are to be drawn again. */
void code_panes_dirty(struct screen *scr);
/* Forget the lines waiting for `e`'s dimension key. */
void code_cite_drop(struct screen *scr);
/* `e`: cite the lines under the cursor (or a search match, or what the
 * pane offers); the next key names the dimension (code_cite_key). */
void code_cite_begin(struct screen *scr);
/* The key after `e`: the dimension to cite the lines for. */
void code_cite_key(struct screen *scr, int key);
/* `v`: a range at the line cursor, or the lines `e` would cite. */
void code_mark_range(struct screen *scr);
/* A dimension was cleared: when it has citations, ask whether they go
 * too (the next key answers: code_drop_key). */
void code_ask_drop(struct screen *scr, const char *dim);
/* The answer: y drops the citations, any other key keeps them. */
void code_drop_key(struct screen *scr, int key);

/* view_code_bar.c */

/* The coding bar's height: the codebook's alone. */
int code_bar_rows(struct screen *scr);
/* The header, the coding bar and the status line (screen_ops). */
void code_draw_header(struct screen *scr);
void code_draw_bar(struct screen *scr);
void code_draw_status(struct screen *scr);

#endif
