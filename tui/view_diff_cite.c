/* SPDX-License-Identifier: MIT */
/*
 * view_diff_cite: citing in the fix pane (view_diff.c) - pager lines as
 * a citation of a file's lines on one side of the diff, or of the pull
 * request's description or a comment; the other way, the lines that show
 * a citation (another fix of the item's when that one has them); and
 * what `e` cites without a cursor.
 */
#define _XOPEN_SOURCE_EXTENDED 1
#include <stdlib.h>
#include <string.h>

#include "core/base/diff.h"
#include "core/study/evidence.h"
#include "tui/markdown.h"
#include "tui/screen.h"
#include "tui/view_diff_int.h"

/* "@@ -a[,b] +c[,d] @@": a and c; 0 when the line is not one. */
static int hunk_start(const char *s, size_t len, long *old, long *new)
{
	char h[64];
	char *p, *end;

	if (len >= sizeof(h))
		len = sizeof(h) - 1;
	memcpy(h, s, len);
	h[len] = '\0';
	if (strncmp(h, "@@ -", 4))
		return 0;
	*old = strtol(h + 4, &end, 10);
	p = strchr(end, '+');
	if (!p)
		return 0;
	*new = strtol(p + 1, &end, 10);
	return end != p + 1;
}

/* Strip git's "a/" / "b/" from a diff path. */
static const char *plain_path(const char *path)
{
	if (path && (!strncmp(path, "a/", 2) || !strncmp(path, "b/", 2)))
		return path + 2;
	return path;
}

/* Pager lines from..to above the diff as a citation of the pull
 * request's description or of one of its comments (as the issue's are
 * cited: tui/markdown.h's md_source_lines()). */
static int pr_cite(struct diff_pane *dp, size_t from, size_t to,
		   struct evidence_cite *c, struct err *e)
{
	const struct fix *f = dp_cur_fix(dp);
	unsigned long long part;
	long lo, hi;
	int rc = md_source_lines(&dp->pre, from, to, &part, &lo, &hi);

	if (rc == -1)
		return err_set(e, ERR_INPUT, "a citation is lines of the pull "
			       "request's description or of one comment: the "
			       "range goes past it");
	if (rc < 0 || !f)
		return err_set(e, ERR_INPUT, "no text of the pull request "
			       "there: move the cursor onto its description, "
			       "a comment, or lines of a hunk");
	if (f->number <= 0)
		return err_set(e, ERR_INPUT, "this pull request's number is "
			       "not known: its text cannot be cited");
	memset(c, 0, sizeof(*c));
	c->pane = EVIDENCE_PR;
	c->pr = f->number;
	c->comment = (int)(part - 1);
	c->from = lo;
	c->to = hi;
	return 0;
}

/*
 * Pager lines from..to as a citation: lines of one file, numbered as the
 * hunk headers count them - added and context lines on the new side,
 * removed lines on the old side.  A range with any added or context line
 * cites the new side (its removed lines are not part of it); one of
 * removed lines only, the old side.
 */
int dp_cite(struct view *v, size_t from, size_t to,
	    struct evidence_cite *c, struct err *e)
{
	struct diff_pane *dp = v->priv;
	const struct diff_file *df = NULL;
	long old = 0, new = 0, nlo = 0, nhi = 0, olo = 0, ohi = 0;
	size_t j0, j1, j, k;
	int numbered = 0;
	const char *path;

	if (to < dp->pre.nr)
		return pr_cite(dp, from, to, c, e);
	if (!dp->d.nr_lines)
		return err_set(e, ERR_INPUT, "those lines are not the diff: "
			       "put the cursor on lines of a hunk");
	j0 = from < dp->pre.nr ? 0 : from - dp->pre.nr;
	j1 = to - dp->pre.nr;
	for (k = 0; k < dp->d.nr_files; k++) {
		const struct diff_file *f = &dp->d.files[k];

		if (j0 >= f->first_line && j0 < f->first_line + f->nr_lines) {
			df = f;
			break;
		}
	}
	if (!df || j1 >= df->first_line + df->nr_lines)
		return err_set(e, ERR_INPUT, "a citation is lines of one "
			       "file: the range goes past its file");
	j = j0;
	while (j > df->first_line && dp_kind_at(dp, j) != DIFF_HUNK)
		j--;
	for (; j <= j1; j++) {
		struct diff_line l = diff_line_at(&dp->d, j);
		const char *t;
		size_t n;

		switch (l.kind) {
		case DIFF_HUNK:
			t = dp_line_text(dp, &l, 63, &n);
			numbered = hunk_start(t, n, &old, &new);
			continue;
		case DIFF_CONTEXT:
		case DIFF_ADD:
			if (numbered && j >= j0) {
				if (!nlo)
					nlo = new;
				nhi = new;
			}
			new++;
			if (l.kind == DIFF_CONTEXT)
				old++;
			continue;
		case DIFF_DEL:
			if (numbered && j >= j0) {
				if (!olo)
					olo = old;
				ohi = old;
			}
			old++;
			continue;
		default:
			continue;
		}
	}
	if (!nlo && !olo)
		return err_set(e, ERR_INPUT, "no lines of a hunk there (a "
			       "file or hunk header): move the cursor onto "
			       "changed or context lines");
	memset(c, 0, sizeof(*c));
	c->pane = EVIDENCE_DIFF;
	c->old_side = !nlo;
	c->from = nlo ? nlo : olo;
	c->to = nlo ? nhi : ohi;
	path = plain_path(c->old_side ? df->old_path : df->new_path);
	if (!path || !strcmp(path, "/dev/null"))
		return err_set(e, ERR_INPUT, "the diff does not name that "
			       "file's %s side", c->old_side ? "old" : "new");
	c->path = xstrdup(path);
	return 0;
}

/* The pager lines of the shown fix that show citation c: all of its
 * lines when `whole`, else any. */
static int find_in_fix(struct diff_pane *dp, const struct evidence_cite *c,
		       size_t *from, size_t *to, int whole)
{
	const struct diff_file *df = NULL;
	long old = 0, new = 0, n, count = 0;
	size_t j, k;
	int numbered = 0, found = 0;

	if (c->pane != EVIDENCE_DIFF || !c->path)
		return 0;
	for (k = 0; k < dp->d.nr_files && !df; k++) {
		const char *p = plain_path(c->old_side ?
					   dp->d.files[k].old_path :
					   dp->d.files[k].new_path);

		if (p && !strcmp(p, c->path))
			df = &dp->d.files[k];
	}
	if (!df)
		return 0;
	for (j = df->first_line; j < df->first_line + df->nr_lines; j++) {
		struct diff_line l = diff_line_at(&dp->d, j);
		const char *t;
		size_t len;
		int mine;

		if (l.kind == DIFF_HUNK) {
			t = dp_line_text(dp, &l, 63, &len);
			numbered = hunk_start(t, len, &old, &new);
			continue;
		}
		if (l.kind != DIFF_CONTEXT && l.kind != DIFF_ADD &&
		    l.kind != DIFF_DEL)
			continue;
		mine = c->old_side ? l.kind != DIFF_ADD : l.kind != DIFF_DEL;
		n = c->old_side ? old : new;
		if (l.kind != DIFF_DEL)
			new++;
		if (l.kind != DIFF_ADD)
			old++;
		if (!numbered || !mine || n < c->from || n > c->to)
			continue;
		if (!found)
			*from = dp->pre.nr + j;
		*to = dp->pre.nr + j;
		found = 1;
		count++;
	}
	return found && (!whole || count == c->to - c->from + 1);
}

/* A citation of a pull request's text: the fix that is that pull request
 * is shown, and its lines found above the diff. */
static int find_pr(struct view *v, const struct evidence_cite *c,
		   size_t *from, size_t *to)
{
	struct diff_pane *dp = v->priv;
	size_t k;

	for (k = 0; dp->it && k < dp->it->nr_fixes; k++)
		if (dp->it->fixes[k].number == c->pr)
			break;
	if (!dp->it || k == dp->it->nr_fixes)
		return 0;
	if (k != dp->fix) {
		dp_show_fix(dp, k);
		dp_layout(v);
	}
	return md_doc_lines(&dp->pre, (unsigned long long)c->comment + 1,
			    c->from, c->to, from, to);
}

/* The shown fix when it shows every line cited; else the first other
 * fix of the item that does is shown instead (a backport, a follow-up
 * fix); else, as a last resort, the lines the shown fix has of them. */
int dp_find(struct view *v, const struct evidence_cite *c,
	    size_t *from, size_t *to)
{
	struct diff_pane *dp = v->priv;
	size_t orig = dp->fix, k;

	if (c->pane == EVIDENCE_PR)
		return find_pr(v, c, from, to);
	if (find_in_fix(dp, c, from, to, 1))
		return 1;
	if (c->pane != EVIDENCE_DIFF || !dp->it)
		return 0;
	for (k = 0; k < dp->it->nr_fixes; k++) {
		if (k == orig)
			continue;
		dp_show_fix(dp, k);
		dp_layout(v);
		if (find_in_fix(dp, c, from, to, 1))
			return 1;
	}
	if (dp->fix != orig) {
		dp_show_fix(dp, orig);
		dp_layout(v);
	}
	return find_in_fix(dp, c, from, to, 0);
}

/* `e` without a cursor: the first changed line in view (after ], the
 * hunk's first change); with `whole`, the changed lines after it that
 * run on without a context line between. */
int dp_target(struct view *v, int whole, size_t *from, size_t *to)
{
	struct diff_pane *dp = v->priv;
	size_t pre = dp->pre.nr, last = pager_last_in_view(&dp->pg), i;
	int kind;

	for (i = dp->pg.top > pre ? dp->pg.top : pre; i <= last; i++) {
		kind = dp_kind_at(dp, i - pre);
		if (kind == DIFF_ADD || kind == DIFF_DEL)
			break;
	}
	if (i > last || i >= pre + dp->d.nr_lines)
		return 0;
	*from = *to = i;
	while (whole && *to + 1 < pre + dp->d.nr_lines &&
	       (dp_kind_at(dp, *to + 1 - pre) == DIFF_ADD ||
		dp_kind_at(dp, *to + 1 - pre) == DIFF_DEL))
		(*to)++;
	return 1;
}
