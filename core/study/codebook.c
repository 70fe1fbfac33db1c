/* SPDX-License-Identifier: MIT */
/*
 * codebook: load and validate codebooks (see codebook.h).
 *
 * Loading makes four passes over the raw text:
 *  1. a byte check: the text must be UTF-8 with no control characters
 *     other than TAB, LF and CR (cJSON checks neither);
 *  2. cJSON parses the text; syntax errors are placed with the error
 *     pointer it returns;
 *  3. a position index: cJSON keeps no positions, so a light second scan
 *     records, in document order, where every value and every member name
 *     starts.  It trusts the text to be JSON (cJSON accepted it) and walks
 *     it the way cJSON does.  It also refuses what cJSON lets through but
 *     JSON forbids: raw control characters inside strings, and "\u0000",
 *     which would cut a cJSON string short;
 *  4. the cJSON tree is checked against the codebook schema while the
 *     index is walked in parallel (cJSON keeps children, duplicates
 *     included, in document order), and copied into struct codebook.
 * The cJSON tree is deleted before codebook_parse() returns.  Passes 1
 * to 3, and the messages that name a place in the text, are in
 * codebook_scan.c (shared through codebook_int.h); pass 4 is here;
 * lookups and finding a codebook file by name are in codebook_lookup.c.
 *
 * Schema decisions:
 *  - unknown members are refused everywhere (typos must not pass silently);
 *  - every string member, optional or not, must be non-empty;
 *  - a dimension's "select" defaults to "one" and "required" to true;
 *  - the codebook's "name" follows the same rule as keys.
 *
 * Positions are 1-based; a column counts characters (code points) from the
 * start of the line, a TAB counting as one.  A UTF-8 byte order mark at the
 * start of the text is skipped, as cJSON skips it.
 */
#include "core/study/codebook.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/buf.h"
#include "core/study/codebook_int.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define KEY_MAX 64

/* The kinds of member a codebook object may hold. */
enum field_type {
	F_STRING,		/* non-empty string */
	F_KEY,			/* string passing codebook_valid_key() */
	F_BOOL,
	F_SELECT,		/* "one" or "many" */
	F_SCALE,		/* "nominal", "ordinal" or "interval" */
	F_NUMBER,		/* a finite number */
	F_STRINGS,		/* array of non-empty strings */
	F_OBJECTS		/* non-empty array (elements checked later) */
};

struct field {
	const char *name;
	enum field_type type;
	int required;
};

static const struct field codebook_fields[] = {
	{ "name", F_KEY, 1 },
	{ "version", F_STRING, 1 },
	{ "title", F_STRING, 0 },
	{ "description", F_STRING, 0 },
	{ "dimensions", F_OBJECTS, 1 },
};

static const struct field dimension_fields[] = {
	{ "key", F_KEY, 1 },
	{ "name", F_STRING, 1 },
	{ "question", F_STRING, 0 },
	{ "select", F_SELECT, 0 },
	{ "required", F_BOOL, 0 },
	{ "scale", F_SCALE, 0 },
	{ "codes", F_OBJECTS, 1 },
};

static const struct field code_fields[] = {
	{ "key", F_KEY, 1 },
	{ "name", F_STRING, 1 },
	{ "group", F_STRING, 0 },
	{ "definition", F_STRING, 1 },
	{ "include", F_STRING, 0 },
	{ "exclude", F_STRING, 0 },
	{ "examples", F_STRINGS, 0 },
	{ "distributed", F_BOOL, 0 },
	{ "value", F_NUMBER, 0 },
};

/* ---- pass 4: the schema -------------------------------------------------- */

/* Node indexes run in parallel with cJSON children: the first child of
 * node `at` is at + 1, and each node knows its next sibling. */
static size_t first_child(size_t at)
{
	return at + 1;
}

static size_t next_child(const struct loader *l, size_t at)
{
	return l->pos[at].next;
}

static size_t val_pos(const struct loader *l, size_t at)
{
	return l->pos[at].val;
}

static size_t key_pos(const struct loader *l, size_t at)
{
	return l->pos[at].key != NO_POS ? l->pos[at].key : l->pos[at].val;
}

/* The member `name` of `obj` (node `at`) and its node in *node; NULL if
 * absent.  Duplicates have been refused before this is used. */
static const cJSON *member(const struct loader *l, const cJSON *obj,
			   size_t at, const char *name, size_t *node)
{
	const cJSON *it;
	size_t n;

	for (it = obj->child, n = first_child(at); it;
	     it = it->next, n = next_child(l, n)) {
		if (!strcmp(it->string, name)) {
			*node = n;
			return it;
		}
	}
	*node = NO_POS;
	return NULL;
}

static const struct field *find_field(const struct field *fields, size_t nr,
				      const char *name)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (!strcmp(fields[i].name, name))
			return &fields[i];
	return NULL;
}

static const char *const scale_names[] = {
	[SCALE_NOMINAL] = "nominal",
	[SCALE_ORDINAL] = "ordinal",
	[SCALE_INTERVAL] = "interval",
};

const char *dim_scale_name(enum dim_scale scale)
{
	return (size_t)scale < ARRAY_SIZE(scale_names) ? scale_names[scale] :
							 "nominal";
}

/* Is `name` a scale?  Its value goes to *out when `out` is not NULL. */
static int scale_of(const char *name, enum dim_scale *out)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(scale_names); i++)
		if (!strcmp(scale_names[i], name)) {
			if (out)
				*out = (enum dim_scale)i;
			return 1;
		}
	return 0;
}

/* Check the value `v` (node `at`) of member field `f`; l->path names it. */
static int check_field(struct loader *l, const struct field *f,
		       const cJSON *v, size_t at)
{
	const cJSON *it;
	size_t n, i = 0, old;
	int ret = 0;

	switch (f->type) {
	case F_STRING:
	case F_KEY:
	case F_SELECT:
	case F_SCALE:
		if (!cJSON_IsString(v))
			return loader_fail(l, val_pos(l, at),
					   "expected a string");
		if (!*v->valuestring)
			return loader_fail(l, val_pos(l, at),
					   "must not be empty");
		if (f->type == F_KEY && !codebook_valid_key(v->valuestring))
			return loader_fail(l, val_pos(l, at),
					   "%s is not a valid key (1-%d "
					   "characters of A-Z a-z 0-9 _ . -)",
					   loader_quote(l, v->valuestring),
					   KEY_MAX);
		if (f->type == F_SELECT && strcmp(v->valuestring, "one") &&
		    strcmp(v->valuestring, "many"))
			return loader_fail(l, val_pos(l, at),
					   "expected \"one\" or \"many\", "
					   "not %s",
					   loader_quote(l, v->valuestring));
		if (f->type == F_SCALE && !scale_of(v->valuestring, NULL))
			return loader_fail(l, val_pos(l, at),
					   "expected \"nominal\", \"ordinal\" "
					   "or \"interval\", not %s",
					   loader_quote(l, v->valuestring));
		return 0;
	case F_NUMBER:
		if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
			return loader_fail(l, val_pos(l, at),
					   "expected a number");
		return 0;
	case F_BOOL:
		if (!cJSON_IsBool(v))
			return loader_fail(l, val_pos(l, at),
					   "expected true or false");
		return 0;
	case F_OBJECTS:
		if (!cJSON_IsArray(v))
			return loader_fail(l, val_pos(l, at),
					   "expected an array");
		if (!v->child)
			return loader_fail(l, val_pos(l, at),
					   "must not be empty");
		return 0;
	case F_STRINGS:
		if (!cJSON_IsArray(v))
			return loader_fail(l, val_pos(l, at),
					   "expected an array of strings");
		for (it = v->child, n = first_child(at); it;
		     it = it->next, n = next_child(l, n), i++) {
			old = loader_path_push_index(l, i);
			if (!cJSON_IsString(it))
				ret = loader_fail(l, val_pos(l, n),
						  "expected a string");
			else if (!*it->valuestring)
				ret = loader_fail(l, val_pos(l, n),
						  "must not be empty");
			loader_path_pop(l, old);
			if (ret < 0)
				return -1;
		}
		return 0;
	}
	return 0;
}

/* Check that `obj` (node `at`, named by l->path) is an object whose
 * members, in document order, are neither repeated nor unknown and have
 * the right types, and that no required member is missing. */
static int check_object(struct loader *l, const cJSON *obj, size_t at,
			const struct field *fields, size_t nr)
{
	const struct field *f;
	const cJSON *it, *prev;
	size_t n, i, old;
	int ret;

	if (!cJSON_IsObject(obj))
		return loader_fail(l, l->pos[at].val, "expected an object");
	for (it = obj->child, n = first_child(at); it;
	     it = it->next, n = next_child(l, n)) {
		for (prev = obj->child; prev != it; prev = prev->next)
			if (!strcmp(prev->string, it->string))
				return loader_fail(l, key_pos(l, n),
						   "duplicate member %s",
						   loader_quote(l, it->string));
		f = find_field(fields, nr, it->string);
		if (!f)
			return loader_fail(l, key_pos(l, n),
					   "unknown member %s",
					   loader_quote(l, it->string));
		old = loader_path_push(l, f->name);
		ret = check_field(l, f, it, n);
		loader_path_pop(l, old);
		if (ret < 0)
			return -1;
	}
	for (i = 0; i < nr; i++)
		if (fields[i].required &&
		    !cJSON_GetObjectItemCaseSensitive(obj, fields[i].name))
			return loader_fail(l, l->pos[at].val,
					   "missing required member \"%s\"",
					   fields[i].name);
	return 0;
}

/* Copy a string member that check_object() has vetted; NULL if absent. */
static char *dup_member(const cJSON *obj, const char *name)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);

	return v ? xstrdup(v->valuestring) : NULL;
}

/* Read a boolean member that check_object() has vetted. */
static int bool_member(const cJSON *obj, const char *name, int def)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);

	return v ? cJSON_IsTrue(v) : def;
}

static void code_release(struct code *c)
{
	size_t i;

	free(c->key);
	free(c->name);
	free(c->group);
	free(c->definition);
	free(c->include);
	free(c->exclude);
	for (i = 0; i < c->nr_examples; i++)
		free(c->examples[i]);
	free(c->examples);
}

static void dimension_release(struct dimension *d)
{
	size_t i;

	free(d->key);
	free(d->name);
	free(d->question);
	for (i = 0; i < d->nr_codes; i++)
		code_release(&d->codes[i]);
	free(d->codes);
}

static int load_code(struct loader *l, const cJSON *obj, size_t at,
		     struct code *c)
{
	const cJSON *ex, *it;
	size_t i = 0;

	if (check_object(l, obj, at, code_fields, ARRAY_SIZE(code_fields)) < 0)
		return -1;
	c->key = dup_member(obj, "key");
	c->name = dup_member(obj, "name");
	c->group = dup_member(obj, "group");
	c->definition = dup_member(obj, "definition");
	c->include = dup_member(obj, "include");
	c->exclude = dup_member(obj, "exclude");
	c->distributed = bool_member(obj, "distributed", 0);
	ex = cJSON_GetObjectItemCaseSensitive(obj, "value");
	if (ex) {
		c->value = ex->valuedouble;
		c->has_value = 1;
	}
	ex = cJSON_GetObjectItemCaseSensitive(obj, "examples");
	if (ex && ex->child) {
		c->examples = xcalloc((size_t)cJSON_GetArraySize(ex),
				      sizeof(*c->examples));
		cJSON_ArrayForEach(it, ex)
			c->examples[i++] = xstrdup(it->valuestring);
		c->nr_examples = i;
	}
	return 0;
}

static int load_dimension(struct loader *l, const cJSON *obj, size_t at,
			  struct dimension *d)
{
	const cJSON *codes, *it, *select;
	size_t n, node, i, j, old, top, kn, sn;
	int ret = 0;

	if (check_object(l, obj, at, dimension_fields,
			 ARRAY_SIZE(dimension_fields)) < 0)
		return -1;
	d->key = dup_member(obj, "key");
	d->name = dup_member(obj, "name");
	d->question = dup_member(obj, "question");
	select = cJSON_GetObjectItemCaseSensitive(obj, "select");
	d->select_many = select && !strcmp(select->valuestring, "many");
	d->required = bool_member(obj, "required", 1);
	select = member(l, obj, at, "scale", &sn);
	if (select)
		scale_of(select->valuestring, &d->scale);
	if (select && d->scale != SCALE_NOMINAL && d->select_many) {
		old = loader_path_push(l, "scale");
		ret = loader_fail(l, val_pos(l, sn), "a \"select\": \"many\" "
				  "dimension is nominal: \"scale\": %s needs "
				  "\"select\": \"one\"", loader_quote(l,
				  select->valuestring));
		loader_path_pop(l, old);
		return ret;
	}

	codes = member(l, obj, at, "codes", &node);
	d->codes = xcalloc((size_t)cJSON_GetArraySize(codes),
			   sizeof(*d->codes));
	old = loader_path_push(l, "codes");
	for (it = codes->child, n = first_child(node), i = 0; it;
	     it = it->next, n = next_child(l, n), i++) {
		top = loader_path_push_index(l, i);
		ret = load_code(l, it, n, &d->codes[i]);
		d->nr_codes = i + 1;
		for (j = 0; !ret && j < i; j++) {
			if (strcmp(d->codes[j].key, d->codes[i].key))
				continue;
			member(l, it, n, "key", &kn);
			ret = loader_fail(l, val_pos(l, kn),
					  "duplicate code key %s",
					  loader_quote(l, d->codes[i].key));
		}
		loader_path_pop(l, top);
		if (ret < 0)
			break;
	}
	/* an interval scale needs a number on every code, and two different
	 * numbers at least: distances are differences of values */
	for (it = codes->child, n = first_child(node), i = 0;
	     !ret && d->scale == SCALE_INTERVAL && it;
	     it = it->next, n = next_child(l, n), i++) {
		if (d->codes[i].has_value)
			continue;
		top = loader_path_push_index(l, i);
		ret = loader_fail(l, val_pos(l, n), "missing member \"value\": "
				  "codes of an \"interval\" scale each need a "
				  "number");
		loader_path_pop(l, top);
	}
	if (!ret && d->scale == SCALE_INTERVAL) {
		for (i = 1; i < d->nr_codes; i++)
			if (d->codes[i].value != d->codes[0].value)
				break;
		if (d->nr_codes > 1 && i == d->nr_codes)
			ret = loader_fail(l, val_pos(l, node), "every code "
					  "of an \"interval\" scale has the "
					  "value %g: they need two different "
					  "values", d->codes[0].value);
	}
	if (!ret && d->select_many && d->nr_codes > CODEBOOK_MANY_MAX)
		ret = loader_fail(l, val_pos(l, node), "a \"select\": "
				  "\"many\" dimension takes at most %d codes, "
				  "this one has %zu", CODEBOOK_MANY_MAX,
				  d->nr_codes);
	loader_path_pop(l, old);
	return ret;
}

static int load_codebook(struct loader *l, const cJSON *root,
			 struct codebook *cb)
{
	const cJSON *dims, *it;
	size_t n, node, i, j, old, top, kn;
	int ret = 0;

	if (!cJSON_IsObject(root))
		return loader_fail(l, l->pos[0].val,
				   "expected a JSON object at the top level");
	if (check_object(l, root, 0, codebook_fields,
			 ARRAY_SIZE(codebook_fields)) < 0)
		return -1;
	cb->name = dup_member(root, "name");
	cb->version = dup_member(root, "version");
	cb->title = dup_member(root, "title");
	cb->description = dup_member(root, "description");

	dims = member(l, root, 0, "dimensions", &node);
	cb->dims = xcalloc((size_t)cJSON_GetArraySize(dims),
			   sizeof(*cb->dims));
	old = loader_path_push(l, "dimensions");
	for (it = dims->child, n = first_child(node), i = 0; it;
	     it = it->next, n = next_child(l, n), i++) {
		top = loader_path_push_index(l, i);
		ret = load_dimension(l, it, n, &cb->dims[i]);
		cb->nr_dims = i + 1;
		for (j = 0; !ret && j < i; j++) {
			if (strcmp(cb->dims[j].key, cb->dims[i].key))
				continue;
			member(l, it, n, "key", &kn);
			ret = loader_fail(l, val_pos(l, kn),
					  "duplicate dimension key %s",
					  loader_quote(l, cb->dims[i].key));
		}
		loader_path_pop(l, top);
		if (ret < 0)
			break;
	}
	loader_path_pop(l, old);
	return ret;
}

/* ---- the public face ----------------------------------------------------- */

int codebook_parse(struct codebook *cb, const char *json, size_t len,
		   const char *origin, struct err *e)
{
	struct err scratch = ERR_INIT;
	struct loader l = {
		.origin = origin ? origin : "<codebook>",
		.text = (const unsigned char *)(json ? json : ""),
		.len = json ? len : 0,
		.path = BUF_INIT,
		.quote = BUF_INIT,
		.e = e ? e : &scratch,
	};
	struct codebook tmp = CODEBOOK_INIT;
	const char *end = NULL;
	cJSON *root = NULL;
	size_t off;
	int ret = -1;

	memset(cb, 0, sizeof(*cb));
	err_clear(l.e);
	if (l.len >= 3 && !memcmp(l.text, "\xEF\xBB\xBF", 3))
		l.start = 3;
	if (loader_check_bytes(&l) < 0)
		goto out;
	off = loader_skip_ws(&l, l.start);
	if (off == l.len) {
		loader_fail(&l, off, "empty file, expected a JSON object");
		goto out;
	}
	root = cJSON_ParseWithLengthOpts((const char *)l.text, l.len, &end, 0);
	if (!root) {
		loader_syntax_error(&l, end);
		goto out;
	}
	off = loader_skip_ws(&l, (size_t)((const unsigned char *)end - l.text));
	if (off < l.len) {
		loader_fail(&l, off, "unexpected text after the JSON value");
		goto out;
	}
	if (loader_index_positions(&l, root, loader_skip_ws(&l, l.start)) < 0)
		goto out;
	if (load_codebook(&l, root, &tmp) < 0)
		goto out;
	*cb = tmp;
	memset(&tmp, 0, sizeof(tmp));
	ret = 0;
out:
	codebook_release(&tmp);
	cJSON_Delete(root);
	free(l.pos);
	buf_release(&l.path);
	buf_release(&l.quote);
	return ret;
}

int codebook_load_file(struct codebook *cb, const char *path, struct err *e)
{
	struct buf raw = BUF_INIT;
	int ret;

	memset(cb, 0, sizeof(*cb));
	if (buf_read_file(&raw, path) < 0) {
		ret = err_set(e, ERR_IO, "%s: %s", path, strerror(errno));
		goto out;
	}
	ret = codebook_parse(cb, raw.ptr, raw.len, path, e);
out:
	buf_release(&raw);
	return ret;
}

void codebook_release(struct codebook *cb)
{
	size_t i;

	if (!cb)
		return;
	free(cb->name);
	free(cb->version);
	free(cb->title);
	free(cb->description);
	for (i = 0; i < cb->nr_dims; i++)
		dimension_release(&cb->dims[i]);
	free(cb->dims);
	memset(cb, 0, sizeof(*cb));
}

int codebook_valid_key(const char *key)
{
	size_t n;

	if (!key)
		return 0;
	for (n = 0; key[n]; n++) {
		unsigned char c = key[n];

		if (n == KEY_MAX)
			return 0;
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '.' ||
		      c == '-'))
			return 0;
	}
	return n > 0;
}
