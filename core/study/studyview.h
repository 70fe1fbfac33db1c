/* SPDX-License-Identifier: MIT */
/*
 * studyview: what the study holds, as data for the command line and the
 * screens to print - the item list and the study's status.  Every figure
 * that reveals members' work is filtered through core/study/access here, so
 * `items` and `status` only print.
 */
#ifndef BUGCODER_STUDYVIEW_H
#define BUGCODER_STUDYVIEW_H

#include <stddef.h>

#include "core/study/codebook.h"
#include "core/base/err.h"
#include "core/study/member.h"
#include "core/store/store.h"

/* `items --status`: nobody submitted, some but fewer than two, two or
 * more; for an annotator: not submitted / - / submitted by them. */
enum item_progress {
	PROGRESS_ANY = 0,
	PROGRESS_TODO,
	PROGRESS_PARTIAL,
	PROGRESS_SUBMITTED,
};

struct item_filter {
	enum item_progress status;
	const char *round;	/* NULL: any */
	const char *repo;	/* NULL: any */
};

/* One row of the item list.  Strings are borrowed and valid only during
 * the callback; numbers are -1 when unknown. */
struct item_row {
	long long id;
	const char *repo;
	long long number;
	const char *title;
	int nr_fixes;
	long long lines_changed, changed_files;
	int diff_partial;
	double days_open;	/* < 0 when unknown */
	long long comments;
	const char *round;	/* its coding round, NULL when in none */
	const char *screen_round;	/* its screening round, or NULL */
	const char *decision;	/* the screening decision: include or the
				   reason; NULL when not decided */
	int missing;		/* never fetched */
	int nr_submitted;	/* members who submitted; own_only: 0 or 1
				   (of the screening while it is screened) */
	int own_only;		/* nr_submitted counts only the actor */
};

/* Call fn(row, data) for every item actor `a` may list, in id order.  An
 * annotator sees the items of their rounds, coding or screening (every
 * item while the study has no rounds) and only their own submission.
 * `round` may name a screening round.  Stops at the first
 * non-zero return of fn and returns it; 0 at the end; -1 with `e` filled
 * (ERR_NOTFOUND for an unknown round, ERR_PERM for a non-member). */
int studyview_items(struct store *st, const struct actor *a,
		    const struct item_filter *f,
		    int (*fn)(const struct item_row *row, void *data),
		    void *data, struct err *e);

/* The names (repo, number) of the items `a` may list whose repository
 * starts with `repo_prefix` (NULL or "": all), in (repo, number) order:
 * the items' (repo, number) index alone, for completing a name.  fn
 * returns non-zero to stop, which is returned; 0 at the end, -1 with
 * `e`. */
int studyview_item_names(struct store *st, const struct actor *a,
			 const char *repo_prefix,
			 int (*fn)(const char *repo, long long number,
				   void *data),
			 void *data, struct err *e);

/* Per repository figures of `status`, plus one row for all (repo NULL). */
struct repo_status {
	char *repo;		/* owned; NULL for the whole study */
	long items, fixed, fixes;
	long small, with_size;	/* fixes of <= 10 lines; items sized */
	double median_days, median_comments, median_lines;	/* NAN */
};

struct study_status {
	char *title;		/* owned, may be NULL */
	char *codebook, *codebook_version;	/* owned, NULL when none */
	struct repo_status *repos;	/* the last one is the whole study */
	size_t nr_repos;
	long members, rounds, no_fix, partial_diff;
	int work_visible;	/* the counts below are for this actor */
	long labels, submissions, open_proposals, resolutions;
	int agreement_visible;	/* the agreement counts below too */
	long ready, agreed, resolved, disagreeing, discuss;
	long recoding;		/* ready, no disagreement, a split left a
				   dimension to recode */
	char *scope;		/* which items count (design_scope()), lines;
				   the items awaiting recoding are named to
				   who may see all work only; owned */
	long screen_rounds, screened, included, excluded, undecided;
};

#define STUDY_STATUS_INIT { 0 }

/* Fill *s for actor `a` (who may be a non-member: they see the items'
 * figures but no one's work).  0, or -1 with `e` filled. */
int studyview_status(struct store *st, const struct actor *a,
		     struct study_status *s, struct err *e);
void study_status_release(struct study_status *s);

#endif
