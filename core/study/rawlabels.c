/* SPDX-License-Identifier: MIT */
/*
 * rawlabels: see rawlabels.h.
 */
#include "core/study/rawlabels.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/buf.h"

struct rawlabels_item {
	size_t repo;		/* into repos[], from 1; 0: no such item */
	long long number;
	long long round;	/* 0 when in none */
	unsigned char closed;	/* its round is closed */
	unsigned char decided;
};

struct rawlabels_member {
	char *name;		/* owned; NULL: no such member */
};

/* Run `sql` and call fn for each row. */
static int each_row(struct rawlabels *r, const char *sql, const char *what,
		    void (*fn)(struct rawlabels *r, sqlite3_stmt *s),
		    struct err *e)
{
	sqlite3_stmt *s = store_prepare(r->st, sql, e);
	int rc;

	if (!s)
		return -1;
	while ((rc = store_step(r->st, s, what, e)) > 0)
		fn(r, s);
	sqlite3_finalize(s);
	return rc < 0 ? -1 : 0;
}

static struct rawlabels_item *item_at(struct rawlabels *r, long long id)
{
	return id > 0 && id <= r->max_item ? &r->items[id] : NULL;
}

static void take_item(struct rawlabels *r, sqlite3_stmt *s)
{
	struct rawlabels_item *it = item_at(r, sqlite3_column_int64(s, 0));
	const char *repo = (const char *)sqlite3_column_text(s, 1);

	if (!it || !repo)
		return;
	/* the index gives them in repository order: names come in runs */
	if (!r->nr_repos || strcmp(r->repos[r->nr_repos - 1], repo)) {
		ALLOC_GROW(r->repos, r->nr_repos + 1, r->alloc_repos);
		r->repos[r->nr_repos++] = xstrdup(repo);
	}
	it->repo = r->nr_repos;
	it->number = sqlite3_column_int64(s, 2);
}

static void take_assignment(struct rawlabels *r, sqlite3_stmt *s)
{
	struct rawlabels_item *it = item_at(r, sqlite3_column_int64(s, 0));

	if (it) {
		it->round = sqlite3_column_int64(s, 1);
		it->closed = sqlite3_column_int(s, 2) != 0;
	}
}

static void take_decided(struct rawlabels *r, sqlite3_stmt *s)
{
	struct rawlabels_item *it = item_at(r, sqlite3_column_int64(s, 0));

	if (it)
		it->decided = 1;
}

static void take_member(struct rawlabels *r, sqlite3_stmt *s)
{
	long long id = sqlite3_column_int64(s, 0);
	const char *name = (const char *)sqlite3_column_text(s, 1);

	if (id > 0 && id <= r->max_member && name) {
		free(r->members[id].name);
		r->members[id].name = xstrdup(name);
	}
}

static long long one_value(struct store *st, const char *sql,
			   const char *text, int *found, struct err *e)
{
	sqlite3_stmt *s = store_prepare(st, sql, e);
	long long v = 0;
	int rc;

	*found = 0;
	if (!s)
		return -1;
	if (text)
		sqlite3_bind_text(s, 1, text, -1, SQLITE_STATIC);
	rc = store_step(st, s, "reading the study", e);
	if (rc > 0) {
		v = sqlite3_column_int64(s, 0);
		*found = 1;
	}
	sqlite3_finalize(s);
	return rc < 0 ? -1 : v;
}

int rawlabels_open(struct rawlabels *r, struct store *st, const char *round,
		   struct err *e)
{
	int found;

	memset(r, 0, sizeof(*r));
	r->st = st;
	if (store_exec(st, "SAVEPOINT rawlabels_read", e) < 0)
		return -1;
	r->in_savepoint = 1;
	if (round) {
		r->round_id = one_value(st, "SELECT id FROM rounds WHERE "
					"name = ?", round, &found, e);
		if (r->round_id < 0)
			return -1;
		if (!found)
			return err_set(e, ERR_NOTFOUND, "--round %s: no such "
				       "round", round);
	}
	r->max_item = one_value(st, "SELECT coalesce(max(id), 0) FROM items",
				NULL, &found, e);
	r->max_member = one_value(st, "SELECT coalesce(max(id), 0) FROM "
				  "members", NULL, &found, e);
	if (r->max_item < 0 || r->max_member < 0)
		return -1;
	r->items = xcalloc((size_t)r->max_item + 1, sizeof(*r->items));
	r->members = xcalloc((size_t)r->max_member + 1, sizeof(*r->members));
	/* the item names from their index (the rows hold the texts) */
	if (each_row(r, "SELECT id, repo, number FROM items INDEXED BY "
		     "sqlite_autoindex_items_1", "reading items", take_item,
		     e) < 0 ||
	    each_row(r, "SELECT a.item_id, a.round_id, r.closed_at IS NOT "
		     "NULL FROM assignments a JOIN rounds r ON r.id = "
		     "a.round_id", "reading rounds", take_assignment, e) < 0 ||
	    each_row(r, "SELECT item_id FROM resolutions UNION SELECT "
		     "item_id FROM settled", "reading resolutions",
		     take_decided, e) < 0 ||
	    each_row(r, "SELECT id, name FROM members", "reading members",
		     take_member, e) < 0)
		return -1;
	r->labels = store_prepare(st, "SELECT item_id, member_id, dimension, "
				  "code, codebook_version, labeled_at FROM "
				  "labels ORDER BY item_id, member_id, "
				  "dimension, code", e);
	r->subs = store_prepare(st, "SELECT item_id, member_id, submitted_at "
				"FROM submissions ORDER BY item_id, member_id",
				e);
	if (!r->labels || !r->subs)
		return -1;
	found = store_step(st, r->subs, "reading submissions", e);
	if (found < 0)
		return -1;
	r->has_sub = found > 0;
	return 0;
}

/* <0, 0, >0: the submissions cursor is before, at, after the key. */
static int sub_cmp(struct rawlabels *r, long long item, long long member)
{
	long long i = sqlite3_column_int64(r->subs, 0);
	long long m = sqlite3_column_int64(r->subs, 1);

	if (i != item)
		return i < item ? -1 : 1;
	return m < member ? -1 : m > member;
}

int rawlabels_next(struct rawlabels *r, struct err *e)
{
	struct raw_label *w = &r->row;
	sqlite3_stmt *s = r->labels;

	for (;;) {
		const struct rawlabels_item *it;
		long long item, member;
		int rc = store_step(r->st, s, "reading labels", e);

		if (rc <= 0)
			return rc;
		item = sqlite3_column_int64(s, 0);
		member = sqlite3_column_int64(s, 1);
		it = item_at(r, item);
		/* a label of no item or no member shows nowhere */
		if (!it || !it->repo || member <= 0 ||
		    member > r->max_member || !r->members[member].name)
			continue;
		if (r->round_id && it->round != r->round_id)
			continue;
		while (r->has_sub && sub_cmp(r, item, member) < 0) {
			rc = store_step(r->st, r->subs, "reading submissions",
					e);
			if (rc < 0)
				return -1;
			r->has_sub = rc > 0;
		}
		memset(w, 0, sizeof(*w));
		w->item_id = item;
		w->member_id = member;
		w->repo = r->repos[it->repo - 1];
		w->number = it->number;
		w->member = r->members[member].name;
		w->dimension = (const char *)sqlite3_column_text(s, 2);
		w->code = (const char *)sqlite3_column_text(s, 3);
		w->codebook_version = (const char *)sqlite3_column_text(s, 4);
		w->labeled_at = (const char *)sqlite3_column_text(s, 5);
		if (r->has_sub && sub_cmp(r, item, member) == 0)
			w->submitted_at = (const char *)
				sqlite3_column_text(r->subs, 2);
		w->in_round = it->round != 0;
		w->closed = it->closed;
		w->decided = it->decided;
		return 1;
	}
}

void rawlabels_close(struct rawlabels *r)
{
	long long i;
	size_t k;

	if (!r)
		return;
	sqlite3_finalize(r->labels);
	sqlite3_finalize(r->subs);
	if (r->in_savepoint)
		store_exec(r->st, "RELEASE rawlabels_read", NULL);
	for (i = 0; r->members && i <= r->max_member; i++)
		free(r->members[i].name);
	for (k = 0; k < r->nr_repos; k++)
		free(r->repos[k]);
	free(r->repos);
	free(r->members);
	free(r->items);
	memset(r, 0, sizeof(*r));
}
