/* SPDX-License-Identifier: MIT */
/*
 * partial: a file written under a temporary name beside its target and
 * put in place only when it is whole, for writers that need a file by
 * name (SQLite writes `backup`'s copy through a path of its own).
 *
 * The temporary is DIR/.NAME.bugcoder-tmp-XXXXXX (XXXXXX random), created
 * mode 0600 and held under an exclusive flock() while it is written; it
 * goes in place with a rename that never replaces a file (or a link and
 * an unlink where the file system has no such rename), so the target is
 * either absent or whole, and a file already there is never overwritten.
 * A writer killed mid-way (SIGKILL, a crash, a power cut) leaves only
 * such a hidden temporary, and SQLite's "-journal", "-wal" and "-shm" of
 * it, never anything under the target's name.  Those leftovers are
 * recognisable by their name and free lock: partial_clean() removes the
 * ones in a directory that belong to the user, and partial_open() calls
 * it first, so a later write to the same place is never refused because
 * of them.
 *
 * The temporary's name never reads as an SQLite URI: it starts with '/'
 * or "./", whatever the target's name.
 */
#ifndef BUGCODER_PARTIAL_H
#define BUGCODER_PARTIAL_H

#include "core/base/err.h"

struct partial {
	char *path;		/* the target, owned */
	char *tmp;		/* the temporary's name, owned */
	int fd;			/* on the temporary, holding its lock; -1 */
};

#define PARTIAL_INIT { NULL, NULL, -1 }

/* Start writing `path`, which must not exist ("already exists; name a
 * new file"): leftovers of killed writers beside it are removed, then
 * p->tmp is created empty.  Returns 0, or -1 with `e` filled (ERR_IO)
 * and nothing created. */
int partial_open(struct partial *p, const char *path, struct err *e);
/* Put the temporary in place: synced to disk, renamed to the target
 * unless a file appeared there meanwhile, the directory synced.  The
 * temporary's side files must be gone (the writer closed).  Returns 0,
 * or -1 with `e` filled and the temporary removed; `p` is released
 * either way. */
int partial_publish(struct partial *p, struct err *e);
/* Remove the temporary and its side files, and release `p`.  Accepts a
 * released `p`. */
void partial_abort(struct partial *p);

/* Remove the leftovers of killed writers in directory `dir` that belong
 * to the user: temporaries no process holds locked, and side files
 * ("-journal", "-wal", "-shm") whose temporary is gone or left over.
 * Returns how many files went. */
int partial_clean(const char *dir);

#endif
