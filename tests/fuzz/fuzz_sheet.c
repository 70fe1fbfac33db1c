/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for `import` of a sheet of known bugs (core/
 * import_list's import_csv_text()): any CSV or TSV, with or without
 * --column options, imported by the owner into a small study
 * (fuzz_study.h) is either refused with one line (naming the file, or
 * the --column at fault) and no item added, or stored with counts that
 * add up to the items the study gained.  Build with `make fuzz`; run as
 * `tests/fuzz/fuzz_sheet -max_total_time=60 tests/fuzz/seeds/sheet`.
 * The first byte picks the --column options; the rest is the sheet.
 * FUZZ_VERBOSE=1 prints what became of each input.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/study/import.h"
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const columns[][2] = {
		{ NULL, NULL },
		{ "url=Link", NULL },
		{ "repo=Project", "number=ID" },
		{ "pr=fix", "title" },		/* no '=': refused */
	};
	struct fuzz_study *f = fuzz_study();
	struct import_stats stats;
	struct import_opts o;
	struct err e = ERR_INIT;
	long long items;
	int rc, k;

	if (!size)
		return 0;
	k = data[0] % 4;
	o.columns = columns[k];
	o.nr_columns = columns[k][1] ? 2 : columns[k][0] ? 1 : 0;
	memset(&stats, 0, sizeof(stats));
	items = count(&f->st, "SELECT count(*) FROM items");
	fuzz_study_begin(f);
	rc = import_csv_text(&f->st, &f->owner, (const char *)data + 1,
			     size - 1, "k.csv", &o, &stats, &e);
	if (getenv("FUZZ_VERBOSE"))
		fprintf(stderr, "%s\n", rc < 0 ? e.msg : "imported");
	if (rc < 0) {
		if (!e.msg[0] || strchr(e.msg, '\n') ||
		    (strncmp(e.msg, "k.csv", 5) &&
		     strncmp(e.msg, "--column", 8)))
			abort();
		if (count(&f->st, "SELECT count(*) FROM items") != items)
			abort();
	} else if (stats.added < 0 || stats.updated < 0 || stats.kept < 0 ||
		   stats.missing < 0 ||
		   count(&f->st, "SELECT count(*) FROM items") !=
		   items + stats.added) {
		abort();
	}
	fuzz_study_end(f);
	return 0;
}
