/* SPDX-License-Identifier: MIT */
/*
 * err: see err.h.
 */
#include "core/base/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void one_line(char *s)
{
	for (; *s; s++)
		if (*s == '\n' || *s == '\r')
			*s = ' ';
}

int err_set(struct err *e, int code, const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return -1;
	e->code = code;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	one_line(e->msg);
	return -1;
}

int err_prefix(struct err *e, const char *fmt, ...)
{
	char head[256];
	size_t hl, ml;
	va_list ap;

	if (!e)
		return -1;
	va_start(ap, fmt);
	vsnprintf(head, sizeof(head) - 2, fmt, ap);
	va_end(ap);
	hl = strlen(head);
	memcpy(head + hl, ": ", 3);
	hl += 2;
	ml = strlen(e->msg);
	if (hl + ml >= sizeof(e->msg))
		ml = sizeof(e->msg) - 1 - hl;
	memmove(e->msg + hl, e->msg, ml);
	memcpy(e->msg, head, hl);
	e->msg[hl + ml] = '\0';
	one_line(e->msg);
	return -1;
}

void err_clear(struct err *e)
{
	if (!e)
		return;
	e->code = ERR_NONE;
	e->msg[0] = '\0';
}

int err_exit_code(int code)
{
	switch (code) {
	case ERR_NONE:
		return 0;
	case ERR_USAGE:
		return 2;
	case ERR_BUSY:
	case ERR_NET:
	case ERR_INTERRUPTED:
	case ERR_STALE:
		return 3;
	default:
		return 1;
	}
}
