/* SPDX-License-Identifier: MIT */
/*
 * label_batch: see label_batch.h.
 *
 * Step 1 (check()) walks the operations in order and turns each into a
 * planned change (struct plan) against an in-memory copy of what each
 * (item, member) pair has: its codes per codebook dimension, the
 * proposal on its `other` label, whether it is submitted.  Step 2
 * (write()) makes the planned changes with cached statements, and the
 * audit rows through audit_write(), which keeps the chain's head for the
 * transaction.  Pairs and item names are found through two small open
 * hash tables, so 100,000 lines cost 100,000 lookups, not a scan each.
 */
#include "core/study/label_batch.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/store/audit.h"
#include "core/base/buf.h"
#include "core/study/item.h"
#include "core/study/access.h"
#include "core/study/label.h"
#include "core/study/screening.h"
#include "core/study/study.h"

/* What one member has on one item, as the batch goes. */
struct pair {
	long long item_id;
	const struct actor *as;
	int checked;		/* access checked and state read */
	int submitted;
	char **codes;		/* per codebook dimension: ';'-joined, or
				   NULL for none (owned) */
	long long *proposal;	/* per dimension: on its `other` label */
	unsigned char *stale;	/* per dimension: a label made under
				   another codebook version */
};

/* One operation's change, worked out in step 1. */
struct plan {
	size_t pair;		/* into pairs[] */
	int dim;		/* codebook index (SET, CITE) */
	int write;		/* SET: labels change (delete and insert);
				   SUBMIT: a submission is added */
	int had;		/* SET: the dimension had codes before */
	const char **sorted;	/* SET: the codes in key order (owned
				   array) */
	size_t n;
	long long proposal;	/* SET: for the `other` label */
	char *old, *new_;	/* SET: for the audit (owned), when they
				   differ */
	char *detail;		/* SET: the audit row's detail (the
				   proposal kept), or NULL (owned) */
	int audit;		/* SET: an audit row (SUBMIT: `write`) */
	char at[32];		/* when: the labels', the submission's and
				   the audit row's time */
	int pre;		/* `row` is made, chained on the head */
	struct audit_row row;	/* its audit row, made in step 1 */
};

struct batch {
	struct store *st;
	const struct actor *a;
	const struct codebook *cb;
	const struct label_op *ops;
	size_t nr;
	struct pair *pairs;
	size_t nr_pairs, alloc_pairs;
	size_t *pair_slots;	/* hash of (item, member): index + 1 */
	size_t pair_cap;
	struct name_slot {
		const char *name;
		long long id;
	} *names;		/* hash of item names found */
	size_t name_cap, nr_names;
	struct plan *plans;	/* one per operation */
	struct codebook fresh;	/* the study's, when `cb` is out of date */
	int direct;		/* the design asks more than labels of items
				   being coded (a screening, a recode): the
				   operations are made one by one by core/study/label
				   in the write transaction */
	long long head_id;	/* the audit log's head when step 1 read */
	char head_hash[SHA256_HEX_LEN + 1];
};

static uint64_t mix(uint64_t h)
{
	h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ULL;
	h = (h ^ (h >> 27)) * 0x94d049bb133111ebULL;
	return h ^ (h >> 31);
}

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return mix(h);
}

/* ---- item names -------------------------------------------------------- */

static void names_grow(struct batch *b)
{
	struct name_slot *old = b->names;
	size_t cap = b->name_cap, i;

	b->name_cap = cap ? cap * 2 : 256;
	b->names = xcalloc(b->name_cap, sizeof(*b->names));
	for (i = 0; i < cap; i++) {
		size_t k;

		if (!old[i].name)
			continue;
		k = hash_str(old[i].name) & (b->name_cap - 1);
		while (b->names[k].name)
			k = (k + 1) & (b->name_cap - 1);
		b->names[k] = old[i];
	}
	free(old);
}

/* The id of the item `name`, found once per name. */
static long long find_item(struct batch *b, const char *name, struct err *e)
{
	size_t k;
	long long id;

	if ((b->nr_names + 1) * 2 > b->name_cap)
		names_grow(b);
	k = hash_str(name) & (b->name_cap - 1);
	for (; b->names[k].name; k = (k + 1) & (b->name_cap - 1))
		if (!strcmp(b->names[k].name, name))
			return b->names[k].id;
	id = item_find(b->st, name, e);
	if (id < 0)
		return -1;
	b->names[k].name = name;
	b->names[k].id = id;
	b->nr_names++;
	return id;
}

/* ---- pairs ------------------------------------------------------------- */

static uint64_t hash_pair(long long item, long long member)
{
	return mix((uint64_t)item * 0x9e3779b97f4a7c15ULL ^ (uint64_t)member);
}

static void pairs_grow(struct batch *b)
{
	size_t cap = b->pair_cap ? b->pair_cap * 2 : 256, i;

	free(b->pair_slots);
	b->pair_cap = cap;
	b->pair_slots = xcalloc(cap, sizeof(*b->pair_slots));
	for (i = 0; i < b->nr_pairs; i++) {
		size_t k = hash_pair(b->pairs[i].item_id,
				     b->pairs[i].as->member_id) & (cap - 1);

		while (b->pair_slots[k])
			k = (k + 1) & (cap - 1);
		b->pair_slots[k] = i + 1;
	}
}

/* The pair of `item_id` and `as`, made on first use (not yet checked). */
static size_t get_pair(struct batch *b, long long item_id,
		       const struct actor *as)
{
	struct pair *p;
	size_t k;

	if ((b->nr_pairs + 1) * 2 > b->pair_cap)
		pairs_grow(b);
	k = hash_pair(item_id, as->member_id) & (b->pair_cap - 1);
	for (; b->pair_slots[k]; k = (k + 1) & (b->pair_cap - 1)) {
		p = &b->pairs[b->pair_slots[k] - 1];
		if (p->item_id == item_id && p->as->member_id == as->member_id)
			return b->pair_slots[k] - 1;
	}
	ALLOC_GROW(b->pairs, b->nr_pairs + 1, b->alloc_pairs);
	p = &b->pairs[b->nr_pairs];
	memset(p, 0, sizeof(*p));
	p->item_id = item_id;
	p->as = as;
	p->codes = xcalloc(b->cb->nr_dims + 1, sizeof(*p->codes));
	p->proposal = xcalloc(b->cb->nr_dims + 1, sizeof(*p->proposal));
	p->stale = xcalloc(b->cb->nr_dims + 1, sizeof(*p->stale));
	b->pair_slots[k] = b->nr_pairs + 1;
	return b->nr_pairs++;
}

static int dim_index(const struct codebook *cb, const char *key)
{
	size_t i;

	for (i = 0; i < cb->nr_dims; i++)
		if (!strcmp(cb->dims[i].key, key))
			return (int)i;
	return -1;
}

static const char labels_sql[] = "SELECT dimension, code, proposal_id, "
	"codebook_version IS ?3 FROM labels WHERE item_id = ?1 AND "
	"member_id = ?2 ORDER BY dimension, code";
static const char submitted_sql[] = "SELECT 1 FROM submissions WHERE "
	"item_id = ? AND member_id = ?";

/* Check the pair's access (label_check_access()) and read what it has,
 * once. */
static int load_pair(struct batch *b, struct pair *p, struct err *e)
{
	struct buf *cur;
	sqlite3_stmt *s;
	size_t d;
	int rc, ret = -1;

	if (p->checked)
		return 0;
	{
		struct label_verdict v;
		int may = access_label_item(b->st, p->as, p->item_id, &v, e);

		if (may < 0)
			return -1;
		if (may == LABEL_NO) {
			err_set(e, ERR_PERM, "%s", v.why);
			free(v.why);
			return -1;
		}
		/* screened or recoded: core/study/label's own rules, one by one */
		if (may != LABEL_CODE || v.recode) {
			b->direct = 1;
			return 0;
		}
	}
	cur = xcalloc(b->cb->nr_dims + 1, sizeof(*cur));
	for (d = 0; d < b->cb->nr_dims; d++)
		buf_init(&cur[d], 0);
	s = store_cached(b->st, labels_sql, e);
	if (!s)
		goto out;
	sqlite3_bind_int64(s, 1, p->item_id);
	sqlite3_bind_int64(s, 2, p->as->member_id);
	sqlite3_bind_text(s, 3, b->cb->version, -1, SQLITE_STATIC);
	while ((rc = store_step(b->st, s, "reading labels", e)) > 0) {
		int i = dim_index(b->cb, (const char *)
				  sqlite3_column_text(s, 0));
		const char *code = (const char *)sqlite3_column_text(s, 1);

		if (i < 0)
			continue;
		if (cur[i].len)
			buf_addch(&cur[i], ';');
		buf_addstr(&cur[i], code);
		if (!sqlite3_column_int(s, 3))
			p->stale[i] = 1;
		if (!strcmp(code, "other") &&
		    sqlite3_column_type(s, 2) != SQLITE_NULL)
			p->proposal[i] = sqlite3_column_int64(s, 2);
	}
	store_done(s);
	if (rc < 0)
		goto out;
	s = store_cached(b->st, submitted_sql, e);
	if (!s)
		goto out;
	sqlite3_bind_int64(s, 1, p->item_id);
	sqlite3_bind_int64(s, 2, p->as->member_id);
	rc = store_step(b->st, s, "reading submissions", e);
	store_done(s);
	if (rc < 0)
		goto out;
	p->submitted = rc > 0;
	for (d = 0; d < b->cb->nr_dims; d++)
		if (cur[d].len)
			p->codes[d] = buf_detach(&cur[d], NULL);
	p->checked = 1;
	ret = 0;
out:
	for (d = 0; d < b->cb->nr_dims; d++)
		buf_release(&cur[d]);
	free(cur);
	return ret;
}

/* ---- step 1: read and check -------------------------------------------- */

static void plans_clear(struct batch *b)
{
	size_t i, d;

	for (i = 0; b->plans && i < b->nr; i++) {
		free(b->plans[i].sorted);
		free(b->plans[i].old);
		free(b->plans[i].new_);
		free(b->plans[i].detail);
	}
	free(b->plans);
	b->plans = NULL;
	for (i = 0; i < b->nr_pairs; i++) {
		for (d = 0; d < b->cb->nr_dims; d++)
			free(b->pairs[i].codes[d]);
		free(b->pairs[i].codes);
		free(b->pairs[i].proposal);
		free(b->pairs[i].stale);
	}
	free(b->pairs);
	b->pairs = NULL;
	b->nr_pairs = b->alloc_pairs = 0;
	free(b->pair_slots);
	b->pair_slots = NULL;
	b->pair_cap = 0;
	free(b->names);
	b->names = NULL;
	b->name_cap = b->nr_names = 0;
}

static char *join(const char *const *v, size_t n)
{
	struct buf b = BUF_INIT;
	size_t i;

	for (i = 0; i < n; i++) {
		if (i)
			buf_addch(&b, ';');
		buf_addstr(&b, v[i]);
	}
	return buf_detach(&b, NULL);
}

/* The name of the pair's item ("owner/repo#N"), owned. */
static char *pair_name(struct batch *b, const struct pair *p)
{
	static const char sql[] = "SELECT repo, number FROM items WHERE id = ?";
	sqlite3_stmt *s = store_cached(b->st, sql, NULL);
	char *name = NULL;

	if (s) {
		sqlite3_bind_int64(s, 1, p->item_id);
		if (store_step(b->st, s, "reading the item", NULL) > 0)
			name = item_name((const char *)
					 sqlite3_column_text(s, 0),
					 sqlite3_column_int64(s, 1));
		store_done(s);
	}
	return name ? name : xstrdup("the item");
}

/* label_set() of one operation, in memory: as there, a change of the
 * codes, of the codebook version they were made under or of the proposal
 * on `other` is written and audited; anything else changes nothing. */
static int plan_set(struct batch *b, const struct label_op *op,
		    struct plan *pl, struct err *e)
{
	struct pair *p;
	size_t i;
	char *new_;
	long long old_pid;
	int has_other = 0, same;

	if (screening_is_dim(op->dim)) {
		b->direct = 1;
		return 0;
	}
	if (label_check_codes(b->cb, op->dim, op->codes, op->nr_codes,
			      &pl->sorted, e) < 0)
		return -1;
	pl->n = op->nr_codes;
	pl->dim = dim_index(b->cb, op->dim);
	p = &b->pairs[pl->pair];
	if (load_pair(b, p, e) < 0 || b->direct)
		return b->direct ? 0 : -1;
	/* a submitted item keeps every required dimension coded */
	if (!pl->n && p->submitted && b->cb->dims[pl->dim].required) {
		char *name = pair_name(b, p);

		err_set(e, ERR_INPUT, "%s submitted %s, and %s is required: "
			"choose another code instead of clearing it (a "
			"submitted item keeps every required dimension coded)",
			p->as->name, name, op->dim);
		free(name);
		return -1;
	}
	/* a proposal rides on the `other` label: setting the dimension
	 * again, `other` still among the codes, keeps it attached */
	old_pid = p->proposal[pl->dim];
	for (i = 0; i < pl->n; i++)
		if (!strcmp(pl->sorted[i], "other"))
			has_other = 1;
	pl->proposal = has_other ? old_pid : 0;
	pl->had = p->codes[pl->dim] != NULL;
	new_ = pl->n ? join(pl->sorted, pl->n) : NULL;
	same = p->codes[pl->dim] ? new_ && !strcmp(p->codes[pl->dim], new_) :
	       !new_;
	if (same && !p->stale[pl->dim] && pl->proposal == old_pid) {
		free(new_);
		return 0;
	}
	pl->write = 1;
	pl->audit = 1;
	pl->old = p->codes[pl->dim] ? xstrdup(p->codes[pl->dim]) : NULL;
	pl->new_ = new_ ? xstrdup(new_) : NULL;
	if (pl->proposal) {
		struct buf d = BUF_INIT;

		/* the replay takes the proposal from here */
		audit_detail_int(&d, "proposal", pl->proposal);
		audit_detail_end(&d);
		pl->detail = buf_detach(&d, NULL);
	}
	free(p->codes[pl->dim]);
	p->codes[pl->dim] = new_;
	p->proposal[pl->dim] = pl->proposal;
	p->stale[pl->dim] = 0;
	return 0;
}

/* label_submit() of one operation, in memory. */
static int plan_submit(struct batch *b, struct plan *pl, struct err *e)
{
	struct pair *p = &b->pairs[pl->pair];
	struct buf missing = BUF_INIT;
	size_t d;

	if (load_pair(b, p, e) < 0 || b->direct)
		return b->direct ? 0 : -1;
	for (d = 0; d < b->cb->nr_dims; d++)
		if (b->cb->dims[d].required && !p->codes[d])
			buf_addf(&missing, "%s%s", missing.len ? ", " : "",
				 b->cb->dims[d].key);
	if (missing.len) {
		err_set(e, ERR_INPUT, "not submitted: required dimension%s "
			"not coded: %s", strchr(missing.ptr, ',') ? "s" : "",
			missing.ptr);
		buf_release(&missing);
		return -1;
	}
	buf_release(&missing);
	pl->write = !p->submitted;
	p->submitted = 1;
	return 0;
}

/* The audit row of plan `pl` (an operation of `as`), chained on *id and
 * hash[] (which move on to it). */
static void make_row(struct plan *pl, const struct actor *as,
		     const char *action, long long item_id, const char *dim,
		     long long *id, char hash[SHA256_HEX_LEN + 1])
{
	struct audit_row *r = &pl->row;

	memset(r, 0, sizeof(*r));
	r->id = ++*id;
	r->at = pl->at;
	r->actor = as->os_user;
	r->for_member = actor_for(as);
	r->action = action;
	r->item_id = item_id;
	r->dimension = dim;
	r->old = pl->old;
	r->new_value = dim ? pl->new_ : pl->at;
	r->detail = pl->detail;
	audit_row_hash(hash, r, r->hash);
	memcpy(hash, r->hash, SHA256_HEX_LEN + 1);
	pl->pre = 1;
}

/* Step 1: every operation in order, checked and planned, with its audit
 * row made (until a citation, whose row evidence_add() makes). */
static int check(struct batch *b, struct err *e)
{
	char hash[SHA256_HEX_LEN + 1];
	long long id;
	int chain = 1;
	size_t i;

	plans_clear(b);
	b->plans = xcalloc(b->nr + 1, sizeof(*b->plans));
	/* `cb` must be the study's codebook, as each label_set() asks */
	if (b->nr && study_codebook_current(b->st, b->cb, e) < 0) {
		if (!e || e->code != ERR_STALE)
			return -1;
		/* a new version came in since the caller read it: check
		 * against that one, as calls made one by one inside the
		 * transaction would have read it */
		codebook_release(&b->fresh);
		if (study_codebook(b->st, &b->fresh, NULL, e) < 0)
			return -1;
		b->cb = &b->fresh;
	}
	b->direct = screening_is_codebook(b->cb);
	if (b->direct)
		return 0;
	if (audit_last(b->st, &b->head_id, b->head_hash, e) < 0)
		return -1;
	id = b->head_id;
	memcpy(hash, b->head_hash, sizeof(hash));
	for (i = 0; i < b->nr; i++) {
		const struct label_op *op = &b->ops[i];
		struct plan *pl = &b->plans[i];
		const struct actor *as = op->as ? op->as : b->a;
		long long item = op->item ? find_item(b, op->item, e) :
				 op->item_id;
		int rc = 0;

		if (item < 0)
			goto fail;
		pl->pair = get_pair(b, item, as);
		store_now(pl->at);
		if (op->kind == LABEL_OP_SET) {
			rc = plan_set(b, op, pl, e);
			if (!rc && chain && pl->audit)
				make_row(pl, as, "label", item,
					 b->cb->dims[pl->dim].key, &id, hash);
		} else if (op->kind == LABEL_OP_SUBMIT) {
			rc = plan_submit(b, pl, e);
			if (!rc && chain && pl->write)
				make_row(pl, as, "submit", item, NULL, &id,
					 hash);
		} else {
			chain = 0;
		}
		if (rc < 0)
			goto fail;
		if (b->direct)
			return 0;
		continue;
fail:
		if (op->where)
			err_prefix(e, "%s", op->where);
		return -1;
	}
	return 0;
}

/* Under the write lock: is the audit log's head still the one step 1
 * chained its rows on?  If not, they are made again as they are
 * written. */
static int check_chain(struct batch *b, struct err *e)
{
	char hash[SHA256_HEX_LEN + 1], now[32];
	long long id;
	size_t i;
	int moved = 0;

	/* every row of the transaction, and its audit row, carries the
	 * time the write lock was taken (store_now()), as the replay of
	 * the log expects: rows made earlier at another second are made
	 * again */
	store_now(now);
	for (i = 0; i < b->nr; i++)
		if (strcmp(b->plans[i].at, now)) {
			memcpy(b->plans[i].at, now, sizeof(now));
			moved = 1;
		}
	if (audit_last(b->st, &id, hash, e) < 0)
		return -1;
	if (!moved && id == b->head_id && !strcmp(hash, b->head_hash))
		return 0;
	for (i = 0; i < b->nr; i++)
		b->plans[i].pre = 0;
	return 0;
}

/* ---- step 2: write ----------------------------------------------------- */

static const char delete_sql[] = "DELETE FROM labels WHERE item_id = ? AND "
	"member_id = ? AND dimension = ?";
static const char insert_sql[] = "INSERT INTO labels (item_id, member_id, "
	"dimension, code, codebook_version, proposal_id, labeled_at) VALUES "
	"(?, ?, ?, ?, ?, ?, ?)";
static const char submit_sql[] = "INSERT INTO submissions (item_id, "
	"member_id, submitted_at) VALUES (?, ?, ?)";

static int run(struct store *st, sqlite3_stmt *s, const char *what,
	       struct err *e)
{
	int rc = store_step(st, s, what, e);

	store_done(s);
	return rc < 0 ? -1 : 0;
}

static int write_set(struct batch *b, const struct plan *pl,
		     struct err *e)
{
	const struct pair *p = &b->pairs[pl->pair];
	const char *dim = b->cb->dims[pl->dim].key;
	sqlite3_stmt *s;
	size_t i;

	if (!pl->write)
		return 0;
	/* nothing to delete where the member had no codes */
	if (pl->had) {
		s = store_cached(b->st, delete_sql, e);
		if (!s)
			return -1;
		sqlite3_bind_int64(s, 1, p->item_id);
		sqlite3_bind_int64(s, 2, p->as->member_id);
		sqlite3_bind_text(s, 3, dim, -1, SQLITE_STATIC);
		if (run(b->st, s, "saving a label", e) < 0)
			return -1;
	}
	for (i = 0; i < pl->n; i++) {
		s = store_cached(b->st, insert_sql, e);
		if (!s)
			return -1;
		sqlite3_bind_int64(s, 1, p->item_id);
		sqlite3_bind_int64(s, 2, p->as->member_id);
		sqlite3_bind_text(s, 3, dim, -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 4, pl->sorted[i], -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 5, b->cb->version, -1, SQLITE_STATIC);
		if (pl->proposal && !strcmp(pl->sorted[i], "other"))
			sqlite3_bind_int64(s, 6, pl->proposal);
		else
			sqlite3_bind_null(s, 6);
		sqlite3_bind_text(s, 7, pl->at, -1, SQLITE_STATIC);
		if (run(b->st, s, "saving a label", e) < 0)
			return -1;
	}
	if (!pl->audit)
		return 0;
	if (pl->pre)
		return audit_write_row(b->st, &pl->row, e);
	return audit_write_detail(b->st, p->as->os_user, actor_for(p->as),
				  "label", p->item_id, dim, pl->old, pl->new_,
				  pl->detail, e);
}

static int write_submit(struct batch *b, const struct plan *pl,
			struct err *e)
{
	const struct pair *p = &b->pairs[pl->pair];
	sqlite3_stmt *s;

	if (!pl->write)
		return 0;
	s = store_cached(b->st, submit_sql, e);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, p->item_id);
	sqlite3_bind_int64(s, 2, p->as->member_id);
	sqlite3_bind_text(s, 3, pl->at, -1, SQLITE_STATIC);
	if (run(b->st, s, "submitting", e) < 0)
		return -1;
	if (pl->pre)
		return audit_write_row(b->st, &pl->row, e);
	return audit_write(b->st, p->as->os_user, actor_for(p->as), "submit",
			   p->item_id, NULL, NULL, pl->at, e);
}

static int write_all(struct batch *b, struct err *e)
{
	size_t i;

	for (i = 0; i < b->nr; i++) {
		const struct label_op *op = &b->ops[i];
		const struct plan *pl = &b->plans[i];
		const struct pair *p = &b->pairs[pl->pair];
		int rc = 0;

		if (op->kind == LABEL_OP_SET)
			rc = write_set(b, pl, e);
		else if (op->kind == LABEL_OP_SUBMIT)
			rc = write_submit(b, pl, e);
		else
			rc = evidence_add(b->st, p->as, b->cb, p->item_id,
					  op->dim, op->cite, NULL, e);
		if (rc < 0) {
			if (op->where)
				err_prefix(e, "%s", op->where);
			return -1;
		}
	}
	return 0;
}

/* The operations one by one through core/study/label and core/study/evidence, in
 * the caller's write transaction (b->direct). */
static int write_direct(struct batch *b, struct err *e)
{
	size_t i;

	for (i = 0; i < b->nr; i++) {
		const struct label_op *op = &b->ops[i];
		const struct actor *as = op->as ? op->as : b->a;
		long long item = op->item ? item_find(b->st, op->item, e) :
				 op->item_id;
		int rc;

		if (item < 0)
			rc = -1;
		else if (op->kind == LABEL_OP_SET)
			rc = label_set(b->st, as, b->cb, item, op->dim,
				       op->codes, op->nr_codes, 0, e);
		else if (op->kind == LABEL_OP_SUBMIT)
			rc = label_submit(b->st, as, b->cb, item, e);
		else
			rc = evidence_add(b->st, as, b->cb, item, op->dim,
					  op->cite, NULL, e);
		if (rc < 0) {
			if (op->where)
				err_prefix(e, "%s", op->where);
			return -1;
		}
	}
	return 0;
}

/* PRAGMA data_version: changes when another connection commits. */
static int data_version(struct store *st, long long *v, struct err *e)
{
	static const char sql[] = "PRAGMA data_version";
	sqlite3_stmt *s = store_cached(st, sql, e);
	int rc;

	if (!s)
		return -1;
	rc = store_step(st, s, "reading the study's version", e);
	if (rc > 0)
		*v = sqlite3_column_int64(s, 0);
	store_done(s);
	if (rc == 0)
		return err_set(e, ERR_DB, "reading the study's version: no "
			       "answer");
	return rc < 0 ? -1 : 0;
}

int label_batch(struct store *st, const struct actor *a,
		const struct codebook *cb, const struct label_op *ops,
		size_t nr, struct err *e)
{
	struct batch b;
	long long before = 0, now = 0;
	int outer = st->depth == 0, ret = -1, rc;

	memset(&b, 0, sizeof(b));
	b.st = st;
	b.a = a;
	b.cb = cb;
	b.ops = ops;
	b.nr = nr;
	/* step 1 in a read transaction of its own: one snapshot, no lock;
	 * a damage it meets says nothing was written */
	st->will_write = 1;
	if (outer && (store_exec(st, "BEGIN", e) < 0 ||
		      data_version(st, &before, e) < 0)) {
		st->will_write = 0;
		goto out;
	}
	rc = check(&b, e);
	st->will_write = 0;
	if (rc < 0)
		goto out;
	if (outer && store_exec(st, "COMMIT", e) < 0)
		goto out;
	if (store_begin(st, e) < 0)
		goto out;
	/* someone wrote since step 1 read the study: read it again, now
	 * that nobody else can */
	if (outer && (data_version(st, &now, e) < 0 ||
		      (now != before && check(&b, e) < 0)))
		goto fail;
	if (b.direct ? write_direct(&b, e) < 0 :
	    check_chain(&b, e) < 0 || write_all(&b, e) < 0)
		goto fail;
	ret = store_commit(st, e);
	if (ret < 0)
		goto fail;
	goto out;
fail:
	store_rollback(st);
out:
	/* never a read transaction left open (a BEGIN or COMMIT that
	 * failed late) */
	if (outer && !st->depth && !sqlite3_get_autocommit(st->db))
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	plans_clear(&b);
	codebook_release(&b.fresh);
	return ret;
}
