/* SPDX-License-Identifier: MIT */
/*
 * package: the replication package, in one directory, in one step.
 *
 * Files (all UTF-8; CSV in the dialect of csv_out.h):
 *   agreed-labels.csv     the default export: one row per agreed item
 *   raw-labels.csv        every annotator's labels (labels import reads it)
 *   resolutions.csv       every resolution, with both coders' codes
 *   rounds.csv            the rounds: spec, seed, stratify, annotators
 *   codebook.json         the current codebook, as it was loaded
 *   codebooks/N-VER.json  every codebook version the study has held
 *   round-items.csv       which round each item is in
 *   memos.csv             memos and flags (export_memos())
 *   codes.csv             the current codebook's codes, for base R
 *   agreement.txt/.json   the agreement report (agree_report.h)
 *   agreement-by-round.txt/.json  kappa per dimension and round
 *   report.md/.json       the report's tables (summary.h), crossed per
 *                         stage and with effort per phase when the
 *                         codebook has such dimensions
 *   analysis.R            base R: recomputes report.json from the CSV
 *   figures/              the report's figures as PDF (exports/figures.h)
 *                         with each one's data as CSV and figures.json;
 *                         README.txt names the command that redraws them
 *   README.txt            what each file is and how to check them
 *   manifest.json         study, codebook, date, and per file its size,
 *                         rows and SHA-256
 *   MANIFEST              "SHA256  PATH" lines for every other file,
 *                         so `sha256sum -c MANIFEST` checks the package
 *
 * The package is built in a hidden temporary directory beside DIR,
 * ".bugcoder-pkg.XXXXXX", and renamed into place when complete, so DIR
 * never holds half a package; on an error the temporary is removed.  The
 * builder holds a flock() on it; a process killed outright leaves the
 * directory but not the lock, and the next package written in the same
 * parent directory removes every such unlocked directory of its user
 * before it starts (a locked one is a build at work and is left alone).
 * DIR must not exist, or be an empty directory.
 *
 * Every file is written from one snapshot of the study (one read
 * transaction), so the tables agree with each other even while
 * annotators keep working.
 *
 * Only the owner and adjudicators make packages: a package is the whole
 * study, and annotators are blind to each other until rounds close.
 */
#ifndef BUGCODER_PACKAGE_H
#define BUGCODER_PACKAGE_H

#include <signal.h>
#include <sys/types.h>

#include "core/study/codebook.h"
#include "core/base/err.h"
#include "core/study/member.h"
#include "core/store/store.h"

struct package_opts {
	unsigned flags;		/* export.h's EXPORT_PENDING, _NO_GUARD */
	const char *round;	/* only this round, or NULL */
	volatile sig_atomic_t *stop;	/* may be NULL */
	int nr_files;		/* out: files written, MANIFEST included */
	mode_t mode;		/* of its files (directories get an x for
				   each r); 0: private, OUTPUT_MODE */
};

#define PACKAGE_OPTS_INIT { 0, NULL, NULL, 0, 0 }

/* Write the package into directory `dir`, after the study's full check
 * (store_verify(): a damaged study gives no package).  Returns 0, or -1
 * with `e` filled (ERR_PERM, ERR_INPUT when DIR is not empty, ERR_IO,
 * ERR_DB, ERR_INTERRUPTED) and nothing left behind. */
int package_write(struct store *st, const struct actor *a,
		  const struct codebook *cb, const char *dir,
		  struct package_opts *o, struct err *e);

#endif
