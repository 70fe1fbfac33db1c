/* SPDX-License-Identifier: MIT */
/*
 * ghc_int: what the HTTP client's files share; not API (that is
 * ghclient.h).  ghclient.c (the handle, the exchange, the request loop)
 * calls ghc_wait.c (rate limits, pacing, waits, retries) and ghc_cache.c
 * (http_cache), which call neither it nor each other.  This header
 * includes only what is below the family (ghclient.h, gh_opts.h,
 * curl_lazy.h, the study).
 */
#ifndef BUGCODER_GHC_INT_H
#define BUGCODER_GHC_INT_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "core/base/err.h"
#include "core/github/curl_lazy.h"
#include "core/github/gh_opts.h"
#include "core/github/ghclient.h"
#include "core/store/store.h"

#define MAX_RATE_WAITS 6	/* primary-limit waits for one request */
#define MAX_SECONDARY 8		/* secondary-limit waits for one request */
#define MAX_WAIT_S 3900		/* cap on one wait (reset is hourly) */
/* GitHub's documented secondary limit for REST is 900 points a minute, a
   GET costing one; GraphQL's is 2,000 points a minute, a query costing
   one.  Serial requests stay under both when no more than PACE_N start
   in any PACE_S seconds. */
#define PACE_N 900
#define PACE_S 60.0

/* What the answers said of one rate-limit resource's budget. */
struct rate {
	char resource[16];	/* "core", "graphql", ... */
	long remaining;		/* -1 unknown */
	long long reset;	/* epoch seconds */
};

/* The client (opaque outside this family). */
struct ghc {
	CURL *curl;
	char errbuf[CURL_ERROR_SIZE];
	char *auth;		/* "Authorization: Bearer ..."; wiped on free */
	char *api;		/* base URL, no trailing slash */
	char *origin;		/* scheme://host[:port] of the base */
	char *graphql_url;
	struct store *st;
	const struct gh_fetch_opts *o;
	struct gh_stats *stats;
	struct rate rates[4];
	size_t nr_rates;
	struct ghc_resp *cur;	/* the exchange in flight */
	long timeout_s, backoff_ms;
	int max_attempts;
	double *starts;		/* ring of the last PACE_N start times */
	size_t nr_starts, next_start;
};

/* Report the figures to the fetch's callback, if any. */
static inline void progress(struct ghc *c)
{
	if (c->o->progress.update)
		c->o->progress.update(c->o->progress.ctx, c->stats);
}

/* Has the caller asked the fetch to stop? */
static inline int stopped(const struct ghc *c)
{
	return c->o->stop && *c->o->stop;
}

/* Counts of one request's attempts and waits. */
struct tries {
	int attempt;		/* exchanges made */
	int rate_waits;		/* primary-limit waits */
	int secondary;		/* secondary-limit waits */
	int no_retry;		/* GHC_NO_RETRY: transient faults fail */
};

/* ---- ghc_wait.c ------------------------------------------------------- */

/* Sleep `secs`, counting down in stats->waiting with `why` (static
 * text); a stop request cuts it short: -1 with ERR_INTERRUPTED, else 0. */
int ghc_pause_for(struct ghc *c, double secs, const char *why,
		  struct err *e);

/* Wait if need be to keep under PACE_N starts in PACE_S seconds, then
 * note this start.  Returns 0, or -1 with ERR_INTERRUPTED. */
int ghc_pace(struct ghc *c, struct err *e);

/* The budget of rate-limit `resource` (its slot made on first use; a
 * fifth resource shares the first one's).  Owned by `c`. */
struct rate *ghc_rate_for(struct ghc *c, const char *resource);

/* The resource a request to `url` counts against when the answer does
 * not say: "graphql" or "core" (static text). */
const char *ghc_resource_of(const struct ghc *c, const char *url);

/* Note the budget an answer to `url` reported, in `c` and its stats. */
void ghc_note_rate(struct ghc *c, const char *url, const struct ghc_resp *r);

/* Seconds until a limit's `reset` (epoch), at least 1, at most
 * MAX_WAIT_S. */
double ghc_until_reset(long long reset);

/* The answer's "message" field as ": MESSAGE", one printable line of at
 * most 160 bytes, into out[0..size) ("" without one). */
void ghc_answer_message(const struct ghc_resp *r, char *out, size_t size);

/* Is this 403 or 429 a primary limit spent (no retry-after), or a
 * secondary one? */
int ghc_is_primary(const struct ghc_resp *r);
int ghc_is_secondary(const struct ghc_resp *r);

/* GraphQL's rate limit in a 200: 1 primary, 2 secondary, 0 none. */
int ghc_graphql_limited(const cJSON *j);

/* After a transient fault: -1 with ERR_NET naming the exchange and
 * `what` once the attempts are spent (or with GHC_NO_RETRY), else back
 * off and return 0 (or -1 with ERR_INTERRUPTED). */
int ghc_retry_later(struct ghc *c, struct tries *t, const char *method,
		    const char *url, const char *what, struct err *e);

/* Wait out a primary or a secondary limit the answer `r` showed; -1 with
 * ERR_NET when it was waited for too often, or ERR_INTERRUPTED. */
int ghc_wait_primary(struct ghc *c, struct tries *t, const char *method,
		     const char *url, const struct ghc_resp *r,
		     struct err *e);
int ghc_wait_secondary(struct ghc *c, struct tries *t, const char *method,
		       const char *url, const struct ghc_resp *r,
		       struct err *e);

/* ---- ghc_cache.c ------------------------------------------------------ */

/* The validators kept under `key`: *found set, *etag and *lm owned (free())
 * or NULL.  Returns 0, or -1 when the cache cannot be read (then no
 * condition is sent). */
int ghc_cache_get(struct ghc *c, const char *key, char **etag, char **lm,
		  int *found);

/* Fill `r`'s body and link from the answer kept under `key`: 1, or 0 when
 * there is none to reuse. */
int ghc_cache_load(struct ghc *c, const char *key, struct ghc_resp *r);

/* Keep answer `r` under `key` (with its body when `with_body`), when it
 * has a validator.  Returns 0, or -1 with `e` filled by the study. */
int ghc_cache_put(struct ghc *c, const char *key, const struct ghc_resp *r,
		  int with_body, struct err *e);

#endif
