/* SPDX-License-Identifier: MIT */
/*
 * item: see item.h.
 */
#include "core/study/item.h"

#include <ctype.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "core/base/buf.h"
#include "core/base/suggest.h"
#include "core/base/diff.h"

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

/* Days from the civil date to 1970-01-01 (Howard Hinnant's algorithm,
 * proleptic Gregorian), so no timezone state is involved. */
static long long days_from_civil(int y, int m, int d)
{
	long long era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static int digits(const char *s, int n, int *out)
{
	int v = 0, i;

	for (i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return 0;
}

int item_parse_date(const char *s, double *out)
{
	int y, mo, d, h = 0, mi = 0, sec = 0, oh = 0, om = 0;
	static const int mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31,
				     30, 31 };
	double t;

	if (!s || strlen(s) < 10)
		return -1;
	if (digits(s, 4, &y) || s[4] != '-' || digits(s + 5, 2, &mo) ||
	    s[7] != '-' || digits(s + 8, 2, &d))
		return -1;
	if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1])
		return -1;
	if (mo == 2 && d == 29 && (y % 4 || (y % 100 == 0 && y % 400)))
		return -1;	/* not a leap year */
	s += 10;
	if (*s == 'T' || *s == ' ') {
		if (digits(s + 1, 2, &h) || s[3] != ':' ||
		    digits(s + 4, 2, &mi))
			return -1;
		s += 6;
		if (*s == ':') {
			if (digits(s + 1, 2, &sec))
				return -1;
			s += 3;
		}
		if (*s == '.')
			for (s++; isdigit((unsigned char)*s); s++)
				;
		if (h > 23 || mi > 59 || sec > 60)
			return -1;
		if (*s == 'Z') {
			s++;
		} else if (*s == '+' || *s == '-') {
			int sign = *s == '-' ? -1 : 1;

			if (digits(s + 1, 2, &oh) || s[3] != ':' ||
			    digits(s + 4, 2, &om))
				return -1;
			oh *= sign;
			om *= sign;
			s += 6;
		}
	}
	if (*s)
		return -1;
	t = (double)days_from_civil(y, mo, d) * 86400.0 + h * 3600 + mi * 60 +
	    sec - oh * 3600 - om * 60;
	*out = t;
	return 0;
}

/* a + b, held at INT_MAX: the figures are ints (up to 2e9 each from an
 * import), and a sum past INT_MAX is no longer a count anyone can use,
 * but it must stay large rather than wrap into a small or negative one */
static int add_sat(int a, int b)
{
	long long s = (long long)a + b;

	return s > INT_MAX ? INT_MAX : (int)s;
}

/*
 * A fingerprint of what a diff changes: the files it touches and the
 * lines it adds and removes, in order, but not where they sit (hunk
 * headers, index lines, context), so the same change cherry-picked or
 * backported to another branch has the same one.  FNV-1a, 64 bits.
 * 0 for a diff that changes no line.
 */
static unsigned long long change_print(const char *d, size_t len)
{
	unsigned long long h = 0xcbf29ce484222325ULL;
	size_t i = 0;
	int any = 0;

	while (i < len) {
		const char *line = d + i;
		const char *nl = memchr(line, '\n', len - i);
		size_t n = nl ? (size_t)(nl - line) : len - i, k;

		i += n + (nl ? 1 : 0);
		if (n && line[n - 1] == '\r')
			n--;
		if (!n || (line[0] != '+' && line[0] != '-' &&
			   (n < 11 || strncmp(line, "diff --git ", 11))))
			continue;
		if (line[0] != 'd' && strncmp(line, "+++ ", 4) &&
		    strncmp(line, "--- ", 4))
			any = 1;
		for (k = 0; k < n; k++) {
			h ^= (unsigned char)line[k];
			h *= 0x100000001b3ULL;
		}
		h ^= '\n';
		h *= 0x100000001b3ULL;
	}
	return any ? h : 0;
}

/* Mark each fix whose change repeats an earlier fix's (f->repeats). */
static void mark_repeats(struct item *it)
{
	unsigned long long *print = xcalloc(it->nr_fixes + 1, sizeof(*print));
	size_t i, j;

	for (i = 0; i < it->nr_fixes; i++) {
		struct fix *f = &it->fixes[i];

		f->repeats = 0;
		print[i] = f->diff ? change_print(f->diff, f->diff_len) : 0;
		for (j = 0; print[i] && j < i; j++) {
			if (print[j] == print[i] && !it->fixes[j].repeats) {
				f->repeats = (int)j + 1;
				break;
			}
		}
	}
	free(print);
}

void item_compute_effort(struct item *it)
{
	double a, b;
	size_t i;
	int unknown_add = 0, unknown_del = 0, unknown_files = 0;

	if ((int)it->nr_comments > it->comment_count)
		it->comment_count = (int)it->nr_comments;
	it->days_open = -1;
	if (it->created_at && it->closed_at &&
	    !item_parse_date(it->created_at, &a) &&
	    !item_parse_date(it->closed_at, &b) && b >= a)
		it->days_open = (b - a) / 86400.0;

	it->additions = it->deletions = it->changed_files = -1;
	it->lines_changed = -1;
	it->small_fix = 0;
	it->diff_partial = 0;
	if (!it->nr_fixes)
		return;
	it->additions = it->deletions = it->changed_files = 0;
	mark_repeats(it);
	for (i = 0; i < it->nr_fixes; i++) {
		struct fix *f = &it->fixes[i];

		if ((f->additions < 0 || f->deletions < 0 ||
		     f->changed_files < 0) && f->diff) {
			int ad, de, fi;

			diff_count(f->diff, f->diff_len, &ad, &de, &fi);
			if (f->additions < 0)
				f->additions = ad;
			if (f->deletions < 0)
				f->deletions = de;
			if (f->changed_files < 0)
				f->changed_files = fi;
		}
		if (f->diff_partial)
			it->diff_partial = 1;
		/* the same change again (on another branch) is not more
		 * work: its own figures stay on the fix */
		if (f->repeats)
			continue;
		/* a figure neither given nor countable is unknown, not 0:
		 * a fix of unknown size must not count as a small one */
		if (f->additions < 0)
			unknown_add = 1;
		else
			it->additions = add_sat(it->additions, f->additions);
		if (f->deletions < 0)
			unknown_del = 1;
		else
			it->deletions = add_sat(it->deletions, f->deletions);
		if (f->changed_files < 0)
			unknown_files = 1;
		else
			it->changed_files = add_sat(it->changed_files,
						    f->changed_files);
	}
	if (unknown_add)
		it->additions = -1;
	if (unknown_del)
		it->deletions = -1;
	if (unknown_files)
		it->changed_files = -1;
	if (unknown_add || unknown_del)
		return;
	it->lines_changed = add_sat(it->additions, it->deletions);
	it->small_fix = it->lines_changed <= ITEM_SMALL_FIX;
}

char *item_name(const char *repo, long long number)
{
	struct buf b = BUF_INIT;

	buf_addf(&b, "%s#%lld", repo, number);
	return buf_detach(&b, NULL);
}

int item_valid_repo(const char *repo)
{
	const char *slash = strchr(repo, '/');
	const char *p;

	if (!slash || slash == repo || !slash[1] || strchr(slash + 1, '/'))
		return 0;
	if (strlen(repo) > 200)
		return 0;
	for (p = repo; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("/-_.", *p))
			return 0;
	return 1;
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

static int save_children(struct store *st, struct item *it, struct err *e)
{
	sqlite3_stmt *s = NULL;
	size_t i;
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
	sqlite3_finalize(s);

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
	sqlite3_finalize(s);

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
	sqlite3_finalize(s);

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

int item_load_flags(struct store *st, long long id, struct item *it,
		    unsigned flags, struct err *e)
{
	sqlite3_stmt *s;
	size_t alloc = 0;
	int rc;

	memset(it, 0, sizeof(*it));
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

	s = store_prepare(st, "SELECT author, created_at, body FROM comments "
			  "WHERE item_id = ? ORDER BY position", e);
	if (!s)
		goto fail;
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
		goto fail;

	alloc = 0;
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
		goto fail;
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
			goto fail;
		}
	}
	sqlite3_finalize(s);
	if (rc < 0)
		goto fail;

	/* the pull requests' conversations */
	s = store_prepare(st, "SELECT fix, author, created_at, body FROM "
			  "fix_comments WHERE item_id = ? ORDER BY fix, "
			  "position", e);
	if (!s)
		goto fail;
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
		goto fail;
	return 0;
fail:
	item_release(it);
	return -1;
}

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

/* Digits s[0..len) as a number in 1..ITEM_MAX_NUMBER, or -1: never a
 * conversion that could overflow. */
static long long parse_number(const char *s, size_t len)
{
	long long n = 0;
	size_t i;

	if (!len || len > 12)
		return -1;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		n = n * 10 + (s[i] - '0');
	}
	return n >= 1 && n <= ITEM_MAX_NUMBER ? n : -1;
}

/* "owner/name" from s[0..len) into a new string when it is one. */
static char *repo_part(const char *s, size_t len)
{
	char *r = xstrndup(s, len);

	if (!item_valid_repo(r)) {
		free(r);
		return NULL;
	}
	return r;
}

static char *api_host;		/* host[:port] of the configured API */

void item_set_api_host(const char *api_url)
{
	const char *h;

	free(api_host);
	api_host = NULL;
	if (!api_url || !*api_url)
		return;
	h = strstr(api_url, "://");
	h = h ? h + 3 : api_url;
	if (strcspn(h, "/?#"))
		api_host = xstrndup(h, strcspn(h, "/?#"));
}

const char *item_url_foreign_host(const char *s, size_t *len)
{
	static const char *const github[] = { "github.com", "www.github.com",
					      "api.github.com" };
	const char *h;
	size_t n, i;

	if (!s || (strncasecmp(s, "https://", 8) &&
		   strncasecmp(s, "http://", 7)))
		return NULL;
	h = strstr(s, "://") + 3;
	n = strcspn(h, "/?#");
	for (i = 0; i < sizeof(github) / sizeof(github[0]); i++)
		if (strlen(github[i]) == n && !strncasecmp(h, github[i], n))
			return NULL;
	if (api_host && strlen(api_host) == n && !strncasecmp(h, api_host, n))
		return NULL;
	*len = n;
	return h;
}

int item_parse_ref(const char *s, char **repo, long long *number, int *kind)
{
	size_t hostlen;
	const char *p, *hash, *end;
	size_t n;

	*repo = NULL;
	*number = -1;
	if (kind)
		*kind = ITEM_REF_ANY;
	if (!s)
		return -1;
	if (!strncmp(s, "https://", 8) || !strncmp(s, "http://", 7)) {
		const char *path = strstr(s, "://") + 3;
		const char *slash1, *slash2, *what, *num;
		int k = ITEM_REF_ANY;

		/* example.com/a/b/issues/1 is no GitHub item a/b#1 */
		if (item_url_foreign_host(s, &hostlen))
			return -1;
		path = strchr(path, '/');
		if (!path)
			return -1;
		path++;
		if (!strncmp(path, "repos/", 6))	/* the API's form */
			path += 6;
		slash1 = strchr(path, '/');
		slash2 = slash1 ? strchr(slash1 + 1, '/') : NULL;
		if (!slash2)
			return -1;
		what = slash2 + 1;
		if (!strncmp(what, "issues/", 7)) {
			num = what + 7;
			k = ITEM_REF_ISSUE;
		} else if (!strncmp(what, "pull/", 5)) {
			num = what + 5;
			k = ITEM_REF_PULL;
		} else if (!strncmp(what, "pulls/", 6)) {
			num = what + 6;
			k = ITEM_REF_PULL;
		} else {
			return -1;
		}
		n = strspn(num, "0123456789");
		/* after the number: nothing, or a sub-page, query or anchor */
		if (num[n] && !strchr("/?#", num[n]))
			return -1;
		*number = parse_number(num, n);
		if (*number < 0)
			return -1;
		*repo = repo_part(path, (size_t)(slash2 - path));
		if (!*repo)
			return -1;
		if (kind)
			*kind = k;
		return 0;
	}
	hash = strrchr(s, '#');
	if (!hash || !strchr(s, '/'))
		return -1;
	p = hash + 1;
	end = p + strlen(p);
	*number = parse_number(p, (size_t)(end - p));
	if (*number < 0)
		return -1;
	*repo = repo_part(s, (size_t)(hash - s));
	return *repo ? 0 : -1;
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

/*
 * Diff sources.  A value longer than a page lies on a chain of overflow
 * pages that a fresh blob handle walks from its start to reach an offset;
 * an open handle remembers the chain.  So the handle stays open while the
 * diff is read (a jump to the end of a 10 MB diff is then one page read),
 * but an open handle holds a read transaction, and in WAL mode the
 * connection could not start a write from that snapshot once another
 * process has written: the store closes it before every write
 * (store_reader), and the next read opens it again.
 */
#define DIFF_WINDOW (64 * 1024)

static void release_blob(struct store_reader *r)
{
	struct diff_source *src = (struct diff_source *)
		((char *)r - offsetof(struct diff_source, reader));

	if (src->held) {
		sqlite3_blob_close(src->held);
		src->held = NULL;
	}
}

static int blob_read(struct diff_source *src, size_t off, size_t n,
		     char *dst)
{
	if (!src->held) {
		if (sqlite3_blob_open(src->st->db, "main", "fixes", "diff",
				      src->row_id, 0, &src->held) != SQLITE_OK) {
			src->held = NULL;
			return -1;
		}
		store_add_reader(src->st, &src->reader);
	}
	if (src->len == (size_t)-1)
		src->len = (size_t)sqlite3_blob_bytes(src->held);
	if (n && sqlite3_blob_read(src->held, dst, (int)n, (int)off) !=
	    SQLITE_OK) {
		/* the row changed under us: start afresh next time */
		release_blob(&src->reader);
		return -1;
	}
	return 0;
}

int diff_source_open(struct store *st, const struct fix *f,
		     struct diff_source *src, struct err *e)
{
	memset(src, 0, sizeof(*src));
	buf_init(&src->win, 0);
	src->st = st;
	src->reader.release = release_blob;
	if (f->diff) {
		src->mem = f->diff;
		src->len = f->diff_len;
		return 0;
	}
	if (!f->has_diff || !f->row_id)
		return 0;
	src->row_id = f->row_id;
	src->len = (size_t)-1;
	if (blob_read(src, 0, 0, NULL) < 0) {
		src->len = 0;
		return store_error(st, e, "opening a diff");
	}
	return 0;
}

const char *diff_source_read(struct diff_source *src, size_t off, size_t n)
{
	size_t start, len;

	if (off > src->len || n > src->len - off)
		return NULL;
	if (src->mem)
		return src->mem + off;
	if (src->win_valid && off >= src->win_off &&
	    off + n <= src->win_off + src->win.len)
		return src->win.ptr + (off - src->win_off);
	/* a window around the request: scrolling either way reuses it */
	start = off > DIFF_WINDOW / 4 ? off - DIFF_WINDOW / 4 : 0;
	len = n + (off - start) + DIFF_WINDOW;
	if (len > src->len - start)
		len = src->len - start;
	buf_setlen(&src->win, len);
	if (blob_read(src, start, len, src->win.ptr) < 0) {
		src->win_valid = 0;
		return NULL;
	}
	src->win_off = start;
	src->win_valid = 1;
	return src->win.ptr + (off - start);
}

void diff_source_close(struct diff_source *src)
{
	if (!src)
		return;
	if (src->st)
		store_remove_reader(src->st, &src->reader);
	release_blob(&src->reader);
	buf_release(&src->win);
	memset(src, 0, sizeof(*src));
}

static const char *source_reader(void *arg, size_t off, size_t n)
{
	return diff_source_read(arg, off, n);
}

void diff_parse_source(struct diff *d, struct diff_source *src)
{
	diff_parse_read(d, source_reader, src, src->len);
}
