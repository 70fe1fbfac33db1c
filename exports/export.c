/* SPDX-License-Identifier: MIT */
/*
 * export: see export.h.
 *
 * Every writer has the same shape: one query (or the agreed pass) read
 * in order, one record built per row in a buffer, one fwrite per record.
 * The FILE's own buffer does the rest.
 */
#include "exports/export.h"

#include "exports/audit_out.h"

#include "core/study/access.h"
#include "core/study/adjudicate.h"
#include "core/study/evidence.h"
#include "core/study/rawlabels.h"
#include "core/study/records.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/base/buf.h"
#include "core/base/priv.h"
#include "core/study/round.h"
#include "core/study/consensus.h"
#include "exports/csv_out.h"
#include "exports/json_out.h"

/* ---- progress, interruption and injected faults --------------------- */

struct progress {
	struct export_opts *o;
	FILE *out;
	long long fail_after;	/* BUGCODER_FAIL_EXPORT_AFTER, or -1 */
	long long stall_after;	/* BUGCODER_STALL_EXPORT_AFTER, or -1 */
};

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

static void progress_init(struct progress *p, struct export_opts *o,
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
static int progress_row(struct progress *p, int write_failed, struct err *e)
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

static int finish(struct progress *p, struct err *e)
{
	if (fflush(p->out) != 0 || ferror(p->out))
		return err_set(e, ERR_IO, "writing the export failed");
	if (stopped(p))
		return err_set(e, ERR_INTERRUPTED, "export interrupted");
	return 0;
}

static int write_line(FILE *out, struct buf *b)
{
	int bad = fwrite(b->ptr, 1, b->len, out) != b->len;

	buf_reset(b);
	return bad ? -1 : 0;
}

static unsigned csv_flags(const struct export_opts *o)
{
	return (o->flags & EXPORT_NO_GUARD) ? 0 : CSV_GUARD;
}

static void item_name(struct buf *b, const char *repo, long long number)
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

	item_name(name, t->repo, t->number);
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

	item_name(name, t->repo, t->number);
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

	progress_init(&p, o, out);
	csvw_init(&w, out, csv_flags(o));
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
			bad = write_line(out, &line);
		}
		if (progress_row(&p, bad, e) < 0)
			goto out;
	}
	if (rc < 0)
		goto out;
	ret = finish(&p, e);
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
static int require_member(const struct actor *a, struct err *e)
{
	if (a->role == ROLE_NONE)
		return err_set(e, ERR_PERM, "%s is not a member of this study",
			       a->name ? a->name : "you");
	return 0;
}

/*
 * How the actor may know the member whose work a row shows, by
 * core/study/access's rule: 0 when the row is hidden from them; 1 with *out the
 * member's name, or "Coder N" (the adjudicator's screen numbering) for a
 * blind adjudicator of an undecided item; -1 with `e` on an error.
 * *out is borrowed from `name` or from the namer until the next call.
 */
struct row_namer {
	int blind;		/* the study's adjudication is blind */
	char *salt;		/* the coder order's salt, read when needed */
	struct buf coder;	/* "Coder N" */
	long long item, member;	/* whom `coder` names */
};

static int name_row(struct store *st, const struct actor *a,
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

static void row_namer_release(struct row_namer *nm)
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

/* A label as a JSON line with its citations; returns write_line()'s
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
	return write_line(out, line);
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
	progress_init(&p, o, out);
	csvw_init(&w, out, csv_flags(o));
	if (require_member(a, e) < 0 ||
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

		switch (name_row(st, a, &nm, l->item_id, l->member_id,
				 l->member, l->in_round, l->closed, l->decided,
				 &user, e)) {
		case -1:
			goto out;
		case 0:
			continue;
		}
		item_name(&name, l->repo, l->number);
		if (load_cites(&cur, l->item_id, l->member_id, l->dimension,
			       &cites, e) < 0)
			goto out;
		if (o->format == EXPORT_CSV)
			bad = raw_csv(&w, name.ptr, user, l, &cites);
		else
			bad = raw_json(&line, out, name.ptr, user, l, &cites);
		if (progress_row(&p, bad, e) < 0)
			goto out;
	}
	if (rc < 0)
		goto out;
	ret = finish(&p, e);
out:
	rawlabels_close(&r);
	csvw_release(&w);
	buf_release(&line);
	buf_release(&name);
	row_namer_release(&nm);
	evidence_cursor_close(&cur);
	free(cites.dim);
	buf_release(&cites.compact);
	buf_release(&cites.json);
	return ret;
}

/* ---- resolutions ----------------------------------------------------- */

/*
 * Columns: item, dimension; coder1 and coder1_codes, coder2 and
 * coder2_codes (the two coders as the adjudicator saw them, codes
 * ';'-joined); final (the resolved code(s)); rationale; cause
 * (guideline_gap, slip, ambiguous, code_missing or empty); adjudicator;
 * resolved_at; kind: "resolution", or "settled" for an item an
 * adjudicator settled (a "discuss" flag on agreeing labels): then the
 * dimension, coders and codes are empty, rationale is the settle note and
 * resolved_at when it was settled.  In JSON the three code lists are
 * arrays.
 */
static const char *const res_cols[] = {
	"item", "dimension", "coder1", "coder1_codes", "coder2",
	"coder2_codes", "final", "rationale", "cause", "adjudicator",
	"resolved_at", "kind", NULL
};

/* What a row callback of the resolutions and memos exports writes with. */
struct rows_out {
	const struct actor *a;
	struct export_opts *o;
	FILE *out;
	struct csv_out w;
	struct buf line, name, flags;
	struct progress p;
	struct store *st;
	struct row_namer nm;
};

static void rows_out_init(struct rows_out *r, struct store *st,
			  const struct actor *a, struct export_opts *o,
			  FILE *out)
{
	memset(r, 0, sizeof(*r));
	r->st = st;
	r->a = a;
	r->o = o;
	r->out = out;
	r->line = (struct buf)BUF_INIT;
	r->name = (struct buf)BUF_INIT;
	r->flags = (struct buf)BUF_INIT;
	r->nm.coder = (struct buf)BUF_INIT;
	progress_init(&r->p, o, out);
	csvw_init(&r->w, out, csv_flags(o));
}

static void rows_out_release(struct rows_out *r)
{
	csvw_release(&r->w);
	buf_release(&r->line);
	buf_release(&r->name);
	buf_release(&r->flags);
	row_namer_release(&r->nm);
}

/* The CSV header, when CSV is written. */
static int rows_out_header(struct rows_out *r, const char *const *cols,
			   struct err *e)
{
	if (r->o->format != EXPORT_CSV)
		return 0;
	csvw_header(&r->w, cols);
	if (csvw_end(&r->w) < 0)
		return err_set(e, ERR_IO, "writing the export failed");
	return 0;
}

static int resolution_out(const struct resolution_row *v, void *data,
			  struct err *e)
{
	struct rows_out *r = data;
	int bad;

	/* a resolution shows what every coder chose */
	if (!access_rule(r->a, 0, v->in_round, v->closed))
		return 0;
	item_name(&r->name, v->repo, v->number);
	if (r->o->format == EXPORT_CSV) {
		csvw_key(&r->w, r->name.ptr);
		csvw_key(&r->w, v->dimension);
		csvw_key(&r->w, v->coder1);
		csvw_key(&r->w, v->coder1_codes);
		csvw_key(&r->w, v->coder2);
		csvw_key(&r->w, v->coder2_codes);
		csvw_key(&r->w, v->final);
		csvw_text(&r->w, v->rationale);
		csvw_key(&r->w, v->cause);
		csvw_key(&r->w, v->adjudicator);
		csvw_text(&r->w, v->resolved_at);
		csvw_key(&r->w, v->kind);
		bad = csvw_end(&r->w);
	} else {
		struct json_out j;

		jsonw_begin(&j, &r->line);
		jsonw_str(&j, "item", r->name.ptr);
		jsonw_str(&j, "dimension", v->dimension);
		jsonw_str(&j, "coder1", v->coder1);
		jsonw_list(&j, "coder1_codes", v->coder1_codes, ';', 0);
		jsonw_str(&j, "coder2", v->coder2);
		jsonw_list(&j, "coder2_codes", v->coder2_codes, ';', 0);
		jsonw_list(&j, "final", v->final, ';', 0);
		jsonw_str(&j, "rationale", v->rationale);
		jsonw_str(&j, "cause", v->cause);
		jsonw_str(&j, "adjudicator", v->adjudicator);
		jsonw_str(&j, "resolved_at", v->resolved_at);
		jsonw_str(&j, "kind", v->kind);
		jsonw_end(&j);
		bad = write_line(r->out, &r->line);
	}
	return progress_row(&r->p, bad, e);
}

int export_resolutions(struct store *st, const struct actor *a,
		       struct export_opts *o, FILE *out, struct err *e)
{
	struct rows_out r;
	int ret = -1;

	rows_out_init(&r, st, a, o, out);
	if (require_member(a, e) < 0 ||
	    (o->round && consensus_check_round(st, o->round, e) < 0) ||
	    rows_out_header(&r, res_cols, e) < 0 ||
	    records_resolutions(st, o->round, resolution_out, &r, e) < 0)
		goto out;
	ret = finish(&r.p, e);
out:
	rows_out_release(&r);
	return ret;
}

/* ---- memos and flags ------------------------------------------------- */

/*
 * Columns: item, annotator (or "Coder N", as export_raw() names them),
 * memo (the text, empty when none), flags ("discuss", "uncertain" or both
 * ';'-joined, empty when none), updated_at (the latest change of the
 * memo or a flag).  One row per item and member with a memo or a flag;
 * who sees whose is core/study/access's rule, as for raw labels.
 */
static const char *const memo_cols[] = {
	"item", "annotator", "memo", "flags", "updated_at", NULL
};

static int memo_out(const struct memo_row *v, void *data, struct err *e)
{
	struct rows_out *r = data;
	const char *user;
	int bad;

	switch (name_row(r->st, r->a, &r->nm, v->item_id, v->member_id,
			 v->member, v->in_round, v->closed, v->decided, &user,
			 e)) {
	case -1:
		return -1;
	case 0:
		return 0;
	}
	buf_reset(&r->flags);
	if (v->discuss)
		buf_addstr(&r->flags, "discuss");
	if (v->uncertain)
		buf_addstr(&r->flags, r->flags.len ? ";uncertain" :
			   "uncertain");
	item_name(&r->name, v->repo, v->number);
	if (r->o->format == EXPORT_CSV) {
		csvw_key(&r->w, r->name.ptr);
		csvw_key(&r->w, user);
		csvw_text(&r->w, v->memo);
		csvw_key(&r->w, r->flags.ptr);
		csvw_text(&r->w, v->updated_at);
		bad = csvw_end(&r->w);
	} else {
		struct json_out j;

		jsonw_begin(&j, &r->line);
		jsonw_str(&j, "item", r->name.ptr);
		jsonw_str(&j, "annotator", user);
		jsonw_str(&j, "memo", v->memo ? v->memo : "");
		jsonw_list(&j, "flags", r->flags.ptr, ';', 0);
		jsonw_str(&j, "updated_at", v->updated_at);
		jsonw_end(&j);
		bad = write_line(r->out, &r->line);
	}
	return progress_row(&r->p, bad, e);
}

int export_memos(struct store *st, const struct actor *a,
		 struct export_opts *o, FILE *out, struct err *e)
{
	struct rows_out r;
	int ret = -1;

	rows_out_init(&r, st, a, o, out);
	if (require_member(a, e) < 0 ||
	    (o->round && consensus_check_round(st, o->round, e) < 0))
		goto out;
	if ((r.nm.blind = access_blind(st, e)) < 0 ||
	    rows_out_header(&r, memo_cols, e) < 0 ||
	    records_memos(st, o->round, memo_out, &r, e) < 0)
		goto out;
	ret = finish(&r.p, e);
out:
	rows_out_release(&r);
	return ret;
}

/* ---- audit log ---------------------------------------------------------- */

int export_audit_log(struct store *st, const struct actor *a,
		     struct export_opts *o, FILE *out, struct err *e)
{
	long long n;

	/* audit_out_write() applies core/study/auditlog's rule: the owner reads every
	 * row, anyone else their own */
	n = audit_out_write(st, a, NULL, o->format == EXPORT_JSONL ? AUDIT_JSONL :
			AUDIT_CSV, out, e);
	if (n < 0)
		return -1;
	o->rows = (size_t)n;
	return 0;
}

/* ---- rounds ---------------------------------------------------------- */

static const char *const round_cols[] = {
	"name", "spec", "seed", "stratify", "annotators", "items",
	"created_at", "created_by", "closed_at", "closed_by", "kind",
	"reasons", NULL
};

/* A screening round's reasons (a JSON array of keys) ';'-joined. */
static void reasons_list(struct buf *b, const char *json)
{
	const char *p;

	buf_reset(b);
	for (p = json ? json : ""; *p; p++) {
		if (*p == ',')
			buf_addch(b, ';');
		else if (*p != '[' && *p != ']' && *p != '"')
			buf_addch(b, *p);
	}
}

/* A round as a CSV row (`names`: its annotators ';'-joined; `reasons`:
 * room for its reasons); returns csvw_end()'s result. */
static int round_csv(struct csv_out *w, const struct round_info *r,
		     const char *names, struct buf *reasons)
{
	csvw_text(w, r->name);
	csvw_text(w, r->spec);
	if (r->has_seed)
		csvw_uint(w, (unsigned long long)r->seed);
	else
		csvw_null(w);
	csvw_text(w, r->stratify);
	csvw_key(w, names);
	csvw_int(w, (long long)r->nr_items);
	csvw_text(w, r->created_at);
	csvw_key(w, r->created_by);
	csvw_text(w, r->closed_at);
	csvw_key(w, r->closed_by);
	csvw_key(w, r->screen ? "screen" : "code");
	reasons_list(reasons, r->reasons);
	if (r->screen)
		csvw_key(w, reasons->ptr);
	else
		csvw_null(w);
	return csvw_end(w);
}

/* A round as a JSON line; returns write_line()'s result. */
static int round_json(struct buf *line, FILE *out,
		      const struct round_info *r, const char *names,
		      struct buf *reasons)
{
	struct json_out j;

	jsonw_begin(&j, line);
	jsonw_str(&j, "name", r->name);
	jsonw_str(&j, "spec", r->spec);
	if (r->has_seed)
		jsonw_uint(&j, "seed",
			   (unsigned long long)r->seed);
	else
		jsonw_null(&j, "seed");
	jsonw_str(&j, "stratify", r->stratify);
	jsonw_list(&j, "annotators", names, ';', 0);
	jsonw_int(&j, "items", (long long)r->nr_items);
	jsonw_str(&j, "created_at", r->created_at);
	jsonw_str(&j, "created_by", r->created_by);
	jsonw_str(&j, "closed_at", r->closed_at);
	jsonw_str(&j, "closed_by", r->closed_by);
	jsonw_str(&j, "kind", r->screen ? "screen" : "code");
	reasons_list(reasons, r->reasons);
	if (r->screen)
		jsonw_list(&j, "reasons", reasons->ptr, ';', 0);
	else
		jsonw_null(&j, "reasons");
	jsonw_end(&j);
	return write_line(out, line);
}

int export_rounds(struct store *st, const struct actor *a,
		  struct export_opts *o, FILE *out, struct err *e)
{
	struct round_info *v = NULL;
	struct csv_out w;
	struct buf line = BUF_INIT, names = BUF_INIT, reasons = BUF_INIT;
	struct progress p;
	size_t nr = 0, i, k;
	int ret = -1, found = 0;

	progress_init(&p, o, out);
	csvw_init(&w, out, csv_flags(o));
	if (require_member(a, e) < 0 || round_list(st, &v, &nr, e) < 0)
		goto out;
	if (o->format == EXPORT_CSV) {
		csvw_header(&w, round_cols);
		if (csvw_end(&w) < 0) {
			err_set(e, ERR_IO, "writing the export failed");
			goto out;
		}
	}
	for (i = 0; i < nr; i++) {
		const struct round_info *r = &v[i];
		int bad;

		if (o->round && strcmp(o->round, r->name))
			continue;
		found = 1;
		buf_reset(&names);
		for (k = 0; k < r->nr_annotators; k++) {
			if (k)
				buf_addch(&names, ';');
			buf_addstr(&names, r->annotators[k]);
		}
		if (o->format == EXPORT_CSV)
			bad = round_csv(&w, r, names.ptr, &reasons);
		else
			bad = round_json(&line, out, r, names.ptr, &reasons);
		if (progress_row(&p, bad, e) < 0)
			goto out;
	}
	if (o->round && !found) {
		err_set(e, ERR_NOTFOUND, "--round %s: no such round", o->round);
		goto out;
	}
	ret = finish(&p, e);
out:
	round_list_free(v, nr);
	csvw_release(&w);
	buf_release(&line);
	buf_release(&names);
	buf_release(&reasons);
	return ret;
}
