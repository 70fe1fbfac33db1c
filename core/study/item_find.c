/* SPDX-License-Identifier: MIT */
/*
 * item_find: items found in the study by name (exactly through the
 * index, else by a case-blind, partial or bare-number name, with a
 * suggestion when none matches), and renamed repositories: the alias
 * table that maps an old name to the current one.  See item.h.
 */
#include "core/study/item.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/base/buf.h"
#include "core/base/suggest.h"

static long long find_one(struct store *st, const char *sql, const char *a,
			  long long n, const char *name, struct err *e)
{
	sqlite3_stmt *s = store_prepare(st, sql, e);
	long long id = -1;
	int count = 0, rc;

	if (!s)
		return -1;
	if (a)
		sqlite3_bind_text(s, 1, a, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, n);
	while ((rc = store_step(st, s, "finding an item", e)) == 1) {
		id = sqlite3_column_int64(s, 0);
		count++;
	}
	sqlite3_finalize(s);
	if (rc < 0)
		return -1;
	if (count == 0)
		return err_set(e, ERR_NOTFOUND, "%s: no such item", name);
	if (count > 1)
		return err_set(e, ERR_INPUT, "%s: ambiguous, name it as "
			       "owner/repo#number", name);
	return id;
}

/* After "no such item": the closest item name, in the form it was typed
 * ("owner/repo#N" or "repo#N"; a bare number gets no suggestion). */
static void suggest_item(struct store *st, const char *name, struct err *e)
{
	const char *hash = strrchr(name, '#');
	int full = strchr(name, '/') != NULL;
	struct suggest sg;
	sqlite3_stmt *s;
	int rc;

	if (!hash || hash == name)
		return;
	s = store_prepare(st, "SELECT repo, number FROM items", NULL);
	if (!s)
		return;
	suggest_init(&sg, name);
	/* a database error replaces "no such item": it is the news */
	while ((rc = store_step(st, s, "finding an item", e)) == 1) {
		const char *repo = (const char *)sqlite3_column_text(s, 0);
		const char *slash = strchr(repo, '/');
		char *cand;

		if (!full && slash)
			repo = slash + 1;
		cand = item_name(repo, sqlite3_column_int64(s, 1));
		suggest_add(&sg, cand);
		free(cand);
	}
	sqlite3_finalize(s);
	if (rc == 0)
		err_suggest(e, suggest_result(&sg));
	suggest_release(&sg);
}

char *item_canonical_repo(struct store *st, const char *repo, struct err *e)
{
	static const char sql[] = "SELECT repo FROM repo_aliases WHERE "
		"alias = ?";
	sqlite3_stmt *s = store_cached(st, sql, e);
	char *out = NULL;
	int rc;

	if (!s)
		return NULL;
	sqlite3_bind_text(s, 1, repo, -1, SQLITE_STATIC);
	rc = store_step(st, s, "reading repository aliases", e);
	if (rc == 1)
		out = xstrdup((const char *)sqlite3_column_text(s, 0));
	else if (rc == 0)
		out = xstrdup(repo);
	store_done(s);
	return out;
}

/* The item named exactly `repo` and `number` through the items' index
 * (a name in any other case needs a scan): 1 with *id, 0 when there is
 * none, -1 with `e` filled. */
static int find_exact(struct store *st, const char *repo, long long number,
		      long long *id, struct err *e)
{
	static const char sql[] = "SELECT id FROM items WHERE repo = ?1 AND "
		"number = ?2";
	sqlite3_stmt *s = store_cached(st, sql, e);
	int rc;

	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, repo, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, number);
	rc = store_step(st, s, "finding an item", e);
	if (rc > 0)
		*id = sqlite3_column_int64(s, 0);
	store_done(s);
	return rc;
}

/* Run `sql` with ?1 = a and ?2 = b; 0 or -1. */
static int exec2(struct store *st, const char *sql, const char *a,
		 const char *b, const char *what, struct err *e)
{
	sqlite3_stmt *s = store_prepare(st, sql, e);
	int rc;

	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, a, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, b, -1, SQLITE_STATIC);
	rc = store_step(st, s, what, e);
	sqlite3_finalize(s);
	if (rc < 0)
		return -1;
	return 0;
}

int item_note_alias(struct store *st, const char *old, const char *repo,
		    struct err *e)
{
	char now[32];
	sqlite3_stmt *s;
	int rc;

	if (!strcasecmp(old, repo))
		return 0;
	store_now(now);
	/* the new name is nobody's alias any more; names that led to the
	   old one lead to the new one */
	if (exec2(st, "DELETE FROM repo_aliases WHERE alias = ?1 AND "
		  "?2 IS NOT NULL", repo, repo, "noting a repository alias",
		  e) < 0 ||
	    exec2(st, "UPDATE repo_aliases SET repo = ?2 WHERE repo = ?1 "
		  "COLLATE NOCASE", old, repo, "noting a repository alias",
		  e) < 0)
		return -1;
	s = store_prepare(st, "INSERT INTO repo_aliases (alias, repo, "
			  "noted_at) VALUES (?, ?, ?) ON CONFLICT (alias) DO "
			  "UPDATE SET repo = excluded.repo, noted_at = "
			  "excluded.noted_at", e);
	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, old, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, repo, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 3, now, -1, SQLITE_STATIC);
	rc = store_step_done(st, s, "noting a repository alias", e);
	sqlite3_finalize(s);
	if (rc < 0)
		return -1;
	/* items stored under the old name take the new one, unless the new
	   name already holds that number */
	return exec2(st, "UPDATE items SET repo = ?2 WHERE repo = ?1 COLLATE "
		     "NOCASE AND NOT EXISTS (SELECT 1 FROM items i2 WHERE "
		     "i2.repo = ?2 AND i2.number = items.number)", old, repo,
		     "renaming items", e);
}

long long item_find(struct store *st, const char *name, struct err *e)
{
	const char *hash = strrchr(name, '#');
	const char *num = hash ? hash + 1 : name;
	char *end, *repo;
	long long n, id;

	if (item_parse_ref(name, &repo, &n, NULL) == 0) {
		char *canon = item_canonical_repo(st, repo, e);
		int rc;

		free(repo);
		if (!canon)
			return -1;
		/* the name as stored, the usual case, through the index */
		rc = find_exact(st, canon, n, &id, e);
		if (rc != 0) {
			free(canon);
			return rc < 0 ? -1 : id;
		}
		id = find_one(st, "SELECT id FROM items WHERE repo = ?1 "
			      "COLLATE NOCASE AND number = ?2", canon, n,
			      name, e);
		free(canon);
		if (id < 0 && e && e->code == ERR_NOTFOUND)
			suggest_item(st, name, e);
		return id;
	}
	if (strstr(name, "://")) {
		size_t hl;
		const char *h = item_url_foreign_host(name, &hl);

		if (h)
			return err_set(e, ERR_INPUT, "%s: %.*s is not GitHub "
				       "(github.com, or the host of "
				       "$GITHUB_API_URL)", name, (int)hl, h);
		return err_set(e, ERR_INPUT, "%s: not a GitHub issue or pull "
			       "request URL", name);
	}
	n = strtoll(num, &end, 10);
	if (!*num || *end || n <= 0)
		return err_set(e, ERR_INPUT, "%s: not an item name (expected "
			       "owner/repo#number)", name);
	if (!hash || hash == name)
		return find_one(st, "SELECT id FROM items WHERE ?1 IS NULL "
				"AND number = ?2", NULL, n, name, e);
	repo = xstrndup(name, (size_t)(hash - name));
	if (strchr(repo, '/'))
		id = find_one(st, "SELECT id FROM items WHERE repo = ?1 "
			      "AND number = ?2", repo, n, name, e);
	else
		id = find_one(st, "SELECT id FROM items WHERE substr(repo, "
			      "instr(repo, '/') + 1) = ?1 AND number = ?2",
			      repo, n, name, e);
	free(repo);
	if (id < 0 && e && e->code == ERR_NOTFOUND)
		suggest_item(st, name, e);
	return id;
}
