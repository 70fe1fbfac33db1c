/* SPDX-License-Identifier: MIT */
/*
 * item: an item's rows in the study: the item with its comments, fixes
 * and the fixes' conversations saved (an upsert keyed on repo and number)
 * and loaded, and an item's memory released.  See item.h; the rest of
 * the family: item_effort.c (figures and dates), item_ref.c (names and
 * URLs), item_find.c (look-up and repository aliases), item_diff.c (a
 * diff read from the study in windows).
 */
#include "core/study/item.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/base/buf.h"

static void comments_free(struct comment *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(v[i].author);
		free(v[i].created_at);
		free(v[i].body);
	}
	free(v);
}

void item_release(struct item *it)
{
	size_t i;

	if (!it)
		return;
	free(it->repo);
	free(it->title);
	free(it->body);
	free(it->state);
	free(it->state_reason);
	free(it->author);
	free(it->created_at);
	free(it->closed_at);
	free(it->url);
	free(it->source);
	for (i = 0; i < it->nr_labels; i++)
		free(it->labels[i]);
	free(it->labels);
	comments_free(it->comments, it->nr_comments);
	for (i = 0; i < it->nr_fixes; i++) {
		struct fix *f = &it->fixes[i];

		free(f->title);
		free(f->body);
		free(f->url);
		free(f->merged_at);
		free(f->diff);
		comments_free(f->comments, f->nr_comments);
	}
	free(it->fixes);
	memset(it, 0, sizeof(*it));
}

static char *labels_json(const struct item *it)
{
	cJSON *arr = cJSON_CreateArray();
	char *s;
	size_t i;

	for (i = 0; i < it->nr_labels; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(it->labels[i]));
	s = cJSON_PrintUnformatted(arr);
	cJSON_Delete(arr);
	return s;
}

static void bind_int_or_null(sqlite3_stmt *s, int i, int v)
{
	if (v < 0)
		sqlite3_bind_null(s, i);
	else
		sqlite3_bind_int(s, i, v);
}

/* Delete the item's comments, fixes and fixes' conversations, to be
 * written again. */
static int delete_children(struct store *st, const struct item *it,
			   struct err *e)
{
	sqlite3_stmt *s = NULL;
	int ret = -1;

	s = store_prepare(st, "DELETE FROM comments WHERE item_id = ?", e);
	if (!s)
		goto out;
	sqlite3_bind_int64(s, 1, it->id);
	if (store_step_done(st, s, "saving an item", e) < 0)
		goto out;
	sqlite3_finalize(s);
	s = store_prepare(st, "DELETE FROM fixes WHERE item_id = ?", e);
	if (!s)
		goto out;
	sqlite3_bind_int64(s, 1, it->id);
	if (store_step_done(st, s, "saving an item", e) < 0)
		goto out;
	sqlite3_finalize(s);
	s = store_prepare(st, "DELETE FROM fix_comments WHERE item_id = ?", e);
	if (!s)
		goto out;
	sqlite3_bind_int64(s, 1, it->id);
	if (store_step_done(st, s, "saving an item", e) < 0)
		goto out;
	ret = 0;
out:
	sqlite3_finalize(s);
	return ret;
}

static int save_comments(struct store *st, const struct item *it,
			 struct err *e)
{
	sqlite3_stmt *s;
	size_t i;
	int ret = -1;

	s = store_prepare(st, "INSERT INTO comments (item_id, position, "
			  "author, created_at, body) VALUES (?, ?, ?, ?, ?)",
			  e);
	if (!s)
		goto out;
	for (i = 0; i < it->nr_comments; i++) {
		const struct comment *c = &it->comments[i];

		sqlite3_reset(s);
		sqlite3_bind_int64(s, 1, it->id);
		sqlite3_bind_int(s, 2, (int)i);
		store_bind_text(s, 3, c->author);
		store_bind_text(s, 4, c->created_at);
		store_bind_text(s, 5, c->body);
		if (store_step_done(st, s, "saving an item", e) < 0)
			goto out;
	}
	ret = 0;
out:
	sqlite3_finalize(s);
	return ret;
}

static int save_fixes(struct store *st, const struct item *it,
		      struct err *e)
{
	sqlite3_stmt *s;
	size_t i;
	int ret = -1;

	s = store_prepare(st, "INSERT INTO fixes (item_id, position, number, "
			  "title, body, url, merged_at, additions, deletions, "
			  "changed_files, diff, diff_partial, repeats) "
			  "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", e);
	if (!s)
		goto out;
	for (i = 0; i < it->nr_fixes; i++) {
		const struct fix *f = &it->fixes[i];

		sqlite3_reset(s);
		sqlite3_bind_int64(s, 1, it->id);
		sqlite3_bind_int(s, 2, (int)i);
		if (f->number > 0)
			sqlite3_bind_int64(s, 3, f->number);
		else
			sqlite3_bind_null(s, 3);
		store_bind_text(s, 4, f->title);
		store_bind_text(s, 5, f->body);
		store_bind_text(s, 6, f->url);
		store_bind_text(s, 7, f->merged_at);
		bind_int_or_null(s, 8, f->additions);
		bind_int_or_null(s, 9, f->deletions);
		bind_int_or_null(s, 10, f->changed_files);
		if (f->diff)
			sqlite3_bind_text(s, 11, f->diff, (int)f->diff_len,
					  SQLITE_STATIC);
		else
			sqlite3_bind_null(s, 11);
		sqlite3_bind_int(s, 12, f->diff_partial);
		bind_int_or_null(s, 13, f->repeats - 1);
		if (store_step_done(st, s, "saving an item", e) < 0)
			goto out;
	}
	ret = 0;
out:
	sqlite3_finalize(s);
	return ret;
}

/* The pull requests' conversations. */
static int save_fix_comments(struct store *st, const struct item *it,
			     struct err *e)
{
	sqlite3_stmt *s;
	size_t i;
	int ret = -1;

	s = store_prepare(st, "INSERT INTO fix_comments (item_id, fix, "
			  "position, author, created_at, body) VALUES "
			  "(?, ?, ?, ?, ?, ?)", e);
	if (!s)
		goto out;
	for (i = 0; i < it->nr_fixes; i++) {
		const struct fix *f = &it->fixes[i];
		size_t k;

		for (k = 0; k < f->nr_comments; k++) {
			const struct comment *c = &f->comments[k];

			sqlite3_reset(s);
			sqlite3_bind_int64(s, 1, it->id);
			sqlite3_bind_int(s, 2, (int)i);
			sqlite3_bind_int(s, 3, (int)k);
			store_bind_text(s, 4, c->author);
			store_bind_text(s, 5, c->created_at);
			store_bind_text(s, 6, c->body);
			if (store_step_done(st, s, "saving an item", e) < 0)
				goto out;
		}
	}
	ret = 0;
out:
	sqlite3_finalize(s);
	return ret;
}

/* Write the item's comments, fixes and fixes' conversations afresh. */
static int save_children(struct store *st, struct item *it, struct err *e)
{
	if (delete_children(st, it, e) < 0 || save_comments(st, it, e) < 0 ||
	    save_fixes(st, it, e) < 0 || save_fix_comments(st, it, e) < 0)
		return -1;
	return 0;
}

int item_save(struct store *st, struct item *it, struct err *e)
{
	sqlite3_stmt *s;
	char now[32];
	char *labels, *canon;
	int rc;

	/* one identity whatever the repository was called */
	canon = item_canonical_repo(st, it->repo, e);
	if (!canon)
		return -1;
	free(it->repo);
	it->repo = canon;

	item_compute_effort(it);
	labels = labels_json(it);
	store_now(now);
	s = store_prepare(st,
		"INSERT INTO items (repo, number, title, body, state, "
		"state_reason, author, created_at, closed_at, url, labels, "
		"has_fix, diff_partial, days_open, comment_count, additions, "
		"deletions, changed_files, lines_changed, small_fix, source, "
		"imported_at, kind, missing) VALUES (?1, ?2, ?3, ?4, ?5, ?6, "
		"?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, "
		"?20, ?21, ?22, ?23, ?24) "
		"ON CONFLICT (repo, number) DO UPDATE SET title = ?3, "
		"body = ?4, state = ?5, state_reason = ?6, author = ?7, "
		"created_at = ?8, closed_at = ?9, url = ?10, labels = ?11, "
		"has_fix = ?12, diff_partial = ?13, days_open = ?14, "
		"comment_count = ?15, additions = ?16, deletions = ?17, "
		"changed_files = ?18, lines_changed = ?19, small_fix = ?20, "
		"source = ?21, imported_at = ?22, kind = ?23, missing = ?24 "
		"RETURNING id", e);
	if (!s) {
		free(labels);
		return -1;
	}
	sqlite3_bind_text(s, 1, it->repo, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, it->number);
	sqlite3_bind_text(s, 3, it->title, -1, SQLITE_STATIC);
	store_bind_text(s, 4, it->body);
	store_bind_text(s, 5, it->state);
	store_bind_text(s, 6, it->state_reason);
	store_bind_text(s, 7, it->author);
	store_bind_text(s, 8, it->created_at);
	store_bind_text(s, 9, it->closed_at);
	store_bind_text(s, 10, it->url);
	sqlite3_bind_text(s, 11, labels, -1, SQLITE_STATIC);
	sqlite3_bind_int(s, 12, it->nr_fixes > 0);
	sqlite3_bind_int(s, 13, it->diff_partial);
	if (it->days_open >= 0)
		sqlite3_bind_double(s, 14, it->days_open);
	else
		sqlite3_bind_null(s, 14);
	sqlite3_bind_int(s, 15, it->comment_count);
	bind_int_or_null(s, 16, it->additions);
	bind_int_or_null(s, 17, it->deletions);
	bind_int_or_null(s, 18, it->changed_files);
	bind_int_or_null(s, 19, it->lines_changed);
	if (it->nr_fixes && it->lines_changed >= 0)
		sqlite3_bind_int(s, 20, it->small_fix);
	else
		sqlite3_bind_null(s, 20);
	store_bind_text(s, 21, it->source);
	sqlite3_bind_text(s, 22, now, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 23, it->is_pull ? "pull" : "issue", -1,
			  SQLITE_STATIC);
	sqlite3_bind_int(s, 24, !!it->missing);
	rc = store_step(st, s, "saving an item", e);
	if (rc == 1)
		it->id = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	free(labels);
	if (rc == 0)
		return err_set(e, ERR_DB, "saving an item: the study returned "
			       "no id for it");
	if (rc < 0)
		return -1;
	return save_children(st, it, e);
}

static char *col_dup(sqlite3_stmt *s, int i)
{
	const char *t = (const char *)sqlite3_column_text(s, i);

	return t ? xstrdup(t) : NULL;
}

static int col_int(sqlite3_stmt *s, int i)
{
	return sqlite3_column_type(s, i) == SQLITE_NULL ? -1 :
	       sqlite3_column_int(s, i);
}

static void load_labels(struct item *it, const char *json)
{
	cJSON *arr = json ? cJSON_Parse(json) : NULL, *el;
	size_t n = 0;

	if (!cJSON_IsArray(arr)) {
		cJSON_Delete(arr);
		return;
	}
	it->labels = xcalloc((size_t)cJSON_GetArraySize(arr) + 1,
			     sizeof(char *));
	cJSON_ArrayForEach(el, arr)
		if (cJSON_IsString(el))
			it->labels[n++] = xstrdup(el->valuestring);
	it->nr_labels = n;
	cJSON_Delete(arr);
}

/* Read the diff of fixes row `rowid` into f->diff (NUL-terminated). */
static int read_diff(struct store *st, long long rowid, struct fix *f,
		     struct err *e)
{
	sqlite3_blob *b;
	int n;

	if (sqlite3_blob_open(st->db, "main", "fixes", "diff", rowid, 0,
			      &b) != SQLITE_OK)
		return store_error(st, e, "loading a diff");
	n = sqlite3_blob_bytes(b);
	f->diff = xmalloc((size_t)n + 1);
	if (sqlite3_blob_read(b, f->diff, n, 0) != SQLITE_OK) {
		store_error(st, e, "loading a diff");
		sqlite3_blob_close(b);
		return -1;
	}
	sqlite3_blob_close(b);
	f->diff[n] = '\0';
	f->diff_len = (size_t)n;
	return 0;
}

int item_load(struct store *st, long long id, struct item *it, struct err *e)
{
	return item_load_flags(st, id, it, 0, e);
}

/* The items row of `id` into `it` (zeroed by the caller).  Returns 0, or
 * -1 with `e` filled (ERR_NOTFOUND when there is none) and `it` still
 * holding nothing. */
static int load_row(struct store *st, long long id, struct item *it,
		    struct err *e)
{
	sqlite3_stmt *s;
	int rc;

	s = store_prepare(st, "SELECT repo, number, title, body, state, "
			  "state_reason, author, created_at, closed_at, url, "
			  "labels, diff_partial, days_open, comment_count, "
			  "additions, deletions, changed_files, lines_changed, "
			  "small_fix, source, kind = 'pull', missing FROM items "
			  "WHERE id = ?", e);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	rc = store_step(st, s, "loading an item", e);
	if (rc != 1) {
		sqlite3_finalize(s);
		if (rc == 0)
			return err_set(e, ERR_NOTFOUND, "no item with id %lld",
				       id);
		return -1;
	}
	it->id = id;
	it->is_pull = sqlite3_column_int(s, 20);
	it->missing = sqlite3_column_int(s, 21);
	it->repo = col_dup(s, 0);
	it->number = sqlite3_column_int64(s, 1);
	it->title = col_dup(s, 2);
	it->body = col_dup(s, 3);
	it->state = col_dup(s, 4);
	it->state_reason = col_dup(s, 5);
	it->author = col_dup(s, 6);
	it->created_at = col_dup(s, 7);
	it->closed_at = col_dup(s, 8);
	it->url = col_dup(s, 9);
	load_labels(it, (const char *)sqlite3_column_text(s, 10));
	it->diff_partial = sqlite3_column_int(s, 11);
	it->days_open = sqlite3_column_type(s, 12) == SQLITE_NULL ? -1 :
			sqlite3_column_double(s, 12);
	it->comment_count = sqlite3_column_int(s, 13);
	it->additions = col_int(s, 14);
	it->deletions = col_int(s, 15);
	it->changed_files = col_int(s, 16);
	it->lines_changed = col_int(s, 17);
	it->small_fix = col_int(s, 18) > 0;
	it->source = col_dup(s, 19);
	sqlite3_finalize(s);
	return 0;
}

static int load_comments(struct store *st, long long id, struct item *it,
			 struct err *e)
{
	sqlite3_stmt *s;
	size_t alloc = 0;
	int rc;

	s = store_prepare(st, "SELECT author, created_at, body FROM comments "
			  "WHERE item_id = ? ORDER BY position", e);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	while ((rc = store_step(st, s, "loading an item", e)) == 1) {
		struct comment *c;

		ALLOC_GROW(it->comments, it->nr_comments + 1, alloc);
		c = &it->comments[it->nr_comments++];
		c->author = col_dup(s, 0);
		c->created_at = col_dup(s, 1);
		c->body = col_dup(s, 2);
	}
	sqlite3_finalize(s);
	if (rc < 0)
		return -1;
	return 0;
}

static int load_fixes(struct store *st, long long id, struct item *it,
		      unsigned flags, struct err *e)
{
	sqlite3_stmt *s;
	size_t alloc = 0;
	int rc;

	/* the diff is read through the blob interface, straight into its
	 * own buffer: a column value would be assembled by SQLite first and
	 * copied after, twice the memory of a huge diff at the peak.
	 * typeof() does not load the value. */
	s = store_prepare(st, "SELECT number, title, body, url, merged_at, "
			  "additions, deletions, changed_files, "
			  "typeof(diff) = 'null', diff_partial, id, repeats "
			  "FROM fixes "
			  "WHERE item_id = ? ORDER BY position", e);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	while ((rc = store_step(st, s, "loading an item", e)) == 1) {
		struct fix *f;

		ALLOC_GROW(it->fixes, it->nr_fixes + 1, alloc);
		f = &it->fixes[it->nr_fixes++];
		memset(f, 0, sizeof(*f));
		f->number = sqlite3_column_int64(s, 0);
		f->title = col_dup(s, 1);
		f->body = col_dup(s, 2);
		f->url = col_dup(s, 3);
		f->merged_at = col_dup(s, 4);
		f->additions = col_int(s, 5);
		f->deletions = col_int(s, 6);
		f->changed_files = col_int(s, 7);
		f->diff_partial = sqlite3_column_int(s, 9);
		f->row_id = sqlite3_column_int64(s, 10);
		f->repeats = col_int(s, 11) + 1;
		f->has_diff = !sqlite3_column_int(s, 8);
		if (f->has_diff && !(flags & ITEM_LOAD_NO_DIFF) &&
		    read_diff(st, f->row_id, f, e) < 0) {
			sqlite3_finalize(s);
			return -1;
		}
	}
	sqlite3_finalize(s);
	if (rc < 0)
		return -1;
	return 0;
}

/* The pull requests' conversations, onto the fixes loaded. */
static int load_fix_comments(struct store *st, long long id,
			     struct item *it, struct err *e)
{
	sqlite3_stmt *s;
	int rc;

	s = store_prepare(st, "SELECT fix, author, created_at, body FROM "
			  "fix_comments WHERE item_id = ? ORDER BY fix, "
			  "position", e);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	while ((rc = store_step(st, s, "loading an item", e)) == 1) {
		long long k = sqlite3_column_int64(s, 0);
		struct fix *f;
		struct comment *c;

		if (k < 0 || (size_t)k >= it->nr_fixes)
			continue;
		f = &it->fixes[k];
		f->comments = xrealloc(f->comments, (f->nr_comments + 1) *
				       sizeof(*f->comments));
		c = &f->comments[f->nr_comments++];
		c->author = col_dup(s, 1);
		c->created_at = col_dup(s, 2);
		c->body = col_dup(s, 3);
	}
	sqlite3_finalize(s);
	if (rc < 0)
		return -1;
	return 0;
}

int item_load_flags(struct store *st, long long id, struct item *it,
		    unsigned flags, struct err *e)
{
	memset(it, 0, sizeof(*it));
	if (load_row(st, id, it, e) < 0)
		return -1;
	if (load_comments(st, id, it, e) < 0 ||
	    load_fixes(st, id, it, flags, e) < 0 ||
	    load_fix_comments(st, id, it, e) < 0) {
		item_release(it);
		return -1;
	}
	return 0;
}
