/* SPDX-License-Identifier: MIT */
/*
 * drift: see drift.h.
 */
#include "core/study/drift.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/buf.h"

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

/* log C(n, k) */
static double lchoose(double n, double k)
{
	return lgamma(n + 1) - lgamma(k + 1) - lgamma(n - k + 1);
}

/*
 * Hypergeometric: successes in `draws` draws without replacement from
 * `pop` items of which `succ` are successes.  Inversion from the mode
 * outwards, P(x + 1) / P(x) = (succ - x)(draws - x) / ((x + 1)(pop -
 * succ - draws + x + 1)): about one standard deviation of steps.
 */
static long hypergeometric(struct agree_rng *r, long pop, long succ,
			   long draws)
{
	long lo = draws - (pop - succ) > 0 ? draws - (pop - succ) : 0;
	long hi = draws < succ ? draws : succ, m, a, b;
	double pm, pa, pb, u;

	if (lo >= hi)
		return lo;
	m = (long)floor((double)(draws + 1) * (double)(succ + 1) /
			(double)(pop + 2));
	if (m < lo)
		m = lo;
	if (m > hi)
		m = hi;
	pm = exp(lchoose((double)succ, (double)m) +
		 lchoose((double)(pop - succ), (double)(draws - m)) -
		 lchoose((double)pop, (double)draws));
	for (;;) {
		u = agree_rng_uniform(r);
		if (u < pm)
			return m;
		u -= pm;
		a = b = m;
		pa = pb = pm;
		while (a > lo || b < hi) {
			if (b < hi) {
				pb *= (double)(succ - b) * (double)(draws - b) /
				      ((double)(b + 1) *
				       (double)(pop - succ - draws + b + 1));
				b++;
				if (u < pb)
					return b;
				u -= pb;
			}
			if (a > lo) {
				pa *= (double)a * (double)(pop - succ - draws +
							   a) /
				      ((double)(succ - a + 1) *
				       (double)(draws - a + 1));
				a--;
				if (u < pa)
					return a;
				u -= pa;
			}
		}
		/* what rounding left over: draw again */
	}
}

/* X^2 of `o` (rows x cols) against row x column totals / n over the
 * columns with a total. */
static double pearson(const long *o, const double *row, const double *col,
		      double n, size_t rows, size_t cols)
{
	double x2 = 0;
	size_t i, j;

	for (i = 0; i < rows; i++)
		for (j = 0; j < cols; j++) {
			double ex, d;

			if (!col[j] || !row[i])
				continue;
			ex = row[i] * col[j] / n;
			d = (double)o[i * cols + j] - ex;
			x2 += d * d / ex;
		}
	return x2;
}

int drift_chi2_monte_carlo(const long *count, size_t rows, size_t cols,
			   int tables, uint64_t seed, double *x2, double *p,
			   size_t *used)
{
	double *row = xcalloc(rows + 1, sizeof(*row));
	double *col = xcalloc(cols + 1, sizeof(*col));
	long *left = xcalloc(cols + 1, sizeof(*left));
	long *sim = xcalloc(rows * cols + 1, sizeof(*sim));
	size_t i, j, rused = 0, cused = 0;
	double n = 0, obs;
	long hits = 0;
	struct agree_rng rng;
	int t, ret = -1;

	for (i = 0; i < rows; i++)
		for (j = 0; j < cols; j++) {
			row[i] += (double)count[i * cols + j];
			col[j] += (double)count[i * cols + j];
			n += (double)count[i * cols + j];
		}
	for (i = 0; i < rows; i++)
		rused += row[i] > 0;
	for (j = 0; j < cols; j++)
		cused += col[j] > 0;
	if (used)
		*used = cused;
	if (rused < 2 || cused < 2)
		goto out;
	obs = pearson(count, row, col, n, rows, cols);
	*x2 = obs;
	agree_rng_seed(&rng, seed);
	for (t = 0; t < tables; t++) {
		long pop = (long)n;

		for (j = 0; j < cols; j++)
			left[j] = (long)col[j];
		for (i = 0; i < rows; i++) {
			long need = (long)row[i], rest = pop;

			for (j = 0; j < cols; j++) {
				long x;

				if (i + 1 == rows || j + 1 == cols) {
					x = i + 1 == rows ? left[j] : need;
				} else {
					x = hypergeometric(&rng, rest, left[j],
							   need);
				}
				sim[i * cols + j] = x;
				rest -= left[j];
				left[j] -= x;
				need -= x;
			}
			pop -= (long)row[i];
		}
		/* ties with the observed value count, as in R */
		if (pearson(sim, row, col, n, rows, cols) >=
		    obs * (1 - 64 * DBL_EPSILON))
			hits++;
	}
	*p = (double)(1 + hits) / (double)(tables + 1);
	ret = 0;
out:
	free(row);
	free(col);
	free(left);
	free(sim);
	return ret;
}

/* Pearson's chi-square over c->count, codes nobody chose left out, with
 * Cochran's check of the expected counts and, when it fails, the Monte
 * Carlo p-value. */
static void test_homogeneity(struct drift_codes *c)
{
	size_t k = c->dim->nr_codes, r, j, used = 0;
	double n = 0, x2 = 0, pmc = 0;
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
		c->chi2.why = c->p.why = c->p_asymptotic.why =
			"coded in one round only";
	} else if (used < 2) {
		c->chi2.why = c->p.why = c->p_asymptotic.why =
			"one code chosen in every round";
	} else {
		c->min_expected = HUGE_VAL;
		for (r = 0; r < c->nr_rounds; r++)
			for (j = 0; j < k; j++) {
				double ex = row[r] * col[j] / n;

				if (!col[j])
					continue;
				c->cells++;
				c->cells_under5 += ex < 5;
				if (ex < c->min_expected)
					c->min_expected = ex;
			}
		x2 = pearson(c->count, row, col, n, c->nr_rounds, k);
		c->df = (double)(c->nr_rounds - 1) * (double)(used - 1);
		c->chi2.value = x2;
		c->chi2.defined = 1;
		c->p_asymptotic.value = drift_chi2_upper(x2, c->df);
		c->p_asymptotic.defined = 1;
		c->p = c->p_asymptotic;
		c->small_expected = c->min_expected < 1 ||
				    5 * c->cells_under5 > c->cells;
		if (c->small_expected) {
			c->mc_tables = DRIFT_MC_TABLES;
			c->mc_seed = DRIFT_MC_SEED;
			drift_chi2_monte_carlo(c->count, c->nr_rounds, k,
					       c->mc_tables, c->mc_seed, &x2,
					       &pmc, NULL);
			c->p.value = pmc;
			c->p.defined = 1;
		}
	}
	free(col);
	free(row);
}

/* Members and rounds by id, for the counts below. */
struct ids {
	long long *id;
	char **name;
	size_t nr;
};

static void ids_release(struct ids *x)
{
	size_t i;

	for (i = 0; i < x->nr; i++)
		free(x->name[i]);
	free(x->id);
	free(x->name);
	memset(x, 0, sizeof(*x));
}

static int ids_load(struct store *st, const char *sql, struct ids *x,
		    struct err *e)
{
	sqlite3_stmt *s = store_prepare(st, sql, e);
	size_t alloc = 0;
	int rc;

	if (!s)
		return -1;
	while ((rc = store_step(st, s, "reading members and rounds", e)) > 0) {
		ALLOC_GROW(x->name, x->nr + 1, alloc);
		x->id = xrealloc(x->id, alloc * sizeof(*x->id));
		x->id[x->nr] = sqlite3_column_int64(s, 0);
		x->name[x->nr++] = xstrdup((const char *)
					   sqlite3_column_text(s, 1));
	}
	sqlite3_finalize(s);
	return rc < 0 ? -1 : 0;
}

static long ids_index(const struct ids *x, long long id)
{
	size_t i;

	for (i = 0; i < x->nr; i++)
		if (x->id[i] == id)
			return (long)i;
	return -1;
}

/* One label of a stream: its key and the round it counts in. */
struct lab {
	long long item, member;
	const char *dim, *code;
	long long round;
	int open;		/* (current labels) the item's round is open */
};

static int lab_cmp(const struct lab *a, const struct lab *b)
{
	int c;

	if (a->item != b->item)
		return a->item < b->item ? -1 : 1;
	if (a->member != b->member)
		return a->member < b->member ? -1 : 1;
	if ((c = strcmp(a->dim, b->dim)))
		return c;
	return strcmp(a->code, b->code);
}

static int lab_step(struct store *st, sqlite3_stmt *s, struct lab *l,
		    struct err *e)
{
	int rc = store_step(st, s, "reading labels", e);

	if (rc <= 0)
		return rc;
	l->item = sqlite3_column_int64(s, 0);
	l->member = sqlite3_column_int64(s, 1);
	l->dim = (const char *)sqlite3_column_text(s, 2);
	l->code = (const char *)sqlite3_column_text(s, 3);
	l->round = sqlite3_column_int64(s, 4);
	l->open = sqlite3_column_count(s) > 5 && sqlite3_column_int(s, 5);
	return 1;
}

/* counts[((annotator * dims + dim) * rounds + round) * MAXC + code] */
struct tally {
	const struct codebook *cb;
	const struct ids *members, *rounds;
	long *n;
};

#define TALLY_CODES CODEBOOK_MANY_MAX

static long *tally_at(struct tally *t, long m, size_t d, long r)
{
	return t->n + (((size_t)m * t->cb->nr_dims + d) * t->rounds->nr +
		       (size_t)r) * TALLY_CODES;
}

static void tally_add(struct tally *t, const struct lab *l)
{
	long m = ids_index(t->members, l->member);
	long r = ids_index(t->rounds, l->round);
	const struct dimension *dd = codebook_dim(t->cb, l->dim);
	int k;

	if (m < 0 || r < 0 || !dd)
		return;		/* a dimension the codebook dropped */
	k = dimension_code_index(dd, l->code);
	if (k < 0 || k >= TALLY_CODES)
		return;
	tally_at(t, m, (size_t)(dd - t->cb->dims), r)[k]++;
}

/*
 * The labels by the round they were made in (see drift.h): the closed
 * rounds' records in key order, each key counted in its first round,
 * merged with the submitted labels of items in open rounds that no
 * record holds.
 */
static int tally_labels(struct store *st, struct tally *t, struct err *e)
{
	sqlite3_stmt *f, *c = NULL;
	struct lab a, b, prev;
	char *pd = NULL, *pc = NULL;
	int ra, rb, ret = -1, have_prev = 0;

	f = store_prepare(st, "SELECT item_id, member_id, dimension, code, "
			  "round_id FROM round_labels ORDER BY item_id, "
			  "member_id, dimension, code, round_id", e);
	if (!f)
		return -1;
	c = store_prepare(st, "SELECT l.item_id, l.member_id, l.dimension, "
			  "l.code, a.round_id, NOT EXISTS (SELECT 1 FROM "
			  "round_frozen f WHERE f.round_id = a.round_id) FROM "
			  "labels l JOIN submissions sb ON sb.item_id = "
			  "l.item_id AND sb.member_id = l.member_id JOIN "
			  "assignments a ON a.item_id = l.item_id ORDER BY "
			  "l.item_id, l.member_id, l.dimension, l.code", e);
	if (!c)
		goto out;
	ra = lab_step(st, f, &a, e);
	rb = lab_step(st, c, &b, e);
	while (ra > 0 || rb > 0) {
		int cmp = ra <= 0 ? 1 : rb <= 0 ? -1 : lab_cmp(&a, &b);

		if (cmp <= 0) {
			/* a record's label: its first round only */
			if (!have_prev || lab_cmp(&prev, &a)) {
				tally_add(t, &a);
				free(pd);
				free(pc);
				prev = a;
				prev.dim = pd = xstrdup(a.dim);
				prev.code = pc = xstrdup(a.code);
				have_prev = 1;
			}
			if (!cmp)	/* the same label now: counted */
				rb = lab_step(st, c, &b, e);
			ra = lab_step(st, f, &a, e);
		} else {
			if (b.open)
				tally_add(t, &b);
			rb = lab_step(st, c, &b, e);
		}
		if (ra < 0 || rb < 0)
			goto out;
	}
	ret = 0;
out:
	free(pd);
	free(pc);
	sqlite3_finalize(f);
	sqlite3_finalize(c);
	return ret;
}

static int load_codes(struct store *st, const struct codebook *cb,
		      struct drift *d, struct err *e)
{
	struct ids members = { 0 }, rounds = { 0 };
	struct tally t;
	size_t m, dd, r, k, alloc = 0, i;
	int ret = -1;

	memset(&t, 0, sizeof(t));
	if (ids_load(st, "SELECT id, name FROM members ORDER BY name",
		     &members, e) < 0 ||
	    ids_load(st, "SELECT id, name FROM rounds ORDER BY id", &rounds,
		     e) < 0)
		goto out;
	t.cb = cb;
	t.members = &members;
	t.rounds = &rounds;
	t.n = xcalloc(members.nr * cb->nr_dims * rounds.nr * TALLY_CODES + 1,
		      sizeof(*t.n));
	if (tally_labels(st, &t, e) < 0)
		goto out;
	/* per annotator (by name) and dimension (by key, as before), the
	 * rounds they coded in */
	for (m = 0; m < members.nr; m++) {
		size_t *order = xcalloc(cb->nr_dims + 1, sizeof(*order));

		for (dd = 0; dd < cb->nr_dims; dd++)
			order[dd] = dd;
		for (dd = 1; dd < cb->nr_dims; dd++)
			for (i = dd; i > 0 && strcmp(cb->dims[order[i - 1]].key,
						     cb->dims[order[i]].key) > 0;
			     i--) {
				size_t x = order[i];

				order[i] = order[i - 1];
				order[i - 1] = x;
			}
		for (i = 0; i < cb->nr_dims; i++) {
			const struct dimension *dim = &cb->dims[order[i]];
			size_t nk = dim->nr_codes < TALLY_CODES ?
				    dim->nr_codes : TALLY_CODES;
			struct drift_codes *c = NULL;

			dd = order[i];
			for (r = 0; r < rounds.nr; r++) {
				long *n = tally_at(&t, (long)m, dd, (long)r);
				long any = 0;

				for (k = 0; k < nk; k++)
					any += n[k];
				if (!any)
					continue;
				if (!c) {
					ALLOC_GROW(d->codes, d->nr_codes + 1,
						   alloc);
					c = &d->codes[d->nr_codes++];
					memset(c, 0, sizeof(*c));
					c->dim = dim;
					c->annotator = keep(d,
							    members.name[m]);
				}
				c->rounds = xrealloc(c->rounds,
						     (c->nr_rounds + 1) *
						     sizeof(*c->rounds));
				c->rounds[c->nr_rounds] = keep(d,
							       rounds.name[r]);
				c->count = xrealloc(c->count,
						    (c->nr_rounds + 1) *
						    dim->nr_codes *
						    sizeof(long));
				memset(c->count + c->nr_rounds * dim->nr_codes,
				       0, dim->nr_codes * sizeof(long));
				memcpy(c->count + c->nr_rounds * dim->nr_codes,
				       n, nk * sizeof(long));
				c->nr_rounds++;
			}
		}
		free(order);
	}
	for (i = 0; i < d->nr_codes; i++)
		test_homogeneity(&d->codes[i]);
	ret = 0;
out:
	free(t.n);
	ids_release(&members);
	ids_release(&rounds);
	return ret;
}

/* (item, member) -> the first closed round whose record has the
 * member's submission of the item. */
struct first_sub {
	long long item, member, round;
};

static int cmp_first(const void *x, const void *y)
{
	const struct first_sub *a = x, *b = y;

	if (a->item != b->item)
		return a->item < b->item ? -1 : 1;
	if (a->member != b->member)
		return a->member < b->member ? -1 : 1;
	return 0;
}

/* A time of one annotator in one round, for sorting. */
struct timed {
	long member, round;	/* indexes: by name, by round order */
	double seconds;
};

static int cmp_timed(const void *x, const void *y)
{
	const struct timed *a = x, *b = y;

	if (a->member != b->member)
		return a->member < b->member ? -1 : 1;
	if (a->round != b->round)
		return a->round < b->round ? -1 : 1;
	return (a->seconds > b->seconds) - (a->seconds < b->seconds);
}

static int load_times(struct store *st, struct drift *d, struct err *e)
{
	struct ids members = { 0 }, rounds = { 0 };
	struct first_sub *fs = NULL, key, *hit;
	struct timed *tv = NULL;
	size_t nfs = 0, afs = 0, nt = 0, at = 0, i, j, alloc = 0;
	sqlite3_stmt *s = NULL;
	int rc, ret = -1;

	if (ids_load(st, "SELECT id, name FROM members ORDER BY name",
		     &members, e) < 0 ||
	    ids_load(st, "SELECT id, name FROM rounds ORDER BY id", &rounds,
		     e) < 0)
		goto out;
	s = store_prepare(st, "SELECT item_id, member_id, min(round_id) FROM "
			  "round_submissions GROUP BY item_id, member_id "
			  "ORDER BY item_id, member_id", e);
	if (!s)
		goto out;
	while ((rc = store_step(st, s, "reading the rounds' records", e)) > 0) {
		ALLOC_GROW(fs, nfs + 1, afs);
		fs[nfs].item = sqlite3_column_int64(s, 0);
		fs[nfs].member = sqlite3_column_int64(s, 1);
		fs[nfs++].round = sqlite3_column_int64(s, 2);
	}
	sqlite3_finalize(s);
	s = NULL;
	if (rc < 0)
		goto out;
	s = store_prepare(st, "SELECT t.item_id, t.member_id, a.round_id, "
			  "t.seconds FROM coding_times t LEFT JOIN assignments "
			  "a ON a.item_id = t.item_id", e);
	if (!s)
		goto out;
	while ((rc = store_step(st, s, "reading the times spent", e)) > 0) {
		long long round = sqlite3_column_type(s, 2) == SQLITE_NULL ?
				  0 : sqlite3_column_int64(s, 2);

		key.item = sqlite3_column_int64(s, 0);
		key.member = sqlite3_column_int64(s, 1);
		hit = nfs ? bsearch(&key, fs, nfs, sizeof(*fs), cmp_first) :
		      NULL;
		if (hit)
			round = hit->round;
		ALLOC_GROW(tv, nt + 1, at);
		tv[nt].member = ids_index(&members, key.member);
		/* items in no round sort last, as "-" */
		tv[nt].round = round ? ids_index(&rounds, round) :
			       (long)rounds.nr;
		tv[nt++].seconds = sqlite3_column_double(s, 3);
	}
	sqlite3_finalize(s);
	s = NULL;
	if (rc < 0)
		goto out;
	if (nt)
		qsort(tv, nt, sizeof(*tv), cmp_timed);
	for (i = 0; i < nt; i = j) {
		struct drift_time *t;
		size_t k;

		for (j = i; j < nt && tv[j].member == tv[i].member &&
		     tv[j].round == tv[i].round; j++)
			;
		if (tv[i].member < 0)
			continue;
		ALLOC_GROW(d->times, d->nr_times + 1, alloc);
		t = &d->times[d->nr_times++];
		memset(t, 0, sizeof(*t));
		t->annotator = keep(d, members.name[tv[i].member]);
		t->round = keep(d, tv[i].round < (long)rounds.nr ?
				rounds.name[tv[i].round] : "-");
		k = j - i;
		t->items = k;
		t->median = k % 2 ? tv[i + k / 2].seconds :
			    (tv[i + k / 2 - 1].seconds +
			     tv[i + k / 2].seconds) / 2;
	}
	ret = 0;
out:
	sqlite3_finalize(s);
	free(fs);
	free(tv);
	ids_release(&members);
	ids_release(&rounds);
	return ret;
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
