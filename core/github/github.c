/* SPDX-License-Identifier: MIT */
/*
 * github: closed bug issues and their fixing pull requests, from GitHub.
 * See github.h for the contract.
 *
 * The work is split along its seams: ghclient.c makes each request
 * (retries, limits, cache), gh_map.c reads what GitHub answers (issues,
 * GraphQL answers, timelines, file lists: pure functions, unit-tested
 * without a server), and this file drives the fetch: which requests, in
 * which order, and what is stored when.
 *
 * Where the requests go.  The hourly limit is 5,000 requests and a study
 * wants thousands of issues, so every request is weighed; the target is
 * at most two counted requests per stored issue on a first fetch.
 *
 *  1. The issue list, GET /repos/O/R/issues?state=closed&labels=bug
 *     &sort=created&direction=asc&per_page=100, then each Link rel="next"
 *     URL exactly as given: one request per 100 issues.  It carries the
 *     title, body, author, labels, dates and the comment count, so no
 *     issue is ever fetched on its own.  Pull requests in the list are
 *     dropped.  Oldest first, so a page URL still means the same issues
 *     when a stopped fetch resumes (new issues land on later pages).
 *  2. Linking each issue to its fixing pull requests.
 *     With a token: one GraphQL request (POST /graphql) for up to
 *     GQL_BATCH issues, asking each for its timeline's cross-referenced,
 *     connected and closed events (first 25), its
 *     closedByPullRequestsReferences, and its first 100 comments, with
 *     each pull request's number, title, body, merged state and date,
 *     additions, deletions and changed files.  Linking, comments and
 *     figures thus cost 1/GQL_BATCH of a request per issue.  GraphQL's
 *     own hourly budget is in points, which nested connections multiply;
 *     25 timeline events keep a batch near 14 points (the summary reports
 *     the cost GitHub gives).  An issue GraphQL cannot answer
 *     (transferred, more such events or comments) falls back to REST.
 *     Without a token (GitHub's GraphQL requires one), or once GraphQL has
 *     failed, per issue the REST timeline, GET /repos/O/R/issues/N/timeline:
 *     one request that also holds the comments (the comments endpoint is
 *     never called), and whose cross-referenced events carry the source
 *     pull request's title, body and merged_at.  When no merged pull
 *     request is found that way, a closed event with a commit costs one
 *     more request, GET {commit_url}/pulls, the event's commit_url naming
 *     the repository that holds the commit; 404, 409 and 422 there mean
 *     no pull request is known through that commit (this is also how a
 *     REST-only fetch sees `connected` links, whose events name no pull
 *     request: the linked pull request's merge closes the issue).
 *  3. The diff of every fixing pull request, GET /repos/O/R/pulls/N with
 *     Accept: application/vnd.github.diff.  Without GraphQL's figures the
 *     additions, deletions and changed files are counted from the diff.
 *     On 406 (too large) the paged file list GET /repos/O/R/pulls/N/files
 *     is read instead, the diff rebuilt from its patches and marked
 *     partial.
 *
 * So with a token a fetch costs one counted request per fix plus a little
 * for the list and GraphQL pages; without one, a timeline per issue and a
 * diff per fix.  Measured on the mock's acme/big (tests/test_fetch.py;
 * 224 closed bugs, 134 with 144 fixes; counted requests per stored
 * issue): with a token, 161 / 134 = 1.20 with --require-fix and
 * 161 / 224 = 0.72 without; without a token, 415 / 224 = 1.85, but
 * 415 / 134 = 3.10 with --require-fix, since every unfixed issue's timeline
 * is read and then dropped (use a token for that).  Re-fetching the
 * unchanged repository: 0 counted, 4 not modified (the list pages).
 *
 * Conditional requests.  Every GET answer with an ETag or Last-Modified
 * is kept in http_cache, and a 304 reuses it without counting against
 * the limit (ghclient.c has the details).  GraphQL answers are never
 * cached, so they are asked only for issues that need work: an issue
 * already fetched at the same updated_at (fetch_issues) is skipped.
 * Re-fetching an unchanged repository is then only 304s on the list
 * pages.
 *
 * Resuming.  fetch_state remembers, per repository, the options and the
 * list page being worked on; fetch_issues every finished issue.  An item
 * and its fetch_issues row are written in one transaction.  A call with
 * the same options continues from the remembered page; otherwise (or once
 * finished) it starts from the first page, where unchanged issues cost
 * nothing.
 *
 * Faults and limits are the HTTP client's business (ghclient.c):
 * transient faults are retried with back-off, rate limits waited out,
 * redirects followed; the fetch sees a request either answered or failed
 * with the URL and the status.  A request about one issue that failed
 * fails that issue alone: nothing of it is stored, it is listed in
 * gh_stats.failed, and not being in fetch_issues it is asked for again by
 * the next fetch, which skips every unchanged issue.  Only the study's
 * own errors, an interruption, a failed list page or
 * GH_MAX_FAILED_IN_A_ROW network failures in a row stop the fetch.
 *
 * Dates: --since and --until bound the issue's creation; --since is also
 * sent as the list's `since` (updated since), which only narrows it.
 *
 * Limitations: a fixing pull request must belong to the fetched
 * repository (cross-references from other repositories are mentions, not
 * fixes), except for one merged through a commit of another repository
 * that closed the issue, or one a list named; a cross-reference from a
 * merged pull request counts as a fix even when it only mentions the
 * issue, as studies of this kind do.
 * Resuming at a remembered page assumes the pages before it did not
 * shrink meanwhile (an issue deleted or transferred away shifts later
 * issues back a page); a later complete fetch, which starts at page one,
 * picks up any issue so skipped.
 */
#include "core/github/github.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "core/base/buf.h"
#include "core/github/gh_map.h"
#include "core/github/ghclient.h"

#define PER_PAGE GH_PER_PAGE
#define GQL_BATCH 50
#define GQL_MAX_LOST 3	/* single issues lost in a row: GraphQL is down */

/* ---- the fetch --------------------------------------------------------- */

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
static int fatal_error(int code)
{
	return code == ERR_INTERRUPTED || code == ERR_DB || code == ERR_BUSY ||
	       code == ERR_IO || code == ERR_USAGE;
}

static void progress(struct fetch *f)
{
	if (f->o->progress.update)
		f->o->progress.update(f->o->progress.ctx, f->stats);
}

static int stopped(const struct fetch *f)
{
	return f->o->stop && *f->o->stop;
}

/* What the JSON mappings need to know of the fetch. */
static struct gh_scope scope(const struct fetch *f)
{
	struct gh_scope sc = { f->repo, f->canon, ghc_api(f->c) };

	return sc;
}

static const char gql_head[] =
	"query($owner: String!, $name: String!) { "
	"rateLimit { cost remaining resetAt } "
	"repository(owner: $owner, name: $name) {";

static const char gql_tail[] =
	" } } "
	"fragment P on PullRequest { number title body url merged mergedAt "
	"additions deletions changedFiles repository { nameWithOwner } } "
	"fragment I on Issue { number "
	"comments(first: 100) { totalCount "
	"nodes { author { login } createdAt body } } "
	"closedByPullRequestsReferences(first: 10, includeClosedPrs: true) "
	"{ pageInfo { hasNextPage } nodes { ...P } } "
	"timelineItems(first: 25, itemTypes: [CROSS_REFERENCED_EVENT, "
	"CONNECTED_EVENT, CLOSED_EVENT]) { pageInfo { hasNextPage } "
	"nodes { __typename "
	"... on CrossReferencedEvent { source { __typename "
	"... on PullRequest { ...P } } } "
	"... on ConnectedEvent { subject { __typename "
	"... on PullRequest { ...P } } } "
	"... on ClosedEvent { closer { __typename "
	"... on PullRequest { ...P } "
	"... on Commit { oid repository { nameWithOwner } "
	"associatedPullRequests(first: 5) "
	"{ pageInfo { hasNextPage } nodes { ...P } } } } } } } }";

/* One GraphQL request for issues[0..n), filling g[0..n).  Returns 0 when
 * it was answered (an issue left out of the answer stays incomplete and
 * goes to REST), 1 when it failed on a 5xx, a timeout or a broken answer
 * (worth asking a smaller question), 2 when GraphQL cannot be used at
 * all (the query was refused, or no repository in the answer), -1 with
 * `e` filled on an interruption or an error of the study. */
static int graphql_once(struct fetch *f, const cJSON **issues, size_t n,
			struct gh_gathered *g, unsigned flags, struct err *e)
{
	struct buf q = BUF_INIT;
	cJSON *req = NULL, *vars, *ans = NULL;
	const cJSON *repo;
	char *post = NULL, *owner;
	const char *slash = strchr(f->repo, '/');
	struct ghc_resp r;
	struct err e2 = ERR_INIT;
	struct gh_scope sc;
	size_t i;
	int ret = 0;

	buf_addstr(&q, gql_head);
	for (i = 0; i < n; i++) {
		long long num = jnum(issues[i], "number", 0);

		buf_addf(&q, " i%lld: issue(number: %lld) { ...I }", num, num);
	}
	buf_addstr(&q, gql_tail);
	owner = xstrndup(f->repo, (size_t)(slash - f->repo));
	req = cJSON_CreateObject();
	cJSON_AddStringToObject(req, "query", q.ptr);
	vars = cJSON_AddObjectToObject(req, "variables");
	cJSON_AddStringToObject(vars, "owner", owner);
	cJSON_AddStringToObject(vars, "name", slash + 1);
	post = cJSON_PrintUnformatted(req);

	if (ghc_request(f->c, ghc_graphql_url(f->c), GHC_POST | GHC_JSON |
			flags, post, &r, &ans, &e2) < 0) {
		if (fatal_error(e2.code)) {
			*e = e2;
			ret = -1;
		} else {
			ret = e2.code == ERR_NET ? 1 : 2;
		}
		goto out;
	}
	sc = scope(f);
	f->stats->graphql_cost += (long)jnum(jget(jget(ans, "data"),
						    "rateLimit"), "cost", 0);
	repo = jget(jget(ans, "data"), "repository");
	if (!cJSON_IsObject(repo)) {
		ret = 2;
		goto out;
	}
	for (i = 0; i < n; i++) {
		char alias[32];

		snprintf(alias, sizeof(alias), "i%lld",
			 jnum(issues[i], "number", 0));
		gh_map_graphql_issue(&sc, jget(repo, alias), &g[i]);
	}
out:
	ghc_resp_clear(&r);
	cJSON_Delete(ans);
	cJSON_free(post);
	cJSON_Delete(req);
	free(owner);
	buf_release(&q);
	return ret;
}

/*
 * Link issues[0..n) through GraphQL, filling g[0..n); an issue GraphQL
 * does not answer is left incomplete, for the REST timeline.  A 5xx or a
 * timeout usually means the question was too big for GitHub's time
 * limit, so the batch is halved and each half asked again, down to a
 * single issue, which gets the usual retries; only the issues that still
 * fail are given up (and later batches stay smaller, growing back after
 * answers).  GraphQL is turned off for the rest of the fetch when the
 * query is refused outright, or when GQL_MAX_LOST single issues in a row
 * could not be answered (an outage, not a hard question).  Returns 0, or
 * -1 on an interruption or an error of the study.
 */
static int link_graphql(struct fetch *f, const cJSON **issues, size_t n,
			struct gh_gathered *g, struct err *e)
{
	int rc;

	if (!f->graphql || !n)
		return 0;
	rc = graphql_once(f, issues, n, g, n > 1 ? GHC_NO_RETRY : 0, e);
	if (rc < 0)
		return -1;
	if (rc == 0) {
		f->gql_lost = 0;
		if (f->gql_batch < GQL_BATCH && ++f->gql_good >= 2) {
			f->gql_batch *= 2;
			if (f->gql_batch > GQL_BATCH)
				f->gql_batch = GQL_BATCH;
			f->gql_good = 0;
		}
		return 0;
	}
	if (rc == 2) {
		f->graphql = 0;
		f->stats->graphql = 0;
		return 0;
	}
	f->gql_good = 0;
	if (n == 1) {
		f->stats->graphql_lost++;
		if (++f->gql_lost >= GQL_MAX_LOST) {
			f->graphql = 0;
			f->stats->graphql = 0;
		}
		return 0;
	}
	f->stats->graphql_halved++;
	if (f->gql_batch > n / 2)
		f->gql_batch = n / 2 ? n / 2 : 1;
	if (link_graphql(f, issues, n / 2, g, e) < 0)
		return -1;
	return link_graphql(f, issues + n / 2, n - n / 2, g + n / 2, e);
}

/* The REST way: the issue's timeline, page by page, then the pull
 * requests it left unsure, then a look-up of closing commits when no
 * merged pull request was named. */
static int link_rest(struct fetch *f, long long number,
		     struct gh_gathered *g, struct err *e)
{
	struct gh_scope sc = scope(f);
	struct buf url = BUF_INIT;
	char *next = NULL;
	cJSON *page = NULL;
	struct ghc_resp r;
	size_t i;
	int ret = -1;

	gh_gathered_release(g);
	ghc_resp_init(&r);
	buf_addf(&url, "%s/repos/%s/issues/%lld/timeline?per_page=%d",
		 ghc_api(f->c), f->repo, number, PER_PAGE);
	while (url.len) {
		ghc_resp_clear(&r);
		cJSON_Delete(page);
		page = NULL;
		if (ghc_request(f->c, url.ptr, GHC_JSON, NULL, &r, &page,
				e) < 0)
			goto out;
		if (!cJSON_IsArray(page)) {
			err_set(e, ERR_INPUT, "GET %s: not a list of events",
				url.ptr);
			goto out;
		}
		gh_map_timeline_page(&sc, page, g);
		free(next);
		next = gh_link_next(r.link);
		buf_reset(&url);
		if (next)
			buf_addstr(&url, next);
	}
	for (i = 0; i < g->prs.nr_unsure; i++) {
		cJSON *pr = NULL;

		buf_reset(&url);
		buf_addf(&url, "%s/repos/%s/pulls/%lld", ghc_api(f->c),
			 f->repo, g->prs.unsure[i]);
		ghc_resp_clear(&r);
		if (ghc_request(f->c, url.ptr, GHC_JSON, NULL, &r, &pr,
				e) < 0)
			goto out;
		gh_map_pull(g, g->prs.unsure[i], pr);
		cJSON_Delete(pr);
	}
	/* a closing commit explains the fix only when nothing else did */
	for (i = 0; !g->prs.nr && i < g->prs.nr_commits; i++) {
		ghc_resp_clear(&r);
		cJSON_Delete(page);
		page = NULL;
		if (ghc_request(f->c, g->prs.commits[i], GHC_JSON, NULL, &r,
				&page, e) < 0) {
			/* the commit is gone, unreachable or not on a branch
			   GitHub indexes: no pull request found through it */
			if (r.status == 404 || r.status == 409 ||
			    r.status == 410 || r.status == 422) {
				err_clear(e);
				continue;
			}
			goto out;
		}
		gh_map_commit_pulls(&sc, g->prs.commits[i], page, g);
	}
	g->complete = 1;
	ret = 0;
out:
	free(next);
	cJSON_Delete(page);
	ghc_resp_clear(&r);
	buf_release(&url);
	return ret;
}

/* Rebuild a diff from the paged file list of pull request `number`. */
static int diff_from_files(struct fetch *f, const char *repo,
			   long long number, struct fix *fx, struct err *e)
{
	struct gh_files fs;
	struct buf url = BUF_INIT;
	cJSON *page = NULL;
	char *next = NULL;
	struct ghc_resp r;
	int ret = -1;

	memset(&fs, 0, sizeof(fs));
	buf_init(&fs.diff, 0);
	ghc_resp_init(&r);
	buf_addf(&url, "%s/repos/%s/pulls/%lld/files?per_page=%d",
		 ghc_api(f->c), repo, number, PER_PAGE);
	while (url.len) {
		ghc_resp_clear(&r);
		cJSON_Delete(page);
		page = NULL;
		if (ghc_request(f->c, url.ptr, GHC_JSON, NULL, &r, &page,
				e) < 0)
			goto out;
		if (!cJSON_IsArray(page)) {
			err_set(e, ERR_INPUT, "GET %s: not a list of files",
				url.ptr);
			goto out;
		}
		gh_map_files_page(page, &fs);
		free(next);
		next = gh_link_next(r.link);
		buf_reset(&url);
		if (next)
			buf_addstr(&url, next);
	}
	if (fx->additions < 0)
		fx->additions = fs.additions > INT_MAX ? INT_MAX :
				(int)fs.additions;
	if (fx->deletions < 0)
		fx->deletions = fs.deletions > INT_MAX ? INT_MAX :
				(int)fs.deletions;
	if (fx->changed_files < 0)
		fx->changed_files = fs.files;
	fx->diff = buf_detach(&fs.diff, &fx->diff_len);
	fx->diff_partial = 1;
	f->stats->partial_diffs++;
	ret = 0;
out:
	free(next);
	cJSON_Delete(page);
	ghc_resp_clear(&r);
	buf_release(&url);
	buf_release(&fs.diff);
	return ret;
}

/* The diff of pull request `number` as a fix of this repository already
 * holds it (complete, not rebuilt), or NULL. */
static char *stored_diff(struct fetch *f, const char *repo, long long number,
			 size_t *len)
{
	struct buf pat = BUF_INIT;
	sqlite3_stmt *s;
	char *d = NULL;

	s = store_prepare(f->st, "SELECT fixes.diff FROM fixes JOIN items ON "
			  "items.id = fixes.item_id WHERE "
			  "lower(substr(fixes.url, -length(?1))) = lower(?1) "
			  "AND "
			  "fixes.number = ? AND fixes.diff_partial = 0 AND "
			  "fixes.diff IS NOT NULL LIMIT 1", NULL);
	if (!s)
		return NULL;
	buf_addf(&pat, "/%s/pull/%lld", repo, number);
	sqlite3_bind_text(s, 1, pat.ptr, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, number);
	/* unreadable: no cached diff, fetched again */
	if (store_step(f->st, s, "", NULL) > 0) {
		*len = (size_t)sqlite3_column_bytes(s, 0);
		d = xstrndup((const char *)sqlite3_column_text(s, 0), *len);
	}
	sqlite3_finalize(s);
	buf_release(&pat);
	return d;
}

static int fetch_diff(struct fetch *f, const char *repo, struct fix *fx,
		      struct err *e)
{
	struct buf url = BUF_INIT, key = BUF_INIT;
	struct ghc_resp r;
	int ret = -1;

	buf_addf(&url, "%s/repos/%s/pulls/%lld", ghc_api(f->c), repo,
		 fx->number);
	if (ghc_request(f->c, url.ptr, GHC_DIFF | GHC_ALLOW_406, NULL, &r,
			NULL, e) < 0)
		goto out;
	if (r.status == 304) {
		fx->diff = stored_diff(f, repo, fx->number, &fx->diff_len);
		if (fx->diff) {
			ret = 0;
			goto out;
		}
		/* not stored after all: ask without a condition */
		buf_addf(&key, "%s#diff", url.ptr);
		ghc_resp_clear(&r);
		if (ghc_cache_drop(f->c, key.ptr, e) < 0 ||
		    ghc_request(f->c, url.ptr, GHC_DIFF | GHC_ALLOW_406, NULL,
				&r, NULL, e) < 0)
			goto out;
	}
	if (r.status == 406) {
		ret = diff_from_files(f, repo, fx->number, fx, e);
		goto out;
	}
	fx->diff = buf_detach(&r.body, &fx->diff_len);
	ret = 0;
out:
	ghc_resp_clear(&r);
	buf_release(&url);
	buf_release(&key);
	return ret;
}

/* ---- progress bookkeeping in the study --------------------------------- */

static int state_load(struct fetch *f, char **next_url, struct err *e)
{
	sqlite3_stmt *s = store_prepare(f->st, "SELECT params, next_url, done "
					"FROM fetch_state WHERE repo = ?", e);
	int rc;

	*next_url = NULL;
	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, f->repo, -1, SQLITE_STATIC);
	rc = store_step(f->st, s, "reading the fetch state", e);
	if (rc > 0) {
		const char *p = (const char *)sqlite3_column_text(s, 0);
		const char *u = (const char *)sqlite3_column_text(s, 1);

		if (p && !strcmp(p, f->params) && u &&
		    !sqlite3_column_int(s, 2))
			*next_url = xstrdup(u);
	}
	sqlite3_finalize(s);
	return rc < 0 ? -1 : 0;
}

static int state_save(struct fetch *f, const char *next_url, int done,
		      struct err *e)
{
	sqlite3_stmt *s;
	char now[32];
	int rc;

	s = store_prepare(f->st, "INSERT INTO fetch_state (repo, params, "
			  "next_url, done, updated_at) VALUES (?, ?, ?, ?, ?) "
			  "ON CONFLICT (repo) DO UPDATE SET params = "
			  "excluded.params, next_url = excluded.next_url, "
			  "done = excluded.done, updated_at = "
			  "excluded.updated_at", e);
	if (!s)
		return -1;
	store_now(now);
	sqlite3_bind_text(s, 1, f->repo, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, f->params, -1, SQLITE_STATIC);
	store_bind_text(s, 3, next_url);
	sqlite3_bind_int(s, 4, done);
	sqlite3_bind_text(s, 5, now, -1, SQLITE_STATIC);
	rc = store_step(f->st, s, "saving the fetch state", e);
	sqlite3_finalize(s);
	if (rc < 0)
		return -1;
	return 0;
}

/* Was this issue finished before, at this updated_at, with a result these
 * options would keep as it is?  Then it needs no request. */
static int already_done(struct fetch *f, long long number,
			const char *updated_at)
{
	sqlite3_stmt *s;
	int done = 0, has_fix = 0, rc;

	s = store_prepare(f->st, "SELECT updated_at, has_fix FROM "
			  "fetch_issues WHERE repo = ? AND number = ?", NULL);
	if (!s)
		return 0;
	sqlite3_bind_text(s, 1, f->repo, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, number);
	/* unreadable: not done, so fetched again (never skipped) */
	rc = store_step(f->st, s, "", NULL);
	if (rc > 0) {
		const char *u = (const char *)sqlite3_column_text(s, 0);

		done = u && updated_at && !strcmp(u, updated_at);
		has_fix = sqlite3_column_int(s, 1);
	}
	sqlite3_finalize(s);
	if (!done || (!has_fix && f->o->require_fix))
		return done;
	/* it should be stored: is it? */
	s = store_prepare(f->st, "SELECT 1 FROM items WHERE repo = ? AND "
			  "number = ?", NULL);
	if (!s)
		return 0;
	sqlite3_bind_text(s, 1, f->repo, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, number);
	done = store_step(f->st, s, "", NULL) > 0;
	sqlite3_finalize(s);
	return done;
}

static int mark_done(struct fetch *f, long long number,
		     const char *updated_at, int has_fix, struct err *e)
{
	sqlite3_stmt *s;
	char now[32];
	int rc;

	s = store_prepare(f->st, "INSERT INTO fetch_issues (repo, number, "
			  "updated_at, has_fix, fetched_at) VALUES "
			  "(?, ?, ?, ?, ?) ON CONFLICT (repo, number) "
			  "DO UPDATE SET updated_at = excluded.updated_at, "
			  "has_fix = excluded.has_fix, "
			  "fetched_at = excluded.fetched_at", e);
	if (!s)
		return -1;
	store_now(now);
	sqlite3_bind_text(s, 1, f->repo, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, number);
	store_bind_text(s, 3, updated_at);
	sqlite3_bind_int(s, 4, has_fix);
	sqlite3_bind_text(s, 5, now, -1, SQLITE_STATIC);
	rc = store_step(f->st, s, "recording a fetched issue", e);
	sqlite3_finalize(s);
	if (rc < 0)
		return -1;
	return 0;
}

/* ---- one issue ---------------------------------------------------------- */

/*
 * The fixes a list named for issue `number` (an imported spreadsheet's
 * pull request column), which GitHub's links may not show: each one not
 * found by linking is asked for (GET .../pulls/N) and kept as a fix,
 * merged or not, since the team named it.
 */
static int named_fixes(struct fetch *f, long long number,
		       struct gh_gathered *g, struct err *e)
{
	sqlite3_stmt *s;
	struct named { long long number; char *repo; } *v = NULL;
	size_t n = 0, alloc = 0, i, j;
	struct buf url = BUF_INIT;
	struct ghc_resp r;
	int rc, ret = -1;

	s = store_prepare(f->st, "SELECT fixes.number, fixes.url FROM fixes "
			  "JOIN items "
			  "ON items.id = fixes.item_id WHERE items.repo = ? "
			  "COLLATE NOCASE AND items.number = ? AND "
			  "items.missing AND fixes.number IS NOT NULL", e);
	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, f->repo, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, number);
	while ((rc = store_step(f->st, s, "reading the fixes a list named",
				e)) > 0) {
		const char *u = (const char *)sqlite3_column_text(s, 1);
		char *repo = NULL;
		long long num;

		ALLOC_GROW(v, n + 1, alloc);
		v[n].number = sqlite3_column_int64(s, 0);
		v[n].repo = NULL;
		/* its URL may name another repository */
		if (u && !item_parse_ref(u, &repo, &num, NULL) &&
		    num == v[n].number && strcasecmp(repo, f->repo) &&
		    (!f->canon || strcasecmp(repo, f->canon)))
			v[n].repo = repo;
		else
			free(repo);
		n++;
	}
	sqlite3_finalize(s);
	if (rc < 0) {
		for (i = 0; i < n; i++)
			free(v[i].repo);
		free(v);
		return -1;
	}
	ghc_resp_init(&r);
	for (i = 0; i < n; i++) {
		cJSON *pr = NULL;

		for (j = 0; j < g->prs.nr; j++)
			if (g->prs.v[j].number == v[i].number &&
			    !g->prs.v[j].repo == !v[i].repo &&
			    (!v[i].repo ||
			     !strcasecmp(g->prs.v[j].repo, v[i].repo)))
				break;
		if (j < g->prs.nr)
			continue;	/* linked anyway */
		buf_reset(&url);
		buf_addf(&url, "%s/repos/%s/pulls/%lld", ghc_api(f->c),
			 v[i].repo ? v[i].repo : f->repo, v[i].number);
		ghc_resp_clear(&r);
		if (ghc_request(f->c, url.ptr, GHC_JSON, NULL, &r, &pr,
				e) < 0)
			goto out;
		gh_prrefs_add(&g->prs, v[i].repo, v[i].number,
			      jstr(pr, "title"),
			      jstr(pr, "body"), jstr(pr, "html_url"),
			      jstr(pr, "merged_at"), jint(pr, "additions"),
			      jint(pr, "deletions"),
			      jint(pr, "changed_files"));
		cJSON_Delete(pr);
	}
	ret = 0;
out:
	ghc_resp_clear(&r);
	buf_release(&url);
	for (i = 0; i < n; i++)
		free(v[i].repo);
	free(v);
	return ret;
}

static int finish_issue(struct fetch *f, const cJSON *issue,
			struct gh_gathered *g, struct err *e)
{
	struct item it;
	long long number = jnum(issue, "number", 0);
	const char *updated_at = jstr(issue, "updated_at");
	size_t i;
	int ret = -1;

	memset(&it, 0, sizeof(it));
	if (!g->complete && link_rest(f, number, g, e) < 0) {
		if (e->code != ERR_NOTFOUND)
			return -1;
		/* deleted or hidden since the list was read: not
		   recorded, so a later fetch looks again */
		err_clear(e);
		f->stats->vanished++;
		progress(f);
		return 0;
	}
	if (f->listed && named_fixes(f, number, g, e) < 0)
		return -1;
	if (!g->prs.nr && f->o->require_fix) {
		if (mark_done(f, number, updated_at, 0, e) < 0)
			return -1;
		progress(f);
		return 0;
	}
	if (gh_item_from_issue(&it, f->repo, issue, e) < 0)
		return -1;
	it.comments = g->comments.v;
	it.nr_comments = g->comments.nr;
	memset(&g->comments, 0, sizeof(g->comments));

	if (g->prs.nr > 1)
		qsort(g->prs.v, g->prs.nr, sizeof(*g->prs.v), gh_prref_cmp);
	it.fixes = xcalloc(g->prs.nr + 1, sizeof(*it.fixes));
	for (i = 0; i < g->prs.nr; i++) {
		struct gh_prref *p = &g->prs.v[i];
		struct fix *fx = &it.fixes[it.nr_fixes++];

		fx->number = p->number;
		fx->title = p->title;
		fx->body = p->body;
		fx->url = p->url;
		fx->merged_at = p->merged_at;
		p->title = p->body = p->url = p->merged_at = NULL;
		fx->additions = p->additions;
		fx->deletions = p->deletions;
		fx->changed_files = p->changed_files;
		if (fetch_diff(f, p->repo ? p->repo : f->repo, fx, e) < 0)
			goto out;
	}
	/* complete now: store it even when a stop was asked meanwhile */
	if (store_begin(f->st, e) < 0)
		goto out;
	if (item_save(f->st, &it, e) < 0 ||
	    mark_done(f, number, updated_at, it.nr_fixes > 0, e) < 0) {
		store_rollback(f->st);
		goto out;
	}
	if (store_commit(f->st, e) < 0)
		goto out;
	f->stored++;
	f->stats->kept++;
	if (it.nr_fixes)
		f->stats->kept_fixed++;
	f->stats->fixes += (long)it.nr_fixes;
	progress(f);
	ret = 0;
out:
	item_release(&it);
	return ret;
}

/* ---- pages -------------------------------------------------------------- */

static int limit_reached(const struct fetch *f)
{
	return f->o->limit > 0 && f->stored >= f->o->limit;
}

void gh_stats_release(struct gh_stats *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nr_failed; i++) {
		free(s->failed[i].repo);
		free(s->failed[i].what);
	}
	free(s->failed);
	s->failed = NULL;
	s->nr_failed = s->alloc_failed = 0;
	free(s->renamed_to);
	s->renamed_to = NULL;
}

/* One issue failed with `e`: note it and clear `e`, or return -1 when the
 * fetch should stop (see fatal_error and GH_MAX_FAILED_IN_A_ROW). */
static int issue_failed(struct fetch *f, long long number, struct err *e)
{
	struct gh_failure *x;

	if (fatal_error(e->code))
		return -1;
	if (e->code == ERR_NET &&
	    ++f->failed_in_a_row >= GH_MAX_FAILED_IN_A_ROW)
		return err_prefix(e, "%d issues in a row failed, the last "
				  "one", f->failed_in_a_row);
	ALLOC_GROW(f->stats->failed, f->stats->nr_failed + 1,
		   f->stats->alloc_failed);
	x = &f->stats->failed[f->stats->nr_failed++];
	x->repo = xstrdup(f->repo);
	x->number = number;
	x->what = xstrdup(e->msg);
	err_clear(e);
	progress(f);
	return 0;
}

/* Work through the candidates of one page.  Returns 0, or -1. */
static int do_page(struct fetch *f, const cJSON **todo, size_t n,
		   struct err *e)
{
	struct gh_gathered *g = xcalloc(n + 1, sizeof(*g));
	size_t i = 0, j;
	int ret = -1;

	while (i < n) {
		size_t batch = n - i;

		if (limit_reached(f))
			break;
		if (f->graphql && batch > f->gql_batch)
			batch = f->gql_batch;
		else if (batch > GQL_BATCH)
			batch = GQL_BATCH;
		/* without --require-fix each issue is kept: ask no more
		   than the limit needs */
		if (f->o->limit > 0 && !f->o->require_fix &&
		    batch > (size_t)(f->o->limit - f->stored))
			batch = (size_t)(f->o->limit - f->stored);
		if (link_graphql(f, todo + i, batch, g + i, e) < 0)
			goto out;
		for (j = i; j < i + batch; j++) {
			if (stopped(f)) {
				err_set(e, ERR_INTERRUPTED, "interrupted");
				goto out;
			}
			if (limit_reached(f))
				break;
			if (finish_issue(f, todo[j], &g[j], e) < 0) {
				if (issue_failed(f, jnum(todo[j], "number", 0),
						 e) < 0)
					goto out;
			} else {
				f->failed_in_a_row = 0;
			}
			gh_gathered_release(&g[j]);
		}
		i += batch;
	}
	ret = 0;
out:
	for (j = 0; j < n; j++)
		gh_gathered_release(&g[j]);
	free(g);
	return ret;
}

/*
 * The issue list names the repository as it is called now (after a
 * redirect, for a renamed or transferred one).  When that is not the name
 * asked for, the new name is used for the rest of the fetch, the old one
 * becomes an alias (items stored under it move to the new name), and
 * what the study remembers of fetching it moves along.
 */
static int follow_rename(struct fetch *f, struct err *e)
{
	static const char *const moves[] = {
		"UPDATE OR IGNORE fetch_issues SET repo = ?2 WHERE repo = ?1",
		"DELETE FROM fetch_issues WHERE repo = ?1",
		"DELETE FROM fetch_state WHERE repo = ?1",
		/* the answers cached under the old URLs are the new ones' */
		"UPDATE OR IGNORE http_cache SET url = ?4 || substr(url, "
		"length(?3) + 1) WHERE substr(url, 1, length(?3)) = ?3",
	};
	struct buf from = BUF_INIT, to = BUF_INIT;
	size_t i;

	if (!item_valid_repo(f->canon) || !strcasecmp(f->canon, f->repo))
		return 0;
	if (store_begin(f->st, e) < 0)
		return -1;
	if (item_note_alias(f->st, f->repo, f->canon, e) < 0)
		goto fail;
	for (i = 0; i < sizeof(moves) / sizeof(moves[0]); i++) {
		sqlite3_stmt *s = store_prepare(f->st, moves[i], e);
		int rc;

		if (!s)
			goto fail;
		sqlite3_bind_text(s, 1, f->repo, -1, SQLITE_STATIC);
		if (sqlite3_bind_parameter_count(s) > 1)
			sqlite3_bind_text(s, 2, f->canon, -1, SQLITE_STATIC);
		if (sqlite3_bind_parameter_count(s) > 2) {
			buf_reset(&from);
			buf_reset(&to);
			buf_addf(&from, "%s/repos/%s/", ghc_api(f->c),
				 f->repo);
			buf_addf(&to, "%s/repos/%s/", ghc_api(f->c),
				 f->canon);
			sqlite3_bind_text(s, 3, from.ptr, -1, SQLITE_STATIC);
			sqlite3_bind_text(s, 4, to.ptr, -1, SQLITE_STATIC);
		}
		rc = store_step(f->st, s, "following a renamed repository",
				e);
		sqlite3_finalize(s);
		if (rc < 0)
			goto fail;
	}
	buf_release(&from);
	buf_release(&to);
	if (store_commit(f->st, e) < 0)
		return -1;
	free(f->stats->renamed_to);
	f->stats->renamed_to = xstrdup(f->canon);
	free(f->repo);
	f->repo = xstrdup(f->canon);
	return 0;
fail:
	buf_release(&from);
	buf_release(&to);
	store_rollback(f->st);
	return -1;
}

static int date_arg(const char *s, const char *what, int end_of_day,
		    double *t, struct err *e)
{
	if (item_parse_date(s, t) < 0)
		return err_set(e, ERR_USAGE, "%s %s: not a date (use "
			       "YYYY-MM-DD or an ISO 8601 time)", what, s);
	if (end_of_day && strlen(s) == 10)
		*t += 86399;
	return 0;
}

static char *first_url(struct fetch *f)
{
	const struct gh_fetch_opts *o = f->o;
	struct buf b = BUF_INIT;

	buf_addf(&b, "%s/repos/%s/issues?state=%s", ghc_api(f->c), f->repo,
		 o->state && *o->state ? o->state : "closed");
	if (o->label && *o->label) {
		char *esc = ghc_escape(f->c, o->label);

		buf_addf(&b, "&labels=%s", esc ? esc : "");
		free(esc);
	}
	buf_addf(&b, "&sort=created&direction=asc&per_page=%d", PER_PAGE);
	if (o->since) {
		char iso[40];
		time_t t = (time_t)f->since_t;
		struct tm tm;

		gmtime_r(&t, &tm);
		strftime(iso, sizeof(iso), "%Y-%m-%dT%H:%M:%SZ", &tm);
		buf_addf(&b, "&since=%s", iso);
	}
	return buf_detach(&b, NULL);
}

/* ---- lists of known bugs ---------------------------------------------- */

void gh_refs_free(struct gh_ref *refs, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		free(refs[i].repo);
	free(refs);
}

/* Is s[0..n) a repository's page rather than an issue's? */
static int repo_url(const char *s, size_t n)
{
	struct buf b = BUF_INIT;
	const char *p;
	int ret = 0;

	buf_add(&b, s, n);
	p = strstr(b.ptr, "://");
	if (p && (p = strchr(p + 3, '/'))) {
		size_t k = strlen(p + 1);

		while (k && p[k] == '/')
			k--;
		b.ptr[(p + 1 - b.ptr) + k] = '\0';
		ret = item_valid_repo(p + 1);
	}
	buf_release(&b);
	return ret;
}

int gh_parse_refs(const char *text, size_t len, const char *origin,
		  struct gh_ref **refs, size_t *nr, struct err *e)
{
	struct gh_ref *v = NULL;
	size_t n = 0, alloc = 0, i = 0;
	long line = 0;

	*refs = NULL;
	*nr = 0;
	if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3))
		i = 3;			/* a byte order mark */
	while (i < len) {
		const char *ls = text + i, *nl = memchr(ls, '\n', len - i);
		size_t ll = nl ? (size_t)(nl - ls) : len - i, k = 0;

		i += ll + (nl ? 1 : 0);
		line++;
		if (memchr(ls, '\0', ll)) {
			gh_refs_free(v, n);
			return err_set(e, ERR_INPUT, "%s:%ld: a NUL byte in "
				       "the list", origin, line);
		}
		/* a comment: '#' and no owner/repo before it */
		while (k < ll && (ls[k] == ' ' || ls[k] == '\t'))
			k++;
		if (k < ll && ls[k] == '#')
			continue;
		while (k < ll) {
			size_t w;
			char *word, *repo;
			long long num;
			int kind;

			while (k < ll && strchr(" \t\r,;", ls[k]))
				k++;
			w = k;
			while (w < ll && !strchr(" \t\r,;", ls[w]))
				w++;
			if (w == k)
				break;
			word = xstrndup(ls + k, w - k);
			if (item_parse_ref(word, &repo, &num, &kind) < 0) {
				size_t hl;
				const char *h = item_url_foreign_host(word,
								      &hl);

				if (h)
					err_set(e, ERR_INPUT, "%s:%ld: %s: %.*s "
						"is not GitHub (github.com, or "
						"the host of --api-url or "
						"$GITHUB_API_URL)", origin, line,
						word, (int)hl, h);
				else
					err_set(e, ERR_INPUT, "%s:%ld: %s: %s",
						origin, line, word,
						repo_url(word, strlen(word)) ?
						"a repository, not an issue "
						"or pull request (fetch "
						"OWNER/REPO takes a whole "
						"repository)" : "not a GitHub "
						"issue or pull request "
						"(expected its URL or "
						"owner/repo#N)");
				free(word);
				gh_refs_free(v, n);
				return -1;
			}
			free(word);
			ALLOC_GROW(v, n + 1, alloc);
			v[n].repo = repo;
			v[n].number = num;
			v[n].kind = kind;
			v[n].line = line;
			n++;
			k = w;
		}
	}
	*refs = v;
	*nr = n;
	return 0;
}

int gh_refs_missing(struct store *st, struct gh_ref **refs, size_t *nr,
		    struct err *e)
{
	sqlite3_stmt *s = store_prepare(st, "SELECT repo, number, kind = "
					"'pull' FROM items WHERE missing "
					"ORDER BY repo, number", e);
	struct gh_ref *v = NULL;
	size_t n = 0, alloc = 0;
	int rc;

	*refs = NULL;
	*nr = 0;
	if (!s)
		return -1;
	while ((rc = store_step(st, s, "listing items to fetch", e)) > 0) {
		ALLOC_GROW(v, n + 1, alloc);
		v[n].repo = xstrdup((const char *)sqlite3_column_text(s, 0));
		v[n].number = sqlite3_column_int64(s, 1);
		v[n].kind = sqlite3_column_int(s, 2) ? ITEM_REF_PULL :
			    ITEM_REF_ANY;
		v[n].line = (long)n + 1;
		n++;
	}
	sqlite3_finalize(s);
	if (rc < 0) {
		gh_refs_free(v, n);
		return -1;
	}
	*refs = v;
	*nr = n;
	return 0;
}

/*
 * A pull request given alone, answered by the issue endpoint: an item of
 * its own, whose description stands for the issue's and which is its own
 * fix (its figures from its diff; days open from its opening to its
 * close).  Comments are not asked for (the count is kept).
 */
static int finish_pull(struct fetch *f, const cJSON *obj, struct err *e)
{
	struct item it;
	struct fix *fx;
	long long number = jnum(obj, "number", 0);
	int ret = -1;

	memset(&it, 0, sizeof(it));
	if (gh_item_from_issue(&it, f->repo, obj, e) < 0)
		return -1;
	it.is_pull = 1;
	it.fixes = xcalloc(2, sizeof(*it.fixes));
	it.nr_fixes = 1;
	fx = &it.fixes[0];
	fx->number = number;
	fx->title = xstrdup_or_null(jstr(obj, "title"));
	fx->body = xstrdup_or_null(jstr(obj, "body"));
	fx->url = xstrdup_or_null(jstr(obj, "html_url"));
	fx->merged_at = xstrdup_or_null(jstr(jget(obj, "pull_request"),
					     "merged_at"));
	fx->additions = fx->deletions = fx->changed_files = -1;
	if (fetch_diff(f, f->repo, fx, e) < 0)
		goto out;
	if (store_begin(f->st, e) < 0)
		goto out;
	if (item_save(f->st, &it, e) < 0 ||
	    mark_done(f, number, jstr(obj, "updated_at"), 1, e) < 0) {
		store_rollback(f->st);
		goto out;
	}
	if (store_commit(f->st, e) < 0)
		goto out;
	f->stored++;
	f->stats->kept++;
	f->stats->kept_fixed++;
	f->stats->fixes++;
	f->stats->pulls_alone++;
	progress(f);
	ret = 0;
out:
	item_release(&it);
	return ret;
}

static int cmp_ref(const void *a, const void *b)
{
	const struct gh_ref *x = a, *y = b;
	int c = strcasecmp(x->repo, y->repo);

	if (c)
		return c;
	return x->number < y->number ? -1 : x->number > y->number;
}

/* Fetch the entries refs[0..n) of one repository (f->repo). */
static int fetch_group(struct fetch *f, const struct gh_ref *refs, size_t n,
		       struct err *e)
{
	cJSON **objs = xcalloc(n + 1, sizeof(*objs));
	const cJSON **todo = xcalloc(n + 1, sizeof(*todo));
	struct buf url = BUF_INIT;
	struct ghc_resp r;
	size_t i, nt = 0;
	int ret = -1;

	ghc_resp_init(&r);
	for (i = 0; i < n; i++) {
		const cJSON *o;

		if (stopped(f)) {
			err_set(e, ERR_INTERRUPTED, "interrupted");
			goto out;
		}
		if (i && refs[i].number == refs[i - 1].number)
			continue;	/* named twice */
		buf_reset(&url);
		buf_addf(&url, "%s/repos/%s/issues/%lld", ghc_api(f->c),
			 f->repo, refs[i].number);
		ghc_resp_clear(&r);
		if (ghc_request(f->c, url.ptr, GHC_JSON, NULL, &r, &objs[i],
				e) < 0) {
			if (issue_failed(f, refs[i].number, e) < 0)
				goto out;
			continue;
		}
		o = objs[i];
		if (!cJSON_IsObject(o) || jnum(o, "number", -1) <= 0 ||
		    !jstr(o, "title")) {
			err_set(e, ERR_INPUT, "GET %s: not an issue", url.ptr);
			if (issue_failed(f, refs[i].number, e) < 0)
				goto out;
			continue;
		}
		if (!f->canon) {
			f->canon = gh_repo_from_api_url(jstr(o,
							  "repository_url"));
			if (f->canon && follow_rename(f, e) < 0)
				goto out;
		}
		f->stats->seen++;
		if (already_done(f, jnum(o, "number", 0),
				 jstr(o, "updated_at"))) {
			f->stats->unchanged++;
			continue;
		}
		if (!jget(o, "pull_request")) {
			todo[nt++] = o;
			continue;
		}
		if (finish_pull(f, o, e) < 0) {
			if (issue_failed(f, refs[i].number, e) < 0)
				goto out;
		} else {
			f->failed_in_a_row = 0;
		}
	}
	progress(f);
	if (do_page(f, todo, nt, e) < 0)
		goto out;
	ret = 0;
out:
	for (i = 0; i < n; i++)
		cJSON_Delete(objs[i]);
	free(objs);
	free(todo);
	ghc_resp_clear(&r);
	buf_release(&url);
	return ret;
}

int gh_fetch_list(struct store *st, const struct gh_fetch_opts *o,
		  const struct gh_ref *refs, size_t nr, struct gh_stats *stats,
		  struct err *e)
{
	struct gh_stats local;
	struct fetch f;
	struct gh_ref *v = NULL;
	size_t i, j;
	int ret = -1;

	if (!stats)
		stats = &local;
	memset(stats, 0, sizeof(*stats));
	stats->rate_remaining = stats->rate_limit = -1;
	memset(&f, 0, sizeof(f));
	f.st = st;
	f.o = o;
	f.stats = stats;
	f.listed = 1;
	/* one group per repository, by its current name */
	v = xcalloc(nr + 1, sizeof(*v));
	for (i = 0; i < nr; i++) {
		v[i] = refs[i];
		v[i].repo = item_canonical_repo(st, refs[i].repo, e);
		if (!v[i].repo) {
			gh_refs_free(v, i);
			return -1;
		}
	}
	qsort(v, nr, sizeof(*v), cmp_ref);
	f.c = ghc_new(st, o, stats, e);
	if (!f.c)
		goto out;
	f.graphql = o->token && *o->token && !o->no_graphql;
	f.gql_batch = GQL_BATCH;
	stats->graphql = f.graphql;
	for (i = 0; i < nr; i = j) {
		for (j = i + 1; j < nr && !strcasecmp(v[j].repo, v[i].repo);
		     j++)
			;
		free(f.repo);
		free(f.canon);
		f.canon = NULL;
		f.repo = xstrdup(v[i].repo);
		if (fetch_group(&f, v + i, j - i, e) < 0)
			goto out;
	}
	ret = 0;
out:
	progress(&f);
	free(f.repo);
	free(f.canon);
	ghc_free(f.c);
	gh_refs_free(v, nr);
	return ret;
}

int gh_fetch(struct store *st, const struct gh_fetch_opts *o,
	     struct gh_stats *stats, struct err *e)
{
	struct gh_stats local;
	struct fetch f;
	struct buf params = BUF_INIT;
	const cJSON **todo = NULL;
	size_t alloc_todo = 0;
	cJSON *page = NULL;
	char *url = NULL, *next = NULL, *start = NULL;
	const char *state = o->state && *o->state ? o->state : "closed";
	struct ghc_resp r;
	int ret = -1;

	if (!stats)
		stats = &local;
	memset(stats, 0, sizeof(*stats));
	stats->rate_remaining = stats->rate_limit = -1;
	memset(&f, 0, sizeof(f));
	ghc_resp_init(&r);
	f.st = st;
	f.o = o;
	f.stats = stats;
	if (!o->repo || !item_valid_repo(o->repo))
		return err_set(e, ERR_USAGE, "%s: not a repository (expected "
			       "OWNER/REPO)", o->repo ? o->repo : "(none)");
	if (strcmp(state, "closed") && strcmp(state, "open") &&
	    strcmp(state, "all"))
		return err_set(e, ERR_USAGE, "--state %s: expected closed, "
			       "open or all", state);
	if (o->label && strpbrk(o->label, "\r\n"))
		return err_set(e, ERR_USAGE, "--label: a line break in a "
			       "label");
	if (o->since && date_arg(o->since, "--since", 0, &f.since_t, e) < 0)
		return -1;
	if (o->until && date_arg(o->until, "--until", 1, &f.until_t, e) < 0)
		return -1;
	f.has_since = !!o->since;
	f.has_until = !!o->until;
	/* a repository known to be renamed is asked for by its new name */
	f.repo = item_canonical_repo(st, o->repo, e);
	if (!f.repo)
		goto out;
	if (strcmp(f.repo, o->repo))
		stats->renamed_to = xstrdup(f.repo);
	f.c = ghc_new(st, o, stats, e);
	if (!f.c)
		goto out;
	f.graphql = o->token && *o->token && !o->no_graphql;
	f.gql_batch = GQL_BATCH;
	stats->graphql = f.graphql;

	/* what the list depends on, and what decides what is kept */
	buf_addf(&params, "api=%s state=%s label=%s since=%s until=%s "
		 "require_fix=%d", ghc_api(f.c), state,
		 o->label ? o->label : "", o->since ? o->since : "",
		 o->until ? o->until : "", !!o->require_fix);
	f.params = buf_detach(&params, NULL);
	start = first_url(&f);
	if (state_load(&f, &url, e) < 0)
		goto out;
	if (!url)
		url = xstrdup(start);
	if (state_save(&f, url, 0, e) < 0)
		goto out;

	while (url) {
		const cJSON *is;
		size_t n = 0;
		int past_until = 0;

		if (stopped(&f)) {
			err_set(e, ERR_INTERRUPTED, "interrupted");
			goto out;
		}
		ghc_resp_clear(&r);
		cJSON_Delete(page);
		page = NULL;
		if (ghc_request(f.c, url, GHC_JSON, NULL, &r, &page, e) < 0)
			goto out;
		if (!cJSON_IsArray(page)) {
			err_set(e, ERR_INPUT, "GET %s: not a list of issues",
				url);
			goto out;
		}
		stats->pages++;
		free(next);
		next = gh_link_next(r.link);
		cJSON_ArrayForEach(is, page) {
			if (f.canon)
				break;
			f.canon = gh_repo_from_api_url(jstr(is,
							 "repository_url"));
			if (f.canon && follow_rename(&f, e) < 0)
				goto out;
		}
		cJSON_ArrayForEach(is, page) {
			double created;
			const char *ca = jstr(is, "created_at");

			if (jget(is, "pull_request"))
				continue;
			if (jnum(is, "number", -1) <= 0 || !jstr(is, "title"))
				continue;
			if (strcmp(state, "all") && jstr(is, "state") &&
			    strcmp(jstr(is, "state"), state))
				continue;
			if (ca && !item_parse_date(ca, &created)) {
				if (f.has_since && created < f.since_t)
					continue;
				if (f.has_until && created > f.until_t) {
					past_until = 1;
					continue;
				}
			}
			stats->seen++;
			if (already_done(&f, jnum(is, "number", 0),
					 jstr(is, "updated_at"))) {
				stats->unchanged++;
				continue;
			}
			ALLOC_GROW(todo, n + 1, alloc_todo);
			todo[n++] = is;
		}
		progress(&f);
		if (do_page(&f, todo, n, e) < 0)
			goto out;
		if (limit_reached(&f))
			break;
		free(url);
		url = (next && !past_until) ? next : NULL;
		if (url == next)
			next = NULL;
		if (state_save(&f, url, !url, e) < 0)
			goto out;
	}
	ret = 0;
out:
	progress(&f);
	cJSON_Delete(page);
	ghc_resp_clear(&r);
	free(todo);
	free(url);
	free(next);
	free(start);
	free(f.params);
	free(f.canon);
	free(f.repo);
	ghc_free(f.c);
	return ret;
}
