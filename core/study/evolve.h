/* SPDX-License-Identifier: MIT */
/*
 * evolve: the codebook grows through a study without losing a label.
 *
 * codebook_update() loads a new version: codes that the labels use must
 * still exist, or be mapped onto a code of the new version (a rename or a
 * merge), and then the labels, resolutions and coders' recorded codes
 * move with one audit entry per mapping.  A used code that disappears
 * unmapped is refused, naming it and how many labels use it.  Each label
 * keeps the codebook version it was made under.
 *
 * Proposals (codes an annotator proposed while coding) are decided in
 * core/study/proposal; codebook_revert() undoes an accepted one whose
 * code the earlier version lacks.
 */
#ifndef BUGCODER_EVOLVE_H
#define BUGCODER_EVOLVE_H

#include <stddef.h>

#include "core/study/codebook.h"
#include "core/base/err.h"
#include "core/study/member.h"
#include "core/store/store.h"

struct code_map {
	const char *dim;	/* dimension key */
	const char *from;	/* old code key */
	const char *to;		/* new code key */
};

/* Parse "DIM:OLD=NEW" or "OLD=NEW" (OLD must then name a code of exactly
 * one dimension of `old`).  Pointers in `m` point into *copy, which the
 * caller frees. */
int code_map_parse(const char *arg, const struct codebook *old,
		   struct code_map *m, char **copy, struct err *e);

/* Replace `from` by `to` in a ';'-joined sorted list of codes: a new
 * list (sorted, without duplicates; free() it), or NULL when `from` is
 * not in it.  A code map rewrites resolutions with it (and the replay of
 * its audit row, core/study/replay). */
char *code_list_replace(const char *list, const char *from, const char *to);

struct update_stats {
	int moved;		/* labels moved by maps */
	int resolutions;	/* resolutions rewritten */
	int unchanged;		/* the file equals the current version */
	int recodes;		/* labels split codes left to recode */
	int reopened;		/* resolutions split codes took back */
	/* labels whose code the current version lacks, after the update:
	 * "DIM=CODE (N labels)" joined by "; ", or NULL when none.  Owned:
	 * free() it.  Such labels drop out of agreement; --map DIM:CODE=NEW
	 * moves them (with the same file, no new version is loaded). */
	char *orphans;
	int nr_orphans;		/* distinct DIM=CODE among them */
	char *first_orphan;	/* "DIM:CODE" of the first, owned, or NULL */
};

/* Make the codebook in `path` the current one (owner only).  With the
 * current version's own file and maps, only the maps are applied: that
 * is how labels left with a code the codebook lacks are mended.  The
 * caller frees stats->orphans and stats->first_orphan, also on
 * failure. */
int codebook_update(struct store *st, const struct actor *a,
		    const char *path, const struct code_map *maps,
		    size_t nr_maps, struct update_stats *stats,
		    struct err *e);

struct code_split;

/* codebook_update() that also splits codes (core/study/recode): for each of
 * splits[0..nr_splits), the new version has the new codes and not the
 * old one, every label on the old code goes back to its coder to recode
 * between the new ones, and resolutions that chose it are taken back.
 * stats->recodes and stats->reopened count them.  A code both mapped
 * and split is refused. */
int codebook_update_split(struct store *st, const struct actor *a,
			  const char *path, const struct code_map *maps,
			  size_t nr_maps, const struct code_split *splits,
			  size_t nr_splits, struct update_stats *stats,
			  struct err *e);

struct revert_stats {
	int moved;		/* labels moved by maps */
	int resolutions;	/* resolutions rewritten by maps */
	int reopened;		/* accepted proposals open again */
	int back_to_other;	/* their labels, `other` again */
};

/* Make the earlier version `version` of the codebook current again
 * (owner only), as a new row of the codebook history, audited.  Labels
 * move first by `maps` (DIM:OLD=NEW, NEW a code of that version); an
 * accepted proposal whose code that version lacks is undone: open again,
 * its labels back on `other`, the proposal still attached.  Refused,
 * naming them, when labels or resolutions would still use a code that
 * version lacks. */
int codebook_revert(struct store *st, const struct actor *a,
		    const char *version, const struct code_map *maps,
		    size_t nr_maps, struct revert_stats *stats,
		    struct err *e);

#endif
