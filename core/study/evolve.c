/* SPDX-License-Identifier: MIT */
/*
 * evolve: see evolve.h.
 */
#include "core/study/evolve.h"
#include "core/study/evolve_int.h"

#include "core/study/access.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/store/audit.h"
#include "core/base/buf.h"
#include "core/study/item.h"
#include "core/study/recode.h"
#include "core/study/study.h"
#include "core/base/suggest.h"

int code_map_parse(const char *arg, const struct codebook *old,
		   struct code_map *m, char **copy, struct err *e)
{
	char *eq, *colon;

	*copy = xstrdup(arg);
	eq = strchr(*copy, '=');
	if (!eq || eq == *copy || !eq[1])
		return err_set(e, ERR_USAGE, "--map %s: expected OLD=NEW or "
			       "DIM:OLD=NEW", arg);
	*eq = '\0';
	m->to = eq + 1;
	colon = strchr(*copy, ':');
	if (colon) {
		*colon = '\0';
		m->dim = *copy;
		m->from = colon + 1;
		if (!codebook_dim(old, m->dim))
			return err_set(e, ERR_INPUT, "--map %s: no dimension "
				       "%s in the current codebook", arg,
				       m->dim);
		return 0;
	}
	m->from = *copy;
	m->dim = NULL;
	{
		size_t i, found = 0;

		for (i = 0; i < old->nr_dims; i++)
			if (dimension_code(&old->dims[i], m->from)) {
				m->dim = old->dims[i].key;
				found++;
			}
		if (found == 1)
			return 0;
		if (!found)
			return err_set(e, ERR_INPUT, "--map %s: no code %s in "
				       "the current codebook", arg, m->from);
		return err_set(e, ERR_INPUT, "--map %s: %s is a code of "
			       "several dimensions; write DIM:%s=%s", arg,
			       m->from, m->from, m->to);
	}
}

char *code_list_replace(const char *list, const char *from, const char *to)
{
	char *copy = xstrdup(list), *tok, *save = NULL;
	const char *v[256];
	struct buf b = BUF_INIT;
	size_t n = 0, i, j;
	int hit = 0;

	for (tok = strtok_r(copy, ";", &save); tok && n < 255;
	     tok = strtok_r(NULL, ";", &save)) {
		if (!strcmp(tok, from)) {
			tok = (char *)to;
			hit = 1;
		}
		for (j = 0; j < n; j++)
			if (!strcmp(v[j], tok))
				break;
		if (j == n)
			v[n++] = tok;
	}
	if (!hit) {
		free(copy);
		return NULL;
	}
	/* insertion sort: lists are short */
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && strcmp(v[j - 1], v[j]) > 0; j--) {
			const char *t = v[j];

			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	for (i = 0; i < n; i++) {
		if (i)
			buf_addch(&b, ';');
		buf_addstr(&b, v[i]);
	}
	free(copy);
	return buf_detach(&b, NULL);
}

static int exec_bound(struct store *st, const char *sql, const char *a1,
		      const char *a2, const char *a3, long long n4,
		      int *changes, struct err *e)
{
	sqlite3_stmt *s = store_prepare(st, sql, e);
	int rc;

	if (!s)
		return -1;
	if (a1)
		sqlite3_bind_text(s, 1, a1, -1, SQLITE_STATIC);
	if (a2)
		sqlite3_bind_text(s, 2, a2, -1, SQLITE_STATIC);
	if (a3)
		sqlite3_bind_text(s, 3, a3, -1, SQLITE_STATIC);
	if (n4)
		sqlite3_bind_int64(s, 4, n4);
	rc = store_step(st, s, "moving labels", e);
	sqlite3_finalize(s);
	if (rc < 0)
		return -1;
	if (changes)
		*changes = sqlite3_changes(st->db);
	return 0;
}

static int rewrite_resolutions(struct store *st, const char *dim,
			       const char *from, const char *to, int *n,
			       struct err *e)
{
	static const char *const cols[] = { "code", "coder1_codes",
					    "coder2_codes" };
	sqlite3_stmt *s, *u;
	size_t c;
	int rc;

	for (c = 0; c < 3; c++) {
		struct buf sel = BUF_INIT, upd = BUF_INIT;

		buf_addf(&sel, "SELECT item_id, %s FROM resolutions WHERE "
			 "dimension = ? AND %s IS NOT NULL", cols[c], cols[c]);
		buf_addf(&upd, "UPDATE resolutions SET %s = ? WHERE item_id = "
			 "? AND dimension = ?", cols[c]);
		s = store_prepare(st, sel.ptr, e);
		u = s ? store_prepare(st, upd.ptr, e) : NULL;
		buf_release(&sel);
		buf_release(&upd);
		if (!s || !u) {
			sqlite3_finalize(s);
			return -1;
		}
		sqlite3_bind_text(s, 1, dim, -1, SQLITE_STATIC);
		while ((rc = store_step(st, s, "reading resolutions",
					e)) > 0) {
			char *nl = code_list_replace((const char *)
				sqlite3_column_text(s, 1), from, to);

			if (!nl)
				continue;
			sqlite3_reset(u);
			sqlite3_bind_text(u, 1, nl, -1, SQLITE_TRANSIENT);
			sqlite3_bind_int64(u, 2, sqlite3_column_int64(s, 0));
			sqlite3_bind_text(u, 3, dim, -1, SQLITE_STATIC);
			free(nl);
			if (store_step(st, u, "rewriting resolutions",
				       e) < 0) {
				sqlite3_finalize(s);
				sqlite3_finalize(u);
				return -1;
			}
			if (c == 0)
				(*n)++;
		}
		sqlite3_finalize(s);
		sqlite3_finalize(u);
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* Move every label of dim=from (only those carrying proposal `pid` when
 * pid > 0) to dim=to; a member who already has `to` keeps one. */
int evolve_move_labels(struct store *st, const char *dim, const char *from,
		       const char *to, long long pid, int *moved,
		       struct err *e)
{
	if (exec_bound(st, pid ?
		       "INSERT OR IGNORE INTO labels (item_id, member_id, "
		       "dimension, code, codebook_version, proposal_id, "
		       "labeled_at) SELECT item_id, member_id, dimension, ?3, "
		       "codebook_version, proposal_id, labeled_at FROM labels "
		       "WHERE dimension = ?1 AND code = ?2 AND proposal_id = ?4" :
		       "INSERT OR IGNORE INTO labels (item_id, member_id, "
		       "dimension, code, codebook_version, proposal_id, "
		       "labeled_at) SELECT item_id, member_id, dimension, ?3, "
		       "codebook_version, proposal_id, labeled_at FROM labels "
		       "WHERE dimension = ?1 AND code = ?2",
		       dim, from, to, pid, NULL, e) < 0)
		return -1;
	return exec_bound(st, pid ?
			  "DELETE FROM labels WHERE dimension = ?1 AND code = "
			  "?2 AND proposal_id = ?4" :
			  "DELETE FROM labels WHERE dimension = ?1 AND code = ?2",
			  dim, from, NULL, pid, moved, e);
}

static int apply_map(struct store *st, const struct actor *a,
		     const struct code_map *m, struct update_stats *stats,
		     struct err *e)
{
	struct buf note = BUF_INIT, d = BUF_INIT;
	int moved = 0, res = 0, rc;

	if (evolve_move_labels(st, m->dim, m->from, m->to, 0, &moved,
			       e) < 0 ||
	    rewrite_resolutions(st, m->dim, m->from, m->to, &res, e) < 0)
		return -1;
	buf_addf(&note, "%s (%d labels, %d resolutions)", m->to, moved, res);
	audit_detail_str(&d, "to", m->to);
	rc = audit_write_detail(st, a->os_user, actor_for(a), "codebook.map",
				0, m->dim, m->from, note.ptr,
				audit_detail_end(&d), e);
	buf_release(&note);
	buf_release(&d);
	stats->moved += moved;
	stats->resolutions += res;
	return rc;
}

static const struct code_map *find_map(const struct code_map *maps,
				       size_t n, const char *dim,
				       const char *code)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(maps[i].dim, dim) && !strcmp(maps[i].from, code))
			return &maps[i];
	return NULL;
}

static const struct code_split *find_split(const struct code_split *v,
					   size_t n, const char *dim,
					   const char *code)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(v[i].dim, dim) && !strcmp(v[i].from, code))
			return &v[i];
	return NULL;
}

/* Every code in use (labels and resolutions) must survive, be mapped or
 * be split. */
static int check_used(struct store *st, const struct codebook *nc,
		      const struct code_map *maps, size_t nr_maps,
		      const struct code_split *splits, size_t nr_splits,
		      struct err *e)
{
	sqlite3_stmt *s;
	int rc, ret = 0;

	s = store_prepare(st, "SELECT dimension, code, count(*) FROM labels "
			  "GROUP BY dimension, code ORDER BY dimension, code",
			  e);
	if (!s)
		return -1;
	while (ret == 0 && (rc = store_step(st, s, "reading the labels' codes",
					    e)) > 0) {
		const char *dim = (const char *)sqlite3_column_text(s, 0);
		const char *code = (const char *)sqlite3_column_text(s, 1);
		const struct dimension *d = codebook_dim(nc, dim);

		if (find_map(maps, nr_maps, dim, code) ||
		    find_split(splits, nr_splits, dim, code))
			continue;
		if (!d)
			ret = err_set(e, ERR_INPUT, "dimension %s is used by "
				      "labels but missing from the new "
				      "codebook", dim);
		else if (!dimension_code(d, code))
			ret = err_set(e, ERR_INPUT, "%s=%s is used by %d "
				      "label%s but missing from the new "
				      "codebook; map it with --map %s:%s=NEW",
				      dim, code, sqlite3_column_int(s, 2),
				      sqlite3_column_int(s, 2) == 1 ? "" : "s",
				      dim, code);
	}
	sqlite3_finalize(s);
	/* a step that failed is no answer: never "no code in use" */
	if (ret == 0 && rc < 0)
		ret = -1;
	if (ret)
		return ret;
	s = store_prepare(st, "SELECT dimension, code FROM resolutions", e);
	if (!s)
		return -1;
	while (ret == 0 && (rc = store_step(st, s, "reading resolutions",
					    e)) > 0) {
		const char *dim = (const char *)sqlite3_column_text(s, 0);
		char *copy = xstrdup((const char *)sqlite3_column_text(s, 1));
		char *tok, *save = NULL;
		const struct dimension *d = codebook_dim(nc, dim);

		for (tok = strtok_r(copy, ";", &save); tok && !ret;
		     tok = strtok_r(NULL, ";", &save))
			if (!find_map(maps, nr_maps, dim, tok) &&
			    !find_split(splits, nr_splits, dim, tok) &&
			    (!d || !dimension_code(d, tok)))
				ret = err_set(e, ERR_INPUT, "%s=%s is used by a "
					      "resolution but missing from "
					      "the new codebook; map it with "
					      "--map %s:%s=NEW", dim, tok, dim,
					      tok);
		free(copy);
	}
	sqlite3_finalize(s);
	if (rc < 0)
		ret = -1;
	return ret;
}

/* The labels whose code `cb` lacks, into stats. */
static int find_orphans(struct store *st, const struct codebook *cb,
			struct update_stats *stats, struct err *e)
{
	struct buf b = BUF_INIT;
	sqlite3_stmt *s;
	int rc;

	s = store_prepare(st, "SELECT dimension, code, count(*) FROM labels "
			  "GROUP BY dimension, code ORDER BY dimension, code",
			  e);
	if (!s)
		return -1;
	while ((rc = store_step(st, s, "checking the labels' codes", e)) > 0) {
		const char *dim = (const char *)sqlite3_column_text(s, 0);
		const char *code = (const char *)sqlite3_column_text(s, 1);
		const struct dimension *d = codebook_dim(cb, dim);
		int n = sqlite3_column_int(s, 2);

		if (d && dimension_code(d, code))
			continue;
		if (!stats->nr_orphans++) {
			struct buf f = BUF_INIT;

			buf_addf(&f, "%s:%s", dim, code);
			stats->first_orphan = buf_detach(&f, NULL);
		}
		buf_addf(&b, "%s%s=%s (%d label%s)", b.len ? "; " : "", dim,
			 code, n, n == 1 ? "" : "s");
	}
	sqlite3_finalize(s);
	if (rc < 0) {
		buf_release(&b);
		return -1;
	}
	if (b.len)
		stats->orphans = buf_detach(&b, NULL);
	buf_release(&b);
	return 0;
}

int codebook_update(struct store *st, const struct actor *a,
		    const char *path, const struct code_map *maps,
		    size_t nr_maps, struct update_stats *stats,
		    struct err *e)
{
	return codebook_update_split(st, a, path, maps, nr_maps, NULL, 0,
				     stats, e);
}

/* The current codebook's JSON text into *current (owned; NULL when the
 * study has none).  0, or -1 with `e` filled. */
static int current_text(struct store *st, char **current, struct err *e)
{
	sqlite3_stmt *s = store_prepare(st, "SELECT json FROM codebooks "
					"WHERE current", e);
	int rc;

	if (!s)
		return -1;
	rc = store_step(st, s, "reading the codebook", e);
	if (rc > 0)
		*current = xstrdup((const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	return rc < 0 ? -1 : 0;
}

/* The --map and --split arguments against the new codebook `nc`: a map
 * goes to a code of it, no code is mapped or split twice, none both.
 * 0, or -1 with `e` naming the argument. */
static int check_maps_splits(const struct codebook *nc,
			     const struct code_map *maps, size_t nr_maps,
			     const struct code_split *splits,
			     size_t nr_splits, struct err *e)
{
	size_t i;

	for (i = 0; i < nr_maps; i++) {
		const struct dimension *d = codebook_dim(nc, maps[i].dim);

		if (!d) {
			err_set(e, ERR_INPUT, "--map %s:%s=%s: dimension %s is "
				"not in the new codebook", maps[i].dim,
				maps[i].from, maps[i].to, maps[i].dim);
			return -1;
		}
		if (!dimension_code(d, maps[i].to)) {
			err_set(e, ERR_INPUT, "--map %s:%s=%s: %s is not a code "
				"of %s in the new codebook", maps[i].dim,
				maps[i].from, maps[i].to, maps[i].to,
				maps[i].dim);
			return -1;
		}
		if (find_map(maps, i, maps[i].dim, maps[i].from)) {
			err_set(e, ERR_INPUT, "--map %s:%s given twice",
				maps[i].dim, maps[i].from);
			return -1;
		}
	}
	for (i = 0; i < nr_splits; i++) {
		if (find_map(maps, nr_maps, splits[i].dim, splits[i].from)) {
			err_set(e, ERR_INPUT, "--split %s:%s: the code is mapped "
				"too (--map); a code is either mapped or split",
				splits[i].dim, splits[i].from);
			return -1;
		}
		if (find_split(splits, i, splits[i].dim, splits[i].from)) {
			err_set(e, ERR_INPUT, "--split %s:%s given twice",
				splits[i].dim, splits[i].from);
			return -1;
		}
	}
	return 0;
}

/* Move the labels of each map, send back to their coders the labels of
 * each split code (core/study/recode), counting both into `stats`.  0,
 * or -1 with `e` filled; the caller holds the transaction. */
static int apply_maps_splits(struct store *st, const struct actor *a,
			     const struct codebook *nc,
			     const struct code_map *maps, size_t nr_maps,
			     const struct code_split *splits,
			     size_t nr_splits, struct update_stats *stats,
			     struct err *e)
{
	size_t i;

	for (i = 0; i < nr_maps; i++)
		if (apply_map(st, a, &maps[i], stats, e) < 0)
			return -1;
	for (i = 0; i < nr_splits; i++) {
		int labels, res;

		if (recode_split(st, a, nc, &splits[i], &labels, &res,
				 e) < 0)
			return -1;
		stats->recodes += labels;
		stats->reopened += res;
	}
	return 0;
}

int codebook_update_split(struct store *st, const struct actor *a,
			  const char *path, const struct code_map *maps,
			  size_t nr_maps, const struct code_split *splits,
			  size_t nr_splits, struct update_stats *stats,
			  struct err *e)
{
	struct codebook nc = CODEBOOK_INIT, oc = CODEBOOK_INIT;
	struct buf json = BUF_INIT;
	struct err ignore = ERR_INIT;
	char *current = NULL;
	int have_old, same = 0, ret = -1;

	memset(stats, 0, sizeof(*stats));
	if (actor_require(a, ROLES(ROLE_OWNER), "codebook update", e) < 0)
		return -1;
	if (buf_read_file(&json, path) < 0) {
		err_set(e, ERR_IO, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (codebook_parse(&nc, json.ptr, json.len, path, e) < 0)
		goto out;
	if (store_begin(st, e) < 0)
		goto out;
	have_old = study_codebook(st, &oc, NULL, &ignore) == 0;
	if (have_old) {
		if (current_text(st, &current, e) < 0)
			goto out;
		same = current && !strcmp(current, json.ptr);
		if (same && nr_splits) {
			err_set(e, ERR_INPUT, "--split: %s is the current "
				"codebook; a split needs a new version with "
				"the new codes and without %s", path,
				splits[0].from);
			goto out;
		}
		if (same && !nr_maps) {
			stats->unchanged = 1;
			if (find_orphans(st, &nc, stats, e) < 0)
				goto out;
			ret = store_commit(st, e);
			goto out;
		}
		if (!same && !strcmp(oc.name, nc.name) &&
		    !strcmp(oc.version, nc.version)) {
			err_set(e, ERR_INPUT, "%s: version %s is already "
				"loaded with different content; give the new "
				"codebook a new version", path, nc.version);
			goto out;
		}
	}
	if (check_maps_splits(&nc, maps, nr_maps, splits, nr_splits, e) < 0)
		goto out;
	if (nr_splits && !have_old) {
		err_set(e, ERR_INPUT, "--split: the study has no codebook yet "
			"to split a code of");
		goto out;
	}
	/* the same version again only mends labels: those it leaves
	 * are reported, not refused */
	if (!same && check_used(st, &nc, maps, nr_maps, splits, nr_splits,
				e) < 0)
		goto out;
	if (apply_maps_splits(st, a, &nc, maps, nr_maps, splits, nr_splits,
			      stats, e) < 0)
		goto out;
	if (same)
		stats->unchanged = 1;
	else if (study_store_codebook(st, &nc, json.ptr, path, a->os_user,
				      actor_for(a), e) < 0)
		goto out;
	if (find_orphans(st, &nc, stats, e) < 0)
		goto out;
	ret = store_commit(st, e);
out:
	if (ret < 0)
		store_rollback(st);
	codebook_release(&nc);
	codebook_release(&oc);
	buf_release(&json);
	free(current);
	return ret;
}

/* Accepted proposals whose code `cb` lacks: open again, their labels
 * back on `other`. */
static int reopen_proposals(struct store *st, const struct actor *a,
			    const struct codebook *cb,
			    struct revert_stats *stats, struct err *e)
{
	sqlite3_stmt *s, *u = NULL;
	long long *ids = NULL;
	char **dims = NULL, **keys = NULL;
	size_t n = 0, alloc = 0, i;
	int rc, ret = -1;

	s = store_prepare(st, "SELECT id, dimension, decided_code FROM "
			  "proposals WHERE status = 'accepted' ORDER BY id", e);
	if (!s)
		return -1;
	while ((rc = store_step(st, s, "listing proposals", e)) > 0) {
		const char *dim = (const char *)sqlite3_column_text(s, 1);
		const char *key = (const char *)sqlite3_column_text(s, 2);
		const struct dimension *d = codebook_dim(cb, dim);

		if (!key || (d && dimension_code(d, key)))
			continue;
		ALLOC_GROW(ids, n + 1, alloc);
		dims = xrealloc(dims, alloc * sizeof(*dims));
		keys = xrealloc(keys, alloc * sizeof(*keys));
		ids[n] = sqlite3_column_int64(s, 0);
		dims[n] = xstrdup(dim);
		keys[n] = xstrdup(key);
		n++;
	}
	sqlite3_finalize(s);
	if (rc < 0)
		goto out;
	u = store_prepare(st, "UPDATE proposals SET status = 'open', "
			  "decided_code = NULL, decided_by = NULL, decided_at "
			  "= NULL WHERE id = ?", e);
	if (!u)
		goto out;
	for (i = 0; i < n; i++) {
		const struct dimension *dm = codebook_dim(cb, dims[i]);
		struct buf note = BUF_INIT, d = BUF_INIT;
		int moved = 0;

		if (!dm || !dimension_code(dm, "other")) {
			err_set(e, ERR_INPUT, "proposal %lld (%s:%s) cannot be "
				"undone: version %s has no %s:other for its "
				"labels", ids[i], dims[i], keys[i],
				cb->version, dims[i]);
			goto out;
		}
		if (evolve_move_labels(st, dims[i], keys[i], "other", ids[i],
				       &moved, e) < 0)
			goto out;
		sqlite3_reset(u);
		sqlite3_bind_int64(u, 1, ids[i]);
		if (store_step(st, u, "reopening a proposal", e) < 0)
			goto out;
		buf_addf(&note, "open (%d label%s back to other)", moved,
			 moved == 1 ? "" : "s");
		audit_detail_int(&d, "proposal", ids[i]);
		rc = audit_write_detail(st, a->os_user, actor_for(a),
					"proposal.reopen", 0, dims[i], keys[i],
					note.ptr, audit_detail_end(&d), e);
		buf_release(&note);
		buf_release(&d);
		if (rc < 0)
			goto out;
		stats->reopened++;
		stats->back_to_other += moved;
	}
	ret = 0;
out:
	sqlite3_finalize(u);
	for (i = 0; i < n; i++) {
		free(dims[i]);
		free(keys[i]);
	}
	free(dims);
	free(keys);
	free(ids);
	return ret;
}

/* The JSON of codebook version `version` as the study stored it into
 * *json (owned): the latest row of that version, of codebook `name`
 * first.  0, or -1 with `e` filled (ERR_NOTFOUND, with the closest
 * version the study had, when it never had that one). */
static int stored_version(struct store *st, const char *name,
			  const char *version, char **json, struct err *e)
{
	sqlite3_stmt *s;
	int rc;

	/* the latest row of that version, of this codebook first */
	s = store_prepare(st, "SELECT json FROM codebooks WHERE version = ?1 "
			  "ORDER BY name = ?2 DESC, id DESC LIMIT 1", e);
	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, version, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, name, -1, SQLITE_STATIC);
	rc = store_step(st, s, "reading the codebook history", e);
	if (rc > 0)
		*json = xstrdup((const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	if (rc < 0)
		return -1;
	if (!*json) {
		struct suggest sg;

		err_set(e, ERR_NOTFOUND, "codebook version %s: the study never "
			"had it", version);
		s = store_prepare(st, "SELECT DISTINCT version FROM codebooks",
				  NULL);
		suggest_init(&sg, version);
		/* suggestions only: a failed read suggests nothing */
		while (s && store_step(st, s, "", NULL) > 0)
			suggest_add(&sg, (const char *)
				    sqlite3_column_text(s, 0));
		sqlite3_finalize(s);
		err_suggest(e, suggest_result(&sg));
		suggest_release(&sg);
		return -1;
	}
	return 0;
}

int codebook_revert(struct store *st, const struct actor *a,
		    const char *version, const struct code_map *maps,
		    size_t nr_maps, struct revert_stats *stats,
		    struct err *e)
{
	struct codebook cur = CODEBOOK_INIT, target = CODEBOOK_INIT;
	struct update_stats us;
	struct buf note = BUF_INIT;
	char *json = NULL;
	size_t i;
	int ret = -1;

	memset(stats, 0, sizeof(*stats));
	memset(&us, 0, sizeof(us));
	if (actor_require(a, ROLES(ROLE_OWNER), "codebook revert", e) < 0)
		return -1;
	if (store_begin(st, e) < 0)
		return -1;
	if (study_codebook(st, &cur, NULL, e) < 0)
		goto out;
	if (!strcmp(cur.version, version)) {
		err_set(e, ERR_INPUT, "codebook %s %s is the current version "
			"already", cur.name, version);
		goto out;
	}
	if (stored_version(st, cur.name, version, &json, e) < 0)
		goto out;
	if (codebook_parse(&target, json, strlen(json), "the stored codebook",
			   e) < 0)
		goto out;
	for (i = 0; i < nr_maps; i++) {
		const struct dimension *d = codebook_dim(&target, maps[i].dim);

		if (!d || !dimension_code(d, maps[i].to)) {
			err_set(e, ERR_INPUT, "--map %s:%s=%s: %s is not a code "
				"of %s in version %s", maps[i].dim,
				maps[i].from, maps[i].to, maps[i].to,
				maps[i].dim, version);
			goto out;
		}
		if (apply_map(st, a, &maps[i], &us, e) < 0)
			goto out;
	}
	stats->moved = us.moved;
	stats->resolutions = us.resolutions;
	if (reopen_proposals(st, a, &target, stats, e) < 0)
		goto out;
	if (find_orphans(st, &target, &us, e) < 0)
		goto out;
	if (us.orphans) {
		err_set(e, ERR_INPUT, "version %s lacks codes labels use: %s; "
			"map them with --map %s=NEW%s", version, us.orphans,
			us.first_orphan, us.nr_orphans > 1 ?
			" (one --map for each)" : "");
		goto out;
	}
	/* resolutions */
	if (check_used(st, &target, NULL, 0, NULL, 0, e) < 0)
		goto out;
	buf_addf(&note, "revert to %s", version);
	if (study_store_codebook(st, &target, json, note.ptr, a->os_user,
				 actor_for(a), e) < 0)
		goto out;
	buf_reset(&note);
	buf_addf(&note, "%s %s", target.name, version);
	if (audit_write(st, a->os_user, actor_for(a), "codebook.revert", 0,
			NULL, cur.version, note.ptr, e) < 0)
		goto out;
	ret = store_commit(st, e);
out:
	if (ret < 0)
		store_rollback(st);
	codebook_release(&cur);
	codebook_release(&target);
	buf_release(&note);
	free(json);
	free(us.orphans);
	free(us.first_orphan);
	return ret;
}
