/* SPDX-License-Identifier: MIT */
/*
 * access: see access.h.
 */
#include "core/study/access.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/buf.h"
#include "core/study/item.h"
#include "core/store/audit.h"

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
	/* its coding round; else the screening round it is (or was)
	 * screened in, whose answers and memos are blinded by it */
	static const char round_sql[] = "SELECT r.id, r.closed_at IS NOT "
		"NULL FROM rounds r WHERE r.id = coalesce((SELECT round_id "
		"FROM assignments WHERE item_id = ?1), (SELECT round_id FROM "
		"screen_assignments WHERE item_id = ?1))";
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
	    audit_write(st, a->os_user, actor_for(a), "blind_adjudication", 0,
			NULL, was ? "1" : "0", on ? "1" : "0", e) < 0)
		goto fail;
	return store_commit(st, e) < 0 ? -1 : 1;
fail:
	store_rollback(st);
	return -1;
}

int access_has_rounds(struct store *st, struct err *e)
{
	static const char sql[] = "SELECT EXISTS (SELECT 1 FROM rounds)";
	sqlite3_stmt *s = store_cached(st, sql, e);
	int rc;

	if (!s)
		return -1;
	rc = store_step(st, s, "reading rounds", e);
	if (rc > 0)
		rc = sqlite3_column_int(s, 0);
	store_done(s);
	return rc;
}

void access_verdicts_release(struct label_verdict *v, size_t n)
{
	size_t i;

	for (i = 0; v && i < n; i++) {
		free(v[i].why);
		v[i].why = NULL;
	}
}

/* The study's rounds, named for a refusal: "pilot, round1" (at most
 * five, then "..."); owned. */
static int round_names(struct store *st, char **out, struct err *e)
{
	sqlite3_stmt *s = store_prepare(st, "SELECT name, kind FROM rounds "
					"ORDER BY id", e);
	struct buf b = BUF_INIT;
	int rc, n = 0;

	*out = NULL;
	if (!s)
		return -1;
	while ((rc = store_step(st, s, "reading rounds", e)) > 0) {
		if (n++ == 5) {
			buf_addstr(&b, ", ...");
			break;
		}
		buf_addf(&b, "%s%s%s", b.len ? ", " : "",
			 (const char *)sqlite3_column_text(s, 0),
			 strcmp((const char *)sqlite3_column_text(s, 1),
				"screen") ? "" : " (screening)");
	}
	sqlite3_finalize(s);
	if (rc < 0) {
		buf_release(&b);
		return -1;
	}
	*out = buf_detach(&b, NULL);
	return 0;
}

static char *why(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *why(const char *fmt, ...)
{
	struct buf b = BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	buf_vaddf(&b, fmt, ap);
	va_end(ap);
	return buf_detach(&b, NULL);
}

/* The facts of one item the rule reads (the columns of ITEM_FACTS). */
struct facts {
	char *name;
	int missing;
	long long round;		/* its coding round, 0: none */
	const char *round_name;
	int closed, annotates;
	long long screen;		/* its screening round, 0: none */
	const char *screen_name;
	int screen_closed, screens;
	const char *decision, *how;	/* NULL: not decided */
	int adjudicated, recode, submitted, screen_submitted;
};

#define ITEM_FACTS \
	"SELECT i.repo, i.number, i.missing, a.round_id, r.name, " \
	" r.closed_at IS NOT NULL, EXISTS (SELECT 1 FROM round_annotators " \
	" x WHERE x.round_id = a.round_id AND x.member_id = ?2), " \
	" sa.round_id, sr.name, sr.closed_at IS NOT NULL, EXISTS (SELECT 1 " \
	" FROM round_annotators x WHERE x.round_id = sa.round_id AND " \
	" x.member_id = ?2), d.code, d.how, EXISTS (SELECT 1 FROM " \
	" resolutions WHERE item_id = i.id) OR EXISTS (SELECT 1 FROM settled " \
	" WHERE item_id = i.id), EXISTS (SELECT 1 FROM recodes WHERE " \
	" item_id = i.id AND member_id = ?2 AND done_at IS NULL), EXISTS " \
	" (SELECT 1 FROM submissions WHERE item_id = i.id AND member_id = " \
	" ?2), EXISTS (SELECT 1 FROM screen_labels WHERE item_id = i.id AND " \
	" member_id = ?2 AND submitted_at IS NOT NULL) " \
	"FROM items i LEFT JOIN assignments a ON a.item_id = i.id " \
	"LEFT JOIN rounds r ON r.id = a.round_id " \
	"LEFT JOIN screen_assignments sa ON sa.item_id = i.id " \
	"LEFT JOIN rounds sr ON sr.id = sa.round_id " \
	"LEFT JOIN screen_decisions d ON d.item_id = i.id WHERE i.id = ?1"

static void read_facts(sqlite3_stmt *s, struct facts *f)
{
	memset(f, 0, sizeof(*f));
	f->name = item_name((const char *)sqlite3_column_text(s, 0),
			    sqlite3_column_int64(s, 1));
	f->missing = sqlite3_column_int(s, 2);
	f->round = sqlite3_column_int64(s, 3);
	f->round_name = (const char *)sqlite3_column_text(s, 4);
	f->closed = sqlite3_column_int(s, 5);
	f->annotates = sqlite3_column_int(s, 6);
	f->screen = sqlite3_column_int64(s, 7);
	f->screen_name = (const char *)sqlite3_column_text(s, 8);
	f->screen_closed = sqlite3_column_int(s, 9);
	f->screens = sqlite3_column_int(s, 10);
	f->decision = (const char *)sqlite3_column_text(s, 11);
	f->how = (const char *)sqlite3_column_text(s, 12);
	f->adjudicated = sqlite3_column_int(s, 13);
	f->recode = sqlite3_column_int(s, 14);
	f->submitted = sqlite3_column_int(s, 15);
	f->screen_submitted = sqlite3_column_int(s, 16);
}

/* The rule for one item; `rounds` says whether the study has rounds,
 * `names` lists them (for the refusal of an item in none). */
static void verdict(const struct actor *a, const struct facts *f,
		    int rounds, const char *names, struct label_verdict *v)
{
	memset(v, 0, sizeof(*v));
	if (f->missing) {
		v->why = why("%s has not been fetched yet: nobody codes it "
			     "before `bugcoder fetch --missing` fills it",
			     f->name);
		return;
	}
	if (f->round) {
		v->round_id = f->round;
		v->submitted = f->submitted;
		if (f->adjudicated)
			v->why = why("%s has been adjudicated; its labels can "
				     "no longer change", f->name);
		else if (f->closed)
			v->why = why("%s is in round %s, which is closed; "
				     "labels can no longer change (the owner "
				     "may `round reopen %s`)", f->name,
				     f->round_name, f->round_name);
		else if (!f->annotates && a->role != ROLE_MACHINE)
			v->why = why("%s is in round %s, which %s does not "
				     "annotate", f->name, f->round_name,
				     a->name);
		else
			v->may = LABEL_CODE;
	} else if (f->screen) {
		v->round_id = f->screen;
		v->submitted = f->screen_submitted;
		if (f->decision && !strcmp(f->decision, "include"))
			v->why = why("%s was screened in (round %s, %s) and is "
				     "in no coding round yet; the owner gives "
				     "it to one with `round create`", f->name,
				     f->screen_name, f->how);
		else if (f->decision)
			v->why = why("%s was screened out in round %s (%s, %s): "
				     "it is never coded", f->name,
				     f->screen_name, f->decision, f->how);
		else if (f->screen_closed)
			v->why = why("%s is in screening round %s, which is "
				     "closed; its answers can no longer change "
				     "(the owner may `round reopen %s`)",
				     f->name, f->screen_name, f->screen_name);
		else if (a->role == ROLE_MACHINE)
			v->why = why("%s is in screening round %s: a machine "
				     "does not screen", f->name,
				     f->screen_name);
		else if (!f->screens)
			v->why = why("%s is in screening round %s, which %s "
				     "does not screen", f->name, f->screen_name,
				     a->name);
		else
			v->may = LABEL_SCREEN;
	} else if (a->role == ROLE_MACHINE) {
		v->why = why("%s is in no round; a machine codes only the "
			     "items of rounds", f->name);
	} else if (rounds) {
		v->outside = 1;
		v->why = why("%s is in no round (the study's rounds: %s); a "
			     "member labels only the items of open rounds "
			     "that assign them: the owner gives it to one "
			     "with `round create`, or `labels import --round "
			     "R`", f->name, names ? names : "");
	} else if (f->adjudicated) {
		v->why = why("%s has been adjudicated; its labels can no longer "
			     "change", f->name);
	} else {
		v->may = LABEL_CODE;	/* open coding */
		v->submitted = f->submitted;
	}
	v->recode = f->recode;
	if (v->may == LABEL_NO && f->recode) {
		/* a split left the actor's labels here to recode */
		free(v->why);
		v->why = NULL;
		v->outside = 0;
		v->may = LABEL_RECODE;
		v->submitted = f->submitted;
	}
}

int access_label_items(struct store *st, const struct actor *a,
		       const long long *ids, size_t n,
		       struct label_verdict *out, struct err *e)
{
	static const char facts_sql[] = ITEM_FACTS;
	sqlite3_stmt *s = NULL;
	char *names = NULL;
	size_t i;
	int rounds, rc, ret = -1;

	memset(out, 0, n * sizeof(*out));
	if (a->role != ROLE_ANNOTATOR && a->role != ROLE_OWNER &&
	    a->role != ROLE_MACHINE) {
		for (i = 0; i < n; i++)
			out[i].why = why("%s is %s %s and does not label "
					 "items", a->name, a->role ==
					 ROLE_NONE ? "not" : "an", a->role ==
					 ROLE_NONE ? "a member" :
					 role_name(a->role));
		return 0;
	}
	if (!n)
		return 0;
	if ((rounds = access_has_rounds(st, e)) < 0)
		return -1;
	s = store_cached(st, facts_sql, e);
	if (!s)
		return -1;
	for (i = 0; i < n; i++) {
		struct facts f;

		sqlite3_reset(s);
		sqlite3_bind_int64(s, 1, ids[i]);
		sqlite3_bind_int64(s, 2, a->member_id);
		rc = store_step(st, s, "checking the item", e);
		if (rc < 0)
			goto out;
		if (!rc) {
			err_set(e, ERR_NOTFOUND, "no item with id %lld",
				ids[i]);
			goto out;
		}
		read_facts(s, &f);
		if (rounds && !f.round && !f.screen && !f.recode &&
		    !f.missing && !names && round_names(st, &names, e) < 0) {
			free(f.name);
			goto out;
		}
		verdict(a, &f, rounds, names, &out[i]);
		free(f.name);
	}
	ret = 0;
out:
	store_done(s);
	free(names);
	if (ret < 0)
		access_verdicts_release(out, n);
	return ret;
}

int access_label_item(struct store *st, const struct actor *a,
		      long long item_id, struct label_verdict *v,
		      struct err *e)
{
	struct label_verdict tmp;
	struct label_verdict *p = v ? v : &tmp;

	if (access_label_items(st, a, &item_id, 1, p, e) < 0)
		return -1;
	if (!v)
		free(tmp.why);
	return (int)p->may;
}
