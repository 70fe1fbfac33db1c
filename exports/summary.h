/*
 * summary: the agreed data summarised the way bug studies present it
 * (`bugcoder report`; the agreement statistics are agree_report.h's).
 *
 * Over the items whose every dimension is agreed or adjudicated (the rows
 * of the default export; pending items are counted, not used):
 *  - per dimension, the number and share of items with each code.  For a
 *    select-many dimension an item counts once under each of its codes,
 *    so shares are "of items" and may add up to more than 100%; "(none)"
 *    counts items agreed to have no code (optional dimensions);
 *  - a cross table of two dimensions (by default the codebook's first
 *    two: symptom x root cause), items per pair of codes; an item with
 *    several codes counts in every pair; codes no item has are left out;
 *  - effort: the share of fixes changing at most 10 lines (of the items
 *    whose fix size is known), the median days open and the median
 *    number of comments;
 * overall and per repository.
 *
 * As plain text with bar charts (Unicode eighth blocks when `unicode`,
 * '#' otherwise; the caller decides from the locale and the terminal),
 * or as Markdown tables.  Codebook strings are made terminal-safe
 * (core/text) in either form; keys and repository names are restricted
 * to safe characters already.
 */
#ifndef BUGCODER_SUMMARY_H
#define BUGCODER_SUMMARY_H

#include "core/buf.h"
#include "core/codebook.h"
#include "core/err.h"
#include "core/member.h"
#include "core/store.h"

enum summary_format {
	SUMMARY_TEXT,
	SUMMARY_MARKDOWN,
};

struct summary_opts {
	enum summary_format format;
	int unicode;		/* text: bars of Unicode blocks */
	const char *round;	/* only this round's items, or NULL */
	const char *cross[2];	/* dimension keys, or NULL for the first two */
};

#define SUMMARY_OPTS_INIT { SUMMARY_TEXT, 0, NULL, { NULL, NULL } }

/* Append the summary of the agreed data `a` may see (agreed.h's rule) to
 * `out`.  Returns 0, or -1 with `e` filled: ERR_INPUT for an unknown
 * --cross dimension, ERR_NOTFOUND for an unknown round, ERR_PERM, ERR_DB.
 * On failure `out` may hold part of the summary. */
int summary_write(struct store *st, const struct actor *a,
		 const struct codebook *cb, const struct summary_opts *o,
		 struct buf *out, struct err *e);

#endif
