/* SPDX-License-Identifier: MIT */
/*
 * gh_graphql: linking issues to their fixes through GraphQL, a batch of
 * issues per request (the query, its request, and a batch made smaller
 * when GitHub cannot answer it in time).  The answer is read by gh_map.c;
 * why and when GraphQL is used is at the top of github.c.
 */
#include "core/github/github_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/base/buf.h"

#define GQL_MAX_LOST 3	/* single issues lost in a row: GraphQL is down */

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
int gh_link_graphql(struct fetch *f, const cJSON **issues, size_t n,
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
	if (gh_link_graphql(f, issues, n / 2, g, e) < 0)
		return -1;
	return gh_link_graphql(f, issues + n / 2, n - n / 2, g + n / 2, e);
}
