/* SPDX-License-Identifier: MIT */
/*
 * t_ghmap: GitHub's JSON answers mapped to items, comments, fixes and
 * rebuilt diffs (core/github/gh_map.c), without a server: each answer is written
 * here in GitHub's shape, cut down to the fields that matter.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/github/gh_map.h"
#include "core/github/github.h"

#define API "https://api.github.com"

static const struct gh_scope SCOPE = { "acme/big", "acme/Big", API };

static cJSON *parse(const char *text)
{
	cJSON *j = cJSON_Parse(text);

	if (!j)
		fail_msg("bad test JSON near: %.40s", cJSON_GetErrorPtr());
	return j;
}

static void test_item_from_issue(void **state)
{
	cJSON *j = parse("{\"number\": 42, \"title\": \"hang\", \"body\": null,"
			 " \"state\": \"closed\", \"state_reason\": "
			 "\"completed\", \"user\": null, \"labels\": [{\"name\":"
			 " \"bug\"}, \"p1\", {\"id\": 3}], \"comments\": 7,"
			 " \"created_at\": \"2024-01-01T00:00:00Z\", "
			 "\"closed_at\": \"2024-01-03T00:00:00Z\", \"html_url\":"
			 " \"https://github.com/acme/big/issues/42\"}");
	struct item it;
	struct err e = ERR_INIT;

	(void)state;
	assert_int_equal(gh_item_from_issue(&it, "acme/big", j, &e), 0);
	assert_int_equal(it.number, 42);
	assert_string_equal(it.title, "hang");
	assert_null(it.body);
	assert_null(it.author);		/* a deleted account */
	assert_int_equal(it.nr_labels, 2);
	assert_string_equal(it.labels[0], "bug");
	assert_string_equal(it.labels[1], "p1");
	assert_int_equal(it.comment_count, 7);
	assert_string_equal(it.url, "https://github.com/acme/big/issues/42");
	item_release(&it);
	cJSON_Delete(j);

	j = parse("{\"number\": 1e300, \"title\": \"x\"}");
	assert_int_equal(gh_item_from_issue(&it, "acme/big", j, &e), -1);
	assert_int_equal(e.code, ERR_INPUT);
	cJSON_Delete(j);
	j = parse("{\"number\": 3}");
	assert_int_equal(gh_item_from_issue(&it, "acme/big", j, &e), -1);
	cJSON_Delete(j);
}

static void test_link_next(void **state)
{
	char *n;

	(void)state;
	n = gh_link_next("<" API "/repositories/1/issues?page=2>; rel=\"next\", "
			 "<" API "/repositories/1/issues?page=9>; rel=\"last\"");
	assert_string_equal(n, API "/repositories/1/issues?page=2");
	free(n);
	n = gh_link_next("<" API "/x?page=1>; rel=\"prev\", <" API
			 "/x?page=3>; rel=\"next\"");
	assert_string_equal(n, API "/x?page=3");
	free(n);
	assert_null(gh_link_next("<" API "/x?page=1>; rel=\"prev\""));
	assert_null(gh_link_next(""));
	assert_null(gh_link_next(NULL));
}

/* a pull request as the query's `...P` fragment answers it; `merged` is
 * "true" or "false" */
#define PR(n, repo, merged) \
	"{\"number\": " #n ", \"title\": \"Fix " #n "\", \"body\": \"b\", " \
	"\"url\": \"https://github.com/" repo "/pull/" #n "\", \"merged\": " \
	merged ", \"mergedAt\": \"2024-01-02T00:00:00Z\", \"additions\": 3, " \
	"\"deletions\": 1, \"changedFiles\": 1, \"repository\": " \
	"{\"nameWithOwner\": \"" repo "\"}}"

static void test_graphql_issue(void **state)
{
	/* comments; a closing reference (merged, ours); cross-references
	 * from an unmerged one and another repository's; a connected
	 * one; a closing commit of other/lib whose pull request there
	 * is the fix */
	static const char answer[] =
		"{\"number\": 5, \"comments\": {\"totalCount\": 2, \"nodes\": ["
		"{\"author\": {\"login\": \"alice\"}, \"createdAt\": \"t1\", "
		"\"body\": \"first\"}, {\"author\": null, \"createdAt\": \"t2\", "
		"\"body\": \"second\"}]}, "
		"\"closedByPullRequestsReferences\": {\"pageInfo\": "
		"{\"hasNextPage\": false}, \"nodes\": [" PR(10, "acme/big", "true")
		"]}, \"timelineItems\": {\"pageInfo\": {\"hasNextPage\": false}, "
		"\"nodes\": ["
		"{\"__typename\": \"CrossReferencedEvent\", \"source\": "
		PR(11, "acme/big", "false") "}, "
		"{\"__typename\": \"CrossReferencedEvent\", \"source\": "
		PR(12, "someone/fork", "true") "}, "
		"{\"__typename\": \"ConnectedEvent\", \"subject\": "
		PR(13, "acme/Big", "true") "}, "
		"{\"__typename\": \"ClosedEvent\", \"closer\": {\"__typename\": "
		"\"Commit\", \"oid\": \"abc\", \"repository\": {\"nameWithOwner\":"
		" \"other/lib\"}, \"associatedPullRequests\": {\"pageInfo\": "
		"{\"hasNextPage\": false}, \"nodes\": [" PR(7, "other/lib", "true")
		"]}}}]}}";
	cJSON *j = parse(answer);
	struct gh_gathered g;
	cJSON *info;

	(void)state;
	memset(&g, 0, sizeof(g));
	gh_map_graphql_issue(&SCOPE, j, &g);
	assert_true(g.complete);
	assert_int_equal(g.comments.nr, 2);
	assert_string_equal(g.comments.v[0].author, "alice");
	assert_null(g.comments.v[1].author);
	assert_int_equal(g.prs.nr, 3);
	assert_int_equal(g.prs.v[0].number, 10);
	assert_null(g.prs.v[0].repo);
	assert_int_equal(g.prs.v[0].additions, 3);
	assert_string_equal(g.prs.v[0].merged_at, "2024-01-02T00:00:00Z");
	assert_int_equal(g.prs.v[1].number, 13);	/* canonical name */
	assert_int_equal(g.prs.v[2].number, 7);
	assert_string_equal(g.prs.v[2].repo, "other/lib");
	gh_gathered_release(&g);

	/* more closing pull requests than the first page: REST asks */
	info = cJSON_GetObjectItem(cJSON_GetObjectItem(j,
		"closedByPullRequestsReferences"), "pageInfo");
	cJSON_ReplaceItemInObject(info, "hasNextPage", cJSON_CreateTrue());
	gh_map_graphql_issue(&SCOPE, j, &g);
	assert_false(g.complete);
	gh_gathered_release(&g);
	cJSON_ReplaceItemInObject(info, "hasNextPage", cJSON_CreateFalse());
	/* fewer comments than counted: REST asks */
	cJSON_SetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(j,
		"comments"), "totalCount"), 130);
	gh_map_graphql_issue(&SCOPE, j, &g);
	assert_false(g.complete);
	gh_gathered_release(&g);
	/* no answer (a transferred issue) */
	gh_map_graphql_issue(&SCOPE, NULL, &g);
	assert_false(g.complete);
	gh_gathered_release(&g);
	cJSON_Delete(j);
}

#define XREF(n, repo, merged) \
	"{\"event\": \"cross-referenced\", \"source\": {\"type\": \"issue\", " \
	"\"issue\": {\"number\": " #n ", \"title\": \"PR " #n "\", \"body\": " \
	"\"b\", \"html_url\": \"https://github.com/" repo "/pull/" #n "\", " \
	"\"url\": \"" API "/repos/" repo "/issues/" #n "\", " \
	"\"repository\": {\"full_name\": \"" repo "\"}, \"pull_request\": {" \
	merged "}}}}"

static void test_timeline_page(void **state)
{
	static const char page[] = "["
		"{\"event\": \"labeled\"}, "
		"{\"event\": \"commented\", \"user\": {\"login\": \"bob\"}, "
		"\"created_at\": \"t1\", \"body\": \"hi\"}, "
		"{\"event\": \"commented\", \"user\": null, \"actor\": "
		"{\"login\": \"x\"}, \"created_at\": \"t2\", \"body\": \"ghost\"}, "
		XREF(20, "acme/big", "\"merged_at\": \"2024-02-01T00:00:00Z\"") ", "
		XREF(21, "acme/big", "\"merged_at\": null") ", "
		XREF(22, "acme/big", "\"url\": \"u\"") ", "
		XREF(23, "someone/fork", "\"merged_at\": \"2024\"") ", "
		"{\"event\": \"closed\", \"commit_id\": \"0123abcd\", "
		"\"commit_url\": \"" API "/repos/other/lib/commits/0123abcd\"}, "
		"{\"event\": \"closed\", \"commit_id\": \"4567abcd\", "
		"\"commit_url\": \"https://elsewhere.example/repos/a/b/commits/"
		"4567abcd\"}, "
		"{\"event\": \"closed\", \"commit_id\": \"not hex\"}]";
	static const char pulls[] = "["
		"{\"number\": 7, \"merged_at\": \"2024-03-01T00:00:00Z\", "
		"\"title\": \"t\", \"url\": \"" API "/repos/other/lib/pulls/7\", "
		"\"html_url\": \"https://github.com/other/lib/pull/7\", "
		"\"additions\": 2, \"deletions\": 0, \"changed_files\": 1}, "
		"{\"number\": 8, \"merged_at\": null, \"url\": \"" API
		"/repos/other/lib/pulls/8\"}]";
	cJSON *j = parse(page), *p = parse(pulls);
	struct gh_gathered g;

	(void)state;
	memset(&g, 0, sizeof(g));
	gh_map_timeline_page(&SCOPE, j, &g);
	assert_int_equal(g.comments.nr, 2);
	assert_string_equal(g.comments.v[0].author, "bob");
	assert_null(g.comments.v[1].author);	/* the user was deleted */
	assert_int_equal(g.prs.nr, 1);
	assert_int_equal(g.prs.v[0].number, 20);
	assert_int_equal(g.prs.v[0].additions, -1);
	/* no merged_at key at all: asked for, not taken as unmerged */
	assert_int_equal(g.prs.nr_unsure, 1);
	assert_int_equal(g.prs.unsure[0], 22);
	/* the commit_url as given; one off the API is built anew */
	assert_int_equal(g.prs.nr_commits, 2);
	assert_string_equal(g.prs.commits[0], API "/repos/other/lib/commits/"
			    "0123abcd/pulls?per_page=100");
	assert_string_equal(g.prs.commits[1], API "/repos/acme/big/commits/"
			    "4567abcd/pulls?per_page=100");
	/* the commit of other/lib: its merged pull request is the fix */
	gh_map_commit_pulls(&SCOPE, g.prs.commits[0], p, &g);
	assert_int_equal(g.prs.nr, 2);
	assert_string_equal(g.prs.v[1].repo, "other/lib");
	assert_int_equal(g.prs.v[1].number, 7);
	assert_int_equal(g.prs.v[1].additions, 2);
	/* the same list under a commit of this repository: not ours */
	gh_gathered_release(&g);
	gh_map_commit_pulls(&SCOPE, API "/repos/acme/big/commits/1/pulls", p,
			    &g);
	assert_int_equal(g.prs.nr, 0);
	gh_gathered_release(&g);
	cJSON_Delete(j);
	cJSON_Delete(p);
}

static void test_files_page(void **state)
{
	static const char page[] = "["
		"{\"filename\": \"a.py\", \"status\": \"modified\", "
		"\"additions\": 1, \"deletions\": 1, \"patch\": \"@@ -1 +1 @@\\n"
		"-x\\n+y\"}, "
		"{\"filename\": \"new.py\", \"status\": \"added\", "
		"\"additions\": 1, \"deletions\": 0, \"patch\": \"@@ -0,0 +1 @@\\n"
		"+z\\n\"}, "
		"{\"filename\": \"b.py\", \"previous_filename\": \"old.py\", "
		"\"status\": \"renamed\", \"additions\": 0, \"deletions\": 0}, "
		"{\"filename\": \"c.py\", \"previous_filename\": \"a.py\", "
		"\"status\": \"copied\", \"additions\": 2, \"deletions\": 0, "
		"\"patch\": \"@@ -1 +1,2 @@\\n x\\n+w\"}, "
		"{\"filename\": \"logo.png\", \"status\": \"added\", "
		"\"additions\": 0, \"deletions\": 0}, "
		"{\"filename\": \"gone.bin\", \"status\": \"removed\", "
		"\"additions\": 0, \"deletions\": 0}, "
		"{\"status\": \"modified\"}]";
	static const char want[] =
		"diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n"
		"@@ -1 +1 @@\n-x\n+y\n"
		"diff --git a/new.py b/new.py\nnew file mode 100644\n"
		"--- /dev/null\n+++ b/new.py\n@@ -0,0 +1 @@\n+z\n"
		"diff --git a/old.py b/b.py\nrename from old.py\nrename to b.py\n"
		"diff --git a/a.py b/c.py\ncopy from a.py\ncopy to c.py\n"
		"--- a/a.py\n+++ b/c.py\n@@ -1 +1,2 @@\n x\n+w\n"
		"diff --git a/logo.png b/logo.png\nnew file mode 100644\n"
		"Binary files /dev/null and b/logo.png differ\n"
		"diff --git a/gone.bin b/gone.bin\ndeleted file mode 100644\n"
		"Binary files a/gone.bin and /dev/null differ\n";
	cJSON *j = parse(page);
	struct gh_files fs;

	(void)state;
	memset(&fs, 0, sizeof(fs));
	buf_init(&fs.diff, 0);
	gh_map_files_page(j, &fs);
	assert_string_equal(fs.diff.ptr, want);
	assert_int_equal(fs.additions, 4);
	assert_int_equal(fs.deletions, 1);
	assert_int_equal(fs.files, 6);
	buf_release(&fs.diff);
	cJSON_Delete(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_item_from_issue),
		cmocka_unit_test(test_link_next),
		cmocka_unit_test(test_graphql_issue),
		cmocka_unit_test(test_timeline_page),
		cmocka_unit_test(test_files_page),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
