/* SPDX-License-Identifier: MIT */
/*
 * screening: see screening.h.
 */
#include "core/study/screening.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/study/access.h"
#include "core/study/adjudicate.h"
#include "core/study/item.h"
#include "core/store/audit.h"

/* The name under which screening_codebook*() makes the question, and its
 * "version": a codebook file cannot have either (a version of a study's
 * codebook is never "screening"). */
#define SCREENING_CB_NAME "screening"
#define SCREENING_CB_VERSION "screening"

int screening_is_dim(const char *dim)
{
	return dim && !strcmp(dim, SCREENING_DIM);
}

int screening_is_codebook(const struct codebook *cb)
{
	return cb && cb->version && !strcmp(cb->version, SCREENING_CB_VERSION);
}

int screening_reasons_parse(const char *list, char **json, struct err *e)
{
	cJSON *arr = cJSON_CreateArray();
	char *copy = xstrdup(list ? list : ""), *tok, *save = NULL;
	char *s;
	int n = 0, ret = -1;

	*json = NULL;
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		cJSON *it;

		while (*tok == ' ')
			tok++;
		if (!*tok)
			continue;
		if (!codebook_valid_key(tok)) {
			err_set(e, ERR_INPUT, "--reasons: %s is not a reason "
				"key (1-64 letters, digits, '_', '-' or '.')",
				tok);
			goto out;
		}
		if (!strcmp(tok, SCREENING_INCLUDE)) {
			err_set(e, ERR_INPUT, "--reasons: include is the answer "
				"that keeps an item; list the reasons to "
				"exclude one");
			goto out;
		}
		cJSON_ArrayForEach(it, arr)
			if (!strcmp(it->valuestring, tok)) {
				err_set(e, ERR_INPUT, "--reasons: %s named twice",
					tok);
				goto out;
			}
		cJSON_AddItemToArray(arr, cJSON_CreateString(tok));
		n++;
	}
	if (!n) {
		err_set(e, ERR_INPUT, "--reasons: give at least one reason to "
			"exclude an item (e.g. %s)", SCREENING_DEFAULT_REASONS);
		goto out;
	}
	s = cJSON_PrintUnformatted(arr);
	*json = xstrdup(s);
	cJSON_free(s);
	ret = 0;
out:
	cJSON_Delete(arr);
	free(copy);
	return ret;
}

/* Names and definitions of the default reasons; any other reason is
 * named after its key. */
static const struct {
	const char *key, *name, *definition;
} known[] = {
	{ SCREENING_INCLUDE, "Include", "A bug of the study's kind, with the "
	  "merged fix that repaired it, in the study's scope: it goes on "
	  "to coding." },
	{ "not_a_bug", "Not a bug", "A question, a feature request, a "
	  "usage or set-up problem, or expected behaviour." },
	{ "no_merged_fix", "No merged fix", "No merged pull request "
	  "fixes it (closed without a fix, or the fix was not merged)." },
	{ "duplicate", "Duplicate", "It repeats another issue of the "
	  "study." },
	{ "out_of_scope", "Out of scope", "A bug, but outside what the "
	  "study covers." },
};

static void add_code(struct dimension *d, const char *key)
{
	struct code *c;
	size_t i;

	d->codes = xrealloc(d->codes, (d->nr_codes + 1) * sizeof(*d->codes));
	c = &d->codes[d->nr_codes++];
	memset(c, 0, sizeof(*c));
	c->key = xstrdup(key);
	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(known[i].key, key)) {
			c->name = xstrdup(known[i].name);
			c->definition = xstrdup(known[i].definition);
			return;
		}
	{
		struct buf b = BUF_INIT;

		for (i = 0; key[i]; i++)
			buf_addch(&b, i == 0 && key[i] >= 'a' && key[i] <= 'z' ?
				  key[i] - 'a' + 'A' : key[i] == '_' ? ' ' :
				  key[i]);
		c->name = buf_detach(&b, NULL);
		c->definition = xstrdup("Excluded for this reason of the "
					"screening round.");
	}
}

int screening_codebook_from(const char *reasons_json, struct codebook *cb,
			 struct err *e)
{
	cJSON *arr = NULL, *it;
	struct dimension *d;
	char *def = NULL;

	memset(cb, 0, sizeof(*cb));
	if (!reasons_json) {
		if (screening_reasons_parse(SCREENING_DEFAULT_REASONS, &def, e) < 0)
			return -1;
		reasons_json = def;
	}
	arr = cJSON_Parse(reasons_json);
	free(def);
	if (!cJSON_IsArray(arr)) {
		cJSON_Delete(arr);
		return err_set(e, ERR_INPUT, "a screening round's reasons are "
			       "not a JSON array");
	}
	cb->name = xstrdup(SCREENING_CB_NAME);
	cb->version = xstrdup(SCREENING_CB_VERSION);
	cb->title = xstrdup("Screening");
	cb->description = xstrdup("Which items the study keeps: include, "
				  "or the reason to leave one out.");
	cb->dims = xcalloc(1, sizeof(*cb->dims));
	cb->nr_dims = 1;
	d = &cb->dims[0];
	d->key = xstrdup(SCREENING_DIM);
	d->name = xstrdup("Inclusion");
	d->question = xstrdup("Is this item a bug of the study's kind, with "
			      "a merged fix, in scope?  Else, why not?");
	d->required = 1;
	add_code(d, SCREENING_INCLUDE);
	cJSON_ArrayForEach(it, arr)
		if (cJSON_IsString(it) && codebook_valid_key(it->valuestring))
			add_code(d, it->valuestring);
	cJSON_Delete(arr);
	return 0;
}

/* The reasons of round `round_id` (owned, NULL for a coding round or
 * the defaults) and whether it is a screening round. */
static int round_reasons(struct store *st, long long round_id, char **json,
			 int *screening, struct err *e)
{
	sqlite3_stmt *s = store_prepare(st, "SELECT kind = 'screen', reasons "
					"FROM rounds WHERE id = ?", e);
	int rc;

	*json = NULL;
	*screening = 0;
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, round_id);
	rc = store_step(st, s, "reading the round", e);
	if (rc > 0) {
		const char *r = (const char *)sqlite3_column_text(s, 1);

		*screening = sqlite3_column_int(s, 0);
		*json = r ? xstrdup(r) : NULL;
	}
	sqlite3_finalize(s);
	if (rc == 0)
		return err_set(e, ERR_NOTFOUND, "no round with id %lld",
			       round_id);
	return rc < 0 ? -1 : 0;
}

int screening_codebook(struct store *st, long long round_id,
		    struct codebook *cb, struct err *e)
{
	char *json;
	int screening, rc;

	memset(cb, 0, sizeof(*cb));
	if (round_reasons(st, round_id, &json, &screening, e) < 0)
		return -1;
	if (!screening) {
		free(json);
		return err_set(e, ERR_INPUT, "round %lld is not a screening "
			       "round", round_id);
	}
	rc = screening_codebook_from(json, cb, e);
	free(json);
	return rc;
}

long long screening_phase(struct store *st, long long item_id, struct err *e)
{
	sqlite3_stmt *s;
	long long id = 0;
	int rc;

	s = store_prepare(st, "SELECT round_id FROM screen_assignments WHERE "
			  "item_id = ?1 AND NOT EXISTS (SELECT 1 FROM "
			  "assignments WHERE item_id = ?1)", e);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, item_id);
	rc = store_step(st, s, "reading the item's screening", e);
	if (rc > 0)
		id = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return rc < 0 ? -1 : id;
}

/* The actor's answer and whether it is submitted: *code owned, NULL when
 * none. */
static int own_answer(struct store *st, long long item_id, long long member,
		      char **code, int *submitted, struct err *e)
{
	sqlite3_stmt *s = store_prepare(st, "SELECT code, submitted_at IS NOT "
					"NULL FROM screen_labels WHERE item_id "
					"= ? AND member_id = ?", e);
	int rc;

	*code = NULL;
	*submitted = 0;
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, item_id);
	sqlite3_bind_int64(s, 2, member);
	rc = store_step(st, s, "reading the screening answer", e);
	if (rc > 0) {
		*code = xstrdup((const char *)sqlite3_column_text(s, 0));
		*submitted = sqlite3_column_int(s, 1);
	}
	sqlite3_finalize(s);
	return rc < 0 ? -1 : 0;
}

static int exec_item(struct store *st, const char *sql, long long item_id,
		     long long member, const char *text, const char *now,
		     const char *what, struct err *e)
{
	sqlite3_stmt *s = store_prepare(st, sql, e);
	int rc;

	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, item_id);
	sqlite3_bind_int64(s, 2, member);
	if (sqlite3_bind_parameter_count(s) >= 3)
		store_bind_text(s, 3, text);
	if (sqlite3_bind_parameter_count(s) >= 4)
		store_bind_text(s, 4, now);
	rc = store_step_done(st, s, what, e);
	sqlite3_finalize(s);
	return rc;
}

/* The item's round may be screened by the actor now: LABEL_SCREEN, else
 * the refusal (or the remark that it is not being screened). */
static int check_screen(struct store *st, const struct actor *a,
			long long item_id, struct label_verdict *v,
			struct err *e)
{
	int may = access_label_item(st, a, item_id, v, e);

	if (may < 0)
		return -1;
	if (may == LABEL_SCREEN)
		return 0;
	if (may == LABEL_NO)
		err_set(e, ERR_PERM, "%s", v->why);
	else {
		char *name = NULL;
		sqlite3_stmt *s = store_prepare(st, "SELECT repo, number FROM "
						"items WHERE id = ?", NULL);

		if (s) {
			sqlite3_bind_int64(s, 1, item_id);
			/* only words for the refusal: an error keeps
			 * "the item" */
			if (store_step(st, s, "reading an item", NULL) == 1)
				name = item_name((const char *)
						 sqlite3_column_text(s, 0),
						 sqlite3_column_int64(s, 1));
			sqlite3_finalize(s);
		}
		err_set(e, ERR_INPUT, "%s is not being screened: %s is "
			"answered in screening rounds only (it is coded "
			"against the codebook)", name ? name : "the item",
			SCREENING_DIM);
		free(name);
	}
	free(v->why);
	v->why = NULL;
	return -1;
}

int screening_label_set(struct store *st, const struct actor *a,
		     long long item_id, const char *const *codes, size_t n,
		     struct err *e)
{
	struct label_verdict v;
	struct codebook q = CODEBOOK_INIT;
	char *old = NULL, *reasons = NULL;
	char now[32];
	int screening, submitted, ret = -1;

	if (n > 1)
		return err_set(e, ERR_INPUT, "%s takes one code, not %zu",
			       SCREENING_DIM, n);
	if (store_begin(st, e) < 0)
		return -1;
	if (check_screen(st, a, item_id, &v, e) < 0)
		goto out;
	if (round_reasons(st, v.round_id, &reasons, &screening, e) < 0 ||
	    screening_codebook_from(reasons, &q, e) < 0)
		goto out;
	if (n && !dimension_code(&q.dims[0], codes[0])) {
		struct buf b = BUF_INIT;
		size_t i;

		for (i = 0; i < q.dims[0].nr_codes; i++)
			buf_addf(&b, "%s%s", i ? ", " : "",
				 q.dims[0].codes[i].key);
		err_set(e, ERR_INPUT, "%s=%s: no such answer in this "
			"screening round (%s)", SCREENING_DIM, codes[0], b.ptr);
		buf_release(&b);
		goto out;
	}
	if (own_answer(st, item_id, a->member_id, &old, &submitted, e) < 0)
		goto out;
	if (!n && submitted) {
		err_set(e, ERR_INPUT, "%s submitted this item, and %s is "
			"required: choose another answer instead of clearing "
			"it (a submitted item keeps every required dimension "
			"coded)", a->name, SCREENING_DIM);
		goto out;
	}
	if ((!n && !old) || (n && old && !strcmp(old, codes[0]))) {
		ret = store_commit(st, e);
		goto out;
	}
	store_now(now);
	if (n ? exec_item(st, "INSERT INTO screen_labels (item_id, member_id, "
			  "code, labeled_at) VALUES (?1, ?2, ?3, ?4) ON "
			  "CONFLICT (item_id, member_id) DO UPDATE SET code = "
			  "?3, labeled_at = ?4", item_id, a->member_id,
			  codes[0], now, "saving the answer", e) :
	    exec_item(st, "DELETE FROM screen_labels WHERE item_id = ?1 AND "
		      "member_id = ?2", item_id, a->member_id, NULL, NULL,
		      "saving the answer", e))
		goto out;
	if (audit_write(st, a->os_user, actor_for(a), "screen.label", item_id,
			SCREENING_DIM, old, n ? codes[0] : NULL, e) < 0)
		goto out;
	ret = store_commit(st, e);
out:
	if (ret < 0)
		store_rollback(st);
	codebook_release(&q);
	free(reasons);
	free(old);
	return ret;
}

int screening_submit(struct store *st, const struct actor *a,
		  long long item_id, struct err *e)
{
	struct label_verdict v;
	char *code = NULL;
	char now[32];
	int submitted, ret = -1;

	if (store_begin(st, e) < 0)
		return -1;
	if (check_screen(st, a, item_id, &v, e) < 0 ||
	    own_answer(st, item_id, a->member_id, &code, &submitted, e) < 0)
		goto out;
	if (!code) {
		err_set(e, ERR_INPUT, "not submitted: required dimension not "
			"coded: %s", SCREENING_DIM);
		goto out;
	}
	if (submitted) {
		ret = store_commit(st, e);
		goto out;
	}
	store_now(now);
	if (exec_item(st, "UPDATE screen_labels SET submitted_at = ?4 WHERE "
		      "item_id = ?1 AND member_id = ?2 AND ?3 IS NULL",
		      item_id, a->member_id, NULL, now, "submitting", e) < 0 ||
	    audit_write(st, a->os_user, actor_for(a), "screen.submit",
			item_id, SCREENING_DIM, NULL, now, e) < 0)
		goto out;
	ret = store_commit(st, e);
out:
	if (ret < 0)
		store_rollback(st);
	free(code);
	return ret;
}

int screening_coding_load(struct store *st, long long item_id,
		       long long member_id, struct coding *c, struct err *e)
{
	sqlite3_stmt *s;
	int rc;

	memset(c, 0, sizeof(*c));
	c->item_id = item_id;
	c->member_id = member_id;
	s = store_prepare(st, "SELECT (SELECT code FROM screen_labels WHERE "
			  "item_id = ?1 AND member_id = ?2), (SELECT "
			  "submitted_at FROM screen_labels WHERE item_id = ?1 "
			  "AND member_id = ?2), (SELECT text FROM memos WHERE "
			  "item_id = ?1 AND member_id = ?2), EXISTS (SELECT 1 "
			  "FROM flags WHERE item_id = ?1 AND member_id = ?2 AND "
			  "flag = 'uncertain'), EXISTS (SELECT 1 FROM flags "
			  "WHERE item_id = ?1 AND member_id = ?2 AND flag = "
			  "'discuss')", e);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, item_id);
	sqlite3_bind_int64(s, 2, member_id);
	rc = store_step(st, s, "loading the screening answer", e);
	if (rc > 0) {
		const char *code = (const char *)sqlite3_column_text(s, 0);
		const char *at = (const char *)sqlite3_column_text(s, 1);
		const char *memo = (const char *)sqlite3_column_text(s, 2);

		if (code) {
			c->dims = xcalloc(1, sizeof(*c->dims));
			c->alloc_dims = c->nr_dims = 1;
			c->dims[0].dim = xstrdup(SCREENING_DIM);
			c->dims[0].codes = xcalloc(1, sizeof(char *));
			c->dims[0].codes[0] = xstrdup(code);
			c->dims[0].nr_codes = 1;
		}
		c->submitted = at != NULL;
		c->submitted_at = at ? xstrdup(at) : NULL;
		c->memo = memo ? xstrdup(memo) : NULL;
		c->uncertain = sqlite3_column_int(s, 3);
		c->discuss = sqlite3_column_int(s, 4);
	}
	sqlite3_finalize(s);
	if (rc < 0) {
		coding_release(c);
		return -1;
	}
	return 0;
}

/* Record a decision and audit it. */
static int decide(struct store *st, const struct actor *a, long long item_id,
		  long long round_id, const char *code, const char *how,
		  const char *rationale, const char *cause, const char *old,
		  struct err *e)
{
	sqlite3_stmt *s;
	char now[32];
	int rc;

	store_now(now);
	s = store_prepare(st, "INSERT INTO screen_decisions (item_id, "
			  "round_id, code, how, rationale, cause, decided_by, "
			  "decided_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) "
			  "ON CONFLICT (item_id) DO UPDATE SET round_id = ?2, "
			  "code = ?3, how = ?4, rationale = ?5, cause = ?6, "
			  "decided_by = ?7, decided_at = ?8", e);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, item_id);
	sqlite3_bind_int64(s, 2, round_id);
	sqlite3_bind_text(s, 3, code, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 4, how, -1, SQLITE_STATIC);
	store_bind_text(s, 5, rationale);
	store_bind_text(s, 6, cause && *cause ? cause : NULL);
	sqlite3_bind_text(s, 7, a->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 8, now, -1, SQLITE_STATIC);
	rc = store_step_done(st, s, "saving the screening decision", e);
	sqlite3_finalize(s);
	if (rc < 0)
		return -1;
	return audit_write(st, a->os_user, actor_for(a),
			   !strcmp(how, "agreed") ? "screen.agreed" :
			   "screen.adjudicated", item_id, SCREENING_DIM, old, code,
			   e);
}

int screening_decide_round(struct store *st, const struct actor *a,
			long long round_id, size_t *nr, struct err *e)
{
	sqlite3_stmt *s;
	long long *ids = NULL;
	char **codes = NULL;
	size_t n = 0, alloc = 0, i;
	int rc, ret = -1;

	if (nr)
		*nr = 0;
	/* items every screener submitted, all with one answer */
	s = store_prepare(st, "SELECT sa.item_id, min(l.code) FROM "
			  "screen_assignments sa JOIN round_annotators ra ON "
			  "ra.round_id = sa.round_id LEFT JOIN screen_labels l "
			  "ON l.item_id = sa.item_id AND l.member_id = "
			  "ra.member_id AND l.submitted_at IS NOT NULL WHERE "
			  "sa.round_id = ?1 AND NOT EXISTS (SELECT 1 FROM "
			  "screen_decisions d WHERE d.item_id = sa.item_id) "
			  "GROUP BY sa.item_id HAVING count(l.code) = count(*) "
			  "AND count(DISTINCT l.code) = 1 ORDER BY "
			  "min(sa.position)", e);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, round_id);
	while ((rc = store_step(st, s, "reading the screening answers",
				e)) > 0) {
		ALLOC_GROW(ids, n + 1, alloc);
		codes = xrealloc(codes, alloc * sizeof(*codes));
		ids[n] = sqlite3_column_int64(s, 0);
		codes[n++] = xstrdup((const char *)sqlite3_column_text(s, 1));
	}
	sqlite3_finalize(s);
	if (rc < 0)
		goto out;
	for (i = 0; i < n; i++)
		if (decide(st, a, ids[i], round_id, codes[i], "agreed", NULL,
			   NULL, NULL, e) < 0)
			goto out;
	if (nr)
		*nr = n;
	ret = 0;
out:
	for (i = 0; i < n; i++)
		free(codes[i]);
	free(codes);
	free(ids);
	return ret;
}

int screening_undecide_round(struct store *st, const struct actor *a,
			  long long round_id, struct err *e)
{
	sqlite3_stmt *s, *d = NULL;
	int rc;

	s = store_prepare(st, "SELECT item_id, code FROM screen_decisions "
			  "WHERE round_id = ?1 AND how = 'agreed' AND item_id "
			  "NOT IN (SELECT item_id FROM assignments) ORDER BY "
			  "item_id", e);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, round_id);
	d = store_prepare(st, "DELETE FROM screen_decisions WHERE item_id = ?",
			  e);
	if (!d) {
		sqlite3_finalize(s);
		return -1;
	}
	while ((rc = store_step(st, s, "reading the screening decisions",
				e)) > 0) {
		long long id = sqlite3_column_int64(s, 0);

		sqlite3_reset(d);
		sqlite3_bind_int64(d, 1, id);
		if (store_step_done(st, d, "undoing a decision", e) < 0) {
			rc = -1;
			break;
		}
		if (audit_write(st, a->os_user, actor_for(a),
				"screen.undecided", id, SCREENING_DIM,
				(const char *)sqlite3_column_text(s, 1), NULL,
				e) < 0) {
			rc = -1;
			break;
		}
	}
	sqlite3_finalize(s);
	sqlite3_finalize(d);
	return rc < 0 ? -1 : 0;
}

int screening_resolve(struct store *st, const struct actor *a,
		   long long item_id, const char *code, const char *rationale,
		   const char *cause, struct err *e)
{
	struct codebook q = CODEBOOK_INIT;
	sqlite3_stmt *s = NULL;
	char *reasons = NULL, *old = NULL, *name = NULL;
	long long round = 0;
	int screening, coded = 0, need = 0, have = 0, rc, ret = -1;

	if (actor_require(a, ROLES(ROLE_OWNER) | ROLES(ROLE_ADJUDICATOR),
			  "adjudication", e) < 0)
		return -1;
	if (!rationale || !*rationale)
		return err_set(e, ERR_INPUT, "a resolution needs a rationale "
			       "(--rationale TEXT)");
	if (cause && *cause && !adjudicate_valid_cause(cause))
		return err_set(e, ERR_INPUT, "--cause %s: one of guideline_gap, "
			       "slip, ambiguous, code_missing", cause);
	if (store_begin(st, e) < 0)
		return -1;
	s = store_prepare(st, "SELECT i.repo, i.number, sa.round_id, EXISTS "
			  "(SELECT 1 FROM assignments WHERE item_id = i.id), "
			  "(SELECT code FROM screen_decisions WHERE item_id = "
			  "i.id), (SELECT count(*) FROM round_annotators WHERE "
			  "round_id = sa.round_id), (SELECT count(*) FROM "
			  "screen_labels l JOIN round_annotators ra ON "
			  "ra.member_id = l.member_id AND ra.round_id = "
			  "sa.round_id WHERE l.item_id = i.id AND "
			  "l.submitted_at IS NOT NULL) FROM items i LEFT JOIN "
			  "screen_assignments sa ON sa.item_id = i.id WHERE "
			  "i.id = ?", e);
	if (!s)
		goto out;
	sqlite3_bind_int64(s, 1, item_id);
	rc = store_step(st, s, "reading the item", e);
	if (rc > 0) {
		const char *o = (const char *)sqlite3_column_text(s, 4);

		name = item_name((const char *)sqlite3_column_text(s, 0),
				 sqlite3_column_int64(s, 1));
		round = sqlite3_column_int64(s, 2);
		coded = sqlite3_column_int(s, 3);
		old = o ? xstrdup(o) : NULL;
		need = sqlite3_column_int(s, 5);
		have = sqlite3_column_int(s, 6);
	}
	sqlite3_finalize(s);
	s = NULL;
	if (rc < 0)
		goto out;
	if (!rc) {
		err_set(e, ERR_NOTFOUND, "no item with id %lld", item_id);
		goto out;
	}
	if (!round) {
		err_set(e, ERR_INPUT, "%s is in no screening round: %s is "
			"decided in screening rounds only", name, SCREENING_DIM);
		goto out;
	}
	if (coded) {
		err_set(e, ERR_INPUT, "%s is in a coding round already: its "
			"inclusion (%s) can no longer change", name,
			old ? old : "?");
		goto out;
	}
	if (have < need || !need) {
		err_set(e, ERR_INPUT, "%s is not ready: %d of %d screeners "
			"have submitted", name, have, need);
		goto out;
	}
	if (round_reasons(st, round, &reasons, &screening, e) < 0 ||
	    screening_codebook_from(reasons, &q, e) < 0)
		goto out;
	if (!code || !dimension_code(&q.dims[0], code)) {
		struct buf b = BUF_INIT;
		size_t i;

		for (i = 0; i < q.dims[0].nr_codes; i++)
			buf_addf(&b, "%s%s", i ? ", " : "",
				 q.dims[0].codes[i].key);
		err_set(e, ERR_INPUT, "%s=%s: no such answer in the item's "
			"screening round (%s)", SCREENING_DIM, code ? code : "",
			b.ptr);
		buf_release(&b);
		goto out;
	}
	if (decide(st, a, item_id, round, code, "adjudicated", rationale,
		   cause, old, e) < 0)
		goto out;
	ret = store_commit(st, e);
out:
	if (ret < 0)
		store_rollback(st);
	sqlite3_finalize(s);
	codebook_release(&q);
	free(reasons);
	free(old);
	free(name);
	return ret;
}

int screening_disagreements(struct store *st, const struct actor *a,
			 const char *round,
			 int (*fn)(const struct screening_disagreement *d,
				   void *data),
			 void *data, struct err *e)
{
	sqlite3_stmt *s;
	char *salt = NULL;
	long long item = 0;
	char **who = NULL, **codes = NULL;
	size_t nr = 0, alloc = 0, i;
	char *item_s = NULL, *round_s = NULL;
	int blind, rc, stop = 0;

	if (!access_sees_all(a))
		return err_set(e, ERR_PERM, "the screening disagreements show "
			       "every screener's answers: the owner and "
			       "adjudicators only");
	if ((blind = access_blind(st, e)) < 0)
		return -1;
	if (!access_names_coders(a, blind, 0) &&
	    !(salt = adjudicate_salt(st, e)))
		return -1;
	/* every submitted answer of the screeners of items that are ready,
	 * not decided, and differ */
	s = store_prepare(st, "SELECT sa.item_id, i.repo, i.number, r.name, "
			  "m.name, l.code FROM screen_assignments sa JOIN "
			  "rounds r ON r.id = sa.round_id JOIN items i ON i.id "
			  "= sa.item_id JOIN round_annotators ra ON ra.round_id "
			  "= sa.round_id JOIN screen_labels l ON l.item_id = "
			  "sa.item_id AND l.member_id = ra.member_id AND "
			  "l.submitted_at IS NOT NULL JOIN members m ON m.id = "
			  "l.member_id WHERE (?1 IS NULL OR r.name = ?1) AND "
			  "NOT EXISTS (SELECT 1 FROM screen_decisions d WHERE "
			  "d.item_id = sa.item_id) AND (SELECT count(*) FROM "
			  "screen_labels x JOIN round_annotators y ON "
			  "y.member_id = x.member_id AND y.round_id = "
			  "sa.round_id WHERE x.item_id = sa.item_id AND "
			  "x.submitted_at IS NOT NULL) = (SELECT count(*) FROM "
			  "round_annotators WHERE round_id = sa.round_id) AND "
			  "(SELECT count(DISTINCT x.code) FROM screen_labels x "
			  "JOIN round_annotators y ON y.member_id = x.member_id "
			  "AND y.round_id = sa.round_id WHERE x.item_id = "
			  "sa.item_id AND x.submitted_at IS NOT NULL) > 1 "
			  "ORDER BY sa.item_id, l.member_id", e);
	if (!s) {
		free(salt);
		return -1;
	}
	store_bind_text(s, 1, round);
	for (;;) {
		rc = store_step(st, s, "reading the screening answers", e);
		if (rc < 0)
			break;
		if (nr && (!rc || sqlite3_column_int64(s, 0) != item)) {
			struct screening_disagreement d;

			if (salt && nr >= 2 && adjudicate_swap(salt, item)) {
				char *t = codes[0];

				codes[0] = codes[1];
				codes[1] = t;
			}
			if (salt)
				for (i = 0; i < nr; i++) {
					struct buf b = BUF_INIT;

					free(who[i]);
					buf_addf(&b, "Coder %zu", i + 1);
					who[i] = buf_detach(&b, NULL);
				}
			d.item = item_s;
			d.round = round_s;
			d.nr_coders = nr;
			d.coders = (const char *const *)who;
			d.codes = (const char *const *)codes;
			stop = fn(&d, data);
			for (i = 0; i < nr; i++) {
				free(who[i]);
				free(codes[i]);
			}
			nr = 0;
			free(item_s);
			free(round_s);
			item_s = round_s = NULL;
			if (stop)
				break;
		}
		if (!rc)
			break;
		if (!nr) {
			item = sqlite3_column_int64(s, 0);
			item_s = item_name((const char *)
					   sqlite3_column_text(s, 1),
					   sqlite3_column_int64(s, 2));
			round_s = xstrdup((const char *)
					  sqlite3_column_text(s, 3));
		}
		ALLOC_GROW(who, nr + 1, alloc);
		codes = xrealloc(codes, alloc * sizeof(*codes));
		who[nr] = xstrdup((const char *)sqlite3_column_text(s, 4));
		codes[nr++] = xstrdup((const char *)sqlite3_column_text(s, 5));
	}
	sqlite3_finalize(s);
	for (i = 0; i < nr; i++) {
		free(who[i]);
		free(codes[i]);
	}
	free(who);
	free(codes);
	free(item_s);
	free(round_s);
	free(salt);
	if (stop)
		return stop;
	return rc < 0 ? -1 : 0;
}

int screening_count(struct store *st, struct screening_counts *c, struct err *e)
{
	sqlite3_stmt *s;
	int rc;

	memset(c, 0, sizeof(*c));
	s = store_prepare(st, "SELECT (SELECT count(*) FROM rounds WHERE kind "
			  "= 'screen'), (SELECT count(*) FROM "
			  "screen_assignments), (SELECT count(*) FROM "
			  "screen_decisions), (SELECT count(*) FROM "
			  "screen_decisions WHERE code = 'include'), (SELECT "
			  "count(*) FROM screen_decisions d WHERE code = "
			  "'include' AND d.item_id IN (SELECT item_id FROM "
			  "assignments))", e);
	if (!s)
		return -1;
	rc = store_step(st, s, "counting the screening", e);
	if (rc > 0) {
		c->rounds = sqlite3_column_int64(s, 0);
		c->screened = sqlite3_column_int64(s, 1);
		c->decided = sqlite3_column_int64(s, 2);
		c->included = sqlite3_column_int64(s, 3);
		c->excluded = c->decided - c->included;
		c->undecided = c->screened - c->decided;
		c->in_coding = sqlite3_column_int64(s, 4);
	}
	sqlite3_finalize(s);
	return rc < 0 ? -1 : 0;
}

int screening_answers(struct store *st, const struct actor *a,
		      int (*fn)(const struct screening_answer *ans,
				void *data),
		      void *data, struct err *e)
{
	sqlite3_stmt *s;
	char *salt = NULL;
	int blind, rc, stop = 0;

	if (a->role == ROLE_NONE)
		return err_set(e, ERR_PERM, "%s is not a member of this study",
			       a->name ? a->name : "you");
	if ((blind = access_blind(st, e)) < 0)
		return -1;
	if (!access_names_coders(a, blind, 0) &&
	    !(salt = adjudicate_salt(st, e)))
		return -1;
	s = store_prepare(st, "SELECT l.item_id, i.repo, i.number, r.name, "
			  "m.name, l.code, l.labeled_at, l.submitted_at, "
			  "l.member_id, r.closed_at IS NOT NULL, EXISTS "
			  "(SELECT 1 FROM screen_decisions d WHERE d.item_id = "
			  "l.item_id), (SELECT count(*) FROM screen_labels x "
			  "WHERE x.item_id = l.item_id AND x.submitted_at IS "
			  "NOT NULL AND x.member_id < l.member_id), (SELECT "
			  "count(*) FROM screen_labels x WHERE x.item_id = "
			  "l.item_id AND x.submitted_at IS NOT NULL) FROM "
			  "screen_labels l JOIN items i ON i.id = l.item_id "
			  "JOIN members m ON m.id = l.member_id LEFT JOIN "
			  "screen_assignments sa ON sa.item_id = l.item_id "
			  "LEFT JOIN rounds r ON r.id = sa.round_id ORDER BY "
			  "l.item_id, l.member_id", e);
	if (!s) {
		free(salt);
		return -1;
	}
	while (!stop && (rc = store_step(st, s, "reading the screening "
					 "answers", e)) > 0) {
		struct screening_answer ans;
		struct buf who = BUF_INIT;
		long long item = sqlite3_column_int64(s, 0);
		char *name;

		if (!access_rule(a, sqlite3_column_int64(s, 8),
				 sqlite3_column_type(s, 3) != SQLITE_NULL,
				 sqlite3_column_int(s, 9)))
			continue;
		name = item_name((const char *)sqlite3_column_text(s, 1),
				 sqlite3_column_int64(s, 2));
		if (salt && !sqlite3_column_int(s, 10)) {
			/* numbered as the disagreement list numbers them */
			long long k = sqlite3_column_int64(s, 11);

			if (sqlite3_column_type(s, 7) == SQLITE_NULL)
				buf_addstr(&who, "a coder");
			else {
				if (sqlite3_column_int64(s, 12) >= 2 &&
				    k < 2 && adjudicate_swap(salt, item))
					k = !k;
				buf_addf(&who, "Coder %lld", k + 1);
			}
		} else {
			buf_addstr(&who, (const char *)
				   sqlite3_column_text(s, 4));
		}
		ans.item = name;
		ans.round = (const char *)sqlite3_column_text(s, 3);
		ans.annotator = who.ptr;
		ans.code = (const char *)sqlite3_column_text(s, 5);
		ans.labeled_at = (const char *)sqlite3_column_text(s, 6);
		ans.submitted_at = (const char *)sqlite3_column_text(s, 7);
		stop = fn(&ans, data);
		free(name);
		buf_release(&who);
	}
	sqlite3_finalize(s);
	free(salt);
	if (stop)
		return stop;
	return rc < 0 ? -1 : 0;
}
