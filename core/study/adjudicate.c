/* SPDX-License-Identifier: MIT */
/*
 * adjudicate: see adjudicate.h.
 */
#include "core/study/adjudicate.h"

#include "core/study/access.h"
#include "core/study/screening.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/store/audit.h"
#include "core/base/buf.h"
#include "core/base/limits.h"
#include "core/base/suggest.h"
#include "core/base/text.h"

static const char *const causes[] = {
	"guideline_gap", "slip", "ambiguous", "code_missing", NULL
};

int adjudicate_valid_cause(const char *cause)
{
	size_t i;

	for (i = 0; causes[i]; i++)
		if (!strcmp(cause, causes[i]))
			return 1;
	return 0;
}

int adjudicate_blind(struct store *st)
{
	/* unreadable: blind, the safe side */
	return access_blind(st, NULL) != 0;
}

void item_state_release(struct item_state *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nr_coders; i++) {
		free(s->coders[i].name);
		coding_release(&s->coders[i].coding);
	}
	free(s->coders);
	for (i = 0; i < s->nr_dims; i++) {
		free(s->dims[i].final);
		free(s->dims[i].rationale);
		free(s->dims[i].cause);
		free(s->dims[i].adjudicator);
	}
	free(s->dims);
	memset(s, 0, sizeof(*s));
}

static char *join_codes(const struct coded_dim *d)
{
	struct buf b = BUF_INIT;
	size_t i;

	for (i = 0; d && i < d->nr_codes; i++) {
		if (i)
			buf_addch(&b, ';');
		buf_addstr(&b, d->codes[i]);
	}
	return buf_detach(&b, NULL);
}

/* A stable per-item coin from the study's salt (FNV-1a over both). */
static int coin(const char *salt, long long item_id)
{
	unsigned long long h = 1469598103934665603ULL;
	char tmp[32];
	const char *p;

	snprintf(tmp, sizeof(tmp), ":%lld", item_id);
	for (p = salt; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	for (p = tmp; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	/* FNV's high bits barely depend on the last bytes: finish with a
	 * full avalanche (the SplitMix64 finaliser) before taking a bit */
	h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ULL;
	h = (h ^ (h >> 27)) * 0x94d049bb133111ebULL;
	h ^= h >> 31;
	return (int)(h >> 63);
}

/* The study's salt for the blind coder order, owned; NULL with `e`
 * filled when it cannot be read.  A salt that cannot be read is never
 * made anew: that would reorder every item's coders. */
static char *study_salt(struct store *st, struct err *e)
{
	char *salt;
	FILE *f;
	unsigned char raw[16];
	struct buf b = BUF_INIT;
	size_t i;

	if (store_meta_read(st, "coder_salt", &salt, e) < 0)
		return NULL;
	if (salt)
		return salt;
	/* made on first use; a study made by an older build lacks it */
	f = fopen("/dev/urandom", "rb");
	if (!f || fread(raw, 1, sizeof(raw), f) != sizeof(raw))
		memset(raw, 0x5a, sizeof(raw));
	if (f)
		fclose(f);
	for (i = 0; i < sizeof(raw); i++)
		buf_addf(&b, "%02x", raw[i]);
	if (store_meta_set(st, "coder_salt", b.ptr, e) < 0) {
		buf_release(&b);
		return NULL;
	}
	return buf_detach(&b, NULL);
}

/* The coders of item ?1 (member id, name), in member order: its
 * submitters, kept to its round's annotators when it is in a round. */
#define CODERS_SQL \
	"SELECT s.member_id, m.name FROM submissions s JOIN members m ON " \
	"m.id = s.member_id WHERE s.item_id = ?1 AND (NOT EXISTS (SELECT 1 " \
	"FROM assignments WHERE item_id = ?1) OR s.member_id IN (SELECT " \
	"ra.member_id FROM assignments a JOIN round_annotators ra ON " \
	"ra.round_id = a.round_id WHERE a.item_id = ?1)) ORDER BY s.member_id"

char *adjudicate_salt(struct store *st, struct err *e)
{
	return study_salt(st, e);
}

int adjudicate_swap(const char *salt, long long item_id)
{
	return coin(salt, item_id);
}

int adjudicate_coder_label(struct store *st, const char *salt,
			   long long item_id, long long member_id,
			   struct buf *out, struct err *e)
{
	sqlite3_stmt *q;
	long long k = -1, n = 0;
	int rc;

	/* the coders as load_coders() reads them, in member order */
	q = store_prepare(st, CODERS_SQL, e);
	if (!q)
		return -1;
	sqlite3_bind_int64(q, 1, item_id);
	while ((rc = store_step(st, q, "reading submissions", e)) > 0) {
		if (sqlite3_column_int64(q, 0) == member_id)
			k = n;
		n++;
	}
	sqlite3_finalize(q);
	if (rc < 0)
		return -1;
	buf_reset(out);
	if (k < 0) {
		/* not (yet) among the coders: no number to give away */
		buf_addstr(out, "a coder");
		return 0;
	}
	if (n >= 2 && k < 2 && coin(salt, item_id))
		k = !k;
	buf_addf(out, "Coder %lld", k + 1);
	return 0;
}

static int load_coders(struct store *st, const struct actor *a,
		       struct item_state *s, struct err *e)
{
	sqlite3_stmt *q;
	size_t alloc = 0;
	int rc;

	/* expected coders: the round's annotators */
	q = store_prepare(st, "SELECT count(*) FROM assignments a JOIN "
			  "round_annotators ra ON ra.round_id = a.round_id "
			  "WHERE a.item_id = ?", e);
	if (!q)
		return -1;
	sqlite3_bind_int64(q, 1, s->item_id);
	rc = store_step(st, q, "reading the round's annotators", e);
	if (rc > 0)
		s->nr_expected = (size_t)sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	if (rc < 0)
		return -1;

	q = store_prepare(st, CODERS_SQL, e);
	if (!q)
		return -1;
	sqlite3_bind_int64(q, 1, s->item_id);
	while ((rc = store_step(st, q, "loading submissions", e)) == 1) {
		struct coder *c;

		ALLOC_GROW(s->coders, s->nr_coders + 1, alloc);
		c = &s->coders[s->nr_coders];
		memset(c, 0, sizeof(*c));
		c->member_id = sqlite3_column_int64(q, 0);
		c->name = xstrdup((const char *)sqlite3_column_text(q, 1));
		s->nr_coders++;
		if (coding_load(st, a, s->item_id, c->member_id, &c->coding,
				e) < 0) {
			sqlite3_finalize(q);
			return -1;
		}
	}
	sqlite3_finalize(q);
	if (rc < 0)
		return -1;
	return 0;
}

static int load_resolution(struct store *st, struct item_state *s,
			   struct dim_state *d, struct err *e)
{
	sqlite3_stmt *q;
	int rc;

	q = store_prepare(st, "SELECT r.code, r.rationale, r.cause, m.name "
			  "FROM resolutions r JOIN members m ON m.id = "
			  "r.adjudicator_id WHERE r.item_id = ? AND "
			  "r.dimension = ?", e);
	if (!q)
		return -1;
	sqlite3_bind_int64(q, 1, s->item_id);
	sqlite3_bind_text(q, 2, d->dim->key, -1, SQLITE_STATIC);
	rc = store_step(st, q, "loading resolutions", e);
	if (rc == 1) {
		const char *cause = (const char *)sqlite3_column_text(q, 2);

		d->was_disagreement = d->status == DIM_DISAGREE;
		d->status = consensus_decide(s->ready, 0, 1);
		free(d->final);
		d->final = xstrdup((const char *)sqlite3_column_text(q, 0));
		d->rationale = xstrdup((const char *)
				       sqlite3_column_text(q, 1));
		d->cause = cause ? xstrdup(cause) : NULL;
		d->adjudicator = xstrdup((const char *)
					 sqlite3_column_text(q, 3));
	}
	sqlite3_finalize(q);
	if (rc < 0)
		return -1;
	return 0;
}

/* Does dimension `dim` of the item wait for a coder's recode (a split)?
 * 1, 0, or -1. */
static int recoding(struct store *st, long long item_id, const char *dim,
		    struct err *e)
{
	sqlite3_stmt *q = store_prepare(st, "SELECT EXISTS (SELECT 1 FROM "
					"recodes WHERE item_id = ? AND "
					"dimension = ? AND done_at IS NULL)",
					e);
	int rc;

	if (!q)
		return -1;
	sqlite3_bind_int64(q, 1, item_id);
	sqlite3_bind_text(q, 2, dim, -1, SQLITE_STATIC);
	rc = store_step(st, q, "reading the recodes", e);
	if (rc > 0)
		rc = sqlite3_column_int(q, 0);
	sqlite3_finalize(q);
	return rc;
}

int adjudicate_state(struct store *st, const struct actor *a,
		     const struct codebook *cb, long long item_id,
		     struct item_state *s, struct err *e)
{
	sqlite3_stmt *q;
	size_t i, j;
	int rc, shuffle = 0;

	memset(s, 0, sizeof(*s));
	s->item_id = item_id;
	if (actor_require(a, ROLES(ROLE_OWNER) | ROLES(ROLE_ADJUDICATOR),
			  "adjudication", e) < 0)
		return -1;
	if (load_coders(st, a, s, e) < 0)
		goto fail;
	s->ready = consensus_ready(s->nr_coders, s->nr_expected);
	for (i = 0; i < s->nr_coders; i++) {
		s->discuss |= s->coders[i].coding.discuss;
		s->uncertain |= s->coders[i].coding.uncertain;
	}
	s->order[0] = 0;
	s->order[1] = s->nr_coders > 1 ? 1 : 0;
	if (s->nr_coders >= 2) {
		int blind = access_blind(st, e);

		if (blind < 0)
			goto fail;
		if (blind)
			shuffle = 1;
	}
	if (shuffle) {
		char *salt = study_salt(st, e);

		if (!salt)
			goto fail;
		if (coin(salt, item_id)) {
			s->order[0] = 1;
			s->order[1] = 0;
		}
		free(salt);
	}

	s->dims = xcalloc(cb->nr_dims + 1, sizeof(*s->dims));
	s->nr_dims = cb->nr_dims;
	for (i = 0; i < cb->nr_dims; i++) {
		struct dim_state *d = &s->dims[i];
		char *first = NULL;
		int same = 1;

		d->dim = &cb->dims[i];
		for (j = 0; j < s->nr_coders; j++) {
			char *codes = join_codes(coding_dim(
				&s->coders[j].coding, d->dim->key));

			if (!first) {
				first = codes;
				continue;
			}
			if (strcmp(first, codes))
				same = 0;
			free(codes);
		}
		if ((rc = recoding(st, item_id, d->dim->key, e)) < 0) {
			free(first);
			goto fail;
		}
		d->status = consensus_decide_dim(s->ready, same, 0, rc);
		if (d->status == DIM_AGREED)
			d->final = first;
		else
			free(first);
		if (load_resolution(st, s, d, e) < 0)
			goto fail;
		if (d->status == DIM_DISAGREE)
			s->nr_disagree++;
	}
	q = store_prepare(st, "SELECT 1 FROM settled WHERE item_id = ?", e);
	if (!q)
		goto fail;
	sqlite3_bind_int64(q, 1, item_id);
	rc = store_step(st, q, "reading the item's settlement", e);
	s->settled = rc > 0;
	sqlite3_finalize(q);
	if (rc < 0)
		goto fail;
	return 0;
fail:
	item_state_release(s);
	return -1;
}

int item_state_needs_adjudication(const struct item_state *s)
{
	if (!s->ready)
		return 0;
	return s->nr_disagree > 0 || (s->discuss && !s->settled);
}

/* One item of the queue while it is built. */
struct queued {
	long long id;
	char *last;		/* when its last submission came in */
};

static int cmp_queued(const void *x, const void *y)
{
	const struct queued *a = x, *b = y;
	int c = strcmp(a->last ? a->last : "", b->last ? b->last : "");

	if (c)
		return c;
	return a->id < b->id ? -1 : a->id > b->id;
}

/*
 * One pass of core/study/consensus, the reader of `disagreements`: the items it
 * finds ready with a dimension still disagreeing, or flagged for
 * discussion and not settled, are exactly the items the disagreement
 * list shows (item_state_needs_adjudication() in bulk).  Then in the
 * order adjudicators work them: by the time the last submission came
 * in, then by id.
 */
int adjudicate_queue(struct store *st, const struct actor *a,
		     const struct codebook *cb, long long **ids, size_t *nr,
		     struct err *e)
{
	struct consensus_iter it;
	struct queued *q = NULL;
	size_t n = 0, alloc = 0, i;
	int rc, ret = -1;

	*ids = NULL;
	*nr = 0;
	memset(&it, 0, sizeof(it));
	if (actor_require(a, ROLES(ROLE_OWNER) | ROLES(ROLE_ADJUDICATOR),
			  "adjudication", e) < 0)
		return -1;
	if (consensus_open(&it, st, a, cb, NULL, e) < 0)
		goto out;
	consensus_skip_fixes(&it);
	while ((rc = consensus_next(&it, e)) > 0) {
		const struct consensus_item *t = &it.item;
		int open = 0;
		size_t d;

		if (!t->ready)
			continue;
		for (d = 0; d < cb->nr_dims; d++)
			open |= t->dims[d].status == DIM_DISAGREE;
		if (!open && !(t->discuss && !t->settled))
			continue;
		ALLOC_GROW(q, n + 1, alloc);
		q[n].id = t->id;
		q[n].last = t->last_submitted ? xstrdup(t->last_submitted) :
			    NULL;
		n++;
	}
	if (rc < 0)
		goto out;
	if (n)
		qsort(q, n, sizeof(*q), cmp_queued);
	*ids = xcalloc(n + 1, sizeof(**ids));
	for (i = 0; i < n; i++)
		(*ids)[i] = q[i].id;
	*nr = n;
	ret = 0;
out:
	consensus_close(&it);
	for (i = 0; i < n; i++)
		free(q[i].last);
	free(q);
	return ret;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A resolution's codes, rationale and cause checked against dimension
 * `dim` of `cb`; *final gets the codes sorted, joined with ';'.  0, or -1
 * with ERR_INPUT saying what is wrong. */
static int resolve_check(const struct codebook *cb, const char *dim,
			 const char *const *codes, size_t n,
			 const char *rationale, const char *cause,
			 struct buf *final, struct err *e)
{
	const struct dimension *d = codebook_dim(cb, dim);
	const char **sorted;
	size_t i;
	int ret = 0;

	if (!d) {
		err_set(e, ERR_INPUT, "%s: no such dimension in codebook %s",
			dim, cb->name);
		return err_suggest(e, codebook_suggest_dim(cb, dim));
	}
	if (!n)
		return err_set(e, ERR_INPUT, "%s: a resolution needs a code",
			       dim);
	if (n > 1 && !d->select_many)
		return err_set(e, ERR_INPUT, "%s takes one code, not %zu",
			       dim, n);
	for (i = 0; i < n; i++)
		if (!dimension_code(d, codes[i])) {
			err_set(e, ERR_INPUT, "%s=%s: no such code in "
				"dimension %s", dim, codes[i], dim);
			return err_suggest(e, dimension_suggest_code(d,
								    codes[i]));
		}
	if (!rationale || !*rationale)
		return err_set(e, ERR_INPUT, "a resolution needs a rationale "
			       "(--rationale TEXT)");
	if (limit_text("the rationale", rationale, e) < 0)
		return -1;
	if (cause && *cause && !adjudicate_valid_cause(cause))
		return err_set(e, ERR_INPUT, "--cause %s: one of guideline_gap, "
			       "slip, ambiguous, code_missing", cause);
	sorted = xcalloc(n + 1, sizeof(*sorted));
	memcpy(sorted, codes, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_str);
	for (i = 0; i < n; i++) {
		if (i && !strcmp(sorted[i], sorted[i - 1])) {
			ret = err_set(e, ERR_INPUT, "%s=%s: code given twice",
				      dim, sorted[i]);
			break;
		}
		if (i)
			buf_addch(final, ';');
		buf_addstr(final, sorted[i]);
	}
	free(sorted);
	return ret;
}

/* The resolution's row: written, or its code, rationale and cause
 * replaced (the coders the first resolution saw are kept). */
static int resolve_insert(struct store *st, const struct actor *a,
			  long long item_id, const char *dim,
			  const char *final, const char *rationale,
			  const char *cause, const struct coder *c1,
			  const struct coder *c2, struct err *e)
{
	char *k1 = join_codes(coding_dim(&c1->coding, dim));
	char *k2 = join_codes(coding_dim(&c2->coding, dim));
	sqlite3_stmt *q;
	char now[32];
	int rc = -1;

	store_now(now);
	q = store_prepare(st, "INSERT INTO resolutions (item_id, dimension, "
			  "code, rationale, cause, coder1, coder1_codes, coder2, "
			  "coder2_codes, adjudicator_id, resolved_at) VALUES "
			  "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11) ON "
			  "CONFLICT (item_id, dimension) DO UPDATE SET code = ?3, "
			  "rationale = ?4, cause = ?5, adjudicator_id = ?10, "
			  "resolved_at = ?11", e);
	if (q) {
		sqlite3_bind_int64(q, 1, item_id);
		sqlite3_bind_text(q, 2, dim, -1, SQLITE_STATIC);
		sqlite3_bind_text(q, 3, final, -1, SQLITE_STATIC);
		sqlite3_bind_text(q, 4, rationale, -1, SQLITE_STATIC);
		store_bind_text(q, 5, cause && *cause ? cause : NULL);
		sqlite3_bind_text(q, 6, c1->name, -1, SQLITE_STATIC);
		sqlite3_bind_text(q, 7, k1, -1, SQLITE_STATIC);
		sqlite3_bind_text(q, 8, c2->name, -1, SQLITE_STATIC);
		sqlite3_bind_text(q, 9, k2, -1, SQLITE_STATIC);
		sqlite3_bind_int64(q, 10, a->member_id);
		sqlite3_bind_text(q, 11, now, -1, SQLITE_STATIC);
		rc = store_step_done(st, q, "saving the resolution", e);
		sqlite3_finalize(q);
	}
	free(k1);
	free(k2);
	return rc;
}

/* The audit row of a resolution, its detail as the row now holds it. */
static int resolve_audit(struct store *st, const struct actor *a,
			 long long item_id, const char *dim, const char *old,
			 const char *final, struct err *e)
{
	static const char *const col[] = {
		"rationale", "cause", "coder1", "coder1_codes", "coder2",
		"coder2_codes"
	};
	struct buf det = BUF_INIT;
	sqlite3_stmt *r;
	int k, rc;

	r = store_prepare(st, "SELECT rationale, cause, coder1, "
			  "coder1_codes, coder2, coder2_codes FROM "
			  "resolutions WHERE item_id = ? AND dimension = ?", e);
	if (!r)
		return -1;
	sqlite3_bind_int64(r, 1, item_id);
	sqlite3_bind_text(r, 2, dim, -1, SQLITE_STATIC);
	rc = store_step(st, r, "reading the resolution", e);
	if (rc > 0) {
		for (k = 0; k < 6; k++)
			audit_detail_str(&det, col[k], (const char *)
					 sqlite3_column_text(r, k));
	} else if (rc == 0) {
		rc = err_set(e, ERR_DB, "saving the resolution: it is not "
			     "there");
	}
	sqlite3_finalize(r);
	if (rc >= 0)
		rc = audit_write_detail(st, a->os_user, actor_for(a),
					"resolve", item_id, dim, old, final,
					audit_detail_end(&det), e);
	buf_release(&det);
	return rc < 0 ? -1 : 0;
}

int adjudicate_resolve(struct store *st, const struct actor *a,
		       const struct codebook *cb, long long item_id,
		       const char *dim, const char *const *codes, size_t n,
		       const char *rationale, const char *cause,
		       struct err *e)
{
	const struct dimension *d = codebook_dim(cb, dim);
	struct item_state s = ITEM_STATE_INIT;
	struct buf final = BUF_INIT, old = BUF_INIT;
	size_t i;
	int ret = -1;

	/* a screening disagreement: the item's inclusion is decided */
	if (screening_is_dim(dim)) {
		if (n != 1)
			return err_set(e, ERR_INPUT, "%s takes one answer, "
				       "not %zu", dim, n);
		return screening_resolve(st, a, item_id, codes[0], rationale,
					 cause, e);
	}
	/* checked before the transaction: a refusal here leaves a
	 * caller's transaction as it was */
	if (resolve_check(cb, dim, codes, n, rationale, cause, &final,
			  e) < 0 || store_begin(st, e) < 0) {
		buf_release(&final);
		return -1;
	}
	if (adjudicate_state(st, a, cb, item_id, &s, e) < 0)
		goto out;
	if (!s.ready) {
		err_set(e, ERR_INPUT, "the item is not ready: %zu of %zu "
			"coders have submitted", s.nr_coders,
			s.nr_expected ? s.nr_expected : (size_t)2);
		goto out;
	}
	for (i = 0; i < s.nr_dims; i++)
		if (s.dims[i].dim == d && s.dims[i].final)
			buf_addstr(&old, s.dims[i].final);
	if (resolve_insert(st, a, item_id, dim, final.ptr, rationale, cause,
			   &s.coders[s.order[0]], &s.coders[s.order[1]],
			   e) < 0 ||
	    resolve_audit(st, a, item_id, dim, old.len ? old.ptr : NULL,
			  final.ptr, e) < 0)
		goto out;
	ret = store_commit(st, e);
out:
	if (ret < 0)
		store_rollback(st);
	item_state_release(&s);
	buf_release(&final);
	buf_release(&old);
	return ret;
}

int adjudicate_resolve_all(struct store *st, const struct actor *a,
			   const struct codebook *cb, long long item_id,
			   const struct resolve_dim *v, size_t nr,
			   const char *rationale, const char *cause,
			   struct err *e)
{
	size_t i;

	if (store_begin(st, e) < 0)
		return -1;
	for (i = 0; i < nr; i++)
		if (adjudicate_resolve(st, a, cb, item_id, v[i].dim,
				       v[i].codes, v[i].nr, rationale, cause,
				       e) < 0) {
			store_rollback(st);
			return -1;
		}
	return store_commit(st, e);
}

int adjudicate_settle(struct store *st, const struct actor *a,
		      long long item_id, const char *note, struct err *e)
{
	sqlite3_stmt *q;
	char now[32];
	int ret = -1;

	if (actor_require(a, ROLES(ROLE_OWNER) | ROLES(ROLE_ADJUDICATOR),
			  "adjudication", e) < 0)
		return -1;
	if (limit_text("the settle note", note, e) < 0)
		return -1;
	if (store_begin(st, e) < 0)
		return -1;
	store_now(now);
	q = store_prepare(st, "INSERT INTO settled (item_id, adjudicator_id, "
			  "note, settled_at) VALUES (?1, ?2, ?3, ?4) ON CONFLICT "
			  "(item_id) DO UPDATE SET note = ?3, settled_at = ?4",
			  e);
	if (!q)
		goto out;
	sqlite3_bind_int64(q, 1, item_id);
	sqlite3_bind_int64(q, 2, a->member_id);
	store_bind_text(q, 3, note);
	sqlite3_bind_text(q, 4, now, -1, SQLITE_STATIC);
	if (store_step_done(st, q, "settling the item", e) < 0) {
		sqlite3_finalize(q);
		goto out;
	}
	sqlite3_finalize(q);
	if (audit_write(st, a->os_user, actor_for(a), "settle", item_id, NULL,
			NULL, note, e) < 0)
		goto out;
	ret = store_commit(st, e);
out:
	if (ret < 0)
		store_rollback(st);
	return ret;
}

/* Emit the item's open disagreements, coders named as the actor may
 * know them. */
static int emit_item(struct store *st, const struct actor *a,
		     const struct codebook *cb, const struct consensus_item *t,
		     int blind, int (*fn)(const struct disagreement *d,
					  void *data),
		     void *data, struct err *e)
{
	struct item_state s;
	struct buf name = BUF_INIT;
	struct buf *labels;
	const char **coders, **codes;
	size_t i, k, n;
	int stop = 0;

	if (adjudicate_state(st, a, cb, t->id, &s, e) < 0)
		return -1;
	n = s.nr_coders;
	labels = xcalloc(n + 1, sizeof(*labels));
	coders = xcalloc(n + 1, sizeof(*coders));
	codes = xcalloc(n + 1, sizeof(*codes));
	buf_addf(&name, "%s#%lld", t->repo, t->number);
	for (k = 0; k < n; k++) {
		/* the k-th coder as shown: order[] puts the first two */
		size_t c = k < 2 ? s.order[k] : k;

		buf_init(&labels[k], 0);
		if (access_names_coders(a, blind, 0))
			buf_addstr(&labels[k], s.coders[c].name);
		else
			buf_addf(&labels[k], "Coder %zu", k + 1);
		coders[k] = labels[k].ptr;
	}
	for (i = 0; !stop && i < s.nr_dims; i++) {
		struct disagreement d;
		char **joined;

		if (s.dims[i].status != DIM_DISAGREE)
			continue;
		joined = xcalloc(n + 1, sizeof(*joined));
		for (k = 0; k < n; k++) {
			size_t c = k < 2 ? s.order[k] : k;

			joined[k] = join_codes(coding_dim(&s.coders[c].coding,
						       s.dims[i].dim->key));
			codes[k] = joined[k];
		}
		d.item = name.ptr;
		d.round = t->round;
		d.dimension = s.dims[i].dim->key;
		d.reason = "disagree";
		d.nr_coders = n;
		d.coders = coders;
		d.codes = codes;
		stop = fn(&d, data);
		for (k = 0; k < n; k++)
			free(joined[k]);
		free(joined);
	}
	if (!stop && !s.nr_disagree && s.discuss && !s.settled) {
		struct disagreement d;

		for (k = 0; k < n; k++)
			codes[k] = NULL;
		d.item = name.ptr;
		d.round = t->round;
		d.dimension = NULL;
		d.reason = "discuss";
		d.nr_coders = n;
		d.coders = coders;
		d.codes = codes;
		stop = fn(&d, data);
	}
	for (k = 0; k < n; k++)
		buf_release(&labels[k]);
	free(labels);
	free(coders);
	free(codes);
	buf_release(&name);
	item_state_release(&s);
	return stop;
}

struct screen_adapter {
	int (*fn)(const struct disagreement *d, void *data);
	void *data;
};

/* A screening disagreement, as one of dimension inclusion. */
static int screen_one(const struct screening_disagreement *sd, void *data)
{
	const struct screen_adapter *ad = data;
	struct disagreement d;

	d.item = sd->item;
	d.round = sd->round;
	d.dimension = SCREENING_DIM;
	d.reason = "disagree";
	d.nr_coders = sd->nr_coders;
	d.coders = sd->coders;
	d.codes = sd->codes;
	return ad->fn(&d, ad->data);
}

int adjudicate_disagreements(struct store *st, const struct actor *a,
			     const struct codebook *cb, const char *round,
			     int (*fn)(const struct disagreement *d,
				       void *data),
			     void *data, struct err *e)
{
	struct consensus_iter it;
	int rc, blind, ret = -1;

	if (actor_require(a, ROLES(ROLE_OWNER) | ROLES(ROLE_ADJUDICATOR),
			  "the disagreement list", e) < 0)
		return -1;
	memset(&it, 0, sizeof(it));
	if ((blind = access_blind(st, e)) < 0)
		return -1;
	/* one pass finds the items to look at; each is then read as the
	 * adjudicator's screen reads it */
	if (consensus_open(&it, st, a, cb, round, e) < 0)
		goto out;
	consensus_skip_fixes(&it);
	while ((rc = consensus_next(&it, e)) > 0) {
		const struct consensus_item *t = &it.item;
		size_t d;
		int open = 0;

		if (!t->ready)
			continue;
		for (d = 0; d < cb->nr_dims; d++)
			open |= t->dims[d].status == DIM_DISAGREE;
		if (!open && !(t->discuss && !t->settled))
			continue;
		rc = emit_item(st, a, cb, t, blind, fn, data, e);
		if (rc) {
			ret = rc;
			goto out;
		}
	}
	if (rc < 0)
		goto out;
	consensus_close(&it);
	/* and the screening rounds' items whose screeners differ */
	{
		struct screen_adapter ad = { fn, data };

		ret = screening_disagreements(st, a, round, screen_one, &ad, e);
	}
out:
	consensus_close(&it);
	return ret;
}
