/* SPDX-License-Identifier: MIT */
/*
 * gh_refs: lists of known bugs (issues and pull requests named by URL or
 * owner/repo#N), read from text, or from the study's items still to be
 * fetched.  See gh_refs.h.
 */
#include "core/github/gh_refs.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/buf.h"
#include "core/study/item.h"

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
