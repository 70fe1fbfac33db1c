/* SPDX-License-Identifier: MIT */
/*
 * store: the study file.
 *
 * One SQLite database per study, in WAL mode with a busy timeout, foreign
 * keys on, the schema version in PRAGMA user_version and forward
 * migrations applied on open.  A new file is created with mode 0660 (group
 * members of a team share it; never world-readable).
 *
 * Every user action is one transaction: store_begin() ... store_commit(),
 * or store_rollback() on any error, so a label is on disk before the
 * screen or the command line says it is saved.  Values are always bound.
 *
 * The audit table is append-only (triggers refuse UPDATE and DELETE); it
 * records every change of a label, submission, resolution, membership and
 * codebook: who, for whom, when, old and new, and what else replaying it
 * needs (core/study/replay.h).
 */
#ifndef BUGCODER_STORE_H
#define BUGCODER_STORE_H

#include <sqlite3.h>
#include <sys/types.h>
#include <time.h>

#include "core/base/buf.h"
#include "core/base/err.h"

#define STORE_SCHEMA_VERSION 13

enum store_flags {
	STORE_CREATE = 1 << 0,	/* create the file; fail if it exists */
	STORE_READONLY = 1 << 1,
	STORE_PRIVILEGED = 1 << 2,	/* a study in the server install's
					   STUDYDIR: opened with the group
					   privilege (see priv.h), must be a
					   regular file, not a symlink, and
					   belong to that group */
};

/* Something that holds a read transaction open between calls (an open
 * blob handle): released before this connection writes, since in WAL
 * mode a connection cannot write from a snapshot that another process
 * has since moved past. */
struct store_reader {
	void (*release)(struct store_reader *r);
	struct store_reader *next;
};

struct store_stmt;		/* a cached statement (store_cached()) */

struct store {
	sqlite3 *db;
	char *path;		/* owned */
	int depth;		/* nesting of store_begin() */
	int lost;		/* an inner level found the transaction
				   gone (SQLite undid it on an error): the
				   outer levels can only roll back */
	long long data_version;	/* PRAGMA data_version last seen, */
	int have_data_version;	/* once store_changed() has taken note */
	struct store_reader *readers;	/* released by store_begin() */
	unsigned flags;		/* enum store_flags it was opened with */
	int readonly;		/* opened read-only (asked, or fallen back
				   to: a read-only directory or full disk) */
	int checked;		/* the first write's checks are done */
	int unclean;		/* the last session before this one did not
				   end cleanly (found at open) */
	int no_daily;		/* no daily full check (store_interactive()) */
	int will_write;		/* a damage met now gives a write up:
				   inside store_open(), a batch's checks */
	long commits;		/* transactions this connection committed */
	int shm_fd;		/* the -shm, read-only, for F_GETLK; -1 */
	struct store_stmt *cache;	/* store_cached(): owned */
	size_t nr_cache, alloc_cache;
	int audit_known;	/* in this transaction, the audit chain's
				   head is audit_id/audit_hash: */
	long long audit_id;
	char audit_hash[65];
	double lock_since;	/* when the write lock was taken (stats) */
};

/* Who holds the study's write lock (see store_lock_holder()). */
struct store_holder {
	pid_t pid;
	uid_t uid;		/* the process's real user */
	char user[64];		/* its name, "uid N" or "someone" */
	char program[32];	/* its name ("bugcoder") */
	time_t since;		/* when the process started, or 0 */
};

/* Register / unregister a reader (not owned; unregister before it goes
 * away).  Registering twice is harmless. */
void store_add_reader(struct store *st, struct store_reader *r);
void store_remove_reader(struct store *st, struct store_reader *r);

/* What opening a study leaves to the layers above the file: the data a
 * schema migration needs filled in (the audit chain's hashes, the
 * replay's baseline: study_upgrade() in core/study/study.c, which
 * study_open() passes).  Called inside the migration's transaction once
 * the schema is current, with the version the file had (0: none).  With
 * no upgrade, a study that had a schema is not migrated. */
typedef int (*store_upgrade_fn)(struct store *st, int from, struct err *e);

/* Open the study at `path`.  With STORE_CREATE the file must not exist
 * and is created 0660 (whatever the umask) with the current schema;
 * otherwise it must exist and is migrated forward.  A study newer than
 * this program is refused.  Its -wal and -shm are created with the
 * study's group and mode in one step (see vfs.h).  A study that cannot
 * be opened is named with its owner, group and mode and what to do.
 * Read-only: when the -shm cannot be made (a read-only directory, a full
 * disk) and no -wal holds anything, the study is opened immutable.
 * Returns 0, or -1 with `e` filled (ERR_IO, ERR_DB, ERR_BUSY). */
int store_open(struct store *st, const char *path, unsigned flags,
	       store_upgrade_fn upgrade, struct err *e);
/* Is another process holding the study's write lock?  1 with `h`
 * filled (its process id, user and start), 0 when nobody writes, -1
 * when it cannot be told (an in-memory or read-only study). */
int store_lock_holder(struct store *st, struct store_holder *h);
/* Has any process the study at `path` open (not this one, which must
 * not have it open: the -shm is opened and closed here)?  1 with `h`
 * filled (one of them), 0 no, -1 when it cannot be told. */
int store_in_use(const char *path, struct store_holder *h);
/* "alice's bugcoder (process 42, running since 2024-05-01 10:02:11)";
 * the program's name is the kernel's (untrusted: print it safely). */
void store_holder_describe(const struct store_holder *h, struct buf *out);

/* `path`, or "./path" when SQLite could read it as a URI ("file:..."):
 * no name given to the program ever chooses how SQLite opens it.
 * Returns `path` or tmp->ptr. */
const char *store_plain_name(const char *path, struct buf *tmp);

/* An empty in-memory database, no schema, nothing configured (to build
 * a schema to compare with). */
int store_open_bare(struct store *st, struct err *e);
/* Open an in-memory study with the schema (for tests). */
int store_open_memory(struct store *st, struct err *e);
/* Close and free, after a checkpoint that does not wait for others, so
 * that the study file alone holds everything once the last user is gone.
 * Accepts NULL or a never-opened store. */
void store_close(struct store *st);

/* Copy what the write-ahead log holds into the study file, without
 * waiting for anyone (PASSIVE; TRUNCATE when nobody else reads).  Called
 * after every commit and when the screen is idle.  Never fails. */
void store_checkpoint(struct store *st);

/* Write a consistent copy of the study to `path` through SQLite's online
 * backup API (others may keep working meanwhile).  `path` must not exist.
 * The copy is written 0600 as the user (never with the group privilege)
 * under a hidden temporary name beside it (core/base/partial) and renamed to
 * `path` when whole: a failed or killed backup leaves nothing under
 * `path`, and the next one removes what a killed one left.  The copy gets
 * the full check (the study's own pages, just written): a damaged study
 * leaves no copy behind, and a sound one counts as checked
 * (store_verify()).  Returns 0, or -1 with `e` filled. */
int store_backup(struct store *st, const char *path, struct err *e);

/* SQLite's integrity check: PRAGMA quick_check (`full` 0) or
 * integrity_check.  Returns 0 when the study is sound, or -1 with `e`
 * naming the first problem (ERR_DB). */
int store_check(struct store *st, int full, struct err *e);

/*
 * When the study's pages are checked.  No command pays a scan of the
 * whole study before it writes: SQLite checks every page it reads (with
 * cell_size_check on), and a damaged page met on the way (SQLITE_CORRUPT)
 * is an error that says the study is damaged, that nothing was written
 * and how to go on (store_error()).  The full check (integrity_check)
 * runs where it is asked for or costs little next to the work:
 * store_verify() (doctor, backup, export --package, round close), and at
 * the first write of a connection when the session before it stopped
 * uncleanly (a -wal left behind with nobody using the study) or when the
 * study's last full check is more than a day old (not in the screens:
 * store_interactive()).  The time of the last full check that passed is
 * kept in the study (meta integrity_checked_at).
 */

/* The full check, recorded in the study when it passes and the study can
 * be written.  0, or -1 with `e` saying the study is damaged (and, with
 * `writing`, that the write the caller meant to make was not made). */
int store_verify(struct store *st, int writing, struct err *e);
/* The connection serves a screen: no daily full check at its first
 * write (a check after an unclean stop still runs). */
void store_interactive(struct store *st);

/* Transactions.  store_begin() starts an IMMEDIATE transaction (so a busy
 * writer is reported at once rather than at commit); a nested call opens
 * a SAVEPOINT, one per level.  store_commit() of a nested level releases
 * its savepoint (its writes become the caller's, committed or not with
 * the caller's); store_rollback() of a nested level undoes that level's
 * writes only (ROLLBACK TO), and the caller's transaction stays open
 * with its earlier writes, for the caller to commit or roll back: an
 * inner failure never ends a caller's transaction behind its back.  When
 * SQLite itself undid the whole transaction (some errors do), the outer
 * levels' store_commit() fails, saying nothing was written.  A nested
 * store_begin() that fails opened no level: do not roll back for it.
 * The first store_begin() of a connection runs the full check when it is
 * due (see above) and refuses to write to a study it finds damaged. */
int store_begin(struct store *st, struct err *e);
int store_commit(struct store *st, struct err *e);
void store_rollback(struct store *st);

/* One snapshot for many reads: between store_read_begin() and
 * store_read_end() every read sees the study as it was at the first,
 * though others write meanwhile (a savepoint; pairs nest). */
int store_read_begin(struct store *st, struct err *e);
void store_read_end(struct store *st);

/* How long a write waits for another writer before ERR_BUSY: `ms`, or
 * the default (several seconds) when ms < 0.  The screen waits briefly
 * and retries while it stays responsive. */
void store_busy_timeout(struct store *st, int ms);

/* Has another connection (another bugcoder) changed the study since the
 * last call?  1 yes, 0 no (and on the first call, which only takes note),
 * -1 with `e` on a database error.  Cheap (PRAGMA data_version); it
 * releases the registered readers first, as an open read would keep the
 * connection on its old snapshot. */
int store_changed(struct store *st, struct err *e);

/* Prepare `sql` (a constant) or fill `e`.  Caller finalizes. */
sqlite3_stmt *store_prepare(struct store *st, const char *sql,
			    struct err *e);
/* The statement for `sql`, prepared once per connection and kept by the
 * store until store_close() (never finalize it): reset, its bindings
 * cleared.  Keyed by the address of `sql`, which must be a string
 * constant; a statement is not used by two callers at once (asking for
 * one that is still stepping is an error).  Call store_done() when
 * finished with it, so that it holds no read open.  NULL with `e`
 * filled. */
sqlite3_stmt *store_cached(struct store *st, const char *sql,
			   struct err *e);
/* Reset a statement of store_cached() (NULL is fine). */
void store_done(sqlite3_stmt *s);
/* Step `s` once: 1 for a row, 0 when it is done, or -1 with `e` filled
 * (ERR_BUSY when the study is busy or locked, ERR_DB otherwise: "what:
 * message") for any other result.  An error is never read as "no row":
 * every caller that asks "is there a row?" goes through here, so an
 * access check that cannot be answered refuses. */
int store_step(struct store *st, sqlite3_stmt *s, const char *what,
	       struct err *e);
/* Step `s`, a statement that returns no rows (an INSERT, UPDATE or
 * DELETE), to its end: 0 when done, or -1 with `e` filled as by
 * store_step(); a row where none was due is an error too. */
int store_step_done(struct store *st, sqlite3_stmt *s, const char *what,
		    struct err *e);

/* Keep this connection's page cache small (512 KiB), for a process that
 * stays open all day reading one item at a time. */
void store_small_cache(struct store *st);

/* Run a statement that returns no rows, with no parameters. */
int store_exec(struct store *st, const char *sql, struct err *e);
/* Set `e` from the database's last error: "what: sqlite message"; a
 * damaged study (SQLITE_CORRUPT, SQLITE_NOTADB) is said to be damaged,
 * with "nothing was written" inside a transaction (which the caller rolls
 * back), restore from a backup, and `bugcoder doctor` for the full
 * check.  Returns -1. */
int store_error(struct store *st, struct err *e, const char *what);
/* Did the study's last error say it is damaged? */
int store_damaged(struct store *st);

/* Bind a string, or NULL when s is NULL. */
int store_bind_text(sqlite3_stmt *s, int i, const char *text);
/* The same without a copy: `text` must outlive the statement's use. */
int store_bind_static(sqlite3_stmt *s, int i, const char *text);

/* Key/value settings of the study (title, blind_adjudication, ...).
 * store_meta_read sets *value to an owned string, or NULL when unset, and
 * returns 0, or -1 with `e` filled when the study cannot be read.
 * store_meta_get is for display only (the title): NULL when unset or
 * unreadable. */
int store_meta_read(struct store *st, const char *key, char **value,
		    struct err *e);
char *store_meta_get(struct store *st, const char *key);
int store_meta_set(struct store *st, const char *key, const char *value,
		   struct err *e);

/* The error for a study found damaged by what is read from it rather
 * than by SQLite (a stored text that no longer parses): `why` says what
 * (e.g. "stored codebook:3:7: control character 0x04"); the message
 * says the study is damaged and what to do, as SQLite's damage does.
 * Returns -1. */
int store_damage(struct store *st, struct err *e, const char *why);

/* The current time as ISO 8601 UTC ("2024-01-02T03:04:05Z"); inside a
 * transaction, the time it took the write lock, the same for every row
 * it writes and its audit rows.  Honors BUGCODER_NOW for reproducible
 * tests, except in a setgid program (see priv_hook_env()).  Writes into
 * out[32]. */
void store_now(char out[32]);

#endif
