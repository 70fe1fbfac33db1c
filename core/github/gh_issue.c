/* SPDX-License-Identifier: MIT */
/*
 * gh_issue: one issue finished (linked, its diffs fetched, stored with
 * its fetch_issues row in one transaction), one pull request given alone
 * stored as its own item, a page of candidates worked through in GraphQL
 * batches, and an issue that failed counted without stopping the fetch.
 */
#include "core/github/github_int.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/store/store.h"

int gh_finish_issue(struct fetch *f, const cJSON *issue,
		    struct gh_gathered *g, struct err *e)
{
	struct item it;
	long long number = jnum(issue, "number", 0);
	const char *updated_at = jstr(issue, "updated_at");
	size_t i;
	int ret = -1;

	memset(&it, 0, sizeof(it));
	if (!g->complete && gh_link_rest(f, number, g, e) < 0) {
		if (e->code != ERR_NOTFOUND)
			return -1;
		/* deleted or hidden since the list was read: not
		   recorded, so a later fetch looks again */
		err_clear(e);
		f->stats->vanished++;
		progress(f);
		return 0;
	}
	if (f->listed && gh_named_fixes(f, number, g, e) < 0)
		return -1;
	if (!g->prs.nr && f->o->require_fix) {
		if (gh_mark_done(f, number, updated_at, 0, e) < 0)
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
		if (gh_fetch_diff(f, p->repo ? p->repo : f->repo, fx, e) < 0)
			goto out;
	}
	/* complete now: store it even when a stop was asked meanwhile */
	if (store_begin(f->st, e) < 0)
		goto out;
	if (item_save(f->st, &it, e) < 0 ||
	    gh_mark_done(f, number, updated_at, it.nr_fixes > 0, e) < 0) {
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

/* One issue failed with `e`: note it and clear `e`, or return -1 when the
 * fetch should stop (see fatal_error and GH_MAX_FAILED_IN_A_ROW). */
int gh_issue_failed(struct fetch *f, long long number, struct err *e)
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
int gh_do_page(struct fetch *f, const cJSON **todo, size_t n,
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
		if (gh_link_graphql(f, todo + i, batch, g + i, e) < 0)
			goto out;
		for (j = i; j < i + batch; j++) {
			if (stopped(f)) {
				err_set(e, ERR_INTERRUPTED, "interrupted");
				goto out;
			}
			if (limit_reached(f))
				break;
			if (gh_finish_issue(f, todo[j], &g[j], e) < 0) {
				if (gh_issue_failed(f, jnum(todo[j], "number",
							    0), e) < 0)
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
 * A pull request given alone, answered by the issue endpoint: an item of
 * its own, whose description stands for the issue's and which is its own
 * fix (its figures from its diff; days open from its opening to its
 * close).  Comments are not asked for (the count is kept).
 */
int gh_finish_pull(struct fetch *f, const cJSON *obj, struct err *e)
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
	if (gh_fetch_diff(f, f->repo, fx, e) < 0)
		goto out;
	if (store_begin(f->st, e) < 0)
		goto out;
	if (item_save(f->st, &it, e) < 0 ||
	    gh_mark_done(f, number, jstr(obj, "updated_at"), 1, e) < 0) {
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
