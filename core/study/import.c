/* SPDX-License-Identifier: MIT */
/*
 * import: see import.h.
 *
 * Limitations: a file is held in memory whole while it is checked (a
 * 10,000-item file of typical issues is a few tens of megabytes).  NUL
 * characters inside JSON strings (\u0000) end the string there.
 */
#include "core/study/import.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/base/buf.h"
#include "core/base/json_nul.h"
#include "core/store/audit.h"

struct items {
	struct item *v;
	size_t nr, alloc;
};

static void items_release(struct items *l)
{
	size_t i;

	for (i = 0; i < l->nr; i++)
		item_release(&l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* Line and column of offset `off` in text. */
static void line_col(const char *text, size_t off, int *line, int *col)
{
	size_t i;

	*line = 1;
	*col = 1;
	for (i = 0; i < off; i++) {
		if (text[i] == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
}

/* ---- field readers: each names the field in its error ---- */

static int get_string(const cJSON *obj, const char *key, int required,
		      char **out, const char *where, const char *path,
		      struct err *e)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	*out = NULL;
	if (!v || cJSON_IsNull(v)) {
		if (required)
			return err_set(e, ERR_INPUT, "%s: %s%s: missing "
				       "(required)", where, path, key);
		return 0;
	}
	if (!cJSON_IsString(v))
		return err_set(e, ERR_INPUT, "%s: %s%s: expected a string",
			       where, path, key);
	if (required && !*v->valuestring)
		return err_set(e, ERR_INPUT, "%s: %s%s: must not be empty",
			       where, path, key);
	*out = xstrdup(v->valuestring);
	return 0;
}

static int get_date(const cJSON *obj, const char *key, char **out,
		    const char *where, const char *path, struct err *e)
{
	double t;

	if (get_string(obj, key, 0, out, where, path, e) < 0)
		return -1;
	if (*out && item_parse_date(*out, &t) < 0) {
		err_set(e, ERR_INPUT, "%s: %s%s: not an ISO 8601 date: \"%.40s\"",
			where, path, key, *out);
		free(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}

/* A non-negative integer; *out = -1 when absent and not required. */
static int get_count(const cJSON *obj, const char *key, int required,
		     long long *out, const char *where, const char *path,
		     struct err *e)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	*out = -1;
	if (!v || cJSON_IsNull(v)) {
		if (required)
			return err_set(e, ERR_INPUT, "%s: %s%s: missing "
				       "(required)", where, path, key);
		return 0;
	}
	/* the range first: converting 1e300 to an integer is undefined */
	if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0 &&
				    v->valuedouble <= 1e15) ||
	    v->valuedouble != (double)(long long)v->valuedouble)
		return err_set(e, ERR_INPUT, "%s: %s%s: expected a whole "
			       "number >= 0", where, path, key);
	*out = (long long)v->valuedouble;
	return 0;
}

static int get_int(const cJSON *obj, const char *key, int *out,
		   const char *where, const char *path, struct err *e)
{
	long long v;

	if (get_count(obj, key, 0, &v, where, path, e) < 0)
		return -1;
	if (v > 2000000000)
		return err_set(e, ERR_INPUT, "%s: %s%s: too large", where,
			       path, key);
	*out = (int)v;
	return 0;
}

static int get_labels(const cJSON *obj, struct item *it, const char *where,
		      struct err *e)
{
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(obj, "labels");
	const cJSON *el;
	size_t i = 0;

	if (!arr || cJSON_IsNull(arr))
		return 0;
	if (!cJSON_IsArray(arr))
		return err_set(e, ERR_INPUT, "%s: labels: expected an array",
			       where);
	it->labels = xcalloc((size_t)cJSON_GetArraySize(arr) + 1,
			     sizeof(char *));
	cJSON_ArrayForEach(el, arr) {
		const cJSON *name = el;

		/* GitHub gives label objects; our format gives strings */
		if (cJSON_IsObject(el))
			name = cJSON_GetObjectItemCaseSensitive(el, "name");
		if (!cJSON_IsString(name))
			return err_set(e, ERR_INPUT, "%s: labels[%zu]: "
				       "expected a string", where, i);
		it->labels[it->nr_labels++] = xstrdup(name->valuestring);
		i++;
	}
	return 0;
}

static int get_user(const cJSON *obj, const char *key, char **out,
		    const char *where, const char *path, struct err *e)
{
	const cJSON *u = cJSON_GetObjectItemCaseSensitive(obj, key);

	*out = NULL;
	if (!u || cJSON_IsNull(u))
		return 0;	/* a deleted account: the ghost */
	if (cJSON_IsString(u)) {
		*out = xstrdup(u->valuestring);
		return 0;
	}
	if (cJSON_IsObject(u))
		return get_string(u, "login", 0, out, where, path, e);
	return err_set(e, ERR_INPUT, "%s: %s%s: expected a user name", where,
		       path, key);
}

/* The comments of array `arr` (NULL or null: none) into *v and *nr;
 * `prefix` names where the array is ("" for the issue's, "fixes[0]."
 * for a pull request's). */
static int get_comment_list(const cJSON *arr, struct comment **v, size_t *nr,
			    const char *where, const char *prefix, int github,
			    struct err *e)
{
	const cJSON *el;
	char path[96];
	size_t i = 0;

	/* GitHub's pull request object gives a count there */
	if (!arr || cJSON_IsNull(arr) || (github && cJSON_IsNumber(arr)))
		return 0;
	if (!cJSON_IsArray(arr))
		return err_set(e, ERR_INPUT, "%s: %scomments: expected an "
			       "array", where, prefix);
	*v = xcalloc((size_t)cJSON_GetArraySize(arr) + 1, sizeof(**v));
	cJSON_ArrayForEach(el, arr) {
		struct comment *c = &(*v)[*nr];

		snprintf(path, sizeof(path), "%scomments[%zu].", prefix, i++);
		if (!cJSON_IsObject(el))
			return err_set(e, ERR_INPUT, "%s: %.*s: expected an "
				       "object", where,
				       (int)strlen(path) - 1, path);
		(*nr)++;
		if (get_user(el, github ? "user" : "author", &c->author,
			     where, path, e) < 0 ||
		    get_date(el, "created_at", &c->created_at, where, path,
			     e) < 0 ||
		    get_string(el, "body", 0, &c->body, where, path, e) < 0)
			return -1;
	}
	return 0;
}

static int get_comments(const cJSON *arr, struct item *it, const char *where,
			int github, struct err *e)
{
	return get_comment_list(arr, &it->comments, &it->nr_comments, where,
				"", github, e);
}

static int get_fix(const cJSON *el, struct fix *f, const char *where,
		   const char *path, int github, struct err *e)
{
	long long n;

	f->additions = f->deletions = f->changed_files = -1;
	if (get_count(el, "number", 0, &n, where, path, e) < 0)
		return -1;
	f->number = n > 0 ? n : 0;
	if (get_string(el, "title", 0, &f->title, where, path, e) < 0 ||
	    get_string(el, "body", 0, &f->body, where, path, e) < 0 ||
	    get_string(el, github ? "html_url" : "url", 0, &f->url, where,
		       path, e) < 0 ||
	    get_date(el, "merged_at", &f->merged_at, where, path, e) < 0 ||
	    get_int(el, "additions", &f->additions, where, path, e) < 0 ||
	    get_int(el, "deletions", &f->deletions, where, path, e) < 0 ||
	    get_int(el, "changed_files", &f->changed_files, where, path,
		    e) < 0 ||
	    get_string(el, "diff", 0, &f->diff, where, path, e) < 0)
		return -1;
	if (f->diff)
		f->diff_len = strlen(f->diff);
	{
		const cJSON *p = cJSON_GetObjectItemCaseSensitive(el,
							"diff_partial");

		f->diff_partial = cJSON_IsTrue(p);
	}
	/* its conversation, when given */
	return get_comment_list(cJSON_GetObjectItemCaseSensitive(el,
							"comments"),
				&f->comments, &f->nr_comments, where, path,
				github, e);
}

static int get_fixes(const cJSON *arr, struct item *it, const char *where,
		     int github, struct err *e)
{
	const cJSON *el;
	char path[48];
	size_t i = 0;

	if (!arr || cJSON_IsNull(arr))
		return 0;
	if (!cJSON_IsArray(arr))
		return err_set(e, ERR_INPUT, "%s: %s: expected an array",
			       where, github ? "pull_requests" : "fixes");
	it->fixes = xcalloc((size_t)cJSON_GetArraySize(arr) + 1,
			    sizeof(*it->fixes));
	cJSON_ArrayForEach(el, arr) {
		snprintf(path, sizeof(path), "%s[%zu].",
			 github ? "pull_requests" : "fixes", i++);
		if (!cJSON_IsObject(el))
			return err_set(e, ERR_INPUT, "%s: %.*s: expected an "
				       "object", where,
				       (int)strlen(path) - 1, path);
		it->nr_fixes++;
		if (get_fix(el, &it->fixes[it->nr_fixes - 1], where, path,
			    github, e) < 0)
			return -1;
	}
	return 0;
}

int import_item_object(const cJSON *obj, struct item *it, const char *where,
		       struct err *e)
{
	long long n;

	memset(it, 0, sizeof(*it));
	if (!cJSON_IsObject(obj))
		return err_set(e, ERR_INPUT, "%s: expected an item object",
			       where);
	if (get_string(obj, "repo", 1, &it->repo, where, "", e) < 0)
		return -1;
	if (!item_valid_repo(it->repo))
		return err_set(e, ERR_INPUT, "%s: repo: \"%.60s\" is not "
			       "owner/name", where, it->repo);
	if (get_count(obj, "number", 1, &n, where, "", e) < 0)
		return -1;
	if (n <= 0)
		return err_set(e, ERR_INPUT, "%s: number: must be positive",
			       where);
	it->number = n;
	if (get_string(obj, "title", 1, &it->title, where, "", e) < 0 ||
	    get_string(obj, "body", 0, &it->body, where, "", e) < 0 ||
	    get_string(obj, "state", 0, &it->state, where, "", e) < 0 ||
	    get_string(obj, "state_reason", 0, &it->state_reason, where, "",
		       e) < 0 ||
	    get_user(obj, "author", &it->author, where, "", e) < 0 ||
	    get_date(obj, "created_at", &it->created_at, where, "", e) < 0 ||
	    get_date(obj, "closed_at", &it->closed_at, where, "", e) < 0 ||
	    get_string(obj, "url", 0, &it->url, where, "", e) < 0 ||
	    get_labels(obj, it, where, e) < 0 ||
	    get_comments(cJSON_GetObjectItemCaseSensitive(obj, "comments"),
			 it, where, 0, e) < 0 ||
	    get_fixes(cJSON_GetObjectItemCaseSensitive(obj, "fixes"), it,
		      where, 0, e) < 0)
		return -1;
	return 0;
}

/* owner/name from "https://api.github.com/repos/OWNER/NAME" or
 * "https://github.com/OWNER/NAME/issues/N". */
static char *repo_from_url(const char *url)
{
	const char *p = strstr(url, "/repos/");
	const char *end;

	if (p) {
		p += 7;
	} else if ((p = strstr(url, "://"))) {
		p = strchr(p + 3, '/');
		if (!p)
			return NULL;
		p++;
	} else {
		return NULL;
	}
	end = strchr(p, '/');
	if (!end)
		return NULL;
	end = strchr(end + 1, '/');
	if (!end)
		end = p + strlen(p);
	return xstrndup(p, (size_t)(end - p));
}

int import_github_issue(const cJSON *issue, const cJSON *comments,
			const cJSON *pulls, struct item *it,
			const char *where, struct err *e)
{
	const cJSON *v;
	char *url = NULL;
	long long n;

	memset(it, 0, sizeof(*it));
	if (!cJSON_IsObject(issue))
		return err_set(e, ERR_INPUT, "%s: expected an issue object",
			       where);
	if (cJSON_GetObjectItemCaseSensitive(issue, "pull_request"))
		return 1;
	if (get_string(issue, "repository_url", 0, &url, where, "", e) < 0)
		return -1;
	if (!url && get_string(issue, "html_url", 0, &url, where, "",
			       e) < 0)
		return -1;
	if (!url)
		return err_set(e, ERR_INPUT, "%s: repository_url: missing "
			       "(cannot tell the repository)", where);
	it->repo = repo_from_url(url);
	free(url);
	if (!it->repo || !item_valid_repo(it->repo))
		return err_set(e, ERR_INPUT, "%s: repository_url: cannot "
			       "tell the repository", where);
	if (get_count(issue, "number", 1, &n, where, "", e) < 0)
		return -1;
	if (n <= 0)
		return err_set(e, ERR_INPUT, "%s: number: must be positive",
			       where);
	it->number = n;
	if (get_string(issue, "title", 1, &it->title, where, "", e) < 0 ||
	    get_string(issue, "body", 0, &it->body, where, "", e) < 0 ||
	    get_string(issue, "state", 0, &it->state, where, "", e) < 0 ||
	    get_string(issue, "state_reason", 0, &it->state_reason, where,
		       "", e) < 0 ||
	    get_user(issue, "user", &it->author, where, "", e) < 0 ||
	    get_date(issue, "created_at", &it->created_at, where, "", e) < 0 ||
	    get_date(issue, "closed_at", &it->closed_at, where, "", e) < 0 ||
	    get_string(issue, "html_url", 0, &it->url, where, "", e) < 0 ||
	    get_labels(issue, it, where, e) < 0)
		return -1;
	v = cJSON_GetObjectItemCaseSensitive(issue, "comments");
	/* a count no int holds is nonsense: left to the comments given */
	if (cJSON_IsNumber(v) && v->valuedouble >= 0 &&
	    v->valuedouble <= INT_MAX)
		it->comment_count = (int)v->valuedouble;
	if (get_comments(comments, it, where, 1, e) < 0 ||
	    get_fixes(pulls, it, where, 1, e) < 0)
		return -1;
	return 0;
}

/* One JSON value of a file: an item in our format, a GitHub issue, a
 * bundle, or an array of any of these. */
static int take_value(const cJSON *v, const char *where, struct items *out,
		      struct import_stats *stats, struct err *e)
{
	struct item it;
	int rc;

	if (cJSON_IsArray(v)) {
		const cJSON *el;
		char sub[300];
		size_t i = 0;

		cJSON_ArrayForEach(el, v) {
			snprintf(sub, sizeof(sub), "%s: [%zu]", where, i++);
			if (take_value(el, sub, out, stats, e) < 0)
				return -1;
		}
		return 0;
	}
	if (!cJSON_IsObject(v))
		return err_set(e, ERR_INPUT, "%s: expected an item object",
			       where);
	if (cJSON_GetObjectItemCaseSensitive(v, "repo"))
		rc = import_item_object(v, &it, where, e);
	else if (cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(v, "issue")))
		rc = import_github_issue(
			cJSON_GetObjectItemCaseSensitive(v, "issue"),
			cJSON_GetObjectItemCaseSensitive(v, "comments"),
			cJSON_GetObjectItemCaseSensitive(v, "pull_requests"),
			&it, where, e);
	else if (cJSON_GetObjectItemCaseSensitive(v, "repository_url") ||
		 cJSON_GetObjectItemCaseSensitive(v, "html_url"))
		rc = import_github_issue(v, NULL, NULL, &it, where, e);
	else
		return err_set(e, ERR_INPUT, "%s: repo: missing (required)",
			       where);
	if (rc < 0) {
		item_release(&it);
		return -1;
	}
	if (rc == 1) {
		stats->skipped++;
		item_release(&it);
		return 0;
	}
	ALLOC_GROW(out->v, out->nr + 1, out->alloc);
	out->v[out->nr++] = it;
	return 0;
}

static int parse_error(const char *text, const char *at, const char *origin,
		       int line_base, struct err *e)
{
	int line, col;

	line_col(text, (size_t)(at - text), &line, &col);
	return err_set(e, ERR_INPUT, "%s:%d:%d: invalid JSON", origin,
		       line + line_base, col);
}

static int parse_all(const char *text, size_t len, const char *origin,
		     struct items *out, struct import_stats *stats,
		     struct err *e)
{
	const char *end = NULL;
	cJSON *root;
	size_t i = 0;
	int line = 0;

	while (i < len && strchr(" \t\r\n", text[i]))
		i++;
	if (i == len)
		return err_set(e, ERR_INPUT, "%s: empty file, no items", origin);
	if (memchr(text, '\0', len))
		return err_set(e, ERR_INPUT, "%s: a NUL byte in the file; not "
			       "JSON text", origin);
	{
		struct buf path = BUF_INIT;
		size_t at;

		/* cJSON would cut the text at it, silently */
		if (json_find_nul(text, len, &at, &path)) {
			int l, col;

			line_col(text, at, &l, &col);
			err_set(e, ERR_INPUT, "%s:%d:%d: %s: a NUL character "
				"(\\u0000) in the text", origin, l, col,
				path.len ? path.ptr : "(a string)");
			buf_release(&path);
			return -1;
		}
		buf_release(&path);
	}
	/* a whole-file JSON value first (an array, or a pretty-printed
	 * object); else JSON Lines */
	root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
	if (root) {
		const char *p = end;

		while (p < text + len && strchr(" \t\r\n", *p))
			p++;
		if (p == text + len) {
			char where[300];
			int first, col, rc;

			/* a value on one line is a JSON Lines file of one
			 * line: name the line, as for longer files */
			line_col(text, i, &first, &col);
			if (!memchr(text + i, '\n', (size_t)(end - (text + i))))
				snprintf(where, sizeof(where), "%s:%d", origin,
					 first);
			else
				snprintf(where, sizeof(where), "%s", origin);
			rc = take_value(root, where, out, stats, e);
			cJSON_Delete(root);
			if (rc == 0 && !out->nr && !stats->skipped)
				return err_set(e, ERR_INPUT, "%s: no items",
					       origin);
			return rc;
		}
		cJSON_Delete(root);
	} else {
		/* broken on its first value: a pretty-printed file or the
		 * first line of JSON Lines; either way this is the spot */
		return parse_error(text, cJSON_GetErrorPtr(), origin, 0, e);
	}

	for (i = 0; i < len;) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t n = nl ? (size_t)(nl - (text + i)) : len - i;
		char where[300];
		size_t j;

		line++;
		for (j = 0; j < n && strchr(" \t\r", text[i + j]); j++)
			;
		if (j < n) {
			root = cJSON_ParseWithLengthOpts(text + i, n, &end, 0);
			if (!root)
				return parse_error(text + i,
						   cJSON_GetErrorPtr(), origin,
						   line - 1, e);
			while (end < text + i + n && strchr(" \t\r", *end))
				end++;
			if (end != text + i + n) {
				cJSON_Delete(root);
				return parse_error(text + i, end, origin,
						   line - 1, e);
			}
			snprintf(where, sizeof(where), "%s:%d", origin, line);
			if (!cJSON_IsObject(root)) {
				cJSON_Delete(root);
				return err_set(e, ERR_INPUT, "%s: expected "
					       "one item object per line",
					       where);
			}
			if (take_value(root, where, out, stats, e) < 0) {
				cJSON_Delete(root);
				return -1;
			}
			cJSON_Delete(root);
		}
		i += n + 1;
	}
	if (!out->nr && !stats->skipped)
		return err_set(e, ERR_INPUT, "%s: no items", origin);
	return 0;
}

/* 1 when the study holds the item already, 0 when not, -1 with `e`
 * filled. */
static int item_exists(struct store *st, const struct item *it,
		       struct err *e)
{
	sqlite3_stmt *s;
	int found;

	s = store_prepare(st, "SELECT 1 FROM items WHERE repo = ? AND "
			  "number = ?", e);
	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, it->repo, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, it->number);
	found = store_step(st, s, "reading items", e);
	sqlite3_finalize(s);
	return found;
}

/* Save the parsed items of `origin`, in the caller's transaction. */
static int save_parsed(struct store *st, const struct actor *a,
		       struct items *l, const char *origin,
		       struct import_stats *tmp, struct err *e)
{
	struct buf b = BUF_INIT;
	size_t i;
	int rc;

	for (i = 0; i < l->nr; i++) {
		struct item *it = &l->v[i];

		it->source = xstrdup(origin);
		switch (item_exists(st, it, e)) {
		case -1:
			return -1;
		case 1:
			tmp->updated++;
			break;
		default:
			tmp->added++;
		}
		tmp->comments += (int)it->nr_comments;
		tmp->fixes += (int)it->nr_fixes;
		if (item_save(st, it, e) < 0)
			return err_prefix(e, "%s: %s#%lld", origin, it->repo,
					  it->number);
	}
	buf_addf(&b, "%d added, %d updated", tmp->added, tmp->updated);
	rc = audit_write(st, a->os_user, actor_for(a), "import", 0, NULL,
			 origin, b.ptr, e);
	buf_release(&b);
	return rc;
}

static void add_stats(struct import_stats *to, const struct import_stats *t)
{
	if (!to)
		return;
	to->added += t->added;
	to->updated += t->updated;
	to->skipped += t->skipped;
	to->comments += t->comments;
	to->fixes += t->fixes;
}

int import_text(struct store *st, const struct actor *a, const char *text,
		size_t len, const char *origin, struct import_stats *stats,
		struct err *e)
{
	struct items l = { 0 };
	struct import_stats tmp;
	int ret = -1;

	memset(&tmp, 0, sizeof(tmp));
	if (actor_require(a, ROLES(ROLE_OWNER), "import", e) < 0)
		return -1;
	if (parse_all(text, len, origin, &l, &tmp, e) < 0)
		goto out;
	if (store_begin(st, e) < 0)
		goto out;
	if (save_parsed(st, a, &l, origin, &tmp, e) < 0)
		goto out;
	if (store_commit(st, e) < 0)
		goto out;
	add_stats(stats, &tmp);
	ret = 0;
out:
	if (ret < 0)
		store_rollback(st);
	items_release(&l);
	return ret;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && !strcasecmp(s + n - k, suffix);
}

/* Does the text start (after a BOM and white space) as JSON does? */
static int looks_like_json(const char *t, size_t len)
{
	size_t i = 0;

	if (len >= 3 && !memcmp(t, "\xEF\xBB\xBF", 3))
		i = 3;
	while (i < len && strchr(" \t\r\n", t[i]))
		i++;
	return i == len || t[i] == '{' || t[i] == '[';
}

int import_file_opts(struct store *st, const struct actor *a,
		     const char *path, const struct import_opts *o,
		     struct import_stats *stats, struct err *e)
{
	struct buf b = BUF_INIT;
	int csv = ends_with(path, ".csv") || ends_with(path, ".tsv");
	int ret;

	if (o && o->nr_columns && !csv)
		return err_set(e, ERR_USAGE, "%s: --column is for a CSV file "
			       "(*.csv, *.tsv)", path);
	if (buf_read_file(&b, path) < 0) {
		err_set(e, ERR_IO, "%s: %s", path, strerror(errno));
		buf_release(&b);
		return -1;
	}
	if (csv)
		ret = import_csv_text(st, a, b.ptr, b.len, path, o, stats, e);
	else if (looks_like_json(b.ptr, b.len))
		ret = import_text(st, a, b.ptr, b.len, path, stats, e);
	else
		ret = import_list_text(st, a, b.ptr, b.len, path, stats, e);
	buf_release(&b);
	return ret;
}

int import_files(struct store *st, const struct actor *a,
		 const char *const *paths, size_t n,
		 const struct import_opts *o, struct import_stats *stats,
		 struct err *e)
{
	struct items *l = xcalloc(n + 1, sizeof(*l));
	struct import_stats *tmp = xcalloc(n + 1, sizeof(*tmp));
	struct buf *text = xcalloc(n + 1, sizeof(*text));
	enum { AS_JSON, AS_CSV, AS_LIST } *kind;
	size_t i;
	int ret = -1;

	kind = xcalloc(n + 1, sizeof(*kind));
	if (actor_require(a, ROLES(ROLE_OWNER), "import", e) < 0)
		goto out;
	/* every file read and checked before the write lock is taken (a
	 * CSV or a list of names is checked as it is stored) */
	for (i = 0; i < n; i++) {
		int csv = ends_with(paths[i], ".csv") ||
			  ends_with(paths[i], ".tsv");

		buf_init(&text[i], 0);
		if (o && o->nr_columns && !csv) {
			err_set(e, ERR_USAGE, "%s: --column is for a CSV file "
				"(*.csv, *.tsv)", paths[i]);
			goto out;
		}
		if (buf_read_file(&text[i], paths[i]) < 0) {
			err_set(e, ERR_IO, "%s: %s", paths[i],
				strerror(errno));
			goto out;
		}
		if (csv) {
			kind[i] = AS_CSV;
		} else if (looks_like_json(text[i].ptr, text[i].len)) {
			kind[i] = AS_JSON;
			if (parse_all(text[i].ptr, text[i].len, paths[i],
				      &l[i], &tmp[i], e) < 0)
				goto out;
			buf_release(&text[i]);
		} else {
			kind[i] = AS_LIST;
		}
	}
	if (store_begin(st, e) < 0)
		goto out;
	for (i = 0; i < n; i++) {
		int rc;

		switch (kind[i]) {
		case AS_CSV:
			rc = import_csv_text(st, a, text[i].ptr, text[i].len,
					     paths[i], o, &tmp[i], e);
			break;
		case AS_LIST:
			rc = import_list_text(st, a, text[i].ptr,
					      text[i].len, paths[i], &tmp[i],
					      e);
			break;
		default:
			rc = save_parsed(st, a, &l[i], paths[i], &tmp[i], e);
		}
		if (rc < 0)
			goto out;
	}
	if (store_commit(st, e) < 0)
		goto out;
	for (i = 0; stats && i < n; i++)
		stats[i] = tmp[i];
	ret = 0;
out:
	if (ret < 0)
		store_rollback(st);
	for (i = 0; i < n; i++) {
		items_release(&l[i]);
		buf_release(&text[i]);
	}
	free(l);
	free(tmp);
	free(text);
	free(kind);
	return ret;
}

int import_file(struct store *st, const struct actor *a, const char *path,
		struct import_stats *stats, struct err *e)
{
	return import_file_opts(st, a, path, NULL, stats, e);
}
