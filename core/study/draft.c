/* SPDX-License-Identifier: MIT */
/*
 * draft: see draft.h.
 */
#include "core/study/draft.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/buf.h"
#include "core/base/limits.h"

static const char *kind_name(enum draft_kind k)
{
	return k == DRAFT_RATIONALE ? "rationale" : "proposal";
}

static int remove_rows(struct store *st, const struct actor *a,
		       long long item_id, enum draft_kind kind,
		       const char *dim, struct err *e)
{
	sqlite3_stmt *s;
	int rc;

	s = store_prepare(st, "DELETE FROM drafts WHERE member_id = ? AND "
			  "item_id = ? AND kind = ? AND dimension = ?", e);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, a->member_id);
	sqlite3_bind_int64(s, 2, item_id);
	sqlite3_bind_text(s, 3, kind_name(kind), -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 4, dim, -1, SQLITE_STATIC);
	rc = store_step(st, s, "removing a draft", e);
	sqlite3_finalize(s);
	if (rc < 0)
		return -1;
	return 0;
}

int draft_save(struct store *st, const struct actor *a, long long item_id,
	       enum draft_kind kind, const char *dim,
	       const struct draft_field *fields, size_t n, struct err *e)
{
	sqlite3_stmt *s = NULL;
	char now[32];
	size_t i;
	int ret = -1;

	if (!a->member_id)
		return err_set(e, ERR_PERM, "%s is not a member of this study",
			       a->name);
	for (i = 0; i < n; i++)
		if (limit_text("the draft", fields[i].text, e) < 0)
			return -1;
	if (store_begin(st, e) < 0)
		return -1;
	if (remove_rows(st, a, item_id, kind, dim, e) < 0)
		goto out;
	store_now(now);
	s = store_prepare(st, "INSERT INTO drafts (member_id, item_id, kind, "
			  "dimension, field, text, saved_at) VALUES "
			  "(?, ?, ?, ?, ?, ?, ?)", e);
	if (!s)
		goto out;
	for (i = 0; i < n; i++) {
		if (!fields[i].text || !*fields[i].text)
			continue;
		sqlite3_reset(s);
		sqlite3_bind_int64(s, 1, a->member_id);
		sqlite3_bind_int64(s, 2, item_id);
		sqlite3_bind_text(s, 3, kind_name(kind), -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 4, dim, -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 5, fields[i].name, -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 6, fields[i].text, -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 7, now, -1, SQLITE_STATIC);
		if (store_step(st, s, "keeping a draft", e) < 0)
			goto out;
	}
	ret = store_commit(st, e);
out:
	sqlite3_finalize(s);
	if (ret < 0)
		store_rollback(st);
	return ret;
}

char *draft_get(struct store *st, const struct actor *a, long long item_id,
		enum draft_kind kind, const char *dim, const char *field,
		int *found, struct err *e)
{
	sqlite3_stmt *s;
	char *text = NULL;
	int rc;

	*found = 0;
	s = store_prepare(st, "SELECT text FROM drafts WHERE member_id = ? "
			  "AND item_id = ? AND kind = ? AND dimension = ? AND "
			  "field = ?", e);
	if (!s)
		return NULL;
	sqlite3_bind_int64(s, 1, a->member_id);
	sqlite3_bind_int64(s, 2, item_id);
	sqlite3_bind_text(s, 3, kind_name(kind), -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 4, dim, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 5, field, -1, SQLITE_STATIC);
	rc = store_step(st, s, "reading a draft", e);
	if (rc > 0) {
		text = xstrdup((const char *)sqlite3_column_text(s, 0));
		*found = 1;
	}
	sqlite3_finalize(s);
	return text;
}

int draft_remove(struct store *st, const struct actor *a, long long item_id,
		 enum draft_kind kind, const char *dim, struct err *e)
{
	if (store_begin(st, e) < 0)
		return -1;
	if (remove_rows(st, a, item_id, kind, dim, e) < 0) {
		store_rollback(st);
		return -1;
	}
	return store_commit(st, e);
}
