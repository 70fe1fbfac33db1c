/*
 * agree_report: see agree_report.h.
 */
#include "exports/agree_report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

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

static cJSON *kappa_json(const struct agree_cohen *c)
{
	cJSON *k = cJSON_CreateObject(), *ci;
	const char *why = NULL;

	add_stat(k, "value", &c->kappa, &why);
	add_stat(k, "se", &c->se, &why);
	add_stat(k, "se0", &c->se0, &why);
	add_stat(k, "z", &c->z, &why);
	add_stat(k, "p", &c->p_two, &why);
	if (c->ci_low.defined && c->ci_high.defined) {
		ci = cJSON_CreateArray();
		cJSON_AddItemToArray(ci, cJSON_CreateNumber(c->ci_low.value));
		cJSON_AddItemToArray(ci, cJSON_CreateNumber(c->ci_high.value));
		cJSON_AddItemToObject(k, "ci95", ci);
	} else {
		cJSON_AddNullToObject(k, "ci95");
		if (!why)
			why = c->ci_low.why;
	}
	finish_why(k, why);
	return k;
}

static cJSON *dim_json(const struct agreement *ag,
		       const struct agreement_dim *d)
{
	cJSON *o = cJSON_CreateObject(), *arr, *conf, *codes, *counts;
	const struct dimension *dim = d->dim;
	const char *why = NULL;
	int two = ag->nr_annotators == 2, i, j;

	cJSON_AddStringToObject(o, "key", dim->key);
	cJSON_AddStringToObject(o, "select", dim->select_many ? "many" :
				"one");
	cJSON_AddNumberToObject(o, "items", (double)d->n_items);
	cJSON_AddNumberToObject(o, "categories", d->k);
	if (two && !dim->select_many) {
		add_stat(o, "observed_agreement", &d->cohen.po, &why);
		add_stat(o, "expected_agreement", &d->cohen.pe, &why);
		cJSON_AddItemToObject(o, "cohen_kappa", kappa_json(&d->cohen));
		add_stat(o, "scott_pi", &d->cohen.scott_pi, &why);
		add_stat(o, "krippendorff_alpha", &d->cohen.alpha.alpha, &why);
		add_stat(o, "gwet_ac1", &d->cohen.ac1, &why);
		add_stat(o, "pabak", &d->cohen.pabak, &why);
		cJSON_AddStringToObject(o, "band",
					agree_band_name(d->cohen.band));
	} else {
		const char *reason = !two ? (ag->nr_annotators < 2 ?
			"fewer than two annotators" :
			"more than two annotators: see fleiss_kappa and pairs") :
			"select-many dimension: see per_code and mean_kappa";

		cJSON_AddNullToObject(o, "observed_agreement");
		cJSON_AddNullToObject(o, "expected_agreement");
		cJSON_AddNullToObject(o, "cohen_kappa");
		cJSON_AddNullToObject(o, "scott_pi");
		if (ag->nr_annotators > 2 && !dim->select_many)
			add_stat(o, "krippendorff_alpha", &d->alpha.alpha,
				 NULL);
		else
			cJSON_AddNullToObject(o, "krippendorff_alpha");
		cJSON_AddNullToObject(o, "gwet_ac1");
		cJSON_AddNullToObject(o, "pabak");
		cJSON_AddNullToObject(o, "band");
		why = reason;
	}
	if (dim->select_many) {
		add_stat(o, "exact_agreement", &d->multi.exact, NULL);
		add_stat(o, "mean_kappa", &d->multi.mean_kappa, NULL);
	}
	if (ag->nr_annotators > 2 && !dim->select_many) {
		cJSON *f = cJSON_CreateObject(), *pairs = cJSON_CreateArray();
		const char *fwhy = NULL;
		size_t p;

		add_stat(f, "value", &d->fleiss.kappa, &fwhy);
		add_stat(f, "se0", &d->fleiss.se0, &fwhy);
		add_stat(f, "z", &d->fleiss.z, &fwhy);
		add_stat(f, "p", &d->fleiss.p_two, &fwhy);
		finish_why(f, fwhy);
		cJSON_AddItemToObject(o, "fleiss_kappa", f);
		for (p = 0; p < d->nr_pairs; p++) {
			cJSON *pr = cJSON_CreateObject(), *names;

			names = cJSON_CreateArray();
			cJSON_AddItemToArray(names, cJSON_CreateString(
				ag->annotators[d->pairs[p].a]));
			cJSON_AddItemToArray(names, cJSON_CreateString(
				ag->annotators[d->pairs[p].b]));
			cJSON_AddItemToObject(pr, "annotators", names);
			cJSON_AddNumberToObject(pr, "items",
						(double)d->pairs[p].cohen.n);
			cJSON_AddItemToObject(pr, "cohen_kappa",
					      kappa_json(&d->pairs[p].cohen));
			cJSON_AddItemToArray(pairs, pr);
		}
		cJSON_AddItemToObject(o, "pairs", pairs);
	}
	arr = cJSON_CreateArray();
	for (i = 0; i < d->k; i++) {
		cJSON *c = cJSON_CreateObject();
		const char *cwhy = NULL;

		cJSON_AddStringToObject(c, "code", dim->codes[i].key);
		if (ag->nr_annotators >= 1)
			cJSON_AddNumberToObject(c, "count_a", (double)
				d->count[(size_t)i * ag->nr_annotators]);
		if (ag->nr_annotators >= 2)
			cJSON_AddNumberToObject(c, "count_b", (double)
				d->count[(size_t)i * ag->nr_annotators + 1]);
		if (d->per_code) {
			add_stat(c, "kappa", &d->per_code[i].kappa, &cwhy);
			if (two)
				add_stat(c, "positive_agreement",
					 &d->per_code[i].pos, &cwhy);
		} else {
			cJSON_AddNullToObject(c, "kappa");
			cJSON_AddNullToObject(c, "positive_agreement");
			cwhy = "not computed for this set of annotators";
		}
		finish_why(c, cwhy);
		cJSON_AddItemToArray(arr, c);
	}
	cJSON_AddItemToObject(o, "per_code", arr);
	if (two && !dim->select_many && d->table.n) {
		conf = cJSON_CreateObject();
		codes = cJSON_CreateArray();
		counts = cJSON_CreateArray();
		for (i = 0; i < d->k; i++) {
			cJSON *row = cJSON_CreateArray();

			cJSON_AddItemToArray(codes, cJSON_CreateString(
				dim->codes[i].key));
			for (j = 0; j < d->k; j++)
				cJSON_AddItemToArray(row, cJSON_CreateNumber(
					(double)d->table.n[i * d->k + j]));
			cJSON_AddItemToArray(counts, row);
		}
		cJSON_AddItemToObject(conf, "codes", codes);
		cJSON_AddItemToObject(conf, "counts", counts);
		cJSON_AddItemToObject(o, "confusion", conf);
	} else {
		cJSON_AddNullToObject(o, "confusion");
	}
	finish_why(o, why);
	return o;
}

static void render_json(const struct agreement *ag, struct buf *out)
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
	arr = cJSON_CreateArray();
	for (i = 0; i < ag->nr_dims; i++)
		cJSON_AddItemToArray(arr, dim_json(ag, &ag->dims[i]));
	cJSON_AddItemToObject(root, "dimensions", arr);
	s = cJSON_Print(root);
	buf_addstr(out, s);
	buf_addch(out, '\n');
	cJSON_free(s);
	cJSON_Delete(root);
}

/* ---- text ---------------------------------------------------------- */

static void num(struct buf *out, const struct agree_stat *s, const char *fmt)
{
	if (s->defined)
		buf_addf(out, fmt, s->value);
	else
		buf_addstr(out, "undefined");
}

/* "root_cause" -> "root cause" for prose; the dimension's name is used
 * when it differs only by case and spacing. */
static void prose_name(const struct dimension *dim, struct buf *out)
{
	const char *p;

	/* ASCII only: tolower() in a single-byte locale (ISO-8859-1, say)
	 * maps the bytes of a UTF-8 "Ü" to other bytes, invalid UTF-8 */
	for (p = dim->name; *p; p++)
		buf_addch(out, *p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
}

void agree_sentence(const struct agreement *ag, const struct agreement_dim *d,
		    struct buf *out)
{
	const struct agree_cohen *c = &d->cohen;

	buf_addstr(out, "Cohen's kappa for ");
	prose_name(d->dim, out);
	if (!c->kappa.defined) {
		buf_addf(out, " is undefined (%s; n = %zu bugs, %zu "
			 "annotators).", c->kappa.why, d->n_items,
			 ag->nr_annotators);
		return;
	}
	buf_addf(out, " was %.2f (", c->kappa.value);
	if (c->ci_low.defined)
		buf_addf(out, "95%% CI %.2f\xe2\x80\x93%.2f, ", c->ci_low.value,
			 c->ci_high.value);
	buf_addf(out, "n = %zu bugs, %zu annotators), %s agreement.",
		 d->n_items, ag->nr_annotators, agree_band_name(c->band));
}

static void text_two_one(const struct agreement *ag,
			 const struct agreement_dim *d, struct buf *out)
{
	const struct agree_cohen *c = &d->cohen;
	int i, j, used = 0;

	buf_addstr(out, "  observed agreement  ");
	num(out, &c->po, "%.3f");
	buf_addstr(out, "    expected  ");
	num(out, &c->pe, "%.3f");
	buf_addstr(out, "\n  Cohen's kappa       ");
	num(out, &c->kappa, "%.3f");
	if (c->kappa.defined) {
		buf_addstr(out, "  SE ");
		num(out, &c->se, "%.3f");
		buf_addstr(out, "  95% CI ");
		if (c->ci_low.defined)
			buf_addf(out, "%.3f to %.3f", c->ci_low.value,
				 c->ci_high.value);
		else
			buf_addstr(out, "undefined");
		buf_addstr(out, "  SE0 ");
		num(out, &c->se0, "%.3f");
		buf_addstr(out, "  z ");
		num(out, &c->z, "%.2f");
		buf_addstr(out, "  p ");
		if (c->p_two.defined && c->p_two.value < 0.001)
			buf_addstr(out, "< 0.001");
		else
			num(out, &c->p_two, "%.3f");
		buf_addf(out, "  (%s)", agree_band_name(c->band));
	} else {
		buf_addf(out, " (%s)", c->kappa.why);
	}
	buf_addstr(out, "\n  Scott's pi ");
	num(out, &c->scott_pi, "%.3f");
	buf_addstr(out, "   Krippendorff's alpha ");
	num(out, &c->alpha.alpha, "%.3f");
	buf_addstr(out, "   Gwet's AC1 ");
	num(out, &c->ac1, "%.3f");
	buf_addstr(out, "   PABAK ");
	num(out, &c->pabak, "%.3f");
	if (d->n_dropped)
		buf_addf(out, "\n  (%zu submitted items left out: a coder "
			 "left this dimension empty)", d->n_dropped);
	buf_addf(out, "\n\n  %-30s %6.6s %6.6s %7s %9s\n", "code",
		 ag->annotators[0], ag->annotators[1], "kappa", "pos.agr.");
	for (i = 0; i < d->k; i++) {
		long ca = d->count[(size_t)i * 2], cb = d->count[(size_t)i * 2 +
								 1];

		if (!ca && !cb)
			continue;
		buf_addf(out, "  %-30.30s %6ld %6ld ", d->dim->codes[i].key, ca,
			 cb);
		if (d->per_code[i].kappa.defined)
			buf_addf(out, "%7.3f ", d->per_code[i].kappa.value);
		else
			buf_addf(out, "%7s ", "undef");
		if (d->per_code[i].pos.defined)
			buf_addf(out, "%9.3f\n", d->per_code[i].pos.value);
		else
			buf_addf(out, "%9s\n", "undef");
	}
	/* the confusion matrix over the codes either annotator used */
	for (i = 0; i < d->k; i++)
		used += d->count[(size_t)i * 2] || d->count[(size_t)i * 2 + 1];
	if (!used)
		return;
	buf_addf(out, "\n  confusion (rows %s, columns %s; codes numbered as "
		 "above)\n  %14s", ag->annotators[0], ag->annotators[1], "");
	for (j = 0; j < d->k; j++)
		if (d->count[(size_t)j * 2] || d->count[(size_t)j * 2 + 1])
			buf_addf(out, " %4d", j + 1);
	buf_addch(out, '\n');
	for (i = 0; i < d->k; i++) {
		if (!d->count[(size_t)i * 2] && !d->count[(size_t)i * 2 + 1])
			continue;
		buf_addf(out, "  %2d %-11.11s", i + 1, d->dim->codes[i].key);
		for (j = 0; j < d->k; j++)
			if (d->count[(size_t)j * 2] ||
			    d->count[(size_t)j * 2 + 1])
				buf_addf(out, " %4ld", d->table.n[i * d->k + j]);
		buf_addch(out, '\n');
	}
}

static void text_multi(const struct agreement *ag,
		       const struct agreement_dim *d, struct buf *out)
{
	int i;

	buf_addstr(out, "  select many: each code judged present or absent\n"
		   "  identical sets      ");
	num(out, &d->multi.exact, "%.3f");
	buf_addstr(out, "\n  mean kappa per code ");
	num(out, &d->multi.mean_kappa, "%.3f");
	buf_addf(out, "  (%d of %d codes defined)\n\n", d->multi.n_defined,
		 d->k);
	buf_addf(out, "  %-30s", "code");
	if (ag->nr_annotators == 2)
		buf_addf(out, " %6.6s %6.6s", ag->annotators[0],
			 ag->annotators[1]);
	buf_addstr(out, "   kappa\n");
	for (i = 0; i < d->k; i++) {
		size_t c;
		long total = 0;

		for (c = 0; c < ag->nr_annotators; c++)
			total += d->count[(size_t)i * ag->nr_annotators + c];
		if (!total)
			continue;
		buf_addf(out, "  %-30.30s", d->dim->codes[i].key);
		if (ag->nr_annotators == 2)
			buf_addf(out, " %6ld %6ld", d->count[(size_t)i * 2],
				 d->count[(size_t)i * 2 + 1]);
		if (d->per_code[i].kappa.defined)
			buf_addf(out, " %7.3f\n", d->per_code[i].kappa.value);
		else
			buf_addf(out, " %7s\n", "undef");
	}
}

static void text_group(const struct agreement *ag,
		       const struct agreement_dim *d, struct buf *out)
{
	size_t p;

	buf_addstr(out, "  Fleiss' kappa        ");
	num(out, &d->fleiss.kappa, "%.3f");
	if (d->fleiss.kappa.defined) {
		buf_addstr(out, "  z ");
		num(out, &d->fleiss.z, "%.2f");
		buf_addstr(out, "  p ");
		num(out, &d->fleiss.p_two, "%.3f");
		buf_addf(out, "  (%s)", agree_band_name(d->fleiss.band));
	} else {
		buf_addf(out, " (%s)", d->fleiss.kappa.why);
	}
	buf_addstr(out, "\n  Krippendorff's alpha ");
	num(out, &d->alpha.alpha, "%.3f");
	buf_addstr(out, "\n  Cohen's kappa per pair:\n");
	for (p = 0; p < d->nr_pairs; p++) {
		buf_addf(out, "    %s / %s: ", ag->annotators[d->pairs[p].a],
			 ag->annotators[d->pairs[p].b]);
		num(out, &d->pairs[p].cohen.kappa, "%.3f");
		buf_addf(out, "  (n = %ld)\n", d->pairs[p].cohen.n);
	}
	buf_addstr(out, "  mean pairwise kappa ");
	num(out, &d->pairwise.mean_kappa, "%.3f");
	buf_addch(out, '\n');
}

static void render_text(const struct agreement *ag, struct buf *out)
{
	size_t i;

	buf_addf(out, "Agreement, %s%s; annotators: ", ag->round ? "round " :
		 "whole study", ag->round ? ag->round : "");
	for (i = 0; i < ag->nr_annotators; i++)
		buf_addf(out, "%s%s", i ? ", " : "", ag->annotators[i]);
	if (!ag->nr_annotators)
		buf_addstr(out, "none yet");
	buf_addch(out, '\n');
	if (ag->nr_annotators < 2) {
		buf_addstr(out, "Agreement needs two annotators' submitted "
			   "labels on the same items.\n");
		return;
	}
	for (i = 0; i < ag->nr_dims; i++) {
		const struct agreement_dim *d = &ag->dims[i];

		buf_addf(out, "\n%s (%s): n = %zu bugs, %d codes\n",
			 d->dim->key, d->dim->name, d->n_items, d->k);
		if (d->dim->select_many)
			text_multi(ag, d, out);
		else if (ag->nr_annotators == 2)
			text_two_one(ag, d, out);
		else
			text_group(ag, d, out);
		if (ag->nr_annotators == 2 && !d->dim->select_many) {
			buf_addstr(out, "\n  ");
			agree_sentence(ag, d, out);
			buf_addch(out, '\n');
		}
	}
}

/* ---- CSV ----------------------------------------------------------- */

static void cell(struct buf *out, const struct agree_stat *s)
{
	buf_addch(out, ',');
	if (s->defined)
		buf_addf(out, "%.6g", s->value);
}

static void render_csv(const struct agreement *ag, struct buf *out)
{
	size_t i;

	buf_addstr(out, "round,dimension,items,categories,observed_agreement,"
		   "expected_agreement,cohen_kappa,se,se0,z,p,ci_low,ci_high,"
		   "scott_pi,krippendorff_alpha,gwet_ac1,pabak,band,"
		   "fleiss_kappa,exact_agreement,mean_kappa\n");
	for (i = 0; i < ag->nr_dims; i++) {
		const struct agreement_dim *d = &ag->dims[i];
		const struct agree_cohen *c = &d->cohen;
		struct agree_stat none = { 0, 0, NULL };
		int two = ag->nr_annotators == 2 && !d->dim->select_many;

		buf_addf(out, "%s,%s,%zu,%d", ag->round ? ag->round : "",
			 d->dim->key, d->n_items, d->k);
		cell(out, two ? &c->po : &none);
		cell(out, two ? &c->pe : &none);
		cell(out, two ? &c->kappa : &none);
		cell(out, two ? &c->se : &none);
		cell(out, two ? &c->se0 : &none);
		cell(out, two ? &c->z : &none);
		cell(out, two ? &c->p_two : &none);
		cell(out, two ? &c->ci_low : &none);
		cell(out, two ? &c->ci_high : &none);
		cell(out, two ? &c->scott_pi : &none);
		cell(out, two ? &c->alpha.alpha :
		     ag->nr_annotators > 2 && !d->dim->select_many ?
		     &d->alpha.alpha : &none);
		cell(out, two ? &c->ac1 : &none);
		cell(out, two ? &c->pabak : &none);
		buf_addf(out, ",%s", two && c->kappa.defined ?
			 agree_band_name(c->band) : "");
		cell(out, ag->nr_annotators > 2 && !d->dim->select_many ?
		     &d->fleiss.kappa : &none);
		cell(out, d->dim->select_many ? &d->multi.exact : &none);
		cell(out, d->dim->select_many ? &d->multi.mean_kappa : &none);
		buf_addch(out, '\n');
	}
}

void agree_render(const struct agreement *ag, enum report_format fmt,
		  struct buf *out)
{
	switch (fmt) {
	case REPORT_JSON:
		render_json(ag, out);
		break;
	case REPORT_CSV:
		render_csv(ag, out);
		break;
	default:
		render_text(ag, out);
		break;
	}
}

int report_agreement(struct store *st, const struct actor *a,
		     const struct codebook *cb, const char *round,
		     const char *dim, int format, struct buf *out,
		     struct err *e)
{
	struct agreement ag = AGREEMENT_INIT;

	if (agreement_compute(st, a, cb, round, dim, &ag, e) < 0)
		return -1;
	agree_render(&ag, (enum report_format)format, out);
	agreement_release(&ag);
	return 0;
}
