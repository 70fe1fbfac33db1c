/* SPDX-License-Identifier: MIT */
/*
 * gh_refs: lists of known bugs, the entries gh_fetch_list() fetches:
 * issues and pull requests named by URL or owner/repo#N, read from text
 * (a file, an imported spreadsheet's column) or from the study's items
 * whose content is still to be fetched.  No request is made here.
 */
#ifndef BUGCODER_GH_REFS_H
#define BUGCODER_GH_REFS_H

#include <stddef.h>

#include "core/base/err.h"
#include "core/store/store.h"

/* One entry of a list of known bugs. */
struct gh_ref {
	char *repo;		/* "owner/name", owned */
	long long number;	/* its issue or pull request number */
	int kind;		/* enum item_ref_kind: what the entry said */
	long line;		/* where it was read */
};

/* Free refs[0..nr) and the array (NULL is fine). */
void gh_refs_free(struct gh_ref *refs, size_t nr);

/*
 * Read a list of known bugs from text[0..len): entries separated by line
 * breaks, commas, semicolons or white space, each an issue URL, a pull
 * request URL or owner/repo#N; lines starting with '#' are comments; a
 * byte order mark is skipped.  On success *refs (owned, gh_refs_free())
 * holds *nr entries in order.  Otherwise -1 with ERR_INPUT naming
 * `origin`, the line and the entry, and nothing returned.
 */
int gh_parse_refs(const char *text, size_t len, const char *origin,
		  struct gh_ref **refs, size_t *nr, struct err *e);

/* The study's items whose content is still to be fetched (created from a
 * list without it), as a list for gh_fetch_list(). */
int gh_refs_missing(struct store *st, struct gh_ref **refs, size_t *nr,
		    struct err *e);

#endif
