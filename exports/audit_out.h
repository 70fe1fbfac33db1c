/* SPDX-License-Identifier: MIT */
/*
 * audit_out: the audit log as CSV or JSON Lines, for `bugcoder audit`
 * and the replication package (audit.csv).
 *
 * Columns: id, at, actor, for_member, action, item, dimension, old, new,
 * detail (the owner's only), hash.  Rows are those core/store/audit lets the
 * actor read, oldest first.
 */
#ifndef BUGCODER_AUDIT_OUT_H
#define BUGCODER_AUDIT_OUT_H

#include <stdio.h>

#include "core/store/audit.h"
#include "core/study/auditlog.h"
#include "core/base/err.h"
#include "core/study/member.h"
#include "core/store/store.h"

enum audit_format {
	AUDIT_CSV,
	AUDIT_JSONL,
};

/* Write the rows `a` may read, filtered by `f` (may be NULL), to `out`
 * (borrowed).  Returns the number of rows, or -1 with `e` filled
 * (ERR_IO when writing failed). */
long long audit_out_write(struct store *st, const struct actor *a,
			  const struct audit_filter *f, enum audit_format fmt,
			  FILE *out, struct err *e);

#endif
