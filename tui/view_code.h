/* SPDX-License-Identifier: MIT */
/*
 * view_code: the annotator's screen, for the overlays only it opens -
 * the memo editor (view_memo.c) and the citations (view_citations.c) -
 * which show and change the actor's own work on the item.  The picker,
 * which other screens open too, reaches the annotator's saving through
 * the screen's pick_ops instead (view_code_save.c).
 */
#ifndef BUGCODER_TUI_VIEW_CODE_H
#define BUGCODER_TUI_VIEW_CODE_H

#include "core/study/label.h"
#include "tui/screen.h"

/* The actor's own work on the item shown; NULL on another screen. */
const struct coding *code_coding(struct screen *scr);
/* Save the actor's memo on the item (one transaction through
 * core/study/label.h), reload the coding and say on the status line what
 * was saved (or why not).  0 or -1. */
int code_save_memo(struct screen *scr, const char *text);
/* Remove the actor's citation `id` of the item shown (one transaction,
 * audited); says so on the status line.  0 or -1. */
int code_remove_citation(struct screen *scr, long long id);

/* The overlay that lists the actor's citations of the item (E). */
extern const struct view_ops citations_view_ops;
/* The memo editor (view_memo.c). */
extern const struct view_ops memo_view_ops;
/* Open the memo editor on the actor's memo, or on `text` (NULL: the
 * saved memo; copied) the study refused. */
void code_open_memo(struct screen *scr, const char *text);

#endif
