/* SPDX-License-Identifier: MIT */
/*
 * evidence: see evidence.h.
 */
#include "core/study/evidence.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/study/access.h"
#include "core/store/audit.h"
#include "core/base/diff.h"
#include "core/study/item.h"
#include "core/study/label.h"

static const char *pane_name(enum evidence_pane p)
{
	return p == EVIDENCE_DIFF ? "diff" : p == EVIDENCE_PR ? "pr" : "issue";
}

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

/* A comment's number: digits from s up to `end` (exclusive), 1 to
 * INT_MAX.  0, or -1 with *n left 0. */
static int parse_comment(const char *s, const char *end, int *n)
{
	long v = 0;

	*n = 0;
	if (s >= end)
		return -1;
	for (; s < end; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (*s - '0');
		if (v > INT_MAX)
			return -1;
	}
	if (v < 1)
		return -1;
	*n = (int)v;
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
			       "diff:PATH[:old]:L1-L2, issue:body:L1-L2, "
			       "issue:comment:N:L1-L2, pr:N:body:L1-L2 or "
			       "pr:N:comment:K:L1-L2 (lines from 1)", spec);
	if (!strncmp(spec, "diff:", 5)) {
		const char *path = spec + 5;
		size_t len;

		c->pane = EVIDENCE_DIFF;
		/* "diff:12": the last ':' is the one after "diff", before
		 * where the path would start; there is no path */
		if (range < path)
			return err_set(e, ERR_INPUT, "--evidence %s: which file "
				       "of the diff? (diff:PATH:L1-L2)", spec);
		len = (size_t)(range - path);
		/* one ":old" or ":new" is the side; what is before it is
		 * the path, whatever it ends with */
		if (len >= 4 && !strncmp(range - 4, ":old", 4)) {
			c->old_side = 1;
			len -= 4;
		} else if (len >= 4 && !strncmp(range - 4, ":new", 4)) {
			len -= 4;
		}
		if (!len) {
			c->old_side = 0;
			return err_set(e, ERR_INPUT, "--evidence %s: which file "
				       "of the diff? (diff:PATH:L1-L2)", spec);
		}
		c->path = xstrndup(path, len);
		return 0;
	}
	if (!strncmp(spec, "issue:", 6)) {
		const char *what = spec + 6;

		c->pane = EVIDENCE_ISSUE;
		if (!strncmp(what, "body:", 5) && what + 4 == range)
			return 0;
		if (!strncmp(what, "comment:", 8) &&
		    parse_comment(what + 8, range, &c->comment) == 0)
			return 0;
		return err_set(e, ERR_INPUT, "--evidence %s: issue:body:L1-L2 "
			       "or issue:comment:N:L1-L2", spec);
	}
	if (!strncmp(spec, "pr:", 3)) {
		char *end;
		const char *what;

		c->pane = EVIDENCE_PR;
		errno = 0;
		c->pr = strtoll(spec + 3, &end, 10);
		if (end == spec + 3 || *end != ':' || errno || c->pr < 1 ||
		    end >= range)
			return err_set(e, ERR_INPUT, "--evidence %s: "
				       "pr:N:body:L1-L2 or pr:N:comment:K:L1-L2 "
				       "(N the pull request's number)", spec);
		what = end + 1;
		if (!strncmp(what, "body:", 5) && what + 4 == range)
			return 0;
		if (!strncmp(what, "comment:", 8) && what + 8 < range) {
			if (parse_comment(what + 8, range, &c->comment) == 0)
				return 0;
		}
		c->comment = 0;
		return err_set(e, ERR_INPUT, "--evidence %s: pr:N:body:L1-L2 "
			       "or pr:N:comment:K:L1-L2", spec);
	}
	return err_set(e, ERR_INPUT, "--evidence %s: cite the diff "
		       "(diff:PATH:L1-L2), the issue (issue:body:L1-L2) or a "
		       "pull request (pr:N:body:L1-L2)", spec);
}

/* Does `path` end with what reads as a side (":old", ":new")?  Then the
 * compact form names the new side too, so that it reads back as it was
 * written. */
static int ends_like_side(const char *path)
{
	size_t n = path ? strlen(path) : 0;

	return n >= 4 && (!strcmp(path + n - 4, ":old") ||
			  !strcmp(path + n - 4, ":new"));
}

void evidence_format(const struct evidence_cite *c, struct buf *out)
{
	/* the new side is said when the path's end would read as a side,
	 * so that the compact form parses back to this citation */
	if (c->pane == EVIDENCE_DIFF)
		buf_addf(out, "diff:%s:%s", c->path, c->old_side ? "old:" :
			 ends_like_side(c->path) ? "new:" : "");
	else if (c->pane == EVIDENCE_PR && c->comment)
		buf_addf(out, "pr:%lld:comment:%d:", c->pr, c->comment);
	else if (c->pane == EVIDENCE_PR)
		buf_addf(out, "pr:%lld:body:", c->pr);
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

/* Add line number `n` to the runs in `shows` ("10-16, 41-44"), the
 * numbers coming in increasing order within a hunk; *last is the last
 * number added (0: none yet). */
static void add_shown(struct buf *shows, long *run_from, long *last, long n)
{
	if (*last && n == *last + 1) {
		*last = n;
		return;
	}
	if (*last) {
		buf_addf(shows, "%s%ld", shows->len ? ", " : "", *run_from);
		if (*last != *run_from)
			buf_addf(shows, "-%ld", *last);
	}
	*run_from = *last = n;
}

static void end_shown(struct buf *shows, long *run_from, long *last)
{
	if (*last) {
		buf_addf(shows, "%s%ld", shows->len ? ", " : "", *run_from);
		if (*last != *run_from)
			buf_addf(shows, "-%ld", *last);
	}
	*run_from = *last = 0;
}

/*
 * The cited lines of one fix's diff: 1 when the file is in it, 0 when
 * not.  *found counts the lines of the range the diff shows on the cited
 * side (their text, with their sigils, appended to `out`); `shows` gets
 * every line number it shows on that side, as runs ("10-16, 41-44").
 */
static int quote_diff(const char *text, size_t len,
		      const struct evidence_cite *c, struct buf *out,
		      long *found, struct buf *shows)
{
	struct diff d = DIFF_INIT;
	size_t f, i;
	int has_file = 0;

	diff_parse(&d, text, len);
	for (f = 0; f < d.nr_files; f++) {
		const struct diff_file *df = &d.files[f];
		long old_no = 0, new_no = 0, run_from = 0, last = 0;

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
			add_shown(shows, &run_from, &last, at);
			if (at >= c->from && at <= c->to) {
				buf_add(out, p, l.len);
				/* a CR of the file's own is part of the
				 * line (a CRLF -> LF change is that CR) */
				if (diff_line_file_cr(&d, &l))
					buf_addch(out, '\r');
				buf_addch(out, '\n');
				(*found)++;
			}
			if (l.kind != DIFF_ADD)
				old_no++;
			if (l.kind != DIFF_DEL)
				new_no++;
		}
		end_shown(shows, &run_from, &last);
	}
	diff_release(&d);
	return has_file;
}

/* The quoted text of `c` in item `it`, or ERR_INPUT saying why not: the
 * lines must all be there - in the text cited, or, for the diff, shown
 * by one fix's diff on the side cited (a hunk shows only some lines of
 * a file: lines between or past its hunks are not in the fix). */
static int quote(const struct item *it, const struct evidence_cite *c,
		 struct buf *out, struct err *e)
{
	struct buf shows = BUF_INIT, one = BUF_INIT;
	long n, want = c->to - c->from + 1, best = 0;
	char range[64];
	size_t i;
	int has_file = 0, ret = -1;

	if (c->pane == EVIDENCE_ISSUE || c->pane == EVIDENCE_PR) {
		const char *text = it->body;
		const struct comment *cs = it->comments;
		size_t nr = it->nr_comments;

		if (c->pane == EVIDENCE_PR) {
			const struct fix *f = NULL;

			for (i = 0; i < it->nr_fixes && !f; i++)
				if (it->fixes[i].number == c->pr)
					f = &it->fixes[i];
			if (!f) {
				err_set(e, ERR_INPUT, "the item has no pull "
					"request #%lld among its fixes", c->pr);
				goto out;
			}
			text = f->body;
			cs = f->comments;
			nr = f->nr_comments;
		}
		if (c->comment) {
			if ((size_t)c->comment > nr) {
				err_set(e, ERR_INPUT, "%s has %zu comment%s",
					c->pane == EVIDENCE_PR ? "the pull "
					"request" : "the item", nr,
					nr == 1 ? "" : "s");
				goto out;
			}
			text = cs[c->comment - 1].body;
		}
		n = text_lines(text, c->from, c->to, out);
		if (c->to > n) {
			err_set(e, ERR_INPUT, "that text has %ld "
				"line%s", n, n == 1 ? "" : "s");
			goto out;
		}
		ret = 0;
		goto out;
	}
	/* the first fix that shows every line of the range is quoted (a
	 * backport repeats the lines of an earlier fix: once is enough) */
	for (i = 0; i < it->nr_fixes; i++) {
		long found = 0;
		struct buf fix_shows = BUF_INIT;
		int has;

		if (!it->fixes[i].diff)
			continue;
		buf_reset(&one);
		has = quote_diff(it->fixes[i].diff, it->fixes[i].diff_len, c,
				 &one, &found, &fix_shows);
		if (has && !has_file)
			buf_add(&shows, fix_shows.ptr, fix_shows.len);
		buf_release(&fix_shows);
		has_file |= has;
		if (found > best)
			best = found;
		if (has && found == want) {
			buf_add(out, one.ptr, one.len);
			ret = 0;
			goto out;
		}
	}
	if (c->to != c->from)
		snprintf(range, sizeof(range), "%ld-%ld", c->from, c->to);
	else
		snprintf(range, sizeof(range), "%ld", c->from);
	if (!has_file)
		err_set(e, ERR_INPUT, "%s is not in the fix's "
			"diff", c->path);
	else if (!shows.len)
		err_set(e, ERR_INPUT, "the diff shows no line of "
			"%s on its %s side", c->path,
			c->old_side ? "old" : "new");
	else if (!best)
		err_set(e, ERR_INPUT, "the diff shows no line %s of "
			"%s on its %s side (it shows %.120s%s)", range, c->path,
			c->old_side ? "old" : "new", shows.ptr,
			shows.len > 120 ? "..." : "");
	else
		err_set(e, ERR_INPUT, "the diff shows only %ld of "
			"the lines %s of %s on its %s side (it shows "
			"%.120s%s): cite lines it shows", best, range,
			c->path, c->old_side ? "old" : "new", shows.ptr,
			shows.len > 120 ? "..." : "");
out:
	buf_release(&shows);
	buf_release(&one);
	return ret;
}

/* A citation supports a label: 0 when the actor has a code for `dim` on
 * the item, else -1 with ERR_INPUT saying to code it first. */
static int has_label(struct store *st, const struct actor *a,
		     long long item_id, const char *dim, struct err *e)
{
	sqlite3_stmt *s;
	int rc;

	s = store_prepare(st, "SELECT 1 FROM labels WHERE item_id = ? AND "
			  "member_id = ? AND dimension = ? LIMIT 1", e);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, item_id);
	sqlite3_bind_int64(s, 2, a->member_id);
	sqlite3_bind_text(s, 3, dim, -1, SQLITE_STATIC);
	rc = store_step(st, s, "reading labels", e);
	sqlite3_finalize(s);
	if (rc < 0)
		return -1;
	if (!rc)
		return err_set(e, ERR_INPUT, "%s has no code for %s on this "
			       "item: a citation supports a label, code it "
			       "first", a->name, dim);
	return 0;
}

int evidence_add(struct store *st, const struct actor *a,
		 const struct codebook *cb, long long item_id,
		 const char *dim, const struct evidence_cite *c,
		 long long *id, struct err *e)
{
	struct item it;
	struct buf q = BUF_INIT, spec = BUF_INIT, detail = BUF_INIT;
	sqlite3_stmt *s = NULL;
	char now[32];
	int ret = -1, rc;

	memset(&it, 0, sizeof(it));
	if (!codebook_dim(cb, dim))
		return err_set(e, ERR_INPUT, "%s: no such "
			       "dimension in codebook %s", dim, cb->name);
	if (store_begin(st, e) < 0)
		return -1;
	if (label_check_access(st, a, item_id, e) < 0 ||
	    has_label(st, a, item_id, dim, e) < 0 ||
	    item_load(st, item_id, &it, e) < 0 || quote(&it, c, &q, e) < 0)
		goto out;
	store_now(now);
	s = store_prepare(st, "INSERT INTO evidence (item_id, member_id, "
			  "dimension, pane, path, old_side, comment, "
			  "line_from, line_to, quote, created_at, pr) VALUES "
			  "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
			  e);
	if (!s)
		goto out;
	sqlite3_bind_int64(s, 1, item_id);
	sqlite3_bind_int64(s, 2, a->member_id);
	sqlite3_bind_text(s, 3, dim, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 4, pane_name(c->pane), -1, SQLITE_STATIC);
	store_bind_text(s, 5, c->path);
	sqlite3_bind_int(s, 6, c->old_side);
	sqlite3_bind_int(s, 7, c->comment);
	sqlite3_bind_int64(s, 8, c->from);
	sqlite3_bind_int64(s, 9, c->to);
	sqlite3_bind_text(s, 10, q.ptr, (int)q.len, SQLITE_STATIC);
	sqlite3_bind_text(s, 11, now, -1, SQLITE_STATIC);
	if (c->pane == EVIDENCE_PR)
		sqlite3_bind_int64(s, 12, c->pr);
	else
		sqlite3_bind_null(s, 12);
	rc = store_step(st, s, "saving evidence", e);
	if (rc <= 0) {
		if (rc == 0)
			err_set(e, ERR_DB, "saving evidence: no id");
		goto out;
	}
	audit_detail_int(&detail, "id", sqlite3_column_int64(s, 0));
	if (id)
		*id = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	s = NULL;
	evidence_format(c, &spec);
	audit_detail_str(&detail, "pane", pane_name(c->pane));
	if (c->pane == EVIDENCE_PR)
		audit_detail_int(&detail, "pr", c->pr);
	audit_detail_str(&detail, "path", c->path);
	audit_detail_int(&detail, "old_side", c->old_side);
	audit_detail_int(&detail, "comment", c->comment);
	audit_detail_int(&detail, "from", c->from);
	audit_detail_int(&detail, "to", c->to);
	audit_detail_str(&detail, "quote", q.ptr);
	if (audit_write_detail(st, a->os_user, actor_for(a), "evidence.add",
			       item_id, dim, NULL, spec.ptr,
			       audit_detail_end(&detail), e) < 0)
		goto out;
	ret = store_commit(st, e);
out:
	if (ret < 0)
		store_rollback(st);
	sqlite3_finalize(s);
	item_release(&it);
	buf_release(&q);
	buf_release(&spec);
	buf_release(&detail);
	return ret;
}

static void fill_row(sqlite3_stmt *s, struct evidence_row *r);
#define EVIDENCE_COLS "SELECT id, member_id, dimension, pane, path, " \
	"old_side, comment, line_from, line_to, quote, item_id, pr, " \
	"created_at FROM evidence "

/* Remove evidence `id` (the actor's, on `item_id` when not 0) inside the
 * caller's transaction, audited with what it cited. */
static int remove_one(struct store *st, const struct actor *a,
		      long long item_id, long long id, struct err *e)
{
	sqlite3_stmt *s = NULL;
	struct evidence_row r;
	struct buf spec = BUF_INIT;
	char *dim = NULL;
	long long on;
	int ret = -1, rc;

	s = store_prepare(st, EVIDENCE_COLS "WHERE id = ? AND member_id = ?",
			  e);
	if (!s)
		goto out;
	sqlite3_bind_int64(s, 1, id);
	sqlite3_bind_int64(s, 2, a->member_id);
	rc = store_step(st, s, "reading evidence", e);
	if (rc == 0)
		err_set(e, ERR_NOTFOUND, "no evidence %lld of %s's", id,
			a->name);
	if (rc <= 0)
		goto out;
	fill_row(s, &r);
	on = sqlite3_column_int64(s, 10);
	if (item_id && on != item_id) {
		err_set(e, ERR_NOTFOUND, "evidence %lld of %s's is not on that "
			"item", id, a->name);
		goto out;
	}
	dim = xstrdup(r.dimension);
	evidence_format(&r.cite, &spec);
	sqlite3_finalize(s);
	s = NULL;
	/* frozen like the label: a closed round, an adjudicated item */
	if (label_check_access(st, a, on, e) < 0)
		goto out;
	s = store_prepare(st, "DELETE FROM evidence WHERE id = ?", e);
	if (!s)
		goto out;
	sqlite3_bind_int64(s, 1, id);
	if (store_step(st, s, "removing evidence", e) < 0)
		goto out;
	{
		struct buf d = BUF_INIT;

		audit_detail_int(&d, "id", id);
		rc = audit_write_detail(st, a->os_user, actor_for(a),
					"evidence.remove", on, dim, spec.ptr,
					NULL, audit_detail_end(&d), e);
		buf_release(&d);
		if (rc < 0)
			goto out;
	}
	ret = 0;
out:
	sqlite3_finalize(s);
	buf_release(&spec);
	free(dim);
	return ret;
}

int evidence_remove(struct store *st, const struct actor *a,
		    long long item_id, long long id, struct err *e)
{
	if (store_begin(st, e) < 0)
		return -1;
	if (remove_one(st, a, item_id, id, e) < 0) {
		store_rollback(st);
		return -1;
	}
	return store_commit(st, e);
}

/* The ids of one dimension's citations. */
struct id_list {
	const char *dim;
	long long *v;
	size_t nr, alloc;
};

static int collect_ids(const struct evidence_row *row, void *data)
{
	struct id_list *l = data;

	if (!strcmp(row->dimension, l->dim)) {
		ALLOC_GROW(l->v, l->nr + 1, l->alloc);
		l->v[l->nr++] = row->id;
	}
	return 0;
}

int evidence_remove_dim(struct store *st, const struct actor *a,
			long long item_id, const char *dim, size_t *removed,
			struct err *e)
{
	struct id_list l = { dim, NULL, 0, 0 };
	size_t i;
	int ret = -1;

	if (removed)
		*removed = 0;
	if (store_begin(st, e) < 0)
		return -1;
	if (evidence_each(st, a, item_id, a->member_id, collect_ids, &l,
			  e) < 0)
		goto out;
	for (i = 0; i < l.nr; i++)
		if (remove_one(st, a, item_id, l.v[i], e) < 0)
			goto out;
	if (store_commit(st, e) < 0)
		goto out;
	if (removed)
		*removed = l.nr;
	ret = 0;
out:
	if (ret < 0)
		store_rollback(st);
	free(l.v);
	return ret;
}

/* The row under `s` (columns as evidence_each() selects them). */
static void fill_row(sqlite3_stmt *s, struct evidence_row *r)
{
	r->id = sqlite3_column_int64(s, 0);
	r->member_id = sqlite3_column_int64(s, 1);
	r->dimension = (const char *)sqlite3_column_text(s, 2);
	{
		const char *pane = (const char *)sqlite3_column_text(s, 3);

		r->cite.pane = !strcmp(pane, "diff") ? EVIDENCE_DIFF :
			       !strcmp(pane, "pr") ? EVIDENCE_PR :
			       EVIDENCE_ISSUE;
	}
	r->cite.path = (char *)sqlite3_column_text(s, 4);
	r->cite.old_side = sqlite3_column_int(s, 5);
	r->cite.comment = sqlite3_column_int(s, 6);
	r->cite.from = (long)sqlite3_column_int64(s, 7);
	r->cite.to = (long)sqlite3_column_int64(s, 8);
	r->quote = (const char *)sqlite3_column_text(s, 9);
	r->item_id = sqlite3_column_int64(s, 10);
	r->cite.pr = sqlite3_column_int64(s, 11);
	r->created_at = (const char *)sqlite3_column_text(s, 12);
	r->repo = NULL;
	r->number = 0;
}

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

int evidence_list(struct store *st, const struct actor *a, long long item_id,
		  int (*fn)(const struct evidence_row *row, void *data),
		  void *data, struct err *e)
{
	sqlite3_stmt *s;
	int rc, stop = 0;

	/* one's own work: nothing here is another member's to hide */
	s = store_prepare(st, "SELECT e.id, e.member_id, e.dimension, e.pane, "
			  "e.path, e.old_side, e.comment, e.line_from, "
			  "e.line_to, e.quote, e.item_id, e.pr, e.created_at, "
			  "i.repo, i.number FROM evidence e JOIN items i ON "
			  "i.id = e.item_id WHERE e.member_id = ?1 AND (?2 = 0 "
			  "OR e.item_id = ?2) ORDER BY i.repo, i.number, "
			  "e.dimension, e.id", e);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, a->member_id);
	sqlite3_bind_int64(s, 2, item_id);
	while (!stop && (rc = store_step(st, s, "reading evidence", e)) > 0) {
		struct evidence_row r;

		fill_row(s, &r);
		r.repo = (const char *)sqlite3_column_text(s, 13);
		r.number = sqlite3_column_int64(s, 14);
		stop = fn(&r, data);
	}
	sqlite3_finalize(s);
	if (stop)
		return stop;
	return rc < 0 ? -1 : 0;
}
