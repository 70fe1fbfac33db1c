/* SPDX-License-Identifier: MIT */
/*
 * round_close: a round frozen, closed (refused while items are
 * unfinished, unless decided otherwise) and reopened.
 */
#include "core/study/round.h"

#include "core/study/access.h"

#include <stdlib.h>
#include <string.h>

#include "core/store/audit.h"
#include "core/base/buf.h"
#include "core/base/text.h"
#include "core/study/item.h"
#include "core/study/round_int.h"
#include "core/study/screening.h"

/* Keep round `rid` as it stands: its annotators' submissions and their
 * labels, and the codebook version now current (`freeze`); or forget
 * that record when the round opens again (`freeze` 0). */
static int round_freeze(struct store *st, long long rid, int freeze,
			struct err *e)
{
	static const char *const keep[] = {
		"INSERT INTO round_frozen (round_id, codebook_id, frozen_at) "
		"SELECT ?1, (SELECT id FROM codebooks WHERE current), ?2",
		"INSERT INTO round_submissions (round_id, item_id, member_id) "
		"SELECT a.round_id, s.item_id, s.member_id FROM submissions s "
		"JOIN assignments a ON a.item_id = s.item_id JOIN "
		"round_annotators ra ON ra.round_id = a.round_id AND "
		"ra.member_id = s.member_id WHERE a.round_id = ?1",
		"INSERT INTO round_labels (round_id, item_id, member_id, "
		"dimension, code, codebook_version) SELECT rs.round_id, "
		"l.item_id, l.member_id, l.dimension, l.code, "
		"l.codebook_version FROM labels l JOIN round_submissions rs ON "
		"rs.item_id = l.item_id AND rs.member_id = l.member_id WHERE "
		"rs.round_id = ?1",
		NULL
	};
	static const char *const forget[] = {
		"DELETE FROM round_labels WHERE round_id = ?1",
		"DELETE FROM round_submissions WHERE round_id = ?1",
		"DELETE FROM round_frozen WHERE round_id = ?1",
		NULL
	};
	const char *const *sql = freeze ? keep : forget;
	char now[32];
	size_t i;

	store_now(now);
	for (i = 0; sql[i]; i++) {
		sqlite3_stmt *s = store_prepare(st, sql[i], e);
		int rc;

		if (!s)
			return -1;
		sqlite3_bind_int64(s, 1, rid);
		if (sqlite3_bind_parameter_count(s) >= 2)
			sqlite3_bind_text(s, 2, now, -1, SQLITE_STATIC);
		rc = store_step(st, s, "keeping the round's record", e);
		sqlite3_finalize(s);
		if (rc < 0)
			return -1;
	}
	return 0;
}

int round_close(struct store *st, const struct actor *a, const char *name,
		unsigned flags, struct err *e)
{
	return round_close_decided(st, a, name, flags, NULL, e);
}

/* Would closing round `name` be refused?  -1 with `e` filled (no such
 * round, items unfinished without ROUND_FORCE), 1 when it is closed
 * already, 0 when it may close; *r is the round (release it), *left
 * (may be NULL) the unfinished items. */
static int close_refused(struct store *st, const char *name, unsigned flags,
			 struct round_info *r, size_t *left, struct err *e)
{
	char *first = NULL;
	size_t n = 0;

	if (round_get(st, name, r, e) < 0)
		return -1;
	if (r->closed_at)
		return 1;	/* nothing to do */
	if (round_unfinished_items(st, r->id, r->screen, NULL, &n, &first,
				   e) < 0)
		return -1;
	if (left)
		*left = n;
	if (n && !(flags & ROUND_FORCE)) {
		err_set(e, ERR_INPUT, "round %s: %zu of %zu %s %s not "
			"submitted by every annotator (%s is one); closing "
			"freezes them: `round close %s --force` closes it "
			"anyway", name, n, r->nr_items,
			text_plural((long long)r->nr_items, "item", "items"),
			n == 1 ? "is" : "are", first, name);
		free(first);
		return -1;
	}
	free(first);
	return 0;
}

int round_close_decided(struct store *st, const struct actor *a,
			const char *name, unsigned flags, size_t *decided,
			struct err *e)
{
	struct round_info r;
	sqlite3_stmt *s = NULL;
	struct buf note = BUF_INIT;
	char *first = NULL;
	size_t left = 0;
	char now[32];
	int ret = -1;

	memset(&r, 0, sizeof(r));
	if (decided)
		*decided = 0;
	if (actor_require(a, ROLES(ROLE_OWNER) | ROLES(ROLE_ADJUDICATOR),
			  "round close", e) < 0)
		return -1;
	/* what refuses the close is said before the full check, so that
	 * a refused close leaves the study as it was */
	if ((ret = close_refused(st, name, flags, &r, NULL, e)) != 0)
		goto out;
	round_info_release(&r);
	memset(&r, 0, sizeof(r));
	ret = -1;
	/* the full check before a round's labels are frozen for good */
	if (store_verify(st, 1, e) < 0)
		return -1;
	if (store_begin(st, e) < 0)
		return -1;
	if ((ret = close_refused(st, name, flags, &r, &left, e)) != 0)
		goto out;
	ret = -1;
	buf_addstr(&note, name);
	if (left)
		buf_addf(&note, " (forced: %zu of %zu %s unfinished)", left,
			 r.nr_items, text_plural((long long)r.nr_items,
						 "item", "items"));
	store_now(now);
	s = store_prepare(st, "UPDATE rounds SET closed_at = ?, closed_by = ? "
			  "WHERE id = ?", e);
	if (!s)
		goto out;
	sqlite3_bind_text(s, 1, now, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, a->name, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 3, r.id);
	if (store_step_done(st, s, "closing the round", e) < 0)
		goto out;
	if (!r.screen && round_freeze(st, r.id, 1, e) < 0)
		goto out;
	{
		struct buf d = BUF_INIT;
		int rc;

		audit_detail_int(&d, "round", r.id);
		/* a screening round keeps no frozen labels */
		if (r.screen)
			audit_detail_str(&d, "kind", "screen");
		rc = audit_write_detail(st, a->os_user, actor_for(a),
					"round.close", 0, NULL, NULL, note.ptr,
					audit_detail_end(&d), e);
		buf_release(&d);
		if (rc < 0)
			goto out;
	}
	/* a screening round decides what its screeners agree on */
	if (r.screen && screening_decide_round(st, a, r.id, decided, e) < 0)
		goto out;
	ret = store_commit(st, e);
out:
	if (ret != 0)
		store_rollback(st);
	sqlite3_finalize(s);
	round_info_release(&r);
	buf_release(&note);
	free(first);
	return ret;
}

/* How many items of round `r` were adjudicated (for a screening round,
 * also decided and coded since) into *done, the first of them named in
 * *first (owned).  0, or -1 with `e` filled. */
static int adjudicated_items(struct store *st, const struct round_info *r,
			     long long *done, char **first, struct err *e)
{
	sqlite3_stmt *s;
	int rc;

	s = store_prepare(st, r->screen ?
			  "SELECT i.repo, i.number, count(*) OVER () FROM "
			  "screen_assignments a JOIN items i ON i.id = "
			  "a.item_id JOIN screen_decisions d ON d.item_id = "
			  "a.item_id WHERE a.round_id = ?1 AND (d.how = "
			  "'adjudicated' OR a.item_id IN (SELECT item_id FROM "
			  "assignments)) ORDER BY a.position LIMIT 1" :
			  "SELECT i.repo, i.number, count(*) OVER () "
			  "FROM assignments a JOIN items i ON i.id = "
			  "a.item_id WHERE a.round_id = ?1 AND (EXISTS "
			  "(SELECT 1 FROM resolutions WHERE item_id = "
			  "a.item_id) OR EXISTS (SELECT 1 FROM settled WHERE "
			  "item_id = a.item_id)) ORDER BY a.position LIMIT 1",
			  e);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, r->id);
	rc = store_step(st, s, "reading a round", e);
	if (rc == 1) {
		*first = item_name((const char *)sqlite3_column_text(s, 0),
				   sqlite3_column_int64(s, 1));
		*done = sqlite3_column_int64(s, 2);
	}
	sqlite3_finalize(s);
	return rc < 0 ? -1 : 0;
}

int round_reopen(struct store *st, const struct actor *a, const char *name,
		 unsigned flags, struct err *e)
{
	struct round_info r;
	sqlite3_stmt *s = NULL;
	struct buf note = BUF_INIT;
	char *first = NULL;
	long long done = 0;
	int rc, ret = -1;

	memset(&r, 0, sizeof(r));
	if (actor_require(a, ROLES(ROLE_OWNER), "round reopen", e) < 0)
		return -1;
	if (store_begin(st, e) < 0)
		return -1;
	if (round_get(st, name, &r, e) < 0)
		goto out;
	if (!r.closed_at) {
		ret = 1;	/* nothing to do */
		goto out;
	}
	/* adjudicated items (for a screening round, also items decided
	 * and coded since) stay as they are */
	if (adjudicated_items(st, &r, &done, &first, e) < 0)
		goto out;
	if (done && !(flags & ROUND_FORCE)) {
		err_set(e, ERR_INPUT, "round %s: %lld of its items %s been "
			"adjudicated (%s is one); `round reopen %s --force` "
			"reopens it anyway, and what was adjudicated stays "
			"frozen", name, done, done > 1 ? "have" : "has", first,
			name);
		goto out;
	}
	buf_addf(&note, "%s (closed %s by %s)", name, r.closed_at,
		 r.closed_by ? r.closed_by : "?");
	s = store_prepare(st, "UPDATE rounds SET closed_at = NULL, closed_by "
			  "= NULL WHERE id = ?", e);
	if (!s)
		goto out;
	sqlite3_bind_int64(s, 1, r.id);
	if (store_step_done(st, s, "reopening the round", e) < 0)
		goto out;
	if (!r.screen && round_freeze(st, r.id, 0, e) < 0)
		goto out;
	if (r.screen && screening_undecide_round(st, a, r.id, e) < 0)
		goto out;
	{
		struct buf d = BUF_INIT;

		audit_detail_int(&d, "round", r.id);
		rc = audit_write_detail(st, a->os_user, actor_for(a),
					"round.reopen", 0, NULL, note.ptr,
					done ? "forced: adjudicated items "
					"stay frozen" : name,
					audit_detail_end(&d), e);
		buf_release(&d);
		if (rc < 0)
			goto out;
	}
	ret = store_commit(st, e);
out:
	if (ret != 0)
		store_rollback(st);
	sqlite3_finalize(s);
	round_info_release(&r);
	buf_release(&note);
	free(first);
	return ret;
}
