/* SPDX-License-Identifier: MIT */
/*
 * ghclient: the HTTP client for GitHub's API, over libcurl (loaded on
 * first use through core/github/curl_lazy.h).  See ghclient.h for the contract.
 * The limits and retries are in ghc_wait.c, the cache in ghc_cache.c
 * (the family shares ghc_int.h); this file holds the handle, the
 * exchange and the request loop that decides what each answer means.
 *
 * Requests.  One libcurl handle is reused for every request, and requests
 * go one at a time.  Every exchange is counted in struct gh_stats: the
 * requests made (redirects included), those counted against the rate
 * limit (everything but a 304) and the 304s; the progress callback runs
 * after each one, and once a second while waiting.
 *
 * Conditional requests.  Every GET answer with an ETag or Last-Modified is
 * kept in http_cache (body and Link header; a diff under "URL#diff" and
 * without its body, which the fixes table already holds), and
 * the next GET of that URL sends If-None-Match / If-Modified-Since; a 304
 * reuses the stored answer and does not count against the limit.  GraphQL
 * answers (POST) are never cached.
 *
 * Faults.  Timeouts (no byte for timeout_s), resets, truncated bodies,
 * 5xx and invalid JSON are retried max_attempts times with doubling
 * back-off; then the request fails naming the URL and the status.  Primary
 * rate limits (x-ratelimit-remaining 0) are waited out until
 * x-ratelimit-reset; secondary ones (403/429 with retry-after, or
 * "secondary rate limit" in the message, in a 403, a 429 or a GraphQL
 * 200) wait as asked, else (no retry-after, or a blank or unreadable one)
 * back off from a minute; GraphQL's RATE_LIMITED in a 200 waits for the
 * reset like a primary limit.  With GHC_NO_RETRY a 5xx or a timeout fails
 * at once, for a caller that then asks a smaller question.  No more than
 * PACE_N requests start in a minute, under GitHub's documented secondary
 * limits for serial use.  Redirects (301 for transferred issues or
 * renamed repositories) are followed, and the token goes only to the
 * API's host.
 *
 * Token hygiene.  The token lives only in the client's Authorization
 * header line, which is wiped when the client is freed; the header list
 * of each exchange is wiped after it.  Error messages name the method,
 * the URL and the status, never a header.
 *
 * Limitations: the remaining budget is remembered for a few rate-limit
 * resources (core, graphql, ...); a fifth shares the first one's slot.
 * A limit is waited out for at most MAX_WAIT_S at a time.
 */
#include "core/github/ghclient.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <cjson/cJSON.h>
#include "core/github/curl_lazy.h"

#include "core/base/buf.h"
#include "core/github/gh_opts.h"
#include "core/github/ghc_int.h"
#include "core/base/json_nul.h"

#ifndef BUGCODER_VERSION
#define BUGCODER_VERSION "dev"
#endif

void ghc_resp_clear(struct ghc_resp *r)
{
	buf_release(&r->body);
	free(r->etag);
	free(r->last_modified);
	free(r->link);
	free(r->retry_after);
	free(r->resource);
	memset(r, 0, sizeof(*r));
	buf_init(&r->body, 0);
	r->rl_remaining = r->rl_limit = -1;
}

void ghc_resp_init(struct ghc_resp *r)
{
	memset(r, 0, sizeof(*r));
	buf_init(&r->body, 0);
	r->rl_remaining = r->rl_limit = -1;
}

static size_t on_body(char *data, size_t size, size_t n, void *arg)
{
	struct ghc *c = arg;

	buf_add(&c->cur->body, data, size * n);
	return size * n;
}

static char *trimmed_dup(const char *s, size_t len)
{
	while (len && isspace((unsigned char)*s)) {
		s++;
		len--;
	}
	while (len && isspace((unsigned char)s[len - 1]))
		len--;
	return xstrndup(s, len);
}

static void set_str(char **dst, const char *v, size_t len)
{
	free(*dst);
	*dst = trimmed_dup(v, len);
}

static size_t on_header(char *data, size_t size, size_t n, void *arg)
{
	struct ghc *c = arg;
	struct ghc_resp *r = c->cur;
	size_t len = size * n, nlen;
	const char *colon;
	const char *v;
	size_t vlen;

	if (len >= 5 && !memcmp(data, "HTTP/", 5)) {
		/* a new answer (after a redirect): forget the last one */
		ghc_resp_clear(r);
		return len;
	}
	colon = memchr(data, ':', len);
	if (!colon)
		return len;
	nlen = (size_t)(colon - data);
	v = colon + 1;
	vlen = len - nlen - 1;
#define IS(name) (nlen == sizeof(name) - 1 && !strncasecmp(data, name, nlen))
	if (IS("etag"))
		set_str(&r->etag, v, vlen);
	else if (IS("last-modified"))
		set_str(&r->last_modified, v, vlen);
	else if (IS("link"))
		set_str(&r->link, v, vlen);
	else if (IS("retry-after"))
		set_str(&r->retry_after, v, vlen);
	else if (IS("x-ratelimit-resource"))
		set_str(&r->resource, v, vlen);
	else if (IS("x-ratelimit-remaining") || IS("x-ratelimit-limit") ||
		 IS("x-ratelimit-reset")) {
		char *s = trimmed_dup(v, vlen), *end;
		long long x = strtoll(s, &end, 10);

		if (*s && !*end && x >= 0) {
			if (IS("x-ratelimit-remaining"))
				r->rl_remaining = (long)x;
			else if (IS("x-ratelimit-limit"))
				r->rl_limit = (long)x;
			else
				r->rl_reset = x;
		}
		free(s);
	}
#undef IS
	return len;
}

static int on_xfer(void *arg, curl_off_t dt, curl_off_t dn, curl_off_t ut,
		   curl_off_t un)
{
	struct ghc *c = arg;

	return stopped(c) ? 1 : 0;
}

/* scheme://host[:port] of `url`, owned by the caller, or NULL. */
static char *url_origin(const char *url)
{
	const char *p = strstr(url, "://");
	size_t n;

	if (!p)
		return NULL;
	p += 3;
	n = strcspn(p, "/?#");
	if (!n)
		return NULL;
	return xstrndup(url, (size_t)(p - url) + n);
}

static int same_origin(const struct ghc *c, const char *url)
{
	size_t n = strlen(c->origin);

	return !strncasecmp(url, c->origin, n) &&
	       (url[n] == '\0' || url[n] == '/' || url[n] == '?');
}

static int client_init(struct ghc *c, struct store *st,
		       const struct gh_fetch_opts *o, struct gh_stats *stats,
		       struct err *e)
{
	const char *api = o->api_url && *o->api_url ? o->api_url :
			  GH_DEFAULT_API;
	size_t n;

	memset(c, 0, sizeof(*c));
	c->st = st;
	c->o = o;
	c->stats = stats;
	c->timeout_s = o->timeout_s > 0 ? o->timeout_s : 60;
	c->backoff_ms = o->backoff_ms > 0 ? o->backoff_ms : 1000;
	c->max_attempts = o->max_attempts > 0 ? o->max_attempts : 5;
	if (strncmp(api, "https://", 8) && strncmp(api, "http://", 7))
		return err_set(e, ERR_INPUT, "%s: the API URL must start "
			       "with https:// or http://", api);
	c->api = xstrdup(api);
	n = strlen(c->api);
	while (n && c->api[n - 1] == '/')
		c->api[--n] = '\0';
	c->origin = url_origin(c->api);
	if (!c->origin || strpbrk(c->api, " \t\r\n"))
		return err_set(e, ERR_INPUT, "%s: not a usable API URL", api);
	/* GitHub Enterprise serves REST at /api/v3, GraphQL at /api/graphql */
	if (n >= 7 && !strcmp(c->api + n - 7, "/api/v3")) {
		struct buf b = BUF_INIT;

		buf_add(&b, c->api, n - 7);
		buf_addstr(&b, "/api/graphql");
		c->graphql_url = buf_detach(&b, NULL);
	} else {
		struct buf b = BUF_INIT;

		buf_addf(&b, "%s/graphql", c->api);
		c->graphql_url = buf_detach(&b, NULL);
	}
	if (o->token && *o->token) {
		const char *p;
		struct buf b = BUF_INIT;

		for (p = o->token; *p; p++)
			if ((unsigned char)*p < 0x21 || *p == 0x7f)
				return err_set(e, ERR_INPUT, "the GitHub token "
					       "holds a space or a control "
					       "character");
		buf_addstr(&b, "Authorization: Bearer ");
		buf_addstr(&b, o->token);
		c->auth = buf_detach(&b, NULL);
	}
	if (curl_lazy_load(e) < 0)
		return -1;
	c->curl = curl_lazy.easy_init();
	if (!c->curl)
		return err_set(e, ERR_NET, "cannot start libcurl");
	curl_lazy.easy_setopt(c->curl, CURLOPT_NOSIGNAL, 1L);
	curl_lazy.easy_setopt(c->curl, CURLOPT_USERAGENT,
			 "bugcoder/" BUGCODER_VERSION);
	curl_lazy.easy_setopt(c->curl, CURLOPT_FOLLOWLOCATION, 1L);
	curl_lazy.easy_setopt(c->curl, CURLOPT_MAXREDIRS, 5L);
#if LIBCURL_VERSION_NUM >= 0x075500
	curl_lazy.easy_setopt(c->curl, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_lazy.easy_setopt(c->curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
#else
	curl_lazy.easy_setopt(c->curl, CURLOPT_PROTOCOLS,
			 (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
	curl_lazy.easy_setopt(c->curl, CURLOPT_REDIR_PROTOCOLS,
			 (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
	curl_lazy.easy_setopt(c->curl, CURLOPT_ACCEPT_ENCODING, "");
	curl_lazy.easy_setopt(c->curl, CURLOPT_CONNECTTIMEOUT, c->timeout_s);
	curl_lazy.easy_setopt(c->curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_lazy.easy_setopt(c->curl, CURLOPT_LOW_SPEED_TIME, c->timeout_s);
	curl_lazy.easy_setopt(c->curl, CURLOPT_WRITEFUNCTION, on_body);
	curl_lazy.easy_setopt(c->curl, CURLOPT_WRITEDATA, c);
	curl_lazy.easy_setopt(c->curl, CURLOPT_HEADERFUNCTION, on_header);
	curl_lazy.easy_setopt(c->curl, CURLOPT_HEADERDATA, c);
	curl_lazy.easy_setopt(c->curl, CURLOPT_XFERINFOFUNCTION, on_xfer);
	curl_lazy.easy_setopt(c->curl, CURLOPT_XFERINFODATA, c);
	curl_lazy.easy_setopt(c->curl, CURLOPT_NOPROGRESS, 0L);
	curl_lazy.easy_setopt(c->curl, CURLOPT_ERRORBUFFER, c->errbuf);
	return 0;
}

static void wipe_free(char *s)
{
	if (!s)
		return;
	memset(s, 0, strlen(s));
	free(s);
}

static void client_release(struct ghc *c)
{
	if (c->curl)
		curl_lazy.easy_cleanup(c->curl);
	wipe_free(c->auth);
	free(c->api);
	free(c->origin);
	free(c->graphql_url);
	free(c->starts);
	memset(c, 0, sizeof(*c));
}

struct ghc *ghc_new(struct store *st, const struct gh_fetch_opts *o,
		    struct gh_stats *stats, struct err *e)
{
	struct ghc *c = xcalloc(1, sizeof(*c));

	if (client_init(c, st, o, stats, e) < 0) {
		client_release(c);
		free(c);
		return NULL;
	}
	return c;
}

void ghc_free(struct ghc *c)
{
	if (!c)
		return;
	client_release(c);
	free(c);
}

const char *ghc_api(const struct ghc *c)
{
	return c->api;
}

const char *ghc_graphql_url(const struct ghc *c)
{
	return c->graphql_url;
}

char *ghc_escape(struct ghc *c, const char *s)
{
	char *esc = curl_lazy.easy_escape(c->curl, s, 0);
	char *ret = xstrdup_or_null(esc);

	curl_lazy.free(esc);
	return ret;
}

static int transient_curl(CURLcode rc)
{
	switch (rc) {
	case CURLE_OPERATION_TIMEDOUT:
	case CURLE_COULDNT_CONNECT:
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_RECV_ERROR:
	case CURLE_SEND_ERROR:
	case CURLE_PARTIAL_FILE:
	case CURLE_GOT_NOTHING:
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_HTTP2:
	case CURLE_HTTP2_STREAM:
	case CURLE_BAD_CONTENT_ENCODING:
		return 1;
	default:
		return 0;
	}
}

static void wipe_slist(struct curl_slist *l)
{
	struct curl_slist *p;

	for (p = l; p; p = p->next)
		memset(p->data, 0, strlen(p->data));
	curl_lazy.slist_free_all(l);
}

/*
 * A NUL in GitHub's text would silently cut it (cJSON ends a string at a
 * \u0000, C strings end at a NUL byte): in a JSON answer each \u0000
 * escape becomes \ufffd (the same length), in a diff each NUL byte
 * becomes U+FFFD, so the text stays whole and the spot shows.  Returns
 * how many were replaced.
 */
static long no_nul(struct ghc_resp *r, unsigned flags)
{
	struct buf path = BUF_INIT;
	size_t at, from = 0;
	long n = 0;

	if (flags & GHC_JSON) {
		while (json_find_nul(r->body.ptr + from, r->body.len - from,
				       &at, &path)) {
			memcpy(r->body.ptr + from + at + 2, "fffd", 4);
			from += at + 6;
			n++;
		}
	} else if (memchr(r->body.ptr, '\0', r->body.len)) {
		struct buf b = BUF_INIT;
		size_t i;

		for (i = 0; i < r->body.len; i++) {
			if (r->body.ptr[i]) {
				buf_addch(&b, r->body.ptr[i]);
			} else {
				buf_addstr(&b, "\xef\xbf\xbd");
				n++;
			}
		}
		buf_release(&r->body);
		r->body = b;
	}
	buf_release(&path);
	return n;
}

/*
 * One exchange: send the request (conditional when `etag` or `lm` is
 * given), fill `r`, count it.  Returns libcurl's verdict.
 */
static CURLcode exchange(struct ghc *c, const char *url, unsigned flags,
			 const char *post, const char *etag, const char *lm,
			 struct ghc_resp *r)
{
	struct curl_slist *h = NULL;
	struct buf line = BUF_INIT;
	long redirects = 0;
	CURLcode rc;

	h = curl_lazy.slist_append(h, (flags & GHC_DIFF) ?
			      "Accept: application/vnd.github.diff" :
			      "Accept: application/vnd.github+json");
	h = curl_lazy.slist_append(h, "X-GitHub-Api-Version: " GH_API_VERSION);
	if (c->auth)
		h = curl_lazy.slist_append(h, c->auth);
	if (etag) {
		buf_addf(&line, "If-None-Match: %s", etag);
		h = curl_lazy.slist_append(h, line.ptr);
		buf_reset(&line);
	}
	if (lm) {
		buf_addf(&line, "If-Modified-Since: %s", lm);
		h = curl_lazy.slist_append(h, line.ptr);
	}
	buf_release(&line);
	if (flags & GHC_POST)
		h = curl_lazy.slist_append(h, "Content-Type: application/json");
	curl_lazy.easy_setopt(c->curl, CURLOPT_URL, url);
	curl_lazy.easy_setopt(c->curl, CURLOPT_HTTPHEADER, h);
	if (flags & GHC_POST) {
		curl_lazy.easy_setopt(c->curl, CURLOPT_POSTFIELDS, post);
		curl_lazy.easy_setopt(c->curl, CURLOPT_POSTFIELDSIZE,
				 (long)strlen(post));
	} else {
		curl_lazy.easy_setopt(c->curl, CURLOPT_HTTPGET, 1L);
	}
	c->errbuf[0] = '\0';
	c->cur = r;
	rc = curl_lazy.easy_perform(c->curl);
	c->cur = NULL;
	curl_lazy.easy_setopt(c->curl, CURLOPT_HTTPHEADER, NULL);
	wipe_slist(h);

	c->stats->requests++;
	curl_lazy.easy_getinfo(c->curl, CURLINFO_REDIRECT_COUNT, &redirects);
	if (redirects > 0) {
		c->stats->requests += redirects;
		c->stats->counted += redirects;
	}
	if (rc == CURLE_OK) {
		curl_lazy.easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &r->status);
		if (r->status == 304)
			c->stats->not_modified++;
		else
			c->stats->counted++;
		ghc_note_rate(c, url, r);
	}
	progress(c);
	return rc;
}

/* What the answer to one exchange leaves the request loop to do. */
enum next {
	NEXT_READ,		/* a 2xx, or a 304 with the cached answer:
				   read its body */
	NEXT_DONE,		/* answered: return it */
	NEXT_AGAIN,		/* waited or backed off: ask again */
	NEXT_FAIL,		/* failed, with `e` filled */
};

/* The answer's status: limits waited out, faults retried, errors named
 * (`key` is the cache's, `found` whether its validators were sent). */
static enum next judge_status(struct ghc *c, struct tries *t,
			      const char *method, const char *url,
			      const char *key, unsigned flags, int found,
			      struct rate *rt, struct ghc_resp *r,
			      struct err *e)
{
	char what[CURL_ERROR_SIZE + 64];

	if (r->status == 304 && found && (flags & GHC_DIFF)) {
		r->cached = 1;
		return NEXT_DONE;
	} else if (r->status == 304) {
		if (!found || !ghc_cache_load(c, key, r)) {
			/* nothing to reuse: ask unconditionally */
			if (ghc_cache_drop(c, key, e) < 0 ||
			    ghc_retry_later(c, t, method, url,
					    "HTTP 304 without a cached "
					    "answer", e) < 0)
				return NEXT_FAIL;
			return NEXT_AGAIN;
		}
		r->cached = 1;
	} else if (r->status == 406 && (flags & GHC_ALLOW_406)) {
		return NEXT_DONE;
	} else if (ghc_is_primary(r)) {
		if (ghc_wait_primary(c, t, method, url, r, e) < 0)
			return NEXT_FAIL;
		rt->remaining = -1;
		return NEXT_AGAIN;
	} else if ((r->status == 403 || r->status == 429) &&
		   ghc_is_secondary(r)) {
		if (ghc_wait_secondary(c, t, method, url, r, e) < 0)
			return NEXT_FAIL;
		return NEXT_AGAIN;
	} else if (r->status >= 500) {
		snprintf(what, sizeof(what), "HTTP %ld", r->status);
		if (ghc_retry_later(c, t, method, url, what, e) < 0)
			return NEXT_FAIL;
		return NEXT_AGAIN;
	} else if (r->status < 200 || r->status >= 300) {
		ghc_answer_message(r, what, sizeof(what));
		err_set(e, r->status == 404 || r->status == 410 ?
			ERR_NOTFOUND :
			r->status == 401 || r->status == 403 ?
			ERR_PERM : ERR_INPUT, "%s %s: HTTP %ld%s",
			method, url, r->status, what);
		return NEXT_FAIL;
	}
	return NEXT_READ;
}

/* The body of an answer judged good: NULs made visible, JSON parsed
 * (invalid JSON retried, GraphQL's own limits waited out) into *json,
 * the answer kept in the cache. */
static enum next read_body(struct ghc *c, struct tries *t,
			   const char *method, const char *url,
			   const char *key, unsigned flags,
			   struct ghc_resp *r, cJSON **json, struct err *e)
{
	char what[CURL_ERROR_SIZE + 64];
	int lim;

	c->stats->nul_replaced += no_nul(r, flags);
	if (flags & GHC_JSON) {
		*json = cJSON_ParseWithLength(r->body.ptr, r->body.len);
		if (!*json) {
			snprintf(what, sizeof(what), "HTTP %ld with "
				 "invalid JSON", r->status);
			if ((r->cached && ghc_cache_drop(c, key, e) < 0) ||
			    ghc_retry_later(c, t, method, url, what, e) < 0)
				return NEXT_FAIL;
			return NEXT_AGAIN;
		}
		if ((flags & GHC_POST) && (lim = ghc_graphql_limited(*json))) {
			cJSON_Delete(*json);
			*json = NULL;
			if ((lim == 1 ?
			     ghc_wait_primary(c, t, method, url, r, e) :
			     ghc_wait_secondary(c, t, method, url, r, e)) < 0)
				return NEXT_FAIL;
			return NEXT_AGAIN;
		}
	}
	if (!(flags & GHC_POST) && !r->cached && r->status == 200 &&
	    ghc_cache_put(c, key, r, !(flags & GHC_DIFF), e) < 0)
		return NEXT_FAIL;
	return NEXT_DONE;
}

/* See ghclient.h.  Each turn of the loop is one exchange. */
int ghc_request(struct ghc *c, const char *url, unsigned flags,
		const char *post, struct ghc_resp *r, cJSON **json,
		struct err *e)
{
	const char *method = (flags & GHC_POST) ? "POST" : "GET";
	struct rate *rt = ghc_rate_for(c, ghc_resource_of(c, url));
	struct tries t = { 0, 0, 0, !!(flags & GHC_NO_RETRY) };
	struct buf key = BUF_INIT;
	char *etag = NULL, *lm = NULL;
	char what[CURL_ERROR_SIZE + 64];
	int ret = -1;

	if (json)
		*json = NULL;
	ghc_resp_init(r);
	if (!same_origin(c, url)) {
		err_set(e, ERR_INPUT, "refusing to follow %s: not on the API "
			"host %s", url, c->origin);
		goto out;
	}
	buf_addstr(&key, url);
	if (flags & GHC_DIFF)
		buf_addstr(&key, "#diff");

	for (;;) {
		CURLcode rc;
		int found = 0;

		if (stopped(c)) {
			err_set(e, ERR_INTERRUPTED, "interrupted");
			goto out;
		}
		/* the last answer said the limit is spent */
		if (rt->remaining == 0 && rt->reset > (long long)time(NULL)) {
			if (ghc_pause_for(c, ghc_until_reset(rt->reset),
					  "rate limit reset", e) < 0)
				goto out;
			rt->remaining = -1;
		}
		ghc_resp_clear(r);
		free(etag);
		free(lm);
		etag = lm = NULL;
		if (!(flags & GHC_POST) &&
		    ghc_cache_get(c, key.ptr, &etag, &lm, &found) < 0)
			found = 0;
		if (ghc_pace(c, e) < 0)
			goto out;
		rc = exchange(c, url, flags, post, found ? etag : NULL,
			      found ? lm : NULL, r);
		t.attempt++;

		if (rc != CURLE_OK) {
			if (rc == CURLE_ABORTED_BY_CALLBACK && stopped(c)) {
				err_set(e, ERR_INTERRUPTED, "interrupted");
				goto out;
			}
			snprintf(what, sizeof(what), "%s", c->errbuf[0] ?
				 c->errbuf : curl_lazy.easy_strerror(rc));
			if (!transient_curl(rc)) {
				err_set(e, ERR_NET, "%s %s: %s", method, url,
					what);
				goto out;
			}
			if (ghc_retry_later(c, &t, method, url, what, e) < 0)
				goto out;
			continue;
		}

		switch (judge_status(c, &t, method, url, key.ptr, flags, found,
				     rt, r, e)) {
		case NEXT_READ:
			break;
		case NEXT_DONE:
			ret = 0;
			goto out;
		case NEXT_AGAIN:
			continue;
		case NEXT_FAIL:
			goto out;
		}
		switch (read_body(c, &t, method, url, key.ptr, flags, r, json,
				  e)) {
		case NEXT_READ:
		case NEXT_DONE:
			break;
		case NEXT_AGAIN:
			continue;
		case NEXT_FAIL:
			goto out;
		}
		ret = 0;
		goto out;
	}
out:
	if (ret < 0 && json) {
		cJSON_Delete(*json);
		*json = NULL;
	}
	free(etag);
	free(lm);
	buf_release(&key);
	return ret;
}
