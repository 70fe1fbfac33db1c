/* SPDX-License-Identifier: MIT */
/*
 * stat_int: what the agreement statistics (core/stats/stat_*.c, API in agree.h)
 * share among themselves; not API, included by stat_*.c only.
 *
 * Notation used in the comments of stat_*.c (two annotators):
 *   n_ij      items that annotator A put in code i and B in code j
 *   p_ij      n_ij / n
 *   p_i.      row margin (A), p_.j column margin (B)
 *   pi_i      pooled margin (p_i. + p_.i) / 2
 *   q         number of codes in the table (the codebook's, not only
 *             the observed ones: see "Which q" in stat_two.c)
 *
 * Undefined values are never NaN: see stat_undef() and the WHY_ strings
 * (stat_why.c; compared by address, so each is defined once).
 */
#ifndef BUGCODER_STAT_INT_H
#define BUGCODER_STAT_INT_H

#include <math.h>
#include <stddef.h>

#include "core/stats/agree.h"
#include "core/base/err.h"

/* A value this close to 1 (or 0) is taken as exactly 1 (0): it can only
 * come from rounding, not from a table of fewer than 10^6 items. */
#define NEAR_ZERO 1e-13

/* A variance numerator below this is rounding noise, taken as 0. */
#define VAR_NOISE 1e-12

/* Why a statistic is undefined (stat_why.c). */
extern const char WHY_NO_ITEMS[];
extern const char WHY_PE1[];
extern const char WHY_PE1_W[];
extern const char WHY_SE0[];
extern const char WHY_SE0_ZERO[];
extern const char WHY_ONE_CODE[];
extern const char WHY_ALL_WEIGHTS_1[];
extern const char WHY_NO_PAIRABLE[];
extern const char WHY_DE0[];
extern const char WHY_CODE_UNUSED[];
extern const char WHY_CODE_EVERYWHERE[];
extern const char WHY_NO_RATED[];
extern const char WHY_FLEISS_PE1[];
extern const char WHY_FLEISS_M[];
extern const char WHY_FLEISS_VAR[];
extern const char WHY_CODE_NO_RATING[];
extern const char WHY_CODE_ALL_RATINGS[];
extern const char WHY_PAIR_UNDEF[];
extern const char WHY_PAIR_EMPTY[];
extern const char WHY_NO_CODE_KAPPA[];
extern const char WHY_CONSTANT[];
extern const char WHY_NO_COMMON[];
extern const char WHY_SE_IS0[];
extern const char WHY_BOOT_DEGEN[];
extern const char WHY_BCA_SIDE[];
extern const char WHY_BCA_ACCEL[];
extern const char WHY_PERFECT_PE[];
extern const char WHY_CODE_NEVER[];
extern const char WHY_CODE_ALWAYS[];
extern const char WHY_BOOT_FLAT[];
extern const char WHY_SE_BAD[];
extern const char WHY_COEF_BAD[];

static inline void stat_set(struct agree_stat *s, double v)
{
	s->value = v;
	s->defined = 1;
	s->why = NULL;
}

static inline void stat_undef(struct agree_stat *s, const char *why)
{
	s->value = 0;
	s->defined = 0;
	s->why = why;
}

/* Upper tail of the standard normal, Q(z) = 1 - Phi(z) = erfc(z/sqrt 2)/2.
 * erfc keeps full relative precision far into the tail, where 1 - Phi
 * computed by subtraction would be 0. */
static inline double normal_sf(double z)
{
	return 0.5 * erfc(z / sqrt(2.0));
}

/* z and its p-values from a statistic and its null SE. */
static inline void set_test(double value, const struct agree_stat *se0,
		     struct agree_stat *z, struct agree_stat *p_two,
		     struct agree_stat *p_one)
{
	double zz;

	if (!se0->defined) {
		stat_undef(z, se0->why);
		stat_undef(p_two, se0->why);
		stat_undef(p_one, se0->why);
		return;
	}
	zz = value / se0->value;
	stat_set(z, zz);
	stat_set(p_two, 2 * normal_sf(fabs(zz)));
	stat_set(p_one, normal_sf(zz));
}

static inline void alpha_undef(struct agree_alpha *a, const char *why)
{
	stat_undef(&a->alpha, why);
	stat_undef(&a->d_o, why);
	stat_undef(&a->d_e, why);
	stat_undef(&a->po, why);
	a->n_values = 0;
	a->n_units = 0;
}

/* stat_two.c */
int stat_check_table(const struct agree_table *t, struct err *e);
void stat_alpha_from_coincidence(int k, const double *o, const double *d,
				   size_t units, struct agree_alpha *out);
void stat_code_2x2(long a, long b, long c, long d, struct agree_code *out);
/* stat_many.c */
struct conger_ctx {
	const int *v;		/* R x P labels, v[r*P + p] */
	size_t P, k;
	int R;
	double *agree;		/* P: pairs' agreement, -1 below 2 labels */
	double *cnt;		/* R x k, scratch */
	double *rated;		/* R, scratch */
};
int stat_check_counts(const struct agree_counts *c, struct err *e);
int stat_check_labels(const struct agree_labels *l, struct err *e);
double stat_unit_total(const struct agree_counts *c, size_t u);
void stat_conger_ctx_init(struct conger_ctx *c, const int *v, size_t P,
			    int R, int k);
void stat_conger_ctx_release(struct conger_ctx *c);
int stat_conger_fn(const long *w, void *vctx, double *value);
/* stat_interval.c */
void stat_ci_undef(struct agree_ci *out, const char *why);
void stat_ci_raw_wald(const struct agree_stat *value,
			const struct agree_stat *se, struct agree_ci *out);
int stat_cmp_double(const void *x, const void *y);
double stat_quantile7(const double *v, size_t n, double p);
double stat_normal_cdf(double x);

#endif
