/* SPDX-License-Identifier: MIT */
/*
 * keytime: the time every key takes, for benchmarks (BUGCODER_BENCH=FILE):
 * from the moment the loop takes a key (from a script or the keyboard)
 * to the end of the doupdate() of its frame, on CLOCK_MONOTONIC.
 */
#ifndef BUGCODER_TUI_KEYTIME_H
#define BUGCODER_TUI_KEYTIME_H

/* Time the keys from now on, for `path` (NULL: do not). */
void keytime_begin(const char *path);
/* A key is taken. */
void keytime_start(int key);
/* The frame of the key being timed is on the terminal (or the loop
 * ended without one). */
void keytime_stop(void);
/* Write "KEY<TAB>MICROSECONDS" per key to the file and forget them. */
void keytime_write(void);

#endif
