/* SPDX-License-Identifier: MIT */
/*
 * audit: the study's audit log, hash-chained.
 *
 * Every row of the audit table carries the SHA-256 of the previous row's
 * hash and its own content (id, time, actor, member acted for, action,
 * item, dimension, old and new value), so that a row changed, inserted or
 * removed in the middle with plain SQL no longer fits the chain, and
 * audit_verify() names the first row that does not.  Rows are appended
 * only through audit_write() and audit_write_detail().  core/study/replay
 * checks the study's state against the log; core/study/auditlog lists
 * it to the members who may read it.
 *
 * Limitations: the hash has no secret, so someone who can write the
 * study file can rebuild the whole chain after changing it, and removing
 * the newest rows leaves a chain that still fits.  The chain makes
 * careless tampering evident; the server install (the operating system)
 * is what keeps members from writing the file at all.  A copy of the log
 * taken earlier (the replication package's audit.csv, a backup) shows
 * the hash a later chain must still contain.
 */
#ifndef BUGCODER_AUDIT_H
#define BUGCODER_AUDIT_H

#include "core/base/buf.h"
#include "core/base/err.h"
#include "core/base/sha256.h"
#include "core/store/store.h"

/* One row.  Strings are borrowed (from the statement or the caller) and
 * may be NULL where the column may be. */
struct audit_row {
	long long id;
	const char *at;
	const char *actor;	/* OS account that ran the program */
	const char *for_member;	/* member acted for, NULL when the same */
	const char *action;
	long long item_id;	/* 0 when not about an item */
	const char *item;	/* "owner/repo#N" when listing, else NULL */
	const char *dimension;
	const char *old;
	const char *new_value;
	const char *detail;	/* JSON saying what old and new leave out
				   (core/study/replay.h); NULL when none, and when
				   listed to anyone but the owner */
	char hash[SHA256_HEX_LEN + 1];	/* as stored (listing), or computed */
};

/* The hash of row `r` chained on `prev` (the previous row's hash, or ""
 * for the first row), into out[65].  Each field is written with its type
 * and length, so no two different rows hash the same bytes; `detail` is
 * hashed after the others when there is one (rows written before it
 * existed hash as they did). */
void audit_row_hash(const char *prev, const struct audit_row *r,
		    char out[SHA256_HEX_LEN + 1]);

/* The newest row's id (0 when none) and hash ("" when none).  Returns 0
 * or -1 with `e` filled. */
int audit_last(struct store *st, long long *id,
	       char hash[SHA256_HEX_LEN + 1], struct err *e);

/* The row whose hash is `hash`: *id its id, 0 when no row has it.
 * Returns 0 or -1 with `e` filled. */
int audit_find_hash(struct store *st, const char *hash, long long *id,
		    struct err *e);

/*
 * A row's detail, built one field at a time into `d` (empty to start):
 * a JSON object.  audit_detail_end() closes it and returns d->ptr, or
 * NULL when no field was added.  Strings may be NULL (JSON null).
 */
void audit_detail_str(struct buf *d, const char *key, const char *value);
void audit_detail_int(struct buf *d, const char *key, long long value);
void audit_detail_real(struct buf *d, const char *key, double value);
const char *audit_detail_end(struct buf *d);
/* `s` as a JSON string (quoted, escaped), appended to `d`. */
void audit_json_str(struct buf *d, const char *s);

/* Give every row without a hash its place in the chain (the migration
 * that added the column, in its transaction).  Returns 0 or -1. */
int audit_chain_fill(struct store *st, struct err *e);

struct audit_check {
	long long rows;		/* rows read */
	long long bad_id;	/* first row that does not fit; 0 when none */
	char reason[160];	/* why it does not fit */
};

/* Check the whole chain.  Returns 0 (look at c->bad_id), or -1 with `e`
 * filled when the log could not be read. */
int audit_verify(struct store *st, struct audit_check *c, struct err *e);

/* Append one entry, chained to the one before it.  `actor` is the OS
 * account that ran the program, `for_member` the member acted for (NULL
 * when the same), `item_id` 0 when not about an item; other strings may
 * be NULL.  Runs in the caller's transaction, or in its own when there is
 * none. */
int audit_write(struct store *st, const char *actor, const char *for_member,
		const char *action, long long item_id, const char *dimension,
		const char *old_value, const char *new_value, struct err *e);

/* The same with `detail`: JSON saying what the change was where old and
 * new do not (built with audit_detail_*() above); NULL for none. */
int audit_write_detail(struct store *st, const char *actor,
		       const char *for_member, const char *action,
		       long long item_id, const char *dimension,
		       const char *old_value, const char *new_value,
		       const char *detail, struct err *e);

/* Append row `r` whose id, time and hash are made already (the hash by
 * audit_row_hash(), chained on the log's head as audit_last() read it),
 * in the caller's transaction: for a writer that works its rows out
 * before it takes the write lock, and checks under it that the head is
 * still the one it chained on (label_batch).  0, or -1. */
int audit_write_row(struct store *st, const struct audit_row *r,
		    struct err *e);

/* The columns audit_read_row() reads, from the audit table as `a`. */
#define AUDIT_ROW_COLUMNS "a.id, a.at, a.actor, a.for_member, a.action, " \
	"a.item_id, a.dimension, a.old, a.new, a.hash, a.detail"

/* Point `r` at the columns of the current row of `s` (AUDIT_ROW_COLUMNS);
 * the strings are the statement's, valid until it moves on. */
void audit_read_row(sqlite3_stmt *s, struct audit_row *r);

#endif
