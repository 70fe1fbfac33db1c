/* SPDX-License-Identifier: MIT */
/*
 * member: who is running the program, and what they may do.
 *
 * Identity is the OS account (getuid), not a flag.  The owner may act for
 * another member with --as USER (scripts and tests use it); the audit log
 * then records both names.  Roles: owner (set up, import, export, add
 * members; sees everything), annotator (codes items, blind to the others),
 * adjudicator (resolves disagreements, decides proposals; sees
 * everything), machine (a program run by `machine-code`: not an OS
 * account, never logs in, not even through --as; its labels are labels
 * like any other).
 */
#ifndef BUGCODER_MEMBER_H
#define BUGCODER_MEMBER_H

#include "core/base/err.h"
#include "core/store/store.h"

enum role {
	ROLE_NONE = 0,
	ROLE_OWNER,
	ROLE_ANNOTATOR,
	ROLE_ADJUDICATOR,
	ROLE_MACHINE,		/* a program that codes (machine-code); never
				   an actor */
};

struct actor {
	char *os_user;		/* the account running the program */
	char *name;		/* the member acted as (== os_user unless --as) */
	long long member_id;	/* of `name`; 0 when not a member */
	enum role role;		/* of `name` */
	int acting_for;		/* --as was used */
};

#define ACTOR_INIT { NULL, NULL, 0, ROLE_NONE, 0 }

/* Name of the OS account running us, owned by the caller.  Never NULL:
 * falls back to "uid<N>" when the account has no passwd entry. */
char *member_os_user(void);

/* Work out who is acting.  `as` is the --as argument or NULL.  Fails
 * (ERR_PERM) when the OS account is not a member, or --as is used by a
 * non-owner, or names an unknown or removed member. */
int member_resolve(struct store *st, const char *as, struct actor *a,
		   struct err *e);
/* Like member_resolve() but a non-member is allowed (role ROLE_NONE),
 * for read-only commands such as `status`. */
int member_resolve_any(struct store *st, const char *as, struct actor *a,
		       struct err *e);
void actor_release(struct actor *a);

/* Call fn(name, role, added_at, data) for every active member, owners
 * first, then adjudicators, then the rest, by name.  Stops at the first
 * non-zero return of fn and returns it; 0, or -1 with `e` filled. */
int member_each(struct store *st,
		int (*fn)(const char *name, const char *role,
			  const char *added_at, void *data),
		void *data, struct err *e);

/* "owner", "annotator", "adjudicator", "machine" <-> enum role; ROLE_NONE
 * if not. */
const char *role_name(enum role r);
enum role role_parse(const char *s);

/* The name recorded as "for whom" in the audit log: NULL unless --as. */
const char *actor_for(const struct actor *a);

/* Add (or re-activate, or change the role of) a member.  Only the owner.
 * Audited. */
int member_add(struct store *st, const struct actor *a, const char *name,
	       enum role role, struct err *e);
/* Remove a member: they lose access; their labels stay.  The last owner
 * cannot be removed.  Audited. */
int member_remove(struct store *st, const struct actor *a, const char *name,
		  struct err *e);

/* Look up an active member by name: id and role.  Returns 0, or -1 with
 * ERR_NOTFOUND. */
int member_find(struct store *st, const char *name, long long *id,
		enum role *role, struct err *e);

/* Is the name acceptable as a member name (an OS account name)? */
int member_valid_name(const char *name);

/* Permission checks, returning 0 or -1 with ERR_PERM and a message
 * naming the action. */
int actor_require(const struct actor *a, unsigned roles, const char *what,
		  struct err *e);
#define ROLES(r) (1u << (r))

#endif
