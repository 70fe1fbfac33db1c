/* SPDX-License-Identifier: MIT */
/*
 * sha256: the SHA-256 hash of FIPS 180-4, for the manifest of the
 * replication package and the chain of the audit log.
 *
 * Written from the standard (sections 4.1.2, 4.2.2, 5.1.1, 5.3.3 and
 * 6.2); checked against the NIST example vectors in tests/t_csv.c.  Not
 * constant-time and not meant for secrets: it hashes files we just wrote and audit rows.
 * Messages up to 2^64 - 1 bits, as the standard allows.
 */
#ifndef BUGCODER_SHA256_H
#define BUGCODER_SHA256_H

#include <stddef.h>
#include <stdint.h>

#include "core/base/err.h"

#define SHA256_LEN 32		/* bytes of a digest */
#define SHA256_HEX_LEN 64	/* hex digits of a digest */

struct sha256 {
	uint32_t h[8];		/* the intermediate hash value H(i) */
	uint64_t nbytes;	/* message length so far */
	unsigned char block[64];	/* a partial block */
	size_t fill;		/* bytes in `block` */
};

void sha256_init(struct sha256 *c);
/* Hash `len` more bytes of the message. */
void sha256_update(struct sha256 *c, const void *data, size_t len);
/* Pad, finish and store the digest in out[32]; `c` must be
 * sha256_init()ed again before reuse. */
void sha256_final(struct sha256 *c, unsigned char out[SHA256_LEN]);

/* Lower-case hex of a digest into hex[65] (NUL-terminated). */
void sha256_hex(const unsigned char digest[SHA256_LEN],
		char hex[SHA256_HEX_LEN + 1]);

/* The hex digest of a file's content into hex[65], and its size into
 * *size (may be NULL).  Returns 0, or -1 with `e` filled (ERR_IO). */
int sha256_file(const char *path, char hex[SHA256_HEX_LEN + 1],
		long long *size, struct err *e);

#endif
