/* SPDX-License-Identifier: MIT */
/*
 * item: one bug - an issue with its comments and the pull request(s) that
 * fixed it, frozen as imported - and its effort figures.
 *
 * Items are named `owner/repo#number`.  item_save() is an upsert keyed on
 * (repo, number): re-importing updates an item in place (its id, and so
 * every label on it, is kept) and replaces its comments and fixes.
 *
 * The family: item.c (saving, loading and releasing an item), item_effort.c
 * (item_compute_effort, item_parse_date), item_ref.c (item_name,
 * item_valid_repo, item_parse_ref and the API host), item_find.c
 * (item_find, item_canonical_repo, item_note_alias), item_diff.c (the
 * diff_source functions).
 */
#ifndef BUGCODER_ITEM_H
#define BUGCODER_ITEM_H

#include <stddef.h>

#include "core/base/buf.h"
#include "core/base/err.h"
#include "core/store/store.h"

struct diff;

struct comment {
	char *author;		/* NULL for a deleted ("ghost") account */
	char *created_at;
	char *body;
};

struct fix {
	long long number;	/* pull request number, 0 if unknown */
	char *title, *body, *url, *merged_at;
	struct comment *comments;	/* its conversation, as imported */
	size_t nr_comments;
	int additions, deletions, changed_files;	/* -1 when unknown */
	char *diff;		/* unified diff text, NULL if none (or not
				   loaded: see ITEM_LOAD_NO_DIFF) */
	size_t diff_len;
	int diff_partial;	/* diff rebuilt from a partial file list */
	int repeats;		/* 1 + the index of an earlier fix of the
				   item whose change this one repeats (a
				   cherry-pick, a backport), else 0; set by
				   item_compute_effort() */
	int has_diff;		/* a diff is stored (set by item_load) */
	long long row_id;	/* its fixes row, 0 until saved */
};

struct item {
	long long id;		/* 0 until saved */
	char *repo;		/* "owner/name" */
	long long number;
	char *title, *body, *state, *state_reason, *author;
	char *created_at, *closed_at, *url;
	char **labels;
	size_t nr_labels;
	struct comment *comments;
	size_t nr_comments;
	struct fix *fixes;
	size_t nr_fixes;
	char *source;		/* where it came from: file or API URL */
	int is_pull;		/* a pull request given alone: its
				   description stands for the issue, and it
				   is its own fix */
	int missing;		/* named by a list, its content still to be
				   fetched (`fetch --missing`) */

	/* effort figures, filled by item_compute_effort() */
	int comment_count;	/* comments, even when bodies are absent */
	double days_open;	/* < 0 when a date is missing */
	int additions, deletions, changed_files;	/* -1 without a fix,
							   or when unknown */
	int lines_changed;	/* additions + deletions, -1 without a fix
				   or when either is unknown */
	int small_fix;		/* lines_changed <= ITEM_SMALL_FIX */
	int diff_partial;
};

#define ITEM_SMALL_FIX 10

/* Free everything the item owns and zero it.  Accepts NULL. */
void item_release(struct item *it);

/* Derive the effort figures from the dates, comments and fixes.  A fix
 * whose diff changes the same lines of the same files as an earlier fix
 * of the item (a cherry-pick or backport to another branch) is marked
 * (fix->repeats) and left out of the sums: distinct changes count once,
 * each fix keeps its own figures.  A fix
 * without additions/deletions/changed_files figures gets them counted
 * from its diff; a figure neither given nor countable (no diff) makes the
 * item's total unknown (-1), and then small_fix is 0 and stored NULL.
 * `comment_count` is kept if larger than nr_comments (the GitHub issue
 * list gives the count without the bodies).  Sums past INT_MAX are held
 * at INT_MAX (never a small or negative figure). */
void item_compute_effort(struct item *it);

/* Parse an ISO 8601 date "YYYY-MM-DD[THH:MM:SS[.fff](Z|+hh:mm)]" into
 * seconds since the epoch.  Returns 0, or -1 when malformed. */
int item_parse_date(const char *s, double *out);

/* Insert or update the item (keyed on repo and number) with its comments
 * and fixes, inside the caller's transaction.  A repository named by an
 * old name is stored under its current one (it->repo is replaced).  Sets
 * it->id. */
int item_save(struct store *st, struct item *it, struct err *e);

/* Load item `id` with everything it holds. */
int item_load(struct store *st, long long id, struct item *it,
	      struct err *e);

enum item_load_flags {
	ITEM_LOAD_NO_DIFF = 1 << 0,	/* leave diffs in the study: read
					   them through a diff_source */
};

/* item_load() with flags. */
int item_load_flags(struct store *st, long long id, struct item *it,
		    unsigned flags, struct err *e);

/*
 * A fix's diff read in windows straight from the study, so that a
 * 200,000-line diff costs its line index, not its text.  A fix whose
 * diff is in memory is read from there.
 */
struct diff_source {
	struct store *st;
	const char *mem;	/* the text, when in memory */
	long long row_id;	/* else its fixes row */
	size_t len;		/* bytes; 0 when there is no diff */
	struct buf win;		/* the window last read */
	size_t win_off;
	int win_valid;
	sqlite3_blob *held;	/* kept open while reading ... */
	struct store_reader reader;	/* ... and closed before a write */
};

/* Prepare to read fix `f`'s diff (f and st must outlive src). */
int diff_source_open(struct store *st, const struct fix *f,
		     struct diff_source *src, struct err *e);
/* Bytes [off, off + n) of the diff, valid until the next read; NULL
 * when out of range or unreadable (the item changed under us). */
const char *diff_source_read(struct diff_source *src, size_t off, size_t n);
void diff_source_close(struct diff_source *src);
/* diff_parse() over a source, streaming. */
void diff_parse_source(struct diff *d, struct diff_source *src);

/* Find an item by name: "owner/repo#N" or an issue or pull request URL
 * (an old name of a renamed repository too; the repository in any case,
 * the name as stored found through the index first), "repo#N" (when only
 * one repository has that name) or "#N"/"N" (when only one item has that
 * number).  Its statements are the store's cached ones, so a caller may
 * find many items in a row cheaply.
 * Returns its id, or -1 with ERR_NOTFOUND / ERR_INPUT. */
long long item_find(struct store *st, const char *name, struct err *e);

/* The largest issue number taken (GitHub's are 32-bit). */
#define ITEM_MAX_NUMBER 2147483647LL

enum item_ref_kind {
	ITEM_REF_ANY = 0,	/* "owner/repo#N": an issue or a pull request */
	ITEM_REF_ISSUE,		/* an issue URL */
	ITEM_REF_PULL,		/* a pull request URL */
};

/* The GitHub an issue or pull request URL may be on besides github.com
 * (and www. and api.github.com): that of the API at `api_url` (GitHub
 * Enterprise, or a test's mock), by its host and port; NULL or "" for
 * github.com alone.  For the process; a copy is kept. */
void item_set_api_host(const char *api_url);

/* When `s` is a URL on a host that is not GitHub's (see above): where
 * its host starts, its length in *len; else NULL. */
const char *item_url_foreign_host(const char *s, size_t *len);

/*
 * Read an item reference: "owner/repo#N", an issue or pull request URL
 * (https://github.com/owner/repo/issues/N or .../pull/N, with anything
 * after the number: /files, ?query, #anchor; on github.com or the host
 * item_set_api_host() named), or the API's form
 * (.../repos/owner/repo/issues/N).  On
 * success returns 0 with *repo owned by the caller, *number in
 * 1..ITEM_MAX_NUMBER and *kind (may be NULL) an enum item_ref_kind;
 * otherwise -1 with *repo NULL.  Numbers are read digit by digit, so no
 * text can overflow them.
 */
int item_parse_ref(const char *s, char **repo, long long *number, int *kind);

/* The current name of repository `repo`: the one it is an alias of, or a
 * copy of itself.  Owned by the caller; NULL with `e` filled on a
 * database error. */
char *item_canonical_repo(struct store *st, const char *repo, struct err *e);

/*
 * Note that repository `old` is now called `repo` (renamed or
 * transferred), inside the caller's transaction: `old` becomes an alias,
 * names that led to `old` lead to `repo`, and items stored under `old`
 * move to `repo` unless `repo` already holds that number.  Case-only
 * differences are not renames.  Returns 0, or -1 with `e` filled.
 */
int item_note_alias(struct store *st, const char *old, const char *repo,
		    struct err *e);

/* "owner/repo#N" for an item, owned by the caller. */
char *item_name(const char *repo, long long number);

/* Is `repo` of the form owner/name with sensible characters? */
int item_valid_repo(const char *repo);

#endif
