/* SPDX-License-Identifier: MIT */
/*
 * github_int: what the fetch's files share; not API (that is github.h).
 * One fetch (struct fetch) is driven by github.c and worked on by its
 * family, listed from the lowest; a file calls only those listed before
 * it:
 *
 *   gh_state.c    what the study remembers of fetching: the list page
 *                 (fetch_state), the finished issues (fetch_issues), a
 *                 renamed repository followed
 *   gh_graphql.c  linking issues through GraphQL, a batch at a time
 *   gh_rest.c     linking one issue through REST (its timeline, commit
 *                 look-ups) and the fixes a list named
 *   gh_diff.c     the diff of a fixing pull request
 *   gh_issue.c    one issue (or pull request) finished and stored, a
 *                 page of them worked through, failures counted
 *   github.c      the entry points: the paged issue list, lists of refs
 *
 * All include this header, which includes only what is below the family
 * (github.h, gh_map.h, ghclient.h), so the includes never run back up.
 */
#ifndef BUGCODER_GITHUB_INT_H
#define BUGCODER_GITHUB_INT_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "core/base/err.h"
#include "core/github/gh_map.h"
#include "core/github/ghclient.h"
#include "core/github/github.h"
#include "core/study/item.h"

#define PER_PAGE GH_PER_PAGE
#define GQL_BATCH 50

/* One fetch, from its options to its end. */
struct fetch {
	struct ghc *c;		/* the HTTP client; NULL until started */
	struct gh_stats *stats;	/* the caller's figures (or gh_fetch's) */
	struct store *st;
	const struct gh_fetch_opts *o;
	char *repo;		/* the repository's current name */
	char *canon;		/* repository's own name from the list */
	char *params;		/* the options, as fetch_state keeps them */
	double since_t, until_t;
	int has_since, has_until;
	int graphql;		/* still usable */
	size_t gql_batch;	/* issues per GraphQL request, now */
	int gql_good;		/* answers since it was last made smaller */
	int gql_lost;		/* single issues it could not answer, in a row */
	long stored;		/* items stored, for --limit */
	int failed_in_a_row;	/* issues failed on the network, in a row */
	int listed;		/* gh_fetch_list: fixes a list named count */
};

/* Errors that are the study's or the user's, not one issue's: the fetch
 * stops on them. */
static inline int fatal_error(int code)
{
	return code == ERR_INTERRUPTED || code == ERR_DB || code == ERR_BUSY ||
	       code == ERR_IO || code == ERR_USAGE;
}

/* Report the figures to the caller's callback, if any. */
static inline void progress(struct fetch *f)
{
	if (f->o->progress.update)
		f->o->progress.update(f->o->progress.ctx, f->stats);
}

/* Has the caller asked the fetch to stop? */
static inline int stopped(const struct fetch *f)
{
	return f->o->stop && *f->o->stop;
}

/* What the JSON mappings need to know of the fetch. */
static inline struct gh_scope scope(const struct fetch *f)
{
	struct gh_scope sc = { f->repo, f->canon, ghc_api(f->c) };

	return sc;
}

/* --limit reached: no more items to store. */
static inline int limit_reached(const struct fetch *f)
{
	return f->o->limit > 0 && f->stored >= f->o->limit;
}

/* ---- gh_state.c ------------------------------------------------------- */

/* The list page a stopped fetch with the same options (f->params) was
 * working on, into *next_url (owned, free()), or NULL to start afresh.
 * Returns 0, or -1 with `e` filled by the study. */
int gh_state_load(struct fetch *f, char **next_url, struct err *e);

/* Remember `next_url` (NULL: none) as the page to work on, and whether
 * the listing is `done`.  Returns 0, or -1 with `e` filled by the study. */
int gh_state_save(struct fetch *f, const char *next_url, int done,
		  struct err *e);

/* Was issue `number` finished before at this updated_at, with a result
 * these options keep as it is?  Then it needs no request (1).  An
 * unreadable study answers 0: the issue is fetched again. */
int gh_already_done(struct fetch *f, long long number,
		    const char *updated_at);

/* Record issue `number` finished at `updated_at` (borrowed, may be NULL),
 * with or without a fix.  Returns 0, or -1 with `e` filled by the study. */
int gh_mark_done(struct fetch *f, long long number, const char *updated_at,
		 int has_fix, struct err *e);

/* Follow a rename the list showed (f->canon): see gh_state.c.  Returns 0
 * (also when there is none), or -1 with `e` filled, the study unchanged. */
int gh_follow_rename(struct fetch *f, struct err *e);

/* ---- gh_graphql.c ----------------------------------------------------- */

/* Link issues[0..n) through GraphQL into g[0..n) while f->graphql holds;
 * see gh_graphql.c.  Returns 0, or -1 with `e` filled on an interruption
 * or an error of the study. */
int gh_link_graphql(struct fetch *f, const cJSON **issues, size_t n,
		    struct gh_gathered *g, struct err *e);

/* ---- gh_rest.c -------------------------------------------------------- */

/* Link issue `number` through REST into `g` (emptied first; complete on
 * success).  Returns 0, or -1 with `e` filled by the request that failed
 * (ERR_NOTFOUND when the issue is gone). */
int gh_link_rest(struct fetch *f, long long number, struct gh_gathered *g,
		 struct err *e);

/* Add to `g` the fixes a list named for issue `number` that linking did
 * not find.  Returns 0, or -1 with `e` filled. */
int gh_named_fixes(struct fetch *f, long long number, struct gh_gathered *g,
		   struct err *e);

/* ---- gh_diff.c -------------------------------------------------------- */

/* Fill fx->diff (owned by `fx`) with the diff of pull request fx->number
 * of `repo` (borrowed): asked for, reused from the study after a 304, or
 * rebuilt from the file list when too large (then partial, and the
 * figures still unknown counted from it).  Returns 0, or -1 with `e`
 * filled. */
int gh_fetch_diff(struct fetch *f, const char *repo, struct fix *fx,
		  struct err *e);

/* ---- gh_issue.c ------------------------------------------------------- */

/* Finish `issue` (borrowed) with what linking gathered in `g` (its
 * comments and fixes are taken over): link it through REST if need be,
 * fetch its diffs, and store it with its fetch_issues row in one
 * transaction, or only the row when options drop it.  An issue gone
 * meanwhile is counted vanished and is no error.  Returns 0, or -1 with
 * `e` filled and nothing of the issue stored. */
int gh_finish_issue(struct fetch *f, const cJSON *issue,
		    struct gh_gathered *g, struct err *e);

/* A pull request given alone (`obj`, borrowed), stored as its own item
 * and fix; see gh_issue.c.  Returns 0, or -1 with `e` filled and nothing
 * stored. */
int gh_finish_pull(struct fetch *f, const cJSON *obj, struct err *e);

/* Issue `number` failed with `e`: note it in f->stats->failed and clear
 * `e` (0), or return -1 when the fetch should stop. */
int gh_issue_failed(struct fetch *f, long long number, struct err *e);

/* Link and finish the candidates todo[0..n) (borrowed) of one page, in
 * GraphQL batches, up to the limit.  Returns 0, or -1 with `e` filled. */
int gh_do_page(struct fetch *f, const cJSON **todo, size_t n,
	       struct err *e);

#endif
