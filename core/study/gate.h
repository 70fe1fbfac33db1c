/* SPDX-License-Identifier: MIT */
/*
 * gate: the calibration gate between rounds.
 *
 * The studies' method codes a pilot first and goes on only once
 * agreement is high: `round create NAME ... --after ROUND --min-kappa K`
 * is refused until ROUND is closed and its kappa (core/study/headline's
 * headline coefficient, at the level of codes) is at least K on every
 * required dimension; with `--gate lower` the 95% interval's lower bound
 * must be.  An undefined kappa does not pass.  The owner may override
 * (--force); the gate is then stored as forced and audited with what the
 * check found (core/study/round stores it with the round).
 */
#ifndef BUGCODER_GATE_H
#define BUGCODER_GATE_H

#include <stddef.h>

#include "core/stats/agree.h"
#include "core/base/buf.h"
#include "core/study/codebook.h"
#include "core/base/err.h"
#include "core/study/member.h"
#include "core/store/store.h"

struct gate_dim {
	const char *key;		/* borrowed from the codebook */
	struct agree_stat value;	/* kappa, or its lower bound */
	int pass;
};

struct gate_check {
	char *after;			/* the round waited for */
	double min_kappa;
	int on_lower;
	int closed;			/* `after` is closed */
	int pass;			/* closed and every dimension passes */
	struct gate_dim *dims;		/* the required dimensions */
	size_t nr_dims;
};

#define GATE_CHECK_INIT { NULL, 0, 0, 0, 0, NULL, 0 }

/* Check the gate `after` / `min_kappa` (in [-1, 1]) for actor `a`
 * (the owner).  Returns 0 with `out` filled whether or not it passes
 * (out->pass), or -1 with `e` filled: no such round (ERR_NOTFOUND), a bad
 * threshold (ERR_INPUT), a failed read.  Release with gate_release(). */
int gate_check(struct store *st, const struct actor *a,
	       const struct codebook *cb, const char *after, double min_kappa,
	       int on_lower, struct gate_check *out, struct err *e);

/* One line per dimension, "symptom 0.81 >= 0.60 passes", and why the
 * gate fails, into `out`: for messages and the audit log. */
void gate_describe(const struct gate_check *g, struct buf *out);

void gate_release(struct gate_check *g);

/* The stored gate of one round (struct round_gate), for the screen. */
struct round_gate {
	char *round;			/* the gated round */
	char *after;
	double min_kappa;
	int on_lower;
	int forced;
};

/* Every stored gate, in the order of the gated rounds.  Returns 0 with
 * *v (free with round_gates_free()) and *nr, or -1 with `e` filled. */
int round_gates(struct store *st, struct round_gate **v, size_t *nr,
		struct err *e);
void round_gates_free(struct round_gate *v, size_t nr);

#endif
