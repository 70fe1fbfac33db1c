/* SPDX-License-Identifier: MIT */
/*
 * settings: what a user chose for the screens, kept between sessions.
 *
 * A setting is a line `set NAME VALUE`, in the keys file (keymap.h: the
 * user's own defaults, written by hand) or in the settings file beside
 * it ($XDG_CONFIG_HOME/bugcoder/settings, or
 * ~/.config/bugcoder/settings), which the screens write when the user
 * changes a setting with a key, so that the choice is there the next
 * time.  The settings file is read after the keys file and wins.
 *
 *	set wrap-issue on|off	long code lines of the issue pane wrap
 *	set wrap-fix on|off	long lines of the fix pane (the diff) wrap
 *
 * Both are off unless set.  Limitations: one process writes the file at a
 * time as far as it knows; two screens open at once each write what they
 * hold, and the last one written is what the next session reads.
 */
#ifndef BUGCODER_TUI_SETTINGS_H
#define BUGCODER_TUI_SETTINGS_H

#include "core/base/buf.h"

enum setting {
	SET_WRAP_ISSUE,
	SET_WRAP_FIX,
	NR_SETTINGS
};

/* The value of `s` (0 or 1). */
int settings_get(enum setting s);
/* Back to the built-in defaults. */
void settings_reset(void);

/* One `set` line's words: the setting named `name` takes `value`.  NULL
 * when that is good, else what is wrong (written into `why`). */
const char *settings_set_words(const char *name, const char *value,
			       char why[160]);

/* Read the settings file (NULL: the default path above).  A missing file
 * is no error.  Every bad line is left out and described in `warn`
 * ("FILE:LINE: what is wrong", one a line); returns how many there were,
 * or -1 when the file exists but cannot be read (said in `warn`). */
int settings_load(const char *path, struct buf *warn);

/* Set `s` to `value` and remember it: the settings file is written
 * again (directories made as needed, the file replaced in one step).
 * 0, or -1 with why not in `err` (the value is set either way). */
int settings_remember(enum setting s, int value, struct buf *err);

#endif
