/* SPDX-License-Identifier: MIT */
/*
 * audit: the study's audit log, hash-chained.
 *
 * Every row of the audit table carries the SHA-256 of the previous row's
 * hash and its own content (id, time, actor, member acted for, action,
 * item, dimension, old and new value), so that a row changed, inserted or
 * removed in the middle with plain SQL no longer fits the chain, and
 * audit_verify() names the first row that does not.  Rows are appended
 * only through store_audit() and store_audit_detail().  core/replay
 * checks the study's state against the log.
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

#include "core/buf.h"
#include "core/err.h"
#include "core/member.h"
#include "core/sha256.h"
#include "core/store.h"

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
				   (core/replay.h); NULL when none, and when
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

struct audit_filter {
	long long item_id;	/* 0: every item */
	const char *member;	/* NULL: everyone; else rows by or for them */
};

/* Called for each row in order; a non-zero return stops the listing and
 * is returned. */
typedef int (*audit_row_fn)(const struct audit_row *r, void *data);

/* The rows `a` may read, oldest first: the owner reads everything,
 * anyone else only their own actions (by them, or by the owner for
 * them), without their detail (it may name the coders a blind
 * adjudicator does not know).  Returns 0, the callback's non-zero value, or -1 with `e`. */
int audit_list(struct store *st, const struct actor *a,
	       const struct audit_filter *f, audit_row_fn fn, void *data,
	       struct err *e);

#endif
