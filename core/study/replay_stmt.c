/* SPDX-License-Identifier: MIT */
/*
 * replay_stmt: the replay's statements (the writers' SQL over the r_
 * tables, one per stmt_id, prepared once per replay and run against the
 * audit row) and the readers of an audit row's fields, for the actions
 * of replay_actions.c.
 */
#include "core/study/replay_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const replay_sql[NR_STMTS] = {
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

sqlite3_stmt *replay_stmt(struct replay *rp, enum stmt_id i)
{
	if (!rp->s[i])
		rp->s[i] = store_prepare(rp->st, replay_sql[i], rp->e);
	else
		sqlite3_reset(rp->s[i]);
	return rp->s[i];
}

/* Run `s` (bound) to its end: 0; 1 when the replay's tables refused it
 * (a constraint: the log does not fit the state); -1 on a database
 * error. */
int replay_run(struct replay *rp, sqlite3_stmt *s)
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

void replay_bind_text(sqlite3_stmt *s, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(s, i, v, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(s, i);
}

/* The detail's field `k`: a string (NULL when absent or null). */
const char *replay_jstr(const struct row *r, const char *k)
{
	cJSON *v = r->detail ? cJSON_GetObjectItemCaseSensitive(r->detail,
								 k) : NULL;

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* The detail's number `k` into *v: 0, or 1 after replay_bad() when it has none
 * and `need`; *v 0 then. */
int replay_jnum(struct replay *rp, const char *k, int need, double *v)
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

int replay_jint(struct replay *rp, const char *k, long long *v)
{
	double d;
	int rc = replay_jnum(rp, k, 1, &d);

	*v = (long long)d;
	return rc;
}

/* The member the row's change is by (or for). */
const char *replay_row_member(const struct row *r)
{
	return r->for_member ? r->for_member : r->actor;
}

/* The id of member `name` in the replay: 0, or 1 after replay_bad(), or -1. */
int replay_member_id(struct replay *rp, const char *name, long long *id)
{
	sqlite3_stmt *s;
	int rc;

	if (!name)
		return replay_bad(rp, "it names no member");
	if (rp->cached_name && !strcmp(rp->cached_name, name)) {
		*id = rp->cached_id;
		return 0;
	}
	if (!(s = replay_stmt(rp, S_MEMBER_ID)))
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
