/* SPDX-License-Identifier: MIT */
/*
 * ghc_wait: the client's waiting: the rate-limit budget per resource, as
 * the answers report it; primary and secondary limits recognised (in an
 * HTTP status or a GraphQL error) and waited out; back-off before a
 * retry; the pace of starts under GitHub's secondary limits; every wait
 * counted down in slices a stop request cuts short.  The policy is
 * described at the top of ghclient.c.
 */
#include "core/github/ghc_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "core/base/buf.h"
#include "core/base/text.h"

static double now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Sleep `secs`, in slices, reporting the countdown; a stop request cuts
 * it short with ERR_INTERRUPTED. */
int ghc_pause_for(struct ghc *c, double secs, const char *why,
		  struct err *e)
{
	double end = now_mono() + secs, left;
	int shown = -1;

	while ((left = end - now_mono()) > 0) {
		struct timespec ts;
		int whole = (int)(left + 0.999);

		if (stopped(c)) {
			c->stats->waiting = 0;
			c->stats->wait_reason = NULL;
			return err_set(e, ERR_INTERRUPTED, "interrupted");
		}
		if (whole != shown) {
			c->stats->waiting = whole;
			c->stats->wait_reason = why;
			shown = whole;
			progress(c);
		}
		if (left > 0.1)
			left = 0.1;
		ts.tv_sec = 0;
		ts.tv_nsec = (long)(left * 1e9);
		nanosleep(&ts, NULL);
	}
	c->stats->waited += (long)(secs + 0.5);
	c->stats->waiting = 0;
	c->stats->wait_reason = NULL;
	progress(c);
	return 0;
}

/* Wait, if need be, so that no more than PACE_N exchanges start within
 * PACE_S seconds, then note this start. */
int ghc_pace(struct ghc *c, struct err *e)
{
	double now = now_mono();

	if (!c->starts)
		c->starts = xcalloc(PACE_N, sizeof(*c->starts));
	if (c->nr_starts == PACE_N &&
	    now - c->starts[c->next_start] < PACE_S) {
		if (ghc_pause_for(c, PACE_S - (now - c->starts[c->next_start]),
			      "pacing requests", e) < 0)
			return -1;
		now = now_mono();
	}
	c->starts[c->next_start] = now;
	c->next_start = (c->next_start + 1) % PACE_N;
	if (c->nr_starts < PACE_N)
		c->nr_starts++;
	return 0;
}

struct rate *ghc_rate_for(struct ghc *c, const char *resource)
{
	size_t i;

	for (i = 0; i < c->nr_rates; i++)
		if (!strcmp(c->rates[i].resource, resource))
			return &c->rates[i];
	if (c->nr_rates == sizeof(c->rates) / sizeof(c->rates[0]))
		return &c->rates[0];
	i = c->nr_rates++;
	snprintf(c->rates[i].resource, sizeof(c->rates[i].resource), "%s",
		 resource);
	c->rates[i].remaining = -1;
	c->rates[i].reset = 0;
	return &c->rates[i];
}

const char *ghc_resource_of(const struct ghc *c, const char *url)
{
	return strcmp(url, c->graphql_url) ? "core" : "graphql";
}

void ghc_note_rate(struct ghc *c, const char *url,
		   const struct ghc_resp *r)
{
	struct rate *rt;

	if (r->rl_remaining < 0)
		return;
	rt = ghc_rate_for(c, r->resource && *r->resource ? r->resource :
		      ghc_resource_of(c, url));
	rt->remaining = r->rl_remaining;
	if (r->rl_reset)
		rt->reset = r->rl_reset;
	if (!strcmp(rt->resource, "core") || c->stats->rate_remaining < 0) {
		c->stats->rate_remaining = r->rl_remaining;
		if (r->rl_limit >= 0)
			c->stats->rate_limit = r->rl_limit;
	}
}

/* Seconds until a limit's reset, at least 1, at most MAX_WAIT_S. */
double ghc_until_reset(long long reset)
{
	double s = (double)(reset - (long long)time(NULL)) + 1;

	if (s < 1)
		s = 1;
	if (s > MAX_WAIT_S)
		s = MAX_WAIT_S;
	return s;
}

/* The answer's "message" field, made one printable line of at most 160
 * bytes, into out[]. */
void ghc_answer_message(const struct ghc_resp *r, char *out,
			size_t size)
{
	cJSON *j = cJSON_ParseWithLength(r->body.ptr, r->body.len);
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(j, "message");
	size_t i = 0;
	const char *p;

	out[0] = '\0';
	if (cJSON_IsString(m) && size > 4) {
		out[i++] = ':';
		out[i++] = ' ';
		for (p = m->valuestring; *p && i < size - 1 && i < 162; p++)
			out[i++] = ((unsigned char)*p < 0x20 || *p == 0x7f) ?
				   ' ' : *p;
		out[i] = '\0';
	}
	cJSON_Delete(j);
}

int ghc_is_secondary(const struct ghc_resp *r)
{
	char msg[200];

	if (r->status == 429 || r->retry_after)
		return 1;
	if (r->status != 403)
		return 0;
	ghc_answer_message(r, msg, sizeof(msg));
	return text_find(msg, strlen(msg), "secondary rate limit", 20) >= 0 ||
	       text_find(msg, strlen(msg), "abuse", 5) >= 0;
}

/* GraphQL's own way of saying "rate limited": 200 with an error.
 * Returns 1 for the primary limit (type RATE_LIMITED), 2 for a secondary
 * one (its message says so), 0 otherwise. */
int ghc_graphql_limited(const cJSON *j)
{
	const cJSON *errs = cJSON_GetObjectItemCaseSensitive(j, "errors");
	const cJSON *x;

	cJSON_ArrayForEach(x, errs) {
		const cJSON *t = cJSON_GetObjectItemCaseSensitive(x, "type");
		const cJSON *m = cJSON_GetObjectItemCaseSensitive(x, "message");
		const char *msg = cJSON_IsString(m) ? m->valuestring : "";

		if (text_find(msg, strlen(msg), "secondary rate limit",
			      20) >= 0)
			return 2;
		if (cJSON_IsString(t) && !strcmp(t->valuestring,
						 "RATE_LIMITED"))
			return 1;
	}
	return 0;
}

/* After a transient fault: give up once the attempts are spent (ERR_NET
 * naming the exchange and `what`), else back off and return 0. */
int ghc_retry_later(struct ghc *c, struct tries *t, const char *method,
		    const char *url, const char *what, struct err *e)
{
	double ms;

	if (t->no_retry)
		return err_set(e, ERR_NET, "%s %s: %s", method, url, what);
	if (t->attempt >= c->max_attempts)
		return err_set(e, ERR_NET, "%s %s: %s (after %d attempts)",
			       method, url, what, t->attempt);
	c->stats->retries++;
	ms = (double)c->backoff_ms * (double)(1 << (t->attempt - 1));
	if (ms > 60000)
		ms = 60000;
	return ghc_pause_for(c, ms / 1000.0, "retrying", e);
}

/* The primary limit is spent: wait for its reset. */
int ghc_wait_primary(struct ghc *c, struct tries *t, const char *method,
		     const char *url, const struct ghc_resp *r,
		     struct err *e)
{
	long long reset = r->rl_reset ? r->rl_reset :
			  (long long)time(NULL) + 60;

	if (++t->rate_waits > MAX_RATE_WAITS)
		return err_set(e, ERR_NET, "%s %s: HTTP %ld, the rate limit "
			       "is still exhausted", method, url, r->status);
	return ghc_pause_for(c, ghc_until_reset(reset), "rate limit reset", e);
}

/* A secondary limit: wait as long as retry-after asks (plus back-off
 * when it repeats), or back off exponentially from a minute. */
int ghc_wait_secondary(struct ghc *c, struct tries *t,
		       const char *method, const char *url,
		       const struct ghc_resp *r, struct err *e)
{
	double secs, step = c->backoff_ms / 1000.0;
	char *end = NULL;
	long ra = r->retry_after ? strtol(r->retry_after, &end, 10) : -1;

	if (++t->secondary > MAX_SECONDARY)
		return err_set(e, ERR_NET, "%s %s: HTTP %ld, still limited "
			       "after %d waits", method, url, r->status,
			       t->secondary - 1);
	/* a blank or unreadable retry-after is no answer: GitHub's guidance
	   is then to wait at least a minute */
	if (r->retry_after && end && end != r->retry_after && *end == '\0' &&
	    ra >= 0)
		secs = (double)ra + (t->secondary > 1 ?
			step * (double)(1 << (t->secondary - 2)) : 0);
	else
		secs = 60.0 * step * (double)(1 << (t->secondary - 1));
	if (secs > MAX_WAIT_S)
		secs = MAX_WAIT_S;
	c->stats->retries++;
	return ghc_pause_for(c, secs, "secondary rate limit", e);
}

int ghc_is_primary(const struct ghc_resp *r)
{
	return (r->status == 403 || r->status == 429) &&
	       r->rl_remaining == 0 && !r->retry_after;
}
