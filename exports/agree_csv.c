/* SPDX-License-Identifier: MIT */
/*
 * agree_csv: the agreement report as CSV, one row per dimension and
 * level, and one per pair of annotators (three or more), with the cells
 * the machine coders' and the by-round tables share.
 */
#include "exports/agree_int.h"

#include <math.h>
#include <string.h>

void ar_cell(struct buf *out, const struct agree_stat *s)
{
	buf_addch(out, ',');
	if (s->defined)
		buf_addf(out, "%.6g", fabs(s->value) < 5e-13 ? 0.0 : s->value);
}

void ar_cell_str(struct buf *out, const char *s)
{
	const char *p;

	buf_addch(out, ',');
	if (!s)
		return;
	if (!strpbrk(s, ",\"\n\r")) {
		buf_addstr(out, s);
		return;
	}
	buf_addch(out, '"');
	for (p = s; *p; p++) {
		if (*p == '"')
			buf_addch(out, '"');
		buf_addch(out, *p);
	}
	buf_addch(out, '"');
}

static const char CSV_HEADER[] =
	"round,dimension,level,scale,items,categories,annotators,"
	"coefficient,kappa,ci_low,ci_high,ci_method,ci_clipped,"
	"wald_ci_low,wald_ci_high,bootstrap_samples,bootstrap_seed,"
	"undefined_reason,observed_agreement,expected_agreement,"
	"cohen_kappa,se,se0,z,p,scott_pi,krippendorff_alpha,gwet_ac1,pabak,"
	"band,band_low,band_high,kappa_max,prevalence_index,bias_index,"
	"fleiss_kappa,conger_kappa,exact_agreement,mean_kappa,"
	"linear_weighted_kappa,linear_ci_low,linear_ci_high,"
	"quadratic_weighted_kappa,quadratic_ci_low,quadratic_ci_high,"
	"scale_alpha,annotator_a,annotator_b,bootstrap_degenerate,ci_items,"
	"ci_note,items_dropped,codes_in_mean,codes_left_out,conger_ci_low,"
	"conger_ci_high,linear_ac2,quadratic_ac2,bias_index_definition\n";

/* Is the level a mean of per-code kappas (select many)? */
static int ds_many(const struct agree_level_summary *lv)
{
	return !strncmp(lv->coef, "mean per-", 9);
}

/* bootstrap_samples and bootstrap_seed of an interval */
void ar_csv_boot(struct buf *out, const struct agree_ci *ci)
{
	if (ci->method != AGREE_CI_WALD && ci->method != AGREE_CI_EXACT &&
	    ci->boot)
		buf_addf(out, ",%d,%llu", ci->boot,
			 (unsigned long long)ci->seed);
	else
		buf_addstr(out, ",,");
}

/* The columns after annotator_b: the interval's degenerate resamples,
 * items and note; the level's dropped items, select-many counts,
 * Conger's interval, AC2 and the bias index's definition (lv NULL: the
 * interval's columns only). */
void ar_csv_tail(struct buf *out, const struct agree_ci *ci,
		 const struct agree_level_summary *lv, int many)
{
	struct agree_stat none = { 0, 0, NULL };
	struct buf note = BUF_INIT;

	if (ci->method != AGREE_CI_WALD && ci->method != AGREE_CI_EXACT &&
	    ci->boot)
		buf_addf(out, ",%d", ci->boot_degenerate);
	else
		buf_addch(out, ',');
	buf_addf(out, ",%ld", ci->n);
	if (ci->low.defined)
		agree_ci_describe(&note, ci);
	ar_cell_str(out, note.len ? note.ptr : NULL);
	buf_release(&note);
	if (!lv) {
		buf_addstr(out, ",,,,,,,,\n");
		return;
	}
	buf_addf(out, ",%zu", lv->n_dropped);
	if (lv->code_kappa && ds_many(lv))
		buf_addf(out, ",%d,%d", lv->codes_defined,
			 lv->codes_left_out);
	else
		buf_addstr(out, ",,");
	ar_cell(out, many ? &lv->conger_ci.low : &none);
	ar_cell(out, many ? &lv->conger_ci.high : &none);
	ar_cell(out, lv->weighted ? &lv->ac2_linear : &none);
	ar_cell(out, lv->weighted ? &lv->ac2_quadratic : &none);
	ar_cell_str(out, !lv->bias.defined ? NULL : lv->k > 2 ?
		    "generalised: " AGREE_BIAS_FORMULA :
		    "Byrt et al. 1993: (b - c) / n");
	buf_addch(out, '\n');
}

static void csv_level(const struct agreement *ag,
		      const struct agree_dim_summary *ds,
		      const struct agree_level_summary *lv, struct buf *out)
{
	const struct dimension *dim = ds->ad->dim;
	const struct agree_cohen *c = &lv->cohen;
	struct agree_stat none = { 0, 0, NULL };
	int two = ag->nr_annotators == 2 && !dim->select_many;
	int many = ag->nr_annotators > 2 && !dim->select_many;
	const char *why = !lv->kappa.defined ? lv->kappa.why :
			  !lv->ci.low.defined ? lv->ci.low.why : NULL;

	buf_addf(out, "%s,%s,%s,%s,%zu,%d,%zu", ag->round ? ag->round : "",
		 dim->key, lv->group ? "group" : "code",
		 dim_scale_name(dim->scale), lv->n_items, lv->k,
		 ag->nr_annotators);
	ar_cell_str(out, lv->coef);
	ar_cell(out, &lv->kappa);
	ar_cell(out, &lv->ci.low);
	ar_cell(out, &lv->ci.high);
	ar_cell_str(out, agree_ci_method_name(lv->ci.method));
	ar_cell_str(out, lv->ci.method == AGREE_CI_WALD ?
		    (lv->ci.clipped ? "yes" : "no") : "");
	ar_cell(out, &lv->ci.wald_low);
	ar_cell(out, &lv->ci.wald_high);
	ar_csv_boot(out, &lv->ci);
	ar_cell_str(out, why);
	ar_cell(out, two ? &c->po : &lv->po);
	ar_cell(out, two ? &c->pe : &none);
	ar_cell(out, two ? &lv->kappa : &none);
	ar_cell(out, two && lv->kappa.defined ? &c->se :
		many && lv->kappa.defined ? &lv->fleiss.se : &none);
	ar_cell(out, two && lv->kappa.defined ? &c->se0 :
		many && lv->kappa.defined ? &lv->fleiss.se0 : &none);
	ar_cell(out, two && lv->kappa.defined ? &c->z :
		many && lv->kappa.defined ? &lv->fleiss.z : &none);
	ar_cell(out, two && lv->kappa.defined ? &c->p_two :
		many && lv->kappa.defined ? &lv->fleiss.p_two : &none);
	ar_cell(out, two ? &c->scott_pi : &none);
	ar_cell(out, two ? &c->alpha.alpha : many ? &lv->alpha : &none);
	ar_cell(out, two ? &c->ac1 : many ? &lv->fleiss.ac1 : &none);
	ar_cell(out, two ? &c->pabak : &none);
	ar_cell_str(out, lv->band != AGREE_BAND_NONE ?
		    agree_band_name(lv->band) : NULL);
	ar_cell_str(out, lv->band != AGREE_BAND_NONE ?
		    agree_band_name(lv->band_low) : NULL);
	ar_cell_str(out, lv->band != AGREE_BAND_NONE ?
		    agree_band_name(lv->band_high) : NULL);
	ar_cell(out, &lv->kappa_max);
	ar_cell(out, &lv->prevalence);
	ar_cell(out, &lv->bias);
	ar_cell(out, many ? &lv->fleiss.kappa : &none);
	ar_cell(out, many ? &lv->conger : &none);
	ar_cell(out, dim->select_many ? &lv->po : &none);
	ar_cell(out, dim->select_many ? &lv->kappa : &none);
	ar_cell(out, lv->weighted ? &lv->kappa_linear : &none);
	ar_cell(out, lv->weighted ? &lv->ci_linear.low : &none);
	ar_cell(out, lv->weighted ? &lv->ci_linear.high : &none);
	ar_cell(out, lv->weighted ? &lv->kappa_quadratic : &none);
	ar_cell(out, lv->weighted ? &lv->ci_quadratic.low : &none);
	ar_cell(out, lv->weighted ? &lv->ci_quadratic.high : &none);
	ar_cell(out, lv->weighted ? &lv->alpha_scale : &none);
	buf_addstr(out, ",,");
	ar_csv_tail(out, &lv->ci, lv, many);
}

/* One row per pair of annotators (three or more), in the same table:
 * coefficient "Cohen's kappa (pair)" and the pair in the last columns. */
static void csv_pairs(const struct agreement *ag,
		      const struct agree_dim_summary *ds,
		      const struct agree_level_summary *lv, struct buf *out)
{
	const struct dimension *dim = ds->ad->dim;
	size_t p;
	int i;

	for (p = 0; p < lv->nr_pairs; p++) {
		const struct agree_pair_summary *ps = &lv->pairs[p];

		buf_addf(out, "%s,%s,%s,%s,%ld,%d,2,Cohen's kappa (pair)",
			 ag->round ? ag->round : "", dim->key,
			 lv->group ? "group" : "code",
			 dim_scale_name(dim->scale), ps->n, lv->k);
		ar_cell(out, &ps->kappa);
		ar_cell(out, &ps->ci.low);
		ar_cell(out, &ps->ci.high);
		ar_cell_str(out, agree_ci_method_name(ps->ci.method));
		ar_cell_str(out, ps->ci.method == AGREE_CI_WALD ?
			    (ps->ci.clipped ? "yes" : "no") : "");
		ar_cell(out, &ps->ci.wald_low);
		ar_cell(out, &ps->ci.wald_high);
		ar_csv_boot(out, &ps->ci);
		ar_cell_str(out, !ps->kappa.defined ? ps->kappa.why :
			    !ps->ci.low.defined ? ps->ci.low.why : NULL);
		ar_cell(out, &ps->po);
		buf_addch(out, ',');
		ar_cell(out, &ps->kappa);
		/* se .. scale_alpha (columns 22-46): empty */
		for (i = 0; i < 25; i++)
			buf_addch(out, ',');
		ar_cell_str(out, ag->annotators[ps->a]);
		ar_cell_str(out, ag->annotators[ps->b]);
		ar_csv_tail(out, &ps->ci, NULL, 0);
	}
}

void ar_render_csv(const struct agreement *ag,
		   const struct headline *sum, struct buf *out)
{
	size_t i;

	buf_addstr(out, CSV_HEADER);
	for (i = 0; i < sum->nr_dims; i++) {
		const struct agree_dim_summary *ds = &sum->dims[i];

		if (ds->show_code) {
			csv_level(ag, ds, &ds->code, out);
			csv_pairs(ag, ds, &ds->code, out);
		}
		if (ds->show_group) {
			csv_level(ag, ds, &ds->grp, out);
			csv_pairs(ag, ds, &ds->grp, out);
		}
	}
}
