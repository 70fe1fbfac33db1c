/* SPDX-License-Identifier: MIT */
/*
 * ghclient: the HTTP client that core/github/github.c fetches through.
 *
 * One client is one libcurl handle, reused for every request of a fetch,
 * and requests go one at a time.  It keeps the rate-limit bookkeeping,
 * waits out primary and secondary limits, retries transient faults with
 * back-off, answers GETs from the study's http_cache on 304, and sends
 * the token only to the API's own host.  The design notes are at the top
 * of ghclient.c.
 *
 * The client is configured from a fetch's options (struct gh_fetch_opts
 * in gh_opts.h: API URL, token, timeout, back-off, attempts, stop flag,
 * progress callback) and keeps its running figures in the fetch's
 * struct gh_stats; it borrows both, and the study, for its lifetime.
 *
 * Limitations: one request at a time, so one client serves one thread;
 * a request for a URL off the API's origin is refused.
 */
#ifndef BUGCODER_GHCLIENT_H
#define BUGCODER_GHCLIENT_H

#include "core/base/buf.h"
#include "core/base/err.h"

struct cJSON;
struct store;
struct gh_fetch_opts;
struct gh_stats;

/* An HTTP client for one fetch; opaque. */
struct ghc;

enum ghc_req_flags {
	GHC_JSON = 1 << 0,	/* parse the body; invalid JSON is retried */
	GHC_DIFF = 1 << 1,	/* Accept the diff media type */
	GHC_POST = 1 << 2,	/* POST `post` (GraphQL); never cached */
	GHC_ALLOW_406 = 1 << 3,	/* hand a 406 back instead of failing */
	GHC_NO_RETRY = 1 << 4,	/* a 5xx or a timeout fails at once
				   (ERR_NET), for a caller that asks a
				   smaller question instead */
};

/* One answer.  Every string is owned by the struct and freed by
 * ghc_resp_clear(). */
struct ghc_resp {
	long status;		/* HTTP status of the last answer */
	struct buf body;	/* the body (the cached one after a 304) */
	char *etag, *last_modified, *link, *retry_after, *resource;
	long rl_remaining, rl_limit;	/* -1 when absent */
	long long rl_reset;		/* 0 when absent */
	int cached;			/* a 304 answered from http_cache */
};

/* Make `r` empty and ready for use; it owns nothing yet. */
void ghc_resp_init(struct ghc_resp *r);

/* Free everything `r` holds and make it empty again, ready for reuse. */
void ghc_resp_clear(struct ghc_resp *r);

/*
 * Start a client for the API at o->api_url (GH_DEFAULT_API when NULL or
 * empty) with o->token (may be NULL), loading libcurl on first use.
 * `st`, `o` and `stats` are borrowed and must outlive the client; the
 * token is copied into the client only, and wiped when it is freed.
 * Returns the client, to be freed with ghc_free(), or NULL with `e`
 * filled: ERR_INPUT for an unusable API URL or token, ERR_IO when
 * libcurl cannot be loaded, ERR_NET when it cannot start.
 */
struct ghc *ghc_new(struct store *st, const struct gh_fetch_opts *o,
		    struct gh_stats *stats, struct err *e);

/* Free `c` (NULL is fine), wiping the copy of the token it held. */
void ghc_free(struct ghc *c);

/* The REST base URL, without a trailing slash.  Owned by `c`, valid until
 * ghc_free(c). */
const char *ghc_api(const struct ghc *c);

/* The GraphQL endpoint that goes with the REST base.  Owned by `c`, valid
 * until ghc_free(c). */
const char *ghc_graphql_url(const struct ghc *c);

/* `s` percent-encoded for a query string, owned by the caller (free()),
 * or NULL when libcurl could not encode it. */
char *ghc_escape(struct ghc *c, const char *s);

/*
 * One request, with its retries and waits.  On success returns 0 with `r`
 * filled (the body from the cache after a 304) and, with GHC_JSON, *json
 * owned by the caller (cJSON_Delete).  A 406 with GHC_ALLOW_406 also
 * returns 0 (r->status says so), and so does a 304 for a diff, whose body
 * the cache does not keep (r->cached set, the body empty).  Otherwise -1
 * with `e` naming the method, the URL and the status (never the token):
 * ERR_INTERRUPTED when the stop flag was raised, ERR_NET for network
 * faults and limits that outlasted the retries, ERR_NOTFOUND for 404/410,
 * ERR_PERM for 401/403, the study's error when http_cache cannot be
 * written, ERR_INPUT otherwise (a URL off the API's origin among them);
 * *json is then NULL.  `r` is initialised here and is the caller's to
 * ghc_resp_clear() either way.  `post` (GHC_POST only) is borrowed for
 * the call.
 */
int ghc_request(struct ghc *c, const char *url, unsigned flags,
		const char *post, struct ghc_resp *r, struct cJSON **json,
		struct err *e);

/* Forget the cached answer under `key` (the URL, or "URL#diff" for a
 * diff), so the next request for it is unconditional.  Returns 0, or -1
 * with `e` filled by the study (ERR_DB, or ERR_BUSY when locked). */
int ghc_cache_drop(struct ghc *c, const char *key, struct err *e);

#endif
