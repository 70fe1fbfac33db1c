/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for `labels import` (core/study/labels_csv's
 * labels_import_text()): any sheet, long or wide, CSV or TSV, imported
 * by the owner or by an annotator, with or without --submit and
 * --annotator, into a small study (fuzz_study.h) is either refused with
 * one line naming the file and nothing written, or imported with counts
 * that hold together.  Build with `make fuzz`; run as
 * `tests/fuzz/fuzz_labels -max_total_time=60 tests/fuzz/seeds/labels`.
 * The first byte picks the options; the rest is the sheet.
 * FUZZ_VERBOSE=1 prints what became of each input.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/study/labels_csv.h"
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
	struct fuzz_study *f = fuzz_study();
	struct labels_import_stats stats;
	struct err e = ERR_INIT;
	const struct actor *a;
	long long labels, subs;
	int opts, rc;

	if (!size)
		return 0;
	opts = data[0];
	a = opts & 1 ? &f->alice : &f->owner;
	labels = count(&f->st, "SELECT count(*) FROM labels");
	subs = count(&f->st, "SELECT count(*) FROM submissions");
	fuzz_study_begin(f);
	rc = labels_import_text(&f->st, a, &f->cb, (const char *)data + 1,
				size - 1, "s.csv", opts & 2 ? 1 : 0,
				opts & 4 ? "bob" : NULL, NULL, &stats, &e);
	if (getenv("FUZZ_VERBOSE"))
		fprintf(stderr, "%s\n", rc < 0 ? e.msg : "imported");
	if (rc < 0) {
		if (!e.msg[0] || strchr(e.msg, '\n') ||
		    strncmp(e.msg, "s.csv", 5))
			abort();
		/* the import rolled back: ours too */
		if (!sqlite3_get_autocommit(f->st.db) ||
		    count(&f->st, "SELECT count(*) FROM labels") != labels ||
		    count(&f->st, "SELECT count(*) FROM submissions") != subs)
			abort();
	} else if (stats.rows < stats.labels || stats.labels < 0 ||
		   stats.submitted < 0 ||
		   (stats.submitted && !(opts & 2) && stats.rows == 0)) {
		abort();
	}
	fuzz_study_end(f);
	return 0;
}
