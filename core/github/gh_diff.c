/* SPDX-License-Identifier: MIT */
/*
 * gh_diff: the diff of a fixing pull request, asked for with the diff
 * media type; after a 304 the one the study already holds; when GitHub
 * finds it too large (406), rebuilt from the paged file list and marked
 * partial.
 */
#include "core/github/github_int.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/base/buf.h"
#include "core/store/store.h"

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

int gh_fetch_diff(struct fetch *f, const char *repo, struct fix *fx,
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
