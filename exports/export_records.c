/* SPDX-License-Identifier: MIT */
/*
 * export_records: the study's records as tables (export.h): the
 * resolutions and settled items, memos and flags, the audit log and the
 * rounds, written as export.c writes the labels (export_int.h).
 */
#include "exports/export.h"

#include <string.h>

#include "core/study/access.h"
#include "core/study/consensus.h"
#include "core/study/records.h"
#include "core/study/round.h"
#include "exports/audit_out.h"
#include "exports/csv_out.h"
#include "exports/export_int.h"
#include "exports/json_out.h"

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
	ex_progress_init(&r->p, o, out);
	csvw_init(&r->w, out, ex_csv_flags(o));
}

static void rows_out_release(struct rows_out *r)
{
	csvw_release(&r->w);
	buf_release(&r->line);
	buf_release(&r->name);
	buf_release(&r->flags);
	ex_row_namer_release(&r->nm);
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
	ex_item_name(&r->name, v->repo, v->number);
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
		bad = ex_write_line(r->out, &r->line);
	}
	return ex_progress_row(&r->p, bad, e);
}

int export_resolutions(struct store *st, const struct actor *a,
		       struct export_opts *o, FILE *out, struct err *e)
{
	struct rows_out r;
	int ret = -1;

	rows_out_init(&r, st, a, o, out);
	if (ex_require_member(a, e) < 0 ||
	    (o->round && consensus_check_round(st, o->round, e) < 0) ||
	    rows_out_header(&r, res_cols, e) < 0 ||
	    records_resolutions(st, o->round, resolution_out, &r, e) < 0)
		goto out;
	ret = ex_finish(&r.p, e);
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

	switch (ex_name_row(r->st, r->a, &r->nm, v->item_id, v->member_id,
			    v->member, v->in_round, v->closed, v->decided,
			    &user, e)) {
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
	ex_item_name(&r->name, v->repo, v->number);
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
		bad = ex_write_line(r->out, &r->line);
	}
	return ex_progress_row(&r->p, bad, e);
}

int export_memos(struct store *st, const struct actor *a,
		 struct export_opts *o, FILE *out, struct err *e)
{
	struct rows_out r;
	int ret = -1;

	rows_out_init(&r, st, a, o, out);
	if (ex_require_member(a, e) < 0 ||
	    (o->round && consensus_check_round(st, o->round, e) < 0))
		goto out;
	if ((r.nm.blind = access_blind(st, e)) < 0 ||
	    rows_out_header(&r, memo_cols, e) < 0 ||
	    records_memos(st, o->round, memo_out, &r, e) < 0)
		goto out;
	ret = ex_finish(&r.p, e);
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

/* A round as a JSON line; returns ex_write_line()'s result. */
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
	return ex_write_line(out, line);
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

	ex_progress_init(&p, o, out);
	csvw_init(&w, out, ex_csv_flags(o));
	if (ex_require_member(a, e) < 0 || round_list(st, &v, &nr, e) < 0)
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
		if (ex_progress_row(&p, bad, e) < 0)
			goto out;
	}
	if (o->round && !found) {
		err_set(e, ERR_NOTFOUND, "--round %s: no such round", o->round);
		goto out;
	}
	ret = ex_finish(&p, e);
out:
	round_list_free(v, nr);
	csvw_release(&w);
	buf_release(&line);
	buf_release(&names);
	buf_release(&reasons);
	return ret;
}
