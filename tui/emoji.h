/* SPDX-License-Identifier: MIT */
/*
 * emoji: GitHub's emoji shortcodes (":warning:", ":+1:") and the
 * characters they stand for.
 *
 * The table holds the shortcodes people put in bug reports (a few
 * hundred of GitHub's ~1,800; the rest stay as text), each with a single
 * code point, so that its width is what the one width function says
 * (no variation selectors, no joined sequences).
 */
#ifndef BUGCODER_TUI_EMOJI_H
#define BUGCODER_TUI_EMOJI_H

#include <stddef.h>
#include <stdint.h>

/* The code point of shortcode name[0..len) (without its colons), or 0
 * when the table does not have it. */
uint32_t emoji_lookup(const char *name, size_t len);

#endif
