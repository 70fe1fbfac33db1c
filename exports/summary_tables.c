/* SPDX-License-Identifier: MIT */
/*
 * summary_tables: the tables of the report, built from the tallies: the
 * selection flow, the shares per dimension and per repository, the
 * distributed codes, the cross tables, effort, and the agreement per
 * round.
 */
#include "exports/summary_int.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/csv.h"
#include "core/study/design.h"
#include "exports/agree_report.h"

static const char *slot_name(const struct dimension *dim, size_t i)
{
	if (i < dim->nr_codes)
		return dim->codes[i].key;
	if (i == dim->nr_codes)
		return "(none)";
	return i == dim->nr_codes + 1 ? "(not in codebook)" : "(pending)";
}

/* Is slot i worth a row: a code of the codebook, or a used extra slot? */
static int slot_shown(const struct dimension *dim, const long *counts,
		      size_t i)
{
	return i < dim->nr_codes || counts[i] > 0;
}

static void add_blank(struct table *t)
{
	sum_cell_new(t, CELL_NONE, 0)->s = xstrdup("");
}

void sum_shares_table(struct report *r, const struct tallies *ts,
		      size_t d)
{
	const struct dimension *dim = &ts->cb->dims[d];
	const struct tally *all = &ts->v[0];
	const long *cnt = all->counts[d];
	struct buf title = BUF_INIT, id = BUF_INIT;
	struct table *t;
	long max = 0;
	size_t i;

	buf_addstr(&title, dim->key);
	if (dim->name && strcmp(dim->name, dim->key)) {
		buf_addstr(&title, ": ");
		sum_add_safe(&title, dim->name);
	}
	buf_addstr(&title, dim->select_many ? " (select many: an item counts "
		   "under each of its codes)" : " (one code per item)");
	buf_addf(&id, "shares.%s", dim->key);
	t = sum_table_new(r, 4, 1, id.ptr, title.ptr);
	sum_add_text(t, "code");
	sum_add_text(t, "items");
	sum_add_text(t, "share");
	sum_add_text(t, "%s", "");
	for (i = 0; i < nslots(dim); i++)
		if (cnt[i] > max)
			max = cnt[i];
	for (i = 0; i < nslots(dim); i++) {
		if (!slot_shown(dim, cnt, i))
			continue;
		sum_add_text(t, "%s", slot_name(dim, i));
		sum_add_int(t, cnt[i]);
		sum_add_pct(t, (double)cnt[i], (double)all->items);
		sum_add_bar(t, (double)cnt[i], (double)max, ts->o->unicode);
	}
	sum_add_text(t, "total");
	sum_add_int(t, (long long)all->items);
	add_blank(t);
	sum_add_text(t, "%s", "");
	buf_release(&title);
	buf_release(&id);
}

void sum_repo_table(struct report *r, const struct tallies *ts, size_t d)
{
	const struct dimension *dim = &ts->cb->dims[d];
	struct buf title = BUF_INIT, id = BUF_INIT;
	struct table *t;
	size_t i, k;

	buf_addf(&title, "%s by repository: items and share of the "
		 "repository's items", dim->key);
	buf_addf(&id, "repo.%s", dim->key);
	t = sum_table_new(r, 2 * ts->nr + 1, 0, id.ptr, title.ptr);
	sum_add_text(t, "%s", dim->key);
	for (k = 0; k < ts->nr; k++) {
		sum_add_text(t, "%s", ts->v[k].name);
		sum_add_text(t, "%s %%", ts->v[k].name);
	}
	for (i = 0; i < nslots(dim); i++) {
		if (!slot_shown(dim, ts->v[0].counts[d], i))
			continue;
		sum_add_text(t, "%s", slot_name(dim, i));
		for (k = 0; k < ts->nr; k++) {
			sum_add_int(t, ts->v[k].counts[d][i]);
			sum_add_pct(t, (double)ts->v[k].counts[d][i],
				    (double)ts->v[k].items);
		}
	}
	buf_release(&title);
	buf_release(&id);
}

static int has_distributed(const struct dimension *dim)
{
	size_t i;

	for (i = 0; i < dim->nr_codes; i++)
		if (dim->codes[i].distributed)
			return 1;
	return 0;
}

void sum_distributed_tables(struct report *r, const struct tallies *ts)
{
	const struct codebook *cb = ts->cb;
	struct table *t;
	size_t d, s;

	t = sum_table_new(r, 4, 0, "distributed", "Codes marked distributed "
			  "(arising only in distributed systems): items with "
			  "such a code, per dimension");
	sum_add_text(t, "dimension");
	sum_add_text(t, "items");
	sum_add_text(t, "distributed");
	sum_add_text(t, "share");
	for (d = 0; d < cb->nr_dims; d++) {
		if (!has_distributed(&cb->dims[d]))
			continue;
		sum_add_text(t, "%s", cb->dims[d].key);
		sum_add_int(t, (long long)ts->v[0].items);
		sum_add_int(t, ts->dist[d]);
		sum_add_pct(t, (double)ts->dist[d], (double)ts->v[0].items);
	}
	if (ts->stage < 0)
		return;
	{
		const struct dimension *sd = &cb->dims[ts->stage];
		size_t cols = 2;

		for (d = 0; d < cb->nr_dims; d++)
			if (has_distributed(&cb->dims[d]))
				cols += 2;
		t = sum_table_new(r, cols, 0, "distributed.stage",
				  "Codes marked distributed, per stage: items "
				  "of the stage with such a code");
		sum_add_text(t, "stage");
		sum_add_text(t, "items");
		for (d = 0; d < cb->nr_dims; d++)
			if (has_distributed(&cb->dims[d])) {
				sum_add_text(t, "%s distributed",
					     cb->dims[d].key);
				sum_add_text(t, "%s share", cb->dims[d].key);
			}
		for (s = 0; s < nslots(sd); s++) {
			if (!ts->stage_items[s])
				continue;
			sum_add_text(t, "%s", slot_name(sd, s));
			sum_add_int(t, ts->stage_items[s]);
			for (d = 0; d < cb->nr_dims; d++) {
				long n = ts->stage_dist[s * cb->nr_dims + d];

				if (!has_distributed(&cb->dims[d]))
					continue;
				sum_add_int(t, n);
				sum_add_pct(t, (double)n,
					    (double)ts->stage_items[s]);
			}
		}
	}
}

/* Empty `t` of its cells: a table with no rows shows "(none)". */
static void table_clear(struct table *t)
{
	size_t j;

	for (j = 0; j < t->nr; j++)
		free(t->cell[j].s);
	t->nr = 0;
	free(t->cell);
	t->cell = NULL;
	t->alloc = 0;
}

/* The rows of view v (0 counts, 1 row shares, 2 column shares) of the
 * cross table m (nslots(dx) by nslots(dy)), its margins and total, and
 * the totals row; the codes no item has are left out. */
static void cross_body(struct table *t, const struct dimension *dx,
		       const struct dimension *dy, const long *m,
		       const long *rows, const long *cols, long total,
		       size_t v)
{
	size_t kx = nslots(dx), ky = nslots(dy), i, j;

	for (i = 0; i < kx; i++) {
		if (!rows[i])
			continue;
		sum_add_text(t, "%s", slot_name(dx, i));
		for (j = 0; j < ky; j++) {
			if (!cols[j])
				continue;
			if (v == 0)
				sum_add_int(t, m[i * ky + j]);
			else
				sum_add_pct(t, (double)m[i * ky + j],
					    (double)(v == 1 ? rows[i] :
						 cols[j]));
		}
		if (v == 0)
			sum_add_int(t, rows[i]);
		else
			sum_add_pct(t, (double)rows[i], v == 1 ?
				    (double)rows[i] : (double)total);
	}
	sum_add_text(t, "total");
	for (j = 0; j < ky; j++) {
		if (!cols[j])
			continue;
		if (v == 0)
			sum_add_int(t, cols[j]);
		else
			sum_add_pct(t, (double)cols[j], v == 2 ?
				    (double)cols[j] : (double)total);
	}
	if (v == 0)
		sum_add_int(t, total);
	else
		sum_add_pct(t, (double)total, (double)total);
}

/* The cross tables of one code of --by (b), or of every item. */
void sum_cross_tables(struct report *r, const struct tallies *ts,
		      size_t b)
{
	const struct codebook *cb = ts->cb;
	const struct dimension *dx = &cb->dims[ts->cx];
	const struct dimension *dy = &cb->dims[ts->cy];
	const struct dimension *db = ts->cb3 >= 0 ? &cb->dims[ts->cb3] : NULL;
	size_t kx = nslots(dx), ky = nslots(dy), i, j, v;
	const long *m = ts->cross + b * kx * ky;
	long *rows = xcalloc(kx, sizeof(long));
	long *cols = xcalloc(ky, sizeof(long));
	struct buf id = BUF_INIT, title = BUF_INIT, where = BUF_INIT;
	static const char *const kinds[] = { "counts", "row_share",
					     "col_share" };
	static const char *const what[] = {
		"items per pair of codes",
		"share of the row's pairs",
		"share of the column's pairs",
	};
	long total = 0;

	for (i = 0; i < kx; i++)
		for (j = 0; j < ky; j++) {
			rows[i] += m[i * ky + j];
			cols[j] += m[i * ky + j];
			total += m[i * ky + j];
		}
	if (db && !total)
		goto out;
	if (db)
		buf_addf(&where, " where %s = %s", db->key, slot_name(db, b));
	for (v = 0; v < 3; v++) {
		struct table *t;
		size_t nused = 0;

		for (j = 0; j < ky; j++)
			nused += cols[j] > 0;
		buf_reset(&id);
		buf_reset(&title);
		buf_addstr(&id, "cross");
		if (db)
			buf_addf(&id, ".%s", slot_name(db, b));
		buf_addf(&id, ".%s", kinds[v]);
		buf_addf(&title, "%s x %s%s (%s)", dx->key, dy->key,
			 where.ptr ? where.ptr : "", what[v]);
		t = sum_table_new(r, nused + 2, 0, id.ptr, title.ptr);
		sum_add_text(t, "%s \\ %s", dx->key, dy->key);
		for (j = 0; j < ky; j++)
			if (cols[j])
				sum_add_text(t, "%s", slot_name(dy, j));
		sum_add_text(t, "total");
		if (!nused) {
			/* no pairs: the table stays, empty ("(none)") */
			table_clear(t);
			continue;
		}
		cross_body(t, dx, dy, m, rows, cols, total, v);
	}
out:
	buf_release(&id);
	buf_release(&title);
	buf_release(&where);
	free(rows);
	free(cols);
}

static void effort_row(struct table *t, struct tally *x, int size)
{
	sum_add_text(t, "%s", x->name);
	sum_add_int(t, (long long)x->items);
	if (size) {
		sum_add_int(t, (long long)x->small);
		sum_add_int(t, (long long)x->sized);
		sum_add_pct(t, (double)x->small, (double)x->sized);
		sum_add_int(t, (long long)x->hard);
		sum_add_int(t, (long long)x->dated);
		sum_add_pct(t, (double)x->hard, (double)x->dated);
		return;
	}
	sum_add_num(t, sum_quantile(x->days.v, x->days.nr, 0.25));
	sum_add_num(t, sum_quantile(x->days.v, x->days.nr, 0.5));
	sum_add_num(t, sum_quantile(x->days.v, x->days.nr, 0.75));
	sum_add_num(t, sum_quantile(x->comments.v, x->comments.nr, 0.25));
	sum_add_num(t, sum_quantile(x->comments.v, x->comments.nr, 0.5));
	sum_add_num(t, sum_quantile(x->comments.v, x->comments.nr, 0.75));
	sum_add_num(t, sum_quantile(x->lines.v, x->lines.nr, 0.25));
	sum_add_num(t, sum_quantile(x->lines.v, x->lines.nr, 0.5));
	sum_add_num(t, sum_quantile(x->lines.v, x->lines.nr, 0.75));
}

void sum_effort_tables(struct report *r, struct tallies *ts)
{
	static const char *const q[] = {
		"days open q1", "days open median", "days open q3",
		"comments q1", "comments median", "comments q3",
		"lines changed q1", "lines changed median", "lines changed q3",
	};
	const struct summary_opts *o = ts->o;
	struct buf title = BUF_INIT;
	size_t pass, size, i;

	for (pass = 0; pass < 2; pass++) {
		struct table *t;

		size = !pass;
		buf_reset(&title);
		if (size)
			buf_addf(&title, "Effort: fixes of at most %ld lines "
				 "(of the fixes of known size); hard bugs, "
				 "open more than %g days with at least %ld "
				 "comments (of the items of known days open)",
				 o->small, o->hard_days, o->hard_comments);
		else
			buf_addstr(&title, "Effort: quartiles (R's default, "
				   "type 7)");
		t = sum_table_new(r, size ? 8 : 11, 0, size ? "effort.size" :
				  "effort.quartiles", title.ptr);
		sum_add_text(t, "group");
		sum_add_text(t, "items");
		if (size) {
			sum_add_text(t, "fixes <= %ld lines", o->small);
			sum_add_text(t, "fixes of known size");
			sum_add_text(t, "share");
			sum_add_text(t, "hard");
			sum_add_text(t, "items of known days open");
			sum_add_text(t, "hard share");
		} else {
			for (i = 0; i < 9; i++)
				sum_add_text(t, "%s", q[i]);
		}
		for (i = 0; i < ts->nr; i++)
			if (!i || ts->nr > 2)
				effort_row(t, &ts->v[i], (int)size);
		if (ts->eb >= 0)
			for (i = 0; i < nslots(&ts->cb->dims[ts->eb]); i++)
				if (ts->by_code[i].items)
					effort_row(t, &ts->by_code[i],
						   (int)size);
	}
	buf_release(&title);
}

int sum_agreement_table(struct report *r, struct store *st,
			const struct actor *a, const struct codebook *cb,
			const struct summary_opts *o, struct err *e)
{
	static const char *const cols[] = {
		"dimension", "round", "closed", "codebook_version", "items",
		"coefficient", "kappa", "ci_low", "ci_high", "ci_method",
		"bootstrap_samples", "bootstrap_degenerate", "bootstrap_seed",
		"band", "undefined_reason",
	};
	static const char *const heads[] = {
		"dimension", "round", "closed", "codebook", "items",
		"coefficient", "kappa", "ci low", "ci high", "ci method",
		"resamples", "degenerate", "seed", "band", "note",
	};
	enum { NCOLS = sizeof(cols) / sizeof(cols[0]) };
	struct buf text = BUF_INIT;
	struct csv c = CSV_INIT;
	struct table *t;
	int idx[NCOLS], items_col;
	size_t i, k;
	int ret = -1;

	if (report_agreement_by_round(st, a, cb, NULL, REPORT_CSV, NULL,
				      &text, e) < 0 ||
	    csv_parse(&c, text.ptr, text.len, "agreement", e) < 0)
		goto out;
	t = sum_table_new(r, NCOLS, 0, "agreement", "Agreement per dimension "
			  "and round, the whole study last (kappa with its 95% "
			  "interval: its method, and for a bootstrap the "
			  "resamples, the degenerate ones drawn again and the "
			  "seed; the codebook versions coded under)");
	for (k = 0; k < NCOLS; k++) {
		sum_add_text(t, "%s", heads[k]);
		idx[k] = c.nr ? csv_column(&c.v[0], cols[k]) : -1;
		if (idx[k] < 0) {
			err_set(e, ERR_INPUT, "agreement: no column %s",
				cols[k]);
			goto out;
		}
	}
	items_col = c.nr ? csv_column(&c.v[0], "ci_items") : -1;
	for (i = 1; i < c.nr; i++) {
		const struct csv_record *rec = &c.v[i];

		if (rec->nr < c.v[0].nr)
			continue;
		if (o->round && strcmp(rec->fields[idx[1]], o->round))
			continue;
		for (k = 0; k < NCOLS; k++) {
			const char *f = rec->fields[idx[k]];
			int whole = k == 4 || (k >= 10 && k <= 12);

			if (whole || (k >= 6 && k <= 8)) {
				if (!*f)
					sum_cell_new(t, CELL_NONE, 0)->s =
						xstrdup("-");
				else
					sum_cell_new(t, whole ? CELL_INT :
						     CELL_NUM,
						     strtod(f, NULL))->s =
						xstrdup(f);
			} else if (k == NCOLS - 1 && !*f && items_col >= 0 &&
				   *rec->fields[idx[7]] &&
				   atol(rec->fields[items_col]) <
				   AGREE_SMALL_N) {
				/* the note: why a figure is undefined, or that
				 * an interval rests on few items */
				sum_add_text(t, "only %s item%s, under %d: the "
					     "interval says little",
					     rec->fields[items_col],
					     strcmp(rec->fields[items_col],
						    "1") ? "s" : "",
					     AGREE_SMALL_N);
			} else {
				sum_add_text(t, "%s", f);
			}
		}
	}
	ret = 0;
out:
	csv_release(&c);
	buf_release(&text);
	return ret;
}

/* The selection flow (core/study/design): per repository, every issue seen
 * to every bug agreed. */
int sum_flow_table(struct report *r, struct store *st,
		   const struct actor *a, const struct codebook *cb,
		   struct err *e)
{
	struct flow f = FLOW_INIT;
	struct table *t;
	size_t i, k;

	if (design_flow(st, a, cb, &f, e) < 0)
		return -1;
	t = sum_table_new(r, 9 + f.nr_reasons, 0, "flow", f.screens ?
			  "Selection flow per repository: issues seen "
			  "(imported, fetched or still to fetch), with a "
			  "merged fix, screened, included, excluded per "
			  "reason, coded by every assigned coder, then agreed "
			  "without adjudication, adjudicated or still open" :
			  "Selection flow per repository: issues seen "
			  "(imported, fetched or still to fetch), with a "
			  "merged fix, coded by every assigned coder, then "
			  "agreed without adjudication, adjudicated or still "
			  "open (no screening round: screening columns are "
			  "empty)");
	sum_add_text(t, "repository");
	sum_add_text(t, "seen");
	sum_add_text(t, "with merged fix");
	sum_add_text(t, "screened");
	sum_add_text(t, "included");
	for (k = 0; k < f.nr_reasons; k++)
		sum_add_text(t, "excluded: %s", f.reasons[k]);
	sum_add_text(t, "coded");
	sum_add_text(t, "agreed");
	sum_add_text(t, "adjudicated");
	sum_add_text(t, "open");
	for (i = 0; i < f.nr_rows; i++) {
		const struct flow_row *x = &f.rows[i];

		sum_add_text(t, "%s", x->repo ? x->repo : "all");
		sum_add_int(t, x->seen);
		sum_add_int(t, x->with_fix);
		if (x->screened < 0) {
			sum_cell_new(t, CELL_NONE, 0)->s = xstrdup("-");
			sum_cell_new(t, CELL_NONE, 0)->s = xstrdup("-");
		} else {
			sum_add_int(t, x->screened);
			sum_add_int(t, x->included);
		}
		for (k = 0; k < f.nr_reasons; k++)
			sum_add_int(t, x->excluded[k]);
		sum_add_int(t, x->coded);
		sum_add_int(t, x->agreed);
		sum_add_int(t, x->adjudicated);
		sum_add_int(t, x->open);
	}
	flow_release(&f);
	return 0;
}
