/* SPDX-License-Identifier: MIT */
/*
 * curl_lazy: libcurl, loaded when the first request is made.
 *
 * libcurl pulls in some thirty libraries (TLS, Kerberos, LDAP, SSH...)
 * whose loading costs every bugcoder process about 6 MB of memory and a
 * few milliseconds, although only `fetch` talks to the network.  So the
 * binary does not link libcurl; core/github/ghclient.c calls it through this
 * table, filled by curl_lazy_load() from libcurl.so.4 on first use.
 * The type-checking macros of curl.h are turned off: the table's
 * variadic setopt/getinfo are the library's own entry points.
 */
#ifndef BUGCODER_CURL_LAZY_H
#define BUGCODER_CURL_LAZY_H

#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>

#include "core/base/err.h"

struct curl_lazy {
	CURLcode (*global_init)(long flags);
	CURL *(*easy_init)(void);
	CURLcode (*easy_setopt)(CURL *curl, CURLoption option, ...);
	CURLcode (*easy_perform)(CURL *curl);
	CURLcode (*easy_getinfo)(CURL *curl, CURLINFO info, ...);
	void (*easy_cleanup)(CURL *curl);
	const char *(*easy_strerror)(CURLcode code);
	char *(*easy_escape)(CURL *curl, const char *s, int len);
	void (*free)(void *p);
	struct curl_slist *(*slist_append)(struct curl_slist *list,
					   const char *s);
	void (*slist_free_all)(struct curl_slist *list);
};

/* The loaded entry points; valid after curl_lazy_load() succeeded. */
extern struct curl_lazy curl_lazy;

/* Load libcurl (once; later calls return at once) and initialise it.
 * Returns 0, or -1 with ERR_IO naming what is missing. */
int curl_lazy_load(struct err *e);

#endif
