/* SPDX-License-Identifier: MIT */
/*
 * codebook_out: the codebook for a paper's appendix (`codebook show
 * --format markdown|latex|json`).
 *
 * Every dimension (key, name, question, select, required) and every code
 * with its key, name, group, whether it is marked distributed, the
 * definition, include and exclude rules and the examples.  Markdown
 * writes a section per dimension and a table of its codes; LaTeX a
 * fragment for \input (a subsection and a description list per
 * dimension, every special character escaped); JSON one object:
 * {"name", "version", "title", "description", "dimensions": [{"key",
 * "name", "question", "select", "required", "codes": [{"key", "name",
 * "group", "distributed", "definition", "include", "exclude",
 * "examples"}]}]}, absent strings as null.  Markdown and LaTeX text is
 * made single-line and terminal-safe (core/base/text); JSON carries it as
 * stored.
 */
#ifndef BUGCODER_CODEBOOK_OUT_H
#define BUGCODER_CODEBOOK_OUT_H

#include "core/base/buf.h"
#include "core/study/codebook.h"

enum codebook_format {
	CODEBOOK_MARKDOWN,
	CODEBOOK_LATEX,
	CODEBOOK_JSON,
};

/* Append codebook `cb` in `fmt` to `out`. */
void codebook_write(const struct codebook *cb, enum codebook_format fmt,
		    struct buf *out);

#endif
