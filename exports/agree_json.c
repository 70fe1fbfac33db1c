/* SPDX-License-Identifier: MIT */
/*
 * agree_json: the agreement report as one JSON object (the layout is in
 * agree_report.h), and the pieces of it the machine coders' and the
 * by-round reports reuse.
 */
#include "exports/agree_int.h"

#include <string.h>

#include <cjson/cJSON.h>

static const char BAND_SOURCE[] =
	"Landis & Koch 1977, Biometrics 33:159-174";

/* ---- JSON ---------------------------------------------------------- */

void ar_add_stat(cJSON *obj, const char *key, const struct agree_stat *s,
		 const char **why)
{
	if (s->defined) {
		cJSON_AddNumberToObject(obj, key, s->value);
	} else {
		cJSON_AddNullToObject(obj, key);
		if (why && !*why)
			*why = s->why;
	}
}

void ar_finish_why(cJSON *obj, const char *why)
{
	if (why)
		cJSON_AddStringToObject(obj, "undefined_reason", why);
}

static cJSON *pair_array(const struct agree_stat *lo,
			 const struct agree_stat *hi)
{
	cJSON *a;

	if (!lo->defined || !hi->defined)
		return cJSON_CreateNull();
	a = cJSON_CreateArray();
	cJSON_AddItemToArray(a, cJSON_CreateNumber(lo->value));
	cJSON_AddItemToArray(a, cJSON_CreateNumber(hi->value));
	return a;
}

/* The reported interval, how it was made and the raw Wald bounds. */
void ar_ci_json(cJSON *o, const struct agree_ci *ci)
{
	struct buf b = BUF_INIT;

	cJSON_AddItemToObject(o, "ci95", pair_array(&ci->low, &ci->high));
	cJSON_AddStringToObject(o, "ci_method",
				agree_ci_method_name(ci->method));
	cJSON_AddNumberToObject(o, "ci_items", (double)ci->n);
	if (!ci->low.defined)
		cJSON_AddStringToObject(o, "ci_undefined_reason", ci->low.why);
	if (ci->method == AGREE_CI_WALD) {
		cJSON_AddBoolToObject(o, "ci_clipped", ci->clipped);
	} else if (ci->method == AGREE_CI_EXACT) {
		cJSON_AddBoolToObject(o, "ci_one_sided", 1);
		if (ci->low.defined)
			cJSON_AddNumberToObject(o, "observed_agreement_lower",
						ci->po_lower);
	} else if (ci->boot) {
		cJSON_AddNumberToObject(o, "bootstrap_samples", ci->boot);
		cJSON_AddNumberToObject(o, "bootstrap_defined", ci->boot_used);
		cJSON_AddNumberToObject(o, "bootstrap_degenerate",
					ci->boot_degenerate);
		cJSON_AddNumberToObject(o, "bootstrap_seed", (double)ci->seed);
		if (ci->method == AGREE_CI_BCA && ci->low.defined) {
			cJSON_AddNumberToObject(o, "bca_z0", ci->bca_z0);
			cJSON_AddNumberToObject(o, "bca_acceleration",
						ci->bca_accel);
		}
	}
	if (ci->low.defined && ci->n < AGREE_SMALL_N)
		cJSON_AddStringToObject(o, "ci_warning", "fewer than 10 "
					"items: the interval says little");
	agree_ci_describe(&b, ci);
	cJSON_AddStringToObject(o, "ci_description", b.ptr);
	buf_release(&b);
	cJSON_AddItemToObject(o, "wald_ci95", pair_array(&ci->wald_low,
							 &ci->wald_high));
}

/* A kappa as reported, with its interval. */
cJSON *ar_value_ci_json(const struct agree_stat *k,
			const struct agree_ci *ci)
{
	cJSON *o = cJSON_CreateObject();
	const char *why = NULL;

	ar_add_stat(o, "value", k, &why);
	ar_ci_json(o, ci);
	ar_finish_why(o, why);
	return o;
}

static cJSON *cohen_json(const struct agree_level_summary *lv)
{
	const struct agree_cohen *c = &lv->cohen;
	cJSON *k = cJSON_CreateObject();
	const char *why = NULL;

	ar_add_stat(k, "value", &lv->kappa, &why);
	if (!lv->kappa.defined) {
		struct agree_stat none = { 0, 0, lv->kappa.why };

		ar_add_stat(k, "se", &none, NULL);
		ar_add_stat(k, "se0", &none, NULL);
		ar_add_stat(k, "z", &none, NULL);
		ar_add_stat(k, "p", &none, NULL);
	} else {
		ar_add_stat(k, "se", &c->se, &why);
		ar_add_stat(k, "se0", &c->se0, &why);
		ar_add_stat(k, "z", &c->z, &why);
		ar_add_stat(k, "p", &c->p_two, &why);
	}
	ar_ci_json(k, &lv->ci);
	ar_finish_why(k, why);
	return k;
}

static cJSON *band_range_json(const struct agree_level_summary *lv)
{
	cJSON *a;

	if (lv->band == AGREE_BAND_NONE)
		return cJSON_CreateNull();
	a = cJSON_CreateArray();
	cJSON_AddItemToArray(a, cJSON_CreateString(
		agree_band_name(lv->band_low)));
	cJSON_AddItemToArray(a, cJSON_CreateString(
		agree_band_name(lv->band_high)));
	return a;
}

static cJSON *weighted_json(const struct dimension *dim,
			    const struct agree_level_summary *lv)
{
	cJSON *o = cJSON_CreateObject(), *a;
	const char *why = NULL;

	cJSON_AddStringToObject(o, "scale", dim_scale_name(dim->scale));
	cJSON_AddItemToObject(o, "linear_kappa",
			      ar_value_ci_json(&lv->kappa_linear,
					       &lv->ci_linear));
	cJSON_AddItemToObject(o, "quadratic_kappa",
			      ar_value_ci_json(&lv->kappa_quadratic,
					       &lv->ci_quadratic));
	a = cJSON_CreateObject();
	cJSON_AddStringToObject(a, "metric", dim_scale_name(dim->scale));
	ar_add_stat(a, "value", &lv->alpha_scale, &why);
	ar_finish_why(a, why);
	cJSON_AddItemToObject(o, "krippendorff_alpha", a);
	a = cJSON_CreateObject();
	why = NULL;
	ar_add_stat(a, "linear", &lv->ac2_linear, &why);
	ar_add_stat(a, "quadratic", &lv->ac2_quadratic, &why);
	ar_finish_why(a, why);
	cJSON_AddItemToObject(o, "gwet_ac2", a);
	if (lv->n_annotators > 2)
		cJSON_AddStringToObject(o, "kappa_note", "kappas and AC2: "
					"means over the pairs of annotators");
	return o;
}

static cJSON *per_code_json(const struct agreement *ag,
			    const struct agree_level_summary *lv,
			    const struct agreement_dim *ad)
{
	cJSON *arr = cJSON_CreateArray();
	size_t na = ag->nr_annotators, r;
	int i;

	for (i = 0; i < lv->k; i++) {
		cJSON *c = cJSON_CreateObject(), *cnt = cJSON_CreateObject();
		const char *cwhy = NULL;

		cJSON_AddStringToObject(c, lv->group ? "group" : "code",
					lv->names[i]);
		for (r = 0; r < na; r++)
			cJSON_AddNumberToObject(cnt, ag->annotators[r], (double)
				lv->count[(size_t)i * na + r]);
		cJSON_AddItemToObject(c, "counts", cnt);
		if (na >= 1)
			cJSON_AddNumberToObject(c, "count_a", (double)
				lv->count[(size_t)i * na]);
		if (na >= 2)
			cJSON_AddNumberToObject(c, "count_b", (double)
				lv->count[(size_t)i * na + 1]);
		ar_add_stat(c, "kappa", &lv->code_kappa[i], &cwhy);
		if (na == 2 && !lv->group && ad->per_code)
			ar_add_stat(c, "positive_agreement",
				    &ad->per_code[i].pos, &cwhy);
		if (lv->code_prevalence) {
			ar_add_stat(c, "prevalence_index",
				    &lv->code_prevalence[i], NULL);
			ar_add_stat(c, "bias_index", &lv->code_bias[i], NULL);
		}
		ar_finish_why(c, cwhy);
		cJSON_AddItemToArray(arr, c);
	}
	return arr;
}

static cJSON *pairs_json(const struct agreement *ag,
			 const struct agree_level_summary *lv)
{
	cJSON *pairs = cJSON_CreateArray();
	size_t p;

	for (p = 0; p < lv->nr_pairs; p++) {
		const struct agree_pair_summary *ps = &lv->pairs[p];
		cJSON *pr = cJSON_CreateObject(), *names, *k;
		const char *why = NULL;

		names = cJSON_CreateArray();
		cJSON_AddItemToArray(names,
				     cJSON_CreateString(ag->annotators[ps->a]));
		cJSON_AddItemToArray(names,
				     cJSON_CreateString(ag->annotators[ps->b]));
		cJSON_AddItemToObject(pr, "annotators", names);
		cJSON_AddNumberToObject(pr, "items", (double)ps->n);
		ar_add_stat(pr, "observed_agreement", &ps->po, &why);
		k = ar_value_ci_json(&ps->kappa, &ps->ci);
		cJSON_AddItemToObject(pr, "cohen_kappa", k);
		cJSON_AddItemToArray(pairs, pr);
	}
	return pairs;
}

static cJSON *confusion_json(const struct agree_level_summary *lv)
{
	cJSON *conf = cJSON_CreateObject(), *codes = cJSON_CreateArray();
	cJSON *counts = cJSON_CreateArray();
	int i, j, k = lv->table.k;

	for (i = 0; i < k; i++) {
		cJSON *row = cJSON_CreateArray();

		cJSON_AddItemToArray(codes, cJSON_CreateString(lv->names[i]));
		for (j = 0; j < k; j++)
			cJSON_AddItemToArray(row, cJSON_CreateNumber(
				(double)lv->table.n[i * k + j]));
		cJSON_AddItemToArray(counts, row);
	}
	cJSON_AddItemToObject(conf, "codes", codes);
	cJSON_AddItemToObject(conf, "counts", counts);
	return conf;
}

/* The two-annotator coefficients of one level into `o`, or nulls where
 * they do not apply; returns the first reason a value is undefined. */
static const char *coefficients_json(cJSON *o, const struct agreement *ag,
				     const struct agree_level_summary *lv,
				     int two, int many)
{
	const char *why = NULL;

	if (two) {
		ar_add_stat(o, "observed_agreement", &lv->cohen.po, &why);
		ar_add_stat(o, "expected_agreement", &lv->cohen.pe, &why);
		cJSON_AddItemToObject(o, "cohen_kappa", cohen_json(lv));
		ar_add_stat(o, "scott_pi", &lv->cohen.scott_pi, &why);
		ar_add_stat(o, "krippendorff_alpha", &lv->cohen.alpha.alpha,
			    &why);
		ar_add_stat(o, "gwet_ac1", &lv->cohen.ac1, &why);
		ar_add_stat(o, "pabak", &lv->cohen.pabak, &why);
	} else {
		ar_add_stat(o, "observed_agreement", &lv->po, &why);
		cJSON_AddNullToObject(o, "expected_agreement");
		cJSON_AddNullToObject(o, "cohen_kappa");
		cJSON_AddNullToObject(o, "scott_pi");
		if (many)
			ar_add_stat(o, "krippendorff_alpha", &lv->alpha, NULL);
		else
			cJSON_AddNullToObject(o, "krippendorff_alpha");
		if (many)
			ar_add_stat(o, "gwet_ac1", &lv->fleiss.ac1, NULL);
		else
			cJSON_AddNullToObject(o, "gwet_ac1");
		cJSON_AddNullToObject(o, "pabak");
		why = ag->nr_annotators < 2 ? "fewer than two annotators" :
		      many ? "more than two annotators: see fleiss_kappa, "
		      "conger_kappa and pairs" :
		      "select-many dimension: see per_code and mean_kappa";
	}
	return why;
}

/* Fleiss' and Conger's kappas and the pairs (three or more annotators)
 * into `o`. */
static void fleiss_json(cJSON *o, const struct agreement *ag,
			const struct agree_level_summary *lv)
{
	cJSON *f = cJSON_CreateObject(), *cg;
	const char *fwhy = NULL, *cwhy = NULL;

	ar_add_stat(f, "value", &lv->fleiss.kappa, &fwhy);
	ar_add_stat(f, "se", &lv->fleiss.se, &fwhy);
	ar_add_stat(f, "se0", &lv->fleiss.se0, &fwhy);
	ar_add_stat(f, "z", &lv->fleiss.z, &fwhy);
	ar_add_stat(f, "p", &lv->fleiss.p_two, &fwhy);
	ar_ci_json(f, &lv->ci);
	ar_finish_why(f, fwhy);
	cJSON_AddItemToObject(o, "fleiss_kappa", f);
	cg = cJSON_CreateObject();
	ar_add_stat(cg, "value", &lv->conger, &cwhy);
	ar_ci_json(cg, &lv->conger_ci);
	ar_finish_why(cg, cwhy);
	cJSON_AddItemToObject(o, "conger_kappa", cg);
	cJSON_AddItemToObject(o, "pairs", pairs_json(ag, lv));
}

/* The fields of one level (codes or groups) into `o`. */
static void level_json(cJSON *o, const struct agreement *ag,
		       const struct agree_dim_summary *ds,
		       const struct agree_level_summary *lv)
{
	const struct agreement_dim *ad = ds->ad;
	const struct dimension *dim = ad->dim;
	int two = ag->nr_annotators == 2 && !dim->select_many;
	int many = ag->nr_annotators > 2 && !dim->select_many;
	const char *why;
	struct buf b = BUF_INIT;

	cJSON_AddNumberToObject(o, "items", (double)lv->n_items);
	cJSON_AddNumberToObject(o, "items_dropped", (double)lv->n_dropped);
	cJSON_AddNumberToObject(o, "categories", lv->k);
	cJSON_AddStringToObject(o, "coefficient", lv->coef);
	cJSON_AddItemToObject(o, "kappa", ar_value_ci_json(&lv->kappa,
							   &lv->ci));
	agree_sentence_build(ag, ds, lv, &b);
	cJSON_AddStringToObject(o, "sentence", b.ptr);
	buf_release(&b);
	why = coefficients_json(o, ag, lv, two, many);
	if (lv->band != AGREE_BAND_NONE)
		cJSON_AddStringToObject(o, "band", agree_band_name(lv->band));
	else
		cJSON_AddNullToObject(o, "band");
	cJSON_AddItemToObject(o, "band_range", band_range_json(lv));
	cJSON_AddStringToObject(o, "band_source", BAND_SOURCE);
	ar_add_stat(o, "kappa_max", &lv->kappa_max, NULL);
	ar_add_stat(o, "prevalence_index", &lv->prevalence, NULL);
	ar_add_stat(o, "bias_index", &lv->bias, NULL);
	if (lv->bias.defined)
		cJSON_AddStringToObject(o, "bias_index_definition", lv->k > 2 ?
			"this program's generalisation of Byrt, Bishop & "
			"Carlin's (1993) index to more than two codes: "
			AGREE_BIAS_FORMULA : "Byrt, Bishop & Carlin 1993: "
			"(b - c) / n");
	if (lv->weighted)
		cJSON_AddItemToObject(o, "weighted", weighted_json(dim, lv));
	else
		cJSON_AddNullToObject(o, "weighted");
	if (dim->select_many) {
		ar_add_stat(o, "exact_agreement", &lv->po, NULL);
		ar_add_stat(o, "mean_kappa", &lv->kappa, NULL);
		cJSON_AddNumberToObject(o, "codes_in_mean", lv->codes_defined);
		cJSON_AddNumberToObject(o, "codes_left_out",
					lv->codes_left_out);
	}
	if (many)
		fleiss_json(o, ag, lv);
	cJSON_AddItemToObject(o, "per_code", per_code_json(ag, lv, ad));
	if (two && lv->table.n)
		cJSON_AddItemToObject(o, "confusion", confusion_json(lv));
	else
		cJSON_AddNullToObject(o, "confusion");
	ar_finish_why(o, why);
}

static cJSON *dim_json(const struct agreement *ag,
		       const struct agree_dim_summary *ds)
{
	cJSON *o = cJSON_CreateObject();
	const struct dimension *dim = ds->ad->dim;

	cJSON_AddStringToObject(o, "key", dim->key);
	cJSON_AddStringToObject(o, "name", dim->name);
	cJSON_AddStringToObject(o, "select", dim->select_many ? "many" :
				"one");
	cJSON_AddStringToObject(o, "scale", dim_scale_name(dim->scale));
	cJSON_AddStringToObject(o, "level", ds->show_code ? "code" : "group");
	if (ds->show_code) {
		level_json(o, ag, ds, &ds->code);
		if (ds->show_group) {
			cJSON *g = cJSON_CreateObject();

			cJSON_AddStringToObject(g, "level", "group");
			level_json(g, ag, ds, &ds->grp);
			cJSON_AddItemToObject(o, "groups", g);
		} else {
			cJSON_AddNullToObject(o, "groups");
		}
	} else {
		level_json(o, ag, ds, &ds->grp);
	}
	return o;
}

cJSON *ar_opts_json(const struct agree_opts *o)
{
	cJSON *j = cJSON_CreateObject();

	cJSON_AddStringToObject(j, "method", agree_ci_method_name(o->ci));
	cJSON_AddNumberToObject(j, "level", 0.95);
	if (o->ci != AGREE_CI_WALD) {
		cJSON_AddNumberToObject(j, "samples", o->boot);
		cJSON_AddNumberToObject(j, "seed", (double)o->seed);
		cJSON_AddStringToObject(j, "degenerate_resamples", "drawn "
					"again, counted in each interval's "
					"bootstrap_degenerate");
	}
	cJSON_AddStringToObject(j, "kappa_one", "exact one-sided 95% lower "
				"bound from the observed agreement");
	return j;
}

void ar_render_json(const struct agreement *ag,
		    const struct headline *sum, struct buf *out)
{
	cJSON *root = cJSON_CreateObject(), *arr;
	char *s;
	size_t i;

	if (ag->round)
		cJSON_AddStringToObject(root, "round", ag->round);
	else
		cJSON_AddNullToObject(root, "round");
	arr = cJSON_CreateArray();
	for (i = 0; i < ag->nr_annotators; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(ag->annotators[i]));
	cJSON_AddItemToObject(root, "annotators", arr);
	cJSON_AddItemToObject(root, "interval", ar_opts_json(&sum->opts));
	arr = cJSON_CreateArray();
	if (sum->later) {
		const char *p = sum->later, *nl;
		struct buf line = BUF_INIT;

		for (; (nl = strchr(p, '\n')); p = nl + 1) {
			buf_reset(&line);
			buf_add(&line, p, (size_t)(nl - p));
			cJSON_AddItemToArray(arr,
					     cJSON_CreateString(line.ptr));
		}
		buf_release(&line);
	}
	cJSON_AddItemToObject(root, "changed_after_close", arr);
	arr = cJSON_CreateArray();
	if (sum->scope) {
		const char *p = sum->scope, *nl;
		struct buf line = BUF_INIT;

		for (; (nl = strchr(p, '\n')); p = nl + 1) {
			buf_reset(&line);
			buf_add(&line, p, (size_t)(nl - p));
			cJSON_AddItemToArray(arr,
					     cJSON_CreateString(line.ptr));
		}
		buf_release(&line);
	}
	cJSON_AddItemToObject(root, "counting", arr);
	arr = cJSON_CreateArray();
	for (i = 0; i < sum->nr_dims; i++)
		cJSON_AddItemToArray(arr, dim_json(ag, &sum->dims[i]));
	cJSON_AddItemToObject(root, "dimensions", arr);
	s = cJSON_Print(root);
	buf_addstr(out, s);
	buf_addch(out, '\n');
	cJSON_free(s);
	cJSON_Delete(root);
}
