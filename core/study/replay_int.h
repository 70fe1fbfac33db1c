/* SPDX-License-Identifier: MIT */
/*
 * replay_int: what the replay's files (replay.c, replay_actions.c,
 * replay_stmt.c, replay_compare.c) share; not API (that is replay.h).
 */
#ifndef BUGCODER_REPLAY_INT_H
#define BUGCODER_REPLAY_INT_H

#include <stddef.h>

#include <cjson/cJSON.h>
#include <sqlite3.h>

#include "core/base/buf.h"
#include "core/base/err.h"
#include "core/study/replay.h"
#include "core/store/store.h"

struct table {
	const char *name;	/* the study's table */
	const char *cols;	/* its columns as compared (and as r_NAME and
				   replay_base_NAME hold them) */
	const char *where;	/* which of its rows, or NULL: all */
	int nkey;		/* the first nkey columns are its key */
	const char *ddl;	/* r_NAME's column definitions and keys */
};

enum stmt_id {
	S_MEMBER_ID, S_META, S_OWNER, S_MEMBER_ADD, S_MEMBER_REMOVE,
	S_CB_UNCURRENT, S_CB_ADD, S_ROUND_ADD, S_ROUND_ANN, S_ASSIGN,
	S_GATE, S_MOVE, S_CLOSE, S_FREEZE1, S_FREEZE2, S_FREEZE3, S_REOPEN,
	S_FORGET1, S_FORGET2, S_FORGET3, S_LABEL_DEL, S_LABEL_ADD, S_SUBMIT,
	S_RECODE_LABEL, S_RECODE_RES,
	S_MEMO_SET, S_MEMO_DEL, S_FLAG_ON, S_FLAG_OFF, S_PROPOSE, S_PROPOSAL,
	S_DECIDE, S_UNDECIDE, S_MOVE_P, S_MOVE_P_DEL, S_MOVE_ALL,
	S_MOVE_ALL_DEL, S_RES_OF_DIM, S_RES_SET_CODES, S_RESOLVE, S_SETTLE,
	S_EVIDENCE_ADD, S_EVIDENCE_DEL, S_MACHINE, NR_STMTS
};

/* One audit row, as the replay reads it. */
struct row {
	long long id;
	const char *at, *actor, *for_member, *action, *dimension, *old, *new_;
	long long item_id;
	cJSON *detail;		/* parsed; NULL when none */
};

struct replay {
	struct store *st;
	struct replay_check *c;
	struct err *e;
	sqlite3_stmt *s[NR_STMTS];
	char *version;		/* the current codebook's version */
	char *cached_name;	/* the member last looked up, */
	long long cached_id;	/* and their id */
	const struct row *row;	/* the row being replayed */
};

/* replay_stmt.c */

/* The SQL of each statement of enum stmt_id. */
extern const char *const replay_sql[NR_STMTS];

/* Statement `i`, prepared at its first use in this replay (reset at the
 * next), or NULL with rp->e filled. */
sqlite3_stmt *replay_stmt(struct replay *rp, enum stmt_id i);

/* Run `s` (bound) to its end: 0; 1 when the replay's tables refused it
 * (a constraint: the log does not fit the state); -1 on a database
 * error. */
int replay_run(struct replay *rp, sqlite3_stmt *s);

/* Bind `v` to parameter `i` of `s` (NULL: null). */
void replay_bind_text(sqlite3_stmt *s, int i, const char *v);

/* The detail's field `k`: a string (NULL when absent or null). */
const char *replay_jstr(const struct row *r, const char *k);

/* The detail's number `k` into *v: 0, or 1 after replay_bad() when it
 * has none and `need`; *v 0 then. */
int replay_jnum(struct replay *rp, const char *k, int need, double *v);

/* replay_jnum() of a number the detail must have, as an integer. */
int replay_jint(struct replay *rp, const char *k, long long *v);

/* The member the row's change is by (or for). */
const char *replay_row_member(const struct row *r);

/* The id of member `name` in the replay: 0, or 1 after replay_bad(), or
 * -1. */
int replay_member_id(struct replay *rp, const char *name, long long *id);

/* replay_actions.c */

/* A row that cannot be replayed: the check fails there.  Returns 1 (stop,
 * nothing wrong with reading the study). */
int replay_bad(struct replay *rp, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int replay_load_version(struct replay *rp);
int replay_row(struct replay *rp, const struct row *r);

/* replay.c */
int replay_parse_ids(const char *s, long long **ids, size_t *n);

/* replay_compare.c */
int replay_compare_table(struct replay *rp, const struct table *t, int all);
int replay_check_schema(struct store *st, struct replay_check *c,
			struct err *e);

#endif
