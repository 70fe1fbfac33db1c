/* SPDX-License-Identifier: MIT */
/*
 * ghc_cache: the client's conditional requests, kept in the study's
 * http_cache keyed by URL ("URL#diff" for a diff): the validators (ETag,
 * Last-Modified) sent with the next GET, the answer (body and Link
 * header) reused after a 304, an entry dropped when it cannot be used.
 * An unreadable entry is no entry: the request is made in full.
 */
#include "core/github/ghc_int.h"

#include <stdlib.h>

#include "core/base/buf.h"
#include "core/store/store.h"

int ghc_cache_get(struct ghc *c, const char *key, char **etag,
		  char **lm, int *found)
{
	sqlite3_stmt *s;
	int rc;

	*found = 0;
	s = store_prepare(c->st, "SELECT etag, last_modified FROM "
			  "http_cache WHERE url = ?", NULL);
	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, key, -1, SQLITE_STATIC);
	rc = store_step(c->st, s, "reading the request cache", NULL);
	if (rc < 0) {
		sqlite3_finalize(s);
		return -1;
	}
	if (rc > 0) {
		const char *t = (const char *)sqlite3_column_text(s, 0);
		const char *l = (const char *)sqlite3_column_text(s, 1);

		*etag = t ? xstrdup(t) : NULL;
		*lm = l ? xstrdup(l) : NULL;
		*found = 1;
	}
	sqlite3_finalize(s);
	return 0;
}

int ghc_cache_load(struct ghc *c, const char *key, struct ghc_resp *r)
{
	sqlite3_stmt *s;
	int ok = 0;

	s = store_prepare(c->st, "SELECT link, body FROM http_cache "
			  "WHERE url = ?", NULL);
	if (!s)
		return 0;
	sqlite3_bind_text(s, 1, key, -1, SQLITE_STATIC);
	/* an unreadable cache row is no cached answer: the request is
	 * made again, never answered wrong */
	if (store_step(c->st, s, "", NULL) > 0 &&
	    sqlite3_column_type(s, 1) != SQLITE_NULL) {
		const char *l = (const char *)sqlite3_column_text(s, 0);
		const void *b = sqlite3_column_blob(s, 1);
		int n = sqlite3_column_bytes(s, 1);

		free(r->link);
		r->link = l ? xstrdup(l) : NULL;
		buf_reset(&r->body);
		buf_add(&r->body, b, (size_t)n);
		ok = 1;
	}
	sqlite3_finalize(s);
	return ok;
}

int ghc_cache_drop(struct ghc *c, const char *key, struct err *e)
{
	sqlite3_stmt *s = store_prepare(c->st, "DELETE FROM http_cache "
					"WHERE url = ?", e);
	int rc;

	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, key, -1, SQLITE_STATIC);
	rc = store_step(c->st, s, "updating the request cache", e);
	sqlite3_finalize(s);
	if (rc < 0)
		return -1;
	return 0;
}

int ghc_cache_put(struct ghc *c, const char *key, const struct ghc_resp *r,
		  int with_body, struct err *e)
{
	sqlite3_stmt *s;
	char now[32];
	int rc;

	if (!r->etag && !r->last_modified)
		return 0;
	s = store_prepare(c->st, "INSERT INTO http_cache (url, etag, "
			  "last_modified, link, body, fetched_at) VALUES "
			  "(?, ?, ?, ?, ?, ?) ON CONFLICT (url) DO UPDATE SET "
			  "etag = excluded.etag, last_modified = "
			  "excluded.last_modified, link = excluded.link, "
			  "body = excluded.body, fetched_at = "
			  "excluded.fetched_at", e);
	if (!s)
		return -1;
	store_now(now);
	sqlite3_bind_text(s, 1, key, -1, SQLITE_STATIC);
	store_bind_text(s, 2, r->etag);
	store_bind_text(s, 3, r->last_modified);
	store_bind_text(s, 4, r->link);
	if (with_body)
		sqlite3_bind_blob(s, 5, r->body.ptr, (int)r->body.len,
				  SQLITE_STATIC);
	else
		sqlite3_bind_null(s, 5);
	sqlite3_bind_text(s, 6, now, -1, SQLITE_STATIC);
	rc = store_step(c->st, s, "saving to the request cache", e);
	sqlite3_finalize(s);
	if (rc < 0)
		return -1;
	return 0;
}
