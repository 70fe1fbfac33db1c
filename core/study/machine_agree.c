/* SPDX-License-Identifier: MIT */
/*
 * machine_agree: machine coders against humans, the agreed labels and
 * each other; see machine.h.
 */
#include "core/study/machine.h"

#include <stdlib.h>
#include <string.h>

#include "core/study/access.h"
#include "core/study/consensus.h"
#include "core/study/item.h"
#include "core/study/round.h"

void machine_agreement_release(struct machine_agreement *ma)
{
	size_t i;

	for (i = 0; i < ma->nr_machines; i++) {
		free(ma->machines[i].name);
		free(ma->machines[i].models);
		free(ma->machines[i].notes);
		free(ma->machines[i].commands);
	}
	free(ma->machines);
	for (i = 0; i < ma->nr_humans; i++)
		free(ma->humans[i]);
	free(ma->humans);
	free(ma->pairs);
	memset(ma, 0, sizeof(*ma));
}

#define IN_SCOPE(col, n) \
	"(?" #n " = 0 OR " col " IN (SELECT item_id FROM assignments " \
	"WHERE round_id = ?" #n "))"

static char *col_dup(sqlite3_stmt *s, int i)
{
	const char *t = (const char *)sqlite3_column_text(s, i);

	return t ? xstrdup(t) : NULL;
}

/* Names and ids of the members a query returns (id, name). */
static int load_members(struct store *st, const char *sql, long long rid,
			long long **ids, char ***names, size_t *nr,
			struct err *e)
{
	sqlite3_stmt *s = store_prepare(st, sql, e);
	size_t alloc = 0;
	int rc;

	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, rid);
	while ((rc = store_step(st, s, "reading the coders", e)) > 0) {
		ALLOC_GROW(*names, *nr + 1, alloc);
		*ids = xrealloc(*ids, alloc * sizeof(**ids));
		(*ids)[*nr] = sqlite3_column_int64(s, 0);
		(*names)[(*nr)++] = col_dup(s, 1);
	}
	sqlite3_finalize(s);
	return rc < 0 ? -1 : 0;
}

static char *xstrdup_printf_n(const char *what, size_t n)
{
	struct buf b = BUF_INIT;

	buf_addf(&b, "%s %zu", what, n);
	return buf_detach(&b, NULL);
}

/* How many machines that agreement_compute() counts as annotators sort
 * before `name`: the round's declared ones, or (rid 0) those declared in
 * any round that submitted something. */
static int declared_before(struct store *st, long long rid, const char *name,
			   long long *n, struct err *e)
{
	sqlite3_stmt *s;
	int rc;

	s = store_prepare(st, "SELECT count(*) FROM members m WHERE m.machine "
			  "AND m.name < ?2 AND CASE WHEN ?1 THEN EXISTS (SELECT "
			  "1 FROM round_annotators ra WHERE ra.round_id = ?1 AND "
			  "ra.member_id = m.id) ELSE EXISTS (SELECT 1 FROM "
			  "round_annotators ra WHERE ra.member_id = m.id) AND "
			  "EXISTS (SELECT 1 FROM submissions s WHERE s.member_id "
			  "= m.id) END", e);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, rid);
	sqlite3_bind_text(s, 2, name, -1, SQLITE_STATIC);
	rc = store_step(st, s, "reading the coders", e);
	if (rc > 0)
		*n = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return rc < 0 ? -1 : 0;
}

static int load_info(struct store *st, long long rid, long long id,
		     struct machine_info *mi, struct err *e)
{
	sqlite3_stmt *s;
	int rc;

	s = store_prepare(st,
		"SELECT (SELECT count(*) FROM machine_answers WHERE "
		" member_id = ?2 AND " IN_SCOPE("item_id", 1) "),"
		" (SELECT coalesce(sum(duration_ms), 0) FROM machine_answers "
		" WHERE member_id = ?2 AND " IN_SCOPE("item_id", 1) "),"
		" (SELECT group_concat(x, '; ') FROM (SELECT DISTINCT model x "
		" FROM machine_answers WHERE member_id = ?2 AND model IS NOT "
		" NULL AND " IN_SCOPE("item_id", 1) " ORDER BY x)),"
		" (SELECT group_concat(x, '; ') FROM (SELECT DISTINCT note x "
		" FROM machine_answers WHERE member_id = ?2 AND note IS NOT "
		" NULL AND " IN_SCOPE("item_id", 1) " ORDER BY x)),"
		" (SELECT group_concat(x, '; ') FROM (SELECT DISTINCT command "
		" x FROM machine_answers WHERE member_id = ?2 AND "
		IN_SCOPE("item_id", 1) " ORDER BY x)),"
		" EXISTS (SELECT 1 FROM round_annotators WHERE round_id = ?1 "
		" AND member_id = ?2)", e);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, rid);
	sqlite3_bind_int64(s, 2, id);
	rc = store_step(st, s, "reading the machine's answers", e);
	if (rc > 0) {
		mi->answers = sqlite3_column_int(s, 0);
		mi->ms = sqlite3_column_int64(s, 1);
		mi->models = col_dup(s, 2);
		mi->notes = col_dup(s, 3);
		mi->commands = col_dup(s, 4);
		mi->declared = sqlite3_column_int(s, 5);
	}
	sqlite3_finalize(s);
	return rc < 0 ? -1 : 0;
}

/* The statistics of a pair's table: every one, and kappa and its
 * interval as reported. */
static int pair_stats(const struct agree_table *t,
		      const struct agree_opts *o, struct machine_pair *p,
		      struct err *e)
{
	if (agree_cohen(t, &p->cohen, e) < 0)
		return -1;
	return agree_table_interval(o, t, &p->kappa, &p->ci, e);
}

/* x's codes against y's on one dimension, the items both submitted. */
static int compare(struct store *st, long long rid, long long x, long long y,
		   const struct dimension *d, const struct agree_opts *o,
		   struct machine_pair *p, struct err *e)
{
	struct agree_table t;
	sqlite3_stmt *s;
	int rc, k = (int)d->nr_codes;

	s = store_prepare(st,
		"SELECT lx.code, ly.code FROM submissions sx JOIN submissions "
		"sy ON sy.item_id = sx.item_id AND sy.member_id = ?2 JOIN "
		"labels lx ON lx.item_id = sx.item_id AND lx.member_id = ?1 AND "
		"lx.dimension = ?3 JOIN labels ly ON ly.item_id = sx.item_id "
		"AND ly.member_id = ?2 AND ly.dimension = ?3 WHERE sx.member_id "
		"= ?1 AND " IN_SCOPE("sx.item_id", 4), e);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, x);
	sqlite3_bind_int64(s, 2, y);
	sqlite3_bind_text(s, 3, d->key, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 4, rid);
	agree_table_init(&t, k);
	while ((rc = store_step(st, s, "reading labels", e)) > 0) {
		int i = dimension_code_index(d, (const char *)
					     sqlite3_column_text(s, 0));
		int j = dimension_code_index(d, (const char *)
					     sqlite3_column_text(s, 1));

		if (i < 0 || j < 0)
			continue;
		t.n[i * k + j]++;
		p->n++;
		p->matches += i == j;
	}
	sqlite3_finalize(s);
	if (rc >= 0)
		rc = pair_stats(&t, o, p, e);
	agree_table_release(&t);
	return rc < 0 ? -1 : 0;
}

/* The agreed code (index) of every item agreed or resolved on `d`, by
 * item id: ids[i] -> codes[i], in id order. */
struct agreed_codes {
	long long *ids;
	int *codes;
	size_t nr;
};

static int load_agreed(struct store *st, const struct actor *a,
		       const struct codebook *cb, const char *round,
		       size_t dim_index, struct agreed_codes *ac,
		       struct err *e)
{
	struct consensus_iter it;
	size_t alloc = 0;
	int rc;

	memset(&it, 0, sizeof(it));
	rc = consensus_open(&it, st, a, cb, round, e);
	if (rc == 0) {
		consensus_skip_fixes(&it);
		while ((rc = consensus_next(&it, e)) > 0) {
			const struct consensus_dim *ad = &it.item.dims[dim_index];
			int c;

			if (ad->status != DIM_AGREED &&
			    ad->status != DIM_RESOLVED)
				continue;
			c = ad->final.len ? dimension_code_index(
				&cb->dims[dim_index], ad->final.ptr) : -1;
			if (c < 0)
				continue;
			ALLOC_GROW(ac->ids, ac->nr + 1, alloc);
			ac->codes = xrealloc(ac->codes, alloc * sizeof(int));
			ac->ids[ac->nr] = it.item.id;
			ac->codes[ac->nr++] = c;
		}
	}
	consensus_close(&it);
	return rc < 0 ? -1 : 0;
}

static int find_agreed(const struct agreed_codes *ac, long long id)
{
	size_t lo = 0, hi = ac->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ac->ids[mid] == id)
			return ac->codes[mid];
		if (ac->ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static int compare_agreed(struct store *st, long long rid, long long x,
			  const struct dimension *d,
			  const struct agreed_codes *ac,
			  const struct agree_opts *o,
			  struct machine_pair *p, struct err *e)
{
	struct agree_table t;
	sqlite3_stmt *s;
	int rc, k = (int)d->nr_codes;

	s = store_prepare(st,
		"SELECT l.item_id, l.code FROM labels l JOIN submissions s ON "
		"s.item_id = l.item_id AND s.member_id = l.member_id WHERE "
		"l.member_id = ?1 AND l.dimension = ?2 AND "
		IN_SCOPE("l.item_id", 3), e);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, x);
	sqlite3_bind_text(s, 2, d->key, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 3, rid);
	agree_table_init(&t, k);
	while ((rc = store_step(st, s, "reading labels", e)) > 0) {
		int i = dimension_code_index(d, (const char *)
					     sqlite3_column_text(s, 1));
		int j = find_agreed(ac, sqlite3_column_int64(s, 0));

		if (i < 0 || j < 0)
			continue;
		t.n[i * k + j]++;
		p->n++;
		p->matches += i == j;
	}
	sqlite3_finalize(s);
	if (rc >= 0)
		rc = pair_stats(&t, o, p, e);
	agree_table_release(&t);
	return rc < 0 ? -1 : 0;
}

static struct machine_pair *new_pair(struct machine_agreement *ma,
				     size_t *alloc, size_t m,
				     const char *other,
				     const struct dimension *d)
{
	struct machine_pair *p;

	ALLOC_GROW(ma->pairs, ma->nr_pairs + 1, *alloc);
	p = &ma->pairs[ma->nr_pairs++];
	memset(p, 0, sizeof(*p));
	p->machine = m;
	p->other = other;
	p->dim = d;
	return p;
}

int machine_agreement(struct store *st, const struct actor *a,
		      const struct codebook *cb, const char *round,
		      const char *dim, const struct agree_opts *opts,
		      struct machine_agreement *out, struct err *e)
{
	struct round_info ri;
	long long rid = 0, *mids = NULL, *hids = NULL;
	char **mnames = NULL;
	size_t nr_m = 0, i, j, h, d, alloc = 0;
	int ret = -1, bad = 0, blind;

	memset(out, 0, sizeof(*out));
	memset(&ri, 0, sizeof(ri));
	if (round) {
		if (round_get(st, round, &ri, e) < 0)
			return -1;
		rid = ri.id;
	}
	/* the rule of agreement_compute(): an annotator sees a closed
	 * round's only */
	if (!access_sees_all(a) && !(a->role == ROLE_ANNOTATOR && round &&
				     ri.closed_at)) {
		round_info_release(&ri);
		return err_set(e, ERR_PERM, "machine agreement: not before "
			       "the round is closed");
	}
	round_info_release(&ri);
	if (load_members(st, "SELECT DISTINCT m.id, m.name FROM members m "
			 "JOIN submissions s ON s.member_id = m.id WHERE "
			 "m.machine AND " IN_SCOPE("s.item_id", 1)
			 " ORDER BY m.name", rid, &mids, &mnames, &nr_m, e) < 0)
		goto out;
	if (!nr_m) {
		ret = 0;
		goto out;
	}
	if (load_members(st, rid ?
			 "SELECT m.id, m.name FROM round_annotators ra JOIN "
			 "members m ON m.id = ra.member_id WHERE ra.round_id = "
			 "?1 AND NOT m.machine ORDER BY m.name" :
			 "SELECT DISTINCT m.id, m.name FROM submissions s JOIN "
			 "members m ON m.id = s.member_id WHERE NOT m.machine "
			 "AND ?1 = 0 ORDER BY m.name", rid, &hids, &out->humans,
			 &out->nr_humans, e) < 0)
		goto out;
	out->machines = xcalloc(nr_m, sizeof(*out->machines));
	for (i = 0; i < nr_m; i++) {
		out->machines[i].name = mnames[i];
		mnames[i] = NULL;
		out->nr_machines++;
		if (load_info(st, rid, mids[i], &out->machines[i], e) < 0)
			goto out;
	}
	/* as agreement_compute() does: a blind adjudicator learns no names,
	 * the humans' nor the machines' (a declared machine is one of the
	 * annotators there) */
	if ((blind = access_blind(st, e)) < 0)
		goto out;
	if (!access_names_coders(a, blind, 0)) {
		for (h = 0; h < out->nr_humans; h++) {
			long long before = 0;

			/* numbered as in agreement_compute()'s list, which
			 * holds the declared machines too */
			if (declared_before(st, rid, out->humans[h], &before,
					    e) < 0)
				goto out;
			free(out->humans[h]);
			out->humans[h] = xstrdup_printf_n("annotator", h + 1 +
							  (size_t)before);
		}
		for (i = 0; i < nr_m; i++) {
			free(out->machines[i].name);
			out->machines[i].name = xstrdup_printf_n("machine",
								 i + 1);
		}
	}
	for (d = 0; d < cb->nr_dims; d++) {
		const struct dimension *dm = &cb->dims[d];
		struct agreed_codes ac = { NULL, NULL, 0 };

		if (dm->select_many || (dim && strcmp(dim, dm->key)))
			continue;
		if (load_agreed(st, a, cb, round, d, &ac, e) < 0) {
			free(ac.ids);
			free(ac.codes);
			goto out;
		}
		for (i = 0; i < nr_m && !bad; i++) {
			for (h = 0; h < out->nr_humans && !bad; h++)
				bad = compare(st, rid, mids[i], hids[h], dm,
					      opts, new_pair(out, &alloc, i,
						       out->humans[h], dm),
					      e) < 0;
			if (!bad)
				bad = compare_agreed(st, rid, mids[i], dm, &ac,
						     opts, new_pair(out, &alloc, i,
							      NULL, dm),
						     e) < 0;
			for (j = i + 1; j < nr_m && !bad; j++)
				bad = compare(st, rid, mids[i], mids[j], dm,
					      opts, new_pair(out, &alloc, i,
						       out->machines[j].name,
						       dm), e) < 0;
		}
		free(ac.ids);
		free(ac.codes);
		if (bad)
			goto out;
	}
	ret = 0;
out:
	for (i = 0; i < nr_m; i++)
		free(mnames[i]);
	free(mnames);
	free(mids);
	free(hids);
	if (ret < 0)
		machine_agreement_release(out);
	return ret;
}

int machine_answers_each(struct store *st, const struct actor *a,
			 const char *round,
			 int (*fn)(const struct machine_answer_row *r,
				   void *data),
			 void *data, struct err *e)
{
	sqlite3_stmt *s;
	int rc, stop = 0;

	if (a->role == ROLE_NONE)
		return err_set(e, ERR_PERM, "%s is not a member of this study",
			       a->name);
	s = store_prepare(st,
		"SELECT i.repo, i.number, m.name, ma.command, ma.model, "
		"ma.note, ma.codebook_version, ma.input_sha256, "
		"ma.answer_sha256, ma.answer, ma.answered_at, ma.duration_ms, "
		"ma.item_id, ma.member_id FROM machine_answers ma JOIN items i "
		"ON i.id = ma.item_id JOIN members m ON m.id = ma.member_id "
		"WHERE ?1 IS NULL OR ma.item_id IN (SELECT a.item_id FROM "
		"assignments a JOIN rounds r ON r.id = a.round_id WHERE r.name "
		"= ?1) ORDER BY ma.item_id, m.name, ma.id", e);
	if (!s)
		return -1;
	store_bind_text(s, 1, round);
	while (!stop && (rc = store_step(st, s, "reading machine answers",
					 e)) > 0) {
		struct machine_answer_row r;
		char *name;
		int may = access_may_see(st, a, sqlite3_column_int64(s, 12),
					 sqlite3_column_int64(s, 13), e);

		if (may < 0) {
			rc = -1;
			break;
		}
		if (!may)
			continue;
		name = item_name((const char *)sqlite3_column_text(s, 0),
				 sqlite3_column_int64(s, 1));
		r.item = name;
		r.machine = (const char *)sqlite3_column_text(s, 2);
		r.command = (const char *)sqlite3_column_text(s, 3);
		r.model = (const char *)sqlite3_column_text(s, 4);
		r.note = (const char *)sqlite3_column_text(s, 5);
		r.codebook_version = (const char *)sqlite3_column_text(s, 6);
		r.input_sha256 = (const char *)sqlite3_column_text(s, 7);
		r.answer_sha256 = (const char *)sqlite3_column_text(s, 8);
		r.answer = (const char *)sqlite3_column_text(s, 9);
		r.answered_at = (const char *)sqlite3_column_text(s, 10);
		r.duration_ms = sqlite3_column_int64(s, 11);
		stop = fn(&r, data);
		free(name);
	}
	sqlite3_finalize(s);
	if (stop)
		return stop;
	return rc < 0 ? -1 : 0;
}
