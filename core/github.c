/*
 * github: closed bug issues and their fixing pull requests, from GitHub.
 * See github.h for the contract.
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
 * that closed the issue; a cross-reference from a merged pull request counts as a fix
 * even when it only mentions the issue, as studies of this kind do.
 * Resuming at a remembered page assumes the pages before it did not
 * shrink meanwhile (an issue deleted or transferred away shifts later
 * issues back a page); a later complete fetch, which starts at page one,
 * picks up any issue so skipped.
 */
#include "core/github.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "core/buf.h"
#include "core/ghclient.h"

#define PER_PAGE 100
#define GQL_BATCH 50
#define GQL_MAX_LOST 3	/* single issues lost in a row: GraphQL is down */

/* ---- paging ------------------------------------------------------------ */

char *gh_link_next(const char *link)
{
	const char *p = link;

	while (p && *p) {
		const char *lt = strchr(p, '<'), *gt, *end;

		if (!lt)
			break;
		gt = strchr(lt, '>');
		if (!gt)
			break;
		end = strchr(gt, ',');
		if (!end)
			end = gt + strlen(gt);
		/* the parameters between '>' and the next ',' */
		{
			const char *q = gt + 1;

			while (q < end) {
				const char *rel = strstr(q, "rel=");

				if (!rel || rel >= end)
					break;
				rel += 4;
				if (*rel == '"')
					rel++;
				while (rel < end && *rel != '"' &&
				       *rel != ';') {
					size_t n = strcspn(rel, " \";,");

					if (n == 4 && !strncmp(rel, "next", 4))
						return xstrndup(lt + 1,
							(size_t)(gt - lt - 1));
					rel += n;
					while (*rel == ' ')
						rel++;
				}
				q = rel;
			}
		}
		p = *end ? end + 1 : end;
	}
	return NULL;
}

/* ---- JSON helpers ------------------------------------------------------- */

static const cJSON *jget(const cJSON *o, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(o, key);
}

static const char *jstr(const cJSON *o, const char *key)
{
	const cJSON *v = jget(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* A number as a long long; `def` when absent, not a number, or outside
 * what a long long holds (converting that would be undefined). */
static long long jnum(const cJSON *o, const char *key, long long def)
{
	const cJSON *v = jget(o, key);

	if (!cJSON_IsNumber(v) || !(v->valuedouble > -9.2e18 &&
				    v->valuedouble < 9.2e18))
		return def;
	return (long long)v->valuedouble;
}

static int jint(const cJSON *o, const char *key)
{
	long long v = jnum(o, key, -1);

	return v < 0 || v > 0x7fffffff ? -1 : (int)v;
}

/* user.login, or NULL for a deleted ("ghost") account */
static const char *jlogin(const cJSON *o, const char *key)
{
	return jstr(jget(o, key), "login");
}

/* ---- issues, comments, pull requests ----------------------------------- */

int gh_item_from_issue(struct item *it, const char *repo,
		       const cJSON *issue, struct err *e)
{
	const cJSON *labels, *l;
	long long number = jnum(issue, "number", -1);
	const char *title = jstr(issue, "title");
	size_t n = 0;

	if (!cJSON_IsObject(issue) || number <= 0 || !title)
		return err_set(e, ERR_INPUT, "%s: an issue without a number "
			       "or title", repo);
	memset(it, 0, sizeof(*it));
	it->repo = xstrdup(repo);
	it->number = number;
	it->title = xstrdup(title);
	it->body = xstrdup_or_null(jstr(issue, "body"));
	it->state = xstrdup_or_null(jstr(issue, "state"));
	it->state_reason = xstrdup_or_null(jstr(issue, "state_reason"));
	it->author = xstrdup_or_null(jlogin(issue, "user"));
	it->created_at = xstrdup_or_null(jstr(issue, "created_at"));
	it->closed_at = xstrdup_or_null(jstr(issue, "closed_at"));
	it->url = xstrdup_or_null(jstr(issue, "html_url"));
	it->source = xstrdup_or_null(jstr(issue, "url"));
	it->comment_count = jint(issue, "comments");
	if (it->comment_count < 0)
		it->comment_count = 0;	/* unknown: the comments fetched count */
	labels = jget(issue, "labels");
	if (cJSON_IsArray(labels)) {
		it->labels = xcalloc((size_t)cJSON_GetArraySize(labels) + 1,
				     sizeof(char *));
		cJSON_ArrayForEach(l, labels) {
			const char *name = cJSON_IsString(l) ? l->valuestring :
					   jstr(l, "name");

			if (name)
				it->labels[n++] = xstrdup(name);
		}
		it->nr_labels = n;
	}
	return 0;
}

struct comments {
	struct comment *v;
	size_t nr, alloc;
};

static void comments_add(struct comments *l, const char *author,
			 const char *created_at, const char *body)
{
	struct comment *c;

	ALLOC_GROW(l->v, l->nr + 1, l->alloc);
	c = &l->v[l->nr++];
	c->author = xstrdup_or_null(author);
	c->created_at = xstrdup_or_null(created_at);
	c->body = xstrdup_or_null(body);
}

static void comments_release(struct comments *l)
{
	size_t i;

	for (i = 0; i < l->nr; i++) {
		free(l->v[i].author);
		free(l->v[i].created_at);
		free(l->v[i].body);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* A fixing pull request as found, before its diff is fetched. */
struct prref {
	long long number;
	char *repo;		/* its repository when not the fetched one */
	char *title, *body, *url, *merged_at;
	int additions, deletions, changed_files;	/* -1 unknown */
};

struct prrefs {
	struct prref *v;
	size_t nr, alloc;
	char **commits;		/* closing commits still to look up: the
				   URL of their pull request list */
	size_t nr_commits, alloc_commits;
};

static void prrefs_release(struct prrefs *l)
{
	size_t i;

	for (i = 0; i < l->nr; i++) {
		free(l->v[i].repo);
		free(l->v[i].title);
		free(l->v[i].body);
		free(l->v[i].url);
		free(l->v[i].merged_at);
	}
	free(l->v);
	for (i = 0; i < l->nr_commits; i++)
		free(l->commits[i]);
	free(l->commits);
	memset(l, 0, sizeof(*l));
}

static void fill(char **dst, const char *v)
{
	if (!*dst && v)
		*dst = xstrdup(v);
}

static int same_repo(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcasecmp(a, b));
}

/* Add pull request `number` of repository `repo` (NULL: the fetched
 * one), or fill in what an earlier mention of it lacked. */
static void prrefs_add(struct prrefs *l, const char *repo, long long number,
		       const char *title, const char *body, const char *url,
		       const char *merged_at, int add, int del, int files)
{
	struct prref *p = NULL;
	size_t i;

	if (number <= 0)
		return;
	for (i = 0; i < l->nr; i++)
		if (l->v[i].number == number && same_repo(l->v[i].repo, repo))
			p = &l->v[i];
	if (!p) {
		ALLOC_GROW(l->v, l->nr + 1, l->alloc);
		p = &l->v[l->nr++];
		memset(p, 0, sizeof(*p));
		p->number = number;
		p->repo = xstrdup_or_null(repo);
		p->additions = p->deletions = p->changed_files = -1;
	}
	fill(&p->title, title);
	fill(&p->body, body);
	fill(&p->url, url);
	fill(&p->merged_at, merged_at);
	if (p->additions < 0)
		p->additions = add;
	if (p->deletions < 0)
		p->deletions = del;
	if (p->changed_files < 0)
		p->changed_files = files;
}

static int cmp_prref(const void *a, const void *b)
{
	const struct prref *x = a, *y = b;
	int c;

	/* the fetched repository's own first */
	if (!x->repo != !y->repo)
		return x->repo ? 1 : -1;
	if (x->repo && (c = strcasecmp(x->repo, y->repo)))
		return c;
	return x->number < y->number ? -1 : x->number > y->number;
}

/* Is "owner/name" the repository being fetched?  Unknown counts as yes. */
static int our_repo(const char *want, const char *canon, const char *full)
{
	if (!full)
		return 1;
	return !strcasecmp(full, want) || (canon && !strcasecmp(full, canon));
}

/* "owner/name" from ".../repos/owner/name", into a new string or NULL. */
static char *repo_from_api_url(const char *url)
{
	const char *p = url ? strstr(url, "/repos/") : NULL;
	const char *slash;
	size_t n;

	if (!p)
		return NULL;
	p += 7;
	slash = strchr(p, '/');
	if (!slash)
		return NULL;
	n = strcspn(slash + 1, "/?#");
	return xstrndup(p, (size_t)(slash + 1 - p) + n);
}

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

/* Everything gathered for one issue. */
struct gathered {
	struct comments comments;
	struct prrefs prs;
	int complete;		/* answered; else ask the REST timeline */
};

static void gathered_release(struct gathered *g)
{
	comments_release(&g->comments);
	prrefs_release(&g->prs);
	memset(g, 0, sizeof(*g));
}

/* Add pull request `pr` (GraphQL's PullRequest) when it is merged and
 * of the fetched repository, or of `other` (a repository whose commit
 * closed the issue; NULL for none). */
static void add_graphql_pr(struct fetch *f, struct prrefs *l, const cJSON *pr,
			   const char *other)
{
	const cJSON *merged = jget(pr, "merged");
	const char *full = jstr(jget(pr, "repository"), "nameWithOwner");
	const char *theirs = NULL;

	if (!cJSON_IsObject(pr) || !cJSON_IsTrue(merged))
		return;
	if (other && full && !strcasecmp(full, other) &&
	    !our_repo(f->repo, f->canon, other))
		theirs = other;
	else if (!our_repo(f->repo, f->canon, full))
		return;
	prrefs_add(l, theirs, jnum(pr, "number", -1), jstr(pr, "title"),
		   jstr(pr, "body"), jstr(pr, "url"), jstr(pr, "mergedAt"),
		   jint(pr, "additions"), jint(pr, "deletions"),
		   jint(pr, "changedFiles"));
}

/* Read one issue's GraphQL answer into g; g->complete says whether it
 * sufficed. */
static void from_graphql(struct fetch *f, const cJSON *is,
			 struct gathered *g)
{
	const cJSON *comments = jget(is, "comments");
	const cJSON *tl = jget(is, "timelineItems");
	const cJSON *x;

	g->complete = 0;
	if (!cJSON_IsObject(is) || !cJSON_IsObject(comments) ||
	    !cJSON_IsObject(tl))
		return;
	if (cJSON_IsTrue(jget(jget(tl, "pageInfo"), "hasNextPage")))
		return;
	if (jnum(comments, "totalCount", 0) >
	    cJSON_GetArraySize(jget(comments, "nodes")))
		return;
	cJSON_ArrayForEach(x, jget(comments, "nodes"))
		comments_add(&g->comments, jlogin(x, "author"),
			     jstr(x, "createdAt"), jstr(x, "body"));
	x = jget(is, "closedByPullRequestsReferences");
	if (cJSON_IsTrue(jget(jget(x, "pageInfo"), "hasNextPage")))
		return;
	cJSON_ArrayForEach(x, jget(x, "nodes"))
		add_graphql_pr(f, &g->prs, x, NULL);
	cJSON_ArrayForEach(x, jget(tl, "nodes")) {
		const char *type = jstr(x, "__typename");
		const cJSON *y, *pr;

		if (!type)
			continue;
		if (!strcmp(type, "CrossReferencedEvent")) {
			add_graphql_pr(f, &g->prs, jget(x, "source"), NULL);
		} else if (!strcmp(type, "ConnectedEvent")) {
			add_graphql_pr(f, &g->prs, jget(x, "subject"), NULL);
		} else if (!strcmp(type, "ClosedEvent")) {
			const cJSON *apr;

			y = jget(x, "closer");
			add_graphql_pr(f, &g->prs, y, NULL);
			apr = jget(y, "associatedPullRequests");
			if (cJSON_IsTrue(jget(jget(apr, "pageInfo"),
					      "hasNextPage")))
				return;
			cJSON_ArrayForEach(pr, jget(apr, "nodes"))
				add_graphql_pr(f, &g->prs, pr,
					       jstr(jget(y, "repository"),
						    "nameWithOwner"));
		}
	}
	g->complete = 1;
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
			struct gathered *g, unsigned flags, struct err *e)
{
	struct buf q = BUF_INIT;
	cJSON *req = NULL, *vars, *ans = NULL;
	const cJSON *repo;
	char *post = NULL, *owner;
	const char *slash = strchr(f->repo, '/');
	struct ghc_resp r;
	struct err e2 = ERR_INIT;
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
		from_graphql(f, jget(repo, alias), &g[i]);
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
			struct gathered *g, struct err *e)
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

/*
 * The URL listing the pull requests of the commit that a `closed` event
 * names, owned by the caller, or NULL when the event names no usable
 * commit.  The event's commit_url is used as given, since it names the
 * repository that holds the commit (another one, or this one under its
 * old name); only when it is absent or off the API is the URL built from
 * the fetched repository and the commit_id.
 */
static char *commit_pulls_url(struct fetch *f, const cJSON *ev)
{
	const char *sha = jstr(ev, "commit_id");
	const char *cu = jstr(ev, "commit_url");
	const char *api = ghc_api(f->c);
	size_t k = sha ? strspn(sha, "0123456789abcdef") : 0;
	size_t n = strlen(api);
	struct buf b = BUF_INIT;

	if (k < 7 || sha[k])
		return NULL;
	if (cu && !strncmp(cu, api, n) && !strncmp(cu + n, "/repos/", 7) &&
	    strstr(cu + n, "/commits/") && !strpbrk(cu, "?# \t\r\n")) {
		const char *tail = strstr(cu + n, "/commits/") + 9;

		if (!strcmp(tail, sha)) {
			buf_addf(&b, "%s/pulls?per_page=%d", cu, PER_PAGE);
			return buf_detach(&b, NULL);
		}
	}
	buf_addf(&b, "%s/repos/%s/commits/%s/pulls?per_page=%d", api, f->repo,
		 sha, PER_PAGE);
	return buf_detach(&b, NULL);
}

/* The REST way: the issue's timeline, page by page, then a look-up of
 * closing commits when no merged pull request was named. */
static int link_rest(struct fetch *f, long long number, struct gathered *g,
		     struct err *e)
{
	struct buf url = BUF_INIT;
	char *next = NULL;
	cJSON *page = NULL;
	struct ghc_resp r;
	long long *unsure = NULL;	/* cross-referenced without merged_at */
	size_t nr_unsure = 0, alloc_unsure = 0;
	size_t i;
	int ret = -1;

	comments_release(&g->comments);
	prrefs_release(&g->prs);
	ghc_resp_init(&r);
	buf_addf(&url, "%s/repos/%s/issues/%lld/timeline?per_page=%d",
		 ghc_api(f->c), f->repo, number, PER_PAGE);
	while (url.len) {
		const cJSON *ev;

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
		cJSON_ArrayForEach(ev, page) {
			const char *type = jstr(ev, "event");
			const cJSON *src, *pr;

			if (!type)
				continue;
			if (!strcmp(type, "commented")) {
				const char *who = jget(ev, "user") ?
						  jlogin(ev, "user") :
						  jlogin(ev, "actor");

				comments_add(&g->comments, who,
					     jstr(ev, "created_at"),
					     jstr(ev, "body"));
			} else if (!strcmp(type, "cross-referenced")) {
				char *full = NULL;
				const char *fn;

				src = jget(jget(ev, "source"), "issue");
				pr = jget(src, "pull_request");
				if (!cJSON_IsObject(pr))
					continue;
				fn = jstr(jget(src, "repository"),
					  "full_name");
				if (!fn)
					fn = full = repo_from_api_url(
						jstr(src, "url"));
				/* no merged_at at all is not "unmerged"
				   (null is): ask the pull request */
				if (!jget(pr, "merged_at") &&
				    our_repo(f->repo, f->canon, fn) &&
				    jnum(src, "number", -1) > 0) {
					ALLOC_GROW(unsure, nr_unsure + 1,
						   alloc_unsure);
					unsure[nr_unsure++] =
						jnum(src, "number", -1);
				}
				if (jstr(pr, "merged_at") &&
				    our_repo(f->repo, f->canon, fn))
					prrefs_add(&g->prs, NULL,
						   jnum(src, "number", -1),
						   jstr(src, "title"),
						   jstr(src, "body"),
						   jstr(src, "html_url"),
						   jstr(pr, "merged_at"),
						   -1, -1, -1);
				free(full);
			} else if (!strcmp(type, "closed") &&
				   jstr(ev, "commit_id")) {
				char *lookup = commit_pulls_url(f, ev);

				if (lookup) {
					ALLOC_GROW(g->prs.commits,
						   g->prs.nr_commits + 1,
						   g->prs.alloc_commits);
					g->prs.commits[g->prs.nr_commits++] =
						lookup;
				}
			}
		}
		free(next);
		next = gh_link_next(r.link);
		buf_reset(&url);
		if (next)
			buf_addstr(&url, next);
	}
	for (i = 0; i < nr_unsure; i++) {
		cJSON *pr = NULL;

		buf_reset(&url);
		buf_addf(&url, "%s/repos/%s/pulls/%lld", ghc_api(f->c),
			 f->repo, unsure[i]);
		ghc_resp_clear(&r);
		if (ghc_request(f->c, url.ptr, GHC_JSON, NULL, &r, &pr,
				e) < 0)
			goto out;
		if (jstr(pr, "merged_at"))
			prrefs_add(&g->prs, NULL, unsure[i], jstr(pr, "title"),
				   jstr(pr, "body"), jstr(pr, "html_url"),
				   jstr(pr, "merged_at"), jint(pr, "additions"),
				   jint(pr, "deletions"),
				   jint(pr, "changed_files"));
		cJSON_Delete(pr);
	}
	/* a closing commit explains the fix only when nothing else did */
	for (i = 0; !g->prs.nr && i < g->prs.nr_commits; i++) {
		const char *lookup = g->prs.commits[i];
		char *commit_repo = repo_from_api_url(lookup);
		const cJSON *pr;

		ghc_resp_clear(&r);
		cJSON_Delete(page);
		page = NULL;
		if (ghc_request(f->c, lookup, GHC_JSON, NULL, &r, &page,
				e) < 0) {
			free(commit_repo);
			/* the commit is gone, unreachable or not on a branch
			   GitHub indexes: no pull request found through it */
			if (r.status == 404 || r.status == 409 ||
			    r.status == 410 || r.status == 422) {
				err_clear(e);
				continue;
			}
			goto out;
		}
		cJSON_ArrayForEach(pr, page) {
			char *full = NULL;
			const char *other = NULL;

			if (!jstr(pr, "merged_at"))
				continue;
			full = repo_from_api_url(jstr(pr, "url"));
			/* a commit of another repository that closed this
			   issue: its pull requests there are the fix */
			if (full && commit_repo &&
			    !our_repo(f->repo, f->canon, commit_repo) &&
			    !strcasecmp(full, commit_repo))
				other = full;
			if (other || our_repo(f->repo, f->canon, full))
				prrefs_add(&g->prs, other,
					   jnum(pr, "number", -1),
					   jstr(pr, "title"), jstr(pr, "body"),
					   jstr(pr, "html_url"),
					   jstr(pr, "merged_at"),
					   jint(pr, "additions"),
					   jint(pr, "deletions"),
					   jint(pr, "changed_files"));
			free(full);
		}
		free(commit_repo);
	}
	g->complete = 1;
	ret = 0;
out:
	free(unsure);
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
	struct buf url = BUF_INIT, d = BUF_INIT;
	cJSON *page = NULL;
	char *next = NULL;
	struct ghc_resp r;
	long long add = 0, del = 0;	/* summed over files: no int wraps */
	int files = 0, ret = -1;

	ghc_resp_init(&r);
	buf_addf(&url, "%s/repos/%s/pulls/%lld/files?per_page=%d",
		 ghc_api(f->c), repo, number, PER_PAGE);
	while (url.len) {
		const cJSON *x;

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
		cJSON_ArrayForEach(x, page) {
			const char *name = jstr(x, "filename");
			const char *prev = jstr(x, "previous_filename");
			const char *status = jstr(x, "status");
			const char *patch = jstr(x, "patch");
			int added, removed;

			if (!name)
				continue;
			if (!prev)
				prev = name;
			added = status && !strcmp(status, "added");
			removed = status && !strcmp(status, "removed");
			buf_addf(&d, "diff --git a/%s b/%s\n", prev, name);
			if (added)
				buf_addstr(&d, "new file mode 100644\n");
			else if (removed)
				buf_addstr(&d, "deleted file mode 100644\n");
			else if (status && !strcmp(status, "copied"))
				buf_addf(&d, "copy from %s\ncopy to %s\n",
					 prev, name);
			else if (strcmp(prev, name))
				buf_addf(&d, "rename from %s\nrename to %s\n",
					 prev, name);
			/* no patch and no line counted: a binary file (a
			   long text patch left out still counts its lines) */
			if (!patch && jint(x, "additions") <= 0 &&
			    jint(x, "deletions") <= 0 &&
			    (added || removed || !strcmp(prev, name)))
				buf_addf(&d, "Binary files %s%s and %s%s "
					 "differ\n", added ? "" : "a/",
					 added ? "/dev/null" : prev,
					 removed ? "" : "b/",
					 removed ? "/dev/null" : name);
			if (patch) {
				buf_addf(&d, "--- %s%s\n+++ %s%s\n",
					 added ? "" : "a/",
					 added ? "/dev/null" : prev,
					 removed ? "" : "b/",
					 removed ? "/dev/null" : name);
				buf_addstr(&d, patch);
				if (d.len && d.ptr[d.len - 1] != '\n')
					buf_addch(&d, '\n');
			}
			add += jint(x, "additions") > 0 ?
			       jint(x, "additions") : 0;
			del += jint(x, "deletions") > 0 ?
			       jint(x, "deletions") : 0;
			files++;
		}
		free(next);
		next = gh_link_next(r.link);
		buf_reset(&url);
		if (next)
			buf_addstr(&url, next);
	}
	if (fx->additions < 0)
		fx->additions = add > INT_MAX ? INT_MAX : (int)add;
	if (fx->deletions < 0)
		fx->deletions = del > INT_MAX ? INT_MAX : (int)del;
	if (fx->changed_files < 0)
		fx->changed_files = files;
	fx->diff = buf_detach(&d, &fx->diff_len);
	fx->diff_partial = 1;
	f->stats->partial_diffs++;
	ret = 0;
out:
	free(next);
	cJSON_Delete(page);
	ghc_resp_clear(&r);
	buf_release(&url);
	buf_release(&d);
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
			  "items.id = fixes.item_id WHERE lower(substr(fixes.url, "
			  "-length(?1))) = lower(?1) AND "
			  "fixes.number = ? AND fixes.diff_partial = 0 AND "
			  "fixes.diff IS NOT NULL LIMIT 1", NULL);
	if (!s)
		return NULL;
	buf_addf(&pat, "/%s/pull/%lld", repo, number);
	sqlite3_bind_text(s, 1, pat.ptr, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, number);
	if (sqlite3_step(s) == SQLITE_ROW) {
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
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		const char *p = (const char *)sqlite3_column_text(s, 0);
		const char *u = (const char *)sqlite3_column_text(s, 1);

		if (p && !strcmp(p, f->params) && u &&
		    !sqlite3_column_int(s, 2))
			*next_url = xstrdup(u);
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return store_error(f->st, e, "reading the fetch state");
	return 0;
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
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return store_error(f->st, e, "saving the fetch state");
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
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
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
	done = sqlite3_step(s) == SQLITE_ROW;
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
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return store_error(f->st, e, "recording a fetched issue");
	return 0;
}

/* ---- one issue ---------------------------------------------------------- */

static int finish_issue(struct fetch *f, const cJSON *issue,
			struct gathered *g, struct err *e)
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
		qsort(g->prs.v, g->prs.nr, sizeof(*g->prs.v), cmp_prref);
	it.fixes = xcalloc(g->prs.nr + 1, sizeof(*it.fixes));
	for (i = 0; i < g->prs.nr; i++) {
		struct prref *p = &g->prs.v[i];
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
	struct gathered *g = xcalloc(n + 1, sizeof(*g));
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
			gathered_release(&g[j]);
		}
		i += batch;
	}
	ret = 0;
out:
	for (j = 0; j < n; j++)
		gathered_release(&g[j]);
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
		rc = sqlite3_step(s);
		sqlite3_finalize(s);
		if (rc != SQLITE_DONE) {
			store_error(f->st, e, "following a renamed "
				    "repository");
			goto fail;
		}
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
				err_set(e, ERR_INPUT, "%s:%ld: %s: %s", origin,
					line, word, repo_url(word, strlen(word))
					? "a repository, not an issue or pull "
					  "request (fetch OWNER/REPO takes a "
					  "whole repository)"
					: "not a GitHub issue or pull request "
					  "(expected its URL or owner/repo#N)");
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
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		ALLOC_GROW(v, n + 1, alloc);
		v[n].repo = xstrdup((const char *)sqlite3_column_text(s, 0));
		v[n].number = sqlite3_column_int64(s, 1);
		v[n].kind = sqlite3_column_int(s, 2) ? ITEM_REF_PULL :
			    ITEM_REF_ANY;
		v[n].line = (long)n + 1;
		n++;
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		gh_refs_free(v, n);
		return store_error(st, e, "listing items to fetch");
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
			f->canon = repo_from_api_url(jstr(o,
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
			f.canon = repo_from_api_url(jstr(is,
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
