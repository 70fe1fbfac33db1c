/* SPDX-License-Identifier: MIT */
/*
 * import_list: the bugs a team already has, from a spreadsheet (CSV) or a
 * plain list of issue and pull request URLs, into items whose content
 * `fetch --missing` then fills.  See import.h for the contract.
 *
 * A CSV is read as spreadsheet programs write it: a byte order mark,
 * CRLF, ',' or ';' or TAB between fields (whichever the header line holds
 * most of), quoted cells, headers in any case with spaces around.  Its
 * columns are found by name (COLUMNS below, with their usual other
 * names), or given with --column NAME=HEADER.  One row names one item:
 * by an issue URL (url, issue), by repo and number, or by a pull request
 * alone (pr); a pull request beside an issue is a fix of that issue.
 * Several rows naming the same item add up (one row per fixing pull
 * request is a common shape).
 *
 * Items so created carry what the file gave (title, labels, dates; the
 * name stands in for a missing title) and are marked missing until a
 * fetch fills them.  An item the study already holds with its content is
 * left as it is; one still missing is updated.
 *
 * Limitations: a fix named only by its pull request's number belongs to
 * the item's repository.
 */
#include "core/study/import.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/base/buf.h"
#include "core/base/csv.h"
#include "core/github/github.h"
#include "core/store/audit.h"

enum col {
	COL_URL, COL_ISSUE, COL_PR, COL_REPO, COL_NUMBER, COL_TITLE,
	COL_LABELS, COL_CREATED, COL_CLOSED, COL_BODY, NR_COLS
};

/* Each column's name (the first) and the other names it goes by. */
static const char *const names[NR_COLS][6] = {
	[COL_URL] = { "url", "issue_url", "html_url", "link", NULL },
	[COL_ISSUE] = { "issue", "issue_number", "bug", NULL },
	[COL_PR] = { "pr", "pr_url", "pull_request", "pull_request_url",
		     "fix_pr", NULL },
	[COL_REPO] = { "repo", "repository", "project", NULL },
	[COL_NUMBER] = { "number", "issue_no", "num", NULL },
	[COL_TITLE] = { "title", "summary", NULL },
	[COL_LABELS] = { "labels", "label", NULL },
	[COL_CREATED] = { "created_at", "created", "opened_at", NULL },
	[COL_CLOSED] = { "closed_at", "closed", NULL },
	[COL_BODY] = { "body", "description", NULL },
};

static int col_by_name(const char *name)
{
	int i;

	for (i = 0; i < NR_COLS; i++)
		if (!strcmp(names[i][0], name))
			return i;
	return -1;
}

/* "a, b, c" of the header, for messages; owned by the caller. */
static char *header_list(const struct csv_record *h)
{
	struct buf b = BUF_INIT;
	size_t i;

	for (i = 0; i < h->nr; i++)
		buf_addf(&b, "%s\"%s\"", i ? ", " : "", h->fields[i]);
	return buf_detach(&b, NULL);
}

/* Work out which header is which column: --column first, then names. */
static int map_columns(const struct csv_record *h, const char *origin,
		       const struct import_opts *o, int *map, struct err *e)
{
	size_t i;
	int c, k;

	for (c = 0; c < NR_COLS; c++)
		map[c] = -1;
	for (i = 0; o && i < o->nr_columns; i++) {
		const char *eq = strchr(o->columns[i], '=');
		char *name;
		int idx;

		if (!eq)
			return err_set(e, ERR_USAGE, "--column %s: expected "
				       "NAME=HEADER", o->columns[i]);
		name = xstrndup(o->columns[i], (size_t)(eq - o->columns[i]));
		c = col_by_name(name);
		if (c < 0) {
			err_set(e, ERR_USAGE, "--column %s: %s is none of url, "
				"issue, pr, repo, number, title, labels, "
				"created_at, closed_at, body", o->columns[i],
				name);
			free(name);
			return -1;
		}
		free(name);
		idx = csv_column_ci(h, eq + 1);
		if (idx < 0) {
			char *l = header_list(h);

			err_set(e, ERR_INPUT, "%s:%d: --column %s: no header "
				"\"%s\"; the header has %s", origin, h->line,
				o->columns[i], eq + 1, l);
			free(l);
			return -1;
		}
		map[c] = idx;
	}
	for (c = 0; c < NR_COLS; c++)
		for (k = 0; map[c] < 0 && names[c][k]; k++)
			map[c] = csv_column_ci(h, names[c][k]);
	if (map[COL_URL] < 0 && map[COL_ISSUE] < 0 && map[COL_PR] < 0 &&
	    (map[COL_REPO] < 0 || map[COL_NUMBER] < 0)) {
		char *l = header_list(h);

		err_set(e, ERR_INPUT, "%s:%d: no column names the bugs: the "
			"header has %s; expected url, issue or pr (an issue "
			"or pull request URL, or owner/repo#N), or repo and "
			"number; name yours with --column url=HEADER (or "
			"--column repo=HEADER --column number=HEADER)", origin,
			h->line, l);
		free(l);
		return -1;
	}
	return 0;
}

static const char *cell(const struct csv_record *r, const int *map, int c)
{
	const char *s;

	if (map[c] < 0 || (size_t)map[c] >= r->nr)
		return NULL;
	s = r->fields[map[c]];
	while (*s == ' ' || *s == '\t')
		s++;
	return *s ? s : NULL;
}

/* A copy of s without surrounding white space. */
static char *trimmed(const char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		n--;
	return xstrndup(s, n);
}

/* Digits only, 1..ITEM_MAX_NUMBER; else -1 (never a conversion that
 * could overflow: "1e300" is just not a number). */
static long long whole_number(const char *s)
{
	long long n = 0;
	size_t i, len = strlen(s);

	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	if (*s == '#') {
		s++;
		len--;
	}
	if (!len || len > 12)
		return -1;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		n = n * 10 + (s[i] - '0');
	}
	return n >= 1 && n <= ITEM_MAX_NUMBER ? n : -1;
}

/* An issue or pull request in cell `v` of column `what`: a URL,
 * owner/repo#N, or a number of repository `repo` (may be NULL). */
static int read_ref(const char *v, const char *repo, const char *where,
		    const char *what, char **out_repo, long long *number,
		    int *kind, struct err *e)
{
	char *t = trimmed(v);
	int rc = item_parse_ref(t, out_repo, number, kind);

	if (rc < 0 && repo && (*number = whole_number(t)) > 0) {
		*out_repo = xstrdup(repo);
		*kind = ITEM_REF_ANY;
		rc = 0;
	}
	if (rc < 0) {
		size_t hl;
		const char *h = item_url_foreign_host(t, &hl);

		if (h)
			err_set(e, ERR_INPUT, "%s: %s: \"%.80s\": %.*s is not "
				"GitHub (github.com, or the host of "
				"$GITHUB_API_URL)", where, what, t, (int)hl, h);
		else
			err_set(e, ERR_INPUT, "%s: %s: \"%.80s\": not a GitHub "
				"issue or pull request (expected its URL, "
				"owner/repo#N%s)", where, what, t,
				repo ? " or a number" : "");
	}
	free(t);
	return rc;
}

static struct item *find_item(struct item *v, size_t n, const char *repo,
			      long long number)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i].number == number && !strcasecmp(v[i].repo, repo))
			return &v[i];
	return NULL;
}

static void add_label(struct item *it, const char *s, size_t n)
{
	while (n && (*s == ' ' || *s == '\t')) {
		s++;
		n--;
	}
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	if (!n)
		return;
	it->labels = xrealloc(it->labels, (it->nr_labels + 2) *
			      sizeof(*it->labels));
	it->labels[it->nr_labels++] = xstrndup(s, n);
	it->labels[it->nr_labels] = NULL;
}

static int set_date(char **dst, const char *v, const char *where,
		    const char *what, struct err *e)
{
	char *t = trimmed(v);
	double d;

	if (item_parse_date(t, &d) < 0) {
		err_set(e, ERR_INPUT, "%s: %s: \"%.40s\": not a date (expected "
			"YYYY-MM-DD or ISO 8601)", where, what, t);
		free(t);
		return -1;
	}
	free(*dst);
	*dst = t;
	return 0;
}

/* Read one row into the items v[0..*n). */
static int take_row(const struct csv_record *h, const struct csv_record *r,
		    const int *map, const char *origin, struct item **v,
		    size_t *n, size_t *alloc, struct err *e)
{
	char where[300];
	const char *repo_cell = cell(r, map, COL_REPO);
	const char *idc = cell(r, map, COL_URL), *idname = "url";
	const char *prc = cell(r, map, COL_PR), *x;
	char *repo = NULL, *prrepo = NULL, *own = NULL;
	long long number = -1, prnum = -1;
	int kind = ITEM_REF_ANY, prkind, ret = -1;
	struct item *it;

	snprintf(where, sizeof(where), "%s:%d", origin, r->line);
	if (r->nr != h->nr && !(r->nr == h->nr + 1 &&
				!*r->fields[h->nr]))
		return err_set(e, ERR_INPUT, "%s: %zu fields, the header has "
			       "%zu", where, r->nr, h->nr);
	if (repo_cell) {
		own = trimmed(repo_cell);
		if (!item_valid_repo(own)) {
			err_set(e, ERR_INPUT, "%s: repo: \"%.80s\": not "
				"owner/name", where, own);
			goto out;
		}
	}
	if (!idc) {
		idc = cell(r, map, COL_ISSUE);
		idname = "issue";
	}
	if (idc) {
		if (read_ref(idc, own, where, idname, &repo, &number, &kind,
			     e) < 0)
			goto out;
	} else if (own && (x = cell(r, map, COL_NUMBER))) {
		number = whole_number(x);
		if (number < 0) {
			char *t = trimmed(x);

			err_set(e, ERR_INPUT, "%s: number: \"%.40s\": not an "
				"issue number (1 to %lld)", where, t,
				ITEM_MAX_NUMBER);
			free(t);
			goto out;
		}
		repo = xstrdup(own);
	}
	if (prc && read_ref(prc, repo ? repo : own, where, "pr", &prrepo,
			    &prnum, &prkind, e) < 0)
		goto out;
	if (!repo && !prrepo) {
		err_set(e, ERR_INPUT, "%s: names no issue or pull request (its "
			"url, issue, pr and repo/number cells are empty)",
			where);
		goto out;
	}
	if (!repo) {		/* a pull request alone is the item */
		repo = prrepo;
		number = prnum;
		prrepo = NULL;
		kind = ITEM_REF_PULL;
	}
	it = find_item(*v, *n, repo, number);
	if (!it) {
		ALLOC_GROW(*v, *n + 1, *alloc);
		it = &(*v)[(*n)++];
		memset(it, 0, sizeof(*it));
		it->repo = xstrdup(repo);
		it->number = number;
		it->missing = 1;
		it->is_pull = kind == ITEM_REF_PULL;
		it->title = item_name(repo, number);
	}
	if ((x = cell(r, map, COL_TITLE))) {
		free(it->title);
		it->title = trimmed(x);
	}
	if ((x = cell(r, map, COL_BODY))) {
		free(it->body);
		it->body = xstrdup(x);
	}
	if ((x = cell(r, map, COL_LABELS))) {
		while (*x) {
			size_t k = strcspn(x, ",;|");

			add_label(it, x, k);
			x += k + (x[k] ? 1 : 0);
		}
	}
	if ((x = cell(r, map, COL_CREATED)) &&
	    set_date(&it->created_at, x, where, "created_at", e) < 0)
		goto out;
	if ((x = cell(r, map, COL_CLOSED)) &&
	    set_date(&it->closed_at, x, where, "closed_at", e) < 0)
		goto out;
	if (prrepo && !it->is_pull) {
		struct fix *f;
		size_t i;
		struct buf u = BUF_INIT;

		for (i = 0; i < it->nr_fixes; i++)
			if (it->fixes[i].number == prnum)
				break;
		if (i == it->nr_fixes) {
			it->fixes = xrealloc(it->fixes, (it->nr_fixes + 1) *
					     sizeof(*it->fixes));
			f = &it->fixes[it->nr_fixes++];
			memset(f, 0, sizeof(*f));
			f->number = prnum;
			buf_addf(&u, "https://github.com/%s/pull/%lld", prrepo,
				 prnum);
			f->url = buf_detach(&u, NULL);
			f->additions = f->deletions = f->changed_files = -1;
		}
	}
	ret = 0;
out:
	free(repo);
	free(prrepo);
	free(own);
	return ret;
}

/* Is the study's item `it` there with its content (not missing)? */
static int held_whole(struct store *st, const struct item *it, int *found,
		      struct err *e)
{
	sqlite3_stmt *s;
	char *canon = item_canonical_repo(st, it->repo, e);
	int rc, whole = 0;

	*found = 0;
	if (!canon)
		return -1;
	s = store_prepare(st, "SELECT missing FROM items WHERE repo = ? "
			  "COLLATE NOCASE AND number = ?", e);
	if (!s) {
		free(canon);
		return -1;
	}
	sqlite3_bind_text(s, 1, canon, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, it->number);
	rc = store_step(st, s, "looking up an item", e);
	if (rc > 0) {
		*found = 1;
		whole = !sqlite3_column_int(s, 0);
	}
	sqlite3_finalize(s);
	free(canon);
	if (rc < 0)
		return -1;
	return whole;
}

static int save_all(struct store *st, const struct actor *a, struct item *v,
		    size_t n, const char *origin, struct import_stats *stats,
		    struct err *e)
{
	struct buf b = BUF_INIT;
	size_t i;
	int ret = -1;

	if (store_begin(st, e) < 0)
		return -1;
	for (i = 0; i < n; i++) {
		int found, whole = held_whole(st, &v[i], &found, e);

		if (whole < 0)
			goto out;
		if (whole) {
			stats->kept++;
			continue;
		}
		v[i].source = xstrdup(origin);
		if (item_save(st, &v[i], e) < 0) {
			err_prefix(e, "%s: %s#%lld", origin, v[i].repo,
				   v[i].number);
			goto out;
		}
		if (found)
			stats->updated++;
		else
			stats->added++;
		stats->missing++;
		stats->fixes += (int)v[i].nr_fixes;
	}
	buf_addf(&b, "%d added, %d updated, %d to fetch", stats->added,
		 stats->updated, stats->missing);
	if (audit_write(st, a->os_user, actor_for(a), "import", 0, NULL,
			origin, b.ptr, e) < 0)
		goto out;
	if (store_commit(st, e) < 0)
		goto out;
	ret = 0;
out:
	if (ret < 0)
		store_rollback(st);
	buf_release(&b);
	return ret;
}

static void release_all(struct item *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		item_release(&v[i]);
	free(v);
}

int import_csv_text(struct store *st, const struct actor *a, const char *text,
		    size_t len, const char *origin,
		    const struct import_opts *o, struct import_stats *stats,
		    struct err *e)
{
	struct csv csv = CSV_INIT;
	struct import_stats tmp;
	struct item *v = NULL;
	size_t n = 0, alloc = 0, i;
	int map[NR_COLS], ret = -1;

	memset(&tmp, 0, sizeof(tmp));
	if (actor_require(a, ROLES(ROLE_OWNER), "import", e) < 0)
		return -1;
	if (csv_parse_sep(&csv, text, len, csv_sniff(text, len), origin,
			  e) < 0)
		goto out;
	if (!csv.nr) {
		err_set(e, ERR_INPUT, "%s: empty, not even a header", origin);
		goto out;
	}
	if (map_columns(&csv.v[0], origin, o, map, e) < 0)
		goto out;
	for (i = 1; i < csv.nr; i++)
		if (take_row(&csv.v[0], &csv.v[i], map, origin, &v, &n,
			     &alloc, e) < 0)
			goto out;
	if (save_all(st, a, v, n, origin, &tmp, e) < 0)
		goto out;
	if (stats) {
		stats->added += tmp.added;
		stats->updated += tmp.updated;
		stats->fixes += tmp.fixes;
		stats->missing += tmp.missing;
		stats->kept += tmp.kept;
	}
	ret = 0;
out:
	release_all(v, n);
	csv_release(&csv);
	return ret;
}

int import_list_text(struct store *st, const struct actor *a,
		     const char *text, size_t len, const char *origin,
		     struct import_stats *stats, struct err *e)
{
	struct gh_ref *refs = NULL;
	struct import_stats tmp;
	struct item *v = NULL;
	size_t nr = 0, n = 0, alloc = 0, i;
	int ret = -1;

	memset(&tmp, 0, sizeof(tmp));
	if (actor_require(a, ROLES(ROLE_OWNER), "import", e) < 0)
		return -1;
	if (gh_parse_refs(text, len, origin, &refs, &nr, e) < 0)
		return -1;
	if (!nr) {
		err_set(e, ERR_INPUT, "%s: no issue or pull request in it",
			origin);
		goto out;
	}
	for (i = 0; i < nr; i++) {
		struct item *it;

		if (find_item(v, n, refs[i].repo, refs[i].number))
			continue;
		ALLOC_GROW(v, n + 1, alloc);
		it = &v[n++];
		memset(it, 0, sizeof(*it));
		it->repo = xstrdup(refs[i].repo);
		it->number = refs[i].number;
		it->title = item_name(it->repo, it->number);
		it->is_pull = refs[i].kind == ITEM_REF_PULL;
		it->missing = 1;
	}
	if (save_all(st, a, v, n, origin, &tmp, e) < 0)
		goto out;
	if (stats) {
		stats->added += tmp.added;
		stats->updated += tmp.updated;
		stats->missing += tmp.missing;
		stats->kept += tmp.kept;
	}
	ret = 0;
out:
	release_all(v, n);
	gh_refs_free(refs, nr);
	return ret;
}
