/* SPDX-License-Identifier: MIT */
/*
 * replay: the study's state checked against its audit log.
 *
 * Every change of the study's record is an audit row (core/store/audit.h) that
 * says enough to make the change again: old and new, and where those do
 * not say it all, `detail` (a JSON object).  replay_verify() replays the
 * log from the start into temporary tables and compares them, row by
 * row, with the study's own:
 *
 *   the study's title, creation time, blind-adjudication setting and
 *   coder salt (as its SHA-256); members (name, role, active, machine);
 *   codebook versions (name, version, SHA-256 of the JSON, which is
 *   current); rounds, their annotators, items (with positions), gates,
 *   and what a closed round froze (its submissions, labels and codebook);
 *   proposals; labels (with codebook version and proposal); submissions;
 *   evidence; memos; flags; resolutions (with the coders as the
 *   adjudicator saw them); settled items and their notes; the machine
 *   coders' answers (the answer by its SHA-256) -
 *
 * each with the time it was made, which is the time of its audit row
 * (one transaction, one time: store_now()).  It also checks that the
 * schema - tables, indexes and triggers - is the one bugcoder made: the
 * same as running every migration on an empty database.
 *
 * What is not replayed: the items themselves (their text, comments and
 * diffs are the import's copy of GitHub; `import` and `fetch` rows say
 * only how many), coding times, drafts, the fetch cache, repository
 * aliases.  A change there is not found by the replay.
 *
 * Studies made before the replay: the state a study had when it was
 * migrated to REPLAY_SINCE_VERSION is kept as the baseline (replay_base_*
 * tables), with its digest in the audit row that took it
 * ("audit.baseline"); the replay starts from it and from the rows after
 * that one.  What changed before the migration can not be told from the
 * log and is taken as it was then.
 *
 * The replay runs on a read snapshot: writers go on meanwhile.  It costs
 * one pass over the log and one ordered pass over each table; the
 * temporary tables hold a copy of the replayed state (in memory under the
 * server install, else in SQLite's temporary files).
 */
#ifndef BUGCODER_REPLAY_H
#define BUGCODER_REPLAY_H

#include "core/store/audit.h"
#include "core/base/err.h"
#include "core/study/member.h"
#include "core/base/sha256.h"
#include "core/store/store.h"

/* The schema version whose migration brought the replay: a study
 * migrated from an older one gets a baseline. */
#define REPLAY_SINCE_VERSION 11

enum replay_failure {
	REPLAY_OK = 0,
	REPLAY_CHAIN,		/* a row does not fit the hash chain */
	REPLAY_HEAD,		/* the pinned head is not in the log */
	REPLAY_SCHEMA,		/* a table, index, view or trigger
				   differs */
	REPLAY_STATE,		/* the state is not the log's replay */
};

struct replay_check {
	struct audit_check chain;	/* rows, first row not fitting */
	long long head_id;		/* the newest row; 0: empty log */
	char head[SHA256_HEX_LEN + 1];	/* its hash, "" when none */
	long long pinned_id;		/* the row with the pinned head */
	int schema_version;
	int schema_objects;		/* tables, indexes, triggers */
	long long baseline_id;		/* the baseline's row; 0: none */
	long long replayed;		/* rows replayed after it */
	long long compared;		/* rows of state compared */
	int told_all;			/* the actor may be told the values
					   and the counts above (how many
					   labels there are is progress an
					   annotator is not told) */
	enum replay_failure failed;
	char what[600];			/* the first difference, one
					   line */
};

/* Verify the study: the log's hash chain, with `head` (64 hex digits,
 * or NULL) that the log still holds the row of that hash and so begins
 * with the log it pinned, the schema, and the state against the log's
 * replay.  Stops at the first thing that fails: c->failed and c->what
 * say which (the owner is told the values that differ; anyone else
 * which table, item and dimension, since the values may be another
 * member's blinded work; `a` NULL counts as anyone else).  Returns 0
 * (look at c->failed), or -1 with `e` filled when the study could not
 * be read. */
int replay_verify(struct store *st, const struct actor *a,
		  const char *head, struct replay_check *c, struct err *e);

/* Record the state of a study being migrated from schema version `from`
 * as the replay's baseline, in the migration's transaction: the
 * replay_base_* tables and an "audit.baseline" row with their digest.
 * Returns 0 or -1 with `e` filled. */
int replay_baseline(struct store *st, int from, struct err *e);

/* The SHA-256 of `len` bytes as hex, into hex[65]. */
void replay_sha256_hex(const void *data, size_t len,
		       char hex[SHA256_HEX_LEN + 1]);

/* "1-5,9,12": item ids in their order, runs of consecutive ids as
 * FIRST-LAST, appended to `out` (a round's items, in its audit row). */
void replay_format_ids(struct buf *out, const long long *ids, size_t n);

#endif
