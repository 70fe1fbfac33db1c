/* SPDX-License-Identifier: MIT */
/*
 * import: local files -> items.
 *
 * Two formats are read:
 *  - JSON Lines in the item format of DESIGN.md, one object per line (a
 *    file holding a single object, or an array of such objects, works
 *    too);
 *  - what the GitHub REST API returns: an issue object or an array of
 *    them (pull requests in the list are skipped), or a bundle
 *    {"issue": {...}, "comments": [...], "pull_requests": [{... "diff":
 *    "..."}]} with the comments and fixing pull requests alongside.
 *
 * A file is imported all or nothing: every item is parsed and checked
 * first, then all are saved in one transaction.  Errors name the file,
 * the line (JSON Lines) or element, and the field:
 *   items.jsonl:7: fixes[0].additions: expected a number >= 0
 * Re-importing an item updates it in place.
 */
#ifndef BUGCODER_IMPORT_H
#define BUGCODER_IMPORT_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "core/base/err.h"
#include "core/study/item.h"
#include "core/study/member.h"
#include "core/store/store.h"

struct import_stats {
	int added;		/* items new to the study */
	int updated;		/* items already there, replaced */
	int skipped;		/* pull requests in a GitHub issue list */
	int comments;
	int fixes;
	int missing;		/* items whose content is still to be
				   fetched (CSV and lists) */
	int kept;		/* named by a CSV or list, already in the
				   study with their content: left alone */
};

/* How to read a CSV of known bugs. */
struct import_opts {
	const char *const *columns;	/* "NAME=HEADER" (--column) */
	size_t nr_columns;
};

/* Import one file.  Only the owner may import.  On failure nothing of
 * the file is stored and `e` names what is wrong.  A file named *.csv
 * or *.tsv is a CSV of known bugs (import_csv_text), a file that is not
 * JSON a list of issue and pull request URLs (import_list_text), any
 * other JSON or JSON Lines as above. */
int import_file(struct store *st, const struct actor *a, const char *path,
		struct import_stats *stats, struct err *e);

/* Import several files together: JSON items are read and checked before
 * the study's write lock is taken, which is then held only while they
 * are written (a CSV of known bugs or a list of names, see below, is
 * checked as it is stored, under the lock); all go in, or none.  `o`
 * (may be NULL) is for the CSVs.  stats[0..n) (may be NULL) gets each
 * file's figures. */
int import_files(struct store *st, const struct actor *a,
		 const char *const *paths, size_t n,
		 const struct import_opts *o, struct import_stats *stats,
		 struct err *e);

/* import_file() with options for a CSV (`o` may be NULL); options given
 * for a file that is not a CSV are refused (ERR_USAGE). */
int import_file_opts(struct store *st, const struct actor *a,
		     const char *path, const struct import_opts *o,
		     struct import_stats *stats, struct err *e);

/*
 * Items from a CSV of known bugs (core/github/import_list.c has the columns it
 * knows): each row names an issue (its URL or owner/repo#N, or repo and
 * number) or a pull request alone, with optional title, labels, dates
 * and fixing pull request.  The items are stored marked missing, for
 * `fetch --missing` to fill; one the study holds with content is left
 * alone.  All or nothing; errors name `origin`, the line and the column,
 * and a header no column of which names the bugs is refused naming its
 * headers and the --column to use.
 */
int import_csv_text(struct store *st, const struct actor *a, const char *text,
		    size_t len, const char *origin,
		    const struct import_opts *o, struct import_stats *stats,
		    struct err *e);

/* Items from a list of issue and pull request URLs or owner/repo#N (see
 * gh_parse_refs()), stored as import_csv_text() does. */
int import_list_text(struct store *st, const struct actor *a,
		     const char *text, size_t len, const char *origin,
		     struct import_stats *stats, struct err *e);

/* The same from text in memory; `origin` names it in errors. */
int import_text(struct store *st, const struct actor *a, const char *text,
		size_t len, const char *origin, struct import_stats *stats,
		struct err *e);



/* Convert one item object in our format into `it`.  `where` prefixes
 * errors ("items.jsonl:7").  Returns 0 or -1 (ERR_INPUT). */
int import_item_object(const cJSON *obj, struct item *it, const char *where,
		       struct err *e);

/* Convert a GitHub issue object (with optional comment objects and pull
 * request objects carrying a "diff" string) into `it`.  Returns 0, 1 when
 * the object is a pull request (to be skipped), or -1. */
int import_github_issue(const cJSON *issue, const cJSON *comments,
			const cJSON *pulls, struct item *it,
			const char *where, struct err *e);

#endif
