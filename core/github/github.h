/* SPDX-License-Identifier: MIT */
/*
 * github: collect closed bug issues and the merged pull requests that
 * fixed them from GitHub's REST API (and GraphQL, when a token allows),
 * into the study.
 *
 * One fetch is one repository (gh_fetch), or the issues and pull
 * requests a list names (gh_fetch_list).  Requests go one at a time over
 * one reused libcurl handle; rate limits are waited out, transient faults
 * retried
 * with back-off, responses cached by ETag in the study (http_cache) so an
 * unchanged repository costs no counted requests.  Progress is recorded
 * as it goes (fetch_state, fetch_issues) and every item is stored in one
 * transaction, so a fetch stopped at any point (signal, kill -9, network
 * loss) leaves no half-stored item and the same call continues it.
 *
 * core/ never prints: progress, waits and the final figures reach the
 * caller through `struct gh_stats` and the progress callback.
 *
 * The token is borrowed for the duration of the call.  It is sent only in
 * the Authorization header to the API's own host, and never copied into
 * an error message, the study or anything else.
 */
#ifndef BUGCODER_GITHUB_H
#define BUGCODER_GITHUB_H

#include "core/base/err.h"
#include "core/github/gh_opts.h"
#include "core/github/gh_refs.h"
#include "core/study/item.h"
#include "core/store/store.h"

/* Free the list of failed issues in `s` (NULL is fine). */
void gh_stats_release(struct gh_stats *s);

/*
 * Fetch o->repo into the study `st` (which the caller opened for
 * writing; no transaction may be open).  Fills `stats` (may be NULL; the
 * caller frees it with gh_stats_release()) as it goes.  A request about
 * one issue (its timeline, a commit look-up, a diff, a file list) that
 * still fails after the retries marks that issue failed in
 * stats->failed, stores nothing of it, and the fetch goes on.  Returns 0
 * when the listing was finished or the limit reached, failed issues or
 * not; -1 with `e` filled otherwise: ERR_INTERRUPTED when o->stop was
 * raised, ERR_NET for network faults and limits that outlasted the
 * retries on a list page, or GH_MAX_FAILED_IN_A_ROW issues in a row
 * failed on the network (the message names the URL and the status, never
 * the token), ERR_INPUT for bad options or answers.  Items stored before
 * a failure stay stored; calling again with the same options continues,
 * and asks again for the failed issues.
 */
int gh_fetch(struct store *st, const struct gh_fetch_opts *o,
	     struct gh_stats *stats, struct err *e);

/*
 * Fetch the listed issues and pull requests, of any repositories (renamed
 * ones under their current names), into the study: each named once, asked
 * for at GET /repos/O/R/issues/N (a 304 when unchanged, then skipped as
 * gh_fetch() skips), an issue linked and stored as gh_fetch() does (kept
 * with or without a fix), a pull request stored as an item of its own
 * that is its own fix (item->is_pull).  o->repo, label, state, dates and
 * require_fix are not used.  Failures are per entry as in gh_fetch().
 * Returns 0, or -1 with `e` filled as gh_fetch() does.
 */
int gh_fetch_list(struct store *st, const struct gh_fetch_opts *o,
		  const struct gh_ref *refs, size_t nr, struct gh_stats *stats,
		  struct err *e);

#endif
