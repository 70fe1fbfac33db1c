/* SPDX-License-Identifier: MIT */
/*
 * recode: see recode.h.
 */
#include "core/study/recode.h"

#include <stdlib.h>
#include <string.h>

#include "core/study/access.h"
#include "core/study/item.h"
#include "core/store/audit.h"

int code_split_parse(const char *arg, const struct codebook *old,
		     struct code_split *sp, char **copy, struct err *e)
{
	char *eq, *colon, *tok, *save = NULL;
	size_t alloc = 0, i;

	memset(sp, 0, sizeof(*sp));
	*copy = xstrdup(arg);
	eq = strchr(*copy, '=');
	if (!eq || eq == *copy || !eq[1])
		return err_set(e, ERR_USAGE, "--split %s: expected "
			       "DIM:OLD=NEW1,NEW2", arg);
	*eq = '\0';
	colon = strchr(*copy, ':');
	if (colon) {
		*colon = '\0';
		sp->dim = *copy;
		sp->from = colon + 1;
		if (!codebook_dim(old, sp->dim))
			return err_set(e, ERR_INPUT, "--split %s: no dimension "
				       "%s in the current codebook", arg,
				       sp->dim);
	} else {
		size_t found = 0;

		sp->from = *copy;
		for (i = 0; i < old->nr_dims; i++)
			if (dimension_code(&old->dims[i], sp->from)) {
				sp->dim = old->dims[i].key;
				found++;
			}
		if (found != 1)
			return err_set(e, ERR_INPUT, found ? "--split %s: %s is "
				       "a code of several dimensions; write "
				       "DIM:%s=..." : "--split %s: no code %s "
				       "in the current codebook", arg, sp->from,
				       sp->from);
	}
	if (!dimension_code(codebook_dim(old, sp->dim), sp->from))
		return err_set(e, ERR_INPUT, "--split %s: %s is not a code of "
			       "%s in the current codebook", arg, sp->from,
			       sp->dim);
	for (tok = strtok_r(eq + 1, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (!*tok)
			continue;
		for (i = 0; i < sp->nr_to; i++)
			if (!strcmp(sp->to[i], tok))
				return err_set(e, ERR_INPUT, "--split %s: %s "
					       "named twice", arg, tok);
		ALLOC_GROW(sp->to, sp->nr_to + 1, alloc);
		sp->to[sp->nr_to++] = tok;
	}
	if (sp->nr_to < 2)
		return err_set(e, ERR_USAGE, "--split %s: a code splits into "
			       "two or more new codes (DIM:OLD=NEW1,NEW2)",
			       arg);
	return 0;
}

static char *joined(const char *const *v, size_t n)
{
	struct buf b = BUF_INIT;
	size_t i;

	for (i = 0; i < n; i++)
		buf_addf(&b, "%s%s", i ? ";" : "", v[i]);
	return buf_detach(&b, NULL);
}

/* The member's codes of `dim` on the item, ';'-joined (owned, NULL when
 * none). */
static int member_codes(struct store *st, long long item, long long member,
			const char *dim, char **out, struct err *e)
{
	sqlite3_stmt *s = store_prepare(st, "SELECT group_concat(code, ';') "
					"FROM (SELECT code FROM labels WHERE "
					"item_id = ? AND member_id = ? AND "
					"dimension = ? ORDER BY code)", e);
	int rc;

	*out = NULL;
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, item);
	sqlite3_bind_int64(s, 2, member);
	sqlite3_bind_text(s, 3, dim, -1, SQLITE_STATIC);
	rc = store_step(st, s, "reading labels", e);
	if (rc > 0 && sqlite3_column_type(s, 0) != SQLITE_NULL)
		*out = xstrdup((const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	return rc < 0 ? -1 : 0;
}

static int in_list(const char *list, const char *code)
{
	size_t n = strlen(code);
	const char *p = list;

	while (p && *p) {
		const char *end = strchr(p, ';');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (len == n && !memcmp(p, code, n))
			return 1;
		p = end ? end + 1 : NULL;
	}
	return 0;
}

int recode_split(struct store *st, const struct actor *a,
		 const struct codebook *nc, const struct code_split *sp,
		 int *labels, int *resolutions, struct err *e)
{
	const struct dimension *d = codebook_dim(nc, sp->dim);
	sqlite3_stmt *s = NULL, *del = NULL, *ins = NULL;
	char *choices = NULL;
	struct buf note = BUF_INIT;
	char now[32];
	size_t i;
	int rc, ret = -1;

	*labels = *resolutions = 0;
	if (!d)
		return err_set(e, ERR_INPUT, "--split %s:%s: dimension %s is "
			       "not in the new codebook", sp->dim, sp->from,
			       sp->dim);
	if (dimension_code(d, sp->from))
		return err_set(e, ERR_INPUT, "--split %s:%s: the new codebook "
			       "still has %s; a split code is gone from it",
			       sp->dim, sp->from, sp->from);
	for (i = 0; i < sp->nr_to; i++)
		if (!dimension_code(d, sp->to[i]))
			return err_set(e, ERR_INPUT, "--split %s:%s: %s is not a "
				       "code of %s in the new codebook",
				       sp->dim, sp->from, sp->to[i], sp->dim);
	choices = joined(sp->to, sp->nr_to);
	store_now(now);
	/* every label on the old code, with its coder */
	s = store_prepare(st, "SELECT l.item_id, l.member_id, m.name FROM "
			  "labels l JOIN members m ON m.id = l.member_id WHERE "
			  "l.dimension = ?1 AND l.code = ?2 ORDER BY l.item_id, "
			  "l.member_id", e);
	del = s ? store_prepare(st, "DELETE FROM labels WHERE item_id = ?1 "
				"AND member_id = ?2 AND dimension = ?3 AND code = "
				"?4", e) : NULL;
	ins = del ? store_prepare(st, "INSERT INTO recodes (item_id, "
				  "member_id, dimension, old_code, new_codes, "
				  "codebook_version, split_at) VALUES (?1, ?2, "
				  "?3, ?4, ?5, ?6, ?7)", e) : NULL;
	if (!ins)
		goto out;
	sqlite3_bind_text(s, 1, sp->dim, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, sp->from, -1, SQLITE_STATIC);
	while ((rc = store_step(st, s, "reading labels", e)) > 0) {
		long long item = sqlite3_column_int64(s, 0);
		long long member = sqlite3_column_int64(s, 1);
		char *before = NULL, *after = NULL;

		if (member_codes(st, item, member, sp->dim, &before, e) < 0)
			goto out;
		sqlite3_reset(del);
		sqlite3_bind_int64(del, 1, item);
		sqlite3_bind_int64(del, 2, member);
		sqlite3_bind_text(del, 3, sp->dim, -1, SQLITE_STATIC);
		sqlite3_bind_text(del, 4, sp->from, -1, SQLITE_STATIC);
		sqlite3_reset(ins);
		sqlite3_bind_int64(ins, 1, item);
		sqlite3_bind_int64(ins, 2, member);
		sqlite3_bind_text(ins, 3, sp->dim, -1, SQLITE_STATIC);
		sqlite3_bind_text(ins, 4, sp->from, -1, SQLITE_STATIC);
		sqlite3_bind_text(ins, 5, choices, -1, SQLITE_STATIC);
		sqlite3_bind_text(ins, 6, nc->version, -1, SQLITE_STATIC);
		sqlite3_bind_text(ins, 7, now, -1, SQLITE_STATIC);
		if (store_step_done(st, del, "queueing a recode", e) < 0 ||
		    store_step_done(st, ins, "queueing a recode", e) < 0) {
			free(before);
			goto out;
		}
		if (member_codes(st, item, member, sp->dim, &after, e) < 0 ||
		    audit_write(st, a->os_user, (const char *)
				sqlite3_column_text(s, 2), "recode.queue",
				item, sp->dim, before, after, e) < 0) {
			free(before);
			free(after);
			goto out;
		}
		free(before);
		free(after);
		(*labels)++;
	}
	if (rc < 0)
		goto out;
	sqlite3_finalize(s);
	sqlite3_finalize(del);
	s = del = NULL;
	/* a resolution that chose the old code is decided again */
	s = store_prepare(st, "SELECT item_id, code FROM resolutions WHERE "
			  "dimension = ?1 ORDER BY item_id", e);
	del = s ? store_prepare(st, "DELETE FROM resolutions WHERE item_id = "
				"?1 AND dimension = ?2", e) : NULL;
	if (!del)
		goto out;
	sqlite3_bind_text(s, 1, sp->dim, -1, SQLITE_STATIC);
	while ((rc = store_step(st, s, "reading resolutions", e)) > 0) {
		long long item = sqlite3_column_int64(s, 0);
		const char *code = (const char *)sqlite3_column_text(s, 1);

		if (!in_list(code, sp->from))
			continue;
		sqlite3_reset(del);
		sqlite3_bind_int64(del, 1, item);
		sqlite3_bind_text(del, 2, sp->dim, -1, SQLITE_STATIC);
		if (store_step_done(st, del, "taking back a resolution",
				    e) < 0)
			goto out;
		if (audit_write(st, a->os_user, actor_for(a),
				"recode.resolution", item, sp->dim, code, NULL,
				e) < 0)
			goto out;
		(*resolutions)++;
	}
	if (rc < 0)
		goto out;
	buf_addf(&note, "%s (%d labels to recode, %d resolutions taken "
		 "back)", choices, *labels, *resolutions);
	if (audit_write(st, a->os_user, actor_for(a), "codebook.split", 0,
			sp->dim, sp->from, note.ptr, e) < 0)
		goto out;
	ret = 0;
out:
	sqlite3_finalize(s);
	sqlite3_finalize(del);
	sqlite3_finalize(ins);
	buf_release(&note);
	free(choices);
	return ret;
}

int recode_pending(struct store *st, long long item_id, long long member_id,
		   const char *dim, char **old, char **choices,
		   struct err *e)
{
	sqlite3_stmt *s;
	int rc;

	if (old)
		*old = NULL;
	if (choices)
		*choices = NULL;
	s = store_prepare(st, "SELECT old_code, new_codes FROM recodes WHERE "
			  "item_id = ? AND member_id = ? AND dimension = ? AND "
			  "done_at IS NULL ORDER BY id DESC LIMIT 1", e);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, item_id);
	sqlite3_bind_int64(s, 2, member_id);
	sqlite3_bind_text(s, 3, dim, -1, SQLITE_STATIC);
	rc = store_step(st, s, "reading the recodes", e);
	if (rc > 0) {
		if (old)
			*old = xstrdup((const char *)
				       sqlite3_column_text(s, 0));
		if (choices)
			*choices = xstrdup((const char *)
					   sqlite3_column_text(s, 1));
	}
	sqlite3_finalize(s);
	return rc;
}

int recode_settle(struct store *st, const struct actor *a, long long item_id,
		  const char *dim, const char *codes, struct err *e)
{
	sqlite3_stmt *s;
	char *old = NULL;
	char now[32];
	int rc;

	if (!codes)
		return 0;
	rc = recode_pending(st, item_id, a->member_id, dim, &old, NULL, e);
	if (rc <= 0)
		return rc;
	store_now(now);
	s = store_prepare(st, "UPDATE recodes SET done_at = ? WHERE item_id = "
			  "? AND member_id = ? AND dimension = ? AND done_at IS "
			  "NULL", e);
	if (!s) {
		free(old);
		return -1;
	}
	sqlite3_bind_text(s, 1, now, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, item_id);
	sqlite3_bind_int64(s, 3, a->member_id);
	sqlite3_bind_text(s, 4, dim, -1, SQLITE_STATIC);
	rc = store_step_done(st, s, "saving the recode", e);
	sqlite3_finalize(s);
	if (rc < 0) {
		free(old);
		return -1;
	}
	rc = audit_write(st, a->os_user, actor_for(a), "recode.done", item_id,
			 dim, old, codes, e);
	free(old);
	return rc;
}

int recode_check(struct store *st, const struct actor *a, long long item_id,
		 const char *item, const char *dim, const char *const *codes,
		 size_t n, struct err *e)
{
	char *old = NULL, *choices = NULL, *have = NULL;
	size_t i, fresh = 0;
	int rc, ret = -1;

	rc = recode_pending(st, item_id, a->member_id, dim, &old, &choices, e);
	if (rc < 0)
		return -1;
	if (!rc)
		return err_set(e, ERR_PERM, "%s: only the dimensions a split "
			       "left to recode may change here, and %s is not "
			       "one", item, dim);
	if (member_codes(st, item_id, a->member_id, dim, &have, e) < 0)
		goto out;
	for (i = 0; i < n; i++) {
		if (in_list(choices, codes[i]))
			fresh++;
		else if (!have || !in_list(have, codes[i]))
			break;
	}
	if (i < n || !fresh) {
		struct buf b = BUF_INIT;
		const char *p;

		for (p = choices; *p; p++) {
			if (*p == ';')
				buf_addstr(&b, " or ");
			else
				buf_addch(&b, *p);
		}
		err_set(e, ERR_PERM, "%s: %s awaits recoding (it was %s): "
			"choose %s", item, dim, old, b.ptr);
		buf_release(&b);
		goto out;
	}
	/* nothing of what they had may go: only the choice comes in */
	if (have) {
		char *copy = xstrdup(have), *tok, *save = NULL;
		int missing = 0;

		for (tok = strtok_r(copy, ";", &save); tok;
		     tok = strtok_r(NULL, ";", &save)) {
			for (i = 0; i < n && strcmp(codes[i], tok); i++)
				;
			missing |= i == n;
		}
		free(copy);
		if (missing) {
			err_set(e, ERR_PERM, "%s: only the recode of %s (it was "
				"%s) may change here; keep its other codes (%s)",
				item, dim, old, have);
			goto out;
		}
	}
	ret = 0;
out:
	free(old);
	free(choices);
	free(have);
	return ret;
}

int recode_describe(struct store *st, const char *round, struct buf *out,
		    size_t *items, struct err *e)
{
	sqlite3_stmt *s;
	struct buf cur = BUF_INIT, names = BUF_INIT;
	size_t n = 0, total = 0;
	int rc;

	if (items)
		*items = 0;
	s = store_prepare(st, "SELECT r.dimension, r.old_code, r.new_codes, "
			  "i.repo, i.number FROM recodes r JOIN items i ON i.id "
			  "= r.item_id WHERE r.done_at IS NULL AND (?1 IS NULL "
			  "AND " ACCESS_COUNTED_SQL("r.item_id") " OR r.item_id "
			  "IN (SELECT a.item_id FROM assignments a JOIN rounds "
			  "x ON x.id = a.round_id WHERE x.name = ?1)) GROUP BY "
			  "r.dimension, r.old_code, r.new_codes, r.item_id "
			  "ORDER BY r.dimension, r.old_code, r.new_codes, "
			  "r.item_id", e);
	if (!s)
		return -1;
	store_bind_text(s, 1, round);
	for (;;) {
		struct buf key = BUF_INIT;

		rc = store_step(st, s, "reading the recodes", e);
		if (rc > 0)
			buf_addf(&key, "%s\n%s\n%s",
				 (const char *)sqlite3_column_text(s, 0),
				 (const char *)sqlite3_column_text(s, 1),
				 (const char *)sqlite3_column_text(s, 2));
		if (n && (rc <= 0 || strcmp(key.ptr, cur.ptr))) {
			char *dim = cur.ptr, *old = strchr(dim, '\n');
			char *to = strchr(old + 1, '\n');
			char *p;

			*old++ = '\0';
			*to++ = '\0';
			for (p = to; *p; p++)
				if (*p == ';')
					*p = ',';
			buf_addf(out, "%s: %zu item%s await%s recoding after "
				 "%s was split into %s: %s\n", dim, n,
				 n == 1 ? "" : "s", n == 1 ? "s" : "", old,
				 to, names.ptr);
			total += n;
			n = 0;
			buf_reset(&names);
		}
		if (rc <= 0) {
			buf_release(&key);
			break;
		}
		buf_set(&cur, key.ptr);
		buf_release(&key);
		if (n < 8) {
			char *nm = item_name((const char *)
					     sqlite3_column_text(s, 3),
					     sqlite3_column_int64(s, 4));

			buf_addf(&names, "%s%s", n ? ", " : "", nm);
			free(nm);
		} else if (n == 8) {
			buf_addstr(&names, ", ...");
		}
		n++;
	}
	sqlite3_finalize(s);
	buf_release(&cur);
	buf_release(&names);
	if (items)
		*items = total;
	return rc < 0 ? -1 : 0;
}
