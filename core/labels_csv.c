/*
 * labels_csv: see labels_csv.h.
 */
#include "core/labels_csv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/csv.h"
#include "core/item.h"
#include "core/label.h"
#include "core/suggest.h"

struct row {
	long long item_id, member_id;
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

static int check_rows(struct store *st, const struct actor *a,
		      const struct codebook *cb, const struct csv *csv,
		      const char *path, struct row *rows, struct err *e)
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
		w->dim = codebook_dim(cb, r->fields[cd]);
		if (!w->dim) {
			err_set(e, ERR_INPUT, "%s:%d: dimension: %s is not in "
				"codebook %s", path, r->line, r->fields[cd],
				cb->name);
			err_suggest(e, codebook_suggest_dim(cb,
							    r->fields[cd]));
			goto out;
		}
		if (!dimension_code(w->dim, r->fields[cc])) {
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

int labels_import(struct store *st, const struct actor *a,
		  const struct codebook *cb, const char *path, int submit,
		  struct labels_import_stats *stats, struct err *e)
{
	struct buf text = BUF_INIT;
	struct csv csv = CSV_INIT;
	struct row *rows = NULL;
	const char **codes = NULL;
	size_t n, i, j;
	int ret = -1;

	memset(stats, 0, sizeof(*stats));
	if (a->role != ROLE_OWNER && a->role != ROLE_ANNOTATOR)
		return err_set(e, ERR_PERM, "labels import: only annotators "
			       "and the owner");
	if (buf_read_file(&text, path) < 0) {
		err_set(e, ERR_IO, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (csv_parse(&csv, text.ptr, text.len, path, e) < 0)
		goto out;
	if (!csv.nr) {
		err_set(e, ERR_INPUT, "%s: empty file, no header", path);
		goto out;
	}
	n = csv.nr - 1;
	rows = xcalloc(n + 1, sizeof(*rows));
	if (check_rows(st, a, cb, &csv, path, rows, e) < 0)
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
	codes = xcalloc(n + 1, sizeof(*codes));
	if (store_begin(st, e) < 0)
		goto out;
	for (i = 0; i < n; i = j) {
		struct actor as;

		for (j = i; j < n && same_group(&rows[j], &rows[i]); j++)
			codes[j - i] = rows[j].code;
		actor_for_row(&as, a, &rows[i]);
		if (label_set(st, &as, cb, rows[i].item_id, rows[i].dim->key,
			      codes, j - i, 0, e) < 0) {
			err_prefix(e, "%s:%d", path, rows[i].line);
			goto out;
		}
		stats->labels++;
	}
	for (i = 0; i < n; i = j) {
		struct actor as;
		int sub = submit;

		for (j = i; j < n && rows[j].item_id == rows[i].item_id &&
		     rows[j].member_id == rows[i].member_id; j++)
			sub |= rows[j].submitted;
		if (!sub)
			continue;
		actor_for_row(&as, a, &rows[i]);
		if (label_submit(st, &as, cb, rows[i].item_id, e) < 0) {
			err_prefix(e, "%s:%d", path, rows[i].line);
			goto out;
		}
		stats->submitted++;
	}
	if (store_commit(st, e) < 0)
		goto out;
	stats->rows = (int)n;
	ret = 0;
out:
	if (ret < 0)
		store_rollback(st);
	free(codes);
	free(rows);
	csv_release(&csv);
	buf_release(&text);
	return ret;
}
