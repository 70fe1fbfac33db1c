/* SPDX-License-Identifier: MIT */
/*
 * proposal: see proposal.h.  Listing proposals (the proposer hidden from
 * a blind adjudicator), accepting one into a new codebook version,
 * mapping one onto an existing code.
 */
#include "core/study/proposal.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/base/buf.h"
#include "core/base/suggest.h"
#include "core/store/audit.h"
#include "core/study/access.h"
#include "core/study/adjudicate.h"
#include "core/study/codebook.h"
#include "core/study/evolve_int.h"
#include "core/study/study.h"

static char *dup_col(sqlite3_stmt *s, int i)
{
	const char *t = (const char *)sqlite3_column_text(s, i);

	return t ? xstrdup(t) : NULL;
}

int proposal_list(struct store *st, const struct actor *a, int all,
		  struct proposal **v, size_t *nr, struct err *e)
{
	sqlite3_stmt *s;
	size_t alloc = 0;
	char *salt = NULL;
	int rc, blind;

	*v = NULL;
	*nr = 0;
	if (actor_require(a, ROLES(ROLE_OWNER) | ROLES(ROLE_ADJUDICATOR),
			  "proposals", e) < 0)
		return -1;
	if ((blind = access_blind(st, e)) < 0)
		return -1;
	s = store_prepare(st, "SELECT p.id, p.dimension, p.key, p.name, "
			  "p.definition, i.repo || '#' || i.number, m.name, "
			  "p.created_at, p.status, p.decided_code, (SELECT "
			  "count(*) FROM labels l WHERE l.proposal_id = p.id), "
			  "p.item_id, p.member_id, EXISTS (SELECT 1 FROM "
			  "resolutions x WHERE x.item_id = p.item_id) OR "
			  "EXISTS (SELECT 1 FROM settled x WHERE x.item_id = "
			  "p.item_id) "
			  "FROM proposals p JOIN members m ON m.id = "
			  "p.member_id LEFT JOIN items i ON i.id = p.item_id "
			  "WHERE ?1 OR p.status = 'open' ORDER BY p.id", e);
	if (!s)
		return -1;
	sqlite3_bind_int(s, 1, all);
	while ((rc = store_step(st, s, "listing proposals", e)) > 0) {
		struct proposal *p;

		ALLOC_GROW(*v, *nr + 1, alloc);
		p = &(*v)[(*nr)++];
		p->id = sqlite3_column_int64(s, 0);
		p->dimension = dup_col(s, 1);
		p->key = dup_col(s, 2);
		p->name = dup_col(s, 3);
		p->definition = dup_col(s, 4);
		p->item = dup_col(s, 5);
		p->member = dup_col(s, 6);
		p->created_at = dup_col(s, 7);
		p->status = dup_col(s, 8);
		p->decided_code = dup_col(s, 9);
		p->nr_labels = sqlite3_column_int(s, 10);
		/* who proposed it would tell a blind adjudicator who the
		 * item's Coder 1 is */
		if (!access_names_coders(a, blind, sqlite3_column_int(s, 13))) {
			struct buf who = BUF_INIT;

			if (!salt && !(salt = adjudicate_salt(st, e)))
				rc = -1;
			else if (adjudicate_coder_label(st, salt,
				   sqlite3_column_int64(s, 11),
				   sqlite3_column_int64(s, 12), &who, e) < 0)
				rc = -1;
			free(p->member);
			p->member = buf_detach(&who, NULL);
			if (rc < 0)
				break;
		}
	}
	sqlite3_finalize(s);
	free(salt);
	if (rc < 0) {
		proposal_list_free(*v, *nr);
		*v = NULL;
		*nr = 0;
		return -1;
	}
	return 0;
}

void proposal_list_free(struct proposal *v, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		free(v[i].dimension);
		free(v[i].key);
		free(v[i].name);
		free(v[i].definition);
		free(v[i].item);
		free(v[i].member);
		free(v[i].created_at);
		free(v[i].status);
		free(v[i].decided_code);
	}
	free(v);
}

static int load_open_proposal(struct store *st, long long id,
			      struct proposal *p, struct err *e)
{
	sqlite3_stmt *s;
	int rc;

	memset(p, 0, sizeof(*p));
	s = store_prepare(st, "SELECT dimension, key, name, definition, "
			  "status FROM proposals WHERE id = ?", e);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	rc = store_step(st, s, "reading a proposal", e);
	if (rc > 0) {
		p->id = id;
		p->dimension = dup_col(s, 0);
		p->key = dup_col(s, 1);
		p->name = dup_col(s, 2);
		p->definition = dup_col(s, 3);
		p->status = dup_col(s, 4);
	}
	sqlite3_finalize(s);
	if (rc < 0)
		return -1;
	if (rc == 0)
		return err_set(e, ERR_NOTFOUND, "proposal %lld: no such "
			       "proposal", id);
	if (strcmp(p->status, "open")) {
		err_set(e, ERR_INPUT, "proposal %lld is already %s", id,
			p->status);
		free(p->dimension);
		free(p->key);
		free(p->name);
		free(p->definition);
		free(p->status);
		return -1;
	}
	return 0;
}

static void proposal_clear(struct proposal *p)
{
	free(p->dimension);
	free(p->key);
	free(p->name);
	free(p->definition);
	free(p->status);
	memset(p, 0, sizeof(*p));
}

static int decide(struct store *st, const struct actor *a, long long id,
		  const char *status, const char *code, struct err *e)
{
	sqlite3_stmt *s;
	char now[32];
	int rc;

	store_now(now);
	s = store_prepare(st, "UPDATE proposals SET status = ?, decided_code = "
			  "?, decided_by = ?, decided_at = ? WHERE id = ?", e);
	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, status, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, code, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 3, a->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 4, now, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 5, id);
	rc = store_step(st, s, "deciding a proposal", e);
	sqlite3_finalize(s);
	if (rc < 0)
		return -1;
	return 0;
}

char *codebook_version_next(const char *v)
{
	size_t n = strlen(v), i = n;
	struct buf b = BUF_INIT;

	while (i > 0 && v[i - 1] >= '0' && v[i - 1] <= '9')
		i--;
	if (i == n) {
		buf_addf(&b, "%s.1", v);
	} else {
		buf_add(&b, v, i);
		buf_addf(&b, "%lld", atoll(v + i) + 1);
	}
	return buf_detach(&b, NULL);
}

/* The current codebook's JSON into *root (owned: cJSON_Delete()).  0,
 * or -1 with `e` filled. */
static int current_json(struct store *st, cJSON **root, struct err *e)
{
	sqlite3_stmt *s;

	*root = NULL;
	s = store_prepare(st, "SELECT json FROM codebooks WHERE current", e);
	if (!s)
		return -1;
	switch (store_step(st, s, "reading the codebook", e)) {
	case -1:
		sqlite3_finalize(s);
		return -1;
	case 1:
		*root = cJSON_Parse((const char *)sqlite3_column_text(s, 0));
	}
	sqlite3_finalize(s);
	if (!*root)
		return err_set(e, ERR_INPUT, "the study has no codebook");
	return 0;
}

/* Add the code proposal `p` (number `id`) proposes to its dimension in
 * the codebook JSON `root`, before the dimension's `other`.  0, or -1
 * with `e` filled when the dimension is gone or has the code already. */
static int add_code(cJSON *root, const struct proposal *p, long long id,
		    struct err *e)
{
	cJSON *dims, *dim, *codes, *code, *el;
	int pos = 0, other_at = -1;

	dims = cJSON_GetObjectItemCaseSensitive(root, "dimensions");
	dim = NULL;
	cJSON_ArrayForEach(el, dims) {
		cJSON *k = cJSON_GetObjectItemCaseSensitive(el, "key");

		if (cJSON_IsString(k) && !strcmp(k->valuestring, p->dimension))
			dim = el;
	}
	if (!dim)
		return err_set(e, ERR_INPUT, "proposal %lld: dimension %s is "
			       "no longer in the codebook", id, p->dimension);
	codes = cJSON_GetObjectItemCaseSensitive(dim, "codes");
	cJSON_ArrayForEach(el, codes) {
		cJSON *k = cJSON_GetObjectItemCaseSensitive(el, "key");

		if (cJSON_IsString(k) && !strcmp(k->valuestring, p->key)) {
			err_set(e, ERR_INPUT, "proposal %lld: %s=%s exists "
				"already; map the proposal onto it", id,
				p->dimension, p->key);
			return -1;
		}
		if (cJSON_IsString(k) && !strcmp(k->valuestring, "other"))
			other_at = pos;
		pos++;
	}
	code = cJSON_CreateObject();
	cJSON_AddStringToObject(code, "key", p->key);
	cJSON_AddStringToObject(code, "name", p->name);
	cJSON_AddStringToObject(code, "definition", p->definition);
	/* before `other`, which stays last (cJSON's insert is unreliable
	 * in the versions Debian ships, so move `other` by hand) */
	if (other_at >= 0) {
		cJSON *other = cJSON_DetachItemFromArray(codes, other_at);

		cJSON_AddItemToArray(codes, code);
		cJSON_AddItemToArray(codes, other);
	} else {
		cJSON_AddItemToArray(codes, code);
	}
	return 0;
}

int proposal_accept(struct store *st, const struct actor *a, long long id,
		    const char *version, struct err *e)
{
	struct proposal p;
	struct codebook nc = CODEBOOK_INIT;
	cJSON *root = NULL, *el;
	char *json = NULL, *newver = NULL;
	int ret = -1, moved = 0;

	if (actor_require(a, ROLES(ROLE_OWNER) | ROLES(ROLE_ADJUDICATOR),
			  "proposals accept", e) < 0)
		return -1;
	if (store_begin(st, e) < 0)
		return -1;
	if (load_open_proposal(st, id, &p, e) < 0)
		goto out_nop;
	if (current_json(st, &root, e) < 0 || add_code(root, &p, id, e) < 0)
		goto out;
	el = cJSON_GetObjectItemCaseSensitive(root, "version");
	newver = version ? xstrdup(version) :
		 codebook_version_next(cJSON_IsString(el) ?
				       el->valuestring : "1");
	cJSON_ReplaceItemInObjectCaseSensitive(root, "version",
					       cJSON_CreateString(newver));
	json = cJSON_Print(root);
	if (codebook_parse(&nc, json, strlen(json), "the accepted codebook",
			   e) < 0)
		goto out;
	if (study_store_codebook(st, &nc, json, "proposal", a->os_user,
				 actor_for(a), e) < 0)
		goto out;
	if (evolve_move_labels(st, p.dimension, "other", p.key, id, &moved,
			       e) < 0)
		goto out;
	if (decide(st, a, id, "accepted", p.key, e) < 0)
		goto out;
	{
		struct buf note = BUF_INIT, d = BUF_INIT;
		int rc;

		buf_addf(&note, "%s (accepted into %s, %d labels)", p.key,
			 newver, moved);
		audit_detail_int(&d, "proposal", id);
		rc = audit_write_detail(st, a->os_user, actor_for(a),
					"proposal.accept", 0, p.dimension,
					"other", note.ptr,
					audit_detail_end(&d), e);
		buf_release(&note);
		buf_release(&d);
		if (rc < 0)
			goto out;
	}
	ret = store_commit(st, e);
out:
	proposal_clear(&p);
out_nop:
	if (ret < 0)
		store_rollback(st);
	cJSON_Delete(root);
	codebook_release(&nc);
	free(json);
	free(newver);
	return ret;
}

int proposal_map(struct store *st, const struct actor *a, long long id,
		 const char *code, struct err *e)
{
	struct proposal p;
	struct codebook cb = CODEBOOK_INIT;
	const struct dimension *d;
	int ret = -1, moved = 0;

	if (actor_require(a, ROLES(ROLE_OWNER) | ROLES(ROLE_ADJUDICATOR),
			  "proposals map", e) < 0)
		return -1;
	if (store_begin(st, e) < 0)
		return -1;
	if (load_open_proposal(st, id, &p, e) < 0)
		goto out_nop;
	if (study_codebook(st, &cb, NULL, e) < 0)
		goto out;
	d = codebook_dim(&cb, p.dimension);
	if (!d || !dimension_code(d, code)) {
		err_set(e, ERR_INPUT, "%s=%s: no such code in the current "
			"codebook", p.dimension, code);
		if (d)
			err_suggest(e, dimension_suggest_code(d, code));
		goto out;
	}
	if (evolve_move_labels(st, p.dimension, "other", code, id, &moved,
			       e) < 0 ||
	    decide(st, a, id, "mapped", code, e) < 0)
		goto out;
	{
		struct buf note = BUF_INIT, det = BUF_INIT;
		int rc;

		buf_addf(&note, "%s (proposal %s mapped, %d labels)", code,
			 p.key, moved);
		audit_detail_int(&det, "proposal", id);
		audit_detail_str(&det, "code", code);
		rc = audit_write_detail(st, a->os_user, actor_for(a),
					"proposal.map", 0, p.dimension,
					"other", note.ptr,
					audit_detail_end(&det), e);
		buf_release(&note);
		buf_release(&det);
		if (rc < 0)
			goto out;
	}
	ret = store_commit(st, e);
out:
	proposal_clear(&p);
out_nop:
	if (ret < 0)
		store_rollback(st);
	codebook_release(&cb);
	return ret;
}
