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
 * codebook: who, for whom, when, old and new.
 */
#ifndef BUGCODER_STORE_H
#define BUGCODER_STORE_H

#include <sqlite3.h>

#include "core/err.h"

#define STORE_SCHEMA_VERSION 2

enum store_flags {
	STORE_CREATE = 1 << 0,	/* create the file; fail if it exists */
	STORE_READONLY = 1 << 1,
};

/* Something that holds a read transaction open between calls (an open
 * blob handle): released before this connection writes, since in WAL
 * mode a connection cannot write from a snapshot that another process
 * has since moved past. */
struct store_reader {
	void (*release)(struct store_reader *r);
	struct store_reader *next;
};

struct store {
	sqlite3 *db;
	char *path;		/* owned */
	int depth;		/* nesting of store_begin() */
	struct store_reader *readers;	/* released by store_begin() */
};

/* Register / unregister a reader (not owned; unregister before it goes
 * away).  Registering twice is harmless. */
void store_add_reader(struct store *st, struct store_reader *r);
void store_remove_reader(struct store *st, struct store_reader *r);

/* Open the study at `path`.  With STORE_CREATE the file must not exist
 * and is created 0660 with the current schema; otherwise it must exist
 * and is migrated forward.  A study newer than this program is refused.
 * Returns 0, or -1 with `e` filled (ERR_IO, ERR_DB, ERR_BUSY). */
int store_open(struct store *st, const char *path, unsigned flags,
	       struct err *e);
/* Open an in-memory study with the schema (for tests). */
int store_open_memory(struct store *st, struct err *e);
/* Close and free.  Accepts NULL or a never-opened store. */
void store_close(struct store *st);

/* Transactions.  store_begin() starts an IMMEDIATE transaction (so a busy
 * writer is reported at once rather than at commit); nested calls only
 * count depth.  store_rollback() undoes everything of the outermost. */
int store_begin(struct store *st, struct err *e);
int store_commit(struct store *st, struct err *e);
void store_rollback(struct store *st);

/* Prepare `sql` (a constant) or fill `e`.  Caller finalizes. */
sqlite3_stmt *store_prepare(struct store *st, const char *sql,
			    struct err *e);
/* Run a statement that returns no rows, with no parameters. */
int store_exec(struct store *st, const char *sql, struct err *e);
/* Set `e` from the database's last error: "what: sqlite message". */
int store_error(struct store *st, struct err *e, const char *what);

/* Bind a string, or NULL when s is NULL. */
int store_bind_text(sqlite3_stmt *s, int i, const char *text);

/* Key/value settings of the study (title, blind_adjudication, ...).
 * store_meta_get returns an owned string or NULL when unset. */
char *store_meta_get(struct store *st, const char *key);
int store_meta_set(struct store *st, const char *key, const char *value,
		   struct err *e);

/* Append one audit entry.  `actor` is the OS account that ran the
 * program, `for_member` the member acted for (NULL when the same),
 * `item_id` 0 when not about an item; other strings may be NULL. */
int store_audit(struct store *st, const char *actor, const char *for_member,
		const char *action, long long item_id, const char *dimension,
		const char *old_value, const char *new_value, struct err *e);

/* The current time as ISO 8601 UTC ("2024-01-02T03:04:05Z").  Honors
 * BUGCODER_NOW for reproducible tests.  Writes into out[32]. */
void store_now(char out[32]);

#endif
