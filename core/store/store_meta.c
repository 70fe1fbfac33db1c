/* SPDX-License-Identifier: MIT */
/*
 * store_meta: the study's settings (the meta table) read and written, and
 * whether another connection changed the study since it was last asked.
 */
#include "core/store/store.h"

#include <sqlite3.h>

#include "core/store/store_int.h"

int store_meta_read(struct store *st, const char *key, char **value,
		    struct err *e)
{
	sqlite3_stmt *s;
	int rc;

	*value = NULL;
	s = store_prepare(st, "SELECT value FROM meta WHERE key = ?", e);
	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, key, -1, SQLITE_STATIC);
	rc = store_step(st, s, "reading the study's settings", e);
	if (rc > 0)
		*value = xstrdup((const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	return rc < 0 ? -1 : 0;
}

int store_changed(struct store *st, struct err *e)
{
	struct store_reader *r;
	sqlite3_stmt *s;
	long long v;
	int rc, changed;

	if (st->depth)
		return 0;	/* inside our own transaction */
	for (r = st->readers; r; r = r->next)
		r->release(r);
	s = store_prepare(st, "PRAGMA data_version", e);
	if (!s)
		return -1;
	rc = store_step_rc(s);
	v = rc == SQLITE_ROW ? sqlite3_column_int64(s, 0) : 0;
	sqlite3_finalize(s);
	if (rc != SQLITE_ROW)
		return store_error(st, e, "checking for changes");
	changed = st->have_data_version && v != st->data_version;
	st->data_version = v;
	st->have_data_version = 1;
	return changed;
}

char *store_meta_get(struct store *st, const char *key)
{
	char *v;

	if (store_meta_read(st, key, &v, NULL) < 0)
		return NULL;
	return v;
}

int store_meta_set(struct store *st, const char *key, const char *value,
		   struct err *e)
{
	sqlite3_stmt *s;
	int rc;

	s = store_prepare(st, "INSERT INTO meta (key, value) VALUES (?, ?) "
			  "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
			  e);
	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, value, -1, SQLITE_STATIC);
	rc = store_step_rc(s);
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return store_error(st, e, "saving a setting");
	return 0;
}
