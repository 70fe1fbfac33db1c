/* SPDX-License-Identifier: MIT */
/*
 * t_github: the GitHub fetch (core/github/github.h) and its HTTP client
 * (core/github/ghclient.h) against the mock GitHub (tests/mock_github.py,
 * started here on 127.0.0.1 as the Python tests start it), and the parts
 * that need no server: lists of known bugs, Link headers, the option
 * checks.
 *
 * What a fetch stored is compared with what the mock says a correct
 * fetch stores (/_control/expected), read through the client under test
 * on a client of its own.
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
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "core/base/buf.h"
#include "core/github/ghclient.h"
#include "core/github/gh_map.h"
#include "core/github/github.h"
#include "core/study/item.h"
#include "core/store/store.h"
#include "core/study/study.h"

#define OK(call) do { \
		struct err e_ = ERR_INIT; \
		(void)e_; \
		if ((call) < 0) \
			fail_msg("%s: %s", #call, e_.msg); \
	} while (0)

static pid_t mock_pid;
static char mock_url[64];

/* Start the mock with `faults` (a JSON array, or NULL) on the command
 * line; the port is the first line it prints. */
static int mock_start(void **state)
{
	int fds[2];
	char line[32];
	size_t n = 0;
	pid_t pid;

	(void)state;
	if (pipe(fds) < 0)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		close(fds[1]);
		execlp("python3", "python3", "tests/mock_github.py", "--port",
		       "0", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	while (n + 1 < sizeof(line) && read(fds[0], line + n, 1) == 1 &&
	       line[n] != '\n')
		n++;
	line[n] = '\0';
	close(fds[0]);
	if (!n || atoi(line) <= 0) {
		print_error("the mock GitHub did not start (see its stderr)\n");
		kill(pid, SIGTERM);
		waitpid(pid, NULL, 0);
		return -1;
	}
	mock_pid = pid;
	snprintf(mock_url, sizeof(mock_url), "http://127.0.0.1:%d",
		 atoi(line));
	return 0;
}

static int mock_stop(void **state)
{
	(void)state;
	if (mock_pid > 0) {
		kill(mock_pid, SIGTERM);
		waitpid(mock_pid, NULL, 0);
	}
	return 0;
}

/* A control request to the mock (GET, or POST with `body`); the JSON
 * answer, owned. */
static cJSON *control(const char *path, const char *body)
{
	struct gh_fetch_opts o = { .api_url = mock_url, .timeout_s = 30,
				   .max_attempts = 1 };
	struct gh_stats stats;
	struct ghc_resp r;
	struct store st;
	struct err e = ERR_INIT;
	struct buf url = BUF_INIT;
	struct ghc *c;
	cJSON *j = NULL;

	memset(&stats, 0, sizeof(stats));
	if (store_open_memory(&st, &e) < 0)
		fail_msg("%s", e.msg);
	c = ghc_new(&st, &o, &stats, &e);
	if (!c)
		fail_msg("%s", e.msg);
	buf_addf(&url, "%s%s", mock_url, path);
	if (ghc_request(c, url.ptr, GHC_JSON | (body ? GHC_POST : 0), body,
			&r, &j, &e) < 0)
		fail_msg("%s", e.msg);
	ghc_resp_clear(&r);
	ghc_free(c);
	store_close(&st);
	buf_release(&url);
	return j;
}

static void mock_reset(void)
{
	cJSON_Delete(control("/_control/reset", "{}"));
}

static void mock_faults(const char *faults)
{
	struct buf b = BUF_INIT;

	buf_addf(&b, "{\"faults\": %s}", faults);
	cJSON_Delete(control("/_control/config", b.ptr));
	buf_release(&b);
}

static long mock_counted(void)
{
	cJSON *j = control("/_control/stats", NULL);
	long n = (long)cJSON_GetObjectItem(j, "counted")->valuedouble;

	cJSON_Delete(j);
	return n;
}

static void opts_init(struct gh_fetch_opts *o, const char *repo)
{
	memset(o, 0, sizeof(*o));
	o->repo = repo;
	o->api_url = mock_url;
	o->timeout_s = 30;
	o->backoff_ms = 10;
	o->max_attempts = 3;
	o->no_graphql = 1;
	o->label = "bug";
}

static void study(struct store *st)
{
	struct err e = ERR_INIT;

	if (store_open_memory(st, &e) < 0 ||
	    study_init(st, "Fetched", NULL, &e) < 0)
		fail_msg("%s", e.msg);
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

static void assert_same_text(const char *got, const char *want)
{
	if (!want)
		assert_null(got);
	else
		assert_string_equal(got ? got : "(null)", want);
}

/* Every item the mock expects of `repo` is in `st` as it should be, and
 * no other; returns how many. */
static int matches_expected(struct store *st, const char *repo,
			    int require_fix)
{
	struct buf path = BUF_INIT;
	cJSON *want, *w;
	int n = 0;

	buf_addf(&path, "/_control/expected?repo=%s&require_fix=%d", repo,
		 require_fix);
	want = control(path.ptr, NULL);
	cJSON_ArrayForEach(w, want) {
		struct item it;
		struct err e = ERR_INIT;
		struct buf name = BUF_INIT;
		long long id;
		const cJSON *fx, *x;
		size_t k = 0;

		buf_addf(&name, "%s#%d", repo,
			 (int)cJSON_GetObjectItem(w, "number")->valuedouble);
		id = item_find(st, name.ptr, &e);
		if (id < 0)
			fail_msg("%s: %s", name.ptr, e.msg);
		memset(&it, 0, sizeof(it));
		if (item_load(st, id, &it, &e) < 0)
			fail_msg("%s: %s", name.ptr, e.msg);
		assert_same_text(it.title, jstr(w, "title"));
		assert_same_text(it.body, jstr(w, "body"));
		assert_same_text(it.author, jstr(w, "author"));
		assert_same_text(it.state, jstr(w, "state"));
		assert_same_text(it.created_at, jstr(w, "created_at"));
		assert_same_text(it.closed_at, jstr(w, "closed_at"));
		assert_same_text(it.url, jstr(w, "url"));
		assert_int_equal(it.nr_comments, (size_t)cJSON_GetArraySize(
				 cJSON_GetObjectItem(w, "comments")));
		fx = cJSON_GetObjectItem(w, "fixes");
		assert_int_equal(it.nr_fixes, (size_t)cJSON_GetArraySize(fx));
		cJSON_ArrayForEach(x, fx) {
			const struct fix *f = &it.fixes[k++];

			assert_int_equal(f->number, (long long)
				cJSON_GetObjectItem(x, "number")->valuedouble);
			assert_same_text(f->title, jstr(x, "title"));
			assert_same_text(f->merged_at, jstr(x, "merged_at"));
			if (jstr(x, "diff"))
				assert_same_text(f->diff, jstr(x, "diff"));
			assert_int_equal(f->diff_partial, (int)
				cJSON_GetObjectItem(x, "diff_partial")->
				valuedouble);
		}
		item_release(&it);
		buf_release(&name);
		n++;
	}
	cJSON_Delete(want);
	buf_release(&path);
	assert_int_equal(q(st, "SELECT count(*) FROM items"), n);
	return n;
}

/* ---- without a server ------------------------------------------------- */

static void test_link_next(void **state)
{
	char *s;

	(void)state;
	s = gh_link_next("<https://api.github.com/repositories/1/issues?"
			 "page=2>; rel=\"next\", <https://api.github.com/"
			 "repositories/1/issues?page=9>; rel=\"last\"");
	assert_string_equal(s, "https://api.github.com/repositories/1/issues?"
			    "page=2");
	free(s);
	s = gh_link_next("<https://x/a?page=1>; rel=\"prev\", "
			 "<https://x/a?page=3>; rel=\"next\"");
	assert_string_equal(s, "https://x/a?page=3");
	free(s);
	assert_null(gh_link_next("<https://x/a?page=1>; rel=\"prev\""));
	assert_null(gh_link_next(""));
	assert_null(gh_link_next(NULL));
}

static void test_parse_refs(void **state)
{
	static const char text[] =
		"\xef\xbb\xbf# known bugs\n"
		"https://github.com/acme/small/issues/3, acme/big#7;\r\n"
		"  # indented comment\n"
		"\n"
		"https://github.com/acme/big/pull/12\tacme/small#4\n";
	struct gh_ref *refs;
	size_t nr;
	struct err e = ERR_INIT;

	(void)state;
	assert_int_equal(gh_parse_refs(text, strlen(text), "bugs.txt", &refs,
				       &nr, &e), 0);
	assert_int_equal(nr, 4);
	assert_string_equal(refs[0].repo, "acme/small");
	assert_int_equal(refs[0].number, 3);
	assert_int_equal(refs[0].line, 2);
	assert_string_equal(refs[1].repo, "acme/big");
	assert_int_equal(refs[1].number, 7);
	assert_int_equal(refs[1].line, 2);
	assert_string_equal(refs[2].repo, "acme/big");
	assert_int_equal(refs[2].number, 12);
	assert_int_equal(refs[2].line, 5);
	assert_int_not_equal(refs[2].kind, refs[0].kind);
	assert_int_equal(refs[3].number, 4);
	gh_refs_free(refs, nr);
	gh_refs_free(NULL, 0);

	assert_int_equal(gh_parse_refs("", 0, "empty", &refs, &nr, &e), 0);
	assert_int_equal(nr, 0);
	assert_null(refs);
}

static void test_parse_refs_refused(void **state)
{
	static const struct {
		const char *text;
		const char *msg;
	} cases[] = {
		{ "acme/small#1\nhttps://gitlab.com/a/b/issues/1\n",
		  "bugs.txt:2: https://gitlab.com/a/b/issues/1: gitlab.com is "
		  "not GitHub (github.com, or the host of --api-url or "
		  "$GITHUB_API_URL)" },
		{ "https://github.com/acme/small\n",
		  "bugs.txt:1: https://github.com/acme/small: a repository, "
		  "not an issue or pull request (fetch OWNER/REPO takes a "
		  "whole repository)" },
		{ "# x\n\nacme/small#1 banana\n",
		  "bugs.txt:3: banana: not a GitHub issue or pull request "
		  "(expected its URL or owner/repo#N)" },
	};
	struct gh_ref *refs;
	size_t nr, i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct err e = ERR_INIT;

		assert_int_equal(gh_parse_refs(cases[i].text,
					       strlen(cases[i].text),
					       "bugs.txt", &refs, &nr, &e), -1);
		assert_int_equal(e.code, ERR_INPUT);
		assert_string_equal(e.msg, cases[i].msg);
		assert_null(refs);
		assert_int_equal(nr, 0);
	}
	{
		static const char nul[] = "acme/small#1\nacme/\0small#2\n";
		struct err e = ERR_INIT;

		assert_int_equal(gh_parse_refs(nul, sizeof(nul) - 1, "bugs.txt",
					       &refs, &nr, &e), -1);
		assert_string_equal(e.msg, "bugs.txt:2: a NUL byte in the "
				    "list");
	}
}

static void test_fetch_options_refused(void **state)
{
	static const struct {
		const char *repo, *state, *label, *since, *until;
		const char *msg;
	} cases[] = {
		{ "acme", NULL, NULL, NULL, NULL,
		  "acme: not a repository (expected OWNER/REPO)" },
		{ NULL, NULL, NULL, NULL, NULL,
		  "(none): not a repository (expected OWNER/REPO)" },
		{ "acme/small", "merged", NULL, NULL, NULL,
		  "--state merged: expected closed, open or all" },
		{ "acme/small", NULL, "bug\nfix", NULL, NULL,
		  "--label: a line break in a label" },
		{ "acme/small", NULL, NULL, "yesterday", NULL,
		  "--since yesterday: not a date (use YYYY-MM-DD or an ISO "
		  "8601 time)" },
		{ "acme/small", NULL, NULL, NULL, "2024-13-01",
		  "--until 2024-13-01: not a date (use YYYY-MM-DD or an ISO "
		  "8601 time)" },
	};
	struct store st;
	size_t i;

	(void)state;
	study(&st);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct gh_fetch_opts o;
		struct gh_stats stats;
		struct err e = ERR_INIT;

		opts_init(&o, cases[i].repo);
		o.state = cases[i].state;
		o.label = cases[i].label;
		o.since = cases[i].since;
		o.until = cases[i].until;
		assert_int_equal(gh_fetch(&st, &o, &stats, &e), -1);
		assert_int_equal(e.code, ERR_USAGE);
		assert_string_equal(e.msg, cases[i].msg);
		gh_stats_release(&stats);
	}
	assert_int_equal(q(&st, "SELECT count(*) FROM items"), 0);
	store_close(&st);
}

static void test_client_refusals(void **state)
{
	struct gh_fetch_opts o;
	struct gh_stats stats;
	struct store st;
	struct err e = ERR_INIT;
	struct ghc *c;

	(void)state;
	memset(&stats, 0, sizeof(stats));
	study(&st);
	opts_init(&o, "acme/small");
	o.api_url = "ftp://example.com";
	assert_null(ghc_new(&st, &o, &stats, &e));
	assert_int_equal(e.code, ERR_INPUT);
	assert_string_equal(e.msg, "ftp://example.com: the API URL must start "
			    "with https:// or http://");
	o.api_url = "https://example.com/a b";
	assert_null(ghc_new(&st, &o, &stats, &e));
	assert_string_equal(e.msg, "https://example.com/a b: not a usable API "
			    "URL");
	o.api_url = "https://example.com";
	o.token = "ghp_abc\n";
	assert_null(ghc_new(&st, &o, &stats, &e));
	assert_string_equal(e.msg, "the GitHub token holds a space or a "
			    "control character");

	/* the GraphQL endpoint that goes with the REST base */
	o.token = NULL;
	o.api_url = NULL;
	c = ghc_new(&st, &o, &stats, &e);
	assert_non_null(c);
	assert_string_equal(ghc_api(c), "https://api.github.com");
	assert_string_equal(ghc_graphql_url(c), "https://api.github.com/"
			    "graphql");
	ghc_free(c);
	o.api_url = "https://ghe.example.com/api/v3/";
	c = ghc_new(&st, &o, &stats, &e);
	assert_non_null(c);
	assert_string_equal(ghc_api(c), "https://ghe.example.com/api/v3");
	assert_string_equal(ghc_graphql_url(c), "https://ghe.example.com/api/"
			    "graphql");
	{
		char *s = ghc_escape(c, "bug fix&more");

		assert_string_equal(s, "bug%20fix%26more");
		free(s);
	}
	{
		struct ghc_resp r;
		cJSON *j = (cJSON *)1;

		/* a URL off the API's origin is refused before any request */
		assert_int_equal(ghc_request(c, "https://evil.example.com/api/"
					     "v3/x", GHC_JSON, NULL, &r, &j,
					     &e), -1);
		assert_int_equal(e.code, ERR_INPUT);
		assert_string_equal(e.msg, "refusing to follow https://evil."
				    "example.com/api/v3/x: not on the API host "
				    "https://ghe.example.com");
		assert_null(j);
		assert_int_equal(stats.requests, 0);
		ghc_resp_clear(&r);
	}
	ghc_free(c);
	ghc_free(NULL);
	store_close(&st);
}

/* ---- against the mock ------------------------------------------------- */

static void test_client_cache_and_errors(void **state)
{
	struct gh_fetch_opts o;
	struct gh_stats stats;
	struct store st;
	struct ghc_resp r;
	struct err e = ERR_INIT;
	struct buf url = BUF_INIT;
	struct ghc *c;
	cJSON *j;

	(void)state;
	mock_reset();
	memset(&stats, 0, sizeof(stats));
	study(&st);
	opts_init(&o, "acme/small");
	c = ghc_new(&st, &o, &stats, &e);
	assert_non_null(c);
	buf_addf(&url, "%s/repos/acme/small/issues/1", mock_url);
	OK(ghc_request(c, url.ptr, GHC_JSON, NULL, &r, &j, &e_));
	assert_int_equal(r.status, 200);
	assert_int_equal(r.cached, 0);
	assert_non_null(r.etag);
	assert_true(cJSON_GetObjectItem(j, "number")->valuedouble == 1);
	cJSON_Delete(j);
	ghc_resp_clear(&r);
	assert_int_equal(stats.counted, 1);

	/* the same again: a 304, answered from the study's cache */
	OK(ghc_request(c, url.ptr, GHC_JSON, NULL, &r, &j, &e_));
	assert_int_equal(r.status, 304);
	assert_int_equal(r.cached, 1);
	assert_true(cJSON_GetObjectItem(j, "number")->valuedouble == 1);
	cJSON_Delete(j);
	ghc_resp_clear(&r);
	assert_int_equal(stats.counted, 1);
	assert_int_equal(stats.not_modified, 1);
	assert_true(q(&st, "SELECT count(*) FROM http_cache") >= 1);

	/* dropped, it is asked for unconditionally */
	OK(ghc_cache_drop(c, url.ptr, &e_));
	OK(ghc_request(c, url.ptr, GHC_JSON, NULL, &r, &j, &e_));
	assert_int_equal(r.status, 200);
	cJSON_Delete(j);
	ghc_resp_clear(&r);
	assert_int_equal(stats.counted, 2);

	/* 404: ERR_NOTFOUND naming the request */
	buf_reset(&url);
	buf_addf(&url, "%s/repos/acme/nothing/issues/1", mock_url);
	assert_int_equal(ghc_request(c, url.ptr, GHC_JSON, NULL, &r, &j, &e),
			 -1);
	assert_int_equal(e.code, ERR_NOTFOUND);
	assert_true(!strncmp(e.msg, "GET ", 4));
	assert_non_null(strstr(e.msg, url.ptr));
	assert_non_null(strstr(e.msg, "HTTP 404"));
	assert_null(j);
	ghc_resp_clear(&r);

	/* a 502 is retried, then answered */
	mock_faults("[{\"path\": \"^/repos/acme/small/issues/2$\", \"kind\": "
		    "\"status\", \"arg\": 502, \"times\": 1}]");
	buf_reset(&url);
	buf_addf(&url, "%s/repos/acme/small/issues/2", mock_url);
	OK(ghc_request(c, url.ptr, GHC_JSON, NULL, &r, &j, &e_));
	assert_int_equal(r.status, 200);
	assert_int_equal(stats.retries, 1);
	cJSON_Delete(j);
	ghc_resp_clear(&r);

	/* ... and after the attempts are spent, ERR_NET with the count */
	mock_faults("[{\"path\": \"^/repos/acme/small/issues/3$\", \"kind\": "
		    "\"status\", \"arg\": 503, \"times\": 5}]");
	buf_reset(&url);
	buf_addf(&url, "%s/repos/acme/small/issues/3", mock_url);
	assert_int_equal(ghc_request(c, url.ptr, GHC_JSON, NULL, &r, &j, &e),
			 -1);
	assert_int_equal(e.code, ERR_NET);
	{
		struct buf want = BUF_INIT;

		buf_addf(&want, "GET %s: HTTP 503 (after 3 attempts)",
			 url.ptr);
		assert_string_equal(e.msg, want.ptr);
		buf_release(&want);
	}
	ghc_resp_clear(&r);
	/* invalid JSON is retried too */
	mock_faults("[{\"path\": \"^/repos/acme/small/issues/4$\", \"kind\": "
		    "\"badjson\", \"times\": 1}]");
	buf_reset(&url);
	buf_addf(&url, "%s/repos/acme/small/issues/4", mock_url);
	OK(ghc_request(c, url.ptr, GHC_JSON, NULL, &r, &j, &e_));
	assert_non_null(j);
	cJSON_Delete(j);
	ghc_resp_clear(&r);
	mock_faults("[]");

	ghc_free(c);
	store_close(&st);
	buf_release(&url);
}

static void test_fetch_repository(void **state)
{
	struct gh_fetch_opts o;
	struct gh_stats stats;
	struct store st;
	int n;

	(void)state;
	mock_reset();
	study(&st);
	opts_init(&o, "acme/small");
	OK(gh_fetch(&st, &o, &stats, &e_));
	n = matches_expected(&st, "acme/small", 0);
	assert_true(n > 0);
	assert_int_equal(stats.kept, n);
	assert_int_equal(stats.seen, n);
	assert_int_equal(stats.nr_failed, 0);
	assert_int_equal(stats.graphql, 0);
	assert_int_equal(stats.counted, mock_counted());
	assert_int_equal(stats.not_modified, 0);
	assert_int_equal(q(&st, "SELECT count(*) FROM fixes"), stats.fixes);
	assert_int_equal(q(&st, "SELECT count(DISTINCT item_id) FROM fixes"),
			 stats.kept_fixed);
	gh_stats_release(&stats);

	/* again: nothing changed, nothing counted, nothing stored twice */
	mock_reset();
	OK(gh_fetch(&st, &o, &stats, &e_));
	assert_int_equal(stats.counted, 0);
	assert_true(stats.not_modified > 0);
	assert_int_equal(stats.unchanged, n);
	assert_int_equal(stats.kept, 0);
	assert_int_equal(mock_counted(), 0);
	assert_int_equal(q(&st, "SELECT count(*) FROM items"), n);
	gh_stats_release(&stats);
	store_close(&st);
}

static void test_fetch_graphql_and_require_fix(void **state)
{
	struct gh_fetch_opts o;
	struct gh_stats stats;
	struct store st;
	int n;

	(void)state;
	mock_reset();
	study(&st);
	opts_init(&o, "acme/small");
	o.no_graphql = 0;
	o.token = "t-graphql";
	o.require_fix = 1;
	OK(gh_fetch(&st, &o, &stats, &e_));
	assert_int_equal(stats.graphql, 1);
	assert_true(stats.graphql_cost > 0);
	n = matches_expected(&st, "acme/small", 1);
	assert_int_equal(stats.kept, n);
	assert_int_equal(stats.kept_fixed, n);
	assert_true(stats.seen > n);
	assert_true(stats.rate_limit > 0);
	gh_stats_release(&stats);
	store_close(&st);
}

static void test_fetch_failed_issue_then_resumed(void **state)
{
	struct gh_fetch_opts o;
	struct gh_stats stats;
	struct store st;
	int n;

	(void)state;
	mock_reset();
	/* the first timeline asked keeps failing past the attempts */
	mock_faults("[{\"path\": \"^/repos/acme/small/issues/\\\\d+/"
		    "timeline\", \"kind\": \"status\", \"arg\": 500, "
		    "\"times\": 3}]");
	study(&st);
	opts_init(&o, "acme/small");
	o.token = "t-secret-0123";
	OK(gh_fetch(&st, &o, &stats, &e_));
	assert_int_equal(stats.nr_failed, 1);
	assert_string_equal(stats.failed[0].repo, "acme/small");
	assert_true(stats.failed[0].number > 0);
	assert_non_null(strstr(stats.failed[0].what, "HTTP 500"));
	/* the request is named, never the token */
	assert_non_null(strstr(stats.failed[0].what, "/timeline"));
	assert_null(strstr(stats.failed[0].what, "secret"));
	assert_int_equal(q(&st, "SELECT count(*) FROM http_cache WHERE "
			   "instr(CAST(body AS TEXT), 'secret') OR "
			   "instr(url, 'secret')"), 0);
	assert_int_equal(stats.retries, 2);
	assert_int_equal(q(&st, "SELECT count(*) FROM items"), stats.seen - 1);
	n = (int)stats.seen;
	gh_stats_release(&stats);

	/* the same call again asks for the failed issue and stores it */
	mock_faults("[]");
	OK(gh_fetch(&st, &o, &stats, &e_));
	assert_int_equal(stats.nr_failed, 0);
	assert_int_equal(stats.kept, 1);
	assert_int_equal(q(&st, "SELECT count(*) FROM items"), n);
	matches_expected(&st, "acme/small", 0);
	gh_stats_release(&stats);
	store_close(&st);
}

static void test_fetch_list(void **state)
{
	struct gh_fetch_opts o;
	struct gh_stats stats;
	struct gh_ref *refs;
	struct store st;
	struct err e = ERR_INIT;
	size_t nr;
	static const char text[] = "acme/small#1\n"
		"https://github.com/acme/small/issues/2\n"
		"acme/small#999\n";

	(void)state;
	mock_reset();
	study(&st);
	assert_int_equal(gh_parse_refs(text, strlen(text), "list", &refs, &nr,
				       &e), 0);
	opts_init(&o, NULL);
	OK(gh_fetch_list(&st, &o, refs, nr, &stats, &e_));
	/* #999 does not exist: listed as failed, not stored; #2 is a
	 * pull request, stored as an item of its own that is its own fix */
	assert_int_equal(stats.kept, 2);
	assert_int_equal(stats.pulls_alone, 1);
	assert_int_equal(stats.nr_failed, 1);
	assert_string_equal(stats.failed[0].repo, "acme/small");
	assert_int_equal(stats.failed[0].number, 999);
	assert_non_null(strstr(stats.failed[0].what, "404"));
	assert_int_equal(q(&st, "SELECT count(*) FROM items"), 2);
	{
		struct item it;
		long long id = item_find(&st, "acme/small#2", &e);

		assert_true(id > 0);
		memset(&it, 0, sizeof(it));
		OK(item_load(&st, id, &it, &e_));
		assert_true(it.is_pull);
		assert_int_equal(it.nr_fixes, 1);
		assert_int_equal(it.fixes[0].number, 2);
		assert_non_null(it.fixes[0].diff);
		item_release(&it);
		id = item_find(&st, "acme/small#1", &e);
		memset(&it, 0, sizeof(it));
		OK(item_load(&st, id, &it, &e_));
		assert_false(it.is_pull);
		item_release(&it);
	}
	gh_stats_release(&stats);
	gh_refs_free(refs, nr);
	store_close(&st);
}

/* A client on `st` for the mock, with the test's short back-off. */
static struct ghc *mock_client(struct store *st, struct gh_fetch_opts *o,
			       struct gh_stats *stats)
{
	struct err e = ERR_INIT;
	struct ghc *c;

	memset(stats, 0, sizeof(*stats));
	stats->rate_remaining = stats->rate_limit = -1;
	opts_init(o, "acme/small");
	c = ghc_new(st, o, stats, &e);
	if (!c)
		fail_msg("%s", e.msg);
	return c;
}

/* Read the pages from `first` on, following rel="next": how many pages,
 * how many objects in all; *cached counts the pages answered by a 304. */
static int read_pages(struct ghc *c, const char *first, int *objects,
		      int *cached)
{
	char *url = xstrdup(first);
	int pages = 0;

	*objects = *cached = 0;
	while (url) {
		struct ghc_resp r;
		cJSON *j;

		OK(ghc_request(c, url, GHC_JSON, NULL, &r, &j, &e_));
		assert_true(cJSON_IsArray(j));
		*objects += cJSON_GetArraySize(j);
		*cached += r.cached;
		pages++;
		free(url);
		url = gh_link_next(r.link);
		cJSON_Delete(j);
		ghc_resp_clear(&r);
		assert_true(pages < 100);
	}
	return pages;
}

static void test_client_paging(void **state)
{
	struct gh_fetch_opts o;
	struct gh_stats stats;
	struct store st;
	struct buf url = BUF_INIT;
	struct ghc *c;
	int all, n, cached, pages;
	long counted;

	(void)state;
	mock_reset();
	study(&st);
	c = mock_client(&st, &o, &stats);
	buf_addf(&url, "%s/repos/acme/small/issues?state=all&per_page=100",
		 mock_url);
	/* one page holds them all: no next link */
	assert_int_equal(read_pages(c, url.ptr, &all, &cached), 1);
	assert_true(all > 5);
	assert_int_equal(cached, 0);

	/* five a page: every page read once, through the Link headers */
	cJSON_Delete(control("/_control/config", "{\"page_size\": 5}"));
	buf_reset(&url);
	buf_addf(&url, "%s/repos/acme/small/issues?state=all&per_page=5",
		 mock_url);
	pages = read_pages(c, url.ptr, &n, &cached);
	assert_int_equal(n, all);
	assert_int_equal(pages, (all + 4) / 5);
	assert_int_equal(cached, 0);
	counted = stats.counted;
	assert_int_equal(counted, 1 + pages);

	/* again: each page a 304 whose Link header comes from the cache,
	   so the paging goes on without a counted request */
	assert_int_equal(read_pages(c, url.ptr, &n, &cached), pages);
	assert_int_equal(n, all);
	assert_int_equal(cached, pages);
	assert_int_equal(stats.counted, counted);
	assert_int_equal(stats.not_modified, pages);
	assert_int_equal(mock_counted(), counted);
	ghc_free(c);
	store_close(&st);
	buf_release(&url);
}

static void test_client_diff_not_modified(void **state)
{
	struct gh_fetch_opts o;
	struct gh_stats stats;
	struct store st;
	struct ghc_resp r;
	struct buf url = BUF_INIT, sql = BUF_INIT;
	struct ghc *c;
	cJSON *pulls;
	long long number;

	(void)state;
	mock_reset();
	study(&st);
	c = mock_client(&st, &o, &stats);
	pulls = control("/_control/pulls?repo=acme/small", NULL);
	assert_true(cJSON_GetArraySize(pulls) > 0);
	number = (long long)jnum(cJSON_GetArrayItem(pulls, 0), "number", 0);
	assert_true(number > 0);
	cJSON_Delete(pulls);
	buf_addf(&url, "%s/repos/acme/small/pulls/%lld", mock_url, number);

	OK(ghc_request(c, url.ptr, GHC_DIFF, NULL, &r, NULL, &e_));
	assert_int_equal(r.status, 200);
	assert_int_equal(r.cached, 0);
	assert_true(!strncmp(r.body.ptr, "diff --git ", 11));
	ghc_resp_clear(&r);
	/* kept under URL#diff, without its body (the fixes hold diffs) */
	buf_addf(&sql, "SELECT count(*) FROM http_cache WHERE url = '%s#diff' "
		 "AND body IS NULL AND etag IS NOT NULL", url.ptr);
	assert_int_equal(q(&st, sql.ptr), 1);

	/* a 304 for a diff comes back as such, with no body to reuse */
	OK(ghc_request(c, url.ptr, GHC_DIFF, NULL, &r, NULL, &e_));
	assert_int_equal(r.status, 304);
	assert_int_equal(r.cached, 1);
	assert_int_equal(r.body.len, 0);
	ghc_resp_clear(&r);
	assert_int_equal(stats.counted, 1);
	assert_int_equal(stats.not_modified, 1);
	ghc_free(c);
	store_close(&st);
	buf_release(&url);
	buf_release(&sql);
}

static void test_client_rate_limits(void **state)
{
	struct gh_fetch_opts o;
	struct gh_stats stats;
	struct store st;
	struct ghc_resp r;
	struct buf url = BUF_INIT;
	struct ghc *c;
	cJSON *j, *ms;

	(void)state;
	mock_reset();
	study(&st);
	c = mock_client(&st, &o, &stats);

	/* the primary limit answered (403, remaining 0): waited out until
	   its reset, then asked again */
	mock_faults("[{\"path\": \"^/repos/acme/small/issues/1$\", \"kind\": "
		    "\"ratelimit403\", \"arg\": 1, \"times\": 1}]");
	buf_addf(&url, "%s/repos/acme/small/issues/1", mock_url);
	OK(ghc_request(c, url.ptr, GHC_JSON, NULL, &r, &j, &e_));
	assert_int_equal(r.status, 200);
	assert_true(cJSON_GetObjectItem(j, "number")->valuedouble == 1);
	assert_true(stats.waited >= 1);
	assert_int_equal(stats.requests, 2);
	assert_int_equal(stats.retries, 0);
	assert_int_equal(stats.waiting, 0);
	assert_null(stats.wait_reason);
	cJSON_Delete(j);
	ghc_resp_clear(&r);

	/* a 429 with retry-after: 0, and a secondary limit without
	   retry-after (a minute of back-off steps): each waited and
	   retried */
	mock_faults("[{\"path\": \"^/repos/acme/small/issues/2$\", \"kind\": "
		    "\"429\", \"arg\": 0, \"times\": 1}, "
		    "{\"path\": \"^/repos/acme/small/issues/3$\", \"kind\": "
		    "\"secondary_noretry\", \"times\": 1}]");
	buf_reset(&url);
	buf_addf(&url, "%s/repos/acme/small/issues/2", mock_url);
	OK(ghc_request(c, url.ptr, GHC_JSON, NULL, &r, &j, &e_));
	assert_int_equal(r.status, 200);
	assert_int_equal(stats.retries, 1);
	cJSON_Delete(j);
	ghc_resp_clear(&r);
	buf_reset(&url);
	buf_addf(&url, "%s/repos/acme/small/issues/3", mock_url);
	OK(ghc_request(c, url.ptr, GHC_JSON, NULL, &r, &j, &e_));
	assert_int_equal(r.status, 200);
	assert_int_equal(stats.retries, 2);
	assert_int_equal(stats.requests, 6);
	cJSON_Delete(j);
	ghc_resp_clear(&r);

	/* a budget the last answer showed spent is waited for before
	   asking: the mock never has to refuse */
	mock_faults("[]");
	cJSON_Delete(control("/_control/config", "{\"ratelimit\": "
			     "{\"resource\": \"core\", \"remaining\": 1, "
			     "\"reset_in\": 1}}"));
	buf_reset(&url);
	buf_addf(&url, "%s/repos/acme/small/issues/4", mock_url);
	OK(ghc_request(c, url.ptr, GHC_JSON, NULL, &r, &j, &e_));
	assert_int_equal(r.rl_remaining, 0);
	assert_int_equal(stats.rate_remaining, 0);
	cJSON_Delete(j);
	ghc_resp_clear(&r);
	stats.waited = 0;
	buf_reset(&url);
	buf_addf(&url, "%s/repos/acme/small/issues/5", mock_url);
	OK(ghc_request(c, url.ptr, GHC_JSON, NULL, &r, &j, &e_));
	assert_int_equal(r.status, 200);
	assert_true(stats.waited >= 1);
	assert_true(stats.rate_remaining > 0);
	assert_int_equal(stats.requests, 8);
	cJSON_Delete(j);
	ghc_resp_clear(&r);
	ms = control("/_control/stats", NULL);
	assert_null(cJSON_GetObjectItem(cJSON_GetObjectItem(ms, "by_kind"),
					"limited"));
	cJSON_Delete(ms);
	ghc_free(c);
	store_close(&st);
	buf_release(&url);
}

static void test_client_retries(void **state)
{
	static volatile sig_atomic_t stop;
	struct gh_fetch_opts o;
	struct gh_stats stats;
	struct store st;
	struct ghc_resp r;
	struct err e = ERR_INIT;
	struct buf url = BUF_INIT, want = BUF_INIT;
	struct ghc *c;
	cJSON *j;

	(void)state;
	mock_reset();
	study(&st);
	c = mock_client(&st, &o, &stats);

	/* a connection reset mid-body and a truncated body: retried */
	mock_faults("[{\"path\": \"^/repos/acme/small/issues/1$\", \"kind\": "
		    "\"reset\", \"times\": 1}, "
		    "{\"path\": \"^/repos/acme/small/issues/2$\", \"kind\": "
		    "\"truncate\", \"times\": 1}]");
	buf_addf(&url, "%s/repos/acme/small/issues/1", mock_url);
	OK(ghc_request(c, url.ptr, GHC_JSON, NULL, &r, &j, &e_));
	assert_true(cJSON_GetObjectItem(j, "number")->valuedouble == 1);
	assert_int_equal(stats.retries, 1);
	cJSON_Delete(j);
	ghc_resp_clear(&r);
	buf_reset(&url);
	buf_addf(&url, "%s/repos/acme/small/issues/2", mock_url);
	OK(ghc_request(c, url.ptr, GHC_JSON, NULL, &r, &j, &e_));
	assert_true(cJSON_GetObjectItem(j, "number")->valuedouble == 2);
	assert_int_equal(stats.retries, 2);
	cJSON_Delete(j);
	ghc_resp_clear(&r);

	/* with GHC_NO_RETRY a 5xx fails at once, without the count */
	mock_faults("[{\"path\": \"^/repos/acme/small/issues/3$\", \"kind\": "
		    "\"status\", \"arg\": 502, \"times\": 1}]");
	buf_reset(&url);
	buf_addf(&url, "%s/repos/acme/small/issues/3", mock_url);
	assert_int_equal(ghc_request(c, url.ptr, GHC_JSON | GHC_NO_RETRY,
				     NULL, &r, &j, &e), -1);
	assert_int_equal(e.code, ERR_NET);
	buf_addf(&want, "GET %s: HTTP 502", url.ptr);
	assert_string_equal(e.msg, want.ptr);
	assert_null(j);
	assert_int_equal(stats.retries, 2);
	ghc_resp_clear(&r);
	/* the fault is spent: the next ask is answered */
	OK(ghc_request(c, url.ptr, GHC_JSON, NULL, &r, &j, &e_));
	cJSON_Delete(j);
	ghc_resp_clear(&r);
	mock_faults("[]");
	ghc_free(c);

	/* a stop already asked: no request at all */
	c = mock_client(&st, &o, &stats);
	stop = 1;
	o.stop = &stop;
	err_clear(&e);
	assert_int_equal(ghc_request(c, url.ptr, GHC_JSON, NULL, &r, &j, &e),
			 -1);
	assert_int_equal(e.code, ERR_INTERRUPTED);
	assert_string_equal(e.msg, "interrupted");
	assert_int_equal(stats.requests, 0);
	ghc_resp_clear(&r);
	ghc_free(c);
	store_close(&st);
	buf_release(&url);
	buf_release(&want);
}

int main(void)
{
	const struct CMUnitTest offline[] = {
		cmocka_unit_test(test_link_next),
		cmocka_unit_test(test_parse_refs),
		cmocka_unit_test(test_parse_refs_refused),
		cmocka_unit_test(test_fetch_options_refused),
		cmocka_unit_test(test_client_refusals),
	};
	const struct CMUnitTest mock[] = {
		cmocka_unit_test(test_client_cache_and_errors),
		cmocka_unit_test(test_client_paging),
		cmocka_unit_test(test_client_diff_not_modified),
		cmocka_unit_test(test_client_rate_limits),
		cmocka_unit_test(test_client_retries),
		cmocka_unit_test(test_fetch_repository),
		cmocka_unit_test(test_fetch_graphql_and_require_fix),
		cmocka_unit_test(test_fetch_failed_issue_then_resumed),
		cmocka_unit_test(test_fetch_list),
	};
	int rc;

	rc = cmocka_run_group_tests_name("offline", offline, NULL, NULL);
	rc += cmocka_run_group_tests_name("mock", mock, mock_start, mock_stop);
	return rc;
}
