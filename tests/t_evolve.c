/* SPDX-License-Identifier: MIT */
/*
 * t_evolve: the codebook grows without losing a label (core/study/evolve.h).
 * Updates that keep, map or would drop used codes; labels left on a code
 * the codebook lacks, and mended; resolutions rewritten by a map;
 * proposals accepted, mapped and undone by a revert; every refusal's
 * message, with the study left as it was.
 *
 * The study is in memory.  Its codebook "ev" has two dimensions: sym
 * (one, required: crash, hang, other) and fix (many: guard, retry,
 * other); variants are written into a temporary directory.
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

#include "core/base/buf.h"
#include "core/study/codebook.h"
#include "core/study/evolve.h"
#include "core/study/proposal.h"
#include "core/study/import.h"
#include "core/study/item.h"
#include "core/study/label.h"
#include "core/study/member.h"
#include "core/study/round.h"
#include "core/store/store.h"
#include "core/study/study.h"

#define OK(call) do { \
		struct err *e_ = &f->e; \
		if ((call) < 0) \
			fail_msg("%s: %s", #call, e_->msg); \
	} while (0)

struct fixture {
	struct store st;
	struct codebook cb;
	struct actor owner, alice, bob, carol;
	long long i1, i2, i3;
	char dir[32];
	struct err e;
};

/* The codebook "ev" of `version` with the codes of sym and fix given as
 * space-separated keys (NULL: leave the dimension out). */
static char *cb_json(const char *version, const char *sym, const char *fix)
{
	struct buf b = BUF_INIT;
	const char *dims[2] = { sym, fix };
	const char *keys[2] = { "sym", "fix" };
	int i, first = 1;

	buf_addf(&b, "{\"name\": \"ev\", \"version\": \"%s\", "
		 "\"dimensions\": [", version);
	for (i = 0; i < 2; i++) {
		char *copy, *tok, *save = NULL;
		int n = 0;

		if (!dims[i])
			continue;
		buf_addf(&b, "%s{\"key\": \"%s\", \"name\": \"%s\", "
			 "\"select\": \"%s\", \"required\": %s, \"codes\": [",
			 first ? "" : ", ", keys[i], keys[i],
			 i ? "many" : "one", i ? "false" : "true");
		first = 0;
		copy = xstrdup(dims[i]);
		for (tok = strtok_r(copy, " ", &save); tok;
		     tok = strtok_r(NULL, " ", &save))
			buf_addf(&b, "%s{\"key\": \"%s\", \"name\": \"%s\", "
				 "\"definition\": \"The %s code.\"}",
				 n++ ? ", " : "", tok, tok, tok);
		free(copy);
		buf_addstr(&b, "]}");
	}
	buf_addstr(&b, "]}\n");
	return buf_detach(&b, NULL);
}

/* Write a variant to DIR/NAME; the path, owned. */
static char *cb_file(struct fixture *f, const char *name,
		     const char *version, const char *sym, const char *fix)
{
	struct buf path = BUF_INIT;
	char *json = cb_json(version, sym, fix);
	FILE *fp;

	buf_addf(&path, "%s/%s", f->dir, name);
	fp = fopen(path.ptr, "w");
	assert_non_null(fp);
	fputs(json, fp);
	fclose(fp);
	free(json);
	return buf_detach(&path, NULL);
}

static long long q(struct store *st, const char *sql)
{
	sqlite3_stmt *s = NULL;
	long long v;

	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(st->db));
	assert_int_equal(sqlite3_step(s), SQLITE_ROW);
	v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return v;
}

/* The first column of the first row, as text (owned; "" for NULL). */
static char *qs(struct store *st, const char *sql)
{
	sqlite3_stmt *s = NULL;
	const char *t;
	char *v;

	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(st->db));
	assert_int_equal(sqlite3_step(s), SQLITE_ROW);
	t = (const char *)sqlite3_column_text(s, 0);
	v = xstrdup(t ? t : "");
	sqlite3_finalize(s);
	return v;
}

#define assert_q_string(st, sql, want) do { \
		char *got_ = qs((st), (sql)); \
		assert_string_equal(got_, (want)); \
		free(got_); \
	} while (0)

static const char items_jsonl[] =
	"{\"repo\": \"o/r\", \"number\": 1, \"title\": \"one\"}\n"
	"{\"repo\": \"o/r\", \"number\": 2, \"title\": \"two\"}\n"
	"{\"repo\": \"o/r\", \"number\": 3, \"title\": \"three\"}\n";

static int setup(void **state)
{
	struct fixture *f = xcalloc(1, sizeof(*f));
	const char *const ann[] = { "alice", "bob" };
	struct round_spec r = { .name = "r1", .items = "all",
				.annotators = ann, .nr_annotators = 2 };
	struct import_stats is;
	struct err *e = &f->e;
	char *path;

	setenv("BUGCODER_NOW", "2024-06-01T00:00:00Z", 1);
	snprintf(f->dir, sizeof(f->dir), "/tmp/t_evolve.XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	path = cb_file(f, "v1.json", "1", "crash hang other",
		       "guard retry other");
	if (store_open_memory(&f->st, e) < 0 ||
	    study_init(&f->st, "Evolve", path, e) < 0 ||
	    study_codebook(&f->st, &f->cb, NULL, e) < 0 ||
	    member_resolve(&f->st, NULL, &f->owner, e) < 0 ||
	    import_text(&f->st, &f->owner, items_jsonl, strlen(items_jsonl),
			"items.jsonl", &is, e) < 0 ||
	    member_add(&f->st, &f->owner, "alice", ROLE_ANNOTATOR, e) < 0 ||
	    member_add(&f->st, &f->owner, "bob", ROLE_ANNOTATOR, e) < 0 ||
	    member_add(&f->st, &f->owner, "carol", ROLE_ADJUDICATOR, e) < 0 ||
	    member_resolve(&f->st, "alice", &f->alice, e) < 0 ||
	    member_resolve(&f->st, "bob", &f->bob, e) < 0 ||
	    member_resolve(&f->st, "carol", &f->carol, e) < 0 ||
	    round_create(&f->st, &f->owner, &r, NULL, e) < 0 ||
	    (f->i1 = item_find(&f->st, "o/r#1", e)) < 0 ||
	    (f->i2 = item_find(&f->st, "o/r#2", e)) < 0 ||
	    (f->i3 = item_find(&f->st, "o/r#3", e)) < 0) {
		print_error("setup: %s\n", e->msg);
		free(path);
		return -1;
	}
	free(path);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	struct buf cmd = BUF_INIT;

	buf_addf(&cmd, "rm -rf '%s'", f->dir);
	if (system(cmd.ptr) != 0)
		print_error("could not remove %s\n", f->dir);
	buf_release(&cmd);
	actor_release(&f->owner);
	actor_release(&f->alice);
	actor_release(&f->bob);
	actor_release(&f->carol);
	codebook_release(&f->cb);
	store_close(&f->st);
	free(f);
	unsetenv("BUGCODER_NOW");
	return 0;
}

static void set1(struct fixture *f, const struct actor *a, long long item,
		 const char *dim, const char *code)
{
	OK(label_set(&f->st, a, &f->cb, item, dim, &code, 1, 0, e_));
}

/* Reload the current codebook into f->cb. */
static void reload(struct fixture *f)
{
	codebook_release(&f->cb);
	OK(study_codebook(&f->st, &f->cb, NULL, e_));
}

static void test_code_list_replace(void **state)
{
	char *s;

	(void)state;
	s = code_list_replace("a;b;c", "b", "z");
	assert_string_equal(s, "a;c;z");
	free(s);
	/* a merge onto a code already listed leaves it once */
	s = code_list_replace("a;b", "b", "a");
	assert_string_equal(s, "a");
	free(s);
	s = code_list_replace("crash", "crash", "hang");
	assert_string_equal(s, "hang");
	free(s);
	assert_null(code_list_replace("a;b", "c", "d"));
	assert_null(code_list_replace("", "c", "d"));
}

static void test_version_next(void **state)
{
	static const char *const cases[][2] = {
		{ "1.0", "1.1" }, { "2", "3" }, { "1.9", "1.10" },
		{ "1.0-beta", "1.0-beta.1" }, { "v", "v.1" },
		{ "2024.06.09", "2024.06.10" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *s = codebook_version_next(cases[i][0]);

		assert_string_equal(s, cases[i][1]);
		free(s);
	}
}

static void test_map_parse(void **state)
{
	struct fixture *f = *state;
	struct code_map m;
	struct err e = ERR_INIT;
	char *copy;

	assert_int_equal(code_map_parse("sym:crash=hang", &f->cb, &m, &copy,
					&e), 0);
	assert_string_equal(m.dim, "sym");
	assert_string_equal(m.from, "crash");
	assert_string_equal(m.to, "hang");
	free(copy);
	/* the dimension found from the code */
	assert_int_equal(code_map_parse("retry=guard", &f->cb, &m, &copy, &e),
			 0);
	assert_string_equal(m.dim, "fix");
	assert_string_equal(m.from, "retry");
	assert_string_equal(m.to, "guard");
	free(copy);

	assert_int_equal(code_map_parse("other=crash", &f->cb, &m, &copy, &e),
			 -1);
	assert_int_equal(e.code, ERR_INPUT);
	assert_string_equal(e.msg, "--map other=crash: other is a code of "
			    "several dimensions; write DIM:other=crash");
	free(copy);
	assert_int_equal(code_map_parse("boom=crash", &f->cb, &m, &copy, &e),
			 -1);
	assert_string_equal(e.msg, "--map boom=crash: no code boom in the "
			    "current codebook");
	free(copy);
	assert_int_equal(code_map_parse("stage:a=b", &f->cb, &m, &copy, &e),
			 -1);
	assert_string_equal(e.msg, "--map stage:a=b: no dimension stage in "
			    "the current codebook");
	free(copy);
	assert_int_equal(code_map_parse("crash", &f->cb, &m, &copy, &e), -1);
	assert_int_equal(e.code, ERR_USAGE);
	assert_string_equal(e.msg, "--map crash: expected OLD=NEW or "
			    "DIM:OLD=NEW");
	free(copy);
	assert_int_equal(code_map_parse("=crash", &f->cb, &m, &copy, &e), -1);
	free(copy);
	assert_int_equal(code_map_parse("crash=", &f->cb, &m, &copy, &e), -1);
	free(copy);
}

static void test_update_keeps_used_codes(void **state)
{
	struct fixture *f = *state;
	struct update_stats us;
	struct err e = ERR_INIT;
	char *v1 = cb_file(f, "same.json", "1", "crash hang other",
			   "guard retry other");
	char *v2 = cb_file(f, "v2.json", "2", "crash hang leak other",
			   "guard retry other");
	char *drop = cb_file(f, "drop.json", "3", "hang other",
			     "guard retry other");
	char *nodim = cb_file(f, "nodim.json", "3", "crash hang other", NULL);
	char *clash = cb_file(f, "clash.json", "1", "crash other", "guard");
	long long audit;

	set1(f, &f->alice, f->i1, "sym", "crash");
	set1(f, &f->bob, f->i1, "sym", "crash");
	set1(f, &f->alice, f->i2, "fix", "retry");

	assert_int_equal(codebook_update(&f->st, &f->alice, v2, NULL, 0, &us,
					 &e), -1);
	assert_int_equal(e.code, ERR_PERM);
	assert_int_equal(codebook_update(&f->st, &f->owner, "/nonexistent/cb."
					 "json", NULL, 0, &us, &e), -1);
	assert_int_equal(e.code, ERR_IO);
	assert_string_equal(e.msg, "/nonexistent/cb.json: No such file or "
			    "directory");

	/* the current version's own file: nothing to do */
	OK(codebook_update(&f->st, &f->owner, v1, NULL, 0, &us, e_));
	assert_int_equal(us.unchanged, 1);
	assert_null(us.orphans);
	assert_int_equal(q(&f->st, "SELECT count(*) FROM codebooks"), 1);

	audit = q(&f->st, "SELECT count(*) FROM audit");
	assert_int_equal(codebook_update(&f->st, &f->owner, clash, NULL, 0,
					 &us, &e), -1);
	assert_int_equal(e.code, ERR_INPUT);
	assert_non_null(strstr(e.msg, ": version 1 is already loaded with "
			       "different content; give the new codebook a "
			       "new version"));
	assert_int_equal(codebook_update(&f->st, &f->owner, drop, NULL, 0,
					 &us, &e), -1);
	assert_string_equal(e.msg, "sym=crash is used by 2 labels but missing "
			    "from the new codebook; map it with --map "
			    "sym:crash=NEW");
	assert_int_equal(codebook_update(&f->st, &f->owner, nodim, NULL, 0,
					 &us, &e), -1);
	assert_string_equal(e.msg, "dimension fix is used by labels but "
			    "missing from the new codebook");
	/* nothing changed */
	assert_int_equal(q(&f->st, "SELECT count(*) FROM codebooks"), 1);
	assert_int_equal(q(&f->st, "SELECT count(*) FROM audit"), audit);
	assert_int_equal(q(&f->st, "SELECT count(*) FROM labels WHERE code = "
			   "'crash'"), 2);

	/* a new version keeping every used code */
	OK(codebook_update(&f->st, &f->owner, v2, NULL, 0, &us, e_));
	assert_int_equal(us.unchanged, 0);
	assert_int_equal(us.moved, 0);
	assert_null(us.orphans);
	assert_q_string(&f->st, "SELECT version FROM codebooks WHERE current",
			"2");
	/* labels keep the version they were made under */
	assert_int_equal(q(&f->st, "SELECT count(*) FROM labels WHERE "
			   "codebook_version = '1'"), 3);
	free(v1);
	free(v2);
	free(drop);
	free(nodim);
	free(clash);
}

static void test_update_with_maps(void **state)
{
	struct fixture *f = *state;
	struct update_stats us;
	struct err e = ERR_INIT;
	char *v2 = cb_file(f, "v2.json", "2", "failure hang other",
			   "guard other");
	struct code_map maps[] = {
		{ "sym", "crash", "failure" }, { "fix", "retry", "guard" },
	};
	struct code_map bad[] = { { "sym", "crash", "boom" } };
	struct code_map nodim[] = { { "stage", "crash", "hang" } };
	struct code_map twice[] = {
		{ "sym", "crash", "failure" }, { "sym", "crash", "hang" },
	};
	const char *both[] = { "guard", "retry" };

	set1(f, &f->alice, f->i1, "sym", "crash");
	set1(f, &f->bob, f->i1, "sym", "crash");
	set1(f, &f->bob, f->i2, "sym", "hang");
	OK(label_set(&f->st, &f->alice, &f->cb, f->i2, "fix", both, 2, 0, e_));
	/* a resolution of item 2's fix: guard;retry */
	OK(store_exec(&f->st, "INSERT INTO resolutions (item_id, dimension, "
		      "code, rationale, adjudicator_id, resolved_at) SELECT "
		      "id, 'fix', 'guard;retry', 'both', 1, 'x' FROM items "
		      "WHERE number = 2", e_));

	assert_int_equal(codebook_update(&f->st, &f->owner, v2, bad, 1, &us,
					 &e), -1);
	assert_string_equal(e.msg, "--map sym:crash=boom: boom is not a code "
			    "of sym in the new codebook");
	assert_int_equal(codebook_update(&f->st, &f->owner, v2, nodim, 1, &us,
					 &e), -1);
	assert_string_equal(e.msg, "--map stage:crash=hang: dimension stage is "
			    "not in the new codebook");
	assert_int_equal(codebook_update(&f->st, &f->owner, v2, twice, 2, &us,
					 &e), -1);
	assert_string_equal(e.msg, "--map sym:crash given twice");
	/* retry is used by a resolution too */
	assert_int_equal(codebook_update(&f->st, &f->owner, v2, maps, 1, &us,
					 &e), -1);
	assert_string_equal(e.msg, "fix=retry is used by 1 label but missing "
			    "from the new codebook; map it with --map "
			    "fix:retry=NEW");
	assert_q_string(&f->st, "SELECT version FROM codebooks WHERE current",
			"1");

	OK(codebook_update(&f->st, &f->owner, v2, maps, 2, &us, e_));
	assert_int_equal(us.moved, 3);
	assert_int_equal(us.resolutions, 1);
	assert_null(us.orphans);
	assert_int_equal(q(&f->st, "SELECT count(*) FROM labels WHERE code = "
			   "'failure'"), 2);
	/* alice's guard and retry merge into one guard */
	assert_int_equal(q(&f->st, "SELECT count(*) FROM labels WHERE "
			   "dimension = 'fix'"), 1);
	assert_q_string(&f->st, "SELECT code FROM resolutions", "guard");
	assert_int_equal(q(&f->st, "SELECT count(*) FROM audit WHERE action = "
			   "'codebook.map' AND dimension = 'sym' AND old = "
			   "'crash'"), 1);
	assert_q_string(&f->st, "SELECT version FROM codebooks WHERE current",
			"2");
	free(v2);
}

static void test_orphans_reported_and_mended(void **state)
{
	struct fixture *f = *state;
	struct update_stats us;
	char *v1 = cb_file(f, "same.json", "1", "crash hang other",
			   "guard retry other");
	struct code_map mend[] = { { "sym", "gone", "hang" } };

	set1(f, &f->alice, f->i1, "sym", "crash");
	set1(f, &f->bob, f->i1, "sym", "crash");
	set1(f, &f->bob, f->i2, "fix", "retry");
	/* labels left on codes the codebook lacks (as an old study's are) */
	OK(store_exec(&f->st, "UPDATE labels SET code = 'gone' WHERE "
		      "dimension = 'sym'; UPDATE labels SET code = 'lost' "
		      "WHERE dimension = 'fix'", e_));
	OK(codebook_update(&f->st, &f->owner, v1, NULL, 0, &us, e_));
	assert_int_equal(us.unchanged, 1);
	assert_string_equal(us.orphans, "fix=lost (1 label); sym=gone (2 "
			    "labels)");
	assert_int_equal(us.nr_orphans, 2);
	assert_string_equal(us.first_orphan, "fix:lost");
	free(us.orphans);
	free(us.first_orphan);

	/* the same file with a map mends them, with no new version */
	OK(codebook_update(&f->st, &f->owner, v1, mend, 1, &us, e_));
	assert_int_equal(us.unchanged, 1);
	assert_int_equal(us.moved, 2);
	assert_string_equal(us.orphans, "fix=lost (1 label)");
	assert_int_equal(us.nr_orphans, 1);
	free(us.orphans);
	free(us.first_orphan);
	assert_int_equal(q(&f->st, "SELECT count(*) FROM codebooks"), 1);
	assert_int_equal(q(&f->st, "SELECT count(*) FROM labels WHERE code = "
			   "'hang'"), 2);
	free(v1);
}

static void test_proposals(void **state)
{
	struct fixture *f = *state;
	struct proposal *v;
	size_t nr;
	long long p1, p2, p3;
	struct err e = ERR_INIT;

	OK(label_propose(&f->st, &f->alice, &f->cb, f->i1, "sym", "leak",
			 "Leak", "Memory grows.", &p1, e_));
	OK(label_propose(&f->st, &f->bob, &f->cb, f->i1, "sym", "oom",
			 "Out of memory", "Killed.", &p2, e_));
	OK(label_propose(&f->st, &f->bob, &f->cb, f->i2, "fix", "patch",
			 "Patch", "Patched.", &p3, e_));

	assert_int_equal(proposal_list(&f->st, &f->alice, 0, &v, &nr, &e), -1);
	assert_int_equal(e.code, ERR_PERM);
	OK(proposal_list(&f->st, &f->carol, 0, &v, &nr, e_));
	assert_int_equal(nr, 3);
	assert_string_equal(v[0].dimension, "sym");
	assert_string_equal(v[0].key, "leak");
	assert_string_equal(v[0].name, "Leak");
	assert_string_equal(v[0].definition, "Memory grows.");
	assert_string_equal(v[0].item, "o/r#1");
	/* a blind adjudicator is not told who proposed it */
	assert_string_equal(v[0].member, "a coder");
	assert_string_equal(v[0].status, "open");
	assert_int_equal(v[0].nr_labels, 1);
	proposal_list_free(v, nr);
	OK(proposal_list(&f->st, &f->owner, 0, &v, &nr, e_));
	assert_int_equal(nr, 3);
	assert_string_equal(v[0].member, "alice");
	assert_string_equal(v[2].member, "bob");
	assert_string_equal(v[2].item, "o/r#2");
	proposal_list_free(v, nr);

	/* accepted: a new version with the code before `other` */
	OK(proposal_accept(&f->st, &f->carol, p1, NULL, e_));
	reload(f);
	assert_string_equal(f->cb.version, "2");
	assert_string_equal(f->cb.dims[0].codes[2].key, "leak");
	assert_string_equal(f->cb.dims[0].codes[3].key, "other");
	assert_int_equal(q(&f->st, "SELECT count(*) FROM labels WHERE code = "
			   "'leak' AND member_id = (SELECT id FROM members "
			   "WHERE name = 'alice')"), 1);
	assert_int_equal(q(&f->st, "SELECT count(*) FROM audit WHERE action = "
			   "'proposal.accept' AND new = 'leak (accepted into "
			   "2, 1 labels)'"), 1);
	assert_int_equal(proposal_accept(&f->st, &f->owner, p1, NULL, &e), -1);
	assert_string_equal(e.msg, "proposal 1 is already accepted");
	assert_int_equal(proposal_accept(&f->st, &f->owner, 99, NULL, &e), -1);
	assert_int_equal(e.code, ERR_NOTFOUND);
	assert_string_equal(e.msg, "proposal 99: no such proposal");
	assert_int_equal(proposal_accept(&f->st, &f->bob, p2, NULL, &e), -1);
	assert_int_equal(e.code, ERR_PERM);

	/* mapped onto an existing code */
	assert_int_equal(proposal_map(&f->st, &f->owner, p2, "lek", &e), -1);
	assert_string_equal(e.msg, "sym=lek: no such code in the current "
			    "codebook; did you mean leak?");
	OK(proposal_map(&f->st, &f->owner, p2, "leak", e_));
	assert_int_equal(q(&f->st, "SELECT count(*) FROM labels WHERE code = "
			   "'leak'"), 2);
	assert_int_equal(q(&f->st, "SELECT count(*) FROM audit WHERE action = "
			   "'proposal.map' AND new = 'leak (proposal oom "
			   "mapped, 1 labels)'"), 1);
	assert_int_equal(proposal_map(&f->st, &f->owner, p2, "leak", &e), -1);
	assert_string_equal(e.msg, "proposal 2 is already mapped");

	/* accepted under a version of the caller's choice */
	OK(proposal_accept(&f->st, &f->owner, p3, "2.0", e_));
	reload(f);
	assert_string_equal(f->cb.version, "2.0");
	OK(proposal_list(&f->st, &f->owner, 0, &v, &nr, e_));
	assert_int_equal(nr, 0);
	proposal_list_free(v, nr);
	OK(proposal_list(&f->st, &f->owner, 1, &v, &nr, e_));
	assert_int_equal(nr, 3);
	assert_string_equal(v[1].status, "mapped");
	assert_string_equal(v[1].decided_code, "leak");
	proposal_list_free(v, nr);
}

static void test_accept_existing_code_refused(void **state)
{
	struct fixture *f = *state;
	struct update_stats us;
	struct err e = ERR_INIT;
	long long p;
	char *v2 = cb_file(f, "v2.json", "2", "crash hang leak other",
			   "guard retry other");

	OK(label_propose(&f->st, &f->alice, &f->cb, f->i1, "sym", "leak",
			 "Leak", "Memory grows.", &p, e_));
	/* meanwhile the codebook gained the code itself */
	OK(codebook_update(&f->st, &f->owner, v2, NULL, 0, &us, e_));
	assert_int_equal(proposal_accept(&f->st, &f->owner, p, NULL, &e), -1);
	assert_string_equal(e.msg, "proposal 1: sym=leak exists already; map "
			    "the proposal onto it");
	assert_q_string(&f->st, "SELECT status FROM proposals", "open");
	free(v2);
}

static void test_revert(void **state)
{
	struct fixture *f = *state;
	struct revert_stats rs;
	struct update_stats us;
	struct err e = ERR_INIT;
	long long p;
	char *v2 = cb_file(f, "v2.json", "2", "failure crash hang leak other",
			   "guard retry other");
	struct code_map back[] = { { "sym", "failure", "crash" } };
	struct code_map bad[] = { { "sym", "failure", "nope" } };

	OK(label_propose(&f->st, &f->alice, &f->cb, f->i1, "sym", "leak",
			 "Leak", "Memory grows.", &p, e_));
	OK(proposal_accept(&f->st, &f->owner, p, "1.1", e_));
	OK(codebook_update(&f->st, &f->owner, v2, NULL, 0, &us, e_));
	reload(f);
	set1(f, &f->bob, f->i2, "sym", "failure");

	assert_int_equal(codebook_revert(&f->st, &f->carol, "1", NULL, 0, &rs,
					 &e), -1);
	assert_int_equal(e.code, ERR_PERM);
	assert_int_equal(codebook_revert(&f->st, &f->owner, "2", NULL, 0, &rs,
					 &e), -1);
	assert_string_equal(e.msg, "codebook ev 2 is the current version "
			    "already");
	assert_int_equal(codebook_revert(&f->st, &f->owner, "1.2", NULL, 0,
					 &rs, &e), -1);
	assert_int_equal(e.code, ERR_NOTFOUND);
	assert_string_equal(e.msg, "codebook version 1.2: the study never had "
			    "it; did you mean 1.1?");
	/* version 1 lacks failure, which bob's label uses */
	assert_int_equal(codebook_revert(&f->st, &f->owner, "1", NULL, 0, &rs,
					 &e), -1);
	assert_string_equal(e.msg, "version 1 lacks codes labels use: "
			    "sym=failure (1 label); map them with --map "
			    "sym:failure=NEW");
	assert_int_equal(codebook_revert(&f->st, &f->owner, "1", bad, 1, &rs,
					 &e), -1);
	assert_string_equal(e.msg, "--map sym:failure=nope: nope is not a "
			    "code of sym in version 1");
	/* nothing moved by the refusals */
	assert_q_string(&f->st, "SELECT status FROM proposals", "accepted");
	assert_int_equal(q(&f->st, "SELECT count(*) FROM labels WHERE code = "
			   "'failure'"), 1);

	OK(codebook_revert(&f->st, &f->owner, "1", back, 1, &rs, e_));
	assert_int_equal(rs.moved, 1);
	assert_int_equal(rs.reopened, 1);
	assert_int_equal(rs.back_to_other, 1);
	assert_q_string(&f->st, "SELECT version FROM codebooks WHERE current",
			"1");
	assert_q_string(&f->st, "SELECT status FROM proposals", "open");
	/* alice's label is `other` again, with the proposal attached */
	assert_int_equal(q(&f->st, "SELECT count(*) FROM labels WHERE code = "
			   "'other' AND proposal_id IS NOT NULL"), 1);
	assert_int_equal(q(&f->st, "SELECT count(*) FROM audit WHERE action = "
			   "'codebook.revert' AND old = '2' AND new = 'ev 1'"),
			 1);
	assert_int_equal(q(&f->st, "SELECT count(*) FROM audit WHERE action = "
			   "'proposal.reopen' AND new = 'open (1 label back "
			   "to other)'"), 1);
	free(v2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_code_list_replace),
		cmocka_unit_test(test_version_next),
		cmocka_unit_test_setup_teardown(test_map_parse, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_update_keeps_used_codes,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_update_with_maps, setup,
						teardown),
		cmocka_unit_test_setup_teardown(
			test_orphans_reported_and_mended, setup, teardown),
		cmocka_unit_test_setup_teardown(test_proposals, setup,
						teardown),
		cmocka_unit_test_setup_teardown(
			test_accept_existing_code_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_revert, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
