/* SPDX-License-Identifier: MIT */
/*
 * replay: see replay.h.
 *
 * The replay keeps its state in temporary tables r_NAME, one per table
 * of the study it checks, with the same columns in the same order as the
 * study's rows are read for the comparison (struct table); the baseline
 * of an older study is kept in replay_base_NAME with those columns too.
 * Each audit action that changes the record has a handler (actions[] in
 * replay_actions.c; the comparison is replay_compare.c)
 * that does to the r_ tables what the writer did to the study's, with
 * the same SQL where the writer's is SQL.  A new action is one handler
 * and one line in actions[]; a new column of a replayed table is one
 * more column in its struct table, its replay_base_ table (a migration)
 * and what its handler writes.
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
#include "core/study/item.h"
#include "core/store/schema.sql.h"
#include "core/study/replay_int.h"
#include "core/store/audit.h"

/* ---- the replayed tables ------------------------------------------------ */


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
int replay_parse_ids(const char *s, long long **ids, size_t *n)
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
	ret = audit_write_detail(st, user, NULL, "audit.baseline", 0, NULL,
				 NULL, note.ptr, audit_detail_end(&d), e);
out:
	free(user);
	buf_release(&d);
	buf_release(&note);
	return ret;
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
	return replay_load_version(rp);
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
			stop = replay_bad(rp, "its detail is not JSON");
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
		rc = replay_compare_table(&rp, &tables[t], c->told_all);
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
	if (replay_check_schema(st, c, e) < 0)
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

