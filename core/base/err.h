/* SPDX-License-Identifier: MIT */
/*
 * err: the one error convention of core/.
 *
 * A core function that can fail takes a caller-owned `struct err *` as its
 * last argument, fills it and returns -1 (or NULL).  It never prints and
 * never exits.  The message is one line naming the file, line, item or field
 * at fault; the caller decides where it goes.
 */
#ifndef BUGCODER_ERR_H
#define BUGCODER_ERR_H

enum err_code {
	ERR_NONE = 0,
	ERR_INPUT,	/* bad input the user can fix (exit 1) */
	ERR_PERM,	/* not allowed for this member (exit 1) */
	ERR_NOTFOUND,	/* no such item, member, round... (exit 1) */
	ERR_IO,		/* file system (exit 1) */
	ERR_DB,		/* SQLite failed (exit 1) */
	ERR_USAGE,	/* wrong command line (exit 2) */
	ERR_BUSY,	/* study locked by someone else; retry (exit 3) */
	ERR_NET,	/* network, worth retrying (exit 3) */
	ERR_INTERRUPTED,	/* stopped by a signal; nothing partial kept
				   (exit 3) */
	ERR_STALE	/* a newer codebook version came in meanwhile:
			   reload and try again (exit 3) */
};

struct err {
	int code;		/* enum err_code; ERR_NONE when clear */
	char msg[512];		/* one line, no trailing newline */
};

#define ERR_INIT { ERR_NONE, "" }

/* Fill `e` (which may be NULL) and return -1, so callers can write
 * `return err_set(e, ERR_INPUT, "...")`.  Newlines in the formatted text
 * become spaces so the message stays one line. */
int err_set(struct err *e, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Prefix the message already in `e` with "prefix: ", keeping its code.
 * Returns -1. */
int err_prefix(struct err *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

void err_clear(struct err *e);

/* The process exit code DESIGN.md gives for an error code. */
int err_exit_code(int code);

#endif
