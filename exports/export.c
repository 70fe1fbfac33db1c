/* SPDX-License-Identifier: MIT */
/*
 * export: see export.h.
 *
 * Every writer has the same shape: one query (or the agreed pass) read
 * in order, one record built per row in a buffer, one fwrite per record.
 * The FILE's own buffer does the rest.  The records (resolutions,
 * memos, the audit log, rounds) are written by export_records.c.
 */
#include "exports/export.h"

#include "core/study/access.h"
#include "core/study/adjudicate.h"
#include "core/study/evidence.h"
#include "core/study/rawlabels.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/base/buf.h"
#include "core/base/priv.h"
#include "core/study/consensus.h"
#include "exports/csv_out.h"
#include "exports/export_int.h"
#include "exports/json_out.h"

/* ---- progress, interruption and injected faults --------------------- */

static long long env_count(const char *name)
{
	const char *v = priv_hook_env(name);	/* a test hook */
	char *end;
	long long n;

	if (!v || !*v)
		return -1;
	n = strtoll(v, &end, 10);
	return *end || n < 0 ? -1 : n;
}

void ex_progress_init(struct progress *p, struct export_opts *o,
		      FILE *out)
{
	p->o = o;
	p->out = out;
	o->rows = 0;
	p->fail_after = env_count("BUGCODER_FAIL_EXPORT_AFTER");
	p->stall_after = env_count("BUGCODER_STALL_EXPORT_AFTER");
}

static int stopped(const struct progress *p)
{
	return p->o->stop && *p->o->stop;
}

/* Called once a data row is out.  Returns 0 to go on, -1 to stop. */
int ex_progress_row(struct progress *p, int write_failed, struct err *e)
{
	size_t n = ++p->o->rows;

	if (write_failed || ((n & 1023) == 0 && ferror(p->out)))
		return err_set(e, ERR_IO, "writing the export failed");
	if (stopped(p))
		return err_set(e, ERR_INTERRUPTED, "export interrupted after "
			       "%zu rows", n);
	if (p->fail_after >= 0 && (long long)n >= p->fail_after)
		return err_set(e, ERR_IO, "export failed after %zu rows "
			       "(BUGCODER_FAIL_EXPORT_AFTER)", n);
	if (p->stall_after >= 0 && (long long)n == p->stall_after) {
		struct timespec ts = { 0, 20 * 1000 * 1000 };

		fflush(p->out);
		while (!stopped(p))
			nanosleep(&ts, NULL);
		return err_set(e, ERR_INTERRUPTED, "export interrupted after "
			       "%zu rows", n);
	}
	return 0;
}

int ex_finish(struct progress *p, struct err *e)
{
	if (fflush(p->out) != 0 || ferror(p->out))
		return err_set(e, ERR_IO, "writing the export failed");
	if (stopped(p))
		return err_set(e, ERR_INTERRUPTED, "export interrupted");
	return 0;
}

int ex_write_line(FILE *out, struct buf *b)
{
	int bad = fwrite(b->ptr, 1, b->len, out) != b->len;

	buf_reset(b);
	return bad ? -1 : 0;
}

unsigned ex_csv_flags(const struct export_opts *o)
{
	return (o->flags & EXPORT_NO_GUARD) ? 0 : CSV_GUARD;
}

void ex_item_name(struct buf *b, const char *repo, long long number)
{
	buf_reset(b);
	buf_addf(b, "%s#%lld", repo ? repo : "", number);
}

/* ---- agreed labels --------------------------------------------------- */

/*
 * Columns:
 *   item            owner/repo#number
 *   repo, number, url, title, created_at, closed_at   as imported
 *   days_open       closed_at - created_at in days, two decimals (halves
 *                   rounded up)
 *   comments        the comments
 *   fix_numbers     the fixing pull requests, ';'-joined
 *   additions, deletions, changed_files, lines_changed   over the fixes
 *                   that count: a fix repeating another (a backport or
 *                   cherry-pick of the same change) is left out
 *   fix_lines_changed   each fix's own lines changed, ';'-joined in the
 *                   order of fix_numbers ("?" when unknown; null in
 *                   JSON)
 *   fix_repeats     per fix, 0 or the place (from 1) in fix_numbers of
 *                   the fix whose change it repeats
 *   small_fix       true when lines_changed <= 10
 *   <dim>           the agreed code(s), ';'-joined; empty while pending
 *   <dim>_status    agreed (the coders chose the same), adjudicated (a
 *                   resolution decided), or pending (not every coder has
 *                   submitted, or they disagree and nobody resolved it)
 * Without EXPORT_PENDING only items with no pending dimension are
 * written; with it every item is, and an item still pending as a whole
 * shows the dimensions already agreed or adjudicated with their codes.
 */
static const char *const agreed_cols[] = {
	"item", "repo", "number", "url", "title", "created_at", "closed_at",
	"days_open", "comments", "fix_numbers", "additions", "deletions",
	"changed_files", "lines_changed", "fix_lines_changed", "fix_repeats",
	"small_fix", NULL
};

/*
 * days_open to two decimals, halves rounded up.  days_open is a count of
 * seconds over 86400, stored as a double: 31536 s is 0.365 days exactly,
 * but 0.36499999... in binary, which "%.2f" alone would print as 0.36.
 * The slack of 1e-9 relative is far below the 1/864 step that a whole
 * second makes in days * 100, so only true halves are moved.  (This is
 * what SQLite's printf('%.2f') gives, and spreadsheets' ROUND.)
 */
double export_days2(double days)
{
	double x = days * 100;

	return floor(x + 0.5 + 1e-9 * (fabs(x) + 1)) / 100;
}

static void csv_count(struct csv_out *w, long long v)
{
	if (v < 0)
		csvw_null(w);
	else
		csvw_int(w, v);
}

static void agreed_csv_row(struct csv_out *w, const struct codebook *cb,
			   const struct consensus_item *t, struct buf *name)
{
	size_t d;

	ex_item_name(name, t->repo, t->number);
	csvw_key(w, name->ptr);
	csvw_text(w, t->repo);
	csvw_int(w, t->number);
	csvw_text(w, t->url);
	csvw_text(w, t->title);
	csvw_text(w, t->created_at);
	csvw_text(w, t->closed_at);
	if (t->days_open < 0)
		csvw_null(w);
	else
		csvw_double(w, export_days2(t->days_open), 2);
	csvw_int(w, t->comments);
	csvw_key(w, t->fixes.ptr);
	csv_count(w, t->additions);
	csv_count(w, t->deletions);
	csv_count(w, t->changed_files);
	csv_count(w, t->lines_changed);
	csvw_key(w, t->fix_lines.ptr);
	csvw_key(w, t->fix_repeats.ptr);
	if (t->small_fix < 0)
		csvw_null(w);
	else
		csvw_bool(w, t->small_fix);
	for (d = 0; d < cb->nr_dims; d++) {
		csvw_key(w, t->dims[d].final.ptr);
		csvw_key(w, consensus_status_name(t->dims[d].status));
	}
}

static void json_count(struct json_out *j, const char *key, long long v)
{
	if (v < 0)
		jsonw_null(j, key);
	else
		jsonw_int(j, key, v);
}

static void agreed_json_row(struct buf *b, const struct codebook *cb,
			    const struct consensus_item *t, struct buf *name,
			    struct buf *key)
{
	struct json_out j;
	size_t d;

	ex_item_name(name, t->repo, t->number);
	jsonw_begin(&j, b);
	jsonw_str(&j, "item", name->ptr);
	jsonw_str(&j, "repo", t->repo);
	jsonw_int(&j, "number", t->number);
	jsonw_str(&j, "url", t->url);
	jsonw_str(&j, "title", t->title);
	jsonw_str(&j, "created_at", t->created_at);
	jsonw_str(&j, "closed_at", t->closed_at);
	if (t->days_open < 0)
		jsonw_null(&j, "days_open");
	else
		jsonw_double(&j, "days_open", export_days2(t->days_open), 2);
	jsonw_int(&j, "comments", t->comments);
	jsonw_list(&j, "fix_numbers", t->fixes.ptr, ';', 1);
	json_count(&j, "additions", t->additions);
	json_count(&j, "deletions", t->deletions);
	json_count(&j, "changed_files", t->changed_files);
	json_count(&j, "lines_changed", t->lines_changed);
	jsonw_list(&j, "fix_lines_changed", t->fix_lines.ptr, ';', 1);
	jsonw_list(&j, "fix_repeats", t->fix_repeats.ptr, ';', 1);
	if (t->small_fix < 0)
		jsonw_null(&j, "small_fix");
	else
		jsonw_bool(&j, "small_fix", t->small_fix);
	for (d = 0; d < cb->nr_dims; d++) {
		const struct dimension *dim = &cb->dims[d];
		const struct consensus_dim *ad = &t->dims[d];
		int has = ad->status == DIM_AGREED ||
			  ad->status == DIM_RESOLVED;

		if (dim->select_many)
			jsonw_list(&j, dim->key, has ? ad->final.ptr : NULL,
				   ';', 0);
		else
			jsonw_str(&j, dim->key, has && ad->final.len ?
				  ad->final.ptr : NULL);
		buf_reset(key);
		buf_addf(key, "%s_status", dim->key);
		jsonw_str(&j, key->ptr, consensus_status_name(ad->status));
	}
	jsonw_end(&j);
}

int export_agreed(struct store *st, const struct actor *a,
		  const struct codebook *cb, struct export_opts *o, FILE *out,
		  struct err *e)
{
	struct consensus_iter it;
	struct csv_out w;
	struct buf line = BUF_INIT, name = BUF_INIT, key = BUF_INIT;
	struct progress p;
	size_t d;
	int rc, ret = -1;

	ex_progress_init(&p, o, out);
	csvw_init(&w, out, ex_csv_flags(o));
	if (consensus_open(&it, st, a, cb, o->round, e) < 0)
		goto out;
	if (o->format == EXPORT_CSV) {
		csvw_header(&w, agreed_cols);
		for (d = 0; d < cb->nr_dims; d++) {
			buf_reset(&key);
			buf_addf(&key, "%s_status", cb->dims[d].key);
			csvw_key(&w, cb->dims[d].key);
			csvw_key(&w, key.ptr);
		}
		if (csvw_end(&w) < 0) {
			err_set(e, ERR_IO, "writing the export failed");
			goto out;
		}
	}
	while ((rc = consensus_next(&it, e)) > 0) {
		int bad;

		if (!it.item.complete && !(o->flags & EXPORT_PENDING))
			continue;
		if (o->format == EXPORT_CSV) {
			agreed_csv_row(&w, cb, &it.item, &name);
			bad = csvw_end(&w);
		} else {
			agreed_json_row(&line, cb, &it.item, &name, &key);
			bad = ex_write_line(out, &line);
		}
		if (ex_progress_row(&p, bad, e) < 0)
			goto out;
	}
	if (rc < 0)
		goto out;
	ret = ex_finish(&p, e);
out:
	consensus_close(&it);
	csvw_release(&w);
	buf_release(&line);
	buf_release(&name);
	buf_release(&key);
	return ret;
}

/* ---- raw labels ------------------------------------------------------ */

/* May the actor export anything?  Everyone but non-members. */
int ex_require_member(const struct actor *a, struct err *e)
{
	if (a->role == ROLE_NONE)
		return err_set(e, ERR_PERM, "%s is not a member of this study",
			       a->name ? a->name : "you");
	return 0;
}

int ex_name_row(struct store *st, const struct actor *a,
		struct row_namer *nm, long long item_id,
		long long member_id, const char *name, int in_round,
		int closed, int decided, const char **out,
		struct err *e)
{
	*out = name;
	if (!access_rule(a, member_id, in_round, closed))
		return 0;
	if (member_id == a->member_id ||
	    access_names_coders(a, nm->blind, decided))
		return 1;
	if (!nm->salt && !(nm->salt = adjudicate_salt(st, e)))
		return -1;
	if (!nm->coder.len || item_id != nm->item || member_id != nm->member) {
		if (adjudicate_coder_label(st, nm->salt, item_id, member_id,
					   &nm->coder, e) < 0)
			return -1;
		nm->item = item_id;
		nm->member = member_id;
	}
	*out = nm->coder.ptr;
	return 1;
}

void ex_row_namer_release(struct row_namer *nm)
{
	free(nm->salt);
	buf_release(&nm->coder);
}

static const char *const raw_cols[] = {
	"item", "annotator", "dimension", "code", "codebook_version",
	"labeled_at", "submitted_at", "evidence", NULL
};

struct cites {
	char *dim;		/* the key they are for: dimension, */
	long long item, member;	/* item and member */
	struct buf compact;	/* its citations, '|'-joined */
	struct buf json;	/* [{"cite": .., "quote": ..}, ...] */
};

static int add_cite(const struct evidence_row *r, void *data)
{
	struct cites *c = data;
	struct buf one = BUF_INIT;

	evidence_format(&r->cite, &one);
	if (c->compact.len)
		buf_addch(&c->compact, '|');
	buf_addstr(&c->compact, one.ptr);
	buf_addstr(&c->json, c->json.len > 1 ? ",{\"cite\":" :
		   "{\"cite\":");
	json_quote(&c->json, one.ptr, one.len);
	buf_addstr(&c->json, ",\"quote\":");
	json_quote(&c->json, r->quote, strlen(r->quote));
	buf_addch(&c->json, '}');
	buf_release(&one);
	return 0;
}

/* What member `member_id` cited for `dim` of `item_id`, read from the
 * pass's cursor; a label of several codes keeps its citations for each
 * of its rows.  The caller shows them only beside a row the actor may
 * see: the same member's work on the same item. */
static int load_cites(struct evidence_cursor *cur, long long item_id,
		      long long member_id, const char *dim,
		      struct cites *c, struct err *e)
{
	int rc;

	if (c->dim && c->item == item_id && c->member == member_id &&
	    !strcmp(c->dim, dim))
		return 0;
	free(c->dim);
	c->dim = xstrdup(dim);
	c->item = item_id;
	c->member = member_id;
	buf_reset(&c->compact);
	buf_reset(&c->json);
	buf_addch(&c->json, '[');
	rc = evidence_cursor_at(cur, item_id, member_id, dim, add_cite, c, e);
	buf_addch(&c->json, ']');
	return rc;
}

/* A label as a CSV row; returns csvw_end()'s result. */
static int raw_csv(struct csv_out *w, const char *name, const char *user,
		   const struct raw_label *l, const struct cites *cites)
{
	csvw_key(w, name);
	csvw_key(w, user);
	csvw_key(w, l->dimension);
	csvw_key(w, l->code);
	csvw_text(w, l->codebook_version);
	csvw_text(w, l->labeled_at);
	csvw_text(w, l->submitted_at);
	csvw_text(w, cites->compact.ptr);
	return csvw_end(w);
}

/* A label as a JSON line with its citations; returns ex_write_line()'s
 * result. */
static int raw_json(struct buf *line, FILE *out, const char *name,
		    const char *user, const struct raw_label *l,
		    const struct cites *cites)
{
	struct json_out j;

	jsonw_begin(&j, line);
	jsonw_str(&j, "item", name);
	jsonw_str(&j, "annotator", user);
	jsonw_str(&j, "dimension", l->dimension);
	jsonw_str(&j, "code", l->code);
	jsonw_str(&j, "codebook_version", l->codebook_version);
	jsonw_str(&j, "labeled_at", l->labeled_at);
	jsonw_str(&j, "submitted_at", l->submitted_at);
	jsonw_end(&j);
	/* the citations, with their quoted lines */
	line->len -= 2;
	buf_addstr(line, ",\"evidence\":");
	buf_add(line, cites->json.ptr, cites->json.len);
	buf_addstr(line, "}\n");
	return ex_write_line(out, line);
}

int export_raw(struct store *st, const struct actor *a,
	       struct export_opts *o, FILE *out, struct err *e)
{
	struct csv_out w;
	struct buf line = BUF_INIT, name = BUF_INIT;
	struct progress p;
	struct row_namer nm = { 0, NULL, BUF_INIT, 0, 0 };
	struct cites cites = { NULL, 0, 0, BUF_INIT, BUF_INIT };
	struct evidence_cursor cur = { NULL, NULL, 0 };
	struct rawlabels r;
	int rc, ret = -1;

	memset(&r, 0, sizeof(r));
	ex_progress_init(&p, o, out);
	csvw_init(&w, out, ex_csv_flags(o));
	if (ex_require_member(a, e) < 0 ||
	    (o->round && consensus_check_round(st, o->round, e) < 0))
		goto out;
	/* one ordered pass over the labels (core/study/rawlabels), the citations
	 * beside it; who sees whose labels, and under which name, is
	 * core/study/access's decision, asked row by row */
	if ((nm.blind = access_blind(st, e)) < 0 ||
	    rawlabels_open(&r, st, o->round, e) < 0 ||
	    evidence_cursor_open(&cur, st, e) < 0)
		goto out;
	if (o->format == EXPORT_CSV) {
		csvw_header(&w, raw_cols);
		if (csvw_end(&w) < 0) {
			err_set(e, ERR_IO, "writing the export failed");
			goto out;
		}
	}
	while ((rc = rawlabels_next(&r, e)) > 0) {
		const struct raw_label *l = &r.row;
		const char *user;
		int bad;

		switch (ex_name_row(st, a, &nm, l->item_id, l->member_id,
				    l->member, l->in_round, l->closed,
				    l->decided, &user, e)) {
		case -1:
			goto out;
		case 0:
			continue;
		}
		ex_item_name(&name, l->repo, l->number);
		if (load_cites(&cur, l->item_id, l->member_id, l->dimension,
			       &cites, e) < 0)
			goto out;
		if (o->format == EXPORT_CSV)
			bad = raw_csv(&w, name.ptr, user, l, &cites);
		else
			bad = raw_json(&line, out, name.ptr, user, l, &cites);
		if (ex_progress_row(&p, bad, e) < 0)
			goto out;
	}
	if (rc < 0)
		goto out;
	ret = ex_finish(&p, e);
out:
	rawlabels_close(&r);
	csvw_release(&w);
	buf_release(&line);
	buf_release(&name);
	ex_row_namer_release(&nm);
	evidence_cursor_close(&cur);
	free(cites.dim);
	buf_release(&cites.compact);
	buf_release(&cites.json);
	return ret;
}
