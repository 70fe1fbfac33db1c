/* SPDX-License-Identifier: MIT */
/*
 * gh_opts: what a GitHub fetch is asked (struct gh_fetch_opts) and what
 * it reports (struct gh_stats), the lowest layer of the fetch: the HTTP
 * client (ghclient) reads them, the fetch (github) fills them.  The
 * includes run github -> gh_map, ghclient -> gh_opts, json_nul; never
 * back up.
 */
#ifndef BUGCODER_GH_OPTS_H
#define BUGCODER_GH_OPTS_H

#include <signal.h>

#define GH_DEFAULT_API "https://api.github.com"
#define GH_API_VERSION "2022-11-28"
/* so many issues failing one after another mean GitHub (or the network)
   is down, not that these issues are bad: the fetch stops */
#define GH_MAX_FAILED_IN_A_ROW 10

/* An issue whose requests kept failing: nothing of it was stored, and
 * the next fetch asks for it again. */
struct gh_failure {
	char *repo;		/* "owner/name" */
	long long number;
	char *what;		/* the request and the answer, one line */
};

/* Running figures of one fetch.  All counts cover this call only.
 * gh_fetch() starts them afresh; gh_stats_release() frees the list of
 * failed issues. */
struct gh_stats {
	long requests;		/* HTTP exchanges, redirects and failures too */
	long counted;		/* answers that count against the rate limit
				   (everything but 304) */
	long not_modified;	/* 304s: served from the cache */
	long retries;		/* attempts repeated after a fault */
	long pages;		/* issue list pages read */
	long seen;		/* issues examined (pull requests excluded) */
	long unchanged;		/* skipped: fetched before, unchanged since */
	long kept;		/* items stored */
	long kept_fixed;	/* ... of which have a fixing pull request */
	long fixes;		/* fixing pull requests stored */
	long partial_diffs;	/* diffs rebuilt from the file list */
	long vanished;		/* listed, then gone (404/410): skipped */
	long nul_replaced;	/* NUL characters in GitHub's text, stored
				   as U+FFFD rather than cutting it */
	long pulls_alone;	/* pull requests stored as items of their
				   own (gh_fetch_list) */
	char *renamed_to;	/* the repository's new name, when it was
				   renamed or transferred; owned */
	struct gh_failure *failed;	/* issues that failed, in order */
	size_t nr_failed, alloc_failed;
	long rate_remaining;	/* last x-ratelimit-remaining; -1 unknown */
	long rate_limit;	/* last x-ratelimit-limit; -1 unknown */
	long waited;		/* seconds spent waiting on limits/back-off */
	int waiting;		/* seconds left of the current wait, or 0 */
	const char *wait_reason;	/* static text while waiting, or NULL */
	int graphql;		/* GraphQL was used for linking */
	long graphql_cost;	/* GraphQL points GitHub reported spending */
	long graphql_halved;	/* batches split after a 5xx or timeout */
	long graphql_lost;	/* issues GraphQL could not answer: REST */
};

/* Called after every exchange, every issue, and once a second while
 * waiting.  `s` is valid only during the call. */
struct gh_progress {
	void (*update)(void *ctx, const struct gh_stats *s);
	void *ctx;
};

struct gh_fetch_opts {
	const char *repo;	/* "owner/name" */
	const char *label;	/* labels= filter; NULL or "" for none */
	const char *state;	/* "closed" (NULL), "open" or "all" */
	const char *since;	/* created on or after (ISO date); NULL */
	const char *until;	/* created on or before (ISO date); NULL */
	long limit;		/* stop after storing this many; 0 = all */
	int require_fix;	/* keep only issues with a merged fix */
	const char *api_url;	/* NULL: GH_DEFAULT_API */
	const char *token;	/* NULL: anonymous (60 requests an hour) */
	int no_graphql;		/* link through REST timelines only */
	long timeout_s;		/* a stalled exchange fails after this; 0: 60 */
	long backoff_ms;	/* first retry delay, doubled each time; 0:
				   1000.  A secondary limit without
				   retry-after waits 60 times this. */
	int max_attempts;	/* per request; 0: 5 */
	const volatile sig_atomic_t *stop;	/* set asynchronously: stop at
						   the next safe point */
	struct gh_progress progress;
};

#endif
