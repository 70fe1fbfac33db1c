/* SPDX-License-Identifier: MIT */
/*
 * t_diff: unit tests for core/base/diff.c.
 *
 * The main fixture is a git format-patch email with six files (a change
 * whose hunk holds "--- a/..." and "+++ b/..." lines that are content, a
 * rename, a new file without a final newline, two binary files, a
 * deletion) followed by the "-- " signature.  It is written as a table of
 * (line, expected kind), so every line's classification is checked; the
 * same table is replayed with CRLF line ends.  assert_sane_diff() checks
 * the structural invariants after every parse.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/base/buf.h"
#include "core/base/diff.h"

#define LIT(s) (s), (sizeof(s) - 1)

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * Invariants of any parse of text[0..len):
 *  - lines tile the text in order: each starts where the previous ended
 *    (after its newline), and its length leaves out only "\n" or "\r\n";
 *  - files are in order and contiguous, the last one reaching the end;
 *  - the hunk index lists exactly the DIFF_HUNK lines, in order;
 *  - per-file and total counts match the DIFF_ADD/DIFF_DEL lines;
 *  - diff_count() agrees with the parse.
 */
static void assert_sane_diff(const struct diff *d, const char *text,
			     size_t len)
{
	size_t i, off = 0, h = 0;
	int adds = 0, dels = 0, c_adds, c_dels, c_files;

	for (i = 0; i < d->nr_lines; i++) {
		const struct diff_line line = diff_line_at(d, i);
		const struct diff_line *l = &line;
		size_t end = l->off + l->len;

		assert_int_equal(l->off, off);
		assert_true(end <= len);
		assert_true(l->kind <= DIFF_NOEOL);
		assert_null(memchr(text + l->off, '\n', l->len));
		if (end < len && text[end] == '\r' &&
		    (end + 1 == len || text[end + 1] == '\n'))
			end++;
		assert_true(end == len || text[end] == '\n');
		off = end == len ? len : end + 1;
		if (l->kind == DIFF_HUNK) {
			assert_true(h < d->nr_hunks);
			assert_int_equal(d->hunks[h], i);
			h++;
		}
		if (l->kind == DIFF_ADD)
			adds++;
		if (l->kind == DIFF_DEL)
			dels++;
	}
	assert_int_equal(off, len);
	assert_int_equal(h, d->nr_hunks);
	assert_int_equal(adds, d->additions);
	assert_int_equal(dels, d->deletions);

	adds = dels = 0;
	for (i = 0; i < d->nr_files; i++) {
		const struct diff_file *f = &d->files[i];
		size_t k;
		int fa = 0, fd = 0;

		if (i + 1 < d->nr_files)
			assert_int_equal(f->first_line + f->nr_lines,
					 d->files[i + 1].first_line);
		else
			assert_int_equal(f->first_line + f->nr_lines,
					 d->nr_lines);
		assert_true(f->nr_lines >= 1);
		for (k = f->first_line; k < f->first_line + f->nr_lines; k++) {
			fa += diff_line_at(d, k).kind == DIFF_ADD;
			fd += diff_line_at(d, k).kind == DIFF_DEL;
		}
		assert_int_equal(fa, f->additions);
		assert_int_equal(fd, f->deletions);
		adds += fa;
		dels += fd;
	}
	assert_int_equal(adds, d->additions);
	assert_int_equal(dels, d->deletions);
	if (d->nr_files) {
		/* nothing before the first file is an add or delete */
		for (i = 0; i < d->files[0].first_line; i++)
			assert_true(diff_line_at(d, i).kind != DIFF_ADD &&
				    diff_line_at(d, i).kind != DIFF_DEL &&
				    diff_line_at(d, i).kind != DIFF_HUNK);
	}

	diff_count(text, len, &c_adds, &c_dels, &c_files);
	assert_int_equal(c_adds, d->additions);
	assert_int_equal(c_dels, d->deletions);
	assert_int_equal(c_files, (int)d->nr_files);
}

/* A reader that hands out a fresh copy each time and frees the last, so
 * a parser that keeps a pointer across reads trips ASan. */
struct copy_reader {
	const char *text;
	char *last;
	size_t reads;
};

static const char *copy_read(void *arg, size_t off, size_t n)
{
	struct copy_reader *r = arg;

	free(r->last);
	r->last = xmalloc(n + 1);
	memcpy(r->last, r->text + off, n);
	r->reads++;
	return r->last;
}

/* The streaming parse must give exactly what diff_parse() gives. */
static void assert_same_streamed(const struct diff *d, const char *text,
				 size_t len)
{
	struct copy_reader r = { text, NULL, 0 };
	struct diff s = DIFF_INIT;
	size_t i;

	diff_parse_read(&s, copy_read, &r, len);
	free(r.last);
	assert_int_equal(s.nr_lines, d->nr_lines);
	for (i = 0; i < d->nr_lines; i++) {
		assert_int_equal(diff_line_at(&s, i).off, diff_line_at(d, i).off);
		assert_int_equal(diff_line_at(&s, i).len, diff_line_at(d, i).len);
		assert_int_equal(diff_line_at(&s, i).kind, diff_line_at(d, i).kind);
	}
	assert_int_equal(s.nr_files, d->nr_files);
	for (i = 0; i < d->nr_files; i++) {
		assert_int_equal(s.files[i].first_line, d->files[i].first_line);
		assert_int_equal(s.files[i].nr_lines, d->files[i].nr_lines);
		assert_int_equal(s.files[i].additions, d->files[i].additions);
		assert_int_equal(s.files[i].deletions, d->files[i].deletions);
		assert_int_equal(s.files[i].binary, d->files[i].binary);
		if (d->files[i].new_path)
			assert_string_equal(s.files[i].new_path,
					    d->files[i].new_path);
		if (d->files[i].old_path)
			assert_string_equal(s.files[i].old_path,
					    d->files[i].old_path);
	}
	assert_int_equal(s.nr_hunks, d->nr_hunks);
	for (i = 0; i < d->nr_hunks; i++)
		assert_int_equal(s.hunks[i], d->hunks[i]);
	assert_int_equal(s.additions, d->additions);
	assert_int_equal(s.deletions, d->deletions);
	diff_release(&s);
}

static void parse(struct diff *d, const char *text, size_t len)
{
	diff_parse(d, text, len);
	assert_sane_diff(d, text, len);
	assert_same_streamed(d, text, len);
}

/* Line i's text, for comparisons. */
static void assert_line(const struct diff *d, const char *text, size_t i,
			int kind, const char *want)
{
	assert_true(i < d->nr_lines);
	assert_int_equal(diff_line_at(d, i).kind, kind);
	assert_int_equal(diff_line_at(d, i).len, strlen(want));
	assert_memory_equal(text + diff_line_at(d, i).off, want, strlen(want));
}

/* ---- the main fixture -------------------------------------------------- */

struct fixture_line {
	const char *text;
	int kind;
};

static const struct fixture_line multi[] = {
	/* 0: the email and its diffstat */
	{ "From 1a2b3c4d Mon Sep 17 00:00:00 2001", DIFF_OTHER },
	{ "Subject: [PATCH] Fix exit code, rename notes", DIFF_OTHER },
	{ "", DIFF_OTHER },
	{ "---", DIFF_OTHER },
	{ " src/main.c | 7 ++++---", DIFF_OTHER },
	{ "", DIFF_OTHER },
	/* 6: file 0, a hunk whose lines look like file headers */
	{ "diff --git a/src/main.c b/src/main.c", DIFF_FILE },
	{ "index 83db48f..bf269f4 100644", DIFF_META },
	{ "--- a/src/main.c", DIFF_META },
	{ "+++ b/src/main.c", DIFF_META },
	{ "@@ -1,5 +1,6 @@", DIFF_HUNK },
	{ " #include <stdio.h>", DIFF_CONTEXT },
	{ "+#include <stdlib.h>", DIFF_ADD },
	{ " ", DIFF_CONTEXT },
	{ " int main(void)", DIFF_CONTEXT },
	{ " {", DIFF_CONTEXT },
	{ "-\treturn 0;", DIFF_DEL },
	{ "+\treturn EXIT_SUCCESS;", DIFF_ADD },
	{ "@@ -20,4 +21,4 @@ static void helper(void)", DIFF_HUNK },
	{ " \tint x;", DIFF_CONTEXT },
	{ "--- a/b old comment", DIFF_DEL },
	{ "+++ b/b new comment", DIFF_ADD },
	{ "-x--;", DIFF_DEL },
	{ "+++x;", DIFF_ADD },
	{ " }", DIFF_CONTEXT },
	/* 25: file 1, a rename with an edit */
	{ "diff --git a/old name.txt b/new name.txt", DIFF_FILE },
	{ "similarity index 90%", DIFF_META },
	{ "rename from old name.txt", DIFF_META },
	{ "rename to new name.txt", DIFF_META },
	{ "index 1111111..2222222 100644", DIFF_META },
	{ "--- a/old name.txt", DIFF_META },
	{ "+++ b/new name.txt", DIFF_META },
	{ "@@ -1,2 +1,2 @@", DIFF_HUNK },
	{ "-old", DIFF_DEL },
	{ "+new", DIFF_ADD },
	{ " same", DIFF_CONTEXT },
	/* 36: file 2, new, no newline at its end */
	{ "diff --git a/docs/NEW.md b/docs/NEW.md", DIFF_FILE },
	{ "new file mode 100644", DIFF_META },
	{ "index 0000000..3333333", DIFF_META },
	{ "--- /dev/null", DIFF_META },
	{ "+++ b/docs/NEW.md", DIFF_META },
	{ "@@ -0,0 +1,2 @@", DIFF_HUNK },
	{ "+# New", DIFF_ADD },
	{ "+text", DIFF_ADD },
	{ "\\ No newline at end of file", DIFF_NOEOL },
	/* 45: file 3, binary */
	{ "diff --git a/img/logo.png b/img/logo.png", DIFF_FILE },
	{ "index 4444444..5555555 100644", DIFF_META },
	{ "Binary files a/img/logo.png and b/img/logo.png differ",
	  DIFF_META },
	/* 48: file 4, binary patch data */
	{ "diff --git a/bin.dat b/bin.dat", DIFF_FILE },
	{ "new file mode 100644", DIFF_META },
	{ "index 0000000..e3b0c44", DIFF_META },
	{ "GIT binary patch", DIFF_META },
	{ "literal 12", DIFF_META },
	{ "TcmZQzVBlh4VBlg%VBlf^00A!o", DIFF_META },
	{ "", DIFF_META },
	{ "literal 0", DIFF_META },
	{ "HcmV?d00001", DIFF_META },
	{ "", DIFF_META },
	/* 58: file 5, deleted */
	{ "diff --git a/gone.c b/gone.c", DIFF_FILE },
	{ "deleted file mode 100644", DIFF_META },
	{ "index 6666666..0000000", DIFF_META },
	{ "--- a/gone.c", DIFF_META },
	{ "+++ /dev/null", DIFF_META },
	{ "@@ -1,2 +0,0 @@", DIFF_HUNK },
	{ "-int gone;", DIFF_DEL },
	{ "-int also;", DIFF_DEL },
	/* 66: the signature is not a deletion */
	{ "-- ", DIFF_OTHER },
	{ "2.39.2", DIFF_OTHER },
	{ "", DIFF_OTHER },
};

#define MULTI_LINES (sizeof(multi) / sizeof(*multi))

static void build_multi(struct buf *b, const char *eol)
{
	size_t i;

	for (i = 0; i < MULTI_LINES; i++) {
		buf_addstr(b, multi[i].text);
		buf_addstr(b, eol);
	}
}

static void check_multi(const struct diff *d, const char *text)
{
	static const size_t hunks[] = { 10, 18, 32, 41, 63 };
	static const struct {
		const char *old_path, *new_path;
		size_t first, nr;
		int adds, dels, binary;
	} files[] = {
		{ "src/main.c", "src/main.c", 6, 19, 4, 3, 0 },
		{ "old name.txt", "new name.txt", 25, 11, 1, 1, 0 },
		{ "/dev/null", "docs/NEW.md", 36, 9, 2, 0, 0 },
		{ "img/logo.png", "img/logo.png", 45, 3, 0, 0, 1 },
		{ "/dev/null", "bin.dat", 48, 10, 0, 0, 1 },
		{ "gone.c", "/dev/null", 58, 11, 0, 2, 0 },
	};
	size_t i;

	assert_int_equal(d->nr_lines, MULTI_LINES);
	for (i = 0; i < MULTI_LINES; i++)
		assert_line(d, text, i, multi[i].kind, multi[i].text);
	assert_int_equal(d->nr_hunks, 5);
	for (i = 0; i < 5; i++)
		assert_int_equal(d->hunks[i], hunks[i]);
	assert_int_equal(d->nr_files, 6);
	for (i = 0; i < 6; i++) {
		const struct diff_file *f = &d->files[i];

		assert_string_equal(f->old_path, files[i].old_path);
		assert_string_equal(f->new_path, files[i].new_path);
		assert_int_equal(f->first_line, files[i].first);
		assert_int_equal(f->nr_lines, files[i].nr);
		assert_int_equal(f->additions, files[i].adds);
		assert_int_equal(f->deletions, files[i].dels);
		assert_int_equal(f->binary, files[i].binary);
	}
	assert_int_equal(d->additions, 7);
	assert_int_equal(d->deletions, 6);
}

static void test_multi_file(void **state)
{
	struct buf b = BUF_INIT;
	struct diff d = DIFF_INIT;
	int adds, dels, files;

	build_multi(&b, "\n");
	parse(&d, b.ptr, b.len);
	check_multi(&d, b.ptr);
	diff_count(b.ptr, b.len, &adds, &dels, &files);
	assert_int_equal(adds, 7);
	assert_int_equal(dels, 6);
	assert_int_equal(files, 6);
	diff_release(&d);
	assert_null(d.stride);
	assert_null(d.kind);
	assert_null(d.block_off);
	assert_null(d.longs);
	assert_int_equal(d.nr_files, 0);
	buf_release(&b);
}

static void test_multi_file_crlf(void **state)
{
	struct buf b = BUF_INIT;
	struct diff d = DIFF_INIT;

	build_multi(&b, "\r\n");
	parse(&d, b.ptr, b.len);
	check_multi(&d, b.ptr);
	diff_release(&d);
	buf_release(&b);
}

static void test_multi_file_no_final_newline(void **state)
{
	struct buf b = BUF_INIT;
	struct diff d = DIFF_INIT;

	build_multi(&b, "\n");
	/* cut the trailing "2.39.2\n\n" down to "2.39.2" */
	buf_setlen(&b, b.len - 2);
	parse(&d, b.ptr, b.len);
	assert_int_equal(d.nr_lines, MULTI_LINES - 1);
	assert_line(&d, b.ptr, MULTI_LINES - 2, DIFF_OTHER, "2.39.2");
	assert_int_equal(d.additions, 7);
	assert_int_equal(d.deletions, 6);
	diff_release(&d);
	buf_release(&b);
}

static void test_navigation(void **state)
{
	struct buf b = BUF_INIT;
	struct diff d = DIFF_INIT;

	build_multi(&b, "\n");
	parse(&d, b.ptr, b.len);
	/* hunks at 10, 18, 32, 41, 63 */
	assert_int_equal(diff_next_hunk(&d, 0), 10);
	assert_int_equal(diff_next_hunk(&d, 9), 10);
	assert_int_equal(diff_next_hunk(&d, 10), 18);
	assert_int_equal(diff_next_hunk(&d, 17), 18);
	assert_int_equal(diff_next_hunk(&d, 40), 41);
	assert_int_equal(diff_next_hunk(&d, 41), 63);
	assert_int_equal(diff_next_hunk(&d, 63), 63);
	assert_int_equal(diff_next_hunk(&d, 66), 66);
	assert_int_equal(diff_prev_hunk(&d, 0), 0);
	assert_int_equal(diff_prev_hunk(&d, 10), 10);
	assert_int_equal(diff_prev_hunk(&d, 11), 10);
	assert_int_equal(diff_prev_hunk(&d, 18), 10);
	assert_int_equal(diff_prev_hunk(&d, 19), 18);
	assert_int_equal(diff_prev_hunk(&d, 63), 41);
	assert_int_equal(diff_prev_hunk(&d, 68), 63);
	/* files at 6, 25, 36, 45, 48, 58 */
	assert_int_equal(diff_next_file(&d, 0), 6);
	assert_int_equal(diff_next_file(&d, 6), 25);
	assert_int_equal(diff_next_file(&d, 30), 36);
	assert_int_equal(diff_next_file(&d, 45), 48);
	assert_int_equal(diff_next_file(&d, 58), 58);
	assert_int_equal(diff_next_file(&d, 60), 60);
	assert_int_equal(diff_prev_file(&d, 0), 0);
	assert_int_equal(diff_prev_file(&d, 6), 6);
	assert_int_equal(diff_prev_file(&d, 7), 6);
	assert_int_equal(diff_prev_file(&d, 25), 6);
	assert_int_equal(diff_prev_file(&d, 47), 45);
	assert_int_equal(diff_prev_file(&d, 68), 58);
	diff_release(&d);
	buf_release(&b);
}

static void test_navigation_empty(void **state)
{
	struct diff d = DIFF_INIT;

	parse(&d, LIT("just some text\n"));
	assert_int_equal(diff_next_hunk(&d, 0), 0);
	assert_int_equal(diff_prev_hunk(&d, 0), 0);
	assert_int_equal(diff_next_file(&d, 0), 0);
	assert_int_equal(diff_prev_file(&d, 5), 5);
	diff_release(&d);
}

/* ---- other shapes ------------------------------------------------------ */

static void test_empty(void **state)
{
	struct diff d = DIFF_INIT;
	int a = -1, r = -1, f = -1;

	parse(&d, "", 0);
	assert_int_equal(d.nr_lines, 0);
	assert_int_equal(d.nr_files, 0);
	assert_int_equal(d.nr_hunks, 0);
	assert_int_equal(d.additions, 0);
	diff_release(&d);
	diff_release(&d);
	diff_release(NULL);
	diff_count("", 0, &a, &r, &f);
	assert_int_equal(a, 0);
	assert_int_equal(r, 0);
	assert_int_equal(f, 0);
	diff_count(LIT("@@ -1 +1 @@\n-a\n+b\n"), NULL, NULL, &f);
	assert_int_equal(f, 1);
}

/* The `patch` field of GitHub's pull request file list: hunks only, no
 * final newline. */
static void test_bare_patch(void **state)
{
	static const char patch[] =
		"@@ -132,6 +132,6 @@ module Test\n"
		"   def a\n"
		"-    old\n"
		"+    new\n"
		"   end\n"
		" \n"
		"   def b\n"
		"   end\n"
		"@@ -1000,3 +1000,5 @@ module Test\n"
		" x\n"
		"+--- not a header\n"
		"+++ neither\n"
		"-y\n"
		"+z\n"
		" w";
	struct diff d = DIFF_INIT;

	parse(&d, LIT(patch));
	assert_int_equal(d.nr_lines, 15);
	assert_int_equal(d.nr_files, 1);
	assert_null(d.files[0].old_path);
	assert_null(d.files[0].new_path);
	assert_int_equal(d.files[0].first_line, 0);
	assert_int_equal(d.files[0].nr_lines, 15);
	assert_int_equal(d.nr_hunks, 2);
	assert_int_equal(d.hunks[0], 0);
	assert_int_equal(d.hunks[1], 8);
	assert_line(&d, patch, 10, DIFF_ADD, "+--- not a header");
	assert_line(&d, patch, 11, DIFF_ADD, "+++ neither");
	assert_line(&d, patch, 12, DIFF_DEL, "-y");
	assert_line(&d, patch, 14, DIFF_CONTEXT, " w");
	assert_int_equal(d.additions, 4);
	assert_int_equal(d.deletions, 2);
	diff_release(&d);
}

static void test_minus_lines_that_look_like_headers(void **state)
{
	/* deleting SQL comments and adding "++" lines: the counts say they
	 * are content, even followed by a real file header */
	static const char text[] =
		"diff --git a/q.sql b/q.sql\n"
		"--- a/q.sql\n"
		"+++ b/q.sql\n"
		"@@ -1,3 +1,3 @@\n"
		"--- a/q.sql\n"
		"+++ b/q.sql\n"
		"-- comment\n"
		"++ counter\n"
		" select 1;\n"
		"--- a/r.sql\n"
		"+++ b/r.sql\n"
		"@@ -1 +1 @@\n"
		"-a\n"
		"+b\n";
	struct diff d = DIFF_INIT;

	parse(&d, LIT(text));
	assert_line(&d, text, 4, DIFF_DEL, "--- a/q.sql");
	assert_line(&d, text, 5, DIFF_ADD, "+++ b/q.sql");
	assert_line(&d, text, 6, DIFF_DEL, "-- comment");
	assert_line(&d, text, 7, DIFF_ADD, "++ counter");
	assert_line(&d, text, 8, DIFF_CONTEXT, " select 1;");
	/* counts used up: now it is a header, starting a new file */
	assert_line(&d, text, 9, DIFF_META, "--- a/r.sql");
	assert_line(&d, text, 10, DIFF_META, "+++ b/r.sql");
	assert_int_equal(d.nr_files, 2);
	assert_int_equal(d.files[0].additions, 2);
	assert_int_equal(d.files[0].deletions, 2);
	assert_int_equal(d.files[1].first_line, 9);
	assert_int_equal(d.files[1].additions, 1);
	assert_int_equal(d.files[1].deletions, 1);
	/* not a git file: no prefix stripping */
	assert_string_equal(d.files[1].old_path, "a/r.sql");
	assert_string_equal(d.files[1].new_path, "b/r.sql");
	diff_release(&d);
}

static void test_crlf_lines(void **state)
{
	static const char text[] =
		"diff --git a/w.bat b/w.bat\r\n"
		"--- a/w.bat\r\n"
		"+++ b/w.bat\r\n"
		"@@ -1,2 +1,2 @@\r\n"
		" \r\n"
		"-echo off\r\n"
		"+@echo off\r\n"
		"\\ No newline at end of file\r\n";
	struct diff d = DIFF_INIT;

	parse(&d, LIT(text));
	assert_int_equal(d.nr_lines, 8);
	assert_line(&d, text, 0, DIFF_FILE, "diff --git a/w.bat b/w.bat");
	assert_line(&d, text, 3, DIFF_HUNK, "@@ -1,2 +1,2 @@");
	assert_line(&d, text, 4, DIFF_CONTEXT, " ");
	assert_line(&d, text, 5, DIFF_DEL, "-echo off");
	assert_line(&d, text, 6, DIFF_ADD, "+@echo off");
	assert_line(&d, text, 7, DIFF_NOEOL, "\\ No newline at end of file");
	assert_string_equal(d.files[0].old_path, "w.bat");
	assert_string_equal(d.files[0].new_path, "w.bat");
	/* a diff whose own lines end in CRLF: no CR is the file's */
	assert_int_equal(d.crlf, 1);
	{
		struct diff_line l = diff_line_at(&d, 5);

		assert_int_equal(l.cr, 1);
		assert_int_equal(diff_line_file_cr(&d, &l), 0);
	}
	diff_release(&d);

	/* only one CR is a line end; a lone CR at the very end is too */
	parse(&d, LIT("@@ -1 +1 @@\n-a\r\r\n+b\r"));
	assert_line(&d, "@@ -1 +1 @@\n-a\r\r\n+b\r", 1, DIFF_DEL, "-a\r");
	assert_line(&d, "@@ -1 +1 @@\n-a\r\r\n+b\r", 2, DIFF_ADD, "+b");
	diff_release(&d);

	/* an LF diff of a change from CRLF to LF: that CR is the file's */
	parse(&d, LIT("diff --git a/s.sh b/s.sh\n--- a/s.sh\n+++ b/s.sh\n"
		      "@@ -1,2 +1,2 @@\n x\n-export A=8\r\n+export A=8\n"));
	assert_int_equal(d.crlf, 0);
	{
		struct diff_line del = diff_line_at(&d, 5), add = diff_line_at(
			&d, 6), ctx = diff_line_at(&d, 4);

		assert_int_equal(del.len, add.len);
		assert_int_equal(diff_line_file_cr(&d, &del), 1);
		assert_int_equal(diff_line_file_cr(&d, &add), 0);
		assert_int_equal(diff_line_file_cr(&d, &ctx), 0);
	}
	diff_release(&d);
}

static void test_noeol_both_sides(void **state)
{
	static const char text[] =
		"diff --git a/n b/n\n"
		"index 1..2 100644\n"
		"--- a/n\n"
		"+++ b/n\n"
		"@@ -1,2 +1,2 @@\n"
		" keep\n"
		"-old\n"
		"\\ No newline at end of file\n"
		"+new\n"
		"\\ No newline at end of file\n"
		"\\ a stray one after the hunk\n";
	struct diff d = DIFF_INIT;

	parse(&d, LIT(text));
	assert_int_equal(diff_line_at(&d, 6).kind, DIFF_DEL);
	assert_int_equal(diff_line_at(&d, 7).kind, DIFF_NOEOL);
	assert_int_equal(diff_line_at(&d, 8).kind, DIFF_ADD);
	assert_int_equal(diff_line_at(&d, 9).kind, DIFF_NOEOL);
	assert_int_equal(diff_line_at(&d, 10).kind, DIFF_NOEOL);
	assert_int_equal(d.files[0].additions, 1);
	assert_int_equal(d.files[0].deletions, 1);
	diff_release(&d);
}

static void test_pure_rename_and_mode_change(void **state)
{
	static const char text[] =
		"diff --git a/lib/a.c b/src/a.c\n"
		"similarity index 100%\n"
		"rename from lib/a.c\n"
		"rename to src/a.c\n"
		"diff --git a/my file.sh b/my file.sh\n"
		"old mode 100644\n"
		"new mode 100755\n"
		"diff --git a/c b/d\n"
		"similarity index 80%\n"
		"copy from c\n"
		"copy to d\n";
	struct diff d = DIFF_INIT;

	parse(&d, LIT(text));
	assert_int_equal(d.nr_files, 3);
	assert_int_equal(d.nr_hunks, 0);
	assert_string_equal(d.files[0].old_path, "lib/a.c");
	assert_string_equal(d.files[0].new_path, "src/a.c");
	assert_int_equal(d.files[0].nr_lines, 4);
	assert_string_equal(d.files[1].old_path, "my file.sh");
	assert_string_equal(d.files[1].new_path, "my file.sh");
	assert_int_equal(diff_line_at(&d, 5).kind, DIFF_META);
	assert_int_equal(diff_line_at(&d, 6).kind, DIFF_META);
	assert_string_equal(d.files[2].old_path, "c");
	assert_string_equal(d.files[2].new_path, "d");
	assert_int_equal(d.additions, 0);
	assert_int_equal(d.deletions, 0);
	diff_release(&d);
}

static void test_new_empty_and_binary_new(void **state)
{
	static const char text[] =
		"diff --git a/empty b/empty\n"
		"new file mode 100644\n"
		"index 0000000..e69de29\n"
		"diff --git a/pic.png b/pic.png\n"
		"deleted file mode 100644\n"
		"index 1234567..0000000\n"
		"Binary files a/pic.png and /dev/null differ\n"
		"diff --git a/new.png b/new.png\n"
		"new file mode 100644\n"
		"index 0000000..1234567\n"
		"Binary files /dev/null and b/new.png differ\n"
		"diff --git a/old.bin b/old.bin\n"
		"index 1234567..0000000\n"
		"Binary files a/old.bin and /dev/null differ\n";
	struct diff d = DIFF_INIT;

	parse(&d, LIT(text));
	assert_int_equal(d.nr_files, 4);
	assert_string_equal(d.files[0].old_path, "/dev/null");
	assert_string_equal(d.files[0].new_path, "empty");
	assert_int_equal(d.files[0].binary, 0);
	assert_string_equal(d.files[1].old_path, "pic.png");
	assert_string_equal(d.files[1].new_path, "/dev/null");
	assert_int_equal(d.files[1].binary, 1);
	assert_string_equal(d.files[2].old_path, "/dev/null");
	assert_string_equal(d.files[2].new_path, "new.png");
	assert_int_equal(d.files[2].binary, 1);
	/* no mode line: the "Binary files" line alone says it is gone */
	assert_string_equal(d.files[3].old_path, "old.bin");
	assert_string_equal(d.files[3].new_path, "/dev/null");
	assert_int_equal(d.files[3].binary, 1);
	diff_release(&d);
}

static void test_quoted_paths(void **state)
{
	static const char text[] =
		"diff --git \"a/t\\303\\251st file.txt\" "
		"\"b/t\\303\\251st file.txt\"\n"
		"old mode 100644\n"
		"new mode 100755\n"
		"diff --git \"a/tab\\there\" \"b/quo\\\"te\"\n"
		"similarity index 100%\n"
		"diff --git a/plain \"b/new\\nline\"\n"
		"--- a/plain\n"
		"+++ \"b/new\\nline\"\n"
		"@@ -1 +1 @@\n"
		"-a\n"
		"+b\n";
	struct diff d = DIFF_INIT;

	parse(&d, LIT(text));
	assert_int_equal(d.nr_files, 3);
	assert_string_equal(d.files[0].old_path, "t\xc3\xa9st file.txt");
	assert_string_equal(d.files[0].new_path, "t\xc3\xa9st file.txt");
	assert_string_equal(d.files[1].old_path, "tab\there");
	assert_string_equal(d.files[1].new_path, "quo\"te");
	assert_string_equal(d.files[2].old_path, "plain");
	assert_string_equal(d.files[2].new_path, "new\nline");
	diff_release(&d);
}

static void test_paths_with_spaces_and_tabs(void **state)
{
	/* git ends a ---/+++ name holding a space with a TAB */
	static const char text[] =
		"diff --git a/x b/y b/x b/y\n"
		"--- a/x b/y\t\n"
		"+++ b/x b/y\t\n"
		"@@ -1 +1 @@\n"
		"-1\n"
		"+2\n";
	struct diff d = DIFF_INIT;

	parse(&d, LIT(text));
	assert_string_equal(d.files[0].old_path, "x b/y");
	assert_string_equal(d.files[0].new_path, "x b/y");
	diff_release(&d);
}

static void test_classic_unified(void **state)
{
	static const char text[] =
		"Only in a: junk\n"
		"--- a.txt\t2024-01-02 03:04:05.000000000 +0000\n"
		"+++ b.txt\t2024-01-02 03:04:06.000000000 +0000\n"
		"@@ -1,2 +1,2 @@\n"
		"-one\n"
		"+uno\n"
		" two\n"
		"--- c.txt\n"
		"+++ c.txt\n"
		"@@ -5 +5,2 @@\n"
		" five\n"
		"+six\n";
	struct diff d = DIFF_INIT;

	parse(&d, LIT(text));
	assert_int_equal(diff_line_at(&d, 0).kind, DIFF_OTHER);
	assert_int_equal(d.nr_files, 2);
	assert_int_equal(d.files[0].first_line, 1);
	assert_string_equal(d.files[0].old_path, "a.txt");
	assert_string_equal(d.files[0].new_path, "b.txt");
	assert_int_equal(d.files[1].first_line, 7);
	assert_string_equal(d.files[1].old_path, "c.txt");
	assert_int_equal(d.files[1].additions, 1);
	assert_int_equal(d.additions, 2);
	assert_int_equal(d.deletions, 1);
	diff_release(&d);
}

static void test_empty_context_line(void **state)
{
	/* an editor stripped the blank of a context line */
	static const char text[] =
		"@@ -1,3 +1,3 @@\n"
		" a\n"
		"\n"
		"-b\n"
		"+c\n"
		"\n"
		"after\n";
	struct diff d = DIFF_INIT;

	parse(&d, LIT(text));
	assert_line(&d, text, 2, DIFF_CONTEXT, "");
	assert_line(&d, text, 3, DIFF_DEL, "-b");
	assert_line(&d, text, 4, DIFF_ADD, "+c");
	/* the hunk is complete: a blank line after it is not context */
	assert_line(&d, text, 5, DIFF_OTHER, "");
	assert_line(&d, text, 6, DIFF_OTHER, "after");
	diff_release(&d);
}

static void test_truncated_hunk(void **state)
{
	/* the header promises 5 lines; the next file comes after 2 */
	static const char text[] =
		"diff --git a/a b/a\n"
		"@@ -1,5 +1,5 @@\n"
		" x\n"
		"-y\n"
		"diff --git a/b b/b\n"
		"--- a/b\n"
		"+++ b/b\n"
		"@@ -1 +1 @@\n"
		"-p\n"
		"+q\n"
		"garbage after\n"
		"+not counted\n"
		"-nor this\n"
		"--- nor this, no \"+++\" follows\n"
		" nor this\n";
	struct diff d = DIFF_INIT;

	parse(&d, LIT(text));
	assert_int_equal(d.nr_files, 2);
	assert_int_equal(diff_line_at(&d, 4).kind, DIFF_FILE);
	assert_int_equal(d.files[0].deletions, 1);
	assert_int_equal(d.files[1].first_line, 4);
	assert_int_equal(diff_line_at(&d, 10).kind, DIFF_OTHER);
	assert_int_equal(diff_line_at(&d, 11).kind, DIFF_OTHER);
	assert_int_equal(diff_line_at(&d, 12).kind, DIFF_OTHER);
	assert_int_equal(diff_line_at(&d, 13).kind, DIFF_OTHER);
	assert_int_equal(diff_line_at(&d, 14).kind, DIFF_OTHER);
	assert_int_equal(d.nr_files, 2);
	assert_int_equal(d.files[1].nr_lines, 11);
	assert_int_equal(d.additions, 1);
	assert_int_equal(d.deletions, 2);
	diff_release(&d);
}

static void test_hunk_counts_per_side(void **state)
{
	/* one old line, two new: once the old side is used up a "-" line
	 * cannot belong to the hunk, nor can a context line */
	static const char text[] =
		"@@ -1 +1,2 @@\n"
		"-a\n"
		"+b\n"
		"-c\n"
		"+d\n"
		"@@ -5,2 +6 @@\n"
		" e\n"
		" f\n"
		"-g\n";
	struct diff d = DIFF_INIT;

	parse(&d, LIT(text));
	assert_int_equal(diff_line_at(&d, 1).kind, DIFF_DEL);
	assert_int_equal(diff_line_at(&d, 2).kind, DIFF_ADD);
	assert_int_equal(diff_line_at(&d, 3).kind, DIFF_OTHER);
	assert_int_equal(diff_line_at(&d, 4).kind, DIFF_OTHER);
	assert_int_equal(diff_line_at(&d, 5).kind, DIFF_HUNK);
	assert_int_equal(diff_line_at(&d, 6).kind, DIFF_CONTEXT);
	assert_int_equal(diff_line_at(&d, 7).kind, DIFF_OTHER);
	assert_int_equal(diff_line_at(&d, 8).kind, DIFF_OTHER);
	assert_int_equal(d.additions, 1);
	assert_int_equal(d.deletions, 1);
	diff_release(&d);
}

static void test_hunk_headers(void **state)
{
	static const char text[] =
		"@@ -3 +3 @@ counts default to one\n"
		"-a\n"
		"+b\n"
		"@@ -1,0 +2,0 @@ nothing in it\n"
		"@@ -1,99999999999999999999999 +1,1 @@\n"
		"+x\n"
		"-y\n";
	static const char bad[] =
		"@@ -x,1 +1 @@\n"
		"@@ -1,2 +3\n"
		"@@ -1, +1 @@\n"
		"@@ -1 1 @@\n"
		"@@@ -1,2 -1,2 +1,3 @@@\n"
		"@@\n"
		"-a\n";
	struct diff d = DIFF_INIT;

	parse(&d, LIT(text));
	assert_int_equal(d.nr_hunks, 3);
	assert_int_equal(diff_line_at(&d, 1).kind, DIFF_DEL);
	assert_int_equal(diff_line_at(&d, 2).kind, DIFF_ADD);
	assert_int_equal(diff_line_at(&d, 3).kind, DIFF_HUNK);
	assert_int_equal(diff_line_at(&d, 4).kind, DIFF_HUNK);
	assert_int_equal(diff_line_at(&d, 5).kind, DIFF_ADD);
	assert_int_equal(diff_line_at(&d, 6).kind, DIFF_DEL);
	diff_release(&d);

	/* malformed headers are not hunks, and start nothing */
	parse(&d, LIT(bad));
	assert_int_equal(d.nr_hunks, 0);
	assert_int_equal(d.nr_files, 0);
	assert_int_equal(d.deletions, 0);
	diff_release(&d);
}

static void test_garbage(void **state)
{
	struct buf b = BUF_INIT;
	struct diff d = DIFF_INIT;
	unsigned seed = 7;
	int round, k;
	static const char *const pieces[] = {
		"diff --git a/x b/x\n", "diff --git \"a/\\",
		"@@ -1,2 +1,2 @@\n", "@@ -1 +1 @@", "--- a/x\n", "+++ b/x\n",
		"+", "-", " ", "\\", "\n", "\r\n", "\r", "\0",
		"Binary files a/x and b/x differ\n", "rename from y\n",
		"new file mode 100644\n", "x", "\"",
	};
	size_t nr = sizeof(pieces) / sizeof(*pieces);

	parse(&d, LIT("hello\nworld\n"));
	assert_int_equal(d.nr_lines, 2);
	assert_int_equal(diff_line_at(&d, 0).kind, DIFF_OTHER);
	assert_int_equal(diff_line_at(&d, 1).kind, DIFF_OTHER);
	assert_int_equal(d.nr_files, 0);
	diff_release(&d);

	parse(&d, "\n\0\n\xff\xfe\n", 6);
	assert_int_equal(d.nr_lines, 3);
	assert_int_equal(diff_line_at(&d, 1).len, 1);
	diff_release(&d);

	/* random splices of diff-like pieces: only the invariants hold */
	for (round = 0; round < 2000; round++) {
		buf_reset(&b);
		for (k = 0; k < round % 60; k++) {
			size_t i;

			seed = seed * 1103515245u + 12345u;
			i = (seed >> 16) % nr;
			buf_add(&b, pieces[i],
				pieces[i][0] ? strlen(pieces[i]) : 1);
		}
		parse(&d, b.ptr, b.len);
		diff_release(&d);
	}
	buf_release(&b);
}

/* ---- speed ------------------------------------------------------------- */

/*
 * 1000 files of 200 lines: a 4-line header and 28 hunks of 7 lines, each
 * with a deletion starting "---" and an addition starting "+++".
 */
/* The compact index: lines whose stride does not fit 16 bits, CRLF
 * endings, block boundaries and a last line without a newline all give
 * back the offsets and lengths of the text. */
static void test_index_long_lines_and_blocks(void **state)
{
	static const size_t sizes[] = { 10, 65533, 65534, 65535, 65536,
					70000, 0, 200000, 3 };
	struct buf b = BUF_INIT;
	struct diff d = DIFF_INIT;
	struct diff_line l;
	size_t i, k, nr_hunk_lines = 0;

	(void)state;
	buf_addstr(&b, "diff --git a/x.c b/x.c\n--- a/x.c\n+++ b/x.c\n");
	for (k = 0; k < 3; k++)
		for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
			nr_hunk_lines++;
	buf_addf(&b, "@@ -0,0 +1,%zu @@\n", nr_hunk_lines);
	for (k = 0; k < 3; k++) {
		for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			size_t start = b.len;

			buf_addch(&b, '+');
			while (b.len - start < sizes[i] + 1)
				buf_addch(&b, (char)('a' + (b.len % 26)));
			/* every other line ends in CRLF */
			buf_addstr(&b, (i + k) % 2 ? "\n" : "\r\n");
		}
	}
	buf_setlen(&b, b.len - 1);	/* no newline after the last line */
	parse(&d, b.ptr, b.len);
	assert_int_equal(d.nr_lines, 4 + nr_hunk_lines);
	assert_true(d.nr_longs >= 3 * 4);
	for (k = 0; k < 3; k++)
		for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			l = diff_line_at(&d, 4 + k * 9 + i);
			assert_int_equal(l.kind, DIFF_ADD);
			assert_int_equal(l.len, sizes[i] + 1);
			assert_int_equal(b.ptr[l.off], '+');
		}
	/* the last line lost no byte to a newline it does not have */
	l = diff_line_at(&d, d.nr_lines - 1);
	assert_int_equal(l.off + l.len + 1, b.len);	/* its CR */
	/* out of range: an empty line */
	l = diff_line_at(&d, d.nr_lines);
	assert_int_equal(l.len, 0);
	/* line after line, each from the last: what diff_line_at says */
	l = diff_line_at(&d, 0);
	for (i = 0; i + 1 < d.nr_lines; i++) {
		struct diff_line at = diff_line_at(&d, i + 1);

		l = diff_line_next(&d, i, &l);
		assert_int_equal(l.off, at.off);
		assert_int_equal(l.len, at.len);
		assert_int_equal(l.kind, at.kind);
	}
	l = diff_line_next(&d, d.nr_lines - 1, &l);
	assert_int_equal(l.len, 0);
	diff_release(&d);

	/* many short lines: blocks of DIFF_BLOCK lines and their edges */
	buf_reset(&b);
	buf_addstr(&b, "@@ -1,300 +1,0 @@\n");
	for (i = 0; i < 300; i++)
		buf_addf(&b, "-%zu\n", i);
	parse(&d, b.ptr, b.len);
	assert_int_equal(d.nr_lines, 301);
	for (i = DIFF_BLOCK - 2; i < 3 * DIFF_BLOCK + 2; i++) {
		char want[16];

		l = diff_line_at(&d, i + 1);
		snprintf(want, sizeof(want), "-%zu", i);
		assert_int_equal(l.len, strlen(want));
		assert_memory_equal(b.ptr + l.off, want, l.len);
	}
	l = diff_line_at(&d, 0);
	for (i = 0; i + 1 < d.nr_lines; i++) {
		char want[32];

		l = diff_line_next(&d, i, &l);
		snprintf(want, sizeof(want), "-%zu", i);
		assert_int_equal(l.len, strlen(want));
		assert_memory_equal(b.ptr + l.off, want, l.len);
	}
	diff_release(&d);
	buf_release(&b);
}

/* A reader that fails from `fail_at` on (the row went away). */
struct failing_reader {
	struct copy_reader r;
	size_t fail_at;
};

static const char *failing_read(void *arg, size_t off, size_t n)
{
	struct failing_reader *f = arg;

	if (off + n > f->fail_at)
		return NULL;
	return copy_read(&f->r, off, n);
}

/* A read failing in the middle of a line (or of the text) keeps what was
 * read before it and never reads past what it holds. */
static void test_streamed_read_failure(void **state)
{
	struct buf b = BUF_INIT;
	struct diff d = DIFF_INIT;
	size_t i, fail_at;

	(void)state;
	buf_addstr(&b, "@@ -0,0 +1,3 @@\n+");
	while (b.len < 70000)
		buf_addch(&b, 'x');
	buf_addstr(&b, "\n+two\n+three\n");
	for (fail_at = 0; fail_at < 3; fail_at++) {
		struct failing_reader f = { { b.ptr, NULL, 0 },
					    fail_at ? 65536 * fail_at : 0 };

		diff_parse_read(&d, failing_read, &f, b.len);
		free(f.r.last);
		if (!fail_at) {
			assert_int_equal(d.nr_lines, 0);
		} else if (fail_at == 1) {
			/* the first chunk: the hunk line, and the long line
			 * cut where the read failed */
			assert_int_equal(d.nr_lines, 2);
			assert_int_equal(diff_line_at(&d, 1).off, 16);
			assert_int_equal(diff_line_at(&d, 1).len, 65536 - 16);
		} else {
			/* everything was read before the failure */
			assert_int_equal(d.nr_lines, 4);
			assert_int_equal(diff_line_at(&d, 3).len, 6);
		}
		for (i = 0; i < d.nr_lines; i++)
			assert_true(diff_line_at(&d, i).off +
				    diff_line_at(&d, i).len <= b.len);
		diff_release(&d);
	}
	buf_release(&b);
}

static void test_200k_lines(void **state)
{
	struct buf b = BUF_INIT;
	struct diff d = DIFF_INIT;
	double t0, t_parse, t_count;
	int adds, dels, files, f, h;

	for (f = 0; f < 1000; f++) {
		buf_addf(&b, "diff --git a/src/f%d.c b/src/f%d.c\n"
			 "index 0123456..789abcd 100644\n"
			 "--- a/src/f%d.c\n"
			 "+++ b/src/f%d.c\n", f, f, f, f);
		for (h = 0; h < 28; h++)
			buf_addf(&b, "@@ -%d,4 +%d,4 @@ int f%d(void)\n"
				 " \tint a = %d;\n"
				 "-\tint b = 1;\n"
				 "--- a/src/f%d.c comment\n"
				 "+\tint b = 2;\n"
				 "+++ b/src/f%d.c comment\n"
				 " \treturn a + b;\n",
				 h * 10 + 1, h * 10 + 1, f, h, f, f);
	}
	t0 = now();
	diff_parse(&d, b.ptr, b.len);
	t_parse = now() - t0;
	t0 = now();
	diff_count(b.ptr, b.len, &adds, &dels, &files);
	t_count = now() - t0;
	print_message("200,000-line diff (%zu bytes): parse %.1f ms, "
		      "count %.1f ms\n", b.len, t_parse * 1e3,
		      t_count * 1e3);

	assert_int_equal(d.nr_lines, 200000);
	assert_int_equal(d.nr_files, 1000);
	assert_int_equal(d.nr_hunks, 28000);
	assert_int_equal(d.additions, 56000);
	assert_int_equal(d.deletions, 56000);
	assert_int_equal(d.files[999].first_line, 199800);
	assert_int_equal(d.files[999].nr_lines, 200);
	assert_string_equal(d.files[999].new_path, "src/f999.c");
	assert_int_equal(adds, 56000);
	assert_int_equal(dels, 56000);
	assert_int_equal(files, 1000);
	assert_int_equal(diff_next_hunk(&d, 100000), 100004);
	assert_int_equal(diff_prev_file(&d, 100000), 100000 - 200);
	assert_true(t_parse < 1.0);
	assert_true(t_count < 1.0);
	assert_sane_diff(&d, b.ptr, b.len);
	t0 = now();
	assert_same_streamed(&d, b.ptr, b.len);
	print_message("streamed parse and comparison: %.1f ms\n",
		      (now() - t0) * 1e3);
	diff_release(&d);
	buf_release(&b);
}

/* Changed words of a pair of lines: only what differs is marked, words
 * stay whole, blanks between changed words join them, and lines with
 * nothing in common are left alone. */
static void check_ranges(const char *a, const char *b, int want_ret,
			 const char *want_a, const char *want_b)
{
	struct diff_ranges ra = DIFF_RANGES_INIT, rb = DIFF_RANGES_INIT;
	struct buf ga = BUF_INIT, gb = BUF_INIT;
	size_t k;
	int ret = diff_intraline(a, strlen(a), b, strlen(b), &ra, &rb);

	assert_int_equal(ret, want_ret);
	for (k = 0; k < ra.nr; k++)
		buf_addf(&ga, "[%.*s]", (int)(ra.v[k].end - ra.v[k].start),
			 a + ra.v[k].start);
	for (k = 0; k < rb.nr; k++)
		buf_addf(&gb, "[%.*s]", (int)(rb.v[k].end - rb.v[k].start),
			 b + rb.v[k].start);
	assert_string_equal(ga.ptr, want_a);
	assert_string_equal(gb.ptr, want_b);
	buf_release(&ga);
	buf_release(&gb);
	diff_ranges_release(&ra);
	diff_ranges_release(&rb);
}

static void test_intraline(void **state)
{
	(void)state;
	check_ranges("x = f(a, b)", "x = f(a, c)", 1, "[b]", "[c]");
	check_ranges("engine.halt(force=True)", "engine.halt(force=False)",
		     1, "[True]", "[False]");
	/* words stay whole, and blanks join neighbouring changes */
	check_ranges("sec = n - start", "sec = max(0, n - start)", 1, "",
		     "[max(0, ][)]");
	check_ranges("a = old value here", "a = new thing here", 1,
		     "[old value]", "[new thing]");
	/* equal lines: nothing to mark */
	check_ranges("same", "same", 1, "", "");
	/* added at the end only */
	check_ranges("call(a)", "call(a, b)", 1, "", "[, b]");
	/* nothing in common: no marks */
	check_ranges("alpha beta gamma", "delta epsilon zeta", 0, "", "");
	/* UTF-8 is never split */
	check_ranges("x = \"\xc3\xa9t\xc3\xa9\"", "x = \"\xc3\xa9t\xc3\xa0\"",
		     1, "[\xc3\xa9t\xc3\xa9]", "[\xc3\xa9t\xc3\xa0]");
	/* a change near column 300 */
	{
		struct buf a = BUF_INIT, b = BUF_INIT;
		int i;

		for (i = 0; i < 60; i++) {
			buf_addstr(&a, "word ");
			buf_addstr(&b, "word ");
		}
		buf_addstr(&a, "x=1");
		buf_addstr(&b, "x=2");
		check_ranges(a.ptr, b.ptr, 1, "[1]", "[2]");
		buf_release(&a);
		buf_release(&b);
	}
	/* more words than DIFF_WORDS_MAX in the middle: all of it */
	{
		struct buf a = BUF_INIT, b = BUF_INIT;
		int i;

		for (i = 0; i < 3 * DIFF_WORDS_MAX; i++) {
			buf_addstr(&a, "keep ");
			buf_addstr(&b, "keep ");
		}
		for (i = 0; i < DIFF_WORDS_MAX; i++) {
			buf_addf(&a, "a%d ", i);
			buf_addf(&b, "a%d ", i % 7 ? i : -i);
		}
		buf_addstr(&a, "end");
		buf_addstr(&b, "end");
		{
			struct diff_ranges ra = DIFF_RANGES_INIT,
					   rb = DIFF_RANGES_INIT;

			assert_int_equal(diff_intraline(a.ptr, a.len, b.ptr,
							b.len, &ra, &rb), 1);
			/* one range from the first difference to the last */
			assert_int_equal(ra.nr, 1);
			assert_int_equal(rb.nr, 1);
			assert_int_equal(strncmp(a.ptr + ra.v[0].start, "a7 ",
						 3), 0);
			diff_ranges_release(&ra);
			diff_ranges_release(&rb);
		}
		buf_release(&a);
		buf_release(&b);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_intraline),
		cmocka_unit_test(test_multi_file),
		cmocka_unit_test(test_multi_file_crlf),
		cmocka_unit_test(test_multi_file_no_final_newline),
		cmocka_unit_test(test_navigation),
		cmocka_unit_test(test_navigation_empty),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_bare_patch),
		cmocka_unit_test(test_minus_lines_that_look_like_headers),
		cmocka_unit_test(test_crlf_lines),
		cmocka_unit_test(test_noeol_both_sides),
		cmocka_unit_test(test_pure_rename_and_mode_change),
		cmocka_unit_test(test_new_empty_and_binary_new),
		cmocka_unit_test(test_quoted_paths),
		cmocka_unit_test(test_paths_with_spaces_and_tabs),
		cmocka_unit_test(test_classic_unified),
		cmocka_unit_test(test_empty_context_line),
		cmocka_unit_test(test_truncated_hunk),
		cmocka_unit_test(test_hunk_counts_per_side),
		cmocka_unit_test(test_hunk_headers),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_index_long_lines_and_blocks),
		cmocka_unit_test(test_streamed_read_failure),
		cmocka_unit_test(test_200k_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
