/* SPDX-License-Identifier: MIT */
/*
 * replay_actions: what each audited action did to the study, done again
 * to the replay's r_ tables: the readers of an audit row's fields and,
 * per action in actions[], a handler or the fields its one statement
 * binds (the statements' SQL is in replay_sql.c).  A new writer adds its
 * handler or its fields here.  See replay.c for the whole check.
 */
#include "core/study/replay.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/study/access.h"
#include "core/study/adjudicate.h"
#include "core/base/buf.h"
#include "core/study/evolve.h"
#include "core/study/proposal.h"
#include "core/study/item.h"
#include "core/store/schema.sql.h"
#include "core/study/replay_int.h"

/* A row that cannot be replayed: the check fails there.  Returns 1 (stop,
 * nothing wrong with reading the study). */
int replay_bad(struct replay *rp, const char *fmt, ...)
{
	char why[300];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	rp->c->failed = REPLAY_STATE;
	/* why may name members or codes: the owner's to read */
	snprintf(rp->c->what, sizeof(rp->c->what), "audit row %lld (%s) "
		 "cannot be replayed%s%s", rp->row ? rp->row->id : 0,
		 rp->row && rp->row->action ? rp->row->action : "?",
		 rp->c->told_all ? ": " : "", rp->c->told_all ? why : "");
	return 1;
}

static int meta_set(struct replay *rp, const char *key, const char *value)
{
	sqlite3_stmt *s = replay_stmt(rp, S_META);

	if (!s)
		return -1;
	replay_bind_text(s, 1, key);
	replay_bind_text(s, 2, value);
	return replay_run(rp, s);
}

/* The replay's current codebook version, after a change of it. */
int replay_load_version(struct replay *rp)
{
	sqlite3_stmt *s;
	int rc;

	s = store_prepare(rp->st, "SELECT version FROM r_codebooks WHERE "
			  "current ORDER BY id DESC LIMIT 1", rp->e);
	if (!s)
		return -1;
	rc = store_step(rp->st, s, "replaying the audit log", rp->e);
	free(rp->version);
	rp->version = rc > 0 ? xstrdup((const char *)
				       sqlite3_column_text(s, 0)) : NULL;
	sqlite3_finalize(s);
	return rc < 0 ? -1 : 0;
}

/* ---- the actions -------------------------------------------------------- */

static int do_init(struct replay *rp)
{
	const struct row *r = rp->row;
	sqlite3_stmt *s;
	long long id;
	int rc;

	if ((rc = replay_jint(rp, "member", &id)))
		return rc;
	if (!(s = replay_stmt(rp, S_OWNER)))
		return -1;
	sqlite3_bind_int64(s, 1, id);
	replay_bind_text(s, 2, r->actor);
	replay_bind_text(s, 3, r->at);
	if ((rc = replay_run(rp, s)) ||
	    (rc = meta_set(rp, "title", r->new_ ? r->new_ : "")) ||
	    (rc = meta_set(rp, "created_at", r->at)) ||
	    (rc = meta_set(rp, "blind_adjudication", "1")))
		return rc;
	return meta_set(rp, "coder_salt", replay_jstr(r, "salt"));
}

static int do_blind(struct replay *rp)
{
	return meta_set(rp, "blind_adjudication", rp->row->new_);
}

static int do_codebook(struct replay *rp)
{
	const struct row *r = rp->row;
	sqlite3_stmt *s;
	long long id;
	int rc;

	if ((rc = replay_jint(rp, "id", &id)))
		return rc;
	if (!replay_jstr(r, "name") || !replay_jstr(r, "version") ||
	    !replay_jstr(r, "sha256"))
		return replay_bad(rp, "its detail lacks the codebook's name, version "
			   "or sha256");
	if (!(s = replay_stmt(rp, S_CB_UNCURRENT)))
		return -1;
	if ((rc = replay_run(rp, s)))
		return rc;
	if (!(s = replay_stmt(rp, S_CB_ADD)))
		return -1;
	sqlite3_bind_int64(s, 1, id);
	replay_bind_text(s, 2, replay_jstr(r, "name"));
	replay_bind_text(s, 3, replay_jstr(r, "version"));
	replay_bind_text(s, 4, replay_jstr(r, "sha256"));
	replay_bind_text(s, 5, replay_jstr(r, "source"));
	replay_bind_text(s, 6, r->at);
	replay_bind_text(s, 7, r->actor);
	if ((rc = replay_run(rp, s)))
		return rc;
	return replay_load_version(rp);
}

static int do_member_add(struct replay *rp)
{
	const struct row *r = rp->row;
	const char *eq = r->new_ ? strrchr(r->new_, '=') : NULL;
	char *name;
	sqlite3_stmt *s;
	long long id;
	int rc, machine;

	if (!eq || eq == r->new_)
		return replay_bad(rp, "its new value is not NAME=ROLE");
	if ((rc = replay_jint(rp, "id", &id)))
		return rc;
	machine = !strcmp(eq + 1, "machine");
	if (!(s = replay_stmt(rp, S_MEMBER_ADD)))
		return -1;
	name = xstrndup(r->new_, (size_t)(eq - r->new_));
	sqlite3_bind_int64(s, 1, id);
	sqlite3_bind_text(s, 2, name, -1, SQLITE_TRANSIENT);
	replay_bind_text(s, 3, machine ? "annotator" : eq + 1);
	replay_bind_text(s, 4, r->at);
	sqlite3_bind_int(s, 5, machine);
	free(name);
	return replay_run(rp, s);
}

static int do_round_create(struct replay *rp)
{
	const struct row *r = rp->row;
	cJSON *ann = cJSON_GetObjectItemCaseSensitive(r->detail,
						       "annotators"), *el;
	const char *items = replay_jstr(r, "items");
	const char *seed = replay_jstr(r, "seed");
	long long id, *ids = NULL;
	size_t n, i;
	sqlite3_stmt *s;
	int rc;

	if ((rc = replay_jint(rp, "id", &id)))
		return rc;
	if (!cJSON_IsArray(ann) || !items || replay_parse_ids(items, &ids, &n) < 0)
		return replay_bad(rp, "its detail lacks the annotators or items");
	/* a screening round's items are screened (screen_assignments, not
	 * replayed), never coded in it */
	if (replay_jstr(r, "kind") && !strcmp(replay_jstr(r, "kind"), "screen"))
		n = 0;
	if (!(s = replay_stmt(rp, S_ROUND_ADD)))
		goto fail;
	sqlite3_bind_int64(s, 1, id);
	replay_bind_text(s, 2, r->new_);
	replay_bind_text(s, 3, replay_jstr(r, "spec"));
	if (seed)
		sqlite3_bind_int64(s, 4, strtoll(seed, NULL, 10));
	else
		sqlite3_bind_null(s, 4);
	replay_bind_text(s, 5, replay_jstr(r, "stratify"));
	replay_bind_text(s, 6, r->at);
	replay_bind_text(s, 7, replay_row_member(r));
	if ((rc = replay_run(rp, s)))
		goto out;
	cJSON_ArrayForEach(el, ann) {
		if (!cJSON_IsNumber(el)) {
			rc = replay_bad(rp, "an annotator is not a member id");
			goto out;
		}
		if (!(s = replay_stmt(rp, S_ROUND_ANN)))
			goto fail;
		sqlite3_bind_int64(s, 1, id);
		sqlite3_bind_int64(s, 2, (long long)el->valuedouble);
		if ((rc = replay_run(rp, s)))
			goto out;
	}
	for (i = 0; i < n; i++) {
		if (!(s = replay_stmt(rp, S_ASSIGN)))
			goto fail;
		sqlite3_bind_int64(s, 1, id);
		sqlite3_bind_int64(s, 2, ids[i]);
		sqlite3_bind_int64(s, 3, (long long)i);
		if ((rc = replay_run(rp, s)))
			goto out;
	}
	rc = 0;
	goto out;
fail:
	rc = -1;
out:
	free(ids);
	return rc;
}

/* round.add: an item in no round put into an open one (labels import
 * --round); a screening round's items are not replayed. */
static int do_round_add(struct replay *rp)
{
	const struct row *r = rp->row;
	const char *kind = replay_jstr(r, "kind");
	long long id, pos;
	sqlite3_stmt *s;
	int rc;

	if (kind && !strcmp(kind, "screen"))
		return 0;
	if ((rc = replay_jint(rp, "round", &id)) ||
	    (rc = replay_jint(rp, "position", &pos)))
		return rc;
	if (!(s = replay_stmt(rp, S_ASSIGN)))
		return -1;
	sqlite3_bind_int64(s, 1, id);
	sqlite3_bind_int64(s, 2, r->item_id);
	sqlite3_bind_int64(s, 3, pos);
	return replay_run(rp, s);
}

static int do_round_close(struct replay *rp)
{
	static const enum stmt_id freeze[] = { S_FREEZE1, S_FREEZE2,
					       S_FREEZE3 };
	sqlite3_stmt *s;
	long long id;
	size_t i;
	int rc;

	if ((rc = replay_jint(rp, "round", &id)))
		return rc;
	if (!(s = replay_stmt(rp, S_CLOSE)))
		return -1;
	sqlite3_bind_int64(s, 1, id);
	replay_bind_text(s, 2, rp->row->at);
	replay_bind_text(s, 3, replay_row_member(rp->row));
	if ((rc = replay_run(rp, s)))
		return rc;
	if (replay_jstr(rp->row, "kind") &&
	    !strcmp(replay_jstr(rp->row, "kind"), "screen"))
		return 0;
	for (i = 0; i < 3; i++) {
		if (!(s = replay_stmt(rp, freeze[i])))
			return -1;
		sqlite3_bind_int64(s, 1, id);
		if (i == 0)
			replay_bind_text(s, 2, rp->row->at);
		if ((rc = replay_run(rp, s)))
			return rc;
	}
	return 0;
}

static int do_round_reopen(struct replay *rp)
{
	static const enum stmt_id forget[] = { S_REOPEN, S_FORGET1, S_FORGET2,
					       S_FORGET3 };
	sqlite3_stmt *s;
	long long id;
	size_t i;
	int rc;

	if ((rc = replay_jint(rp, "round", &id)))
		return rc;
	for (i = 0; i < 4; i++) {
		if (!(s = replay_stmt(rp, forget[i])))
			return -1;
		sqlite3_bind_int64(s, 1, id);
		if ((rc = replay_run(rp, s)))
			return rc;
	}
	return 0;
}

/* item, member and dimension of the row into an item-keyed statement */
static int bind_imd(struct replay *rp, sqlite3_stmt *s, int with_dim)
{
	long long mid;
	int rc;

	if (!rp->row->item_id)
		return replay_bad(rp, "it names no item");
	if ((rc = replay_member_id(rp, replay_row_member(rp->row), &mid)))
		return rc;
	sqlite3_bind_int64(s, 1, rp->row->item_id);
	sqlite3_bind_int64(s, 2, mid);
	if (with_dim)
		replay_bind_text(s, 3, rp->row->dimension);
	return 0;
}

static int do_label(struct replay *rp)
{
	const struct row *r = rp->row;
	sqlite3_stmt *s;
	double pid;
	char *codes, *tok, *save = NULL;
	int rc;

	if (!r->dimension)
		return replay_bad(rp, "it names no dimension");
	if ((rc = replay_jnum(rp, "proposal", 0, &pid)))
		return rc;
	if (!(s = replay_stmt(rp, S_LABEL_DEL)))
		return -1;
	if ((rc = bind_imd(rp, s, 1)) || (rc = replay_run(rp, s)))
		return rc;
	if (!r->new_)
		return 0;
	codes = xstrdup(r->new_);
	for (tok = strtok_r(codes, ";", &save); tok;
	     tok = strtok_r(NULL, ";", &save)) {
		if (!(s = replay_stmt(rp, S_LABEL_ADD))) {
			rc = -1;
			break;
		}
		if ((rc = bind_imd(rp, s, 1)))
			break;
		sqlite3_bind_text(s, 4, tok, -1, SQLITE_TRANSIENT);
		replay_bind_text(s, 5, rp->version);
		if (pid && !strcmp(tok, "other"))
			sqlite3_bind_int64(s, 6, (long long)pid);
		else
			sqlite3_bind_null(s, 6);
		replay_bind_text(s, 7, r->at);
		if ((rc = replay_run(rp, s)))
			break;
	}
	free(codes);
	return rc;
}

/* Is `code` one of the ';'-joined `codes` (may be NULL)? */
static int among(const char *codes, const char *code)
{
	size_t n = strlen(code);
	const char *p = codes;

	while (p && *p) {
		const char *end = strchr(p, ';');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (len == n && !strncmp(p, code, n))
			return 1;
		p = end ? end + 1 : NULL;
	}
	return 0;
}

/* recode.queue: a split took the coder's label on the old code away (to
 * be recoded); old and new are the dimension's codes before and after. */
static int do_recode_queue(struct replay *rp)
{
	const struct row *r = rp->row;
	char *codes, *tok, *save = NULL;
	sqlite3_stmt *s;
	int rc = 0;

	if (!r->dimension)
		return replay_bad(rp, "it names no dimension");
	if (!r->old)
		return 0;
	codes = xstrdup(r->old);
	for (tok = strtok_r(codes, ";", &save); tok && !rc;
	     tok = strtok_r(NULL, ";", &save)) {
		if (among(r->new_, tok))
			continue;
		if (!(s = replay_stmt(rp, S_RECODE_LABEL))) {
			rc = -1;
			break;
		}
		if ((rc = bind_imd(rp, s, 1)))
			break;
		sqlite3_bind_text(s, 4, tok, -1, SQLITE_TRANSIENT);
		rc = replay_run(rp, s);
	}
	free(codes);
	return rc;
}

static int do_memo(struct replay *rp)
{
	sqlite3_stmt *s = replay_stmt(rp, rp->row->new_ ? S_MEMO_SET :
				      S_MEMO_DEL);
	int rc;

	if (!s)
		return -1;
	if ((rc = bind_imd(rp, s, 0)))
		return rc;
	if (rp->row->new_) {
		replay_bind_text(s, 3, rp->row->new_);
		replay_bind_text(s, 4, rp->row->at);
	}
	return replay_run(rp, s);
}

static int do_flag(struct replay *rp)
{
	int on = rp->row->new_ && !strcmp(rp->row->new_, "on");
	sqlite3_stmt *s = replay_stmt(rp, on ? S_FLAG_ON : S_FLAG_OFF);
	int rc;

	if (!s)
		return -1;
	if ((rc = bind_imd(rp, s, 1)))
		return rc;
	if (on)
		replay_bind_text(s, 4, rp->row->at);
	return replay_run(rp, s);
}

/* core/study/evolve.c's move_labels(): dim=from to dim=to, of proposal `pid`
 * only when pid > 0. */
static int move_labels(struct replay *rp, const char *dim, const char *from,
		       const char *to, long long pid)
{
	int i, rc;

	for (i = 0; i < 2; i++) {
		sqlite3_stmt *s = replay_stmt(rp, pid ?
					      (i ? S_MOVE_P_DEL : S_MOVE_P) :
					      (i ? S_MOVE_ALL_DEL :
					       S_MOVE_ALL));

		if (!s)
			return -1;
		replay_bind_text(s, 1, dim);
		replay_bind_text(s, 2, from);
		if (!i)
			replay_bind_text(s, 3, to);
		if (pid)
			sqlite3_bind_int64(s, 4, pid);
		if ((rc = replay_run(rp, s)))
			return rc;
	}
	return 0;
}

/* Proposal `id`'s key into *key (owned): 0, 1 after replay_bad(), -1. */
static int proposal_key(struct replay *rp, long long id, char **key)
{
	sqlite3_stmt *s = replay_stmt(rp, S_PROPOSAL);
	int rc;

	*key = NULL;
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	rc = store_step(rp->st, s, "replaying the audit log", rp->e);
	if (rc > 0)
		*key = xstrdup((const char *)sqlite3_column_text(s, 1));
	sqlite3_reset(s);
	if (rc < 0)
		return -1;
	return rc ? 0 : replay_bad(rp, "no proposal %lld by then", id);
}

static int decide(struct replay *rp, long long id, const char *status,
		  const char *code)
{
	sqlite3_stmt *s = replay_stmt(rp, S_DECIDE);

	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	replay_bind_text(s, 2, status);
	replay_bind_text(s, 3, code);
	replay_bind_text(s, 4, replay_row_member(rp->row));
	replay_bind_text(s, 5, rp->row->at);
	return replay_run(rp, s);
}

static int do_proposal_accept(struct replay *rp)
{
	long long id;
	char *key = NULL;
	int rc;

	if ((rc = replay_jint(rp, "proposal", &id)) ||
	    (rc = proposal_key(rp, id, &key)))
		return rc;
	rc = move_labels(rp, rp->row->dimension, "other", key, id);
	if (!rc)
		rc = decide(rp, id, "accepted", key);
	free(key);
	return rc;
}

static int do_proposal_map(struct replay *rp)
{
	const char *code = replay_jstr(rp->row, "code");
	long long id;
	int rc;

	if ((rc = replay_jint(rp, "proposal", &id)))
		return rc;
	if (!code)
		return replay_bad(rp, "its detail has no code");
	if ((rc = move_labels(rp, rp->row->dimension, "other", code, id)))
		return rc;
	return decide(rp, id, "mapped", code);
}

static int do_proposal_reopen(struct replay *rp)
{
	sqlite3_stmt *s;
	long long id;
	int rc;

	if ((rc = replay_jint(rp, "proposal", &id)))
		return rc;
	if ((rc = move_labels(rp, rp->row->dimension, rp->row->old, "other",
			      id)))
		return rc;
	if (!(s = replay_stmt(rp, S_UNDECIDE)))
		return -1;
	sqlite3_bind_int64(s, 1, id);
	return replay_run(rp, s);
}

/* core/study/evolve.c's apply_map(): the labels and the resolutions'
 * codes. */
static int do_codebook_map(struct replay *rp)
{
	const char *to = replay_jstr(rp->row, "to");
	const char *dim = rp->row->dimension, *from = rp->row->old;
	sqlite3_stmt *s, *u;
	int rc;

	if (!to || !dim || !from)
		return replay_bad(rp, "it lacks the dimension, the code or where it "
			   "went");
	if ((rc = move_labels(rp, dim, from, to, 0)))
		return rc;
	s = store_prepare(rp->st, replay_sql[S_RES_OF_DIM], rp->e);
	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, dim, -1, SQLITE_TRANSIENT);
	while ((rc = store_step(rp->st, s, "replaying the audit log",
				rp->e)) > 0) {
		char *v[3];
		int i, hit = 0, done = 0;

		for (i = 0; i < 3; i++) {
			const char *t = (const char *)
					sqlite3_column_text(s, i + 1);

			v[i] = t ? code_list_replace(t, from, to) : NULL;
			hit |= v[i] != NULL;
			if (!v[i] && t)
				v[i] = xstrdup(t);
		}
		if (hit && !(u = replay_stmt(rp, S_RES_SET_CODES))) {
			done = -1;
		} else if (hit) {
			sqlite3_bind_int64(u, 1, sqlite3_column_int64(s, 0));
			sqlite3_bind_text(u, 2, dim, -1, SQLITE_TRANSIENT);
			for (i = 0; i < 3; i++)
				replay_bind_text(u, i + 3, v[i]);
			done = replay_run(rp, u);
		}
		for (i = 0; i < 3; i++)
			free(v[i]);
		if (done) {
			rc = done;
			break;
		}
	}
	sqlite3_finalize(s);
	return rc;
}

static int do_evidence_add(struct replay *rp)
{
	static const char *const nums[] = { "old_side", "comment", "from",
					    "to" };
	const struct row *r = rp->row;
	sqlite3_stmt *s;
	long long id, mid, v;
	size_t i;
	int rc;

	if ((rc = replay_jint(rp, "id", &id)))
		return rc;
	if (!replay_jstr(r, "pane") || !replay_jstr(r, "quote"))
		return replay_bad(rp, "its detail lacks the pane or the quote");
	if (!r->item_id)
		return replay_bad(rp, "it names no item");
	if ((rc = replay_member_id(rp, replay_row_member(r), &mid)))
		return rc;
	if (!(s = replay_stmt(rp, S_EVIDENCE_ADD)))
		return -1;
	sqlite3_bind_int64(s, 1, id);
	sqlite3_bind_int64(s, 2, r->item_id);
	sqlite3_bind_int64(s, 3, mid);
	replay_bind_text(s, 4, r->dimension);
	replay_bind_text(s, 5, replay_jstr(r, "pane"));
	replay_bind_text(s, 6, replay_jstr(r, "path"));
	for (i = 0; i < 4; i++) {
		if ((rc = replay_jint(rp, nums[i], &v)))
			return rc;
		sqlite3_bind_int64(s, 7 + (int)i, v);
	}
	replay_bind_text(s, 11, replay_jstr(r, "quote"));
	replay_bind_text(s, 12, r->at);
	/* a pull request's text: its number (schema 11 on) */
	if (!strcmp(replay_jstr(r, "pane"), "pr")) {
		if ((rc = replay_jint(rp, "pr", &v)))
			return rc;
		sqlite3_bind_int64(s, 13, v);
	} else {
		sqlite3_bind_null(s, 13);
	}
	return replay_run(rp, s);
}

/* ---- actions that bind fields of their row to one statement ------------ */

/* What a field of a bound action reads from its row. */
enum field {
	F_END,		/* the end of the list */
	F_ITEM_DIM,	/* no value: the row must name an item and a
			   dimension */
	F_ITEM,		/* the row's item, which it must name */
	F_ITEM_ANY,	/* the row's item id as it is (0: none) */
	F_ITEM_OR_NULL,	/* the row's item, or NULL when it names none */
	F_MEMBER,	/* the id of the member the change is by (or for) */
	F_DIM, F_OLD, F_NEW, F_AT,	/* the row's text fields */
	F_STR,		/* the detail's string `key` (NULL when absent) */
	F_STR_NEED,	/* the detail's string `key`, which it must have */
	F_INT,		/* the detail's number `key`, which it must have */
	F_NUM,		/* the same, bound as a real */
};

/* The fields of one action: at most MAX_BINDS - 1, then F_END. */
#define MAX_BINDS 14

struct bind {
	enum field f;
	int at;			/* the parameter it binds; 0: none */
	const char *key;	/* F_STR, F_STR_NEED, F_INT, F_NUM */
};

/* A field read: text for F_DIM ... F_STR_NEED, else a number. */
struct value {
	const char *text;
	long long i;
	double d;
	int null;
};

/* Field `b` of the row into *v: 0, 1 after replay_bad(), or -1. */
static int read_field(struct replay *rp, const struct bind *b,
		      struct value *v)
{
	const struct row *r = rp->row;

	memset(v, 0, sizeof(*v));
	switch (b->f) {
	case F_ITEM_DIM:
		if (!r->item_id || !r->dimension)
			return replay_bad(rp, "it names no item or dimension");
		return 0;
	case F_ITEM:
		if (!r->item_id)
			return replay_bad(rp, "it names no item");
		v->i = r->item_id;
		return 0;
	case F_ITEM_ANY:
	case F_ITEM_OR_NULL:
		v->i = r->item_id;
		v->null = b->f == F_ITEM_OR_NULL && !r->item_id;
		return 0;
	case F_MEMBER:
		return replay_member_id(rp, replay_row_member(r), &v->i);
	case F_DIM:
		v->text = r->dimension;
		return 0;
	case F_OLD:
		v->text = r->old;
		return 0;
	case F_NEW:
		v->text = r->new_;
		return 0;
	case F_AT:
		v->text = r->at;
		return 0;
	case F_STR:
	case F_STR_NEED:
		v->text = replay_jstr(r, b->key);
		if (!v->text && b->f == F_STR_NEED)
			return replay_bad(rp, "its detail has no %s", b->key);
		return 0;
	case F_INT:
		return replay_jint(rp, b->key, &v->i);
	case F_NUM:
		return replay_jnum(rp, b->key, 1, &v->d);
	case F_END:
		break;
	}
	return 0;
}

static void bind_value(sqlite3_stmt *s, const struct bind *b,
		       const struct value *v)
{
	if (!b->at)
		return;
	if (b->f >= F_DIM && b->f <= F_STR_NEED)
		replay_bind_text(s, b->at, v->text);
	else if (b->f == F_NUM)
		sqlite3_bind_double(s, b->at, v->d);
	else if (v->null)
		sqlite3_bind_null(s, b->at);
	else
		sqlite3_bind_int64(s, b->at, v->i);
}

/* Read the fields `b` (in order: the first missing one is the one the
 * check names), bind them to statement `id` and run it.  The statement
 * is taken first when `stmt_first`. */
static int run_bound(struct replay *rp, enum stmt_id id, int stmt_first,
		     const struct bind *b)
{
	struct value v[MAX_BINDS];
	sqlite3_stmt *s = NULL;
	int i, rc;

	if (stmt_first && !(s = replay_stmt(rp, id)))
		return -1;
	for (i = 0; b[i].f != F_END; i++)
		if ((rc = read_field(rp, &b[i], &v[i])))
			return rc;
	if (!stmt_first && !(s = replay_stmt(rp, id)))
		return -1;
	for (i = 0; b[i].f != F_END; i++)
		bind_value(s, &b[i], &v[i]);
	return replay_run(rp, s);
}

/* The table's entries, with every field named (a field left out is 0):
 * a handler, or a statement and the fields it binds. */
#define HANDLER(name_, fn_) { .name = name_, .fn = fn_ }
#define BOUND(name_, stmt_, first_, ...) \
	{ .name = name_, .stmt = stmt_, .stmt_first = first_, \
	  .binds = { __VA_ARGS__ } }
#define AT(f_, at_) { .f = f_, .at = at_ }
#define KEY(f_, at_, key_) { .f = f_, .at = at_, .key = key_ }

/* The calibration gate of a round (round.gate, round.gate-forced). */
#define ROUND_GATE KEY(F_INT, 1, "round"), KEY(F_INT, 2, "after"), \
	KEY(F_NUM, 3, "min_kappa"), KEY(F_INT, 4, "on_lower"), \
	KEY(F_INT, 5, "forced")

/* Every action that changes what the replay keeps: a handler, or the
 * fields one statement binds (`binds`, read in this order).  Others
 * (`import`, `codebook.revert`, whose changes have rows of their own)
 * change nothing here. */
static const struct action {
	const char *name;
	int (*fn)(struct replay *rp);	/* NULL: bind and run `stmt` */
	enum stmt_id stmt;
	int stmt_first;		/* the statement is taken before the fields
				   are read */
	struct bind binds[MAX_BINDS];
} actions[] = {
	HANDLER("study.init", do_init),
	HANDLER("blind_adjudication", do_blind),
	HANDLER("codebook.load", do_codebook),
	HANDLER("codebook.map", do_codebook_map),
	HANDLER("member.add", do_member_add),
	BOUND("member.remove", S_MEMBER_REMOVE, 1, AT(F_OLD, 1)),
	HANDLER("round.create", do_round_create),
	BOUND("round.gate", S_GATE, 0, ROUND_GATE),
	BOUND("round.gate-forced", S_GATE, 0, ROUND_GATE),
	BOUND("round.move", S_MOVE, 1, AT(F_OLD, 1), AT(F_ITEM_ANY, 2)),
	HANDLER("round.add", do_round_add),
	HANDLER("recode.queue", do_recode_queue),
	/* a resolution that chose a split code, taken back */
	BOUND("recode.resolution", S_RECODE_RES, 0,
	        AT(F_ITEM_DIM, 0), AT(F_ITEM_ANY, 1), AT(F_DIM, 2)),
	HANDLER("round.close", do_round_close),
	HANDLER("round.reopen", do_round_reopen),
	HANDLER("label", do_label),
	BOUND("submit", S_SUBMIT, 1,
	        AT(F_ITEM, 1), AT(F_MEMBER, 2), AT(F_NEW, 3)),
	HANDLER("memo", do_memo),
	HANDLER("flag", do_flag),
	BOUND("propose", S_PROPOSE, 0,
	        KEY(F_INT, 1, "id"), AT(F_MEMBER, 7), AT(F_DIM, 2), AT(F_NEW, 3),
	          KEY(F_STR, 4, "name"), KEY(F_STR, 5, "definition"),
	          AT(F_ITEM_OR_NULL, 6), AT(F_AT, 8)),
	HANDLER("proposal.accept", do_proposal_accept),
	HANDLER("proposal.map", do_proposal_map),
	HANDLER("proposal.reopen", do_proposal_reopen),
	BOUND("resolve", S_RESOLVE, 0,
	        AT(F_ITEM_DIM, 0), KEY(F_STR_NEED, 4, "rationale"), AT(F_MEMBER, 10),
	          AT(F_ITEM_ANY, 1), AT(F_DIM, 2), AT(F_NEW, 3),
	          KEY(F_STR, 5, "cause"), KEY(F_STR, 6, "coder1"),
	          KEY(F_STR, 7, "coder1_codes"), KEY(F_STR, 8, "coder2"),
	          KEY(F_STR, 9, "coder2_codes"), AT(F_AT, 11)),
	BOUND("settle", S_SETTLE, 1,
	        AT(F_ITEM, 1), AT(F_MEMBER, 2), AT(F_NEW, 3), AT(F_AT, 4)),
	HANDLER("evidence.add", do_evidence_add),
	BOUND("evidence.remove", S_EVIDENCE_DEL, 1, KEY(F_INT, 1, "id")),
	BOUND("machine.answer", S_MACHINE, 0,
	        KEY(F_INT, 1, "id"), KEY(F_INT, 12, "ms"), AT(F_MEMBER, 2),
	          AT(F_ITEM_ANY, 3), KEY(F_STR, 4, "command"), KEY(F_STR, 5, "model"),
	          KEY(F_STR, 6, "note"), KEY(F_STR, 7, "version"),
	          KEY(F_STR, 8, "input_sha256"), KEY(F_STR, 9, "answer_sha256"),
	          KEY(F_STR, 10, "answer_sha256"), KEY(F_STR, 11, "rationale"),
	          AT(F_AT, 13)),
};

int replay_row(struct replay *rp, const struct row *r)
{
	const struct action *a;
	size_t i;

	rp->row = r;
	if (!r->action)
		return replay_bad(rp, "it has no action");
	for (i = 0; i < sizeof(actions) / sizeof(actions[0]); i++) {
		a = &actions[i];
		if (strcmp(a->name, r->action))
			continue;
		return a->fn ? a->fn(rp) : run_bound(rp, a->stmt,
						     a->stmt_first, a->binds);
	}
	if (!strcmp(r->action, "audit.baseline"))
		return replay_bad(rp, "a second baseline");
	return 0;
}
