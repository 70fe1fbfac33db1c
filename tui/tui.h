/* SPDX-License-Identifier: MIT */
/*
 * tui: the terminal screens of bugcoder, as the command line calls them.
 *
 * tui_code() is the annotator's screen: the issue and its fix side by
 * side, the coding bar, the picker, memo and flags, every change saved at
 * once through core/study/label.h.  tui_adjudicate() is the adjudicator's: the
 * same panes over a resolution panel, every resolution saved at once
 * through core/study/adjudicate.h, and (P) the proposed codes, each accepted or
 * mapped at once through core/study/evolve.h; the annotator's screen has no such
 * view.  tui_agree() is the agreement view alone.
 * None of them exits the process, and all restore the terminal before
 * returning.
 *
 * Test hooks (environment, read at start): BUGCODER_KEYS=FILE feeds a key
 * script instead of the keyboard (see tui/ui.h for its format) and the
 * screen closes when the script ends; BUGCODER_NO_DISPLAY=1 draws on a
 * virtual screen (newterm on /dev/null, TERM/LINES/COLUMNS from the
 * environment) so no terminal is needed; BUGCODER_DUMP_DIR is where
 * `:dump-screen NAME` writes; BUGCODER_BENCH=FILE times every key (see
 * tui/ui.h); BUGCODER_KEY_GAPS=S,S,... gives the annotator's screen the
 * seconds between keys for the time an item took (drift) instead of the
 * monotonic clock.
 */
#ifndef BUGCODER_TUI_H
#define BUGCODER_TUI_H

#include "core/base/err.h"
#include "core/study/member.h"
#include "core/store/store.h"

/* Open the annotator's screen for actor `a` at `item_name` (NULL: the
 * first item of the actor's queue not submitted yet).  Returns 0 when the
 * user quits (or the key script ends), or -1 with `e` filled: no such
 * item, nothing to code, not an annotator, no terminal, or the screen
 * stopped by a signal or a lost terminal (ERR_INTERRUPTED / ERR_IO; all
 * saved work is kept then too). */
int tui_code(struct store *st, const struct actor *a, const char *item_name,
	     struct err *e);

/* Open the adjudicator's screen (owner or adjudicator) at `item_name`
 * (NULL: the oldest item of the adjudication queue).  Returns 0 when the
 * user quits, or -1 with `e` filled: an annotator (ERR_PERM), no such
 * item, nothing to adjudicate (ERR_NOTFOUND), no terminal, a signal or a
 * lost terminal (every saved resolution is kept). */
int tui_adjudicate(struct store *st, const struct actor *a,
		   const char *item_name, struct err *e);

/* Open the agreement view as a screen of its own, at round `round` (NULL:
 * the whole study, or for an annotator the last closed round).  Returns
 * 0 when the user quits, or -1 with `e` filled (no such round, no
 * terminal, a signal). */
int tui_agree(struct store *st, const struct actor *a, const char *round,
	      struct err *e);

#endif
