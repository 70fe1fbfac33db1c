/* SPDX-License-Identifier: MIT */
/*
 * label_line: one line of `label --from FILE`, the words of `label` one
 * item a line:
 *
 *	ITEM DIM=CODE[,CODE] ... [--submit]
 *
 * Words are separated by spaces, tabs and a CR; a line whose first word
 * starts with '#' is a comment (unless that word is #N, an item named by
 * its number), a line of no words is blank.  DIM= with
 * no code clears the dimension.  Only the shape is checked here (the
 * item, dimensions and codes are the study's to check); a line is read
 * from memory, so a NUL byte in it is refused rather than ending it.
 */
#ifndef BUGCODER_LABEL_LINE_H
#define BUGCODER_LABEL_LINE_H

#include <stddef.h>

#include "core/base/err.h"

/* The most words a line may have. */
#define LABEL_LINE_MAX_WORDS 256

struct label_line_dim {
	char *dim;		/* owned, not empty */
	char **codes;		/* owned, each owned and not empty */
	size_t nr;		/* 0: clear the dimension */
};

struct label_line {
	char *item;		/* owned; NULL for a blank or comment line */
	struct label_line_dim *dims;	/* owned */
	size_t nr_dims;
	int submit;		/* --submit was given */
};

#define LABEL_LINE_INIT { NULL, NULL, 0, 0 }

/* Parse line[0..len) (no line end in it; a CR at its end is a blank)
 * into *out, which is released first.  Returns 1 for an item's line, 0
 * for a blank or comment line (*out empty), or -1 with ERR_INPUT saying
 * what is wrong (without the file and line: the caller prefixes them
 * with err_prefix()) and *out empty. */
int label_line_parse(const char *line, size_t len, struct label_line *out,
		     struct err *e);
void label_line_release(struct label_line *l);

#endif
