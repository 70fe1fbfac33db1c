/* SPDX-License-Identifier: MIT */
/*
 * buf: see buf.h.
 */
#include "core/base/buf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/base/priv.h"

char buf_empty[1];

static void oom(size_t n)
{
	fprintf(stderr, "bugcoder: out of memory allocating %zu bytes\n", n);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		oom(n);
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (!p)
		oom(nmemb * size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q)
		oom(n);
	return q;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *xstrdup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

void buf_init(struct buf *b, size_t hint)
{
	b->ptr = buf_empty;
	b->len = 0;
	b->alloc = 0;
	if (hint)
		buf_grow(b, hint);
}

void buf_release(struct buf *b)
{
	if (!b)
		return;
	if (b->alloc)
		free(b->ptr);
	buf_init(b, 0);
}

char *buf_detach(struct buf *b, size_t *len)
{
	char *p;

	if (!b->alloc)
		buf_grow(b, 0);
	p = b->ptr;
	if (len)
		*len = b->len;
	buf_init(b, 0);
	return p;
}

void buf_grow(struct buf *b, size_t extra)
{
	size_t want;

	if (extra > ((size_t)-1) / 2 - b->len)
		oom(extra);
	want = b->len + extra + 1;
	if (want <= b->alloc)
		return;
	if (!b->alloc)
		b->ptr = NULL;
	if (want < b->alloc * 3 / 2)
		want = b->alloc * 3 / 2;
	if (want < 32)
		want = 32;
	b->ptr = xrealloc(b->ptr, want);
	if (!b->alloc)
		b->ptr[0] = '\0';
	b->alloc = want;
}

void buf_setlen(struct buf *b, size_t len)
{
	if (!b->alloc && len == 0)
		return;
	if (len + 1 > b->alloc)
		buf_grow(b, len - b->len);
	b->len = len;
	b->ptr[len] = '\0';
}

void buf_add(struct buf *b, const void *data, size_t len)
{
	if (!len)
		return;
	buf_grow(b, len);
	memcpy(b->ptr + b->len, data, len);
	b->len += len;
	b->ptr[b->len] = '\0';
}

void buf_addstr(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

void buf_addch(struct buf *b, int c)
{
	buf_grow(b, 1);
	b->ptr[b->len++] = (char)c;
	b->ptr[b->len] = '\0';
}

void buf_vaddf(struct buf *b, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n <= 0)
		return;
	buf_grow(b, (size_t)n);
	vsnprintf(b->ptr + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void buf_addf(struct buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	buf_vaddf(b, fmt, ap);
	va_end(ap);
}

void buf_set(struct buf *b, const char *s)
{
	buf_reset(b);
	buf_addstr(b, s);
}

int buf_read_fd(struct buf *b, int fd)
{
	for (;;) {
		ssize_t n;

		buf_grow(b, 65536);
		n = read(fd, b->ptr + b->len, b->alloc - b->len - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			b->ptr[b->len] = '\0';
			return -1;
		}
		if (n == 0)
			break;
		b->len += (size_t)n;
	}
	b->ptr[b->len] = '\0';
	return 0;
}

int buf_read_file(struct buf *b, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int ret, saved;

	if (fd < 0)
		return -1;
	/* never one of the study's own files (see priv_input_ok()) */
	ret = priv_input_ok(fd) < 0 ? -1 : buf_read_fd(b, fd);
	saved = errno;
	close(fd);
	errno = saved;
	return ret;
}
