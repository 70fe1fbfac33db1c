/*
 * labels_csv: labels in the long CSV of DESIGN.md,
 *   item,annotator,dimension,code[,codebook_version,labeled_at,
 *   submitted_at]
 * one row per chosen code; the format `export --raw` writes, so the two
 * round-trip.  Rows whose submitted_at is not empty are submitted on
 * import; --submit submits every item and annotator in the file.
 *
 * Import is all or nothing: every row is checked first (unknown items,
 * members, dimensions and codes are refused with the line number), then
 * everything is stored in one transaction.  The rows for one item,
 * annotator and dimension replace that annotator's codes there.
 * An annotator imports their own labels (the annotator column must name
 * them); the owner may import any member's.
 */
#ifndef BUGCODER_LABELS_CSV_H
#define BUGCODER_LABELS_CSV_H

#include "core/codebook.h"
#include "core/err.h"
#include "core/member.h"
#include "core/store.h"

struct labels_import_stats {
	int rows;
	int labels;		/* (item, annotator, dimension) groups set */
	int submitted;		/* (item, annotator) submitted */
};

int labels_import(struct store *st, const struct actor *a,
		  const struct codebook *cb, const char *path, int submit,
		  struct labels_import_stats *stats, struct err *e);

#endif
