/* SPDX-License-Identifier: MIT */
/*
 * drift_out: see drift_out.h.
 */
#include "exports/drift_out.h"

#include <math.h>
#include <string.h>

#include "exports/csv_out.h"
#include "exports/json_out.h"

static void text(const struct drift *d, struct buf *out)
{
	size_t i, r, k;

	buf_addstr(out, "Time per item (screen open to leaving it, gaps over "
		   "3 minutes left out)\n");
	if (!d->nr_times)
		buf_addstr(out, "  no times recorded yet\n");
	else
		buf_addf(out, "  %-16s %-16s %6s %10s\n", "annotator", "round",
			 "items", "median s");
	for (i = 0; i < d->nr_times; i++)
		buf_addf(out, "  %-16s %-16s %6zu %10.0f\n",
			 d->times[i].annotator, d->times[i].round,
			 d->times[i].items, d->times[i].median);
	buf_addstr(out, "\nCodes chosen per round (the round each label was "
		   "made in), and whether their mix moved (chi-square test "
		   "of homogeneity; with small expected counts, its Monte "
		   "Carlo p-value)\n");
	if (!d->nr_codes)
		buf_addstr(out, "  no submitted labels in rounds yet\n");
	for (i = 0; i < d->nr_codes; i++) {
		const struct drift_codes *c = &d->codes[i];
		size_t nk = c->dim->nr_codes;

		buf_addf(out, "\n  %s, %s: ", c->annotator, c->dim->key);
		if (c->chi2.defined && c->small_expected)
			buf_addf(out, "chi2 = %.2f, df = %.0f; expected counts "
				 "are small (%d of %d cells under 5, the "
				 "smallest %.2f): Monte Carlo p %s%.3f (%d "
				 "tables with these margins, seed %llu)%s; the "
				 "chi-square approximation would say p = "
				 "%.3f\n", c->chi2.value, c->df,
				 c->cells_under5, c->cells, c->min_expected,
				 c->p.value < 0.001 ? "< " : "= ",
				 c->p.value < 0.001 ? 0.001 : c->p.value,
				 c->mc_tables, (unsigned long long)c->mc_seed,
				 c->p.value < 0.05 ? " (the mix moved)" : "",
				 c->p_asymptotic.value);
		else if (c->chi2.defined)
			buf_addf(out, "chi2 = %.2f, df = %.0f, p %s%.3f%s\n",
				 c->chi2.value, c->df, c->p.value < 0.001 ?
				 "< " : "= ", c->p.value < 0.001 ? 0.001 :
				 c->p.value, c->p.value < 0.05 ?
				 " (the mix moved)" : "");
		else
			buf_addf(out, "no test (%s)\n", c->chi2.why);
		for (k = 0; k < nk; k++) {
			long any = 0;

			for (r = 0; r < c->nr_rounds; r++)
				any += c->count[r * nk + k];
			if (!any)
				continue;
			buf_addf(out, "    %-28s", c->dim->codes[k].key);
			for (r = 0; r < c->nr_rounds; r++)
				buf_addf(out, " %s %ld", c->rounds[r],
					 c->count[r * nk + k]);
			buf_addch(out, '\n');
		}
	}
}

static void json_stat(struct json_out *j, const char *key,
		      const struct agree_stat *s, int decimals)
{
	if (s->defined && isfinite(s->value))
		jsonw_double(j, key, s->value, decimals);
	else
		jsonw_null(j, key);
}

/* The "}\n" jsonw_end() wrote, taken back to add members. */
static void reopen(struct buf *b)
{
	if (b->len >= 2) {
		b->len -= 2;
		b->ptr[b->len] = '\0';
	}
}

static void json(const struct drift *d, struct buf *out)
{
	size_t i, r, k;

	buf_addstr(out, "{\"times\":[");
	for (i = 0; i < d->nr_times; i++) {
		struct buf one = BUF_INIT;
		struct json_out j;

		jsonw_begin(&j, &one);
		jsonw_str(&j, "annotator", d->times[i].annotator);
		jsonw_str(&j, "round", d->times[i].round);
		jsonw_int(&j, "items", (long long)d->times[i].items);
		if (isnan(d->times[i].median))
			jsonw_null(&j, "median_seconds");
		else
			jsonw_double(&j, "median_seconds",
				     d->times[i].median, 1);
		jsonw_end(&j);
		reopen(&one);
		buf_addf(out, "%s%s}", i ? "," : "", one.ptr);
		buf_release(&one);
	}
	buf_addstr(out, "],\"codes\":[");
	for (i = 0; i < d->nr_codes; i++) {
		const struct drift_codes *c = &d->codes[i];
		size_t nk = c->dim->nr_codes;
		struct buf one = BUF_INIT;
		struct json_out j;

		jsonw_begin(&j, &one);
		jsonw_str(&j, "annotator", c->annotator);
		jsonw_str(&j, "dimension", c->dim->key);
		json_stat(&j, "chi2", &c->chi2, 4);
		if (c->chi2.defined)
			jsonw_double(&j, "df", c->df, 0);
		else
			jsonw_null(&j, "df");
		json_stat(&j, "p", &c->p, 6);
		jsonw_str(&j, "p_method", !c->chi2.defined ? NULL :
			  c->small_expected ? "monte carlo" : "chi-square");
		json_stat(&j, "p_chi_square", &c->p_asymptotic, 6);
		if (c->chi2.defined) {
			jsonw_bool(&j, "small_expected_counts",
				   c->small_expected);
			jsonw_int(&j, "cells", c->cells);
			jsonw_int(&j, "cells_expected_under_5",
				  c->cells_under5);
			jsonw_double(&j, "min_expected", c->min_expected, 4);
		}
		if (c->small_expected) {
			jsonw_int(&j, "monte_carlo_tables", c->mc_tables);
			jsonw_int(&j, "monte_carlo_seed",
				  (long long)c->mc_seed);
		}
		jsonw_str(&j, "why", c->chi2.defined ? NULL : c->chi2.why);
		jsonw_end(&j);
		reopen(&one);
		buf_addf(out, "%s%s,\"rounds\":[", i ? "," : "", one.ptr);
		for (r = 0; r < c->nr_rounds; r++) {
			struct buf name = BUF_INIT;

			json_quote(&name, c->rounds[r], strlen(c->rounds[r]));
			buf_addf(out, "%s{\"round\":%s,\"counts\":{",
				 r ? "," : "", name.ptr);
			buf_release(&name);
			for (k = 0; k < nk; k++) {
				struct buf key = BUF_INIT;

				json_quote(&key, c->dim->codes[k].key,
					   strlen(c->dim->codes[k].key));
				buf_addf(out, "%s%s:%ld", k ? "," : "",
					 key.ptr, c->count[r * nk + k]);
				buf_release(&key);
			}
			buf_addstr(out, "}}");
		}
		buf_addstr(out, "]}");
		buf_release(&one);
	}
	buf_addstr(out, "]}\n");
}

static void csv(const struct drift *d, struct buf *out)
{
	static const char *const cols[] = {
		"kind", "annotator", "round", "dimension", "code", "value",
		NULL
	};
	struct csv_out w;
	size_t i, r, k;

	csvw_init(&w, NULL, CSV_GUARD);
	csvw_header(&w, cols);
	csvw_end(&w);
	for (i = 0; i < d->nr_times; i++) {
		csvw_key(&w, "time");
		csvw_key(&w, d->times[i].annotator);
		csvw_key(&w, d->times[i].round);
		csvw_null(&w);
		csvw_int(&w, (long long)d->times[i].items);
		if (isnan(d->times[i].median))
			csvw_null(&w);
		else
			csvw_double(&w, d->times[i].median, 1);
		csvw_end(&w);
	}
	for (i = 0; i < d->nr_codes; i++) {
		const struct drift_codes *c = &d->codes[i];
		size_t nk = c->dim->nr_codes;

		for (r = 0; r < c->nr_rounds; r++)
			for (k = 0; k < nk; k++) {
				csvw_key(&w, "count");
				csvw_key(&w, c->annotator);
				csvw_key(&w, c->rounds[r]);
				csvw_key(&w, c->dim->key);
				csvw_key(&w, c->dim->codes[k].key);
				csvw_int(&w, c->count[r * nk + k]);
				csvw_end(&w);
			}
		if (!c->chi2.defined)
			continue;
		csvw_key(&w, "chi2");
		csvw_key(&w, c->annotator);
		csvw_null(&w);
		csvw_key(&w, c->dim->key);
		csvw_double(&w, c->df, 0);
		csvw_double(&w, c->chi2.value, 4);
		csvw_end(&w);
		csvw_key(&w, "p");
		csvw_key(&w, c->annotator);
		csvw_null(&w);
		csvw_key(&w, c->dim->key);
		csvw_double(&w, c->df, 0);
		csvw_double(&w, c->p.value, 6);
		csvw_end(&w);
		if (!c->small_expected)
			continue;
		/* the p above is the Monte Carlo one: the approximation's
		 * beside it, and how small the expected counts are */
		csvw_key(&w, "p_chi_square");
		csvw_key(&w, c->annotator);
		csvw_null(&w);
		csvw_key(&w, c->dim->key);
		csvw_double(&w, c->df, 0);
		csvw_double(&w, c->p_asymptotic.value, 6);
		csvw_end(&w);
		csvw_key(&w, "cells_expected_under_5");
		csvw_key(&w, c->annotator);
		csvw_null(&w);
		csvw_key(&w, c->dim->key);
		csvw_int(&w, c->cells);
		csvw_int(&w, c->cells_under5);
		csvw_end(&w);
	}
	buf_add(out, w.row.ptr, w.row.len);
	csvw_release(&w);
}

void drift_write(const struct drift *d, enum drift_format format,
		 struct buf *out)
{
	switch (format) {
	case DRIFT_JSON:
		json(d, out);
		break;
	case DRIFT_CSV:
		csv(d, out);
		break;
	default:
		text(d, out);
	}
}
