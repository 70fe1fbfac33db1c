/* SPDX-License-Identifier: MIT */
/*
 * gh_state: what the study remembers of fetching, so that a stopped fetch
 * continues and an unchanged issue costs nothing: the list page being
 * worked on per repository and options (fetch_state), every finished
 * issue at its updated_at (fetch_issues), and a renamed repository
 * followed to its new name.
 */
#include "core/github/github_int.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/base/buf.h"
#include "core/store/store.h"

int gh_state_load(struct fetch *f, char **next_url, struct err *e)
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

int gh_state_save(struct fetch *f, const char *next_url, int done,
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
int gh_already_done(struct fetch *f, long long number,
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

int gh_mark_done(struct fetch *f, long long number,
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

/*
 * The issue list names the repository as it is called now (after a
 * redirect, for a renamed or transferred one).  When that is not the name
 * asked for, the new name is used for the rest of the fetch, the old one
 * becomes an alias (items stored under it move to the new name), and
 * what the study remembers of fetching it moves along.
 */
int gh_follow_rename(struct fetch *f, struct err *e)
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
