/* SPDX-License-Identifier: MIT */
/*
 * study: creating a study and keeping its codebook.
 *
 * A study holds every codebook version ever loaded; exactly one is
 * current.  Labels name their dimension and code by key and remember the
 * codebook version they were made under.
 */
#ifndef BUGCODER_STUDY_H
#define BUGCODER_STUDY_H

#include "core/study/codebook.h"
#include "core/base/err.h"
#include "core/store/store.h"

/* Open the study at `path` (store_open(), see store.h): an older study
 * is migrated forward, its data brought up to the new schema by
 * study_upgrade().  Returns 0, or -1 with `e` filled. */
int study_open(struct store *st, const char *path, unsigned flags,
	       struct err *e);
/* What a migration from schema version `from` (0: a new study) needs
 * filled in beyond the schema: the hashes of audit rows written before
 * the log was chained (or by a program that did not chain them), and for
 * a study older than the replay of its log, the baseline the replay
 * starts from.  In the migration's transaction.  0, or -1. */
int study_upgrade(struct store *st, int from, struct err *e);

/* Create a study file at `path` with the OS account as its owner, an
 * optional title and an optional codebook file.  On failure nothing is
 * left behind.  The store is left open in `st`. */
int study_create(struct store *st, const char *path, const char *title,
		 const char *codebook_path, struct err *e);
/* study_create() with store flags added to STORE_CREATE (for a study in
 * the server install's STUDYDIR: STORE_PRIVILEGED). */
int study_create_in(struct store *st, const char *path, unsigned flags,
		    const char *title, const char *codebook_path,
		    struct err *e);

/* The steps of study_create_in(), for a study in STUDYDIR whose group
 * privilege is given up between them (see priv.h):
 * study_create_open() creates the file with the schema (STORE_CREATE |
 * flags), study_init() makes the OS account its owner and loads the
 * codebook file (parsed here, after the drop), and study_remove_files()
 * removes the study and its -wal and -shm again after a failure (with
 * STORE_PRIVILEGED only while the group can still be raised: after the
 * drop, the keeper of priv.h does it). */
int study_create_open(struct store *st, const char *path, unsigned flags,
		      struct err *e);
int study_init(struct store *st, const char *title,
	       const char *codebook_path, struct err *e);
void study_remove_files(const char *path, unsigned flags);

/* What an administrator sees of a study (`doctor --studies`). */
struct study_facts {
	char *owners;		/* owned; "a,b", "" when none */
	char *last_activity;	/* owned; the last audit row's time, or "" */
	long long items, members;
};
int study_facts_read(struct store *st, struct study_facts *f,
		     struct err *e);
void study_facts_release(struct study_facts *f);

/* Load the current codebook into `cb` and its version row id into *id
 * (may be NULL).  ERR_NOTFOUND when the study has none yet. */
int study_codebook(struct store *st, struct codebook *cb, long long *id,
		   struct err *e);

/* Load codebook version `version` the study has held (the latest
 * stored under that version).  ERR_NOTFOUND when it never held it. */
int study_codebook_version(struct store *st, const char *version,
			   struct codebook *cb, struct err *e);

/* Is `cb` the study's current codebook version?  Meant to be called
 * inside the write transaction that uses `cb`, so that no update can
 * come in between the check and the write.  Returns 0 when it is (or the
 * study has no codebook yet), else -1 with ERR_STALE naming the current
 * version.  Versions are told apart by name and version: a study never
 * holds two different codebooks under the same name and version. */
int study_codebook_current(struct store *st, const struct codebook *cb,
			   struct err *e);

/* Store `json` (already validated into `cb`) as the new current codebook
 * version, inside the caller's transaction.  `actor` for the audit log. */
int study_store_codebook(struct store *st, const struct codebook *cb,
			 const char *json, const char *source,
			 const char *actor, const char *for_member,
			 struct err *e);

#endif
