/* SPDX-License-Identifier: MIT */
/*
 * agreed: see agreed.h.
 *
 * The five scans, each ordered by item id so that one cursor per table
 * walks forward in step with the items:
 *   items LEFT JOIN assignments, rounds   the rows to write, filtered
 *   fixes          by (item_id, position)  pull request numbers
 *   submissions    by (item_id, member_id) who submitted
 *   labels         by (item_id, member_id, dimension, code): the primary
 *                  key's order, so a coder's codes of a dimension come
 *                  sorted as coding_load() gives them
 *   resolutions    by (item_id, dimension)
 *   flags          by (item_id, member_id): "discuss" flags
 *   settled        by item_id
 * Each is read through its index; nothing is sorted in memory.
 */
#include "core/study/consensus.h"

#include "core/study/access.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/buf.h"
#include "core/study/round.h"

struct consensus_round {
	long long id;
	long long *members;	/* sorted */
	size_t nr, alloc;
};

const char *consensus_status_name(enum dim_status s)
{
	switch (s) {
	case DIM_AGREED:
		return "agreed";
	case DIM_RESOLVED:
		return "adjudicated";
	default:
		return "pending";
	}
}

int consensus_ready(size_t nr_coders, size_t expected)
{
	return expected ? nr_coders >= expected : nr_coders >= 2;
}

enum dim_status consensus_decide(int ready, int all_same, int resolved)
{
	return consensus_decide_dim(ready, all_same, resolved, 0);
}

enum dim_status consensus_decide_dim(int ready, int all_same, int resolved,
				  int recoding)
{
	if (resolved)
		return DIM_RESOLVED;
	if (!ready || recoding)
		return DIM_PENDING;
	return all_same ? DIM_AGREED : DIM_DISAGREE;
}

static int step(struct consensus_iter *it, sqlite3_stmt *s, int *has,
		struct err *e)
{
	int rc = store_step(it->st, s, "reading the study", e);

	*has = rc > 0;
	return rc < 0 ? -1 : 0;
}

/* Skip the cursor's rows of items before `id`. */
static int skip_to(struct consensus_iter *it, sqlite3_stmt *s, int *has,
		   long long id, struct err *e)
{
	while (*has && sqlite3_column_int64(s, 0) < id)
		if (step(it, s, has, e) < 0)
			return -1;
	return 0;
}

static int at(sqlite3_stmt *s, int has, long long id)
{
	return has && sqlite3_column_int64(s, 0) == id;
}

static int load_rounds(struct consensus_iter *it, struct err *e)
{
	sqlite3_stmt *s;
	size_t alloc = 0;
	int rc;

	s = store_prepare(it->st, "SELECT round_id, member_id FROM "
			  "round_annotators ORDER BY round_id, member_id", e);
	if (!s)
		return -1;
	while ((rc = store_step(it->st, s, "reading rounds", e)) > 0) {
		long long id = sqlite3_column_int64(s, 0);
		struct consensus_round *r;

		if (!it->nr_rounds || it->rounds[it->nr_rounds - 1].id != id) {
			ALLOC_GROW(it->rounds, it->nr_rounds + 1, alloc);
			r = &it->rounds[it->nr_rounds++];
			memset(r, 0, sizeof(*r));
			r->id = id;
		}
		r = &it->rounds[it->nr_rounds - 1];
		ALLOC_GROW(r->members, r->nr + 1, r->alloc);
		r->members[r->nr++] = sqlite3_column_int64(s, 1);
	}
	sqlite3_finalize(s);
	if (rc < 0)
		return -1;
	return 0;
}

static const struct consensus_round *find_round(const struct consensus_iter *it,
					     long long id)
{
	size_t lo = 0, hi = it->nr_rounds;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (it->rounds[mid].id == id)
			return &it->rounds[mid];
		if (it->rounds[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int in_round(const struct consensus_round *r, long long member)
{
	size_t i;

	for (i = 0; i < r->nr; i++)
		if (r->members[i] == member)
			return 1;
	return 0;
}

int consensus_check_round(struct store *st, const char *round, struct err *e)
{
	sqlite3_stmt *s = store_prepare(st, "SELECT 1 FROM rounds WHERE "
					"name = ?", e);
	int rc;

	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, round, -1, SQLITE_STATIC);
	rc = store_step(st, s, "reading rounds", e);
	sqlite3_finalize(s);
	if (rc > 0)
		return 0;
	if (rc == 0) {
		struct buf what = BUF_INIT;

		buf_addf(&what, "--round %s", round);
		round_unknown(st, what.ptr, round, e);
		buf_release(&what);
		return -1;
	}
	return -1;
}

int consensus_open(struct consensus_iter *it, struct store *st,
		const struct actor *a, const struct codebook *cb,
		const char *round, struct err *e)
{
	size_t i;

	memset(it, 0, sizeof(*it));
	it->st = st;
	it->cb = cb;
	it->actor = a;
	buf_init(&it->item.fixes, 0);
	buf_init(&it->item.fix_lines, 0);
	buf_init(&it->item.fix_repeats, 0);
	buf_init(&it->last, 0);
	if (a->role == ROLE_NONE)
		return err_set(e, ERR_PERM, "%s is not a member of this study",
			       a->name ? a->name : "you");
	if (store_exec(st, "SAVEPOINT agreed_read", e) < 0)
		return -1;
	it->in_savepoint = 1;
	if (round && consensus_check_round(st, round, e) < 0)
		return -1;
	if (load_rounds(it, e) < 0)
		return -1;

	it->items = store_prepare(st,
		"SELECT i.id, i.repo, i.number, i.url, i.title, i.created_at, "
		" i.closed_at, i.days_open, i.comment_count, i.additions, "
		" i.deletions, i.changed_files, i.lines_changed, i.small_fix, "
		" a.round_id, r.name, r.closed_at IS NOT NULL "
		"FROM items i LEFT JOIN assignments a ON a.item_id = i.id "
		"LEFT JOIN rounds r ON r.id = a.round_id "
		"WHERE (?1 IS NULL OR r.name = ?1) AND "
		ACCESS_COUNTED_SQL("i.id") " "
		"ORDER BY i.id", e);
	it->fixes = store_prepare(st, "SELECT item_id, number, additions + "
				  "deletions, repeats FROM fixes ORDER BY "
				  "item_id, position", e);
	it->subs = store_prepare(st, "SELECT item_id, member_id, "
				 "submitted_at FROM submissions ORDER BY "
				 "item_id, member_id", e);
	it->labels = store_prepare(st, "SELECT item_id, member_id, dimension, "
				   "code FROM labels ORDER BY item_id, "
				   "member_id, dimension, code", e);
	it->res = store_prepare(st, "SELECT item_id, dimension, code FROM "
				"resolutions ORDER BY item_id, dimension", e);
	it->flags = store_prepare(st, "SELECT item_id, member_id FROM flags "
				  "WHERE flag = 'discuss' ORDER BY item_id, "
				  "member_id", e);
	it->settled = store_prepare(st, "SELECT item_id FROM settled ORDER "
				    "BY item_id", e);
	it->recodes = store_prepare(st, "SELECT DISTINCT item_id, dimension "
				    "FROM recodes WHERE done_at IS NULL ORDER "
				    "BY item_id, dimension", e);
	if (!it->items || !it->fixes || !it->subs || !it->labels ||
	    !it->res || !it->flags || !it->settled || !it->recodes)
		return -1;
	store_bind_text(it->items, 1, round);
	if (step(it, it->recodes, &it->has_recode, e) < 0 ||
	    step(it, it->flags, &it->has_flag, e) < 0 ||
	    step(it, it->settled, &it->has_settled, e) < 0 ||
	    step(it, it->fixes, &it->has_fix, e) < 0 ||
	    step(it, it->subs, &it->has_sub, e) < 0 ||
	    step(it, it->labels, &it->has_label, e) < 0 ||
	    step(it, it->res, &it->has_res, e) < 0)
		return -1;

	it->cur = xcalloc(cb->nr_dims + 1, sizeof(*it->cur));
	it->item.dims = xcalloc(cb->nr_dims + 1, sizeof(*it->item.dims));
	for (i = 0; i < cb->nr_dims; i++) {
		buf_init(&it->cur[i], 0);
		buf_init(&it->item.dims[i].final, 0);
	}
	return 0;
}

void consensus_skip_fixes(struct consensus_iter *it)
{
	sqlite3_finalize(it->fixes);
	it->fixes = NULL;
	it->has_fix = 0;
}

void consensus_close(struct consensus_iter *it)
{
	size_t i;

	if (!it)
		return;
	sqlite3_finalize(it->items);
	sqlite3_finalize(it->fixes);
	sqlite3_finalize(it->subs);
	sqlite3_finalize(it->labels);
	sqlite3_finalize(it->res);
	sqlite3_finalize(it->flags);
	sqlite3_finalize(it->settled);
	sqlite3_finalize(it->recodes);
	if (it->in_savepoint)
		store_exec(it->st, "RELEASE agreed_read", NULL);
	for (i = 0; i < it->nr_rounds; i++)
		free(it->rounds[i].members);
	free(it->rounds);
	free(it->coders);
	for (i = 0; it->cb && i < it->cb->nr_dims; i++) {
		if (it->cur)
			buf_release(&it->cur[i]);
		if (it->item.dims)
			buf_release(&it->item.dims[i].final);
	}
	free(it->cur);
	free(it->item.dims);
	buf_release(&it->item.fixes);
	buf_release(&it->item.fix_lines);
	buf_release(&it->item.fix_repeats);
	buf_release(&it->last);
	memset(it, 0, sizeof(*it));
}

/* Index of dimension `key` in the codebook, or -1; `hint` is where the
 * previous lookup landed (labels come grouped by dimension). */
static int dim_index(const struct codebook *cb, const char *key, int *hint)
{
	size_t i;

	if (*hint >= 0 && (size_t)*hint < cb->nr_dims &&
	    !strcmp(cb->dims[*hint].key, key))
		return *hint;
	for (i = 0; i < cb->nr_dims; i++)
		if (!strcmp(cb->dims[i].key, key))
			return *hint = (int)i;
	return -1;
}

static const char *col_text(sqlite3_stmt *s, int i)
{
	return (const char *)sqlite3_column_text(s, i);
}

static long long col_int_or(sqlite3_stmt *s, int i, long long dflt)
{
	if (sqlite3_column_type(s, i) == SQLITE_NULL)
		return dflt;
	return sqlite3_column_int64(s, i);
}

static void fill_columns(struct consensus_item *t, sqlite3_stmt *q)
{
	t->id = sqlite3_column_int64(q, 0);
	t->repo = col_text(q, 1);
	t->number = sqlite3_column_int64(q, 2);
	t->url = col_text(q, 3);
	t->title = col_text(q, 4);
	t->created_at = col_text(q, 5);
	t->closed_at = col_text(q, 6);
	t->days_open = sqlite3_column_type(q, 7) == SQLITE_NULL ? -1 :
		       sqlite3_column_double(q, 7);
	t->comments = sqlite3_column_int64(q, 8);
	t->additions = col_int_or(q, 9, -1);
	t->deletions = col_int_or(q, 10, -1);
	t->changed_files = col_int_or(q, 11, -1);
	t->lines_changed = col_int_or(q, 12, -1);
	t->small_fix = (int)col_int_or(q, 13, -1);
	if (t->small_fix > 1)
		t->small_fix = 1;
	t->round = col_text(q, 15);
}

/* The item's coders: its submitters, kept to the round's annotators
 * when it is in a round.  Returns how many coders it waits for. */
static int load_coders(struct consensus_iter *it, long long id,
		       const struct consensus_round *r, size_t *expected,
		       struct err *e)
{
	it->nr_coders = 0;
	buf_reset(&it->last);
	it->item.last_submitted = NULL;
	if (skip_to(it, it->subs, &it->has_sub, id, e) < 0)
		return -1;
	while (at(it->subs, it->has_sub, id)) {
		long long m = sqlite3_column_int64(it->subs, 1);
		const char *when = col_text(it->subs, 2);

		if (when && (!it->item.last_submitted ||
			     strcmp(when, it->last.ptr) > 0)) {
			buf_set(&it->last, when);
			it->item.last_submitted = it->last.ptr;
		}

		if (!r || in_round(r, m)) {
			ALLOC_GROW(it->coders, it->nr_coders + 1,
				   it->alloc_coders);
			it->coders[it->nr_coders++] = m;
		}
		if (step(it, it->subs, &it->has_sub, e) < 0)
			return -1;
	}
	*expected = r ? r->nr : 0;
	return 0;
}

/* Compare the coders' codes dimension by dimension. */
static int compare_labels(struct consensus_iter *it, long long id,
			  struct err *e)
{
	const struct codebook *cb = it->cb;
	struct consensus_item *t = &it->item;
	sqlite3_stmt *l = it->labels;
	int hint = -1;
	size_t k, d;

	if (skip_to(it, l, &it->has_label, id, e) < 0)
		return -1;
	for (k = 0; t->ready && k < it->nr_coders; k++) {
		long long m = it->coders[k];

		for (d = 0; d < cb->nr_dims; d++)
			buf_reset(&it->cur[d]);
		while (at(l, it->has_label, id) &&
		       sqlite3_column_int64(l, 1) < m)
			if (step(it, l, &it->has_label, e) < 0)
				return -1;
		while (at(l, it->has_label, id) &&
		       sqlite3_column_int64(l, 1) == m) {
			int i = dim_index(cb, col_text(l, 2), &hint);

			if (i >= 0) {
				struct buf *b = &it->cur[i];

				if (b->len)
					buf_addch(b, ';');
				buf_add(b, sqlite3_column_text(l, 3),
					(size_t)sqlite3_column_bytes(l, 3));
			}
			if (step(it, l, &it->has_label, e) < 0)
				return -1;
		}
		for (d = 0; d < cb->nr_dims; d++) {
			struct consensus_dim *ad = &t->dims[d];

			if (!k) {
				struct buf tmp = ad->final;

				ad->final = it->cur[d];
				it->cur[d] = tmp;
			} else if (ad->final.len != it->cur[d].len ||
				   memcmp(ad->final.ptr, it->cur[d].ptr,
					  it->cur[d].len)) {
				ad->status = DIM_DISAGREE;
			}
		}
	}
	while (at(l, it->has_label, id))
		if (step(it, l, &it->has_label, e) < 0)
			return -1;
	return 0;
}

static int load_resolutions(struct consensus_iter *it, long long id,
			    struct err *e)
{
	sqlite3_stmt *r = it->res;
	int hint = -1;

	if (skip_to(it, r, &it->has_res, id, e) < 0)
		return -1;
	while (at(r, it->has_res, id)) {
		int i = dim_index(it->cb, col_text(r, 1), &hint);

		if (i >= 0) {
			it->item.dims[i].status = consensus_decide(it->item.ready,
				0, 1);
			buf_set(&it->item.dims[i].final, col_text(r, 2));
		}
		if (step(it, r, &it->has_res, e) < 0)
			return -1;
	}
	return 0;
}

/* Whether a coder flagged the item for discussion, and whether an
 * adjudicator settled it. */
static int load_discussion(struct consensus_iter *it, long long id,
			   struct err *e)
{
	struct consensus_item *t = &it->item;
	size_t k;

	t->discuss = 0;
	t->settled = 0;
	if (skip_to(it, it->flags, &it->has_flag, id, e) < 0)
		return -1;
	while (at(it->flags, it->has_flag, id)) {
		long long m = sqlite3_column_int64(it->flags, 1);

		for (k = 0; k < it->nr_coders; k++)
			if (it->coders[k] == m)
				t->discuss = 1;
		if (step(it, it->flags, &it->has_flag, e) < 0)
			return -1;
	}
	if (skip_to(it, it->settled, &it->has_settled, id, e) < 0)
		return -1;
	t->settled = at(it->settled, it->has_settled, id);
	return 0;
}

static int load_fixes(struct consensus_iter *it, long long id, struct err *e)
{
	sqlite3_stmt *f = it->fixes;

	buf_reset(&it->item.fixes);
	buf_reset(&it->item.fix_lines);
	buf_reset(&it->item.fix_repeats);
	if (!f)
		return 0;
	if (skip_to(it, f, &it->has_fix, id, e) < 0)
		return -1;
	while (at(f, it->has_fix, id)) {
		if (sqlite3_column_type(f, 1) != SQLITE_NULL) {
			struct consensus_item *t = &it->item;
			int first = !t->fixes.len;

			if (!first) {
				buf_addch(&t->fixes, ';');
				buf_addch(&t->fix_lines, ';');
				buf_addch(&t->fix_repeats, ';');
			}
			buf_addf(&t->fixes, "%lld",
				 (long long)sqlite3_column_int64(f, 1));
			/* each fix's own size (empty when unknown), and the
			 * pull request it repeats (0: a change of its own) */
			if (sqlite3_column_type(f, 2) != SQLITE_NULL)
				buf_addf(&t->fix_lines, "%lld", (long long)
					 sqlite3_column_int64(f, 2));
			else
				buf_addch(&t->fix_lines, '?');
			buf_addf(&t->fix_repeats, "%d",
				 sqlite3_column_type(f, 3) == SQLITE_NULL ? 0 :
				 sqlite3_column_int(f, 3) + 1);
		}
		if (step(it, f, &it->has_fix, e) < 0)
			return -1;
	}
	return 0;
}

int consensus_next(struct consensus_iter *it, struct err *e)
{
	struct consensus_item *t = &it->item;
	const struct consensus_round *r = NULL;
	size_t expected, d;
	long long id;
	int rc;

	for (;;) {
		int in_round;

		rc = store_step(it->st, it->items, "reading items", e);
		if (rc <= 0)
			return rc;
		/* an agreed label reveals every coder's choice */
		in_round = sqlite3_column_type(it->items, 14) != SQLITE_NULL;
		if (access_rule(it->actor, 0, in_round,
				sqlite3_column_int(it->items, 16)))
			break;
	}
	fill_columns(t, it->items);
	id = t->id;
	if (sqlite3_column_type(it->items, 14) != SQLITE_NULL) {
		static const struct consensus_round none = { 0, NULL, 0, 0 };

		r = find_round(it, sqlite3_column_int64(it->items, 14));
		if (!r)		/* a round with no annotators */
			r = &none;
	}
	if (load_fixes(it, id, e) < 0 ||
	    load_coders(it, id, r, &expected, e) < 0 ||
	    load_discussion(it, id, e) < 0)
		return -1;
	t->ready = consensus_ready(it->nr_coders, expected);
	for (d = 0; d < it->cb->nr_dims; d++) {
		/* compare_labels() turns this to "not the same" */
		t->dims[d].status = DIM_AGREED;
		buf_reset(&t->dims[d].final);
	}
	if (compare_labels(it, id, e) < 0)
		return -1;
	/* the dimensions a split left to recode (DIM_RESOLVED marks them
	 * here, before any resolution is read) */
	t->recoding = 0;
	if (skip_to(it, it->recodes, &it->has_recode, id, e) < 0)
		return -1;
	while (at(it->recodes, it->has_recode, id)) {
		int hint = -1;
		int i = dim_index(it->cb, col_text(it->recodes, 1), &hint);

		if (i >= 0) {
			t->dims[i].status = t->dims[i].status == DIM_AGREED ?
					    DIM_RESOLVED : DIM_PENDING;
			t->recoding = 1;
		}
		if (step(it, it->recodes, &it->has_recode, e) < 0)
			return -1;
	}
	for (d = 0; d < it->cb->nr_dims; d++) {
		enum dim_status was = t->dims[d].status;

		t->dims[d].status = consensus_decide_dim(t->ready,
			was == DIM_AGREED || was == DIM_RESOLVED, 0,
			was == DIM_RESOLVED || was == DIM_PENDING);
		if (t->dims[d].status != DIM_AGREED)
			buf_reset(&t->dims[d].final);
	}
	if (load_resolutions(it, id, e) < 0)
		return -1;
	t->complete = 1;
	for (d = 0; d < it->cb->nr_dims; d++)
		if (t->dims[d].status != DIM_AGREED &&
		    t->dims[d].status != DIM_RESOLVED)
			t->complete = 0;
	return 1;
}
