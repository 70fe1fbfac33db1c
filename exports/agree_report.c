/* SPDX-License-Identifier: MIT */
/*
 * agree_report: see agree_report.h.
 */
#include "exports/agree_report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/study/access.h"
#include "core/study/machine.h"
#include "core/study/design.h"
#include "core/study/headline_text.h"
#include "core/study/round.h"

static const char BAND_SOURCE[] =
	"Landis & Koch 1977, Biometrics 33:159-174";

/* ---- JSON ---------------------------------------------------------- */

static void add_stat(cJSON *obj, const char *key, const struct agree_stat *s,
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

static void finish_why(cJSON *obj, const char *why)
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
static void ci_json(cJSON *o, const struct agree_ci *ci)
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
static cJSON *value_ci_json(const struct agree_stat *k,
			    const struct agree_ci *ci)
{
	cJSON *o = cJSON_CreateObject();
	const char *why = NULL;

	add_stat(o, "value", k, &why);
	ci_json(o, ci);
	finish_why(o, why);
	return o;
}

static cJSON *cohen_json(const struct agree_level_summary *lv)
{
	const struct agree_cohen *c = &lv->cohen;
	cJSON *k = cJSON_CreateObject();
	const char *why = NULL;

	add_stat(k, "value", &lv->kappa, &why);
	if (!lv->kappa.defined) {
		struct agree_stat none = { 0, 0, lv->kappa.why };

		add_stat(k, "se", &none, NULL);
		add_stat(k, "se0", &none, NULL);
		add_stat(k, "z", &none, NULL);
		add_stat(k, "p", &none, NULL);
	} else {
		add_stat(k, "se", &c->se, &why);
		add_stat(k, "se0", &c->se0, &why);
		add_stat(k, "z", &c->z, &why);
		add_stat(k, "p", &c->p_two, &why);
	}
	ci_json(k, &lv->ci);
	finish_why(k, why);
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
			      value_ci_json(&lv->kappa_linear, &lv->ci_linear));
	cJSON_AddItemToObject(o, "quadratic_kappa",
			      value_ci_json(&lv->kappa_quadratic,
					    &lv->ci_quadratic));
	a = cJSON_CreateObject();
	cJSON_AddStringToObject(a, "metric", dim_scale_name(dim->scale));
	add_stat(a, "value", &lv->alpha_scale, &why);
	finish_why(a, why);
	cJSON_AddItemToObject(o, "krippendorff_alpha", a);
	a = cJSON_CreateObject();
	why = NULL;
	add_stat(a, "linear", &lv->ac2_linear, &why);
	add_stat(a, "quadratic", &lv->ac2_quadratic, &why);
	finish_why(a, why);
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
		add_stat(c, "kappa", &lv->code_kappa[i], &cwhy);
		if (na == 2 && !lv->group && ad->per_code)
			add_stat(c, "positive_agreement", &ad->per_code[i].pos,
				 &cwhy);
		if (lv->code_prevalence) {
			add_stat(c, "prevalence_index",
				 &lv->code_prevalence[i], NULL);
			add_stat(c, "bias_index", &lv->code_bias[i], NULL);
		}
		finish_why(c, cwhy);
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
		add_stat(pr, "observed_agreement", &ps->po, &why);
		k = value_ci_json(&ps->kappa, &ps->ci);
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

/* The fields of one level (codes or groups) into `o`. */
static void level_json(cJSON *o, const struct agreement *ag,
		       const struct agree_dim_summary *ds,
		       const struct agree_level_summary *lv)
{
	const struct agreement_dim *ad = ds->ad;
	const struct dimension *dim = ad->dim;
	int two = ag->nr_annotators == 2 && !dim->select_many;
	int many = ag->nr_annotators > 2 && !dim->select_many;
	const char *why = NULL;
	struct buf b = BUF_INIT;

	cJSON_AddNumberToObject(o, "items", (double)lv->n_items);
	cJSON_AddNumberToObject(o, "items_dropped", (double)lv->n_dropped);
	cJSON_AddNumberToObject(o, "categories", lv->k);
	cJSON_AddStringToObject(o, "coefficient", lv->coef);
	cJSON_AddItemToObject(o, "kappa", value_ci_json(&lv->kappa, &lv->ci));
	agree_sentence_build(ag, ds, lv, &b);
	cJSON_AddStringToObject(o, "sentence", b.ptr);
	buf_release(&b);
	if (two) {
		add_stat(o, "observed_agreement", &lv->cohen.po, &why);
		add_stat(o, "expected_agreement", &lv->cohen.pe, &why);
		cJSON_AddItemToObject(o, "cohen_kappa", cohen_json(lv));
		add_stat(o, "scott_pi", &lv->cohen.scott_pi, &why);
		add_stat(o, "krippendorff_alpha", &lv->cohen.alpha.alpha,
			 &why);
		add_stat(o, "gwet_ac1", &lv->cohen.ac1, &why);
		add_stat(o, "pabak", &lv->cohen.pabak, &why);
	} else {
		add_stat(o, "observed_agreement", &lv->po, &why);
		cJSON_AddNullToObject(o, "expected_agreement");
		cJSON_AddNullToObject(o, "cohen_kappa");
		cJSON_AddNullToObject(o, "scott_pi");
		if (many)
			add_stat(o, "krippendorff_alpha", &lv->alpha, NULL);
		else
			cJSON_AddNullToObject(o, "krippendorff_alpha");
		if (many)
			add_stat(o, "gwet_ac1", &lv->fleiss.ac1, NULL);
		else
			cJSON_AddNullToObject(o, "gwet_ac1");
		cJSON_AddNullToObject(o, "pabak");
		why = ag->nr_annotators < 2 ? "fewer than two annotators" :
		      many ? "more than two annotators: see fleiss_kappa, "
		      "conger_kappa and pairs" :
		      "select-many dimension: see per_code and mean_kappa";
	}
	if (lv->band != AGREE_BAND_NONE)
		cJSON_AddStringToObject(o, "band", agree_band_name(lv->band));
	else
		cJSON_AddNullToObject(o, "band");
	cJSON_AddItemToObject(o, "band_range", band_range_json(lv));
	cJSON_AddStringToObject(o, "band_source", BAND_SOURCE);
	add_stat(o, "kappa_max", &lv->kappa_max, NULL);
	add_stat(o, "prevalence_index", &lv->prevalence, NULL);
	add_stat(o, "bias_index", &lv->bias, NULL);
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
		add_stat(o, "exact_agreement", &lv->po, NULL);
		add_stat(o, "mean_kappa", &lv->kappa, NULL);
		cJSON_AddNumberToObject(o, "codes_in_mean", lv->codes_defined);
		cJSON_AddNumberToObject(o, "codes_left_out",
					lv->codes_left_out);
	}
	if (many) {
		cJSON *f = cJSON_CreateObject(), *cg;
		const char *fwhy = NULL, *cwhy = NULL;

		add_stat(f, "value", &lv->fleiss.kappa, &fwhy);
		add_stat(f, "se", &lv->fleiss.se, &fwhy);
		add_stat(f, "se0", &lv->fleiss.se0, &fwhy);
		add_stat(f, "z", &lv->fleiss.z, &fwhy);
		add_stat(f, "p", &lv->fleiss.p_two, &fwhy);
		ci_json(f, &lv->ci);
		finish_why(f, fwhy);
		cJSON_AddItemToObject(o, "fleiss_kappa", f);
		cg = cJSON_CreateObject();
		add_stat(cg, "value", &lv->conger, &cwhy);
		ci_json(cg, &lv->conger_ci);
		finish_why(cg, cwhy);
		cJSON_AddItemToObject(o, "conger_kappa", cg);
		cJSON_AddItemToObject(o, "pairs", pairs_json(ag, lv));
	}
	cJSON_AddItemToObject(o, "per_code", per_code_json(ag, lv, ad));
	if (two && lv->table.n)
		cJSON_AddItemToObject(o, "confusion", confusion_json(lv));
	else
		cJSON_AddNullToObject(o, "confusion");
	finish_why(o, why);
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

static cJSON *opts_json(const struct agree_opts *o)
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

static void render_json(const struct agreement *ag,
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
	cJSON_AddItemToObject(root, "interval", opts_json(&sum->opts));
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

/* ---- text ---------------------------------------------------------- */

static void num(struct buf *out, const struct agree_stat *s, int decimals)
{
	if (s->defined)
		agree_fmt(out, s->value, decimals);
	else
		buf_addstr(out, "undefined");
}

/* "undefined (why)" or the number. */
static void num_why(struct buf *out, const struct agree_stat *s,
		    int decimals)
{
	if (s->defined)
		agree_fmt(out, s->value, decimals);
	else
		buf_addf(out, "undefined (%s)", s->why);
}

/* The interval with how it was made: "95% CI 0.612-0.905 (bootstrap
 * percentile, 2000 resamples (0 degenerate, drawn again), seed 7)". */
static void ci_text(struct buf *out, const struct agree_ci *ci)
{
	if (ci->low.defined && ci->method == AGREE_CI_EXACT) {
		buf_addstr(out, "one-sided 95% lower bound ");
		agree_fmt(out, ci->low.value, 3);
	} else {
		buf_addstr(out, "95% CI ");
		agree_fmt_ci(out, ci, 3);
	}
	if (!ci->low.defined)
		return;
	buf_addstr(out, " (");
	agree_ci_describe(out, ci);
	if (ci->method == AGREE_CI_WALD && ci->clipped) {
		buf_addstr(out, "; raw ");
		agree_fmt(out, ci->wald_low.value, 3);
		buf_addstr(out, " to ");
		agree_fmt(out, ci->wald_high.value, 3);
	}
	buf_addch(out, ')');
}

static void kappa_line(struct buf *out, const char *label,
		       const struct agree_stat *k, const struct agree_ci *ci,
		       enum agree_band band)
{
	buf_addf(out, "  %-20s ", label);
	if (!k->defined) {
		buf_addf(out, "undefined (%s)\n", k->why);
		return;
	}
	agree_fmt(out, k->value, 3);
	if (band != AGREE_BAND_NONE)
		buf_addf(out, " (%s)", agree_band_name(band));
	buf_addstr(out, "  ");
	ci_text(out, ci);
	buf_addch(out, '\n');
}

static void test_line(struct buf *out, const struct agree_stat *se,
		      const struct agree_stat *se0, const struct agree_stat *z,
		      const struct agree_stat *p)
{
	buf_addstr(out, "  ");
	if (se) {
		buf_addstr(out, "SE ");
		num(out, se, 3);
		buf_addstr(out, "  ");
	}
	buf_addstr(out, "SE0 ");
	num(out, se0, 3);
	buf_addstr(out, "  z ");
	if (z->defined) {
		agree_fmt(out, z->value, 2);
		buf_addstr(out, "  ");
		agree_fmt_p(out, p);
	} else {
		buf_addf(out, "undefined (%s)", z->why);
	}
	buf_addch(out, '\n');
}

/* Counts per annotator and the code's kappa, codes someone chose. */
static void code_table(const struct agreement *ag,
		       const struct agree_level_summary *lv, struct buf *out)
{
	size_t na = ag->nr_annotators, r;
	int i;

	buf_addf(out, "\n  %-30s", lv->group ? "group" : "code");
	for (r = 0; r < na; r++)
		buf_addf(out, " %8.8s", ag->annotators[r]);
	buf_addf(out, " %8s", na > 2 ? "Fleiss" : "kappa");
	if (lv->code_prevalence)
		buf_addf(out, " %7s %7s", "PI", "BI");
	buf_addch(out, '\n');
	for (i = 0; i < lv->k; i++) {
		long total = 0;

		for (r = 0; r < na; r++)
			total += lv->count[(size_t)i * na + r];
		if (!total)
			continue;
		buf_addf(out, "  %-30.30s", lv->names[i]);
		for (r = 0; r < na; r++)
			buf_addf(out, " %8ld", lv->count[(size_t)i * na + r]);
		if (lv->code_kappa[i].defined) {
			struct buf t = BUF_INIT;

			agree_fmt(&t, lv->code_kappa[i].value, 3);
			buf_addf(out, " %8s", t.ptr);
			buf_release(&t);
		} else {
			buf_addf(out, " %8s", "undef");
		}
		if (lv->code_prevalence) {
			struct buf t = BUF_INIT, u = BUF_INIT;

			agree_fmt(&t, lv->code_prevalence[i].value, 3);
			agree_fmt(&u, lv->code_bias[i].value, 3);
			buf_addf(out, " %7s %7s", t.ptr, u.ptr);
			buf_release(&t);
			buf_release(&u);
		}
		buf_addch(out, '\n');
	}
}

static void confusion_text(const struct agreement *ag,
			   const struct agree_level_summary *lv,
			   struct buf *out)
{
	int i, j, k = lv->k, used = 0;

	for (i = 0; i < k; i++)
		used += lv->count[(size_t)i * 2] ||
			lv->count[(size_t)i * 2 + 1];
	if (!used)
		return;
	buf_addf(out, "\n  confusion (rows %s, columns %s; numbered as "
		 "above)\n  %14s", ag->annotators[0], ag->annotators[1], "");
	for (j = 0; j < k; j++)
		if (lv->count[(size_t)j * 2] || lv->count[(size_t)j * 2 + 1])
			buf_addf(out, " %4d", j + 1);
	buf_addch(out, '\n');
	for (i = 0; i < k; i++) {
		if (!lv->count[(size_t)i * 2] && !lv->count[(size_t)i * 2 + 1])
			continue;
		buf_addf(out, "  %2d %-11.11s", i + 1, lv->names[i]);
		for (j = 0; j < k; j++)
			if (lv->count[(size_t)j * 2] ||
			    lv->count[(size_t)j * 2 + 1])
				buf_addf(out, " %4ld", lv->table.n[i * k + j]);
		buf_addch(out, '\n');
	}
}

static void weighted_text(const struct dimension *dim,
			  const struct agree_level_summary *lv,
			  struct buf *out)
{
	buf_addf(out, "  %s scale%s:\n", dim_scale_name(dim->scale),
		 lv->n_annotators > 2 ? " (kappas and AC2: means over the "
		 "pairs)" : "");
	kappa_line(out, "linear weighted kappa", &lv->kappa_linear,
		   &lv->ci_linear, agree_band(&lv->kappa_linear));
	kappa_line(out, "quadratic weighted", &lv->kappa_quadratic,
		   &lv->ci_quadratic, agree_band(&lv->kappa_quadratic));
	buf_addf(out, "  %-20s ", "Krippendorff's alpha");
	num_why(out, &lv->alpha_scale, 3);
	buf_addf(out, " (%s metric)\n", dim_scale_name(dim->scale));
	buf_addf(out, "  %-20s linear ", "Gwet's AC2");
	num_why(out, &lv->ac2_linear, 3);
	buf_addstr(out, ", quadratic ");
	num_why(out, &lv->ac2_quadratic, 3);
	buf_addch(out, '\n');
}

static void text_level(const struct agreement *ag,
		       const struct agree_dim_summary *ds,
		       const struct agree_level_summary *lv, struct buf *out)
{
	const struct agreement_dim *ad = ds->ad;
	const struct dimension *dim = ad->dim;
	size_t na = ag->nr_annotators, p;

	if (dim->select_many) {
		buf_addf(out, "  select many: each %s judged present or "
			 "absent\n  identical sets      ", lv->group ? "group" :
			 "code");
		num_why(out, &lv->po, 3);
		buf_addch(out, '\n');
		kappa_line(out, lv->group ? "mean kappa per group" :
			   "mean kappa per code", &lv->kappa, &lv->ci,
			   lv->band);
		buf_addf(out, "  (the mean of %d of %d %s%s; %d left out: "
			 "their kappa is undefined)\n", lv->codes_defined,
			 lv->k, lv->group ? "group" : "code",
			 lv->k == 1 ? "" : "s", lv->codes_left_out);
		code_table(ag, lv, out);
	} else if (na == 2) {
		const struct agree_cohen *c = &lv->cohen;

		buf_addstr(out, "  observed agreement  ");
		num(out, &c->po, 3);
		buf_addstr(out, "    expected  ");
		num(out, &c->pe, 3);
		buf_addch(out, '\n');
		kappa_line(out, "Cohen's kappa", &lv->kappa, &lv->ci,
			   lv->band);
		if (lv->kappa.defined)
			test_line(out, &c->se, &c->se0, &c->z, &c->p_two);
		buf_addstr(out, "  kappa max ");
		num(out, &lv->kappa_max, 3);
		buf_addstr(out, "   prevalence index ");
		num(out, &lv->prevalence, 3);
		buf_addstr(out, lv->k > 2 ? "   bias index (generalised: "
			   AGREE_BIAS_FORMULA ") " : "   bias index ");
		num(out, &lv->bias, 3);
		buf_addstr(out, "\n  Scott's pi ");
		num(out, &c->scott_pi, 3);
		buf_addstr(out, "   Krippendorff's alpha ");
		num(out, &c->alpha.alpha, 3);
		buf_addstr(out, "   Gwet's AC1 ");
		num(out, &c->ac1, 3);
		buf_addstr(out, "   PABAK ");
		num(out, &c->pabak, 3);
		buf_addch(out, '\n');
		if (lv->weighted)
			weighted_text(dim, lv, out);
		if (ad->n_dropped && !lv->group)
			buf_addf(out, "  (%zu submitted item%s left out: a "
				 "coder left this dimension empty)\n",
				 ad->n_dropped, ad->n_dropped == 1 ? "" : "s");
		code_table(ag, lv, out);
		confusion_text(ag, lv, out);
	} else {
		const struct agree_fleiss *f = &lv->fleiss;

		buf_addstr(out, "  observed agreement  ");
		num(out, &f->po, 3);
		buf_addch(out, '\n');
		kappa_line(out, "Fleiss' kappa", &lv->kappa, &lv->ci,
			   lv->band);
		if (lv->kappa.defined)
			test_line(out, &f->se, &f->se0, &f->z, &f->p_two);
		kappa_line(out, "Conger's kappa", &lv->conger, &lv->conger_ci,
			   agree_band(&lv->conger));
		buf_addstr(out, "  Krippendorff's alpha ");
		num_why(out, &lv->alpha, 3);
		buf_addstr(out, "   Gwet's AC1 ");
		num(out, &f->ac1, 3);
		buf_addch(out, '\n');
		if (lv->weighted)
			weighted_text(dim, lv, out);
		if (lv->n_dropped && !lv->group)
			buf_addf(out, "  (%zu item%s left out: fewer than two "
				 "coders coded this dimension)\n",
				 lv->n_dropped, lv->n_dropped == 1 ? "" : "s");
		buf_addstr(out, "  Cohen's kappa per pair:\n");
		for (p = 0; p < lv->nr_pairs; p++) {
			const struct agree_pair_summary *ps = &lv->pairs[p];

			buf_addf(out, "    %s / %s: ", ag->annotators[ps->a],
				 ag->annotators[ps->b]);
			num_why(out, &ps->kappa, 3);
			if (ps->kappa.defined) {
				buf_addstr(out, "  ");
				ci_text(out, &ps->ci);
			}
			buf_addstr(out, "  observed ");
			num(out, &ps->po, 3);
			buf_addf(out, "  (n = %ld)\n", ps->n);
		}
		code_table(ag, lv, out);
	}
	buf_addstr(out, "\n  ");
	agree_sentence_build(ag, ds, lv, out);
	buf_addch(out, '\n');
}

static void render_text(const struct agreement *ag,
			const struct headline *sum, struct buf *out)
{
	size_t i;

	buf_addf(out, "Agreement, %s%s; annotators: ", ag->round ? "round " :
		 "whole study", ag->round ? ag->round : "");
	for (i = 0; i < ag->nr_annotators; i++)
		buf_addf(out, "%s%s", i ? ", " : "", ag->annotators[i]);
	if (!ag->nr_annotators)
		buf_addstr(out, "none yet");
	buf_addch(out, '\n');
	if (sum->scope)
		buf_addstr(out, sum->scope);
	if (ag->nr_annotators < 2) {
		buf_addstr(out, "Agreement needs two annotators' submitted "
			   "labels on the same items.\n");
		return;
	}
	if (sum->opts.ci != AGREE_CI_WALD)
		buf_addf(out, "Intervals: 95%%, %s bootstrap over items, %d "
			 "resamples, seed %llu; degenerate resamples (the "
			 "kappa undefined) drawn again and counted\n",
			 sum->opts.ci == AGREE_CI_BCA ? "BCa" : "percentile",
			 sum->opts.boot, (unsigned long long)sum->opts.seed);
	else
		buf_addstr(out, "Intervals: 95%, Wald (kappa +- 1.96 SE), "
			   "clipped to [-1, 1] where marked\n");
	buf_addstr(out, "A kappa of 1: the exact one-sided 95% lower bound "
		   "from the observed agreement; under 10 items an interval "
		   "is marked\n");
	buf_addstr(out, "Bands: Landis & Koch (1977)\n");
	if (sum->later) {
		const char *p = sum->later, *nl;

		buf_addstr(out, "Changed since the round closed (the figures "
			   "use the labels as they are now):\n");
		for (; (nl = strchr(p, '\n')); p = nl + 1)
			buf_addf(out, "  %.*s\n", (int)(nl - p), p);
	}
	for (i = 0; i < sum->nr_dims; i++) {
		const struct agree_dim_summary *ds = &sum->dims[i];
		const struct agreement_dim *d = ds->ad;

		buf_addf(out, "\n%s (%s): n = %zu bugs, %d code%s", d->dim->key,
			 d->dim->name, ds->code.n_items, d->k,
			 d->k == 1 ? "" : "s");
		if (d->dim->scale != SCALE_NOMINAL)
			buf_addf(out, ", %s scale", dim_scale_name(
				d->dim->scale));
		buf_addch(out, '\n');
		if (ds->show_code)
			text_level(ag, ds, &ds->code, out);
		if (ds->show_group) {
			buf_addf(out, "\n %s by code group: %d group%s\n",
				 d->dim->key, ds->grp.k,
				 ds->grp.k == 1 ? "" : "s");
			text_level(ag, ds, &ds->grp, out);
		}
	}
}

/* ---- CSV ----------------------------------------------------------- */

static void cell(struct buf *out, const struct agree_stat *s)
{
	buf_addch(out, ',');
	if (s->defined)
		buf_addf(out, "%.6g", fabs(s->value) < 5e-13 ? 0.0 : s->value);
}

static void cell_str(struct buf *out, const char *s)
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
static void csv_boot(struct buf *out, const struct agree_ci *ci)
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
static void csv_tail(struct buf *out, const struct agree_ci *ci,
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
	cell_str(out, note.len ? note.ptr : NULL);
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
	cell(out, many ? &lv->conger_ci.low : &none);
	cell(out, many ? &lv->conger_ci.high : &none);
	cell(out, lv->weighted ? &lv->ac2_linear : &none);
	cell(out, lv->weighted ? &lv->ac2_quadratic : &none);
	cell_str(out, !lv->bias.defined ? NULL : lv->k > 2 ?
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
	cell_str(out, lv->coef);
	cell(out, &lv->kappa);
	cell(out, &lv->ci.low);
	cell(out, &lv->ci.high);
	cell_str(out, agree_ci_method_name(lv->ci.method));
	cell_str(out, lv->ci.method == AGREE_CI_WALD ?
		 (lv->ci.clipped ? "yes" : "no") : "");
	cell(out, &lv->ci.wald_low);
	cell(out, &lv->ci.wald_high);
	csv_boot(out, &lv->ci);
	cell_str(out, why);
	cell(out, two ? &c->po : &lv->po);
	cell(out, two ? &c->pe : &none);
	cell(out, two ? &lv->kappa : &none);
	cell(out, two && lv->kappa.defined ? &c->se :
	     many && lv->kappa.defined ? &lv->fleiss.se : &none);
	cell(out, two && lv->kappa.defined ? &c->se0 :
	     many && lv->kappa.defined ? &lv->fleiss.se0 : &none);
	cell(out, two && lv->kappa.defined ? &c->z :
	     many && lv->kappa.defined ? &lv->fleiss.z : &none);
	cell(out, two && lv->kappa.defined ? &c->p_two :
	     many && lv->kappa.defined ? &lv->fleiss.p_two : &none);
	cell(out, two ? &c->scott_pi : &none);
	cell(out, two ? &c->alpha.alpha : many ? &lv->alpha : &none);
	cell(out, two ? &c->ac1 : many ? &lv->fleiss.ac1 : &none);
	cell(out, two ? &c->pabak : &none);
	cell_str(out, lv->band != AGREE_BAND_NONE ?
		 agree_band_name(lv->band) : NULL);
	cell_str(out, lv->band != AGREE_BAND_NONE ?
		 agree_band_name(lv->band_low) : NULL);
	cell_str(out, lv->band != AGREE_BAND_NONE ?
		 agree_band_name(lv->band_high) : NULL);
	cell(out, &lv->kappa_max);
	cell(out, &lv->prevalence);
	cell(out, &lv->bias);
	cell(out, many ? &lv->fleiss.kappa : &none);
	cell(out, many ? &lv->conger : &none);
	cell(out, dim->select_many ? &lv->po : &none);
	cell(out, dim->select_many ? &lv->kappa : &none);
	cell(out, lv->weighted ? &lv->kappa_linear : &none);
	cell(out, lv->weighted ? &lv->ci_linear.low : &none);
	cell(out, lv->weighted ? &lv->ci_linear.high : &none);
	cell(out, lv->weighted ? &lv->kappa_quadratic : &none);
	cell(out, lv->weighted ? &lv->ci_quadratic.low : &none);
	cell(out, lv->weighted ? &lv->ci_quadratic.high : &none);
	cell(out, lv->weighted ? &lv->alpha_scale : &none);
	buf_addstr(out, ",,");
	csv_tail(out, &lv->ci, lv, many);
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
		cell(out, &ps->kappa);
		cell(out, &ps->ci.low);
		cell(out, &ps->ci.high);
		cell_str(out, agree_ci_method_name(ps->ci.method));
		cell_str(out, ps->ci.method == AGREE_CI_WALD ?
			 (ps->ci.clipped ? "yes" : "no") : "");
		cell(out, &ps->ci.wald_low);
		cell(out, &ps->ci.wald_high);
		csv_boot(out, &ps->ci);
		cell_str(out, !ps->kappa.defined ? ps->kappa.why :
			 !ps->ci.low.defined ? ps->ci.low.why : NULL);
		cell(out, &ps->po);
		buf_addch(out, ',');
		cell(out, &ps->kappa);
		/* se .. scale_alpha (columns 22-46): empty */
		for (i = 0; i < 25; i++)
			buf_addch(out, ',');
		cell_str(out, ag->annotators[ps->a]);
		cell_str(out, ag->annotators[ps->b]);
		csv_tail(out, &ps->ci, NULL, 0);
	}
}

static void render_csv(const struct agreement *ag,
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

void agree_render(const struct agreement *ag, const struct headline *sum,
		  enum report_format fmt, struct buf *out)
{
	switch (fmt) {
	case REPORT_JSON:
		render_json(ag, sum, out);
		break;
	case REPORT_CSV:
		render_csv(ag, sum, out);
		break;
	default:
		render_text(ag, sum, out);
		break;
	}
}

/* ---- machine coders ------------------------------------------------ */

static const char *pair_other(const struct machine_pair *p)
{
	return p->other ? p->other : "agreed labels";
}

static void machines_text(const struct machine_agreement *ma,
			  struct buf *out)
{
	const struct dimension *last = NULL;
	size_t i;

	buf_addstr(out, "\nMachine coders (beside the annotators; in the "
		   "agreement above only when the round declared them):\n");
	for (i = 0; i < ma->nr_machines; i++) {
		const struct machine_info *m = &ma->machines[i];

		buf_addf(out, "  %s: %ld answers, %.1f s in all%s\n", m->name,
			 m->answers, m->ms / 1000.0, m->declared ?
			 ", declared an annotator of the round" : "");
		buf_addf(out, "    model: %s\n", m->models ? m->models :
			 "(not given)");
		if (m->notes)
			buf_addf(out, "    note: %s\n", m->notes);
		if (m->commands)
			buf_addf(out, "    command: %s\n", m->commands);
	}
	for (i = 0; i < ma->nr_pairs; i++) {
		const struct machine_pair *p = &ma->pairs[i];

		if (p->dim != last) {
			buf_addf(out, "%s (Cohen's kappa with its 95%% "
				 "interval, as for the annotators):\n",
				 p->dim->key);
			last = p->dim;
		}
		buf_addf(out, "  %-12s vs %-14s n %-4ld kappa ",
			 ma->machines[p->machine].name, pair_other(p), p->n);
		if (p->kappa.defined) {
			agree_fmt(out, p->kappa.value, 3);
			buf_addstr(out, "  ");
			ci_text(out, &p->ci);
		} else {
			buf_addf(out, "undefined (%s)", p->kappa.why);
		}
		if (p->n)
			buf_addf(out, "  %s %.1f%%", p->other ? "agreement" :
				 "accuracy", 100.0 * p->matches / p->n);
		buf_addch(out, '\n');
	}
}

static cJSON *stat_json(const struct agree_stat *s)
{
	return s->defined ? cJSON_CreateNumber(s->value) : cJSON_CreateNull();
}

static cJSON *machines_json(const struct machine_agreement *ma)
{
	cJSON *o = cJSON_CreateObject(), *arr;
	size_t i;

	arr = cJSON_AddArrayToObject(o, "coders");
	for (i = 0; i < ma->nr_machines; i++) {
		const struct machine_info *m = &ma->machines[i];
		cJSON *mo = cJSON_CreateObject();

		cJSON_AddStringToObject(mo, "name", m->name);
		cJSON_AddNumberToObject(mo, "answers", (double)m->answers);
		cJSON_AddNumberToObject(mo, "duration_ms", (double)m->ms);
		cJSON_AddItemToObject(mo, "models", m->models ?
				      cJSON_CreateString(m->models) :
				      cJSON_CreateNull());
		cJSON_AddItemToObject(mo, "notes", m->notes ?
				      cJSON_CreateString(m->notes) :
				      cJSON_CreateNull());
		cJSON_AddItemToObject(mo, "commands", m->commands ?
				      cJSON_CreateString(m->commands) :
				      cJSON_CreateNull());
		cJSON_AddBoolToObject(mo, "declared", m->declared);
		cJSON_AddItemToArray(arr, mo);
	}
	arr = cJSON_AddArrayToObject(o, "pairs");
	for (i = 0; i < ma->nr_pairs; i++) {
		const struct machine_pair *p = &ma->pairs[i];
		cJSON *po = cJSON_CreateObject();

		cJSON_AddStringToObject(po, "dimension", p->dim->key);
		cJSON_AddStringToObject(po, "machine",
					ma->machines[p->machine].name);
		cJSON_AddStringToObject(po, "against", p->other ? "coder" :
					"agreed");
		cJSON_AddItemToObject(po, "other", p->other ?
				      cJSON_CreateString(p->other) :
				      cJSON_CreateNull());
		cJSON_AddNumberToObject(po, "items", (double)p->n);
		cJSON_AddNumberToObject(po, "matches", (double)p->matches);
		cJSON_AddItemToObject(po, "cohen_kappa", stat_json(&p->kappa));
		if (!p->kappa.defined)
			cJSON_AddStringToObject(po, "undefined_reason",
						p->kappa.why);
		ci_json(po, &p->ci);
		cJSON_AddItemToObject(po, p->other ? "observed_agreement" :
				      "accuracy", p->n ? cJSON_CreateNumber(
				      (double)p->matches / p->n) :
				      cJSON_CreateNull());
		cJSON_AddItemToArray(arr, po);
	}
	return o;
}

/* One row per comparison in the agreement table: coefficient "Cohen's
 * kappa (machine)", observed_agreement the share of matching codes (the
 * accuracy, against the agreed labels), annotator_a "NAME (MODELS)" and
 * annotator_b the other coder, or "agreed". */
static void machines_csv(const struct machine_agreement *ma,
			 const char *round, struct buf *out)
{
	size_t i;
	int k;

	for (i = 0; i < ma->nr_pairs; i++) {
		const struct machine_pair *p = &ma->pairs[i];
		const struct machine_info *m = &ma->machines[p->machine];
		const struct agree_cohen *c = &p->cohen;
		struct agree_stat acc;
		struct buf who = BUF_INIT;

		acc.defined = p->n > 0;
		acc.value = p->n ? (double)p->matches / p->n : 0;
		acc.why = NULL;
		buf_addf(out, "%s,%s,code,%s,%ld,%d,2,Cohen's kappa (machine)",
			 round ? round : "", p->dim->key,
			 dim_scale_name(p->dim->scale), p->n, c->k);
		cell(out, &p->kappa);
		cell(out, &p->ci.low);
		cell(out, &p->ci.high);
		cell_str(out, agree_ci_method_name(p->ci.method));
		cell_str(out, p->ci.method == AGREE_CI_WALD ?
			 (p->ci.clipped ? "yes" : "no") : "");
		cell(out, &p->ci.wald_low);
		cell(out, &p->ci.wald_high);
		csv_boot(out, &p->ci);
		cell_str(out, !p->kappa.defined ? p->kappa.why :
			 !p->ci.low.defined ? p->ci.low.why : NULL);
		cell(out, &acc);
		cell(out, &c->pe);
		cell(out, &p->kappa);
		/* se .. scale_alpha: empty */
		for (k = 0; k < 25; k++)
			buf_addch(out, ',');
		buf_addf(&who, "%s (%s)", m->name, m->models ? m->models :
			 "model not given");
		cell_str(out, who.ptr);
		cell_str(out, p->other ? p->other : "agreed");
		csv_tail(out, &p->ci, NULL, 0);
		buf_release(&who);
	}
}

static void render_machines(const struct machine_agreement *ma,
			    const char *round, int format, struct buf *out)
{
	if (format == REPORT_TEXT) {
		machines_text(ma, out);
	} else if (format == REPORT_CSV) {
		machines_csv(ma, round, out);
	} else {
		cJSON *o = machines_json(ma);
		char *s = cJSON_PrintUnformatted(o);
		size_t end = out->len;

		/* into the report's object: `"machines": {...}` before its
		 * closing brace */
		while (end && (out->ptr[end - 1] == '\n' ||
			       out->ptr[end - 1] == ' '))
			end--;
		if (s && end && out->ptr[end - 1] == '}') {
			buf_setlen(out, end - 1);
			buf_addstr(out, ",\"machines\":");
			buf_addstr(out, s);
			buf_addstr(out, "}\n");
		}
		cJSON_free(s);
		cJSON_Delete(o);
	}
}

int report_agreement(struct store *st, const struct actor *a,
		     const struct codebook *cb, const char *round,
		     const char *dim, int format, const struct agree_opts *opts,
		     struct buf *out, struct err *e)
{
	struct machine_agreement ma = MACHINE_AGREEMENT_INIT;
	struct agreement ag = AGREEMENT_INIT;
	struct headline sum = AGREE_SUMMARY_INIT;
	int ret = -1;

	if (agreement_compute(st, a, cb, round, dim, &ag, e) < 0)
		return -1;
	if (headline_compute(&ag, opts, &sum, e) < 0)
		goto out;
	{
		struct buf scope = BUF_INIT;

		/* which items count: names items awaiting recoding, so
		 * only for readers who may see everyone's work */
		if (access_sees_all(a) || round) {
			if (design_scope(st, round, &scope, e) < 0) {
				buf_release(&scope);
				goto out;
			}
		}
		if (scope.len)
			sum.scope = buf_detach(&scope, NULL);
		buf_release(&scope);
	}
	if (round) {
		struct round_info r;
		struct buf later = BUF_INIT;

		memset(&r, 0, sizeof(r));
		if (round_get(st, round, &r, e) < 0)
			goto out;
		ret = round_later_changes(st, &r, &later, e);
		round_info_release(&r);
		if (ret < 0) {
			buf_release(&later);
			goto out;
		}
		ret = -1;
		if (later.len)
			sum.later = buf_detach(&later, NULL);
		buf_release(&later);
	}
	if (!ag.screen &&
	    machine_agreement(st, a, cb, round, dim, opts, &ma, e) < 0)
		goto out;
	agree_render(&ag, &sum, (enum report_format)format, out);
	if (ma.nr_machines)
		render_machines(&ma, round, format, out);
	ret = 0;
out:
	machine_agreement_release(&ma);
	headline_release(&sum);
	agreement_release(&ag);
	return ret;
}

/* ---- by round ------------------------------------------------------ */

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
		struct agree_stat slope, se;
		const char *coef = NULL;

		if (only && strcmp(only, dim->key))
			continue;
		for (i = 0; i < nr && !coef; i++)
			if (row_level(&rows[i], di))
				coef = row_level(&rows[i], di)->coef;
		buf_addf(out, "\n%s (%s)\n  %-16s %-6s %5s  %-7s %-15s %6s %-16s "
			 "%s\n", dim->key, dim->name, "round", "state", "n",
			 "kappa", "95% CI", "degen", "band", "codebook");
		for (i = 0; i <= nr; i++) {
			const struct round_row *r = &rows[i];
			const struct agree_level_summary *lv = row_level(r, di);
			struct buf t = BUF_INIT;

			buf_addf(out, "  %-16.16s %-6s ", row_name(r),
				 row_state(r));
			if (!lv) {
				buf_addf(out, "%5s  not shown: %s\n", "",
					 r->why ? r->why : "not computed");
				continue;
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
		/* the trend over the rounds whose kappa is defined */
		row_trend(rows, nr, di++, &slope, &se);
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
	cJSON_AddItemToObject(rj, "kappa", value_ci_json(&lv->kappa,
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

	cJSON_AddItemToObject(root, "interval", opts_json(o));
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
		add_stat(tr, "slope_per_round", &slope, &why);
		add_stat(tr, "se", &se, slope.defined ? &why : NULL);
		if (slope.defined && !se.defined)
			cJSON_AddStringToObject(tr, "se_undefined_reason",
						se.why);
		finish_why(tr, why);
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
			cell_str(out, row_name(r));
			cell_str(out, r->whole ? "" : r->info.closed_at ?
				 "yes" : "no");
			cell_str(out, r->versions.ptr);
			if (!lv) {
				buf_addstr(out, ",,,,,,,");
				cell_str(out, r->why ? r->why :
					 "not computed");
				cell(out, &slope);
				cell(out, &se);
				buf_addstr(out, ",,,,,,\n");
				continue;
			}
			buf_addf(out, ",%zu", lv->n_items);
			cell_str(out, lv->coef);
			cell(out, &lv->kappa);
			cell(out, &lv->ci.low);
			cell(out, &lv->ci.high);
			cell_str(out, agree_ci_method_name(lv->ci.method));
			cell_str(out, lv->band != AGREE_BAND_NONE ?
				 agree_band_name(lv->band) : NULL);
			cell_str(out, !lv->kappa.defined ? lv->kappa.why :
				 !lv->ci.low.defined ? lv->ci.low.why : NULL);
			cell(out, &slope);
			cell(out, &se);
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
				cell_str(out, note.len ? note.ptr : NULL);
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
