/* SPDX-License-Identifier: MIT */
/*
 * figures: the paper's figures drawn from the study (`bugcoder report
 * --figures DIR`, and figures/ in the replication package).
 *
 * Every number drawn is a cell of the report (exports/summary.h), built
 * by the same pass as `report --format json` with the same options:
 *  - shares-DIM: per dimension, items per code as sorted bars with
 *    count and share (report table shares.DIM); codes marked
 *    "distributed": true in a group of their own; with more than one
 *    repository, shares-DIM-by-repo: one panel per repository on a
 *    shared scale (repo.DIM);
 *  - flow[-CODE]: symptom -> root cause -> fix pattern as a Sankey
 *    diagram (the cross tables of `report --cross symptom,root_cause`
 *    and `--cross root_cause,fix_pattern`, with --by one per code);
 *  - cross-D1-D2[-CODE]: the report's cross table as a heat map;
 *  - effort-lines, effort-days, effort-comments: cumulative
 *    distributions, overall and per repository (the values behind
 *    effort.quartiles; the --small mark from effort.size);
 *  - agreement: kappa per dimension and round with its interval (the
 *    agreement table), with the calibration gates' thresholds.
 * Beside each figure NAME.EXT goes NAME.csv (its data), and figures.json
 * indexes them all: file, title, caption, the report tables and the
 * command that prints them, every mark with its numbers, what was left
 * out and which labels were shortened.
 *
 * The same study gives the same bytes: PDFs carry no creation date and
 * SVG ids are numbered per file.
 */
#ifndef BUGCODER_FIGURES_H
#define BUGCODER_FIGURES_H

#include <stddef.h>

#include "core/base/buf.h"
#include "core/study/codebook.h"
#include "core/base/err.h"
#include "core/study/member.h"
#include "core/store/store.h"
#include "exports/summary.h"

enum figure_format {
	FIGURE_PDF,
	FIGURE_SVG,
	FIGURE_PNG,
};

struct figures_opts {
	enum figure_format format;
	struct summary_opts report;	/* round, include_pending, cross, by,
					   effort_by, small, hard (format and
					   unicode are not used) */
};

#define FIGURES_OPTS_INIT { FIGURE_PDF, SUMMARY_OPTS_INIT }

struct figure_file {
	char *name;		/* "shares-symptom.pdf", owned */
	struct buf data;	/* its bytes */
};

struct figure_files {
	struct figure_file *v;
	size_t nr, alloc;
};

#define FIGURE_FILES_INIT { NULL, 0, 0 }

/* Draw every figure of the data `a` may see into `out` (appending), the
 * CSV files and figures.json included.  Returns 0, or -1 with `e`
 * filled (summary_write()'s errors; ERR_INPUT for a cairo failure). */
int figures_build(struct store *st, const struct actor *a,
		  const struct codebook *cb, const struct figures_opts *o,
		  struct figure_files *out, struct err *e);
void figure_files_release(struct figure_files *f);

/* "pdf", "svg", "png". */
const char *figure_ext(enum figure_format f);

#endif
