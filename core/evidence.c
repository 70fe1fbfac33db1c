/*
 * evidence: see evidence.h.
 */
#include "core/evidence.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/access.h"
#include "core/diff.h"
#include "core/item.h"
#include "core/label.h"

void evidence_cite_release(struct evidence_cite *c)
{
	if (!c)
		return;
	free(c->path);
	memset(c, 0, sizeof(*c));
}

/* "L1" or "L1-L2" at s: 0 with the range, or -1. */
static int parse_range(const char *s, long *from, long *to)
{
	char *end;

	errno = 0;
	*from = strtol(s, &end, 10);
	if (end == s || errno || *from < 1)
		return -1;
	if (!*end) {
		*to = *from;
		return 0;
	}
	if (*end != '-')
		return -1;
	s = end + 1;
	*to = strtol(s, &end, 10);
	if (end == s || *end || errno || *to < *from)
		return -1;
	return 0;
}

int evidence_parse(const char *spec, struct evidence_cite *c,
		   struct err *e)
{
	const char *range;

	memset(c, 0, sizeof(*c));
	range = strrchr(spec, ':');
	if (!range || parse_range(range + 1, &c->from, &c->to) < 0)
		return err_set(e, ERR_INPUT, "--evidence %s: expected "
			       "diff:PATH[:old]:L1-L2 or issue:body:L1-L2 or "
			       "issue:comment:N:L1-L2 (lines from 1)", spec);
	if (!strncmp(spec, "diff:", 5)) {
		const char *path = spec + 5;
		/* "diff:12": the last ':' is the one after "diff" */
		size_t len = range > path ? (size_t)(range - path) : 0;

		c->pane = EVIDENCE_DIFF;
		if (len > 4 && !strncmp(range - 4, ":old", 4)) {
			c->old_side = 1;
			len -= 4;
		} else if (len > 4 && !strncmp(range - 4, ":new", 4)) {
			len -= 4;
		}
		if (!len)
			return err_set(e, ERR_INPUT, "--evidence %s: which file "
				       "of the diff? (diff:PATH:L1-L2)", spec);
		c->path = xstrndup(path, len);
		return 0;
	}
	if (!strncmp(spec, "issue:", 6)) {
		const char *what = spec + 6;

		c->pane = EVIDENCE_ISSUE;
		if (!strncmp(what, "body:", 5) && what + 4 == range)
			return 0;
		if (!strncmp(what, "comment:", 8)) {
			char *end;

			errno = 0;
			c->comment = (int)strtol(what + 8, &end, 10);
			if (end == range && !errno && c->comment >= 1)
				return 0;
		}
		return err_set(e, ERR_INPUT, "--evidence %s: issue:body:L1-L2 "
			       "or issue:comment:N:L1-L2", spec);
	}
	return err_set(e, ERR_INPUT, "--evidence %s: cite the diff "
		       "(diff:PATH:L1-L2) or the issue (issue:body:L1-L2)",
		       spec);
}

/* Does the path end with what would read as a side (":old", ":new")? */
static int ends_like_side(const char *path)
{
	size_t n = strlen(path);

	return n > 4 && (!strcmp(path + n - 4, ":old") ||
			 !strcmp(path + n - 4, ":new"));
}

void evidence_format(const struct evidence_cite *c, struct buf *out)
{
	/* the new side is said when the path's end would read as a side,
	 * so that the compact form parses back to this citation */
	if (c->pane == EVIDENCE_DIFF)
		buf_addf(out, "diff:%s:%s", c->path, c->old_side ? "old:" :
			 ends_like_side(c->path) ? "new:" : "");
	else if (c->comment)
		buf_addf(out, "issue:comment:%d:", c->comment);
	else
		buf_addstr(out, "issue:body:");
	buf_addf(out, "%ld", c->from);
	if (c->to != c->from)
		buf_addf(out, "-%ld", c->to);
}

/* Lines from..to (from 1) of `text` into `out`; how many it has. */
static long text_lines(const char *text, long from, long to, struct buf *out)
{
	long n = 0;
	const char *p = text ? text : "";

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		n++;
		if (n >= from && n <= to) {
			if (len && p[len - 1] == '\r')
				len--;
			buf_add(out, p, len);
			buf_addch(out, '\n');
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	return n;
}

static int same_path(const char *diff_path, const char *want)
{
	if (!diff_path)
		return 0;
	if ((!strncmp(diff_path, "a/", 2) || !strncmp(diff_path, "b/", 2)) &&
	    !strcmp(diff_path + 2, want))
		return 1;
	return !strcmp(diff_path, want);
}

/* The cited lines of one fix's diff, appended to `out`: 1 when the file
 * is in it (lines found or not: *found counts them), 0 when not. */
static int quote_diff(const char *text, size_t len,
		      const struct evidence_cite *c, struct buf *out,
		      long *found)
{
	struct diff d = DIFF_INIT;
	size_t f, i;
	int has_file = 0;

	diff_parse(&d, text, len);
	for (f = 0; f < d.nr_files; f++) {
		const struct diff_file *df = &d.files[f];
		long old_no = 0, new_no = 0;

		if (!same_path(c->old_side ? df->old_path : df->new_path,
			       c->path))
			continue;
		has_file = 1;
		for (i = df->first_line; i < df->first_line + df->nr_lines;
		     i++) {
			struct diff_line l = diff_line_at(&d, i);
			const char *p = text + l.off;
			long at;

			if (l.kind == DIFF_HUNK) {
				long a = 0, b = 0;

				if (sscanf(p, "@@ -%ld", &a) == 1) {
					const char *plus = strstr(p, " +");

					if (plus)
						b = strtol(plus + 2, NULL, 10);
				}
				old_no = a;
				new_no = b;
				continue;
			}
			if (l.kind != DIFF_CONTEXT && l.kind != DIFF_ADD &&
			    l.kind != DIFF_DEL)
				continue;
			if (c->old_side && l.kind == DIFF_ADD) {
				continue;
			} else if (!c->old_side && l.kind == DIFF_DEL) {
				continue;
			}
			at = c->old_side ? old_no : new_no;
			if (at >= c->from && at <= c->to) {
				buf_add(out, p, l.len);
				buf_addch(out, '\n');
				(*found)++;
			}
			if (l.kind != DIFF_ADD)
				old_no++;
			if (l.kind != DIFF_DEL)
				new_no++;
		}
	}
	diff_release(&d);
	return has_file;
}

/* The quoted text of `c` in item `it`, or ERR_INPUT saying why not. */
static int quote(const struct item *it, const struct evidence_cite *c,
		 struct buf *out, struct err *e)
{
	struct buf spec = BUF_INIT;
	long n, found = 0;
	size_t i;
	int has_file = 0;

	evidence_format(c, &spec);
	if (c->pane == EVIDENCE_ISSUE) {
		const char *text = it->body;

		if (c->comment) {
			if ((size_t)c->comment > it->nr_comments) {
				err_set(e, ERR_INPUT, "--evidence %s: the item "
					"has %zu comment%s", spec.ptr,
					it->nr_comments,
					it->nr_comments == 1 ? "" : "s");
				goto fail;
			}
			text = it->comments[c->comment - 1].body;
		}
		n = text_lines(text, c->from, c->to, out);
		if (c->to > n) {
			err_set(e, ERR_INPUT, "--evidence %s: that text has %ld "
				"line%s", spec.ptr, n, n == 1 ? "" : "s");
			goto fail;
		}
		buf_release(&spec);
		return 0;
	}
	for (i = 0; i < it->nr_fixes; i++)
		if (it->fixes[i].diff)
			has_file |= quote_diff(it->fixes[i].diff,
					       it->fixes[i].diff_len, c, out,
					       &found);
	if (!has_file) {
		err_set(e, ERR_INPUT, "--evidence %s: %s is not in the fix's "
			"diff", spec.ptr, c->path);
		goto fail;
	}
	if (!found) {
		err_set(e, ERR_INPUT, "--evidence %s: the diff shows no line "
			"%ld-%ld of %s on its %s side", spec.ptr, c->from, c->to,
			c->path, c->old_side ? "old" : "new");
		goto fail;
	}
	buf_release(&spec);
	return 0;
fail:
	buf_release(&spec);
	return -1;
}

int evidence_add(struct store *st, const struct actor *a,
		 const struct codebook *cb, long long item_id,
		 const char *dim, const struct evidence_cite *c,
		 long long *id, struct err *e)
{
	struct item it;
	struct buf q = BUF_INIT, spec = BUF_INIT;
	sqlite3_stmt *s = NULL;
	char now[32];
	int ret = -1, rc;

	memset(&it, 0, sizeof(it));
	if (!codebook_dim(cb, dim))
		return err_set(e, ERR_INPUT, "--evidence for %s: no such "
			       "dimension in codebook %s", dim, cb->name);
	if (store_begin(st, e) < 0)
		return -1;
	if (label_check_access(st, a, item_id, e) < 0 ||
	    item_load(st, item_id, &it, e) < 0 || quote(&it, c, &q, e) < 0)
		goto out;
	store_now(now);
	s = store_prepare(st, "INSERT INTO evidence (item_id, member_id, "
			  "dimension, pane, path, old_side, comment, "
			  "line_from, line_to, quote, created_at) VALUES "
			  "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id", e);
	if (!s)
		goto out;
	sqlite3_bind_int64(s, 1, item_id);
	sqlite3_bind_int64(s, 2, a->member_id);
	sqlite3_bind_text(s, 3, dim, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 4, c->pane == EVIDENCE_DIFF ? "diff" : "issue",
			  -1, SQLITE_STATIC);
	store_bind_text(s, 5, c->path);
	sqlite3_bind_int(s, 6, c->old_side);
	sqlite3_bind_int(s, 7, c->comment);
	sqlite3_bind_int64(s, 8, c->from);
	sqlite3_bind_int64(s, 9, c->to);
	sqlite3_bind_text(s, 10, q.ptr, (int)q.len, SQLITE_STATIC);
	sqlite3_bind_text(s, 11, now, -1, SQLITE_STATIC);
	rc = store_step(st, s, "saving evidence", e);
	if (rc <= 0) {
		if (rc == 0)
			err_set(e, ERR_DB, "saving evidence: no id");
		goto out;
	}
	if (id)
		*id = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	s = NULL;
	evidence_format(c, &spec);
	if (store_audit(st, a->os_user, actor_for(a), "evidence.add",
			item_id, dim, NULL, spec.ptr, e) < 0)
		goto out;
	ret = store_commit(st, e);
out:
	if (ret < 0)
		store_rollback(st);
	sqlite3_finalize(s);
	item_release(&it);
	buf_release(&q);
	buf_release(&spec);
	return ret;
}

int evidence_remove(struct store *st, const struct actor *a, long long id,
		    struct err *e)
{
	sqlite3_stmt *s = NULL;
	long long item_id = 0;
	char *dim = NULL;
	int ret = -1, rc;

	if (store_begin(st, e) < 0)
		return -1;
	s = store_prepare(st, "SELECT item_id, dimension FROM evidence WHERE "
			  "id = ? AND member_id = ?", e);
	if (!s)
		goto out;
	sqlite3_bind_int64(s, 1, id);
	sqlite3_bind_int64(s, 2, a->member_id);
	rc = store_step(st, s, "reading evidence", e);
	if (rc == 0)
		err_set(e, ERR_NOTFOUND, "no evidence %lld of yours", id);
	if (rc <= 0)
		goto out;
	item_id = sqlite3_column_int64(s, 0);
	dim = xstrdup((const char *)sqlite3_column_text(s, 1));
	sqlite3_finalize(s);
	s = NULL;
	if (label_check_access(st, a, item_id, e) < 0)
		goto out;
	s = store_prepare(st, "DELETE FROM evidence WHERE id = ?", e);
	if (!s)
		goto out;
	sqlite3_bind_int64(s, 1, id);
	if (store_step(st, s, "removing evidence", e) < 0)
		goto out;
	if (store_audit(st, a->os_user, actor_for(a), "evidence.remove",
			item_id, dim, NULL, NULL, e) < 0)
		goto out;
	ret = store_commit(st, e);
out:
	if (ret < 0)
		store_rollback(st);
	sqlite3_finalize(s);
	free(dim);
	return ret;
}

/* The row under `s` (columns as evidence_each() selects them). */
static void fill_row(sqlite3_stmt *s, struct evidence_row *r)
{
	r->id = sqlite3_column_int64(s, 0);
	r->member_id = sqlite3_column_int64(s, 1);
	r->dimension = (const char *)sqlite3_column_text(s, 2);
	r->cite.pane = !strcmp((const char *)sqlite3_column_text(s, 3),
			       "diff") ? EVIDENCE_DIFF : EVIDENCE_ISSUE;
	r->cite.path = (char *)sqlite3_column_text(s, 4);
	r->cite.old_side = sqlite3_column_int(s, 5);
	r->cite.comment = sqlite3_column_int(s, 6);
	r->cite.from = (long)sqlite3_column_int64(s, 7);
	r->cite.to = (long)sqlite3_column_int64(s, 8);
	r->quote = (const char *)sqlite3_column_text(s, 9);
}

#define EVIDENCE_COLS "SELECT id, member_id, dimension, pane, path, " \
	"old_side, comment, line_from, line_to, quote, item_id FROM evidence "

int evidence_cursor_open(struct evidence_cursor *c, struct store *st,
			 struct err *e)
{
	int rc;

	memset(c, 0, sizeof(*c));
	c->st = st;
	c->s = store_prepare(st, EVIDENCE_COLS "ORDER BY item_id, "
			     "member_id, dimension, id", e);
	if (!c->s)
		return -1;
	rc = store_step(st, c->s, "reading evidence", e);
	c->has = rc > 0;
	return rc < 0 ? -1 : 0;
}

/* <0, 0, >0 as the cursor's row is before, at or after the key. */
static int cursor_cmp(struct evidence_cursor *c, long long item_id,
		      long long member_id, const char *dim)
{
	long long i = sqlite3_column_int64(c->s, 10);
	long long m = sqlite3_column_int64(c->s, 1);

	if (i != item_id)
		return i < item_id ? -1 : 1;
	if (m != member_id)
		return m < member_id ? -1 : 1;
	return strcmp((const char *)sqlite3_column_text(c->s, 2), dim);
}

int evidence_cursor_at(struct evidence_cursor *c, long long item_id,
		       long long member_id, const char *dim,
		       int (*fn)(const struct evidence_row *row, void *data),
		       void *data, struct err *e)
{
	int rc;

	/* keys asked again (a label of several codes) find their rows
	 * consumed: the caller keeps what it was given */
	while (c->has && cursor_cmp(c, item_id, member_id, dim) <= 0) {
		if (cursor_cmp(c, item_id, member_id, dim) == 0) {
			struct evidence_row r;

			fill_row(c->s, &r);
			fn(&r, data);
		}
		rc = store_step(c->st, c->s, "reading evidence", e);
		if (rc < 0)
			return -1;
		c->has = rc > 0;
	}
	return 0;
}

void evidence_cursor_close(struct evidence_cursor *c)
{
	if (!c)
		return;
	sqlite3_finalize(c->s);
	memset(c, 0, sizeof(*c));
}

int evidence_each(struct store *st, const struct actor *a,
		  long long item_id, long long member_id,
		  int (*fn)(const struct evidence_row *row, void *data),
		  void *data, struct err *e)
{
	sqlite3_stmt *s;
	long long round;
	int closed, rc, stop = 0;

	if (access_item_round(st, item_id, &round, &closed, e) < 0)
		return -1;
	s = store_prepare(st, EVIDENCE_COLS "WHERE item_id = ?1 AND (?2 = 0 "
			  "OR member_id = ?2) ORDER BY member_id, dimension, "
			  "id", e);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, item_id);
	sqlite3_bind_int64(s, 2, member_id);
	while (!stop && (rc = store_step(st, s, "reading evidence", e)) > 0) {
		struct evidence_row r;

		fill_row(s, &r);
		/* evidence is the annotator's work, blinded like labels */
		if (!access_rule(a, r.member_id, round != 0, closed))
			continue;
		stop = fn(&r, data);
	}
	sqlite3_finalize(s);
	if (stop)
		return stop;
	return rc < 0 ? -1 : 0;
}
