/* SPDX-License-Identifier: MIT */
/*
 * rawlabels: every label of the study, one row per chosen code, in
 * (item, member, dimension, code) order, with what a reader needs to
 * decide who may see it (core/study/access) - in one ordered pass.
 *
 * The labels are read through their primary key in one scan; the rest
 * is read once before it and looked up per row: item names from the
 * items' (repo, number) index, rounds and assignments, which items are
 * decided (a resolution or a settlement), the members' names; the
 * submissions walk forward in step with the labels.  So `export --raw`
 * of a million labels costs a few scans, not several queries a row.
 *
 * It decides nothing: the caller asks core/study/access, row by row, whether
 * and how the actor may see each row (access_rule(),
 * access_names_coders()).  The pass runs inside one read transaction (a
 * savepoint): one consistent snapshot.
 */
#ifndef BUGCODER_RAWLABELS_H
#define BUGCODER_RAWLABELS_H

#include <stddef.h>
#include <sqlite3.h>

#include "core/base/err.h"
#include "core/store/store.h"

/* One row.  Strings are borrowed until the next rawlabels_next() or
 * rawlabels_close(). */
struct raw_label {
	long long item_id, member_id;
	const char *repo;
	long long number;
	const char *member;	/* the member's name */
	const char *dimension, *code, *codebook_version, *labeled_at;
	const char *submitted_at;	/* NULL when not submitted */
	int in_round;		/* the item is in a round, */
	int closed;		/* which is closed */
	int decided;		/* resolved or settled */
};

struct rawlabels_item;		/* private */
struct rawlabels_member;	/* private */

struct rawlabels {
	struct store *st;	/* borrowed */
	sqlite3_stmt *labels, *subs;
	int has_sub;
	struct rawlabels_item *items;	/* by item id */
	long long max_item;
	char **repos;		/* distinct repository names */
	size_t nr_repos, alloc_repos;
	struct rawlabels_member *members;	/* by member id */
	long long max_member;
	long long round_id;	/* only this round's items; 0: all */
	int in_savepoint;
	struct raw_label row;
};

/* Start the pass over the labels of round `round` (NULL: every label).
 * 0, or -1 with `e` filled (ERR_NOTFOUND for an unknown round); call
 * rawlabels_close() in either case. */
int rawlabels_open(struct rawlabels *r, struct store *st, const char *round,
		   struct err *e);
/* The next row: 1 with r->row filled, 0 at the end, -1 with `e`. */
int rawlabels_next(struct rawlabels *r, struct err *e);
/* End the pass; accepts a failed or closed one. */
void rawlabels_close(struct rawlabels *r);

#endif
