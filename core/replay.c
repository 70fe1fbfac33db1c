/* SPDX-License-Identifier: MIT */
/*
 * replay: see replay.h.
 *
 * The replay keeps its state in temporary tables r_NAME, one per table
 * of the study it checks, with the same columns in the same order as the
 * study's rows are read for the comparison (struct table); the baseline
 * of an older study is kept in replay_base_NAME with those columns too.
 * Each audit action that changes the record has a handler (actions[])
 * that does to the r_ tables what the writer did to the study's, with
 * the same SQL where the writer's is SQL.  A new action is one handler
 * and one line in actions[]; a new column of a replayed table is one
 * more column in its struct table, its replay_base_ table (a migration)
 * and what its handler writes.
 */
#include "core/replay.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/access.h"
#include "core/adjudicate.h"
#include "core/buf.h"
#include "core/evolve.h"
#include "core/item.h"
#include "core/schema.sql.h"

#define NR_SCHEMA_STEPS (sizeof(migrations) / sizeof(migrations[0]))

/* ---- the replayed tables ------------------------------------------------ */

struct table {
	const char *name;	/* the study's table */
	const char *cols;	/* its columns as compared (and as r_NAME and
				   replay_base_NAME hold them) */
	const char *where;	/* which of its rows, or NULL: all */
	int nkey;		/* the first nkey columns are its key */
	const char *ddl;	/* r_NAME's column definitions and keys */
};

/* In the order they are compared: what others refer to first. */
static const struct table tables[] = {
	{ "meta", "key, CASE WHEN key = 'coder_salt' THEN "
	  "bugcoder_sha256(value) ELSE value END",
	  "key IN ('title', 'created_at', 'blind_adjudication', "
	  "'coder_salt')", 1,
	  "key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID" },
	{ "members", "id, name, role, active, machine, added_at", NULL, 1,
	  "id INTEGER PRIMARY KEY, name TEXT UNIQUE, role TEXT, active "
	  "INTEGER, machine INTEGER, added_at TEXT)" },
	{ "codebooks", "id, name, version, bugcoder_sha256(json), source, "
	  "loaded_at, loaded_by, current", NULL, 1,
	  "id INTEGER PRIMARY KEY, name TEXT, version TEXT, sha256 TEXT, "
	  "source TEXT, loaded_at TEXT, loaded_by TEXT, current INTEGER)" },
	{ "rounds", "id, name, spec, seed, stratify, created_at, created_by, "
	  "closed_at, closed_by", NULL, 1,
	  "id INTEGER PRIMARY KEY, name TEXT UNIQUE, spec TEXT, seed INTEGER, "
	  "stratify TEXT, created_at TEXT, created_by TEXT, closed_at TEXT, "
	  "closed_by TEXT)" },
	{ "round_annotators", "round_id, member_id", NULL, 2,
	  "round_id INTEGER, member_id INTEGER, PRIMARY KEY (round_id, "
	  "member_id)) WITHOUT ROWID" },
	{ "assignments", "round_id, item_id, position", NULL, 2,
	  "round_id INTEGER, item_id INTEGER, position INTEGER, PRIMARY KEY "
	  "(round_id, item_id)) WITHOUT ROWID" },
	{ "round_gates", "round_id, after_round_id, min_kappa, on_lower, "
	  "forced", NULL, 1,
	  "round_id INTEGER PRIMARY KEY, after_round_id INTEGER, min_kappa "
	  "REAL, on_lower INTEGER, forced INTEGER)" },
	{ "proposals", "id, dimension, key, name, definition, item_id, "
	  "member_id, created_at, status, decided_code, decided_by, "
	  "decided_at", NULL, 1,
	  "id INTEGER PRIMARY KEY, dimension TEXT, key TEXT, name TEXT, "
	  "definition TEXT, item_id INTEGER, member_id INTEGER, created_at "
	  "TEXT, status TEXT, decided_code TEXT, decided_by TEXT, decided_at "
	  "TEXT)" },
	{ "labels", "item_id, member_id, dimension, code, codebook_version, "
	  "proposal_id, labeled_at", NULL, 4,
	  "item_id INTEGER, member_id INTEGER, dimension TEXT, code TEXT, "
	  "codebook_version TEXT, proposal_id INTEGER, labeled_at TEXT, "
	  "PRIMARY KEY (item_id, member_id, dimension, code)) WITHOUT ROWID" },
	{ "submissions", "item_id, member_id, submitted_at", NULL, 2,
	  "item_id INTEGER, member_id INTEGER, submitted_at TEXT, PRIMARY KEY "
	  "(item_id, member_id)) WITHOUT ROWID" },
	{ "evidence", "id, item_id, member_id, dimension, pane, path, "
	  "old_side, comment, line_from, line_to, quote, created_at, pr", NULL,
	  1,
	  "id INTEGER PRIMARY KEY, item_id INTEGER, member_id INTEGER, "
	  "dimension TEXT, pane TEXT, path TEXT, old_side INTEGER, comment "
	  "INTEGER, line_from INTEGER, line_to INTEGER, quote TEXT, "
	  "created_at TEXT, pr INTEGER)" },
	{ "memos", "item_id, member_id, text, updated_at", NULL, 2,
	  "item_id INTEGER, member_id INTEGER, text TEXT, updated_at TEXT, "
	  "PRIMARY KEY (item_id, member_id)) WITHOUT ROWID" },
	{ "flags", "item_id, member_id, flag, set_at", NULL, 3,
	  "item_id INTEGER, member_id INTEGER, flag TEXT, set_at TEXT, "
	  "PRIMARY KEY (item_id, member_id, flag)) WITHOUT ROWID" },
	{ "resolutions", "item_id, dimension, code, rationale, cause, coder1, "
	  "coder1_codes, coder2, coder2_codes, adjudicator_id, resolved_at",
	  NULL, 2,
	  "item_id INTEGER, dimension TEXT, code TEXT, rationale TEXT, cause "
	  "TEXT, coder1 TEXT, coder1_codes TEXT, coder2 TEXT, coder2_codes "
	  "TEXT, adjudicator_id INTEGER, resolved_at TEXT, PRIMARY KEY "
	  "(item_id, dimension)) WITHOUT ROWID" },
	{ "settled", "item_id, adjudicator_id, note, settled_at", NULL, 1,
	  "item_id INTEGER PRIMARY KEY, adjudicator_id INTEGER, note TEXT, "
	  "settled_at TEXT)" },
	{ "round_frozen", "round_id, codebook_id, frozen_at", NULL, 1,
	  "round_id INTEGER PRIMARY KEY, codebook_id INTEGER, frozen_at "
	  "TEXT)" },
	{ "round_submissions", "round_id, item_id, member_id", NULL, 3,
	  "round_id INTEGER, item_id INTEGER, member_id INTEGER, PRIMARY KEY "
	  "(round_id, item_id, member_id)) WITHOUT ROWID" },
	{ "round_labels", "round_id, item_id, member_id, dimension, code, "
	  "codebook_version", NULL, 5,
	  "round_id INTEGER, item_id INTEGER, member_id INTEGER, dimension "
	  "TEXT, code TEXT, codebook_version TEXT, PRIMARY KEY (round_id, "
	  "item_id, member_id, dimension, code)) WITHOUT ROWID" },
	{ "machine_answers", "id, member_id, item_id, command, model, note, "
	  "codebook_version, input_sha256, answer_sha256, "
	  "bugcoder_sha256(answer), rationale, duration_ms, answered_at",
	  NULL, 1,
	  "id INTEGER PRIMARY KEY, member_id INTEGER, item_id INTEGER, command "
	  "TEXT, model TEXT, note TEXT, codebook_version TEXT, input_sha256 "
	  "TEXT, answer_sha256 TEXT, answer_hash TEXT, rationale TEXT, "
	  "duration_ms INTEGER, answered_at TEXT)" },
};

#define NR_TABLES (sizeof(tables) / sizeof(tables[0]))

/* ---- SHA-256 ------------------------------------------------------------ */

void replay_sha256_hex(const void *data, size_t len,
		       char hex[SHA256_HEX_LEN + 1])
{
	unsigned char d[SHA256_LEN];
	struct sha256 c;

	sha256_init(&c);
	sha256_update(&c, data, len);
	sha256_final(&c, d);
	sha256_hex(d, hex);
}

/* bugcoder_sha256(X): the hex SHA-256 of X's bytes (its text as stored),
 * NULL for NULL. */
static void sql_sha256(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	char hex[SHA256_HEX_LEN + 1];
	const void *p;
	int n;

	(void)argc;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL) {
		sqlite3_result_null(ctx);
		return;
	}
	if (sqlite3_value_type(argv[0]) == SQLITE_BLOB)
		p = sqlite3_value_blob(argv[0]);
	else
		p = sqlite3_value_text(argv[0]);
	n = sqlite3_value_bytes(argv[0]);
	replay_sha256_hex(p ? p : "", (size_t)n, hex);
	sqlite3_result_text(ctx, hex, -1, SQLITE_TRANSIENT);
}

static int register_sha256(struct store *st, struct err *e)
{
	/* direct only: never callable from a trigger or view a study file
	 * could bring along */
	if (sqlite3_create_function(st->db, "bugcoder_sha256", 1,
				    SQLITE_UTF8 | SQLITE_DETERMINISTIC |
				    SQLITE_DIRECTONLY, NULL, sql_sha256, NULL,
				    NULL) != SQLITE_OK)
		return store_error(st, e, "preparing the replay");
	return 0;
}

/* ---- ids as ranges ---------------------------------------------------- */

void replay_format_ids(struct buf *out, const long long *ids, size_t n)
{
	size_t i = 0, j;

	while (i < n) {
		for (j = i; j + 1 < n && ids[j + 1] == ids[j] + 1; j++)
			;
		if (i)
			buf_addch(out, ',');
		if (j > i)
			buf_addf(out, "%lld-%lld", ids[i], ids[j]);
		else
			buf_addf(out, "%lld", ids[i]);
		i = j + 1;
	}
}

/* The ids of "1-5,9,12" into *ids (owned), *n of them; -1 when the text
 * is not that. */
static int parse_ids(const char *s, long long **ids, size_t *n)
{
	size_t alloc = 0;
	const char *p = s;

	*ids = NULL;
	*n = 0;
	while (*p) {
		char *end;
		long long a = strtoll(p, &end, 10), b = a;

		if (end == p)
			goto bad;
		p = end;
		if (*p == '-') {
			b = strtoll(p + 1, &end, 10);
			if (end == p + 1 || b < a)
				goto bad;
			p = end;
		}
		for (; a <= b; a++) {
			ALLOC_GROW(*ids, *n + 1, alloc);
			(*ids)[(*n)++] = a;
		}
		if (*p == ',')
			p++;
		else if (*p)
			goto bad;
	}
	return 0;
bad:
	free(*ids);
	*ids = NULL;
	*n = 0;
	return -1;
}

/* ---- digest of the baseline ------------------------------------------- */

static void digest_value(struct sha256 *c, sqlite3_stmt *s, int i)
{
	char head[48];
	int n;

	switch (sqlite3_column_type(s, i)) {
	case SQLITE_NULL:
		sha256_update(c, "N;", 2);
		return;
	case SQLITE_INTEGER:
		n = snprintf(head, sizeof(head), "I%lld;",
			     (long long)sqlite3_column_int64(s, i));
		sha256_update(c, head, (size_t)n);
		return;
	case SQLITE_FLOAT:
		n = snprintf(head, sizeof(head), "R%.17g;",
			     sqlite3_column_double(s, i));
		sha256_update(c, head, (size_t)n);
		return;
	default: {
		const void *p = sqlite3_column_blob(s, i);
		int len = sqlite3_column_bytes(s, i);

		n = snprintf(head, sizeof(head), "T%d:", len);
		sha256_update(c, head, (size_t)n);
		sha256_update(c, p ? p : "", (size_t)len);
		sha256_update(c, ";", 1);
	}
	}
}

/* The digest of every replay_base_ table, and how many rows they hold. */
static int base_digest(struct store *st, char hex[SHA256_HEX_LEN + 1],
		       long long *rows, struct err *e)
{
	unsigned char d[SHA256_LEN];
	struct sha256 c;
	size_t t;

	*rows = 0;
	sha256_init(&c);
	sha256_update(&c, "bugcoder-replay-base-v1;", 24);
	for (t = 0; t < NR_TABLES; t++) {
		struct buf sql = BUF_INIT;
		sqlite3_stmt *s;
		int rc, i, k;

		buf_addf(&sql, "SELECT * FROM main.replay_base_%s ORDER BY ",
			 tables[t].name);
		for (k = 1; k <= tables[t].nkey; k++)
			buf_addf(&sql, "%d, ", k);
		buf_addstr(&sql, "rowid");
		s = store_prepare(st, sql.ptr, e);
		buf_release(&sql);
		if (!s)
			return -1;
		sha256_update(&c, tables[t].name, strlen(tables[t].name));
		sha256_update(&c, "{", 1);
		while ((rc = store_step(st, s, "reading the replay's baseline",
					e)) > 0) {
			for (i = 0; i < sqlite3_column_count(s); i++)
				digest_value(&c, s, i);
			sha256_update(&c, "\n", 1);
			(*rows)++;
		}
		sqlite3_finalize(s);
		if (rc < 0)
			return -1;
		sha256_update(&c, "}", 1);
	}
	sha256_final(&c, d);
	sha256_hex(d, hex);
	return 0;
}

int replay_baseline(struct store *st, int from, struct err *e)
{
	struct buf d = BUF_INIT, note = BUF_INIT;
	char hex[SHA256_HEX_LEN + 1];
	char *user = NULL;
	long long rows;
	size_t t;
	int ret = -1;

	if (register_sha256(st, e) < 0)
		return -1;
	/* a study older than its coder salt gets it now, in the baseline,
	 * rather than later where no audit row would say so */
	if (!(user = adjudicate_salt(st, e)))
		return -1;
	free(user);
	user = NULL;
	for (t = 0; t < NR_TABLES; t++) {
		struct buf sql = BUF_INIT;
		int rc;

		buf_addf(&sql, "INSERT INTO main.replay_base_%s SELECT %s FROM "
			 "main.%s%s%s", tables[t].name, tables[t].cols,
			 tables[t].name, tables[t].where ? " WHERE " : "",
			 tables[t].where ? tables[t].where : "");
		rc = store_exec(st, sql.ptr, e);
		buf_release(&sql);
		if (rc < 0) {
			err_prefix(e, "keeping the state for the replay");
			goto out;
		}
	}
	if (base_digest(st, hex, &rows, e) < 0)
		goto out;
	audit_detail_int(&d, "schema", from);
	audit_detail_int(&d, "rows", rows);
	audit_detail_str(&d, "sha256", hex);
	buf_addf(&note, "the state at schema version %d (%lld rows)", from,
		 rows);
	user = member_os_user();
	ret = store_audit_detail(st, user, NULL, "audit.baseline", 0, NULL,
				 NULL, note.ptr, audit_detail_end(&d), e);
out:
	free(user);
	buf_release(&d);
	buf_release(&note);
	return ret;
}

/* ---- the replay's state ------------------------------------------------- */

enum stmt_id {
	S_MEMBER_ID, S_META, S_OWNER, S_MEMBER_ADD, S_MEMBER_REMOVE,
	S_CB_UNCURRENT, S_CB_ADD, S_ROUND_ADD, S_ROUND_ANN, S_ASSIGN,
	S_GATE, S_MOVE, S_CLOSE, S_FREEZE1, S_FREEZE2, S_FREEZE3, S_REOPEN,
	S_FORGET1, S_FORGET2, S_FORGET3, S_LABEL_DEL, S_LABEL_ADD, S_SUBMIT,
	S_RECODE_LABEL, S_RECODE_RES,
	S_MEMO_SET, S_MEMO_DEL, S_FLAG_ON, S_FLAG_OFF, S_PROPOSE, S_PROPOSAL,
	S_DECIDE, S_UNDECIDE, S_MOVE_P, S_MOVE_P_DEL, S_MOVE_ALL,
	S_MOVE_ALL_DEL, S_RES_OF_DIM, S_RES_SET_CODES, S_RESOLVE, S_SETTLE,
	S_EVIDENCE_ADD, S_EVIDENCE_DEL, S_MACHINE, NR_STMTS
};

static const char *const stmt_sql[NR_STMTS] = {
	[S_MEMBER_ID] = "SELECT id FROM r_members WHERE name = ?1",
	[S_META] = "INSERT INTO r_meta (key, value) VALUES (?1, ?2) ON "
		"CONFLICT (key) DO UPDATE SET value = excluded.value",
	[S_OWNER] = "INSERT INTO r_members (id, name, role, active, machine, "
		"added_at) VALUES (?1, ?2, 'owner', 1, 0, ?3)",
	/* core/member.c's member_add() */
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
	/* core/round.c's round_freeze() */
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
	/* core/evolve.c's move_labels() */
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
	/* core/adjudicate.c's adjudicate_resolve() */
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

/* One audit row, as the replay reads it. */
struct row {
	long long id;
	const char *at, *actor, *for_member, *action, *dimension, *old, *new_;
	long long item_id;
	cJSON *detail;		/* parsed; NULL when none */
};

struct replay {
	struct store *st;
	struct replay_check *c;
	struct err *e;
	sqlite3_stmt *s[NR_STMTS];
	char *version;		/* the current codebook's version */
	char *cached_name;	/* the member last looked up, */
	long long cached_id;	/* and their id */
	const struct row *row;	/* the row being replayed */
};

/* A row that cannot be replayed: the check fails there.  Returns 1 (stop,
 * nothing wrong with reading the study). */
static int bad(struct replay *rp, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int bad(struct replay *rp, const char *fmt, ...)
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
		return bad(rp, "%s", msg);
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

/* The detail's number `k` into *v: 0, or 1 after bad() when it has none
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
	return need ? bad(rp, "its detail has no %s", k) : 0;
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

/* The id of member `name` in the replay: 0, or 1 after bad(), or -1. */
static int member_id(struct replay *rp, const char *name, long long *id)
{
	sqlite3_stmt *s;
	int rc;

	if (!name)
		return bad(rp, "it names no member");
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
		return bad(rp, "%s is no member by then", name);
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
static int load_version(struct replay *rp)
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
		return bad(rp, "its detail lacks the codebook's name, version "
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
	return load_version(rp);
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
		return bad(rp, "its new value is not NAME=ROLE");
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
	if (!cJSON_IsArray(ann) || !items || parse_ids(items, &ids, &n) < 0)
		return bad(rp, "its detail lacks the annotators or items");
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
			rc = bad(rp, "an annotator is not a member id");
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
		return bad(rp, "it names no item");
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
		return bad(rp, "it names no dimension");
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
		return bad(rp, "it names no dimension");
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
		return bad(rp, "it names no item or dimension");
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

/* core/evolve.c's move_labels(): dim=from to dim=to, of proposal `pid`
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

/* Proposal `id`'s key into *key (owned): 0, 1 after bad(), -1. */
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
	return rc ? 0 : bad(rp, "no proposal %lld by then", id);
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
		return bad(rp, "its detail has no code");
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

/* core/evolve.c's apply_map(): the labels and the resolutions'
 * codes. */
static int do_codebook_map(struct replay *rp)
{
	const char *to = jstr(rp->row, "to");
	const char *dim = rp->row->dimension, *from = rp->row->old;
	sqlite3_stmt *s, *u;
	int rc;

	if (!to || !dim || !from)
		return bad(rp, "it lacks the dimension, the code or where it "
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
		return bad(rp, "it names no item or dimension");
	if (!jstr(r, "rationale"))
		return bad(rp, "its detail has no rationale");
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
		return bad(rp, "its detail lacks the pane or the quote");
	if (!r->item_id)
		return bad(rp, "it names no item");
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

static int replay_row(struct replay *rp, const struct row *r)
{
	size_t i;

	rp->row = r;
	if (!r->action)
		return bad(rp, "it has no action");
	for (i = 0; i < sizeof(actions) / sizeof(actions[0]); i++)
		if (!strcmp(actions[i].name, r->action))
			return actions[i].fn(rp);
	if (!strcmp(r->action, "audit.baseline"))
		return bad(rp, "a second baseline");
	return 0;
}

/* ---- the whole log ------------------------------------------------------ */

static int create_tables(struct replay *rp)
{
	size_t t;

	for (t = 0; t < NR_TABLES; t++) {
		struct buf sql = BUF_INIT;
		int rc;

		buf_addf(&sql, "CREATE TEMP TABLE r_%s (%s", tables[t].name,
			 tables[t].ddl);
		rc = store_exec(rp->st, sql.ptr, rp->e);
		buf_release(&sql);
		if (rc < 0)
			return -1;
	}
	/* what round_freeze()'s joins look up by */
	return store_exec(rp->st, "CREATE INDEX temp.r_assignments_item ON "
			  "r_assignments (item_id); CREATE INDEX "
			  "temp.r_round_submissions_im ON r_round_submissions "
			  "(item_id, member_id)", rp->e);
}

static void drop_tables(struct store *st)
{
	size_t t;

	for (t = 0; t < NR_TABLES; t++) {
		struct buf sql = BUF_INIT;

		buf_addf(&sql, "DROP TABLE IF EXISTS temp.r_%s",
			 tables[t].name);
		store_exec(st, sql.ptr, NULL);
		buf_release(&sql);
	}
}

/* The baseline: none for a study made with the replay (its base tables
 * empty), else one audit row whose digest the base tables still have.
 * Loads it into the r_ tables; rp->c->baseline_id its row. */
static int load_baseline(struct replay *rp)
{
	struct replay_check *c = rp->c;
	sqlite3_stmt *s;
	char *detail = NULL;
	size_t t;
	int rc, n = 0;

	s = store_prepare(rp->st, "SELECT id, detail FROM audit WHERE action "
			  "= 'audit.baseline' ORDER BY id", rp->e);
	if (!s)
		return -1;
	while ((rc = store_step(rp->st, s, "reading the audit log",
				rp->e)) > 0) {
		if (n++)
			continue;
		c->baseline_id = sqlite3_column_int64(s, 0);
		if (sqlite3_column_text(s, 1))
			detail = xstrdup((const char *)
					 sqlite3_column_text(s, 1));
	}
	sqlite3_finalize(s);
	if (rc < 0)
		goto fail;
	if (n > 1) {
		c->failed = REPLAY_STATE;
		snprintf(c->what, sizeof(c->what), "the audit log has %d "
			 "baselines (rows \"audit.baseline\"); a study has one "
			 "at most", n);
		goto stop;
	}
	{
		char hex[SHA256_HEX_LEN + 1];
		long long rows;
		cJSON *j = detail ? cJSON_Parse(detail) : NULL;
		cJSON *h = cJSON_GetObjectItemCaseSensitive(j, "sha256");
		int same;

		if (base_digest(rp->st, hex, &rows, rp->e) < 0) {
			cJSON_Delete(j);
			goto fail;
		}
		same = n ? cJSON_IsString(h) && !strcmp(h->valuestring, hex) :
		       rows == 0;
		cJSON_Delete(j);
		if (!same) {
			c->failed = REPLAY_STATE;
			if (n)
				snprintf(c->what, sizeof(c->what), "the state "
					 "kept at the migration of audit row "
					 "%lld (the replay's baseline) was "
					 "changed since", c->baseline_id);
			else
				snprintf(c->what, sizeof(c->what), "the "
					 "replay's baseline tables hold %lld "
					 "rows, but no audit row took them",
					 rows);
			goto stop;
		}
	}
	for (t = 0; t < NR_TABLES; t++) {
		struct buf sql = BUF_INIT;

		buf_addf(&sql, "INSERT INTO r_%s SELECT * FROM "
			 "main.replay_base_%s", tables[t].name, tables[t].name);
		rc = sqlite3_exec(rp->st->db, sql.ptr, NULL, NULL, NULL);
		buf_release(&sql);
		if (rc == SQLITE_CONSTRAINT) {
			c->failed = REPLAY_STATE;
			snprintf(c->what, sizeof(c->what), "the replay's "
				 "baseline of %s holds a row twice",
				 tables[t].name);
			goto stop;
		}
		if (rc != SQLITE_OK) {
			store_error(rp->st, rp->e, "reading the replay's "
				    "baseline");
			goto fail;
		}
	}
	free(detail);
	return load_version(rp);
stop:
	free(detail);
	return 1;
fail:
	free(detail);
	return -1;
}

static int replay_log(struct replay *rp)
{
	sqlite3_stmt *s;
	int rc, stop = 0;

	s = store_prepare(rp->st, "SELECT id, at, actor, for_member, action, "
			  "item_id, dimension, old, new, detail FROM audit "
			  "WHERE id > ?1 ORDER BY id", rp->e);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, rp->c->baseline_id);
	while (!stop && (rc = store_step(rp->st, s, "reading the audit log",
					 rp->e)) > 0) {
		struct row r;
		const char *d = (const char *)sqlite3_column_text(s, 9);

		r.id = sqlite3_column_int64(s, 0);
		r.at = (const char *)sqlite3_column_text(s, 1);
		r.actor = (const char *)sqlite3_column_text(s, 2);
		r.for_member = (const char *)sqlite3_column_text(s, 3);
		r.action = (const char *)sqlite3_column_text(s, 4);
		r.item_id = sqlite3_column_int64(s, 5);
		r.dimension = (const char *)sqlite3_column_text(s, 6);
		r.old = (const char *)sqlite3_column_text(s, 7);
		r.new_ = (const char *)sqlite3_column_text(s, 8);
		r.detail = NULL;
		rp->row = &r;
		if (d && !(r.detail = cJSON_Parse(d)))
			stop = bad(rp, "its detail is not JSON");
		else
			stop = replay_row(rp, &r);
		cJSON_Delete(r.detail);
		rp->row = NULL;
		if (stop < 0) {
			sqlite3_finalize(s);
			return -1;
		}
		rp->c->replayed++;
	}
	sqlite3_finalize(s);
	if (stop)
		return stop;
	return rc < 0 ? -1 : 0;
}

/* ---- the comparison ----------------------------------------------------- */

static int type_rank(int t)
{
	switch (t) {
	case SQLITE_NULL:
		return 0;
	case SQLITE_INTEGER:
	case SQLITE_FLOAT:
		return 1;
	case SQLITE_TEXT:
		return 2;
	default:
		return 3;
	}
}

/* Column i of `a` against column j of `b`, in SQLite's order (NULL,
 * numbers, text by bytes, blobs): <0, 0, >0. */
static int value_cmp(sqlite3_stmt *a, int i, sqlite3_stmt *b, int j)
{
	int ta = sqlite3_column_type(a, i), tb = sqlite3_column_type(b, j);
	int ra = type_rank(ta), rb = type_rank(tb);

	if (ra != rb)
		return ra - rb;
	if (ra == 0)
		return 0;
	if (ra == 1) {
		if (ta == SQLITE_INTEGER && tb == SQLITE_INTEGER) {
			sqlite3_int64 x = sqlite3_column_int64(a, i);
			sqlite3_int64 y = sqlite3_column_int64(b, j);

			return x < y ? -1 : x > y;
		} else {
			double x = sqlite3_column_double(a, i);
			double y = sqlite3_column_double(b, j);

			return x < y ? -1 : x > y;
		}
	}
	{
		const void *x = sqlite3_column_blob(a, i);
		int nx = sqlite3_column_bytes(a, i);
		const void *y = sqlite3_column_blob(b, j);
		int ny = sqlite3_column_bytes(b, j);
		int c = memcmp(x ? x : "", y ? y : "",
			       (size_t)(nx < ny ? nx : ny));

		return c ? c : nx - ny;
	}
}

/* One value for a message: cut short, quoted when `quote`, "none" for
 * NULL. */
static void show_value(struct buf *out, sqlite3_stmt *s, int i, int quote)
{
	const char *t;
	size_t n;

	switch (sqlite3_column_type(s, i)) {
	case SQLITE_NULL:
		buf_addstr(out, "none");
		return;
	case SQLITE_INTEGER:
	case SQLITE_FLOAT:
		buf_addstr(out, (const char *)sqlite3_column_text(s, i));
		return;
	}
	t = (const char *)sqlite3_column_text(s, i);
	n = strlen(t ? t : "");
	if (quote)
		buf_addch(out, '"');
	if (n > 48) {
		buf_add(out, t, 45);
		buf_addstr(out, "...");
	} else {
		buf_add(out, t ? t : "", n);
	}
	if (quote)
		buf_addch(out, '"');
}

/* A name for id `id` from `sql` (one row: a name, or repo and number) */
static void name_of(struct store *st, const char *sql, long long id,
		    struct buf *out)
{
	sqlite3_stmt *s = store_prepare(st, sql, NULL);

	if (s) {
		sqlite3_bind_int64(s, 1, id);
		/* a name for a message: unreadable, the id stands */
		if (store_step(st, s, "", NULL) > 0) {
			if (sqlite3_column_count(s) == 2) {
				char *n = item_name((const char *)
						    sqlite3_column_text(s, 0),
						    sqlite3_column_int64(s, 1));

				buf_addstr(out, n);
				free(n);
			} else {
				buf_addstr(out, (const char *)
					   sqlite3_column_text(s, 0));
			}
			sqlite3_finalize(s);
			return;
		}
		sqlite3_finalize(s);
	}
	buf_addf(out, "%lld", id);
}

/* "item o/r#1, member alice, dimension symptom": the key of the row of
 * `s`; with `all` 0, only its item and dimension (what anyone may be
 * told). */
static void describe_key(struct store *st, sqlite3_stmt *s, int nkey,
			 int all, struct buf *out)
{
	int i;

	for (i = 0; i < nkey; i++) {
		const char *col = sqlite3_column_name(s, i);
		long long id = sqlite3_column_int64(s, i);
		size_t start = out->len;

		if (out->len)
			buf_addstr(out, ", ");
		if (!strcmp(col, "item_id")) {
			buf_addstr(out, "item ");
			name_of(st, "SELECT repo, number FROM items WHERE id "
				"= ?1", id, out);
		} else if (!all && strcmp(col, "dimension")) {
			buf_setlen(out, start);
		} else if (!strcmp(col, "member_id") ||
			   !strcmp(col, "adjudicator_id")) {
			buf_addstr(out, "member ");
			name_of(st, "SELECT name FROM members WHERE id = ?1",
				id, out);
		} else if (!strcmp(col, "round_id")) {
			buf_addstr(out, "round ");
			name_of(st, "SELECT name FROM rounds WHERE id = ?1",
				id, out);
		} else {
			buf_addf(out, "%s ", col);
			show_value(out, s, i, 0);
		}
	}
}

/* The first difference in table `t`: 0 when none (c->compared counted),
 * 1 with c->what filled, -1 on a database error. */
static int compare_table(struct replay *rp, const struct table *t, int all)
{
	struct buf sql = BUF_INIT, order = BUF_INIT, msg = BUF_INIT;
	sqlite3_stmt *a = NULL, *b = NULL;
	int k, ha, hb, ret = -1;

	for (k = 1; k <= t->nkey; k++)
		buf_addf(&order, "%s%d", k > 1 ? ", " : "", k);
	buf_addf(&sql, "SELECT %s FROM main.%s%s%s ORDER BY %s", t->cols,
		 t->name, t->where ? " WHERE " : "", t->where ? t->where : "",
		 order.ptr);
	a = store_prepare(rp->st, sql.ptr, rp->e);
	buf_reset(&sql);
	buf_addf(&sql, "SELECT * FROM temp.r_%s ORDER BY %s", t->name,
		 order.ptr);
	b = a ? store_prepare(rp->st, sql.ptr, rp->e) : NULL;
	if (!b)
		goto out;
	ha = store_step(rp->st, a, "reading the study", rp->e);
	hb = ha < 0 ? -1 : store_step(rp->st, b, "reading the replay", rp->e);
	while (ha > 0 || hb > 0) {
		int cmp = 0, col = -1;

		if (ha < 0 || hb < 0)
			goto out;
		if (!ha)
			cmp = 1;
		else if (!hb)
			cmp = -1;
		for (k = 0; !cmp && k < t->nkey; k++)
			cmp = value_cmp(a, k, b, k);
		for (k = t->nkey; !cmp && k < sqlite3_column_count(b); k++)
			if (value_cmp(a, k, b, k)) {
				col = k;
				break;
			}
		if (cmp || col >= 0) {
			sqlite3_stmt *at = cmp > 0 ? b : a;

			buf_addf(&msg, "%s", t->name);
			{
				struct buf key = BUF_INIT;

				describe_key(rp->st, at, t->nkey, all, &key);
				if (key.len)
					buf_addf(&msg, " (%s)", key.ptr);
				buf_release(&key);
			}
			if (!all)
				buf_addstr(&msg, ": not what the audit log "
					   "gives (the owner's `bugcoder audit "
					   "verify` says how)");
			else if (cmp < 0)
				buf_addstr(&msg, ": in the study, not in what "
					   "the audit log gives");
			else if (cmp > 0)
				buf_addstr(&msg, ": in what the audit log "
					   "gives, not in the study");
			else {
				buf_addf(&msg, ": %s is ",
					 sqlite3_column_name(b, col));
				show_value(&msg, a, col, 1);
				buf_addstr(&msg, " in the study, ");
				show_value(&msg, b, col, 1);
				buf_addstr(&msg, " by the audit log");
			}
			rp->c->failed = REPLAY_STATE;
			snprintf(rp->c->what, sizeof(rp->c->what), "%s",
				 msg.ptr);
			ret = 1;
			goto out;
		}
		rp->c->compared++;
		ha = store_step(rp->st, a, "reading the study", rp->e);
		hb = ha < 0 ? -1 : store_step(rp->st, b, "reading the replay",
					      rp->e);
	}
	if (ha < 0 || hb < 0)
		goto out;
	ret = 0;
out:
	sqlite3_finalize(a);
	sqlite3_finalize(b);
	buf_release(&sql);
	buf_release(&order);
	buf_release(&msg);
	return ret;
}

static int check_state(struct store *st, struct replay_check *c,
		       struct err *e)
{
	struct replay rp;
	size_t t, i;
	int rc;

	memset(&rp, 0, sizeof(rp));
	rp.st = st;
	rp.c = c;
	rp.e = e;
	drop_tables(st);
	if (register_sha256(st, e) < 0 || create_tables(&rp) < 0) {
		rc = -1;
		goto out;
	}
	if ((rc = load_baseline(&rp)) || (rc = replay_log(&rp)))
		goto out;
	for (t = 0; t < NR_TABLES && !rc; t++)
		rc = compare_table(&rp, &tables[t], c->told_all);
out:
	/* whatever stopped the check says why; nothing is ever taken to
	 * hold without every table compared */
	if (rc > 0 && !c->failed) {
		c->failed = REPLAY_STATE;
		snprintf(c->what, sizeof(c->what), "the replay stopped at "
			 "audit row %lld", rp.row ? rp.row->id : 0);
	}
	for (i = 0; i < NR_STMTS; i++)
		sqlite3_finalize(rp.s[i]);
	free(rp.version);
	free(rp.cached_name);
	drop_tables(st);
	return rc < 0 ? -1 : 0;
}

/* ---- the schema --------------------------------------------------------- */

/* `sql` with its white space made one space, and none beside ( ) , ; */
static void normalize_sql(const char *sql, struct buf *out)
{
	const char *p;
	int space = 0;

	buf_reset(out);
	for (p = sql ? sql : ""; *p; p++) {
		if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') {
			space = 1;
			continue;
		}
		if (space && out->len && !strchr("(),;", *p) &&
		    !strchr("(,", out->ptr[out->len - 1]))
			buf_addch(out, ' ');
		space = 0;
		buf_addch(out, *p);
	}
}

#define SCHEMA_SQL "SELECT type, name, tbl_name, sql FROM %s WHERE name " \
	"NOT LIKE 'sqlite\\_stat%%' ESCAPE '\\' AND name <> " \
	"'sqlite_sequence' ORDER BY type, name"

static int check_schema(struct store *st, struct replay_check *c,
			struct err *e)
{
	struct store fresh;
	int fresh_open = 0;
	sqlite3_stmt *a = NULL, *b = NULL;
	struct buf sql = BUF_INIT, na = BUF_INIT, nb = BUF_INIT;
	size_t i;
	int ha, hb, ret = -1;

	if (store_open_bare(&fresh, e) < 0) {
		err_prefix(e, "checking the schema");
		goto out;
	}
	fresh_open = 1;
	for (i = 0; i < NR_SCHEMA_STEPS; i++)
		if (store_exec(&fresh, migrations[i], e) < 0) {
			err_prefix(e, "checking the schema: step %zu", i + 1);
			goto out;
		}
	buf_addf(&sql, SCHEMA_SQL, "main.sqlite_schema");
	a = store_prepare(st, sql.ptr, e);
	if (!a)
		goto out;
	b = store_prepare(&fresh, sql.ptr, e);
	if (!b)
		goto out;
	ha = store_step(st, a, "reading the schema", e);
	if ((hb = store_step(&fresh, b, "making the schema", e)) < 0)
		goto out;
	while (ha > 0 || hb) {
		int cmp = 0;

		if (ha < 0)
			goto out;
		if (!ha)
			cmp = 1;
		else if (!hb)
			cmp = -1;
		else if (!(cmp = value_cmp(a, 0, b, 0)))
			cmp = value_cmp(a, 1, b, 1);
		if (!cmp) {
			normalize_sql((const char *)sqlite3_column_text(a, 3),
				      &na);
			normalize_sql((const char *)sqlite3_column_text(b, 3),
				      &nb);
		}
		if (cmp || value_cmp(a, 2, b, 2) || strcmp(na.ptr, nb.ptr)) {
			sqlite3_stmt *at = cmp > 0 ? b : a;

			c->failed = REPLAY_SCHEMA;
			snprintf(c->what, sizeof(c->what), "the %s %s %s",
				 sqlite3_column_text(at, 0),
				 sqlite3_column_text(at, 1),
				 cmp > 0 ? "that bugcoder makes is missing "
				 "(dropped?)" : cmp < 0 ? "is not one bugcoder "
				 "makes (added?)" : "is not as bugcoder makes "
				 "it (altered?)");
			ret = 0;
			goto out;
		}
		c->schema_objects++;
		ha = store_step(st, a, "reading the schema", e);
		if ((hb = store_step(&fresh, b, "making the schema", e)) < 0)
			goto out;
	}
	if (ha < 0)
		goto out;
	ret = 0;
out:
	sqlite3_finalize(a);
	sqlite3_finalize(b);
	if (fresh_open)
		store_close(&fresh);
	buf_release(&sql);
	buf_release(&na);
	buf_release(&nb);
	return ret;
}

/* ---- all of it ---------------------------------------------------------- */

static int is_hash(const char *h)
{
	size_t i;

	for (i = 0; h[i]; i++)
		if (!strchr("0123456789abcdef", h[i]))
			return 0;
	return i == SHA256_HEX_LEN;
}

int replay_verify(struct store *st, const struct actor *a,
		  const char *head, struct replay_check *c, struct err *e)
{
	sqlite3_stmt *s;
	int ret = -1;

	memset(c, 0, sizeof(*c));
	c->told_all = access_whole_log(a);
	if (head && !is_hash(head))
		return err_set(e, ERR_USAGE, "--head %s: a head is the 64 "
			       "lower-case hex digits `audit verify` printed",
			       head);
	/* one snapshot for all of it, while others keep writing */
	if (store_exec(st, "SAVEPOINT replay_verify", e) < 0)
		return -1;
	if (audit_verify(st, &c->chain, e) < 0)
		goto out;
	if (c->chain.bad_id) {
		c->failed = REPLAY_CHAIN;
		snprintf(c->what, sizeof(c->what), "row %lld does not fit the "
			 "chain: %s", c->chain.bad_id, c->chain.reason);
		ret = 0;
		goto out;
	}
	if (audit_last(st, &c->head_id, c->head, e) < 0)
		goto out;
	if (head) {
		if (audit_find_hash(st, head, &c->pinned_id, e) < 0)
			goto out;
		if (!c->pinned_id) {
			c->failed = REPLAY_HEAD;
			snprintf(c->what, sizeof(c->what), "no row has head "
				 "%s: the log was rewritten since that head "
				 "was taken, or this is another study", head);
			ret = 0;
			goto out;
		}
	}
	s = store_prepare(st, "PRAGMA user_version", e);
	if (!s)
		goto out;
	if (store_step(st, s, "reading the schema version", e) > 0)
		c->schema_version = sqlite3_column_int(s, 0);
	sqlite3_finalize(s);
	if (check_schema(st, c, e) < 0)
		goto out;
	if (c->failed) {
		ret = 0;
		goto out;
	}
	ret = check_state(st, c, e);
out:
	store_exec(st, "ROLLBACK TO replay_verify; RELEASE replay_verify",
		   NULL);
	return ret;
}
