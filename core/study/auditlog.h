/* SPDX-License-Identifier: MIT */
/*
 * auditlog: the audit log as the members read it (`bugcoder log`, the
 * replication package's audit.csv): who may read which rows is
 * core/study/access's rule, the rows are core/store/audit's.
 */
#ifndef BUGCODER_AUDITLOG_H
#define BUGCODER_AUDITLOG_H

#include "core/base/err.h"
#include "core/store/audit.h"
#include "core/store/store.h"
#include "core/study/member.h"

struct audit_filter {
	long long item_id;	/* 0: every item */
	const char *member;	/* NULL: everyone; else rows by or for them */
};

/* Called for each row in order; a non-zero return stops the listing and
 * is returned. */
typedef int (*audit_row_fn)(const struct audit_row *r, void *data);

/* The rows `a` may read, oldest first: the owner reads everything,
 * anyone else only their own actions (by them, or by the owner for
 * them), without their detail (it may name the coders a blind
 * adjudicator does not know).  Returns 0, the callback's non-zero value, or -1 with `e`. */
int audit_list(struct store *st, const struct actor *a,
	       const struct audit_filter *f, audit_row_fn fn, void *data,
	       struct err *e);

#endif
