/* SPDX-License-Identifier: MIT */
/*
 * t_round: creating rounds (named items, "all", "repo:", "@FILE",
 * "unfinished:ROUND", samples with a seed, stratified by repository),
 * the checks and their messages, closing and reopening, what an annotator
 * of an open round learns of its progress, and the codebook versions a
 * round was coded with.
 *
 * The study is in memory, with the bundled codebook
 * codebooks/llm-framework-bugs.json; items o/r#1..6 and p/q#1..4.
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
#include "core/study/import.h"
#include "core/study/item.h"
#include "core/study/label.h"
#include "core/study/member.h"
#include "core/study/round.h"
#include "core/store/store.h"
#include "core/study/study.h"
#include "core/store/audit.h"

#define CODEBOOK "codebooks/llm-framework-bugs.json"

#define OK(call) do { \
		struct err *e_ = &f->e; \
		if ((call) < 0) \
			fail_msg("%s: %s", #call, e_->msg); \
	} while (0)

struct fixture {
	struct store st;
	struct codebook cb;
	struct actor owner, alice, bob, carol;
	struct err e;
};

static const char items_jsonl[] =
	"{\"repo\": \"o/r\", \"number\": 1, \"title\": \"one\"}\n"
	"{\"repo\": \"o/r\", \"number\": 2, \"title\": \"two\"}\n"
	"{\"repo\": \"o/r\", \"number\": 3, \"title\": \"three\"}\n"
	"{\"repo\": \"o/r\", \"number\": 4, \"title\": \"four\"}\n"
	"{\"repo\": \"o/r\", \"number\": 5, \"title\": \"five\"}\n"
	"{\"repo\": \"o/r\", \"number\": 6, \"title\": \"six\"}\n"
	"{\"repo\": \"p/q\", \"number\": 1, \"title\": \"p one\"}\n"
	"{\"repo\": \"p/q\", \"number\": 2, \"title\": \"p two\"}\n"
	"{\"repo\": \"p/q\", \"number\": 3, \"title\": \"p three\"}\n"
	"{\"repo\": \"p/q\", \"number\": 4, \"title\": \"p four\"}\n";

static const char *const ab[] = { "alice", "bob" };

static int setup(void **state)
{
	struct fixture *f = xcalloc(1, sizeof(*f));
	struct import_stats is;
	struct err *e = &f->e;

	setenv("BUGCODER_NOW", "2024-06-01T00:00:00Z", 1);
	if (store_open_memory(&f->st, e) < 0 ||
	    study_init(&f->st, "Rounds", CODEBOOK, e) < 0 ||
	    study_codebook(&f->st, &f->cb, NULL, e) < 0 ||
	    member_resolve(&f->st, NULL, &f->owner, e) < 0 ||
	    import_text(&f->st, &f->owner, items_jsonl, strlen(items_jsonl),
			"items.jsonl", &is, e) < 0 ||
	    member_add(&f->st, &f->owner, "alice", ROLE_ANNOTATOR, e) < 0 ||
	    member_add(&f->st, &f->owner, "bob", ROLE_ANNOTATOR, e) < 0 ||
	    member_add(&f->st, &f->owner, "carol", ROLE_ADJUDICATOR, e) < 0 ||
	    member_resolve(&f->st, "alice", &f->alice, e) < 0 ||
	    member_resolve(&f->st, "bob", &f->bob, e) < 0 ||
	    member_resolve(&f->st, "carol", &f->carol, e) < 0) {
		print_error("setup: %s\n", e->msg);
		return -1;
	}
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

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

/* The items of round `name` in round order, "o/r#1 p/q#2 ...". */
static char *members_of(struct store *st, const char *name)
{
	struct buf b = BUF_INIT;
	sqlite3_stmt *s = NULL;

	assert_int_equal(sqlite3_prepare_v2(st->db, "SELECT i.repo || '#' || "
			 "i.number FROM assignments a JOIN rounds r ON r.id = "
			 "a.round_id JOIN items i ON i.id = a.item_id WHERE "
			 "r.name = ? ORDER BY a.position", -1, &s, NULL),
			 SQLITE_OK);
	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	while (sqlite3_step(s) == SQLITE_ROW)
		buf_addf(&b, "%s%s", b.len ? " " : "",
			 (const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	return buf_detach(&b, NULL);
}

static long long id_of(struct fixture *f, const char *name)
{
	long long id = item_find(&f->st, name, &f->e);

	if (id < 0)
		fail_msg("%s: %s", name, f->e.msg);
	return id;
}

/* round_create() must fail with `code` and exactly `msg`, and leave no
 * round behind. */
static void refused(struct fixture *f, const struct actor *a,
		    const struct round_spec *spec, int code, const char *msg)
{
	struct err e = ERR_INIT;
	long long before = q(&f->st, "SELECT count(*) FROM rounds");
	long long audit = q(&f->st, "SELECT count(*) FROM audit");

	assert_int_equal(round_create(&f->st, a, spec, NULL, &e), -1);
	assert_int_equal(e.code, code);
	assert_string_equal(e.msg, msg);
	assert_int_equal(q(&f->st, "SELECT count(*) FROM rounds"), before);
	assert_int_equal(q(&f->st, "SELECT count(*) FROM audit"), audit);
}

/* Label every required dimension of `item` as `a` and submit it. */
static void code_item(struct fixture *f, const struct actor *a,
		      long long item)
{
	const char *sym = "crash", *rc = "api_misuse";
	const char *fp = "conditional_logic", *ph = "training";

	OK(label_set(&f->st, a, &f->cb, item, "symptom", &sym, 1, 0, e_));
	OK(label_set(&f->st, a, &f->cb, item, "root_cause", &rc, 1, 0, e_));
	OK(label_set(&f->st, a, &f->cb, item, "fix_pattern", &fp, 1, 0, e_));
	OK(label_set(&f->st, a, &f->cb, item, "phase", &ph, 1, 0, e_));
	OK(label_submit(&f->st, a, &f->cb, item, e_));
}

static void test_splitmix64_reference(void **state)
{
	uint64_t s = 0;

	(void)state;
	/* the published reference sequence of SplitMix64 from seed 0 */
	assert_true(round_splitmix64(&s) == UINT64_C(0xe220a8397b1dcdaf));
	assert_true(round_splitmix64(&s) == UINT64_C(0x6e789e6aa1b965f4));
	assert_true(round_splitmix64(&s) == UINT64_C(0x06c45d188009454f));
}

static void test_spec_checks(void **state)
{
	struct fixture *f = *state;
	struct round_spec s = { .name = "r1", .items = "o/r#1",
				.annotators = ab, .nr_annotators = 2 };
	const char *const twice[] = { "alice", "alice" };
	const char *const adj[] = { "carol" };
	const char *const nobody[] = { "zed" };

	refused(f, &f->alice, &s, ERR_PERM,
		"round create: not allowed for alice (annotator)");
	s.name = "bad/name";
	refused(f, &f->owner, &s, ERR_INPUT, "a round needs a name of 1-64 "
		"letters, digits, spaces, '_', '.' or '-'");
	s.name = "";
	refused(f, &f->owner, &s, ERR_INPUT, "a round needs a name of 1-64 "
		"letters, digits, spaces, '_', '.' or '-'");
	s.name = "r1";
	s.sample = "2";
	refused(f, &f->owner, &s, ERR_USAGE,
		"give either --items SPEC or --sample N|P% --seed S");
	s.items = NULL;
	refused(f, &f->owner, &s, ERR_USAGE,
		"--sample needs --seed S, so the draw can be repeated");
	s.has_seed = 1;
	s.stratify = "language";
	refused(f, &f->owner, &s, ERR_INPUT,
		"--stratify language: only \"repo\" is supported");
	s.sample = NULL;
	s.items = "o/r#1";
	s.stratify = "repo";
	refused(f, &f->owner, &s, ERR_USAGE, "--stratify goes with --sample");
	s.stratify = NULL;
	s.nr_annotators = 0;
	refused(f, &f->owner, &s, ERR_INPUT,
		"a round needs annotators (--annotators A,B)");
	s.annotators = twice;
	s.nr_annotators = 2;
	refused(f, &f->owner, &s, ERR_INPUT,
		"--annotators: alice named twice");
	s.annotators = adj;
	s.nr_annotators = 1;
	refused(f, &f->owner, &s, ERR_INPUT,
		"--annotators: carol is adjudicator, not an annotator");
	s.annotators = nobody;
	{
		struct err e = ERR_INIT;

		assert_int_equal(round_create(&f->st, &f->owner, &s, NULL,
					      &e), -1);
		assert_int_equal(e.code, ERR_NOTFOUND);
		assert_non_null(strstr(e.msg, "--annotators: "));
		assert_non_null(strstr(e.msg, "zed"));
	}
	assert_int_equal(q(&f->st, "SELECT count(*) FROM rounds"), 0);
}

static void test_named_items(void **state)
{
	struct fixture *f = *state;
	struct round_spec s = { .name = "pilot", .items = "o/r#3, o/r#1,,",
				.annotators = ab, .nr_annotators = 2 };
	struct round_info r;
	char *got;

	OK(round_create(&f->st, &f->owner, &s, &r, e_));
	assert_string_equal(r.name, "pilot");
	assert_string_equal(r.spec, "items: o/r#3, o/r#1,,");
	assert_false(r.has_seed);
	assert_null(r.closed_at);
	assert_string_equal(r.created_by, f->owner.name);
	assert_string_equal(r.created_at, "2024-06-01T00:00:00Z");
	assert_int_equal(r.nr_annotators, 2);
	assert_string_equal(r.annotators[0], "alice");
	assert_string_equal(r.annotators[1], "bob");
	assert_int_equal(r.nr_items, 2);
	assert_int_equal(r.nr_complete, 0);
	round_info_release(&r);
	got = members_of(&f->st, "pilot");
	assert_string_equal(got, "o/r#3 o/r#1");
	free(got);
	assert_int_equal(q(&f->st, "SELECT count(*) FROM audit WHERE action = "
			   "'round.create' AND new = 'pilot' AND detail LIKE "
			   "'%\"spec\":\"items: o/r#3, o/r#1,,\"%'"), 1);

	/* a second round cannot take them, nor share the name */
	s.items = "o/r#2,o/r#1";
	s.name = "r2";
	refused(f, &f->owner, &s, ERR_INPUT, "o/r#1 is already in round pilot");
	s.name = "pilot";
	s.items = "o/r#2";
	refused(f, &f->owner, &s, ERR_INPUT, "round pilot already exists");
	s.name = "r2";
	s.items = "o/r#2,o/r#2";
	refused(f, &f->owner, &s, ERR_INPUT, "o/r#2: named twice");
	s.items = "o/r#99";
	{
		struct err e = ERR_INIT;

		assert_int_equal(round_create(&f->st, &f->owner, &s, NULL,
					      &e), -1);
		assert_int_equal(e.code, ERR_NOTFOUND);
		assert_non_null(strstr(e.msg, "o/r#99"));
	}
}

static void test_all_and_repo(void **state)
{
	struct fixture *f = *state;
	struct round_spec s = { .name = "p", .items = "repo:p/q",
				.annotators = ab, .nr_annotators = 2 };
	struct round_info r;
	char *got;

	OK(round_create(&f->st, &f->owner, &s, &r, e_));
	assert_string_equal(r.spec, "items: repo:p/q free for coding at creation");
	assert_int_equal(r.nr_items, 4);
	round_info_release(&r);
	got = members_of(&f->st, "p");
	assert_string_equal(got, "p/q#1 p/q#2 p/q#3 p/q#4");
	free(got);

	s.name = "p2";
	refused(f, &f->owner, &s, ERR_INPUT, "round p2 would have no items: "
		"every item of that repository is in a coding round already");
	s.items = "all";
	s.name = "rest";
	OK(round_create(&f->st, &f->owner, &s, NULL, e_));
	got = members_of(&f->st, "rest");
	assert_string_equal(got, "o/r#1 o/r#2 o/r#3 o/r#4 o/r#5 o/r#6");
	free(got);
	s.name = "more";
	refused(f, &f->owner, &s, ERR_INPUT, "round more would have no items: "
		"every item is in a coding round already");
}

static void test_items_from_file(void **state)
{
	struct fixture *f = *state;
	char path[] = "/tmp/t_round.XXXXXX";
	struct buf spec = BUF_INIT, want = BUF_INIT;
	struct round_spec s = { .name = "file", .annotators = ab,
				.nr_annotators = 2 };
	struct err e = ERR_INIT;
	FILE *fp;
	int fd = mkstemp(path);
	char *got;

	assert_true(fd >= 0);
	fp = fdopen(fd, "w");
	fputs("# the pilot\n\n  o/r#2  \r\n\to/r#5\n# end\n", fp);
	fclose(fp);
	buf_addf(&spec, "@%s", path);
	s.items = spec.ptr;
	OK(round_create(&f->st, &f->owner, &s, NULL, e_));
	got = members_of(&f->st, "file");
	assert_string_equal(got, "o/r#2 o/r#5");
	free(got);

	/* a bad line is named by the file and its line; nothing created */
	fp = fopen(path, "w");
	fputs("o/r#1\n# comment\no/r#5\n", fp);
	fclose(fp);
	s.name = "file2";
	buf_addf(&want, "%s:3: o/r#5 is already in round file", path);
	refused(f, &f->owner, &s, ERR_INPUT, want.ptr);
	assert_int_equal(q(&f->st, "SELECT count(*) FROM assignments a JOIN "
			   "items i ON i.id = a.item_id WHERE i.number = 1 "
			   "AND i.repo = 'o/r'"), 0);

	unlink(path);
	assert_int_equal(round_create(&f->st, &f->owner, &s, NULL, &e), -1);
	assert_int_equal(e.code, ERR_IO);
	buf_reset(&want);
	buf_addf(&want, "%s: No such file or directory", path);
	assert_string_equal(e.msg, want.ptr);
	buf_release(&spec);
	buf_release(&want);
}

static void test_sample_reproducible(void **state)
{
	struct fixture *f = *state;
	struct round_spec s = { .name = "s", .sample = "40%", .seed = 7,
				.has_seed = 1, .annotators = ab,
				.nr_annotators = 2 };
	struct round_info r;
	char *first, *again;

	OK(round_create(&f->st, &f->owner, &s, &r, e_));
	assert_string_equal(r.spec, "sample: 40% of 10");
	assert_true(r.has_seed);
	assert_int_equal(r.seed, 7);
	assert_int_equal(r.nr_items, 4);
	round_info_release(&r);
	first = members_of(&f->st, "s");
	assert_int_equal(q(&f->st, "SELECT count(*) FROM audit WHERE action = "
			   "'round.create' AND detail LIKE "
			   "'%\"seed\":\"7\"%'"), 1);

	/* the same seed over the same candidates draws the same items */
	OK(store_exec(&f->st, "DELETE FROM assignments; DELETE FROM "
		      "round_annotators; DELETE FROM rounds", e_));
	OK(round_create(&f->st, &f->owner, &s, NULL, e_));
	again = members_of(&f->st, "s");
	assert_string_equal(first, again);
	free(again);

	/* another seed, over the same candidates, another draw (for these
	 * two seeds) */
	OK(store_exec(&f->st, "DELETE FROM assignments; DELETE FROM "
		      "round_annotators; DELETE FROM rounds", e_));
	s.seed = 8;
	OK(round_create(&f->st, &f->owner, &s, NULL, e_));
	again = members_of(&f->st, "s");
	assert_string_not_equal(first, again);
	free(again);
	free(first);
}

static void test_sample_counts(void **state)
{
	struct fixture *f = *state;
	struct round_spec s = { .name = "n", .sample = "3", .seed = 1,
				.has_seed = 1, .annotators = ab,
				.nr_annotators = 2 };
	struct round_info r;

	OK(round_create(&f->st, &f->owner, &s, &r, e_));
	assert_int_equal(r.nr_items, 3);
	assert_string_equal(r.spec, "sample: 3 of 10");
	round_info_release(&r);

	s.name = "m";
	s.sample = "8";
	refused(f, &f->owner, &s, ERR_INPUT,
		"--sample 8: only 7 items are free for the round");
	s.sample = "2.5";
	refused(f, &f->owner, &s, ERR_INPUT,
		"--sample 2.5: expected N or P% (e.g. 40 or 40%)");
	s.sample = "0";
	refused(f, &f->owner, &s, ERR_INPUT,
		"--sample 0: expected N or P% (e.g. 40 or 40%)");
	s.sample = "120%";
	refused(f, &f->owner, &s, ERR_INPUT,
		"--sample 120%: expected N or P% (e.g. 40 or 40%)");
	s.sample = "10%x";
	refused(f, &f->owner, &s, ERR_INPUT,
		"--sample 10%x: expected N or P% (e.g. 40 or 40%)");
	s.sample = "nan";
	refused(f, &f->owner, &s, ERR_INPUT,
		"--sample nan: expected N or P% (e.g. 40 or 40%)");
	/* a tiny share still takes one item */
	s.sample = "1%";
	OK(round_create(&f->st, &f->owner, &s, &r, e_));
	assert_int_equal(r.nr_items, 1);
	round_info_release(&r);
}

static void test_sample_stratified(void **state)
{
	struct fixture *f = *state;
	struct round_spec s = { .name = "strat", .sample = "50%", .seed = 3,
				.has_seed = 1, .stratify = "repo",
				.annotators = ab, .nr_annotators = 2 };
	struct round_info r;
	uint64_t seed;

	/* 6 of o/r and 4 of p/q: half of each, for every seed */
	for (seed = 1; seed <= 5; seed++) {
		s.seed = seed;
		OK(round_create(&f->st, &f->owner, &s, &r, e_));
		assert_int_equal(r.nr_items, 5);
		assert_string_equal(r.stratify, "repo");
		round_info_release(&r);
		assert_int_equal(q(&f->st, "SELECT count(*) FROM assignments a "
				   "JOIN items i ON i.id = a.item_id WHERE "
				   "i.repo = 'o/r'"), 3);
		assert_int_equal(q(&f->st, "SELECT count(*) FROM assignments a "
				   "JOIN items i ON i.id = a.item_id WHERE "
				   "i.repo = 'p/q'"), 2);
		OK(store_exec(&f->st, "DELETE FROM assignments; DELETE FROM "
			      "round_annotators; DELETE FROM rounds", e_));
	}
	/* 30%: 1.8 and 1.2, largest remainder: 2 and 1 */
	s.sample = "30%";
	OK(round_create(&f->st, &f->owner, &s, &r, e_));
	assert_int_equal(r.nr_items, 3);
	round_info_release(&r);
	assert_int_equal(q(&f->st, "SELECT count(*) FROM assignments a JOIN "
			   "items i ON i.id = a.item_id WHERE i.repo = "
			   "'o/r'"), 2);
}

static void test_close_and_reopen(void **state)
{
	struct fixture *f = *state;
	struct round_spec s = { .name = "r1", .items = "o/r#1,o/r#2",
				.annotators = ab, .nr_annotators = 2 };
	struct round_info r;
	struct err e = ERR_INIT;
	long long i1 = id_of(f, "o/r#1"), i2 = id_of(f, "o/r#2");

	OK(round_create(&f->st, &f->owner, &s, NULL, e_));
	code_item(f, &f->alice, i1);
	code_item(f, &f->bob, i1);
	code_item(f, &f->alice, i2);

	assert_int_equal(round_close(&f->st, &f->alice, "r1", 0, &e), -1);
	assert_int_equal(e.code, ERR_PERM);
	assert_int_equal(round_close(&f->st, &f->owner, "r1", 0, &e), -1);
	assert_int_equal(e.code, ERR_INPUT);
	assert_string_equal(e.msg, "round r1: 1 of 2 items is not submitted "
			    "by every annotator (o/r#2 is one); closing "
			    "freezes them: `round close r1 --force` closes it "
			    "anyway");
	OK(round_get(&f->st, "r1", &r, e_));
	assert_null(r.closed_at);
	assert_int_equal(r.nr_complete, 1);
	round_info_release(&r);

	/* an adjudicator may close; forced, the count is audited */
	assert_int_equal(round_close(&f->st, &f->carol, "r1", ROUND_FORCE,
				     &f->e), 0);
	OK(round_get(&f->st, "r1", &r, e_));
	assert_string_equal(r.closed_at, "2024-06-01T00:00:00Z");
	assert_string_equal(r.closed_by, "carol");
	round_info_release(&r);
	assert_int_equal(q(&f->st, "SELECT count(*) FROM audit WHERE action = "
			   "'round.close' AND new = 'r1 (forced: 1 of 2 items "
			   "unfinished)'"), 1);
	/* the record of what was submitted is kept */
	assert_int_equal(q(&f->st, "SELECT count(*) FROM round_submissions"),
			 3);
	assert_int_equal(q(&f->st, "SELECT count(*) FROM round_labels"), 12);
	/* closing again changes nothing */
	assert_int_equal(round_close(&f->st, &f->owner, "r1", 0, &f->e), 1);
	assert_int_equal(q(&f->st, "SELECT count(*) FROM audit WHERE action = "
			   "'round.close'"), 1);
	/* a closed round freezes labels */
	assert_int_equal(label_check_access(&f->st, &f->bob, i2, &e), -1);

	assert_int_equal(round_reopen(&f->st, &f->carol, "r1", 0, &e), -1);
	assert_int_equal(e.code, ERR_PERM);
	assert_int_equal(round_reopen(&f->st, &f->owner, "r1", 0, &f->e), 0);
	assert_int_equal(round_reopen(&f->st, &f->owner, "r1", 0, &f->e), 1);
	OK(round_get(&f->st, "r1", &r, e_));
	assert_null(r.closed_at);
	assert_null(r.closed_by);
	round_info_release(&r);
	assert_int_equal(q(&f->st, "SELECT count(*) FROM round_submissions"),
			 0);
	assert_int_equal(q(&f->st, "SELECT count(*) FROM audit WHERE action = "
			   "'round.reopen' AND old = 'r1 (closed "
			   "2024-06-01T00:00:00Z by carol)' AND new = 'r1'"),
			 1);
	OK(label_check_access(&f->st, &f->bob, i2, e_));

	/* once every annotator submitted, it closes without --force */
	code_item(f, &f->bob, i2);
	assert_int_equal(round_close(&f->st, &f->owner, "r1", 0, &f->e), 0);
	assert_int_equal(q(&f->st, "SELECT count(*) FROM audit WHERE action = "
			   "'round.close' AND new = 'r1'"), 1);

	assert_int_equal(round_close(&f->st, &f->owner, "r9", 0, &e), -1);
	assert_int_equal(e.code, ERR_NOTFOUND);
	assert_string_equal(e.msg, "r9: no such round; did you mean r1?");
}

static void test_reopen_refused_after_adjudication(void **state)
{
	struct fixture *f = *state;
	struct round_spec s = { .name = "r1", .items = "o/r#1,o/r#2",
				.annotators = ab, .nr_annotators = 2 };
	struct err e = ERR_INIT;

	OK(round_create(&f->st, &f->owner, &s, NULL, e_));
	assert_int_equal(round_close(&f->st, &f->owner, "r1", ROUND_FORCE,
				     &f->e), 0);
	/* o/r#1 settled by the owner (member 1) */
	OK(store_exec(&f->st, "INSERT INTO settled (item_id, adjudicator_id, "
		      "settled_at) SELECT id, 1, 'x' FROM items WHERE repo = "
		      "'o/r' AND number = 1", e_));
	assert_int_equal(round_reopen(&f->st, &f->owner, "r1", 0, &e), -1);
	assert_int_equal(e.code, ERR_INPUT);
	assert_string_equal(e.msg, "round r1: 1 of its items has been "
			    "adjudicated (o/r#1 is one); `round reopen r1 "
			    "--force` reopens it anyway, and what was "
			    "adjudicated stays frozen");
	assert_int_equal(round_reopen(&f->st, &f->owner, "r1", ROUND_FORCE,
				      &f->e), 0);
	assert_int_equal(q(&f->st, "SELECT count(*) FROM audit WHERE action = "
			   "'round.reopen' AND new = 'forced: adjudicated "
			   "items stay frozen'"), 1);
}

static void test_unfinished_move(void **state)
{
	struct fixture *f = *state;
	struct round_spec s = { .name = "r1", .items = "o/r#1,o/r#2,o/r#3",
				.annotators = ab, .nr_annotators = 2 };
	struct round_spec u = { .name = "r2", .items = "unfinished:r1",
				.annotators = ab, .nr_annotators = 2 };
	struct round_info r;
	struct err e = ERR_INIT;
	char *got;

	OK(round_create(&f->st, &f->owner, &s, NULL, e_));
	refused(f, &f->owner, &u, ERR_INPUT, "--items unfinished:r1: round r1 "
		"is still open; its items can move once it is closed (round "
		"close r1 --force)");
	code_item(f, &f->alice, id_of(f, "o/r#2"));
	code_item(f, &f->bob, id_of(f, "o/r#2"));
	assert_int_equal(round_close(&f->st, &f->owner, "r1", ROUND_FORCE,
				     &f->e), 0);

	/* every free item is taken, but r1 left some unfinished: the hint */
	s.name = "all";
	s.items = "all";
	OK(round_create(&f->st, &f->owner, &s, NULL, e_));
	s.name = "none";
	refused(f, &f->owner, &s, ERR_INPUT, "round none would have no items: "
		"every item is in a coding round already; round r1 is closed with "
		"items unfinished, which --items unfinished:r1 moves");
	s.items = "o/r#1";
	refused(f, &f->owner, &s, ERR_INPUT, "o/r#1 is already in round r1 "
		"(closed; --items unfinished:r1 moves the items it left "
		"unfinished)");

	OK(round_create(&f->st, &f->owner, &u, &r, e_));
	assert_int_equal(r.nr_items, 2);
	round_info_release(&r);
	got = members_of(&f->st, "r2");
	assert_string_equal(got, "o/r#1 o/r#3");
	free(got);
	got = members_of(&f->st, "r1");
	assert_string_equal(got, "o/r#2");
	free(got);
	assert_int_equal(q(&f->st, "SELECT count(*) FROM audit WHERE action = "
			   "'round.move' AND old = 'r1' AND new = 'r2'"), 2);

	u.name = "r3";
	assert_int_equal(round_create(&f->st, &f->owner, &u, NULL, &e), -1);
	assert_string_equal(e.msg, "round r3 would have no items: round r1 "
			    "has none left that is unfinished");
	u.items = "unfinished:nope";
	assert_int_equal(round_create(&f->st, &f->owner, &u, NULL, &e), -1);
	assert_int_equal(e.code, ERR_NOTFOUND);
	assert_string_equal(e.msg, "--items unfinished:nope: nope: no such "
			    "round");
}

static void test_progress_as_seen(void **state)
{
	struct fixture *f = *state;
	struct round_spec s = { .name = "r1", .items = "o/r#1,o/r#2",
				.annotators = ab, .nr_annotators = 2 };
	struct round_info *v;
	size_t nr;

	OK(round_create(&f->st, &f->owner, &s, NULL, e_));
	code_item(f, &f->alice, id_of(f, "o/r#1"));
	code_item(f, &f->bob, id_of(f, "o/r#1"));
	code_item(f, &f->bob, id_of(f, "o/r#2"));

	/* the owner sees the round's progress, an annotator only theirs */
	OK(round_list_for(&f->st, &f->owner, &v, &nr, e_));
	assert_int_equal(nr, 1);
	assert_false(v[0].own_only);
	assert_int_equal(v[0].nr_complete, 1);
	round_list_free(v, nr);
	OK(round_list_for(&f->st, &f->bob, &v, &nr, e_));
	assert_true(v[0].own_only);
	assert_int_equal(v[0].nr_complete, 2);
	round_list_free(v, nr);
	OK(round_list_for(&f->st, &f->alice, &v, &nr, e_));
	assert_true(v[0].own_only);
	assert_int_equal(v[0].nr_complete, 1);
	round_list_free(v, nr);
	/* closed, blinding lifts */
	assert_int_equal(round_close(&f->st, &f->owner, "r1", ROUND_FORCE,
				     &f->e), 0);
	OK(round_list_for(&f->st, &f->alice, &v, &nr, e_));
	assert_false(v[0].own_only);
	assert_int_equal(v[0].nr_complete, 1);
	round_list_free(v, nr);
}

static void test_codebook_versions_and_later_changes(void **state)
{
	struct fixture *f = *state;
	struct round_spec s = { .name = "r1", .items = "o/r#1",
				.annotators = ab, .nr_annotators = 2 };
	struct round_info r;
	struct buf b = BUF_INIT;

	OK(round_create(&f->st, &f->owner, &s, &r, e_));
	OK(round_codebook_versions(&f->st, r.id, &b, e_));
	assert_string_equal(b.ptr, "");
	code_item(f, &f->alice, id_of(f, "o/r#1"));
	OK(store_exec(&f->st, "UPDATE labels SET codebook_version = '0.9' "
		      "WHERE dimension = 'phase'", e_));
	OK(round_codebook_versions(&f->st, r.id, &b, e_));
	assert_string_equal(b.ptr, "0.9, 1.0");
	buf_reset(&b);
	OK(round_codebook_versions(&f->st, 0, &b, e_));
	assert_string_equal(b.ptr, "0.9, 1.0");
	buf_reset(&b);

	/* open: nothing to report */
	OK(round_later_changes(&f->st, &r, &b, e_));
	assert_string_equal(b.ptr, "");
	round_info_release(&r);
	assert_int_equal(round_close(&f->st, &f->owner, "r1", ROUND_FORCE,
				     &f->e), 0);
	OK(round_get(&f->st, "r1", &r, e_));
	OK(round_later_changes(&f->st, &r, &b, e_));
	assert_string_equal(b.ptr, "");
	/* a map of a code the round's labels use, made after the close */
	setenv("BUGCODER_NOW", "2024-07-01T00:00:00Z", 1);
	OK(audit_write(&f->st, "root", NULL, "codebook.map", 0, "symptom",
		       "crash", "hang", e_));
	OK(audit_write(&f->st, "root", NULL, "codebook.map", 0, "stage",
		       "memory", "computation", e_));
	OK(round_later_changes(&f->st, &r, &b, e_));
	assert_string_equal(b.ptr, "symptom: code crash was mapped onto "
			    "another after the round closed\n");
	round_info_release(&r);
	buf_release(&b);
}

static void test_gate_saved(void **state)
{
	struct fixture *f = *state;
	struct round_spec p = { .name = "pilot", .items = "o/r#1",
				.annotators = ab, .nr_annotators = 2 };
	struct round_spec s = { .name = "main", .items = "o/r#2",
				.annotators = ab, .nr_annotators = 2,
				.gate_after = "pilo", .gate_min_kappa = 0.6,
				.gate_on_lower = 1, .gate_forced = 1,
				.gate_detail = "kappa 0.41 < 0.6" };

	OK(round_create(&f->st, &f->owner, &p, NULL, e_));
	refused(f, &f->owner, &s, ERR_NOTFOUND,
		"--after pilo: no such round; did you mean pilot?");
	assert_int_equal(q(&f->st, "SELECT count(*) FROM assignments"), 1);
	s.gate_after = "pilot";
	OK(round_create(&f->st, &f->owner, &s, NULL, e_));
	assert_int_equal(q(&f->st, "SELECT count(*) FROM round_gates g JOIN "
			   "rounds r ON r.id = g.round_id WHERE r.name = "
			   "'main' AND g.min_kappa = 0.6 AND g.on_lower = 1 "
			   "AND g.forced = 1"), 1);
	assert_int_equal(q(&f->st, "SELECT count(*) FROM audit WHERE action = "
			   "'round.gate-forced' AND old = 'pilot' AND new = "
			   "'kappa 0.41 < 0.6'"), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_splitmix64_reference),
		cmocka_unit_test_setup_teardown(test_spec_checks, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_named_items, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_all_and_repo, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_items_from_file, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_sample_reproducible,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_sample_counts, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_sample_stratified, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_close_and_reopen, setup,
						teardown),
		cmocka_unit_test_setup_teardown(
			test_reopen_refused_after_adjudication, setup,
			teardown),
		cmocka_unit_test_setup_teardown(test_unfinished_move, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_progress_as_seen, setup,
						teardown),
		cmocka_unit_test_setup_teardown(
			test_codebook_versions_and_later_changes, setup,
			teardown),
		cmocka_unit_test_setup_teardown(test_gate_saved, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
