/* SPDX-License-Identifier: MIT */
/*
 * view_adjudicate: what the files of the adjudicator's screen share -
 * its state, and the calls between them (view_adjudicate.c: the screen,
 * its queue, saving, the memos; _coders.c: the coders and their codes;
 * _panel.c: the resolution panel; _dialog.c: the rationale dialog).
 * Nothing here is for other screens.
 */
#ifndef BUGCODER_TUI_VIEW_ADJUDICATE_H
#define BUGCODER_TUI_VIEW_ADJUDICATE_H

#include <stddef.h>

#include "core/study/adjudicate.h"
#include "core/base/buf.h"
#include "tui/screen.h"

/* The adjudicator's screen's own state (scr->priv, allocated and freed
 * by the frame). */
struct adj {
	struct screen *scr;	/* whose state this is */
	long long *queue;	/* adjudicate_queue(), oldest first */
	unsigned char *done;	/* per entry: needs nothing more now */
	size_t nr_queue, nr_left;
	size_t pos;		/* of the item shown, or NOT_QUEUED */
	struct item_state is;	/* of the item shown */
	size_t *shown;		/* coder indexes in screen order */
	int blind;
	size_t sel;		/* selected dimension */
	size_t top;		/* first dimension row of the panel */
	/* the picker's choice, waiting for its rationale */
	int pick_dim;		/* dimension index, or -1 */
	char **pick;
	size_t nr_pick;
	int pick_ready;		/* picked (select one) or toggled (many) */
	int picker_open;	/* the picker was opened by c */
	int advance;		/* saved: move on if the item is done */
	struct buf saved;	/* what the last save did, in short */
	size_t nr_proposals;	/* open proposed codes, for the header */
	size_t ev_next;		/* the evidence `e` shows next, of ... */
	size_t ev_dim;		/* ... this dimension */
};

#define ADJ(s) ((struct adj *)(s)->priv)

/* view_adjudicate_coders.c */

/* "Coder N" for the n-th coder shown (or the name, blinding off). */
void adj_coder_label(const struct adj *adj, size_t n, struct buf *out);
/* The n-th coder's coding of dimension `dim` (NULL: none). */
const struct coded_dim *adj_coder_dim(const struct adj *adj, size_t n,
				      const char *dim);
/* A coded dimension's codes, joined by ", ", appended to out. */
void adj_codes_of(const struct coded_dim *cd, struct buf *out);
/* Put the coders in the order the item shows them. */
void adj_set_order(struct adj *adj);
/* The first dimension after `after` (going round) where the coders
 * disagree; `after` itself (or 0) when there is none. */
size_t adj_first_disagreement(const struct adj *adj, size_t after);

/* view_adjudicate.c */

/* Save the resolution of dimension d (codes[0..n)) with its rationale,
 * cause and where the code came from ("Coder 1's code" ...); 0, or -1
 * after saying why on the status line. */
int adj_save_resolution(struct adj *adj, size_t d, char **codes, size_t n,
			const char *rationale, const char *cause,
			const char *source);
/* Settle the item's discussion with an optional note; 0 or -1. */
int adj_save_settle(struct adj *adj, const char *note);

/* view_adjudicate_dialog.c */

extern const struct view_ops adj_dialog_view_ops;
/* Ask for the rationale of codes[0..n) for dimension d, taken from
 * `source` ("Coder 1's code" ...). */
void adj_ask_rationale(struct adj *adj, size_t d, const char *const *codes,
		       size_t n, const char *source);
/* Ask for the note that settles the item's discussion. */
void adj_ask_settle(struct adj *adj);

/* view_adjudicate_evidence.c */

/* The coders' evidence with its quotes, for the text view. */
void adj_evidence_render(struct doc *d, struct screen *scr, int width);
/* Show the next citation of the selected dimension (going round) in its
 * pane, under the line cursor, and say whose it is. */
void adj_next_evidence(struct adj *adj);

/* view_adjudicate_panel.c */

/* The resolution panel under the panes (screen_ops.draw_panel). */
void adj_draw_panel(struct screen *scr);

#endif
