/* SPDX-License-Identifier: MIT */
/*
 * dump: the screen as text and attributes, for the screen tests
 * (":dump-screen NAME" in a key script).
 *
 * The text file holds one line per screen row, trailing blanks cut, line
 * drawing written as the Unicode box characters a terminal shows.  The
 * `.attr` file beside it holds one letter per cell for its attributes
 * (r reverse, b bold, u underline, d dim, upper case when combined with
 * another, '.' none), then "colour cells: N", then (when N > 0) the same
 * rows naming each cell's colour by the theme slot it belongs to
 * (draw.c's dump characters, '.' for none).
 */
#ifndef BUGCODER_TUI_DUMP_H
#define BUGCODER_TUI_DUMP_H

/* Write the current screen (curses must be running) to `path` and
 * `path`.attr.  Returns 0 or -1 (errno set). */
int dump_screen(const char *path);

#endif
