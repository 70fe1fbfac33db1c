/* SPDX-License-Identifier: MIT */
/*
 * view_agree_int: what the files of the agreement view share - its state
 * (the scopes computed, the selection, the detail), and the calls between
 * them (view_agree.c: the table, the keys, the screen of its own;
 * _detail.c: the detail).  Nothing here is for other views.
 */
#ifndef BUGCODER_TUI_VIEW_AGREE_INT_H
#define BUGCODER_TUI_VIEW_AGREE_INT_H

#include <stddef.h>

#include "core/base/buf.h"
#include "core/study/agreement.h"
#include "core/study/codebook.h"
#include "core/study/drift.h"
#include "core/study/gate.h"
#include "core/study/headline.h"
#include "tui/doc.h"
#include "tui/pager.h"

struct scope {
	char *round;		/* NULL: the whole study */
	int ok;			/* computed; else `why` says why not */
	int denied;		/* not for this actor (blinding) */
	char *why;
	struct agreement ag;
	struct headline sum;	/* what is reported, per dimension */
};

struct agree_view {
	struct scope *sc;	/* the rounds in creation order, then the
				   whole study */
	size_t nr_sc;
	size_t dim;		/* selected dimension (codebook index) */
	size_t cur;		/* the scope shown */
	size_t top_dim;		/* first dimension row shown */
	struct doc doc;		/* the detail */
	int width;		/* the detail is rendered for this width, */
	size_t doc_dim, doc_cur;	/* dimension and scope */
	struct pager pg;
	int table_rows;		/* dimension rows shown */
	int det_y, det_rows;	/* the detail's place in the window */
	struct round_gate *gates;	/* the rounds' calibration gates */
	size_t nr_gates;
	struct drift drift;	/* the owner's: coder drift */
	int has_drift;
};


/* view_agree.c */

/* Dimension d of scope sc, or NULL when the scope was not computed. */
const struct agreement_dim *agree_scope_dim(const struct scope *sc,
					    size_t d);
/* "whole study" or "round NAME" (sanitized), appended to out. */
void agree_scope_label(const struct scope *sc, struct buf *out);

/* view_agree_detail.c */

/* Render the detail of the selected dimension (av->dim) in the scope
 * shown (av->cur) into av->doc at `width` columns. */
void agree_detail_render(struct agree_view *av, const struct codebook *cb,
			 int width);

#endif
