/* SPDX-License-Identifier: MIT */
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
 *
 * Rows follow the study's design (core/study/access): once the study has
 * rounds, each item's rows must be for an annotator of the open round it
 * is in.  Items in no round are refused all together, named, unless the
 * import is given a round (--round R), into which the owner's import
 * puts them on the way in (round_add_items(): audited, and refused for
 * an item no round may take).  A dimension `inclusion` answers the
 * screening question of items being screened (core/study/screening).
 */
#ifndef BUGCODER_LABELS_CSV_H
#define BUGCODER_LABELS_CSV_H

#include <stddef.h>

#include "core/study/codebook.h"
#include "core/base/err.h"
#include "core/study/member.h"
#include "core/store/store.h"

struct labels_import_stats {
	int rows;
	int labels;		/* (item, annotator, dimension) groups set */
	int submitted;		/* (item, annotator) submitted */
	int assigned;		/* items put into --round on the way in */
};

int labels_import(struct store *st, const struct actor *a,
		  const struct codebook *cb, const char *path, int submit,
		  struct labels_import_stats *stats, struct err *e);

/*
 * labels_import() that also reads the wide shape of coding spreadsheets:
 * one row per item (and annotator), an item column (item, url or issue:
 * any name bugcoder takes for an item, an issue URL among them), one
 * column per dimension (headed by its key or its name), each cell the
 * code or codes (';', '|' or ',' between them; a code by its key or its
 * name), and an annotator column, or `annotator` (--annotator; may be
 * NULL) for the rows without one.  Other columns are ignored.  Both
 * shapes are read as spreadsheet programs write them (BOM, CRLF, ',' ';'
 * or TAB, quotes, headers in any case with spaces around); errors name
 * the file's own line.
 */
int labels_import_opts(struct store *st, const struct actor *a,
		       const struct codebook *cb, const char *path, int submit,
		       const char *annotator,
		       struct labels_import_stats *stats, struct err *e);
/* labels_import_round() of the file's text[0..len), read from `path`
 * (which errors name). */
int labels_import_text(struct store *st, const struct actor *a,
		       const struct codebook *cb, const char *text,
		       size_t len, const char *path, int submit,
		       const char *annotator, const char *round,
		       struct labels_import_stats *stats, struct err *e);

/* labels_import_opts() that puts the file's items in no round into the
 * open round `round` (NULL: refuses them) on the way in. */
int labels_import_round(struct store *st, const struct actor *a,
			const struct codebook *cb, const char *path,
			int submit, const char *annotator, const char *round,
			struct labels_import_stats *stats, struct err *e);

#endif
