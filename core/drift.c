/* SPDX-License-Identifier: MIT */
/*
 * drift: see drift.h.
 */
#include "core/drift.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"

int drift_add_time(struct store *st, const struct actor *a,
		   long long item_id, double seconds, struct err *e)
{
	sqlite3_stmt *s;
	char now[32];
	int rc;

	if (!(seconds > 0) || !a->member_id)
		return 0;
	if (store_begin(st, e) < 0)
		return -1;
	store_now(now);
	s = store_prepare(st, "INSERT INTO coding_times (item_id, member_id, "
			  "seconds, updated_at) VALUES (?1, ?2, ?3, ?4) ON "
			  "CONFLICT (item_id, member_id) DO UPDATE SET seconds "
			  "= seconds + ?3, updated_at = ?4", e);
	if (!s) {
		store_rollback(st);
		return -1;
	}
	sqlite3_bind_int64(s, 1, item_id);
	sqlite3_bind_int64(s, 2, a->member_id);
	sqlite3_bind_double(s, 3, seconds);
	sqlite3_bind_text(s, 4, now, -1, SQLITE_STATIC);
	rc = store_step(st, s, "saving the time spent", e);
	sqlite3_finalize(s);
	if (rc < 0 || store_commit(st, e) < 0) {
		store_rollback(st);
		return -1;
	}
	return 0;
}

/*
 * Q(a, x), the upper regularized gamma function: by its power series for
 * P = 1 - Q when x < a + 1, else by its continued fraction (modified
 * Lentz), each to double precision (Abramowitz & Stegun 6.5.29, 6.5.31).
 */
static double gamma_q(double a, double x)
{
	double lead = exp(-x + a * log(x) - lgamma(a));
	int i;

	if (x <= 0)
		return 1;
	if (x < a + 1) {
		double sum = 1 / a, term = sum, ap = a;

		for (i = 0; i < 1000; i++) {
			ap += 1;
			term *= x / ap;
			sum += term;
			if (fabs(term) < fabs(sum) * 1e-16)
				break;
		}
		return 1 - sum * lead;
	} else {
		double tiny = 1e-300, b = x + 1 - a, c = 1 / tiny, d = 1 / b;
		double h = d;

		for (i = 1; i < 1000; i++) {
			double an = -i * (i - a), del;

			b += 2;
			d = an * d + b;
			if (fabs(d) < tiny)
				d = tiny;
			c = b + an / c;
			if (fabs(c) < tiny)
				c = tiny;
			d = 1 / d;
			del = d * c;
			h *= del;
			if (fabs(del - 1) < 1e-16)
				break;
		}
		return lead * h;
	}
}

double drift_chi2_upper(double x, double df)
{
	if (!(df >= 1) || !(x >= 0))
		return NAN;
	return gamma_q(df / 2, x / 2);
}

static const char *keep(struct drift *d, const char *s)
{
	if (!d->nr_names || strcmp(d->names[d->nr_names - 1], s)) {
		d->names = xrealloc(d->names, (d->nr_names + 1) *
				    sizeof(*d->names));
		d->names[d->nr_names++] = xstrdup(s);
	}
	return d->names[d->nr_names - 1];
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

static int load_times(struct store *st, struct drift *d, struct err *e)
{
	sqlite3_stmt *s;
	double *v = NULL;
	size_t nv = 0, av = 0, alloc = 0;
	int rc;

	s = store_prepare(st, "SELECT m.name, ifnull(r.name, '-'), t.seconds "
			  "FROM coding_times t JOIN members m ON m.id = "
			  "t.member_id LEFT JOIN assignments a ON a.item_id = "
			  "t.item_id LEFT JOIN rounds r ON r.id = a.round_id "
			  "ORDER BY m.name, ifnull(r.id, 0)", e);
	if (!s)
		return -1;
	for (;;) {
		struct drift_time *t = d->nr_times ?
			&d->times[d->nr_times - 1] : NULL;
		const char *who = NULL, *round = NULL;

		rc = store_step(st, s, "reading the times spent", e);
		if (rc > 0) {
			who = (const char *)sqlite3_column_text(s, 0);
			round = (const char *)sqlite3_column_text(s, 1);
		}
		/* the group ends: its median */
		if (t && (rc <= 0 || strcmp(t->annotator, who) ||
			  strcmp(t->round, round))) {
			qsort(v, nv, sizeof(*v), cmp_double);
			t->items = nv;
			t->median = !nv ? NAN : nv % 2 ? v[nv / 2] :
				    (v[nv / 2 - 1] + v[nv / 2]) / 2;
			nv = 0;
			t = NULL;
		}
		if (rc <= 0)
			break;
		if (!t) {
			ALLOC_GROW(d->times, d->nr_times + 1, alloc);
			t = &d->times[d->nr_times++];
			memset(t, 0, sizeof(*t));
			t->annotator = keep(d, who);
			t->round = keep(d, round);
		}
		ALLOC_GROW(v, nv + 1, av);
		v[nv++] = sqlite3_column_double(s, 2);
	}
	sqlite3_finalize(s);
	free(v);
	return rc < 0 ? -1 : 0;
}

/* Pearson's chi-square over c->count, codes nobody chose left out. */
static void test_homogeneity(struct drift_codes *c)
{
	size_t k = c->dim->nr_codes, r, j, used = 0;
	double n = 0, x2 = 0;
	double *col = xcalloc(k + 1, sizeof(*col));
	double *row = xcalloc(c->nr_rounds + 1, sizeof(*row));

	for (r = 0; r < c->nr_rounds; r++)
		for (j = 0; j < k; j++) {
			row[r] += c->count[r * k + j];
			col[j] += c->count[r * k + j];
			n += c->count[r * k + j];
		}
	for (j = 0; j < k; j++)
		used += col[j] > 0;
	if (c->nr_rounds < 2) {
		c->chi2.why = c->p.why = "coded in one round only";
	} else if (used < 2) {
		c->chi2.why = c->p.why = "one code chosen in every round";
	} else {
		for (r = 0; r < c->nr_rounds; r++)
			for (j = 0; j < k; j++) {
				double ex = row[r] * col[j] / n, o;

				if (!col[j])
					continue;
				o = c->count[r * k + j];
				x2 += (o - ex) * (o - ex) / ex;
			}
		c->df = (double)(c->nr_rounds - 1) * (double)(used - 1);
		c->chi2.value = x2;
		c->chi2.defined = 1;
		c->p.value = drift_chi2_upper(x2, c->df);
		c->p.defined = 1;
	}
	free(col);
	free(row);
}

static int load_codes(struct store *st, const struct codebook *cb,
		      struct drift *d, struct err *e)
{
	sqlite3_stmt *s;
	size_t alloc = 0, i;
	int rc;

	/* submitted labels of items in rounds, per annotator, dimension,
	 * round and code */
	s = store_prepare(st, "SELECT m.name, l.dimension, r.name, l.code, "
			  "count(*) FROM labels l JOIN submissions sb ON "
			  "sb.item_id = l.item_id AND sb.member_id = "
			  "l.member_id JOIN members m ON m.id = l.member_id "
			  "JOIN assignments a ON a.item_id = l.item_id JOIN "
			  "rounds r ON r.id = a.round_id GROUP BY m.name, "
			  "l.dimension, r.id, l.code ORDER BY m.name, "
			  "l.dimension, r.id", e);
	if (!s)
		return -1;
	while ((rc = store_step(st, s, "reading labels", e)) > 0) {
		const char *who = (const char *)sqlite3_column_text(s, 0);
		const char *dim = (const char *)sqlite3_column_text(s, 1);
		const char *round = (const char *)sqlite3_column_text(s, 2);
		const struct dimension *dd = codebook_dim(cb, dim);
		struct drift_codes *c = d->nr_codes ?
			&d->codes[d->nr_codes - 1] : NULL;
		int k;

		if (!dd)
			continue;	/* a dimension the codebook dropped */
		k = dimension_code_index(dd, (const char *)
					 sqlite3_column_text(s, 3));
		if (k < 0)
			continue;
		if (!c || c->dim != dd || strcmp(c->annotator, who)) {
			ALLOC_GROW(d->codes, d->nr_codes + 1, alloc);
			c = &d->codes[d->nr_codes++];
			memset(c, 0, sizeof(*c));
			c->dim = dd;
			c->annotator = keep(d, who);
		}
		if (!c->nr_rounds ||
		    strcmp(c->rounds[c->nr_rounds - 1], round)) {
			c->rounds = xrealloc(c->rounds, (c->nr_rounds + 1) *
					     sizeof(*c->rounds));
			c->rounds[c->nr_rounds] = keep(d, round);
			c->count = xrealloc(c->count, (c->nr_rounds + 1) *
					    dd->nr_codes * sizeof(long));
			memset(c->count + c->nr_rounds * dd->nr_codes, 0,
			       dd->nr_codes * sizeof(long));
			c->nr_rounds++;
		}
		c->count[(c->nr_rounds - 1) * dd->nr_codes + (size_t)k] +=
			sqlite3_column_int64(s, 4);
	}
	sqlite3_finalize(s);
	if (rc < 0)
		return -1;
	for (i = 0; i < d->nr_codes; i++)
		test_homogeneity(&d->codes[i]);
	return 0;
}

int drift_compute(struct store *st, const struct actor *a,
		  const struct codebook *cb, struct drift *out,
		  struct err *e)
{
	memset(out, 0, sizeof(*out));
	if (a->role != ROLE_OWNER)
		return err_set(e, ERR_PERM, "drift shows each annotator's time "
			       "and codes: for the study's owner only");
	if (store_exec(st, "SAVEPOINT drift_read", e) < 0)
		return -1;
	if (load_times(st, out, e) < 0 || load_codes(st, cb, out, e) < 0) {
		store_exec(st, "RELEASE drift_read", NULL);
		drift_release(out);
		return -1;
	}
	store_exec(st, "RELEASE drift_read", NULL);
	return 0;
}

void drift_release(struct drift *d)
{
	size_t i;

	if (!d)
		return;
	for (i = 0; i < d->nr_names; i++)
		free(d->names[i]);
	free(d->names);
	free(d->times);
	for (i = 0; i < d->nr_codes; i++) {
		free(d->codes[i].rounds);
		free(d->codes[i].count);
	}
	free(d->codes);
	memset(d, 0, sizeof(*d));
}
