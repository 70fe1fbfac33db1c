/* SPDX-License-Identifier: MIT */
/*
 * t_codebook: loading and validating codebooks.
 *
 * The bundled codebooks must load and have the shape the studies need;
 * every bad input must be refused with one exact line naming the file,
 * line, column and key path.  Bad fixtures live in tests/fixtures/codebooks/
 * (bad-*.json) so that CLI tests can reuse them; byte-level cases that are
 * awkward as files are inline.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "core/study/codebook.h"

#define FIXTURES "tests/fixtures/codebooks/"
#define LLM_CODEBOOK "codebooks/llm-framework-bugs.json"
#define DL_CODEBOOK "codebooks/dl-framework-bugs.json"

/* A one-dimension codebook for inline tests; %s is spliced into the code
 * object. */
#define MINIMAL_HEAD \
	"{\"name\": \"mini\", \"version\": \"0.1\", \"dimensions\": [" \
	"{\"key\": \"symptom\", \"name\": \"Symptom\", \"codes\": ["
#define MINIMAL_TAIL "]}]}"

static void assert_empty(const struct codebook *cb)
{
	assert_null(cb->name);
	assert_null(cb->version);
	assert_null(cb->dims);
	assert_int_equal(cb->nr_dims, 0);
}

/* Invariants every loaded codebook keeps. */
static void assert_sane(const struct codebook *cb)
{
	size_t i, j, k;

	assert_true(codebook_valid_key(cb->name));
	assert_non_null(cb->version);
	assert_true(cb->nr_dims > 0);
	for (i = 0; i < cb->nr_dims; i++) {
		const struct dimension *d = &cb->dims[i];

		assert_true(codebook_valid_key(d->key));
		assert_non_null(d->name);
		assert_true(d->nr_codes > 0);
		assert_ptr_equal(codebook_dim(cb, d->key), d);
		for (j = 0; j < d->nr_codes; j++) {
			const struct code *c = &d->codes[j];

			assert_true(codebook_valid_key(c->key));
			assert_non_null(c->name);
			assert_non_null(c->definition);
			assert_int_equal(dimension_code_index(d, c->key), j);
			for (k = 0; k < c->nr_examples; k++)
				assert_non_null(c->examples[k]);
		}
	}
}

static void assert_keys(const struct dimension *d, const char *const *keys,
			size_t n)
{
	size_t i;

	assert_int_equal(d->nr_codes, n);
	for (i = 0; i < n; i++)
		assert_string_equal(d->codes[i].key, keys[i]);
}

#define ASSERT_KEYS(d, ...) do { \
	static const char *const keys_[] = { __VA_ARGS__ }; \
	assert_keys((d), keys_, sizeof(keys_) / sizeof(keys_[0])); \
} while (0)

/* Bundled codebooks must fit the picker overlay on an 80x24 terminal:
 * definitions of at most three 76-column lines, one or two examples. */
static void assert_pickable(const struct codebook *cb)
{
	size_t i, j;

	for (i = 0; i < cb->nr_dims; i++) {
		const struct dimension *d = &cb->dims[i];

		assert_non_null(d->question);
		for (j = 0; j < d->nr_codes; j++) {
			const struct code *c = &d->codes[j];

			assert_true(strlen(c->definition) <= 3 * 76);
			assert_true(c->nr_examples <= 2);
		}
	}
}

static void test_llm_codebook(void **state)
{
	struct codebook cb = CODEBOOK_INIT;
	struct err e = ERR_INIT;
	const struct dimension *d;
	size_t i, j, distributed = 0;

	assert_int_equal(codebook_load_file(&cb, LLM_CODEBOOK, &e), 0);
	assert_int_equal(e.code, ERR_NONE);
	assert_sane(&cb);
	assert_pickable(&cb);
	assert_string_equal(cb.name, "llm-framework-bugs");
	assert_string_equal(cb.version, "1.0");
	assert_non_null(cb.title);
	assert_non_null(cb.description);
	assert_int_equal(cb.nr_dims, 5);
	assert_string_equal(cb.dims[0].key, "symptom");
	assert_string_equal(cb.dims[1].key, "root_cause");
	assert_string_equal(cb.dims[2].key, "fix_pattern");
	assert_string_equal(cb.dims[3].key, "stage");
	assert_string_equal(cb.dims[4].key, "phase");

	d = codebook_dim(&cb, "symptom");
	assert_false(d->select_many);
	assert_true(d->required);
	ASSERT_KEYS(d, "crash", "incorrect_functionality", "build_failure",
		    "hang", "performance_degradation", "memory_issue",
		    "setup_failure", "cross_device_inconsistency",
		    "unreported", "other");
	for (i = 0; i < d->nr_codes; i++)
		assert_int_equal(d->codes[i].distributed,
				 !strcmp(d->codes[i].key, "setup_failure") ||
				 !strcmp(d->codes[i].key,
					 "cross_device_inconsistency"));

	d = codebook_dim(&cb, "root_cause");
	assert_false(d->select_many);
	assert_true(d->required);
	ASSERT_KEYS(d, "api_misuse", "incorrect_implementation",
		    "configuration_error", "precondition_missing",
		    "type_confusion", "tensor_shape_misalignment",
		    "version_incompatibility", "exception_handling",
		    "incorrect_assignment", "numerical_issue",
		    "dependent_module", "allocation_strategy",
		    "distributed_communication", "distributed_tensor",
		    "concurrency", "other");
	for (i = 0; i < d->nr_codes; i++) {
		const struct code *c = &d->codes[i];

		if (!strcmp(c->key, "other")) {
			assert_null(c->group);
			continue;
		}
		assert_non_null(c->group);
		if (c->distributed) {
			distributed++;
			assert_string_equal(c->group, "distributed");
		}
		if (!strcmp(c->group, "general"))
			assert_false(c->distributed);
	}
	assert_int_equal(distributed, 3);
	assert_string_equal(dimension_code(d, "concurrency")->group,
			    "distributed");
	assert_true(dimension_code(d, "distributed_tensor")->distributed);

	d = codebook_dim(&cb, "fix_pattern");
	assert_true(d->select_many);
	assert_true(d->required);
	assert_int_equal(dimension_code_index(d, "conditional_logic"), 0);
	assert_int_equal(dimension_code_index(d, "parameter_handling"), 1);
	assert_int_equal(dimension_code_index(d, "version_compatibility"), 2);
	assert_true(dimension_code(d, "distributed_tuning")->distributed);
	assert_non_null(dimension_code(d, "dependency_management"));
	assert_non_null(dimension_code(d, "algorithm_rewrite"));

	d = codebook_dim(&cb, "stage");
	assert_false(d->select_many);
	assert_false(d->required);
	ASSERT_KEYS(d, "initialization", "communication", "computation",
		    "memory", "fault_tolerance", "scheduling", "other");

	d = codebook_dim(&cb, "phase");
	assert_false(d->select_many);
	assert_true(d->required);
	ASSERT_KEYS(d, "training", "inference", "both", "other");

	for (i = 0; i < cb.nr_dims; i++) {
		d = &cb.dims[i];
		assert_int_equal(dimension_code_index(d, "other"),
				 d->nr_codes - 1);
		for (j = 0; j + 1 < d->nr_codes; j++) {
			assert_non_null(d->codes[j].include);
			assert_non_null(d->codes[j].exclude);
		}
	}
	assert_int_equal(codebook_dim(&cb, "symptom")->codes[0].nr_examples, 2);
	codebook_release(&cb);
	assert_empty(&cb);
}

static void test_dl_codebook(void **state)
{
	struct codebook cb = CODEBOOK_INIT;
	struct err e = ERR_INIT;
	const struct dimension *d, *rc;
	size_t i, j;

	assert_int_equal(codebook_load_file(&cb, DL_CODEBOOK, &e), 0);
	assert_sane(&cb);
	assert_pickable(&cb);
	assert_string_equal(cb.name, "dl-framework-bugs");
	assert_int_equal(cb.nr_dims, 5);

	d = codebook_dim(&cb, "symptom");
	assert_true(d->required);
	ASSERT_KEYS(d, "crash", "incorrect_functionality", "build_failure",
		    "unreported", "poor_performance", "hang");

	rc = codebook_dim(&cb, "root_cause");
	assert_true(rc->required);
	assert_false(rc->select_many);
	assert_int_equal(rc->nr_codes, 13);
	for (i = 0; i < rc->nr_codes; i++) {
		if (strcmp(rc->codes[i].key, "other"))
			assert_non_null(rc->codes[i].group);
		assert_false(rc->codes[i].distributed);
	}
	assert_string_equal(dimension_code(rc, "api_misuse")->group, "api");
	assert_string_equal(dimension_code(rc, "dependent_module")->group,
			    "environment");

	/* Every sub-type is named "<root cause>.<sub-type>" and grouped
	 * under its root cause. */
	d = codebook_dim(&cb, "root_cause_sub");
	assert_false(d->required);
	assert_false(d->select_many);
	assert_int_equal(d->nr_codes, 15);
	for (i = 0; i < d->nr_codes; i++) {
		const struct code *c = &d->codes[i];
		size_t n;

		if (!strcmp(c->key, "other"))
			continue;
		assert_non_null(c->group);
		assert_non_null(dimension_code(rc, c->group));
		n = strlen(c->group);
		assert_memory_equal(c->key, c->group, n);
		assert_int_equal(c->key[n], '.');
	}
	assert_non_null(dimension_code(d, "api_misuse.wrong_args"));
	assert_non_null(dimension_code(d, "exception_handling.spurious"));
	assert_non_null(dimension_code(d, "api_incompatibility.internal"));

	d = codebook_dim(&cb, "component");
	assert_false(d->required);
	ASSERT_KEYS(d, "operation_implementation", "user_level_api",
		    "graph_level_implementation", "general_utility",
		    "environment");

	d = codebook_dim(&cb, "stage");
	assert_true(d->required);
	ASSERT_KEYS(d, "training", "install", "utility", "deployment",
		    "preprocessing");

	for (i = 0; i < cb.nr_dims; i++)
		for (j = 0; j < cb.dims[i].nr_codes; j++)
			assert_false(cb.dims[i].codes[j].distributed);
	codebook_release(&cb);
}

/* Optional members take their defaults. */
static void test_defaults(void **state)
{
	static const char json[] = MINIMAL_HEAD
		"{\"key\": \"crash\", \"name\": \"Crash\", "
		"\"definition\": \"It stops.\"}" MINIMAL_TAIL;
	struct codebook cb;
	struct err e = ERR_INIT;
	const struct dimension *d;
	const struct code *c;

	assert_int_equal(codebook_parse(&cb, json, strlen(json), "mini",
					&e), 0);
	assert_string_equal(cb.name, "mini");
	assert_string_equal(cb.version, "0.1");
	assert_null(cb.title);
	assert_null(cb.description);
	d = codebook_dim(&cb, "symptom");
	assert_non_null(d);
	assert_false(d->select_many);
	assert_true(d->required);
	assert_null(d->question);
	c = dimension_code(d, "crash");
	assert_non_null(c);
	assert_null(c->group);
	assert_null(c->include);
	assert_null(c->exclude);
	assert_null(c->examples);
	assert_int_equal(c->nr_examples, 0);
	assert_false(c->distributed);
	codebook_release(&cb);
}

/* Every optional member is copied. */
static void test_all_members(void **state)
{
	static const char json[] =
		"\xEF\xBB\xBF{\"name\": \"full\", \"version\": \"2\", "
		"\"title\": \"T\", \"description\": \"D\", \"dimensions\": ["
		"{\"key\": \"fix\", \"name\": \"Fix\", \"question\": \"Q?\", "
		"\"select\": \"many\", \"required\": false, \"codes\": ["
		"{\"key\": \"tune\", \"name\": \"Tune\", \"group\": \"g\", "
		"\"definition\": \"Def \\u00e9\", \"include\": \"I\", "
		"\"exclude\": \"E\", \"examples\": [\"a\", \"b\"], "
		"\"distributed\": true}, "
		"{\"key\": \"other\", \"name\": \"Other\", "
		"\"definition\": \"O\", "
		"\"examples\": [], \"distributed\": false}]}]}\r\n";
	struct codebook cb;
	struct err e = ERR_INIT;
	const struct dimension *d;
	const struct code *c;

	assert_int_equal(codebook_parse(&cb, json, strlen(json), "full",
					&e), 0);
	assert_string_equal(cb.title, "T");
	assert_string_equal(cb.description, "D");
	d = &cb.dims[0];
	assert_string_equal(d->question, "Q?");
	assert_true(d->select_many);
	assert_false(d->required);
	c = &d->codes[0];
	assert_string_equal(c->group, "g");
	assert_string_equal(c->definition, "Def \xC3\xA9");
	assert_string_equal(c->include, "I");
	assert_string_equal(c->exclude, "E");
	assert_int_equal(c->nr_examples, 2);
	assert_string_equal(c->examples[0], "a");
	assert_string_equal(c->examples[1], "b");
	assert_true(c->distributed);
	assert_int_equal(d->codes[1].nr_examples, 0);
	assert_false(d->codes[1].distributed);
	codebook_release(&cb);
}

static void test_lookups(void **state)
{
	struct codebook cb;
	struct err e = ERR_INIT;
	const struct dimension *d;

	assert_int_equal(codebook_load_file(&cb, LLM_CODEBOOK, &e), 0);
	assert_null(codebook_dim(&cb, "no_such_dimension"));
	assert_null(codebook_dim(&cb, "Symptom"));
	assert_null(codebook_dim(&cb, NULL));
	assert_null(codebook_dim(NULL, "symptom"));
	d = codebook_dim(&cb, "symptom");
	assert_non_null(d);
	assert_string_equal(dimension_code(d, "hang")->name, "Hang");
	assert_null(dimension_code(d, "HANG"));
	assert_null(dimension_code(d, NULL));
	assert_null(dimension_code(NULL, "hang"));
	assert_int_equal(dimension_code_index(d, "crash"), 0);
	assert_int_equal(dimension_code_index(d, "nope"), -1);
	assert_int_equal(dimension_code_index(NULL, "crash"), -1);
	codebook_release(&cb);
}

static void test_valid_key(void **state)
{
	char key[66];

	assert_true(codebook_valid_key("a"));
	assert_true(codebook_valid_key("root_cause"));
	assert_true(codebook_valid_key("api_misuse.wrong-args"));
	assert_true(codebook_valid_key("Stage2"));
	assert_false(codebook_valid_key(NULL));
	assert_false(codebook_valid_key(""));
	assert_false(codebook_valid_key("root cause"));
	assert_false(codebook_valid_key("a,b"));
	assert_false(codebook_valid_key("a=b"));
	assert_false(codebook_valid_key("caf\xC3\xA9"));
	memset(key, 'k', 64);
	key[64] = '\0';
	assert_true(codebook_valid_key(key));
	key[64] = 'k';
	key[65] = '\0';
	assert_false(codebook_valid_key(key));
}

static void test_release(void **state)
{
	struct codebook cb = CODEBOOK_INIT;

	codebook_release(NULL);
	codebook_release(&cb);
	codebook_release(&cb);
	assert_empty(&cb);
}

static void test_missing_file(void **state)
{
	struct codebook cb;
	struct err e = ERR_INIT;

	assert_int_equal(codebook_load_file(&cb, FIXTURES "no-such.json", &e),
			 -1);
	assert_int_equal(e.code, ERR_IO);
	assert_string_equal(e.msg, FIXTURES
			    "no-such.json: No such file or directory");
	assert_empty(&cb);
}

/* Parse `len` bytes of `json` and expect failure with message `msg`. */
static void expect_parse_error(const char *json, size_t len, const char *msg)
{
	struct codebook cb;
	struct err e = ERR_INIT;

	assert_int_equal(codebook_parse(&cb, json, len, "in.json", &e), -1);
	assert_int_equal(e.code, ERR_INPUT);
	assert_string_equal(e.msg, msg);
	assert_empty(&cb);
	codebook_release(&cb);
}

#define EXPECT_ERROR(lit, msg) expect_parse_error((lit), sizeof(lit) - 1, (msg))

/* "scale" and "value": defaults, the refusals with their place. */
#define SCALE_CB(dim, c1, c2) \
	"{\"name\": \"s\", \"version\": \"1\", \"dimensions\": [\n" \
	"  {\"key\": \"sev\", \"name\": \"Severity\"" dim ", \"codes\": [\n" \
	"    {\"key\": \"low\", \"name\": \"Low\", \"definition\": \"d\"" c1 "},\n" \
	"    {\"key\": \"high\", \"name\": \"High\", \"definition\": \"d\"" c2 "}\n" \
	"  ]}]}\n"

static void test_scales(void **state)
{
	static const char ok[] = SCALE_CB(", \"scale\": \"interval\"",
					  ", \"value\": 1", ", \"value\": 2.5");
	static const char plain[] = SCALE_CB("", "", "");
	struct codebook cb;
	struct err e = ERR_INIT;

	(void)state;
	assert_int_equal(codebook_parse(&cb, plain, sizeof(plain) - 1, "in.json",
					&e), 0);
	assert_int_equal(cb.dims[0].scale, SCALE_NOMINAL);
	assert_false(cb.dims[0].codes[0].has_value);
	codebook_release(&cb);
	assert_int_equal(codebook_parse(&cb, ok, sizeof(ok) - 1, "in.json",
					&e), 0);
	assert_int_equal(cb.dims[0].scale, SCALE_INTERVAL);
	assert_true(cb.dims[0].codes[1].has_value);
	assert_true(cb.dims[0].codes[1].value == 2.5);
	assert_string_equal(dim_scale_name(cb.dims[0].scale), "interval");
	codebook_release(&cb);

	EXPECT_ERROR(SCALE_CB(", \"select\": \"many\", \"scale\": \"ordinal\"",
			      "", ""),
		     "in.json:2:65: dimensions[0].scale: a \"select\": "
		     "\"many\" dimension is nominal: \"scale\": \"ordinal\" "
		     "needs \"select\": \"one\"");
	EXPECT_ERROR(SCALE_CB(", \"scale\": \"interval\"", ", \"value\": 1", ""),
		     "in.json:4:5: dimensions[0].codes[1]: missing member "
		     "\"value\": codes of an \"interval\" scale each need a "
		     "number");
	EXPECT_ERROR(SCALE_CB(", \"scale\": \"ratio\"", "", ""),
		     "in.json:2:47: dimensions[0].scale: expected "
		     "\"nominal\", \"ordinal\" or \"interval\", not \"ratio\"");
	EXPECT_ERROR(SCALE_CB("", ", \"value\": \"1\"", ""),
		     "in.json:3:63: dimensions[0].codes[0].value: expected a "
		     "number");
	EXPECT_ERROR(SCALE_CB(", \"scale\": \"interval\"", ", \"value\": 3",
			      ", \"value\": 3"),
		     "in.json:2:68: dimensions[0].codes: every code of an "
		     "\"interval\" scale has the value 3: they need two "
		     "different values");
}

static void test_inline_errors(void **state)
{
	EXPECT_ERROR("", "in.json:1:1: empty file, expected a JSON object");
	EXPECT_ERROR(" \n\t\n  ",
		     "in.json:3:3: empty file, expected a JSON object");
	EXPECT_ERROR("\xEF\xBB\xBF",
		     "in.json:1:1: empty file, expected a JSON object");
	/* A byte order mark does not count as a column. */
	EXPECT_ERROR("\xEF\xBB\xBF[]",
		     "in.json:1:1: expected a JSON object at the top level");
	EXPECT_ERROR("\"codebook\"",
		     "in.json:1:1: expected a JSON object at the top level");
	EXPECT_ERROR("{\0}", "in.json:1:2: control character 0x00");
	EXPECT_ERROR("{\n\x1b[2J}", "in.json:2:1: control character 0x1b");
	/* Columns count characters, not bytes. */
	EXPECT_ERROR("{\"title\": \"\xE6\x97\xA5\xE6\x9C\xAC\" x}",
		     "in.json:1:16: JSON syntax error near 'x'");
	/* Overlong, surrogate and truncated sequences. */
	EXPECT_ERROR("{\"t\": \"\xC0\xAF\"}",
		     "in.json:1:8: invalid UTF-8 byte 0xc0");
	EXPECT_ERROR("{\"t\": \"\xED\xA0\x80\"}",
		     "in.json:1:8: invalid UTF-8 byte 0xed");
	EXPECT_ERROR("{\"t\": \"\xE6\x97",
		     "in.json:1:8: invalid UTF-8 byte 0xe6");
	/* CRLF line ends count one line each. */
	EXPECT_ERROR("{\r\n\"name\": \"x\",\r\n  \"version\" \"1\"}",
		     "in.json:3:13: JSON syntax error near '\"'");
	EXPECT_ERROR("{\"name\": \"x\"} {}",
		     "in.json:1:15: unexpected text after the JSON value");
	EXPECT_ERROR("{\"name\": tru}",
		     "in.json:1:10: JSON syntax error near 't'");
	/* Running out of text is told apart from an error in the last
	 * byte. */
	EXPECT_ERROR("{\"name\": \"x\"",
		     "in.json:1:13: unexpected end of JSON text");
	EXPECT_ERROR("{\"name\": \"x\\",
		     "in.json:1:10: unterminated string");
	EXPECT_ERROR("{\"name\": \"x\n}\n",
		     "in.json:1:10: unterminated string");
	EXPECT_ERROR("{\"name\": \"x\"\"y\"}",
		     "in.json:1:13: JSON syntax error near '\"'");
	EXPECT_ERROR("{\"name\": \"x\",}",
		     "in.json:1:14: JSON syntax error near '}'");
	EXPECT_ERROR("{\"name\" x",
		     "in.json:1:9: JSON syntax error near 'x'");
	/* Only the given length is read. */
	expect_parse_error("{\"name\": \"x\"} trailing", 13,
			   "in.json:1:1: missing required member \"version\"");
	/* Escaped values in messages stay on one printable line. */
	EXPECT_ERROR(MINIMAL_HEAD "{\"key\": \"a\\u001b[31mb\"}" MINIMAL_TAIL,
		     "in.json:1:107: dimensions[0].codes[0].key: "
		     "\"a\\x1b[31mb\" is not a valid key "
		     "(1-64 characters of A-Z a-z 0-9 _ . -)");
	EXPECT_ERROR(MINIMAL_HEAD "{\"key\": \"x\", \"\\\"\\n\": 1}"
		     MINIMAL_TAIL,
		     "in.json:1:112: dimensions[0].codes[0]: "
		     "unknown member \"\\\"\\x0a\"");
}

/* ---- bad fixtures: one test each ----------------------------------------- */

struct bad_case {
	const char *path;
	const char *msg;	/* expected message after "path:" */
};

static void test_bad(void **state)
{
	const struct bad_case *bc = *state;
	struct codebook cb;
	struct err e = ERR_INIT;
	char want[sizeof(e.msg)];

	snprintf(want, sizeof(want), "%s:%s", bc->path, bc->msg);
	assert_int_equal(codebook_load_file(&cb, bc->path, &e), -1);
	assert_int_equal(e.code, ERR_INPUT);
	assert_string_equal(e.msg, want);
	assert_empty(&cb);
}

#define BAD(name, msg) { \
	"bad-" name, test_bad, NULL, NULL, \
	&(struct bad_case){ FIXTURES "bad-" name ".json", (msg) } \
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_llm_codebook),
		cmocka_unit_test(test_dl_codebook),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_all_members),
		cmocka_unit_test(test_lookups),
		cmocka_unit_test(test_valid_key),
		cmocka_unit_test(test_release),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_inline_errors),
		cmocka_unit_test(test_scales),

		BAD("empty", "1:1: empty file, expected a JSON object"),
		BAD("syntax", "4:3: JSON syntax error near '\"'"),
		BAD("truncated", "5:1: unexpected end of JSON text"),
		BAD("trailing", "9:1: unexpected text after the JSON value"),
		BAD("utf8", "4:16: invalid UTF-8 byte 0xe9"),
		BAD("raw-tab", "4:14: control character 0x09 in a string "
		    "(write it as an escape)"),
		BAD("nul-escape", "4:16: \\u0000 in a string"),
		BAD("top-array", "1:1: "
		    "expected a JSON object at the top level"),
		BAD("missing-name", "1:1: missing required member \"name\""),
		BAD("version-number", "3:14: version: expected a string"),
		BAD("unknown-top", "4:3: unknown member \"autor\""),
		BAD("dimensions-empty", "4:17: dimensions: must not be empty"),
		BAD("dimensions-type", "4:17: dimensions: expected an array"),
		BAD("dim-not-object", "4:18: dimensions[0]: "
		    "expected an object"),
		BAD("dim-missing-codes", "7:5: dimensions[1]: "
		    "missing required member \"codes\""),
		BAD("dim-codes-empty", "5:52: dimensions[0].codes: "
		    "must not be empty"),
		BAD("many-too-many", "5:62: dimensions[0].codes: a \"select\": "
		    "\"many\" dimension takes at most 64 codes, this one has "
		    "65"),
		BAD("dim-key", "6:14: dimensions[0].key: \"root cause\" is not "
		    "a valid key (1-64 characters of A-Z a-z 0-9 _ . -)"),
		BAD("key-too-long", "9:17: dimensions[0].codes[0].key: "
		    "\"a_code_key_that_goes_on_and_on_well_past...\" is not "
		    "a valid key (1-64 characters of A-Z a-z 0-9 _ . -)"),
		BAD("select", "8:17: dimensions[0].select: "
		    "expected \"one\" or \"many\", not \"several\""),
		BAD("required-type", "8:19: dimensions[0].required: "
		    "expected true or false"),
		BAD("unknown-dim-member", "8:7: dimensions[0]: "
		    "unknown member \"multiple\""),
		BAD("dup-dimension", "9:13: dimensions[2]: "
		    "duplicate dimension key \"symptom\""),
		BAD("dup-code", "12:17: dimensions[1].codes[3]: "
		    "duplicate code key \"hang\""),
		BAD("dup-member", "13:11: dimensions[0].codes[0]: "
		    "duplicate member \"name\""),
		BAD("unknown-code-member", "10:41: dimensions[0].codes[1]: "
		    "unknown member \"defintion\""),
		BAD("code-missing-definition", "10:9: dimensions[0].codes[1]: "
		    "missing required member \"definition\""),
		BAD("code-not-object", "5:53: dimensions[0].codes[0]: "
		    "expected an object"),
		BAD("examples-type", "10:22: dimensions[0].codes[0].examples: "
		    "expected an array of strings"),
		BAD("examples-element", "10:47: "
		    "dimensions[0].codes[0].examples[1]: expected a string"),
		BAD("distributed-type", "10:25: "
		    "dimensions[0].codes[0].distributed: "
		    "expected true or false"),
		BAD("empty-string", "9:52: dimensions[0].codes[0].group: "
		    "must not be empty"),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
