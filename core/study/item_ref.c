/* SPDX-License-Identifier: MIT */
/*
 * item_ref: the names of items and repositories, read and written
 * without the study: "owner/repo#N", issue and pull request URLs (on
 * GitHub or the configured API's host), repository names.  See item.h.
 */
#include "core/study/item.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/base/buf.h"

char *item_name(const char *repo, long long number)
{
	struct buf b = BUF_INIT;

	buf_addf(&b, "%s#%lld", repo, number);
	return buf_detach(&b, NULL);
}

int item_valid_repo(const char *repo)
{
	const char *slash = strchr(repo, '/');
	const char *p;

	if (!slash || slash == repo || !slash[1] || strchr(slash + 1, '/'))
		return 0;
	if (strlen(repo) > 200)
		return 0;
	for (p = repo; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("/-_.", *p))
			return 0;
	return 1;
}

/* Digits s[0..len) as a number in 1..ITEM_MAX_NUMBER, or -1: never a
 * conversion that could overflow. */
static long long parse_number(const char *s, size_t len)
{
	long long n = 0;
	size_t i;

	if (!len || len > 12)
		return -1;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		n = n * 10 + (s[i] - '0');
	}
	return n >= 1 && n <= ITEM_MAX_NUMBER ? n : -1;
}

/* "owner/name" from s[0..len) into a new string when it is one. */
static char *repo_part(const char *s, size_t len)
{
	char *r = xstrndup(s, len);

	if (!item_valid_repo(r)) {
		free(r);
		return NULL;
	}
	return r;
}

static char *api_host;		/* host[:port] of the configured API */

void item_set_api_host(const char *api_url)
{
	const char *h;

	free(api_host);
	api_host = NULL;
	if (!api_url || !*api_url)
		return;
	h = strstr(api_url, "://");
	h = h ? h + 3 : api_url;
	if (strcspn(h, "/?#"))
		api_host = xstrndup(h, strcspn(h, "/?#"));
}

const char *item_url_foreign_host(const char *s, size_t *len)
{
	static const char *const github[] = { "github.com", "www.github.com",
					      "api.github.com" };
	const char *h;
	size_t n, i;

	if (!s || (strncasecmp(s, "https://", 8) &&
		   strncasecmp(s, "http://", 7)))
		return NULL;
	h = strstr(s, "://") + 3;
	n = strcspn(h, "/?#");
	for (i = 0; i < sizeof(github) / sizeof(github[0]); i++)
		if (strlen(github[i]) == n && !strncasecmp(h, github[i], n))
			return NULL;
	if (api_host && strlen(api_host) == n && !strncasecmp(h, api_host, n))
		return NULL;
	*len = n;
	return h;
}

int item_parse_ref(const char *s, char **repo, long long *number, int *kind)
{
	size_t hostlen;
	const char *p, *hash, *end;
	size_t n;

	*repo = NULL;
	*number = -1;
	if (kind)
		*kind = ITEM_REF_ANY;
	if (!s)
		return -1;
	if (!strncmp(s, "https://", 8) || !strncmp(s, "http://", 7)) {
		const char *path = strstr(s, "://") + 3;
		const char *slash1, *slash2, *what, *num;
		int k = ITEM_REF_ANY;

		/* example.com/a/b/issues/1 is no GitHub item a/b#1 */
		if (item_url_foreign_host(s, &hostlen))
			return -1;
		path = strchr(path, '/');
		if (!path)
			return -1;
		path++;
		if (!strncmp(path, "repos/", 6))	/* the API's form */
			path += 6;
		slash1 = strchr(path, '/');
		slash2 = slash1 ? strchr(slash1 + 1, '/') : NULL;
		if (!slash2)
			return -1;
		what = slash2 + 1;
		if (!strncmp(what, "issues/", 7)) {
			num = what + 7;
			k = ITEM_REF_ISSUE;
		} else if (!strncmp(what, "pull/", 5)) {
			num = what + 5;
			k = ITEM_REF_PULL;
		} else if (!strncmp(what, "pulls/", 6)) {
			num = what + 6;
			k = ITEM_REF_PULL;
		} else {
			return -1;
		}
		n = strspn(num, "0123456789");
		/* after the number: nothing, or a sub-page, query or anchor */
		if (num[n] && !strchr("/?#", num[n]))
			return -1;
		*number = parse_number(num, n);
		if (*number < 0)
			return -1;
		*repo = repo_part(path, (size_t)(slash2 - path));
		if (!*repo)
			return -1;
		if (kind)
			*kind = k;
		return 0;
	}
	hash = strrchr(s, '#');
	if (!hash || !strchr(s, '/'))
		return -1;
	p = hash + 1;
	end = p + strlen(p);
	*number = parse_number(p, (size_t)(end - p));
	if (*number < 0)
		return -1;
	*repo = repo_part(s, (size_t)(hash - s));
	return *repo ? 0 : -1;
}
