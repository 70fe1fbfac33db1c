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
 * The cJSON tree is deleted before codebook_parse() returns.
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
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/buf.h"
#include "core/base/suggest.h"
#include <sys/stat.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define NO_POS SIZE_MAX
#define KEY_MAX 64
#define QUOTE_MAX 40		/* characters of a value in a message */

/* Where one JSON value starts, in document (pre-)order. */
struct pos {
	size_t key;		/* offset of a member's name, or NO_POS */
	size_t val;		/* offset of the value's first byte */
	size_t next;		/* index of the next sibling: one past the
				   subtree of this value */
};

struct loader {
	const char *origin;	/* file name for messages */
	const unsigned char *text;
	size_t len;
	size_t start;		/* 3 after a byte order mark, else 0 */
	struct pos *pos;
	size_t nr_pos, alloc_pos;
	struct buf path;	/* key path of what is being checked */
	struct buf quote;	/* scratch for quoted values in messages */
	struct err *e;
	size_t fail_at;		/* offset of the last error reported */
};

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

/* ---- positions and messages ---------------------------------------------- */

static void line_col(const struct loader *l, size_t off, size_t *line,
		     size_t *col)
{
	size_t i;

	*line = 1;
	*col = 1;
	if (off > l->len)
		off = l->len;
	for (i = l->start; i < off; i++) {
		if (l->text[i] == '\n') {
			(*line)++;
			*col = 1;
		} else if ((l->text[i] & 0xC0) != 0x80) {
			(*col)++;
		}
	}
}

/* Fill l->e with "origin:line:col: path: message" and return -1. */
__attribute__((format(printf, 3, 4)))
static int fail(struct loader *l, size_t off, const char *fmt, ...)
{
	struct buf msg = BUF_INIT;
	size_t line, col;
	va_list ap;

	l->fail_at = off;
	line_col(l, off, &line, &col);
	va_start(ap, fmt);
	buf_vaddf(&msg, fmt, ap);
	va_end(ap);
	if (l->path.len)
		err_set(l->e, ERR_INPUT, "%s:%zu:%zu: %s: %s", l->origin,
			line, col, l->path.ptr, msg.ptr);
	else
		err_set(l->e, ERR_INPUT, "%s:%zu:%zu: %s", l->origin, line,
			col, msg.ptr);
	buf_release(&msg);
	return -1;
}

/* Length of the UTF-8 sequence at s[0..n), or 0 if it is not valid
 * (overlong forms, surrogates and code points above U+10FFFF included). */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	uint32_t cp, min;
	size_t len, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xC2 && s[0] <= 0xDF) {
		len = 2;
		cp = s[0] & 0x1F;
		min = 0x80;
	} else if (s[0] >= 0xE0 && s[0] <= 0xEF) {
		len = 3;
		cp = s[0] & 0x0F;
		min = 0x800;
	} else if (s[0] >= 0xF0 && s[0] <= 0xF4) {
		len = 4;
		cp = s[0] & 0x07;
		min = 0x10000;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3F);
	}
	if (cp < min || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
		return 0;
	return len;
}

/* Quote `s` for a message: at most QUOTE_MAX characters, with quotes,
 * backslashes and control characters (C0, DEL, C1) escaped so that the
 * message stays one printable line.  The result lives in l->quote until
 * the next call. */
static const char *quote(struct loader *l, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = strlen(str), i = 0, chars = 0, k;

	buf_set(&l->quote, "\"");
	while (i < n) {
		if (chars++ == QUOTE_MAX) {
			buf_addstr(&l->quote, "...");
			break;
		}
		if (s[i] == '"' || s[i] == '\\') {
			buf_addch(&l->quote, '\\');
			buf_addch(&l->quote, s[i++]);
			continue;
		}
		if (s[i] < 0x20 || s[i] == 0x7F) {
			buf_addf(&l->quote, "\\x%02x", s[i++]);
			continue;
		}
		k = utf8_len(s + i, n - i);
		if (!k) {
			buf_addf(&l->quote, "\\x%02x", s[i++]);
		} else if (k == 2 && s[i] == 0xC2 && s[i + 1] < 0xA0) {
			buf_addf(&l->quote, "\\u%04x", s[i + 1]);
			i += 2;
		} else {
			buf_add(&l->quote, s + i, k);
			i += k;
		}
	}
	buf_addch(&l->quote, '"');
	return l->quote.ptr;
}

static size_t path_push(struct loader *l, const char *key)
{
	size_t old = l->path.len;

	if (old)
		buf_addch(&l->path, '.');
	buf_addstr(&l->path, key);
	return old;
}

static size_t path_push_index(struct loader *l, size_t i)
{
	size_t old = l->path.len;

	buf_addf(&l->path, "[%zu]", i);
	return old;
}

static void path_pop(struct loader *l, size_t old)
{
	buf_setlen(&l->path, old);
}

/* ---- pass 1: bytes ------------------------------------------------------- */

static int check_bytes(struct loader *l)
{
	size_t i = l->start, k;
	unsigned char c;

	while (i < l->len) {
		c = l->text[i];
		if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
			return fail(l, i, "control character 0x%02x", c);
		k = utf8_len(l->text + i, l->len - i);
		if (!k)
			return fail(l, i, "invalid UTF-8 byte 0x%02x", c);
		i += k;
	}
	return 0;
}

static size_t skip_ws(const struct loader *l, size_t off)
{
	while (off < l->len && (l->text[off] == ' ' || l->text[off] == '\t' ||
				l->text[off] == '\n' || l->text[off] == '\r'))
		off++;
	return off;
}

/* ---- pass 3: the position index ------------------------------------------ */

static size_t add_pos(struct loader *l, size_t key, size_t val)
{
	ALLOC_GROW(l->pos, l->nr_pos + 1, l->alloc_pos);
	l->pos[l->nr_pos].key = key;
	l->pos[l->nr_pos].val = val;
	l->pos[l->nr_pos].next = NO_POS;
	return l->nr_pos++;
}

/* Offset of the quote closing the string that opens at `off`, as cJSON
 * finds it (a backslash skips the byte after it), or l->len if the string
 * never closes. */
static size_t string_end(const struct loader *l, size_t off)
{
	size_t i = off + 1;

	while (i < l->len && l->text[i] != '"')
		i += l->text[i] == '\\' ? 2 : 1;
	return i < l->len ? i : l->len;
}

/* Step over the string opening at *off, refusing what cJSON lets by. */
static int scan_string(struct loader *l, size_t *off)
{
	size_t i, end = string_end(l, *off);

	if (end == l->len)
		return fail(l, l->len, "unterminated string");
	for (i = *off + 1; i < end; i++) {
		if (l->text[i] < 0x20)
			return fail(l, i, "control character 0x%02x in a "
				    "string (write it as an escape)",
				    l->text[i]);
		if (l->text[i] == '\\') {
			if (i + 5 < end && l->text[i + 1] == 'u' &&
			    !memcmp(l->text + i + 2, "0000", 4))
				return fail(l, i, "\\u0000 in a string");
			i++;
		}
	}
	*off = end + 1;
	return 0;
}

static int scan_value(struct loader *l, size_t *off, size_t key, int depth);

/* Scan the members of an object or the elements of an array opening at
 * *off; `close` is '}' or ']'. */
static int scan_children(struct loader *l, size_t *off, int close, int depth)
{
	size_t i = skip_ws(l, *off + 1), key = NO_POS;

	if (i < l->len && l->text[i] == close) {
		*off = i + 1;
		return 0;
	}
	for (;;) {
		if (close == '}') {
			key = i;
			if (i >= l->len || l->text[i] != '"')
				return fail(l, i, "JSON syntax error");
			if (scan_string(l, &i) < 0)
				return -1;
			i = skip_ws(l, i);
			if (i >= l->len || l->text[i] != ':')
				return fail(l, i, "JSON syntax error");
			i = skip_ws(l, i + 1);
		}
		if (scan_value(l, &i, key, depth + 1) < 0)
			return -1;
		i = skip_ws(l, i);
		if (i >= l->len)
			return fail(l, i, "JSON syntax error");
		if (l->text[i] == close)
			break;
		if (l->text[i] != ',')
			return fail(l, i, "JSON syntax error");
		i = skip_ws(l, i + 1);
	}
	*off = i + 1;
	return 0;
}

static int scan_value(struct loader *l, size_t *off, size_t key, int depth)
{
	static const char number[] = "0123456789+-.eE";
	size_t at = add_pos(l, key, *off), i = *off;

	if (depth > CJSON_NESTING_LIMIT || i >= l->len)
		return fail(l, i, "JSON syntax error");
	switch (l->text[i]) {
	case '{':
	case '[':
		if (scan_children(l, &i, l->text[i] == '{' ? '}' : ']',
				  depth) < 0)
			return -1;
		break;
	case '"':
		if (scan_string(l, &i) < 0)
			return -1;
		break;
	case 't':
	case 'n':
		i += 4;
		break;
	case 'f':
		i += 5;
		break;
	default:
		while (i < l->len && l->text[i] && strchr(number, l->text[i]))
			i++;
		break;
	}
	if (i == *off || i > l->len)
		return fail(l, *off, "JSON syntax error");
	*off = i;
	l->pos[at].next = l->nr_pos;
	return 0;
}

/* Does the index agree with the cJSON tree below `item` (node `at`)?
 * Always true unless the scan and cJSON read the text differently; the
 * check keeps that from ever turning into a wild index. */
static int index_matches(const struct loader *l, const cJSON *item, size_t at)
{
	const cJSON *it;
	size_t n;
	int c;

	if (at >= l->nr_pos)
		return 0;
	c = l->text[l->pos[at].val];
	if (cJSON_IsObject(item) ? c != '{' :
	    cJSON_IsArray(item) ? c != '[' :
	    cJSON_IsString(item) ? c != '"' :
	    cJSON_IsBool(item) ? c != 't' && c != 'f' :
	    cJSON_IsNull(item) ? c != 'n' : !cJSON_IsNumber(item))
		return 0;
	n = at + 1;
	for (it = item->child; it; it = it->next) {
		if (!index_matches(l, it, n))
			return 0;
		if (cJSON_IsObject(item) != (l->pos[n].key != NO_POS))
			return 0;
		n = l->pos[n].next;
	}
	return n == l->pos[at].next;
}

static int index_positions(struct loader *l, const cJSON *root, size_t off)
{
	if (scan_value(l, &off, NO_POS, 0) < 0)
		return -1;
	if (root && !index_matches(l, root, 0))
		return fail(l, 0, "cannot locate the values of this JSON text");
	return 0;
}

/* ---- pass 2: placing syntax errors (with help from the scan) ------------- */

/* Does the text end before its JSON value is complete?  cJSON reports
 * running out of input at the last byte, which cannot be told apart from
 * an error at that byte, so in that one case the position scan decides:
 * it fails at the very end only when it wants more input. */
static int truncated(const struct loader *l)
{
	struct err e = ERR_INIT;
	struct loader scan = *l;

	scan.pos = NULL;
	scan.nr_pos = scan.alloc_pos = 0;
	scan.path = (struct buf)BUF_INIT;
	scan.quote = (struct buf)BUF_INIT;
	scan.e = &e;
	scan.fail_at = 0;
	if (index_positions(&scan, NULL, skip_ws(l, l->start)) == 0)
		scan.fail_at = 0;
	free(scan.pos);
	buf_release(&scan.path);
	buf_release(&scan.quote);
	return scan.fail_at >= l->len;
}

/* Does a string open at `q`, rather than close or sit inside one? */
static int opens_string(const struct loader *l, size_t q)
{
	size_t i = l->start;

	while (i < q)
		i = l->text[i] == '"' ? string_end(l, i) + 1 : i + 1;
	return i == q && l->text[q] == '"';
}

static int syntax_error(struct loader *l, const char *at)
{
	size_t off;
	unsigned char c;

	if (!at)
		at = cJSON_GetErrorPtr();
	off = at ? (size_t)((const unsigned char *)at - l->text) : l->len;
	if (off >= l->len || skip_ws(l, off) == l->len ||
	    (off + 1 == l->len && truncated(l)))
		return fail(l, l->len, "unexpected end of JSON text");
	/* cJSON places a string it cannot finish just after its quote. */
	if (off > 0 && opens_string(l, off - 1) &&
	    string_end(l, off - 1) == l->len)
		return fail(l, off - 1, "unterminated string");
	c = l->text[off];
	if (c > 0x20 && c < 0x7F)
		return fail(l, off, "JSON syntax error near '%c'", c);
	return fail(l, off, "JSON syntax error");
}

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
			return fail(l, val_pos(l, at), "expected a string");
		if (!*v->valuestring)
			return fail(l, val_pos(l, at), "must not be empty");
		if (f->type == F_KEY && !codebook_valid_key(v->valuestring))
			return fail(l, val_pos(l, at),
				    "%s is not a valid key (1-%d characters "
				    "of A-Z a-z 0-9 _ . -)",
				    quote(l, v->valuestring), KEY_MAX);
		if (f->type == F_SELECT && strcmp(v->valuestring, "one") &&
		    strcmp(v->valuestring, "many"))
			return fail(l, val_pos(l, at),
				    "expected \"one\" or \"many\", not %s",
				    quote(l, v->valuestring));
		if (f->type == F_SCALE && !scale_of(v->valuestring, NULL))
			return fail(l, val_pos(l, at),
				    "expected \"nominal\", \"ordinal\" or "
				    "\"interval\", not %s",
				    quote(l, v->valuestring));
		return 0;
	case F_NUMBER:
		if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
			return fail(l, val_pos(l, at), "expected a number");
		return 0;
	case F_BOOL:
		if (!cJSON_IsBool(v))
			return fail(l, val_pos(l, at),
				    "expected true or false");
		return 0;
	case F_OBJECTS:
		if (!cJSON_IsArray(v))
			return fail(l, val_pos(l, at), "expected an array");
		if (!v->child)
			return fail(l, val_pos(l, at), "must not be empty");
		return 0;
	case F_STRINGS:
		if (!cJSON_IsArray(v))
			return fail(l, val_pos(l, at),
				    "expected an array of strings");
		for (it = v->child, n = first_child(at); it;
		     it = it->next, n = next_child(l, n), i++) {
			old = path_push_index(l, i);
			if (!cJSON_IsString(it))
				ret = fail(l, val_pos(l, n),
					   "expected a string");
			else if (!*it->valuestring)
				ret = fail(l, val_pos(l, n),
					   "must not be empty");
			path_pop(l, old);
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
		return fail(l, l->pos[at].val, "expected an object");
	for (it = obj->child, n = first_child(at); it;
	     it = it->next, n = next_child(l, n)) {
		for (prev = obj->child; prev != it; prev = prev->next)
			if (!strcmp(prev->string, it->string))
				return fail(l, key_pos(l, n),
					    "duplicate member %s",
					    quote(l, it->string));
		f = find_field(fields, nr, it->string);
		if (!f)
			return fail(l, key_pos(l, n),
				    "unknown member %s",
				    quote(l, it->string));
		old = path_push(l, f->name);
		ret = check_field(l, f, it, n);
		path_pop(l, old);
		if (ret < 0)
			return -1;
	}
	for (i = 0; i < nr; i++)
		if (fields[i].required &&
		    !cJSON_GetObjectItemCaseSensitive(obj, fields[i].name))
			return fail(l, l->pos[at].val,
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
		old = path_push(l, "scale");
		ret = fail(l, val_pos(l, sn), "a \"select\": \"many\" "
			   "dimension is nominal: \"scale\": %s needs "
			   "\"select\": \"one\"", quote(l,
			   select->valuestring));
		path_pop(l, old);
		return ret;
	}

	codes = member(l, obj, at, "codes", &node);
	d->codes = xcalloc((size_t)cJSON_GetArraySize(codes),
			   sizeof(*d->codes));
	old = path_push(l, "codes");
	for (it = codes->child, n = first_child(node), i = 0; it;
	     it = it->next, n = next_child(l, n), i++) {
		top = path_push_index(l, i);
		ret = load_code(l, it, n, &d->codes[i]);
		d->nr_codes = i + 1;
		for (j = 0; !ret && j < i; j++) {
			if (strcmp(d->codes[j].key, d->codes[i].key))
				continue;
			member(l, it, n, "key", &kn);
			ret = fail(l, val_pos(l, kn),
				   "duplicate code key %s",
				   quote(l, d->codes[i].key));
		}
		path_pop(l, top);
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
		top = path_push_index(l, i);
		ret = fail(l, val_pos(l, n), "missing member \"value\": "
			   "codes of an \"interval\" scale each need a "
			   "number");
		path_pop(l, top);
	}
	if (!ret && d->scale == SCALE_INTERVAL) {
		for (i = 1; i < d->nr_codes; i++)
			if (d->codes[i].value != d->codes[0].value)
				break;
		if (d->nr_codes > 1 && i == d->nr_codes)
			ret = fail(l, val_pos(l, node), "every code of an "
				   "\"interval\" scale has the value %g: "
				   "they need two different values",
				   d->codes[0].value);
	}
	if (!ret && d->select_many && d->nr_codes > CODEBOOK_MANY_MAX)
		ret = fail(l, val_pos(l, node), "a \"select\": \"many\" "
			   "dimension takes at most %d codes, this one has %zu",
			   CODEBOOK_MANY_MAX, d->nr_codes);
	path_pop(l, old);
	return ret;
}

static int load_codebook(struct loader *l, const cJSON *root,
			 struct codebook *cb)
{
	const cJSON *dims, *it;
	size_t n, node, i, j, old, top, kn;
	int ret = 0;

	if (!cJSON_IsObject(root))
		return fail(l, l->pos[0].val,
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
	old = path_push(l, "dimensions");
	for (it = dims->child, n = first_child(node), i = 0; it;
	     it = it->next, n = next_child(l, n), i++) {
		top = path_push_index(l, i);
		ret = load_dimension(l, it, n, &cb->dims[i]);
		cb->nr_dims = i + 1;
		for (j = 0; !ret && j < i; j++) {
			if (strcmp(cb->dims[j].key, cb->dims[i].key))
				continue;
			member(l, it, n, "key", &kn);
			ret = fail(l, val_pos(l, kn),
				   "duplicate dimension key %s",
				   quote(l, cb->dims[i].key));
		}
		path_pop(l, top);
		if (ret < 0)
			break;
	}
	path_pop(l, old);
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
	if (check_bytes(&l) < 0)
		goto out;
	off = skip_ws(&l, l.start);
	if (off == l.len) {
		fail(&l, off, "empty file, expected a JSON object");
		goto out;
	}
	root = cJSON_ParseWithLengthOpts((const char *)l.text, l.len, &end, 0);
	if (!root) {
		syntax_error(&l, end);
		goto out;
	}
	off = skip_ws(&l, (size_t)((const unsigned char *)end - l.text));
	if (off < l.len) {
		fail(&l, off, "unexpected text after the JSON value");
		goto out;
	}
	if (index_positions(&l, root, skip_ws(&l, l.start)) < 0)
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

const struct dimension *codebook_dim(const struct codebook *cb,
				     const char *key)
{
	size_t i;

	if (!cb || !key)
		return NULL;
	for (i = 0; i < cb->nr_dims; i++)
		if (!strcmp(cb->dims[i].key, key))
			return &cb->dims[i];
	return NULL;
}

int dimension_code_index(const struct dimension *dim, const char *key)
{
	size_t i;

	if (!dim || !key)
		return -1;
	for (i = 0; i < dim->nr_codes; i++)
		if (!strcmp(dim->codes[i].key, key))
			return (int)i;
	return -1;
}

const struct code *dimension_code(const struct dimension *dim,
				  const char *key)
{
	int i = dimension_code_index(dim, key);

	return i < 0 ? NULL : &dim->codes[i];
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

static int is_file(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* NAME of every NAME.json in dir, appended to `names` (", "-joined) and
 * offered to `sg`. */
static void list_dir(const char *dir, struct buf *names, struct suggest *sg)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);
		char *name;

		if (n <= 5 || de->d_name[0] == '.' ||
		    strcmp(de->d_name + n - 5, ".json"))
			continue;
		name = xstrndup(de->d_name, n - 5);
		if (!strstr(names->ptr, name)) {
			buf_addf(names, "%s%s", names->len ? ", " : "", name);
			suggest_add(sg, name);
		}
		free(name);
	}
	closedir(d);
}

/* `path` (with a '/') is no file: when a bundled codebook has its name
 * ("codebooks/x.json" run from outside the source tree), say that the
 * bare name finds it, and return -1; else 0. */
static int bundled_hint(const char *path, const char *const *dirs, size_t n,
			struct err *e)
{
	const char *base = strrchr(path, '/') + 1;
	size_t len = strlen(base), i;
	struct buf b = BUF_INIT;
	int ret = 0;

	if (len > 5 && !strcmp(base + len - 5, ".json"))
		len -= 5;
	for (i = 0; len && !ret && i < n; i++) {
		if (!dirs[i])
			continue;
		buf_reset(&b);
		buf_addf(&b, "%s/%.*s.json", dirs[i], (int)len, base);
		if (is_file(b.ptr)) {
			err_set(e, ERR_NOTFOUND, "%s: no such file; the bundled "
				"codebook of that name is found by its bare "
				"name: --codebook %.*s", path, (int)len, base);
			ret = -1;
		}
	}
	buf_release(&b);
	return ret;
}

char *codebook_find(const char *name, const char *const *dirs, size_t n,
		    struct err *e)
{
	struct buf path = BUF_INIT, names = BUF_INIT;
	struct suggest sg;
	struct stat sb;
	size_t i;

	if (is_file(name))
		return xstrdup(name);
	if (stat(name, &sb) == 0 && S_ISDIR(sb.st_mode)) {
		err_set(e, ERR_INPUT, "%s: a directory, not a codebook file",
			name);
		return NULL;
	}
	errno = 0;
	if (strchr(name, '/') || !*name) {
		int err;

		is_file(name);	/* for errno */
		err = errno ? errno : ENOENT;
		if (err == ENOENT && *name &&
		    bundled_hint(name, dirs, n, e) < 0)
			return NULL;
		err_set(e, err == ENOENT ? ERR_NOTFOUND : ERR_IO, "%s: %s",
			name, strerror(err));
		return NULL;
	}
	for (i = 0; i < n; i++) {
		if (!dirs[i])
			continue;
		buf_reset(&path);
		buf_addf(&path, "%s/%s.json", dirs[i], name);
		if (is_file(path.ptr))
			return buf_detach(&path, NULL);
		buf_reset(&path);
		buf_addf(&path, "%s/%s", dirs[i], name);
		if (is_file(path.ptr))
			return buf_detach(&path, NULL);
	}
	buf_release(&path);
	suggest_init(&sg, name);
	for (i = 0; i < n; i++)
		if (dirs[i])
			list_dir(dirs[i], &names, &sg);
	if (suggest_result(&sg))
		err_set(e, ERR_NOTFOUND, "%s: no such file, nor a bundled "
			"codebook of that name; did you mean %s? (bundled: %s)",
			name, suggest_result(&sg), names.ptr);
	else if (names.len)
		err_set(e, ERR_NOTFOUND, "%s: no such file, nor a bundled "
			"codebook of that name (bundled: %s)", name,
			names.ptr);
	else
		err_set(e, ERR_NOTFOUND, "%s: no such file (and no bundled "
			"codebooks were found)", name);
	suggest_release(&sg);
	buf_release(&names);
	return NULL;
}

const char *codebook_suggest_dim(const struct codebook *cb,
				 const char *typed)
{
	const char *r = NULL, *got;
	struct suggest sg;
	size_t i;

	suggest_init(&sg, typed);
	for (i = 0; i < cb->nr_dims; i++)
		suggest_add(&sg, cb->dims[i].key);
	got = suggest_result(&sg);
	for (i = 0; got && i < cb->nr_dims; i++)
		if (!strcmp(cb->dims[i].key, got))
			r = cb->dims[i].key;
	suggest_release(&sg);
	return r;
}

const char *dimension_suggest_code(const struct dimension *dim,
				   const char *typed)
{
	const char *r = NULL, *got;
	struct suggest sg;
	size_t i;

	suggest_init(&sg, typed);
	for (i = 0; i < dim->nr_codes; i++)
		suggest_add(&sg, dim->codes[i].key);
	got = suggest_result(&sg);
	for (i = 0; got && i < dim->nr_codes; i++)
		if (!strcmp(dim->codes[i].key, got))
			r = dim->codes[i].key;
	suggest_release(&sg);
	return r;
}
