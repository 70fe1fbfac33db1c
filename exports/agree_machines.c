/* SPDX-License-Identifier: MIT */
/*
 * agree_machines: the machine coders beside the annotators (who they
 * are, their kappa with each coder and with the agreed labels), added to
 * the agreement report in its format.
 */
#include "exports/agree_int.h"

#include <cjson/cJSON.h>

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
			ar_ci_text(out, &p->ci);
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
		ar_ci_json(po, &p->ci);
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
		ar_cell(out, &p->kappa);
		ar_cell(out, &p->ci.low);
		ar_cell(out, &p->ci.high);
		ar_cell_str(out, agree_ci_method_name(p->ci.method));
		ar_cell_str(out, p->ci.method == AGREE_CI_WALD ?
			    (p->ci.clipped ? "yes" : "no") : "");
		ar_cell(out, &p->ci.wald_low);
		ar_cell(out, &p->ci.wald_high);
		ar_csv_boot(out, &p->ci);
		ar_cell_str(out, !p->kappa.defined ? p->kappa.why :
			    !p->ci.low.defined ? p->ci.low.why : NULL);
		ar_cell(out, &acc);
		ar_cell(out, &c->pe);
		ar_cell(out, &p->kappa);
		/* se .. scale_alpha: empty */
		for (k = 0; k < 25; k++)
			buf_addch(out, ',');
		buf_addf(&who, "%s (%s)", m->name, m->models ? m->models :
			 "model not given");
		ar_cell_str(out, who.ptr);
		ar_cell_str(out, p->other ? p->other : "agreed");
		ar_csv_tail(out, &p->ci, NULL, 0);
		buf_release(&who);
	}
}

void ar_render_machines(const struct machine_agreement *ma,
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
