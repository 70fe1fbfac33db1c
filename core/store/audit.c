/* SPDX-License-Identifier: MIT */
/*
 * audit: see audit.h.
 */
#include "core/store/audit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/buf.h"

/* the hash a chain starts from */
static const char genesis[] = "bugcoder-audit-v1";

/* The decimal digits of v (with '-' when negative) at the end of
 * buf[24]; returns where they start. */
static char *decimal(char buf[24], long long v)
{
	unsigned long long u = v < 0 ? 0 - (unsigned long long)v :
				       (unsigned long long)v;
	char *p = buf + 24;

	do {
		*--p = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		*--p = '-';
	return p;
}

/* Each field is written with its type and length: "T<len>:<text>;",
 * "I<value>;" or "N;" for NULL (formatted by hand: the log of a batch
 * of 100,000 labels hashes half a million rows). */
static void put_text(struct sha256 *c, const char *s)
{
	char buf[24], *p;
	size_t n;

	if (!s) {
		sha256_update(c, "N;", 2);
		return;
	}
	n = strlen(s);
	p = decimal(buf, (long long)n);
	*--p = 'T';
	sha256_update(c, p, (size_t)(buf + 24 - p));
	sha256_update(c, ":", 1);
	sha256_update(c, s, n);
	sha256_update(c, ";", 1);
}

static void put_int(struct sha256 *c, long long v, int null)
{
	char buf[24], *p;

	if (null) {
		sha256_update(c, "N;", 2);
		return;
	}
	p = decimal(buf, v);
	*--p = 'I';
	sha256_update(c, p, (size_t)(buf + 24 - p));
	sha256_update(c, ";", 1);
}

void audit_row_hash(const char *prev, const struct audit_row *r,
		    char out[SHA256_HEX_LEN + 1])
{
	unsigned char d[SHA256_LEN];
	struct sha256 c;

	sha256_init(&c);
	put_text(&c, genesis);
	put_text(&c, prev ? prev : "");
	put_int(&c, r->id, 0);
	put_text(&c, r->at);
	put_text(&c, r->actor);
	put_text(&c, r->for_member);
	put_text(&c, r->action);
	put_int(&c, r->item_id, r->item_id == 0);
	put_text(&c, r->dimension);
	put_text(&c, r->old);
	put_text(&c, r->new_value);
	if (r->detail) {
		sha256_update(&c, "D", 1);
		put_text(&c, r->detail);
	}
	sha256_final(&c, d);
	sha256_hex(d, out);
}

int audit_last(struct store *st, long long *id,
	       char hash[SHA256_HEX_LEN + 1], struct err *e)
{
	sqlite3_stmt *s;
	int rc;

	*id = 0;
	hash[0] = '\0';
	s = store_prepare(st, "SELECT id, hash FROM audit "
			  "ORDER BY id DESC LIMIT 1", e);
	if (!s)
		return -1;
	rc = store_step(st, s, "reading the audit log", e);
	if (rc > 0) {
		const char *h = (const char *)sqlite3_column_text(s, 1);

		*id = sqlite3_column_int64(s, 0);
		snprintf(hash, SHA256_HEX_LEN + 1, "%s", h ? h : "");
	}
	sqlite3_finalize(s);
	return rc < 0 ? -1 : 0;
}

void audit_read_row(sqlite3_stmt *s, struct audit_row *r)
{
	const char *h;

	r->id = sqlite3_column_int64(s, 0);
	r->at = (const char *)sqlite3_column_text(s, 1);
	r->actor = (const char *)sqlite3_column_text(s, 2);
	r->for_member = (const char *)sqlite3_column_text(s, 3);
	r->action = (const char *)sqlite3_column_text(s, 4);
	r->item_id = sqlite3_column_type(s, 5) == SQLITE_NULL ? 0 :
		     sqlite3_column_int64(s, 5);
	r->dimension = (const char *)sqlite3_column_text(s, 6);
	r->old = (const char *)sqlite3_column_text(s, 7);
	r->new_value = (const char *)sqlite3_column_text(s, 8);
	h = (const char *)sqlite3_column_text(s, 9);
	snprintf(r->hash, sizeof(r->hash), "%s", h ? h : "");
	r->detail = (const char *)sqlite3_column_text(s, 10);
}

int audit_find_hash(struct store *st, const char *hash, long long *id,
		    struct err *e)
{
	sqlite3_stmt *s;
	int rc;

	*id = 0;
	s = store_prepare(st, "SELECT id FROM audit WHERE hash = ? ORDER BY "
			  "id LIMIT 1", e);
	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, hash, -1, SQLITE_STATIC);
	rc = store_step(st, s, "reading the audit log", e);
	if (rc > 0)
		*id = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return rc < 0 ? -1 : 0;
}

/* ", " between fields, '{' before the first. */
static void detail_key(struct buf *d, const char *key)
{
	buf_addch(d, d->len ? ',' : '{');
	audit_json_str(d, key);
	buf_addch(d, ':');
}

void audit_json_str(struct buf *d, const char *s)
{
	const unsigned char *p;

	buf_addch(d, '"');
	for (p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\') {
			buf_addch(d, '\\');
			buf_addch(d, (char)*p);
		} else if (*p < 0x20 || *p == 0x7f) {
			buf_addf(d, "\\u%04x", *p);
		} else {
			buf_addch(d, (char)*p);
		}
	}
	buf_addch(d, '"');
}

void audit_detail_str(struct buf *d, const char *key, const char *value)
{
	detail_key(d, key);
	if (value)
		audit_json_str(d, value);
	else
		buf_addstr(d, "null");
}

void audit_detail_int(struct buf *d, const char *key, long long value)
{
	detail_key(d, key);
	buf_addf(d, "%lld", value);
}

void audit_detail_real(struct buf *d, const char *key, double value)
{
	detail_key(d, key);
	/* 17 significant digits: read back, the same double */
	buf_addf(d, "%.17g", value);
}

const char *audit_detail_end(struct buf *d)
{
	if (!d->len)
		return NULL;
	buf_addch(d, '}');
	return d->ptr;
}

int audit_chain_fill(struct store *st, struct err *e)
{
	sqlite3_stmt *s = NULL, *u = NULL;
	char prev[SHA256_HEX_LEN + 1] = "";
	int rc, ret = -1;

	s = store_prepare(st, "SELECT " AUDIT_ROW_COLUMNS " FROM audit a "
			  "ORDER BY a.id", e);
	u = s ? store_prepare(st, "UPDATE audit SET hash = ? WHERE id = ?",
			      e) : NULL;
	if (!u)
		goto out;
	while ((rc = store_step(st, s, "reading the audit log", e)) > 0) {
		struct audit_row r;

		audit_read_row(s, &r);
		if (r.hash[0]) {
			memcpy(prev, r.hash, sizeof(prev));
			continue;
		}
		audit_row_hash(prev, &r, r.hash);
		sqlite3_bind_text(u, 1, r.hash, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(u, 2, r.id);
		if (store_step(st, u, "chaining the audit log", e) < 0)
			goto out;
		sqlite3_reset(u);
		memcpy(prev, r.hash, sizeof(prev));
	}
	if (rc < 0)
		goto out;
	ret = 0;
out:
	sqlite3_finalize(s);
	sqlite3_finalize(u);
	return ret;
}

int audit_verify(struct store *st, struct audit_check *c, struct err *e)
{
	char prev[SHA256_HEX_LEN + 1] = "";
	sqlite3_stmt *s;
	long long last_id = 0;
	int rc;

	memset(c, 0, sizeof(*c));
	s = store_prepare(st, "SELECT " AUDIT_ROW_COLUMNS " FROM audit a "
			  "ORDER BY a.id", e);
	if (!s)
		return -1;
	while ((rc = store_step(st, s, "reading the audit log", e)) > 0) {
		struct audit_row r;
		char want[SHA256_HEX_LEN + 1];

		audit_read_row(s, &r);
		c->rows++;
		audit_row_hash(prev, &r, want);
		if (!r.hash[0] || strcmp(want, r.hash)) {
			c->bad_id = r.id;
			if (!r.hash[0])
				snprintf(c->reason, sizeof(c->reason),
					 "it has no hash");
			else if (r.id != last_id + 1)
				snprintf(c->reason, sizeof(c->reason),
					 "it does not follow row %lld (rows "
					 "removed or renumbered?)", last_id);
			else
				snprintf(c->reason, sizeof(c->reason),
					 "its hash does not match its content "
					 "or the row before it (changed after "
					 "it was written)");
			break;
		}
		memcpy(prev, r.hash, sizeof(prev));
		last_id = r.id;
	}
	if (rc < 0) {
		sqlite3_finalize(s);
		return -1;
	}
	sqlite3_finalize(s);
	return 0;
}

static const char audit_insert_sql[] = "INSERT INTO audit (id, at, actor, "
	"for_member, action, item_id, dimension, old, new, hash, detail) VALUES "
	"(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

int audit_write_row(struct store *st, const struct audit_row *r,
		    struct err *e)
{
	sqlite3_stmt *s = store_cached(st, audit_insert_sql, e);

	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, r->id);
	sqlite3_bind_text(s, 2, r->at, -1, SQLITE_STATIC);
	store_bind_static(s, 3, r->actor);
	store_bind_static(s, 4, r->for_member);
	store_bind_static(s, 5, r->action);
	if (r->item_id)
		sqlite3_bind_int64(s, 6, r->item_id);
	else
		sqlite3_bind_null(s, 6);
	store_bind_static(s, 7, r->dimension);
	store_bind_static(s, 8, r->old);
	store_bind_static(s, 9, r->new_value);
	sqlite3_bind_text(s, 10, r->hash, -1, SQLITE_STATIC);
	store_bind_static(s, 11, r->detail);
	if (store_step_done(st, s, "writing the audit log", e) < 0) {
		store_done(s);
		st->audit_known = 0;
		return -1;
	}
	store_done(s);
	st->audit_known = 1;
	st->audit_id = r->id;
	memcpy(st->audit_hash, r->hash, sizeof(st->audit_hash));
	return 0;
}

int audit_write(struct store *st, const char *actor, const char *for_member,
		const char *action, long long item_id, const char *dimension,
		const char *old_value, const char *new_value, struct err *e)
{
	return audit_write_detail(st, actor, for_member, action, item_id,
				  dimension, old_value, new_value, NULL, e);
}

int audit_write_detail(struct store *st, const char *actor,
		       const char *for_member, const char *action,
		       long long item_id, const char *dimension,
		       const char *old_value, const char *new_value,
		       const char *detail, struct err *e)
{
	struct audit_row r = {
		.actor = actor, .for_member = for_member, .action = action,
		.item_id = item_id, .dimension = dimension, .old = old_value,
		.new_value = new_value, .detail = detail,
	};
	char prev[SHA256_HEX_LEN + 1], now[32];
	int own = st->depth == 0;

	/* the chain needs the last row and the new one in one write lock */
	if (own && store_begin(st, e) < 0)
		return -1;
	/* the head of the chain is read once a transaction, then kept:
	 * rows are appended only here */
	if (st->audit_known) {
		r.id = st->audit_id;
		memcpy(prev, st->audit_hash, sizeof(prev));
	} else if (audit_last(st, &r.id, prev, e) < 0) {
		goto fail;
	}
	r.id++;
	store_now(now);
	r.at = now;
	audit_row_hash(prev, &r, r.hash);
	if (audit_write_row(st, &r, e) < 0)
		goto fail;
	if (own)
		return store_commit(st, e);
	return 0;
fail:
	st->audit_known = 0;
	if (own)
		store_rollback(st);
	return -1;
}
