/* SPDX-License-Identifier: MIT */
/*
 * t_screen_adj: the adjudicator's screen and the agreement view, driven
 * in-process like t_screen.c drives the annotator's.
 *
 * Every test builds a fresh study in tests/tmp: the bundled codebook, the
 * 30 sample items, alice and bob (annotators), carol (adjudicator); two
 * rounds, "pilot" (closed) and "round-1" (open), of ten items each, coded
 * and submitted by alice and bob from tests/sample/labels.csv, which
 * leaves 13 items with disagreements.  The study's coder salt is fixed so
 * that the blind order of Coder 1 and Coder 2 - and so every screen - is
 * the same on every run.  A test runs the real tui_adjudicate() or
 * tui_agree() with a key script on a virtual screen (BUGCODER_NO_DISPLAY,
 * TERM=dumb, fixed LINES and COLUMNS), compares the dumps with
 * tests/expected/ or with single rows, and then checks the study through
 * SQL: the resolutions, the settled items, the audit log.
 *
 * BUGCODER_UPDATE_EXPECTED=1 rewrites tests/expected/ files instead of
 * comparing; BUGCODER_KEEP_TMP=1 keeps each test's directory; an argument
 * runs only the tests matching it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/study/adjudicate.h"
#include "core/base/buf.h"
#include "core/study/evidence.h"
#include "core/study/import.h"
#include "core/study/item.h"
#include "core/study/label.h"
#include "core/study/labels_csv.h"
#include "core/study/member.h"
#include "core/study/proposal.h"
#include "core/study/round.h"
#include "core/study/replay.h"
#include "core/store/store.h"
#include "core/study/study.h"
#include "tui/keymap.h"
#include "tui/tui.h"
#include "tests/lib/screen_test.h"

#define CODEBOOK "codebooks/llm-framework-bugs.json"
#define SAMPLE "tests/sample/items.jsonl"
#define LABELS "tests/sample/labels.csv"

#define FIRST "microsoft/DeepSpeed#3468"	/* oldest in the queue */
#define FIXED_SALT "0123456789abcdef"	/* the blind order every test
					   expects */

static const char *const pilot_items =
	"microsoft/DeepSpeed#3468,microsoft/DeepSpeed#4187,"
	"microsoft/DeepSpeed#4422,microsoft/DeepSpeed#4650,"
	"microsoft/DeepSpeed#4903,microsoft/DeepSpeed#5012,"
	"microsoft/DeepSpeed#5240,microsoft/DeepSpeed#5561,"
	"microsoft/DeepSpeed#5733,microsoft/DeepSpeed#5890";
static const char *const round1_items =
	"microsoft/DeepSpeed#6011,microsoft/DeepSpeed#6203,"
	"hpcaitech/ColossalAI#3105,hpcaitech/ColossalAI#3562,"
	"hpcaitech/ColossalAI#4261,hpcaitech/ColossalAI#4799,"
	"hpcaitech/ColossalAI#5412,hpcaitech/ColossalAI#5702,"
	"NVIDIA/Megatron-LM#412,NVIDIA/Megatron-LM#1088";

struct fixture {
	char dir[64];
	struct buf path;
	struct store st;
	struct codebook cb;
	struct actor owner, alice, bob, carol;
	struct err err;		/* of the last run */
	char *salt;		/* the study's own coder salt */
};

/* ---- helpers ---------------------------------------------------------- */

static char *slurp(const char *path)
{
	return st_slurp(path);
}

static void spit(const char *path, const char *text)
{
	st_spit(path, text);
}

static long long q(struct fixture *f, const char *sql)
{
	sqlite3_stmt *s = NULL;
	long long v = -1;

	if (sqlite3_prepare_v2(f->st.db, sql, -1, &s, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(f->st.db));
	if (sqlite3_step(s) == SQLITE_ROW)
		v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return v;
}

/* Every row of `sql`, columns joined by ",", rows by "|". */
static char *qs(struct fixture *f, const char *sql)
{
	sqlite3_stmt *s = NULL;
	struct buf b = BUF_INIT;
	int rows = 0;

	if (sqlite3_prepare_v2(f->st.db, sql, -1, &s, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(f->st.db));
	while (sqlite3_step(s) == SQLITE_ROW) {
		int i;

		if (rows++)
			buf_addch(&b, '|');
		for (i = 0; i < sqlite3_column_count(s); i++) {
			const char *t = (const char *)sqlite3_column_text(s, i);

			buf_addf(&b, "%s%s", i ? "," : "", t ? t : "NULL");
		}
	}
	sqlite3_finalize(s);
	return buf_detach(&b, NULL);
}

#define assert_sql(f, sql, want) do { \
		char *got_ = qs((f), (sql)); \
		if (strcmp(got_, (want))) \
			fail_msg("%s\n  got:  \"%s\"\n  want: \"%s\"", (sql), \
				 got_, (want)); \
		free(got_); \
	} while (0)

static char *dump(struct fixture *f, const char *name)
{
	return st_dump(f->dir, name);
}

/* Row r (0-based) of dump `name`, owned. */
static char *row(struct fixture *f, const char *name, int r)
{
	return st_row(f->dir, name, r);
}

/* The first row of dump `name` that contains `needle`, or -1. */
static int find_row(struct fixture *f, const char *name, const char *needle)
{
	char *s = dump(f, name), *p = s;
	int r = 0;

	while (p && *p) {
		char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char *line = xstrndup(p, len);
		int hit = strstr(line, needle) != NULL;

		free(line);
		if (hit) {
			free(s);
			return r;
		}
		r++;
		p = nl ? nl + 1 : NULL;
	}
	free(s);
	return -1;
}

static void assert_dump_contains(struct fixture *f, const char *name,
				 const char *want)
{
	char *s = dump(f, name);

	assert_contains(s, want);
	free(s);
}

static void assert_dump_lacks(struct fixture *f, const char *name,
			      const char *unwanted)
{
	char *s = dump(f, name);

	assert_not_contains(s, unwanted);
	free(s);
}

static void assert_row_contains(struct fixture *f, const char *name, int r,
				const char *want)
{
	char *got = row(f, name, r);

	if (!strstr(got, want))
		fail_msg("%s row %d\n  got:  \"%s\"\n  want it to contain: "
			 "\"%s\"", name, r, got, want);
	free(got);
}

/* Compare dump `name` with tests/expected/`golden`. */
static void expect_screen(struct fixture *f, const char *name,
			  const char *golden)
{
	st_expect_screen(f->dir, name, golden);
}

static void screen_env(struct fixture *f, int rows, int cols,
		       const char *keys)
{
	st_env(f->dir, rows, cols, keys, NULL);
	err_clear(&f->err);
}

/* The adjudicator's screen as `a` (NULL: carol). */
static int run_adj(struct fixture *f, const struct actor *a, int rows,
		   int cols, const char *item, const char *keys)
{
	screen_env(f, rows, cols, keys);
	return tui_adjudicate(&f->st, a ? a : &f->carol, item, &f->err);
}

#define ADJ_OK(f, a, rows, cols, item, keys) do { \
		if (run_adj((f), (a), (rows), (cols), (item), (keys)) < 0) \
			fail_msg("tui_adjudicate: %s", (f)->err.msg); \
	} while (0)

static int run_agree(struct fixture *f, const struct actor *a, int rows,
		     int cols, const char *round, const char *keys)
{
	screen_env(f, rows, cols, keys);
	return tui_agree(&f->st, a ? a : &f->carol, round, &f->err);
}

#define AGREE_OK(f, a, rows, cols, round, keys) do { \
		if (run_agree((f), (a), (rows), (cols), (round), (keys)) < 0) \
			fail_msg("tui_agree: %s", (f)->err.msg); \
	} while (0)

/* The codes `who` gave `item` for `dim`, ";"-joined. */
static char *codes_of(struct fixture *f, const char *who, const char *item,
		      const char *dim)
{
	struct buf sql = BUF_INIT;
	char *r;

	buf_addf(&sql, "SELECT group_concat(code, ';') FROM (SELECT l.code "
		 "FROM labels l JOIN members m ON m.id = l.member_id JOIN "
		 "items i ON i.id = l.item_id WHERE m.name = '%s' AND "
		 "i.repo || '#' || i.number = '%s' AND l.dimension = '%s' "
		 "ORDER BY l.code)", who, item, dim);
	r = qs(f, sql.ptr);
	buf_release(&sql);
	return r;
}

/* ---- the study -------------------------------------------------------- */

static void make_round(struct fixture *f, const char *name, const char *items)
{
	static const char *const ann[] = { "alice", "bob" };
	struct round_spec spec;
	struct err e = ERR_INIT;

	memset(&spec, 0, sizeof(spec));
	spec.name = name;
	spec.items = items;
	spec.annotators = ann;
	spec.nr_annotators = 2;
	if (round_create(&f->st, &f->owner, &spec, NULL, &e) < 0)
		fail_msg("%s", e.msg);
}

static int setup(void **state)
{
	struct fixture *f = xcalloc(1, sizeof(*f));
	struct import_stats stats;
	struct labels_import_stats ls;
	struct err e = ERR_INIT;

	setenv("LC_ALL", "C.UTF-8", 1);
	setenv("TZ", "UTC", 1);
	setenv("BUGCODER_NOW", "2024-06-01T00:00:00Z", 1);
	unsetenv("NO_COLOR");
	unsetenv("ESCDELAY");
	unsetenv("VISUAL");
	unsetenv("EDITOR");
	unsetenv("BUGCODER_BENCH");
	mkdir("tests/tmp", 0777);
	snprintf(f->dir, sizeof(f->dir), "tests/tmp/adj-XXXXXX");
	if (!mkdtemp(f->dir))
		fail_msg("mkdtemp: %s", strerror(errno));
	buf_init(&f->path, 0);
	buf_addf(&f->path, "%s/study.db", f->dir);
	if (study_create(&f->st, f->path.ptr, "adjudication tests", CODEBOOK,
			 &e) < 0 ||
	    store_meta_read(&f->st, "coder_salt", &f->salt, &e) < 0 ||
	    store_meta_set(&f->st, "coder_salt", FIXED_SALT, &e) < 0 ||
	    study_codebook(&f->st, &f->cb, NULL, &e) < 0 ||
	    member_resolve(&f->st, NULL, &f->owner, &e) < 0 ||
	    member_add(&f->st, &f->owner, "alice", ROLE_ANNOTATOR, &e) < 0 ||
	    member_add(&f->st, &f->owner, "bob", ROLE_ANNOTATOR, &e) < 0 ||
	    member_add(&f->st, &f->owner, "carol", ROLE_ADJUDICATOR, &e) < 0 ||
	    member_resolve(&f->st, "alice", &f->alice, &e) < 0 ||
	    member_resolve(&f->st, "bob", &f->bob, &e) < 0 ||
	    member_resolve(&f->st, "carol", &f->carol, &e) < 0)
		fail_msg("%s", e.msg);
	memset(&stats, 0, sizeof(stats));
	if (import_file(&f->st, &f->owner, SAMPLE, &stats, &e) < 0)
		fail_msg("%s", e.msg);
	make_round(f, "pilot", pilot_items);
	make_round(f, "round-1", round1_items);
	memset(&ls, 0, sizeof(ls));
	if (labels_import(&f->st, &f->owner, &f->cb, LABELS, 1, &ls, &e) < 0 ||
	    round_close(&f->st, &f->owner, "pilot", 0, &e) < 0)
		fail_msg("%s", e.msg);
	*state = f;
	return 0;
}

/* Whatever the screen saved is in the audit log, so that the study is
 * what replaying the log gives (core/study/replay); the fixed salt the fixture
 * set behind the log's back is put back first. */
static int state_is_the_logs(struct fixture *f)
{
	struct replay_check c;
	struct err e = ERR_INIT;

	if (store_meta_set(&f->st, "coder_salt", f->salt, &e) < 0 ||
	    replay_verify(&f->st, &f->owner, NULL, &c, &e) < 0) {
		print_error("audit verify: %s\n", e.msg);
		return -1;
	}
	if (c.failed) {
		print_error("audit verify: %s\n", c.what);
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	struct buf cmd = BUF_INIT;
	const char *keep = getenv("BUGCODER_KEEP_TMP");
	int ret = state_is_the_logs(f);

	free(f->salt);
	codebook_release(&f->cb);
	store_close(&f->st);
	actor_release(&f->owner);
	actor_release(&f->alice);
	actor_release(&f->bob);
	actor_release(&f->carol);
	if (!keep || !*keep) {
		buf_addf(&cmd, "rm -rf '%s'", f->dir);
		if (system(cmd.ptr) != 0)
			fprintf(stderr, "could not remove %s\n", f->dir);
	}
	unsetenv("BUGCODER_BENCH");
	buf_release(&cmd);
	buf_release(&f->path);
	free(f);
	return ret;
}

/* ---- the queue -------------------------------------------------------- */

static void test_queue_80(void **state)
{
	struct fixture *f = *state;
	char *r;
	int y;

	ADJ_OK(f, NULL, 24, 80, NULL, ":dump-screen a\n");
	expect_screen(f, "a", "adjudicate-80x24.txt");
	assert_row_contains(f, "a", 0, FIRST);
	assert_row_contains(f, "a", 0, "13 left  carol");
	assert_row_contains(f, "a", 23, "1/13");
	/* the disagreement is selected, marked, bold and underlined */
	y = find_row(f, "a", "root_cause");
	assert_true(y > 0);
	assert_row_contains(f, "a", y, ">\xe2\x89\xa0  root_cause");
	assert_row_contains(f, "a", y, "to resolve");
	r = row(f, "a.attr", y);
	assert_int_equal(r[1], 'B');	/* the glyph: bold + underline */
	free(r);
	/* agreed dimensions are marked done */
	y = find_row(f, "a", "symptom ");
	assert_row_contains(f, "a", y, "\xe2\x9c\x93  symptom");
	assert_row_contains(f, "a", y, "agreed");
	assert_row_contains(f, "a", find_row(f, "a", "Coder 1:"), "no memo");
	assert_int_equal(q(f, "SELECT count(*) FROM resolutions"), 0);
}

static void test_queue_200(void **state)
{
	struct fixture *f = *state;

	ADJ_OK(f, NULL, 50, 200, NULL, ":dump-screen a\n");
	expect_screen(f, "a", "adjudicate-200x50.txt");
	assert_dump_contains(f, "a", "issue *");
	assert_dump_contains(f, "a", "fix #");
	assert_dump_contains(f, "a", "1 Coder 1");
	assert_dump_contains(f, "a", "2 Coder 2");
}

/* ---- resolving -------------------------------------------------------- */

static void test_take_coder_with_rationale(void **state)
{
	struct fixture *f = *state;
	char *c2 = NULL, *got;
	int y;

	ADJ_OK(f, NULL, 24, 80, NULL, ":dump-screen a\n2\n:dump-screen d\n"
	       "the trace points at the API\n<Enter>\n:dump-screen b\n");
	/* the dialog says what will be saved */
	assert_dump_contains(f, "d", "Resolve root_cause of " FIRST);
	assert_dump_contains(f, "d", "(Coder 2's code)");
	assert_dump_contains(f, "d", "[none]");
	/* Coder 2's code as the screen showed it is what was stored */
	y = find_row(f, "a", "root_cause");
	got = row(f, "a", y);
	assert_sql(f, "SELECT dimension, rationale, cause, coder2_codes = "
		   "code FROM resolutions", "root_cause,the trace points at "
		   "the API,NULL,1");
	c2 = qs(f, "SELECT code FROM resolutions");
	assert_contains(got, c2);
	free(got);
	free(c2);
	assert_sql(f, "SELECT a.action, a.for_member, a.dimension, a.new = "
		   "r.code FROM audit a JOIN resolutions r ON r.item_id = "
		   "a.item_id WHERE a.action = 'resolve'",
		   "resolve,carol,root_cause,1");
	/* nothing left on the item: the queue moved on */
	assert_row_contains(f, "b", 0, "12 left");
	assert_row_contains(f, "b", 0, "microsoft/DeepSpeed#4903");
	assert_row_contains(f, "b", 23, "done: " FIRST " (root_cause = ");
}

/* A rationale being typed was lost on Ctrl-C, a hang-up or SIGTERM
 * (the memo was kept).  Now it is kept as carol's draft and offered
 * when she opens the same dialog again; saving it removes the draft. */
static void test_rationale_draft_kept(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(run_adj(f, NULL, 24, 80, NULL, "2\nhalf a reason"
				 "<Tab><Tab>\n:signal INT\nlost\n"), -1);
	assert_int_equal(f->err.code, ERR_INTERRUPTED);
	assert_non_null(strstr(f->err.msg, "the rationale being typed is "
			       "kept as a draft"));
	assert_int_equal(q(f, "SELECT count(*) FROM resolutions"), 0);
	assert_sql(f, "SELECT field, text FROM drafts ORDER BY field",
		   "cause,slip|rationale,half a reason");
	/* SIGTERM with the draft back and more typed: kept again */
	assert_int_equal(run_adj(f, NULL, 24, 80, NULL, "2\n:dump-screen d\n"
				 "<End>, and more\n:signal TERM\n"), -1);
	assert_dump_contains(f, "d", "half a reason");
	assert_dump_contains(f, "d", "[slip]");
	assert_row_contains(f, "d", 23, "the rationale you were typing when "
			    "the screen stopped is back");
	assert_sql(f, "SELECT text FROM drafts WHERE field = 'rationale'",
		   "half a reason, and more");
	/* a hang-up with nothing typed keeps nothing new */
	assert_int_equal(run_adj(f, NULL, 24, 80, NULL, "1\n:signal HUP\n"),
			 -1);
	assert_null(strstr(f->err.msg, "draft"));
	assert_int_equal(q(f, "SELECT count(DISTINCT dimension) FROM drafts"),
			 1);
	/* another adjudicator does not see carol's draft */
	ADJ_OK(f, &f->owner, 24, 80, NULL, "2\n:dump-screen o\n<Esc>\n");
	assert_dump_lacks(f, "o", "half a reason");
	/* saved at last: the draft goes */
	ADJ_OK(f, NULL, 24, 80, NULL, "2\n<Enter>\n");
	assert_sql(f, "SELECT rationale, cause FROM resolutions",
		   "half a reason, and more,slip");
	assert_int_equal(q(f, "SELECT count(*) FROM drafts"), 0);
}

static void test_pick_third_code(void **state)
{
	struct fixture *f = *state;

	/* root_cause has 16 codes: 3 picks configuration_error */
	ADJ_OK(f, NULL, 30, 120, NULL, "c\n:dump-screen p\n3\n"
	       ":dump-screen d\nneither: a bad config\n<Enter>\n");
	assert_dump_contains(f, "p", "root_cause (one code, required)");
	assert_dump_contains(f, "p", "or Enter choose, / filter, Del");
	assert_dump_lacks(f, "p", "+ propose");
	assert_dump_contains(f, "d", "Final code: configuration_error  "
			     "(chosen in the picker)");
	assert_sql(f, "SELECT code, rationale FROM resolutions",
		   "configuration_error,neither: a bad config");
	assert_int_equal(q(f, "SELECT count(*) FROM audit WHERE action = "
			   "'resolve'"), 1);
}

static void test_pick_many_codes(void **state)
{
	struct fixture *f = *state;

	/* fix_pattern takes several codes: toggle two, Enter, rationale */
	ADJ_OK(f, NULL, 30, 120, "microsoft/DeepSpeed#4903",
	       "c\n1\n5\n:dump-screen p\n<Enter>\n:dump-screen d\nboth\n"
	       "<Enter>\n:dump-screen b\n");
	assert_dump_contains(f, "p", "[x]  1 conditional_logic");
	assert_dump_contains(f, "p", "[x]  5 distributed_tuning");
	assert_dump_contains(f, "d", "Final code: conditional_logic,"
			     "distributed_tuning");
	assert_sql(f, "SELECT dimension, code FROM resolutions",
		   "fix_pattern,conditional_logic;distributed_tuning");
}

static void test_cause_and_refusals(void **state)
{
	struct fixture *f = *state;

	/* an empty rationale is refused, Esc saves nothing; then a cause
	 * is tagged with Tab (and S-Tab goes back) */
	ADJ_OK(f, NULL, 24, 80, NULL, "1\n<Enter>\n:dump-screen e\n<Esc>\n"
	       ":dump-screen x\n1\nslipped on the label\n<Tab><Tab><Tab>"
	       "<S-Tab>\n:dump-screen d\n<Enter>\n");
	assert_row_contains(f, "e", 23, "a resolution needs a rationale");
	assert_row_contains(f, "x", 23, "not saved");
	assert_dump_contains(f, "d", "[slip]");
	assert_sql(f, "SELECT cause, rationale FROM resolutions",
		   "slip,slipped on the label");
	/* agreed dimensions are not resolved */
	ADJ_OK(f, NULL, 24, 80, "microsoft/DeepSpeed#4187",
	       "1\n:dump-screen g\n");
	assert_row_contains(f, "g", 23, "is agreed");
	assert_int_equal(q(f, "SELECT count(*) FROM resolutions"), 1);
	assert_int_equal(q(f, "SELECT count(*) FROM audit WHERE action = "
			   "'resolve'"), 1);
}

static void test_rationale_editor(void **state)
{
	struct fixture *f = *state;
	struct buf ed = BUF_INIT;

	buf_addf(&ed, "%s/editor.sh", f->dir);
	spit(ed.ptr, "#!/bin/sh\n"
	     "printf 'written in the editor\\n' >> \"$1\"\n");
	chmod(ed.ptr, 0755);
	setenv("EDITOR", ed.ptr, 1);
	ADJ_OK(f, NULL, 24, 80, NULL, "2\nfirst words, \n<C-o>\n"
	       ":dump-screen a\n");
	unsetenv("EDITOR");
	assert_sql(f, "SELECT rationale FROM resolutions",
		   "first words, written in the editor");
	assert_row_contains(f, "a", 23, "done: " FIRST);
	buf_release(&ed);
}

static void test_moves_on_to_the_end(void **state)
{
	struct fixture *f = *state;
	long long *ids = NULL;
	size_t nr = 0, i, d;
	struct err e = ERR_INIT;

	/* resolve every item but the oldest through the core */
	if (adjudicate_queue(&f->st, &f->carol, &f->cb, &ids, &nr, &e) < 0)
		fail_msg("%s", e.msg);
	assert_int_equal(nr, 13);
	for (i = 1; i < nr; i++) {
		struct item_state s;

		if (adjudicate_state(&f->st, &f->carol, &f->cb, ids[i], &s,
				     &e) < 0)
			fail_msg("%s", e.msg);
		for (d = 0; d < s.nr_dims; d++) {
			const struct coded_dim *cd;

			if (s.dims[d].status != DIM_DISAGREE)
				continue;
			cd = coding_dim(&s.coders[0].coding,
					s.dims[d].dim->key);
			if (adjudicate_resolve(&f->st, &f->carol, &f->cb,
					       ids[i], s.dims[d].dim->key,
					       (const char *const *)cd->codes,
					       cd->nr_codes, "core", NULL,
					       &e) < 0)
				fail_msg("%s", e.msg);
		}
		item_state_release(&s);
	}
	free(ids);
	ADJ_OK(f, NULL, 24, 80, NULL, ":dump-screen a\n1\nlast one\n<Enter>\n"
	       ":dump-screen b\n>\n:dump-screen c\n");
	assert_row_contains(f, "a", 0, "1 left");
	assert_row_contains(f, "a", 23, "1/1");
	assert_row_contains(f, "b", 0, "0 left");
	assert_row_contains(f, "b", 23, "the queue is empty");
	/* the item stays on screen, resolved */
	assert_row_contains(f, "b", find_row(f, "b", "root_cause"),
			    "\xe2\x86\x92 ");
	assert_row_contains(f, "c", 23, "last item of the queue");
	/* and the next session has nothing to do */
	assert_int_equal(run_adj(f, NULL, 24, 80, NULL, ""), -1);
	assert_int_equal(f->err.code, ERR_NOTFOUND);
	assert_int_equal(q(f, "SELECT count(*) FROM resolutions"), 20);
}

static void test_several_disagreements(void **state)
{
	struct fixture *f = *state;

	/* two dimensions: after the first the second is selected */
	ADJ_OK(f, NULL, 24, 80, "microsoft/DeepSpeed#5733",
	       ":dump-screen a\n1\none\n<Enter>\n:dump-screen b\n2\ntwo\n"
	       "<Enter>\n:dump-screen c\n");
	assert_row_contains(f, "a", find_row(f, "a", "symptom"), ">");
	assert_row_contains(f, "b", find_row(f, "b", "root_cause"),
			    ">\xe2\x89\xa0");
	assert_row_contains(f, "b", 0, "microsoft/DeepSpeed#5733");
	assert_row_contains(f, "b", 23, "saved: symptom = ");
	assert_sql(f, "SELECT dimension, rationale FROM resolutions ORDER BY "
		   "dimension", "root_cause,two|symptom,one");
	assert_row_contains(f, "c", 23, "done: microsoft/DeepSpeed#5733");
}

/* At 80 columns a coder's codes get 21 columns: the code both coders
 * chose comes first, bold, and what does not fit is counted - never a
 * longer code of one coder hiding the one they share. */
static void test_shared_code_at_80(void **state)
{
	struct fixture *f = *state;
	static const char *const a2[] = { "dependency_management",
					  "version_compatibility" };
	static const char *const b1[] = { "version_compatibility" };
	struct err e = ERR_INIT;
	long long id;
	char *r, *a, *at;
	int y;

	id = item_find(&f->st, "microsoft/DeepSpeed#6011", &e);
	assert_true(id > 0);
	if (label_set(&f->st, &f->alice, &f->cb, id, "fix_pattern", a2, 2, 0,
		      &e) < 0 ||
	    label_set(&f->st, &f->bob, &f->cb, id, "fix_pattern", b1, 1, 0,
		      &e) < 0)
		fail_msg("%s", e.msg);
	ADJ_OK(f, NULL, 24, 80, "microsoft/DeepSpeed#6011", ":dump-screen a\n");
	y = find_row(f, "a", "fix_pattern");
	assert_true(y > 0);
	r = row(f, "a", y);
	/* both cells start with the shared code; alice's says one more */
	at = strstr(r, "version_compatib");
	assert_non_null(at);
	assert_non_null(strstr(at + 1, "version_compatib"));
	assert_contains(r, "+1");
	assert_not_contains(r, "dependency_manag");
	/* the shared code is bold, the rest of the row as it was */
	a = row(f, "a.attr", y);
	assert_int_equal(a[at - r], 'b');
	free(a);
	free(r);
}

/* ---- discussion ------------------------------------------------------- */

static void test_settle_discussion(void **state)
{
	struct fixture *f = *state;
	long long id;
	struct err e = ERR_INIT;

	/* the labels of this item agree; bob flags it for discussion */
	id = item_find(&f->st, "hpcaitech/ColossalAI#4799", &e);
	assert_true(id > 0);
	if (label_flag(&f->st, &f->bob, id, "discuss", 1, &e) < 0 ||
	    label_memo(&f->st, &f->bob, id, "not sure about the stage\n"
		       "see the second comment", &e) < 0)
		fail_msg("%s", e.msg);
	ADJ_OK(f, NULL, 24, 80, "hpcaitech/ColossalAI#4799",
	       ":dump-screen a\nM\n:dump-screen m\nq\n1\n:dump-screen x\nS\n"
	       ":dump-screen d\nwe talked it over\n<Enter>\n:dump-screen b\n");
	assert_row_contains(f, "a", 0, "[discuss]");
	assert_row_contains(f, "a", 0, "14 left");
	assert_dump_contains(f, "a", "[discuss] memo: not sure about the "
			     "stage (M: all of it)");
	assert_dump_contains(f, "m", "see the second comment");
	assert_row_contains(f, "x", 23, "is agreed");
	assert_dump_contains(f, "d", "Settle the discussion of "
			     "hpcaitech/ColossalAI#4799");
	assert_sql(f, "SELECT s.note, m.name FROM settled s JOIN members m ON "
		   "m.id = s.adjudicator_id", "we talked it over,carol");
	assert_sql(f, "SELECT new, for_member FROM audit WHERE action = "
		   "'settle'", "we talked it over,carol");
	assert_int_equal(q(f, "SELECT count(*) FROM resolutions"), 0);
	/* not in the queue any more: the next item opened */
	assert_row_contains(f, "b", 0, "13 left");
	assert_row_contains(f, "b", 0, "hpcaitech/ColossalAI#5412");
	assert_row_contains(f, "b", 23, "done: hpcaitech/ColossalAI#4799 "
			    "(settled, with a note)");
}

/* ---- evidence --------------------------------------------------------- */

static void cite(struct fixture *f, const struct actor *a, long long id,
		 const char *dim, const char *spec)
{
	struct evidence_cite c;
	struct err e = ERR_INIT;

	if (evidence_parse(spec, &c, &e) < 0 ||
	    evidence_add(&f->st, a, &f->cb, id, dim, &c, NULL, &e) < 0)
		fail_msg("%s: %s", spec, e.msg);
	evidence_cite_release(&c);
}

/* E lists each coder's evidence, blind, with its quote; e shows each
 * citation of the selected dimension in turn in its pane, under the
 * line cursor. */
static void test_evidence_list_and_jump(void **state)
{
	struct fixture *f = *state;
	struct err e = ERR_INIT;
	long long id;
	char *s;

	id = item_find(&f->st, "hpcaitech/ColossalAI#4799", &e);
	assert_true(id > 0);
	cite(f, &f->alice, id, "root_cause", "diff:colossalai/checkpoint_io/"
	     "hybrid_parallel_checkpoint_io.py:14");
	cite(f, &f->bob, id, "symptom", "issue:body:7");
	ADJ_OK(f, NULL, 30, 120, "hpcaitech/ColossalAI#4799",
	       "E\n:dump-screen list\nq\ne\n:dump-screen j1\ne\n"
	       ":dump-screen j2\nJ\ne\n:dump-screen j3\nJ\ne\n"
	       ":dump-screen j4\n");
	s = dump(f, "list");
	assert_contains(s, "Coder 1");
	assert_contains(s, "Coder 2");
	assert_contains(s, "root_cause: diff:colossalai/checkpoint_io/"
			"hybrid_parallel_checkpoint_io.py:14");
	assert_contains(s, "+from colossalai.shardformer.layer.parallel_module "
			"import PaddingParallelModule");
	assert_contains(s, "symptom: issue:body:7");
	assert_contains(s, "I saved a Llama-7B checkpoint");
	assert_not_contains(s, "alice");
	assert_not_contains(s, "bob");
	free(s);
	/* symptom is selected: its one citation (the fixed coder salt
	 * makes bob Coder 1), again and again; the pane with the lines
	 * gets the focus (its `*`) and shows them at its top */
	assert_row_contains(f, "j1", 29, "Coder 1's evidence for symptom "
			    "(1 of 1): issue:body:7");
	assert_row_contains(f, "j1", 1, "issue *");
	assert_row_contains(f, "j1", 2, "I saved a Llama-7B checkpoint");
	assert_row_contains(f, "j2", 29, "Coder 1's evidence for symptom "
			    "(1 of 1)");
	/* J selects root_cause: e follows it */
	assert_row_contains(f, "j3", 29, "Coder 2's evidence for root_cause "
			    "(1 of 1): diff:colossalai/checkpoint_io/"
			    "hybrid_parallel_checkpoint_io.py:14");
	assert_row_contains(f, "j3", 1, "4 files) *");
	assert_row_contains(f, "j3", 2, "+from colossalai.shardformer.layer."
			    "parallel_module import");
	/* fix_pattern: nothing cited */
	assert_row_contains(f, "j4", 29, "no evidence cited for fix_pattern");
}

/* A citation of a pull request's description: e shows that fix, with
 * the cited lines above its diff. */
static void test_evidence_in_a_pr_description(void **state)
{
	struct fixture *f = *state;
	struct err e = ERR_INIT;
	long long id;

	id = item_find(&f->st, "microsoft/DeepSpeed#6011", &e);
	assert_true(id > 0);
	cite(f, &f->bob, id, "symptom", "pr:6098:body:1");
	ADJ_OK(f, NULL, 30, 120, "microsoft/DeepSpeed#6011",
	       "e\n:dump-screen a\n");
	assert_row_contains(f, "a", 29, "evidence for symptom (1 of 1): "
			    "pr:6098:body:1");
	assert_row_contains(f, "a", 1, "fix 2/2 #6098");
	assert_row_contains(f, "a", 2, "Follow-up to #6020.");
}

/* A citation of lines only the item's second fix shows: e shows that
 * fix, and the first one again for a citation of its lines. */
static void test_evidence_in_the_other_fix(void **state)
{
	struct fixture *f = *state;
	struct err e = ERR_INIT;
	long long id;

	id = item_find(&f->st, "microsoft/DeepSpeed#6011", &e);
	assert_true(id > 0);
	/* symptom (where the coders differ): line 472 is in the first
	 * fix's hunk, 424 in the second's only */
	cite(f, &f->alice, id, "symptom", "diff:deepspeed/launcher/"
	     "runner.py:472-473");
	cite(f, &f->bob, id, "symptom", "diff:deepspeed/launcher/"
	     "runner.py:424");
	cite(f, &f->alice, id, "root_cause", "issue:body:1");
	ADJ_OK(f, NULL, 30, 120, "microsoft/DeepSpeed#6011",
	       "e\n:dump-screen a\ne\n:dump-screen b\ne\n:dump-screen c\n");
	assert_row_contains(f, "a", 29, "evidence for symptom (1 of 2)");
	assert_row_contains(f, "b", 29, "evidence for symptom (2 of 2)");
	assert_row_contains(f, "c", 29, "evidence for symptom (1 of 2)");
	/* whichever coder is first, the lines are on screen with the
	 * fix that has them */
	if (find_row(f, "a", "fix 1/2 #6020") == 1) {
		assert_row_contains(f, "a", 2, "+    # --num_gpus keeps");
		assert_row_contains(f, "b", 1, "fix 2/2 #6098");
		assert_row_contains(f, "b", 2, "+    include_from_user = len");
		assert_row_contains(f, "c", 1, "fix 1/2 #6020");
	} else {
		assert_row_contains(f, "a", 1, "fix 2/2 #6098");
		assert_row_contains(f, "a", 2, "+    include_from_user = len");
		assert_row_contains(f, "b", 1, "fix 1/2 #6020");
		assert_row_contains(f, "b", 2, "+    # --num_gpus keeps");
		assert_row_contains(f, "c", 1, "fix 2/2 #6098");
	}
}

/* ---- blinding --------------------------------------------------------- */

static void test_blind_coders(void **state)
{
	struct fixture *f = *state;
	const char *names[] = { "a", "d", "m", "h" };
	char *c1, *c2, *line, *who1;
	size_t i;
	int y;

	ADJ_OK(f, NULL, 50, 200, "microsoft/DeepSpeed#5733",
	       ":dump-screen a\n1\n:dump-screen d\n<Esc>\nM\n:dump-screen m\n"
	       "q\n?\n:dump-screen h\nq\n1\nCoder 1 is right\n<Enter>\n");
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		assert_dump_lacks(f, names[i], "alice");
		assert_dump_lacks(f, names[i], "bob");
	}
	assert_dump_contains(f, "a", "1 Coder 1");
	assert_dump_contains(f, "m", "Coder 2");
	/* the stored coder1 is who the screen showed as Coder 1 */
	y = find_row(f, "a", "symptom ");
	line = row(f, "a", y);
	who1 = qs(f, "SELECT coder1 FROM resolutions");
	c1 = codes_of(f, who1, "microsoft/DeepSpeed#5733", "symptom");
	c2 = qs(f, "SELECT coder2_codes FROM resolutions");
	assert_contains(line, c1);
	assert_contains(line, c2);
	assert_true(strstr(line, c1) < strstr(line, c2));
	assert_sql(f, "SELECT coder1_codes = code, coder1 <> coder2 FROM "
		   "resolutions", "1,1");
	free(line);
	free(c1);
	free(c2);
	free(who1);
}

static void test_blind_order_both_ways(void **state)
{
	struct fixture *f = *state;

	/* with this salt, Coder 1 is alice on one item and bob on another;
	 * each resolution stores coder1/coder2 in the screen's order */
	ADJ_OK(f, NULL, 24, 80, NULL, "1\nr\n<Enter>\n1\nr\n<Enter>\n"
	       "1\nr\n<Enter>\n1\nr\n<Enter>\n");
	assert_int_equal(q(f, "SELECT count(*) FROM resolutions"), 4);
	assert_int_equal(q(f, "SELECT count(*) FROM resolutions WHERE "
			   "code <> coder1_codes"), 0);
	assert_int_equal(q(f, "SELECT count(DISTINCT coder1) FROM "
			   "resolutions"), 2);
}

static void test_owner_turns_blinding_off(void **state)
{
	struct fixture *f = *state;

	/* carol may not; the owner may, and names show at once */
	ADJ_OK(f, NULL, 24, 80, NULL, "B\n:dump-screen a\n");
	assert_row_contains(f, "a", 23, "only the owner");
	assert_int_equal(q(f, "SELECT value = '1' FROM meta WHERE key = "
			   "'blind_adjudication'"), 1);
	ADJ_OK(f, &f->owner, 50, 200, NULL, "B\n:dump-screen b\nB\n"
	       ":dump-screen c\n");
	assert_dump_contains(f, "b", "1 alice");
	assert_dump_contains(f, "b", "2 bob");
	assert_dump_contains(f, "b", "names shown");
	assert_dump_lacks(f, "c", "1 alice");
	assert_dump_contains(f, "c", "1 Coder 1");
	assert_sql(f, "SELECT old, new FROM audit WHERE action = "
		   "'blind_adjudication' ORDER BY id", "1,0|0,1");
}

/* ---- three coders ----------------------------------------------------- */

/* The name of item `id`; owned. */
static char *item_of(struct fixture *f, long long id)
{
	struct buf sql = BUF_INIT;
	char *name;

	buf_addf(&sql, "SELECT repo || '#' || number FROM items WHERE id = "
		 "%lld", id);
	name = qs(f, sql.ptr);
	buf_release(&sql);
	return name;
}

/* Give item `id` to a round of its own whose annotators are who[0..n):
 * once the study has rounds, only a round's annotators code its items. */
static void round_of(struct fixture *f, const char *round, long long id,
		     const char *const *who, size_t n)
{
	struct round_spec spec;
	struct err e = ERR_INIT;
	char *name = item_of(f, id);

	memset(&spec, 0, sizeof(spec));
	spec.name = round;
	spec.items = name;
	spec.annotators = who;
	spec.nr_annotators = n;
	if (round_create(&f->st, &f->owner, &spec, NULL, &e) < 0)
		fail_msg("%s", e.msg);
	free(name);
}

static void test_three_coders(void **state)
{
	struct fixture *f = *state;
	struct actor dave = ACTOR_INIT;
	struct err e = ERR_INIT;
	const char *sym[] = { "crash", "hang", "build_failure" };
	const struct actor *who[3];
	long long id;
	int i;

	/* an item of a round of three annotators */
	id = q(f, "SELECT min(id) FROM items WHERE id NOT IN (SELECT item_id "
	       "FROM assignments)");
	assert_true(id > 0);
	if (member_add(&f->st, &f->owner, "dave", ROLE_ANNOTATOR, &e) < 0 ||
	    member_resolve(&f->st, "dave", &dave, &e) < 0)
		fail_msg("%s", e.msg);
	{
		static const char *const three[] = { "alice", "bob", "dave" };

		round_of(f, "trio", id, three, 3);
	}
	who[0] = &f->alice;
	who[1] = &f->bob;
	who[2] = &dave;
	for (i = 0; i < 3; i++) {
		const char *rc = "api_misuse", *fp = "other", *ph = "training";

		if (label_set(&f->st, who[i], &f->cb, id, "symptom", &sym[i],
			      1, 0, &e) < 0 ||
		    label_set(&f->st, who[i], &f->cb, id, "root_cause", &rc, 1,
			      0, &e) < 0 ||
		    label_set(&f->st, who[i], &f->cb, id, "fix_pattern", &fp,
			      1, 0, &e) < 0 ||
		    label_set(&f->st, who[i], &f->cb, id, "phase", &ph, 1, 0,
			      &e) < 0 ||
		    label_submit(&f->st, who[i], &f->cb, id, &e) < 0)
			fail_msg("%s", e.msg);
	}
	{
		char *name = item_of(f, id);

		ADJ_OK(f, NULL, 30, 120, name, ":dump-screen a\n3\n"
		       ":dump-screen d\nthe third\n<Enter>\n");
		free(name);
	}
	assert_dump_contains(f, "a", "3 Coder 3");
	assert_dump_contains(f, "a", "1-3 take");
	assert_dump_contains(f, "a", "Coder 3:");
	assert_dump_lacks(f, "a", "dave");
	assert_dump_contains(f, "d", "(Coder 3's code)");
	assert_int_equal(q(f, "SELECT count(*) FROM resolutions WHERE "
			   "dimension = 'symptom' AND rationale = 'the "
			   "third'"), 1);
	actor_release(&dave);
}

/* More coders than the panel has columns for at 80: the ones that fit
 * get a column, the rest none - never one drawn over the final code or
 * past the right edge, which wrapped onto the next row. */
static void test_many_coders(void **state)
{
	struct fixture *f = *state;
	struct err e = ERR_INIT;
	char *name, *r;
	long long id;
	int i, y;

	id = q(f, "SELECT min(id) FROM items WHERE id NOT IN (SELECT item_id "
	       "FROM assignments)");
	{
		const char *who24[24];
		char names[24][16];

		for (i = 0; i < 24; i++) {
			snprintf(names[i], sizeof(names[i]), "coder%02d", i);
			if (member_add(&f->st, &f->owner, names[i],
				       ROLE_ANNOTATOR, &e) < 0)
				fail_msg("%s", e.msg);
			who24[i] = names[i];
		}
		round_of(f, "many", id, who24, 24);
	}
	for (i = 0; i < 24; i++) {
		struct actor a = ACTOR_INIT;
		char who[16];
		const char *sym = i % 2 ? "hang" : "crash";
		const char *rc = "api_misuse", *fp = "other", *ph = "training";

		snprintf(who, sizeof(who), "coder%02d", i);
		if (member_resolve(&f->st, who, &a, &e) < 0 ||
		    label_set(&f->st, &a, &f->cb, id, "symptom", &sym, 1, 0,
			      &e) < 0 ||
		    label_set(&f->st, &a, &f->cb, id, "root_cause", &rc, 1, 0,
			      &e) < 0 ||
		    label_set(&f->st, &a, &f->cb, id, "fix_pattern", &fp, 1, 0,
			      &e) < 0 ||
		    label_set(&f->st, &a, &f->cb, id, "phase", &ph, 1, 0,
			      &e) < 0 ||
		    label_submit(&f->st, &a, &f->cb, id, &e) < 0)
			fail_msg("%s", e.msg);
		actor_release(&a);
	}
	name = item_of(f, id);
	ADJ_OK(f, NULL, 24, 80, name, ":dump-screen a\n");
	free(name);
	y = find_row(f, "a", "final");
	assert_true(y > 0);
	r = row(f, "a", y);
	assert_contains(r, "  final");
	free(r);
	/* every dimension row starts with its mark, ends with its final
	 * code after a blank column */
	for (i = 1; i <= 5; i++) {
		r = row(f, "a", y + i);
		if (r[0] != ' ' && r[0] != '>')
			fail_msg("row %d starts with garbage: \"%s\"",
				 y + i, r);
		if (!strstr(r, "  to resolve") && !strstr(r, "  agreed"))
			fail_msg("row %d: the final column is overdrawn: "
				 "\"%s\"", y + i, r);
		free(r);
	}
}

/* ---- the agreement view ----------------------------------------------- */

static void test_agree_80(void **state)
{
	struct fixture *f = *state;

	AGREE_OK(f, NULL, 24, 80, NULL, ":dump-screen a\n<Space>\n"
		 ":dump-screen a2\nj\n:dump-screen b\n"
		 "<Tab>\n:dump-screen c\n");
	expect_screen(f, "a", "agree-80x24.txt");
	assert_row_contains(f, "a", 1, "Shown: whole study");
	assert_dump_contains(f, "a", "trend");
	/* the interval stays inside [-1, 1] (Wald gave 0.62-1.01) */
	assert_row_contains(f, "a", find_row(f, "a", ">symptom"),
			    "0.81   0.59\xe2\x80\x93" "1.00    almost perfect");
	/* the confusion grid: shaded counts, diagonal is agreement */
	/* carol adjudicates blind: the annotators go unnamed */
	assert_dump_contains(f, "a2", "Confusion: rows annotator 1, columns "
			     "annotator 2");
	assert_dump_lacks(f, "a2", "alice");
	assert_dump_contains(f, "a2", " 1 crash                 \xe2\x96\x88 6");
	assert_row_contains(f, "b", find_row(f, "b", ">root_cause"), "0.72");
	assert_dump_contains(f, "b", "Cohen's kappa for root cause was 0.72");
	assert_row_contains(f, "c", 1, "Shown: round pilot");
	assert_row_contains(f, "c", find_row(f, "c", ">root_cause"), "0.66");
}

static void test_agree_200(void **state)
{
	struct fixture *f = *state;

	/* the owner sees the annotators by name */
	AGREE_OK(f, &f->owner, 50, 200, NULL, ":dump-screen a\nj\n"
		 ":dump-screen b\n");
	expect_screen(f, "a", "agree-200x50.txt");
	expect_screen(f, "b", "agree-200x50-root-cause.txt");
	/* a column per round, and bars of the codes chosen */
	assert_row_contains(f, "a", 2, "trend   pilot round-1");
	assert_dump_contains(f, "a", "Codes chosen, per annotator");
	assert_dump_contains(f, "a", " 1 crash                     alice "
			     "\xe2\x96\x88");
	assert_dump_contains(f, "b", "15 concurrency");
}

/* Coder drift closes the owner's detail: each annotator's times and
 * whether their codes of the dimension moved; nobody else sees it. */
static void test_agree_drift(void **state)
{
	struct fixture *f = *state;

	AGREE_OK(f, &f->owner, 50, 200, NULL, "G\n:dump-screen a\n");
	assert_dump_contains(f, "a", "Coder drift (the owner's view)");
	assert_dump_contains(f, "a", "no times yet");
	assert_dump_contains(f, "a", "alice's codes over 2 rounds: ");
	AGREE_OK(f, NULL, 50, 200, NULL, "G\n:dump-screen b\n");
	assert_dump_lacks(f, "b", "Coder drift");
}

static void test_agree_ascii(void **state)
{
	struct fixture *f = *state;

	setenv("LC_ALL", "C", 1);
	AGREE_OK(f, NULL, 24, 80, NULL, ":dump-screen a\n<Space>\n"
		 ":dump-screen a2\n");
	setenv("LC_ALL", "C.UTF-8", 1);
	assert_dump_contains(f, "a2", " 1 crash                 # 6");
	assert_dump_contains(f, "a", "0.59..1.00");
	assert_dump_contains(f, "a", "@*      0.71");	/* the trend */
	/* no block elements (the frame is line drawing, dumped as such) */
	assert_dump_lacks(f, "a", "\xe2\x96");
}

/* A calibration gate: the gated round says what it waited for, the round
 * it waited for says where the selected dimension stands. */
static void test_agree_gate(void **state)
{
	static const char *const ann[] = { "alice", "bob" };
	struct fixture *f = *state;
	struct round_spec spec;
	struct err e = ERR_INIT;

	memset(&spec, 0, sizeof(spec));
	spec.name = "round-2";
	spec.items = "all";
	spec.annotators = ann;
	spec.nr_annotators = 2;
	spec.gate_after = "pilot";
	spec.gate_min_kappa = 0.6;
	if (round_create(&f->st, &f->owner, &spec, NULL, &e) < 0)
		fail_msg("%s", e.msg);
	/* scopes: pilot, round-1, round-2, the whole study (shown first) */
	AGREE_OK(f, NULL, 50, 200, NULL, "<Tab>\n:dump-screen p\n<Tab>\n"
		 "<Tab>\n:dump-screen r\n");
	assert_row_contains(f, "p", 1, "Shown: round pilot");
	assert_dump_contains(f, "p", "Gate for round round-2: needs kappa >= "
			     "0.60; this dimension has 0.88: passes.");
	assert_row_contains(f, "r", 1, "Shown: round round-2");
	assert_dump_contains(f, "r", "Gate: this round was created after pilot "
			     "reached kappa 0.60 on every required dimension.");
}

static void test_agree_from_adjudicator(void **state)
{
	struct fixture *f = *state;

	ADJ_OK(f, NULL, 24, 80, NULL, "A\n:dump-screen a\nq\n:dump-screen b\n");
	assert_row_contains(f, "a", 1, "Agreement (");
	assert_row_contains(f, "a", 23, "1-2 take");
	assert_dump_contains(f, "a", "root_cause");
	assert_dump_lacks(f, "b", "Agreement (");
	assert_row_contains(f, "b", 0, FIRST);
}

static void test_annotator_refused(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(run_adj(f, &f->alice, 24, 80, NULL, ""), -1);
	assert_int_equal(f->err.code, ERR_PERM);
	assert_non_null(strstr(f->err.msg, "alice is an annotator"));
	assert_int_equal(q(f, "SELECT count(*) FROM resolutions"), 0);
}

static void test_annotator_sees_closed_rounds_only(void **state)
{
	struct fixture *f = *state;
	char *s;

	AGREE_OK(f, &f->alice, 24, 80, NULL, ":dump-screen a\n<Tab>\n"
		 ":dump-screen b\n<Tab>\n:dump-screen c\n");
	/* pilot is closed: shown first, with numbers */
	assert_row_contains(f, "a", 1, "Shown: round pilot");
	assert_row_contains(f, "a", find_row(f, "a", ">symptom"), "0.88");
	/* round-1 is open, and the whole study is not for annotators */
	assert_row_contains(f, "b", 1, "Shown: round round-1");
	assert_row_contains(f, "b", find_row(f, "b", ">symptom"),
			    "closed rounds");
	assert_dump_contains(f, "b", "once the round is closed");
	s = dump(f, "b");
	assert_not_contains(s, "0.71");	/* round-1's symptom kappa */
	assert_not_contains(s, "Confusion");
	free(s);
	assert_row_contains(f, "c", 1, "Shown: whole study");
	assert_dump_contains(f, "c", "for the owner and adjudicators");
	assert_dump_lacks(f, "c", "0.81");

	/* the same from the annotator's own screen */
	screen_env(f, 24, 80, "A\n:dump-screen d\n");
	if (tui_code(&f->st, &f->alice, FIRST, &f->err) < 0)
		fail_msg("%s", f->err.msg);
	assert_row_contains(f, "d", 2, "Shown: round pilot");
	assert_dump_lacks(f, "d", "round-1     0.71");
}

/* ---- details ---------------------------------------------------------- */

static void test_help_and_resize(void **state)
{
	struct fixture *f = *state;

	ADJ_OK(f, NULL, 40, 120, NULL, "?\n:dump-screen h\n/Rationale and\n"
	       "<Enter>\n:dump-screen r\nG\n:dump-screen e\nq\n"
	       ":resize 20 70\n:dump-screen s\n:resize 24 80\n"
	       ":dump-screen b\n");
	assert_dump_contains(f, "h", "Adjudicator's screen");
	assert_dump_contains(f, "h", "(take-coder)");
	assert_dump_lacks(f, "h", "Coding screen");
	assert_dump_contains(f, "r", "Rationale and note dialog");
	assert_dump_contains(f, "r", "(next-cause)");
	assert_dump_contains(f, "e", "Search prompt");
	assert_dump_lacks(f, "e", "Memo editor");
	assert_dump_contains(f, "s", "terminal too small: 70x20");
	assert_row_contains(f, "b", find_row(f, "b", "root_cause"),
			    "to resolve");
}

static void test_bench_times_every_key(void **state)
{
	struct fixture *f = *state;
	struct buf p = BUF_INIT;
	char *s, *line;
	int n = 0;

	buf_addf(&p, "%s/bench.tsv", f->dir);
	setenv("BUGCODER_BENCH", p.ptr, 1);
	ADJ_OK(f, NULL, 24, 80, NULL, "JK<Tab>\n:dump-screen a\n<PgDn>q\n");
	unsetenv("BUGCODER_BENCH");
	s = slurp(p.ptr);
	assert_non_null(s);
	for (line = s; line && *line; n++) {
		char key[32];
		double us;

		if (sscanf(line, "%31[^\t]\t%lf\n", key, &us) != 2)
			fail_msg("bad line: %s", line);
		assert_true(us >= 0 && us < 5e6);
		if (n == 0)
			assert_string_equal(key, "J");
		if (n == 2)
			assert_string_equal(key, "<Tab>");
		if (n == 3)
			assert_string_equal(key, "<PgDn>");
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	assert_int_equal(n, 5);
	free(s);
	buf_release(&p);
}

/* ---- proposed codes --------------------------------------------------- */

#define PROP_ITEM "microsoft/DeepSpeed#6011"	/* round-1: still open */
#define PROP_ITEM2 "hpcaitech/ColossalAI#3105"

static const char ckpt_def[] =
	"The checkpoint on disk is written in one layout and read back in "
	"another: the shards of a ZeRO stage 3 checkpoint are saved per rank "
	"with their partition metadata, and the loader, run on a different "
	"number of ranks, assumes the consolidated layout, so the state dict "
	"is rebuilt from the wrong offsets. Covers conversion scripts that "
	"drop or rename keys. Last words of the definition: WRAPPED-IN-FULL.";

/* `who` proposes a code on `item` (an open round's item); its id. */
static long long propose(struct fixture *f, const struct actor *who,
			 const char *item, const char *dim, const char *key,
			 const char *name, const char *def)
{
	struct err e = ERR_INIT;
	long long id, pid = 0;

	id = item_find(&f->st, item, &e);
	if (id < 0 || label_propose(&f->st, who, &f->cb, id, dim, key, name,
				    def, &pid, &e) < 0)
		fail_msg("%s", e.msg);
	return pid;
}

/* Two open proposals: alice's root_cause:ckpt_format, bob's
 * symptom:silent_divergence. */
static void two_proposals(struct fixture *f)
{
	assert_int_equal(propose(f, &f->alice, PROP_ITEM, "root_cause",
				 "ckpt_format", "Checkpoint format mismatch",
				 ckpt_def), 1);
	assert_int_equal(propose(f, &f->bob, PROP_ITEM2, "symptom",
				 "silent_divergence", "Silent divergence",
				 "Training goes on without an error but the "
				 "loss drifts away from a single-device run."),
			 2);
}

static void assert_codes(struct fixture *f, const char *who,
			 const char *item, const char *dim, const char *want)
{
	char *c = codes_of(f, who, item, dim);

	assert_string_equal(c, want);
	free(c);
}

static void test_proposals_80(void **state)
{
	struct fixture *f = *state;
	int y;

	two_proposals(f);
	ADJ_OK(f, NULL, 24, 80, NULL, ":dump-screen a\nP\n:dump-screen p\n"
	       "j\n:dump-screen j\nq\n:dump-screen b\n");
	/* the header counts the open proposals */
	assert_row_contains(f, "a", 0, "P: 2 proposals");
	expect_screen(f, "p", "proposals-80x24.txt");
	assert_row_contains(f, "p", 1, "Proposed codes (");
	assert_row_contains(f, "p", 2, "2 open proposals");
	assert_row_contains(f, "p", 2, "codebook llm-framework-bugs 1.0");
	y = find_row(f, "p", "root_cause:ckpt_format");
	assert_true(y > 0);
	assert_row_contains(f, "p", y, ">");
	/* blind adjudication: the proposer is the item's Coder N, as the
	 * adjudicator's screen numbers them (alice is Coder 2 of its item
	 * with this salt), never a name */
	assert_row_contains(f, "p", y, "Coder 2");
	assert_row_contains(f, "p", y, "open");
	assert_row_contains(f, "p", find_row(f, "p", "symptom:silent_"),
			    "Coder 1");
	assert_dump_lacks(f, "p", "alice");
	assert_dump_lacks(f, "p", "bob");
	/* the selected one in full: the definition wrapped to its end */
	assert_dump_contains(f, "p", "Proposal 1 by Coder 2 on " PROP_ITEM);
	assert_dump_contains(f, "p", "Enter accepts it into "
			     "llm-framework-bugs 1.1");
	assert_dump_contains(f, "p", "WRAPPED-IN-FULL.");
	/* j selects the next */
	assert_dump_contains(f, "j", "Proposal 2 by Coder 1 on " PROP_ITEM2);
	assert_dump_lacks(f, "j", "WRAPPED-IN-FULL");
	/* q closes: the adjudicator's screen again, nothing decided */
	assert_dump_lacks(f, "b", "Proposed codes (");
	assert_row_contains(f, "b", 0, FIRST);
	assert_sql(f, "SELECT status FROM proposals ORDER BY id",
		   "open|open");
	assert_int_equal(q(f, "SELECT count(*) FROM codebooks"), 1);
}

static void test_proposals_200(void **state)
{
	struct fixture *f = *state;
	int y;

	two_proposals(f);
	ADJ_OK(f, NULL, 50, 200, NULL, "P\n:dump-screen p\n");
	expect_screen(f, "p", "proposals-200x50.txt");
	/* wide enough for every column in full */
	y = find_row(f, "p", "root_cause:ckpt_format");
	assert_row_contains(f, "p", y, "Checkpoint format mismatch");
	assert_row_contains(f, "p", y, PROP_ITEM);
	assert_row_contains(f, "p", find_row(f, "p", "symptom:silent_"),
			    PROP_ITEM2);
	assert_dump_contains(f, "p", "WRAPPED-IN-FULL.");
}

static void test_proposal_accept(void **state)
{
	struct fixture *f = *state;

	two_proposals(f);
	assert_codes(f, "alice", PROP_ITEM, "root_cause", "other");
	/* n (any key but y) answers no; then Enter, y accepts */
	ADJ_OK(f, NULL, 24, 80, NULL, "P\n<Enter>\n:dump-screen q\nn\n"
	       ":dump-screen n\n<Enter>\ny\n:dump-screen a\nq\n"
	       ":dump-screen b\nc\n/ckpt\n:dump-screen c\n");
	assert_row_contains(f, "q", 23, "accept ckpt_format into "
			    "llm-framework-bugs 1.1? y/n");
	assert_row_contains(f, "n", 23, "not accepted");
	assert_row_contains(f, "a", 23, "accepted: root_cause:ckpt_format, "
			    "codebook 1.1");
	/* the open list moved on to the other proposal */
	assert_row_contains(f, "a", 2, "1 open proposal ");
	assert_row_contains(f, "a", 2, "codebook llm-framework-bugs 1.1");
	assert_dump_lacks(f, "a", "ckpt_format  ");
	assert_dump_contains(f, "a", "Proposal 2 by Coder 1");
	assert_row_contains(f, "b", 0, "P: 1 proposal ");
	/* the screen reloaded its codebook: the picker has the new code */
	assert_dump_contains(f, "c", "ckpt_format");
	assert_dump_contains(f, "c", "Checkpoint format mismatch");
	/* in the study: decided, a new current codebook, the label moved */
	assert_sql(f, "SELECT status, decided_code, decided_by FROM proposals "
		   "ORDER BY id", "accepted,ckpt_format,carol|open,NULL,NULL");
	assert_sql(f, "SELECT version, current, source FROM codebooks ORDER "
		   "BY id", "1.0,0,codebooks/llm-framework-bugs.json|"
		   "1.1,1,proposal");
	assert_int_equal(q(f, "SELECT count(*) FROM codebooks WHERE current "
			   "AND json LIKE '%ckpt_format%'"), 1);
	assert_codes(f, "alice", PROP_ITEM, "root_cause", "ckpt_format");
	assert_int_equal(q(f, "SELECT count(*) FROM audit WHERE action = "
			   "'proposal.accept'"), 1);
}

static void test_proposal_map(void **state)
{
	struct fixture *f = *state;

	two_proposals(f);
	/* bob's symptom proposal onto hang (symptom's code 4); Tab keeps
	 * the picker on symptom, + proposes nothing there */
	ADJ_OK(f, NULL, 30, 120, NULL, "P\nj\nm\n:dump-screen p\n<Tab>\n"
	       ":dump-screen t\n+\n:dump-screen s\n4\n:dump-screen a\nq\n"
	       ":dump-screen b\n");
	assert_dump_contains(f, "p", "symptom (one code, required)");
	assert_dump_contains(f, "p", "or Enter map onto, / filter, Esc close");
	assert_dump_lacks(f, "p", "Tab next");
	assert_dump_lacks(f, "p", "root_cause (one code");
	assert_dump_lacks(f, "p", "+ propose");
	assert_row_contains(f, "p", 29, "map symptom:silent_divergence onto "
			    "which code of symptom?");
	assert_dump_contains(f, "t", "symptom (one code, required)");
	assert_row_contains(f, "t", 29, "maps onto a code of symptom");
	assert_row_contains(f, "s", 29, "codes are proposed while coding");
	/* saved, the picker closed, the list shows what is left open */
	assert_row_contains(f, "a", 29, "mapped: symptom:silent_divergence "
			    "onto hang (1 label)");
	assert_dump_lacks(f, "a", "(one code, required)");
	assert_dump_contains(f, "a", "1 open proposal ");
	assert_dump_contains(f, "a", "Proposal 1 by Coder 2");
	assert_row_contains(f, "b", 0, "P: 1 proposal ");
	assert_sql(f, "SELECT status, decided_code FROM proposals ORDER BY "
		   "id", "open,NULL|mapped,hang");
	assert_codes(f, "bob", PROP_ITEM2, "symptom", "hang");
	/* no new codebook for a map */
	assert_int_equal(q(f, "SELECT count(*) FROM codebooks"), 1);
	assert_int_equal(q(f, "SELECT count(*) FROM audit WHERE action = "
			   "'proposal.map'"), 1);

	/* Esc in the picker maps nothing; a shows the decided ones */
	ADJ_OK(f, NULL, 30, 120, NULL, "P\nm\n<Esc>\n:dump-screen e\na\n"
	       ":dump-screen l\n");
	assert_row_contains(f, "e", 29, "not mapped");
	assert_dump_contains(f, "l", "2 proposals, 1 open");
	assert_row_contains(f, "l", find_row(f, "l", "symptom:silent_"),
			    "mapped");
	assert_sql(f, "SELECT status FROM proposals ORDER BY id",
		   "open|mapped");
	assert_codes(f, "alice", PROP_ITEM, "root_cause", "other");
}

static void test_proposals_not_for_annotators(void **state)
{
	struct fixture *f = *state;

	two_proposals(f);
	/* not bound on the annotator's screen */
	assert_int_equal(keymap_lookup(KEYMAP_MAIN, 'P'), ACT_NONE);
	assert_int_equal(keymap_lookup(KEYMAP_ADJUDICATE, 'P'),
			 ACT_PROPOSALS);
	screen_env(f, 24, 80, "P\n:dump-screen a\n");
	if (tui_code(&f->st, &f->alice, PROP_ITEM, &f->err) < 0)
		fail_msg("%s", f->err.msg);
	assert_dump_lacks(f, "a", "Proposed codes");
	assert_row_contains(f, "a", 23, "P: no such key here");
	/* nor for the owner coding */
	screen_env(f, 24, 80, "P\n:dump-screen o\n");
	if (tui_code(&f->st, &f->owner, PROP_ITEM, &f->err) < 0)
		fail_msg("%s", f->err.msg);
	assert_dump_lacks(f, "o", "Proposed codes");
	assert_sql(f, "SELECT status FROM proposals ORDER BY id",
		   "open|open");
	assert_int_equal(q(f, "SELECT count(*) FROM codebooks"), 1);
}

static void test_proposal_hostile_text(void **state)
{
	struct fixture *f = *state;
	char *s, *r;
	int y, i;

	propose(f, &f->alice, PROP_ITEM, "root_cause", "evil",
		"bad\x1b]0;pwned\x07name\rX",
		"one\r\ntwo\x1b[2J\x1b[6n three\x08\x08 \xc2\x9b" "31m "
		"\xff\xfe bidi\xe2\x80\xae" "txt end-of-def");
	ADJ_OK(f, NULL, 24, 80, NULL, "P\n:dump-screen p\n");
	s = dump(f, "p");
	/* no raw control reaches the screen; each shows as a mark */
	assert_not_contains(s, "\x1b");
	assert_not_contains(s, "\x07");
	assert_not_contains(s, "\r");
	assert_not_contains(s, "\x08");
	assert_not_contains(s, "\xc2\x9b");
	assert_contains(s, "bad\xe2\x90\x9b]0;pwned\xe2\x90\x87name"
			"\xe2\x90\x8dX");
	assert_contains(s, "two\xe2\x90\x9b[2J\xe2\x90\x9b[6n three"
			"\xe2\x90\x88\xe2\x90\x88 \xef\xbf\xbd" "31m");
	assert_contains(s, "\xef\xbf\xbd\xef\xbf\xbd bidi<U+202E>txt");
	assert_contains(s, "end-of-def");
	free(s);
	/* the CRLF is a line break of the definition, not a mark */
	y = find_row(f, "p", "Definition");
	assert_true(y > 0);
	assert_row_contains(f, "p", y + 1, "one");
	assert_row_contains(f, "p", y + 2, "two");
	/* and the frame holds: every row of the view ends in its border */
	for (i = 2; i < 22; i++) {
		r = row(f, "p", i);
		if (strlen(r) < 3 || strcmp(r + strlen(r) - 3, "\xe2\x94\x82"))
			fail_msg("row %d does not end in the frame: \"%s\"",
				 i, r);
		free(r);
	}
}

static void test_proposal_map_many(void **state)
{
	struct fixture *f = *state;
	char *c;

	/* fix_pattern takes several codes: the pick is a toggle there, and
	 * still maps and closes the picker */
	propose(f, &f->alice, PROP_ITEM, "fix_pattern", "retry_loop",
		"Retry loop", "The fix wraps a flaky call in retries.");
	ADJ_OK(f, NULL, 30, 120, NULL, "P\nm\n:dump-screen p\n7\n"
	       ":dump-screen a\n");
	assert_dump_contains(f, "p", "fix_pattern (any number of codes");
	/* a digit maps there and closes: the hint offers no toggle */
	assert_dump_contains(f, "p", "or Space map onto, / filter, Esc close");
	assert_dump_lacks(f, "p", "toggle");
	assert_row_contains(f, "a", 29, "mapped: fix_pattern:retry_loop onto "
			    "synchronization (1 label)");
	assert_dump_lacks(f, "a", "(any number of codes");
	assert_dump_contains(f, "a", "0 open proposals");
	assert_sql(f, "SELECT status, decided_code FROM proposals",
		   "mapped,synchronization");
	c = codes_of(f, "alice", PROP_ITEM, "fix_pattern");
	assert_contains(c, "synchronization");
	assert_not_contains(c, "other");
	free(c);
}

static void test_proposals_resize_and_help(void **state)
{
	struct fixture *f = *state;

	two_proposals(f);
	/* a resize lays the view out again; its keys are in the help */
	ADJ_OK(f, NULL, 50, 200, NULL, "P\n:resize 20 70\n:dump-screen s\n"
	       ":resize 24 80\n:dump-screen r\n?\n/Proposed codes (P\n"
	       "<Enter>\n:dump-screen h\n");
	assert_dump_contains(f, "s", "terminal too small: 70x20");
	expect_screen(f, "r", "proposals-80x24.txt");
	assert_dump_contains(f, "h", "(accept-proposal)");
	assert_dump_contains(f, "h", "(map-proposal)");
	assert_dump_contains(f, "h", "(all-proposals)");
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
		T(test_queue_80),
		T(test_queue_200),
		T(test_take_coder_with_rationale),
		T(test_rationale_draft_kept),
		T(test_pick_third_code),
		T(test_pick_many_codes),
		T(test_cause_and_refusals),
		T(test_rationale_editor),
		T(test_moves_on_to_the_end),
		T(test_several_disagreements),
		T(test_settle_discussion),
		T(test_shared_code_at_80),
		T(test_evidence_list_and_jump),
		T(test_evidence_in_the_other_fix),
		T(test_evidence_in_a_pr_description),
		T(test_blind_coders),
		T(test_blind_order_both_ways),
		T(test_owner_turns_blinding_off),
		T(test_three_coders),
		T(test_many_coders),
		T(test_agree_80),
		T(test_agree_200),
		T(test_agree_drift),
		T(test_agree_ascii),
		T(test_agree_gate),
		T(test_agree_from_adjudicator),
		T(test_annotator_refused),
		T(test_annotator_sees_closed_rounds_only),
		T(test_help_and_resize),
		T(test_bench_times_every_key),
		T(test_proposals_80),
		T(test_proposals_200),
		T(test_proposal_accept),
		T(test_proposal_map),
		T(test_proposals_not_for_annotators),
		T(test_proposal_hostile_text),
		T(test_proposal_map_many),
		T(test_proposals_resize_and_help),
#undef T
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
