/* SPDX-License-Identifier: MIT */
/*
 * view_diff_int: what the files of the fix pane share - its state, and
 * the calls between them (view_diff.c: what is above the diff, layout,
 * drawing, keys; _lines.c: the diff's lines as the pager reads them;
 * _cite.c: citations).  Nothing here is for other views.
 */
#ifndef BUGCODER_TUI_VIEW_DIFF_INT_H
#define BUGCODER_TUI_VIEW_DIFF_INT_H

#include <stddef.h>

#include "core/base/buf.h"
#include "core/base/diff.h"
#include "core/base/err.h"
#include "core/study/item.h"
#include "tui/doc.h"
#include "tui/markdown.h"
#include "tui/pager.h"

struct evidence_cite;
struct view;

/* The marks of a changed line, kept for the lines last drawn. */
struct intra {
	size_t line1;		/* 1 + its diff line; 0: empty */
	struct span *spans;
	size_t nr, alloc;
};

#define INTRA_CACHE 128
#define PAIR_SCAN 64		/* longest run of -/+ lines paired */
#define INTRA_MAX 8192		/* longest line (bytes) marked */
#define NO_LINE ((size_t)-1)

struct diff_pane {
	size_t fix;		/* shown fix, index into item.fixes */
	struct diff d;		/* its parse */
	struct doc pre;		/* lines above the diff, per width */
	struct md_sections sec;	/* the <details> of its description */
	int width;		/* pre rendered for; 0 = not yet */
	struct pager pg;
	struct buf line;	/* the sanitized line last asked for */
	const struct item *it;
	struct store *st;
	struct diff_source src;	/* the shown fix's diff */
	struct intra intra[INTRA_CACHE];
	struct buf ia, ib;	/* scratch: a pair's sanitized lines */
	struct diff_ranges ra, rb;
	size_t seq;		/* 1 + the diff line dp_rows() read last */
	struct diff_line seq_line;	/* that line */
};

/* view_diff.c */

/* Show fix number `fix` from its top. */
void dp_show_fix(struct diff_pane *dp, size_t fix);
/* The pane's layout (view_ops.layout). */
void dp_layout(struct view *v);

/* view_diff_lines.c */

/* The pager's source: what is above the diff, then its lines. */
extern const struct pager_src dp_src;
/* The fix shown, or NULL. */
const struct fix *dp_cur_fix(const struct diff_pane *dp);
/* The kind of diff line i (DIFF_ADD, DIFF_DEL ...; DIFF_OTHER past
 * the end). */
int dp_kind_at(const struct diff_pane *dp, size_t i);
/* The raw bytes of diff line `l`, at most `max` of them; "" when it
 * cannot be read. */
const char *dp_line_text(struct diff_pane *dp, const struct diff_line *l,
			 size_t max, size_t *len);
/* The line paired with removed or added line i (of kind `kind`), or
 * NO_LINE. */
size_t dp_partner(const struct diff_pane *dp, size_t i, int kind);
/* Sanitize diff line i whole into out; -1 when it is longer than
 * INTRA_MAX bytes. */
int dp_whole_line(struct diff_pane *dp, size_t i, struct buf *out);
/* The change marks of diff line i (of kind `kind`): spans into its
 * sanitized text, none when it pairs with no line or is too long. */
const struct intra *dp_intra_of(struct diff_pane *dp, size_t i, int kind);
/* Forget the change marks kept (another fix is shown). */
void dp_intra_forget(struct diff_pane *dp);

/* view_diff_cite.c */

/* view_ops.cite, .find and .target of the fix pane. */
int dp_cite(struct view *v, size_t from, size_t to, struct evidence_cite *c,
	    struct err *e);
int dp_find(struct view *v, const struct evidence_cite *c, size_t *from,
	    size_t *to);
int dp_target(struct view *v, int whole, size_t *from, size_t *to);

#endif
