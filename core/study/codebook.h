/* SPDX-License-Identifier: MIT */
/*
 * codebook: the dimensions and codes annotators choose from.
 *
 * A codebook is a JSON file (format in DESIGN.md) loaded with cJSON and
 * copied into the structs below; the cJSON tree never outlives the loader.
 * Validation errors name the file, the line and column, and the offending
 * key, e.g.
 *   codebooks/x.json:12:9: dimensions[1].codes[3]: duplicate code key "hang"
 * Keys (of dimensions and codes) are 1-64 characters of [A-Za-z0-9_.-] so
 * that they can stand unquoted in CSV cells and in DIM=CODE arguments.
 */
#ifndef BUGCODER_CODEBOOK_H
#define BUGCODER_CODEBOOK_H

#include <stddef.h>

#include "core/base/err.h"

struct code {
	char *key;		/* unique within its dimension */
	char *name;		/* short human name */
	char *group;		/* optional grouping, NULL if none */
	char *definition;
	char *include;		/* optional guidance, NULL if none */
	char *exclude;		/* optional guidance, NULL if none */
	char **examples;	/* optional, nr_examples strings */
	size_t nr_examples;
	int distributed;	/* "distributed": true - arises only in
				   distributed systems */
	double value;		/* "value": the code's number on an
				   interval scale, 0 if none */
	int has_value;
};

/* Codes a "select": "many" dimension may have: agreement keeps a coder's
 * set in 64 bits (AGREE_MULTI_MAX). */
#define CODEBOOK_MANY_MAX 64

/* What the codes of a dimension measure, "scale" in the codebook: how
 * far apart two codes are for weighted kappa and alpha. */
enum dim_scale {
	SCALE_NOMINAL = 0,	/* unordered (the default) */
	SCALE_ORDINAL,		/* ordered as listed in the codebook */
	SCALE_INTERVAL,		/* each code's "value" is a number */
};

struct dimension {
	char *key;		/* unique within the codebook */
	char *name;
	char *question;		/* optional, NULL if none */
	int select_many;	/* "select": "many" (else "one") */
	int required;		/* must be coded before submitting */
	enum dim_scale scale;	/* "scale"; not nominal only for select
				   one, interval only with every value */
	struct code *codes;
	size_t nr_codes;
};

struct codebook {
	char *name;		/* machine name, e.g. "llm-framework-bugs" */
	char *version;		/* e.g. "1.0" */
	char *title;		/* optional, NULL if none */
	char *description;	/* optional, NULL if none */
	struct dimension *dims;
	size_t nr_dims;
};

#define CODEBOOK_INIT { 0 }

/* Parse and validate the JSON text json[0..len).  `origin` names the file
 * in error messages.  On failure returns -1, fills `e` (ERR_INPUT) and
 * leaves `cb` empty.  Release with codebook_release().  `cb` need not be
 * initialised: it is overwritten, so release what it held first.
 * Defaults: "select" is "one", "required" is true, "distributed" false. */
int codebook_parse(struct codebook *cb, const char *json, size_t len,
		   const char *origin, struct err *e);

/* Read `path` and codebook_parse() it.  ERR_IO when unreadable. */
int codebook_load_file(struct codebook *cb, const char *path, struct err *e);

/* The dimension key, or the code key of `dim`, closest to a misspelt
 * one (see suggest.h), or NULL; borrowed from the codebook. */
const char *codebook_suggest_dim(const struct codebook *cb,
				 const char *typed);
const char *dimension_suggest_code(const struct dimension *dim,
				   const char *typed);

/* Where the codebook `name` is: `name` itself when a file of that name
 * exists (or it contains a '/'); else NAME.json (or NAME) in dirs[0..n)
 * in turn - the bundled codebooks, by name.  Returns the path (owned;
 * free() it), or NULL with ERR_NOTFOUND listing the codebooks the dirs
 * hold and the closest name, or ERR_IO when a named path cannot be
 * read. */
char *codebook_find(const char *name, const char *const *dirs, size_t n,
		    struct err *e);

/* Free everything in `cb` and reset it to CODEBOOK_INIT.  Accepts NULL. */
void codebook_release(struct codebook *cb);

/* Lookups; NULL when absent.  Pointers belong to `cb`. */
const struct dimension *codebook_dim(const struct codebook *cb,
				     const char *key);
const struct code *dimension_code(const struct dimension *dim,
				  const char *key);
/* Index of a code in its dimension, or -1. */
int dimension_code_index(const struct dimension *dim, const char *key);

/* "nominal", "ordinal" or "interval". */
const char *dim_scale_name(enum dim_scale scale);

/* Is `key` a well-formed dimension or code key? */
int codebook_valid_key(const char *key);

#endif
