/* SPDX-License-Identifier: MIT */
/*
 * buf: the one growable string type.
 *
 * Invariants (checked by tests/t_buf.c after every operation):
 *  - after BUF_INIT or buf_init(), `ptr` is never NULL;
 *  - ptr[len] == '\0' always, so `ptr` can be used as a C string (text
 *    with embedded NULs is still tracked by `len`);
 *  - alloc == 0 means ptr points at a shared empty string and must not be
 *    written; any append allocates.
 *
 * Out of memory aborts the process (as git's xmalloc dies): no caller has a
 * better answer, and it keeps every call site honest and short.
 */
#ifndef BUGCODER_BUF_H
#define BUGCODER_BUF_H

#include <stdarg.h>
#include <stddef.h>

struct buf {
	char *ptr;	/* NUL-terminated, never NULL */
	size_t len;	/* bytes used, not counting the NUL */
	size_t alloc;	/* bytes allocated; 0 = the shared empty string */
};

extern char buf_empty[];
#define BUF_INIT { buf_empty, 0, 0 }

void buf_init(struct buf *b, size_t hint);
/* Free the memory and return `b` to BUF_INIT.  Accepts NULL. */
void buf_release(struct buf *b);
/* Hand the string to the caller (free() it) and reset `b`. */
char *buf_detach(struct buf *b, size_t *len);
/* Make room for `extra` more bytes. */
void buf_grow(struct buf *b, size_t extra);
void buf_setlen(struct buf *b, size_t len);
#define buf_reset(b) buf_setlen((b), 0)

void buf_add(struct buf *b, const void *data, size_t len);
void buf_addstr(struct buf *b, const char *s);
void buf_addch(struct buf *b, int c);
void buf_addf(struct buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void buf_vaddf(struct buf *b, const char *fmt, va_list ap);
/* Replace the content by s. */
void buf_set(struct buf *b, const char *s);

/* Read a whole file into `b` (appending): a file the user named as
 * input, so never one of a study's own (priv_input_ok()).  Returns 0, or
 * -1 with errno set. */
int buf_read_file(struct buf *b, const char *path);
/* Read all of a stream into `b`.  Returns 0, or -1 with errno set. */
int buf_read_fd(struct buf *b, int fd);

/* Memory helpers that abort on exhaustion. */
void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* xstrdup(), but NULL stays NULL. */
char *xstrdup_or_null(const char *s);

/* Grow an array `x` of `nr` used elements to hold at least `want`, git's
 * ALLOC_GROW. */
#define ALLOC_GROW(x, want, alloc) \
	do { \
		if ((size_t)(want) > (size_t)(alloc)) { \
			size_t n_ = (alloc) ? (size_t)(alloc) * 2 : 8; \
			if (n_ < (size_t)(want)) \
				n_ = (size_t)(want); \
			(x) = xrealloc((x), n_ * sizeof(*(x))); \
			(alloc) = n_; \
		} \
	} while (0)

#endif
