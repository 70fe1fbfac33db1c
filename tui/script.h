/* SPDX-License-Identifier: MIT */
/*
 * script: key scripts, what tests and benchmarks type instead of a
 * person (BUGCODER_KEYS=FILE).
 *
 * A script is lines: '#' comments and blank lines are ignored; a line of
 * keys is characters or names such as <Down> <C-x> (keymap.h's
 * key_parse()); a line starting with ':' is a command - ":dump-screen
 * NAME" (ui.h's screen dump), ":resize ROWS COLS", ":paste TEXT" (with
 * \n \t \r \e \\ escapes, as a terminal's bracketed paste sends it),
 * ":signal HUP|TERM|INT", ":run COMMAND" (a shell command run to its
 * end, as another process changing the study while the screen is open,
 * after which the loop goes idle once, as if the user paused) and
 * ":exec COMMAND" (the same with no pause, the change coming between
 * two keys).  The loop in ui.c plays the events.
 */
#ifndef BUGCODER_TUI_SCRIPT_H
#define BUGCODER_TUI_SCRIPT_H

#include <stddef.h>

#include "core/base/err.h"

enum ev_type { EV_KEY, EV_DUMP, EV_RESIZE, EV_SIGNAL, EV_PASTE, EV_RUN };

struct event {
	enum ev_type type;
	int key;		/* EV_KEY; the signal for EV_SIGNAL; for
				   EV_RUN, 1 when no pause follows */
	int rows, cols;
	char *name;		/* EV_DUMP, EV_PASTE (the text), EV_RUN (the
				   command), owned */
};

struct script {
	struct event *v;
	size_t nr, alloc, pos;
};

/* Read the script at `path` into s (which must be empty).  Returns 0, or
 * -1 with `e` naming the file and line at fault (s left empty). */
int script_load(struct script *s, const char *path, struct err *e);
/* Free the events; s is empty again. */
void script_release(struct script *s);

#endif
