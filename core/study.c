/* SPDX-License-Identifier: MIT */
/*
 * study: see study.h.
 */
#include "core/study.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/priv.h"
#include "core/member.h"

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
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	if (rc == SQLITE_ROW)
		return err_set(e, ERR_INPUT, "codebook %s %s is already in the "
			       "study with other content; give this one a "
			       "new version", cb->name, cb->version);
	if (rc != SQLITE_DONE)
		return store_error(st, e, "checking the codebook version");
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
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return store_error(st, e, "saving the codebook");
	{
		struct buf v = BUF_INIT;

		buf_addf(&v, "%s %s", cb->name, cb->version);
		rc = store_audit(st, actor, for_member, "codebook.load", 0,
				 NULL, NULL, v.ptr, e);
		buf_release(&v);
	}
	return rc;
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
	rc = sqlite3_step(s);
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(s);
		if (rc == SQLITE_DONE)
			return err_set(e, ERR_NOTFOUND, "%s: the study has no "
				       "codebook yet (load one with `bugcoder "
				       "codebook update FILE`)", st->path);
		return store_error(st, e, "loading the codebook");
	}
	if (id)
		*id = sqlite3_column_int64(s, 0);
	ret = codebook_parse(cb, (const char *)sqlite3_column_text(s, 1),
			     (size_t)sqlite3_column_bytes(s, 1),
			     "stored codebook", e);
	sqlite3_finalize(s);
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
	rc = sqlite3_step(s);
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(s);
		if (rc == SQLITE_DONE)
			return err_set(e, ERR_NOTFOUND, "--version %s: the study "
				       "has held no codebook version %s", version,
				       version);
		return store_error(st, e, "loading the codebook");
	}
	ret = codebook_parse(cb, (const char *)sqlite3_column_text(s, 0),
			     (size_t)sqlite3_column_bytes(s, 0),
			     "stored codebook", e);
	sqlite3_finalize(s);
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
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(s, 0);
		const char *version = (const char *)sqlite3_column_text(s, 1);

		if (strcmp(name, cb->name) || strcmp(version, cb->version))
			ret = err_set(e, ERR_STALE, "the codebook changed to %s "
				      "%s after %s %s was read; nothing saved",
				      name, version, cb->name, cb->version);
	} else if (rc != SQLITE_DONE) {
		ret = store_error(st, e, "reading the codebook version");
	}
	sqlite3_finalize(s);
	return ret;
}

int study_create(struct store *st, const char *path, const char *title,
		 const char *codebook_path, struct err *e)
{
	return study_create_in(st, path, 0, title, codebook_path, e);
}

int study_create_in(struct store *st, const char *path, unsigned flags,
		    const char *title, const char *codebook_path,
		    struct err *e)
{
	struct codebook cb = CODEBOOK_INIT;
	struct buf json = BUF_INIT;
	char *user = member_os_user();
	char now[32];
	sqlite3_stmt *s = NULL;
	int ret = -1, created = 0;

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
	if (store_open(st, path, STORE_CREATE | flags, e) < 0)
		goto out;
	created = 1;
	if (store_begin(st, e) < 0)
		goto out;
	store_now(now);
	if (store_meta_set(st, "title", title ? title : "", e) < 0 ||
	    store_meta_set(st, "created_at", now, e) < 0 ||
	    store_meta_set(st, "blind_adjudication", "1", e) < 0)
		goto out;
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
			goto out;
		}
		fclose(f);
		for (i = 0; i < sizeof(raw); i++)
			buf_addf(&salt, "%02x", raw[i]);
		rc = store_meta_set(st, "coder_salt", salt.ptr, e);
		buf_release(&salt);
		if (rc < 0)
			goto out;
	}
	s = store_prepare(st, "INSERT INTO members (name, role, active, "
			  "added_at) VALUES (?, 'owner', 1, ?)", e);
	if (!s)
		goto out;
	sqlite3_bind_text(s, 1, user, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, now, -1, SQLITE_STATIC);
	if (sqlite3_step(s) != SQLITE_DONE) {
		store_error(st, e, "adding the owner");
		goto out;
	}
	if (store_audit(st, user, NULL, "study.init", 0, NULL, NULL, title,
			e) < 0)
		goto out;
	if (codebook_path && study_store_codebook(st, &cb, json.ptr,
						  codebook_path, user, NULL,
						  e) < 0)
		goto out;
	ret = store_commit(st, e);
out:
	sqlite3_finalize(s);
	if (ret < 0 && created) {
		store_close(st);
		if (flags & STORE_PRIVILEGED)
			priv_raise();
		unlink(path);
		/* the WAL and shared-memory files, if any were made */
		{
			struct buf p = BUF_INIT;

			buf_addf(&p, "%s-wal", path);
			unlink(p.ptr);
			buf_reset(&p);
			buf_addf(&p, "%s-shm", path);
			unlink(p.ptr);
			buf_release(&p);
		}
		if (flags & STORE_PRIVILEGED)
			priv_lower();
	}
	codebook_release(&cb);
	buf_release(&json);
	free(user);
	return ret;
}
