/* SPDX-License-Identifier: MIT */
/*
 * codebook_lookup: finding things in a loaded codebook (a dimension or a
 * code by key, the key closest to a misspelt one) and finding a codebook
 * file by name among the bundled ones (see codebook.h).
 */
#include "core/study/codebook.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/base/buf.h"
#include "core/base/suggest.h"

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
