/* SPDX-License-Identifier: MIT */
/*
 * vfs: how SQLite reaches a study's files.
 *
 * A thin SQLite VFS over the default one ("unix") that does two things
 * the default cannot:
 *
 *  - It creates the study's -wal, -shm and rollback journal with the
 *    study file's group and mode in one step: the file is made unnamed
 *    (O_TMPFILE, or under a temporary name where that is not supported),
 *    given the group and mode, and only then linked under its name.  So
 *    whatever the opener's umask or primary group, no other member ever
 *    meets a -wal in the wrong group or at 0640, and nobody is locked out
 *    of the study by whoever opened it first.
 *
 *  - Under the name VFS_PRIVILEGED, it raises the group privilege (see
 *    priv.h) around exactly the calls that open, create, test or remove
 *    the one study vfs_allow() named - a regular file of the install's
 *    group directly inside STUDYDIR - and that study's own -wal, -shm
 *    and journal, and nothing else: any other name opened through it,
 *    whoever names it and however, is refused (SQLITE_PERM), and calls
 *    about other names run with the user's own rights.  Temporary files
 *    are never opened with it (and store_open.c keeps them in memory).
 *
 * SQLite's URI file names are off for every name the program opens (see
 * store_open.c), so no name can choose a VFS; this layer's own check stands
 * whatever the caller does.
 */
#ifndef BUGCODER_VFS_H
#define BUGCODER_VFS_H

#include <sys/stat.h>

#include "core/base/buf.h"

#define VFS_PLAIN "bugcoder"
#define VFS_PRIVILEGED "bugcoder-priv"

/* Register both VFS with SQLite (idempotent).  Returns an SQLite result
 * code. */
int vfs_register(void);

/* The only study the privileged VFS will open: `path` (absolute, as
 * SQLite will name it: no symbolic link in it, no "." or ".."), or NULL
 * to allow none.  The string is copied. */
void vfs_allow(const char *path);

/* How many reads the process made from studies and their -wal files
 * (a page, or a frame header, each), for the test and benchmark figures
 * of store_tx.c's BUGCODER_STATS. */
long long vfs_reads(void);

/* Append "owner U, group G, mode 0660" for `sb` to `out`. */
void vfs_describe(struct buf *out, const struct stat *sb);

#endif
