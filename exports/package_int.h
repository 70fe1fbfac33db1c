/* SPDX-License-Identifier: MIT */
/*
 * package_int: what the writers of the replication package (package.c,
 * package_dir.c, package_files.c, package_manifest.c) share among
 * themselves; not API, included by them only.
 *
 * Every file goes through pkg_open_file() and pkg_close_file() (or
 * pkg_write_text()), which register it in `struct pkg`: the manifests
 * list what is registered, and an error removes it.
 */
#ifndef BUGCODER_PACKAGE_INT_H
#define BUGCODER_PACKAGE_INT_H

#include <stdio.h>
#include <sys/types.h>

#include "core/base/err.h"
#include "core/base/sha256.h"
#include "core/study/codebook.h"
#include "core/study/member.h"
#include "core/store/store.h"
#include "exports/package.h"

struct file {
	char *path;		/* relative to the package */
	long long rows;		/* data rows of a table; -1 otherwise */
	long long size;
	char sha[SHA256_HEX_LEN + 1];
};

struct pkg {
	char *tmp;		/* the temporary directory, owned */
	int lock_fd;		/* tmp opened and flock()ed while we build */
	struct file *files;
	size_t nr, alloc;
	int has_subdir;		/* made tmp/codebooks */
	mode_t file_mode;	/* of every file; private unless --mode */
	mode_t dir_mode;	/* of tmp and its subdirectories */
	int has_figures;	/* made tmp/figures */
};

/* package_dir.c */

/* "dir/name", owned. */
char *pkg_join(const char *dir, const char *name);
/* Refuse a DIR that exists and is not an empty directory. */
int pkg_check_target(const char *dir, struct err *e);
/* Make p->tmp, the hidden temporary directory beside `dir`, locked, of
 * p->dir_mode (first removing the dead ones beside it).  Returns 0, or -1
 * with `e` filled. */
int pkg_make_tmpdir(struct pkg *p, const char *dir, struct err *e);
/* Remove what we made in the temporary directory, then it (nothing
 * when p->tmp is NULL). */
void pkg_remove_tmp(struct pkg *p);
/* Free what `p` holds and drop its lock (not the directory). */
void pkg_release(struct pkg *p);
/* Open tmp/name for writing and register it (so it is cleaned up).
 * Returns the stream (for pkg_close_file()), or NULL with `e` filled. */
FILE *pkg_open_file(struct pkg *p, const char *name, struct err *e);
/* Flush, sync and close the last registered file; hash it.  `ok`: the
 * writing went well (else only closed).  Returns 0, or -1 (with `e`
 * filled when ok). */
int pkg_close_file(struct pkg *p, FILE *f, int ok, struct err *e);
/* The file `name` with text[0..len), registered.  Returns 0, or -1 with
 * `e` filled. */
int pkg_write_text(struct pkg *p, const char *name, const char *text,
		   size_t len, struct err *e);

/* package_files.c */

/* ERR_INTERRUPTED when o->stop is set.  Returns 0, or -1 with `e`
 * filled. */
int pkg_interrupted(const struct package_opts *o, struct err *e);
/* Every file of the package but the manifests, in order (`now`: the
 * date README.txt gives).  Returns 0, or -1 with `e` filled. */
int pkg_write_files(struct pkg *p, struct store *st, const struct actor *a,
		    const struct codebook *cb, const char *now,
		    struct package_opts *o, struct err *e);

/* package_manifest.c */

/* manifest.json: study, codebook, date, audit head, and per file its
 * size, rows and SHA-256.  Returns 0, or -1 with `e` filled. */
int pkg_write_manifest_json(struct pkg *p, struct store *st,
			    const struct actor *a,
			    const struct codebook *cb, const char *now,
			    const struct package_opts *o, struct err *e);
/* MANIFEST: "SHA256  PATH" for every file so far, sorted by path.
 * Returns 0, or -1 with `e` filled. */
int pkg_write_manifest(struct pkg *p, struct err *e);

#endif
