/* SPDX-License-Identifier: MIT */
/*
 * t_machine: machine coding (core/study/machine.h) - the input document, the
 * checks on an answer, running the command (exit status, signals,
 * timeouts, a stop, an answer too large, a background child holding
 * stdout, its own temporary directory), storing an answer with its
 * provenance, the items a machine is to code, and the stored answers as
 * a reader sees them.
 *
 * The codebook is the bundled codebooks/llm-framework-bugs.json: symptom
 * (one, required), root_cause (one, required), fix_pattern (many,
 * required), stage (one, optional), phase (one, required).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "core/base/buf.h"
#include "core/study/codebook.h"
#include "core/study/import.h"
#include "core/study/item.h"
#include "core/study/machine.h"
#include "core/study/member.h"
#include "core/study/round.h"
#include "core/store/store.h"
#include "core/study/study.h"

#define CODEBOOK "codebooks/llm-framework-bugs.json"

#define OK(call) do { \
		struct err *e_ = &f->e; \
		if ((call) < 0) \
			fail_msg("%s: %s", #call, e_->msg); \
	} while (0)

struct fixture {
	struct store st;
	struct codebook cb;
	struct actor owner, alice, gpt, llama;
	long long i1, i2, i3;
	struct err e;
};

static const char items_jsonl[] =
	"{\"repo\": \"o/r\", \"number\": 1, \"title\": \"Loss is NaN\", "
	"\"body\": \"after step 10\", \"state\": \"closed\", "
	"\"created_at\": \"2024-01-01T00:00:00Z\", "
	"\"closed_at\": \"2024-01-03T00:00:00Z\", "
	"\"labels\": [\"bug\"], "
	"\"comments\": [{\"author\": \"a\", \"created_at\": "
	"\"2024-01-02T00:00:00Z\", \"body\": \"same here\"}], "
	"\"fixes\": [{\"number\": 7, \"title\": \"guard\", "
	"\"merged_at\": \"2024-01-03T00:00:00Z\", \"additions\": 3, "
	"\"deletions\": 1, \"changed_files\": 1, "
	"\"diff\": \"diff --git a/x b/x\\n\"}]}\n"
	"{\"repo\": \"o/r\", \"number\": 2, \"title\": \"two\"}\n"
	"{\"repo\": \"o/r\", \"number\": 3, \"title\": \"three\"}\n";

/* The machine coder `name` as machine-code acts for it: the owner's
 * account, acting for the machine. */
static int machine_actor(struct fixture *f, const char *name,
			 struct actor *m)
{
	enum role role;

	if (member_find(&f->st, name, &m->member_id, &role, &f->e) < 0)
		return -1;
	if (role != ROLE_MACHINE)
		return -1;
	m->name = xstrdup(name);
	m->os_user = xstrdup(f->owner.os_user);
	m->role = ROLE_MACHINE;
	m->acting_for = 1;
	return 0;
}

static int setup(void **state)
{
	struct fixture *f = xcalloc(1, sizeof(*f));
	const char *const ann[] = { "alice", "gpt" };
	struct round_spec r = { .name = "r1", .items = "o/r#1,o/r#2",
				.annotators = ann, .nr_annotators = 2 };
	struct import_stats is;
	struct err *e = &f->e;

	setenv("BUGCODER_NOW", "2024-06-01T00:00:00Z", 1);
	if (store_open_memory(&f->st, e) < 0 ||
	    study_init(&f->st, "Machines", CODEBOOK, e) < 0 ||
	    study_codebook(&f->st, &f->cb, NULL, e) < 0 ||
	    member_resolve(&f->st, NULL, &f->owner, e) < 0 ||
	    import_text(&f->st, &f->owner, items_jsonl, strlen(items_jsonl),
			"items.jsonl", &is, e) < 0 ||
	    member_add(&f->st, &f->owner, "alice", ROLE_ANNOTATOR, e) < 0 ||
	    member_add(&f->st, &f->owner, "gpt", ROLE_MACHINE, e) < 0 ||
	    member_add(&f->st, &f->owner, "llama", ROLE_MACHINE, e) < 0 ||
	    member_resolve(&f->st, "alice", &f->alice, e) < 0 ||
	    machine_actor(f, "gpt", &f->gpt) < 0 ||
	    machine_actor(f, "llama", &f->llama) < 0 ||
	    round_create(&f->st, &f->owner, &r, NULL, e) < 0 ||
	    (f->i1 = item_find(&f->st, "o/r#1", e)) < 0 ||
	    (f->i2 = item_find(&f->st, "o/r#2", e)) < 0 ||
	    (f->i3 = item_find(&f->st, "o/r#3", e)) < 0) {
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
	actor_release(&f->gpt);
	actor_release(&f->llama);
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

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static const char *str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!cJSON_IsString(v))
		fail_msg("%s is not a string", key);
	return v->valuestring;
}

static double num(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!cJSON_IsNumber(v))
		fail_msg("%s is not a number", key);
	return v->valuedouble;
}

static void test_input_document(void **state)
{
	struct fixture *f = *state;
	struct buf b = BUF_INIT;
	cJSON *doc, *it, *c, *x, *cb, *d;

	OK(machine_input(&f->st, &f->cb, f->i1, &b, e_));
	doc = cJSON_Parse(b.ptr);
	assert_non_null(doc);
	assert_true(num(doc, "bugcoder_machine") == 1);
	it = cJSON_GetObjectItemCaseSensitive(doc, "item");
	assert_true(num(it, "id") == (double)f->i1);
	assert_string_equal(str(it, "name"), "o/r#1");
	assert_string_equal(str(it, "repo"), "o/r");
	assert_true(num(it, "number") == 1);
	assert_string_equal(str(it, "kind"), "issue");
	assert_string_equal(str(it, "title"), "Loss is NaN");
	assert_string_equal(str(it, "body"), "after step 10");
	assert_string_equal(str(it, "state"), "closed");
	assert_string_equal(str(it, "created_at"), "2024-01-01T00:00:00Z");
	assert_string_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(it,
			    "labels"), 0)->valuestring, "bug");
	c = cJSON_GetArrayItem(cJSON_GetObjectItem(it, "comments"), 0);
	assert_string_equal(str(c, "author"), "a");
	assert_string_equal(str(c, "body"), "same here");
	x = cJSON_GetArrayItem(cJSON_GetObjectItem(it, "fixes"), 0);
	assert_true(num(x, "number") == 7);
	assert_true(num(x, "additions") == 3);
	assert_string_equal(str(x, "diff"), "diff --git a/x b/x\n");
	x = cJSON_GetObjectItem(it, "figures");
	assert_true(num(x, "comments") == 1);
	assert_true(num(x, "days_open") == 2);
	assert_true(num(x, "lines_changed") == 4);
	cb = cJSON_GetObjectItemCaseSensitive(doc, "codebook");
	assert_string_equal(str(cb, "name"), f->cb.name);
	assert_string_equal(str(cb, "version"), "1.0");
	d = cJSON_GetArrayItem(cJSON_GetObjectItem(cb, "dimensions"), 2);
	assert_string_equal(str(d, "key"), "fix_pattern");
	assert_string_equal(str(d, "select"), "many");
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(d, "required")));
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(d, "codes")),
			 (int)f->cb.dims[2].nr_codes);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(doc,
			 "dimensions")), 5);
	assert_string_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(doc,
			    "dimensions"), 4)->valuestring, "phase");
	cJSON_Delete(doc);
	buf_reset(&b);

	/* an item with no figures says null, not a made-up 0 */
	OK(machine_input(&f->st, &f->cb, f->i2, &b, e_));
	doc = cJSON_Parse(b.ptr);
	it = cJSON_GetObjectItemCaseSensitive(doc, "item");
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(it, "body")));
	x = cJSON_GetObjectItem(it, "figures");
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(x, "days_open")));
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(it, "fixes")),
			 0);
	cJSON_Delete(doc);
	buf_reset(&b);

	assert_int_equal(machine_input(&f->st, &f->cb, 999, &b, &f->e), -1);
	buf_release(&b);
}

#define GOOD "{\"labels\": {\"symptom\": \"crash\", \"root_cause\": " \
	"[\"api_misuse\"], \"fix_pattern\": [\"conditional_logic\", " \
	"\"parameter_handling\"], \"phase\": \"training\"}, "

static void test_parse_answer(void **state)
{
	struct fixture *f = *state;
	struct machine_answer a = MACHINE_ANSWER_INIT;
	static const char good[] = GOOD "\"rationale\": \"NaN loss\", "
		"\"model\": \"m-1\", \"evidence\": []}\n\n";

	OK(machine_parse(&f->cb, good, strlen(good), &a, e_));
	assert_int_equal(a.nr_dims, 4);
	assert_string_equal(a.dims[0].dim, "symptom");
	assert_int_equal(a.dims[0].nr, 1);
	assert_string_equal(a.dims[0].codes[0], "crash");
	assert_string_equal(a.dims[1].codes[0], "api_misuse");
	assert_int_equal(a.dims[2].nr, 2);
	assert_string_equal(a.dims[2].codes[1], "parameter_handling");
	assert_string_equal(a.rationale, "NaN loss");
	assert_string_equal(a.model, "m-1");
	machine_answer_release(&a);
	assert_null(a.dims);
	machine_answer_release(&a);

	/* no rationale, an empty model: none */
	{
		static const char bare[] = GOOD "\"model\": \"\"}";

		OK(machine_parse(&f->cb, bare, strlen(bare), &a, e_));
		assert_null(a.rationale);
		assert_null(a.model);
		machine_answer_release(&a);
	}
}

static void test_parse_refusals(void **state)
{
	struct fixture *f = *state;
	static const struct {
		const char *text;
		const char *msg;
	} cases[] = {
		{ "not json", "the answer is not JSON" },
		{ GOOD "\"x\": 1} {}", "the answer has text after its JSON "
		  "document (at byte 153)" },
		{ "[1, 2]", "the answer is not a JSON object" },
		{ "{\"label\": {}}", "the answer has no `labels` object" },
		{ "{\"labels\": []}", "the answer has no `labels` object" },
		{ "{\"labels\": {\"mood\": \"x\"}}",
		  "labels: unknown dimension `mood`" },
		{ "{\"labels\": {\"symptom\": \"crash\", \"symptom\": "
		  "\"hang\"}}", "labels.symptom given twice" },
		{ "{\"labels\": {\"symptom\": [\"crash\", \"hang\"]}}",
		  "labels.symptom takes one code" },
		{ "{\"labels\": {\"symptom\": []}}",
		  "labels.symptom takes one code" },
		{ "{\"labels\": {\"symptom\": 3}}",
		  "labels.symptom: a code must be a string" },
		{ "{\"labels\": {\"fix_pattern\": [\"conditional_logic\", "
		  "null]}}", "labels.fix_pattern: a code must be a string" },
		{ "{\"labels\": {\"symptom\": \"boom\"}}",
		  "labels.symptom: unknown code `boom`" },
		{ "{\"labels\": {\"symptom\": \"crash\"}}",
		  "labels: the required dimension root_cause is not coded" },
		{ "{\"labels\": {\"symptom\": \"crash\", \"root_cause\": "
		  "\"api_misuse\", \"fix_pattern\": [], \"phase\": "
		  "\"training\"}}",
		  "labels: the required dimension fix_pattern is not coded" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct machine_answer a = MACHINE_ANSWER_INIT;
		struct err e = ERR_INIT;

		if (machine_parse(&f->cb, cases[i].text,
				  strlen(cases[i].text), &a, &e) != -1)
			fail_msg("accepted: %s", cases[i].text);
		assert_int_equal(e.code, ERR_INPUT);
		assert_string_equal(e.msg, cases[i].msg);
		machine_answer_release(&a);
	}
	{
		static const char nul[] = "{\"labels\": {}}\0";
		struct machine_answer a = MACHINE_ANSWER_INIT;
		struct err e = ERR_INIT;

		assert_int_equal(machine_parse(&f->cb, nul, sizeof(nul) - 1, &a,
					       &e), -1);
		assert_string_equal(e.msg, "the answer holds a NUL byte");
	}
}

static void test_run_echo_and_exit(void **state)
{
	struct machine_result r = MACHINE_RESULT_INIT;
	struct err e = ERR_INIT;
	static const char in[] = "{\"hello\": 1}\n";

	(void)state;
	assert_int_equal(machine_run("cat", in, strlen(in), 5000, NULL, &r,
				     &e), 0);
	assert_string_equal(r.out.ptr, in);
	assert_true(r.ms >= 0);
	machine_result_release(&r);

	assert_int_equal(machine_run("cat >/dev/null; echo oops >&2; "
				     "echo more >&2; exit 3", in, strlen(in),
				     5000, NULL, &r, &e), -1);
	assert_int_equal(e.code, ERR_INPUT);
	assert_string_equal(e.msg, "the command exited with status 3: oops");
	assert_string_equal(r.errout.ptr, "oops\nmore\n");
	machine_result_release(&r);

	assert_int_equal(machine_run("exit 4", "", 0, 5000, NULL, &r, &e), -1);
	assert_string_equal(e.msg, "the command exited with status 4");
	machine_result_release(&r);

	assert_int_equal(machine_run("kill -TERM $$", "", 0, 5000, NULL, &r,
				     &e), -1);
	assert_string_equal(e.msg, "the command was killed by signal 15");
	machine_result_release(&r);

	/* a command that never reads its input still answers */
	assert_int_equal(machine_run("echo '{}'", in, strlen(in), 5000, NULL,
				     &r, &e), 0);
	assert_string_equal(r.out.ptr, "{}\n");
	machine_result_release(&r);
}

static void test_run_own_directory(void **state)
{
	struct machine_result r = MACHINE_RESULT_INIT;
	struct err e = ERR_INIT;
	char cwd[4096], *nl;
	struct stat sb;

	(void)state;
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(machine_run("pwd; touch made-here", "", 0, 5000,
				     NULL, &r, &e), 0);
	nl = strchr(r.out.ptr, '\n');
	assert_non_null(nl);
	*nl = '\0';
	/* a directory of its own, removed with what it made */
	assert_string_not_equal(r.out.ptr, cwd);
	assert_int_equal(stat(r.out.ptr, &sb), -1);
	machine_result_release(&r);
	assert_int_equal(stat("made-here", &sb), -1);
}

static void test_run_limits(void **state)
{
	struct machine_result r = MACHINE_RESULT_INIT;
	struct err e = ERR_INIT;
	volatile sig_atomic_t stop = 1;
	long long t0;

	(void)state;
	t0 = now_ms();
	assert_int_equal(machine_run("sleep 30", "", 0, 300, NULL, &r, &e),
			 -1);
	assert_int_equal(e.code, ERR_INPUT);
	assert_string_equal(e.msg, "no answer within 1 s (the command was "
			    "killed)");
	assert_true(now_ms() - t0 < 10000);
	machine_result_release(&r);

	t0 = now_ms();
	assert_int_equal(machine_run("sleep 30", "", 0, 30000, &stop, &r, &e),
			 -1);
	assert_int_equal(e.code, ERR_INTERRUPTED);
	assert_string_equal(e.msg, "stopped");
	assert_true(now_ms() - t0 < 10000);
	machine_result_release(&r);

	assert_int_equal(machine_run("head -c 1100000 /dev/zero | tr '\\0' "
				     "x", "", 0, 10000, NULL, &r, &e), -1);
	assert_string_equal(e.msg, "the answer is larger than 1048576 bytes "
			    "(the command was killed)");
	machine_result_release(&r);

	/* a background child holding stdout open does not hold the answer
	 * back past the drain time */
	t0 = now_ms();
	assert_int_equal(machine_run("sleep 20 & echo '{\"a\": 1}'", "", 0,
				     30000, NULL, &r, &e), 0);
	assert_string_equal(r.out.ptr, "{\"a\": 1}\n");
	assert_true(now_ms() - t0 < 10000);
	machine_result_release(&r);
}

static void fill_prov(struct machine_prov *p, const char *model)
{
	memset(p, 0, sizeof(*p));
	p->command = "./coder --fast";
	p->model = model;
	p->note = "pilot";
	memset(p->input_sha, 'a', SHA256_HEX_LEN);
	memset(p->answer_sha, 'b', SHA256_HEX_LEN);
	p->ms = 1234;
}

struct seen {
	struct buf b;
};

static int collect(const struct machine_answer_row *r, void *data)
{
	struct seen *s = data;

	buf_addf(&s->b, "%s %s %s %s %s %s %lld|", r->item, r->machine,
		 r->command, r->model ? r->model : "-", r->note,
		 r->codebook_version, r->duration_ms);
	return 0;
}

static void test_store_and_read_back(void **state)
{
	struct fixture *f = *state;
	struct machine_answer a = MACHINE_ANSWER_INIT;
	struct machine_prov p;
	struct seen seen = { BUF_INIT };
	struct err e = ERR_INIT;
	static const char raw[] = GOOD "\"rationale\": \"NaN loss\"}";
	long long *todo;
	size_t nr;

	OK(machine_todo(&f->st, f->gpt.member_id, 0, NULL, 0, &todo, &nr,
			e_));
	assert_int_equal(nr, 2);
	assert_true(todo[0] == f->i1 && todo[1] == f->i2);
	free(todo);
	/* llama is declared in no round: nothing, unless a round is named */
	OK(machine_todo(&f->st, f->llama.member_id, 0, NULL, 0, &todo, &nr,
			e_));
	assert_int_equal(nr, 0);
	free(todo);
	OK(machine_todo(&f->st, f->llama.member_id, 1, NULL, 0, &todo, &nr,
			e_));
	assert_int_equal(nr, 2);
	free(todo);

	OK(machine_parse(&f->cb, raw, strlen(raw), &a, e_));
	fill_prov(&p, "m-1");
	assert_int_equal(machine_store(&f->st, &f->alice, &f->gpt, &f->cb,
				       f->i1, &a, raw, strlen(raw), &p, &e),
			 -1);
	assert_int_equal(e.code, ERR_PERM);
	assert_int_equal(q(&f->st, "SELECT count(*) FROM labels"), 0);
	/* the machine codes items of rounds only */
	assert_int_equal(machine_store(&f->st, &f->owner, &f->gpt, &f->cb,
				       f->i3, &a, raw, strlen(raw), &p, &e),
			 -1);
	assert_int_equal(q(&f->st, "SELECT count(*) FROM machine_answers"), 0);

	OK(machine_store(&f->st, &f->owner, &f->gpt, &f->cb, f->i1, &a, raw,
			 strlen(raw), &p, e_));
	assert_int_equal(q(&f->st, "SELECT count(*) FROM labels l JOIN members "
			   "m ON m.id = l.member_id WHERE m.name = 'gpt'"), 5);
	assert_int_equal(q(&f->st, "SELECT count(*) FROM submissions s JOIN "
			   "members m ON m.id = s.member_id WHERE m.name = "
			   "'gpt'"), 1);
	assert_int_equal(q(&f->st, "SELECT count(*) FROM machine_answers WHERE "
			   "command = './coder --fast' AND model = 'm-1' AND "
			   "note = 'pilot' AND rationale = 'NaN loss' AND "
			   "duration_ms = 1234 AND codebook_version = '1.0' "
			   "AND answer LIKE '{\"labels\"%'"), 1);
	{
		struct buf want = BUF_INIT;
		sqlite3_stmt *s = NULL;

		buf_addf(&want, "gpt answer=%.*s input=%.*s model=m-1 ms=1234",
			 SHA256_HEX_LEN, p.answer_sha, SHA256_HEX_LEN,
			 p.input_sha);
		assert_int_equal(sqlite3_prepare_v2(f->st.db, "SELECT new, "
				 "for_member FROM audit WHERE action = "
				 "'machine.answer'", -1, &s, NULL), SQLITE_OK);
		assert_int_equal(sqlite3_step(s), SQLITE_ROW);
		assert_string_equal((const char *)sqlite3_column_text(s, 0),
				    want.ptr);
		assert_string_equal((const char *)sqlite3_column_text(s, 1),
				    "gpt");
		sqlite3_finalize(s);
		buf_release(&want);
	}
	machine_answer_release(&a);

	/* what is left to code */
	OK(machine_todo(&f->st, f->gpt.member_id, 0, NULL, 0, &todo, &nr,
			e_));
	assert_int_equal(nr, 1);
	assert_true(todo[0] == f->i2);
	free(todo);
	{
		long long ids[] = { f->i1, f->i2, f->i3 };

		OK(machine_todo(&f->st, f->gpt.member_id, 0, ids, 3, &todo,
				&nr, e_));
		assert_int_equal(nr, 2);
		assert_true(todo[0] == f->i2 && todo[1] == f->i3);
		free(todo);
	}

	/* the owner reads it back; alice, blind while the round is open,
	 * does not */
	OK(machine_answers_each(&f->st, &f->owner, NULL, collect, &seen, e_));
	assert_string_equal(seen.b.ptr, "o/r#1 gpt ./coder --fast m-1 pilot "
			    "1.0 1234|");
	buf_reset(&seen.b);
	OK(machine_answers_each(&f->st, &f->owner, "r1", collect, &seen, e_));
	assert_string_equal(seen.b.ptr, "o/r#1 gpt ./coder --fast m-1 pilot "
			    "1.0 1234|");
	buf_reset(&seen.b);
	OK(machine_answers_each(&f->st, &f->alice, NULL, collect, &seen, e_));
	assert_string_equal(seen.b.ptr, "");
	OK(round_close(&f->st, &f->owner, "r1", ROUND_FORCE, e_));
	OK(machine_answers_each(&f->st, &f->alice, NULL, collect, &seen, e_));
	assert_string_equal(seen.b.ptr, "o/r#1 gpt ./coder --fast m-1 pilot "
			    "1.0 1234|");
	buf_release(&seen.b);
	/* a closed round has nothing left to code */
	OK(machine_todo(&f->st, f->gpt.member_id, 0, NULL, 0, &todo, &nr,
			e_));
	assert_int_equal(nr, 0);
	free(todo);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_input_document, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_parse_answer, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_parse_refusals, setup,
						teardown),
		cmocka_unit_test(test_run_echo_and_exit),
		cmocka_unit_test(test_run_own_directory),
		cmocka_unit_test(test_run_limits),
		cmocka_unit_test_setup_teardown(test_store_and_read_back,
						setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
