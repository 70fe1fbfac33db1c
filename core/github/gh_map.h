/* SPDX-License-Identifier: MIT */
/*
 * gh_map: what GitHub's JSON answers mean to a fetch.  An issue object
 * becomes an item; a GraphQL answer or a page of a REST timeline becomes
 * an issue's comments and the merged pull requests that fixed it (with the
 * closing commits and the pull requests still to look up); a commit's
 * pull request list adds its fixes; a page of a pull request's file list
 * becomes part of a rebuilt diff.
 *
 * Pure functions over cJSON trees: no request, no study, no global state,
 * so each is unit-tested without a server (tests/t_ghmap.c).  The
 * requests are core/github/github.c's business.
 *
 * Only core/github/github.c, its family (github_int.h) and the tests
 * include this header.
 */
#ifndef BUGCODER_GH_MAP_H
#define BUGCODER_GH_MAP_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "core/base/buf.h"
#include "core/base/err.h"
#include "core/study/item.h"

#define GH_PER_PAGE 100

/* ---- reading cJSON: absent and wrong types are NULL / `def` --------- */

static inline const cJSON *jget(const cJSON *o, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(o, key);
}

static inline const char *jstr(const cJSON *o, const char *key)
{
	const cJSON *v = jget(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* A number as a long long; `def` when absent, not a number, or outside
 * what a long long holds (converting that would be undefined). */
static inline long long jnum(const cJSON *o, const char *key, long long def)
{
	const cJSON *v = jget(o, key);

	if (!cJSON_IsNumber(v) || !(v->valuedouble > -9.2e18 &&
				    v->valuedouble < 9.2e18))
		return def;
	return (long long)v->valuedouble;
}

/* A count that an int holds, or -1. */
static inline int jint(const cJSON *o, const char *key)
{
	long long v = jnum(o, key, -1);

	return v < 0 || v > 0x7fffffff ? -1 : (int)v;
}

/* o.key.login, or NULL for a deleted ("ghost") account */
static inline const char *jlogin(const cJSON *o, const char *key)
{
	return jstr(jget(o, key), "login");
}

/* ---- what is gathered for one issue -------------------------------- */

struct gh_comments {
	struct comment *v;
	size_t nr, alloc;
};

/* A fixing pull request as found, before its diff is fetched. */
struct gh_prref {
	long long number;
	char *repo;		/* its repository when not the fetched one */
	char *title, *body, *url, *merged_at;
	int additions, deletions, changed_files;	/* -1 unknown */
};

struct gh_prrefs {
	struct gh_prref *v;
	size_t nr, alloc;
	char **commits;		/* closing commits still to look up: the
				   URL of their pull request list */
	size_t nr_commits, alloc_commits;
	long long *unsure;	/* pull requests cross-referenced without a
				   merged_at key: to be asked */
	size_t nr_unsure, alloc_unsure;
};

/* Everything gathered for one issue; zeroed is empty. */
struct gh_gathered {
	struct gh_comments comments;
	struct gh_prrefs prs;
	int complete;		/* answered; else ask the REST timeline */
};

/* Which repository is being fetched, and where its API is. */
struct gh_scope {
	const char *repo;	/* "owner/name", as asked for */
	const char *canon;	/* its own name from the answers, or NULL */
	const char *api;	/* the REST base URL, no trailing slash */
};

/* Free what `g` holds and zero it (NULL is fine). */
void gh_gathered_release(struct gh_gathered *g);

/* Add a comment (each string copied; NULL stays NULL). */
void gh_comments_add(struct gh_comments *l, const char *author,
		     const char *created_at, const char *body);

/* Add pull request `number` of repository `repo` (NULL: the fetched
 * one), or fill in what an earlier mention of it lacked.  Figures are -1
 * when unknown.  A number <= 0 is ignored. */
void gh_prrefs_add(struct gh_prrefs *l, const char *repo, long long number,
		   const char *title, const char *body, const char *url,
		   const char *merged_at, int add, int del, int files);

/* qsort order of fixes: the fetched repository's first, by number. */
int gh_prref_cmp(const void *a, const void *b);

/* Is "owner/name" `full` the repository of `sc`?  Unknown (NULL) counts
 * as yes. */
int gh_our_repo(const struct gh_scope *sc, const char *full);

/* "owner/name" from ".../repos/owner/name...", owned by the caller, or
 * NULL. */
char *gh_repo_from_api_url(const char *url);

/* ---- the mappings ---------------------------------------------------- */

/* An issue's answer to the fetch's GraphQL query (the `...I` fragment)
 * into `g`; g->complete is 0 when the answer does not suffice (no
 * answer, or a connection with more than its first page: the REST
 * timeline then answers instead). */
void gh_map_graphql_issue(const struct gh_scope *sc, const cJSON *is,
			  struct gh_gathered *g);

/* One page of an issue's REST timeline into `g`: comments, merged pull
 * requests that cross-reference it (from this repository), pull requests
 * whose merged state it does not tell (g->prs.unsure), and the closing
 * commits to look up (g->prs.commits, see gh_commit_pulls_url). */
void gh_map_timeline_page(const struct gh_scope *sc, const cJSON *page,
			  struct gh_gathered *g);

/* The URL listing the pull requests of the commit that `closed` event
 * `ev` names, owned by the caller, or NULL when it names no usable
 * commit.  The event's commit_url is used as given, since it names the
 * repository that holds the commit (another one, or this one under an
 * old name); only when it is absent or off the API is it built from the
 * fetched repository and the commit_id. */
char *gh_commit_pulls_url(const struct gh_scope *sc, const cJSON *ev);

/* The pull request list of a closing commit (at `lookup`, its URL) into
 * `g`: merged pull requests of this repository, or of the commit's own
 * repository when that is another (it closed the issue from there). */
void gh_map_commit_pulls(const struct gh_scope *sc, const char *lookup,
			 const cJSON *page, struct gh_gathered *g);

/* A pull request object (GET .../pulls/N) that was unsure: added when
 * merged. */
void gh_map_pull(struct gh_gathered *g, long long number, const cJSON *pr);

/* Running sums of a diff rebuilt from a file list. */
struct gh_files {
	struct buf diff;	/* the diff so far */
	long long additions, deletions;	/* summed: no int wraps */
	int files;
};

/* One page of a pull request's file list appended to `fs`, each file
 * with git's headers: new/deleted file mode, rename from/to, copy
 * from/to, and a Binary files line for a file without a patch or
 * lines. */
void gh_map_files_page(const cJSON *page, struct gh_files *fs);

/*
 * Fill `it` (zeroed by the caller) from one issue object of the REST API
 * for repository `repo`: number, title, body, author (NULL for a deleted
 * account), labels, state, state_reason, dates, html_url, and the comment
 * count; comments and fixes are left empty.  The item owns copies of
 * everything; release it with item_release().  ERR_INPUT when the
 * object has no number or title.
 */
int gh_item_from_issue(struct item *it, const char *repo,
		       const struct cJSON *issue, struct err *e);

/* Parse an HTTP Link header and return the URL of rel="next", owned by
 * the caller, or NULL when there is none. */
char *gh_link_next(const char *link);

#endif
