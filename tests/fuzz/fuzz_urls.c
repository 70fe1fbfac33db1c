/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for lists of issue and pull request URLs (`import
 * LIST`: core/github/github's gh_parse_refs() and core/github/import_list's
 * import_list_text()): whatever the bytes, a list is either refused with
 * one line naming the file and its line, or read into references of a
 * valid owner/name and a number in range, on lines of the list, each of
 * which reads back from its owner/name#N form (item_name(),
 * item_parse_ref()); importing it into a small study (fuzz_study.h)
 * adds as many items as it says, or none with a one-line refusal.
 * Build with `make fuzz`; run as `tests/fuzz/fuzz_urls -max_total_time=60
 * tests/fuzz/seeds/urls`.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/github/github.h"
#include "core/study/import.h"
#include "core/study/item.h"
#include "tests/fuzz/fuzz_study.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static long long count(struct store *st, const char *sql)
{
	struct err e = ERR_INIT;
	sqlite3_stmt *s = store_prepare(st, sql, &e);
	long long n;

	if (!s || sqlite3_step(s) != SQLITE_ROW)
		abort();
	n = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return n;
}

static void check_refs(const char *text, size_t size)
{
	struct gh_ref *refs = NULL;
	struct err e = ERR_INIT;
	size_t nr = 0, i;
	long lines = 1;

	for (i = 0; i < size; i++)
		lines += text[i] == '\n';
	if (gh_parse_refs(text, size, "l.txt", &refs, &nr, &e) < 0) {
		if (strncmp(e.msg, "l.txt:", 6) || strchr(e.msg, '\n') ||
		    refs || nr)
			abort();
		return;
	}
	for (i = 0; i < nr; i++) {
		char *name, *repo = NULL;
		long long number;
		int kind;

		if (!refs[i].repo || !item_valid_repo(refs[i].repo) ||
		    refs[i].number < 1 || refs[i].number > ITEM_MAX_NUMBER ||
		    refs[i].line < 1 || refs[i].line > lines ||
		    (i && refs[i].line < refs[i - 1].line))
			abort();
		name = item_name(refs[i].repo, refs[i].number);
		if (item_parse_ref(name, &repo, &number, &kind) < 0 ||
		    strcmp(repo, refs[i].repo) || number != refs[i].number)
			abort();
		free(repo);
		free(name);
	}
	gh_refs_free(refs, nr);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_study *f = fuzz_study();
	struct import_stats stats;
	struct err e = ERR_INIT;
	long long items;
	int rc;

	check_refs((const char *)data, size);
	memset(&stats, 0, sizeof(stats));
	items = count(&f->st, "SELECT count(*) FROM items");
	fuzz_study_begin(f);
	rc = import_list_text(&f->st, &f->owner, (const char *)data, size,
			      "l.txt", &stats, &e);
	if (getenv("FUZZ_VERBOSE"))
		fprintf(stderr, "%s\n", rc < 0 ? e.msg : "imported");
	if (rc < 0) {
		if (strncmp(e.msg, "l.txt", 5) || strchr(e.msg, '\n') ||
		    count(&f->st, "SELECT count(*) FROM items") != items)
			abort();
	} else if (count(&f->st, "SELECT count(*) FROM items") !=
		   items + stats.added) {
		abort();
	}
	fuzz_study_end(f);
	return 0;
}
