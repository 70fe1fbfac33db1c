/* SPDX-License-Identifier: MIT */
/*
 * t_audit: the hash-chained audit log - rows chained as they are written,
 * the first changed, removed or inserted row named by audit_verify(), the
 * rows of an older study chained by the migration, and who reads what.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "core/study/adjudicate.h"
#include "core/store/audit.h"
#include "core/base/buf.h"
#include "core/study/codebook.h"
#include "core/study/evidence.h"
#include "core/study/evolve.h"
#include "core/study/proposal.h"
#include "core/study/import.h"
#include "core/study/label.h"
#include "core/study/member.h"
#include "core/study/replay.h"
#include "core/study/round.h"
#include "core/store/store.h"
#include "core/study/study.h"
#include "core/study/auditlog.h"

static char tmpdir[64];

static int make_tmpdir(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/t_audit.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int remove_tmpdir(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static void exec_ok(struct store *st, const char *sql)
{
	char *msg = NULL;
	int rc = sqlite3_exec(st->db, sql, NULL, NULL, &msg);

	if (rc != SQLITE_OK)
		fail_msg("%s: %s", sql, msg ? msg : "?");
}

/* Five rows: three by alice, one by the owner for bob, one by bob. */
static void five_rows(struct store *st)
{
	struct err e = ERR_INIT;

	assert_int_equal(audit_write(st, "alice", NULL, "label", 0, "symptom",
				     NULL, "crash", &e), 0);
	assert_int_equal(audit_write(st, "alice", NULL, "label", 0, "symptom",
				     "crash", "hang", &e), 0);
	assert_int_equal(audit_write(st, "owner", "bob", "label", 0, "stage",
				     NULL, "init", &e), 0);
	assert_int_equal(audit_write(st, "bob", NULL, "submit", 0, NULL, NULL,
				     NULL, &e), 0);
	assert_int_equal(audit_write(st, "alice", NULL, "memo", 0, NULL, NULL,
				     "text with\nnewline, \"quotes\"", &e), 0);
}

static void test_hash_encoding(void **state)
{
	struct audit_row a = { .id = 1, .at = "t", .actor = "ab",
			       .action = "c" };
	struct audit_row b = { .id = 1, .at = "t", .actor = "a",
			       .for_member = "b", .action = "c" };
	struct audit_row n = { .id = 1, .at = "t", .actor = "a",
			       .for_member = "", .action = "c" };
	char ha[65], hb[65], hn[65], hp[65];

	(void)state;
	/* field boundaries and NULL versus empty all count */
	audit_row_hash("", &a, ha);
	audit_row_hash("", &b, hb);
	audit_row_hash("", &n, hn);
	assert_string_not_equal(ha, hb);
	assert_string_not_equal(hb, hn);
	assert_int_equal(strlen(ha), 64);
	/* the previous hash is part of it */
	audit_row_hash(ha, &b, hp);
	assert_string_not_equal(hp, hb);
	/* and it is a function of its input */
	audit_row_hash("", &a, hp);
	assert_string_equal(hp, ha);
}

static void test_chain_holds(void **state)
{
	struct store st;
	struct err e = ERR_INIT;
	struct audit_check c;

	(void)state;
	assert_int_equal(store_open_memory(&st, &e), 0);
	assert_int_equal(audit_verify(&st, &c, &e), 0);
	assert_int_equal(c.rows, 0);
	assert_int_equal(c.bad_id, 0);
	five_rows(&st);
	assert_int_equal(audit_verify(&st, &c, &e), 0);
	assert_int_equal(c.rows, 5);
	assert_int_equal(c.bad_id, 0);
	/* the append-only trigger still refuses changes */
	assert_int_not_equal(sqlite3_exec(st.db, "UPDATE audit SET new = 'x' "
					  "WHERE id = 2", NULL, NULL, NULL),
			     SQLITE_OK);
	assert_int_not_equal(sqlite3_exec(st.db, "DELETE FROM audit",
					  NULL, NULL, NULL), SQLITE_OK);
	store_close(&st);
}

static void test_changed_row_named(void **state)
{
	struct store st;
	struct err e = ERR_INIT;
	struct audit_check c;

	(void)state;
	assert_int_equal(store_open_memory(&st, &e), 0);
	five_rows(&st);
	exec_ok(&st, "DROP TRIGGER audit_no_update;"
		"UPDATE audit SET new = 'crash' WHERE id = 2");
	assert_int_equal(audit_verify(&st, &c, &e), 0);
	assert_int_equal(c.bad_id, 2);
	assert_non_null(strstr(c.reason, "does not match"));

	/* a forger who fixes row 2's hash breaks row 3 instead */
	{
		struct audit_row r = { .id = 2, .at = NULL, .actor = "alice",
				       .action = "label",
				       .dimension = "symptom", .old = "crash",
				       .new_value = "crash" };
		sqlite3_stmt *s;
		char prev[65], h[65], sql[256];

		assert_int_equal(sqlite3_prepare_v2(st.db, "SELECT at FROM "
				 "audit WHERE id = 2", -1, &s, NULL),
				 SQLITE_OK);
		assert_int_equal(sqlite3_step(s), SQLITE_ROW);
		r.at = (const char *)sqlite3_column_text(s, 0);
		{
			sqlite3_stmt *p;

			assert_int_equal(sqlite3_prepare_v2(st.db, "SELECT "
					 "hash FROM audit WHERE id = 1", -1,
					 &p, NULL), SQLITE_OK);
			assert_int_equal(sqlite3_step(p), SQLITE_ROW);
			snprintf(prev, sizeof(prev), "%s",
				 sqlite3_column_text(p, 0));
			sqlite3_finalize(p);
		}
		audit_row_hash(prev, &r, h);
		sqlite3_finalize(s);
		snprintf(sql, sizeof(sql), "UPDATE audit SET hash = '%s' "
			 "WHERE id = 2", h);
		exec_ok(&st, sql);
	}
	assert_int_equal(audit_verify(&st, &c, &e), 0);
	assert_int_equal(c.bad_id, 3);
	store_close(&st);
}

static void test_removed_row_named(void **state)
{
	struct store st;
	struct err e = ERR_INIT;
	struct audit_check c;

	(void)state;
	assert_int_equal(store_open_memory(&st, &e), 0);
	five_rows(&st);
	exec_ok(&st, "DROP TRIGGER audit_no_delete;"
		"DELETE FROM audit WHERE id = 3");
	assert_int_equal(audit_verify(&st, &c, &e), 0);
	assert_int_equal(c.bad_id, 4);
	assert_non_null(strstr(c.reason, "row 2"));
	store_close(&st);
}

static void test_inserted_row_named(void **state)
{
	struct store st;
	struct err e = ERR_INIT;
	struct audit_check c;

	(void)state;
	assert_int_equal(store_open_memory(&st, &e), 0);
	five_rows(&st);
	exec_ok(&st, "INSERT INTO audit (id, at, actor, action, hash) VALUES "
		"(6, 'now', 'mallory', 'label', 'feed')");
	assert_int_equal(audit_verify(&st, &c, &e), 0);
	assert_int_equal(c.bad_id, 6);
	/* and a row written after it by bugcoder does not hide it */
	assert_int_equal(audit_write(&st, "alice", NULL, "label", 0, NULL,
				     NULL, NULL, &e), 0);
	assert_int_equal(audit_verify(&st, &c, &e), 0);
	assert_int_equal(c.bad_id, 6);
	store_close(&st);
}

/* A study written before the chain: schema version 3, no hash column.
 * Opening it migrates and chains the rows it has. */
static void test_migration_chains_old_rows(void **state)
{
	struct buf path = BUF_INIT;
	struct store st;
	struct err e = ERR_INIT;
	struct audit_check c;

	(void)state;
	buf_addf(&path, "%s/old.db", tmpdir);
	assert_int_equal(study_open(&st, path.ptr, STORE_CREATE, &e), 0);
	five_rows(&st);
	exec_ok(&st, "DROP INDEX items_missing;"	/* 12 -> 13 undone */
		"DROP TABLE recodes;"	/* 11 -> 12 undone */
		"DROP TABLE screen_decisions;"
		"DROP TABLE screen_labels;"
		"DROP TABLE screen_assignments;"
		"ALTER TABLE rounds DROP COLUMN reasons;"
		"ALTER TABLE rounds DROP COLUMN kind;"
		"DROP TABLE replay_base_meta;"	/* 10 -> 11 undone */
		"DROP TABLE replay_base_members;"
		"DROP TABLE replay_base_codebooks;"
		"DROP TABLE replay_base_rounds;"
		"DROP TABLE replay_base_round_annotators;"
		"DROP TABLE replay_base_assignments;"
		"DROP TABLE replay_base_round_gates;"
		"DROP TABLE replay_base_round_frozen;"
		"DROP TABLE replay_base_round_submissions;"
		"DROP TABLE replay_base_round_labels;"
		"DROP TABLE replay_base_proposals;"
		"DROP TABLE replay_base_labels;"
		"DROP TABLE replay_base_submissions;"
		"DROP TABLE replay_base_memos;"
		"DROP TABLE replay_base_flags;"
		"DROP TABLE replay_base_resolutions;"
		"DROP TABLE replay_base_settled;"
		"DROP TABLE replay_base_evidence;"
		"DROP TABLE replay_base_machine_answers;"
		"ALTER TABLE audit DROP COLUMN detail;"
		"DROP TABLE fix_comments;"	/* 9 -> 10 undone */
		"DROP TABLE machine_answers;"	/* 8 -> 9 undone */
		"ALTER TABLE members DROP COLUMN machine;"
		"DROP TABLE evidence;"	/* 7 -> 8 undone */
		"DROP TABLE coding_times;"	/* 6 -> 7 undone */
		"DROP TABLE round_labels;"	/* 5 -> 6 undone */
		"DROP TABLE round_submissions;"
		"DROP TABLE round_frozen;"
		"DROP TABLE repo_aliases;"	/* 4 -> 5 undone */
		"ALTER TABLE fixes DROP COLUMN repeats;"
		"ALTER TABLE items DROP COLUMN kind;"
		"ALTER TABLE items DROP COLUMN missing;"
		"DROP TRIGGER audit_no_update;"		/* 3 -> 4 undone */
		"ALTER TABLE audit DROP COLUMN hash;"
		"CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit"
		"  BEGIN SELECT RAISE(ABORT, 'the audit log is append-only');"
		"  END;"
		"PRAGMA user_version = 3");
	store_close(&st);

	assert_int_equal(study_open(&st, path.ptr, 0, &e), 0);
	assert_int_equal(audit_verify(&st, &c, &e), 0);
	/* its five, and the replay's baseline taken by the migration */
	assert_int_equal(c.rows, 6);
	assert_int_equal(c.bad_id, 0);
	/* new rows go on from the chained ones */
	assert_int_equal(audit_write(&st, "bob", NULL, "label", 0, NULL, NULL,
				     "x", &e), 0);
	assert_int_equal(audit_verify(&st, &c, &e), 0);
	assert_int_equal(c.rows, 7);
	assert_int_equal(c.bad_id, 0);
	/* and the chained rows are append-only again */
	assert_int_not_equal(sqlite3_exec(st.db, "UPDATE audit SET new = 'x' "
					  "WHERE id = 1", NULL, NULL, NULL),
			     SQLITE_OK);
	store_close(&st);
	buf_release(&path);
}

struct seen {
	int n;
	char actors[8][16];
};

static int collect(const struct audit_row *r, void *data)
{
	struct seen *s = data;

	if (s->n < 8)
		snprintf(s->actors[s->n], sizeof(s->actors[0]), "%s%s%s",
			 r->actor, r->for_member ? ">" : "",
			 r->for_member ? r->for_member : "");
	s->n++;
	return 0;
}

static void test_who_reads_what(void **state)
{
	struct store st;
	struct err e = ERR_INIT;
	struct actor owner = { "owner", "owner", 1, ROLE_OWNER, 0 };
	struct actor bob = { "bob", "bob", 3, ROLE_ANNOTATOR, 0 };
	struct actor alice = { "alice", "alice", 2, ROLE_ANNOTATOR, 0 };
	struct audit_filter f = { 0, NULL };
	struct seen s;

	(void)state;
	assert_int_equal(store_open_memory(&st, &e), 0);
	five_rows(&st);
	memset(&s, 0, sizeof(s));
	assert_int_equal(audit_list(&st, &owner, NULL, collect, &s, &e), 0);
	assert_int_equal(s.n, 5);
	/* bob: his own row and the one the owner wrote for him */
	memset(&s, 0, sizeof(s));
	assert_int_equal(audit_list(&st, &bob, NULL, collect, &s, &e), 0);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.actors[0], "owner>bob");
	assert_string_equal(s.actors[1], "bob");
	/* alice asking for bob's rows gets none */
	memset(&s, 0, sizeof(s));
	f.member = "bob";
	assert_int_equal(audit_list(&st, &alice, &f, collect, &s, &e), 0);
	assert_int_equal(s.n, 0);
	/* the owner asking for alice's gets her three */
	memset(&s, 0, sizeof(s));
	f.member = "alice";
	assert_int_equal(audit_list(&st, &owner, &f, collect, &s, &e), 0);
	assert_int_equal(s.n, 3);
	store_close(&st);
}

/* ---- the state against the log's replay ------------------------------- */

#define CODEBOOK "codebooks/llm-framework-bugs.json"

static const char items_jsonl[] =
	"{\"repo\": \"o/r\", \"number\": 1, \"title\": \"one\", \"body\": "
	"\"line one\\nline two\\nline three\"}\n"
	"{\"repo\": \"o/r\", \"number\": 2, \"title\": \"two\", \"body\": "
	"\"b\"}\n"
	"{\"repo\": \"o/r\", \"number\": 3, \"title\": \"three\", \"body\": "
	"\"c\"}\n"
	"{\"repo\": \"o/r\", \"number\": 4, \"title\": \"four\", \"body\": "
	"\"d\"}\n";

/* The check on `st` as the owner (`a`) sees it: it must hold. */
static void holds(struct store *st, const struct actor *a, const char *after)
{
	struct replay_check c;
	struct err e = ERR_INIT;

	if (replay_verify(st, a, NULL, &c, &e) < 0)
		fail_msg("after %s: %s", after, e.msg);
	if (c.failed)
		fail_msg("after %s: %s", after, c.what);
}

/* The check must fail as `kind`, its message containing `want`. */
static void differs(struct store *st, const struct actor *a,
		    enum replay_failure kind, const char *want)
{
	struct replay_check c;
	struct err e = ERR_INIT;

	if (replay_verify(st, a, NULL, &c, &e) < 0)
		fail_msg("%s", e.msg);
	if (c.failed != kind || !strstr(c.what, want))
		fail_msg("expected failure %d naming \"%s\", got %d: %s",
			 kind, want, c.failed, c.what);
}

static long long item_id_of(struct store *st, int number)
{
	sqlite3_stmt *s;
	long long id;

	assert_int_equal(sqlite3_prepare_v2(st->db, "SELECT id FROM items "
			 "WHERE number = ?", -1, &s, NULL), SQLITE_OK);
	sqlite3_bind_int(s, 1, number);
	assert_int_equal(sqlite3_step(s), SQLITE_ROW);
	id = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return id;
}

static long long count_rows(struct store *st, const char *sql)
{
	sqlite3_stmt *s;
	long long n;

	assert_int_equal(sqlite3_prepare_v2(st->db, sql, -1, &s, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_step(s), SQLITE_ROW);
	n = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return n;
}

#define OK(call) do { \
		struct err e_ = ERR_INIT; \
		(void)e_; \
		if ((call) < 0) \
			fail_msg("%s: %s", #call, err.msg); \
	} while (0)

/* A study through every writer the replay knows, checked after each
 * step; left at `path`. */
static void build_study(const char *path)
{
	struct store st;
	struct err err = ERR_INIT;
	struct codebook cb = CODEBOOK_INIT;
	struct actor owner = ACTOR_INIT, alice = ACTOR_INIT, bob = ACTOR_INIT;
	struct actor carol = ACTOR_INIT;
	struct import_stats is;
	struct evidence_cite cite;
	struct buf v11 = BUF_INIT;
	const char *const ann[] = { "alice", "bob" };
	const char *crash = "crash", *hang = "hang", *api = "api_misuse";
	const char *two[] = { "conditional_logic", "synchronization" };
	const char *train = "training";
	struct round_spec r1 = { .name = "r1", .items = "o/r#1,o/r#2,o/r#3",
				 .annotators = ann, .nr_annotators = 2 };
	struct round_spec r2 = { .name = "r2", .items = "all",
				 .annotators = ann, .nr_annotators = 2,
				 .gate_after = "r1", .gate_min_kappa = 0.7,
				 .gate_forced = 1, .gate_detail = "forced" };
	struct update_stats us;
	struct code_map map = { "symptom", "crash", "hang" };
	long long i1, i2, i3, i4, ev, pid, before;

	OK(study_create(&st, path, "Replayed", CODEBOOK, &err));
	OK(member_resolve(&st, NULL, &owner, &err));
	holds(&st, &owner, "init");
	OK(import_text(&st, &owner, items_jsonl, strlen(items_jsonl),
		       "items.jsonl", &is, &err));
	i1 = item_id_of(&st, 1);
	i2 = item_id_of(&st, 2);
	i3 = item_id_of(&st, 3);
	OK(member_add(&st, &owner, "alice", ROLE_ANNOTATOR, &err));
	OK(member_add(&st, &owner, "bob", ROLE_ANNOTATOR, &err));
	OK(member_add(&st, &owner, "carol", ROLE_ANNOTATOR, &err));
	OK(member_add(&st, &owner, "carol", ROLE_ADJUDICATOR, &err));
	OK(member_add(&st, &owner, "dave", ROLE_ANNOTATOR, &err));
	OK(member_remove(&st, &owner, "dave", &err));
	holds(&st, &owner, "members");
	OK(member_resolve(&st, "alice", &alice, &err));
	OK(member_resolve(&st, "bob", &bob, &err));
	OK(member_resolve(&st, "carol", &carol, &err));
	OK(study_codebook(&st, &cb, NULL, &err));
	OK(round_create(&st, &owner, &r1, NULL, &err));
	holds(&st, &owner, "round create");

	OK(label_set(&st, &alice, &cb, i1, "symptom", &crash, 1, 0, &err));
	holds(&st, &owner, "a label");
	/* the same again changes nothing, and writes no row */
	before = count_rows(&st, "SELECT count(*) FROM audit");
	OK(label_set(&st, &alice, &cb, i1, "symptom", &crash, 1, 0, &err));
	assert_int_equal(count_rows(&st, "SELECT count(*) FROM audit"),
			 before);
	OK(label_set(&st, &alice, &cb, i1, "root_cause", &api, 1, 0, &err));
	OK(label_set(&st, &alice, &cb, i1, "fix_pattern", two, 2, 0, &err));
	OK(label_set(&st, &alice, &cb, i1, "phase", &train, 1, 0, &err));
	OK(label_flag(&st, &alice, i1, "uncertain", 1, &err));
	OK(label_flag(&st, &alice, i1, "discuss", 1, &err));
	OK(label_flag(&st, &alice, i1, "uncertain", 0, &err));
	OK(label_memo(&st, &alice, i1, "first thoughts", &err));
	OK(label_memo(&st, &alice, i1, "second thoughts", &err));
	OK(label_memo(&st, &alice, i2, "gone soon", &err));
	OK(label_memo(&st, &alice, i2, "", &err));
	holds(&st, &owner, "flags and memos");
	OK(evidence_parse("issue:body:1-2", &cite, &err));
	OK(evidence_add(&st, &alice, &cb, i1, "symptom", &cite, &ev, &err));
	evidence_cite_release(&cite);
	OK(evidence_parse("issue:body:3", &cite, &err));
	OK(evidence_add(&st, &alice, &cb, i1, "phase", &cite, NULL, &err));
	evidence_cite_release(&cite);
	OK(evidence_remove(&st, &alice, i1, ev, &err));
	holds(&st, &owner, "evidence");
	OK(label_submit(&st, &alice, &cb, i1, &err));
	OK(label_set(&st, &bob, &cb, i1, "symptom", &hang, 1, 0, &err));
	OK(label_set(&st, &bob, &cb, i1, "root_cause", &api, 1, 0, &err));
	OK(label_set(&st, &bob, &cb, i1, "fix_pattern", two, 1, 0, &err));
	OK(label_propose(&st, &bob, &cb, i1, "phase", "warmup", "Warm-up",
			 "the first steps", &pid, &err));
	holds(&st, &owner, "a proposal");
	OK(label_submit(&st, &bob, &cb, i1, &err));
	OK(proposal_map(&st, &carol, pid, "training", &err));
	holds(&st, &owner, "a proposal mapped");
	OK(label_propose(&st, &alice, &cb, i2, "phase", "warmup", "Warm-up",
			 "the first steps", &pid, &err));
	OK(proposal_accept(&st, &carol, pid, NULL, &err));
	codebook_release(&cb);
	OK(study_codebook(&st, &cb, NULL, &err));
	holds(&st, &owner, "a proposal accepted");
	OK(round_close(&st, &owner, "r1", ROUND_FORCE, &err));
	holds(&st, &owner, "round close");
	OK(adjudicate_resolve(&st, &carol, &cb, i1, "symptom", &hang, 1,
			      "the log says so", "slip", &err));
	OK(adjudicate_resolve(&st, &carol, &cb, i1, "symptom", &crash, 1,
			      "on second thought", NULL, &err));
	OK(adjudicate_settle(&st, &carol, i3, "nothing to decide", &err));
	OK(adjudicate_settle(&st, &carol, i3, NULL, &err));
	holds(&st, &owner, "resolutions");
	OK(round_reopen(&st, &owner, "r1", ROUND_FORCE, &err));
	holds(&st, &owner, "round reopen");
	OK(round_create(&st, &owner, &r2, NULL, &err));
	holds(&st, &owner, "a gated round");
	OK(round_close(&st, &owner, "r1", ROUND_FORCE, &err));
	i4 = item_id_of(&st, 4);
	OK(label_set(&st, &alice, &cb, i4, "phase", &train, 1, 0, &err));

	/* a new codebook version (the current one, renumbered), a code
	 * mapped on the way */
	{
		sqlite3_stmt *s;
		cJSON *root;
		char *text;

		assert_int_equal(sqlite3_prepare_v2(st.db, "SELECT json FROM "
				 "codebooks WHERE current", -1, &s, NULL),
				 SQLITE_OK);
		assert_int_equal(sqlite3_step(s), SQLITE_ROW);
		root = cJSON_Parse((const char *)sqlite3_column_text(s, 0));
		sqlite3_finalize(s);
		assert_non_null(root);
		cJSON_ReplaceItemInObjectCaseSensitive(root, "version",
			cJSON_CreateString("2.0"));
		text = cJSON_Print(root);
		buf_addstr(&v11, text);
		free(text);
		cJSON_Delete(root);
	}
	{
		struct buf f = BUF_INIT;
		FILE *out;

		buf_addf(&f, "%s/v2.json", tmpdir);
		out = fopen(f.ptr, "w");
		assert_non_null(out);
		fwrite(v11.ptr, 1, v11.len, out);
		fclose(out);
		OK(codebook_update(&st, &owner, f.ptr, &map, 1, &us, &err));
		buf_release(&f);
		free(us.orphans);
		free(us.first_orphan);
	}
	holds(&st, &owner, "codebook update with a map");
	/* the same code again under the new version: the version changes,
	 * and that is audited */
	codebook_release(&cb);
	OK(study_codebook(&st, &cb, NULL, &err));
	before = count_rows(&st, "SELECT count(*) FROM audit");
	OK(label_set(&st, &alice, &cb, i4, "phase", &train, 1, 0, &err));
	assert_int_equal(count_rows(&st, "SELECT count(*) FROM audit"),
			 before + 1);
	assert_int_equal(count_rows(&st, "SELECT count(*) FROM labels WHERE "
				    "item_id = 4 AND codebook_version = "
				    "'2.0'"), 1);
	holds(&st, &owner, "a label under the new version");
	{
		struct revert_stats rs;

		OK(codebook_revert(&st, &owner, "1.1", NULL, 0, &rs, &err));
	}
	holds(&st, &owner, "codebook revert");
	assert_int_equal(count_rows(&st, "SELECT count(*) FROM audit WHERE "
				    "action = 'audit.baseline'"), 0);

	codebook_release(&cb);
	actor_release(&owner);
	actor_release(&alice);
	actor_release(&bob);
	actor_release(&carol);
	buf_release(&v11);
	store_close(&st);
}

static char *study_copy(const char *name)
{
	struct buf src = BUF_INIT, dst = BUF_INIT, cmd = BUF_INIT;

	buf_addf(&src, "%s/built.db", tmpdir);
	buf_addf(&dst, "%s/%s.db", tmpdir, name);
	if (access(src.ptr, F_OK) != 0)
		build_study(src.ptr);
	buf_addf(&cmd, "cp '%s' '%s'", src.ptr, dst.ptr);
	assert_int_equal(system(cmd.ptr), 0);
	buf_release(&src);
	buf_release(&cmd);
	return buf_detach(&dst, NULL);
}

static void test_replay_every_writer(void **state)
{
	char *path;

	(void)state;
	path = study_copy("every");
	free(path);
}

/* Changed with plain SQL, as someone who can write the file would: each
 * is named. */
static void test_replay_names_tampering(void **state)
{
	static const struct {
		const char *sql;
		enum replay_failure kind;
		const char *want;
	} cases[] = {
		{ "UPDATE labels SET code = 'memory_issue' WHERE member_id = "
		  "2 AND dimension = 'symptom'",
		  REPLAY_STATE, "labels (item o/r#1, member alice, dimension "
		  "symptom, code hang): in what the audit log gives, not in "
		  "the study" },
		{ "UPDATE labels SET labeled_at = '2001-01-01T00:00:00Z'",
		  REPLAY_STATE, "labeled_at is \"2001-01-01T00:00:00Z\"" },
		{ "UPDATE labels SET codebook_version = '0.9'",
		  REPLAY_STATE, "codebook_version" },
		{ "DELETE FROM submissions", REPLAY_STATE, "submissions" },
		{ "UPDATE members SET role = 'owner' WHERE name = 'alice'",
		  REPLAY_STATE, "members (id 2): role is \"owner\"" },
		{ "UPDATE members SET active = 1", REPLAY_STATE, "members" },
		{ "UPDATE resolutions SET rationale = 'forged'", REPLAY_STATE,
		  "rationale is \"forged\"" },
		{ "UPDATE settled SET note = 'forged'", REPLAY_STATE,
		  "settled (item o/r#3): note" },
		{ "DELETE FROM assignments WHERE rowid = 1", REPLAY_STATE,
		  "assignments" },
		{ "UPDATE rounds SET closed_at = NULL", REPLAY_STATE,
		  "rounds" },
		{ "DELETE FROM round_labels WHERE rowid = 1", REPLAY_STATE,
		  "round_labels" },
		{ "UPDATE codebooks SET json = replace(json, 'Crash', 'Boom')",
		  REPLAY_STATE, "codebooks (id 1): sha256" },
		{ "UPDATE evidence SET quote = 'made up'", REPLAY_STATE,
		  "evidence" },
		{ "UPDATE memos SET text = 'made up'", REPLAY_STATE,
		  "memos (item o/r#1, member alice): text" },
		{ "DELETE FROM flags", REPLAY_STATE, "flags" },
		{ "UPDATE proposals SET definition = 'x'", REPLAY_STATE,
		  "proposals" },
		{ "UPDATE meta SET value = 'Other' WHERE key = 'title'",
		  REPLAY_STATE, "meta (key title): value is \"Other\"" },
		{ "UPDATE meta SET value = '00' WHERE key = 'coder_salt'",
		  REPLAY_STATE, "meta (key coder_salt)" },
		{ "INSERT INTO replay_base_labels VALUES (1, 1, 'x', 'y', "
		  "'1', NULL, 'z')", REPLAY_STATE, "no audit row took them" },
		{ "DROP TRIGGER audit_no_delete", REPLAY_SCHEMA,
		  "trigger audit_no_delete that bugcoder makes is missing" },
		{ "DROP TRIGGER audit_no_update; CREATE TRIGGER "
		  "audit_no_update BEFORE UPDATE ON audit BEGIN SELECT 1; END",
		  REPLAY_SCHEMA, "trigger audit_no_update is not as bugcoder "
		  "makes it" },
		{ "CREATE INDEX sneaky ON labels(code)", REPLAY_SCHEMA,
		  "index sneaky is not one bugcoder makes" },
		{ "CREATE VIEW v AS SELECT 1", REPLAY_SCHEMA, "view v" },
		{ "DROP INDEX labels_dim", REPLAY_SCHEMA, "index labels_dim" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct store st;
		struct err e = ERR_INIT;
		struct actor owner = ACTOR_INIT;
		char *path = study_copy("tampered");

		assert_int_equal(study_open(&st, path, 0, &e), 0);
		assert_int_equal(member_resolve(&st, NULL, &owner, &e), 0);
		holds(&st, &owner, "the copy");
		exec_ok(&st, cases[i].sql);
		differs(&st, &owner, cases[i].kind, cases[i].want);
		actor_release(&owner);
		store_close(&st);
		free(path);
	}
}

/* Anyone but the owner is told where, not what: no value of another
 * member's work, no name. */
static void test_replay_tells_others_less(void **state)
{
	struct store st;
	struct err e = ERR_INIT;
	struct actor bob = ACTOR_INIT;
	struct replay_check c;
	char *path = study_copy("blind");

	(void)state;
	assert_int_equal(study_open(&st, path, 0, &e), 0);
	exec_ok(&st, "UPDATE labels SET code = 'memory_issue' WHERE "
		"member_id = 2 AND dimension = 'symptom'");
	assert_int_equal(member_resolve(&st, "bob", &bob, &e), 0);
	/* bob as himself, not the owner acting for him */
	bob.role = ROLE_ANNOTATOR;
	assert_int_equal(replay_verify(&st, &bob, NULL, &c, &e), 0);
	assert_int_equal(c.failed, REPLAY_STATE);
	assert_int_equal(c.told_all, 0);
	assert_non_null(strstr(c.what, "labels (item o/r#1, dimension "
				"symptom)"));
	assert_null(strstr(c.what, "alice"));
	assert_null(strstr(c.what, "memory_issue"));
	assert_null(strstr(c.what, "hang"));
	assert_int_equal(replay_verify(&st, NULL, NULL, &c, &e), 0);
	assert_null(strstr(c.what, "alice"));
	actor_release(&bob);
	store_close(&st);
	free(path);
}

/* A head written down earlier: found while the log only grows; another
 * study (or a rewritten chain) does not hold it. */
static void test_replay_head(void **state)
{
	struct store st, other;
	struct err e = ERR_INIT;
	struct actor owner = ACTOR_INIT;
	struct replay_check c;
	char head[SHA256_HEX_LEN + 1];
	char *path = study_copy("head"), *path2 = study_copy("other");

	(void)state;
	assert_int_equal(study_open(&st, path, 0, &e), 0);
	assert_int_equal(member_resolve(&st, NULL, &owner, &e), 0);
	assert_int_equal(replay_verify(&st, &owner, NULL, &c, &e), 0);
	assert_int_equal(c.failed, REPLAY_OK);
	assert_int_equal(strlen(c.head), SHA256_HEX_LEN);
	memcpy(head, c.head, sizeof(head));
	assert_int_equal(member_add(&st, &owner, "erin", ROLE_ANNOTATOR, &e),
			 0);
	assert_int_equal(replay_verify(&st, &owner, head, &c, &e), 0);
	assert_int_equal(c.failed, REPLAY_OK);
	assert_int_equal(c.pinned_id, c.head_id - 1);
	assert_string_not_equal(c.head, head);
	/* a head is 64 hex digits */
	assert_int_equal(replay_verify(&st, &owner, "abc", &c, &e), -1);
	assert_int_equal(e.code, ERR_USAGE);

	/* the copy made at the same point, then another change: its log
	 * no longer holds the head the first one has now */
	assert_int_equal(replay_verify(&st, &owner, NULL, &c, &e), 0);
	memcpy(head, c.head, sizeof(head));
	assert_int_equal(study_open(&other, path2, 0, &e), 0);
	assert_int_equal(member_add(&other, &owner, "frank", ROLE_ANNOTATOR,
				    &e), 0);
	assert_int_equal(replay_verify(&other, &owner, head, &c, &e), 0);
	assert_int_equal(c.failed, REPLAY_HEAD);
	assert_non_null(strstr(c.what, "another study"));
	store_close(&other);
	actor_release(&owner);
	store_close(&st);
	free(path);
	free(path2);
}

/* A study of today's schema taken back to version 10, as the program
 * before the replay left it: the index of unfetched items (13), the
 * design's tables (12) and the replay's baseline and detail column (11)
 * undone. */
#define BACK_TO_SCHEMA_10 \
	"DROP INDEX items_missing;" \
	"DROP TABLE recodes; DROP TABLE screen_decisions;" \
	"DROP TABLE screen_labels; DROP TABLE screen_assignments;" \
	"ALTER TABLE rounds DROP COLUMN reasons;" \
	"ALTER TABLE rounds DROP COLUMN kind;" \
	"DROP TABLE replay_base_meta; DROP TABLE replay_base_members;" \
	"DROP TABLE replay_base_codebooks; DROP TABLE " \
	"replay_base_rounds; DROP TABLE replay_base_round_annotators;" \
	"DROP TABLE replay_base_assignments; DROP TABLE " \
	"replay_base_round_gates; DROP TABLE replay_base_round_frozen;" \
	"DROP TABLE replay_base_round_submissions; DROP TABLE " \
	"replay_base_round_labels; DROP TABLE replay_base_proposals;" \
	"DROP TABLE replay_base_labels; DROP TABLE " \
	"replay_base_submissions; DROP TABLE replay_base_memos;" \
	"DROP TABLE replay_base_flags; DROP TABLE " \
	"replay_base_resolutions; DROP TABLE replay_base_settled;" \
	"DROP TABLE replay_base_evidence; DROP TABLE " \
	"replay_base_machine_answers;" \
	"ALTER TABLE audit DROP COLUMN detail;" \
	"PRAGMA user_version = 10"

/* A study of schema version 9, written by the program before the replay
 * (state without detail rows): its state becomes the baseline, and the
 * replay goes on from there. */
static void test_replay_baseline_of_an_older_study(void **state)
{
	struct buf path = BUF_INIT;
	struct store st;
	struct err e = ERR_INIT, err = ERR_INIT;
	struct actor owner = ACTOR_INIT, alice = ACTOR_INIT;
	struct codebook cb = CODEBOOK_INIT;
	const char *hang = "hang";
	long long i1;

	(void)state;
	buf_addf(&path, "%s/v9.db", tmpdir);
	assert_int_equal(study_open(&st, path.ptr, STORE_CREATE, &e), 0);
	/* as that program left it: rows without detail, a salt of its own */
	OK(audit_write(&st, "root", NULL, "study.init", 0, NULL, NULL, "old",
		       &err));
	exec_ok(&st, "INSERT INTO meta VALUES ('title', 'old');"
		"INSERT INTO meta VALUES ('coder_salt', 'abcd');"
		"INSERT INTO members (name, role, added_at) VALUES "
		"('alice', 'annotator', 't0');"
		"INSERT INTO items (repo, number, title, body, imported_at) "
		"VALUES ('o/r', 1, 'one', 'b', 't0');"
		"INSERT INTO labels VALUES (1, 1, 'symptom', 'crash', '1.0', "
		"NULL, 't1');"
		BACK_TO_SCHEMA_10);
	store_close(&st);

	/* opened: migrated, the baseline taken */
	assert_int_equal(study_open(&st, path.ptr, 0, &e), 0);
	assert_int_equal(count_rows(&st, "SELECT count(*) FROM audit WHERE "
				    "action = 'audit.baseline'"), 1);
	assert_int_equal(count_rows(&st, "SELECT count(*) FROM "
				    "replay_base_labels"), 1);
	{
		char *me = member_os_user();
		sqlite3_stmt *s;

		/* the owner, written as the old program wrote it: it is in
		 * no baseline, so the check names it */
		assert_int_equal(sqlite3_prepare_v2(st.db, "INSERT INTO "
				 "members (name, role, added_at) VALUES (?, "
				 "'owner', 't0')", -1, &s, NULL), SQLITE_OK);
		sqlite3_bind_text(s, 1, me, -1, SQLITE_TRANSIENT);
		assert_int_equal(sqlite3_step(s), SQLITE_DONE);
		sqlite3_finalize(s);
		free(me);
	}
	assert_int_equal(member_resolve(&st, NULL, &owner, &e), 0);
	differs(&st, &owner, REPLAY_STATE, "members (id 2): in the study");
	exec_ok(&st, "PRAGMA foreign_keys = OFF; DELETE FROM members WHERE "
		"id = 2; PRAGMA foreign_keys = ON");
	store_close(&st);
	actor_release(&owner);

	/* an old study with its owner in it from the start */
	buf_reset(&path);
	buf_addf(&path, "%s/v9b.db", tmpdir);
	assert_int_equal(study_open(&st, path.ptr, STORE_CREATE, &e), 0);
	{
		char *me = member_os_user();
		sqlite3_stmt *s;

		assert_int_equal(sqlite3_prepare_v2(st.db, "INSERT INTO "
				 "members (name, role, added_at) VALUES (?, "
				 "'owner', 't0')", -1, &s, NULL), SQLITE_OK);
		sqlite3_bind_text(s, 1, me, -1, SQLITE_TRANSIENT);
		assert_int_equal(sqlite3_step(s), SQLITE_DONE);
		sqlite3_finalize(s);
		free(me);
	}
	{
		struct buf cbjson = BUF_INIT;
		sqlite3_stmt *s;

		assert_int_equal(buf_read_file(&cbjson, CODEBOOK), 0);
		assert_int_equal(sqlite3_prepare_v2(st.db, "INSERT INTO "
				 "codebooks (name, version, json, loaded_at, "
				 "loaded_by, current) VALUES "
				 "('llm-framework-bugs', '1.0', ?, 't0', 'x', "
				 "1)", -1, &s, NULL), SQLITE_OK);
		sqlite3_bind_text(s, 1, cbjson.ptr, -1, SQLITE_TRANSIENT);
		assert_int_equal(sqlite3_step(s), SQLITE_DONE);
		sqlite3_finalize(s);
		buf_release(&cbjson);
	}
	OK(audit_write(&st, "root", NULL, "study.init", 0, NULL, NULL, "old",
		       &err));
	exec_ok(&st, "INSERT INTO members (name, role, added_at) VALUES "
		"('alice', 'annotator', 't0');"
		"INSERT INTO items (repo, number, title, body, imported_at) "
		"VALUES ('o/r', 1, 'one', 'b', 't0');"
		"INSERT INTO labels VALUES (1, 2, 'symptom', 'crash', '1.0', "
		"NULL, 't1');"
		BACK_TO_SCHEMA_10);
	store_close(&st);
	assert_int_equal(study_open(&st, path.ptr, 0, &e), 0);
	assert_int_equal(member_resolve(&st, NULL, &owner, &e), 0);
	holds(&st, &owner, "the migration");
	/* a salt was made for it, in the baseline */
	assert_int_equal(count_rows(&st, "SELECT count(*) FROM "
				    "replay_base_meta WHERE key = "
				    "'coder_salt'"), 1);
	/* work after the migration is replayed on top */
	OK(member_resolve(&st, "alice", &alice, &err));
	OK(study_codebook(&st, &cb, NULL, &err));
	i1 = item_id_of(&st, 1);
	OK(label_set(&st, &alice, &cb, i1, "symptom", &hang, 1, 0, &err));
	holds(&st, &owner, "a label after the migration");
	/* the baseline is the state before: changed, it no longer fits */
	exec_ok(&st, "UPDATE replay_base_labels SET labeled_at = 't9'");
	differs(&st, &owner, REPLAY_STATE, "was changed since");
	codebook_release(&cb);
	actor_release(&owner);
	actor_release(&alice);
	store_close(&st);
	buf_release(&path);
}

static void test_replay_ids_format(void **state)
{
	const long long ids[] = { 1, 2, 3, 7, 9, 10, 4 };
	struct buf b = BUF_INIT;

	(void)state;
	replay_format_ids(&b, ids, 7);
	assert_string_equal(b.ptr, "1-3,7,9-10,4");
	buf_reset(&b);
	replay_format_ids(&b, ids, 0);
	assert_string_equal(b.ptr, "");
	buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hash_encoding),
		cmocka_unit_test(test_chain_holds),
		cmocka_unit_test(test_changed_row_named),
		cmocka_unit_test(test_removed_row_named),
		cmocka_unit_test(test_inserted_row_named),
		cmocka_unit_test(test_migration_chains_old_rows),
		cmocka_unit_test(test_who_reads_what),
		cmocka_unit_test(test_replay_ids_format),
		cmocka_unit_test(test_replay_every_writer),
		cmocka_unit_test(test_replay_names_tampering),
		cmocka_unit_test(test_replay_tells_others_less),
		cmocka_unit_test(test_replay_head),
		cmocka_unit_test(test_replay_baseline_of_an_older_study),
	};

	return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
