/* SPDX-License-Identifier: MIT */
/*
 * study: see study.h.
 */
#include "core/study/study.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/store/audit.h"
#include "core/base/buf.h"
#include "core/base/priv.h"
#include "core/study/member.h"
#include "core/study/replay.h"

int study_store_codebook(struct store *st, const struct codebook *cb,
			 const char *json, const char *source,
			 const char *actor, const char *for_member,
			 struct err *e)
{
	sqlite3_stmt *s;
	char now[32];
	int rc;

	/* labels record the version they were made under: a version must
	 * name one codebook, so an earlier version's string is not reused
	 * for other content (reloading the same text is fine) */
	s = store_prepare(st, "SELECT 1 FROM codebooks WHERE name = ? AND "
			  "version = ? AND json <> ?", e);
	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, cb->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, cb->version, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 3, json, -1, SQLITE_STATIC);
	rc = store_step(st, s, "checking the codebook version", e);
	sqlite3_finalize(s);
	if (rc > 0)
		return err_set(e, ERR_INPUT, "codebook %s %s is already in the "
			       "study with other content; give this one a "
			       "new version", cb->name, cb->version);
	if (rc < 0)
		return -1;
	if (store_exec(st, "UPDATE codebooks SET current = 0", e) < 0)
		return -1;
	s = store_prepare(st, "INSERT INTO codebooks (name, version, json, "
			  "source, loaded_at, loaded_by, current) "
			  "VALUES (?, ?, ?, ?, ?, ?, 1)", e);
	if (!s)
		return -1;
	store_now(now);
	sqlite3_bind_text(s, 1, cb->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, cb->version, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 3, json, -1, SQLITE_STATIC);
	store_bind_text(s, 4, source);
	sqlite3_bind_text(s, 5, now, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 6, actor, -1, SQLITE_STATIC);
	rc = store_step(st, s, "saving the codebook", e);
	sqlite3_finalize(s);
	if (rc < 0)
		return -1;
	{
		struct buf v = BUF_INIT, d = BUF_INIT;
		char sha[SHA256_HEX_LEN + 1];

		replay_sha256_hex(json, strlen(json), sha);
		audit_detail_int(&d, "id", sqlite3_last_insert_rowid(st->db));
		audit_detail_str(&d, "name", cb->name);
		audit_detail_str(&d, "version", cb->version);
		audit_detail_str(&d, "sha256", sha);
		audit_detail_str(&d, "source", source);
		buf_addf(&v, "%s %s", cb->name, cb->version);
		rc = audit_write_detail(st, actor, for_member, "codebook.load",
					0, NULL, NULL, v.ptr,
					audit_detail_end(&d), e);
		buf_release(&v);
		buf_release(&d);
	}
	return rc;
}

/* A stored codebook that does not parse (its message in `e`). */
static void damaged_codebook(struct store *st, struct err *e)
{
	char why[sizeof(e->msg)];

	snprintf(why, sizeof(why), "%s", e->msg);
	store_damage(st, e, why);
}

int study_codebook(struct store *st, struct codebook *cb, long long *id,
		   struct err *e)
{
	sqlite3_stmt *s;
	int rc, ret;

	s = store_prepare(st, "SELECT id, json FROM codebooks WHERE current "
			  "ORDER BY id DESC LIMIT 1", e);
	if (!s)
		return -1;
	rc = store_step(st, s, "loading the codebook", e);
	if (rc <= 0) {
		sqlite3_finalize(s);
		if (rc == 0)
			return err_set(e, ERR_NOTFOUND, "%s: the study has no "
				       "codebook yet (load one with `bugcoder "
				       "codebook update FILE`)", st->path);
		return -1;
	}
	if (id)
		*id = sqlite3_column_int64(s, 0);
	ret = codebook_parse(cb, (const char *)sqlite3_column_text(s, 1),
			     (size_t)sqlite3_column_bytes(s, 1),
			     "stored codebook", e);
	sqlite3_finalize(s);
	/* it was checked when it was stored: a stored codebook that no
	 * longer reads is a damaged study */
	if (ret < 0)
		damaged_codebook(st, e);
	return ret;
}

int study_codebook_version(struct store *st, const char *version,
			   struct codebook *cb, struct err *e)
{
	sqlite3_stmt *s;
	int rc, ret;

	s = store_prepare(st, "SELECT json FROM codebooks WHERE version = ?1 "
			  "ORDER BY id DESC LIMIT 1", e);
	if (!s)
		return -1;
	store_bind_text(s, 1, version);
	rc = store_step(st, s, "loading the codebook", e);
	if (rc <= 0) {
		sqlite3_finalize(s);
		if (rc == 0)
			return err_set(e, ERR_NOTFOUND, "--version %s: the study "
				       "has held no codebook version %s", version,
				       version);
		return -1;
	}
	ret = codebook_parse(cb, (const char *)sqlite3_column_text(s, 0),
			     (size_t)sqlite3_column_bytes(s, 0),
			     "stored codebook", e);
	sqlite3_finalize(s);
	/* it was checked when it was stored: a stored codebook that no
	 * longer reads is a damaged study */
	if (ret < 0)
		damaged_codebook(st, e);
	return ret;
}

int study_codebook_current(struct store *st, const struct codebook *cb,
			   struct err *e)
{
	sqlite3_stmt *s;
	int rc, ret = 0;

	s = store_prepare(st, "SELECT name, version FROM codebooks WHERE "
			  "current ORDER BY id DESC LIMIT 1", e);
	if (!s)
		return -1;
	rc = store_step(st, s, "reading the codebook version", e);
	if (rc > 0) {
		const char *name = (const char *)sqlite3_column_text(s, 0);
		const char *version = (const char *)sqlite3_column_text(s, 1);

		if (strcmp(name, cb->name) || strcmp(version, cb->version))
			ret = err_set(e, ERR_STALE, "the codebook changed to %s "
				      "%s after %s %s was read; nothing saved",
				      name, version, cb->name, cb->version);
	} else if (rc < 0) {
		ret = -1;
	}
	sqlite3_finalize(s);
	return ret;
}

int study_create(struct store *st, const char *path, const char *title,
		 const char *codebook_path, struct err *e)
{
	return study_create_in(st, path, 0, title, codebook_path, e);
}

int study_upgrade(struct store *st, int from, struct err *e)
{
	if (audit_chain_fill(st, e) < 0)
		return -1;
	if (from > 0 && from < REPLAY_SINCE_VERSION &&
	    replay_baseline(st, from, e) < 0)
		return -1;
	return 0;
}

int study_open(struct store *st, const char *path, unsigned flags,
	       struct err *e)
{
	return store_open(st, path, flags, study_upgrade, e);
}

int study_create_open(struct store *st, const char *path, unsigned flags,
		      struct err *e)
{
	return store_open(st, path, STORE_CREATE | flags, study_upgrade, e);
}

void study_remove_files(const char *path, unsigned flags)
{
	static const char *const suffix[] = { "", "-wal", "-shm" };
	struct buf p = BUF_INIT;
	size_t i;

	if ((flags & STORE_PRIVILEGED) && priv_raise() < 0)
		return;
	for (i = 0; i < 3; i++) {
		buf_reset(&p);
		buf_addf(&p, "%s%s", path, suffix[i]);
		unlink(p.ptr);
	}
	if (flags & STORE_PRIVILEGED)
		priv_lower();
	buf_release(&p);
}

int study_init(struct store *st, const char *title,
	       const char *codebook_path, struct err *e)
{
	struct codebook cb = CODEBOOK_INIT;
	struct buf json = BUF_INIT;
	char *user = member_os_user();
	char now[32], salt_sha[SHA256_HEX_LEN + 1];
	struct buf detail = BUF_INIT;
	sqlite3_stmt *s = NULL;
	int ret = -1;

	if (codebook_path) {
		if (buf_read_file(&json, codebook_path) < 0) {
			err_set(e, ERR_IO, "%s: cannot read the codebook",
				codebook_path);
			goto out;
		}
		if (codebook_parse(&cb, json.ptr, json.len, codebook_path,
				   e) < 0)
			goto out;
	}
	if (store_begin(st, e) < 0)
		goto out;
	store_now(now);
	if (store_meta_set(st, "title", title ? title : "", e) < 0 ||
	    store_meta_set(st, "created_at", now, e) < 0 ||
	    store_meta_set(st, "blind_adjudication", "1", e) < 0)
		goto fail;
	{
		/* the secret that orders "Coder 1" and "Coder 2" per item */
		unsigned char raw[16];
		struct buf salt = BUF_INIT;
		FILE *f = fopen("/dev/urandom", "rb");
		size_t i;
		int rc;

		if (!f || fread(raw, 1, sizeof(raw), f) != sizeof(raw)) {
			if (f)
				fclose(f);
			err_set(e, ERR_IO, "/dev/urandom: cannot read");
			goto fail;
		}
		fclose(f);
		for (i = 0; i < sizeof(raw); i++)
			buf_addf(&salt, "%02x", raw[i]);
		rc = store_meta_set(st, "coder_salt", salt.ptr, e);
		/* the log keeps its digest, not the secret */
		replay_sha256_hex(salt.ptr, salt.len, salt_sha);
		buf_release(&salt);
		if (rc < 0)
			goto fail;
	}
	s = store_prepare(st, "INSERT INTO members (name, role, active, "
			  "added_at) VALUES (?, 'owner', 1, ?)", e);
	if (!s)
		goto fail;
	sqlite3_bind_text(s, 1, user, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, now, -1, SQLITE_STATIC);
	if (store_step(st, s, "adding the owner", e) < 0)
		goto fail;
	audit_detail_int(&detail, "member", sqlite3_last_insert_rowid(st->db));
	audit_detail_str(&detail, "salt", salt_sha);
	if (audit_write_detail(st, user, NULL, "study.init", 0, NULL, NULL,
			       title, audit_detail_end(&detail), e) < 0)
		goto fail;
	if (codebook_path && study_store_codebook(st, &cb, json.ptr,
						  codebook_path, user, NULL,
						  e) < 0)
		goto fail;
	ret = store_commit(st, e);
	goto out;
fail:
	store_rollback(st);
out:
	sqlite3_finalize(s);
	codebook_release(&cb);
	buf_release(&json);
	buf_release(&detail);
	free(user);
	return ret;
}

int study_create_in(struct store *st, const char *path, unsigned flags,
		    const char *title, const char *codebook_path,
		    struct err *e)
{
	if (study_create_open(st, path, flags, e) < 0)
		return -1;
	if (study_init(st, title, codebook_path, e) < 0) {
		store_close(st);
		study_remove_files(path, flags);
		return -1;
	}
	return 0;
}

int study_facts_read(struct store *st, struct study_facts *f, struct err *e)
{
	sqlite3_stmt *s;
	int rc;

	memset(f, 0, sizeof(*f));
	s = store_prepare(st, "SELECT (SELECT group_concat(name, ',') FROM "
			  "(SELECT name FROM members WHERE role = 'owner' "
			  "AND active ORDER BY id)), (SELECT max(at) FROM "
			  "audit), (SELECT count(*) FROM items), (SELECT "
			  "count(*) FROM members WHERE active)", e);
	if (!s)
		return -1;
	rc = store_step(st, s, "reading the study", e);
	if (rc > 0) {
		const char *owner = (const char *)sqlite3_column_text(s, 0);
		const char *last = (const char *)sqlite3_column_text(s, 1);

		f->owners = xstrdup(owner ? owner : "");
		f->last_activity = xstrdup(last ? last : "");
		f->items = sqlite3_column_int64(s, 2);
		f->members = sqlite3_column_int64(s, 3);
	}
	sqlite3_finalize(s);
	return rc < 0 ? -1 : 0;
}

void study_facts_release(struct study_facts *f)
{
	if (!f)
		return;
	free(f->owners);
	free(f->last_activity);
	memset(f, 0, sizeof(*f));
}
