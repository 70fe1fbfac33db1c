/* SPDX-License-Identifier: MIT */
/*
 * label: see label.h.
 */
#include "core/study/label.h"

#include <stdlib.h>
#include <string.h>

#include "core/study/access.h"
#include "core/store/audit.h"
#include "core/base/buf.h"
#include "core/study/item.h"
#include "core/base/limits.h"
#include "core/study/recode.h"
#include "core/study/screening.h"
#include "core/study/study.h"
#include "core/base/suggest.h"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static struct coded_dim *dim_slot(struct coding *c, const char *dim)
{
	size_t i;

	for (i = 0; i < c->nr_dims; i++)
		if (!strcmp(c->dims[i].dim, dim))
			return &c->dims[i];
	ALLOC_GROW(c->dims, c->nr_dims + 1, c->alloc_dims);
	memset(&c->dims[c->nr_dims], 0, sizeof(c->dims[0]));
	c->dims[c->nr_dims].dim = xstrdup(dim);
	return &c->dims[c->nr_dims++];
}

const struct coded_dim *coding_dim(const struct coding *c, const char *dim)
{
	size_t i;

	for (i = 0; i < c->nr_dims; i++)
		if (!strcmp(c->dims[i].dim, dim) && c->dims[i].nr_codes)
			return &c->dims[i];
	return NULL;
}

void coding_release(struct coding *c)
{
	size_t i, j;

	if (!c)
		return;
	for (i = 0; i < c->nr_dims; i++) {
		for (j = 0; j < c->dims[i].nr_codes; j++)
			free(c->dims[i].codes[j]);
		free(c->dims[i].codes);
		free(c->dims[i].dim);
	}
	free(c->dims);
	free(c->memo);
	free(c->submitted_at);
	memset(c, 0, sizeof(*c));
}

int coding_load(struct store *st, const struct actor *a, long long item_id,
		long long member_id, struct coding *c, struct err *e)
{
	sqlite3_stmt *s;
	int rc;

	memset(c, 0, sizeof(*c));
	c->item_id = item_id;
	c->member_id = member_id;
	rc = access_may_see(st, a, item_id, member_id, e);
	if (rc < 0)
		return -1;
	if (!rc)
		return err_set(e, ERR_PERM, "another annotator's work is "
			       "hidden until the round is closed");
	/* an item being screened is answered on inclusion alone */
	if ((rc = (int)screening_phase(st, item_id, e)) != 0)
		return rc < 0 ? -1 : screening_coding_load(st, item_id, member_id,
							c, e);
	s = store_prepare(st, "SELECT dimension, code, proposal_id FROM "
			  "labels WHERE item_id = ? AND member_id = ? "
			  "ORDER BY dimension, code", e);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, item_id);
	sqlite3_bind_int64(s, 2, member_id);
	while ((rc = store_step(st, s, "loading labels", e)) == 1) {
		struct coded_dim *d = dim_slot(c, (const char *)
					       sqlite3_column_text(s, 0));

		d->codes = xrealloc(d->codes, (d->nr_codes + 1) *
				    sizeof(char *));
		d->codes[d->nr_codes++] = xstrdup((const char *)
						  sqlite3_column_text(s, 1));
		if (sqlite3_column_type(s, 2) != SQLITE_NULL)
			d->proposal_id = sqlite3_column_int64(s, 2);
	}
	sqlite3_finalize(s);
	if (rc < 0)
		goto fail_quiet;

	s = store_prepare(st, "SELECT (SELECT text FROM memos WHERE item_id "
			  "= ?1 AND member_id = ?2), (SELECT submitted_at FROM "
			  "submissions WHERE item_id = ?1 AND member_id = ?2), "
			  "EXISTS (SELECT 1 FROM flags WHERE item_id = ?1 AND "
			  "member_id = ?2 AND flag = 'uncertain'), EXISTS "
			  "(SELECT 1 FROM flags WHERE item_id = ?1 AND "
			  "member_id = ?2 AND flag = 'discuss')", e);
	if (!s)
		goto fail_quiet;
	sqlite3_bind_int64(s, 1, item_id);
	sqlite3_bind_int64(s, 2, member_id);
	rc = store_step(st, s, "loading labels", e);
	if (rc == 1) {
		const char *m = (const char *)sqlite3_column_text(s, 0);
		const char *t = (const char *)sqlite3_column_text(s, 1);

		c->memo = m ? xstrdup(m) : NULL;
		c->submitted = t != NULL;
		c->submitted_at = t ? xstrdup(t) : NULL;
		c->uncertain = sqlite3_column_int(s, 2);
		c->discuss = sqlite3_column_int(s, 3);
	}
	sqlite3_finalize(s);
	if (rc == 0)
		err_set(e, ERR_DB, "loading labels: the study returned no "
			"row");
	if (rc != 1)
		goto fail_quiet;
	return 0;
fail_quiet:
	coding_release(c);
	return -1;
}

/* The item's name ("owner/repo#N"), owned; "the item" when unreadable. */
static char *name_of(struct store *st, long long item_id)
{
	sqlite3_stmt *s = store_prepare(st, "SELECT repo, number FROM items "
					"WHERE id = ?", NULL);
	char *name = NULL;

	if (s) {
		sqlite3_bind_int64(s, 1, item_id);
		/* only words for a refusal: an error keeps "the item" */
		if (store_step(st, s, "reading an item", NULL) == 1)
			name = item_name((const char *)
					 sqlite3_column_text(s, 0),
					 sqlite3_column_int64(s, 1));
		sqlite3_finalize(s);
	}
	return name ? name : xstrdup("the item");
}

/* The labelling rule (core/study/access) for one item: its verdict in *v, or
 * -1 with `e` filled when refused (the rule's reason) or unreadable.
 * `screening` says whether an item being screened is allowed. */
static int may_label(struct store *st, const struct actor *a,
		     long long item_id, int screening,
		     struct label_verdict *v, struct err *e)
{
	int may = access_label_item(st, a, item_id, v, e);

	if (may < 0)
		return -1;
	if (may == LABEL_NO) {
		err_set(e, ERR_PERM, "%s", v->why);
		free(v->why);
		v->why = NULL;
		return -1;
	}
	if (may == LABEL_SCREEN && !screening) {
		char *name = name_of(st, item_id);

		err_set(e, ERR_PERM, "%s is being screened: only its %s is "
			"answered (%s=include or a reason to exclude it), and "
			"a memo", name, SCREENING_DIM, SCREENING_DIM);
		free(name);
		return -1;
	}
	return 0;
}

int label_check_access(struct store *st, const struct actor *a,
		       long long item_id, struct err *e)
{
	struct label_verdict v;

	return may_label(st, a, item_id, 0, &v, e);
}

static int step_done(struct store *st, sqlite3_stmt *s, struct err *e,
		     const char *what)
{
	int rc = store_step_done(st, s, what, e);

	sqlite3_finalize(s);
	return rc;
}

/*
 * What the rule allows for this dimension: on an item the actor may only
 * recode, the recode of a split code; and a submitted item is complete -
 * clearing a required dimension of it is refused, saying why (another
 * code may be chosen instead).
 */
static int label_rules(struct store *st, const struct actor *a,
		       const struct dimension *d, long long item_id,
		       const struct label_verdict *v,
		       const char *const *codes, size_t n, struct err *e)
{
	char *name;
	int ret = 0;

	if (v->may != LABEL_RECODE && (n || !v->submitted || !d->required))
		return 0;
	name = name_of(st, item_id);
	if (v->may == LABEL_RECODE)
		ret = recode_check(st, a, item_id, name, d->key, codes, n, e);
	else
		ret = err_set(e, ERR_INPUT, "%s submitted %s, and %s is "
			      "required: choose another code instead of "
			      "clearing it (a submitted item keeps every "
			      "required dimension coded)", a->name, name,
			      d->key);
	free(name);
	return ret;
}

int label_check_codes(const struct codebook *cb, const char *dim,
		      const char *const *codes, size_t n,
		      const char ***sorted, struct err *e)
{
	const struct dimension *d = codebook_dim(cb, dim);
	const char **v;
	size_t i;

	*sorted = NULL;
	if (!d) {
		err_set(e, ERR_INPUT, "%s: no such dimension in codebook %s",
			dim, cb->name);
		return err_suggest(e, codebook_suggest_dim(cb, dim));
	}
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
	v = xcalloc(n + 1, sizeof(*v));
	if (n) {
		memcpy(v, codes, n * sizeof(*v));
		qsort(v, n, sizeof(*v), cmp_str);
	}
	for (i = 1; i < n; i++)
		if (!strcmp(v[i], v[i - 1])) {
			err_set(e, ERR_INPUT, "%s=%s: code given twice", dim,
				v[i]);
			free(v);
			return -1;
		}
	*sorted = v;
	return 0;
}

int label_set(struct store *st, const struct actor *a,
	      const struct codebook *cb, long long item_id, const char *dim,
	      const char *const *codes, size_t n, long long proposal_id,
	      struct err *e)
{
	const struct dimension *d = codebook_dim(cb, dim);
	const char **sorted = NULL;
	char *old = NULL, *new_ = NULL;
	struct buf detail = BUF_INIT;
	struct label_verdict v;
	sqlite3_stmt *s;
	char now[32];
	long long old_pid = 0;
	size_t i;
	int ret = -1, rc, same_version = 1, has_other = 0;

	if (screening_is_dim(dim) || screening_is_codebook(cb))
		return screening_label_set(st, a, item_id, codes, n, e);
	if (label_check_codes(cb, dim, codes, n, &sorted, e) < 0)
		return -1;

	if (store_begin(st, e) < 0)
		goto out;
	/* validated against `cb` above: that must still be the current
	 * version now that no update can come in */
	if (study_codebook_current(st, cb, e) < 0 ||
	    may_label(st, a, item_id, 0, &v, e) < 0 ||
	    label_rules(st, a, d, item_id, &v, sorted, n, e) < 0)
		goto out;
	/* what is there: its codes, whether each was made under this
	 * version, and the proposal riding on its `other` */
	s = store_prepare(st, "SELECT code, codebook_version IS ?4, "
			  "proposal_id FROM labels WHERE item_id = ?1 AND "
			  "member_id = ?2 AND dimension = ?3 ORDER BY code", e);
	if (!s)
		goto out;
	sqlite3_bind_int64(s, 1, item_id);
	sqlite3_bind_int64(s, 2, a->member_id);
	sqlite3_bind_text(s, 3, dim, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 4, cb->version, -1, SQLITE_STATIC);
	{
		struct buf b = BUF_INIT;

		while ((rc = store_step(st, s, "reading labels", e)) > 0) {
			const char *code = (const char *)
					   sqlite3_column_text(s, 0);

			if (b.len)
				buf_addch(&b, ';');
			buf_addstr(&b, code);
			if (!sqlite3_column_int(s, 1))
				same_version = 0;
			if (!strcmp(code, "other") &&
			    sqlite3_column_type(s, 2) != SQLITE_NULL)
				old_pid = sqlite3_column_int64(s, 2);
		}
		if (b.len)
			old = buf_detach(&b, NULL);
		buf_release(&b);
	}
	sqlite3_finalize(s);
	if (rc < 0)
		goto out;
	/* a proposal rides on the `other` label: setting the dimension
	 * again, `other` still among the codes, keeps it attached */
	if (!proposal_id)
		proposal_id = old_pid;
	{
		struct buf b = BUF_INIT;

		for (i = 0; i < n; i++) {
			if (i)
				buf_addch(&b, ';');
			buf_addstr(&b, sorted[i]);
			if (!strcmp(sorted[i], "other"))
				has_other = 1;
		}
		if (b.len)
			new_ = buf_detach(&b, NULL);
		buf_release(&b);
	}
	if (!has_other)
		proposal_id = 0;
	/* the same codes, version and proposal: nothing changes (and so
	 * nothing is audited) */
	if ((old ? new_ && !strcmp(old, new_) : !new_) && same_version &&
	    proposal_id == old_pid) {
		ret = store_commit(st, e);
		goto out;
	}
	s = store_prepare(st, "DELETE FROM labels WHERE item_id = ? AND "
			  "member_id = ? AND dimension = ?", e);
	if (!s)
		goto out;
	sqlite3_bind_int64(s, 1, item_id);
	sqlite3_bind_int64(s, 2, a->member_id);
	sqlite3_bind_text(s, 3, dim, -1, SQLITE_STATIC);
	if (step_done(st, s, e, "saving a label") < 0)
		goto out;
	store_now(now);
	for (i = 0; i < n; i++) {
		s = store_prepare(st, "INSERT INTO labels (item_id, member_id, "
				  "dimension, code, codebook_version, "
				  "proposal_id, labeled_at) VALUES "
				  "(?, ?, ?, ?, ?, ?, ?)", e);
		if (!s)
			goto out;
		sqlite3_bind_int64(s, 1, item_id);
		sqlite3_bind_int64(s, 2, a->member_id);
		sqlite3_bind_text(s, 3, dim, -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 4, sorted[i], -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 5, cb->version, -1, SQLITE_STATIC);
		if (proposal_id && !strcmp(sorted[i], "other"))
			sqlite3_bind_int64(s, 6, proposal_id);
		else
			sqlite3_bind_null(s, 6);
		sqlite3_bind_text(s, 7, now, -1, SQLITE_STATIC);
		if (step_done(st, s, e, "saving a label") < 0)
			goto out;
	}
	/* the replay takes the version from the codebook then current, and
	 * the proposal from here */
	if (proposal_id)
		audit_detail_int(&detail, "proposal", proposal_id);
	if (audit_write_detail(st, a->os_user, actor_for(a), "label", item_id,
			       dim, old, new_, audit_detail_end(&detail),
			       e) < 0)
		goto out;
	if (recode_settle(st, a, item_id, dim, new_, e) < 0)
		goto out;
	ret = store_commit(st, e);
out:
	if (ret < 0)
		store_rollback(st);
	free(sorted);
	free(old);
	free(new_);
	buf_release(&detail);
	return ret;
}

int label_toggle(struct store *st, const struct actor *a,
		 const struct codebook *cb, long long item_id, const char *dim,
		 const char *code, struct err *e)
{
	const struct dimension *d = codebook_dim(cb, dim);
	struct coding c = CODING_INIT;
	const struct coded_dim *cur;
	const char **v = NULL;
	size_t n = 0, i;
	int found = 0, ret;

	if (!d) {
		err_set(e, ERR_INPUT, "%s: no such dimension", dim);
		return err_suggest(e, codebook_suggest_dim(cb, dim));
	}
	/* what is chosen now and the change, in one transaction */
	if (store_begin(st, e) < 0)
		return -1;
	if (coding_load(st, a, item_id, a->member_id, &c, e) < 0) {
		store_rollback(st);
		return -1;
	}
	cur = coding_dim(&c, dim);
	v = xcalloc((cur ? cur->nr_codes : 0) + 1, sizeof(*v));
	for (i = 0; cur && i < cur->nr_codes; i++) {
		if (!strcmp(cur->codes[i], code))
			found = 1;
		else if (d->select_many)
			v[n++] = cur->codes[i];
	}
	if (!found)
		v[n++] = code;
	ret = label_set(st, a, cb, item_id, dim, v, n, 0, e);
	if (ret == 0)
		ret = store_commit(st, e);
	else
		store_rollback(st);
	free(v);
	coding_release(&c);
	return ret;
}

int label_submit(struct store *st, const struct actor *a,
		 const struct codebook *cb, long long item_id, struct err *e)
{
	struct coding c = CODING_INIT;
	struct buf missing = BUF_INIT;
	sqlite3_stmt *s;
	char now[32];
	long long sid;
	size_t i;
	int ret = -1;

	/* an item being screened is submitted with its answer */
	if ((sid = screening_phase(st, item_id, e)) != 0)
		return sid < 0 ? -1 : screening_submit(st, a, item_id, e);
	if (store_begin(st, e) < 0)
		return -1;
	if (study_codebook_current(st, cb, e) < 0 ||
	    label_check_access(st, a, item_id, e) < 0 ||
	    coding_load(st, a, item_id, a->member_id, &c, e) < 0)
		goto out;
	/* submitted already (a split may have left a dimension to
	 * recode: the submission stands meanwhile) */
	if (c.submitted) {
		ret = store_commit(st, e);
		goto out;
	}
	for (i = 0; i < cb->nr_dims; i++)
		if (cb->dims[i].required && !coding_dim(&c, cb->dims[i].key))
			buf_addf(&missing, "%s%s", missing.len ? ", " : "",
				 cb->dims[i].key);
	if (missing.len) {
		err_set(e, ERR_INPUT, "not submitted: required dimension%s "
			"not coded: %s", strchr(missing.ptr, ',') ? "s" : "",
			missing.ptr);
		goto out;
	}
	store_now(now);
	s = store_prepare(st, "INSERT INTO submissions (item_id, member_id, "
			  "submitted_at) VALUES (?, ?, ?)", e);
	if (!s)
		goto out;
	sqlite3_bind_int64(s, 1, item_id);
	sqlite3_bind_int64(s, 2, a->member_id);
	sqlite3_bind_text(s, 3, now, -1, SQLITE_STATIC);
	if (step_done(st, s, e, "submitting") < 0)
		goto out;
	if (audit_write(st, a->os_user, actor_for(a), "submit", item_id, NULL,
			NULL, now, e) < 0)
		goto out;
	ret = store_commit(st, e);
out:
	if (ret < 0)
		store_rollback(st);
	coding_release(&c);
	buf_release(&missing);
	return ret;
}

int label_memo(struct store *st, const struct actor *a, long long item_id,
	       const char *text, struct err *e)
{
	sqlite3_stmt *s;
	char now[32];
	char *old = NULL;
	struct label_verdict v;
	int ret = -1, rc;

	if (limit_text("the memo", text, e) < 0)
		return -1;
	if (store_begin(st, e) < 0)
		return -1;
	if (may_label(st, a, item_id, 1, &v, e) < 0)
		goto out;
	s = store_prepare(st, "SELECT text FROM memos WHERE item_id = ? AND "
			  "member_id = ?", e);
	if (!s)
		goto out;
	sqlite3_bind_int64(s, 1, item_id);
	sqlite3_bind_int64(s, 2, a->member_id);
	rc = store_step(st, s, "reading the memo", e);
	if (rc > 0)
		old = xstrdup((const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	if (rc < 0)
		goto out;
	store_now(now);
	if (text && *text) {
		s = store_prepare(st, "INSERT INTO memos (item_id, member_id, "
				  "text, updated_at) VALUES (?1, ?2, ?3, ?4) "
				  "ON CONFLICT (item_id, member_id) DO UPDATE "
				  "SET text = ?3, updated_at = ?4", e);
		if (!s)
			goto out;
		sqlite3_bind_text(s, 3, text, -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 4, now, -1, SQLITE_STATIC);
	} else {
		s = store_prepare(st, "DELETE FROM memos WHERE item_id = ?1 "
				  "AND member_id = ?2", e);
		if (!s)
			goto out;
	}
	sqlite3_bind_int64(s, 1, item_id);
	sqlite3_bind_int64(s, 2, a->member_id);
	if (step_done(st, s, e, "saving the memo") < 0)
		goto out;
	if (audit_write(st, a->os_user, actor_for(a), "memo", item_id, NULL,
			old, text && *text ? text : NULL, e) < 0)
		goto out;
	ret = store_commit(st, e);
out:
	if (ret < 0)
		store_rollback(st);
	free(old);
	return ret;
}

int label_flag(struct store *st, const struct actor *a, long long item_id,
	       const char *flag, int on, struct err *e)
{
	sqlite3_stmt *s;
	char now[32];
	int ret = -1;

	if (strcmp(flag, "uncertain") && strcmp(flag, "discuss"))
		return err_set(e, ERR_INPUT, "%s: unknown flag (uncertain or "
			       "discuss)", flag);
	if (store_begin(st, e) < 0)
		return -1;
	if (label_check_access(st, a, item_id, e) < 0)
		goto out;
	store_now(now);
	s = store_prepare(st, on ? "INSERT OR IGNORE INTO flags (item_id, "
			  "member_id, flag, set_at) VALUES (?1, ?2, ?3, ?4)" :
			  "DELETE FROM flags WHERE item_id = ?1 AND "
			  "member_id = ?2 AND flag = ?3", e);
	if (!s)
		goto out;
	sqlite3_bind_int64(s, 1, item_id);
	sqlite3_bind_int64(s, 2, a->member_id);
	sqlite3_bind_text(s, 3, flag, -1, SQLITE_STATIC);
	if (on)
		sqlite3_bind_text(s, 4, now, -1, SQLITE_STATIC);
	if (step_done(st, s, e, "saving a flag") < 0)
		goto out;
	/* audit a change only: setting a flag that is set changes nothing */
	if (sqlite3_changes(st->db) &&
	    audit_write(st, a->os_user, actor_for(a), "flag", item_id, flag,
			on ? "off" : "on", on ? "on" : "off", e) < 0)
		goto out;
	ret = store_commit(st, e);
out:
	if (ret < 0)
		store_rollback(st);
	return ret;
}

int label_propose(struct store *st, const struct actor *a,
		  const struct codebook *cb, long long item_id,
		  const char *dim, const char *key, const char *name,
		  const char *definition, long long *id, struct err *e)
{
	const struct dimension *d = codebook_dim(cb, dim);
	const char *other = "other";
	sqlite3_stmt *s;
	char now[32];
	long long pid;
	int ret = -1;

	if (!d) {
		err_set(e, ERR_INPUT, "%s: no such dimension", dim);
		return err_suggest(e, codebook_suggest_dim(cb, dim));
	}
	if (!codebook_valid_key(key))
		return err_set(e, ERR_INPUT, "%s: a code key is 1-64 letters, "
			       "digits, '_', '-' or '.'", key);
	if (dimension_code(d, key))
		return err_set(e, ERR_INPUT, "%s=%s: the code already exists",
			       dim, key);
	if (!dimension_code(d, other))
		return err_set(e, ERR_INPUT, "%s has no `other` code to "
			       "attach a proposal to", dim);
	if (!name || !*name || !definition || !*definition)
		return err_set(e, ERR_INPUT, "a proposal needs a name and a "
			       "definition");
	if (limit_text("the proposal's name", name, e) < 0 ||
	    limit_text("the proposal's definition", definition, e) < 0)
		return -1;
	if (store_begin(st, e) < 0)
		return -1;
	if (study_codebook_current(st, cb, e) < 0 ||
	    label_check_access(st, a, item_id, e) < 0)
		goto out;
	store_now(now);
	s = store_prepare(st, "INSERT INTO proposals (dimension, key, name, "
			  "definition, item_id, member_id, created_at) VALUES "
			  "(?, ?, ?, ?, ?, ?, ?)", e);
	if (!s)
		goto out;
	sqlite3_bind_text(s, 1, dim, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 3, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 4, definition, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 5, item_id);
	sqlite3_bind_int64(s, 6, a->member_id);
	sqlite3_bind_text(s, 7, now, -1, SQLITE_STATIC);
	if (step_done(st, s, e, "saving a proposal") < 0)
		goto out;
	pid = sqlite3_last_insert_rowid(st->db);
	{
		struct buf det = BUF_INIT;
		int rc;

		audit_detail_int(&det, "id", pid);
		audit_detail_str(&det, "name", name);
		audit_detail_str(&det, "definition", definition);
		rc = audit_write_detail(st, a->os_user, actor_for(a),
					"propose", item_id, dim, NULL, key,
					audit_detail_end(&det), e);
		buf_release(&det);
		if (rc < 0)
			goto out;
	}
	if (d->select_many) {
		struct coding c = CODING_INIT;
		const struct coded_dim *cur;
		const char **v;
		size_t n = 0, i;
		int rc;

		if (coding_load(st, a, item_id, a->member_id, &c, e) < 0)
			goto out;
		cur = coding_dim(&c, dim);
		v = xcalloc((cur ? cur->nr_codes : 0) + 1, sizeof(*v));
		for (i = 0; cur && i < cur->nr_codes; i++)
			if (strcmp(cur->codes[i], other))
				v[n++] = cur->codes[i];
		v[n++] = other;
		rc = label_set(st, a, cb, item_id, dim, v, n, pid, e);
		free(v);
		coding_release(&c);
		if (rc < 0)
			goto out;
	} else if (label_set(st, a, cb, item_id, dim, &other, 1, pid, e) < 0) {
		goto out;
	}
	if (id)
		*id = pid;
	ret = store_commit(st, e);
out:
	if (ret < 0)
		store_rollback(st);
	return ret;
}

/* The first column of every row of `s` (bound already) into ids[]. */
static int load_ids(struct store *st, sqlite3_stmt *s, long long **ids,
		    size_t *nr, struct err *e)
{
	size_t alloc = 0;
	int rc;

	*ids = NULL;
	*nr = 0;
	while ((rc = store_step(st, s, "loading the queue", e)) == 1) {
		ALLOC_GROW(*ids, *nr + 1, alloc);
		(*ids)[(*nr)++] = sqlite3_column_int64(s, 0);
	}
	return rc;
}

static long long one_int(struct store *st, const char *sql, struct err *e,
			 int *ok)
{
	sqlite3_stmt *s = store_prepare(st, sql, e);
	long long v = 0;
	int rc;

	*ok = 0;
	if (!s)
		return 0;
	rc = store_step(st, s, "loading the queue", e);
	if (rc == 1) {
		v = sqlite3_column_int64(s, 0);
		*ok = 1;
	} else if (rc == 0) {
		err_set(e, ERR_DB, "loading the queue: the study returned no "
			"row");
	}
	sqlite3_finalize(s);
	return v;
}

/* mark[item id] in queue_load() */
enum {
	SUBMITTED = 1 << 0,	/* the member submitted its coding */
	SCREENED = 1 << 1,	/* ... their screening answer */
	SCREENING = 1 << 2,	/* the item is being screened */
	RECODE = 1 << 3,	/* a split left the member a recode on it */
};

static int is_done(unsigned char m)
{
	if (m & SCREENING)
		return (m & SCREENED) != 0;
	return (m & SUBMITTED) && !(m & RECODE);
}

/* The queue keeps ids[] (nr of them); mark[] says which are done. */
static void queue_take(struct queue *q, long long *ids, size_t nr,
		       const unsigned char *mark, long long max_id)
{
	size_t k;

	q->ids = ids;
	q->nr = nr;
	q->done = xcalloc(nr / 8 + 1, 1);
	for (k = 0; k < nr; k++)
		if (ids[k] > 0 && ids[k] <= max_id && is_done(mark[ids[k]]))
			queue_mark_submitted(q, k);
}

/* Set `bit` in mark[] for the item id in the first column of every row
 * of `sql` (bound to the member as ?1). */
static int mark_rows(struct store *st, const char *sql, long long member_id,
		     unsigned char *mark, long long max_id, int bit,
		     struct err *e)
{
	sqlite3_stmt *s = store_prepare(st, sql, e);
	int rc;

	if (!s)
		return -1;
	if (sqlite3_bind_parameter_count(s))
		sqlite3_bind_int64(s, 1, member_id);
	while ((rc = store_step(st, s, "loading the queue", e)) == 1) {
		long long id = sqlite3_column_int64(s, 0);

		if (id > 0 && id <= max_id)
			mark[id] |= (unsigned char)bit;
	}
	sqlite3_finalize(s);
	if (rc < 0)
		return -1;
	return 0;
}

/*
 * Plain scans marked in a table by item id, rather than one query with a
 * subquery per item and a sort of the union: the screen runs this every
 * time it opens, and on a study of 100,000 items it took most of the time
 * to open (about 70 of 110 ms).  Items never fetched are nobody's to
 * code and stay out.
 */
int queue_load(struct store *st, long long member_id, struct queue *q,
	       struct err *e)
{
	unsigned char *mark = NULL;
	long long *ids = NULL, max_id, nr_items, missing, i;
	sqlite3_stmt *s = NULL;
	size_t nr = 0;
	int rounds, ok;

	memset(q, 0, sizeof(*q));
	rounds = (int)one_int(st, "SELECT EXISTS (SELECT 1 FROM rounds)", e,
			      &ok);
	if (!ok)
		return -1;
	max_id = one_int(st, "SELECT coalesce(max(id), 0) FROM items", e,
			 &ok);
	if (!ok)
		return -1;
	mark = xcalloc((size_t)max_id + 1, 1);

	if (mark_rows(st, "SELECT item_id FROM submissions WHERE member_id = "
		      "?1", member_id, mark, max_id, SUBMITTED, e) < 0 ||
	    mark_rows(st, "SELECT item_id FROM recodes WHERE member_id = ?1 "
		      "AND done_at IS NULL", member_id, mark, max_id, RECODE,
		      e) < 0)
		goto fail;

	if (rounds) {
		if (mark_rows(st, "SELECT item_id FROM screen_labels WHERE "
			      "member_id = ?1 AND submitted_at IS NOT NULL",
			      member_id, mark, max_id, SCREENED, e) < 0 ||
		    mark_rows(st, "SELECT item_id FROM screen_assignments "
			      "WHERE item_id NOT IN (SELECT item_id FROM "
			      "assignments)", member_id, mark, max_id,
			      SCREENING, e) < 0)
			goto fail;
		/* the member's items in round order - coding rounds, and
		 * screening rounds while their items are screened - then
		 * the items outside rounds a split left them to recode; an
		 * item in no round is not anyone's until it is assigned */
		s = store_prepare(st, "SELECT q.item_id FROM (SELECT "
				  "a.item_id, a.round_id, a.position FROM "
				  "assignments a JOIN round_annotators ra ON "
				  "ra.round_id = a.round_id AND ra.member_id = "
				  "?1 UNION ALL SELECT sa.item_id, sa.round_id, "
				  "sa.position FROM screen_assignments sa JOIN "
				  "round_annotators ra ON ra.round_id = "
				  "sa.round_id AND ra.member_id = ?1 WHERE "
				  "sa.item_id NOT IN (SELECT item_id FROM "
				  "assignments) UNION ALL SELECT r.item_id, "
				  "9223372036854775807, min(r.id) FROM recodes r "
				  "WHERE r.member_id = ?1 AND r.done_at IS NULL "
				  "AND r.item_id NOT IN (SELECT item_id FROM "
				  "assignments) AND r.item_id NOT IN (SELECT "
				  "item_id FROM screen_assignments) GROUP BY "
				  "r.item_id) q JOIN items i ON i.id = q.item_id "
				  "WHERE NOT i.missing ORDER BY q.round_id, "
				  "q.position", e);
		if (!s)
			goto fail;
		sqlite3_bind_int64(s, 1, member_id);
		if (load_ids(st, s, &ids, &nr, e) < 0)
			goto db;
		sqlite3_finalize(s);
		queue_take(q, ids, nr, mark, max_id);
		ids = NULL;
		goto out;
	}

	/* no rounds: every item, in import order; ids without gaps (the
	 * usual case) need no scan */
	nr_items = one_int(st, "SELECT count(*) FROM items", e, &ok);
	if (!ok)
		goto fail;
	missing = one_int(st, "SELECT count(*) FROM items WHERE missing", e,
			  &ok);
	if (!ok)
		goto fail;
	if (nr_items == max_id && !missing) {
		/* ids 1..max_id: implied, only the bits are kept */
		q->done = xcalloc((size_t)max_id / 8 + 1, 1);
		q->nr = (size_t)max_id;
		for (i = 1; i <= max_id; i++)
			if (is_done(mark[i]))
				queue_mark_submitted(q, (size_t)i - 1);
		goto out;
	}
	s = store_prepare(st, "SELECT id FROM items WHERE NOT missing ORDER "
			  "BY id", e);
	if (!s)
		goto fail;
	if (load_ids(st, s, &ids, &nr, e) < 0)
		goto db;
	sqlite3_finalize(s);
	queue_take(q, ids, nr, mark, max_id);
	ids = NULL;
out:
	free(ids);
	free(mark);
	return 0;
db:
	sqlite3_finalize(s);
fail:
	free(ids);
	free(mark);
	queue_release(q);
	return -1;
}

void queue_mark_submitted(struct queue *q, size_t i)
{
	if (i >= q->nr || queue_submitted(q, i))
		return;
	q->done[i / 8] |= (unsigned char)(1u << (i % 8));
	q->nr_submitted++;
}

void queue_release(struct queue *q)
{
	if (!q)
		return;
	free(q->ids);
	free(q->done);
	memset(q, 0, sizeof(*q));
}
