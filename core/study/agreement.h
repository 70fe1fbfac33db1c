/* SPDX-License-Identifier: MIT */
/*
 * agreement: the agreement of a study's annotators, per dimension, from
 * their submitted labels; the numbers come from core/stats/agree.
 *
 * Which items and annotators: with a round, the round's annotators on the
 * round's items; without, every annotator (or owner) who submitted
 * something, on the items that count in the whole study (the items of
 * coding rounds, or every item while the study has no round:
 * ACCESS_COUNTED_SQL).  A screening round's agreement is on its one
 * question, inclusion (core/study/screening), as on any dimension.  A
 * dimension a split left to recode has the item's label missing until
 * recoded.  Only submitted items count, and for two
 * annotators only the items both submitted (for more, the items at least
 * two submitted).  Kappa is pooled over items, never averaged over items.
 *
 * A `select: one` dimension that a coder left empty on a submitted item
 * (it was not required) is missing for that item: the item drops out of
 * that dimension's table (listwise deletion).  For `select: many`, the
 * empty set is an answer like any other.  The number of codes q is the
 * codebook's, so unused codes count for Bennett's S/PABAK and AC1.
 *
 * Blinding: an annotator may compute agreement only on a closed round.
 */
#ifndef BUGCODER_AGREEMENT_H
#define BUGCODER_AGREEMENT_H

#include <stddef.h>
#include <stdint.h>

#include "core/stats/agree.h"
#include "core/study/codebook.h"
#include "core/base/err.h"
#include "core/study/member.h"
#include "core/store/store.h"

struct agreement_pair {
	int a, b;			/* indexes into annotators */
	struct agree_cohen cohen;
};

struct agreement_dim {
	const struct dimension *dim;	/* borrowed from the codebook */
	size_t n_items;			/* items in the computation */
	size_t n_dropped;		/* submitted but a coder left it empty */
	int k;				/* codes */
	/* two annotators, select one */
	struct agree_table table;	/* k x k; rows annotator 0 */
	struct agree_cohen cohen;
	/* two annotators: per code (present/absent for select many) */
	struct agree_code *per_code;	/* k entries, or NULL */
	/* select many */
	struct agree_multi multi;
	/* more than two annotators */
	struct agree_fleiss fleiss;
	struct agree_alpha alpha;	/* group alpha, nominal */
	struct agree_pairwise pairwise;
	struct agreement_pair *pairs;
	size_t nr_pairs;
	long *count;			/* k x n_annotators: times chosen */
	/* more than two annotators, select one: the label matrix the
	 * statistics came from, for what core/study/headline derives */
	int *labels;			/* n_annotators x n_units */
	size_t n_units;
	/* select many, two annotators or more: each coder's set (bit c for
	 * code c) and whether they submitted the unit, for the same */
	uint64_t *sets;			/* n_annotators x n_units */
	unsigned char *present;		/* n_annotators x n_units */
};

struct agreement {
	char *round;			/* NULL for the whole study */
	int frozen;			/* a closed round, from its record */
	struct codebook *frozen_cb;	/* owned: the version it was closed
					   with; dims[].dim point into it */
	int screen;			/* a screening round */
	struct codebook *screen_cb;	/* owned: its question (inclusion);
					   dims[].dim point into it */
	char **annotators;		/* sorted by name */
	long long *annotator_ids;
	size_t nr_annotators;
	struct agreement_dim *dims;
	size_t nr_dims;
};

#define AGREEMENT_INIT { 0 }

/* Compute agreement for `round` (NULL: the whole study) and one dimension
 * `dim` (NULL: all).  `cb` must outlive `out`.  A closed round is a
 * record: its figures come from the submissions and labels as they stood
 * at its close, against the codebook version then current (its
 * dimensions taken in `cb`'s order), whatever later decisions re-map. */
int agreement_compute(struct store *st, const struct actor *a,
		      const struct codebook *cb, const char *round,
		      const char *dim, struct agreement *out, struct err *e);
void agreement_release(struct agreement *ag);

#endif
