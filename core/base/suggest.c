/* SPDX-License-Identifier: MIT */
/*
 * suggest: see suggest.h.
 */
#include "core/base/suggest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/buf.h"

static int lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

static size_t min3(size_t a, size_t b, size_t c)
{
	size_t m = a < b ? a : b;

	return m < c ? m : c;
}

/* Three rows of the dynamic programme: the one before the last, the
 * last, and the one being filled. */
size_t suggest_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j, d;
	size_t *prev2 = xcalloc(lb + 1, sizeof(size_t));
	size_t *prev = xcalloc(lb + 1, sizeof(size_t));
	size_t *cur = xcalloc(lb + 1, sizeof(size_t));

	for (j = 0; j <= lb; j++)
		prev[j] = j;
	for (i = 1; i <= la; i++) {
		size_t *t;

		cur[0] = i;
		for (j = 1; j <= lb; j++) {
			int same = lower((unsigned char)a[i - 1]) ==
				   lower((unsigned char)b[j - 1]);

			cur[j] = min3(prev[j] + 1, cur[j - 1] + 1,
				      prev[j - 1] + !same);
			if (i > 1 && j > 1 &&
			    lower((unsigned char)a[i - 1]) ==
			    lower((unsigned char)b[j - 2]) &&
			    lower((unsigned char)a[i - 2]) ==
			    lower((unsigned char)b[j - 1]) &&
			    prev2[j - 2] + 1 < cur[j])
				cur[j] = prev2[j - 2] + 1;
		}
		t = prev2;
		prev2 = prev;
		prev = cur;
		cur = t;
	}
	d = prev[lb];
	free(prev2);
	free(prev);
	free(cur);
	return d;
}

static size_t limit(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), l = la > lb ? la : lb;
	size_t m = (l + 2) / 3;

	return m < 1 ? 1 : m > 3 ? 3 : m;
}

static int is_prefix(const char *typed, const char *cand)
{
	size_t n = strlen(typed), i;

	if (!n || n >= strlen(cand))
		return 0;
	for (i = 0; i < n; i++)
		if (lower((unsigned char)typed[i]) !=
		    lower((unsigned char)cand[i]))
			return 0;
	return 1;
}

void suggest_init(struct suggest *s, const char *typed)
{
	memset(s, 0, sizeof(*s));
	s->typed = typed;
	s->best_dist = (size_t)-1;
}

void suggest_add(struct suggest *s, const char *cand)
{
	size_t d;

	if (!cand || !strcmp(cand, s->typed))
		return;
	if (is_prefix(s->typed, cand) && !s->nr_prefix++)
		s->prefix = xstrdup(cand);
	d = suggest_distance(s->typed, cand);
	if (d <= limit(s->typed, cand) && d < s->best_dist) {
		free(s->best);
		s->best = xstrdup(cand);
		s->best_dist = d;
	}
}

const char *suggest_result(const struct suggest *s)
{
	if (s->best)
		return s->best;
	return s->nr_prefix == 1 ? s->prefix : NULL;
}

void suggest_release(struct suggest *s)
{
	if (!s)
		return;
	free(s->best);
	free(s->prefix);
	memset(s, 0, sizeof(*s));
}

const char *suggest_closest(const char *typed, const char *const *cands,
			    size_t n)
{
	struct suggest s;
	const char *r = NULL, *got;
	size_t i;

	suggest_init(&s, typed);
	for (i = 0; i < n; i++)
		suggest_add(&s, cands[i]);
	got = suggest_result(&s);
	for (i = 0; got && i < n; i++)
		if (cands[i] && !strcmp(cands[i], got)) {
			r = cands[i];
			break;
		}
	suggest_release(&s);
	return r;
}

int err_suggest(struct err *e, const char *suggestion)
{
	size_t len;

	if (!e || !suggestion)
		return -1;
	len = strlen(e->msg);
	snprintf(e->msg + len, sizeof(e->msg) - len, "; did you mean %s?",
		 suggestion);
	return -1;
}
