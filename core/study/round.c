/* SPDX-License-Identifier: MIT */
/*
 * round: a round created (its items chosen, its row, annotators,
 * assignments and audit rows written, a calibration gate saved) and items
 * added to an open round.  See round.h; the rest of the round is in
 * round_sample.c, round_close.c and round_list.c (shared through
 * round_int.h).
 */
#include "core/study/round.h"

#include "core/study/access.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/store/audit.h"
#include "core/base/buf.h"
#include "core/study/replay.h"
#include "core/study/round_int.h"
#include "core/study/screening.h"

static int check_annotators(struct store *st, const struct round_spec *spec,
			    long long *ids, struct err *e)
{
	size_t i, j;

	if (!spec->nr_annotators)
		return err_set(e, ERR_INPUT, "a round needs annotators "
			       "(--annotators A,B)");
	for (i = 0; i < spec->nr_annotators; i++) {
		enum role r;

		for (j = 0; j < i; j++)
			if (!strcmp(spec->annotators[i], spec->annotators[j]))
				return err_set(e, ERR_INPUT, "--annotators: "
					       "%s named twice",
					       spec->annotators[i]);
		if (member_find(st, spec->annotators[i], &ids[i], &r, e) < 0)
			return err_prefix(e, "--annotators");
		if (r != ROLE_ANNOTATOR && r != ROLE_OWNER &&
		    r != ROLE_MACHINE)
			return err_set(e, ERR_INPUT, "--annotators: %s is %s, "
				       "not an annotator", spec->annotators[i],
				       role_name(r));
		if (r == ROLE_MACHINE && spec->screen)
			return err_set(e, ERR_INPUT, "--annotators: %s is a "
				       "machine; people screen, machines may "
				       "code afterwards", spec->annotators[i]);
	}
	return 0;
}

/* The gate of a round being created, in its transaction; a forced gate
 * is audited with what the check found. */
static int save_gate(struct store *st, const struct actor *a,
		     const struct round_spec *spec, long long rid,
		     struct err *e)
{
	sqlite3_stmt *s;
	int rc;

	s = store_prepare(st, "INSERT INTO round_gates (round_id, "
			  "after_round_id, min_kappa, on_lower, forced) "
			  "SELECT ?1, id, ?3, ?4, ?5 FROM rounds WHERE name = "
			  "?2", e);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, rid);
	sqlite3_bind_text(s, 2, spec->gate_after, -1, SQLITE_STATIC);
	sqlite3_bind_double(s, 3, spec->gate_min_kappa);
	sqlite3_bind_int(s, 4, spec->gate_on_lower);
	sqlite3_bind_int(s, 5, spec->gate_forced);
	rc = store_step_done(st, s, "saving the round's gate", e);
	sqlite3_finalize(s);
	if (rc < 0)
		return -1;
	if (sqlite3_changes(st->db) != 1) {
		struct buf what = BUF_INIT;

		buf_addf(&what, "--after %s", spec->gate_after);
		round_unknown(st, what.ptr, spec->gate_after, e);
		buf_release(&what);
		return -1;
	}
	{
		struct buf d = BUF_INIT;
		long long after = 0;

		s = store_prepare(st, "SELECT after_round_id FROM round_gates "
				  "WHERE round_id = ?", e);
		if (!s)
			return -1;
		sqlite3_bind_int64(s, 1, rid);
		rc = store_step(st, s, "reading the round's gate", e);
		if (rc > 0)
			after = sqlite3_column_int64(s, 0);
		sqlite3_finalize(s);
		if (rc < 0)
			return -1;
		audit_detail_int(&d, "round", rid);
		audit_detail_int(&d, "after", after);
		audit_detail_real(&d, "min_kappa", spec->gate_min_kappa);
		audit_detail_int(&d, "on_lower", spec->gate_on_lower);
		audit_detail_int(&d, "forced", spec->gate_forced);
		rc = audit_write_detail(st, a->os_user, actor_for(a),
					spec->gate_forced ?
					"round.gate-forced" : "round.gate", 0,
					NULL, spec->gate_after,
					spec->gate_detail ? spec->gate_detail :
					spec->name, audit_detail_end(&d), e);
		buf_release(&d);
		return rc;
	}
}

/* What the candidates left out, as a clause: "; left out: 4 never
 * fetched (bugcoder fetch --missing), 2 screened out". */
static void left_text(const struct left *l, struct buf *out)
{
	size_t n = out->len;

	if (l->missing)
		buf_addf(out, "%s%zu never fetched (`bugcoder fetch "
			 "--missing` fetches them)", out->len > n ? ", " : "",
			 l->missing);
	if (l->unscreened)
		buf_addf(out, "%s%zu not screened yet (round create NAME "
			 "--screen ...)", out->len > n ? ", " : "",
			 l->unscreened);
	if (l->screening)
		buf_addf(out, "%s%zu not decided in screening yet",
			 out->len > n ? ", " : "", l->screening);
	if (l->excluded)
		buf_addf(out, "%s%zu screened out", out->len > n ? ", " : "",
			 l->excluded);
}

/* Why a round would have no items, with the way out when a closed round
 * left items unfinished. */
static int no_items(struct store *st, const struct round_spec *spec,
		    long long from, const struct left *l, struct err *e)
{
	sqlite3_stmt *s;
	struct buf why = BUF_INIT;
	char *hint = NULL;
	int rc;

	if (from)
		return err_set(e, ERR_INPUT, "round %s would have no items: "
			       "round %s has none left that is unfinished",
			       spec->name, spec->items + 11);
	s = store_prepare(st, spec->screen ?
			  "SELECT r.name FROM rounds r WHERE r.kind = 'screen' "
			  "AND r.closed_at IS NOT NULL AND EXISTS (SELECT 1 "
			  "FROM screen_assignments a WHERE a.round_id = r.id "
			  "AND (SELECT count(*) FROM screen_labels s JOIN "
			  "round_annotators ra ON ra.member_id = s.member_id "
			  "AND ra.round_id = r.id WHERE s.item_id = a.item_id "
			  "AND s.submitted_at IS NOT NULL) < (SELECT count(*) "
			  "FROM round_annotators WHERE round_id = r.id)) ORDER "
			  "BY r.id LIMIT 1" :
			  "SELECT r.name FROM rounds r WHERE "
			  "r.closed_at IS NOT NULL AND EXISTS (SELECT 1 FROM "
			  "assignments a WHERE a.round_id = r.id AND (SELECT "
			  "count(*) FROM submissions s JOIN round_annotators "
			  "ra ON ra.member_id = s.member_id AND ra.round_id = "
			  "r.id WHERE s.item_id = a.item_id) < (SELECT "
			  "count(*) FROM round_annotators WHERE round_id = "
			  "r.id)) ORDER BY r.id LIMIT 1", e);
	if (!s)
		return -1;
	rc = store_step(st, s, "listing rounds", e);
	if (rc == 1)
		hint = xstrdup((const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	if (rc < 0)
		return -1;
	buf_addf(&why, "round %s would have no items: every item%s is in a "
		 "%sround already", spec->name, spec->items &&
		 !strncmp(spec->items, "repo:", 5) ? " of that repository" :
		 "", spec->screen ? "" : "coding ");
	if (l->missing || l->unscreened || l->screening || l->excluded) {
		buf_addstr(&why, " or left out: ");
		left_text(l, &why);
	}
	if (hint)
		buf_addf(&why, "; round %s is closed with items unfinished, "
			 "which --items unfinished:%s moves", hint, hint);
	err_set(e, ERR_INPUT, "%s", why.ptr);
	buf_release(&why);
	free(hint);
	return -1;
}

/* Take the items c[] out of round `from`, auditing each move to round
 * `to`. */
static int move_out(struct store *st, const struct actor *a, long long from,
		    int screen, const char *to, const struct cands *c,
		    struct err *e)
{
	struct round_info r;
	sqlite3_stmt *s;
	size_t i;
	int ret = -1, rc;

	memset(&r, 0, sizeof(r));
	s = store_prepare(st, "SELECT name FROM rounds WHERE id = ?", e);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, from);
	rc = store_step(st, s, "reading a round", e);
	if (rc <= 0) {
		if (rc == 0)
			err_set(e, ERR_NOTFOUND, "reading a round: it is gone");
		goto out;
	}
	r.name = xstrdup((const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	s = store_prepare(st, screen ? "DELETE FROM screen_assignments WHERE "
			  "round_id = ? AND item_id = ?" : "DELETE FROM "
			  "assignments WHERE round_id = ? AND item_id = ?", e);
	if (!s)
		goto out;
	for (i = 0; i < c->nr; i++) {
		sqlite3_reset(s);
		sqlite3_bind_int64(s, 1, from);
		sqlite3_bind_int64(s, 2, c->v[i].id);
		if (store_step_done(st, s, "moving an item", e) < 0)
			goto out;
		if (audit_write(st, a->os_user, actor_for(a), "round.move",
				c->v[i].id, NULL, r.name, to, e) < 0)
			goto out;
	}
	ret = 0;
out:
	sqlite3_finalize(s);
	round_info_release(&r);
	return ret;
}

/* The spec checked before the study is read: a name, one way of naming
 * the items, and options that go together.  0, or -1 with `e` filled. */
static int check_spec(const struct round_spec *spec, struct err *e)
{
	if (!spec->name || !*spec->name || strlen(spec->name) > 64 ||
	    strspn(spec->name, "abcdefghijklmnopqrstuvwxyz"
		   "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 _.-") !=
	    strlen(spec->name))
		return err_set(e, ERR_INPUT, "a round needs a name of 1-64 "
			       "letters, digits, spaces, '_', '.' or '-'");
	if (!!spec->items == !!spec->sample)
		return err_set(e, ERR_USAGE, "give either --items SPEC or "
			       "--sample N|P%% --seed S");
	if (spec->sample && !spec->has_seed)
		return err_set(e, ERR_USAGE, "--sample needs --seed S, so the "
			       "draw can be repeated");
	if (spec->stratify && strcmp(spec->stratify, "repo"))
		return err_set(e, ERR_INPUT, "--stratify %s: only \"repo\" is "
			       "supported", spec->stratify);
	if (spec->stratify && !spec->sample)
		return err_set(e, ERR_USAGE, "--stratify goes with --sample");
	if (spec->reasons && !spec->screen)
		return err_set(e, ERR_USAGE, "--reasons goes with --screen");
	if (spec->screen && spec->gate_after)
		return err_set(e, ERR_USAGE, "a screening round has no "
			       "calibration gate (--after)");
	return 0;
}

/* Refuse a name another round has.  0, or -1 with `e` filled. */
static int check_name_free(struct store *st, const char *name,
			   struct err *e)
{
	sqlite3_stmt *s;
	int ret = -1;

	s = store_prepare(st, "SELECT 1 FROM rounds WHERE name = ?", e);
	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	switch (store_step(st, s, "reading rounds", e)) {
	case -1:
		break;
	case 1:
		err_set(e, ERR_INPUT, "round %s already exists", name);
		break;
	default:
		ret = 0;
	}
	sqlite3_finalize(s);
	return ret;
}

/* The new round's candidates into `c`: the items --items names, or the
 * free items with the --sample drawn first; how many it takes into
 * *want, how they were chosen into `desc` (the round's spec), what was
 * left out into *left, the closed round they come from into *from.  0,
 * or -1 with `e` filled. */
static int choose_items(struct store *st, const struct round_spec *spec,
			struct cands *c, struct left *left, long long *from,
			size_t *want, struct buf *desc, struct err *e)
{
	if (spec->items) {
		if (round_parse_items(st, spec->items, spec->screen, c, left,
					    from, e) < 0)
			return -1;
		*want = c->nr;
		if (!strcmp(spec->items, "all") ||
		    !strncmp(spec->items, "repo:", 5))
			buf_addf(desc, "items: %s %s at creation",
				 spec->items, spec->screen ? "in no round" :
				 "free for coding");
		else
			buf_addf(desc, "items: %s", spec->items);
	} else {
		if (round_free_items(st, spec->screen, NULL, c, left, e) < 0)
			return -1;
		if (round_parse_sample(spec->sample, c->nr, want, e) < 0)
			return -1;
		round_draw(c, *want, spec->seed, spec->stratify != NULL);
		buf_addf(desc, "sample: %s of %zu", spec->sample, c->nr);
	}
	return 0;
}

/* The round's row (`desc` its spec) and its annotators' (`ann`, the
 * members' ids); its id into *rid.  0, or -1 with `e` filled. */
static int insert_round(struct store *st, const struct actor *a,
			const struct round_spec *spec, const char *desc,
			const char *reasons, const long long *ann,
			long long *rid, struct err *e)
{
	sqlite3_stmt *s;
	char now[32];
	size_t i;
	int ret = -1;

	store_now(now);
	s = store_prepare(st, "INSERT INTO rounds (name, spec, seed, "
			  "stratify, created_at, created_by, kind, reasons) "
			  "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", e);
	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, spec->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, desc, -1, SQLITE_STATIC);
	if (spec->has_seed)
		sqlite3_bind_int64(s, 3, (sqlite3_int64)spec->seed);
	else
		sqlite3_bind_null(s, 3);
	store_bind_text(s, 4, spec->stratify);
	sqlite3_bind_text(s, 5, now, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 6, a->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 7, spec->screen ? "screen" : "code", -1,
			  SQLITE_STATIC);
	store_bind_text(s, 8, reasons);
	if (store_step_done(st, s, "creating the round", e) < 0)
		goto out;
	sqlite3_finalize(s);
	*rid = sqlite3_last_insert_rowid(st->db);
	s = store_prepare(st, "INSERT INTO round_annotators (round_id, "
			  "member_id) VALUES (?, ?)", e);
	if (!s)
		return -1;
	for (i = 0; i < spec->nr_annotators; i++) {
		sqlite3_reset(s);
		sqlite3_bind_int64(s, 1, *rid);
		sqlite3_bind_int64(s, 2, ann[i]);
		if (store_step_done(st, s, "creating the round", e) < 0)
			goto out;
	}
	ret = 0;
out:
	sqlite3_finalize(s);
	return ret;
}

/* The first `want` candidates assigned to round `rid`, in order.  0, or
 * -1 with `e` filled. */
static int assign_items(struct store *st, const struct round_spec *spec,
			long long rid, const struct cands *c, size_t want,
			struct err *e)
{
	sqlite3_stmt *s;
	size_t i;
	int ret = -1;

	s = store_prepare(st, spec->screen ? "INSERT INTO screen_assignments "
			  "(round_id, item_id, position) VALUES (?, ?, ?)" :
			  "INSERT INTO assignments (round_id, item_id, "
			  "position) VALUES (?, ?, ?)", e);
	if (!s)
		return -1;
	for (i = 0; i < want; i++) {
		sqlite3_reset(s);
		sqlite3_bind_int64(s, 1, rid);
		sqlite3_bind_int64(s, 2, c->v[i].id);
		sqlite3_bind_int64(s, 3, (long long)i);
		if (store_step_done(st, s, "creating the round", e) < 0) {
			/* e says "creating the round" unless a constraint
			 * says more: which item is not free */
			if (sqlite3_errcode(st->db) == SQLITE_CONSTRAINT &&
			    round_check_free(st, c->v[i].id, spec->screen,
						   e) == 0)
				err_set(e, ERR_INPUT, "an item is named twice "
					"for round %s", spec->name);
			goto out;
		}
	}
	ret = 0;
out:
	sqlite3_finalize(s);
	return ret;
}

/* The round.create audit row: what the replay needs to make the round
 * again (its spec, seed, annotators and items, in order).  0, or -1 with
 * `e` filled. */
static int audit_create(struct store *st, const struct actor *a,
			const struct round_spec *spec, long long rid,
			const char *desc, const long long *ann,
			const struct cands *c, size_t want, struct err *e)
{
	struct buf d = BUF_INIT, items = BUF_INIT;
	long long *ids = xcalloc(want + 1, sizeof(*ids));
	size_t i;
	int rc;

	for (i = 0; i < want; i++)
		ids[i] = c->v[i].id;
	replay_format_ids(&items, ids, want);
	free(ids);
	audit_detail_int(&d, "id", rid);
	audit_detail_str(&d, "spec", desc);
	/* as text: a JSON number would lose a large seed's digits */
	if (spec->has_seed) {
		char seed[32];

		snprintf(seed, sizeof(seed), "%lld", (long long)spec->seed);
		audit_detail_str(&d, "seed", seed);
	}
	audit_detail_str(&d, "stratify", spec->stratify);
	buf_addstr(&d, ",\"annotators\":[");
	for (i = 0; i < spec->nr_annotators; i++)
		buf_addf(&d, "%s%lld", i ? "," : "", ann[i]);
	buf_addch(&d, ']');
	audit_detail_str(&d, "items", items.ptr);
	/* a screening round's items are screened, not coded: the replay
	 * keeps them out of the coding assignments */
	if (spec->screen)
		audit_detail_str(&d, "kind", "screen");
	rc = audit_write_detail(st, a->os_user, actor_for(a), "round.create",
				0, NULL, NULL, spec->name,
				audit_detail_end(&d), e);
	buf_release(&d);
	buf_release(&items);
	return rc;
}

int round_create(struct store *st, const struct actor *a,
		 const struct round_spec *spec, struct round_info *out,
		 struct err *e)
{
	struct cands c = { 0 };
	long long *ann = NULL, rid, from = 0;
	struct buf desc = BUF_INIT;
	struct left left;
	char *reasons = NULL;
	size_t want = 0;
	int ret = -1;

	if (actor_require(a, ROLES(ROLE_OWNER), "round create", e) < 0)
		return -1;
	if (check_spec(spec, e) < 0)
		return -1;
	memset(&left, 0, sizeof(left));
	if (spec->screen &&
	    screening_reasons_parse(spec->reasons ? spec->reasons :
				    SCREENING_DEFAULT_REASONS, &reasons,
				    e) < 0)
		return -1;
	ann = xcalloc(spec->nr_annotators + 1, sizeof(*ann));
	if (store_begin(st, e) < 0)
		goto out;
	if (check_name_free(st, spec->name, e) < 0)
		goto out;
	if (check_annotators(st, spec, ann, e) < 0)
		goto out;
	if (choose_items(st, spec, &c, &left, &from, &want, &desc, e) < 0)
		goto out;
	if (!want) {
		no_items(st, spec, from, &left, e);
		goto out;
	}
	if (insert_round(st, a, spec, desc.ptr, reasons, ann, &rid, e) < 0)
		goto out;
	if (from && move_out(st, a, from, spec->screen, spec->name, &c, e) < 0)
		goto out;
	if (assign_items(st, spec, rid, &c, want, e) < 0)
		goto out;
	if (audit_create(st, a, spec, rid, desc.ptr, ann, &c, want, e) < 0)
		goto out;
	if (spec->screen && audit_write(st, a->os_user, actor_for(a),
					"round.screen", 0, NULL, spec->name,
					reasons, e) < 0)
		goto out;
	if (spec->gate_after && save_gate(st, a, spec, rid, e) < 0)
		goto out;
	if (store_commit(st, e) < 0)
		goto out;
	ret = 0;
	if (out && round_get(st, spec->name, out, e) < 0)
		ret = -1;
	if (out && !ret) {
		out->left_missing = left.missing;
		out->left_unscreened = left.unscreened;
		out->left_screening = left.screening;
		out->left_excluded = left.excluded;
	}
out:
	if (ret < 0)
		store_rollback(st);
	round_cands_release(&c);
	buf_release(&desc);
	free(reasons);
	free(ann);
	return ret;
}

int round_add_items(struct store *st, const struct actor *a,
		    const char *name, const long long *ids, size_t n,
		    struct err *e)
{
	struct round_info r;
	sqlite3_stmt *s = NULL;
	long long pos = 0;
	size_t i;
	int rc, ret = -1, began = 0;

	if (actor_require(a, ROLES(ROLE_OWNER), "adding items to a round",
			  e) < 0)
		return -1;
	if (round_get(st, name, &r, e) < 0)
		return -1;
	if (r.closed_at) {
		err_set(e, ERR_INPUT, "round %s is closed: items go into open "
			"rounds only", name);
		goto out;
	}
	/* the items and their audit rows together, or none */
	if (store_begin(st, e) < 0)
		goto out;
	began = 1;
	s = store_prepare(st, r.screen ? "SELECT coalesce(max(position) + 1, "
			  "0) FROM screen_assignments WHERE round_id = ?" :
			  "SELECT coalesce(max(position) + 1, 0) FROM "
			  "assignments WHERE round_id = ?", e);
	if (!s)
		goto out;
	sqlite3_bind_int64(s, 1, r.id);
	rc = store_step(st, s, "reading the round", e);
	if (rc > 0)
		pos = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	s = NULL;
	if (rc < 0)
		goto out;
	s = store_prepare(st, r.screen ? "INSERT INTO screen_assignments "
			  "(round_id, item_id, position) VALUES (?, ?, ?)" :
			  "INSERT INTO assignments (round_id, item_id, "
			  "position) VALUES (?, ?, ?)", e);
	if (!s)
		goto out;
	for (i = 0; i < n; i++) {
		if (round_check_free(st, ids[i], r.screen, e) < 0)
			goto out;
		sqlite3_reset(s);
		sqlite3_bind_int64(s, 1, r.id);
		sqlite3_bind_int64(s, 2, ids[i]);
		sqlite3_bind_int64(s, 3, pos++);
		if (store_step_done(st, s, "adding an item to the round",
				    e) < 0)
			goto out;
		{
			struct buf d = BUF_INIT;

			/* what the replay puts into the round */
			audit_detail_int(&d, "round", r.id);
			audit_detail_int(&d, "position", pos - 1);
			if (r.screen)
				audit_detail_str(&d, "kind", "screen");
			rc = audit_write_detail(st, a->os_user, actor_for(a),
						"round.add", ids[i], NULL, NULL,
						name, audit_detail_end(&d), e);
			buf_release(&d);
			if (rc < 0)
				goto out;
		}
	}
	sqlite3_finalize(s);
	s = NULL;
	ret = store_commit(st, e);
	began = 0;
out:
	sqlite3_finalize(s);
	if (began)
		store_rollback(st);
	round_info_release(&r);
	return ret;
}
