/* SPDX-License-Identifier: MIT */
/*
 * access: see access.h.
 */
#include "core/access.h"

#include <stdlib.h>
#include <string.h>

int access_sees_all(const struct actor *a)
{
	return a->role == ROLE_OWNER || a->role == ROLE_ADJUDICATOR;
}

int access_whole_log(const struct actor *a)
{
	return a && a->role == ROLE_OWNER;
}

int access_rule(const struct actor *a, long long worker_id, int in_round,
		int closed)
{
	if (a->member_id && worker_id == a->member_id)
		return 1;
	if (access_sees_all(a))
		return 1;
	if (a->role != ROLE_ANNOTATOR)
		return 0;
	return in_round && closed;
}

int access_names_coders(const struct actor *a, int blind, int resolved)
{
	/* whoever may see the work sees who did it, but for a blind
	 * adjudicator before the item is decided */
	if (a->role == ROLE_ADJUDICATOR)
		return !blind || resolved;
	return 1;
}

int access_item_round(struct store *st, long long item_id,
		      long long *round_id, int *closed, struct err *e)
{
	static const char round_sql[] = "SELECT r.id, r.closed_at IS NOT "
		"NULL FROM assignments a JOIN rounds r ON r.id = a.round_id "
		"WHERE a.item_id = ?";
	sqlite3_stmt *s;
	int rc;

	*round_id = 0;
	*closed = 0;
	s = store_cached(st, round_sql, e);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, item_id);
	rc = store_step(st, s, "reading the item's round", e);
	if (rc > 0) {
		*round_id = sqlite3_column_int64(s, 0);
		*closed = sqlite3_column_int(s, 1);
	}
	store_done(s);
	return rc < 0 ? -1 : 0;
}

int access_may_see(struct store *st, const struct actor *a,
		   long long item_id, long long worker_id, struct err *e)
{
	long long round;
	int closed;

	/* decided without the database where the rule allows */
	if ((a->member_id && worker_id == a->member_id) ||
	    access_sees_all(a))
		return 1;
	if (a->role != ROLE_ANNOTATOR)
		return 0;
	if (access_item_round(st, item_id, &round, &closed, e) < 0)
		return -1;
	return access_rule(a, worker_id, round != 0, closed);
}

int access_blind(struct store *st, struct err *e)
{
	char *v;
	int blind;

	if (store_meta_read(st, "blind_adjudication", &v, e) < 0)
		return -1;
	blind = !v || strcmp(v, "0");
	free(v);
	return blind;
}

int access_set_blind(struct store *st, const struct actor *a, int on,
		     struct err *e)
{
	int was;

	if (a->role != ROLE_OWNER)
		return err_set(e, ERR_PERM, "only the owner turns blind "
			       "adjudication %s", on ? "on" : "off");
	if (store_begin(st, e) < 0)
		return -1;
	if ((was = access_blind(st, e)) < 0)
		goto fail;
	if (was == !!on) {
		store_rollback(st);
		return 0;
	}
	if (store_meta_set(st, "blind_adjudication", on ? "1" : "0", e) < 0 ||
	    store_audit(st, a->os_user, actor_for(a), "blind_adjudication", 0,
			NULL, was ? "1" : "0", on ? "1" : "0", e) < 0)
		goto fail;
	return store_commit(st, e) < 0 ? -1 : 1;
fail:
	store_rollback(st);
	return -1;
}
