/* SPDX-License-Identifier: MIT */
/*
 * gh_rest: linking one issue to its fixes through REST, for a fetch
 * without GraphQL or an issue it could not answer: the timeline,
 * page by page, the pull requests it left unsure, the closing commits'
 * pull requests; and the fixes a list of known bugs named.  See the top
 * of github.c for what each request costs.
 */
#include "core/github/github_int.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>

#include "core/base/buf.h"
#include "core/store/store.h"

/* The REST way: the timeline, page by page, then the pull
 * requests it left unsure, then a look-up of closing commits when no
 * merged pull request was named. */
int gh_link_rest(struct fetch *f, long long number,
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

/*
 * The fixes a list named for issue `number` (an imported spreadsheet's
 * pull request column), which GitHub's links may not show: each one not
 * found by linking is asked for (GET .../pulls/N) and kept as a fix,
 * merged or not, since the team named it.
 */
int gh_named_fixes(struct fetch *f, long long number,
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
