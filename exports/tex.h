/* SPDX-License-Identifier: MIT */
/*
 * tex: text as LaTeX writes it, for the LaTeX report (exports/summary)
 * and the codebook as LaTeX (exports/codebook_out).
 */
#ifndef BUGCODER_TEX_H
#define BUGCODER_TEX_H

#include "core/base/buf.h"

/* Append `s` to `out` as LaTeX text: \, ~, ^, < and > as their text
 * commands, & % $ # _ { } behind a backslash, a line break a space. */
void tex_escape(struct buf *out, const char *s);

#endif
