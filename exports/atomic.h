/* SPDX-License-Identifier: MIT */
/*
 * atomic: write a file so that it appears whole or not at all.
 *
 * The content goes to a temporary file in the target's directory (so the
 * final rename stays within one file system); atomic_commit() flushes
 * it, fsync()s it, renames it over the target and fsync()s the
 * directory.  atomic_abort() removes the temporary.
 *
 * On Linux the temporary is an unnamed O_TMPFILE, given a name only for
 * the instant between linkat() and rename(): a process killed by SIGKILL
 * mid-way leaves nothing behind at all.  Where O_TMPFILE or /proc is not
 * available, a hidden ".NAME.XXXXXX" file is used instead; then only a
 * kill that gives no chance to clean up can leave it.
 *
 * The new file is private: mode 0600 whatever the umask (it holds
 * labels, memos, a report or the audit log), unless atomic_open_mode()
 * is asked for a wider mode on purpose (`--mode`).  A symbolic link at
 * the target is replaced, not followed.
 *
 * A target that is no file but a character device or a pipe (-o
 * /dev/stdout, /dev/null, a FIFO) is written into as it is, with no
 * temporary: renaming over it would replace the device with a file (as
 * root, /dev/null itself).  A directory or a block device is refused.
 */
#ifndef BUGCODER_ATOMIC_H
#define BUGCODER_ATOMIC_H

#include <stdio.h>
#include <sys/types.h>

#include "core/base/err.h"

struct atomic_file {
	char *path;		/* the target, owned */
	char *tmp;		/* the named temporary, or NULL while unnamed */
	int fd;			/* of the temporary; -1 when closed */
	int anon;		/* created with O_TMPFILE */
	FILE *f;		/* write the content here (owned) */
	int direct;		/* a device or a pipe, written as it is */
};

#define ATOMIC_FILE_INIT { NULL, NULL, -1, 0, NULL, 0 }

/* Start writing `path`.  Returns 0 with af->f ready, or -1 with `e`
 * filled (ERR_IO) and nothing created. */
int atomic_open(struct atomic_file *af, const char *path, struct err *e);
/* atomic_open() with the file's mode (e.g. 0640); the umask is not
 * applied. */
int atomic_open_mode(struct atomic_file *af, const char *path, mode_t mode,
		     struct err *e);

/* The private mode of outputs, and a directory's mode for files of
 * `mode` (an x wherever there is an r: 0600 -> 0700, 0644 -> 0755). */
#define OUTPUT_MODE 0600
mode_t output_dir_mode(mode_t mode);
/* Put the file in place.  Returns 0, or -1 with `e` filled (a write
 * error seen on af->f included); either way `af` is released, and on
 * failure nothing is left behind. */
int atomic_commit(struct atomic_file *af, struct err *e);
/* Drop the temporary and release `af`.  Accepts a released `af`. */
void atomic_abort(struct atomic_file *af);

/* fsync() directory `dir` itself, or the directory holding `path` (after
 * a rename in it), so that new names in it survive a crash.  Returns 0,
 * or -1 with `e` (may be NULL) filled.  File systems that cannot sync a
 * directory are not an error. */
int atomic_sync_dir(const char *dir, struct err *e);
int atomic_sync_parent(const char *path, struct err *e);

#endif
