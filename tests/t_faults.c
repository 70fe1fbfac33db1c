/* SPDX-License-Identifier: MIT */
/*
 * t_faults: a database error is an error, never "no row".
 *
 * SQLite's fault-simulation idea at our scale: every reader and writer
 * runs again and again with an interrupt injected at its Nth virtual
 * machine step, N = 0, 1, 2, ... until it runs through untouched.  The
 * interrupt makes the sqlite3_step() (or prepare) that meets it fail with
 * SQLITE_INTERRUPT, as a disk or lock error would.  Whatever N is, each
 * operation must either fail with an error or give exactly the answer it
 * gives without faults: an access check never says "yes" where the true
 * answer is "no", a list never comes back short, the audit never records
 * a wrong old value, and a refused change leaves the study as it was.
 * The batch writers (core/study/label_batch: `label`, `label --from`, `labels
 * import`) are faulted at every step of their read, check and write.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/study/access.h"
#include "core/study/adjudicate.h"
#include "core/study/consensus.h"
#include "core/study/agreement.h"
#include "core/base/buf.h"
#include "core/study/codebook.h"
#include "core/study/evidence.h"
#include "core/study/evolve.h"
#include "core/study/import.h"
#include "core/study/label.h"
#include "core/study/label_batch.h"
#include "core/study/labels_csv.h"
#include "core/study/machine.h"
#include "core/study/member.h"
#include "core/study/proposal.h"
#include "core/study/recode.h"
#include "core/study/round.h"
#include "core/study/screening.h"
#include "core/store/store.h"
#include "core/study/study.h"
#include "core/study/studyview.h"
#include "exports/export.h"

#define CODEBOOK "codebooks/llm-framework-bugs.json"
#define MAX_STEPS 200000

struct fixture {
	struct store st;
	struct codebook cb;
	char *me;
	struct actor owner, alice, bob, carol, dave;
	long long item[4];	/* 1 and 2 in round r1, 3 in none */
};

/* ---- fault injection ------------------------------------------------- */

struct fault {
	long left;		/* VM steps before the interrupt */
	int hit;		/* the interrupt happened */
};

/* One fault, at step `left`: a transient error such as a busy lock or a
 * failed read, after which the cleanup (ROLLBACK, RELEASE) runs. */
static int on_progress(void *p)
{
	struct fault *f = p;

	if (f->left-- != 0)
		return 0;
	f->hit = 1;
	return 1;
}

static void arm(struct store *st, struct fault *f, long n)
{
	f->left = n;
	f->hit = 0;
	sqlite3_progress_handler(st->db, 1, on_progress, f);
}

static void disarm(struct store *st)
{
	sqlite3_progress_handler(st->db, 0, NULL, NULL);
}

/*
 * Run op(f, data, out) with faults injected after 0, 1, 2 ... steps.
 * `op` returns -1 on an error (and must then have filled its err with a
 * message) or 0 with its answer in `out` (a buf).  Every faulted answer
 * must equal the unfaulted one.  Returns how many runs met a fault.
 */
typedef int (*op_fn)(struct fixture *f, struct buf *out, struct err *e);

static long faultsim(struct fixture *f, const char *what, op_fn op)
{
	struct buf truth = BUF_INIT, got = BUF_INIT;
	struct err e = ERR_INIT;
	struct fault flt;
	long n, faulted = 0;

	if (op(f, &truth, &e) < 0)
		fail_msg("%s: fails without faults: %s", what, e.msg);
	for (n = 0; n < MAX_STEPS; n++) {
		int rc;

		buf_reset(&got);
		memset(&e, 0, sizeof(e));
		arm(&f->st, &flt, n);
		rc = op(f, &got, &e);
		disarm(&f->st);
		if (!flt.hit) {
			assert_int_equal(rc, 0);
			assert_string_equal(got.ptr, truth.ptr);
			break;
		}
		faulted++;
		if (rc < 0) {
			if (!e.msg[0])
				fail_msg("%s: error without a message at "
					 "step %ld", what, n);
			continue;
		}
		if (strcmp(got.ptr, truth.ptr))
			fail_msg("%s: a fault at step %ld answered\n%s\n"
				 "instead of\n%s", what, n, got.ptr,
				 truth.ptr);
	}
	if (n == MAX_STEPS)
		fail_msg("%s: never ran through", what);
	if (!faulted)
		fail_msg("%s: no fault was ever met", what);
	buf_release(&truth);
	buf_release(&got);
	return faulted;
}

/* ---- the study ------------------------------------------------------- */

static long long add_item(struct store *st, int number)
{
	sqlite3_stmt *s = NULL;
	long long id;

	assert_int_equal(sqlite3_prepare_v2(st->db, "INSERT INTO items (repo, "
			 "number, title, imported_at) VALUES ('o/r', ?, 't', "
			 "'x') RETURNING id", -1, &s, NULL), SQLITE_OK);
	sqlite3_bind_int(s, 1, number);
	assert_int_equal(sqlite3_step(s), SQLITE_ROW);
	id = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return id;
}

static void must(int rc, const struct err *e, const char *what)
{
	if (rc < 0)
		fail_msg("%s: %s", what, e->msg);
}

static void code_item(struct fixture *f, const struct actor *a,
		      long long item, const char *symptom, int submit)
{
	static const char *const fixes[] = { "conditional_logic" };
	struct err e = ERR_INIT;
	const char *v;

	v = symptom;
	must(label_set(&f->st, a, &f->cb, item, "symptom", &v, 1, 0, &e), &e,
	     "symptom");
	v = "api_misuse";
	must(label_set(&f->st, a, &f->cb, item, "root_cause", &v, 1, 0, &e),
	     &e, "root_cause");
	must(label_set(&f->st, a, &f->cb, item, "fix_pattern", fixes, 1, 0,
		       &e), &e, "fix_pattern");
	v = "training";
	must(label_set(&f->st, a, &f->cb, item, "phase", &v, 1, 0, &e), &e,
	     "phase");
	must(label_memo(&f->st, a, item, a->name, &e), &e, "memo");
	if (submit)
		must(label_submit(&f->st, a, &f->cb, item, &e), &e, "submit");
}

static int setup(void **state)
{
	struct fixture *f = xcalloc(1, sizeof(*f));
	struct err e = ERR_INIT;
	struct buf json = BUF_INIT;
	const char *ann[] = { "alice", "bob" };
	struct round_spec spec;
	sqlite3_stmt *s;
	int i;

	setenv("BUGCODER_NOW", "2024-06-01T00:00:00Z", 1);
	if (store_open_memory(&f->st, &e) < 0 ||
	    codebook_load_file(&f->cb, CODEBOOK, &e) < 0 ||
	    buf_read_file(&json, CODEBOOK) < 0) {
		print_error("setup: %s\n", e.msg);
		return -1;
	}
	must(study_store_codebook(&f->st, &f->cb, json.ptr, CODEBOOK, "t",
				  NULL, &e), &e, "codebook");
	buf_release(&json);
	/* a fixed secret: runs of a writer must end in the same study */
	must(store_meta_set(&f->st, "coder_salt",
			    "0123456789abcdef0123456789abcdef", &e), &e, "salt");
	f->me = member_os_user();
	s = store_prepare(&f->st, "INSERT INTO members (name, role, "
			  "added_at) VALUES (?, 'owner', 'x')", &e);
	sqlite3_bind_text(s, 1, f->me, -1, SQLITE_STATIC);
	if (sqlite3_step(s) != SQLITE_DONE)
		return -1;
	sqlite3_finalize(s);
	must(member_resolve(&f->st, NULL, &f->owner, &e), &e, "owner");
	must(member_add(&f->st, &f->owner, "alice", ROLE_ANNOTATOR, &e), &e,
	     "alice");
	must(member_add(&f->st, &f->owner, "bob", ROLE_ANNOTATOR, &e), &e,
	     "bob");
	must(member_add(&f->st, &f->owner, "carol", ROLE_ADJUDICATOR, &e),
	     &e, "carol");
	must(member_add(&f->st, &f->owner, "dave", ROLE_ANNOTATOR, &e), &e,
	     "dave");
	must(member_resolve(&f->st, "alice", &f->alice, &e), &e, "alice");
	must(member_resolve(&f->st, "bob", &f->bob, &e), &e, "bob");
	must(member_resolve(&f->st, "carol", &f->carol, &e), &e, "carol");
	must(member_resolve(&f->st, "dave", &f->dave, &e), &e, "dave");
	for (i = 1; i <= 3; i++)
		f->item[i] = add_item(&f->st, i);
	memset(&spec, 0, sizeof(spec));
	spec.name = "r1";
	spec.items = "o/r#1,o/r#2";
	spec.annotators = ann;
	spec.nr_annotators = 2;
	must(round_create(&f->st, &f->owner, &spec, NULL, &e), &e, "round");
	/* item 1: both submitted, they disagree on the symptom; item 2:
	 * alice only */
	code_item(f, &f->alice, f->item[1], "crash", 1);
	code_item(f, &f->bob, f->item[1], "hang", 1);
	code_item(f, &f->alice, f->item[2], "crash", 0);
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
	actor_release(&f->dave);
	codebook_release(&f->cb);
	store_close(&f->st);
	free(f->me);
	free(f);
	return 0;
}

static void close_round(struct fixture *f)
{
	struct err e = ERR_INIT;

	must(round_close(&f->st, &f->owner, "r1", ROUND_FORCE, &e), &e,
	     "close");
}

/* ---- access checks --------------------------------------------------- */

static int may_see_bobs(struct fixture *f, struct buf *out, struct err *e)
{
	int rc = access_may_see(&f->st, &f->alice, f->item[1],
				f->bob.member_id, e);

	if (rc < 0)
		return -1;
	buf_addf(out, "%d", rc);
	return 0;
}

static int load_bobs(struct fixture *f, struct buf *out, struct err *e)
{
	struct coding c;
	int rc = coding_load(&f->st, &f->alice, f->item[1], f->bob.member_id,
			     &c, e);

	/* a refusal is the answer, an error is an error */
	if (rc < 0 && e->code != ERR_PERM)
		return -1;
	if (rc < 0) {
		buf_addstr(out, "refused");
		return 0;
	}
	buf_addf(out, "memo %s", c.memo ? c.memo : "-");
	coding_release(&c);
	return 0;
}

static int dave_may_label(struct fixture *f, struct buf *out,
			  struct err *e)
{
	int rc = label_check_access(&f->st, &f->dave, f->item[1], e);

	if (rc < 0 && e->code != ERR_PERM)
		return -1;
	buf_addstr(out, rc < 0 ? "refused" : "allowed");
	return 0;
}

static void test_access_open_round(void **state)
{
	struct fixture *f = *state;

	faultsim(f, "access_may_see", may_see_bobs);
	faultsim(f, "coding_load", load_bobs);
	faultsim(f, "label_check_access", dave_may_label);
}

static void test_access_closed_round(void **state)
{
	struct fixture *f = *state;

	close_round(f);
	faultsim(f, "access_may_see", may_see_bobs);
	faultsim(f, "coding_load", load_bobs);
	faultsim(f, "label_check_access", dave_may_label);
}

/* ---- lists ----------------------------------------------------------- */

static int add_row(const struct item_row *r, void *data)
{
	buf_addf(data, "%lld:%d:%s;", r->id, r->nr_submitted,
		 r->round ? r->round : "-");
	return 0;
}

static int items_owner(struct fixture *f, struct buf *out, struct err *e)
{
	struct item_filter flt = { PROGRESS_ANY, NULL, NULL };

	return studyview_items(&f->st, &f->owner, &flt, add_row, out, e);
}

static int items_alice(struct fixture *f, struct buf *out, struct err *e)
{
	struct item_filter flt = { PROGRESS_SUBMITTED, "r1", NULL };

	return studyview_items(&f->st, &f->alice, &flt, add_row, out, e);
}

static int status_of(struct fixture *f, const struct actor *a,
		     struct buf *out, struct err *e)
{
	struct study_status s;
	size_t i;

	if (studyview_status(&f->st, a, &s, e) < 0)
		return -1;
	for (i = 0; i < s.nr_repos; i++)
		buf_addf(out, "%s %ld %ld %ld %g;", s.repos[i].repo ?
			 s.repos[i].repo : "all", s.repos[i].items,
			 s.repos[i].fixes, s.repos[i].with_size,
			 s.repos[i].median_comments);
	buf_addf(out, "%ld %ld %d %ld %ld %ld %ld %ld", s.members, s.rounds,
		 s.work_visible, s.labels, s.submissions, s.ready,
		 s.disagreeing, s.agreed);
	study_status_release(&s);
	return 0;
}

static int status_owner(struct fixture *f, struct buf *out, struct err *e)
{
	return status_of(f, &f->owner, out, e);
}

static int status_alice(struct fixture *f, struct buf *out, struct err *e)
{
	return status_of(f, &f->alice, out, e);
}

static int rounds_alice(struct fixture *f, struct buf *out, struct err *e)
{
	struct round_info *v;
	size_t n, i;

	if (round_list_for(&f->st, &f->alice, &v, &n, e) < 0)
		return -1;
	for (i = 0; i < n; i++)
		buf_addf(out, "%s %zu %zu %d %zu;", v[i].name, v[i].nr_items,
			 v[i].nr_complete, v[i].own_only,
			 v[i].nr_annotators);
	round_list_free(v, n);
	return 0;
}

static int add_member(const char *name, const char *role,
		      const char *added_at, void *data)
{
	buf_addf(data, "%s=%s;", name, role);
	return 0;
}

static int members(struct fixture *f, struct buf *out, struct err *e)
{
	return member_each(&f->st, add_member, out, e);
}

static int agreed_all(struct fixture *f, struct buf *out, struct err *e)
{
	struct consensus_iter it;
	int rc, ret = -1;
	size_t d;

	if (consensus_open(&it, &f->st, &f->carol, &f->cb, NULL, e) < 0)
		goto out;
	while ((rc = consensus_next(&it, e)) > 0) {
		buf_addf(out, "%lld r%d", it.item.id, it.item.ready);
		for (d = 0; d < f->cb.nr_dims; d++)
			buf_addf(out, " %d:%s", it.item.dims[d].status,
				 it.item.dims[d].final.ptr);
		buf_addch(out, ';');
	}
	ret = rc;
out:
	consensus_close(&it);
	return ret;
}

static int agreement(struct fixture *f, struct buf *out, struct err *e)
{
	struct agreement ag;
	size_t d;

	if (agreement_compute(&f->st, &f->owner, &f->cb, "r1", NULL, &ag,
			      e) < 0)
		return -1;
	buf_addf(out, "%zu annotators;", ag.nr_annotators);
	for (d = 0; d < ag.nr_dims; d++)
		buf_addf(out, "%s n=%zu;", ag.dims[d].dim->key,
			 ag.dims[d].n_items);
	agreement_release(&ag);
	return 0;
}

static int adjudication(struct fixture *f, struct buf *out, struct err *e)
{
	struct item_state s;
	size_t d;

	if (adjudicate_state(&f->st, &f->carol, &f->cb, f->item[1], &s,
			     e) < 0)
		return -1;
	buf_addf(out, "coders %zu of %zu ready %d settled %d:", s.nr_coders,
		 s.nr_expected, s.ready, s.settled);
	for (d = 0; d < s.nr_dims; d++)
		buf_addf(out, " %d", s.dims[d].status);
	item_state_release(&s);
	return 0;
}

static int queue_carol(struct fixture *f, struct buf *out, struct err *e)
{
	long long *ids;
	size_t nr, i;

	if (adjudicate_queue(&f->st, &f->carol, &f->cb, &ids, &nr, e) < 0)
		return -1;
	buf_addf(out, "queue of %zu:", nr);
	for (i = 0; i < nr; i++)
		buf_addf(out, " %lld", ids[i]);
	free(ids);
	return 0;
}

static int export_raw_carol(struct fixture *f, struct buf *out,
			    struct err *e)
{
	struct export_opts o = EXPORT_OPTS_INIT;
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	int rc;

	rc = export_raw(&f->st, &f->carol, &o, mem, e);
	fclose(mem);
	if (rc == 0)
		buf_add(out, text, len);
	free(text);
	return rc;
}

static void test_lists(void **state)
{
	struct fixture *f = *state;

	faultsim(f, "items (owner)", items_owner);
	faultsim(f, "items (alice)", items_alice);
	faultsim(f, "status (owner)", status_owner);
	faultsim(f, "status (alice)", status_alice);
	faultsim(f, "round list (alice)", rounds_alice);
	faultsim(f, "member list", members);
	faultsim(f, "agreed labels", agreed_all);
	faultsim(f, "agreement", agreement);
	faultsim(f, "adjudicate_state", adjudication);
	faultsim(f, "adjudicator's queue", queue_carol);
	faultsim(f, "export --raw", export_raw_carol);
}

/* ---- writes and the audit -------------------------------------------- */

/* The newest audit row, and the labels, as text. */
static void audit_tail(struct fixture *f, struct buf *out)
{
	sqlite3_stmt *s = NULL;

	assert_int_equal(sqlite3_prepare_v2(f->st.db, "SELECT action, "
			 "ifnull(old, '-'), ifnull(new, '-'), (SELECT "
			 "group_concat(code) FROM labels WHERE item_id = ?1 AND "
			 "dimension = 'symptom') FROM audit ORDER BY id DESC "
			 "LIMIT 1", -1, &s, NULL), SQLITE_OK);
	sqlite3_bind_int64(s, 1, f->item[2]);
	assert_int_equal(sqlite3_step(s), SQLITE_ROW);
	buf_addf(out, "%s %s -> %s [%s]", sqlite3_column_text(s, 0),
		 sqlite3_column_text(s, 1), sqlite3_column_text(s, 2),
		 sqlite3_column_text(s, 3));
	sqlite3_finalize(s);
}

static void test_label_write(void **state)
{
	struct fixture *f = *state;
	struct buf before = BUF_INIT, after = BUF_INIT;
	const char *v = "hang";
	const char *saved = "label crash -> hang [hang]";
	struct fault flt;
	long n;

	audit_tail(f, &before);
	for (n = 0; n < MAX_STEPS; n++) {
		struct err e = ERR_INIT;
		int rc;

		arm(&f->st, &flt, n);
		rc = label_set(&f->st, &f->alice, &f->cb, f->item[2],
			       "symptom", &v, 1, 0, &e);
		disarm(&f->st);
		buf_reset(&after);
		audit_tail(f, &after);
		if (rc < 0) {
			/* refused: the reason said, and either nothing
			 * changed or (a COMMIT interrupted after it took
			 * effect) the whole change with its true audit row:
			 * never a part of it */
			if (!flt.hit)
				fail_msg("refused without a fault: %s", e.msg);
			assert_true(e.msg[0] != '\0');
			if (strcmp(after.ptr, before.ptr))
				assert_string_equal(after.ptr, saved);
			continue;
		}
		/* saved: the audit has the true old value */
		assert_string_equal(after.ptr, saved);
		break;
	}
	assert_true(n > 0 && n < MAX_STEPS);
	buf_release(&before);
	buf_release(&after);
}

/* ---- every writer: all of it or nothing -------------------------------- */

/* Every row of every table of `st`, as text (audit included). */
static void dump_study(struct store *st, struct buf *out)
{
	sqlite3_stmt *t = NULL, *r = NULL;
	struct buf sql = BUF_INIT;

	assert_int_equal(sqlite3_prepare_v2(st->db, "SELECT name FROM "
			 "sqlite_schema WHERE type = 'table' AND name NOT "
			 "LIKE 'sqlite_%' ORDER BY name", -1, &t, NULL),
			 SQLITE_OK);
	while (sqlite3_step(t) == SQLITE_ROW) {
		int i, n;

		buf_reset(&sql);
		buf_addf(&sql, "SELECT * FROM \"%s\"",
			 (const char *)sqlite3_column_text(t, 0));
		assert_int_equal(sqlite3_prepare_v2(st->db, sql.ptr, -1, &r,
						    NULL), SQLITE_OK);
		buf_addf(out, "[%s]\n", (const char *)sqlite3_column_text(t, 0));
		while (sqlite3_step(r) == SQLITE_ROW) {
			n = sqlite3_column_count(r);
			for (i = 0; i < n; i++) {
				const unsigned char *v = sqlite3_column_text(r, i);

				buf_addf(out, "%s%s", i ? "|" : "",
					 v ? (const char *)v : "NULL");
			}
			buf_addch(out, '\n');
		}
		sqlite3_finalize(r);
	}
	sqlite3_finalize(t);
	buf_release(&sql);
}

/* A copy of the fixture's study in memory, to write on; `warm`: with its
 * schema read, as a study is once opened (study_open() reads it), so
 * that a fault meets the writer's own statements. */
static void clone_study_as(struct fixture *f, struct store *c, int warm)
{
	struct err e = ERR_INIT;
	sqlite3_backup *b;

	/* no schema of its own: the backup brings it */
	assert_int_equal(store_open_bare(c, &e), 0);
	assert_int_equal(store_exec(c, "PRAGMA foreign_keys = ON", &e), 0);
	b = sqlite3_backup_init(c->db, "main", f->st.db, "main");
	assert_non_null(b);
	assert_int_equal(sqlite3_backup_step(b, -1), SQLITE_DONE);
	assert_int_equal(sqlite3_backup_finish(b), SQLITE_OK);
	if (warm)
		assert_int_equal(sqlite3_exec(c->db, "SELECT 1 FROM "
					      "sqlite_schema LIMIT 1", NULL,
					      NULL, NULL), SQLITE_OK);
}

typedef int (*write_fn)(struct fixture *f, struct store *st, struct err *e);

/* For the reader of a failure: the three states, side by side. */
static void save_dumps(const char *what, const struct buf *before,
		       const struct buf *after, const struct buf *got)
{
	const struct buf *b[3] = { before, after, got };
	const char *name[3] = { "before", "after", "got" };
	int i;

	(void)what;
	if (system("mkdir -p tests/tmp") != 0)
		return;
	for (i = 0; i < 3; i++) {
		char path[64];
		FILE *fp;

		snprintf(path, sizeof(path), "tests/tmp/faults-%s.txt",
			 name[i]);
		if ((fp = fopen(path, "w"))) {
			fputs(b[i]->ptr, fp);
			fclose(fp);
		}
	}
}

/* A study's state: its pages as SQLite serializes them (cheap to take
 * and compare: the same bytes are the same study), and its rows as text
 * (dump_study()) for when the pages differ, as the same rows may lie in
 * other pages. */
static long nr_dumps;	/* pages differed: rows compared */

struct state {
	unsigned char *img;
	sqlite3_int64 len;
	struct buf rows;
};

#define STATE_INIT { NULL, 0, BUF_INIT }

static void state_take(struct store *st, struct state *s)
{
	sqlite3_free(s->img);
	s->img = sqlite3_serialize(st->db, "main", &s->len, 0);
	assert_non_null(s->img);
	buf_reset(&s->rows);
	dump_study(st, &s->rows);
}

static void state_release(struct state *s)
{
	sqlite3_free(s->img);
	s->img = NULL;
	buf_release(&s->rows);
}

static int same_pages(const unsigned char *img, sqlite3_int64 len,
		      const struct state *s)
{
	return len == s->len && !memcmp(img, s->img, (size_t)len);
}

/* The VM steps `op` takes on a fresh copy of the study without a fault
 * (schema read or not), its answer in *rc and `e`, the study it leaves
 * in `out`. */
static long count_steps(struct fixture *f, write_fn op, int warm, int *rc,
			struct err *e, struct state *out)
{
	struct store c;
	struct fault flt;

	clone_study_as(f, &c, warm);
	arm(&c, &flt, LONG_MAX);
	*rc = op(f, &c, e);
	disarm(&c);
	assert_false(flt.hit);
	if (out)
		state_take(&c, out);
	store_close(&c);
	return LONG_MAX - flt.left;
}

/* With T_FAULTS_VERBOSE set: what each writer cost. */
static void report(const char *what, long steps, long runs,
		   const struct timespec *t0)
{
	struct timespec t1;

	if (!getenv("T_FAULTS_VERBOSE"))
		return;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	fprintf(stderr, "# %-40s %5ld steps %5ld faulted runs (%ld by rows) "
		"%5.2f s\n", what, steps, runs, nr_dumps, (double)(t1.tv_sec -
		t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9);
	nr_dumps = 0;
}

/*
 * A fault at step n of `op` on a fresh copy of the study: it must end as
 * it does without a fault (`want`, `after`), or refuse with a message and
 * leave the study exactly as it was (or, when a COMMIT was interrupted
 * after it took effect, exactly as the whole change leaves it: never a
 * part of it).  Returns whether the fault was met.
 */
static int fault_at(struct fixture *f, const char *what, write_fn op,
		    int want, int warm, long n, const struct state *before,
		    const struct state *after)
{
	struct buf rows = BUF_INIT;
	struct store c;
	struct err e = ERR_INIT;
	struct fault flt;
	unsigned char *img;
	sqlite3_int64 len;
	int rc, is_before, is_after;

	clone_study_as(f, &c, warm);
	arm(&c, &flt, n);
	rc = op(f, &c, &e);
	disarm(&c);
	img = sqlite3_serialize(c.db, "main", &len, 0);
	assert_non_null(img);
	is_before = same_pages(img, len, before);
	is_after = !is_before && same_pages(img, len, after);
	if (!is_before && !is_after) {
		dump_study(&c, &rows);
		nr_dumps++;
		is_before = !strcmp(rows.ptr, before->rows.ptr);
		is_after = !strcmp(rows.ptr, after->rows.ptr);
	}
	store_close(&c);
	sqlite3_free(img);
	if (!flt.hit) {
		assert_int_equal(rc, want);
		if (!is_after && !(want < 0 && is_before))
			fail_msg("%s: without a fault it saved a different "
				 "study", what);
	} else if (rc < 0) {
		if (!e.msg[0])
			fail_msg("%s: refused without a message at step %ld%s",
				 what, n, warm ? "" : " (reading the schema)");
		if (!is_before && !is_after) {
			save_dumps(what, &before->rows, &after->rows, &rows);
			fail_msg("%s: a fault at step %ld%s left part of the "
				 "change (tests/tmp/faults-*.txt): %s", what,
				 n, warm ? "" : " (reading the schema)", e.msg);
		}
	} else if (want < 0) {
		fail_msg("%s: a fault at step %ld let through what is refused "
			 "without it", what, n);
	} else if (!is_after) {
		save_dumps(what, &before->rows, &after->rows, &rows);
		fail_msg("%s: a fault at step %ld saved a different study "
			 "(tests/tmp/faults-*.txt)", what, n);
	}
	buf_release(&rows);
	return flt.hit;
}

/* Faults while the first statement reads the schema: every so many. */
#define SCHEMA_STRIDE 64

/*
 * Run the writer `op` on a fresh copy of the study with a fault at each
 * of its steps in turn, 0, 1, 2 ... until it runs untouched; each must
 * end as fault_at() says.  The copy has its schema read (as an opened
 * study has), so every step is one of the writer's; the steps where its
 * first statement reads the schema of a copy that has not are faulted
 * too, one in SCHEMA_STRIDE.  Without a fault `op` gives `want` (0 done,
 * -1 refused, the study as it was).  Returns the faulted runs.
 */
static long faultsim_write(struct fixture *f, const char *what, write_fn op,
			   int want)
{
	struct state before = STATE_INIT, after = STATE_INIT;
	struct store c;
	struct err e = ERR_INIT;
	struct timespec t0;
	long n, steps, cold, faulted = 0;
	int rc;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	clone_study_as(f, &c, 1);
	state_take(&c, &before);
	store_close(&c);
	steps = count_steps(f, op, 1, &rc, &e, &after);
	if (rc != want)
		fail_msg("%s: without faults it %s: %s", what, rc < 0 ?
			 "refused" : "went through", e.msg);
	if (want < 0)
		assert_string_equal(after.rows.ptr, before.rows.ptr);
	for (n = 0; n < steps; n++) {
		if (!fault_at(f, what, op, want, 1, n, &before, &after))
			fail_msg("%s: no fault met at step %ld of %ld", what,
				 n, steps);
		faulted++;
	}
	/* and the step count was right: past it, nothing is met */
	if (fault_at(f, what, op, want, 1, steps, &before, &after))
		fail_msg("%s: a fault met past the last step", what);
	if (!faulted)
		fail_msg("%s: no fault was ever met", what);
	/* the schema read at the first statement */
	memset(&e, 0, sizeof(e));
	cold = count_steps(f, op, 0, &rc, &e, NULL) - steps;
	assert_true(cold > 0);
	for (n = 0; n < cold; n += SCHEMA_STRIDE) {
		assert_true(fault_at(f, what, op, want, 0, n, &before,
				     &after));
		faulted++;
	}
	report(what, steps, faulted, &t0);
	state_release(&before);
	state_release(&after);
	return faulted;
}

static int update_codebook(struct fixture *f, struct store *st,
			   struct err *e)
{
	struct update_stats us;
	int rc;

	memset(&us, 0, sizeof(us));
	rc = codebook_update(st, &f->owner, "tests/fixtures/faults/"
			     "llm-2.0.json", NULL, 0, &us, e);
	free(us.orphans);
	free(us.first_orphan);
	return rc;
}

/* a code labels use, dropped without a map: refused, whatever fails */
static int update_drops_used_code(struct fixture *f, struct store *st,
				  struct err *e)
{
	struct update_stats us;
	int rc;

	memset(&us, 0, sizeof(us));
	rc = codebook_update(st, &f->owner, "tests/fixtures/faults/"
			     "llm-2.1-no-hang.json", NULL, 0, &us, e);
	free(us.orphans);
	free(us.first_orphan);
	return rc;
}

static int update_with_map(struct fixture *f, struct store *st,
			   struct err *e)
{
	struct code_map m = { "symptom", "hang", "crash" };
	struct update_stats us;
	int rc;

	memset(&us, 0, sizeof(us));
	rc = codebook_update(st, &f->owner, "tests/fixtures/faults/"
			     "llm-2.1-no-hang.json", &m, 1, &us, e);
	free(us.orphans);
	free(us.first_orphan);
	return rc;
}

static int add_member_eve(struct fixture *f, struct store *st,
			  struct err *e)
{
	return member_add(st, &f->owner, "eve", ROLE_ADJUDICATOR, e);
}

static int remove_member_carol(struct fixture *f, struct store *st,
			       struct err *e)
{
	return member_remove(st, &f->owner, "carol", e);
}

static int close_r1(struct fixture *f, struct store *st, struct err *e)
{
	return round_close(st, &f->owner, "r1", ROUND_FORCE, e);
}

static int resolve_item1(struct fixture *f, struct store *st,
			 struct err *e)
{
	const char *v = "hang";

	return adjudicate_resolve(st, &f->carol, &f->cb, f->item[1],
				  "symptom", &v, 1, "the process waits",
				  "slip", e);
}

static int memo_item2(struct fixture *f, struct store *st, struct err *e)
{
	return label_memo(st, &f->alice, f->item[2], "a second look", e);
}

static int create_r2(struct fixture *f, struct store *st, struct err *e)
{
	const char *ann[] = { "alice", "bob" };
	struct round_spec spec;

	(void)f;
	memset(&spec, 0, sizeof(spec));
	spec.name = "r2";
	spec.items = "o/r#3";
	spec.annotators = ann;
	spec.nr_annotators = 2;
	return round_create(st, &f->owner, &spec, NULL, e);
}

static int add_item3(struct fixture *f, struct store *st, struct err *e)
{
	return round_add_items(st, &f->owner, "r1", &f->item[3], 1, e);
}

/* both in one transaction: each call's own is a level inside it */
static int close_reopen_r1(struct fixture *f, struct store *st,
			   struct err *e)
{
	if (store_begin(st, e) < 0)
		return -1;
	if (round_close(st, &f->owner, "r1", ROUND_FORCE, e) < 0 ||
	    round_reopen(st, &f->owner, "r1", ROUND_FORCE, e) < 0) {
		store_rollback(st);
		return -1;
	}
	return store_commit(st, e);
}

static int settle_item1(struct fixture *f, struct store *st, struct err *e)
{
	return adjudicate_settle(st, &f->carol, f->item[1], "settled as is",
				 e);
}

/* two dimensions in one transaction, the second refused: the first,
 * saved in its own level, goes too */
static int resolve_all_refused(struct fixture *f, struct store *st,
			       struct err *e)
{
	const char *v = "hang", *bad = "no_such_code";
	const struct resolve_dim d[] = {
		{ "symptom", &v, 1 },
		{ "symptom", &bad, 1 },
	};

	return adjudicate_resolve_all(st, &f->carol, &f->cb, f->item[1], d,
				      2, "the process waits", "slip", e);
}

static void test_writers(void **state)
{
	struct fixture *f = *state;

	faultsim_write(f, "codebook update", update_codebook, 0);
	faultsim_write(f, "codebook update dropping a used code",
		       update_drops_used_code, -1);
	faultsim_write(f, "codebook update with a map", update_with_map, 0);
	faultsim_write(f, "member add", add_member_eve, 0);
	faultsim_write(f, "member remove", remove_member_carol, 0);
	faultsim_write(f, "round close", close_r1, 0);
	faultsim_write(f, "resolve", resolve_item1, 0);
	faultsim_write(f, "memo", memo_item2, 0);
	faultsim_write(f, "round create", create_r2, 0);
	faultsim_write(f, "round add", add_item3, 0);
	faultsim_write(f, "round close and reopen", close_reopen_r1, 0);
	faultsim_write(f, "settle", settle_item1, 0);
	faultsim_write(f, "resolve, all or none", resolve_all_refused, -1);
}

static void test_role_change_refusal(void **state)
{
	struct fixture *f = *state;
	struct fault flt;
	long n;

	/* alice annotates the open round: the change is refused whether
	 * or not the check meets a fault, never let through */
	for (n = 0; n < MAX_STEPS; n++) {
		struct err e = ERR_INIT;
		int rc;

		arm(&f->st, &flt, n);
		rc = member_add(&f->st, &f->owner, "alice", ROLE_ADJUDICATOR,
				&e);
		disarm(&f->st);
		assert_int_equal(rc, -1);
		if (!flt.hit) {
			if (!strstr(e.msg, "open round r1"))
				fail_msg("%s", e.msg);
			break;
		}
	}
	assert_true(n > 0 && n < MAX_STEPS);
}

/* Every row a batch writes, as text. */
static void rows(struct fixture *f, struct buf *out)
{
	static const char *const sql[] = {
		"SELECT item_id, member_id, dimension, code, labeled_at FROM "
		"labels ORDER BY 1, 2, 3, 4",
		"SELECT item_id, member_id FROM submissions ORDER BY 1, 2",
		"SELECT id, action, ifnull(old, '-'), ifnull(new, '-'), hash "
		"FROM audit ORDER BY id",
	};
	size_t i;

	buf_reset(out);
	for (i = 0; i < 3; i++) {
		sqlite3_stmt *s = NULL;
		int c;

		assert_int_equal(sqlite3_prepare_v2(f->st.db, sql[i], -1, &s,
						    NULL), SQLITE_OK);
		while (sqlite3_step(s) == SQLITE_ROW) {
			for (c = 0; c < sqlite3_column_count(s); c++)
				buf_addf(out, "%s|", (const char *)
					 sqlite3_column_text(s, c));
			buf_addch(out, '\n');
		}
		sqlite3_finalize(s);
	}
}

/* A writer run with a fault at each step in turn: refused with a reason
 * and the study as it was (or, a COMMIT interrupted after it took
 * effect, the whole change), until it runs through and makes the whole
 * change.  `write` returns 0 or -1 with `e` filled. */
static void faulted_writes(struct fixture *f, const char *what,
			   int (*write)(struct fixture *f, struct err *e))
{
	struct buf before = BUF_INIT, after = BUF_INIT, saved = BUF_INIT;
	struct buf truth = BUF_INIT;
	struct err te = ERR_INIT;
	struct fault flt;
	long n;

	rows(f, &before);
	/* the whole change, made once inside a transaction and undone */
	must(store_begin(&f->st, &te), &te, "begin");
	must(write(f, &te), &te, what);
	rows(f, &truth);
	store_rollback(&f->st);
	rows(f, &after);
	assert_string_equal(after.ptr, before.ptr);
	for (n = 0; n < MAX_STEPS; n++) {
		struct err e = ERR_INIT;
		int rc;

		arm(&f->st, &flt, n);
		rc = write(f, &e);
		disarm(&f->st);
		rows(f, &after);
		if (rc < 0) {
			if (!flt.hit)
				fail_msg("%s: refused without a fault: %s",
					 what, e.msg);
			if (!e.msg[0])
				fail_msg("%s: no reason at step %ld", what, n);
			/* nothing, or (a COMMIT that took effect before
			 * its fault) the whole change: never a part */
			if (strcmp(after.ptr, before.ptr) &&
			    strcmp(after.ptr, truth.ptr))
				fail_msg("%s: a fault at step %ld left a part "
					 "of the change:\n%s", what, n,
					 after.ptr);
			if (strcmp(after.ptr, before.ptr))
				buf_addstr(&saved, "x");
			continue;
		}
		break;
	}
	assert_true(n > 0 && n < MAX_STEPS);
	/* made, or made already by a COMMIT that took effect */
	if (!saved.len)
		assert_string_equal(after.ptr, truth.ptr);
	buf_release(&truth);
	buf_release(&before);
	buf_release(&after);
	buf_release(&saved);
}

static int batch_alice(struct fixture *f, struct err *e)
{
	static const char *const hang[] = { "hang" };
	static const char *const inference[] = { "inference" };
	struct label_op ops[3];

	memset(ops, 0, sizeof(ops));
	ops[0].kind = LABEL_OP_SET;
	ops[0].item = "o/r#2";
	ops[0].dim = "symptom";
	ops[0].codes = hang;
	ops[0].nr_codes = 1;
	ops[1] = ops[0];
	ops[1].dim = "phase";
	ops[1].codes = inference;
	ops[2].kind = LABEL_OP_SUBMIT;
	ops[2].item_id = f->item[2];
	return label_batch(&f->st, &f->alice, &f->cb, ops, 3, e);
}

static int import_bob(struct fixture *f, struct err *e)
{
	struct labels_import_stats stats;
	char path[] = "/tmp/t_faults.XXXXXX";
	int fd = mkstemp(path), rc;
	FILE *out = fd >= 0 ? fdopen(fd, "w") : NULL;

	assert_non_null(out);
	fputs("item,annotator,dimension,code\n"
	      "o/r#2,bob,symptom,crash\n"
	      "o/r#2,bob,root_cause,api_misuse\n"
	      "o/r#2,bob,fix_pattern,conditional_logic\n"
	      "o/r#2,bob,phase,training\n", out);
	fclose(out);
	rc = labels_import(&f->st, &f->bob, &f->cb, path, 1, &stats, e);
	unlink(path);
	return rc;
}

static void test_batch_writes(void **state)
{
	struct fixture *f = *state;

	faulted_writes(f, "label batch", batch_alice);
	faulted_writes(f, "labels import", import_bob);
}

/* ---- more writers: labels import, evidence, screening, recodes, memos,
 * machine answers -------------------------------------------------------- */

/* The sheet the import writers read, written once per test. */
static char sheet[64];

static void write_sheet(const char *text)
{
	int fd;
	FILE *out;

	if (sheet[0])
		unlink(sheet);
	snprintf(sheet, sizeof(sheet), "/tmp/t_faults.XXXXXX");
	fd = mkstemp(sheet);
	out = fd >= 0 ? fdopen(fd, "w") : NULL;
	assert_non_null(out);
	fputs(text, out);
	assert_int_equal(fclose(out), 0);
}

static void drop_sheet(void)
{
	if (sheet[0])
		unlink(sheet);
	sheet[0] = '\0';
}

static int import_sheet_bob(struct fixture *f, struct store *st,
			    struct err *e)
{
	struct labels_import_stats stats;

	return labels_import(st, &f->bob, &f->cb, sheet, 1, &stats, e);
}

static int import_sheet_owner(struct fixture *f, struct store *st,
			      struct err *e)
{
	struct labels_import_stats stats;

	return labels_import_round(st, &f->owner, &f->cb, sheet, 0, NULL,
				   "r1", &stats, e);
}

static int import_sheet_wide(struct fixture *f, struct store *st,
			     struct err *e)
{
	struct labels_import_stats stats;

	return labels_import_opts(st, &f->owner, &f->cb, sheet, 1, "bob",
				  &stats, e);
}

static void test_import_writes(void **state)
{
	struct fixture *f = *state;

	/* bob's four dimensions of item 2, submitted */
	write_sheet("item,annotator,dimension,code\n"
		    "o/r#2,bob,symptom,crash\n"
		    "o/r#2,bob,root_cause,api_misuse\n"
		    "o/r#2,bob,fix_pattern,conditional_logic\n"
		    "o/r#2,bob,fix_pattern,parameter_handling\n"
		    "o/r#2,bob,phase,training\n");
	faultsim_write(f, "labels import", import_sheet_bob, 0);
	/* the owner's, for two annotators, item 3 put into r1 on the way
	 * in, alice's submitted by its submitted_at */
	write_sheet("item,annotator,dimension,code,codebook_version,"
		    "labeled_at,submitted_at\n"
		    "o/r#3,alice,symptom,hang,1.0,2024-01-01T00:00:00Z,"
		    "2024-01-02T00:00:00Z\n"
		    "o/r#3,alice,root_cause,api_misuse,1.0,"
		    "2024-01-01T00:00:00Z,2024-01-02T00:00:00Z\n"
		    "o/r#3,alice,fix_pattern,conditional_logic,1.0,"
		    "2024-01-01T00:00:00Z,2024-01-02T00:00:00Z\n"
		    "o/r#3,alice,phase,inference,1.0,2024-01-01T00:00:00Z,"
		    "2024-01-02T00:00:00Z\n"
		    "o/r#3,bob,symptom,crash,1.0,2024-01-01T00:00:00Z,\n"
		    "o/r#1,bob,phase,inference,1.0,2024-01-01T00:00:00Z,\n");
	faultsim_write(f, "labels import --round r1", import_sheet_owner, 0);
	/* the wide shape, for bob */
	write_sheet("issue,Symptom,root_cause,fix_pattern,phase\n"
		    "https://github.com/o/r/issues/2,crash,api_misuse,"
		    "conditional_logic;parameter_handling,training\n");
	faultsim_write(f, "labels import (wide)", import_sheet_wide, 0);
	/* refused as a whole: item 3 is in no round (read, checked, and
	 * the first row's item 2 is fine) */
	write_sheet("item,annotator,dimension,code\n"
		    "o/r#2,bob,symptom,crash\n"
		    "o/r#3,bob,symptom,crash\n");
	faultsim_write(f, "labels import refused", import_sheet_bob, -1);
	drop_sheet();
}

/* Item 2 has an issue text to cite; `cite` is parsed from `spec`. */
static void give_text(struct fixture *f)
{
	assert_int_equal(sqlite3_exec(f->st.db, "UPDATE items SET body = "
		"'first line\nsecond line\nthird line' WHERE number = 2",
		NULL, NULL, NULL), SQLITE_OK);
}

static long long cite(struct fixture *f, struct store *st,
		      const char *dim, const char *spec, struct err *e)
{
	struct evidence_cite c;
	long long id = 0;
	int rc;

	if (evidence_parse(spec, &c, e) < 0)
		return -1;
	rc = evidence_add(st, &f->alice, &f->cb, f->item[2], dim, &c, &id,
			  e);
	evidence_cite_release(&c);
	return rc < 0 ? -1 : id;
}

static int cite_body(struct fixture *f, struct store *st, struct err *e)
{
	return cite(f, st, "symptom", "issue:body:1-2", e) < 0 ? -1 : 0;
}

/* lines the issue has not: refused after every read */
static int cite_past_end(struct fixture *f, struct store *st,
			 struct err *e)
{
	return cite(f, st, "symptom", "issue:body:3-5", e) < 0 ? -1 : 0;
}

static long long evidence_id;

static int uncite_one(struct fixture *f, struct store *st, struct err *e)
{
	return evidence_remove(st, &f->alice, f->item[2], evidence_id, e);
}

static int uncite_symptom(struct fixture *f, struct store *st,
			  struct err *e)
{
	size_t n = 0;

	if (evidence_remove_dim(st, &f->alice, f->item[2], "symptom", &n,
				e) < 0)
		return -1;
	assert_int_equal(n, 2);
	return 0;
}

static void test_evidence_writes(void **state)
{
	struct fixture *f = *state;
	struct err e = ERR_INIT;

	give_text(f);
	faultsim_write(f, "evidence add", cite_body, 0);
	faultsim_write(f, "evidence add refused", cite_past_end, -1);
	evidence_id = cite(f, &f->st, "symptom", "issue:body:1", &e);
	must((int)evidence_id, &e, "cite");
	must((int)cite(f, &f->st, "symptom", "issue:body:2-3", &e), &e,
	     "cite");
	must((int)cite(f, &f->st, "phase", "issue:body:3", &e), &e, "cite");
	faultsim_write(f, "evidence remove", uncite_one, 0);
	faultsim_write(f, "evidence remove (a dimension's)", uncite_symptom,
		       0);
}

/* Item 3 is screened in round s1 by alice and bob. */
static void screening_round(struct fixture *f)
{
	const char *ann[] = { "alice", "bob" };
	struct round_spec spec;
	struct err e = ERR_INIT;

	memset(&spec, 0, sizeof(spec));
	spec.name = "s1";
	spec.items = "o/r#3";
	spec.annotators = ann;
	spec.nr_annotators = 2;
	spec.screen = 1;
	must(round_create(&f->st, &f->owner, &spec, NULL, &e), &e, "s1");
}

static int screen_as(struct fixture *f, struct store *st,
		     const struct actor *a, const char *code, struct err *e)
{
	return label_set(st, a, &f->cb, f->item[3], SCREENING_DIM, &code, 1,
			 0, e);
}

static int screen_alice(struct fixture *f, struct store *st, struct err *e)
{
	return screen_as(f, st, &f->alice, "include", e);
}

static int screen_alice_bad(struct fixture *f, struct store *st,
			    struct err *e)
{
	return screen_as(f, st, &f->alice, "no_such_reason", e);
}

static int screen_submit_alice(struct fixture *f, struct store *st,
			       struct err *e)
{
	return label_submit(st, &f->alice, &f->cb, f->item[3], e);
}

static int screen_memo_bob(struct fixture *f, struct store *st,
			   struct err *e)
{
	return label_memo(st, &f->bob, f->item[3], "looks like #1 again", e);
}

static int screen_resolve(struct fixture *f, struct store *st,
			  struct err *e)
{
	return screening_resolve(st, &f->carol, f->item[3], "duplicate",
				 "the same as #1", "slip", e);
}

static int screen_close(struct fixture *f, struct store *st, struct err *e)
{
	return round_close(st, &f->owner, "s1", ROUND_FORCE, e);
}

static int screen_reopen(struct fixture *f, struct store *st,
			 struct err *e)
{
	return round_reopen(st, &f->owner, "s1", ROUND_FORCE, e);
}

static void test_screening_writes(void **state)
{
	struct fixture *f = *state;
	struct err e = ERR_INIT;

	screening_round(f);
	faultsim_write(f, "screening answer", screen_alice, 0);
	faultsim_write(f, "screening answer refused", screen_alice_bad, -1);
	must(screen_alice(f, &f->st, &e), &e, "alice screens");
	faultsim_write(f, "screening submit", screen_submit_alice, 0);
	faultsim_write(f, "screening memo", screen_memo_bob, 0);
	must(screen_submit_alice(f, &f->st, &e), &e, "alice submits");
	must(screen_as(f, &f->st, &f->bob, "include", &e), &e, "bob screens");
	must(label_submit(&f->st, &f->bob, &f->cb, f->item[3], &e), &e,
	     "bob submits");
	/* both said include: the close decides it, agreed */
	faultsim_write(f, "screening decision (adjudicated)", screen_resolve,
		       0);
	faultsim_write(f, "screening round close (agreed)", screen_close, 0);
	must(screen_close(f, &f->st, &e), &e, "close s1");
	faultsim_write(f, "screening round reopen (undecided)",
		       screen_reopen, 0);
}

/* root_cause:api_misuse split in two: alice's and bob's labels of item
 * 1 (r1 closed) and alice's of item 2 go back to be recoded, carol's
 * resolution on it is taken back. */
#define SPLIT_CODEBOOK "tests/fixtures/faults/llm-2.2-split.json"

static struct code_split split;
static char *split_copy;
static struct codebook split_cb;

static int split_api_misuse(struct fixture *f, struct store *st,
			    struct err *e)
{
	struct update_stats us;
	int rc;

	memset(&us, 0, sizeof(us));
	rc = codebook_update_split(st, &f->owner, SPLIT_CODEBOOK, NULL, 0,
				   &split, 1, &us, e);
	free(us.orphans);
	free(us.first_orphan);
	if (!rc)
		assert_true(us.recodes == 3 && us.reopened == 1);
	return rc;
}

static int recode_as(struct store *st, const struct actor *a,
		     long long item, const char *code, struct err *e)
{
	return label_set(st, a, &split_cb, item, "root_cause", &code, 1, 0,
			 e);
}

static int recode_alice(struct fixture *f, struct store *st, struct err *e)
{
	return recode_as(st, &f->alice, f->item[1], "api_call_error", e);
}

/* only the new codes */
static int recode_alice_bad(struct fixture *f, struct store *st,
			    struct err *e)
{
	return recode_as(st, &f->alice, f->item[1], "concurrency", e);
}

static void test_recode_writes(void **state)
{
	struct fixture *f = *state;
	struct err e = ERR_INIT;
	const char *v = "api_misuse";

	must(adjudicate_resolve(&f->st, &f->carol, &f->cb, f->item[1],
				"root_cause", &v, 1, "as both said", NULL, &e),
	     &e, "resolve");
	close_round(f);
	must(code_split_parse("root_cause:api_misuse=api_call_error,"
			      "api_contract_change", &f->cb, &split,
			      &split_copy, &e), &e, "split");
	faultsim_write(f, "codebook update --split", split_api_misuse, 0);
	must(split_api_misuse(f, &f->st, &e), &e, "split");
	must(codebook_load_file(&split_cb, SPLIT_CODEBOOK, &e), &e, "load");
	faultsim_write(f, "recode", recode_alice, 0);
	faultsim_write(f, "recode refused", recode_alice_bad, -1);
	codebook_release(&split_cb);
	free(split.to);
	free(split_copy);
}

static int memo_clear(struct fixture *f, struct store *st, struct err *e)
{
	return label_memo(st, &f->alice, f->item[2], "", e);
}

/* dave annotates no round of item 1 */
static int memo_refused(struct fixture *f, struct store *st, struct err *e)
{
	return label_memo(st, &f->dave, f->item[1], "not mine", e);
}

static int flag_item2(struct fixture *f, struct store *st, struct err *e)
{
	return label_flag(st, &f->alice, f->item[2], "discuss", 1, e);
}

static void test_memo_writes(void **state)
{
	struct fixture *f = *state;

	faultsim_write(f, "memo changed", memo_item2, 0);
	faultsim_write(f, "memo removed", memo_clear, 0);
	faultsim_write(f, "memo refused", memo_refused, -1);
	faultsim_write(f, "flag", flag_item2, 0);
}

/* A machine coder's answer, as machine-code stores it once the command
 * answered (the command itself is not run: its answer is given). */
static struct actor gpt;
static struct machine_answer answer = MACHINE_ANSWER_INIT;
static struct machine_prov prov;
static const char raw_answer[] = "{\"labels\": {\"symptom\": \"hang\", "
	"\"root_cause\": [\"api_misuse\"], \"fix_pattern\": "
	"[\"conditional_logic\", \"parameter_handling\"], \"phase\": "
	"\"training\"}, \"rationale\": \"it waits\", \"model\": \"m-1\"}";

static int store_answer(struct fixture *f, struct store *st, long long item,
			struct err *e)
{
	return machine_store(st, &f->owner, &gpt, &f->cb, item, &answer,
			     raw_answer, strlen(raw_answer), &prov, e);
}

static int answer_item1(struct fixture *f, struct store *st, struct err *e)
{
	return store_answer(f, st, f->item[1], e);
}

/* a machine codes the items of rounds only */
static int answer_item3(struct fixture *f, struct store *st, struct err *e)
{
	return store_answer(f, st, f->item[3], e);
}

static void test_machine_writes(void **state)
{
	struct fixture *f = *state;
	struct err e = ERR_INIT;
	enum role role;

	must(member_add(&f->st, &f->owner, "gpt", ROLE_MACHINE, &e), &e,
	     "gpt");
	memset(&gpt, 0, sizeof(gpt));
	must(member_find(&f->st, "gpt", &gpt.member_id, &role, &e), &e,
	     "gpt");
	gpt.name = xstrdup("gpt");
	gpt.os_user = xstrdup(f->owner.os_user);
	gpt.role = ROLE_MACHINE;
	gpt.acting_for = 1;
	must(machine_parse(&f->cb, raw_answer, strlen(raw_answer), &answer,
			   &e), &e, "parse");
	memset(&prov, 0, sizeof(prov));
	prov.command = "./coder --fast";
	prov.model = answer.model;
	prov.note = "pilot";
	memset(prov.input_sha, 'a', SHA256_HEX_LEN);
	memset(prov.answer_sha, 'b', SHA256_HEX_LEN);
	prov.ms = 1234;
	faultsim_write(f, "machine answer", answer_item1, 0);
	faultsim_write(f, "machine answer refused", answer_item3, -1);
	machine_answer_release(&answer);
	actor_release(&gpt);
}

/* ---- backup: a whole copy or none ------------------------------------ */

#define BACKUP_STRIDE 7

/* While set, every connection opened gets the fault too: the backup's
 * copy is written and checked through a connection of its own. */
static struct fault *armed_all;

static int on_open(sqlite3 *db, const char **msg,
		   const sqlite3_api_routines *api)
{
	(void)msg;
	(void)api;
	if (armed_all)
		sqlite3_progress_handler(db, 1, on_progress, armed_all);
	return SQLITE_OK;
}

/* The fixture's study, written to the file `path`. */
static void study_file(struct fixture *f, const char *path)
{
	struct buf side = BUF_INIT;
	sqlite3_backup *b;
	sqlite3 *db = NULL;

	unlink(path);
	buf_addf(&side, "%s-wal", path);
	unlink(side.ptr);
	buf_reset(&side);
	buf_addf(&side, "%s-shm", path);
	unlink(side.ptr);
	buf_release(&side);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	b = sqlite3_backup_init(db, "main", f->st.db, "main");
	assert_non_null(b);
	assert_int_equal(sqlite3_backup_step(b, -1), SQLITE_DONE);
	assert_int_equal(sqlite3_backup_finish(b), SQLITE_OK);
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
}

/* The rows of the study file at `path`. */
static void dump_file(const char *path, struct buf *out)
{
	struct store c;

	memset(&c, 0, sizeof(c));
	assert_int_equal(sqlite3_open_v2(path, &c.db, SQLITE_OPEN_READONLY,
					 NULL), SQLITE_OK);
	dump_study(&c, out);
	assert_int_equal(sqlite3_close(c.db), SQLITE_OK);
}

/* What is in directory `dir` but . and .., joined by spaces. */
static void list_dir(const char *dir, struct buf *out)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	assert_non_null(d);
	buf_reset(out);
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			buf_addf(out, "%s%s", out->len ? " " : "", de->d_name);
	closedir(d);
}

struct backup_run {
	int rc;
	int hit;
	struct err e;
	struct buf study;	/* its rows after */
	struct buf dir;		/* what the copy's directory holds */
	struct buf copy;	/* the copy's rows, when there is one */
};

/* store_backup() of the study (a file, opened as commands open it) to
 * `copy` in the empty directory `dir`, with a fault at step n (LONG_MAX:
 * none; *steps gets how many there were). */
static void backup_at(struct fixture *f, const char *study, const char *dir,
		      const char *copy, long n, long *steps,
		      struct backup_run *r)
{
	struct store st;
	struct fault flt;

	study_file(f, study);
	memset(&r->e, 0, sizeof(r->e));
	assert_int_equal(study_open(&st, study, 0, &r->e), 0);
	arm(&st, &flt, n);
	armed_all = &flt;
	r->rc = store_backup(&st, copy, &r->e);
	armed_all = NULL;
	disarm(&st);
	r->hit = flt.hit;
	if (steps)
		*steps = LONG_MAX - flt.left;
	buf_reset(&r->study);
	dump_study(&st, &r->study);
	store_close(&st);
	list_dir(dir, &r->dir);
	buf_reset(&r->copy);
	if (!access(copy, F_OK)) {
		dump_file(copy, &r->copy);
		assert_int_equal(unlink(copy), 0);
	}
}

/*
 * `backup` with a fault at each step, of the study's connection or of
 * the copy's: it fails with a message that does not call the study
 * damaged and leaves nothing under the copy's name nor beside it, or it
 * writes the whole copy (the study's rows, every one).  The study itself
 * is left as it was, or with the check it passed noted.
 */
static void test_backup(void **state)
{
	struct fixture *f = *state;
	char dir[] = "/tmp/t_faults.XXXXXX";
	struct buf study = BUF_INIT, copydir = BUF_INIT, copy = BUF_INIT;
	struct buf before = BUF_INIT, cmd = BUF_INIT;
	struct backup_run r = { 0, 0, ERR_INIT, BUF_INIT, BUF_INIT, BUF_INIT };
	struct timespec t0;
	long n, steps, faulted = 0, copies = 0;
	struct buf after = BUF_INIT;
	struct store st;
	struct err e = ERR_INIT;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_non_null(mkdtemp(dir));
	buf_addf(&study, "%s/study.db", dir);
	buf_addf(&copydir, "%s/copies", dir);
	assert_int_equal(mkdir(copydir.ptr, 0700), 0);
	buf_addf(&copy, "%s/backup.db", copydir.ptr);
	assert_int_equal(sqlite3_auto_extension((void (*)(void))on_open),
			 SQLITE_OK);

	/* the study as opened, and as the unfaulted backup leaves it */
	study_file(f, study.ptr);
	assert_int_equal(study_open(&st, study.ptr, 0, &e), 0);
	dump_study(&st, &before);
	store_close(&st);
	backup_at(f, study.ptr, copydir.ptr, copy.ptr, LONG_MAX, &steps, &r);
	if (r.rc < 0)
		fail_msg("backup fails without faults: %s", r.e.msg);
	assert_string_equal(r.dir.ptr, "backup.db");
	assert_string_equal(r.copy.ptr, before.ptr);
	buf_add(&after, r.study.ptr, r.study.len);

	/* each run writes and opens a study file: one step in BACKUP_STRIDE,
	 * and every one of the last (noting the check in the study) */
	for (n = 0; n <= steps; n = n + BACKUP_STRIDE < steps - 64 ?
	     n + BACKUP_STRIDE : n + 1) {
		backup_at(f, study.ptr, copydir.ptr, copy.ptr, n, NULL, &r);
		if (!r.hit) {
			assert_int_equal(n, steps);
			assert_int_equal(r.rc, 0);
			assert_string_equal(r.copy.ptr, before.ptr);
			assert_string_equal(r.study.ptr, after.ptr);
			break;
		}
		faulted++;
		if (strcmp(r.study.ptr, before.ptr) &&
		    strcmp(r.study.ptr, after.ptr))
			fail_msg("backup: a fault at step %ld changed the "
				 "study", n);
		if (r.rc < 0) {
			if (!r.e.msg[0])
				fail_msg("backup: failed without a message at "
					 "step %ld", n);
			if (strstr(r.e.msg, "damaged"))
				fail_msg("backup: a fault at step %ld called "
					 "the study damaged: %s", n, r.e.msg);
			if (r.dir.len)
				fail_msg("backup: a fault at step %ld left %s "
					 "(%s)", n, r.dir.ptr, r.e.msg);
			continue;
		}
		/* made: the whole copy */
		copies++;
		assert_string_equal(r.dir.ptr, "backup.db");
		assert_string_equal(r.copy.ptr, before.ptr);
	}
	assert_int_equal(n, steps);
	/* some faults must fail it, in the study's connection and the
	 * copy's alike */
	assert_true(faulted > copies);
	assert_int_equal(sqlite3_cancel_auto_extension((void (*)(void))
						       on_open), 1);
	report("backup", steps, faulted, &t0);
	buf_addf(&cmd, "rm -rf '%s'", dir);
	assert_int_equal(system(cmd.ptr), 0);
	buf_release(&cmd);
	buf_release(&study);
	buf_release(&copydir);
	buf_release(&copy);
	buf_release(&before);
	buf_release(&after);
	buf_release(&r.study);
	buf_release(&r.dir);
	buf_release(&r.copy);
}

/* ---- items import, proposals, a codebook revert --------------------- */

/* one new item and one already there, in one file */
static int import_items(struct fixture *f, struct store *st, struct err *e)
{
	static const char text[] =
		"{\"repo\": \"o/r\", \"number\": 4, \"title\": \"a hang "
		"in the backward pass\", \"body\": \"line one\\nline two\"}\n"
		"{\"repo\": \"o/r\", \"number\": 1, \"title\": \"t, "
		"retitled\"}\n";
	struct import_stats stats;

	memset(&stats, 0, sizeof(stats));
	return import_text(st, &f->owner, text, strlen(text), "items.jsonl",
			   &stats, e);
}

static int propose_item2(struct fixture *f, struct store *st,
			 struct err *e)
{
	return label_propose(st, &f->alice, &f->cb, f->item[2], "symptom",
			     "oom_on_save", "Out of memory on save",
			     "The process runs out of memory writing a "
			     "checkpoint.", NULL, e);
}

/* the proposal the fixture's alice made (see test_more_writers), read
 * before the writer runs: the faults are the writer's, not the test's */
static long long proposal_id;

static long long first_proposal(struct store *st)
{
	sqlite3_stmt *s = NULL;
	long long id;

	assert_int_equal(sqlite3_prepare_v2(st->db, "SELECT min(id) FROM "
					    "proposals", -1, &s, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_step(s), SQLITE_ROW);
	id = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return id;
}

static int accept_proposal(struct fixture *f, struct store *st,
			   struct err *e)
{
	return proposal_accept(st, &f->owner, proposal_id, NULL, e);
}

static int map_proposal(struct fixture *f, struct store *st, struct err *e)
{
	return proposal_map(st, &f->owner, proposal_id, "crash", e);
}

/* an update and the revert to the version before it, in one
 * transaction */
static int update_and_revert(struct fixture *f, struct store *st,
			     struct err *e)
{
	struct revert_stats rs;

	memset(&rs, 0, sizeof(rs));
	if (store_begin(st, e) < 0)
		return -1;
	if (update_codebook(f, st, e) < 0 ||
	    codebook_revert(st, &f->owner, f->cb.version, NULL, 0, &rs,
			    e) < 0) {
		store_rollback(st);
		return -1;
	}
	return store_commit(st, e);
}

static void test_more_writers(void **state)
{
	struct fixture *f = *state;
	struct err e = ERR_INIT;

	faultsim_write(f, "import", import_items, 0);
	faultsim_write(f, "proposal", propose_item2, 0);
	must(propose_item2(f, &f->st, &e), &e, "propose");
	proposal_id = first_proposal(&f->st);
	faultsim_write(f, "proposal accepted", accept_proposal, 0);
	faultsim_write(f, "proposal mapped", map_proposal, 0);
	faultsim_write(f, "codebook update and revert", update_and_revert, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_access_open_round, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_access_closed_round,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_lists, setup, teardown),
		cmocka_unit_test_setup_teardown(test_label_write, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_writers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_more_writers, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_role_change_refusal,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_batch_writes, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_import_writes, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_evidence_writes, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_screening_writes, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_recode_writes, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_memo_writes, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_machine_writes, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_backup, setup, teardown),
	};

	return cmocka_run_group_tests_name("faults", tests, NULL, NULL);
}
