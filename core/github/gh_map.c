/* SPDX-License-Identifier: MIT */
/*
 * gh_map: GitHub's JSON answers mapped to what a fetch keeps.  See
 * gh_map.h; the shapes are those of GitHub's REST API (2022-11-28) and of
 * the GraphQL query in core/github/gh_graphql.c.
 */
#include "core/github/gh_map.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>


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

void gh_comments_add(struct gh_comments *l, const char *author,
		     const char *created_at, const char *body)
{
	struct comment *c;

	ALLOC_GROW(l->v, l->nr + 1, l->alloc);
	c = &l->v[l->nr++];
	c->author = xstrdup_or_null(author);
	c->created_at = xstrdup_or_null(created_at);
	c->body = xstrdup_or_null(body);
}

static void comments_release(struct gh_comments *l)
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

static void prrefs_release(struct gh_prrefs *l)
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
	free(l->unsure);
	memset(l, 0, sizeof(*l));
}

void gh_gathered_release(struct gh_gathered *g)
{
	if (!g)
		return;
	comments_release(&g->comments);
	prrefs_release(&g->prs);
	memset(g, 0, sizeof(*g));
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

void gh_prrefs_add(struct gh_prrefs *l, const char *repo, long long number,
		   const char *title, const char *body, const char *url,
		   const char *merged_at, int add, int del, int files)
{
	struct gh_prref *p = NULL;
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

int gh_prref_cmp(const void *a, const void *b)
{
	const struct gh_prref *x = a, *y = b;
	int c;

	/* the fetched repository's own first */
	if (!x->repo != !y->repo)
		return x->repo ? 1 : -1;
	if (x->repo && (c = strcasecmp(x->repo, y->repo)))
		return c;
	return x->number < y->number ? -1 : x->number > y->number;
}

int gh_our_repo(const struct gh_scope *sc, const char *full)
{
	if (!full)
		return 1;
	return !strcasecmp(full, sc->repo) ||
	       (sc->canon && !strcasecmp(full, sc->canon));
}

char *gh_repo_from_api_url(const char *url)
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

/* ---- GraphQL ------------------------------------------------------------ */

/* Add pull request `pr` (GraphQL's PullRequest) when it is merged and
 * of the fetched repository, or of `other` (a repository whose commit
 * closed the issue; NULL for none). */
static void add_graphql_pr(const struct gh_scope *sc, struct gh_prrefs *l,
			   const cJSON *pr, const char *other)
{
	const cJSON *merged = jget(pr, "merged");
	const char *full = jstr(jget(pr, "repository"), "nameWithOwner");
	const char *theirs = NULL;

	if (!cJSON_IsObject(pr) || !cJSON_IsTrue(merged))
		return;
	if (other && full && !strcasecmp(full, other) &&
	    !gh_our_repo(sc, other))
		theirs = other;
	else if (!gh_our_repo(sc, full))
		return;
	gh_prrefs_add(l, theirs, jnum(pr, "number", -1), jstr(pr, "title"),
		      jstr(pr, "body"), jstr(pr, "url"), jstr(pr, "mergedAt"),
		      jint(pr, "additions"), jint(pr, "deletions"),
		      jint(pr, "changedFiles"));
}

void gh_map_graphql_issue(const struct gh_scope *sc, const cJSON *is,
			  struct gh_gathered *g)
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
		gh_comments_add(&g->comments, jlogin(x, "author"),
				jstr(x, "createdAt"), jstr(x, "body"));
	x = jget(is, "closedByPullRequestsReferences");
	if (cJSON_IsTrue(jget(jget(x, "pageInfo"), "hasNextPage")))
		return;
	cJSON_ArrayForEach(x, jget(x, "nodes"))
		add_graphql_pr(sc, &g->prs, x, NULL);
	cJSON_ArrayForEach(x, jget(tl, "nodes")) {
		const char *type = jstr(x, "__typename");
		const cJSON *y, *pr;

		if (!type)
			continue;
		if (!strcmp(type, "CrossReferencedEvent")) {
			add_graphql_pr(sc, &g->prs, jget(x, "source"), NULL);
		} else if (!strcmp(type, "ConnectedEvent")) {
			add_graphql_pr(sc, &g->prs, jget(x, "subject"), NULL);
		} else if (!strcmp(type, "ClosedEvent")) {
			const cJSON *apr;

			y = jget(x, "closer");
			add_graphql_pr(sc, &g->prs, y, NULL);
			apr = jget(y, "associatedPullRequests");
			if (cJSON_IsTrue(jget(jget(apr, "pageInfo"),
					      "hasNextPage")))
				return;
			cJSON_ArrayForEach(pr, jget(apr, "nodes"))
				add_graphql_pr(sc, &g->prs, pr,
					       jstr(jget(y, "repository"),
						    "nameWithOwner"));
		}
	}
	g->complete = 1;
}

/* ---- REST --------------------------------------------------------------- */

char *gh_commit_pulls_url(const struct gh_scope *sc, const cJSON *ev)
{
	const char *sha = jstr(ev, "commit_id");
	const char *cu = jstr(ev, "commit_url");
	size_t k = sha ? strspn(sha, "0123456789abcdef") : 0;
	size_t n = strlen(sc->api);
	struct buf b = BUF_INIT;

	if (k < 7 || sha[k])
		return NULL;
	if (cu && !strncmp(cu, sc->api, n) &&
	    !strncmp(cu + n, "/repos/", 7) && strstr(cu + n, "/commits/") &&
	    !strpbrk(cu, "?# \t\r\n")) {
		const char *tail = strstr(cu + n, "/commits/") + 9;

		if (!strcmp(tail, sha)) {
			buf_addf(&b, "%s/pulls?per_page=%d", cu, GH_PER_PAGE);
			return buf_detach(&b, NULL);
		}
	}
	buf_addf(&b, "%s/repos/%s/commits/%s/pulls?per_page=%d", sc->api,
		 sc->repo, sha, GH_PER_PAGE);
	return buf_detach(&b, NULL);
}

static void map_xref(const struct gh_scope *sc, const cJSON *ev,
		     struct gh_gathered *g)
{
	const cJSON *src = jget(jget(ev, "source"), "issue");
	const cJSON *pr = jget(src, "pull_request");
	struct gh_prrefs *l = &g->prs;
	char *full = NULL;
	const char *fn;

	if (!cJSON_IsObject(pr))
		return;
	fn = jstr(jget(src, "repository"), "full_name");
	if (!fn)
		fn = full = gh_repo_from_api_url(jstr(src, "url"));
	if (!gh_our_repo(sc, fn))
		goto out;
	/* no merged_at at all is not "unmerged" (null is): ask the pull
	   request */
	if (!jget(pr, "merged_at") && jnum(src, "number", -1) > 0) {
		ALLOC_GROW(l->unsure, l->nr_unsure + 1, l->alloc_unsure);
		l->unsure[l->nr_unsure++] = jnum(src, "number", -1);
	}
	if (jstr(pr, "merged_at"))
		gh_prrefs_add(l, NULL, jnum(src, "number", -1),
			      jstr(src, "title"), jstr(src, "body"),
			      jstr(src, "html_url"), jstr(pr, "merged_at"),
			      -1, -1, -1);
out:
	free(full);
}

void gh_map_timeline_page(const struct gh_scope *sc, const cJSON *page,
			  struct gh_gathered *g)
{
	const cJSON *ev;

	cJSON_ArrayForEach(ev, page) {
		const char *type = jstr(ev, "event");

		if (!type)
			continue;
		if (!strcmp(type, "commented")) {
			const char *who = jget(ev, "user") ?
					  jlogin(ev, "user") :
					  jlogin(ev, "actor");

			gh_comments_add(&g->comments, who,
					jstr(ev, "created_at"),
					jstr(ev, "body"));
		} else if (!strcmp(type, "cross-referenced")) {
			map_xref(sc, ev, g);
		} else if (!strcmp(type, "closed") && jstr(ev, "commit_id")) {
			char *lookup = gh_commit_pulls_url(sc, ev);

			if (lookup) {
				ALLOC_GROW(g->prs.commits,
					   g->prs.nr_commits + 1,
					   g->prs.alloc_commits);
				g->prs.commits[g->prs.nr_commits++] = lookup;
			}
		}
	}
}

void gh_map_commit_pulls(const struct gh_scope *sc, const char *lookup,
			 const cJSON *page, struct gh_gathered *g)
{
	char *commit_repo = gh_repo_from_api_url(lookup);
	const cJSON *pr;

	cJSON_ArrayForEach(pr, page) {
		char *full;
		const char *other = NULL;

		if (!jstr(pr, "merged_at"))
			continue;
		full = gh_repo_from_api_url(jstr(pr, "url"));
		/* a commit of another repository that closed this issue:
		   its pull requests there are the fix */
		if (full && commit_repo && !gh_our_repo(sc, commit_repo) &&
		    !strcasecmp(full, commit_repo))
			other = full;
		if (other || gh_our_repo(sc, full))
			gh_prrefs_add(&g->prs, other, jnum(pr, "number", -1),
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

void gh_map_pull(struct gh_gathered *g, long long number, const cJSON *pr)
{
	if (jstr(pr, "merged_at"))
		gh_prrefs_add(&g->prs, NULL, number, jstr(pr, "title"),
			      jstr(pr, "body"), jstr(pr, "html_url"),
			      jstr(pr, "merged_at"), jint(pr, "additions"),
			      jint(pr, "deletions"),
			      jint(pr, "changed_files"));
}

/* ---- a diff from the file list ----------------------------------------- */

void gh_map_files_page(const cJSON *page, struct gh_files *fs)
{
	struct buf *d = &fs->diff;
	const cJSON *x;

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
		buf_addf(d, "diff --git a/%s b/%s\n", prev, name);
		if (added)
			buf_addstr(d, "new file mode 100644\n");
		else if (removed)
			buf_addstr(d, "deleted file mode 100644\n");
		else if (status && !strcmp(status, "copied"))
			buf_addf(d, "copy from %s\ncopy to %s\n", prev, name);
		else if (strcmp(prev, name))
			buf_addf(d, "rename from %s\nrename to %s\n", prev,
				 name);
		/* no patch and no line counted: a binary file (a long text
		   patch left out still counts its lines) */
		if (!patch && jint(x, "additions") <= 0 &&
		    jint(x, "deletions") <= 0 &&
		    (added || removed || !strcmp(prev, name)))
			buf_addf(d, "Binary files %s%s and %s%s differ\n",
				 added ? "" : "a/", added ? "/dev/null" : prev,
				 removed ? "" : "b/",
				 removed ? "/dev/null" : name);
		if (patch) {
			buf_addf(d, "--- %s%s\n+++ %s%s\n",
				 added ? "" : "a/", added ? "/dev/null" : prev,
				 removed ? "" : "b/",
				 removed ? "/dev/null" : name);
			buf_addstr(d, patch);
			if (d->len && d->ptr[d->len - 1] != '\n')
				buf_addch(d, '\n');
		}
		fs->additions += jint(x, "additions") > 0 ?
				 jint(x, "additions") : 0;
		fs->deletions += jint(x, "deletions") > 0 ?
				 jint(x, "deletions") : 0;
		fs->files++;
	}
}
