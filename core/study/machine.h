/* SPDX-License-Identifier: MIT */
/*
 * machine: a program that codes items (a machine coder).
 *
 * A machine coder is a member with role `machine`.  `machine-code` runs
 * its command once per item: one JSON document on the command's stdin
 * (machine_input()), one JSON document read from its stdout
 * (machine_parse()), the answer stored as the machine's labels and
 * submission with its provenance (machine_store()).  The command runs
 * through /bin/sh -c with the study's privilege dropped for good, in a
 * temporary directory of its own, in a process group of its own that is
 * killed whole on a timeout (machine_run()).
 *
 * The input document:
 *   {"bugcoder_machine": 1,
 *    "item": {"id", "name", "repo", "number", "kind", "url", "title",
 *             "body", "state", "labels": [...], "created_at",
 *             "closed_at", "comments": [{"author", "created_at",
 *             "body"}], "fixes": [{"number", "title", "body", "url",
 *             "merged_at", "additions", "deletions", "changed_files",
 *             "diff"}], "figures": {"comments", "days_open",
 *             "additions", "deletions", "changed_files",
 *             "lines_changed"}},
 *    "codebook": {"name", "version", "title", "description",
 *                 "dimensions": [{"key", "name", "question", "select",
 *                 "required", "codes": [{"key", "name", "group",
 *                 "definition", "include", "exclude",
 *                 "examples": [...]}]}]},
 *    "dimensions": ["DIM", ...]}
 * The answer:
 *   {"labels": {"DIM": "CODE" | ["CODE", ...]}, "rationale": "...",
 *    "evidence": [...], "model": "..."}
 */
#ifndef BUGCODER_MACHINE_H
#define BUGCODER_MACHINE_H

#include <signal.h>
#include <stddef.h>

#include "core/stats/agree.h"
#include "core/study/headline.h"
#include "core/base/buf.h"
#include "core/study/codebook.h"
#include "core/base/err.h"
#include "core/study/member.h"
#include "core/base/sha256.h"
#include "core/store/store.h"

/* The most an answer may hold (stdout); a larger one is refused. */
#define MACHINE_ANSWER_MAX (1024 * 1024)

/* Append item `item_id`'s input document to `out`.  0, or -1. */
int machine_input(struct store *st, const struct codebook *cb,
		  long long item_id, struct buf *out, struct err *e);

struct machine_answer {
	struct {
		char *dim;
		char **codes;
		size_t nr;
	} *dims;
	size_t nr_dims;
	char *rationale;	/* NULL when none */
	char *model;		/* NULL when none */
};

#define MACHINE_ANSWER_INIT { NULL, 0, NULL, NULL }

/* Read and check an answer against the codebook: one JSON document and
 * nothing after it but white space, an object with a `labels` object,
 * every dimension and code known, one code for a `select: one`
 * dimension, every required dimension coded.  0, or -1 with ERR_INPUT
 * and the reason. */
int machine_parse(const struct codebook *cb, const char *text, size_t len,
		  struct machine_answer *ans, struct err *e);
void machine_answer_release(struct machine_answer *ans);

/* The outcome of one run of the command. */
struct machine_result {
	struct buf out;		/* its stdout */
	struct buf errout;	/* the start of its stderr */
	long long ms;		/* how long it ran */
};

#define MACHINE_RESULT_INIT { BUF_INIT, BUF_INIT, 0 }

/* Once the command has exited, what it left running in the background
 * (a child still holding its output open) has this long to finish
 * writing; then its process group is killed and what was read stands. */
#define MACHINE_DRAIN_MS 300

/* Run `cmd` through /bin/sh -c, `in` on its stdin, in a fresh temporary
 * directory (removed after), with the privilege dropped for good.  Its
 * output is read until it is closed, or until MACHINE_DRAIN_MS after the
 * command exits, whichever comes first (a background child that keeps
 * stdout open does not hold the answer back).  Fails (-1, ERR_INPUT with
 * the reason) on a non-zero exit or a signal, when it runs past
 * `timeout_ms` (its process group is killed), when stdout passes
 * MACHINE_ANSWER_MAX; fails with ERR_INTERRUPTED when *stop becomes set
 * (the group killed too).  *stop may be NULL. */
int machine_run(const char *cmd, const char *in, size_t len, int timeout_ms,
		volatile sig_atomic_t *stop, struct machine_result *r,
		struct err *e);
void machine_result_release(struct machine_result *r);

/* What an answer is stored with. */
struct machine_prov {
	const char *command;
	const char *model;	/* --model, else the answer's, else NULL */
	const char *note;
	char input_sha[SHA256_HEX_LEN + 1];
	char answer_sha[SHA256_HEX_LEN + 1];
	long long ms;
};

/* Store the answer as machine `m`'s labels and submission on the item
 * with its provenance and the raw answer, one transaction, audited.
 * `a` is the owner running machine-code. */
int machine_store(struct store *st, const struct actor *a,
		  const struct actor *m, const struct codebook *cb,
		  long long item_id, const struct machine_answer *ans,
		  const char *raw, size_t raw_len,
		  const struct machine_prov *p, struct err *e);

/* The items machine `member_id` is to code: those named (ids[0..nr)),
 * else the items of open round `round_id` (declared in it or not), else
 * those of the open rounds that declare it as an annotator; less those
 * it submitted.  A machine codes the items of rounds only (see
 * label_check_access()).  *out is owned (free()).  0, or -1. */
int machine_todo(struct store *st, long long member_id, long long round_id,
		 const long long *ids, size_t nr, long long **out,
		 size_t *nr_out, struct err *e);

/*
 * Machine agreement: how each machine coder that coded items in scope (a
 * round, or the whole study) agrees with each human annotator in scope,
 * with the agreed labels, and with every other machine; per `select: one`
 * dimension, over the items both submitted (for the agreed labels: the
 * items agreed or resolved).  Cohen's kappa with its 95% interval, both
 * as the annotators' headline gets them (agree_table_interval(): a
 * degenerate kappa undefined with its reason, the interval of `opts`,
 * the exact lower bound for a kappa of 1), and the share of matching
 * codes (accuracy, against the agreed labels).  The
 * human agreement, agreed labels and adjudication queue are untouched: a
 * machine counts there only when a round declared it as an annotator.
 * Who may see it: as agreement_compute() (the caller computes that first).
 */
struct machine_info {
	char *name;
	long answers;		/* answers stored in scope */
	long long ms;		/* their total duration */
	char *models;		/* distinct models, "; "-joined, or NULL */
	char *notes;		/* distinct notes, or NULL */
	char *commands;		/* distinct command lines */
	int declared;		/* an annotator of the round */
};

struct machine_pair {
	size_t machine;		/* index into machines */
	const char *other;	/* a human's name, another machine's, or
				   NULL for the agreed labels (borrowed from
				   the struct) */
	const struct dimension *dim;
	long n;			/* items compared */
	long matches;
	struct agree_cohen cohen;	/* every statistic, unmasked */
	struct agree_stat kappa;	/* Cohen's kappa as reported */
	struct agree_ci ci;		/* its interval */
};

struct machine_agreement {
	struct machine_info *machines;
	size_t nr_machines;
	char **humans;
	size_t nr_humans;
	struct machine_pair *pairs;
	size_t nr_pairs;
};

#define MACHINE_AGREEMENT_INIT { NULL, 0, NULL, 0, NULL, 0 }

int machine_agreement(struct store *st, const struct actor *a,
		      const struct codebook *cb, const char *round,
		      const char *dim, const struct agree_opts *opts,
		      struct machine_agreement *out, struct err *e);
void machine_agreement_release(struct machine_agreement *ma);

/* One stored answer with its provenance (strings borrowed for the call). */
struct machine_answer_row {
	const char *item;	/* "owner/repo#N" */
	const char *machine;
	const char *command, *model, *note, *codebook_version;
	const char *input_sha256, *answer_sha256, *answer, *answered_at;
	long long duration_ms;
};

/* Call fn for every stored answer the actor may see (the rule of labels:
 * access_may_see()), of round `round` (NULL: all), by item and machine.
 * Stops at fn's first non-zero return and returns it; 0, or -1. */
int machine_answers_each(struct store *st, const struct actor *a,
			 const char *round,
			 int (*fn)(const struct machine_answer_row *r,
				   void *data),
			 void *data, struct err *e);

#endif
