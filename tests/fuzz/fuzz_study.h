/* SPDX-License-Identifier: MIT */
/*
 * A small study in memory for the harnesses that feed a sheet or an
 * answer to core/: a codebook of three dimensions, an owner (the account
 * running the harness), two annotators and an adjudicator, three items.
 * Built once per process; each input then runs inside a transaction the
 * harness rolls back (fuzz_study_begin() / fuzz_study_end()), so every
 * input meets the same study.
 */
#ifndef BUGCODER_FUZZ_STUDY_H
#define BUGCODER_FUZZ_STUDY_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/study/codebook.h"
#include "core/base/err.h"
#include "core/study/member.h"
#include "core/store/store.h"

struct fuzz_study {
	struct store st;
	struct codebook cb;
	struct actor owner, alice, carol;
};

static const char fuzz_codebook[] =
	"{\"name\": \"fuzz\", \"version\": \"1.0\", \"dimensions\": ["
	"{\"key\": \"symptom\", \"name\": \"Symptom\", \"select\": \"one\","
	" \"required\": true, \"codes\": ["
	"  {\"key\": \"crash\", \"name\": \"Crash\", \"definition\": \"d\"},"
	"  {\"key\": \"hang\", \"name\": \"Hang\", \"definition\": \"d\"}]},"
	"{\"key\": \"root_cause\", \"name\": \"Root cause\","
	" \"select\": \"many\", \"required\": false, \"codes\": ["
	"  {\"key\": \"memory\", \"name\": \"Memory\", \"definition\": \"d\"},"
	"  {\"key\": \"concurrency\", \"name\": \"Concurrency\","
	"   \"definition\": \"d\"},"
	"  {\"key\": \"other\", \"name\": \"Other\", \"definition\": \"d\"}]},"
	"{\"key\": \"stage\", \"name\": \"Stage\", \"select\": \"one\","
	" \"required\": false,"
	" \"codes\": ["
	"  {\"key\": \"training\", \"name\": \"Training\","
	"   \"definition\": \"d\"}]}]}";

static struct fuzz_study *fuzz_study(void)
{
	static struct fuzz_study f;
	static int init;
	struct err e = ERR_INIT;
	sqlite3_stmt *s;
	char *me;
	int i;

	if (init)
		return &f;
	setenv("BUGCODER_NOW", "2024-06-01T00:00:00Z", 1);
	if (store_open_memory(&f.st, &e) < 0 ||
	    codebook_parse(&f.cb, fuzz_codebook, strlen(fuzz_codebook),
			   "fuzz", &e) < 0)
		goto fail;
	me = member_os_user();
	s = store_prepare(&f.st, "INSERT INTO members (name, role, added_at) "
			  "VALUES (?, 'owner', 'x')", &e);
	if (!s)
		goto fail;
	sqlite3_bind_text(s, 1, me, -1, SQLITE_TRANSIENT);
	free(me);
	if (sqlite3_step(s) != SQLITE_DONE)
		abort();
	sqlite3_finalize(s);
	if (member_resolve(&f.st, NULL, &f.owner, &e) < 0 ||
	    member_add(&f.st, &f.owner, "alice", ROLE_ANNOTATOR, &e) < 0 ||
	    member_add(&f.st, &f.owner, "bob", ROLE_ANNOTATOR, &e) < 0 ||
	    member_add(&f.st, &f.owner, "carol", ROLE_ADJUDICATOR, &e) < 0 ||
	    member_resolve(&f.st, "alice", &f.alice, &e) < 0 ||
	    member_resolve(&f.st, "carol", &f.carol, &e) < 0)
		goto fail;
	for (i = 1; i <= 3; i++) {
		s = store_prepare(&f.st, "INSERT INTO items (repo, number, "
				  "title, imported_at) VALUES ('o/r', ?, 't', "
				  "'x')", &e);
		if (!s)
			goto fail;
		sqlite3_bind_int(s, 1, i);
		if (sqlite3_step(s) != SQLITE_DONE)
			abort();
		sqlite3_finalize(s);
	}
	init = 1;
	return &f;
fail:
	fprintf(stderr, "fuzz study: %s\n", e.msg);
	abort();
}

/* A transaction around one input: whatever it leaves is rolled back. */
static void fuzz_study_begin(struct fuzz_study *f)
{
	struct err e = ERR_INIT;

	if (store_begin(&f->st, &e) < 0)
		abort();
}

/* After the input: no transaction of its own may be left open. */
static void fuzz_study_end(struct fuzz_study *f)
{
	store_rollback(&f->st);
	if (!sqlite3_get_autocommit(f->st.db))
		abort();
}

#endif
