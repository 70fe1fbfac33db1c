/* SPDX-License-Identifier: MIT */
/*
 * agree_by_round: `agree --by-round`, kappa per dimension and round with
 * the whole study last and the trend over the rounds, as text, JSON or
 * CSV (report_agreement_by_round() in agree_report.h).
 */
#include "exports/agree_int.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/study/round.h"

/* One row of the table: a round's agreement (or the whole study's, the
 * last row), or why it is not shown. */
struct round_row {
	struct round_info info;
	int whole;			/* the whole study, every round */
	int ok;
	char *why;			/* when !ok */
	struct agreement ag;
	struct headline sum;
	struct buf versions;		/* codebook versions coded with */
};

#define WHOLE_STUDY "(whole study)"

static const struct agree_level_summary *row_level(const struct round_row *r,
						   size_t d)
{
	if (!r->ok || d >= r->sum.nr_dims)
		return NULL;
	return &r->sum.dims[d].code;
}

/* The trend of kappa over the rounds rows[0..nr): its slope and SE. */
static void row_trend(const struct round_row *rows, size_t nr, size_t d,
		      struct agree_stat *slope, struct agree_stat *se)
{
	double *y = xcalloc(nr + 1, sizeof(*y));
	int *def = xcalloc(nr + 1, sizeof(*def));
	size_t i;

	for (i = 0; i < nr; i++) {
		const struct agree_level_summary *lv = row_level(&rows[i], d);

		if (lv && lv->kappa.defined) {
			y[i] = lv->kappa.value;
			def[i] = 1;
		}
	}
	*slope = agree_trend_slope(y, def, nr);
	*se = agree_trend_se(y, def, nr);
	free(y);
	free(def);
}

static const char *row_name(const struct round_row *r)
{
	return r->whole ? WHOLE_STUDY : r->info.name;
}

static const char *row_state(const struct round_row *r)
{
	return r->whole ? "-" : r->info.closed_at ? "closed" : "open";
}

static void intervals_line(const struct agree_opts *o, struct buf *out)
{
	if (o->ci != AGREE_CI_WALD)
		buf_addf(out, "; 95%% intervals: %s, %d resamples, seed %llu "
			 "(degen: degenerate resamples, drawn again)\n",
			 agree_ci_method_name(o->ci), o->boot,
			 (unsigned long long)o->seed);
	else
		buf_addstr(out, "; 95% intervals: Wald, clipped to [-1, 1]\n");
}

/* One row of the text table: the round, its state and figures, or why
 * none are shown. */
static void row_text(const struct round_row *r, size_t di, struct buf *out)
{
	const struct agree_level_summary *lv = row_level(r, di);
	struct buf t = BUF_INIT;

	buf_addf(out, "  %-16.16s %-6s ", row_name(r),
		 row_state(r));
	if (!lv) {
		buf_addf(out, "%5s  not shown: %s\n", "",
			 r->why ? r->why : "not computed");
		return;
	}
	buf_addf(out, "%5zu  ", lv->n_items);
	if (lv->kappa.defined)
		agree_fmt(&t, lv->kappa.value, 2);
	else
		buf_addstr(&t, "undef");
	buf_addf(out, "%-7s ", t.ptr);
	buf_reset(&t);
	if (lv->ci.low.defined &&
	    lv->ci.method == AGREE_CI_EXACT) {
		buf_addstr(&t, ">= ");
		agree_fmt(&t, lv->ci.low.value, 2);
	} else if (lv->ci.low.defined) {
		agree_fmt_ci(&t, &lv->ci, 2);
	} else {
		buf_addstr(&t, "-");
	}
	/* pad by columns: the en dash is 3 bytes, 1 column */
	buf_addf(out, "%-*s ", 15 + (strstr(t.ptr,
		 "\xe2\x80\x93") ? 2 : 0), t.ptr);
	/* the degenerate resamples drawn again, with every
	 * bootstrap interval */
	if (lv->kappa.defined && lv->ci.boot &&
	    lv->ci.method != AGREE_CI_WALD &&
	    lv->ci.method != AGREE_CI_EXACT)
		buf_addf(out, "%6d ", lv->ci.boot_degenerate);
	else
		buf_addf(out, "%6s ", "-");
	buf_addf(out, "%-16s %s", lv->kappa.defined ?
		 agree_band_name(lv->band) : "-",
		 r->versions.len ? r->versions.ptr : "-");
	if (!lv->kappa.defined)
		buf_addf(out, "  (%s)", lv->kappa.why);
	else if (!lv->ci.low.defined)
		buf_addf(out, "  (no interval: %s)",
			 lv->ci.low.why);
	else if (lv->ci.method == AGREE_CI_EXACT ||
		 lv->ci.n < AGREE_SMALL_N) {
		buf_addstr(out, "  (");
		agree_ci_describe(out, &lv->ci);
		buf_addch(out, ')');
	}
	buf_addch(out, '\n');
	buf_release(&t);
}

/* The trend line: the slope of kappa over the rounds whose kappa is
 * defined, and its SE. */
static void trend_text(const struct round_row *rows, size_t nr, size_t di,
		       const char *coef, struct buf *out)
{
	struct agree_stat slope, se;

	row_trend(rows, nr, di, &slope, &se);
	buf_addf(out, "  trend (%s): ", coef ? coef : "kappa");
	if (slope.defined) {
		agree_fmt(out, slope.value, 3);
		buf_addstr(out, " per round, SE ");
		if (se.defined)
			agree_fmt(out, se.value, 3);
		else
			buf_addf(out, "undefined (%s)", se.why);
		buf_addstr(out, " (least squares over the rounds with "
			   "a value)\n");
	} else {
		buf_addf(out, "undefined (%s)\n", slope.why);
	}
}

/* rows[0..nr) are the rounds, rows[nr] the whole study. */
static void by_round_text(const struct codebook *cb, const char *only,
			  const struct round_row *rows, size_t nr,
			  const struct agree_opts *o, struct buf *out)
{
	size_t d, i, di = 0;

	buf_addstr(out, "Agreement by round");
	intervals_line(o, out);
	if (!nr) {
		buf_addstr(out, "No rounds yet.\n");
		return;
	}
	for (d = 0; d < cb->nr_dims; d++) {
		const struct dimension *dim = &cb->dims[d];
		const char *coef = NULL;

		if (only && strcmp(only, dim->key))
			continue;
		for (i = 0; i < nr && !coef; i++)
			if (row_level(&rows[i], di))
				coef = row_level(&rows[i], di)->coef;
		buf_addf(out, "\n%s (%s)\n  %-16s %-6s %5s  %-7s %-15s %6s %-16s "
			 "%s\n", dim->key, dim->name, "round", "state", "n",
			 "kappa", "95% CI", "degen", "band", "codebook");
		for (i = 0; i <= nr; i++)
			row_text(&rows[i], di, out);
		/* the trend over the rounds whose kappa is defined */
		trend_text(rows, nr, di++, coef, out);
	}
}

static cJSON *row_json(const struct round_row *r, size_t di)
{
	const struct agree_level_summary *lv = row_level(r, di);
	cJSON *rj = cJSON_CreateObject();

	cJSON_AddStringToObject(rj, "round", row_name(r));
	if (r->whole)
		cJSON_AddNullToObject(rj, "closed");
	else
		cJSON_AddBoolToObject(rj, "closed", r->info.closed_at != NULL);
	if (r->versions.len)
		cJSON_AddStringToObject(rj, "codebook_version",
					r->versions.ptr);
	else
		cJSON_AddNullToObject(rj, "codebook_version");
	if (!lv) {
		cJSON_AddNullToObject(rj, "kappa");
		cJSON_AddStringToObject(rj, "undefined_reason",
					r->why ? r->why : "not computed");
		return rj;
	}
	cJSON_AddNumberToObject(rj, "items", (double)lv->n_items);
	cJSON_AddNumberToObject(rj, "items_dropped", (double)lv->n_dropped);
	cJSON_AddStringToObject(rj, "coefficient", lv->coef);
	cJSON_AddItemToObject(rj, "kappa", ar_value_ci_json(&lv->kappa,
							    &lv->ci));
	if (lv->band != AGREE_BAND_NONE)
		cJSON_AddStringToObject(rj, "band", agree_band_name(lv->band));
	else
		cJSON_AddNullToObject(rj, "band");
	return rj;
}

static void by_round_json(const struct codebook *cb, const char *only,
			  const struct round_row *rows, size_t nr,
			  const struct agree_opts *o, struct buf *out)
{
	cJSON *root = cJSON_CreateObject(), *dims = cJSON_CreateArray();
	size_t d, i, di = 0;
	char *s;

	cJSON_AddItemToObject(root, "interval", ar_opts_json(o));
	for (d = 0; d < cb->nr_dims; d++) {
		const struct dimension *dim = &cb->dims[d];
		cJSON *dj, *arr = cJSON_CreateArray(), *tr;
		struct agree_stat slope, se;
		const char *why = NULL;

		if (only && strcmp(only, dim->key))
			continue;
		dj = cJSON_CreateObject();
		cJSON_AddStringToObject(dj, "key", dim->key);
		for (i = 0; i < nr; i++)
			cJSON_AddItemToArray(arr, row_json(&rows[i], di));
		cJSON_AddItemToObject(dj, "rounds", arr);
		if (nr)
			cJSON_AddItemToObject(dj, "whole_study",
					      row_json(&rows[nr], di));
		else
			cJSON_AddNullToObject(dj, "whole_study");
		row_trend(rows, nr, di, &slope, &se);
		tr = cJSON_CreateObject();
		ar_add_stat(tr, "slope_per_round", &slope, &why);
		ar_add_stat(tr, "se", &se, slope.defined ? &why : NULL);
		if (slope.defined && !se.defined)
			cJSON_AddStringToObject(tr, "se_undefined_reason",
						se.why);
		ar_finish_why(tr, why);
		cJSON_AddItemToObject(dj, "trend", tr);
		cJSON_AddItemToArray(dims, dj);
		di++;
	}
	cJSON_AddItemToObject(root, "dimensions", dims);
	s = cJSON_Print(root);
	buf_addstr(out, s);
	buf_addch(out, '\n');
	cJSON_free(s);
	cJSON_Delete(root);
}

static void by_round_csv(const struct codebook *cb, const char *only,
			 const struct round_row *rows, size_t nr,
			 struct buf *out)
{
	size_t d, i, di = 0;

	buf_addstr(out, "dimension,round,closed,codebook_version,items,"
		   "coefficient,kappa,ci_low,ci_high,ci_method,band,"
		   "undefined_reason,trend_slope_per_round,trend_se,"
		   "bootstrap_samples,bootstrap_degenerate,bootstrap_seed,"
		   "ci_items,ci_note,items_dropped\n");
	for (d = 0; d < cb->nr_dims; d++) {
		const struct dimension *dim = &cb->dims[d];
		struct agree_stat slope, se;

		if (only && strcmp(only, dim->key))
			continue;
		row_trend(rows, nr, di, &slope, &se);
		for (i = 0; nr && i <= nr; i++) {
			const struct round_row *r = &rows[i];
			const struct agree_level_summary *lv = row_level(r, di);

			buf_addstr(out, dim->key);
			ar_cell_str(out, row_name(r));
			ar_cell_str(out, r->whole ? "" : r->info.closed_at ?
				    "yes" : "no");
			ar_cell_str(out, r->versions.ptr);
			if (!lv) {
				buf_addstr(out, ",,,,,,,");
				ar_cell_str(out, r->why ? r->why :
					    "not computed");
				ar_cell(out, &slope);
				ar_cell(out, &se);
				buf_addstr(out, ",,,,,,\n");
				continue;
			}
			buf_addf(out, ",%zu", lv->n_items);
			ar_cell_str(out, lv->coef);
			ar_cell(out, &lv->kappa);
			ar_cell(out, &lv->ci.low);
			ar_cell(out, &lv->ci.high);
			ar_cell_str(out, agree_ci_method_name(lv->ci.method));
			ar_cell_str(out, lv->band != AGREE_BAND_NONE ?
				    agree_band_name(lv->band) : NULL);
			ar_cell_str(out, !lv->kappa.defined ? lv->kappa.why :
				    !lv->ci.low.defined ? lv->ci.low.why :
				    NULL);
			ar_cell(out, &slope);
			ar_cell(out, &se);
			if (lv->ci.method != AGREE_CI_WALD &&
			    lv->ci.method != AGREE_CI_EXACT && lv->ci.boot)
				buf_addf(out, ",%d,%d,%llu", lv->ci.boot,
					 lv->ci.boot_degenerate,
					 (unsigned long long)lv->ci.seed);
			else
				buf_addstr(out, ",,,");
			buf_addf(out, ",%ld", lv->ci.n);
			{
				struct buf note = BUF_INIT;

				if (lv->ci.low.defined)
					agree_ci_describe(&note, &lv->ci);
				ar_cell_str(out, note.len ? note.ptr : NULL);
				buf_release(&note);
			}
			buf_addf(out, ",%zu\n", lv->n_dropped);
		}
		di++;
	}
}

/* Fill `r` with the agreement of round r->info (or the whole study when
 * r->whole), or why the actor may not see it. */
static int row_compute(struct store *st, const struct actor *a,
		       const struct codebook *cb, const char *dim,
		       const struct agree_opts *o, struct round_row *r,
		       struct err *e)
{
	struct err re = ERR_INIT;

	buf_init(&r->versions, 0);
	if (round_codebook_versions(st, r->whole ? 0 : r->info.id,
				    &r->versions, e) < 0)
		return -1;
	if (agreement_compute(st, a, cb, r->whole ? NULL : r->info.name, dim,
			      &r->ag, &re) < 0) {
		if (re.code != ERR_PERM) {
			*e = re;
			return -1;
		}
		r->why = xstrdup(r->whole ? "the whole study shows open rounds "
				 "(blinding)" : "the round is open (blinding)");
		return 0;
	}
	if (headline_compute(&r->ag, o, &r->sum, e) < 0)
		return -1;
	r->ok = 1;
	return 0;
}

int report_agreement_by_round(struct store *st, const struct actor *a,
			      const struct codebook *cb, const char *dim,
			      int format, const struct agree_opts *opts,
			      struct buf *out, struct err *e)
{
	static const struct agree_opts def = AGREE_OPTS_INIT;
	const struct agree_opts *o = opts ? opts : &def;
	struct round_info *list = NULL;
	struct round_row *rows = NULL;
	size_t nr = 0, i;
	int ret = -1;

	if (dim && !codebook_dim(cb, dim))
		return err_set(e, ERR_INPUT, "--dimension %s: not in codebook "
			       "%s", dim, cb->name);
	if (round_list(st, &list, &nr, e) < 0)
		return -1;
	/* the codebook's dimensions, round by round: the coding rounds
	 * (a screening round has its own question: agree --round S) */
	{
		size_t k = 0;

		for (i = 0; i < nr; i++) {
			if (list[i].screen)
				round_info_release(&list[i]);
			else
				list[k++] = list[i];
		}
		nr = k;
	}
	rows = xcalloc(nr + 2, sizeof(*rows));
	for (i = 0; i < nr; i++)
		rows[i].info = list[i];
	rows[nr].whole = 1;
	for (i = 0; nr && i <= nr; i++)
		if (row_compute(st, a, cb, dim, o, &rows[i], e) < 0)
			goto out;
	if (format == REPORT_JSON)
		by_round_json(cb, dim, rows, nr, o, out);
	else if (format == REPORT_CSV)
		by_round_csv(cb, dim, rows, nr, out);
	else
		by_round_text(cb, dim, rows, nr, o, out);
	ret = 0;
out:
	for (i = 0; i <= nr; i++) {
		headline_release(&rows[i].sum);
		agreement_release(&rows[i].ag);
		buf_release(&rows[i].versions);
		free(rows[i].why);
	}
	free(rows);
	round_list_free(list, nr);
	return ret;
}
