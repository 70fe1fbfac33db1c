/* SPDX-License-Identifier: MIT */
/*
 * labels_csv: see labels_csv.h.
 */
#include "core/study/labels_csv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/study/access.h"
#include "core/base/buf.h"
#include "core/base/csv.h"
#include "core/study/item.h"
#include "core/study/label.h"
#include "core/study/label_batch.h"
#include "core/study/round.h"
#include "core/study/screening.h"
#include "core/base/suggest.h"

struct row {
	long long item_id, member_id;
	const char *item;	/* borrowed from the csv */
	const char *member;	/* borrowed from the csv */
	enum role role;
	const struct dimension *dim;
	const char *code;
	int line;
	int submitted;		/* its submitted_at cell is not empty */
};

static int cmp_row(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	int c;

	if (x->item_id != y->item_id)
		return x->item_id < y->item_id ? -1 : 1;
	if (x->member_id != y->member_id)
		return x->member_id < y->member_id ? -1 : 1;
	c = strcmp(x->dim->key, y->dim->key);
	if (c)
		return c;
	c = strcmp(x->code, y->code);
	if (c)
		return c;
	return x->line - y->line;
}

/* A tiny memo of names already looked up: files repeat them a lot. */
struct seen {
	char *name;
	long long id;
	enum role role;
};

static struct seen *seen_find(struct seen *v, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(v[i].name, name))
			return &v[i];
	return NULL;
}

/* The codebook's dimension `key`, or the screening question's (its
 * answers are checked against the item's round when saved). */
static const struct dimension *row_dim(const struct codebook *cb,
				       const struct codebook *q,
				       const char *key)
{
	return screening_is_dim(key) ? &q->dims[0] : codebook_dim(cb, key);
}

static int check_rows(struct store *st, const struct actor *a,
		      const struct codebook *cb, const struct codebook *q,
		      const struct csv *csv, const char *path,
		      struct row *rows, struct err *e)
{
	const struct csv_record *h = &csv->v[0];
	int ci = csv_column(h, "item"), ca = csv_column(h, "annotator");
	int cd = csv_column(h, "dimension"), cc = csv_column(h, "code");
	int cs = csv_column(h, "submitted_at");
	struct seen *items = NULL, *members = NULL;
	size_t nitems = 0, aitems = 0, nmembers = 0, amembers = 0, i;
	int ret = -1;

	if (ci < 0 || ca < 0 || cd < 0 || cc < 0)
		return err_set(e, ERR_INPUT, "%s:%d: the header must name the "
			       "columns item,annotator,dimension,code", path,
			       h->line);
	for (i = 1; i < csv->nr; i++) {
		const struct csv_record *r = &csv->v[i];
		struct row *w = &rows[i - 1];
		struct seen *s;

		w->line = r->line;
		if (r->nr == h->nr && cs >= 0)
			w->submitted = r->fields[cs][0] != '\0';
		if (r->nr != h->nr) {
			err_set(e, ERR_INPUT, "%s:%d: %zu fields, the header "
				"has %zu", path, r->line, r->nr, h->nr);
			goto out;
		}
		s = seen_find(items, nitems, r->fields[ci]);
		if (!s) {
			long long id = item_find(st, r->fields[ci], e);

			if (id < 0) {
				err_prefix(e, "%s:%d: item", path, r->line);
				goto out;
			}
			ALLOC_GROW(items, nitems + 1, aitems);
			s = &items[nitems++];
			s->name = xstrdup(r->fields[ci]);
			s->id = id;
		}
		w->item_id = s->id;
		w->item = r->fields[ci];	/* lives as long as the csv */
		s = seen_find(members, nmembers, r->fields[ca]);
		if (!s) {
			long long id;
			enum role role;

			if (member_find(st, r->fields[ca], &id, &role, e) < 0) {
				err_prefix(e, "%s:%d: annotator", path,
					   r->line);
				goto out;
			}
			ALLOC_GROW(members, nmembers + 1, amembers);
			s = &members[nmembers++];
			s->name = xstrdup(r->fields[ca]);
			s->id = id;
			s->role = role;
		}
		if (s->role != ROLE_ANNOTATOR && s->role != ROLE_OWNER) {
			err_set(e, ERR_INPUT, "%s:%d: annotator: %s is %s, not "
				"an annotator", path, r->line, s->name,
				role_name(s->role));
			goto out;
		}
		if (strcmp(s->name, a->name) &&
		    (a->role != ROLE_OWNER || a->acting_for)) {
			err_set(e, ERR_PERM, "%s:%d: annotator: %s may import "
				"only their own labels, not %s's", path,
				r->line, a->name, s->name);
			goto out;
		}
		w->member_id = s->id;
		w->member = r->fields[ca];	/* lives as long as the csv */
		w->role = s->role;
		w->dim = row_dim(cb, q, r->fields[cd]);
		if (!w->dim) {
			err_set(e, ERR_INPUT, "%s:%d: dimension: %s is not in "
				"codebook %s", path, r->line, r->fields[cd],
				cb->name);
			err_suggest(e, codebook_suggest_dim(cb,
							    r->fields[cd]));
			goto out;
		}
		if (w->dim != &q->dims[0] &&
		    !dimension_code(w->dim, r->fields[cc])) {
			err_set(e, ERR_INPUT, "%s:%d: code: %s is not a code "
				"of %s", path, r->line, r->fields[cc],
				w->dim->key);
			err_suggest(e, dimension_suggest_code(w->dim,
							      r->fields[cc]));
			goto out;
		}
		w->code = r->fields[cc];
	}
	ret = 0;
out:
	for (i = 0; i < nitems; i++)
		free(items[i].name);
	for (i = 0; i < nmembers; i++)
		free(members[i].name);
	free(items);
	free(members);
	return ret;
}

/* "PATH:LINE", owned. */
static char *where_of(const char *path, int line)
{
	struct buf b = BUF_INIT;

	buf_addf(&b, "%s:%d", path, line);
	return buf_detach(&b, NULL);
}

static int same_group(const struct row *x, const struct row *y)
{
	return x->item_id == y->item_id && x->member_id == y->member_id &&
	       x->dim == y->dim;
}

static void actor_for_row(struct actor *as, const struct actor *a,
			  const struct row *r)
{
	memset(as, 0, sizeof(*as));
	as->os_user = a->os_user;
	as->name = (char *)r->member;
	as->member_id = r->member_id;
	as->role = r->role;
	as->acting_for = strcmp(r->member, a->os_user) != 0;
}

/* The dimension header cell `h` names: its key or its name, as people
 * write headers; NULL for none. */
static const struct dimension *dim_of_header(const struct codebook *cb,
					     const struct codebook *q,
					     const char *h)
{
	size_t i;

	for (i = 0; i < cb->nr_dims; i++)
		if (csv_same_name(h, cb->dims[i].key) ||
		    csv_same_name(h, cb->dims[i].name))
			return &cb->dims[i];
	if (csv_same_name(h, q->dims[0].key))
		return &q->dims[0];
	return NULL;
}

/* The dimension key a header cell that names none was most likely meant
 * to be (by the key or the name, as typed), or NULL; borrowed from the
 * codebook. */
static const char *header_suggest(const struct codebook *cb, const char *h)
{
	struct suggest sg;
	const char *got = NULL;
	char *typed = xstrdup(h), *p;
	size_t i;

	/* as csv_same_name() reads headers: any case, ' ' and '-' as '_' */
	for (p = typed; *p; p++)
		if (*p == ' ' || *p == '-')
			*p = '_';
	suggest_init(&sg, typed);
	for (i = 0; i < cb->nr_dims; i++) {
		suggest_add(&sg, cb->dims[i].key);
		if (cb->dims[i].name)
			suggest_add(&sg, cb->dims[i].name);
	}
	if (suggest_result(&sg))
		for (i = 0; !got && i < cb->nr_dims; i++)
			if (!strcmp(suggest_result(&sg), cb->dims[i].key) ||
			    (cb->dims[i].name && !strcmp(suggest_result(&sg),
							 cb->dims[i].name)))
				got = cb->dims[i].key;
	suggest_release(&sg);
	free(typed);
	return got;
}

/* The key of the code of `d` that cell text s[0..n) names (its key or
 * its name, any case, spaces around), or the text itself, trimmed, for
 * the check to refuse. */
static char *code_of_cell(const struct dimension *d, const char *s, size_t n)
{
	char *t;
	size_t i;

	while (n && (*s == ' ' || *s == '\t')) {
		s++;
		n--;
	}
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	t = xstrndup(s, n);
	for (i = 0; i < d->nr_codes; i++) {
		if (csv_same_name(t, d->codes[i].key) ||
		    csv_same_name(t, d->codes[i].name)) {
			free(t);
			return xstrdup(d->codes[i].key);
		}
	}
	return t;
}

static void add_record(struct csv *out, int line, const char *const *f)
{
	struct csv_record *r;
	size_t i;

	ALLOC_GROW(out->v, out->nr + 1, out->alloc);
	r = &out->v[out->nr++];
	r->nr = 5;
	r->line = line;
	r->fields = xcalloc(6, sizeof(char *));
	for (i = 0; i < 5; i++)
		r->fields[i] = xstrdup(f[i] ? f[i] : "");
}

/*
 * The shape of the file, made the long one: a long file's header names
 * are made canonical; a wide file (one row per item and annotator, one
 * column per dimension) becomes one long row per code, each keeping its
 * line.  The annotator is the row's `annotator` (or `coder`) cell, else
 * `annotator` (--annotator).
 */
static int to_long(const struct codebook *cb, const struct codebook *q,
		   struct csv *in, const char *path, const char *annotator,
		   struct csv *out, struct err *e)
{
	static const char *const want[] = { "item", "annotator", "dimension",
					    "code", "submitted_at" };
	struct csv_record *h = &in->v[0];
	const struct dimension **dims;
	int ci = -1, ca = -1, cs = -1, ndims = 0;
	size_t i, j;
	int k;

	for (k = 0; k < 5; k++) {
		int c = csv_column_ci(h, want[k]);

		if (c >= 0) {
			free(h->fields[c]);
			h->fields[c] = xstrdup(want[k]);
		}
	}
	if (csv_column(h, "dimension") >= 0 && csv_column(h, "code") >= 0) {
		*out = *in;		/* the long shape: as it is */
		memset(in, 0, sizeof(*in));
		return 0;
	}
	/* the wide shape */
	ci = csv_column(h, "item");
	for (k = 0; ci < 0 && k < 3; k++)
		ci = csv_column_ci(h, (const char *[]){ "url", "issue",
							"issue_url" }[k]);
	ca = csv_column(h, "annotator");
	if (ca < 0)
		ca = csv_column_ci(h, "coder");
	cs = csv_column(h, "submitted_at");
	dims = xcalloc(h->nr + 1, sizeof(*dims));
	for (i = 0; i < h->nr; i++) {
		if ((int)i == ci || (int)i == ca || (int)i == cs)
			continue;
		dims[i] = dim_of_header(cb, q, h->fields[i]);
		ndims += !!dims[i];
	}
	/* a column that names no dimension is refused, not dropped: a
	 * misspelt "rootcause" would lose the whole dimension (an empty
	 * header, a spreadsheet's trailing column, is no column) */
	for (i = 0; ci >= 0 && ndims && i < h->nr; i++) {
		struct buf all = BUF_INIT;
		const char *near;
		size_t x;

		if (dims[i] || (int)i == ci || (int)i == ca || (int)i == cs ||
		    !*h->fields[i])
			continue;
		near = header_suggest(cb, h->fields[i]);
		for (x = 0; x < cb->nr_dims; x++)
			buf_addf(&all, "%s%s", x ? ", " : "",
				 cb->dims[x].key);
		if (near)
			err_set(e, ERR_INPUT, "%s:%d: column \"%s\" names no "
				"dimension of the codebook; did you mean %s? "
				"(head each column with a dimension's key or "
				"name: %s; or remove it)", path, h->line,
				h->fields[i], near, all.ptr);
		else
			err_set(e, ERR_INPUT, "%s:%d: column \"%s\" names no "
				"dimension of the codebook (head each column "
				"with a dimension's key or name: %s; or remove "
				"it)", path, h->line, h->fields[i], all.ptr);
		buf_release(&all);
		free(dims);
		return -1;
	}
	if (ci < 0 || !ndims || (ca < 0 && !annotator)) {
		struct buf b = BUF_INIT;

		for (i = 0; i < h->nr; i++)
			buf_addf(&b, "%s\"%s\"", i ? ", " : "", h->fields[i]);
		err_set(e, ERR_INPUT, "%s:%d: the header has %s; expected "
			"item,annotator,dimension,code (one row per code) or "
			"an item column and one column per dimension (%s)%s",
			path, h->line, b.ptr, ci < 0 ? "no item column" :
			!ndims ? "no column names a dimension of the "
			"codebook" : "no annotator column",
			ci >= 0 && ndims && ca < 0 ? "; add an annotator "
			"column or give --annotator NAME" : "");
		buf_release(&b);
		free(dims);
		return -1;
	}
	memset(out, 0, sizeof(*out));
	add_record(out, h->line, want);
	for (j = 1; j < in->nr; j++) {
		const struct csv_record *r = &in->v[j];
		const char *who;

		if (r->nr != h->nr) {
			err_set(e, ERR_INPUT, "%s:%d: %zu fields, the header "
				"has %zu", path, r->line, r->nr, h->nr);
			free(dims);
			csv_release(out);
			return -1;
		}
		who = ca >= 0 && *r->fields[ca] ? r->fields[ca] : annotator;
		if (!who) {
			err_set(e, ERR_INPUT, "%s:%d: annotator: empty (give "
				"--annotator NAME for such rows)", path,
				r->line);
			free(dims);
			csv_release(out);
			return -1;
		}
		for (i = 0; i < h->nr; i++) {
			const char *x = r->fields[i];

			if (!dims[i])
				continue;
			while (*x) {
				size_t n = strcspn(x, ";|,");
				char *code = code_of_cell(dims[i], x, n);

				if (*code) {
					const char *f[5] = {
						r->fields[ci], who,
						dims[i]->key, code,
						cs >= 0 ? r->fields[cs] : "" };

					add_record(out, r->line, f);
				}
				free(code);
				x += n + (x[n] ? 1 : 0);
			}
		}
	}
	free(dims);
	csv_release(in);
	return 0;
}

int labels_import(struct store *st, const struct actor *a,
		  const struct codebook *cb, const char *path, int submit,
		  struct labels_import_stats *stats, struct err *e)
{
	return labels_import_opts(st, a, cb, path, submit, NULL, stats, e);
}

int labels_import_opts(struct store *st, const struct actor *a,
		       const struct codebook *cb, const char *path, int submit,
		       const char *annotator,
		       struct labels_import_stats *stats, struct err *e)
{
	return labels_import_round(st, a, cb, path, submit, annotator, NULL,
				   stats, e);
}

static int cmp_ll(const void *x, const void *y)
{
	long long a = *(const long long *)x, b = *(const long long *)y;

	return (a > b) - (a < b);
}

/*
 * The design's rule for every row, asked once per annotator of the file
 * for all their items (access_label_items()).  Items in no round go into
 * `round` when it is given; without it they are refused all together,
 * named; any other refusal names its first line.  rows[] is sorted by
 * item, then annotator.
 */
static int check_design(struct store *st, const struct actor *a,
			const struct row *rows, size_t n, const char *path,
			const char *round, struct labels_import_stats *stats,
			struct err *e)
{
	long long *ids = NULL, *outside = NULL;
	struct label_verdict *v = NULL;
	size_t i, j, k, nids, nout = 0;
	int ret = -1;

	ids = xcalloc(n + 1, sizeof(*ids));
	outside = xcalloc(n + 1, sizeof(*outside));
	v = xcalloc(n + 1, sizeof(*v));
	/* items in no round first: they may go into --round before the
	 * rule is asked again */
	for (i = 0; i < n; i++) {
		for (k = 0; k < i && rows[k].member_id != rows[i].member_id;
		     k++)
			;
		if (k < i)
			continue;	/* this annotator is done */
		{
			struct actor as;

			memset(&as, 0, sizeof(as));
			as.os_user = a->os_user;
			as.name = (char *)rows[i].member;
			as.member_id = rows[i].member_id;
			as.role = rows[i].role;
			as.acting_for = strcmp(rows[i].member, a->os_user) != 0;
			nids = 0;
			for (j = i; j < n; j++)
				if (rows[j].member_id == rows[i].member_id &&
				    (!nids || ids[nids - 1] != rows[j].item_id))
					ids[nids++] = rows[j].item_id;
			if (access_label_items(st, &as, ids, nids, v, e) < 0)
				goto out;
			for (j = 0; j < nids; j++) {
				size_t r;

				if (v[j].may != LABEL_NO)
					continue;
				if (v[j].outside) {
					outside[nout++] = ids[j];
					continue;
				}
				for (r = 0; r < n; r++)
					if (rows[r].item_id == ids[j] &&
					    rows[r].member_id ==
					    rows[i].member_id)
						break;
				err_set(e, ERR_PERM, "%s:%d: %s", path,
					r < n ? rows[r].line : 0, v[j].why);
				access_verdicts_release(v, nids);
				goto out;
			}
			access_verdicts_release(v, nids);
		}
	}
	if (!nout) {
		ret = 0;
		goto out;
	}
	qsort(outside, nout, sizeof(*outside), cmp_ll);
	for (i = j = 0; i < nout; i++)
		if (!j || outside[j - 1] != outside[i])
			outside[j++] = outside[i];
	nout = j;
	if (!round) {
		struct buf names = BUF_INIT;

		for (i = 0; i < nout && i < 5; i++)
			for (j = 0; j < n; j++)
				if (rows[j].item_id == outside[i]) {
					buf_addf(&names, "%s%s (line %d)",
						 i ? ", " : "", rows[j].item,
						 rows[j].line);
					break;
				}
		err_set(e, ERR_PERM, "%s: %zu item%s %s in no round: %s%s; a "
			"member labels only the items of open rounds that "
			"assign them: `labels import %s --round R` puts them "
			"into open round R on the way in", path, nout,
			nout == 1 ? "" : "s", nout == 1 ? "is" : "are",
			names.ptr, nout > 5 ? ", ..." : "", path);
		buf_release(&names);
		goto out;
	}
	if (round_add_items(st, a, round, outside, nout, e) < 0) {
		err_prefix(e, "%s: --round %s", path, round);
		goto out;
	}
	stats->assigned = (int)nout;
	ret = 0;
out:
	free(ids);
	free(outside);
	free(v);
	return ret;
}

int labels_import_round(struct store *st, const struct actor *a,
			const struct codebook *cb, const char *path,
			int submit, const char *annotator, const char *round,
			struct labels_import_stats *stats, struct err *e)
{
	struct buf text = BUF_INIT;
	int ret;

	memset(stats, 0, sizeof(*stats));
	if (a->role != ROLE_OWNER && a->role != ROLE_ANNOTATOR)
		return err_set(e, ERR_PERM, "labels import: only annotators "
			       "and the owner");
	if (buf_read_file(&text, path) < 0) {
		ret = err_set(e, ERR_IO, "%s: %s", path, strerror(errno));
		buf_release(&text);
		return ret;
	}
	ret = labels_import_text(st, a, cb, text.ptr, text.len, path, submit,
				 annotator, round, stats, e);
	buf_release(&text);
	return ret;
}

int labels_import_text(struct store *st, const struct actor *a,
		       const struct codebook *cb, const char *text,
		       size_t len, const char *path, int submit,
		       const char *annotator, const char *round,
		       struct labels_import_stats *stats, struct err *e)
{
	struct codebook q = CODEBOOK_INIT;
	struct csv raw = CSV_INIT, csv = CSV_INIT;
	struct row *rows = NULL;
	const char **codes = NULL;
	struct label_op *ops = NULL;
	struct actor *as = NULL;
	char **wheres = NULL;
	size_t n, i, j, nr_ops = 0;
	int ret = -1, in_tx = 0;

	memset(stats, 0, sizeof(*stats));
	if (a->role != ROLE_OWNER && a->role != ROLE_ANNOTATOR)
		return err_set(e, ERR_PERM, "labels import: only annotators "
			       "and the owner");
	if (csv_parse_sep(&raw, text, len, csv_sniff(text, len), path,
			  e) < 0)
		goto out;
	if (!raw.nr) {
		err_set(e, ERR_INPUT, "%s: empty file, no header", path);
		goto out;
	}
	if (screening_codebook_from(NULL, &q, e) < 0 ||
	    to_long(cb, &q, &raw, path, annotator, &csv, e) < 0)
		goto out;
	n = csv.nr - 1;
	rows = xcalloc(n + 1, sizeof(*rows));
	if (check_rows(st, a, cb, &q, &csv, path, rows, e) < 0)
		goto out;
	qsort(rows, n, sizeof(*rows), cmp_row);
	for (i = 1; i < n; i++) {
		if (!same_group(&rows[i], &rows[i - 1]))
			continue;
		if (!strcmp(rows[i].code, rows[i - 1].code)) {
			err_set(e, ERR_INPUT, "%s:%d: code: %s given twice for "
				"this item and annotator (first on line %d)",
				path, rows[i].line, rows[i].code,
				rows[i - 1].line);
			goto out;
		}
		if (!rows[i].dim->select_many) {
			int l = rows[i].line > rows[i - 1].line ?
				rows[i].line : rows[i - 1].line;

			err_set(e, ERR_INPUT, "%s:%d: code: %s takes one code "
				"per item and annotator", path, l,
				rows[i].dim->key);
			goto out;
		}
	}
	/* the groups' labels, then the submissions, as one batch: every
	 * group's codes point into `codes`, in the rows' order */
	codes = xcalloc(n + 1, sizeof(*codes));
	/* the design's rule for every row (items in no round go into
	 * --round, which writes: then all in one transaction) */
	if (round) {
		if (store_begin(st, e) < 0)
			goto out;
		in_tx = 1;
	}
	if (check_design(st, a, rows, n, path, round, stats, e) < 0)
		goto out;
	ops = xcalloc(2 * n + 1, sizeof(*ops));
	as = xcalloc(2 * n + 1, sizeof(*as));
	wheres = xcalloc(2 * n + 1, sizeof(*wheres));
	for (i = 0; i < n; i = j) {
		for (j = i; j < n && same_group(&rows[j], &rows[i]); j++)
			codes[j] = rows[j].code;
		actor_for_row(&as[nr_ops], a, &rows[i]);
		wheres[nr_ops] = where_of(path, rows[i].line);
		ops[nr_ops].kind = LABEL_OP_SET;
		ops[nr_ops].where = wheres[nr_ops];
		ops[nr_ops].item_id = rows[i].item_id;
		ops[nr_ops].as = &as[nr_ops];
		ops[nr_ops].dim = rows[i].dim->key;
		ops[nr_ops].codes = codes + i;
		ops[nr_ops].nr_codes = j - i;
		nr_ops++;
		stats->labels++;
	}
	for (i = 0; i < n; i = j) {
		int sub = submit;

		for (j = i; j < n && rows[j].item_id == rows[i].item_id &&
		     rows[j].member_id == rows[i].member_id; j++)
			sub |= rows[j].submitted;
		if (!sub)
			continue;
		actor_for_row(&as[nr_ops], a, &rows[i]);
		wheres[nr_ops] = where_of(path, rows[i].line);
		ops[nr_ops].kind = LABEL_OP_SUBMIT;
		ops[nr_ops].where = wheres[nr_ops];
		ops[nr_ops].item_id = rows[i].item_id;
		ops[nr_ops].as = &as[nr_ops];
		nr_ops++;
		stats->submitted++;
	}
	if (label_batch(st, a, cb, ops, nr_ops, e) < 0)
		goto out;
	if (in_tx) {
		in_tx = 0;
		if (store_commit(st, e) < 0)
			goto out;
	}
	stats->rows = (int)n;
	ret = 0;
out:
	for (i = 0; wheres && i < nr_ops; i++)
		free(wheres[i]);
	free(wheres);
	free(ops);
	free(as);
	free(codes);
	free(rows);
	csv_release(&csv);
	csv_release(&raw);
	if (in_tx && ret < 0)
		store_rollback(st);
	codebook_release(&q);
	return ret;
}
