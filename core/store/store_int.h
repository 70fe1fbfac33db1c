/* SPDX-License-Identifier: MIT */
/*
 * store_int: what the store's files (store.c, store_open.c,
 * store_explain.c, store_tx.c, store_lock.c, store_check.c,
 * store_backup.c, store_meta.c) share; not API (that is store.h).
 */
#ifndef BUGCODER_STORE_INT_H
#define BUGCODER_STORE_INT_H

#include <sqlite3.h>
#include <sys/stat.h>

#include "core/base/buf.h"
#include "core/base/err.h"
#include "core/store/store.h"

#define BUSY_TIMEOUT_MS 8000

/* A statement of store_cached(). */
struct store_stmt {
	const char *sql;	/* the key: a string constant's address */
	sqlite3_stmt *s;
};

/* store.c */

/* The statements prepared so far by this process (the figures of
 * store_write_stats()). */
long long store_prepares(void);

/* One step of `s` and SQLite's result code, for the store's own
 * statements that read the code themselves (a pragma's row, the
 * integrity check's rows, a setting written); everything else steps
 * through store_step().  Only store.c steps a statement itself, and only
 * core/store/ calls this (`make check-layering`). */
int store_step_rc(sqlite3_stmt *s);

/* The one message for a damaged study: why, whether anything was
 * written (`writing`: a write the caller gives up), and what to do.
 * Returns -1. */
int store_damage_msg(struct store *st, struct err *e, const char *why,
		     int writing);

/* store_explain.c */

/* Fill `e`: `path` cannot `op` for want of `perm` permission, with the
 * file's mode and owners and who is asking (or the read-only file
 * system, when no permission would help).  Returns -1. */
int store_perm_error(struct err *e, const char *path, const char *op,
		     const char *perm);

/* May this process do `mode` (access()'s) to `path`, checked with the
 * effective ids as the kernel checks them? */
int store_can(const char *path, int mode);

/* The directory of `path` ("." for a bare name, "/" for the root's),
 * owned. */
char *store_dir_of(const char *path);

/* When opening or writing `path` failed: the permission that is
 * missing, if one is (-1 with `e` filled); 0 when permissions do not
 * explain it. */
int store_explain_access(const char *path, int write, struct err *e);

/* What is at `path`, for init, which will not create a study there. */
void store_what_is_there(const char *path, struct buf *out);

/* Fill `e` for a study SQLite could not open (`why` its words): the
 * file, its owner, group and mode, its -wal and -shm when they differ,
 * and what to do.  Returns -1. */
int store_open_error(const char *path, unsigned flags, const char *why,
		     struct err *e);

/* Fill `e` for a study whose directory the user cannot enter: name the
 * directory's owner, group and mode, and what to do. */
void store_unreachable_error(const char *path, struct err *e);

/* store_open.c */

/* A checkpoint that never waits: PASSIVE, then with `truncate` an empty
 * -wal when everything could be copied and nobody else reads. */
void store_wal_checkpoint(struct store *st, int truncate);

/* store_tx.c */

/* The write lock was let go (commit or rollback of the outermost
 * transaction). */
void store_lock_released(struct store *st);

/* A transaction of this process ended (see store_now()). */
void store_tx_ended(void);

/* The figures line of BUGCODER_STATS, written as `st` closes. */
void store_write_stats(struct store *st);

/* store_lock.c */

/* Did the last session on the study stop uncleanly (nobody has it open
 * and yet its -wal holds frames)?  Called before this process opens it. */
int store_stopped_uncleanly(const char *path, unsigned flags);

/* store_check.c */

/* store_check(), saying "nothing was written" when `writing`. */
int store_check_pages(struct store *st, int full, int writing,
		      struct err *e);

/* The full check at the first write of a connection, when it is due:
 * after an unclean stop, or a day after the last one.  *record is set
 * when it ran and passed (the caller records it once it holds the write
 * lock).  0, or -1 with `e` filled. */
int store_first_write_checks(struct store *st, int *record, struct err *e);

/* The time of a full check that passed, in the caller's transaction. */
int store_record_check(struct store *st, struct err *e);

/* Note a full check that passed, when the study can be written at once
 * (a busy or read-only study is checked again another time). */
void store_note_check(struct store *st);

/* Does SQLite's result code `rc` say the file is damaged (corrupt, not a
 * database) rather than that a step could not run (busy, interrupted,
 * out of memory, an I/O error)? */
int store_is_damage(int rc);

#endif
