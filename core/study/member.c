/* SPDX-License-Identifier: MIT */
/*
 * member: see member.h.
 */
#include "core/study/member.h"

#include <ctype.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/store/audit.h"
#include "core/base/buf.h"
#include "core/base/suggest.h"
#include "core/base/priv.h"

char *member_os_user(void)
{
	struct passwd *pw = getpwuid(getuid());
	char tmp[32];

	if (pw && pw->pw_name && *pw->pw_name)
		return xstrdup(pw->pw_name);
	snprintf(tmp, sizeof(tmp), "uid%u", (unsigned)getuid());
	return xstrdup(tmp);
}

const char *role_name(enum role r)
{
	switch (r) {
	case ROLE_OWNER:
		return "owner";
	case ROLE_ANNOTATOR:
		return "annotator";
	case ROLE_ADJUDICATOR:
		return "adjudicator";
	case ROLE_MACHINE:
		return "machine";
	default:
		return "none";
	}
}

enum role role_parse(const char *s)
{
	if (!strcmp(s, "owner"))
		return ROLE_OWNER;
	if (!strcmp(s, "annotator"))
		return ROLE_ANNOTATOR;
	if (!strcmp(s, "adjudicator"))
		return ROLE_ADJUDICATOR;
	if (!strcmp(s, "machine"))
		return ROLE_MACHINE;
	return ROLE_NONE;
}

int member_valid_name(const char *name)
{
	const char *p;

	if (!*name || strlen(name) > 64 || name[0] == '-')
		return 0;
	for (p = name; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("._-@", *p))
			return 0;
	return 1;
}

int member_find(struct store *st, const char *name, long long *id,
		enum role *role, struct err *e)
{
	sqlite3_stmt *s;
	int rc;

	s = store_prepare(st, "SELECT id, CASE WHEN machine THEN 'machine' "
			  "ELSE role END FROM members WHERE name = ? AND "
			  "active", e);
	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	rc = store_step(st, s, "looking up a member", e);
	if (rc > 0) {
		if (id)
			*id = sqlite3_column_int64(s, 0);
		if (role)
			*role = role_parse((const char *)
					   sqlite3_column_text(s, 1));
	}
	sqlite3_finalize(s);
	if (rc > 0)
		return 0;
	if (rc < 0)
		return -1;
	err_set(e, ERR_NOTFOUND, "%s: not a member of this study", name);
	s = store_prepare(st, "SELECT name FROM members WHERE active ORDER BY "
			  "id", NULL);
	if (s) {
		struct suggest sg;

		suggest_init(&sg, name);
		/* suggestions only: a failed read suggests nothing */
		while ((rc = store_step(st, s, "", NULL)) > 0)
			suggest_add(&sg, (const char *)
				    sqlite3_column_text(s, 0));
		sqlite3_finalize(s);
		if (rc == 0)
			err_suggest(e, suggest_result(&sg));
		suggest_release(&sg);
	}
	return -1;
}

static int resolve(struct store *st, const char *as, struct actor *a,
		   int allow_none, struct err *e)
{
	enum role own_role = ROLE_NONE;
	long long own_id = 0;
	struct err ignore = ERR_INIT;

	memset(a, 0, sizeof(*a));
	a->os_user = member_os_user();
	if (member_find(st, a->os_user, &own_id, &own_role, &ignore) < 0 &&
	    ignore.code != ERR_NOTFOUND) {
		*e = ignore;
		goto fail;
	}
	if (as && strcmp(as, a->os_user)) {
		if (own_role != ROLE_OWNER) {
			err_set(e, ERR_PERM, "--as %s: only the study's owner "
				"may act for another member", as);
			goto fail;
		}
		if (member_find(st, as, &a->member_id, &a->role, e) < 0)
			goto fail;
		if (a->role == ROLE_MACHINE) {
			err_set(e, ERR_PERM, "--as %s: %s is a machine coder; "
				"it codes only through `bugcoder machine-code`",
				as, as);
			goto fail;
		}
		a->name = xstrdup(as);
		a->acting_for = 1;
		return 0;
	}
	if (!own_id && !allow_none) {
		err_set(e, ERR_PERM, "%s is not a member of this study (the "
			"owner adds members with `bugcoder member add`)",
			a->os_user);
		goto fail;
	}
	a->name = xstrdup(a->os_user);
	a->member_id = own_id;
	a->role = own_role;
	return 0;
fail:
	actor_release(a);
	return -1;
}

int member_resolve(struct store *st, const char *as, struct actor *a,
		   struct err *e)
{
	return resolve(st, as, a, 0, e);
}

int member_resolve_any(struct store *st, const char *as, struct actor *a,
		       struct err *e)
{
	return resolve(st, as, a, 1, e);
}

void actor_release(struct actor *a)
{
	if (!a)
		return;
	free(a->os_user);
	free(a->name);
	memset(a, 0, sizeof(*a));
}

const char *actor_for(const struct actor *a)
{
	return a->acting_for ? a->name : NULL;
}

int actor_require(const struct actor *a, unsigned roles, const char *what,
		  struct err *e)
{
	if (roles & ROLES(a->role))
		return 0;
	return err_set(e, ERR_PERM, "%s: not allowed for %s (%s)", what,
		       a->name, a->role == ROLE_NONE ? "not a member" :
		       role_name(a->role));
}

/* Refuse when `name` annotates an open round: without their labels its
 * items would never be ready for agreement.  `doing` says what was
 * asked ("removed", "given another role").  0 when free, else -1. */
static int refuse_open_round(struct store *st, const char *name,
			     const char *doing, struct err *e)
{
	sqlite3_stmt *s;
	int rc;

	s = store_prepare(st, "SELECT r.name FROM rounds r JOIN "
			  "round_annotators ra ON ra.round_id = r.id JOIN "
			  "members m ON m.id = ra.member_id WHERE m.name = ? "
			  "AND r.closed_at IS NULL ORDER BY r.id LIMIT 1", e);
	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	rc = store_step(st, s, "reading the rounds", e);
	if (rc > 0) {
		const char *r = (const char *)sqlite3_column_text(s, 0);

		err_set(e, ERR_INPUT, "%s annotates the open round %s and "
			"cannot be %s; close it first (bugcoder round close "
			"%s)", name, r, doing, r);
		rc = -1;
	}
	sqlite3_finalize(s);
	return rc < 0 ? -1 : 0;
}

int member_add(struct store *st, const struct actor *a, const char *name,
	       enum role role, struct err *e)
{
	sqlite3_stmt *s = NULL;
	char now[32];
	char *old = NULL;
	int ret = -1, rc;

	if (actor_require(a, ROLES(ROLE_OWNER), "member add", e) < 0)
		return -1;
	if (!member_valid_name(name))
		return err_set(e, ERR_INPUT, "%s: not a valid member name "
			       "(an OS account name)", name);
	if (role == ROLE_NONE)
		return err_set(e, ERR_INPUT, "unknown role (owner, annotator, "
			       "adjudicator or machine)");
	/* on a server install a member reaches the study only as an OS
	 * account: a name that is none is a typo */
	if (role != ROLE_MACHINE && priv_server_conf() && !getpwnam(name))
		return err_set(e, ERR_INPUT, "%s: no such account on this "
			       "system (a member is an OS account: create it "
			       "first)", name);
	if (store_begin(st, e) < 0)
		return -1;
	s = store_prepare(st, "SELECT CASE WHEN machine THEN 'machine' ELSE "
			  "role END || CASE WHEN active THEN '' ELSE "
			  "' (removed)' END FROM members WHERE name = ?",
			  e);
	if (!s)
		goto out;
	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	rc = store_step(st, s, "reading the members", e);
	if (rc > 0)
		old = xstrdup((const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	s = NULL;	/* finalized again at `out` otherwise */
	if (rc < 0)
		goto out;
	if (old && !strcmp(old, "owner") && role != ROLE_OWNER) {
		sqlite3_stmt *c = store_prepare(st, "SELECT count(*) FROM "
			"members WHERE role = 'owner' AND active", e);
		int owners = 0;

		if (!c)
			goto out;
		rc = store_step(st, c, "counting owners", e);
		if (rc > 0)
			owners = sqlite3_column_int(c, 0);
		sqlite3_finalize(c);
		if (rc < 0)
			goto out;
		if (owners <= 1) {
			err_set(e, ERR_INPUT, "%s is the only owner; add "
				"another owner first", name);
			goto out;
		}
	}
	/* a role change of an annotator of an open round would leave
	 * that round unfinishable */
	if (old && (!strcmp(old, "annotator") || !strcmp(old, "machine")) &&
	    role_parse(old) != role &&
	    refuse_open_round(st, name, "given another role", e) < 0)
		goto out;
	store_now(now);
	/* a machine is an annotator in the table, marked */
	s = store_prepare(st, "INSERT INTO members (name, role, active, "
			  "added_at, machine) VALUES (?1, ?2, 1, ?3, ?4) ON "
			  "CONFLICT (name) DO UPDATE SET role = ?2, active = 1, "
			  "machine = ?4", e);
	if (!s)
		goto out;
	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, role_name(role == ROLE_MACHINE ?
					  ROLE_ANNOTATOR : role), -1,
			  SQLITE_STATIC);
	sqlite3_bind_text(s, 3, now, -1, SQLITE_STATIC);
	sqlite3_bind_int(s, 4, role == ROLE_MACHINE);
	if (store_step(st, s, "adding a member", e) < 0)
		goto out;
	{
		struct buf o = BUF_INIT, n = BUF_INIT, d = BUF_INIT;
		long long id = 0;

		sqlite3_finalize(s);
		s = store_prepare(st, "SELECT id FROM members WHERE name = ?",
				  e);
		if (!s)
			goto out;
		sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
		rc = store_step(st, s, "reading the members", e);
		if (rc > 0)
			id = sqlite3_column_int64(s, 0);
		if (rc <= 0) {
			if (!rc)
				err_set(e, ERR_DB, "adding a member: %s is not "
					"there", name);
			goto out;
		}
		if (old)
			buf_addf(&o, "%s=%s", name, old);
		buf_addf(&n, "%s=%s", name, role_name(role));
		audit_detail_int(&d, "id", id);
		rc = audit_write_detail(st, a->os_user, actor_for(a),
					"member.add", 0, NULL, old ? o.ptr :
					NULL, n.ptr, audit_detail_end(&d), e);
		buf_release(&o);
		buf_release(&n);
		buf_release(&d);
		if (rc < 0)
			goto out;
	}
	ret = store_commit(st, e);
out:
	if (ret < 0)
		store_rollback(st);
	sqlite3_finalize(s);
	free(old);
	return ret;
}

int member_remove(struct store *st, const struct actor *a, const char *name,
		  struct err *e)
{
	sqlite3_stmt *s = NULL;
	enum role role;
	int ret = -1, owners = 0, rc;

	if (actor_require(a, ROLES(ROLE_OWNER), "member remove", e) < 0)
		return -1;
	if (store_begin(st, e) < 0)
		return -1;
	if (member_find(st, name, NULL, &role, e) < 0)
		goto out;
	if (role == ROLE_OWNER) {
		s = store_prepare(st, "SELECT count(*) FROM members WHERE "
				  "role = 'owner' AND active", e);
		if (!s)
			goto out;
		rc = store_step(st, s, "counting owners", e);
		if (rc > 0)
			owners = sqlite3_column_int(s, 0);
		sqlite3_finalize(s);
		s = NULL;
		if (rc < 0)
			goto out;
		if (owners <= 1) {
			err_set(e, ERR_INPUT, "%s is the only owner and cannot "
				"be removed", name);
			goto out;
		}
	}
	if (refuse_open_round(st, name, "removed", e) < 0)
		goto out;
	s = store_prepare(st, "UPDATE members SET active = 0 WHERE name = ?",
			  e);
	if (!s)
		goto out;
	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	if (store_step(st, s, "removing a member", e) < 0)
		goto out;
	if (audit_write(st, a->os_user, actor_for(a), "member.remove", 0,
			NULL, name, NULL, e) < 0)
		goto out;
	ret = store_commit(st, e);
out:
	if (ret < 0)
		store_rollback(st);
	sqlite3_finalize(s);
	return ret;
}

int member_each(struct store *st,
		int (*fn)(const char *name, const char *role,
			  const char *added_at, void *data),
		void *data, struct err *e)
{
	sqlite3_stmt *s;
	int rc, stop = 0;

	s = store_prepare(st, "SELECT name, CASE WHEN machine THEN 'machine' "
			  "ELSE role END, added_at FROM members WHERE active "
			  "ORDER BY CASE role WHEN 'owner' THEN 0 "
			  "WHEN 'adjudicator' THEN 1 ELSE 2 END, name", e);
	if (!s)
		return -1;
	while (!stop && (rc = store_step(st, s, "reading members", e)) > 0)
		stop = fn((const char *)sqlite3_column_text(s, 0),
			  (const char *)sqlite3_column_text(s, 1),
			  (const char *)sqlite3_column_text(s, 2), data);
	sqlite3_finalize(s);
	if (stop)
		return stop;
	return rc < 0 ? -1 : 0;
}
