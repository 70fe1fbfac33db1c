/* SPDX-License-Identifier: MIT */
/*
 * replay_actions: what each audited action did to the study, done again
 * to the replay's r_ tables: the statements (the writers' SQL over r_
 * tables), the readers of an audit row's fields and one handler per
 * action in actions[].  A new writer adds its handler here.  See
 * replay.c for the whole check.
 */
#include "core/study/replay.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/study/access.h"
#include "core/study/adjudicate.h"
#include "core/base/buf.h"
#include "core/study/evolve.h"
#include "core/study/proposal.h"
#include "core/study/item.h"
#include "core/store/schema.sql.h"
#include "core/study/replay_int.h"

/* ---- the replay's state ------------------------------------------------- */


static const char *const stmt_sql[NR_STMTS] = {
	[S_MEMBER_ID] = "SELECT id FROM r_members WHERE name = ?1",
	[S_META] = "INSERT INTO r_meta (key, value) VALUES (?1, ?2) ON "
		"CONFLICT (key) DO UPDATE SET value = excluded.value",
	[S_OWNER] = "INSERT INTO r_members (id, name, role, active, machine, "
		"added_at) VALUES (?1, ?2, 'owner', 1, 0, ?3)",
	/* core/study/member.c's member_add() */
	[S_MEMBER_ADD] = "INSERT INTO r_members (id, name, role, active, "
		"added_at, machine) VALUES (?1, ?2, ?3, 1, ?4, ?5) ON "
		"CONFLICT (name) DO UPDATE SET role = ?3, active = 1, "
		"machine = ?5",
	[S_MEMBER_REMOVE] = "UPDATE r_members SET active = 0 WHERE name = ?1",
	[S_CB_UNCURRENT] = "UPDATE r_codebooks SET current = 0",
	[S_CB_ADD] = "INSERT INTO r_codebooks (id, name, version, sha256, "
		"source, loaded_at, loaded_by, current) VALUES (?1, ?2, ?3, "
		"?4, ?5, ?6, ?7, 1)",
	[S_ROUND_ADD] = "INSERT INTO r_rounds (id, name, spec, seed, "
		"stratify, created_at, created_by) VALUES (?1, ?2, ?3, ?4, "
		"?5, ?6, ?7)",
	[S_ROUND_ANN] = "INSERT INTO r_round_annotators VALUES (?1, ?2)",
	[S_ASSIGN] = "INSERT INTO r_assignments VALUES (?1, ?2, ?3)",
	[S_GATE] = "INSERT INTO r_round_gates VALUES (?1, ?2, ?3, ?4, ?5)",
	[S_MOVE] = "DELETE FROM r_assignments WHERE round_id = (SELECT id "
		"FROM r_rounds WHERE name = ?1) AND item_id = ?2",
	[S_CLOSE] = "UPDATE r_rounds SET closed_at = ?2, closed_by = ?3 "
		"WHERE id = ?1",
	/* core/study/round.c's round_freeze() */
	[S_FREEZE1] = "INSERT INTO r_round_frozen (round_id, codebook_id, "
		"frozen_at) SELECT ?1, (SELECT id FROM r_codebooks WHERE "
		"current), ?2",
	[S_FREEZE2] = "INSERT INTO r_round_submissions (round_id, item_id, "
		"member_id) SELECT a.round_id, s.item_id, s.member_id FROM "
		"r_submissions s JOIN r_assignments a ON a.item_id = s.item_id "
		"JOIN r_round_annotators ra ON ra.round_id = a.round_id AND "
		"ra.member_id = s.member_id WHERE a.round_id = ?1",
	[S_FREEZE3] = "INSERT INTO r_round_labels (round_id, item_id, "
		"member_id, dimension, code, codebook_version) SELECT "
		"rs.round_id, l.item_id, l.member_id, l.dimension, l.code, "
		"l.codebook_version FROM r_labels l JOIN "
		"r_round_submissions rs ON rs.item_id = l.item_id AND "
		"rs.member_id = l.member_id WHERE rs.round_id = ?1",
	[S_REOPEN] = "UPDATE r_rounds SET closed_at = NULL, closed_by = NULL "
		"WHERE id = ?1",
	[S_FORGET1] = "DELETE FROM r_round_labels WHERE round_id = ?1",
	[S_FORGET2] = "DELETE FROM r_round_submissions WHERE round_id = ?1",
	[S_FORGET3] = "DELETE FROM r_round_frozen WHERE round_id = ?1",
	[S_RECODE_LABEL] = "DELETE FROM r_labels WHERE item_id = ?1 AND "
		"member_id = ?2 AND dimension = ?3 AND code = ?4",
	[S_RECODE_RES] = "DELETE FROM r_resolutions WHERE item_id = ?1 AND "
		"dimension = ?2",
	[S_LABEL_DEL] = "DELETE FROM r_labels WHERE item_id = ?1 AND "
		"member_id = ?2 AND dimension = ?3",
	[S_LABEL_ADD] = "INSERT INTO r_labels VALUES (?1, ?2, ?3, ?4, ?5, ?6, "
		"?7)",
	[S_SUBMIT] = "INSERT INTO r_submissions VALUES (?1, ?2, ?3)",
	[S_MEMO_SET] = "INSERT INTO r_memos VALUES (?1, ?2, ?3, ?4) ON "
		"CONFLICT (item_id, member_id) DO UPDATE SET text = ?3, "
		"updated_at = ?4",
	[S_MEMO_DEL] = "DELETE FROM r_memos WHERE item_id = ?1 AND member_id "
		"= ?2",
	[S_FLAG_ON] = "INSERT OR IGNORE INTO r_flags VALUES (?1, ?2, ?3, ?4)",
	[S_FLAG_OFF] = "DELETE FROM r_flags WHERE item_id = ?1 AND member_id "
		"= ?2 AND flag = ?3",
	[S_PROPOSE] = "INSERT INTO r_proposals (id, dimension, key, name, "
		"definition, item_id, member_id, created_at, status) VALUES "
		"(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 'open')",
	[S_PROPOSAL] = "SELECT dimension, key FROM r_proposals WHERE id = ?1",
	[S_DECIDE] = "UPDATE r_proposals SET status = ?2, decided_code = ?3, "
		"decided_by = ?4, decided_at = ?5 WHERE id = ?1",
	[S_UNDECIDE] = "UPDATE r_proposals SET status = 'open', decided_code "
		"= NULL, decided_by = NULL, decided_at = NULL WHERE id = ?1",
	/* core/study/evolve.c's move_labels() */
	[S_MOVE_P] = "INSERT OR IGNORE INTO r_labels (item_id, member_id, "
		"dimension, code, codebook_version, proposal_id, labeled_at) "
		"SELECT item_id, member_id, dimension, ?3, codebook_version, "
		"proposal_id, labeled_at FROM r_labels WHERE dimension = ?1 "
		"AND code = ?2 AND proposal_id = ?4",
	[S_MOVE_P_DEL] = "DELETE FROM r_labels WHERE dimension = ?1 AND code "
		"= ?2 AND proposal_id = ?4",
	[S_MOVE_ALL] = "INSERT OR IGNORE INTO r_labels (item_id, member_id, "
		"dimension, code, codebook_version, proposal_id, labeled_at) "
		"SELECT item_id, member_id, dimension, ?3, codebook_version, "
		"proposal_id, labeled_at FROM r_labels WHERE dimension = ?1 "
		"AND code = ?2",
	[S_MOVE_ALL_DEL] = "DELETE FROM r_labels WHERE dimension = ?1 AND "
		"code = ?2",
	[S_RES_OF_DIM] = "SELECT item_id, code, coder1_codes, coder2_codes "
		"FROM r_resolutions WHERE dimension = ?1",
	[S_RES_SET_CODES] = "UPDATE r_resolutions SET code = ?3, "
		"coder1_codes = ?4, coder2_codes = ?5 WHERE item_id = ?1 AND "
		"dimension = ?2",
	/* core/study/adjudicate.c's adjudicate_resolve() */
	[S_RESOLVE] = "INSERT INTO r_resolutions VALUES (?1, ?2, ?3, ?4, ?5, "
		"?6, ?7, ?8, ?9, ?10, ?11) ON CONFLICT (item_id, dimension) DO "
		"UPDATE SET code = ?3, rationale = ?4, cause = ?5, "
		"adjudicator_id = ?10, resolved_at = ?11",
	[S_SETTLE] = "INSERT INTO r_settled VALUES (?1, ?2, ?3, ?4) ON "
		"CONFLICT (item_id) DO UPDATE SET note = ?3, settled_at = ?4",
	[S_EVIDENCE_ADD] = "INSERT INTO r_evidence VALUES (?1, ?2, ?3, ?4, "
		"?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
	[S_EVIDENCE_DEL] = "DELETE FROM r_evidence WHERE id = ?1",
	[S_MACHINE] = "INSERT INTO r_machine_answers VALUES (?1, ?2, ?3, ?4, "
		"?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
};



/* A row that cannot be replayed: the check fails there.  Returns 1 (stop,
 * nothing wrong with reading the study). */
int replay_bad(struct replay *rp, const char *fmt, ...)
{
	char why[300];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	rp->c->failed = REPLAY_STATE;
	/* why may name members or codes: the owner's to read */
	snprintf(rp->c->what, sizeof(rp->c->what), "audit row %lld (%s) "
		 "cannot be replayed%s%s", rp->row ? rp->row->id : 0,
		 rp->row && rp->row->action ? rp->row->action : "?",
		 rp->c->told_all ? ": " : "", rp->c->told_all ? why : "");
	return 1;
}

static sqlite3_stmt *stmt(struct replay *rp, enum stmt_id i)
{
	if (!rp->s[i])
		rp->s[i] = store_prepare(rp->st, stmt_sql[i], rp->e);
	else
		sqlite3_reset(rp->s[i]);
	return rp->s[i];
}

/* Run `s` (bound) to its end: 0; 1 when the replay's tables refused it
 * (a constraint: the log does not fit the state); -1 on a database
 * error. */
static int run(struct replay *rp, sqlite3_stmt *s)
{
	int rc;

	while ((rc = store_step(rp->st, s, "replaying the audit log",
				rp->e)) > 0)
		;
	if (rc == 0) {
		sqlite3_reset(s);
		return 0;
	}
	if (sqlite3_errcode(rp->st->db) == SQLITE_CONSTRAINT) {
		char msg[256];

		snprintf(msg, sizeof(msg), "%s", sqlite3_errmsg(rp->st->db));
		sqlite3_reset(s);
		return replay_bad(rp, "%s", msg);
	}
	sqlite3_reset(s);
	return -1;
}

static void bind_text(sqlite3_stmt *s, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(s, i, v, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(s, i);
}

/* The detail's field `k`: a string (NULL when absent or null). */
static const char *jstr(const struct row *r, const char *k)
{
	cJSON *v = r->detail ? cJSON_GetObjectItemCaseSensitive(r->detail,
								 k) : NULL;

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* The detail's number `k` into *v: 0, or 1 after replay_bad() when it has none
 * and `need`; *v 0 then. */
static int jnum(struct replay *rp, const char *k, int need, double *v)
{
	cJSON *j = rp->row->detail ?
		   cJSON_GetObjectItemCaseSensitive(rp->row->detail, k) : NULL;

	*v = 0;
	if (cJSON_IsNumber(j)) {
		*v = j->valuedouble;
		return 0;
	}
	return need ? replay_bad(rp, "its detail has no %s", k) : 0;
}

static int jint(struct replay *rp, const char *k, long long *v)
{
	double d;
	int rc = jnum(rp, k, 1, &d);

	*v = (long long)d;
	return rc;
}

/* The member the row's change is by (or for). */
static const char *row_member(const struct row *r)
{
	return r->for_member ? r->for_member : r->actor;
}

/* The id of member `name` in the replay: 0, or 1 after replay_bad(), or -1. */
static int member_id(struct replay *rp, const char *name, long long *id)
{
	sqlite3_stmt *s;
	int rc;

	if (!name)
		return replay_bad(rp, "it names no member");
	if (rp->cached_name && !strcmp(rp->cached_name, name)) {
		*id = rp->cached_id;
		return 0;
	}
	if (!(s = stmt(rp, S_MEMBER_ID)))
		return -1;
	sqlite3_bind_text(s, 1, name, -1, SQLITE_TRANSIENT);
	rc = store_step(rp->st, s, "replaying the audit log", rp->e);
	if (rc > 0)
		*id = sqlite3_column_int64(s, 0);
	sqlite3_reset(s);
	if (rc < 0)
		return -1;
	if (!rc)
		return replay_bad(rp, "%s is no member by then", name);
	free(rp->cached_name);
	rp->cached_name = xstrdup(name);
	rp->cached_id = *id;
	return 0;
}

static int meta_set(struct replay *rp, const char *key, const char *value)
{
	sqlite3_stmt *s = stmt(rp, S_META);

	if (!s)
		return -1;
	bind_text(s, 1, key);
	bind_text(s, 2, value);
	return run(rp, s);
}

/* The replay's current codebook version, after a change of it. */
int replay_load_version(struct replay *rp)
{
	sqlite3_stmt *s;
	int rc;

	s = store_prepare(rp->st, "SELECT version FROM r_codebooks WHERE "
			  "current ORDER BY id DESC LIMIT 1", rp->e);
	if (!s)
		return -1;
	rc = store_step(rp->st, s, "replaying the audit log", rp->e);
	free(rp->version);
	rp->version = rc > 0 ? xstrdup((const char *)
				       sqlite3_column_text(s, 0)) : NULL;
	sqlite3_finalize(s);
	return rc < 0 ? -1 : 0;
}

/* ---- the actions -------------------------------------------------------- */

static int do_init(struct replay *rp)
{
	const struct row *r = rp->row;
	sqlite3_stmt *s;
	long long id;
	int rc;

	if ((rc = jint(rp, "member", &id)))
		return rc;
	if (!(s = stmt(rp, S_OWNER)))
		return -1;
	sqlite3_bind_int64(s, 1, id);
	bind_text(s, 2, r->actor);
	bind_text(s, 3, r->at);
	if ((rc = run(rp, s)) ||
	    (rc = meta_set(rp, "title", r->new_ ? r->new_ : "")) ||
	    (rc = meta_set(rp, "created_at", r->at)) ||
	    (rc = meta_set(rp, "blind_adjudication", "1")))
		return rc;
	return meta_set(rp, "coder_salt", jstr(r, "salt"));
}

static int do_blind(struct replay *rp)
{
	return meta_set(rp, "blind_adjudication", rp->row->new_);
}

static int do_codebook(struct replay *rp)
{
	const struct row *r = rp->row;
	sqlite3_stmt *s;
	long long id;
	int rc;

	if ((rc = jint(rp, "id", &id)))
		return rc;
	if (!jstr(r, "name") || !jstr(r, "version") || !jstr(r, "sha256"))
		return replay_bad(rp, "its detail lacks the codebook's name, version "
			   "or sha256");
	if (!(s = stmt(rp, S_CB_UNCURRENT)))
		return -1;
	if ((rc = run(rp, s)))
		return rc;
	if (!(s = stmt(rp, S_CB_ADD)))
		return -1;
	sqlite3_bind_int64(s, 1, id);
	bind_text(s, 2, jstr(r, "name"));
	bind_text(s, 3, jstr(r, "version"));
	bind_text(s, 4, jstr(r, "sha256"));
	bind_text(s, 5, jstr(r, "source"));
	bind_text(s, 6, r->at);
	bind_text(s, 7, r->actor);
	if ((rc = run(rp, s)))
		return rc;
	return replay_load_version(rp);
}

static int do_member_add(struct replay *rp)
{
	const struct row *r = rp->row;
	const char *eq = r->new_ ? strrchr(r->new_, '=') : NULL;
	char *name;
	sqlite3_stmt *s;
	long long id;
	int rc, machine;

	if (!eq || eq == r->new_)
		return replay_bad(rp, "its new value is not NAME=ROLE");
	if ((rc = jint(rp, "id", &id)))
		return rc;
	machine = !strcmp(eq + 1, "machine");
	if (!(s = stmt(rp, S_MEMBER_ADD)))
		return -1;
	name = xstrndup(r->new_, (size_t)(eq - r->new_));
	sqlite3_bind_int64(s, 1, id);
	sqlite3_bind_text(s, 2, name, -1, SQLITE_TRANSIENT);
	bind_text(s, 3, machine ? "annotator" : eq + 1);
	bind_text(s, 4, r->at);
	sqlite3_bind_int(s, 5, machine);
	free(name);
	return run(rp, s);
}

static int do_member_remove(struct replay *rp)
{
	sqlite3_stmt *s = stmt(rp, S_MEMBER_REMOVE);

	if (!s)
		return -1;
	bind_text(s, 1, rp->row->old);
	return run(rp, s);
}

static int do_round_create(struct replay *rp)
{
	const struct row *r = rp->row;
	cJSON *ann = cJSON_GetObjectItemCaseSensitive(r->detail,
						       "annotators"), *el;
	const char *items = jstr(r, "items");
	const char *seed = jstr(r, "seed");
	long long id, *ids = NULL;
	size_t n, i;
	sqlite3_stmt *s;
	int rc;

	if ((rc = jint(rp, "id", &id)))
		return rc;
	if (!cJSON_IsArray(ann) || !items || replay_parse_ids(items, &ids, &n) < 0)
		return replay_bad(rp, "its detail lacks the annotators or items");
	/* a screening round's items are screened (screen_assignments, not
	 * replayed), never coded in it */
	if (jstr(r, "kind") && !strcmp(jstr(r, "kind"), "screen"))
		n = 0;
	if (!(s = stmt(rp, S_ROUND_ADD)))
		goto fail;
	sqlite3_bind_int64(s, 1, id);
	bind_text(s, 2, r->new_);
	bind_text(s, 3, jstr(r, "spec"));
	if (seed)
		sqlite3_bind_int64(s, 4, strtoll(seed, NULL, 10));
	else
		sqlite3_bind_null(s, 4);
	bind_text(s, 5, jstr(r, "stratify"));
	bind_text(s, 6, r->at);
	bind_text(s, 7, row_member(r));
	if ((rc = run(rp, s)))
		goto out;
	cJSON_ArrayForEach(el, ann) {
		if (!cJSON_IsNumber(el)) {
			rc = replay_bad(rp, "an annotator is not a member id");
			goto out;
		}
		if (!(s = stmt(rp, S_ROUND_ANN)))
			goto fail;
		sqlite3_bind_int64(s, 1, id);
		sqlite3_bind_int64(s, 2, (long long)el->valuedouble);
		if ((rc = run(rp, s)))
			goto out;
	}
	for (i = 0; i < n; i++) {
		if (!(s = stmt(rp, S_ASSIGN)))
			goto fail;
		sqlite3_bind_int64(s, 1, id);
		sqlite3_bind_int64(s, 2, ids[i]);
		sqlite3_bind_int64(s, 3, (long long)i);
		if ((rc = run(rp, s)))
			goto out;
	}
	rc = 0;
	goto out;
fail:
	rc = -1;
out:
	free(ids);
	return rc;
}

static int do_round_gate(struct replay *rp)
{
	sqlite3_stmt *s;
	long long round, after, on_lower, forced;
	double k;
	int rc;

	if ((rc = jint(rp, "round", &round)) ||
	    (rc = jint(rp, "after", &after)) ||
	    (rc = jnum(rp, "min_kappa", 1, &k)) ||
	    (rc = jint(rp, "on_lower", &on_lower)) ||
	    (rc = jint(rp, "forced", &forced)))
		return rc;
	if (!(s = stmt(rp, S_GATE)))
		return -1;
	sqlite3_bind_int64(s, 1, round);
	sqlite3_bind_int64(s, 2, after);
	sqlite3_bind_double(s, 3, k);
	sqlite3_bind_int64(s, 4, on_lower);
	sqlite3_bind_int64(s, 5, forced);
	return run(rp, s);
}

static int do_round_move(struct replay *rp)
{
	sqlite3_stmt *s = stmt(rp, S_MOVE);

	if (!s)
		return -1;
	bind_text(s, 1, rp->row->old);
	sqlite3_bind_int64(s, 2, rp->row->item_id);
	return run(rp, s);
}

/* round.add: an item in no round put into an open one (labels import
 * --round); a screening round's items are not replayed. */
static int do_round_add(struct replay *rp)
{
	const struct row *r = rp->row;
	const char *kind = jstr(r, "kind");
	long long id, pos;
	sqlite3_stmt *s;
	int rc;

	if (kind && !strcmp(kind, "screen"))
		return 0;
	if ((rc = jint(rp, "round", &id)) || (rc = jint(rp, "position", &pos)))
		return rc;
	if (!(s = stmt(rp, S_ASSIGN)))
		return -1;
	sqlite3_bind_int64(s, 1, id);
	sqlite3_bind_int64(s, 2, r->item_id);
	sqlite3_bind_int64(s, 3, pos);
	return run(rp, s);
}

static int do_round_close(struct replay *rp)
{
	static const enum stmt_id freeze[] = { S_FREEZE1, S_FREEZE2,
					       S_FREEZE3 };
	sqlite3_stmt *s;
	long long id;
	size_t i;
	int rc;

	if ((rc = jint(rp, "round", &id)))
		return rc;
	if (!(s = stmt(rp, S_CLOSE)))
		return -1;
	sqlite3_bind_int64(s, 1, id);
	bind_text(s, 2, rp->row->at);
	bind_text(s, 3, row_member(rp->row));
	if ((rc = run(rp, s)))
		return rc;
	if (jstr(rp->row, "kind") && !strcmp(jstr(rp->row, "kind"), "screen"))
		return 0;
	for (i = 0; i < 3; i++) {
		if (!(s = stmt(rp, freeze[i])))
			return -1;
		sqlite3_bind_int64(s, 1, id);
		if (i == 0)
			bind_text(s, 2, rp->row->at);
		if ((rc = run(rp, s)))
			return rc;
	}
	return 0;
}

static int do_round_reopen(struct replay *rp)
{
	static const enum stmt_id forget[] = { S_REOPEN, S_FORGET1, S_FORGET2,
					       S_FORGET3 };
	sqlite3_stmt *s;
	long long id;
	size_t i;
	int rc;

	if ((rc = jint(rp, "round", &id)))
		return rc;
	for (i = 0; i < 4; i++) {
		if (!(s = stmt(rp, forget[i])))
			return -1;
		sqlite3_bind_int64(s, 1, id);
		if ((rc = run(rp, s)))
			return rc;
	}
	return 0;
}

/* item, member and dimension of the row into an item-keyed statement */
static int bind_imd(struct replay *rp, sqlite3_stmt *s, int with_dim)
{
	long long mid;
	int rc;

	if (!rp->row->item_id)
		return replay_bad(rp, "it names no item");
	if ((rc = member_id(rp, row_member(rp->row), &mid)))
		return rc;
	sqlite3_bind_int64(s, 1, rp->row->item_id);
	sqlite3_bind_int64(s, 2, mid);
	if (with_dim)
		bind_text(s, 3, rp->row->dimension);
	return 0;
}

static int do_label(struct replay *rp)
{
	const struct row *r = rp->row;
	sqlite3_stmt *s;
	double pid;
	char *codes, *tok, *save = NULL;
	int rc;

	if (!r->dimension)
		return replay_bad(rp, "it names no dimension");
	if ((rc = jnum(rp, "proposal", 0, &pid)))
		return rc;
	if (!(s = stmt(rp, S_LABEL_DEL)))
		return -1;
	if ((rc = bind_imd(rp, s, 1)) || (rc = run(rp, s)))
		return rc;
	if (!r->new_)
		return 0;
	codes = xstrdup(r->new_);
	for (tok = strtok_r(codes, ";", &save); tok;
	     tok = strtok_r(NULL, ";", &save)) {
		if (!(s = stmt(rp, S_LABEL_ADD))) {
			rc = -1;
			break;
		}
		if ((rc = bind_imd(rp, s, 1)))
			break;
		sqlite3_bind_text(s, 4, tok, -1, SQLITE_TRANSIENT);
		bind_text(s, 5, rp->version);
		if (pid && !strcmp(tok, "other"))
			sqlite3_bind_int64(s, 6, (long long)pid);
		else
			sqlite3_bind_null(s, 6);
		bind_text(s, 7, r->at);
		if ((rc = run(rp, s)))
			break;
	}
	free(codes);
	return rc;
}

/* Is `code` one of the ';'-joined `codes` (may be NULL)? */
static int among(const char *codes, const char *code)
{
	size_t n = strlen(code);
	const char *p = codes;

	while (p && *p) {
		const char *end = strchr(p, ';');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (len == n && !strncmp(p, code, n))
			return 1;
		p = end ? end + 1 : NULL;
	}
	return 0;
}

/* recode.queue: a split took the coder's label on the old code away (to
 * be recoded); old and new are the dimension's codes before and after. */
static int do_recode_queue(struct replay *rp)
{
	const struct row *r = rp->row;
	char *codes, *tok, *save = NULL;
	sqlite3_stmt *s;
	int rc = 0;

	if (!r->dimension)
		return replay_bad(rp, "it names no dimension");
	if (!r->old)
		return 0;
	codes = xstrdup(r->old);
	for (tok = strtok_r(codes, ";", &save); tok && !rc;
	     tok = strtok_r(NULL, ";", &save)) {
		if (among(r->new_, tok))
			continue;
		if (!(s = stmt(rp, S_RECODE_LABEL))) {
			rc = -1;
			break;
		}
		if ((rc = bind_imd(rp, s, 1)))
			break;
		sqlite3_bind_text(s, 4, tok, -1, SQLITE_TRANSIENT);
		rc = run(rp, s);
	}
	free(codes);
	return rc;
}

/* recode.resolution: a resolution that chose a split code, taken back. */
static int do_recode_resolution(struct replay *rp)
{
	const struct row *r = rp->row;
	sqlite3_stmt *s;

	if (!r->item_id || !r->dimension)
		return replay_bad(rp, "it names no item or dimension");
	if (!(s = stmt(rp, S_RECODE_RES)))
		return -1;
	sqlite3_bind_int64(s, 1, r->item_id);
	bind_text(s, 2, r->dimension);
	return run(rp, s);
}

static int do_submit(struct replay *rp)
{
	sqlite3_stmt *s = stmt(rp, S_SUBMIT);
	int rc;

	if (!s)
		return -1;
	if ((rc = bind_imd(rp, s, 0)))
		return rc;
	bind_text(s, 3, rp->row->new_);
	return run(rp, s);
}

static int do_memo(struct replay *rp)
{
	sqlite3_stmt *s = stmt(rp, rp->row->new_ ? S_MEMO_SET : S_MEMO_DEL);
	int rc;

	if (!s)
		return -1;
	if ((rc = bind_imd(rp, s, 0)))
		return rc;
	if (rp->row->new_) {
		bind_text(s, 3, rp->row->new_);
		bind_text(s, 4, rp->row->at);
	}
	return run(rp, s);
}

static int do_flag(struct replay *rp)
{
	int on = rp->row->new_ && !strcmp(rp->row->new_, "on");
	sqlite3_stmt *s = stmt(rp, on ? S_FLAG_ON : S_FLAG_OFF);
	int rc;

	if (!s)
		return -1;
	if ((rc = bind_imd(rp, s, 1)))
		return rc;
	if (on)
		bind_text(s, 4, rp->row->at);
	return run(rp, s);
}

static int do_propose(struct replay *rp)
{
	const struct row *r = rp->row;
	sqlite3_stmt *s;
	long long id, mid;
	int rc;

	if ((rc = jint(rp, "id", &id)) ||
	    (rc = member_id(rp, row_member(r), &mid)))
		return rc;
	if (!(s = stmt(rp, S_PROPOSE)))
		return -1;
	sqlite3_bind_int64(s, 1, id);
	bind_text(s, 2, r->dimension);
	bind_text(s, 3, r->new_);
	bind_text(s, 4, jstr(r, "name"));
	bind_text(s, 5, jstr(r, "definition"));
	if (r->item_id)
		sqlite3_bind_int64(s, 6, r->item_id);
	else
		sqlite3_bind_null(s, 6);
	sqlite3_bind_int64(s, 7, mid);
	bind_text(s, 8, r->at);
	return run(rp, s);
}

/* core/study/evolve.c's move_labels(): dim=from to dim=to, of proposal `pid`
 * only when pid > 0. */
static int move_labels(struct replay *rp, const char *dim, const char *from,
		       const char *to, long long pid)
{
	int i, rc;

	for (i = 0; i < 2; i++) {
		sqlite3_stmt *s = stmt(rp, pid ? (i ? S_MOVE_P_DEL : S_MOVE_P) :
				       (i ? S_MOVE_ALL_DEL : S_MOVE_ALL));

		if (!s)
			return -1;
		bind_text(s, 1, dim);
		bind_text(s, 2, from);
		if (!i)
			bind_text(s, 3, to);
		if (pid)
			sqlite3_bind_int64(s, 4, pid);
		if ((rc = run(rp, s)))
			return rc;
	}
	return 0;
}

/* Proposal `id`'s key into *key (owned): 0, 1 after replay_bad(), -1. */
static int proposal_key(struct replay *rp, long long id, char **key)
{
	sqlite3_stmt *s = stmt(rp, S_PROPOSAL);
	int rc;

	*key = NULL;
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	rc = store_step(rp->st, s, "replaying the audit log", rp->e);
	if (rc > 0)
		*key = xstrdup((const char *)sqlite3_column_text(s, 1));
	sqlite3_reset(s);
	if (rc < 0)
		return -1;
	return rc ? 0 : replay_bad(rp, "no proposal %lld by then", id);
}

static int decide(struct replay *rp, long long id, const char *status,
		  const char *code)
{
	sqlite3_stmt *s = stmt(rp, S_DECIDE);

	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	bind_text(s, 2, status);
	bind_text(s, 3, code);
	bind_text(s, 4, row_member(rp->row));
	bind_text(s, 5, rp->row->at);
	return run(rp, s);
}

static int do_proposal_accept(struct replay *rp)
{
	long long id;
	char *key = NULL;
	int rc;

	if ((rc = jint(rp, "proposal", &id)) ||
	    (rc = proposal_key(rp, id, &key)))
		return rc;
	rc = move_labels(rp, rp->row->dimension, "other", key, id);
	if (!rc)
		rc = decide(rp, id, "accepted", key);
	free(key);
	return rc;
}

static int do_proposal_map(struct replay *rp)
{
	const char *code = jstr(rp->row, "code");
	long long id;
	int rc;

	if ((rc = jint(rp, "proposal", &id)))
		return rc;
	if (!code)
		return replay_bad(rp, "its detail has no code");
	if ((rc = move_labels(rp, rp->row->dimension, "other", code, id)))
		return rc;
	return decide(rp, id, "mapped", code);
}

static int do_proposal_reopen(struct replay *rp)
{
	sqlite3_stmt *s;
	long long id;
	int rc;

	if ((rc = jint(rp, "proposal", &id)))
		return rc;
	if ((rc = move_labels(rp, rp->row->dimension, rp->row->old, "other",
			      id)))
		return rc;
	if (!(s = stmt(rp, S_UNDECIDE)))
		return -1;
	sqlite3_bind_int64(s, 1, id);
	return run(rp, s);
}

/* core/study/evolve.c's apply_map(): the labels and the resolutions'
 * codes. */
static int do_codebook_map(struct replay *rp)
{
	const char *to = jstr(rp->row, "to");
	const char *dim = rp->row->dimension, *from = rp->row->old;
	sqlite3_stmt *s, *u;
	int rc;

	if (!to || !dim || !from)
		return replay_bad(rp, "it lacks the dimension, the code or where it "
			   "went");
	if ((rc = move_labels(rp, dim, from, to, 0)))
		return rc;
	s = store_prepare(rp->st, stmt_sql[S_RES_OF_DIM], rp->e);
	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, dim, -1, SQLITE_TRANSIENT);
	while ((rc = store_step(rp->st, s, "replaying the audit log",
				rp->e)) > 0) {
		char *v[3];
		int i, hit = 0, done = 0;

		for (i = 0; i < 3; i++) {
			const char *t = (const char *)
					sqlite3_column_text(s, i + 1);

			v[i] = t ? code_list_replace(t, from, to) : NULL;
			hit |= v[i] != NULL;
			if (!v[i] && t)
				v[i] = xstrdup(t);
		}
		if (hit && !(u = stmt(rp, S_RES_SET_CODES))) {
			done = -1;
		} else if (hit) {
			sqlite3_bind_int64(u, 1, sqlite3_column_int64(s, 0));
			sqlite3_bind_text(u, 2, dim, -1, SQLITE_TRANSIENT);
			for (i = 0; i < 3; i++)
				bind_text(u, i + 3, v[i]);
			done = run(rp, u);
		}
		for (i = 0; i < 3; i++)
			free(v[i]);
		if (done) {
			rc = done;
			break;
		}
	}
	sqlite3_finalize(s);
	return rc;
}

static int do_resolve(struct replay *rp)
{
	const struct row *r = rp->row;
	sqlite3_stmt *s;
	long long mid;
	int rc;

	if (!r->item_id || !r->dimension)
		return replay_bad(rp, "it names no item or dimension");
	if (!jstr(r, "rationale"))
		return replay_bad(rp, "its detail has no rationale");
	if ((rc = member_id(rp, row_member(r), &mid)))
		return rc;
	if (!(s = stmt(rp, S_RESOLVE)))
		return -1;
	sqlite3_bind_int64(s, 1, r->item_id);
	bind_text(s, 2, r->dimension);
	bind_text(s, 3, r->new_);
	bind_text(s, 4, jstr(r, "rationale"));
	bind_text(s, 5, jstr(r, "cause"));
	bind_text(s, 6, jstr(r, "coder1"));
	bind_text(s, 7, jstr(r, "coder1_codes"));
	bind_text(s, 8, jstr(r, "coder2"));
	bind_text(s, 9, jstr(r, "coder2_codes"));
	sqlite3_bind_int64(s, 10, mid);
	bind_text(s, 11, r->at);
	return run(rp, s);
}

static int do_settle(struct replay *rp)
{
	sqlite3_stmt *s = stmt(rp, S_SETTLE);
	int rc;

	if (!s)
		return -1;
	if ((rc = bind_imd(rp, s, 0)))
		return rc;
	bind_text(s, 3, rp->row->new_);
	bind_text(s, 4, rp->row->at);
	return run(rp, s);
}

static int do_evidence_add(struct replay *rp)
{
	static const char *const nums[] = { "old_side", "comment", "from",
					    "to" };
	const struct row *r = rp->row;
	sqlite3_stmt *s;
	long long id, mid, v;
	size_t i;
	int rc;

	if ((rc = jint(rp, "id", &id)))
		return rc;
	if (!jstr(r, "pane") || !jstr(r, "quote"))
		return replay_bad(rp, "its detail lacks the pane or the quote");
	if (!r->item_id)
		return replay_bad(rp, "it names no item");
	if ((rc = member_id(rp, row_member(r), &mid)))
		return rc;
	if (!(s = stmt(rp, S_EVIDENCE_ADD)))
		return -1;
	sqlite3_bind_int64(s, 1, id);
	sqlite3_bind_int64(s, 2, r->item_id);
	sqlite3_bind_int64(s, 3, mid);
	bind_text(s, 4, r->dimension);
	bind_text(s, 5, jstr(r, "pane"));
	bind_text(s, 6, jstr(r, "path"));
	for (i = 0; i < 4; i++) {
		if ((rc = jint(rp, nums[i], &v)))
			return rc;
		sqlite3_bind_int64(s, 7 + (int)i, v);
	}
	bind_text(s, 11, jstr(r, "quote"));
	bind_text(s, 12, r->at);
	/* a pull request's text: its number (schema 11 on) */
	if (!strcmp(jstr(r, "pane"), "pr")) {
		if ((rc = jint(rp, "pr", &v)))
			return rc;
		sqlite3_bind_int64(s, 13, v);
	} else {
		sqlite3_bind_null(s, 13);
	}
	return run(rp, s);
}

static int do_evidence_remove(struct replay *rp)
{
	sqlite3_stmt *s = stmt(rp, S_EVIDENCE_DEL);
	long long id;
	int rc;

	if (!s)
		return -1;
	if ((rc = jint(rp, "id", &id)))
		return rc;
	sqlite3_bind_int64(s, 1, id);
	return run(rp, s);
}

static int do_machine_answer(struct replay *rp)
{
	const struct row *r = rp->row;
	sqlite3_stmt *s;
	long long id, mid, ms;
	int rc;

	if ((rc = jint(rp, "id", &id)) || (rc = jint(rp, "ms", &ms)) ||
	    (rc = member_id(rp, row_member(r), &mid)))
		return rc;
	if (!(s = stmt(rp, S_MACHINE)))
		return -1;
	sqlite3_bind_int64(s, 1, id);
	sqlite3_bind_int64(s, 2, mid);
	sqlite3_bind_int64(s, 3, r->item_id);
	bind_text(s, 4, jstr(r, "command"));
	bind_text(s, 5, jstr(r, "model"));
	bind_text(s, 6, jstr(r, "note"));
	bind_text(s, 7, jstr(r, "version"));
	bind_text(s, 8, jstr(r, "input_sha256"));
	bind_text(s, 9, jstr(r, "answer_sha256"));
	bind_text(s, 10, jstr(r, "answer_sha256"));
	bind_text(s, 11, jstr(r, "rationale"));
	sqlite3_bind_int64(s, 12, ms);
	bind_text(s, 13, r->at);
	return run(rp, s);
}

/* Every action that changes what the replay keeps.  Others (`import`,
 * `codebook.revert`, whose changes have rows of their own) change
 * nothing here. */
static const struct action {
	const char *name;
	int (*fn)(struct replay *rp);
} actions[] = {
	{ "study.init", do_init },
	{ "blind_adjudication", do_blind },
	{ "codebook.load", do_codebook },
	{ "codebook.map", do_codebook_map },
	{ "member.add", do_member_add },
	{ "member.remove", do_member_remove },
	{ "round.create", do_round_create },
	{ "round.gate", do_round_gate },
	{ "round.gate-forced", do_round_gate },
	{ "round.move", do_round_move },
	{ "round.add", do_round_add },
	{ "recode.queue", do_recode_queue },
	{ "recode.resolution", do_recode_resolution },
	{ "round.close", do_round_close },
	{ "round.reopen", do_round_reopen },
	{ "label", do_label },
	{ "submit", do_submit },
	{ "memo", do_memo },
	{ "flag", do_flag },
	{ "propose", do_propose },
	{ "proposal.accept", do_proposal_accept },
	{ "proposal.map", do_proposal_map },
	{ "proposal.reopen", do_proposal_reopen },
	{ "resolve", do_resolve },
	{ "settle", do_settle },
	{ "evidence.add", do_evidence_add },
	{ "evidence.remove", do_evidence_remove },
	{ "machine.answer", do_machine_answer },
};

int replay_row(struct replay *rp, const struct row *r)
{
	size_t i;

	rp->row = r;
	if (!r->action)
		return replay_bad(rp, "it has no action");
	for (i = 0; i < sizeof(actions) / sizeof(actions[0]); i++)
		if (!strcmp(actions[i].name, r->action))
			return actions[i].fn(rp);
	if (!strcmp(r->action, "audit.baseline"))
		return replay_bad(rp, "a second baseline");
	return 0;
}

