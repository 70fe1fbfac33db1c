/* SPDX-License-Identifier: MIT */
/*
 * t_agree: core/stats/agree against published reference values, plus degenerate
 * and consistency cases.
 *
 * Part 1 runs one cmocka test per case of tests/fixtures/agreement-cases.json
 * (copied from the shared agreement reference; schema in its README).  A
 * case's handler (by "method") computes every statistic it can and offers
 * it under the case's key names; check() compares those present in
 * "expected" within their `tol`.  Every expected value must be either
 * checked or matched by an entry of skips[], which gives the reason, so a
 * new case or key cannot be ignored silently.  overrides_init[] names the
 * few keys whose published value is itself off (reasons given): they are
 * compared at the case's `source_tol` only when they fail at `tol`.  A
 * skip entry that matches nothing, or an override never needed, fails
 * the last test, which prints what was checked, widened and skipped.
 *
 * Part 2 covers what the references do not: one category, total
 * agreement, no items, missing ratings, invalid input, band boundaries,
 * select-many dimensions, and a large random table whose statistics must
 * equal those computed directly from the item vectors.
 *
 * Runs with the repository root as working directory.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <float.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/stats/agree.h"
#include "core/study/headline.h"
#include "core/study/headline_text.h"
#include "core/study/codebook.h"
#include "core/base/buf.h"
#include "core/base/err.h"

/* Percentile bootstrap options for the calls below. */
#define BOPTS(b, s) \
	(&(const struct agree_boot_opts){ AGREE_CI_BOOTSTRAP, (b), (s) })

#define FIXTURE "tests/fixtures/agreement-cases.json"

/* ---- skip list and tolerance overrides ---------------------------------- */

/* `cases` and `keys` are fnmatch() patterns; `keys` may list several
 * patterns separated by '|'.  Key paths look like "kappa", "nominal.alpha",
 * "category_pi.1", "kappa_ci[0]". */
static const struct skip {
	const char *cases;
	const char *keys;
	const char *why;
	int used;
} skips_init[] = {
	{ "fmsb_Kappa.test_2x2_cohen1960_se", "*_cohen1960",
	  "Cohen (1960) approximate SEs are not implemented; agree reports "
	  "the Fleiss-Cohen-Everitt (1969) SEs", 0 },
	{ "irrcac_cont3x3abstractors_*", "*_ci[[]*]",
	  "irrCAC's interval uses Student t(n-1) and caps it at 1; agree's "
	  "is normal and not clipped", 0 },
	{ "irrcac_cont3x3abstractors_*",
	  "scott_pi_se|ac1_se|bp_se|alpha_se|pa_se",
	  "Gwet's SEs of pi, AC1/AC2, S, alpha and pa are not implemented "
	  "(kappa_se is checked)", 0 },
	{ "dkpro_set_annotations_two_coders", "dkpro_masi.*",
	  "dkpro's MASI is Jaccard distance x {0,1/3,2/3,1}, not "
	  "Passonneau's (2006) MASI, which agree implements", 0 },
	{ "nltk_set_distances", "masi_distance",
	  "NLTK uses the rounded constants 0.67/0.33 (0.868); exact 2/3 "
	  "gives 0.8667 (checked in test_set_distances)", 0 },
	{ "freelon2010_table10_R3.0[39]", "mean_pairwise_kappa_pram",
	  "PRAM averages a pair with undefined kappa as 0; agree reports "
	  "the mean as undefined, as ReCal3 does (its NA is checked)", 0 },
};

/* Keys whose published value is off by more than `tol` for a documented
 * reason: when (and only when) the value fails at `tol`, it is compared
 * at the case's `source_tol` instead (the tolerance its source's own test
 * uses), and the summary lists it. */
static const struct tol_override {
	const char *cases;
	const char *keys;
	const char *why;
	int used;
} overrides_init[] = {
	{ "fleiss1971_diagnoses_6raters", "pe|category_kappa.*",
	  "Fleiss (1971) computed with p_j rounded to 3 decimals: exact pe "
	  "is .21994 and the exact category kappas .2448 .2448 .5200 .4711 "
	  ".5661; with rounded p_j the same formula gives the printed "
	  "values within .002", 0 },
	{ "krippendorff2018_p306_3coders_binary", "alpha",
	  "the reference truncated 15/64 = .234375 to .2343", 0 },
	{ "artstein_poesio2008_table4_3x3", "alpha_nominal|alpha_De",
	  "published values are truncated: exact D_e = 23944/39800 = "
	  ".60161, alpha = .80053", 0 },
	{ "zwick1988_example3", "scott_pi",
	  "exact pi = .34/.74 = .45946 (pe = .26, po = .6); the paper's "
	  "two-decimal .46 was recorded as .460", 0 },
	{ "krippendorff1980_p139_3coders_9units", "nominal.pa",
	  "exact pa = 20/27 = .74074, truncated to .740", 0 },
	{ "dkpro_missing_variance_rater_a_constant", "alpha_Do|alpha_De",
	  "dkpro's test truncates: exact D_o = 4/26 = .15385, D_e = "
	  "98/650 = .15077", 0 },
	{ "dkpro_set_annotations_two_coders", "set_distance.De",
	  "dkpro's test truncates: exact D_e = .40959", 0 },
	{ "freelon2010_*", "*_pram",
	  "PRAM's output is known to be imprecise (Freelon 2010); the case "
	  "gives it a source_tol", 0 },
};

#define NR_SKIPS (sizeof(skips_init) / sizeof(skips_init[0]))
#define NR_OVERRIDES (sizeof(overrides_init) / sizeof(overrides_init[0]))

static struct skip skips[NR_SKIPS];
static struct tol_override overrides[NR_OVERRIDES];

static cJSON *fixture;
static int nr_cases_run;
static long nr_checked;
static long nr_skipped;
static long nr_widened;
static struct buf widened = BUF_INIT;	/* one line per widened value */

static int match_keys(const char *patterns, const char *path)
{
	char buf[256];
	const char *p = patterns, *bar;

	while (*p) {
		size_t len;

		bar = strchr(p, '|');
		len = bar ? (size_t)(bar - p) : strlen(p);
		if (len >= sizeof(buf))
			len = sizeof(buf) - 1;
		memcpy(buf, p, len);
		buf[len] = '\0';
		if (!fnmatch(buf, path, 0))
			return 1;
		if (!bar)
			break;
		p = bar + 1;
	}
	return 0;
}

/* ---- invariants --------------------------------------------------------- */

/* Defined: finite and no reason.  Undefined: value 0 and a reason. */
static int stat_sane(const struct agree_stat *s)
{
	if (s->defined)
		return isfinite(s->value) && s->why == NULL;
	return s->value == 0 && s->why != NULL && s->why[0] != '\0';
}

#define assert_sane(s) assert_true(stat_sane(&(s)))

static void assert_sane_alpha(const struct agree_alpha *a)
{
	assert_sane(a->alpha);
	assert_sane(a->d_o);
	assert_sane(a->d_e);
	assert_sane(a->po);
}

static void assert_sane_cohen(const struct agree_cohen *c)
{
	const struct agree_stat *all[] = {
		&c->po, &c->pe, &c->kappa, &c->se, &c->se0, &c->z, &c->p_two,
		&c->p_one, &c->ci_low, &c->ci_high, &c->po_max, &c->kappa_max,
		&c->scott_pe, &c->scott_pi, &c->bennett_s, &c->pabak,
		&c->ac1_pe, &c->ac1,
	};
	size_t i;

	for (i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		assert_true(stat_sane(all[i]));
	assert_sane_alpha(&c->alpha);
	assert_true(c->band == agree_band(&c->kappa));
	if (c->kappa.defined) {
		assert_true(c->kappa.value <= 1 + 1e-12);
		assert_true(c->kappa.value >= -1 - 1e-12);
		assert_true(c->p_two.defined == c->z.defined);
	}
	if (c->p_two.defined) {
		assert_true(c->p_two.value >= 0 && c->p_two.value <= 1);
		assert_true(c->p_one.value >= 0 && c->p_one.value <= 1);
	}
}

static void assert_sane_weighted(const struct agree_weighted *w)
{
	const struct agree_stat *all[] = {
		&w->po, &w->pe, &w->kappa, &w->se, &w->se0, &w->z, &w->p_two,
		&w->p_one, &w->ci_low, &w->ci_high, &w->scott_pe,
		&w->scott_pi, &w->bennett_s, &w->ac2_pe, &w->ac2,
	};
	size_t i;

	for (i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		assert_true(stat_sane(all[i]));
	assert_sane_alpha(&w->alpha);
}

static void assert_sane_fleiss(const struct agree_fleiss *f)
{
	const struct agree_stat *all[] = {
		&f->po, &f->pe, &f->kappa, &f->se0, &f->z, &f->p_two,
		&f->p_one, &f->bennett_s, &f->ac1_pe, &f->ac1,
	};
	size_t i;

	for (i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		assert_true(stat_sane(all[i]));
	assert_true(f->band == agree_band(&f->kappa));
}

static void assert_sane_code(const struct agree_code *c)
{
	assert_sane(c->kappa);
	assert_sane(c->pi);
	assert_sane(c->pos);
	assert_sane(c->neg);
}

/* ---- reference cases: expected leaves and checking ---------------------- */

struct leaf {
	char *path;
	const cJSON *node;	/* {value, tol, ...} or a string */
	int checked;
	int skipped;
};

struct ctx {
	const cJSON *c;		/* the case */
	const char *name;
	struct leaf *leaves;
	size_t nr, alloc;
	int failures;
};

static int is_leaf(const cJSON *x)
{
	return cJSON_IsObject(x) &&
	       cJSON_GetObjectItemCaseSensitive(x, "value") != NULL;
}

static void collect_leaves(struct ctx *x, const cJSON *node, const char *prefix)
{
	const cJSON *child;
	int i = 0;

	cJSON_ArrayForEach(child, node) {
		struct buf path = BUF_INIT;

		if (cJSON_IsArray(node))
			buf_addf(&path, "%s[%d]", prefix, i++);
		else if (*prefix)
			buf_addf(&path, "%s.%s", prefix, child->string);
		else
			buf_addstr(&path, child->string);
		if (is_leaf(child) || cJSON_IsString(child) ||
		    cJSON_IsNumber(child) || cJSON_IsNull(child)) {
			ALLOC_GROW(x->leaves, x->nr + 1, x->alloc);
			x->leaves[x->nr].path = buf_detach(&path, NULL);
			x->leaves[x->nr].node = child;
			x->leaves[x->nr].checked = 0;
			x->leaves[x->nr].skipped = 0;
			x->nr++;
		} else {
			collect_leaves(x, child, path.ptr);
			buf_release(&path);
		}
	}
}

static struct leaf *find_leaf(struct ctx *x, const char *path)
{
	size_t i;

	for (i = 0; i < x->nr; i++)
		if (!strcmp(x->leaves[i].path, path))
			return &x->leaves[i];
	return NULL;
}

static double num_field(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

/* The source's own tolerance: the leaf's, else the case's, else -1. */
static double source_tol(struct ctx *x, const struct leaf *l)
{
	double t = num_field(l->node, "source_tol");

	return t >= 0 ? t : num_field(x->c, "source_tol");
}

static struct tol_override *find_override(struct ctx *x, const char *path)
{
	size_t i;

	for (i = 0; i < NR_OVERRIDES; i++)
		if (!fnmatch(overrides[i].cases, x->name, 0) &&
		    match_keys(overrides[i].keys, path))
			return &overrides[i];
	return NULL;
}

static struct skip *find_skip(struct ctx *x, const char *path)
{
	size_t i;

	for (i = 0; i < NR_SKIPS; i++)
		if (!fnmatch(skips[i].cases, x->name, 0) &&
		    match_keys(skips[i].keys, path))
			return &skips[i];
	return NULL;
}

static void skip_leaf(struct leaf *l, struct skip *sk)
{
	l->skipped = 1;
	sk->used++;
	nr_skipped++;
}

static void mismatch(struct ctx *x, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void mismatch(struct ctx *x, const char *path, const char *fmt, ...)
{
	struct buf b = BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	buf_vaddf(&b, fmt, ap);
	va_end(ap);
	print_error("%s: %s: %s\n", x->name, path, b.ptr);
	buf_release(&b);
	x->failures++;
}

static int close_enough(double got, double want, double tol)
{
	return fabs(got - want) <= tol + 4 * DBL_EPSILON * fabs(want);
}

/* Offer value `s` under key `path`: compared if the case expects it and
 * the skip list does not exclude it.  The first offer of a key counts. */
static void check(struct ctx *x, const char *path, const struct agree_stat *s)
{
	struct leaf *l = find_leaf(x, path);
	struct tol_override *ov;
	struct skip *sk;
	const cJSON *v;
	double want, tol, wide;

	if (!l || l->checked || l->skipped)
		return;
	if (!stat_sane(s))
		mismatch(x, path, "statistic is not sane (defined %d, value "
			 "%g, why %s)", s->defined, s->value,
			 s->why ? s->why : "NULL");
	sk = find_skip(x, path);
	if (sk) {
		skip_leaf(l, sk);
		return;
	}
	l->checked = 1;
	nr_checked++;
	v = cJSON_GetObjectItemCaseSensitive(l->node, "value");
	if (!v) {
		mismatch(x, path, "expected value is not a number");
		return;
	}
	if (cJSON_IsNull(v)) {
		if (s->defined)
			mismatch(x, path, "expected undefined, got %.10g",
				 s->value);
		return;
	}
	want = v->valuedouble;
	tol = num_field(l->node, "tol");
	if (tol < 0) {
		mismatch(x, path, "no tolerance given");
		return;
	}
	if (!s->defined) {
		mismatch(x, path, "expected %.10g, got undefined (%s)", want,
			 s->why);
		return;
	}
	if (close_enough(s->value, want, tol))
		return;
	ov = find_override(x, path);
	wide = source_tol(x, l);
	if (ov && wide > tol && close_enough(s->value, want, wide)) {
		ov->used++;
		nr_widened++;
		buf_addf(&widened, "    %s / %s: got %.6g, published %.6g "
			 "(tol %g, source_tol %g)\n", x->name, path, s->value,
			 want, tol, wide);
		return;
	}
	mismatch(x, path, "expected %.10g (tol %g%s), got %.15g (off by "
		 "%.3g)", want, tol, ov ? ", override too" : "", s->value,
		 fabs(s->value - want));
}

static void check_num(struct ctx *x, const char *path, double v)
{
	struct agree_stat s = { v, 1, NULL };

	check(x, path, &s);
}

/* A statistic scaled by `f` (percent, distance units). */
static void check_scaled(struct ctx *x, const char *path,
			 const struct agree_stat *s, double f)
{
	struct agree_stat t = *s;

	if (t.defined)
		t.value *= f;
	check(x, path, &t);
}

static void checkf(struct ctx *x, const struct agree_stat *s,
		   const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void checkf(struct ctx *x, const struct agree_stat *s,
		   const char *fmt, ...)
{
	struct buf b = BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	buf_vaddf(&b, fmt, ap);
	va_end(ap);
	check(x, b.ptr, s);
	buf_release(&b);
}

/* ---- reference cases: building inputs ----------------------------------- */

/* Distinct labels of a case (numbers sorted numerically, then strings),
 * mapped to codes 0..n-1. */
struct valset {
	const cJSON **v;
	size_t n, alloc;
};

static int val_cmp(const cJSON *a, const cJSON *b)
{
	if (cJSON_IsNumber(a) && cJSON_IsNumber(b))
		return a->valuedouble < b->valuedouble ? -1 :
		       a->valuedouble > b->valuedouble;
	if (cJSON_IsNumber(a) != cJSON_IsNumber(b))
		return cJSON_IsNumber(a) ? -1 : 1;
	return strcmp(a->valuestring, b->valuestring);
}

static int valset_index(const struct valset *s, const cJSON *x)
{
	size_t i;

	if (!x || cJSON_IsNull(x))
		return AGREE_MISSING;
	for (i = 0; i < s->n; i++)
		if (!val_cmp(s->v[i], x))
			return (int)i;
	return -2;
}

static void valset_add_all(struct valset *s, const cJSON *arr)
{
	const cJSON *x;

	cJSON_ArrayForEach(x, arr) {
		size_t i;

		if (cJSON_IsArray(x)) {
			valset_add_all(s, x);
			continue;
		}
		if (cJSON_IsNull(x) || valset_index(s, x) >= 0)
			continue;
		ALLOC_GROW(s->v, s->n + 1, s->alloc);
		for (i = s->n; i > 0 && val_cmp(s->v[i - 1], x) > 0; i--)
			s->v[i] = s->v[i - 1];
		s->v[i] = x;
		s->n++;
	}
}

static void valset_release(struct valset *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}

static const cJSON *get(const cJSON *o, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(o, key);
}

/* Labels of array `arr` as codes of `vs` into a new int array. */
static int *codes_of(const struct valset *vs, const cJSON *arr, size_t *n)
{
	int *v;
	const cJSON *x;
	size_t i = 0;

	*n = (size_t)cJSON_GetArraySize(arr);
	v = xcalloc(*n ? *n : 1, sizeof(*v));
	cJSON_ArrayForEach(x, arr)
		v[i++] = valset_index(vs, x);
	return v;
}

/* A case's two-coder table, from "table" (k = its size, the categories)
 * or from "ratings_a"/"ratings_b" (k = observed labels, null = missing).
 * `vs` receives the labels when built from ratings. */
static void case_table(const cJSON *c, struct agree_table *t,
		       struct valset *vs)
{
	const cJSON *table = get(c, "table"), *row, *x;

	memset(vs, 0, sizeof(*vs));
	if (table) {
		int i = 0, k = cJSON_GetArraySize(table);

		agree_table_init(t, k);
		cJSON_ArrayForEach(row, table) {
			int j = 0;

			cJSON_ArrayForEach(x, row)
				t->n[i * k + j++] = (long)x->valuedouble;
			i++;
		}
	} else {
		const cJSON *ra = get(c, "ratings_a");
		const cJSON *rb = get(c, "ratings_b");
		struct err e = ERR_INIT;
		int *a, *b;
		size_t na, nb;

		valset_add_all(vs, ra);
		valset_add_all(vs, rb);
		a = codes_of(vs, ra, &na);
		b = codes_of(vs, rb, &nb);
		assert_int_equal(na, nb);
		assert_int_equal(agree_table_from_labels(t, (int)vs->n, a, b,
							 na, NULL, &e), 0);
		free(a);
		free(b);
	}
}

/* The category labels of a table case ("categories", else 0..k-1). */
static void case_categories(const cJSON *c, struct valset *vs)
{
	const cJSON *cats = get(c, "categories"), *x;

	if (vs->n || !cats)
		return;
	/* table order, not sorted order */
	cJSON_ArrayForEach(x, cats) {
		ALLOC_GROW(vs->v, vs->n + 1, vs->alloc);
		vs->v[vs->n++] = x;
	}
}

/* agree_weighted() with weights of `kind` over `scores` (NULL: code
 * positions 0..k-1, as irrCAC, dkpro and sklearn use). */
static void weighted_by(const struct agree_table *t, enum agree_weighting kind,
			const double *scores, struct agree_weighted *w)
{
	double *wt = xcalloc((size_t)t->k * (size_t)t->k, sizeof(*wt));
	struct err e = ERR_INIT;

	assert_int_equal(agree_weights(wt, t->k, kind, scores, &e), 0);
	assert_int_equal(agree_weighted(t, wt, w, &e), 0);
	assert_sane_weighted(w);
	free(wt);
}

static double *json_doubles(const cJSON *arr, size_t *n)
{
	const cJSON *x;
	double *v;
	size_t i = 0;

	*n = (size_t)cJSON_GetArraySize(arr);
	v = xcalloc(*n ? *n : 1, sizeof(*v));
	cJSON_ArrayForEach(x, arr)
		v[i++] = x->valuedouble;
	return v;
}

/* Disagreement matrix -> agree_weighted; returns max(d) for rescaling. */
static double weighted_by_distance(const struct agree_table *t,
				   const cJSON *matrix,
				   struct agree_weighted *w)
{
	size_t kk = (size_t)t->k, i = 0;
	double *d = xcalloc(kk * kk, sizeof(*d));
	double *wt = xcalloc(kk * kk, sizeof(*wt));
	double max = 0;
	const cJSON *row, *x;
	struct err e = ERR_INIT;

	cJSON_ArrayForEach(row, matrix)
		cJSON_ArrayForEach(x, row) {
			d[i] = x->valuedouble;
			if (d[i] > max)
				max = d[i];
			i++;
		}
	assert_int_equal(i, kk * kk);
	assert_int_equal(agree_weights_from_distance(wt, t->k, d, &e), 0);
	assert_int_equal(agree_weighted(t, wt, w, &e), 0);
	assert_sane_weighted(w);
	free(d);
	free(wt);
	return max;
}

static void check_cohen_keys(struct ctx *x, const struct agree_cohen *ck)
{
	check(x, "po", &ck->po);
	check(x, "pe", &ck->pe);
	check(x, "kappa", &ck->kappa);
	check(x, "se", &ck->se);
	check(x, "se0", &ck->se0);
	check(x, "z", &ck->z);
	check(x, "p_one_sided", &ck->p_one);
	check(x, "p_two_sided", &ck->p_two);
	check(x, "ci_low", &ck->ci_low);
	check(x, "ci_high", &ck->ci_high);
	check(x, "po_max", &ck->po_max);
	check(x, "kappa_max", &ck->kappa_max);
	check(x, "scott_pi_pe", &ck->scott_pe);
	check(x, "scott_pi", &ck->scott_pi);
	check(x, "bennett_s", &ck->bennett_s);
	check(x, "ac1_pe", &ck->ac1_pe);
	check(x, "ac1", &ck->ac1);
	check(x, "alpha_nominal", &ck->alpha.alpha);
	check(x, "alpha_Do", &ck->alpha.d_o);
	check(x, "alpha_De", &ck->alpha.d_e);
}

/* method "cohen": one table (or two label vectors). */
static void run_cohen(struct ctx *x)
{
	struct agree_table t = AGREE_TABLE_INIT;
	struct agree_cohen ck;
	struct agree_weighted wq;
	struct valset vs;
	struct err e = ERR_INIT;
	size_t i;

	case_table(x->c, &t, &vs);
	case_categories(x->c, &vs);
	assert_int_equal(agree_cohen(&t, &ck, &e), 0);
	assert_sane_cohen(&ck);
	check_cohen_keys(x, &ck);

	/* per-category Scott's pi (dkpro category agreement) */
	for (i = 0; i < vs.n; i++) {
		struct agree_code code;

		assert_int_equal(agree_code(&t, (int)i, &code, &e), 0);
		assert_sane_code(&code);
		if (cJSON_IsNumber(vs.v[i]))
			checkf(x, &code.pi, "category_pi.%g",
			       vs.v[i]->valuedouble);
		else
			checkf(x, &code.pi, "category_pi.%s",
			       vs.v[i]->valuestring);
	}

	/* AC2 with quadratic weights on the code positions */
	weighted_by(&t, AGREE_QUADRATIC, NULL, &wq);
	check(x, "ac2_quadratic", &wq.ac2);
	check(x, "ac2_quadratic_pa", &wq.po);
	check(x, "ac2_quadratic_pe", &wq.ac2_pe);

	valset_release(&vs);
	agree_table_release(&t);
}

static void check_weighted_keys(struct ctx *x, const struct agree_weighted *w,
				double dmax)
{
	struct agree_stat d_o = w->po, d_e = w->pe;

	/* with agreement weights 1 - d/dmax: D_o = dmax (1 - po_w) */
	d_o.value = dmax * (1 - w->po.value);
	d_e.value = dmax * (1 - w->pe.value);
	check(x, "kappa", &w->kappa);
	check(x, "se", &w->se);
	check(x, "se0", &w->se0);
	check(x, "z", &w->z);
	check(x, "p_one_sided", &w->p_one);
	check(x, "p_two_sided", &w->p_two);
	check(x, "ci_low", &w->ci_low);
	check(x, "ci_high", &w->ci_high);
	check(x, "Do", &d_o);
	check(x, "De", &d_e);
	check(x, "alpha", &w->alpha.alpha);
	check_scaled(x, "alpha_Do", &w->alpha.d_o, dmax);
	check_scaled(x, "alpha_De", &w->alpha.d_e, dmax);
}

/* method "weighted": one weighting, given as scores or a distance matrix. */
static void run_weighted(struct ctx *x)
{
	const cJSON *spec = get(x->c, "weights");
	const char *type = get(spec, "type")->valuestring;
	struct agree_table t = AGREE_TABLE_INIT;
	struct agree_weighted w;
	struct valset vs;
	double dmax = 1;

	case_table(x->c, &t, &vs);
	if (!strcmp(type, "linear") || !strcmp(type, "quadratic")) {
		size_t n;
		double *s = json_doubles(get(spec, "scores"), &n);

		assert_int_equal(n, t.k);
		weighted_by(&t, type[0] == 'l' ? AGREE_LINEAR :
			    AGREE_QUADRATIC, s, &w);
		free(s);
	} else if (!strcmp(type, "disagreement_matrix")) {
		dmax = weighted_by_distance(&t, get(spec, "matrix"), &w);
	} else {
		mismatch(x, "weights", "unknown weight type %s", type);
		goto out;
	}
	check_weighted_keys(x, &w, dmax);
out:
	valset_release(&vs);
	agree_table_release(&t);
}

/* method "weighted_multi": several weightings of one table. */
static void run_weighted_multi(struct ctx *x)
{
	const cJSON *sets = get(x->c, "weights_sets"), *set;
	struct agree_table t = AGREE_TABLE_INIT;
	struct agree_cohen ck;
	struct agree_weighted w;
	struct valset vs;
	struct err e = ERR_INIT;

	case_table(x->c, &t, &vs);
	assert_int_equal(agree_cohen(&t, &ck, &e), 0);
	check(x, "kappa_unweighted", &ck.kappa);
	/* sklearn: disagreement |i-j| or (i-j)^2 on label indexes */
	weighted_by(&t, AGREE_LINEAR, NULL, &w);
	check(x, "kappa_linear", &w.kappa);
	weighted_by(&t, AGREE_QUADRATIC, NULL, &w);
	check(x, "kappa_quadratic", &w.kappa);
	cJSON_ArrayForEach(set, sets) {
		weighted_by_distance(&t, get(set, "matrix"), &w);
		check(x, set->string, &w.kappa);
	}
	valset_release(&vs);
	agree_table_release(&t);
}

/* method "irrcac_table": irrCAC's coefficients on a table, identity or
 * quadratic weights ("ac1" is AC2 and "bp" the weighted S when weighted). */
static void run_irrcac_table(struct ctx *x)
{
	const cJSON *spec = get(x->c, "weights");
	const char *type = get(spec, "type")->valuestring;
	struct agree_table t = AGREE_TABLE_INIT;
	struct agree_weighted w;
	struct valset vs;
	double *s = NULL;
	size_t n;

	case_table(x->c, &t, &vs);
	if (get(spec, "scores"))
		s = json_doubles(get(spec, "scores"), &n);
	if (!strcmp(type, "identity")) {
		struct agree_cohen ck;
		struct err e = ERR_INIT;

		assert_int_equal(agree_cohen(&t, &ck, &e), 0);
		assert_sane_cohen(&ck);
		check(x, "kappa", &ck.kappa);
		check(x, "kappa_se", &ck.se);
		check(x, "scott_pi", &ck.scott_pi);
		check(x, "ac1", &ck.ac1);
		check(x, "bp", &ck.bennett_s);
		check(x, "alpha", &ck.alpha.alpha);
		check(x, "pa", &ck.po);
	} else if (!strcmp(type, "quadratic")) {
		weighted_by(&t, AGREE_QUADRATIC, s, &w);
		check(x, "kappa", &w.kappa);
		check(x, "kappa_se", &w.se);
		check(x, "scott_pi", &w.scott_pi);
		check(x, "ac1", &w.ac2);
		check(x, "bp", &w.bennett_s);
		check(x, "alpha", &w.alpha.alpha);
		check(x, "pa", &w.po);
	} else {
		mismatch(x, "weights", "unknown weight type %s", type);
	}
	free(s);
	valset_release(&vs);
	agree_table_release(&t);
}

/* method "irr_kappa2": irr builds its levels from the observed values, so
 * the table is over observed codes; weights go by level distance. */
static void run_irr_kappa2(struct ctx *x)
{
	const cJSON *spec = get(x->c, "weights");
	const char *type = get(spec, "type")->valuestring;
	const cJSON *wt = get(spec, "weight");
	struct agree_table t = AGREE_TABLE_INIT;
	struct agree_weighted w;
	struct valset vs;
	struct err e = ERR_INIT;

	case_table(x->c, &t, &vs);
	if (!strcmp(type, "identity")) {
		struct agree_cohen ck;

		assert_int_equal(agree_cohen(&t, &ck, &e), 0);
		assert_sane_cohen(&ck);
		check(x, "kappa", &ck.kappa);
		check(x, "z", &ck.z);
		check(x, "p_two_sided", &ck.p_two);
	} else if (cJSON_IsString(wt)) {
		weighted_by(&t, !strcmp(wt->valuestring, "equal") ?
			    AGREE_LINEAR : AGREE_QUADRATIC, NULL, &w);
		check(x, "kappa", &w.kappa);
		check(x, "z", &w.z);
		check(x, "p_two_sided", &w.p_two);
	} else {
		/* numeric vector v: weight 1 - (v[|i-j|] - min)/(max - min) */
		size_t n, kk = (size_t)t.k, i, j;
		double *v = json_doubles(wt, &n), lo = v[0], hi = v[0];
		double *m = xcalloc(kk * kk, sizeof(*m));

		assert_int_equal(n, kk);
		for (i = 0; i < n; i++) {
			lo = v[i] < lo ? v[i] : lo;
			hi = v[i] > hi ? v[i] : hi;
		}
		for (i = 0; i < kk; i++)
			for (j = 0; j < kk; j++)
				m[i * kk + j] = 1 - (v[i > j ? i - j : j - i] -
						     lo) / (hi - lo);
		assert_int_equal(agree_weighted(&t, m, &w, &e), 0);
		assert_sane_weighted(&w);
		check(x, "kappa", &w.kappa);
		check(x, "z", &w.z);
		check(x, "p_two_sided", &w.p_two);
		free(v);
		free(m);
	}
	valset_release(&vs);
	agree_table_release(&t);
}

/* Coders x units "reliability_data" as labels over the sorted values. */
static int *case_labels(const cJSON *c, struct valset *vs,
			struct agree_labels *l)
{
	const cJSON *data = get(c, "reliability_data"), *row, *x;
	int *v, coder = 0;

	memset(vs, 0, sizeof(*vs));
	valset_add_all(vs, data);
	l->n_coders = cJSON_GetArraySize(data);
	l->n_units = (size_t)cJSON_GetArraySize(data->child);
	l->k = (int)vs->n;
	v = xcalloc((size_t)l->n_coders * l->n_units, sizeof(*v));
	cJSON_ArrayForEach(row, data) {
		size_t u = 0;

		assert_int_equal(cJSON_GetArraySize(row), l->n_units);
		cJSON_ArrayForEach(x, row)
			v[(size_t)coder * l->n_units + u++] =
				valset_index(vs, x);
		coder++;
	}
	l->v = v;
	return v;
}

static void alpha_level(struct ctx *x, const struct agree_counts *cnt,
			const struct valset *vs, const char *level,
			const char *prefix)
{
	struct agree_alpha a;
	struct err e = ERR_INIT;
	enum agree_metric m;
	double *values = NULL;
	size_t i;

	if (!strcmp(level, "nominal")) {
		m = AGREE_NOMINAL;
	} else if (!strcmp(level, "ordinal")) {
		m = AGREE_ORDINAL;
	} else if (!strcmp(level, "interval") || !strcmp(level, "ratio")) {
		m = level[0] == 'i' ? AGREE_INTERVAL : AGREE_RATIO;
		values = xcalloc(vs->n, sizeof(*values));
		for (i = 0; i < vs->n; i++)
			values[i] = vs->v[i]->valuedouble;
	} else {
		mismatch(x, level, "unknown level");
		return;
	}
	assert_int_equal(agree_alpha(cnt, m, values, &a, &e), 0);
	assert_sane_alpha(&a);
	checkf(x, &a.alpha, "%s%salpha", prefix, *prefix ? "." : "");
	checkf(x, &a.d_o, "%s%sDo", prefix, *prefix ? "." : "");
	checkf(x, &a.d_e, "%s%sDe", prefix, *prefix ? "." : "");
	checkf(x, &a.po, "%s%spa", prefix, *prefix ? "." : "");
	free(values);
	if (m != AGREE_NOMINAL)
		return;
	for (i = 0; i < vs->n; i++) {
		struct agree_alpha ac;

		assert_int_equal(agree_alpha_code(cnt, (int)i, &ac, &e), 0);
		assert_sane_alpha(&ac);
		checkf(x, &ac.alpha, "%s%scategory_alpha.%g", prefix,
		       *prefix ? "." : "", vs->v[i]->valuedouble);
	}
}

/* methods "kripp" (one level) and "kripp_levels" (level -> keys). */
static void run_kripp(struct ctx *x)
{
	struct agree_labels l;
	struct agree_counts cnt = AGREE_COUNTS_INIT;
	struct valset vs;
	struct err e = ERR_INIT;
	int *v = case_labels(x->c, &vs, &l);
	const cJSON *level = get(x->c, "level"), *lv;

	assert_int_equal(agree_counts_from_labels(&cnt, &l, &e), 0);
	if (level) {
		alpha_level(x, &cnt, &vs, level->valuestring, "");
	} else {
		cJSON_ArrayForEach(lv, get(x->c, "expected"))
			alpha_level(x, &cnt, &vs, lv->string, lv->string);
	}
	agree_counts_release(&cnt);
	valset_release(&vs);
	free(v);
}

/* method "freelon2": ReCal2 / PRAM / Hayes on two coders. */
static void run_freelon2(struct ctx *x)
{
	static const char *const src[] = { "recal2", "pram", "hayes_macro" };
	struct agree_table t = AGREE_TABLE_INIT;
	struct agree_cohen ck;
	struct valset vs;
	struct err e = ERR_INIT;
	struct buf key = BUF_INIT;
	size_t i;

	case_table(x->c, &t, &vs);
	assert_int_equal(agree_cohen(&t, &ck, &e), 0);
	assert_sane_cohen(&ck);
	for (i = 0; i < sizeof(src) / sizeof(src[0]); i++) {
		buf_reset(&key);
		buf_addf(&key, "pa_percent_%s", src[i]);
		check_scaled(x, key.ptr, &ck.po, 100);
		buf_reset(&key);
		buf_addf(&key, "scott_pi_%s", src[i]);
		check(x, key.ptr, &ck.scott_pi);
		buf_reset(&key);
		buf_addf(&key, "kappa_%s", src[i]);
		check(x, key.ptr, &ck.kappa);
		buf_reset(&key);
		buf_addf(&key, "alpha_%s", src[i]);
		check(x, key.ptr, &ck.alpha.alpha);
	}
	buf_release(&key);
	valset_release(&vs);
	agree_table_release(&t);
}

/* method "freelon3": ReCal3 / PRAM / irr / Hayes on several coders. */
static void run_freelon3(struct ctx *x)
{
	static const char *const src[] = {
		"recal3", "pram", "irr", "hayes_macro"
	};
	struct agree_labels l;
	struct agree_counts cnt = AGREE_COUNTS_INIT;
	struct agree_fleiss f;
	struct agree_alpha a;
	struct agree_pairwise pw;
	struct valset vs;
	struct err e = ERR_INIT;
	struct buf key = BUF_INIT;
	int *v = case_labels(x->c, &vs, &l);
	size_t i;

	assert_int_equal(agree_counts_from_labels(&cnt, &l, &e), 0);
	assert_int_equal(agree_fleiss(&cnt, &f, &e), 0);
	assert_sane_fleiss(&f);
	assert_int_equal(agree_alpha(&cnt, AGREE_NOMINAL, NULL, &a, &e), 0);
	assert_sane_alpha(&a);
	assert_int_equal(agree_pairwise(&l, &pw, &e), 0);
	assert_sane(pw.mean_kappa);
	assert_sane(pw.mean_po);
	for (i = 0; i < sizeof(src) / sizeof(src[0]); i++) {
		buf_reset(&key);
		buf_addf(&key, "mean_pairwise_pa_percent_%s", src[i]);
		check_scaled(x, key.ptr, &pw.mean_po, 100);
		buf_reset(&key);
		buf_addf(&key, "fleiss_%s", src[i]);
		check(x, key.ptr, &f.kappa);
		buf_reset(&key);
		buf_addf(&key, "mean_pairwise_kappa_%s", src[i]);
		check(x, key.ptr, &pw.mean_kappa);
		buf_reset(&key);
		buf_addf(&key, "alpha_%s", src[i]);
		check(x, key.ptr, &a.alpha);
	}
	buf_release(&key);
	agree_counts_release(&cnt);
	valset_release(&vs);
	free(v);
}

/* method "fleiss": "counts" (units x codes) or "raw_subject_ratings"
 * (units x raters, labels). */
static void run_fleiss(struct ctx *x)
{
	const cJSON *counts = get(x->c, "counts");
	const cJSON *raw = get(x->c, "raw_subject_ratings"), *row, *v;
	struct agree_counts cnt = AGREE_COUNTS_INIT;
	struct agree_fleiss f;
	struct agree_alpha a;
	struct agree_stat pa;
	struct valset vs = { 0 };
	struct err e = ERR_INIT;
	size_t u = 0, i;

	if (counts) {
		agree_counts_init(&cnt, (size_t)cJSON_GetArraySize(counts),
				  cJSON_GetArraySize(counts->child));
		cJSON_ArrayForEach(row, counts) {
			size_t j = 0;

			cJSON_ArrayForEach(v, row)
				cnt.n[u * (size_t)cnt.k + j++] = v->valuedouble;
			u++;
		}
	} else {
		valset_add_all(&vs, raw);
		agree_counts_init(&cnt, (size_t)cJSON_GetArraySize(raw),
				  (int)vs.n);
		cJSON_ArrayForEach(row, raw) {
			cJSON_ArrayForEach(v, row) {
				int code = valset_index(&vs, v);

				cnt.n[u * vs.n + (size_t)code]++;
			}
			u++;
		}
	}
	assert_int_equal(agree_fleiss(&cnt, &f, &e), 0);
	assert_sane_fleiss(&f);
	check(x, "kappa", &f.kappa);
	check(x, "z_irr", &f.z);
	check(x, "po", &f.po);
	check(x, "pe", &f.pe);
	check(x, "randolph", &f.bennett_s);
	check(x, "bp", &f.bennett_s);
	check(x, "ac1", &f.ac1);
	check(x, "ac1_pe", &f.ac1_pe);
	for (i = 0; i < vs.n; i++) {
		struct agree_stat kc;

		assert_int_equal(agree_fleiss_code(&cnt, (int)i, &kc, &e), 0);
		assert_sane(kc);
		checkf(x, &kc, "category_kappa.%g", vs.v[i]->valuedouble);
	}
	assert_int_equal(agree_alpha(&cnt, AGREE_NOMINAL, NULL, &a, &e), 0);
	assert_sane_alpha(&a);
	check(x, "alpha", &a.alpha);
	/* irrCAC's alpha "pa" is 1 - D_o (N - 1)/N, the observed agreement
	 * that makes alpha = (pa - pe)/(1 - pe) with pe = sum (n_c/N)^2. */
	pa = a.d_o;
	if (pa.defined)
		pa.value = 1 - a.d_o.value * (a.n_values - 1) / a.n_values;
	check(x, "alpha_pa", &pa);
	valset_release(&vs);
	agree_counts_release(&cnt);
}

/* Sets of labels as bitmasks over the labels of `vs`. */
static uint64_t set_mask(const struct valset *vs, const cJSON *set)
{
	const cJSON *v;
	uint64_t m = 0;

	cJSON_ArrayForEach(v, set)
		m |= (uint64_t)1 << valset_index(vs, v);
	return m;
}

/* method "set_alpha": two coders' label sets per item. */
static void run_set_alpha(struct ctx *x)
{
	const cJSON *pairs = get(x->c, "set_pairs"), *p;
	struct valset vs = { 0 };
	struct agree_alpha a;
	struct agree_multi m;
	struct err e = ERR_INIT;
	size_t n = (size_t)cJSON_GetArraySize(pairs), i = 0;
	uint64_t *sa = xcalloc(n, sizeof(*sa)), *sb = xcalloc(n, sizeof(*sb));

	valset_add_all(&vs, pairs);
	cJSON_ArrayForEach(p, pairs) {
		sa[i] = set_mask(&vs, cJSON_GetArrayItem(p, 0));
		sb[i] = set_mask(&vs, cJSON_GetArrayItem(p, 1));
		i++;
	}
	assert_int_equal(agree_multi_alpha(sa, sb, n, AGREE_SET_PASSONNEAU,
					   &a, &e), 0);
	assert_sane_alpha(&a);
	check(x, "set_distance.alpha", &a.alpha);
	check(x, "set_distance.Do", &a.d_o);
	check(x, "set_distance.De", &a.d_e);
	assert_int_equal(agree_multi((int)vs.n, sa, sb, n, NULL, &m, &e), 0);
	check(x, "pa_exact_set_match", &m.exact);
	free(sa);
	free(sb);
	valset_release(&vs);
}

/* method "nltk_distances" */
static void run_nltk_distances(struct ctx *x)
{
	struct valset vs = { 0 };
	uint64_t a, b;

	valset_add_all(&vs, get(x->c, "set_a"));
	valset_add_all(&vs, get(x->c, "set_b"));
	a = set_mask(&vs, get(x->c, "set_a"));
	b = set_mask(&vs, get(x->c, "set_b"));
	check_num(x, "binary_distance",
		  agree_set_distance(a, b, AGREE_SET_BINARY));
	check_num(x, "jaccard_distance",
		  agree_set_distance(a, b, AGREE_SET_JACCARD));
	check_num(x, "masi_distance", agree_set_distance(a, b, AGREE_SET_MASI));
	valset_release(&vs);
}

/* method "bands": Gwet's benchmarking probabilities. */
static void run_bands(struct ctx *x)
{
	static const enum agree_band lk[] = {
		AGREE_BAND_ALMOST_PERFECT, AGREE_BAND_SUBSTANTIAL,
		AGREE_BAND_MODERATE, AGREE_BAND_FAIR, AGREE_BAND_SLIGHT,
		AGREE_BAND_POOR,
	};
	const cJSON *bands = get(x->c, "bands"), *scale, *b;
	double coef = get(x->c, "coefficient")->valuedouble;
	double se = get(x->c, "coefficient_se")->valuedouble;

	cJSON_ArrayForEach(scale, bands) {
		int i = 0;

		cJSON_ArrayForEach(b, scale) {
			double lower = cJSON_GetArrayItem(b, 0)->valuedouble;
			const char *label =
				cJSON_GetArrayItem(b, 2)->valuestring;
			struct agree_stat p;

			if (!strcmp(scale->string, "landis_koch")) {
				/* our bands are the published ones */
				assert_true(i < 6);
				assert_true(lower == agree_band_lower(lk[i]));
				assert_int_equal(strcasecmp(label,
					agree_band_name(lk[i])), 0);
				lower = agree_band_lower(lk[i]);
			}
			p = agree_band_cumprob(coef, se, lower);
			checkf(x, &p, "%s_cumprob[%d]", scale->string, i);
			i++;
		}
	}
	/* Gwet: first band from the top with cumprob > .95 */
	assert_int_equal(agree_band_benchmark(coef, se), AGREE_BAND_MODERATE);
}

static const struct method {
	const char *name;
	void (*run)(struct ctx *x);
} methods[] = {
	{ "cohen", run_cohen },
	{ "weighted", run_weighted },
	{ "weighted_multi", run_weighted_multi },
	{ "irrcac_table", run_irrcac_table },
	{ "irr_kappa2", run_irr_kappa2 },
	{ "kripp", run_kripp },
	{ "kripp_levels", run_kripp },
	{ "freelon2", run_freelon2 },
	{ "freelon3", run_freelon3 },
	{ "fleiss", run_fleiss },
	{ "set_alpha", run_set_alpha },
	{ "nltk_distances", run_nltk_distances },
	{ "bands", run_bands },
};

static void test_case(void **state)
{
	const cJSON *c = *state;
	const char *method = get(c, "method")->valuestring;
	struct ctx x;
	size_t i;

	memset(&x, 0, sizeof(x));
	x.c = c;
	x.name = get(c, "name")->valuestring;
	collect_leaves(&x, get(c, "expected"), "");
	nr_cases_run++;

	for (i = 0; i < sizeof(methods) / sizeof(methods[0]); i++)
		if (!strcmp(methods[i].name, method)) {
			methods[i].run(&x);
			break;
		}
	if (i == sizeof(methods) / sizeof(methods[0]))
		mismatch(&x, "method", "no handler for method %s", method);

	for (i = 0; i < x.nr; i++) {
		struct leaf *l = &x.leaves[i];

		if (!l->checked && !l->skipped) {
			struct skip *sk = find_skip(&x, l->path);

			if (sk)
				skip_leaf(l, sk);
			else
				mismatch(&x, l->path, "expected value is "
					 "neither checked nor in the skip "
					 "list");
		}
		free(l->path);
	}
	free(x.leaves);
	if (x.failures)
		fail_msg("%s: %d mismatches", x.name, x.failures);
}

/* Last: every skip entry and override was needed; print the summary. */
static void test_reference_summary(void **state)
{
	int stale = 0;
	size_t i;

	(void)state;
	print_message("agreement references: %d cases, %ld expected values "
		      "checked (%ld of them at the source's tolerance), %ld "
		      "skipped\n", nr_cases_run, nr_checked, nr_widened,
		      nr_skipped);
	for (i = 0; i < NR_SKIPS; i++) {
		print_message("  skipped %d: %s / %s: %s\n", skips[i].used,
			      skips[i].cases, skips[i].keys, skips[i].why);
		if (!skips[i].used) {
			print_error("skip entry %s / %s matches nothing\n",
				    skips[i].cases, skips[i].keys);
			stale++;
		}
	}
	for (i = 0; i < NR_OVERRIDES; i++) {
		print_message("  source_tol for %d: %s / %s: %s\n",
			      overrides[i].used, overrides[i].cases,
			      overrides[i].keys, overrides[i].why);
		if (!overrides[i].used) {
			print_error("override %s / %s was not needed\n",
				    overrides[i].cases, overrides[i].keys);
			stale++;
		}
	}
	if (widened.len) {
		char *line = widened.ptr, *nl;

		/* one line per call: cmocka formats into a 1 KiB buffer */
		print_message("  values compared at source_tol:\n");
		for (; (nl = strchr(line, '\n')); line = nl + 1)
			print_message("%.*s\n", (int)(nl - line), line);
	}
	buf_release(&widened);
	assert_int_equal(nr_cases_run, cJSON_GetArraySize(fixture));
	assert_int_equal(stale, 0);
}

/* ---- part 2: degenerate and consistency cases --------------------------- */

static void table_of(struct agree_table *t, int k, const long *v)
{
	agree_table_init(t, k);
	memcpy(t->n, v, (size_t)k * (size_t)k * sizeof(*v));
}

#define assert_undef(s, text) \
	do { \
		assert_false((s).defined); \
		assert_non_null((s).why); \
		assert_non_null(strstr((s).why, (text))); \
	} while (0)

static int near(double got, double want)
{
	return fabs(got - want) <= 1e-12 * (1 + fabs(want));
}

#define assert_near(got, want) assert_true(near((got), (want)))

#define assert_stat(s, want) \
	do { \
		assert_true((s).defined); \
		assert_near((s).value, (want)); \
	} while (0)

/* Every rating in one code: kappa, pi and alpha are 0/0. */
static void test_one_category(void **state)
{
	static const long one[] = { 5 };
	static const long three[] = { 0, 0, 0, 0, 9, 0, 0, 0, 0 };
	struct agree_table t = AGREE_TABLE_INIT;
	struct agree_cohen ck;
	struct agree_code code;
	struct agree_counts cnt = AGREE_COUNTS_INIT;
	struct agree_fleiss f;
	struct agree_alpha a;
	struct agree_stat kc;
	struct err e = ERR_INIT;
	size_t u;

	(void)state;
	/* a table of one code: S and AC1 need two */
	table_of(&t, 1, one);
	assert_int_equal(agree_cohen(&t, &ck, &e), 0);
	assert_sane_cohen(&ck);
	assert_stat(ck.po, 1);
	assert_stat(ck.pe, 1);
	assert_undef(ck.kappa, "expected agreement is 1: both annotators "
		     "used a single code");
	assert_undef(ck.se, "expected agreement is 1");
	assert_undef(ck.se0, "expected agreement is 1");
	assert_undef(ck.z, "expected agreement is 1");
	assert_undef(ck.p_two, "expected agreement is 1");
	assert_undef(ck.ci_low, "expected agreement is 1");
	assert_undef(ck.kappa_max, "expected agreement is 1");
	assert_undef(ck.scott_pi, "expected agreement is 1");
	assert_undef(ck.bennett_s, "needs at least two codes");
	assert_undef(ck.pabak, "needs at least two codes");
	assert_undef(ck.ac1, "needs at least two codes");
	assert_undef(ck.alpha.alpha, "expected disagreement is 0");
	assert_stat(ck.alpha.d_o, 0);
	assert_int_equal(ck.band, AGREE_BAND_NONE);
	assert_int_equal(ck.k_used, 1);
	agree_table_release(&t);

	/* one code used of three: chance-free coefficients are 1 */
	table_of(&t, 3, three);
	assert_int_equal(agree_cohen(&t, &ck, &e), 0);
	assert_sane_cohen(&ck);
	assert_undef(ck.kappa, "both annotators used a single code");
	assert_stat(ck.bennett_s, 1);
	assert_stat(ck.pabak, 1);
	assert_stat(ck.ac1_pe, 0);
	assert_stat(ck.ac1, 1);
	assert_int_equal(ck.k_used, 1);
	assert_int_equal(agree_code(&t, 1, &code, &e), 0);
	assert_sane_code(&code);
	assert_undef(code.kappa, "both annotators used this code on every");
	assert_undef(code.neg, "both annotators used this code on every");
	assert_stat(code.pos, 1);
	assert_int_equal(agree_code(&t, 0, &code, &e), 0);
	assert_undef(code.kappa, "neither annotator used this code");
	assert_undef(code.pi, "neither annotator used this code");
	assert_undef(code.pos, "neither annotator used this code");
	assert_stat(code.neg, 1);
	agree_table_release(&t);

	/* several raters, one code */
	agree_counts_init(&cnt, 4, 2);
	for (u = 0; u < 4; u++)
		cnt.n[u * 2] = 3;
	assert_int_equal(agree_fleiss(&cnt, &f, &e), 0);
	assert_sane_fleiss(&f);
	assert_stat(f.po, 1);
	assert_undef(f.kappa, "every rating is the same code");
	assert_undef(f.z, "every rating is the same code");
	assert_stat(f.bennett_s, 1);
	assert_stat(f.ac1, 1);
	assert_int_equal(agree_fleiss_code(&cnt, 0, &kc, &e), 0);
	assert_undef(kc, "every rating used this code");
	assert_int_equal(agree_fleiss_code(&cnt, 1, &kc, &e), 0);
	assert_undef(kc, "no rating used this code");
	assert_int_equal(agree_alpha(&cnt, AGREE_NOMINAL, NULL, &a, &e), 0);
	assert_sane_alpha(&a);
	assert_undef(a.alpha, "expected disagreement is 0");
	assert_stat(a.po, 1);
	assert_int_equal(agree_alpha_code(&cnt, 1, &a, &e), 0);
	assert_undef(a.alpha, "no rating used this code");
	agree_counts_release(&cnt);
}

static void test_total_agreement(void **state)
{
	static const long v[] = { 5, 0, 0, 0, 7, 0, 0, 0, 3 };
	struct agree_table t = AGREE_TABLE_INIT;
	struct agree_cohen ck;
	struct agree_weighted w;
	struct err e = ERR_INIT;

	(void)state;
	table_of(&t, 3, v);
	assert_int_equal(agree_cohen(&t, &ck, &e), 0);
	assert_sane_cohen(&ck);
	assert_stat(ck.po, 1);
	assert_stat(ck.kappa, 1);
	assert_stat(ck.se, 0);
	assert_stat(ck.ci_low, 1);
	assert_stat(ck.ci_high, 1);
	assert_true(ck.se0.defined && ck.se0.value > 0);
	assert_true(ck.z.defined && ck.z.value > 0);
	assert_true(ck.p_two.value < 1e-4);
	assert_stat(ck.kappa_max, 1);
	assert_stat(ck.scott_pi, 1);
	assert_stat(ck.bennett_s, 1);
	assert_stat(ck.ac1, 1);
	assert_stat(ck.alpha.alpha, 1);
	assert_int_equal(ck.band, AGREE_BAND_ALMOST_PERFECT);
	weighted_by(&t, AGREE_LINEAR, NULL, &w);
	assert_stat(w.kappa, 1);
	assert_stat(w.alpha.alpha, 1);
	agree_table_release(&t);
}

static void test_no_items(void **state)
{
	static const int a[] = { 0, -1, 1 }, b[] = { -1, 2, -1 };
	struct agree_table t = AGREE_TABLE_INIT;
	struct agree_cohen ck;
	struct agree_weighted w;
	struct agree_code code;
	struct agree_counts cnt = AGREE_COUNTS_INIT;
	struct agree_fleiss f;
	struct agree_alpha al;
	struct agree_multi m;
	struct agree_pairwise pw;
	struct agree_labels l;
	int v[6];
	struct err e = ERR_INIT;
	size_t dropped = 99;

	(void)state;
	/* every item misses a label: an empty table */
	assert_int_equal(agree_table_from_labels(&t, 3, a, b, 3, &dropped,
						 &e), 0);
	assert_int_equal(dropped, 3);
	assert_int_equal(agree_table_total(&t), 0);
	assert_int_equal(agree_cohen(&t, &ck, &e), 0);
	assert_sane_cohen(&ck);
	assert_int_equal(ck.n, 0);
	assert_undef(ck.po, "no items");
	assert_undef(ck.pe, "no items");
	assert_undef(ck.kappa, "no items");
	assert_undef(ck.se0, "no items");
	assert_undef(ck.z, "no items");
	assert_undef(ck.scott_pi, "no items");
	assert_undef(ck.bennett_s, "no items");
	assert_undef(ck.ac1, "no items");
	assert_undef(ck.kappa_max, "no items");
	assert_undef(ck.alpha.alpha, "no items");
	assert_int_equal(ck.band, AGREE_BAND_NONE);
	weighted_by(&t, AGREE_QUADRATIC, NULL, &w);
	assert_undef(w.kappa, "no items");
	assert_int_equal(agree_code(&t, 0, &code, &e), 0);
	assert_sane_code(&code);
	assert_undef(code.kappa, "no items");
	assert_undef(code.pos, "no items");
	agree_table_release(&t);

	/* a table of nothing at all */
	assert_int_equal(agree_table_from_labels(&t, 2, NULL, NULL, 0, NULL,
						 &e), 0);
	assert_int_equal(agree_cohen(&t, &ck, &e), 0);
	assert_undef(ck.kappa, "no items");
	agree_table_release(&t);

	/* counts: no units, then units of one rating each */
	agree_counts_init(&cnt, 0, 3);
	assert_int_equal(agree_fleiss(&cnt, &f, &e), 0);
	assert_sane_fleiss(&f);
	assert_undef(f.kappa, "no item has two ratings");
	assert_int_equal(agree_alpha(&cnt, AGREE_NOMINAL, NULL, &al, &e), 0);
	assert_sane_alpha(&al);
	assert_undef(al.alpha, "no unit has two values");
	agree_counts_release(&cnt);
	agree_counts_init(&cnt, 2, 3);
	cnt.n[0] = 1;
	cnt.n[4] = 1;
	assert_int_equal(agree_fleiss(&cnt, &f, &e), 0);
	assert_int_equal(f.n_units, 0);
	assert_undef(f.po, "no item has two ratings");
	assert_int_equal(agree_alpha(&cnt, AGREE_NOMINAL, NULL, &al, &e), 0);
	assert_undef(al.alpha, "no unit has two values");
	assert_int_equal(al.n_units, 0);
	agree_counts_release(&cnt);

	/* select many, no items */
	assert_int_equal(agree_multi(3, NULL, NULL, 0, NULL, &m, &e), 0);
	assert_undef(m.exact, "no items");
	assert_undef(m.mean_kappa, "no items");
	assert_int_equal(agree_multi_alpha(NULL, NULL, 0, AGREE_SET_JACCARD,
					   &al, &e), 0);
	assert_undef(al.alpha, "no unit has two values");

	/* pairs of coders with no item in common */
	v[0] = 0; v[1] = -1; v[2] = 1;		/* coder 1 */
	v[3] = -1; v[4] = 0; v[5] = -1;		/* coder 2 */
	l.n_coders = 2;
	l.n_units = 3;
	l.k = 2;
	l.v = v;
	assert_int_equal(agree_pairwise(&l, &pw, &e), 0);
	assert_int_equal(pw.n_pairs, 1);
	assert_int_equal(pw.n_undefined, 1);
	assert_undef(pw.mean_po, "no item in common");
	assert_undef(pw.mean_kappa, "no item in common");
}

/* Annotator A always says code 0: kappa is exactly 0, z does not exist. */
static void test_one_annotator_constant(void **state)
{
	static const long v[] = { 10, 3, 2, 0, 0, 0, 0, 0, 0 };
	struct agree_table t = AGREE_TABLE_INIT, tt = AGREE_TABLE_INIT;
	struct agree_cohen ck, ct;
	struct agree_weighted w;
	struct err e = ERR_INIT;
	size_t i, j;

	(void)state;
	table_of(&t, 3, v);
	assert_int_equal(agree_cohen(&t, &ck, &e), 0);
	assert_sane_cohen(&ck);
	assert_true(ck.kappa.defined);
	assert_true(ck.kappa.value == 0);
	assert_stat(ck.se0, 0);
	assert_undef(ck.z, "se0 is 0: one annotator used a single code");
	assert_undef(ck.p_two, "se0 is 0");
	assert_undef(ck.p_one, "se0 is 0");
	assert_true(ck.se.defined);
	assert_true(ck.ci_low.defined && ck.ci_high.defined);
	assert_true(ck.alpha.alpha.defined && ck.alpha.alpha.value < 0);
	assert_int_equal(ck.band, AGREE_BAND_SLIGHT);

	/* B constant instead: same */
	agree_table_init(&tt, 3);
	for (i = 0; i < 3; i++)
		for (j = 0; j < 3; j++)
			tt.n[i * 3 + j] = t.n[j * 3 + i];
	assert_int_equal(agree_cohen(&tt, &ct, &e), 0);
	assert_true(ct.kappa.value == 0);
	assert_undef(ct.z, "se0 is 0");
	assert_near(ct.se.value, ck.se.value);

	/* weighted: still kappa 0 and no z */
	weighted_by(&t, AGREE_LINEAR, NULL, &w);
	assert_true(w.kappa.defined && fabs(w.kappa.value) < 1e-15);
	assert_undef(w.z, "se0 is 0");
	agree_table_release(&t);
	agree_table_release(&tt);
}

/* Missing labels: listwise deletion for pairs, pairable values for alpha,
 * units with one rating ignored by Fleiss, z needs equal m. */
static void test_missing_ratings(void **state)
{
	/* 3 coders x 6 units; unit 6 has one rating, unit 5 two */
	static const int v[] = {
		0, 1, 2, 1, -1, 2,
		0, 1, 2, 2, 1, -1,
		0, -1, 2, 1, 1, -1,
	};
	struct agree_labels l = { 3, 6, 3, v };
	struct agree_counts cnt = AGREE_COUNTS_INIT;
	struct agree_fleiss f;
	struct agree_alpha a;
	struct agree_pairwise pw;
	struct agree_table t = AGREE_TABLE_INIT;
	struct agree_cohen ck;
	struct err e = ERR_INIT;
	size_t dropped;
	double sum = 0, po, pj[3] = { 0 }, pe = 0;
	int i, j;

	(void)state;
	assert_int_equal(agree_counts_from_labels(&cnt, &l, &e), 0);
	assert_near(cnt.n[0], 3);
	assert_near(cnt.n[1 * 3 + 1], 2);
	assert_near(cnt.n[5 * 3 + 2], 1);

	/* alpha: units 1-5 pairable, N = 3+2+3+3+2 = 13 */
	assert_int_equal(agree_alpha(&cnt, AGREE_NOMINAL, NULL, &a, &e), 0);
	assert_sane_alpha(&a);
	assert_int_equal(a.n_units, 5);
	assert_near(a.n_values, 13);
	/* o: unit 4 (1,2,1) adds 2/2 to o(1,2) and o(2,1), 2/2 to o(1,1) */
	assert_stat(a.d_o, 2.0 / 13);

	/* Fleiss: unequal m (3, 2, 3, 3, 2), so no z */
	assert_int_equal(agree_fleiss(&cnt, &f, &e), 0);
	assert_sane_fleiss(&f);
	assert_int_equal(f.n_units, 5);
	assert_true(f.m == 0);
	assert_true(f.kappa.defined);
	assert_undef(f.z, "same number of ratings");
	/* po and p_j by hand: per-unit agreeing-pair shares 1, 1, 1, 1/3, 1 */
	po = (1 + 1 + 1 + 1.0 / 3 + 1) / 5;
	assert_stat(f.po, po);
	pj[0] = 1;
	pj[1] = 1 + 2.0 / 3 + 1;
	pj[2] = 1 + 1.0 / 3;
	for (i = 0; i < 3; i++)
		pe += (pj[i] / 5) * (pj[i] / 5);
	assert_stat(f.pe, pe);
	assert_stat(f.kappa, (po - pe) / (1 - pe));

	/* pairwise: each pair's own complete units */
	assert_int_equal(agree_pairwise(&l, &pw, &e), 0);
	assert_int_equal(pw.n_pairs, 3);
	assert_int_equal(pw.n_undefined, 0);
	for (i = 0; i < 3; i++)
		for (j = i + 1; j < 3; j++) {
			assert_int_equal(agree_table_from_labels(&t, 3,
						v + i * 6, v + j * 6, 6,
						&dropped, &e), 0);
			assert_int_equal(agree_table_total(&t) +
					 (long)dropped, 6);
			assert_int_equal(agree_cohen(&t, &ck, &e), 0);
			sum += ck.kappa.value;
			agree_table_release(&t);
		}
	assert_stat(pw.mean_kappa, sum / 3);
	agree_counts_release(&cnt);
}

static void test_invalid_input(void **state)
{
	static const long neg[] = { 1, -1, 0, 2 };
	static const int good[] = { 0, 1 }, bad[] = { 0, 3 };
	static const int worse[] = { -2, 0 };
	static const uint64_t ma[] = { 1, 8 }, mb[] = { 1, 2 };
	double w[4] = { 1, 0.5, 0.5, 0.9 }, d[4] = { 0, 1, -1, 0 };
	double s[2] = { 3, 3 }, vals[3] = { 1, -2, 3 };
	struct agree_table t = AGREE_TABLE_INIT;
	struct agree_table empty = AGREE_TABLE_INIT;
	struct agree_cohen ck;
	struct agree_weighted wt;
	struct agree_code code;
	struct agree_counts cnt = AGREE_COUNTS_INIT;
	struct agree_alpha a;
	struct agree_fleiss f;
	struct agree_multi m;
	struct agree_pairwise pw;
	struct agree_stat st;
	struct agree_labels l = { 1, 2, 2, good };
	struct err e = ERR_INIT;

	(void)state;
	agree_table_release(NULL);
	agree_counts_release(NULL);

	table_of(&t, 2, neg);
	assert_int_equal(agree_cohen(&t, &ck, &e), -1);
	assert_int_equal(e.code, ERR_INPUT);
	assert_non_null(strstr(e.msg, "negative"));
	agree_table_release(&t);
	err_clear(&e);
	assert_int_equal(agree_cohen(&empty, &ck, &e), -1);
	assert_int_equal(e.code, ERR_INPUT);

	assert_int_equal(agree_table_from_labels(&t, 3, good, bad, 2, NULL,
						 &e), -1);
	assert_null(t.n);
	assert_non_null(strstr(e.msg, "item 2: code 3 out of range"));
	assert_int_equal(agree_table_from_labels(&t, 3, worse, good, 2, NULL,
						 &e), -1);
	assert_null(t.n);
	assert_int_equal(agree_table_from_labels(&t, 0, good, good, 2, NULL,
						 &e), -1);

	agree_table_init(&t, 2);
	t.n[0] = 3;
	t.n[3] = 2;
	/* diagonal .9 */
	assert_int_equal(agree_weighted(&t, w, &wt, &e), -1);
	w[3] = 1;
	w[1] = 1.5;
	assert_int_equal(agree_weighted(&t, w, &wt, &e), -1);	/* > 1 */
	assert_int_equal(agree_weighted(&t, NULL, &wt, &e), -1);
	assert_int_equal(agree_code(&t, 2, &code, &e), -1);
	assert_int_equal(agree_code(&t, -1, &code, &e), -1);
	assert_int_equal(agree_weights(w, 2, AGREE_LINEAR, s, &e), -1);
	s[1] = NAN;
	assert_int_equal(agree_weights(w, 2, AGREE_LINEAR, s, &e), -1);
	assert_int_equal(agree_weights(w, 0, AGREE_LINEAR, NULL, &e), -1);
	assert_int_equal(agree_weights_from_distance(w, 2, d, &e), -1);
	d[2] = 1;
	d[0] = 0.5;
	assert_int_equal(agree_weights_from_distance(w, 2, d, &e), -1);
	agree_table_release(&t);

	assert_int_equal(agree_multi(0, ma, mb, 2, NULL, &m, &e), -1);
	assert_int_equal(agree_multi(65, ma, mb, 2, NULL, &m, &e), -1);
	assert_int_equal(agree_multi(3, ma, mb, 2, NULL, &m, &e), -1);
	assert_non_null(strstr(e.msg, "item 2"));
	assert_int_equal(agree_multi(4, ma, mb, 2, NULL, &m, &e), 0);
	assert_int_equal(agree_multi_alpha(ma, mb, 2,
					   (enum agree_set_metric)9, &a, &e),
			 -1);

	agree_counts_init(&cnt, 1, 3);
	cnt.n[0] = 2;
	cnt.n[1] = 1;
	assert_int_equal(agree_alpha(&cnt, AGREE_RATIO, vals, &a, &e), -1);
	assert_int_equal(agree_alpha(&cnt, AGREE_INTERVAL, NULL, &a, &e), -1);
	assert_int_equal(agree_alpha(&cnt, AGREE_CUSTOM, NULL, &a, &e), -1);
	assert_int_equal(agree_alpha(&cnt, (enum agree_metric)9, NULL, &a,
				     &e), -1);
	assert_int_equal(agree_alpha(&cnt, AGREE_INTERVAL, vals, &a, &e), 0);
	assert_int_equal(agree_alpha_code(&cnt, 3, &a, &e), -1);
	assert_int_equal(agree_fleiss_code(&cnt, -1, &st, &e), -1);
	cnt.n[2] = -1;
	assert_int_equal(agree_fleiss(&cnt, &f, &e), -1);
	cnt.n[2] = NAN;
	assert_int_equal(agree_alpha(&cnt, AGREE_NOMINAL, NULL, &a, &e), -1);
	agree_counts_release(&cnt);

	assert_int_equal(agree_pairwise(&l, &pw, &e), -1);	/* 1 coder */
	l.n_coders = 2;
	l.v = bad;
	l.n_units = 1;
	l.k = 2;
	assert_int_equal(agree_counts_from_labels(&cnt, &l, &e), -1);
	assert_null(cnt.n);
	assert_non_null(strstr(e.msg, "coder 2, unit 1: code 3"));
	assert_int_equal(agree_pairwise(&l, &pw, &e), -1);
}

static void test_bands(void **state)
{
	static const struct {
		double v;
		enum agree_band band;
	} cases[] = {
		{ -1, AGREE_BAND_POOR },
		{ -0.001, AGREE_BAND_POOR },
		{ -1e-12, AGREE_BAND_SLIGHT },
		{ 0, AGREE_BAND_SLIGHT },
		{ 0.2, AGREE_BAND_SLIGHT },
		{ 0.2000001, AGREE_BAND_FAIR },
		{ 0.21, AGREE_BAND_FAIR },
		{ 0.4, AGREE_BAND_FAIR },
		{ 0.41, AGREE_BAND_MODERATE },
		{ 0.6000000000000001, AGREE_BAND_MODERATE },
		{ 0.61, AGREE_BAND_SUBSTANTIAL },
		{ 0.8, AGREE_BAND_SUBSTANTIAL },
		{ 0.81, AGREE_BAND_ALMOST_PERFECT },
		{ 1, AGREE_BAND_ALMOST_PERFECT },
	};
	static const long v[] = { 4, 1, 1, 4 };	/* po .8, pe .5 */
	struct agree_stat s = { 0, 0, "undefined for the test" };
	struct agree_table t = AGREE_TABLE_INIT;
	struct agree_cohen ck;
	struct err e = ERR_INIT;
	size_t i;

	(void)state;
	assert_int_equal(agree_band(&s), AGREE_BAND_NONE);
	assert_int_equal(agree_band(NULL), AGREE_BAND_NONE);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		s.value = cases[i].v;
		s.defined = 1;
		s.why = NULL;
		if (agree_band(&s) != cases[i].band)
			fail_msg("band of %.17g: got %s, want %s", cases[i].v,
				 agree_band_name(agree_band(&s)),
				 agree_band_name(cases[i].band));
	}
	assert_string_equal(agree_band_name(AGREE_BAND_NONE), "undefined");
	assert_string_equal(agree_band_name(AGREE_BAND_ALMOST_PERFECT),
			    "almost perfect");
	assert_true(agree_band_lower(AGREE_BAND_FAIR) == 0.2);
	assert_true(agree_band_lower(AGREE_BAND_POOR) == -1);

	/* a kappa of .6 whatever rounding does stays moderate */
	table_of(&t, 2, v);
	assert_int_equal(agree_cohen(&t, &ck, &e), 0);
	assert_near(ck.kappa.value, 0.6);
	assert_int_equal(ck.band, AGREE_BAND_MODERATE);
	agree_table_release(&t);

	/* benchmarking */
	assert_stat(agree_band_cumprob(0.5, 0.1, -1), 1);
	assert_stat(agree_band_cumprob(0.5, 0, 0.4), 1);
	assert_stat(agree_band_cumprob(0.5, 0, 0.6), 0);
	assert_false(agree_band_cumprob(0.5, -0.1, 0.4).defined);
	assert_false(agree_band_cumprob(1.5, 0.1, 0.4).defined);
	assert_false(agree_band_cumprob(NAN, 0.1, 0.4).defined);
	assert_near(agree_band_cumprob(0, 0.1, 0).value, 0.5);
	assert_int_equal(agree_band_benchmark(0.7, 0), AGREE_BAND_SUBSTANTIAL);
	assert_int_equal(agree_band_benchmark(0.9, 0.001),
			 AGREE_BAND_ALMOST_PERFECT);
	assert_int_equal(agree_band_benchmark(0.3, 5), AGREE_BAND_POOR);
	assert_int_equal(agree_band_benchmark(0.3, -1), AGREE_BAND_NONE);
}

static void test_per_code(void **state)
{
	static const long v[] = { 5, 1, 0, 2, 3, 1, 0, 0, 0 };
	struct agree_table t = AGREE_TABLE_INIT;
	struct agree_code c;
	struct err e = ERR_INIT;

	(void)state;
	table_of(&t, 3, v);
	/* code 0 of 12 items: a = 5, b = 1, c = 2, d = 4 */
	assert_int_equal(agree_code(&t, 0, &c, &e), 0);
	assert_sane_code(&c);
	assert_int_equal(c.n_a, 6);
	assert_int_equal(c.n_b, 7);
	assert_int_equal(c.both, 5);
	assert_int_equal(c.neither, 4);
	/* 2(ad - bc) / ((a+b)(b+d) + (a+c)(c+d)) = 36 / 72 */
	assert_stat(c.kappa, 0.5);
	/* pooled share 13/24: pe = 290/576, po = 432/576 */
	assert_stat(c.pi, 142.0 / 286);
	assert_stat(c.pos, 10.0 / 13);
	assert_stat(c.neg, 8.0 / 11);
	/* code 2: only B used it, once: a = b = 0, c = 1, d = 11 */
	assert_int_equal(agree_code(&t, 2, &c, &e), 0);
	assert_sane_code(&c);
	assert_int_equal(c.n_a, 0);
	assert_int_equal(c.n_b, 1);
	assert_stat(c.kappa, 0);
	assert_stat(c.pos, 0);
	assert_stat(c.neg, 22.0 / 23);
	agree_table_release(&t);
}

static void test_pabak(void **state)
{
	static const long v[] = { 20, 5, 10, 15 };
	static const long v3[] = { 4, 1, 0, 1, 4, 1, 0, 1, 4 };
	struct agree_table t = AGREE_TABLE_INIT;
	struct agree_cohen ck;
	struct err e = ERR_INIT;

	(void)state;
	table_of(&t, 2, v);
	assert_int_equal(agree_cohen(&t, &ck, &e), 0);
	assert_stat(ck.pabak, 2 * 0.7 - 1);
	assert_stat(ck.bennett_s, 2 * 0.7 - 1);
	agree_table_release(&t);
	table_of(&t, 3, v3);
	assert_int_equal(agree_cohen(&t, &ck, &e), 0);
	assert_stat(ck.pabak, (3 * 12.0 / 16 - 1) / 2);
	assert_true(ck.kappa.value <= ck.kappa_max.value);
	agree_table_release(&t);
}

static void test_multi_select(void **state)
{
	/* codes 0..2 (and an unused code 3 in the second run) */
	static const uint64_t a[] = { 1, 3, 0, 4, 6 }, b[] = { 1, 1, 0, 6, 2 };
	struct agree_code codes[4];
	struct agree_multi m;
	struct err e = ERR_INIT;
	int c;

	(void)state;
	assert_int_equal(agree_multi(3, a, b, 5, codes, &m, &e), 0);
	assert_stat(m.exact, 2.0 / 5);
	assert_stat(codes[0].kappa, 1);
	assert_stat(codes[1].kappa, 1.0 / 6);
	assert_stat(codes[2].kappa, 6.0 / 11);	/* a 1, b 1, c 0, d 3 */
	assert_int_equal(m.n_defined, 3);
	assert_stat(m.mean_kappa, (1 + 1.0 / 6 + 6.0 / 11) / 3);
	for (c = 0; c < 3; c++)
		assert_sane_code(&codes[c]);

	assert_int_equal(agree_multi(4, a, b, 5, codes, &m, &e), 0);
	assert_undef(codes[3].kappa, "neither annotator used this code");
	assert_int_equal(m.n_defined, 3);
	assert_stat(m.mean_kappa, (1 + 1.0 / 6 + 6.0 / 11) / 3);

	/* nobody used anything */
	{
		static const uint64_t z[] = { 0, 0 };

		assert_int_equal(agree_multi(2, z, z, 2, codes, &m, &e), 0);
		assert_stat(m.exact, 1);
		assert_int_equal(m.n_defined, 0);
		assert_undef(m.mean_kappa, "no code has a defined kappa");
	}
}

static void test_set_distances(void **state)
{
	uint64_t a = 0xf, b = 0x1c;	/* {0,1,2,3} and {2,3,4} */
	struct agree_alpha al;
	struct err e = ERR_INIT;
	static const uint64_t sa[] = { 1, 2, 4, 1 }, sb[] = { 1, 2, 4, 2 };

	(void)state;
	assert_near(agree_set_distance(a, b, AGREE_SET_BINARY), 1);
	assert_near(agree_set_distance(a, b, AGREE_SET_JACCARD), 0.6);
	assert_near(agree_set_distance(a, b, AGREE_SET_PASSONNEAU), 2.0 / 3);
	assert_near(agree_set_distance(a, b, AGREE_SET_MASI), 1 - 0.4 / 3);
	/* subset */
	assert_near(agree_set_distance(1, 3, AGREE_SET_PASSONNEAU), 1.0 / 3);
	assert_near(agree_set_distance(1, 3, AGREE_SET_MASI), 2.0 / 3);
	assert_near(agree_set_distance(1, 3, AGREE_SET_JACCARD), 0.5);
	/* disjoint, identical, empty */
	assert_near(agree_set_distance(1, 6, AGREE_SET_PASSONNEAU), 1);
	assert_near(agree_set_distance(1, 6, AGREE_SET_MASI), 1);
	assert_near(agree_set_distance(5, 5, AGREE_SET_MASI), 0);
	assert_near(agree_set_distance(0, 0, AGREE_SET_JACCARD), 0);
	assert_near(agree_set_distance(0, 2, AGREE_SET_PASSONNEAU), 1.0 / 3);
	assert_near(agree_set_distance(0, 2, AGREE_SET_MASI), 1);
	assert_near(agree_set_distance(0, 2, AGREE_SET_JACCARD), 1);

	/* single-code sets: set alpha with the binary distance is nominal
	 * alpha: o(1,1) = o(2,2) = o(4,4) = 2, o(1,2) = o(2,1) = 1, N = 8,
	 * n = (3, 3, 2): D_o = 2/8, D_e = (2*9 + 2*6 + 2*6)/56 */
	assert_int_equal(agree_multi_alpha(sa, sb, 4, AGREE_SET_BINARY, &al,
					   &e), 0);
	assert_sane_alpha(&al);
	assert_stat(al.d_o, 0.25);
	assert_stat(al.d_e, 42.0 / 56);
	assert_stat(al.alpha, 1 - 0.25 / (42.0 / 56));
	assert_stat(al.po, 0.75);
}

static void test_weights(void **state)
{
	double w[16], d[9] = { 0, 1, 3, 1, 0, 6, 3, 6, 0 }, s[3] = { 1, 2, 4 };
	static const long v[] = { 3, 1, 1, 3 };
	struct agree_table t = AGREE_TABLE_INIT;
	struct agree_weighted wt;
	struct err e = ERR_INIT;

	(void)state;
	assert_int_equal(agree_weights(w, 4, AGREE_LINEAR, NULL, &e), 0);
	assert_near(w[0], 1);
	assert_near(w[1], 2.0 / 3);
	assert_near(w[3], 0);
	assert_near(w[1 * 4 + 2], 2.0 / 3);
	assert_int_equal(agree_weights(w, 4, AGREE_QUADRATIC, NULL, &e), 0);
	assert_near(w[1], 1 - 1.0 / 9);
	assert_near(w[2], 1 - 4.0 / 9);
	assert_int_equal(agree_weights(w, 3, AGREE_LINEAR, s, &e), 0);
	assert_near(w[1], 1 - 1.0 / 3);
	assert_near(w[1 * 3 + 2], 1 - 2.0 / 3);
	assert_int_equal(agree_weights(w, 1, AGREE_QUADRATIC, NULL, &e), 0);
	assert_near(w[0], 1);
	assert_int_equal(agree_weights_from_distance(w, 3, d, &e), 0);
	assert_near(w[2], 0.5);
	assert_near(w[1 * 3 + 2], 0);
	assert_near(w[4], 1);

	/* every weight 1: nothing can disagree */
	table_of(&t, 2, v);
	w[0] = w[1] = w[2] = w[3] = 1;
	assert_int_equal(agree_weighted(&t, w, &wt, &e), 0);
	assert_sane_weighted(&wt);
	assert_undef(wt.kappa, "expected agreement is 1");
	assert_undef(wt.bennett_s, "every weight is 1");
	agree_table_release(&t);
}

/* A small deterministic generator, so failures reproduce. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static unsigned rng(unsigned bound)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (unsigned)(rng_state % bound);
}

/* 5000 items, 7 codes, 5% missing per annotator: the table's statistics
 * must equal those computed straight from the item vectors, and the
 * different entry points must agree with each other. */
static void test_random_table(void **state)
{
	enum { N = 5000, K = 7 };
	static const unsigned weight[K] = { 30, 20, 15, 12, 10, 8, 5 };
	int *v = xcalloc(2 * N, sizeof(*v)), *a = v, *b = v + N;
	uint64_t *ma = xcalloc(N, sizeof(*ma)), *mb = xcalloc(N, sizeof(*mb));
	struct agree_table t = AGREE_TABLE_INIT, tt = AGREE_TABLE_INIT;
	struct agree_cohen ck, ct;
	struct agree_weighted wi, wl;
	struct agree_counts cnt = AGREE_COUNTS_INIT;
	struct agree_fleiss f;
	struct agree_alpha al, ai, am;
	struct agree_pairwise pw;
	struct agree_multi mm;
	struct agree_code codes[K], code;
	struct agree_labels l = { 2, N, K, NULL };
	struct err e = ERR_INIT;
	double row[K] = { 0 }, col[K] = { 0 }, n = 0, agree = 0, pe = 0;
	double spe = 0, po, kappa, var, var0, a1 = 0, b1 = 0, c1 = 0, sum;
	double nc[K] = { 0 }, d_o = 0, d_e = 0, wsum = 0, wpe = 0;
	double *w = xcalloc(K * K, sizeof(*w));
	size_t i, j, dropped, missing = 0, m = 0;

	(void)state;
	for (i = 0; i < N; i++) {
		unsigned r = rng(100), acc = 0;
		int code_a = 0;

		for (j = 0; j < K; j++) {
			acc += weight[j];
			if (r < acc) {
				code_a = (int)j;
				break;
			}
		}
		a[i] = code_a;
		b[i] = rng(100) < 60 ? code_a : (int)rng(K);
		if (rng(100) < 5)
			a[i] = AGREE_MISSING;
		if (rng(100) < 5)
			b[i] = AGREE_MISSING;
		if (a[i] == AGREE_MISSING || b[i] == AGREE_MISSING) {
			missing++;
			continue;
		}
		ma[m] = (uint64_t)1 << a[i];
		mb[m] = (uint64_t)1 << b[i];
		m++;
		n++;
		row[a[i]]++;
		col[b[i]]++;
		agree += a[i] == b[i];
		/* interval alpha: two values per unit */
		d_o += 2.0 * (a[i] - b[i]) * (a[i] - b[i]);
		nc[a[i]]++;
		nc[b[i]]++;
	}
	assert_int_equal(agree_table_from_labels(&t, K, a, b, N, &dropped,
						 &e), 0);
	assert_int_equal(dropped, missing);
	assert_int_equal(agree_table_total(&t), (long)n);
	assert_int_equal(agree_cohen(&t, &ck, &e), 0);
	assert_sane_cohen(&ck);

	/* straight from the items, with the unweighted FCE formulas */
	po = agree / n;
	for (i = 0; i < K; i++) {
		row[i] /= n;
		col[i] /= n;
		pe += row[i] * col[i];
		spe += (row[i] + col[i]) * (row[i] + col[i]) / 4;
	}
	kappa = (po - pe) / (1 - pe);
	assert_stat(ck.po, po);
	assert_stat(ck.pe, pe);
	assert_stat(ck.kappa, kappa);
	assert_stat(ck.scott_pi, (po - spe) / (1 - spe));
	for (i = 0; i < K; i++)
		for (j = 0; j < K; j++) {
			double p = t.n[i * K + j] / n;

			if (i == j) {
				double x = 1 - (row[i] + col[i]) * (1 - kappa);

				a1 += p * x * x;
			} else {
				b1 += p * (col[i] + row[j]) * (col[i] + row[j]);
			}
		}
	for (i = 0; i < K; i++)
		c1 += row[i] * col[i] * (row[i] + col[i]);
	var = (a1 + (1 - kappa) * (1 - kappa) * b1 -
	       (kappa - pe * (1 - kappa)) * (kappa - pe * (1 - kappa))) /
	      (n * (1 - pe) * (1 - pe));
	var0 = (pe + pe * pe - c1) / (n * (1 - pe) * (1 - pe));
	assert_stat(ck.se, sqrt(var));
	assert_stat(ck.se0, sqrt(var0));
	assert_stat(ck.z, kappa / sqrt(var0));
	assert_stat(ck.ci_low, kappa - 1.959963984540054 * sqrt(var));
	assert_int_equal(ck.band, agree_band(&ck.kappa));

	/* two coders, no missing data: alpha from pi (Krippendorff) */
	assert_stat(ck.alpha.alpha, 1 - (2 * n - 1) / (2 * n) * (1 - po) /
				    (1 - spe));

	/* identity weights reproduce the unweighted numbers */
	for (i = 0; i < K; i++)
		w[i * K + i] = 1;
	assert_int_equal(agree_weighted(&t, w, &wi, &e), 0);
	assert_stat(wi.kappa, ck.kappa.value);
	assert_stat(wi.se, ck.se.value);
	assert_stat(wi.se0, ck.se0.value);
	assert_stat(wi.scott_pi, ck.scott_pi.value);
	assert_stat(wi.ac2, ck.ac1.value);
	assert_stat(wi.bennett_s, ck.bennett_s.value);
	assert_stat(wi.alpha.alpha, ck.alpha.alpha.value);

	/* linear weights straight from the items */
	weighted_by(&t, AGREE_LINEAR, NULL, &wl);
	for (i = 0; i < N; i++)
		if (a[i] != AGREE_MISSING && b[i] != AGREE_MISSING)
			wsum += 1 - fabs((double)(a[i] - b[i])) / (K - 1);
	for (i = 0; i < K; i++)
		for (j = 0; j < K; j++)
			wpe += (1 - fabs((double)i - (double)j) / (K - 1)) *
			       row[i] * col[j];
	assert_stat(wl.po, wsum / n);
	assert_stat(wl.pe, wpe);
	assert_stat(wl.kappa, (wsum / n - wpe) / (1 - wpe));

	/* transposing swaps the annotators: nothing changes */
	agree_table_init(&tt, K);
	for (i = 0; i < K; i++)
		for (j = 0; j < K; j++)
			tt.n[i * K + j] = t.n[j * K + i];
	assert_int_equal(agree_cohen(&tt, &ct, &e), 0);
	assert_stat(ct.kappa, ck.kappa.value);
	assert_stat(ct.se, ck.se.value);
	assert_stat(ct.se0, ck.se0.value);
	assert_stat(ct.alpha.alpha, ck.alpha.alpha.value);

	/* the same data through the multi-coder entry points */
	l.v = v;
	assert_int_equal(agree_counts_from_labels(&cnt, &l, &e), 0);
	assert_int_equal(agree_alpha(&cnt, AGREE_NOMINAL, NULL, &al, &e), 0);
	assert_stat(al.alpha, ck.alpha.alpha.value);
	assert_stat(al.d_o, ck.alpha.d_o.value);
	assert_stat(al.d_e, ck.alpha.d_e.value);
	assert_int_equal(al.n_units, (size_t)n);
	assert_int_equal(agree_fleiss(&cnt, &f, &e), 0);
	assert_sane_fleiss(&f);
	assert_true(f.m == 2);
	assert_stat(f.kappa, ck.scott_pi.value);	/* m = 2: Scott's pi */
	assert_int_equal(agree_pairwise(&l, &pw, &e), 0);
	assert_stat(pw.mean_kappa, ck.kappa.value);
	assert_stat(pw.mean_po, ck.po.value);

	/* interval alpha straight from the items */
	for (i = 0; i < K; i++)
		for (j = 0; j < K; j++)
			d_e += nc[i] * nc[j] * ((double)i - (double)j) *
			       ((double)i - (double)j);
	{
		double vals[K];

		for (i = 0; i < K; i++)
			vals[i] = (double)i;
		assert_int_equal(agree_alpha(&cnt, AGREE_INTERVAL, vals, &ai,
					     &e), 0);
	}
	assert_stat(ai.d_o, d_o / (2 * n));
	assert_stat(ai.d_e, d_e / (2 * n * (2 * n - 1)));

	/* per code: collapsed table, select-many with one code per item */
	assert_int_equal(agree_multi(K, ma, mb, m, codes, &mm, &e), 0);
	sum = 0;
	for (i = 0; i < K; i++) {
		struct agree_table two = AGREE_TABLE_INIT;
		struct agree_cohen c2;
		long both = t.n[i * K + i], ra = 0, cb = 0;

		assert_int_equal(agree_code(&t, (int)i, &code, &e), 0);
		assert_sane_code(&code);
		for (j = 0; j < K; j++) {
			ra += t.n[i * K + j];
			cb += t.n[j * K + i];
		}
		agree_table_init(&two, 2);
		two.n[0] = both;
		two.n[1] = ra - both;
		two.n[2] = cb - both;
		two.n[3] = (long)n - ra - cb + both;
		assert_int_equal(agree_cohen(&two, &c2, &e), 0);
		assert_stat(code.kappa, c2.kappa.value);
		assert_stat(code.pi, c2.scott_pi.value);
		assert_stat(codes[i].kappa, code.kappa.value);
		assert_stat(codes[i].pos, code.pos.value);
		assert_int_equal(codes[i].n_a, ra);
		sum += code.kappa.value;
		agree_table_release(&two);
	}
	assert_stat(mm.mean_kappa, sum / K);
	assert_stat(mm.exact, po);
	assert_int_equal(agree_multi_alpha(ma, mb, m, AGREE_SET_BINARY, &am,
					   &e), 0);
	assert_stat(am.alpha, ck.alpha.alpha.value);

	agree_counts_release(&cnt);
	agree_table_release(&t);
	agree_table_release(&tt);
	free(v);
	free(ma);
	free(mb);
	free(w);
}

/* ---- part 3: what is reported (issue: agreement a reviewer accepts) ----- */

/* A Wald interval past 1 is clipped, marked, and keeps its raw bounds:
 * n = 12, kappa = .833 with SE .155 gave 0.53-1.14. */
static void test_interval_past_one(void **state)
{
	static const long v[] = { 5, 0, 1, 6 };
	struct agree_table t;
	struct agree_cohen c;
	struct agree_ci ci, b1, b2, b3;

	(void)state;
	table_of(&t, 2, v);
	assert_int_equal(agree_cohen(&t, &c, NULL), 0);
	/* po = 11/12, pe = (5*6 + 7*6)/144 = 1/2: kappa = 5/6 */
	assert_stat(c.kappa, 5.0 / 6);
	agree_ci_wald(&c.kappa, &c.se, &ci);
	assert_int_equal(ci.method, AGREE_CI_WALD);
	assert_true(ci.wald_high.defined);
	assert_near(ci.wald_high.value, 5.0 / 6 + AGREE_Z975 * c.se.value);
	assert_near(ci.wald_low.value, 5.0 / 6 - AGREE_Z975 * c.se.value);
	assert_true(ci.wald_high.value > 1);
	assert_true(ci.clipped);
	assert_stat(ci.high, 1);
	assert_near(ci.low.value, ci.wald_low.value);

	/* the bootstrap stays in range, brackets kappa, and is seeded */
	assert_int_equal(agree_boot_table(&t, NULL, BOPTS(2000, 42), &c.kappa, &c.se,
					  &b1, NULL), 0);
	assert_int_equal(agree_boot_table(&t, NULL, BOPTS(2000, 42), &c.kappa, &c.se,
					  &b2, NULL), 0);
	assert_int_equal(agree_boot_table(&t, NULL, BOPTS(2000, 7), &c.kappa, &c.se,
					  &b3, NULL), 0);
	assert_true(b1.low.defined && b1.high.defined);
	assert_true(b1.low.value >= -1 && b1.high.value <= 1);
	assert_true(b1.low.value < 5.0 / 6 && b1.high.value >= 5.0 / 6);
	assert_true(b1.low.value == b2.low.value &&
		    b1.high.value == b2.high.value);
	assert_int_equal(b1.seed, 42);
	assert_int_equal(b1.boot, 2000);
	assert_true(b1.boot_used > 1000 && b1.boot_used <= 2000);
	/* the raw Wald bounds travel with the bootstrap interval */
	assert_near(b1.wald_high.value, ci.wald_high.value);
	assert_true(b3.low.value != b1.low.value ||
		    b3.high.value != b1.high.value || b3.seed != b1.seed);
	agree_table_release(&t);
}

/* n = 2, both agree: kappa 1 with an exact SE of 0 (was 1.00-1.00). */
static void test_zero_se(void **state)
{
	static const long two[] = { 1, 0, 0, 1 };
	static const long three[] = { 7, 0, 0, 0, 5, 0, 0, 0, 3 };
	struct agree_table t;
	struct agree_cohen c;
	struct agree_ci ci;

	(void)state;
	table_of(&t, 2, two);
	agree_cohen(&t, &c, NULL);
	assert_stat(c.kappa, 1);
	assert_true(c.se.defined);
	assert_true(c.se.value == 0);
	agree_ci_wald(&c.kappa, &c.se, &ci);
	assert_undef(ci.low, "standard error is 0");
	assert_undef(ci.high, "standard error is 0");
	assert_int_equal(agree_boot_table(&t, NULL, BOPTS(500, 1), &c.kappa, &c.se,
					  &ci, NULL), 0);
	assert_false(ci.low.defined);
	assert_non_null(ci.low.why);
	agree_table_release(&t);

	/* total agreement on three codes: the variance is exactly 0, not
	 * the rounding noise an SE of 3e-8 came from */
	table_of(&t, 3, three);
	agree_cohen(&t, &c, NULL);
	assert_stat(c.kappa, 1);
	assert_true(c.se.value == 0);
	agree_table_release(&t);
}

/* One annotator constant, or no code in common: kappa has a value but is
 * degenerate, and the summary must not show it as a number. */
static void test_degenerate_kappa(void **state)
{
	static const long constant[] = { 3, 2, 0, 0 };
	/* A chose none or minor, B major or critical */
	static const long disjoint[] = {
		0, 0, 2, 1,
		0, 0, 0, 3,
		0, 0, 0, 0,
		0, 0, 0, 0,
	};
	static const long n2[] = { 1, 1, 0, 0 };
	static const long fine[] = { 3, 1, 1, 3 };
	struct agree_table t;
	struct agree_cohen c;

	(void)state;
	table_of(&t, 2, constant);
	agree_cohen(&t, &c, NULL);
	assert_stat(c.kappa, 0);
	assert_non_null(c.degenerate);
	assert_non_null(strstr(c.degenerate, "single code"));
	agree_table_release(&t);

	table_of(&t, 4, disjoint);
	agree_cohen(&t, &c, NULL);
	assert_true(c.kappa.defined);
	assert_non_null(c.degenerate);
	assert_non_null(strstr(c.degenerate, "no code in common"));
	agree_table_release(&t);

	/* n = 2, B constant */
	table_of(&t, 2, n2);
	agree_cohen(&t, &c, NULL);
	assert_non_null(c.degenerate);
	agree_table_release(&t);

	table_of(&t, 2, fine);
	agree_cohen(&t, &c, NULL);
	assert_null(c.degenerate);
	agree_table_release(&t);
}

/* Krippendorff 2011's example, which irrCAC ships as cac.raw4raters
 * (units as columns there): Conger's kappa .76282 with pe .2334252
 * (irrCAC README, conger.kappa.raw); Krippendorff's alpha .743 nominal,
 * .815 ordinal, .849 interval (Krippendorff 2011, sec. E). */
#define M AGREE_MISSING
static const int kripp_v[4 * 12] = {
	0, 1, 2, 2, 1, 0, 3, 0, 1, M, M, M,
	0, 1, 2, 2, 1, 1, 3, 0, 1, 4, M, M,
	M, 2, 2, 2, 1, 2, 3, 1, 1, 4, 0, 2,
	0, 1, 2, 2, 1, 3, 3, 0, 1, 4, 0, M,
};
#undef M

static void test_conger_published(void **state)
{
	struct agree_labels l = { 4, 12, 5, kripp_v };
	struct agree_counts cnt = AGREE_COUNTS_INIT;
	struct agree_alpha a;
	struct agree_stat k;
	static const double vals[5] = { 1, 2, 3, 4, 5 };

	(void)state;
	assert_int_equal(agree_conger(&l, &k, NULL), 0);
	assert_true(k.defined);
	/* (po - pe)/(1 - pe) with po = 9/11 and irrCAC's pe */
	assert_true(fabs(k.value - 0.76282) < 5e-6);
	assert_true(fabs(k.value - (9.0 / 11 - 0.2334252) /
			 (1 - 0.2334252)) < 1e-6);
	assert_int_equal(agree_counts_from_labels(&cnt, &l, NULL), 0);
	agree_alpha(&cnt, AGREE_NOMINAL, NULL, &a, NULL);
	assert_true(fabs(a.alpha.value - 0.743) < 5e-4);
	agree_alpha(&cnt, AGREE_ORDINAL, NULL, &a, NULL);
	assert_true(fabs(a.alpha.value - 0.815) < 5e-4);
	agree_alpha(&cnt, AGREE_INTERVAL, vals, &a, NULL);
	assert_true(fabs(a.alpha.value - 0.849) < 5e-4);
	agree_counts_release(&cnt);
}

/* Conger's kappa of two coders is Cohen's; its bootstrap stays in range. */
static void test_conger_two_is_cohen(void **state)
{
	static const int v[2 * 10] = {
		0, 0, 1, 1, 2, 2, 0, 1, 2, 0,
		0, 1, 1, 1, 2, 0, 0, 1, 2, 2,
	};
	struct agree_labels l = { 2, 10, 3, v };
	struct agree_table t = AGREE_TABLE_INIT;
	struct agree_cohen c;
	struct agree_stat k;
	struct agree_ci ci;

	(void)state;
	agree_conger(&l, &k, NULL);
	agree_table_from_labels(&t, 3, v, v + 10, 10, NULL, NULL);
	agree_cohen(&t, &c, NULL);
	assert_stat(k, c.kappa.value);
	assert_int_equal(agree_boot_conger(&l, BOPTS(1000, 3), &k, &ci, NULL), 0);
	assert_true(ci.low.defined);
	assert_true(ci.low.value >= -1 && ci.high.value <= 1);
	agree_table_release(&t);
}

/* Fleiss' non-null SE: Gwet's linearisation, here recomputed by hand
 * from its definition on Fleiss 1971-style data of 5 units x 3 raters. */
static void test_fleiss_se(void **state)
{
	static const double n[5 * 3] = {
		3, 0, 0,  2, 1, 0,  0, 3, 0,  1, 1, 1,  0, 0, 3,
	};
	struct agree_counts c = { 5, 3, (double *)n };
	struct agree_fleiss f;
	struct agree_ci ci;
	double p[3] = { 0 }, pe = 0, po = 0, kap, sum = 0;
	int u, j;

	(void)state;
	for (u = 0; u < 5; u++)
		for (j = 0; j < 3; j++) {
			p[j] += n[u * 3 + j] / 3 / 5;
			po += n[u * 3 + j] * (n[u * 3 + j] - 1) / 6 / 5;
		}
	for (j = 0; j < 3; j++)
		pe += p[j] * p[j];
	kap = (po - pe) / (1 - pe);
	for (u = 0; u < 5; u++) {
		double pu = 0, peu = 0, ku;

		for (j = 0; j < 3; j++) {
			pu += n[u * 3 + j] * (n[u * 3 + j] - 1) / 6;
			peu += n[u * 3 + j] * p[j] / 3;
		}
		ku = (pu - pe) / (1 - pe) - 2 * (1 - kap) * (peu - pe) /
		     (1 - pe);
		sum += (ku - kap) * (ku - kap);
	}
	assert_int_equal(agree_fleiss(&c, &f, NULL), 0);
	assert_stat(f.kappa, kap);
	assert_stat(f.se, sqrt(sum / (5 * 4)));
	assert_int_equal(agree_boot_fleiss(&c, BOPTS(1000, 9), &f.kappa, &ci, NULL),
			 0);
	assert_true(ci.low.defined && ci.low.value >= -1 &&
		    ci.high.value <= 1);
}

/* An interval of some width is never printed as 0.00-0.00: as many
 * decimals as it takes (up to 6) for the bounds to differ. */
static void test_interval_decimals(void **state)
{
	struct agree_ci ci;
	struct buf b = BUF_INIT;

	(void)state;
	memset(&ci, 0, sizeof(ci));
	ci.low.defined = ci.high.defined = 1;
	ci.low.value = 0.001;
	ci.high.value = 0.004;
	agree_fmt_ci(&b, &ci, 2);
	assert_string_equal(b.ptr, "0.001\xe2\x80\x93" "0.004");
	buf_reset(&b);
	ci.low.value = 0.00121;
	ci.high.value = 0.00134;
	agree_fmt_ci(&b, &ci, 2);
	assert_string_equal(b.ptr, "0.0012\xe2\x80\x93" "0.0013");
	buf_reset(&b);
	ci.low.value = 0.62;
	ci.high.value = 0.91;
	agree_fmt_ci(&b, &ci, 2);
	assert_string_equal(b.ptr, "0.62\xe2\x80\x93" "0.91");
	buf_release(&b);
}

/* Numbers as printed: no "-0.00"; p < .001; band ranges. */
static void test_formatting(void **state)
{
	struct buf b = BUF_INIT;
	struct agree_stat p = { 0.0004, 1, NULL }, p2 = { 0.0234, 1, NULL };
	enum agree_band lo, hi;

	(void)state;
	agree_fmt(&b, -0.001, 2);
	assert_string_equal(b.ptr, "0.00");
	buf_reset(&b);
	agree_fmt(&b, -0.0000001, 3);
	assert_string_equal(b.ptr, "0.000");
	buf_reset(&b);
	agree_fmt(&b, -0.25, 2);
	assert_string_equal(b.ptr, "-0.25");
	buf_reset(&b);
	agree_fmt_p(&b, &p);
	assert_string_equal(b.ptr, "p < .001");
	buf_reset(&b);
	agree_fmt_p(&b, &p2);
	assert_string_equal(b.ptr, "p = .023");
	buf_release(&b);
	agree_band_range(0.47, 0.95, &lo, &hi);
	assert_int_equal(lo, AGREE_BAND_MODERATE);
	assert_int_equal(hi, AGREE_BAND_ALMOST_PERFECT);
	agree_band_range(0.65, 0.7, &lo, &hi);
	assert_int_equal(lo, hi);
}

/* The summary of a hand-built agreement: two annotators on an ordinal
 * dimension whose codes fall into two groups. */
static void test_summary_levels(void **state)
{
	static const long v[] = {
		4, 1, 0, 0,
		1, 3, 1, 0,
		0, 1, 2, 1,
		0, 0, 1, 4,
	};
	struct code codes[4] = {
		{ .key = "none", .group = "low" },
		{ .key = "minor", .group = "low" },
		{ .key = "major", .group = "high" },
		{ .key = "critical", .group = "high" },
	};
	struct dimension dim = { .key = "severity", .name = "Severity",
				 .scale = SCALE_ORDINAL, .codes = codes,
				 .nr_codes = 4 };
	char *names[2] = { "ann", "bob" };
	struct agreement_dim ad;
	struct agreement ag = AGREEMENT_INIT;
	struct headline s = AGREE_SUMMARY_INIT;
	struct agree_opts o = AGREE_OPTS_INIT;
	struct agree_table g;
	struct agree_cohen gc;
	struct agree_weighted wl, wq;
	double w[16];
	long gv[4];
	struct buf b = BUF_INIT;
	const struct agree_level_summary *lv;

	(void)state;
	memset(&ad, 0, sizeof(ad));
	ad.dim = &dim;
	ad.k = 4;
	table_of(&ad.table, 4, v);
	ad.n_items = 20;
	ag.annotators = names;
	ag.nr_annotators = 2;
	ag.dims = &ad;
	ag.nr_dims = 1;
	o.ci = AGREE_CI_WALD;
	assert_int_equal(headline_compute(&ag, &o, &s, NULL), 0);
	assert_true(s.dims[0].has_groups);
	assert_true(s.dims[0].show_code && s.dims[0].show_group);
	lv = &s.dims[0].code;
	assert_true(lv->weighted);
	/* weighted kappa: weights 1 - |i - j|/3 and 1 - (i - j)^2/9 */
	agree_weights(w, 4, AGREE_LINEAR, NULL, NULL);
	agree_weighted(&ad.table, w, &wl, NULL);
	assert_stat(lv->kappa_linear, wl.kappa.value);
	agree_weights(w, 4, AGREE_QUADRATIC, NULL, NULL);
	agree_weighted(&ad.table, w, &wq, NULL);
	assert_stat(lv->kappa_quadratic, wq.kappa.value);
	assert_true(lv->alpha_scale.defined);
	/* per-code counts are the margins */
	assert_int_equal(lv->count[0], 5);
	assert_int_equal(lv->count[1], 5);
	assert_int_equal(lv->count[4], 4);
	assert_int_equal(lv->count[7], 5);
	/* groups: low = {none, minor}, high = {major, critical}; the
	 * collapsed 2 x 2 table by hand is 9 1 / 1 8 */
	lv = &s.dims[0].grp;
	assert_int_equal(lv->k, 2);
	gv[0] = 4 + 1 + 1 + 3;
	gv[1] = 1;
	gv[2] = 1;
	gv[3] = 2 + 1 + 1 + 4;
	table_of(&g, 2, gv);
	agree_cohen(&g, &gc, NULL);
	/* po = 17/19, margins 10 and 9 each: pe = 181/361, kappa 142/180 */
	assert_near(gc.kappa.value, 142.0 / 180);
	assert_stat(lv->kappa, gc.kappa.value);
	assert_false(lv->weighted);
	/* Byrt's indices on the 2 x 2 table: PI = (9 - 8)/19, BI = 0 */
	assert_stat(lv->prevalence, (9.0 - 8.0) / 19);
	assert_stat(lv->bias, 0);
	agree_sentence_build(&ag, &s.dims[0], &s.dims[0].code, &b);
	assert_non_null(strstr(b.ptr, "Cohen's kappa for severity was "));
	assert_non_null(strstr(b.ptr, "4 codes, 2 annotators; observed "
			       "agreement 0.68"));
	assert_non_null(strstr(b.ptr, "(Landis & Koch, 1977)."));
	assert_null(strstr(b.ptr, "-0.00"));
	buf_reset(&b);
	agree_sentence_build(&ag, &s.dims[0], &s.dims[0].grp, &b);
	assert_non_null(strstr(b.ptr, "(code groups)"));
	assert_non_null(strstr(b.ptr, "2 groups"));
	buf_release(&b);
	headline_release(&s);
	agree_table_release(&g);

	/* a constant coder: the sentence says undefined, never 0.00 */
	memset(ad.table.n, 0, 16 * sizeof(long));
	ad.table.n[0] = 3;
	ad.table.n[1] = 2;
	o.level = AGREE_LEVEL_CODE;
	assert_int_equal(headline_compute(&ag, &o, &s, NULL), 0);
	lv = &s.dims[0].code;
	assert_false(s.dims[0].show_group);
	assert_undef(lv->kappa, "single code");
	assert_false(lv->ci.low.defined);
	agree_sentence_build(&ag, &s.dims[0], lv, &b);
	assert_non_null(strstr(b.ptr, "is undefined: one annotator used a "
			       "single code"));
	assert_null(strstr(b.ptr, "0.00 ("));
	buf_release(&b);
	headline_release(&s);
	agree_table_release(&ad.table);
}

/* The bootstrap is the default at every size; --ci wald gives Wald. */
static void test_interval_every_size(void **state)
{
	struct code codes[2] = { { .key = "yes" }, { .key = "no" } };
	struct dimension dim = { .key = "d", .name = "D", .codes = codes,
				 .nr_codes = 2 };
	char *names[2] = { "ann", "bob" };
	struct agreement_dim ad;
	struct agreement ag = AGREEMENT_INIT;
	struct headline s = AGREE_SUMMARY_INIT;
	struct agree_opts o = AGREE_OPTS_INIT;
	long v[4] = { 260000, 20000, 30000, 240000 };

	(void)state;
	memset(&ad, 0, sizeof(ad));
	ad.dim = &dim;
	ad.k = 2;
	table_of(&ad.table, 2, v);
	ag.annotators = names;
	ag.nr_annotators = 2;
	ag.dims = &ad;
	ag.nr_dims = 1;
	assert_int_equal(headline_compute(&ag, NULL, &s, NULL), 0);
	assert_int_equal(s.dims[0].code.ci.method, AGREE_CI_BOOTSTRAP);
	assert_int_equal(s.dims[0].code.ci.boot, AGREE_BOOT_DEFAULT);
	assert_true(s.dims[0].code.ci.low.defined);
	/* 550,000 items: the bootstrap and Wald agree closely */
	assert_true(fabs(s.dims[0].code.ci.low.value -
			 s.dims[0].code.ci.wald_low.value) < 0.005);
	headline_release(&s);
	o.ci = AGREE_CI_WALD;
	assert_int_equal(headline_compute(&ag, &o, &s, NULL), 0);
	assert_int_equal(s.dims[0].code.ci.method, AGREE_CI_WALD);
	headline_release(&s);
	agree_table_release(&ad.table);
}

/* A code one annotator chose on every item has a 2 x 2 kappa of 0 by
 * construction: undefined with that reason, for select one and select
 * many; the select-many mean leaves it out and says how many were. */
static void test_code_every_item(void **state)
{
	struct code codes[3] = { { .key = "a" }, { .key = "b" },
				 { .key = "c" } };
	struct dimension one = { .key = "one", .name = "One", .codes = codes,
				 .nr_codes = 3 };
	struct dimension many = { .key = "many", .name = "Many",
				  .codes = codes, .nr_codes = 3,
				  .select_many = 1 };
	char *names[2] = { "ann", "bob" };
	/* ann chose a everywhere; bob a on 6 items, b on 4 */
	static const long t1[9] = { 6, 4, 0, 0, 0, 0, 0, 0, 0 };
	/* sets: ann {a} or {a, b}, bob {a}, {b} or {a, b}; c nobody */
	uint64_t sa[10] = { 1, 1, 3, 3, 1, 3, 1, 1, 3, 1 };
	uint64_t sb[10] = { 1, 2, 3, 3, 1, 2, 1, 1, 3, 1 };
	uint64_t sets[20];
	unsigned char present[20];
	struct agree_code per[3];
	struct agreement_dim ad[2];
	struct agreement ag = AGREEMENT_INIT;
	struct headline s = AGREE_SUMMARY_INIT;
	long count[2][6] = { { 0 } };
	const struct agree_level_summary *lv;
	struct agree_code b2;
	struct buf b = BUF_INIT;
	int i;

	(void)state;
	memset(ad, 0, sizeof(ad));
	ad[0].dim = &one;
	ad[0].k = 3;
	table_of(&ad[0].table, 3, t1);
	ad[0].count = count[0];
	ad[1].dim = &many;
	ad[1].k = 3;
	ad[1].n_items = 10;
	ad[1].count = count[1];
	ad[1].per_code = per;
	for (i = 0; i < 10; i++) {
		sets[i] = sa[i];
		sets[10 + i] = sb[i];
		present[i] = present[10 + i] = 1;
		count[1][0] += (long)(sa[i] & 1);
		count[1][1] += (long)(sb[i] & 1);
		count[1][2] += (long)(sa[i] >> 1 & 1);
		count[1][3] += (long)(sb[i] >> 1 & 1);
	}
	ad[1].sets = sets;
	ad[1].present = present;
	ad[1].n_units = 10;
	assert_int_equal(agree_multi(3, sa, sb, 10, per, &ad[1].multi, NULL),
			 0);
	/* agree_multi() still counts code a as a kappa of 0 */
	assert_stat(per[0].kappa, 0);
	ag.annotators = names;
	ag.nr_annotators = 2;
	ag.dims = ad;
	ag.nr_dims = 2;
	assert_int_equal(headline_compute(&ag, NULL, &s, NULL), 0);

	lv = &s.dims[0].code;
	assert_undef(lv->kappa, "single code");
	assert_undef(lv->code_kappa[0], "chose this code on every item");
	assert_undef(lv->code_kappa[1], "never chose this code");
	agree_code(&ad[0].table, 0, &b2, NULL);
	assert_stat(b2.kappa, 0);	/* what was printed as 0.000 */

	lv = &s.dims[1].code;
	assert_undef(lv->code_kappa[0], "chose this code on every item");
	assert_undef(lv->code_kappa[2], "neither annotator used this code");
	assert_true(lv->code_kappa[1].defined);
	assert_stat(lv->kappa, lv->code_kappa[1].value);
	assert_int_equal(lv->codes_defined, 1);
	assert_int_equal(lv->codes_left_out, 2);
	assert_true(lv->ci.low.defined);
	assert_int_equal(lv->ci.boot, AGREE_BOOT_DEFAULT);
	agree_sentence_build(&ag, &s.dims[1], lv, &b);
	assert_non_null(strstr(b.ptr, "the mean of 1 code kappa, 2 codes "
			       "left out as undefined"));
	buf_release(&b);
	headline_release(&s);
	agree_table_release(&ad[0].table);
}

/* A kappa of 1 gets the exact one-sided lower bound whatever the
 * method; the gate reads it as the lower bound. */
static void test_kappa_one_bound(void **state)
{
	struct code codes[2] = { { .key = "yes" }, { .key = "no" } };
	struct dimension dim = { .key = "d", .name = "D", .codes = codes,
				 .nr_codes = 2 };
	char *names[2] = { "ann", "bob" };
	static const long v[4] = { 12, 0, 0, 8 };
	struct agreement_dim ad;
	struct agreement ag = AGREEMENT_INIT;
	struct headline s = AGREE_SUMMARY_INIT;
	struct agree_opts o = AGREE_OPTS_INIT;
	double pe = 0.6 * 0.6 + 0.4 * 0.4, pl = exp(log(0.05) / 20);
	int m;

	(void)state;
	memset(&ad, 0, sizeof(ad));
	ad.dim = &dim;
	ad.k = 2;
	table_of(&ad.table, 2, v);
	ag.annotators = names;
	ag.nr_annotators = 2;
	ag.dims = &ad;
	ag.nr_dims = 1;
	for (m = 0; m < 3; m++) {
		o.ci = m == 0 ? AGREE_CI_BOOTSTRAP : m == 1 ? AGREE_CI_WALD :
		       AGREE_CI_BCA;
		assert_int_equal(headline_compute(&ag, &o, &s, NULL), 0);
		assert_stat(s.dims[0].code.kappa, 1);
		assert_int_equal(s.dims[0].code.ci.method, AGREE_CI_EXACT);
		assert_near(s.dims[0].code.ci.low.value, (pl - pe) / (1 - pe));
		assert_stat(s.dims[0].code.ci.high, 1);
		/* the raw Wald bounds of an SE of 0 stay beside it */
		assert_stat(s.dims[0].code.ci.wald_low, 1);
		headline_release(&s);
	}
	agree_table_release(&ad.table);
}

/* The trend's standard error: three points on a line have none left. */
static void test_trend_se(void **state)
{
	const double y[4] = { 0.5, 0.6, 0.8, 0.7 };
	const double line[3] = { 0.5, 0.6, 0.7 };
	const int def[4] = { 1, 1, 1, 1 };
	struct agree_stat slope, se;

	(void)state;
	slope = agree_trend_slope(y, def, 4);
	se = agree_trend_se(y, def, 4);
	/* by hand: x = 0..3, Sxx = 5, Sxy = 0.4, fitted 0.53 + 0.08 x,
	 * residuals -0.03, -0.01, 0.11, -0.07 on 2 degrees of freedom */
	assert_near(slope.value, 0.08);
	assert_near(se.value, sqrt((0.03 * 0.03 + 0.01 * 0.01 +
				    0.11 * 0.11 + 0.07 * 0.07) / 2 / 5));
	se = agree_trend_se(line, def, 3);
	assert_near(se.value, 0);
	se = agree_trend_se(line, def, 2);
	assert_undef(se, "three rounds");
}

/* An optional select-many dimension nobody coded: identical (empty) sets
 * everywhere are no agreement to report. */
static void test_select_many_nobody(void **state)
{
	struct code codes[3] = { { .key = "a" }, { .key = "b" },
				 { .key = "c" } };
	struct dimension dim = { .key = "fix", .name = "Fix", .codes = codes,
				 .nr_codes = 3, .select_many = 1 };
	char *names[2] = { "ann", "bob" };
	uint64_t none[4] = { 0, 0, 0, 0 };
	struct agree_code per[3];
	struct agreement_dim ad;
	struct agreement ag = AGREEMENT_INIT;
	struct headline s = AGREE_SUMMARY_INIT;
	long count[6] = { 0 };
	struct buf b = BUF_INIT;

	(void)state;
	memset(&ad, 0, sizeof(ad));
	ad.dim = &dim;
	ad.k = 3;
	ad.n_items = 4;
	ad.count = count;
	ad.per_code = per;
	assert_int_equal(agree_multi(3, none, none, 4, per, &ad.multi, NULL),
			 0);
	assert_stat(ad.multi.exact, 1);	/* what was shown as 1.000 */
	ag.annotators = names;
	ag.nr_annotators = 2;
	ag.dims = &ad;
	ag.nr_dims = 1;
	assert_int_equal(headline_compute(&ag, NULL, &s, NULL), 0);
	assert_undef(s.dims[0].code.po, "no annotator chose a code");
	assert_false(s.dims[0].code.kappa.defined);
	agree_sentence_build(&ag, &s.dims[0], &s.dims[0].code, &b);
	assert_non_null(strstr(b.ptr, "is undefined"));
	assert_null(strstr(b.ptr, "1.00"));
	buf_release(&b);
	headline_release(&s);
}

/* ---- main --------------------------------------------------------------- */

static const struct CMUnitTest static_tests[] = {
	cmocka_unit_test(test_one_category),
	cmocka_unit_test(test_total_agreement),
	cmocka_unit_test(test_no_items),
	cmocka_unit_test(test_one_annotator_constant),
	cmocka_unit_test(test_missing_ratings),
	cmocka_unit_test(test_invalid_input),
	cmocka_unit_test(test_bands),
	cmocka_unit_test(test_per_code),
	cmocka_unit_test(test_pabak),
	cmocka_unit_test(test_multi_select),
	cmocka_unit_test(test_set_distances),
	cmocka_unit_test(test_weights),
	cmocka_unit_test(test_random_table),
	cmocka_unit_test(test_interval_past_one),
	cmocka_unit_test(test_zero_se),
	cmocka_unit_test(test_degenerate_kappa),
	cmocka_unit_test(test_conger_published),
	cmocka_unit_test(test_conger_two_is_cohen),
	cmocka_unit_test(test_fleiss_se),
	cmocka_unit_test(test_formatting),
	cmocka_unit_test(test_summary_levels),
	cmocka_unit_test(test_interval_every_size),
	cmocka_unit_test(test_code_every_item),
	cmocka_unit_test(test_kappa_one_bound),
	cmocka_unit_test(test_trend_se),
	cmocka_unit_test(test_interval_decimals),
	cmocka_unit_test(test_select_many_nobody),
	cmocka_unit_test(test_reference_summary),
};

int main(void)
{
	struct buf raw = BUF_INIT;
	struct CMUnitTest *tests;
	size_t nr_static = sizeof(static_tests) / sizeof(static_tests[0]);
	size_t nr = 0, i;
	const cJSON *c;
	int ret;

	memcpy(skips, skips_init, sizeof(skips));
	memcpy(overrides, overrides_init, sizeof(overrides));
	if (buf_read_file(&raw, FIXTURE) < 0) {
		print_error("%s: cannot read (run from the repository root)\n",
			    FIXTURE);
		return 1;
	}
	fixture = cJSON_ParseWithLength(raw.ptr, raw.len);
	buf_release(&raw);
	if (!cJSON_IsArray(fixture)) {
		print_error("%s: not a JSON array\n", FIXTURE);
		cJSON_Delete(fixture);
		return 1;
	}

	/* the static tests, one per reference case, then the summary */
	tests = xcalloc(nr_static + (size_t)cJSON_GetArraySize(fixture),
			sizeof(*tests));
	for (i = 0; i + 1 < nr_static; i++)
		tests[nr++] = static_tests[i];
	cJSON_ArrayForEach(c, fixture) {
		const cJSON *name = get(c, "name");

		tests[nr].name = cJSON_IsString(name) ? name->valuestring :
				 "unnamed case";
		tests[nr].test_func = test_case;
		tests[nr].initial_state = (void *)c;
		nr++;
	}
	tests[nr++] = static_tests[nr_static - 1];
	ret = _cmocka_run_group_tests("agree", tests, nr, NULL, NULL);
	free(tests);
	cJSON_Delete(fixture);
	return ret;
}
