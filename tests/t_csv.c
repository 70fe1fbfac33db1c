/* SPDX-License-Identifier: MIT */
/*
 * t_csv: the writers of exports/.
 *
 *  - the CSV cell encoder and record writer: RFC 4180 quoting, CRLF/LF,
 *    the formula guard on text cells only, round trips through the
 *    reader of core/base/csv;
 *  - JSON string escaping and the JSON Lines field helpers;
 *  - SHA-256 against the FIPS 180-2 / NIST example vectors and padding
 *    edge lengths, in one piece and fed in every split;
 *  - atomic files: committed, aborted, replacing, no temporary left;
 *  - the bulk agreed-label pass against core/study/adjudicate on a random
 *    study, and its blinding against label_may_see().
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/study/adjudicate.h"
#include "core/base/buf.h"
#include "core/study/codebook.h"
#include "core/base/csv.h"
#include "core/study/access.h"
#include "core/study/label.h"
#include "core/store/store.h"
#include "core/study/consensus.h"
#include "exports/atomic.h"
#include "exports/csv_out.h"
#include "exports/json_out.h"
#include "core/base/sha256.h"

/* ---- CSV cells ---------------------------------------------------------- */

static void check_cell(const char *in, int guard, const char *want)
{
	struct buf b = BUF_INIT;

	csv_cell(&b, in, strlen(in), guard);
	assert_string_equal(b.ptr, want);
	buf_release(&b);
}

static void test_cell_quoting(void **state)
{
	(void)state;
	check_cell("plain", 0, "plain");
	check_cell("", 0, "");
	check_cell("with space", 0, "with space");
	/* spaces at either end are quoted: a reader drops them otherwise */
	check_cell(" lead", 0, "\" lead\"");
	check_cell("trail\t", 0, "\"trail\t\"");
	check_cell("a,b", 0, "\"a,b\"");
	check_cell("say \"hi\"", 0, "\"say \"\"hi\"\"\"");
	check_cell("\"", 0, "\"\"\"\"");
	check_cell("line\nbreak", 0, "\"line\nbreak\"");
	check_cell("cr\rhere", 0, "\"cr\rhere\"");
	check_cell("crlf\r\nkept", 0, "\"crlf\r\nkept\"");
	check_cell("caf\xc3\xa9 \xe4\xbd\x9c", 0, "caf\xc3\xa9 \xe4\xbd\x9c");
	check_cell("semi;colon", 0, "semi;colon");
	check_cell("'already'", 0, "'already'");
	/* a guard does not touch harmless text */
	check_cell("plain", 1, "plain");
	check_cell("a,b", 1, "\"a,b\"");
}

static void test_formula_guard(void **state)
{
	static const char *const risky[] = {
		"=1+2", "+1", "-1", "@SUM(A1)", "\tx", "\rx", "-", "=",
		NULL
	};
	size_t i;

	(void)state;
	for (i = 0; risky[i]; i++) {
		struct buf want = BUF_INIT;

		assert_true(csv_formula_risk(risky[i], strlen(risky[i])));
		buf_addf(&want, "\"'%s\"", risky[i]);
		check_cell(risky[i], 1, want.ptr);
		buf_release(&want);
	}
	/* quotes inside a guarded cell are still doubled */
	check_cell("=HYPERLINK(\"http://x\",\"y\")", 1,
		   "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"");
	check_cell("=cmd|' /C calc'!A0", 1, "\"'=cmd|' /C calc'!A0\"");
	/* only the first character counts */
	assert_false(csv_formula_risk("a=1", 3));
	assert_false(csv_formula_risk(" =1", 3));
	assert_false(csv_formula_risk("", 0));
	check_cell("a=1", 1, "a=1");
	/* without the guard, as stored */
	check_cell("=1+2", 0, "=1+2");
	check_cell("-1", 0, "-1");
}

static void test_writer_rows(void **state)
{
	struct csv_out w;

	(void)state;
	csvw_init(&w, NULL, CSV_GUARD);
	csvw_text(&w, "item");
	csvw_text(&w, "n");
	assert_int_equal(csvw_end(&w), 0);
	csvw_text(&w, "=evil()");
	csvw_int(&w, -42);
	csvw_double(&w, -1.005, 2);
	csvw_double(&w, 7.125, 2);
	csvw_uint(&w, 18446744073709551615ULL);
	csvw_bool(&w, 1);
	csvw_bool(&w, 0);
	csvw_null(&w);
	csvw_text(&w, NULL);
	csvw_key(&w, "-neg_key");
	csvw_key(&w, "@bob");
	csvw_key(&w, "a;b");
	csvw_key(&w, "=x(1)");
	assert_int_equal(csvw_end(&w), 0);
	csvw_int(&w, 0);
	csvw_int(&w, -9223372036854775807LL - 1);
	assert_int_equal(csvw_end(&w), 0);
	assert_string_equal(w.row.ptr,
		"item,n\r\n"
		"\"'=evil()\",-42,-1.00,7.12,18446744073709551615,TRUE,FALSE,,,"
		"-neg_key,@bob,a;b,\"'=x(1)\"\r\n"
		"0,-9223372036854775808\r\n");
	csvw_release(&w);

	csvw_init(&w, NULL, CSV_LF);
	csvw_text(&w, "=1");
	csvw_text(&w, "two\nlines");
	assert_int_equal(csvw_end(&w), 0);
	assert_string_equal(w.row.ptr, "=1,\"two\nlines\"\n");
	csvw_release(&w);
	csvw_release(NULL);
}

/* Random cells of nasty characters survive writer -> core/base/csv reader. */
static void test_round_trip(void **state)
{
	static const char alphabet[] = "ab,\"\n\r=+-@\t ;'\xc3\xa9x";
	struct csv_out w;
	struct csv parsed = CSV_INIT;
	struct err e = ERR_INIT;
	char cells[200][16];
	size_t r, c, i;
	unsigned seed = 12345;

	(void)state;
	csvw_init(&w, NULL, 0);
	for (r = 0; r < 50; r++) {
		for (c = 0; c < 4; c++) {
			char *s = cells[r * 4 + c];
			size_t n = 1 + (seed = seed * 1103515245 + 12345) %
					   14;

			for (i = 0; i < n; i++) {
				seed = seed * 1103515245 + 12345;
				s[i] = alphabet[(seed >> 8) %
						(sizeof(alphabet) - 1)];
			}
			s[n] = '\0';
			/* a cell that is only a lone CR/LF pair's half is
			 * fine; an empty first cell would make a blank line,
			 * which readers skip: avoid it */
			csvw_text(&w, s);
		}
		assert_int_equal(csvw_end(&w), 0);
	}
	assert_int_equal(csv_parse(&parsed, w.row.ptr, w.row.len, "t", &e),
			 0);
	assert_int_equal(parsed.nr, 50);
	for (r = 0; r < 50; r++) {
		assert_int_equal(parsed.v[r].nr, 4);
		for (c = 0; c < 4; c++)
			assert_string_equal(parsed.v[r].fields[c],
					    cells[r * 4 + c]);
	}
	csv_release(&parsed);
	csvw_release(&w);
}

static void test_write_error(void **state)
{
	struct csv_out w;
	FILE *f = fopen("/dev/full", "w");

	(void)state;
	if (!f)
		skip();
	setvbuf(f, NULL, _IONBF, 0);
	csvw_init(&w, f, 0);
	csvw_text(&w, "x");
	assert_int_equal(csvw_end(&w), -1);
	csvw_release(&w);
	fclose(f);
}

/* ---- JSON --------------------------------------------------------------- */

static void check_json(const char *in, size_t len, const char *want)
{
	struct buf b = BUF_INIT;

	json_quote(&b, in, len);
	assert_string_equal(b.ptr, want);
	buf_release(&b);
}

static void test_json_quote(void **state)
{
	(void)state;
	check_json("plain", 5, "\"plain\"");
	check_json("", 0, "\"\"");
	check_json("q\"b\\s/", 6, "\"q\\\"b\\\\s/\"");
	check_json("\n\r\t\b\f", 5, "\"\\n\\r\\t\\b\\f\"");
	check_json("\x01\x1f\x7f", 3, "\"\\u0001\\u001f\x7f\"");
	check_json("a\0b", 3, "\"a\\u0000b\"");
	check_json("caf\xc3\xa9 \xf0\x9f\x98\x80", 10,
		   "\"caf\xc3\xa9 \xf0\x9f\x98\x80\"");
	/* invalid UTF-8 cannot stand in JSON */
	check_json("x\xff" "y", 3, "\"x\xef\xbf\xbdy\"");
	check_json("\xc3", 1, "\"\xef\xbf\xbd\"");
	check_json("\xed\xa0\x80", 3,
		   "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"");
}

static void test_json_fields(void **state)
{
	struct buf b = BUF_INIT;
	struct json_out j;

	(void)state;
	jsonw_begin(&j, &b);
	jsonw_str(&j, "s", "x");
	jsonw_str(&j, "n", NULL);
	jsonw_int(&j, "i", -3);
	jsonw_uint(&j, "u", 18446744073709551615ULL);
	jsonw_double(&j, "d", 7.125, 2);
	jsonw_bool(&j, "t", 1);
	jsonw_null(&j, "z");
	jsonw_list(&j, "l", "a;b", ';', 0);
	jsonw_list(&j, "e", "", ';', 0);
	jsonw_list(&j, "nl", NULL, ';', 0);
	jsonw_list(&j, "nums", "12;345", ';', 1);
	jsonw_end(&j);
	assert_string_equal(b.ptr, "{\"s\":\"x\",\"n\":null,\"i\":-3,"
			    "\"u\":18446744073709551615,\"d\":7.12,\"t\":true,"
			    "\"z\":null,\"l\":[\"a\",\"b\"],\"e\":[],"
			    "\"nl\":null,\"nums\":[12,345]}\n");
	buf_release(&b);
}

/* ---- SHA-256 ------------------------------------------------------------ */

static void digest_of(const void *m, size_t len, char hex[65])
{
	unsigned char d[SHA256_LEN];
	struct sha256 c;

	sha256_init(&c);
	sha256_update(&c, m, len);
	sha256_final(&c, d);
	sha256_hex(d, hex);
}

static void test_sha256_vectors(void **state)
{
	static const struct {
		const char *msg;
		const char *hex;
	} v[] = {
		/* FIPS 180-2 appendix B and the NIST CAVS examples */
		{ "abc", "ba7816bf8f01cfea414140de5dae2223"
			 "b00361a396177a9cb410ff61f20015ad" },
		{ "", "e3b0c44298fc1c149afbf4c8996fb924"
		      "27ae41e4649b934ca495991b7852b855" },
		{ "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		  "248d6a61d20638b8e5c026930c3e6039"
		  "a33ce45964ff2167f6ecedd419db06c1" },
		{ "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
		  "hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
		  "cf5b16a778af8380036ce59e7b049237"
		  "0b249b11e8f07a51afac45037afee9d1" },
	};
	char hex[65];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		digest_of(v[i].msg, strlen(v[i].msg), hex);
		assert_string_equal(hex, v[i].hex);
	}
}

static void test_sha256_million_a(void **state)
{
	unsigned char d[SHA256_LEN], chunk[1000];
	struct sha256 c;
	char hex[65];
	int i;

	(void)state;
	memset(chunk, 'a', sizeof(chunk));
	sha256_init(&c);
	for (i = 0; i < 1000; i++)
		sha256_update(&c, chunk, sizeof(chunk));
	sha256_final(&c, d);
	sha256_hex(d, hex);
	assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67"
			    "f1809a48a497200e046d39ccc7112cd0");
}

/* Lengths around the padding boundary, and every split of the input. */
static void test_sha256_padding_and_splits(void **state)
{
	static const struct {
		size_t n;
		const char *hex;
	} v[] = {
		{ 55, "9f4390f8d30c2dd92ec9f095b65e2b9a"
		      "e9b0a925a5258e241c9f1e910f734318" },
		{ 56, "b35439a4ac6f0948b6d6f9e3c6af0f5f"
		      "590ce20f1bde7090ef7970686ec6738a" },
		{ 63, "7d3e74a05d7db15bce4ad9ec0658ea98"
		      "e3f06eeecf16b4c6fff2da457ddc2f34" },
		{ 64, "ffe054fe7ae0cb6dc65c3af9b61d5209"
		      "f439851db43d0ba5997337df154668eb" },
		{ 65, "635361c48bb9eab14198e76ea8ab7f1a"
		      "41685d6ad62aa9146d301d4f17eb0ae0" },
	};
	unsigned char m[1024], d[SHA256_LEN];
	char hex[65];
	size_t i, split;

	(void)state;
	memset(m, 'a', 65);
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		digest_of(m, v[i].n, hex);
		assert_string_equal(hex, v[i].hex);
	}
	for (i = 0; i < sizeof(m); i++)
		m[i] = (unsigned char)i;
	for (split = 0; split <= 300; split++) {
		struct sha256 c;

		sha256_init(&c);
		sha256_update(&c, m, split);
		sha256_update(&c, m + split, sizeof(m) - split);
		sha256_final(&c, d);
		sha256_hex(d, hex);
		assert_string_equal(hex, "785b0751fc2c53dc14a4ce3d800e69ef"
				    "9ce1009eb327ccf458afe09c242c26c9");
	}
}

/* ---- atomic files ------------------------------------------------------- */

static char tmpdir[64];

static int make_tmpdir(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "%s", "/tmp/t_csv.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int remove_tmpdir(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static int dir_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static void test_atomic_commit_and_abort(void **state)
{
	struct atomic_file af = ATOMIC_FILE_INIT;
	struct err e = ERR_INIT;
	struct buf path = BUF_INIT, got = BUF_INIT;
	struct stat sb;
	mode_t mask;

	(void)state;
	buf_addf(&path, "%s/out.csv", tmpdir);
	/* aborted: nothing at all */
	assert_int_equal(atomic_open(&af, path.ptr, &e), 0);
	fputs("half", af.f);
	atomic_abort(&af);
	atomic_abort(&af);
	assert_int_equal(dir_entries(tmpdir), 0);

	/* committed: the content, nothing else */
	assert_int_equal(atomic_open(&af, path.ptr, &e), 0);
	fputs("first\n", af.f);
	assert_int_equal(atomic_commit(&af, &e), 0);
	assert_int_equal(buf_read_file(&got, path.ptr), 0);
	assert_string_equal(got.ptr, "first\n");
	assert_int_equal(dir_entries(tmpdir), 1);
	/* private whatever the umask (it holds labels), wider on request */
	mask = umask(0);
	assert_int_equal(stat(path.ptr, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0600);
	assert_int_equal(atomic_open_mode(&af, path.ptr, 0640, &e), 0);
	fputs("first\n", af.f);
	assert_int_equal(atomic_commit(&af, &e), 0);
	assert_int_equal(stat(path.ptr, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0640);
	umask(mask);
	assert_int_equal(output_dir_mode(0600), 0700);
	assert_int_equal(output_dir_mode(0644), 0755);
	assert_int_equal(output_dir_mode(0640), 0750);

	/* replacing keeps the old content until the commit */
	assert_int_equal(atomic_open(&af, path.ptr, &e), 0);
	fputs("second\n", af.f);
	fflush(af.f);
	buf_reset(&got);
	assert_int_equal(buf_read_file(&got, path.ptr), 0);
	assert_string_equal(got.ptr, "first\n");
	atomic_abort(&af);
	buf_reset(&got);
	assert_int_equal(buf_read_file(&got, path.ptr), 0);
	assert_string_equal(got.ptr, "first\n");
	assert_int_equal(atomic_open(&af, path.ptr, &e), 0);
	fputs("second\n", af.f);
	assert_int_equal(atomic_commit(&af, &e), 0);
	buf_reset(&got);
	assert_int_equal(buf_read_file(&got, path.ptr), 0);
	assert_string_equal(got.ptr, "second\n");
	assert_int_equal(dir_entries(tmpdir), 1);
	unlink(path.ptr);

	/* a directory that does not exist */
	buf_reset(&path);
	buf_addf(&path, "%s/no/such/dir/x.csv", tmpdir);
	assert_int_equal(atomic_open(&af, path.ptr, &e), -1);
	assert_int_equal(e.code, ERR_IO);
	buf_release(&path);
	buf_release(&got);
}

/* A pipe (or a device: -o /dev/stdout, /dev/null) is written into, not
 * replaced by a file; a directory is refused. */
static void test_atomic_into_a_pipe(void **state)
{
	struct atomic_file af = ATOMIC_FILE_INIT;
	struct err e = ERR_INIT;
	struct buf path = BUF_INIT;
	struct stat sb;
	char got[32];
	ssize_t n;
	int rd;

	(void)state;
	buf_addf(&path, "%s/pipe", tmpdir);
	assert_int_equal(mkfifo(path.ptr, 0600), 0);
	/* a reader first, so that opening for writing does not wait */
	rd = open(path.ptr, O_RDONLY | O_NONBLOCK);
	assert_true(rd >= 0);
	assert_int_equal(atomic_open(&af, path.ptr, &e), 0);
	fputs("through\n", af.f);
	assert_int_equal(atomic_commit(&af, &e), 0);
	n = read(rd, got, sizeof(got) - 1);
	assert_int_equal(n, 8);
	got[n] = '\0';
	assert_string_equal(got, "through\n");
	close(rd);
	assert_int_equal(lstat(path.ptr, &sb), 0);
	assert_true(S_ISFIFO(sb.st_mode));
	assert_int_equal(dir_entries(tmpdir), 1);
	unlink(path.ptr);

	assert_int_equal(atomic_open(&af, tmpdir, &e), -1);
	assert_non_null(strstr(e.msg, "a directory, not a file"));
	assert_int_equal(dir_entries(tmpdir), 0);
	buf_release(&path);
}

/* ---- the bulk agreed pass against core/study/adjudicate ----------------------- */

static unsigned long long rng = 0x9e3779b97f4a7c15ULL;

static unsigned rnd(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

static void exec_ok(struct store *st, const char *sql)
{
	struct err e = ERR_INIT;

	if (store_exec(st, sql, &e) < 0)
		fail_msg("%s: %s", sql, e.msg);
}

/* Members: 1 own (owner), 2-4 a1..a3 (annotators), 5 adj. */
static void random_study(struct store *st, const struct codebook *cb,
			 int nitems)
{
	sqlite3_stmt *s;
	int i, m;
	size_t d, k;

	exec_ok(st, "INSERT INTO members (id, name, role, added_at) VALUES "
		"(1,'own','owner','t'),(2,'a1','annotator','t'),"
		"(3,'a2','annotator','t'),(4,'a3','annotator','t'),"
		"(5,'adj','adjudicator','t')");
	exec_ok(st, "INSERT INTO rounds (id, name, created_at, created_by, "
		"closed_at) VALUES (1,'r1','t','own','t'),"
		"(2,'r2','t','own',NULL),(3,'r3','t','own',NULL)");
	exec_ok(st, "INSERT INTO round_annotators VALUES (1,2),(1,3),(2,2),"
		"(2,3),(2,4)");
	s = store_prepare(st, "INSERT INTO items (id, repo, number, title, "
			  "imported_at) VALUES (?, 'o/r', ?, 't', 't')", NULL);
	for (i = 1; i <= nitems; i++) {
		sqlite3_bind_int(s, 1, i);
		sqlite3_bind_int(s, 2, 1000 + i);
		assert_int_equal(sqlite3_step(s), SQLITE_DONE);
		sqlite3_reset(s);
	}
	sqlite3_finalize(s);
	s = store_prepare(st, "INSERT INTO assignments VALUES (?, ?, ?)",
			  NULL);
	for (i = 1; i <= nitems; i++) {
		int r = i % 4;	/* 0: no round */

		if (!r)
			continue;
		sqlite3_bind_int(s, 1, r);
		sqlite3_bind_int(s, 2, i);
		sqlite3_bind_int(s, 3, i);
		assert_int_equal(sqlite3_step(s), SQLITE_DONE);
		sqlite3_reset(s);
	}
	sqlite3_finalize(s);

	s = store_prepare(st, "INSERT OR IGNORE INTO labels (item_id, "
			  "member_id, dimension, code, codebook_version, "
			  "labeled_at) VALUES (?, ?, ?, ?, '1.0', 't')", NULL);
	for (i = 1; i <= nitems; i++)
		for (m = 1; m <= 4; m++)
			for (d = 0; d <= cb->nr_dims; d++) {
				/* d == nr_dims: a dimension not in the
				 * codebook, which must not count */
				const char *dim = d < cb->nr_dims ?
					cb->dims[d].key : "retired_dim";
				int n = (int)rnd(4);

				if (d < cb->nr_dims && !cb->dims[d].select_many
				    && n > 1)
					n = 1;
				for (k = 0; k < (size_t)n; k++) {
					/* few codes, so coders often agree */
					const char *code = d < cb->nr_dims ?
						cb->dims[d].codes[rnd(2)].key :
						"x";

					sqlite3_bind_int(s, 1, i);
					sqlite3_bind_int(s, 2, m);
					sqlite3_bind_text(s, 3, dim, -1,
							  SQLITE_STATIC);
					sqlite3_bind_text(s, 4, code, -1,
							  SQLITE_STATIC);
					assert_int_equal(sqlite3_step(s),
							 SQLITE_DONE);
					sqlite3_reset(s);
				}
			}
	sqlite3_finalize(s);

	s = store_prepare(st, "INSERT INTO submissions VALUES (?, ?, 't')",
			  NULL);
	for (i = 1; i <= nitems; i++)
		for (m = 1; m <= 4; m++) {
			if (rnd(10) < 3)
				continue;
			sqlite3_bind_int(s, 1, i);
			sqlite3_bind_int(s, 2, m);
			assert_int_equal(sqlite3_step(s), SQLITE_DONE);
			sqlite3_reset(s);
		}
	sqlite3_finalize(s);

	/* a split left some labels to recode: those dimensions are
	 * pending until recoded, for both readers alike */
	s = store_prepare(st, "INSERT INTO recodes (item_id, member_id, "
			  "dimension, old_code, new_codes, codebook_version, "
			  "split_at) VALUES (?, 2, ?, 'x', 'y;z', '1', 't')",
			  NULL);
	for (i = 7; i <= nitems; i += 7) {
		sqlite3_bind_int(s, 1, i);
		sqlite3_bind_text(s, 2, cb->dims[i % cb->nr_dims].key, -1,
				  SQLITE_STATIC);
		assert_int_equal(sqlite3_step(s), SQLITE_DONE);
		sqlite3_reset(s);
	}
	sqlite3_finalize(s);

	s = store_prepare(st, "INSERT INTO resolutions (item_id, dimension, "
			  "code, rationale, adjudicator_id, resolved_at) "
			  "VALUES (?, ?, ?, 'r', 5, 't')", NULL);
	for (i = 1; i <= nitems; i++)
		for (d = 0; d <= cb->nr_dims; d++) {
			const char *dim = d < cb->nr_dims ? cb->dims[d].key :
					  "retired_dim";

			if (rnd(10) < 8)
				continue;
			sqlite3_bind_int(s, 1, i);
			sqlite3_bind_text(s, 2, dim, -1, SQLITE_STATIC);
			sqlite3_bind_text(s, 3, d < cb->nr_dims ?
					  cb->dims[d].codes[0].key : "x", -1,
					  SQLITE_STATIC);
			assert_int_equal(sqlite3_step(s), SQLITE_DONE);
			sqlite3_reset(s);
		}
	sqlite3_finalize(s);
}

static void actor_set(struct actor *a, long long id, const char *name,
		      enum role role)
{
	memset(a, 0, sizeof(*a));
	a->os_user = (char *)name;
	a->name = (char *)name;
	a->member_id = id;
	a->role = role;
}

static void test_agreed_matches_adjudicate(void **state)
{
	struct codebook cb = CODEBOOK_INIT;
	struct store st;
	struct err e = ERR_INIT;
	struct consensus_iter it;
	struct actor own, a1;
	int rc, seen = 0, statuses[4] = { 0 }, nitems = 400, visible = 0;
	size_t d;

	(void)state;
	if (codebook_load_file(&cb, "codebooks/llm-framework-bugs.json",
			       &e) < 0)
		fail_msg("%s", e.msg);
	assert_int_equal(store_open_memory(&st, &e), 0);
	random_study(&st, &cb, nitems);
	actor_set(&own, 1, "own", ROLE_OWNER);
	actor_set(&a1, 2, "a1", ROLE_ANNOTATOR);

	assert_int_equal(consensus_open(&it, &st, &own, &cb, NULL, &e), 0);
	while ((rc = consensus_next(&it, &e)) > 0) {
		struct item_state s;
		int complete = 1;

		seen++;
		/* the items in no round do not count once there are rounds */
		assert_int_not_equal(it.item.id % 4, 0);
		if (adjudicate_state(&st, &own, &cb, it.item.id, &s, &e) < 0)
			fail_msg("%s", e.msg);
		assert_int_equal(it.item.ready, s.ready);
		for (d = 0; d < cb.nr_dims; d++) {
			const struct consensus_dim *ad = &it.item.dims[d];
			const struct dim_state *ds = &s.dims[d];
			int has = ds->status == DIM_AGREED ||
				  ds->status == DIM_RESOLVED;

			assert_int_equal(ad->status, ds->status);
			statuses[ds->status]++;
			if (has)
				assert_string_equal(ad->final.ptr,
						    ds->final ? ds->final : "");
			else
				assert_string_equal(ad->final.ptr, "");
			complete &= has;
		}
		assert_int_equal(it.item.complete, complete);
		item_state_release(&s);
	}
	assert_int_equal(rc, 0);
	consensus_close(&it);
	assert_int_equal(seen, nitems - nitems / 4);
	/* the random study exercises every status */
	assert_true(statuses[DIM_PENDING] > 0);
	assert_true(statuses[DIM_AGREED] > 0);
	assert_true(statuses[DIM_DISAGREE] > 0);
	assert_true(statuses[DIM_RESOLVED] > 0);

	/* an annotator sees exactly the items whose labels of others
	 * label_may_see() lets them see */
	assert_int_equal(consensus_open(&it, &st, &a1, &cb, NULL, &e), 0);
	while ((rc = consensus_next(&it, &e)) > 0) {
		assert_true(access_may_see(&st, &a1, it.item.id, 3, NULL));
		visible++;
	}
	assert_int_equal(rc, 0);
	consensus_close(&it);
	{
		int i, may = 0;

		for (i = 1; i <= nitems; i++)
			may += access_may_see(&st, &a1, i, 3, NULL);
		assert_int_equal(visible, may);
		assert_true(may > 0 && may < nitems);
	}

	/* one round only; an unknown round is refused */
	assert_int_equal(consensus_open(&it, &st, &own, &cb, "r2", &e), 0);
	seen = 0;
	while ((rc = consensus_next(&it, &e)) > 0) {
		assert_int_equal(it.item.id % 4, 2);
		assert_string_equal(it.item.round, "r2");
		seen++;
	}
	consensus_close(&it);
	assert_int_equal(seen, nitems / 4);
	assert_int_equal(consensus_open(&it, &st, &own, &cb, "nope", &e), -1);
	assert_int_equal(e.code, ERR_NOTFOUND);
	consensus_close(&it);

	store_close(&st);
	codebook_release(&cb);
}

static int note_item(const struct disagreement *d, void *data)
{
	struct buf *b = data;
	char mark[48];

	/* each item once: its name as a line */
	snprintf(mark, sizeof(mark), "%s\n", d->item);
	if (!b->len || strcmp(b->ptr + b->len - strlen(mark), mark))
		buf_addstr(b, mark);
	return 0;
}

static int cmp_line(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The lines of `text`, sorted, joined again. */
static void sort_lines(struct buf *text)
{
	char *copy = xstrdup(text->ptr), *p, **v = NULL;
	size_t n = 0, alloc = 0, i;

	for (p = strtok(copy, "\n"); p; p = strtok(NULL, "\n")) {
		ALLOC_GROW(v, n + 1, alloc);
		v[n++] = p;
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_line);
	buf_reset(text);
	for (i = 0; i < n; i++)
		buf_addf(text, "%s\n", v[i]);
	free(v);
	free(copy);
}

/*
 * The adjudicator's queue, built in one pass, is the disagreement list's
 * items, in the order the item-by-item queue had: by the time of the
 * last submission, then by id (the reference below is that queue).
 */
static void test_queue_is_the_disagreement_list(void **state)
{
	static const unsigned long long seeds[] = { 1, 7, 42, 2024 };
	size_t k;

	(void)state;
	for (k = 0; k < sizeof(seeds) / sizeof(seeds[0]); k++) {
		struct codebook cb = CODEBOOK_INIT;
		struct store st;
		struct err e = ERR_INIT;
		struct actor own, adj;
		struct buf queue = BUF_INIT, listed = BUF_INIT;
		struct buf want = BUF_INIT;
		sqlite3_stmt *s;
		long long *ids;
		size_t nr, i;
		int rc;

		rng = seeds[k] * 0x9e3779b97f4a7c15ULL + 1;
		assert_int_equal(codebook_load_file(&cb,
				 "codebooks/llm-framework-bugs.json", &e), 0);
		assert_int_equal(store_open_memory(&st, &e), 0);
		random_study(&st, &cb, 300);
		/* submission times with ties, discussions, one settled */
		exec_ok(&st, "UPDATE submissions SET submitted_at = "
			"printf('2024-%02d-01', (item_id * 7 + member_id * 13) "
			"% 12 + 1)");
		exec_ok(&st, "INSERT INTO flags SELECT item_id, member_id, "
			"'discuss', 't' FROM submissions WHERE (item_id + "
			"member_id) % 9 = 0");
		exec_ok(&st, "INSERT INTO settled SELECT item_id, 5, 'n', 't' "
			"FROM flags WHERE item_id % 2 = 0 GROUP BY item_id");
		actor_set(&own, 1, "own", ROLE_OWNER);
		actor_set(&adj, 5, "adj", ROLE_ADJUDICATOR);

		assert_int_equal(adjudicate_queue(&st, &adj, &cb, &ids, &nr,
						  &e), 0);
		for (i = 0; i < nr; i++)
			buf_addf(&queue, "%lld\n", ids[i]);
		free(ids);

		/* the item-by-item queue it replaces */
		s = store_prepare(&st, "SELECT item_id FROM submissions WHERE "
				  ACCESS_COUNTED_SQL("item_id") " GROUP BY "
				  "item_id HAVING count(*) >= 2 ORDER BY "
				  "max(submitted_at), item_id", &e);
		while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
			struct item_state is;
			long long id = sqlite3_column_int64(s, 0);

			if (adjudicate_state(&st, &adj, &cb, id, &is, &e) < 0)
				fail_msg("%s", e.msg);
			if (item_state_needs_adjudication(&is))
				buf_addf(&want, "%lld\n", id);
			item_state_release(&is);
		}
		assert_int_equal(rc, SQLITE_DONE);
		sqlite3_finalize(s);
		assert_string_equal(queue.ptr, want.ptr);
		assert_true(nr > 10);

		/* the same items `disagreements` lists */
		assert_int_equal(adjudicate_disagreements(&st, &adj, &cb, NULL,
							  note_item, &listed,
							  &e), 0);
		buf_reset(&want);
		{
			char *copy = xstrdup(queue.ptr), *p;

			for (p = strtok(copy, "\n"); p; p = strtok(NULL, "\n"))
				buf_addf(&want, "o/r#%lld\n", 1000 +
					 atoll(p));
			free(copy);
		}
		sort_lines(&want);
		sort_lines(&listed);
		assert_string_equal(listed.ptr, want.ptr);
		/* and so does the owner */
		assert_int_equal(adjudicate_queue(&st, &own, &cb, &ids, &nr,
						  &e), 0);
		free(ids);

		buf_release(&queue);
		buf_release(&listed);
		buf_release(&want);
		store_close(&st);
		codebook_release(&cb);
	}
}

static void test_agreed_refuses_non_member(void **state)
{
	struct codebook cb = CODEBOOK_INIT;
	struct store st;
	struct err e = ERR_INIT;
	struct consensus_iter it;
	struct actor nobody;

	(void)state;
	assert_int_equal(codebook_load_file(&cb,
			 "codebooks/llm-framework-bugs.json", &e), 0);
	assert_int_equal(store_open_memory(&st, &e), 0);
	actor_set(&nobody, 0, "eve", ROLE_NONE);
	assert_int_equal(consensus_open(&it, &st, &nobody, &cb, NULL, &e), -1);
	assert_int_equal(e.code, ERR_PERM);
	consensus_close(&it);
	assert_false(access_rule(&nobody, 3, 1, 1));
	store_close(&st);
	codebook_release(&cb);
}

/* what spreadsheet programs write: a BOM, CRLF, ';' or TAB, quotes */
static void test_reader_spreadsheet_shapes(void **state)
{
	static const char semi[] = "\xEF\xBB\xBF Repo ;Title\r\n"
				   "a/b;\"x; y\"\r\n";
	static const char tab[] = "url\tnote\na/b#1\t\"q, r\"\n";
	struct csv c = CSV_INIT;
	struct err e = ERR_INIT;

	(void)state;
	assert_int_equal(csv_sniff(semi, sizeof(semi) - 1), ';');
	assert_int_equal(csv_sniff(tab, sizeof(tab) - 1), '\t');
	assert_int_equal(csv_sniff("a,b\n", 4), ',');
	assert_int_equal(csv_sniff("\"a;b\",c\n", 8), ',');	/* quoted */
	assert_int_equal(csv_sniff("one\n", 4), ',');
	assert_int_equal(csv_parse_sep(&c, semi, sizeof(semi) - 1, ';', "s",
				       &e), 0);
	assert_int_equal(c.nr, 2);
	assert_int_equal(csv_column_ci(&c.v[0], "repo"), 0);
	assert_int_equal(csv_column_ci(&c.v[0], "title"), 1);
	assert_string_equal(c.v[1].fields[1], "x; y");
	csv_release(&c);
	assert_int_equal(csv_parse_sep(&c, tab, sizeof(tab) - 1, '\t', "t",
				       &e), 0);
	assert_string_equal(c.v[1].fields[1], "q, r");
	csv_release(&c);
	assert_true(csv_same_name(" PR URL ", "pr_url"));
	assert_true(csv_same_name("Created-At", "created_at"));
	assert_true(csv_same_name("link to it", "Link To It"));
	assert_false(csv_same_name("PR URLs", "pr_url"));
	assert_false(csv_same_name("", "pr"));
	/* a NUL byte is refused with its line and field */
	assert_int_equal(csv_parse(&c, "a,b\nx,y\0z\n", 10, "n.csv", &e),
			 -1);
	assert_int_equal(e.code, ERR_INPUT);
	assert_string_equal(e.msg, "n.csv:2: field 2: a NUL byte");
	assert_int_equal(c.nr, 0);
}

/* Spaces around cells are no part of them; quoted spaces are. */
static void test_reader_trims_cells(void **state)
{
	static const char text[] = " item , annotator,code \n"
				   "  o/r#1,alice ,  \" quoted \"  \n"
				   "o/r#2,\tbob\t,\"\"\n";
	struct csv c = CSV_INIT;
	struct err e = ERR_INIT;

	(void)state;
	assert_int_equal(csv_parse(&c, text, sizeof(text) - 1, "t.csv", &e),
			 0);
	assert_int_equal(c.nr, 3);
	assert_string_equal(c.v[0].fields[0], "item");
	assert_string_equal(c.v[0].fields[2], "code");
	assert_string_equal(c.v[1].fields[0], "o/r#1");
	assert_string_equal(c.v[1].fields[1], "alice");
	assert_string_equal(c.v[1].fields[2], " quoted ");
	assert_string_equal(c.v[2].fields[1], "bob");
	assert_string_equal(c.v[2].fields[2], "");
	csv_release(&c);
	/* text after a closing quote is still refused */
	assert_int_equal(csv_parse(&c, "a,\"b\" c\n", 9, "x.csv", &e), -1);
	assert_string_equal(e.msg, "x.csv:1: text after a closing quote");
}

/* UTF-16 (and UTF-32) text is named as such, not as "a NUL byte". */
static void test_reader_names_utf16(void **state)
{
	static const char le_bom[] = "\xff\xfei\0t\0e\0m\0\n\0";
	static const char be_bom[] = "\xfe\xff\0i\0t\0e\0m\0\n";
	static const char le[] = "i\0t\0e\0m\0\n\0";
	static const char u32[] = "\xff\xfe\0\0i\0\0\0";
	struct csv c = CSV_INIT;
	struct err e = ERR_INIT;

	(void)state;
	assert_int_equal(csv_parse(&c, le_bom, sizeof(le_bom) - 1, "u.csv",
				   &e), -1);
	assert_int_equal(e.code, ERR_INPUT);
	assert_string_equal(e.msg, "u.csv: UTF-16 text, not UTF-8 (as a "
			    "spreadsheet's \"Unicode text\" is saved): save it "
			    "as \"CSV UTF-8\", or convert it with `iconv -f "
			    "UTF-16 -t UTF-8`");
	assert_int_equal(csv_parse(&c, be_bom, sizeof(be_bom) - 1, "u.csv",
				   &e), -1);
	assert_non_null(strstr(e.msg, "UTF-16 text"));
	assert_int_equal(csv_parse(&c, le, sizeof(le) - 1, "u.csv", &e), -1);
	assert_non_null(strstr(e.msg, "UTF-16 text"));
	assert_int_equal(csv_parse(&c, u32, sizeof(u32) - 1, "u.csv", &e), -1);
	assert_non_null(strstr(e.msg, "UTF-32 text"));
	assert_int_equal(c.nr, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reader_spreadsheet_shapes),
		cmocka_unit_test(test_cell_quoting),
		cmocka_unit_test(test_formula_guard),
		cmocka_unit_test(test_writer_rows),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_write_error),
		cmocka_unit_test(test_reader_trims_cells),
		cmocka_unit_test(test_reader_names_utf16),
		cmocka_unit_test(test_json_quote),
		cmocka_unit_test(test_json_fields),
		cmocka_unit_test(test_sha256_vectors),
		cmocka_unit_test(test_sha256_million_a),
		cmocka_unit_test(test_sha256_padding_and_splits),
		cmocka_unit_test(test_atomic_commit_and_abort),
		cmocka_unit_test(test_atomic_into_a_pipe),
		cmocka_unit_test(test_agreed_matches_adjudicate),
		cmocka_unit_test(test_agreed_refuses_non_member),
		cmocka_unit_test(test_queue_is_the_disagreement_list),
	};

	return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
