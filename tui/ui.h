/* SPDX-License-Identifier: MIT */
/*
 * ui: the terminal's lifecycle and the one main loop.
 *
 * ui_start() sets the terminal up in a fixed order (locale, codeset,
 * newterm, cbreak/noecho/nonl/keypad, ESCDELAY unless the user set it,
 * colours unless NO_COLOR, stderr captured, signal flags, SIGPIPE
 * ignored) and ui_stop() undoes it in reverse; ui_stop() also runs from
 * atexit() and from die(), and a crash or abort() (SIGSEGV, SIGBUS,
 * SIGFPE, SIGILL, SIGABRT) restores the terminal and stderr before the
 * signal's own action (a core dump, a sanitizer's report) goes on, so
 * the terminal is restored whatever happens.
 *
 * ui_run() is the loop: the client draws what is dirty (wnoutrefresh
 * only), the loop calls doupdate() once, then blocks for a key.  A
 * KEY_RESIZE (repeats drained) re-lays the client out; SIGHUP, SIGTERM
 * and SIGINT end the loop; a terminal that is gone (read errors, EOF)
 * ends it too rather than spinning.
 *
 * Test mode: with BUGCODER_KEYS=FILE the keys come from a script of named
 * keys and commands (script.h), never from terminfo decoding; ":signal"
 * raises the signal for real, so the loop ends as a hangup would end it;
 * the loop ends when the script does.  With BUGCODER_NO_DISPLAY=1 the
 * screen is a newterm() on /dev/null (TERM, LINES and COLUMNS from the
 * environment), so no tty is needed.  Dumps go to $BUGCODER_DUMP_DIR
 * (default ".") as NAME and NAME.attr (dump.h has their format).
 *
 * Timing: with BUGCODER_BENCH=FILE, every key the loop takes (from the
 * script or the keyboard) is timed (keytime.h), and ui_stop() writes
 * FILE: one line per key, in order, "KEY<TAB>MICROSECONDS" - the key as
 * key scripts name it (keymap.h's keyname_of: "j", "<PgDn>", "<Tab>"),
 * the time with one decimal ("G\t84.5").  A key that ends the loop (q)
 * has no frame: its line times its handling.  Script commands
 * (:dump-screen) are not keys and are not timed; :resize is, as
 * <Resize>.
 */
#ifndef BUGCODER_TUI_UI_H
#define BUGCODER_TUI_UI_H

#include <stddef.h>

#include "core/base/buf.h"
#include "core/base/err.h"

struct ui_client {
	void *ctx;
	void (*layout)(void *ctx, int rows, int cols);	/* new size */
	void (*draw)(void *ctx);	/* draw what is dirty */
	void (*key)(void *ctx, int key);
	int (*done)(void *ctx);		/* leave the loop? */
	/* called after idle_ms without a key (0 or NULL: never), so the
	 * client can notice what other processes changed; marks dirty what
	 * it redraws */
	void (*idle)(void *ctx);
	int idle_ms;
};

/* Set the terminal up.  Returns 0, or -1 with `e` filled (no terminal,
 * unknown TERM, a bad key script); nothing is left changed on failure. */
int ui_start(struct err *e);
/* Restore the terminal.  Safe to call twice, and when not started. */
void ui_stop(void);
/* After ui_start(): the first bad line of the user's keys file (see
 * keymap.h), with how many more there are, appended to out; NULL when
 * the file had none. */
const char *ui_keys_warning(struct buf *out);
/* Run the loop until the client is done (0), or a signal or a lost
 * terminal ends it (-1, ERR_INTERRUPTED or ERR_IO). */
int ui_run(const struct ui_client *c, struct err *e);

/* Leave curses, run $VISUAL or $EDITOR (default vi) on `path`, come
 * back.  Returns 0, or -1 with `e` when the editor failed. */
int ui_edit_file(const char *path, struct err *e);

/* The text of the last TK_PASTE key: UTF-8, line ends as '\n', no
 * control characters but '\n' and '\t'; `len` may be NULL. */
const char *ui_paste(size_t *len);

/* Are keys coming from a script (BUGCODER_KEYS)? */
int ui_scripted(void);

/* Write the screen as text rows to `path` and attributes to
 * `path`.attr.  Returns 0 or -1 (errno set). */
int ui_dump_screen(const char *path);

/* Can terminal type `term` (NULL: unset) draw the screen?  0, or -1
 * with `e` saying why not and what to set: unset, TERM=dumb, no terminfo
 * entry, a hardcopy terminal, no cursor addressing.  The screen refuses
 * to start for the same reasons, and `doctor` reports them.  Touches no
 * terminal. */
int ui_term_check(const char *term, struct err *e);

/* Restore the terminal, print "bugcoder: <msg>" and exit(1). */
void die(const char *fmt, ...)
	__attribute__((noreturn, format(printf, 1, 2)));

#endif
