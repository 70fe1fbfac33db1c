/* SPDX-License-Identifier: MIT */
/*
 * github: closed bug issues and their fixing pull requests, from GitHub.
 * See github.h for the contract.
 *
 * The work is split along its seams: ghclient.c makes each request
 * (retries, limits, cache), gh_map.c reads what GitHub answers (issues,
 * GraphQL answers, timelines, file lists: pure functions, unit-tested
 * without a server), and this file drives the fetch: which requests, in
 * which order, and what is stored when, with its family (github_int.h):
 * gh_state.c (what the study remembers of fetching), gh_graphql.c and
 * gh_rest.c (linking), gh_diff.c (diffs), gh_issue.c (one issue, one
 * page).  Lists of known bugs are read by gh_refs.c.
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

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "core/base/buf.h"
#include "core/github/github_int.h"

/* ---- the fetch --------------------------------------------------------- */

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

/* Check gh_fetch()'s options and read its dates into `f`.  Returns 0, or
 * -1 with ERR_USAGE naming the option. */
static int check_opts(struct fetch *f, const char *state, struct err *e)
{
	const struct gh_fetch_opts *o = f->o;

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
	if (o->since && date_arg(o->since, "--since", 0, &f->since_t, e) < 0)
		return -1;
	if (o->until && date_arg(o->until, "--until", 1, &f->until_t, e) < 0)
		return -1;
	f->has_since = !!o->since;
	f->has_until = !!o->until;
	return 0;
}

/* The list page to start at: the one a stopped fetch with the same
 * options was working on, else the first; remembered as the page being
 * worked on.  Returns it (owned), or NULL with `e` filled. */
static char *start_page(struct fetch *f, const char *state, struct err *e)
{
	const struct gh_fetch_opts *o = f->o;
	struct buf params = BUF_INIT;
	char *url = NULL;

	/* what the list depends on, and what decides what is kept */
	buf_addf(&params, "api=%s state=%s label=%s since=%s until=%s "
		 "require_fix=%d", ghc_api(f->c), state,
		 o->label ? o->label : "", o->since ? o->since : "",
		 o->until ? o->until : "", !!o->require_fix);
	f->params = buf_detach(&params, NULL);
	if (gh_state_load(f, &url, e) < 0)
		return NULL;
	if (!url)
		url = first_url(f);
	if (gh_state_save(f, url, 0, e) < 0) {
		free(url);
		return NULL;
	}
	return url;
}

/*
 * The issues of one list page worth working on, appended to
 * (*todo)[*n..] (borrowed from `page`; *todo grows with *alloc): not pull
 * requests, in the state asked for, created within the dates, and not
 * finished before unchanged.  The first issue naming its repository
 * settles the repository's current name (gh_follow_rename()).
 * *past_until is set when an issue was created after --until.  Returns 0,
 * or -1 with `e` filled.
 */
static int page_candidates(struct fetch *f, const cJSON *page,
			   const char *state, const cJSON ***todo,
			   size_t *alloc, size_t *n, int *past_until,
			   struct err *e)
{
	const cJSON *is;

	cJSON_ArrayForEach(is, page) {
		if (f->canon)
			break;
		f->canon = gh_repo_from_api_url(jstr(is, "repository_url"));
		if (f->canon && gh_follow_rename(f, e) < 0)
			return -1;
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
			if (f->has_since && created < f->since_t)
				continue;
			if (f->has_until && created > f->until_t) {
				*past_until = 1;
				continue;
			}
		}
		f->stats->seen++;
		if (gh_already_done(f, jnum(is, "number", 0),
				    jstr(is, "updated_at"))) {
			f->stats->unchanged++;
			continue;
		}
		ALLOC_GROW(*todo, *n + 1, *alloc);
		(*todo)[(*n)++] = is;
	}
	return 0;
}

/* ---- lists of known bugs ---------------------------------------------- */

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
			if (gh_issue_failed(f, refs[i].number, e) < 0)
				goto out;
			continue;
		}
		o = objs[i];
		if (!cJSON_IsObject(o) || jnum(o, "number", -1) <= 0 ||
		    !jstr(o, "title")) {
			err_set(e, ERR_INPUT, "GET %s: not an issue", url.ptr);
			if (gh_issue_failed(f, refs[i].number, e) < 0)
				goto out;
			continue;
		}
		if (!f->canon) {
			f->canon = gh_repo_from_api_url(jstr(o,
							  "repository_url"));
			if (f->canon && gh_follow_rename(f, e) < 0)
				goto out;
		}
		f->stats->seen++;
		if (gh_already_done(f, jnum(o, "number", 0),
				    jstr(o, "updated_at"))) {
			f->stats->unchanged++;
			continue;
		}
		if (!jget(o, "pull_request")) {
			todo[nt++] = o;
			continue;
		}
		if (gh_finish_pull(f, o, e) < 0) {
			if (gh_issue_failed(f, refs[i].number, e) < 0)
				goto out;
		} else {
			f->failed_in_a_row = 0;
		}
	}
	progress(f);
	if (gh_do_page(f, todo, nt, e) < 0)
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
	const cJSON **todo = NULL;
	size_t alloc_todo = 0;
	cJSON *page = NULL;
	char *url = NULL, *next = NULL;
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
	if (check_opts(&f, state, e) < 0)
		return -1;
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
	url = start_page(&f, state, e);
	if (!url)
		goto out;

	while (url) {
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
		if (page_candidates(&f, page, state, &todo, &alloc_todo, &n,
				    &past_until, e) < 0)
			goto out;
		progress(&f);
		if (gh_do_page(&f, todo, n, e) < 0)
			goto out;
		if (limit_reached(&f))
			break;
		free(url);
		url = (next && !past_until) ? next : NULL;
		if (url == next)
			next = NULL;
		if (gh_state_save(&f, url, !url, e) < 0)
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
	free(f.params);
	free(f.canon);
	free(f.repo);
	ghc_free(f.c);
	return ret;
}
