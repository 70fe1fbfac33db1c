/* SPDX-License-Identifier: MIT */
/*
 * studyview: see studyview.h.
 */
#include "core/study/studyview.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/study/access.h"
#include "core/study/consensus.h"
#include "core/base/buf.h"
#include "core/study/round.h"
#include "core/study/design.h"
#include "core/study/screening.h"
#include "core/study/study.h"

static int round_exists(struct store *st, const char *round, struct err *e)
{
	sqlite3_stmt *s;
	int rc;

	s = store_prepare(st, "SELECT 1 FROM rounds WHERE name = ?", e);
	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, round, -1, SQLITE_STATIC);
	rc = store_step(st, s, "reading rounds", e);
	sqlite3_finalize(s);
	if (rc == 0) {
		struct buf what = BUF_INIT;

		buf_addf(&what, "--round %s", round);
		round_unknown(st, what.ptr, round, e);
		buf_release(&what);
		return -1;
	}
	return rc < 0 ? -1 : 0;
}

static long long col_or(sqlite3_stmt *s, int i, long long dflt)
{
	return sqlite3_column_type(s, i) == SQLITE_NULL ? dflt :
	       sqlite3_column_int64(s, i);
}

/* The item i may be listed to the member ?2: everyone sees every item
 * unless ?1 (they see only their own work), then only the items of the
 * rounds that assign them - while the study has rounds. */
#define LISTED_ITEM \
	"(?1 = 0 OR NOT EXISTS (SELECT 1 FROM rounds) OR EXISTS " \
	" (SELECT 1 FROM assignments a JOIN round_annotators ra ON " \
	"  ra.round_id = a.round_id WHERE a.item_id = i.id AND " \
	"  ra.member_id = ?2) OR EXISTS (SELECT 1 FROM " \
	"  screen_assignments a JOIN round_annotators ra ON " \
	"  ra.round_id = a.round_id WHERE a.item_id = i.id AND " \
	"  ra.member_id = ?2))"

int studyview_items(struct store *st, const struct actor *a,
		    const struct item_filter *f,
		    int (*fn)(const struct item_row *row, void *data),
		    void *data, struct err *e)
{
	static const char *const progress[] = {
		NULL, "todo", "partial", "submitted"
	};
	sqlite3_stmt *s;
	int own, rc, stop = 0;

	if (a->role == ROLE_NONE)
		return err_set(e, ERR_PERM, "%s is not a member of this study",
			       a->name ? a->name : "you");
	if (f->round && round_exists(st, f->round, e) < 0)
		return -1;
	/* whoever may not see everyone's work counts only their own
	 * submission, and lists only the items given to them */
	own = !access_sees_all(a);
	s = store_prepare(st,
		"SELECT i.id, i.repo, i.number, i.title, "
		" (SELECT count(*) FROM fixes f WHERE f.item_id = i.id), "
		" i.lines_changed, i.changed_files, i.days_open, "
		" i.comment_count, i.diff_partial, "
		" CASE WHEN i.id IN (SELECT item_id FROM screen_assignments) "
		"  AND i.id NOT IN (SELECT item_id FROM assignments) THEN "
		"  (SELECT count(*) FROM screen_labels s WHERE s.item_id = "
		"  i.id AND s.submitted_at IS NOT NULL AND (?1 = 0 OR "
		"  s.member_id = ?2)) ELSE "
		" (SELECT count(*) FROM submissions s WHERE s.item_id = i.id "
		"  AND (?1 = 0 OR s.member_id = ?2)) END AS nsub, "
		" (SELECT r.name FROM assignments a JOIN rounds r ON "
		"  r.id = a.round_id WHERE a.item_id = i.id) AS round, "
		" (SELECT r.name FROM screen_assignments a JOIN rounds r ON "
		"  r.id = a.round_id WHERE a.item_id = i.id) AS sround, "
		" (SELECT code FROM screen_decisions d WHERE d.item_id = "
		"  i.id), i.missing "
		"FROM items i "
		"WHERE (?3 IS NULL OR round = ?3 OR sround = ?3) AND (?4 IS "
		" NULL OR "
		" i.repo = ?4) AND (?5 IS NULL "
		" OR (?5 = 'todo' AND nsub = 0) "
		" OR (?5 = 'partial' AND nsub = 1 AND ?1 = 0) "
		" OR (?5 = 'submitted' AND nsub >= (CASE WHEN ?1 THEN 1 "
		"  ELSE 2 END))) "
		"AND " LISTED_ITEM " "
		"ORDER BY i.id", e);
	if (!s)
		return -1;
	sqlite3_bind_int(s, 1, own);
	sqlite3_bind_int64(s, 2, a->member_id);
	store_bind_text(s, 3, f->round);
	store_bind_text(s, 4, f->repo);
	store_bind_text(s, 5, progress[f->status]);
	while (!stop && (rc = store_step(st, s, "listing items", e)) > 0) {
		struct item_row r;

		r.id = sqlite3_column_int64(s, 0);
		r.repo = (const char *)sqlite3_column_text(s, 1);
		r.number = sqlite3_column_int64(s, 2);
		r.title = (const char *)sqlite3_column_text(s, 3);
		r.nr_fixes = sqlite3_column_int(s, 4);
		r.lines_changed = col_or(s, 5, -1);
		r.changed_files = col_or(s, 6, -1);
		r.days_open = sqlite3_column_type(s, 7) == SQLITE_NULL ? -1 :
			      sqlite3_column_double(s, 7);
		r.comments = sqlite3_column_int64(s, 8);
		r.diff_partial = sqlite3_column_int(s, 9);
		r.nr_submitted = sqlite3_column_int(s, 10);
		r.round = (const char *)sqlite3_column_text(s, 11);
		r.screen_round = (const char *)sqlite3_column_text(s, 12);
		r.decision = (const char *)sqlite3_column_text(s, 13);
		r.missing = sqlite3_column_int(s, 14);
		r.own_only = own;
		stop = fn(&r, data);
	}
	sqlite3_finalize(s);
	if (stop)
		return stop;
	return rc < 0 ? -1 : 0;
}

int studyview_item_names(struct store *st, const struct actor *a,
			 const char *repo_prefix,
			 int (*fn)(const char *repo, long long number,
				   void *data),
			 void *data, struct err *e)
{
	sqlite3_stmt *s;
	int rc, stop = 0;

	if (a->role == ROLE_NONE)
		return err_set(e, ERR_PERM, "%s is not a member of this study",
			       a->name ? a->name : "you");
	/* as studyview_items(): who may not see everyone's work lists only
	 * the items given to them */
	s = store_prepare(st,
		"SELECT i.repo, i.number FROM items i "
		"WHERE substr(i.repo, 1, length(?3)) = ?3 "
		"AND " LISTED_ITEM " "
		"ORDER BY i.repo, i.number", e);
	if (!s)
		return -1;
	sqlite3_bind_int(s, 1, !access_sees_all(a));
	sqlite3_bind_int64(s, 2, a->member_id);
	sqlite3_bind_text(s, 3, repo_prefix ? repo_prefix : "", -1,
			  SQLITE_STATIC);
	while (!stop && (rc = store_step(st, s, "listing items", e)) > 0)
		stop = fn((const char *)sqlite3_column_text(s, 0),
			  sqlite3_column_int64(s, 1), data);
	sqlite3_finalize(s);
	if (stop)
		return stop;
	return rc < 0 ? -1 : 0;
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

struct column {
	double *v;
	size_t nr, alloc;
};

static void column_add(struct column *c, sqlite3_stmt *s, int i)
{
	if (sqlite3_column_type(s, i) == SQLITE_NULL)
		return;
	ALLOC_GROW(c->v, c->nr + 1, c->alloc);
	c->v[c->nr++] = sqlite3_column_double(s, i);
}

/* The median of c[0..nr) (sorted here), NAN when empty; empties c. */
static double column_median(struct column *c)
{
	double m = NAN;

	if (c->nr) {
		qsort(c->v, c->nr, sizeof(*c->v), cmp_double);
		m = c->nr % 2 ? c->v[c->nr / 2] :
		    (c->v[c->nr / 2 - 1] + c->v[c->nr / 2]) / 2;
	}
	c->nr = 0;
	return m;
}

/* Items per repository in one ordered scan: the medians need each
 * repository's values together, and the whole study's at the end. */
static int repo_figures(struct store *st, struct study_status *out,
			struct err *e)
{
	struct column days = { 0 }, cmts = { 0 }, lines = { 0 };
	struct column all_days = { 0 }, all_cmts = { 0 }, all_lines = { 0 };
	struct repo_status all;
	size_t alloc = 0;
	sqlite3_stmt *s;
	int rc, ret = -1;

	memset(&all, 0, sizeof(all));
	s = store_prepare(st, "SELECT i.repo, i.has_fix, i.small_fix, "
			  "i.days_open, i.comment_count, i.lines_changed, "
			  "(SELECT count(*) FROM fixes f WHERE f.item_id = "
			  "i.id) FROM items i ORDER BY i.repo", e);
	if (!s)
		return -1;
	while ((rc = store_step(st, s, "reading items", e)) > 0) {
		const char *repo = (const char *)sqlite3_column_text(s, 0);
		struct repo_status *r = out->nr_repos ?
			&out->repos[out->nr_repos - 1] : NULL;
		struct repo_status *t[2];
		size_t k;

		if (!r || strcmp(r->repo, repo)) {
			if (r) {
				r->median_days = column_median(&days);
				r->median_comments = column_median(&cmts);
				r->median_lines = column_median(&lines);
			}
			ALLOC_GROW(out->repos, out->nr_repos + 2, alloc);
			r = &out->repos[out->nr_repos++];
			memset(r, 0, sizeof(*r));
			r->repo = xstrdup(repo);
		}
		t[0] = r;
		t[1] = &all;
		for (k = 0; k < 2; k++) {
			t[k]->items++;
			t[k]->fixed += sqlite3_column_int(s, 1) != 0;
			t[k]->fixes += sqlite3_column_int(s, 6);
			if (sqlite3_column_type(s, 2) != SQLITE_NULL) {
				t[k]->with_size++;
				t[k]->small += sqlite3_column_int(s, 2) != 0;
			}
		}
		column_add(&days, s, 3);
		column_add(&cmts, s, 4);
		column_add(&lines, s, 5);
		column_add(&all_days, s, 3);
		column_add(&all_cmts, s, 4);
		column_add(&all_lines, s, 5);
	}
	if (rc < 0)
		goto out;
	if (out->nr_repos) {
		struct repo_status *r = &out->repos[out->nr_repos - 1];

		r->median_days = column_median(&days);
		r->median_comments = column_median(&cmts);
		r->median_lines = column_median(&lines);
	} else {
		ALLOC_GROW(out->repos, 1, alloc);
	}
	all.median_days = column_median(&all_days);
	all.median_comments = column_median(&all_cmts);
	all.median_lines = column_median(&all_lines);
	out->repos[out->nr_repos++] = all;
	ret = 0;
out:
	sqlite3_finalize(s);
	free(days.v);
	free(cmts.v);
	free(lines.v);
	free(all_days.v);
	free(all_cmts.v);
	free(all_lines.v);
	return ret;
}

static int counts(struct store *st, struct study_status *out, struct err *e)
{
	sqlite3_stmt *s;
	int rc;

	s = store_prepare(st,
		"SELECT (SELECT count(*) FROM members WHERE active), "
		" (SELECT count(*) FROM rounds), "
		" (SELECT count(*) FROM labels), "
		" (SELECT count(*) FROM submissions), "
		" (SELECT count(*) FROM proposals WHERE status = 'open'), "
		" (SELECT count(*) FROM resolutions), "
		" (SELECT count(*) FROM items WHERE NOT has_fix), "
		" (SELECT count(*) FROM items WHERE diff_partial)", e);
	if (!s)
		return -1;
	rc = store_step(st, s, "counting", e);
	if (rc > 0) {
		out->members = sqlite3_column_int64(s, 0);
		out->rounds = sqlite3_column_int64(s, 1);
		if (out->work_visible) {
			out->labels = sqlite3_column_int64(s, 2);
			out->submissions = sqlite3_column_int64(s, 3);
			out->open_proposals = sqlite3_column_int64(s, 4);
			out->resolutions = sqlite3_column_int64(s, 5);
		}
		out->no_fix = sqlite3_column_int64(s, 6);
		out->partial_diff = sqlite3_column_int64(s, 7);
	}
	sqlite3_finalize(s);
	return rc < 0 ? -1 : 0;
}

/* How many items are ready, agreed, resolved, disagreeing or flagged for
 * discussion: the agreed-label decision of core/study/consensus, in one pass. */
static int agreement_counts(struct store *st, const struct actor *a,
			    struct study_status *out, struct err *e)
{
	struct codebook cb = CODEBOOK_INIT;
	struct consensus_iter it;
	int rc, ret = -1;

	if (study_codebook(st, &cb, NULL, e) < 0)
		return -1;
	if (consensus_open(&it, st, a, &cb, NULL, e) < 0)
		goto out;
	consensus_skip_fixes(&it);
	while ((rc = consensus_next(&it, e)) > 0) {
		const struct consensus_item *t = &it.item;
		int any_resolved = 0, disagree = 0;
		size_t d;

		if (!t->ready)
			continue;
		out->ready++;
		for (d = 0; d < cb.nr_dims; d++) {
			any_resolved |= t->dims[d].status == DIM_RESOLVED;
			disagree |= t->dims[d].status == DIM_DISAGREE;
		}
		/* as the selection flow counts them (core/study/design) */
		if (disagree)
			out->disagreeing++;
		else if (!t->complete)
			out->recoding++;
		else if (any_resolved)
			out->resolved++;
		else
			out->agreed++;
		out->discuss += t->discuss && !t->settled;
	}
	if (rc == 0)
		ret = 0;
out:
	consensus_close(&it);
	codebook_release(&cb);
	return ret;
}

/* Which items count, and the screening, for members. */
static int design_facts(struct store *st, const struct actor *a,
			struct study_status *out, struct err *e)
{
	struct screening_counts sc;
	struct buf b = BUF_INIT;

	if (design_scope(st, NULL, &b, e) < 0) {
		buf_release(&b);
		return -1;
	}
	/* the lines after the first name items awaiting recoding */
	if (!access_sees_all(a) && strchr(b.ptr, '\n'))
		buf_setlen(&b, (size_t)(strchr(b.ptr, '\n') - b.ptr) + 1);
	out->scope = buf_detach(&b, NULL);
	if (screening_count(st, &sc, e) < 0)
		return -1;
	out->screen_rounds = sc.rounds;
	out->screened = sc.screened;
	out->included = sc.included;
	out->excluded = sc.excluded;
	out->undecided = sc.undecided;
	return 0;
}

int studyview_status(struct store *st, const struct actor *a,
		     struct study_status *s, struct err *e)
{
	struct codebook cb = CODEBOOK_INIT;
	struct err none = ERR_INIT;
	int has_cb;

	memset(s, 0, sizeof(*s));
	if (store_exec(st, "SAVEPOINT status_read", e) < 0)
		return -1;
	if (store_meta_read(st, "title", &s->title, e) < 0)
		goto fail;
	has_cb = study_codebook(st, &cb, NULL, &none) == 0;
	if (!has_cb && none.code != ERR_NOTFOUND) {
		*e = none;
		goto fail;
	}
	if (has_cb) {
		s->codebook = xstrdup(cb.name);
		s->codebook_version = xstrdup(cb.version);
	}
	codebook_release(&cb);
	/* counts of everyone's labels show when and how much the others
	 * coded: for those who may see all work only */
	s->work_visible = access_sees_all(a);
	s->agreement_visible = s->work_visible && has_cb;
	if (repo_figures(st, s, e) < 0 || counts(st, s, e) < 0)
		goto fail;
	if (s->agreement_visible && agreement_counts(st, a, s, e) < 0)
		goto fail;
	if (a->role != ROLE_NONE && design_facts(st, a, s, e) < 0)
		goto fail;
	store_exec(st, "RELEASE status_read", NULL);
	return 0;
fail:
	store_exec(st, "RELEASE status_read", NULL);
	study_status_release(s);
	return -1;
}

void study_status_release(struct study_status *s)
{
	size_t i;

	if (!s)
		return;
	free(s->title);
	free(s->codebook);
	free(s->codebook_version);
	free(s->scope);
	for (i = 0; i < s->nr_repos; i++)
		free(s->repos[i].repo);
	free(s->repos);
	memset(s, 0, sizeof(*s));
}
