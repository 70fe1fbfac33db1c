/* SPDX-License-Identifier: MIT */
/*
 * agree: inter-annotator agreement statistics; see agree.h for the scope.
 *
 * Notation used in the comments below (two annotators):
 *   n_ij      items that annotator A put in code i and B in code j
 *   p_ij      n_ij / n
 *   p_i.      row margin (A), p_.j column margin (B)
 *   pi_i      pooled margin (p_i. + p_.i) / 2
 *   q         number of codes in the table (the codebook's, not only
 *             the observed ones: see "Which q" below)
 *
 * Which q.  Unweighted kappa, Scott's pi and alpha do not change when an
 * unused code is added to the table.  Bennett's S (pe = 1/q) and Gwet's AC1
 * (divisor q - 1) do.  Here q is always the table's k, which the report
 * sets to the number of codes in the codebook dimension: the annotators
 * chose among all of them, and chance agreement is about that choice.  To
 * reproduce tools that use the observed codes only (irr's kappa2 builds its
 * levels from the data), build the table over the observed codes.
 *
 * Undefined values are never NaN: see stat_undef() and the WHY_ strings.
 */
#include "core/agree.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"

/* A value this close to 1 (or 0) is taken as exactly 1 (0): it can only
 * come from rounding, not from a table of fewer than 10^6 items. */
#define NEAR_ZERO 1e-13

/* A variance numerator below this is rounding noise, taken as 0. */
#define VAR_NOISE 1e-12

/* Slack at band boundaries (see agree_band()). */
#define BAND_EPS 1e-9

static const char WHY_NO_ITEMS[] = "no items";
static const char WHY_PE1[] =
	"expected agreement is 1: both annotators used a single code";
static const char WHY_PE1_W[] =
	"expected agreement is 1: the weights make every pair of codes agree";
static const char WHY_SE0[] = "se0 is 0: one annotator used a single code";
static const char WHY_SE0_ZERO[] = "se0 is 0";
static const char WHY_ONE_CODE[] = "needs at least two codes";
static const char WHY_ALL_WEIGHTS_1[] =
	"chance agreement is 1: every weight is 1";
static const char WHY_NO_PAIRABLE[] = "no unit has two values";
static const char WHY_DE0[] =
	"expected disagreement is 0: every value is the same";
static const char WHY_CODE_UNUSED[] = "neither annotator used this code";
static const char WHY_CODE_EVERYWHERE[] =
	"both annotators used this code on every item";
static const char WHY_NO_RATED[] = "no item has two ratings";
static const char WHY_FLEISS_PE1[] =
	"expected agreement is 1: every rating is the same code";
static const char WHY_FLEISS_M[] =
	"z needs the same number of ratings on every item";
static const char WHY_FLEISS_VAR[] = "the null variance is not positive";
static const char WHY_CODE_NO_RATING[] = "no rating used this code";
static const char WHY_CODE_ALL_RATINGS[] = "every rating used this code";
static const char WHY_PAIR_UNDEF[] =
	"kappa is undefined for some pair of annotators";
static const char WHY_PAIR_EMPTY[] =
	"some pair of annotators has no item in common";
static const char WHY_NO_CODE_KAPPA[] = "no code has a defined kappa";
static const char WHY_CONSTANT[] =
	"one annotator used a single code on every item";
static const char WHY_NO_COMMON[] =
	"the two annotators used no code in common";
static const char WHY_SE_IS0[] =
	"the standard error is 0, an interval of no width";
static const char WHY_BOOT_DEGEN[] =
	"half of the bootstrap resamples or more are degenerate";
static const char WHY_BCA_SIDE[] =
	"BCa: every bootstrap resample lies on one side of the estimate";
static const char WHY_BCA_ACCEL[] =
	"BCa: the acceleration is too large for this interval";
static const char WHY_PERFECT_PE[] =
	"chance agreement is 1: no lower bound";
static const char WHY_CODE_NEVER[] = "one annotator never chose this code";
static const char WHY_CODE_ALWAYS[] =
	"one annotator chose this code on every item";
static const char WHY_BOOT_FLAT[] =
	"every bootstrap sample gives the same value";
static const char WHY_SE_BAD[] = "standard error is negative or not finite";
static const char WHY_COEF_BAD[] = "coefficient is outside [-1, 1]";

static void stat_set(struct agree_stat *s, double v)
{
	s->value = v;
	s->defined = 1;
	s->why = NULL;
}

static void stat_undef(struct agree_stat *s, const char *why)
{
	s->value = 0;
	s->defined = 0;
	s->why = why;
}

/* Upper tail of the standard normal, Q(z) = 1 - Phi(z) = erfc(z/sqrt 2)/2.
 * erfc keeps full relative precision far into the tail, where 1 - Phi
 * computed by subtraction would be 0. */
static double normal_sf(double z)
{
	return 0.5 * erfc(z / sqrt(2.0));
}

/* z and its p-values from a statistic and its null SE. */
static void set_test(double value, const struct agree_stat *se0,
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

static void alpha_undef(struct agree_alpha *a, const char *why)
{
	stat_undef(&a->alpha, why);
	stat_undef(&a->d_o, why);
	stat_undef(&a->d_e, why);
	stat_undef(&a->po, why);
	a->n_values = 0;
	a->n_units = 0;
}

static int check_table(const struct agree_table *t, struct err *e)
{
	size_t i, kk;

	if (!t || t->k < 1 || !t->n)
		return err_set(e, ERR_INPUT, "agreement table has no codes");
	kk = (size_t)t->k * (size_t)t->k;
	for (i = 0; i < kk; i++)
		if (t->n[i] < 0)
			return err_set(e, ERR_INPUT,
				       "agreement table: negative count %ld "
				       "in row %zu, column %zu", t->n[i],
				       i / (size_t)t->k, i % (size_t)t->k);
	return 0;
}

void agree_table_init(struct agree_table *t, int k)
{
	if (k < 1)
		k = 1;
	t->k = k;
	t->n = xcalloc((size_t)k * (size_t)k, sizeof(*t->n));
}

void agree_table_release(struct agree_table *t)
{
	if (!t)
		return;
	free(t->n);
	t->n = NULL;
	t->k = 0;
}

long agree_table_total(const struct agree_table *t)
{
	size_t i, kk;
	long sum = 0;

	if (!t || !t->n || t->k < 1)
		return 0;
	kk = (size_t)t->k * (size_t)t->k;
	for (i = 0; i < kk; i++)
		sum += t->n[i];
	return sum;
}

int agree_table_from_labels(struct agree_table *t, int k, const int *a,
			    const int *b, size_t n, size_t *dropped,
			    struct err *e)
{
	size_t i, lost = 0;

	t->k = 0;
	t->n = NULL;
	if (k < 1)
		return err_set(e, ERR_INPUT, "agreement table needs a code");
	if (n && (!a || !b))
		return err_set(e, ERR_INPUT, "agreement table: no labels");
	agree_table_init(t, k);
	for (i = 0; i < n; i++) {
		int bad = a[i] < AGREE_MISSING || a[i] >= k ? a[i] :
			  b[i] < AGREE_MISSING || b[i] >= k ? b[i] : 0;

		if (bad) {
			agree_table_release(t);
			return err_set(e, ERR_INPUT, "item %zu: code %d out "
				       "of range 0..%d", i + 1, bad, k - 1);
		}
		if (a[i] == AGREE_MISSING || b[i] == AGREE_MISSING) {
			lost++;
			continue;
		}
		t->n[(size_t)a[i] * (size_t)k + (size_t)b[i]]++;
	}
	if (dropped)
		*dropped = lost;
	return 0;
}

/*
 * Krippendorff's alpha from a coincidence matrix (Krippendorff 2011,
 * "Computing Krippendorff's Alpha-Reliability", sections B-E):
 *
 *   o_ck   coincidences of values c and k: each unit u with m_u >= 2
 *          values adds n_uc (n_uk - [c = k]) / (m_u - 1)
 *   n_c    = sum_k o_ck, N = sum_c n_c (pairable values)
 *   D_o    = (1/N) sum_c sum_k o_ck d(c,k)
 *   D_e    = 1/(N(N-1)) sum_c sum_k n_c n_k d(c,k)
 *   alpha  = 1 - D_o / D_e
 *
 * Edge cases: N = 0 (no unit has two values) leaves everything undefined;
 * D_e = 0 (every pairable value the same, or a distance that is 0 on every
 * pair that occurs) leaves alpha undefined, where dkpro and irr report 1
 * and python-krippendorff raises.  `po` is sum_c o_cc / N, the share of
 * matching pairs (dkpro's multi-coder percent agreement; for two coders
 * without missing data it is po).
 */
static void alpha_from_coincidence(int k, const double *o, const double *d,
				   size_t units, struct agree_alpha *out)
{
	size_t kk = (size_t)k;
	double *marg = xcalloc(kk, sizeof(*marg));
	double nn = 0, obs = 0, exp_ = 0, same = 0;
	size_t c, j;

	for (c = 0; c < kk; c++) {
		for (j = 0; j < kk; j++)
			marg[c] += o[c * kk + j];
		nn += marg[c];
		same += o[c * kk + c];
	}
	if (nn <= 0) {
		alpha_undef(out, WHY_NO_PAIRABLE);
		free(marg);
		return;
	}
	for (c = 0; c < kk; c++)
		for (j = 0; j < kk; j++) {
			obs += o[c * kk + j] * d[c * kk + j];
			exp_ += marg[c] * marg[j] * d[c * kk + j];
		}
	free(marg);
	out->n_values = nn;
	out->n_units = units;
	stat_set(&out->po, same / nn);
	stat_set(&out->d_o, obs / nn);
	stat_set(&out->d_e, exp_ / (nn * (nn - 1)));
	if (exp_ <= 0)
		stat_undef(&out->alpha, WHY_DE0);
	else
		stat_set(&out->alpha, 1 - out->d_o.value / out->d_e.value);
}

/*
 * Two annotators, agreement weights w (identity for plain kappa).
 *
 *   po    = sum w_ij p_ij
 *   pe    = sum w_ij p_i. p_.j
 *   kappa = (po - pe) / (1 - pe)                      (Cohen 1960, 1968)
 *
 * Variances (Fleiss, Cohen & Everitt 1969; the SAS PROC FREQ AGREE
 * formulas, also Stata kapci, irrCAC, vcd, psych), with
 * wr_i = sum_j p_.j w_ij and wc_j = sum_i p_i. w_ij:
 *
 *   Var  = [sum p_ij (w_ij - (wr_i + wc_j)(1 - kappa))^2
 *           - (kappa - pe (1 - kappa))^2] / (n (1 - pe)^2)
 *   Var0 = [sum p_i. p_.j (w_ij - (wr_i + wc_j))^2 - pe^2]
 *           / (n (1 - pe)^2)
 *
 * With identity weights these are the unweighted FCE 1969 formulas, e.g.
 * Var0 = [pe + pe^2 - sum p_i. p_.i (p_i. + p_.i)] / (n (1 - pe)^2).
 * z = kappa / se0 and the p-values use the null SE; the 95% interval
 * kappa -+ 1.959964 se uses the non-null SE (SAS, Stata, statsmodels).
 * The interval is not clipped to [-1, 1]: clipping hides how wide it is
 * (psych clips, irrCAC caps at 1, fmsb does not).
 *
 * The relatives share po and differ in pe:
 *   Scott's pi (1955)       pe = sum w_ij pi_i pi_j
 *   Bennett's S (1954)      pe = T_w / q^2, T_w = sum w_ij (1/q unweighted)
 *   Gwet's AC1/AC2          pe = T_w / (q (q - 1)) sum pi_i (1 - pi_i)
 *   Krippendorff's alpha    coincidences o_ij = n_ij + n_ji, d = 1 - w
 *
 * Edge cases:
 *  - no items: everything undefined;
 *  - pe = 1 (both annotators used one and the same code): kappa is 0/0,
 *    undefined with its SEs, z, p and CI; so are pi and alpha.  It is
 *    detected from the margins, not by comparing a rounded pe with 1;
 *  - one annotator used a single code (pe < 1): po = pe, so kappa = 0
 *    exactly, but Var0 = 0: se0 is 0 and z and p are undefined (irr
 *    prints NaN);
 *  - q = 1: S and AC1 are undefined (1/q = 1, q - 1 = 0);
 *  - a variance that rounding made slightly negative is taken as 0.
 */
static void two_raters(const struct agree_table *t, const double *w,
		       struct agree_weighted *out)
{
	size_t k = (size_t)t->k, i, j;
	double *row = xcalloc(k, sizeof(*row));
	double *col = xcalloc(k, sizeof(*col));
	double *wr = xcalloc(k, sizeof(*wr));
	double *wc = xcalloc(k, sizeof(*wc));
	double *o = NULL, *d = NULL;
	double n, po = 0, pe = 0, kappa, sum, var, var0, tw = 0;
	double spe = 0, sumpi = 0, acpe;
	int rows_used = 0, cols_used = 0, pe_one, constant;
	size_t row_code = 0, col_code = 0;

	memset(out, 0, sizeof(*out));
	out->k = t->k;
	out->n = agree_table_total(t);
	n = (double)out->n;

	if (out->n == 0) {
		struct agree_stat *all[] = {
			&out->po, &out->pe, &out->kappa, &out->se, &out->se0,
			&out->z, &out->p_two, &out->p_one, &out->ci_low,
			&out->ci_high, &out->scott_pe, &out->scott_pi,
			&out->bennett_s, &out->ac2_pe, &out->ac2,
		};
		for (i = 0; i < sizeof(all) / sizeof(all[0]); i++)
			stat_undef(all[i], WHY_NO_ITEMS);
		alpha_undef(&out->alpha, WHY_NO_ITEMS);
		out->band = AGREE_BAND_NONE;
		goto out;
	}

	/* Margins from whole counts, divided once: a margin of 1 is exactly
	 * 1, so one annotator's single code gives po == pe exactly. */
	for (i = 0; i < k; i++) {
		long r = 0, c = 0;

		for (j = 0; j < k; j++) {
			r += t->n[i * k + j];
			c += t->n[j * k + i];
			po += w[i * k + j] * (double)t->n[i * k + j];
			tw += w[i * k + j];
		}
		row[i] = r / n;
		col[i] = c / n;
	}
	po /= n;
	for (i = 0; i < k; i++) {
		if (row[i] > 0) {
			rows_used++;
			row_code = i;
		}
		if (col[i] > 0) {
			cols_used++;
			col_code = i;
		}
	}
	for (i = 0; i < k; i++)
		for (j = 0; j < k; j++) {
			pe += w[i * k + j] * row[i] * col[j];
			wr[i] += col[j] * w[i * k + j];
			wc[j] += row[i] * w[i * k + j];
			spe += w[i * k + j] * (row[i] + col[i]) *
			       (row[j] + col[j]) / 4;
		}
	for (i = 0; i < k; i++) {
		double pi = (row[i] + col[i]) / 2;

		sumpi += pi * (1 - pi);
	}
	stat_set(&out->po, po);
	stat_set(&out->pe, pe);

	constant = rows_used == 1 || cols_used == 1;
	pe_one = (rows_used == 1 && cols_used == 1 && row_code == col_code);
	if (pe_one || 1 - pe <= NEAR_ZERO) {
		const char *why = pe_one ? WHY_PE1 : WHY_PE1_W;

		stat_undef(&out->kappa, why);
		stat_undef(&out->se, why);
		stat_undef(&out->se0, why);
		stat_undef(&out->z, why);
		stat_undef(&out->p_two, why);
		stat_undef(&out->p_one, why);
		stat_undef(&out->ci_low, why);
		stat_undef(&out->ci_high, why);
	} else {
		kappa = (po - pe) / (1 - pe);
		stat_set(&out->kappa, kappa);

		sum = 0;
		for (i = 0; i < k; i++)
			for (j = 0; j < k; j++) {
				double dev = w[i * k + j] -
					     (wr[i] + wc[j]) * (1 - kappa);

				sum += t->n[i * k + j] / n * dev * dev;
			}
		/* the numerator is a difference of O(1) terms: what is
		 * left below VAR_NOISE is rounding (a table with the
		 * exact variance 0 gave up to 1e-15 here, an SE of 3e-8) */
		sum -= (kappa - pe * (1 - kappa)) * (kappa - pe * (1 - kappa));
		var = sum > VAR_NOISE ? sum / (n * (1 - pe) * (1 - pe)) : 0;
		stat_set(&out->se, var > 0 ? sqrt(var) : 0);
		stat_set(&out->ci_low, kappa - AGREE_Z975 * out->se.value);
		stat_set(&out->ci_high, kappa + AGREE_Z975 * out->se.value);

		sum = 0;
		for (i = 0; i < k; i++)
			for (j = 0; j < k; j++) {
				double dev = w[i * k + j] - (wr[i] + wc[j]);

				sum += row[i] * col[j] * dev * dev;
			}
		sum -= pe * pe;
		var0 = sum > VAR_NOISE ? sum / (n * (1 - pe) * (1 - pe)) : 0;
		if (constant) {
			stat_set(&out->se0, 0);
			stat_undef(&out->z, WHY_SE0);
			stat_undef(&out->p_two, WHY_SE0);
			stat_undef(&out->p_one, WHY_SE0);
		} else if (!(var0 > 0)) {
			stat_set(&out->se0, 0);
			stat_undef(&out->z, WHY_SE0_ZERO);
			stat_undef(&out->p_two, WHY_SE0_ZERO);
			stat_undef(&out->p_one, WHY_SE0_ZERO);
		} else {
			stat_set(&out->se0, sqrt(var0));
			set_test(kappa, &out->se0, &out->z, &out->p_two,
				 &out->p_one);
		}
	}
	out->band = agree_band(&out->kappa);
	if (out->kappa.defined && constant)
		out->degenerate = WHY_CONSTANT;

	stat_set(&out->scott_pe, spe);
	if (pe_one || 1 - spe <= NEAR_ZERO)
		stat_undef(&out->scott_pi, pe_one ? WHY_PE1 : WHY_PE1_W);
	else
		stat_set(&out->scott_pi, (po - spe) / (1 - spe));

	if (k < 2) {
		stat_undef(&out->bennett_s, WHY_ONE_CODE);
		stat_undef(&out->ac2_pe, WHY_ONE_CODE);
		stat_undef(&out->ac2, WHY_ONE_CODE);
	} else {
		double bpe = tw / ((double)k * (double)k);

		if (1 - bpe <= NEAR_ZERO)
			stat_undef(&out->bennett_s, WHY_ALL_WEIGHTS_1);
		else
			stat_set(&out->bennett_s, (po - bpe) / (1 - bpe));
		acpe = tw / ((double)k * (double)(k - 1)) * sumpi;
		stat_set(&out->ac2_pe, acpe);
		if (1 - acpe <= NEAR_ZERO)
			stat_undef(&out->ac2, WHY_ALL_WEIGHTS_1);
		else
			stat_set(&out->ac2, (po - acpe) / (1 - acpe));
	}

	/* Two coders, every item pairable: o_ij = n_ij + n_ji, N = 2n. */
	o = xcalloc(k * k, sizeof(*o));
	d = xcalloc(k * k, sizeof(*d));
	for (i = 0; i < k; i++)
		for (j = 0; j < k; j++) {
			o[i * k + j] = (double)t->n[i * k + j] +
				       (double)t->n[j * k + i];
			d[i * k + j] = 1 - w[i * k + j];
		}
	alpha_from_coincidence(t->k, o, d, (size_t)out->n, &out->alpha);
out:
	free(o);
	free(d);
	free(row);
	free(col);
	free(wr);
	free(wc);
}

int agree_weights(double *w, int k, enum agree_weighting kind,
		  const double *scores, struct err *e)
{
	double lo, hi, range;
	size_t kk, i, j;

	if (k < 1 || !w)
		return err_set(e, ERR_INPUT, "weights need at least one code");
	if (kind != AGREE_LINEAR && kind != AGREE_QUADRATIC)
		return err_set(e, ERR_INPUT, "unknown weighting %d", kind);
	kk = (size_t)k;
	lo = hi = scores ? scores[0] : 0;
	for (i = 0; i < kk; i++) {
		double s = scores ? scores[i] : (double)i;

		if (!isfinite(s))
			return err_set(e, ERR_INPUT,
				       "score of code %zu is not finite", i);
		if (s < lo)
			lo = s;
		if (s > hi)
			hi = s;
	}
	range = hi - lo;
	if (k > 1 && range <= 0)
		return err_set(e, ERR_INPUT, "all codes have the same score");
	for (i = 0; i < kk; i++)
		for (j = 0; j < kk; j++) {
			double si = scores ? scores[i] : (double)i;
			double sj = scores ? scores[j] : (double)j;
			double x = i == j ? 0 : fabs(si - sj) / range;

			w[i * kk + j] = kind == AGREE_LINEAR ? 1 - x :
							       1 - x * x;
		}
	return 0;
}

int agree_weights_from_distance(double *w, int k, const double *d,
				struct err *e)
{
	size_t kk, i, j;
	double max = 0;

	if (k < 1 || !w || !d)
		return err_set(e, ERR_INPUT, "weights need at least one code");
	kk = (size_t)k;
	for (i = 0; i < kk; i++)
		for (j = 0; j < kk; j++) {
			double x = d[i * kk + j];

			if (!isfinite(x) || x < 0)
				return err_set(e, ERR_INPUT, "distance "
					       "[%zu][%zu] is negative or not "
					       "finite", i, j);
			if (i == j && x != 0)
				return err_set(e, ERR_INPUT,
					       "distance [%zu][%zu] of a code "
					       "to itself is not 0", i, j);
			if (x > max)
				max = x;
		}
	for (i = 0; i < kk * kk; i++)
		w[i] = max > 0 ? 1 - d[i] / max : 1;
	return 0;
}

int agree_weighted(const struct agree_table *t, const double *w,
		   struct agree_weighted *out, struct err *e)
{
	size_t kk, i, j;

	if (check_table(t, e) < 0)
		return -1;
	if (!w)
		return err_set(e, ERR_INPUT, "weighted kappa needs weights");
	kk = (size_t)t->k;
	for (i = 0; i < kk; i++)
		for (j = 0; j < kk; j++) {
			double x = w[i * kk + j];

			if (!isfinite(x) || x < 0 || x > 1 ||
			    (i == j && x != 1))
				return err_set(e, ERR_INPUT,
					       "weight [%zu][%zu] = %g: "
					       "agreement weights are in "
					       "[0, 1] with 1 on the diagonal",
					       i, j, x);
		}
	two_raters(t, w, out);
	return 0;
}

/*
 * Unweighted statistics are the weighted ones with identity weights, plus:
 *
 *   po_max    = sum_i min(p_i., p_.i)                       (Cohen 1960)
 *   kappa_max = (po_max - pe) / (1 - pe)
 *   PABAK     = (q po - 1) / (q - 1)
 *
 * PABAK (Byrt, Bishop & Carlin 1993) is 2 po - 1 for two codes; its usual
 * generalisation to q codes, used here, is algebraically Bennett's S, and
 * is reported under both names.
 */
int agree_cohen(const struct agree_table *t, struct agree_cohen *out,
		struct err *e)
{
	struct agree_weighted wt;
	size_t kk, i, j;
	double *w, pomax;
	long mins = 0;
	int common = 0;

	if (check_table(t, e) < 0)
		return -1;
	kk = (size_t)t->k;
	w = xcalloc(kk * kk, sizeof(*w));
	for (i = 0; i < kk; i++)
		w[i * kk + i] = 1;
	two_raters(t, w, &wt);
	free(w);

	memset(out, 0, sizeof(*out));
	out->n = wt.n;
	out->k = t->k;
	out->po = wt.po;
	out->pe = wt.pe;
	out->kappa = wt.kappa;
	out->se = wt.se;
	out->se0 = wt.se0;
	out->z = wt.z;
	out->p_two = wt.p_two;
	out->p_one = wt.p_one;
	out->ci_low = wt.ci_low;
	out->ci_high = wt.ci_high;
	out->scott_pe = wt.scott_pe;
	out->scott_pi = wt.scott_pi;
	out->bennett_s = wt.bennett_s;
	out->pabak = wt.bennett_s;
	out->ac1_pe = wt.ac2_pe;
	out->ac1 = wt.ac2;
	out->alpha = wt.alpha;
	out->band = wt.band;
	out->degenerate = wt.degenerate;

	for (i = 0; i < kk; i++) {
		long r = 0, c = 0;

		for (j = 0; j < kk; j++) {
			r += t->n[i * kk + j];
			c += t->n[j * kk + i];
		}
		if (r || c)
			out->k_used++;
		if (r && c)
			common++;
		mins += r < c ? r : c;
	}
	if (wt.kappa.defined && !out->degenerate && !common)
		out->degenerate = WHY_NO_COMMON;
	pomax = wt.n ? (double)mins / (double)wt.n : 0;
	if (!wt.n) {
		stat_undef(&out->po_max, WHY_NO_ITEMS);
		stat_undef(&out->kappa_max, WHY_NO_ITEMS);
	} else {
		stat_set(&out->po_max, pomax);
		if (wt.kappa.defined)
			stat_set(&out->kappa_max, (pomax - wt.pe.value) /
						  (1 - wt.pe.value));
		else
			stat_undef(&out->kappa_max, wt.kappa.why);
	}
	return 0;
}

/*
 * One code against the rest, from the 2 x 2 counts
 *
 *            B: c   B: not c
 *   A: c       a       b
 *   A: not c   c       d
 *
 *   kappa = 2 (ad - bc) / ((a+b)(b+d) + (a+c)(c+d))
 *           (Cohen's kappa of the 2 x 2 table, written without pe so that
 *           whole counts stay exact)
 *   pi    = Scott's pi with pooled margin (2a + b + c) / 2n: dkpro's
 *           "category agreement", which reproduces the per-category values
 *           of Agresti 1992 / Landis & Koch 1977
 *   pos   = 2a / (2a + b + c), neg = 2d / (2d + b + c)
 *           (Cicchetti & Feinstein 1990; pos is the Dice coefficient)
 *
 * Kappa and pi are undefined when only a or only d is non-zero: nobody
 * used the code, or both used it on every item.
 */
static void code_2x2(long a, long b, long c, long d, struct agree_code *out)
{
	double n = (double)a + b + c + d;
	double den, pi1, pe, po;

	memset(out, 0, sizeof(*out));
	out->n_a = a + b;
	out->n_b = a + c;
	out->both = a;
	out->neither = d;
	if (n == 0) {
		stat_undef(&out->kappa, WHY_NO_ITEMS);
		stat_undef(&out->pi, WHY_NO_ITEMS);
		stat_undef(&out->pos, WHY_NO_ITEMS);
		stat_undef(&out->neg, WHY_NO_ITEMS);
		return;
	}
	if (a + b + c == 0) {
		stat_undef(&out->kappa, WHY_CODE_UNUSED);
		stat_undef(&out->pi, WHY_CODE_UNUSED);
	} else if (b + c + d == 0) {
		stat_undef(&out->kappa, WHY_CODE_EVERYWHERE);
		stat_undef(&out->pi, WHY_CODE_EVERYWHERE);
	} else {
		den = (double)(a + b) * (double)(b + d) +
		      (double)(a + c) * (double)(c + d);
		stat_set(&out->kappa, 2 * ((double)a * (double)d -
					   (double)b * (double)c) / den);
		po = (a + d) / n;
		pi1 = (2.0 * a + b + c) / (2 * n);
		pe = pi1 * pi1 + (1 - pi1) * (1 - pi1);
		stat_set(&out->pi, (po - pe) / (1 - pe));
	}
	if (2 * a + b + c == 0)
		stat_undef(&out->pos, WHY_CODE_UNUSED);
	else
		stat_set(&out->pos, 2.0 * a / (2.0 * a + b + c));
	if (2 * d + b + c == 0)
		stat_undef(&out->neg, WHY_CODE_EVERYWHERE);
	else
		stat_set(&out->neg, 2.0 * d / (2.0 * d + b + c));
}

int agree_code(const struct agree_table *t, int code, struct agree_code *out,
	       struct err *e)
{
	size_t kk, i, cc;
	long a, row = 0, col = 0, total;

	if (check_table(t, e) < 0)
		return -1;
	if (code < 0 || code >= t->k)
		return err_set(e, ERR_INPUT, "code %d out of range 0..%d",
			       code, t->k - 1);
	kk = (size_t)t->k;
	cc = (size_t)code;
	for (i = 0; i < kk; i++) {
		row += t->n[cc * kk + i];
		col += t->n[i * kk + cc];
	}
	total = agree_table_total(t);
	a = t->n[cc * kk + cc];
	code_2x2(a, row - a, col - a, total - row - col + a, out);
	return 0;
}

struct agree_stat agree_code_reported(const struct agree_code *c)
{
	struct agree_stat s = c->kappa;
	long n = c->n_a + c->n_b - c->both + c->neither;

	if (!s.defined)
		return s;
	if (!c->n_a || !c->n_b)
		stat_undef(&s, WHY_CODE_NEVER);
	else if (c->n_a == n || c->n_b == n)
		stat_undef(&s, WHY_CODE_ALWAYS);
	return s;
}

/* ---- "select many" ----------------------------------------------------- */

static int popcount64(uint64_t x)
{
	int n = 0;

	for (; x; x &= x - 1)
		n++;
	return n;
}

double agree_set_distance(uint64_t a, uint64_t b, enum agree_set_metric metric)
{
	uint64_t both = a & b, any = a | b;
	double jac, m;

	if (a == b)
		return 0;
	switch (metric) {
	case AGREE_SET_BINARY:
		return 1;
	case AGREE_SET_JACCARD:
		return 1 - (double)popcount64(both) / popcount64(any);
	case AGREE_SET_PASSONNEAU:
		if (both == a || both == b)
			return 1.0 / 3;
		return both ? 2.0 / 3 : 1;
	case AGREE_SET_MASI:
		jac = (double)popcount64(both) / popcount64(any);
		if (both == a || both == b)
			m = 2.0 / 3;
		else
			m = both ? 1.0 / 3 : 0;
		return 1 - jac * m;
	}
	return 1;
}

/*
 * Each code of a select-many dimension is a present/absent judgement on
 * every item, so it gets the 2 x 2 statistics of code_2x2().  The summary
 * is the mean of the defined per-code kappas (unweighted: every code
 * counts the same, however rare) and the share of items whose two sets
 * are identical (the "exact set" agreement, dkpro's pa on sets).
 */
int agree_multi(int k, const uint64_t *a, const uint64_t *b, size_t n,
		struct agree_code *codes, struct agree_multi *out,
		struct err *e)
{
	uint64_t valid;
	size_t i, same = 0;
	double sum = 0;
	int c;

	if (k < 1 || k > AGREE_MULTI_MAX)
		return err_set(e, ERR_INPUT, "select-many dimension has %d "
			       "codes, need 1..%d", k, AGREE_MULTI_MAX);
	if (n && (!a || !b))
		return err_set(e, ERR_INPUT, "select-many: no labels");
	valid = k == 64 ? ~(uint64_t)0 : (((uint64_t)1 << k) - 1);
	for (i = 0; i < n; i++) {
		if ((a[i] | b[i]) & ~valid)
			return err_set(e, ERR_INPUT, "item %zu: code out of "
				       "range 0..%d", i + 1, k - 1);
		if (a[i] == b[i])
			same++;
	}
	memset(out, 0, sizeof(*out));
	out->n = n;
	out->k = k;
	if (!n)
		stat_undef(&out->exact, WHY_NO_ITEMS);
	else
		stat_set(&out->exact, (double)same / (double)n);
	for (c = 0; c < k; c++) {
		uint64_t bit = (uint64_t)1 << c;
		long both = 0, only_a = 0, only_b = 0, neither = 0;
		struct agree_code one;

		for (i = 0; i < n; i++) {
			int x = (a[i] & bit) != 0, y = (b[i] & bit) != 0;

			if (x && y)
				both++;
			else if (x)
				only_a++;
			else if (y)
				only_b++;
			else
				neither++;
		}
		code_2x2(both, only_a, only_b, neither, &one);
		if (codes)
			codes[c] = one;
		if (one.kappa.defined) {
			sum += one.kappa.value;
			out->n_defined++;
		}
	}
	if (!n)
		stat_undef(&out->mean_kappa, WHY_NO_ITEMS);
	else if (!out->n_defined)
		stat_undef(&out->mean_kappa, WHY_NO_CODE_KAPPA);
	else
		stat_set(&out->mean_kappa, sum / out->n_defined);
	return 0;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/*
 * Alpha on sets (Passonneau 2004): every distinct set is a value and the
 * distance between values is a set distance.  Two coders, every unit
 * pairable, so unit u adds 1 to o(a_u, b_u) and to o(b_u, a_u) and
 * N = 2n; D_o and D_e are as in alpha_from_coincidence(), computed over
 * the distinct sets (time grows with their number squared).
 */
int agree_multi_alpha(const uint64_t *a, const uint64_t *b, size_t n,
		      enum agree_set_metric metric, struct agree_alpha *out,
		      struct err *e)
{
	uint64_t *v;
	double *cnt, nn, obs = 0, exp_ = 0;
	size_t i, j, m = 0, same = 0;

	if (metric != AGREE_SET_BINARY && metric != AGREE_SET_JACCARD &&
	    metric != AGREE_SET_PASSONNEAU && metric != AGREE_SET_MASI)
		return err_set(e, ERR_INPUT, "unknown set distance %d", metric);
	if (n && (!a || !b))
		return err_set(e, ERR_INPUT, "select-many: no labels");
	memset(out, 0, sizeof(*out));
	if (!n) {
		alpha_undef(out, WHY_NO_PAIRABLE);
		return 0;
	}
	v = xmalloc(2 * n * sizeof(*v));
	cnt = xcalloc(2 * n, sizeof(*cnt));
	memcpy(v, a, n * sizeof(*v));
	memcpy(v + n, b, n * sizeof(*v));
	qsort(v, 2 * n, sizeof(*v), cmp_u64);
	for (i = 0; i < 2 * n; i++) {
		if (m && v[m - 1] == v[i]) {
			cnt[m - 1]++;
			continue;
		}
		v[m] = v[i];
		cnt[m++] = 1;
	}
	for (i = 0; i < n; i++) {
		obs += 2 * agree_set_distance(a[i], b[i], metric);
		if (a[i] == b[i])
			same++;
	}
	for (i = 0; i < m; i++)
		for (j = i + 1; j < m; j++)
			exp_ += 2 * cnt[i] * cnt[j] *
				agree_set_distance(v[i], v[j], metric);
	free(v);
	free(cnt);
	nn = 2.0 * (double)n;
	out->n_values = nn;
	out->n_units = n;
	stat_set(&out->po, 2.0 * (double)same / nn);
	stat_set(&out->d_o, obs / nn);
	stat_set(&out->d_e, exp_ / (nn * (nn - 1)));
	if (exp_ <= 0)
		stat_undef(&out->alpha, WHY_DE0);
	else
		stat_set(&out->alpha, 1 - out->d_o.value / out->d_e.value);
	return 0;
}

/* ---- more than two annotators ------------------------------------------ */

static int check_counts(const struct agree_counts *c, struct err *e)
{
	size_t i, total;

	if (!c || c->k < 1 || (c->n_units && !c->n))
		return err_set(e, ERR_INPUT, "count matrix has no codes");
	total = c->n_units * (size_t)c->k;
	for (i = 0; i < total; i++)
		if (!isfinite(c->n[i]) || c->n[i] < 0)
			return err_set(e, ERR_INPUT,
				       "count matrix: unit %zu, code %zu: "
				       "count %g is negative or not finite",
				       i / (size_t)c->k + 1, i % (size_t)c->k,
				       c->n[i]);
	return 0;
}

void agree_counts_init(struct agree_counts *c, size_t n_units, int k)
{
	if (k < 1)
		k = 1;
	c->n_units = n_units;
	c->k = k;
	c->n = xcalloc(n_units ? n_units * (size_t)k : 1, sizeof(*c->n));
}

void agree_counts_release(struct agree_counts *c)
{
	if (!c)
		return;
	free(c->n);
	c->n = NULL;
	c->n_units = 0;
	c->k = 0;
}

static int check_labels(const struct agree_labels *l, struct err *e)
{
	size_t u;
	int c;

	if (!l || l->k < 1 || l->n_coders < 1 || (l->n_units && !l->v))
		return err_set(e, ERR_INPUT, "label matrix is empty");
	for (c = 0; c < l->n_coders; c++)
		for (u = 0; u < l->n_units; u++) {
			int x = l->v[(size_t)c * l->n_units + u];

			if (x < AGREE_MISSING || x >= l->k)
				return err_set(e, ERR_INPUT,
					       "coder %d, unit %zu: code %d "
					       "out of range 0..%d", c + 1,
					       u + 1, x, l->k - 1);
		}
	return 0;
}

int agree_counts_from_labels(struct agree_counts *c,
			     const struct agree_labels *l, struct err *e)
{
	size_t u;
	int r;

	c->n = NULL;
	c->n_units = 0;
	c->k = 0;
	if (check_labels(l, e) < 0)
		return -1;
	agree_counts_init(c, l->n_units, l->k);
	for (r = 0; r < l->n_coders; r++)
		for (u = 0; u < l->n_units; u++) {
			int x = l->v[(size_t)r * l->n_units + u];

			if (x != AGREE_MISSING)
				c->n[u * (size_t)l->k + (size_t)x] += 1;
		}
	return 0;
}

static double unit_total(const struct agree_counts *c, size_t u)
{
	double m = 0;
	int j;

	for (j = 0; j < c->k; j++)
		m += c->n[u * (size_t)c->k + (size_t)j];
	return m;
}

/* "code" vs "not code": a units x 2 matrix; the caller releases it. */
static void collapse(const struct agree_counts *c, int code,
		     struct agree_counts *out)
{
	size_t u;

	agree_counts_init(out, c->n_units, 2);
	for (u = 0; u < c->n_units; u++) {
		double x = c->n[u * (size_t)c->k + (size_t)code];

		out->n[2 * u] = x;
		out->n[2 * u + 1] = unit_total(c, u) - x;
	}
}

/*
 * Krippendorff's alpha for any number of coders and missing values; see
 * alpha_from_coincidence() for the formula.  Distances (Krippendorff
 * 2011, section E):
 *   nominal   d = [c != k]
 *   ordinal   d = (sum_{g=c..k} n_g - (n_c + n_k)/2)^2, codes in rank
 *             order, n_g the coincidence margins (so unused codes do not
 *             count)
 *   interval  d = (v_c - v_k)^2
 *   ratio     d = ((v_c - v_k) / (v_c + v_k))^2, 0 when both are 0
 *   custom    d given; only d(c,k) + d(k,c) matters, as o is symmetric
 */
int agree_alpha(const struct agree_counts *c, enum agree_metric metric,
		const double *arg, struct agree_alpha *out, struct err *e)
{
	size_t kk, u, i, j, units = 0;
	double *o, *d, *marg;

	if (check_counts(c, e) < 0)
		return -1;
	kk = (size_t)c->k;
	switch (metric) {
	case AGREE_NOMINAL:
	case AGREE_ORDINAL:
		break;
	case AGREE_INTERVAL:
	case AGREE_RATIO:
		if (!arg)
			return err_set(e, ERR_INPUT,
				       "interval and ratio alpha need values");
		for (i = 0; i < kk; i++)
			if (!isfinite(arg[i]) ||
			    (metric == AGREE_RATIO && arg[i] < 0))
				return err_set(e, ERR_INPUT,
					       "value %g of code %zu is not "
					       "usable for %s alpha", arg[i], i,
					       metric == AGREE_RATIO ?
					       "ratio" : "interval");
		break;
	case AGREE_CUSTOM:
		if (!arg)
			return err_set(e, ERR_INPUT,
				       "custom alpha needs a distance matrix");
		for (i = 0; i < kk * kk; i++)
			if (!isfinite(arg[i]) || arg[i] < 0)
				return err_set(e, ERR_INPUT, "distance "
					       "[%zu][%zu] is negative or not "
					       "finite", i / kk, i % kk);
		break;
	default:
		return err_set(e, ERR_INPUT, "unknown alpha metric %d", metric);
	}

	o = xcalloc(kk * kk, sizeof(*o));
	d = xcalloc(kk * kk, sizeof(*d));
	marg = xcalloc(kk, sizeof(*marg));
	for (u = 0; u < c->n_units; u++) {
		const double *x = c->n + u * kk;
		double m = unit_total(c, u);

		if (m < 2)
			continue;
		units++;
		for (i = 0; i < kk; i++) {
			if (x[i] == 0)
				continue;
			for (j = 0; j < kk; j++)
				o[i * kk + j] += x[i] * (x[j] - (i == j)) /
						 (m - 1);
		}
	}
	for (i = 0; i < kk; i++)
		for (j = 0; j < kk; j++)
			marg[i] += o[i * kk + j];
	for (i = 0; i < kk; i++)
		for (j = 0; j < kk; j++) {
			double x = 0;

			switch (metric) {
			case AGREE_NOMINAL:
				x = i != j;
				break;
			case AGREE_ORDINAL: {
				size_t lo = i < j ? i : j;
				size_t hi = i < j ? j : i, g;

				for (g = lo; g <= hi; g++)
					x += marg[g];
				x -= (marg[i] + marg[j]) / 2;
				x *= x;
				break;
			}
			case AGREE_INTERVAL:
				x = (arg[i] - arg[j]) * (arg[i] - arg[j]);
				break;
			case AGREE_RATIO:
				if (arg[i] + arg[j] > 0) {
					x = (arg[i] - arg[j]) /
					    (arg[i] + arg[j]);
					x *= x;
				}
				break;
			case AGREE_CUSTOM:
				x = arg[i * kk + j];
				break;
			}
			d[i * kk + j] = i == j && metric != AGREE_CUSTOM ?
					0 : x;
		}
	memset(out, 0, sizeof(*out));
	alpha_from_coincidence(c->k, o, d, units, out);
	free(o);
	free(d);
	free(marg);
	return 0;
}

/* Total count of code `code` over all units. */
static double code_total(const struct agree_counts *c, int code)
{
	double sum = 0;
	size_t u;

	for (u = 0; u < c->n_units; u++)
		sum += c->n[u * (size_t)c->k + (size_t)code];
	return sum;
}

int agree_alpha_code(const struct agree_counts *c, int code,
		     struct agree_alpha *out, struct err *e)
{
	struct agree_counts two = AGREE_COUNTS_INIT;
	int ret;

	if (check_counts(c, e) < 0)
		return -1;
	if (code < 0 || code >= c->k)
		return err_set(e, ERR_INPUT, "code %d out of range 0..%d",
			       code, c->k - 1);
	collapse(c, code, &two);
	ret = agree_alpha(&two, AGREE_NOMINAL, NULL, out, e);
	agree_counts_release(&two);
	if (!ret && !out->alpha.defined && out->alpha.why == WHY_DE0)
		out->alpha.why = code_total(c, code) > 0 ?
				 WHY_CODE_ALL_RATINGS : WHY_CODE_NO_RATING;
	return ret;
}

/*
 * Fleiss' kappa (Fleiss 1971), for N units with m_u >= 2 ratings each,
 * n_uj of them in code j:
 *
 *   P_u   = sum_j n_uj (n_uj - 1) / (m_u (m_u - 1))   agreeing pairs in u
 *   po    = (1/N) sum_u P_u
 *   p_j   = (1/N) sum_u n_uj / m_u                     share of code j
 *   pe    = sum_j p_j^2
 *   kappa = (po - pe) / (1 - pe)
 *
 * With the same m on every unit this is Fleiss 1971 exactly; unequal m_u
 * (missing ratings) follow Gwet 2014 (irrCAC fleiss.kappa.raw), except
 * that units with a single rating are left out of p_j too.
 *
 * Null SE (Fleiss, Nee & Landis 1979; irr's kappam.fleiss), equal m only:
 *   Var0 = 2 / ((sum p_j q_j)^2 N m (m - 1))
 *          * ((sum p_j q_j)^2 - sum p_j q_j (q_j - p_j)),  q_j = 1 - p_j
 *
 * Relatives with the same po:
 *   free-marginal kappa (Randolph 2005; Brennan-Prediger)  pe = 1/q
 *   Gwet's AC1                       pe = sum p_j (1 - p_j) / (q - 1)
 *
 * Edge cases: no unit with two ratings leaves everything undefined; a
 * single code in every rating makes pe = 1 and kappa undefined (the
 * free-marginal kappa is then 1); q = 1 leaves S and AC1 undefined.
 */
/*
 * Non-null variance of Fleiss' kappa (Gwet 2014, sec. 5.3; irrCAC's
 * fleiss.kappa.raw without finite-population correction), over the N
 * units with m_u >= 2 ratings and the shares p_j above:
 *
 *   kappa_u  = (P_u - pe) / (1 - pe)
 *   pe_u     = sum_j n_uj p_j / m_u
 *   kappa*_u = kappa_u - 2 (1 - kappa) (pe_u - pe) / (1 - pe)
 *   Var      = sum_u (kappa*_u - kappa)^2 / (N (N - 1))
 *
 * Undefined for a single unit; a numerator below VAR_NOISE is 0.
 */
static void fleiss_se(const struct agree_counts *c, const double *p,
		      double pe, double kappa, size_t units,
		      struct agree_stat *se)
{
	size_t kk = (size_t)c->k, u, j;
	double sum = 0;

	if (units < 2) {
		stat_undef(se, "one unit gives no variance");
		return;
	}
	for (u = 0; u < c->n_units; u++) {
		const double *x = c->n + u * kk;
		double m = unit_total(c, u), pu = 0, peu = 0, ku;

		if (m < 2)
			continue;
		for (j = 0; j < kk; j++) {
			pu += x[j] * (x[j] - 1);
			peu += x[j] * p[j];
		}
		pu /= m * (m - 1);
		peu /= m;
		ku = (pu - pe) / (1 - pe) -
		     2 * (1 - kappa) * (peu - pe) / (1 - pe);
		sum += (ku - kappa) * (ku - kappa);
	}
	stat_set(se, sum > VAR_NOISE ? sqrt(sum / ((double)units *
						    (double)(units - 1))) : 0);
}

int agree_fleiss(const struct agree_counts *c, struct agree_fleiss *out,
		 struct err *e)
{
	size_t kk, u, j, units = 0;
	double *p, po = 0, pe = 0, m0 = -1, spq = 0, spqqp = 0, kappa;
	int equal = 1, used = 0;

	if (check_counts(c, e) < 0)
		return -1;
	memset(out, 0, sizeof(*out));
	kk = (size_t)c->k;
	out->k = c->k;
	p = xcalloc(kk, sizeof(*p));
	for (u = 0; u < c->n_units; u++) {
		const double *x = c->n + u * kk;
		double m = unit_total(c, u), agree = 0;

		if (m < 2)
			continue;
		units++;
		if (m0 < 0)
			m0 = m;
		else if (fabs(m - m0) > 1e-9 * m0)
			equal = 0;
		for (j = 0; j < kk; j++) {
			agree += x[j] * (x[j] - 1);
			p[j] += x[j] / m;
		}
		po += agree / (m * (m - 1));
	}
	out->n_units = units;
	out->m = equal && units ? m0 : 0;
	if (!units) {
		struct agree_stat *all[] = {
			&out->po, &out->pe, &out->kappa, &out->se, &out->se0,
			&out->z,
			&out->p_two, &out->p_one, &out->bennett_s,
			&out->ac1_pe, &out->ac1,
		};
		for (j = 0; j < sizeof(all) / sizeof(all[0]); j++)
			stat_undef(all[j], WHY_NO_RATED);
		out->band = AGREE_BAND_NONE;
		free(p);
		return 0;
	}
	po /= (double)units;
	for (j = 0; j < kk; j++) {
		p[j] /= (double)units;
		pe += p[j] * p[j];
		spq += p[j] * (1 - p[j]);
		spqqp += p[j] * (1 - p[j]) * ((1 - p[j]) - p[j]);
		if (p[j] > 0)
			used++;
	}
	stat_set(&out->po, po);
	stat_set(&out->pe, pe);
	if (used == 1 || 1 - pe <= NEAR_ZERO) {
		stat_undef(&out->kappa, WHY_FLEISS_PE1);
		stat_undef(&out->se, WHY_FLEISS_PE1);
		stat_undef(&out->se0, WHY_FLEISS_PE1);
		stat_undef(&out->z, WHY_FLEISS_PE1);
		stat_undef(&out->p_two, WHY_FLEISS_PE1);
		stat_undef(&out->p_one, WHY_FLEISS_PE1);
	} else {
		kappa = (po - pe) / (1 - pe);
		stat_set(&out->kappa, kappa);
		fleiss_se(c, p, pe, kappa, units, &out->se);
		if (!out->m) {
			stat_undef(&out->se0, WHY_FLEISS_M);
		} else {
			double m = out->m;
			double var0 = 2 / (spq * spq * (double)units * m *
					   (m - 1)) * (spq * spq - spqqp);

			if (var0 > 0)
				stat_set(&out->se0, sqrt(var0));
			else
				stat_undef(&out->se0, WHY_FLEISS_VAR);
		}
		set_test(kappa, &out->se0, &out->z, &out->p_two, &out->p_one);
	}
	out->band = agree_band(&out->kappa);
	if (kk < 2) {
		stat_undef(&out->bennett_s, WHY_ONE_CODE);
		stat_undef(&out->ac1_pe, WHY_ONE_CODE);
		stat_undef(&out->ac1, WHY_ONE_CODE);
	} else {
		double q = (double)kk, acpe = spq / (q - 1);

		stat_set(&out->bennett_s, (po - 1 / q) / (1 - 1 / q));
		stat_set(&out->ac1_pe, acpe);
		stat_set(&out->ac1, (po - acpe) / (1 - acpe));
	}
	free(p);
	return 0;
}

/*
 * Fleiss 1971 (eq. 17) gives kappa for code j as
 *   kappa_j = 1 - sum_u n_uj (m - n_uj) / (N m (m - 1) p_j q_j),
 * which is Fleiss' kappa of the data recoded to "j" / "not j"; the recoding
 * also covers unequal m_u.
 */
int agree_fleiss_code(const struct agree_counts *c, int code,
		      struct agree_stat *kappa, struct err *e)
{
	struct agree_counts two = AGREE_COUNTS_INIT;
	struct agree_fleiss f;

	if (check_counts(c, e) < 0)
		return -1;
	if (code < 0 || code >= c->k)
		return err_set(e, ERR_INPUT, "code %d out of range 0..%d",
			       code, c->k - 1);
	collapse(c, code, &two);
	agree_fleiss(&two, &f, NULL);
	agree_counts_release(&two);
	*kappa = f.kappa;
	if (!f.kappa.defined && f.kappa.why == WHY_FLEISS_PE1)
		kappa->why = code_total(c, code) > 0 ?
			     WHY_CODE_ALL_RATINGS : WHY_CODE_NO_RATING;
	return 0;
}

int agree_pairwise(const struct agree_labels *l, struct agree_pairwise *out,
		   struct err *e)
{
	double sum_k = 0, sum_po = 0;
	int i, j, no_po = 0;

	if (check_labels(l, e) < 0)
		return -1;
	if (l->n_coders < 2)
		return err_set(e, ERR_INPUT, "pairwise kappa needs two coders");
	memset(out, 0, sizeof(*out));
	for (i = 0; i < l->n_coders; i++)
		for (j = i + 1; j < l->n_coders; j++) {
			struct agree_table t = AGREE_TABLE_INIT;
			struct agree_cohen ck;

			agree_table_from_labels(&t, l->k,
						l->v + (size_t)i * l->n_units,
						l->v + (size_t)j * l->n_units,
						l->n_units, NULL, NULL);
			agree_cohen(&t, &ck, NULL);
			agree_table_release(&t);
			out->n_pairs++;
			if (ck.kappa.defined)
				sum_k += ck.kappa.value;
			else
				out->n_undefined++;
			if (ck.po.defined)
				sum_po += ck.po.value;
			else
				no_po++;
		}
	if (out->n_undefined)
		stat_undef(&out->mean_kappa, no_po ? WHY_PAIR_EMPTY :
				     WHY_PAIR_UNDEF);
	else
		stat_set(&out->mean_kappa, sum_k / out->n_pairs);
	if (no_po)
		stat_undef(&out->mean_po, WHY_PAIR_EMPTY);
	else
		stat_set(&out->mean_po, sum_po / out->n_pairs);
	return 0;
}

/*
 * Conger 1980; Gwet 2014, sec. 2.4 (irrCAC conger.kappa.raw), R coders,
 * units u with m_u >= 2 labels:
 *
 *   po    = (1/N) sum_u sum_c n_uc (n_uc - 1) / (m_u (m_u - 1))  (Fleiss')
 *   p_rc  = labels of coder r in code c / units coder r labelled
 *   pe    = sum_c (pbar_c^2 - s_c^2 / R),  pbar_c = mean_r p_rc,
 *           s_c^2 = sum_r (p_rc - pbar_c)^2 / (R - 1)
 *   kappa = (po - pe) / (1 - pe)
 *
 * pe is the mean over coder pairs of sum_c p_rc p_sc, so for R = 2 this is
 * Cohen's kappa; Fleiss' pe uses the pooled margins instead, and the two
 * differ as much as the coders' margins do.  As in irrCAC, p_rc counts
 * every label of coder r, also on units no other coder labelled, while po
 * needs two labels on a unit.
 */
struct conger_ctx {
	const int *v;		/* R x P labels, v[r*P + p] */
	size_t P, k;
	int R;
	double *agree;		/* P: pairs' agreement, -1 below 2 labels */
	double *cnt;		/* R x k, scratch */
	double *rated;		/* R, scratch */
};

static void conger_ctx_init(struct conger_ctx *c, const int *v, size_t P,
			    int R, int k)
{
	double *ucnt = xcalloc((size_t)k, sizeof(*ucnt));
	size_t p, j;
	int r;

	c->v = v;
	c->P = P;
	c->R = R;
	c->k = (size_t)k;
	c->agree = xcalloc(P + 1, sizeof(*c->agree));
	c->cnt = xcalloc((size_t)R * c->k, sizeof(*c->cnt));
	c->rated = xcalloc((size_t)R, sizeof(*c->rated));
	for (p = 0; p < P; p++) {
		double m = 0, a = 0;

		memset(ucnt, 0, c->k * sizeof(*ucnt));
		for (r = 0; r < R; r++) {
			int x = v[(size_t)r * P + p];

			if (x != AGREE_MISSING) {
				ucnt[x]++;
				m++;
			}
		}
		for (j = 0; j < c->k; j++)
			a += ucnt[j] * (ucnt[j] - 1);
		c->agree[p] = m < 2 ? -1 : a / (m * (m - 1));
	}
	free(ucnt);
}

static void conger_ctx_release(struct conger_ctx *c)
{
	free(c->agree);
	free(c->cnt);
	free(c->rated);
}

/* Conger's kappa of the patterns of `c` counted w[p] times (NULL: once
 * each): 1 with *kappa, 0 when pe is 1, -1 when no unit has two
 * labels; the chance agreement goes to *pe_out when not NULL. */
static int conger_core(struct conger_ctx *c, const long *w, double *kappa,
		       double *pe_out)
{
	size_t p, j;
	double po = 0, pe = 0, units = 0;
	int r, R = c->R;

	memset(c->cnt, 0, (size_t)R * c->k * sizeof(*c->cnt));
	memset(c->rated, 0, (size_t)R * sizeof(*c->rated));
	for (p = 0; p < c->P; p++) {
		double x = w ? (double)w[p] : 1;

		if (x == 0)
			continue;
		for (r = 0; r < R; r++) {
			int lab = c->v[(size_t)r * c->P + p];

			if (lab == AGREE_MISSING)
				continue;
			c->cnt[(size_t)r * c->k + (size_t)lab] += x;
			c->rated[r] += x;
		}
		if (c->agree[p] < 0)
			continue;
		units += x;
		po += x * c->agree[p];
	}
	if (!units)
		return -1;
	po /= units;
	for (j = 0; j < c->k; j++) {
		double mean = 0, var = 0;

		for (r = 0; r < R; r++)
			mean += c->rated[r] ? c->cnt[(size_t)r * c->k + j] /
				c->rated[r] : 0;
		mean /= R;
		for (r = 0; r < R; r++) {
			double d = (c->rated[r] ? c->cnt[(size_t)r * c->k + j] /
				    c->rated[r] : 0) - mean;

			var += d * d;
		}
		var /= R - 1;
		pe += mean * mean - var / R;
	}
	if (pe_out)
		*pe_out = pe;
	if (1 - pe <= NEAR_ZERO)
		return 0;
	*kappa = (po - pe) / (1 - pe);
	return 1;
}

static int conger_fn(const long *w, void *vctx, double *value)
{
	return conger_core(vctx, w, value, NULL) > 0;
}

int agree_conger_pe(const struct agree_labels *l, struct agree_stat *kappa,
		    struct agree_stat *pe, struct err *e)
{
	struct conger_ctx ctx;
	double v = 0, chance = 0;
	int rc;

	if (check_labels(l, e) < 0)
		return -1;
	if (l->n_coders < 2)
		return err_set(e, ERR_INPUT, "Conger's kappa needs two coders");
	conger_ctx_init(&ctx, l->v, l->n_units, l->n_coders, l->k);
	rc = conger_core(&ctx, NULL, &v, &chance);
	conger_ctx_release(&ctx);
	if (rc < 0) {
		stat_undef(kappa, WHY_NO_RATED);
		if (pe)
			stat_undef(pe, WHY_NO_RATED);
		return 0;
	}
	if (pe)
		stat_set(pe, chance);
	if (rc == 0)
		stat_undef(kappa, WHY_FLEISS_PE1);
	else
		stat_set(kappa, v);
	return 0;
}

int agree_conger(const struct agree_labels *l, struct agree_stat *kappa,
		 struct err *e)
{
	return agree_conger_pe(l, kappa, NULL, e);
}

/* ---- intervals --------------------------------------------------------- */

static void ci_undef(struct agree_ci *out, const char *why)
{
	stat_undef(&out->low, why);
	stat_undef(&out->high, why);
}

const char *agree_ci_method_name(enum agree_ci_method m)
{
	switch (m) {
	case AGREE_CI_WALD:
		return "Wald";
	case AGREE_CI_BCA:
		return "bootstrap BCa";
	case AGREE_CI_EXACT:
		return "exact lower bound (kappa = 1)";
	default:
		return "bootstrap percentile";
	}
}

double agree_perfect_lower(long n, double pe, double *po_lower)
{
	double pl, k;

	if (n < 1 || !(pe < 1))
		return NAN;
	/* P(all n agree | po = pl) = pl^n = 0.05 */
	pl = pow(0.05, 1.0 / (double)n);
	if (po_lower)
		*po_lower = pl;
	k = (pl - pe) / (1 - pe);
	return k < -1 ? -1 : k;
}

void agree_ci_perfect(long n, double pe, struct agree_ci *out)
{
	double pl = 0, k = agree_perfect_lower(n, pe, &pl);

	memset(out, 0, sizeof(*out));
	out->method = AGREE_CI_EXACT;
	out->n = n;
	stat_undef(&out->wald_low, WHY_SE_IS0);
	stat_undef(&out->wald_high, WHY_SE_IS0);
	if (isnan(k)) {
		ci_undef(out, n < 1 ? WHY_NO_ITEMS : WHY_PERFECT_PE);
		return;
	}
	out->po_lower = pl;
	stat_set(&out->low, k);
	stat_set(&out->high, 1);
}

static void ci_raw_wald(const struct agree_stat *value,
			const struct agree_stat *se, struct agree_ci *out)
{
	if (!value || !value->defined) {
		const char *why = value ? value->why : WHY_NO_ITEMS;

		stat_undef(&out->wald_low, why);
		stat_undef(&out->wald_high, why);
	} else if (!se || !se->defined) {
		const char *why = se ? se->why : "no standard error";

		stat_undef(&out->wald_low, why);
		stat_undef(&out->wald_high, why);
	} else {
		stat_set(&out->wald_low, value->value - AGREE_Z975 * se->value);
		stat_set(&out->wald_high,
			 value->value + AGREE_Z975 * se->value);
	}
}

void agree_ci_wald(const struct agree_stat *value, const struct agree_stat *se,
		   struct agree_ci *out)
{
	double lo, hi;

	memset(out, 0, sizeof(*out));
	out->method = AGREE_CI_WALD;
	ci_raw_wald(value, se, out);
	if (!out->wald_low.defined) {
		ci_undef(out, out->wald_low.why);
		return;
	}
	if (!(se->value > 0)) {
		ci_undef(out, WHY_SE_IS0);
		return;
	}
	lo = out->wald_low.value;
	hi = out->wald_high.value;
	out->clipped = lo < -1 || hi > 1;
	stat_set(&out->low, lo < -1 ? -1 : lo);
	stat_set(&out->high, hi > 1 ? 1 : hi);
}

/* splitmix64 (Steele, Lea & Flood 2014): a 64-bit state advanced by a
 * constant and mixed; every seed, 0 included, is a good one. */
void agree_rng_seed(struct agree_rng *r, uint64_t seed)
{
	r->s = seed;
}

uint64_t agree_rng_next(struct agree_rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint64_t agree_rng_below(struct agree_rng *r, uint64_t n)
{
	uint64_t lim, x;

	if (n <= 1)
		return 0;
	/* reject the top partial block, so that every residue is equally
	 * likely */
	lim = UINT64_MAX - UINT64_MAX % n;
	do
		x = agree_rng_next(r);
	while (x >= lim);
	return x % n;
}

double agree_rng_uniform(struct agree_rng *r)
{
	return (double)(agree_rng_next(r) >> 11) * 0x1.0p-53;
}

/*
 * Binomial(n, p) for p <= 1/2.
 *
 * n p < 10: inversion, walking up the probabilities from P(0) = q^n with
 * P(x) = P(x - 1) (a / x - s), s = p / q, a = (n + 1) s; about n p + 1
 * steps.  The rare u left over by rounding starts again.
 *
 * Otherwise BTRS (Hormann 1993, "The generation of binomial random
 * variates", J. Stat. Comput. Simul. 46:101-110): a transformed
 * rejection from a hat of the form (2a / (1/2 - |u|) + b) u + c around
 * the mean, with the constants the paper fits (b, a, alpha, v_r below),
 * a quick acceptance in the box |u| <= 0.43, v <= v_r, and otherwise the
 * exact test log v <= log f(k) - log f(m), the log-probabilities taken
 * with lgamma.  About 1.15 uniform pairs a draw, whatever n.
 */
static long binomial_low(struct agree_rng *r, long n, double p)
{
	double q = 1 - p, s = p / q, a = (double)(n + 1) * s;
	double f0 = pow(q, (double)n);

	for (;;) {
		double u = agree_rng_uniform(r), f = f0;
		long x = 0;

		while (u > f) {
			u -= f;
			if (++x > n)
				break;
			f *= a / (double)x - s;
		}
		if (x <= n)
			return x;
	}
}

/* log k!: from the table `lf` (k = 0..its size) when given */
static double log_fact(const double *lf, double k)
{
	return lf ? lf[(long)k] : lgamma(k + 1);
}

static long binomial_btrs(struct agree_rng *r, long n, double p,
			  const double *lf)
{
	double q = 1 - p, nn = (double)n;
	double spq = sqrt(nn * p * q);
	double b = 1.15 + 2.53 * spq;
	double a = -0.0873 + 0.0248 * b + 0.01 * p;
	double c = nn * p + 0.5;
	double alpha = (2.83 + 5.1 / b) * spq;
	double vr = 0.92 - 4.2 / b;
	double m = floor((nn + 1) * p);
	double h = 0, lpq = 0;
	int exact = 0;

	for (;;) {
		double u = agree_rng_uniform(r) - 0.5;
		double v = agree_rng_uniform(r);
		double us = 0.5 - fabs(u);
		double k = floor((2 * a / us + b) * u + c);

		if (k < 0 || k > nn)
			continue;
		if (us >= 0.07 && v <= vr)
			return (long)k;
		/* the exact test, its constants worked out the first time
		 * it is needed (most draws end in the box above) */
		if (!exact) {
			h = log_fact(lf, m) + log_fact(lf, nn - m);
			lpq = log(p / q);
			exact = 1;
		}
		v *= alpha / (a / (us * us) + b);
		if (v > 0 && log(v) <= h - log_fact(lf, k) -
		    log_fact(lf, nn - k) + (k - m) * lpq)
			return (long)k;
	}
}

/* Binomial(n, p), log-factorials from `lf` (at least 0..n) or lgamma. */
static long binomial(struct agree_rng *r, long n, double p, const double *lf)
{
	int flip = p > 0.5;
	long x;

	if (n <= 0 || p <= 0)
		return 0;
	if (p >= 1)
		return n;
	if (flip)
		p = 1 - p;
	x = (double)n * p < 10 ? binomial_low(r, n, p) :
				 binomial_btrs(r, n, p, lf);
	return flip ? n - x : x;
}

long agree_rng_binomial(struct agree_rng *r, long n, double p)
{
	return binomial(r, n, p, NULL);
}

/* The big cells biggest first (ties by index, so that the draws are the
 * same everywhere); a file-level pointer for qsort's comparison: the
 * bootstrap runs on one thread. */
static const long *sort_counts;

static int cmp_pattern(const void *x, const void *y)
{
	size_t a = *(const size_t *)x, b = *(const size_t *)y;

	if (sort_counts[a] != sort_counts[b])
		return sort_counts[a] > sort_counts[b] ? -1 : 1;
	return (a > b) - (a < b);
}

void agree_multinomial_init(struct agree_multinomial *m, const long *count,
			    size_t np)
{
	size_t i;
	long j, k;

	memset(m, 0, sizeof(*m));
	m->count = count;
	m->np = np;
	for (i = 0; i < np; i++) {
		m->n += count[i];
		if (count[i] >= AGREE_MULTI_BIG)
			m->nbig++;
		else
			m->small_items += count[i];
	}
	m->big = xcalloc(m->nbig + 1, sizeof(*m->big));
	m->small = xcalloc((size_t)m->small_items + 1, sizeof(*m->small));
	m->nbig = 0;
	for (i = 0, k = 0; i < np; i++) {
		if (count[i] >= AGREE_MULTI_BIG) {
			m->big[m->nbig++] = i;
			m->big_items += count[i];
		} else {
			for (j = 0; j < count[i]; j++)
				m->small[k++] = i;
		}
	}
	sort_counts = count;
	qsort(m->big, m->nbig, sizeof(*m->big), cmp_pattern);
	sort_counts = NULL;
	m->lf = xcalloc((size_t)m->n + 2, sizeof(*m->lf));
	for (j = 2; j <= m->n; j++)
		m->lf[j] = m->lf[j - 1] + log((double)j);
}

/* Uniform in 0..n-1 (n >= 1) without a division in the common case
 * (Lemire 2019, "Fast random integer generation in an interval"): the
 * high word of x n, redrawn when the low word falls in the short block
 * that would bias it. */
static uint64_t uniform_index(struct agree_rng *r, uint64_t n)
{
	unsigned __int128 m = (unsigned __int128)agree_rng_next(r) * n;
	uint64_t low = (uint64_t)m;

	if (low < n) {
		uint64_t t = -n % n;

		while (low < t) {
			m = (unsigned __int128)agree_rng_next(r) * n;
			low = (uint64_t)m;
		}
	}
	return (uint64_t)(m >> 64);
}

void agree_multinomial_draw(struct agree_multinomial *m, struct agree_rng *r,
			    long *out)
{
	long left = m->n, rest = m->big_items, xs, j;
	size_t i;

	memset(out, 0, m->np * sizeof(*out));
	/* the small cells' share, then which of their items */
	xs = !m->small_items ? 0 : !m->big_items ? m->n :
	     binomial(r, m->n, (double)m->small_items / (double)m->n, m->lf);
	for (j = 0; j < xs; j++)
		out[m->small[uniform_index(r, (uint64_t)m->small_items)]]++;
	left -= xs;
	for (i = 0; i < m->nbig && left > 0; i++) {
		long c = m->count[m->big[i]], x;

		/* the last cell takes what is left; the others a binomial
		 * draw given the cells before them */
		x = i + 1 == m->nbig || c >= rest ? left :
		    binomial(r, left, (double)c / (double)rest, m->lf);
		out[m->big[i]] = x;
		left -= x;
		rest -= c;
	}
}

void agree_multinomial_release(struct agree_multinomial *m)
{
	if (!m)
		return;
	free(m->big);
	free(m->small);
	free(m->lf);
	memset(m, 0, sizeof(*m));
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

/* R's type 7 quantile of sorted v[0..n). */
static double quantile7(const double *v, size_t n, double p)
{
	double h = (double)(n - 1) * p;
	size_t lo = (size_t)floor(h);

	if (lo + 1 >= n)
		return v[n - 1];
	return v[lo] + (h - (double)lo) * (v[lo + 1] - v[lo]);
}

/* Phi^-1(p): Newton's method on Phi(x) = erfc(-x / sqrt 2) / 2 from a
 * start that a few steps take to full precision; the tails are solved on
 * the upper-tail side for accuracy. */
double agree_normal_quantile(double p)
{
	double x, q;
	int i;

	if (!(p > 0 && p < 1))
		return p <= 0 ? -HUGE_VAL : HUGE_VAL;
	if (p > 0.5)
		return -agree_normal_quantile(1 - p);
	/* p <= 1/2: x <= 0; a start from the tail approximation
	 * x ~ -sqrt(-2 ln p) (or 0 near the middle) */
	q = sqrt(-2 * log(p));
	x = p > 0.3 ? 0 : -(q - (2.515517 + 0.802853 * q + 0.010328 * q * q) /
			 (1 + 1.432788 * q + 0.189269 * q * q +
			  0.001308 * q * q * q));
	for (i = 0; i < 60; i++) {
		double f = normal_sf(-x) - p;		/* Phi(x) - p */
		double d = exp(-x * x / 2) / sqrt(2 * M_PI);
		double step;

		if (d <= 0)
			break;
		step = f / d;
		x -= step;
		if (fabs(step) <= 1e-15 * (1 + fabs(x)))
			break;
	}
	return x;
}

/* Phi(x) */
static double normal_cdf(double x)
{
	return normal_sf(-x);
}

/* Two replicates closer than this are one value (ties of the BCa bias
 * correction): kappas of different tables differ by far more. */
#define TIE_EPS 1e-12

/* Turn the replicates rep[0..used) into the interval: percentile, or BCa
 * with the jackknife values jack[0..nj) (weights wj). */
static void ci_from_replicates(double *rep, const struct agree_boot_opts *o,
			       const struct agree_stat *value,
			       const double *jack, const double *wj,
			       size_t nj, struct agree_ci *out)
{
	double lo, hi, pl = 0.025, ph = 0.975;
	size_t used = (size_t)out->boot_used, i;

	if (!value || !value->defined) {
		ci_undef(out, value ? value->why : WHY_NO_ITEMS);
		return;
	}
	if ((int)used < o->boot || used < 2) {
		ci_undef(out, WHY_BOOT_DEGEN);
		return;
	}
	qsort(rep, used, sizeof(*rep), cmp_double);
	if (o->method == AGREE_CI_BCA) {
		double below = 0, mean = 0, wsum = 0, s2 = 0, s3 = 0, z0, a;
		int side;

		for (i = 0; i < used; i++)
			below += rep[i] < value->value - TIE_EPS ? 1 :
				 rep[i] <= value->value + TIE_EPS ? 0.5 : 0;
		if (below <= 0 || below >= (double)used) {
			ci_undef(out, WHY_BCA_SIDE);
			return;
		}
		z0 = agree_normal_quantile(below / (double)used);
		for (i = 0; i < nj; i++) {
			mean += wj[i] * jack[i];
			wsum += wj[i];
		}
		mean = wsum > 0 ? mean / wsum : 0;
		for (i = 0; i < nj; i++) {
			double d = mean - jack[i];

			s2 += wj[i] * d * d;
			s3 += wj[i] * d * d * d;
		}
		a = s2 > 0 ? s3 / (6 * pow(s2, 1.5)) : 0;
		out->bca_z0 = z0;
		out->bca_accel = a;
		for (side = 0; side < 2; side++) {
			double z = side ? AGREE_Z975 : -AGREE_Z975;
			double den = 1 - a * (z0 + z);

			if (!(den > 0)) {
				ci_undef(out, WHY_BCA_ACCEL);
				return;
			}
			*(side ? &ph : &pl) = normal_cdf(z0 + (z0 + z) / den);
		}
	}
	lo = quantile7(rep, used, pl);
	hi = quantile7(rep, used, ph);
	if (hi - lo <= NEAR_ZERO) {
		ci_undef(out, WHY_BOOT_FLAT);
		return;
	}
	/* a replicate is a kappa, in [-1, 1] but for rounding */
	stat_set(&out->low, lo < -1 ? -1 : lo);
	stat_set(&out->high, hi > 1 ? 1 : hi);
}

int agree_boot_patterns(const long *count, size_t np, agree_boot_fn fn,
			void *ctx, const struct agree_boot_opts *o,
			const struct agree_stat *value, struct agree_ci *out,
			double *rep, struct err *e)
{
	struct agree_multinomial mn;
	struct agree_rng rng;
	size_t i, nj = 0;
	long *draw, n = 0;
	double *v, *jack = NULL, *wj = NULL;
	int used = 0, degenerate = 0;

	if (!o || o->boot < 1)
		return err_set(e, ERR_INPUT, "bootstrap needs at least one "
			       "sample, not %d", o ? o->boot : 0);
	if (o->method != AGREE_CI_BOOTSTRAP && o->method != AGREE_CI_BCA)
		return err_set(e, ERR_INPUT, "bootstrap: method %d is not a "
			       "bootstrap", (int)o->method);
	for (i = 0; i < np; i++) {
		if (count[i] < 0)
			return err_set(e, ERR_INPUT, "bootstrap: pattern %zu "
				       "has a negative count", i);
		n += count[i];
	}
	out->method = o->method;
	out->seed = o->seed;
	out->boot = o->boot;
	out->n = n;
	draw = xcalloc(np + 1, sizeof(*draw));
	v = xcalloc((size_t)o->boot, sizeof(*v));
	agree_multinomial_init(&mn, count, np);
	agree_rng_seed(&rng, o->seed);
	while (n && value && value->defined && used < o->boot &&
	       degenerate < o->boot) {
		agree_multinomial_draw(&mn, &rng, draw);
		if (fn(draw, ctx, &v[used]))
			used++;
		else
			degenerate++;
	}
	out->boot_used = used;
	out->boot_degenerate = degenerate;
	if (o->method == AGREE_CI_BCA && used == o->boot) {
		/* the jackknife: each pattern with one item fewer */
		memcpy(draw, count, np * sizeof(*draw));
		jack = xcalloc(np + 1, sizeof(*jack));
		wj = xcalloc(np + 1, sizeof(*wj));
		for (i = 0; i < np; i++) {
			if (!count[i])
				continue;
			draw[i]--;
			if (fn(draw, ctx, &jack[nj]))
				wj[nj++] = (double)count[i];
			draw[i]++;
		}
	}
	ci_from_replicates(v, o, value, jack, wj, nj, out);
	if (rep && used)
		memcpy(rep, v, (size_t)used * sizeof(*rep));
	agree_multinomial_release(&mn);
	free(draw);
	free(v);
	free(jack);
	free(wj);
	return 0;
}

/* Weighted kappa of whole counts n[k*k] (w NULL: Cohen's), 0 when the
 * table is degenerate as the report sees it: no items, chance agreement
 * 1, one annotator constant, or (Cohen's) no code in common. */
static int table_kappa(const long *n, size_t k, const double *w,
		       double *row, double *col, double *kappa)
{
	double total = 0, po = 0, pe = 0;
	size_t i, j, rows_used = 0, cols_used = 0, common = 0;

	memset(row, 0, k * sizeof(*row));
	memset(col, 0, k * sizeof(*col));
	for (i = 0; i < k; i++)
		for (j = 0; j < k; j++) {
			double x = (double)n[i * k + j];

			if (!x)
				continue;
			row[i] += x;
			col[j] += x;
			total += x;
			po += (w ? w[i * k + j] : i == j) * x;
		}
	if (total <= 0)
		return 0;
	for (i = 0; i < k; i++) {
		rows_used += row[i] > 0;
		cols_used += col[i] > 0;
		common += row[i] > 0 && col[i] > 0;
	}
	if (rows_used == 1 || cols_used == 1 || (!w && !common))
		return 0;
	if (w) {
		for (i = 0; i < k; i++)
			for (j = 0; j < k; j++)
				pe += w[i * k + j] * row[i] * col[j];
	} else {
		for (i = 0; i < k; i++)
			pe += row[i] * col[i];
	}
	po /= total;
	pe /= total * total;
	if (1 - pe <= NEAR_ZERO)
		return 0;
	*kappa = (po - pe) / (1 - pe);
	return 1;
}

struct table_ctx {
	size_t k;
	const double *w;
	double *row, *col;
};

static int table_fn(const long *count, void *vctx, double *value)
{
	struct table_ctx *c = vctx;

	return table_kappa(count, c->k, c->w, c->row, c->col, value);
}

int agree_boot_table(const struct agree_table *t, const double *w,
		     const struct agree_boot_opts *o,
		     const struct agree_stat *value,
		     const struct agree_stat *se, struct agree_ci *out,
		     struct err *e)
{
	struct table_ctx ctx;
	int ret;

	if (check_table(t, e) < 0)
		return -1;
	memset(out, 0, sizeof(*out));
	ci_raw_wald(value, se, out);
	ctx.k = (size_t)t->k;
	ctx.w = w;
	ctx.row = xcalloc(ctx.k, sizeof(*ctx.row));
	ctx.col = xcalloc(ctx.k, sizeof(*ctx.col));
	ret = agree_boot_patterns(t->n, ctx.k * ctx.k, table_fn, &ctx, o,
				  value, out, NULL, e);
	free(ctx.row);
	free(ctx.col);
	return ret;
}

/*
 * Fleiss' kappa of units given as patterns: P distinct count vectors
 * x[p*k + j] (units with two ratings or more), each w[p] times.  As
 * agree_fleiss(): po the mean over units of sum_j x_j (x_j - 1) /
 * (m (m - 1)), p_j the mean of x_j / m, pe = sum p_j^2; no value when
 * one code takes every rating or pe is 1.
 */
struct fleiss_ctx {
	size_t k, np;
	const double *share;	/* P x k: x_j / m of each pattern */
	const double *agree;	/* P: its pairs' agreement */
	double *p;		/* k, scratch */
};

static int fleiss_fn(const long *w, void *vctx, double *value)
{
	struct fleiss_ctx *c = vctx;
	size_t pt, j, used = 0;
	double units = 0, po = 0, pe = 0;

	memset(c->p, 0, c->k * sizeof(*c->p));
	for (pt = 0; pt < c->np; pt++) {
		double x = (double)w[pt];

		if (!w[pt])
			continue;
		units += x;
		po += x * c->agree[pt];
		for (j = 0; j < c->k; j++)
			c->p[j] += x * c->share[pt * c->k + j];
	}
	if (units <= 0)
		return 0;
	for (j = 0; j < c->k; j++) {
		c->p[j] /= units;
		pe += c->p[j] * c->p[j];
		used += c->p[j] > 0;
	}
	if (used == 1 || 1 - pe <= NEAR_ZERO)
		return 0;
	*value = (po / units - pe) / (1 - pe);
	return 1;
}

/* Rows of doubles compared as a whole, for grouping units into
 * patterns. */
static size_t cmp_width;
static const double *cmp_rows;

static int cmp_row(const void *x, const void *y)
{
	const double *a = cmp_rows + *(const size_t *)x * cmp_width;
	const double *b = cmp_rows + *(const size_t *)y * cmp_width;
	size_t j;

	for (j = 0; j < cmp_width; j++)
		if (a[j] != b[j])
			return a[j] < b[j] ? -1 : 1;
	return 0;
}

/* Group rows[0..n) of `width` doubles into patterns: idx[] gets the row
 * indexes sorted, first[] the first sorted position of each pattern and
 * cnt[] how many rows it has; returns the number of patterns. */
static size_t group_rows(const double *rows, size_t n, size_t width,
			 size_t *idx, size_t *first, long *cnt)
{
	size_t i, np = 0;

	for (i = 0; i < n; i++)
		idx[i] = i;
	cmp_rows = rows;
	cmp_width = width;
	qsort(idx, n, sizeof(*idx), cmp_row);
	for (i = 0; i < n; i++) {
		if (np && !cmp_row(&idx[first[np - 1]], &idx[i])) {
			cnt[np - 1]++;
			continue;
		}
		first[np] = i;
		cnt[np++] = 1;
	}
	cmp_rows = NULL;
	return np;
}

int agree_boot_fleiss(const struct agree_counts *c,
		      const struct agree_boot_opts *o,
		      const struct agree_stat *value, struct agree_ci *out,
		      struct err *e)
{
	struct fleiss_ctx ctx;
	size_t kk, u, j, nu = 0, np, *idx, *first;
	double *rows, *share, *agree;
	long *cnt;
	int ret;

	if (check_counts(c, e) < 0)
		return -1;
	memset(out, 0, sizeof(*out));
	ci_raw_wald(value, NULL, out);
	kk = (size_t)c->k;
	rows = xcalloc(c->n_units * kk + 1, sizeof(*rows));
	for (u = 0; u < c->n_units; u++)
		if (unit_total(c, u) >= 2)
			memcpy(rows + nu++ * kk, c->n + u * kk,
			       kk * sizeof(*rows));
	idx = xcalloc(nu + 1, sizeof(*idx));
	first = xcalloc(nu + 1, sizeof(*first));
	cnt = xcalloc(nu + 1, sizeof(*cnt));
	np = group_rows(rows, nu, kk, idx, first, cnt);
	share = xcalloc(np * kk + 1, sizeof(*share));
	agree = xcalloc(np + 1, sizeof(*agree));
	for (u = 0; u < np; u++) {
		const double *x = rows + idx[first[u]] * kk;
		double m = 0, a = 0;

		for (j = 0; j < kk; j++)
			m += x[j];
		for (j = 0; j < kk; j++) {
			a += x[j] * (x[j] - 1);
			share[u * kk + j] = x[j] / m;
		}
		agree[u] = a / (m * (m - 1));
	}
	ctx.k = kk;
	ctx.np = np;
	ctx.share = share;
	ctx.agree = agree;
	ctx.p = xcalloc(kk, sizeof(*ctx.p));
	ret = agree_boot_patterns(cnt, np, fleiss_fn, &ctx, o, value, out,
				  NULL, e);
	free(ctx.p);
	free(rows);
	free(idx);
	free(first);
	free(cnt);
	free(share);
	free(agree);
	return ret;
}

int agree_boot_conger(const struct agree_labels *l,
		      const struct agree_boot_opts *o,
		      const struct agree_stat *value, struct agree_ci *out,
		      struct err *e)
{
	struct conger_ctx ctx;
	size_t nu, u, np, *idx, *first;
	double *rows;
	int *v, r, ret;
	long *cnt;

	if (check_labels(l, e) < 0)
		return -1;
	if (l->n_coders < 2)
		return err_set(e, ERR_INPUT, "Conger's kappa needs two coders");
	memset(out, 0, sizeof(*out));
	ci_raw_wald(value, NULL, out);
	nu = l->n_units;
	/* a unit is the vector of its coders' labels */
	rows = xcalloc(nu * (size_t)l->n_coders + 1, sizeof(*rows));
	for (u = 0; u < nu; u++)
		for (r = 0; r < l->n_coders; r++)
			rows[u * (size_t)l->n_coders + (size_t)r] =
				l->v[(size_t)r * nu + u];
	idx = xcalloc(nu + 1, sizeof(*idx));
	first = xcalloc(nu + 1, sizeof(*first));
	cnt = xcalloc(nu + 1, sizeof(*cnt));
	np = group_rows(rows, nu, (size_t)l->n_coders, idx, first, cnt);
	v = xcalloc(np * (size_t)l->n_coders + 1, sizeof(*v));
	for (u = 0; u < np; u++)
		for (r = 0; r < l->n_coders; r++)
			v[(size_t)r * np + u] = l->v[(size_t)r * nu +
						    idx[first[u]]];
	conger_ctx_init(&ctx, v, np, l->n_coders, l->k);
	ret = agree_boot_patterns(cnt, np, conger_fn, &ctx, o, value, out,
				  NULL, e);
	conger_ctx_release(&ctx);
	free(rows);
	free(idx);
	free(first);
	free(cnt);
	free(v);
	return ret;
}

/* Rows of `width` 64-bit words compared as a whole. */
static const uint64_t *cmp_urows;

static int cmp_urow(const void *x, const void *y)
{
	const uint64_t *a = cmp_urows + *(const size_t *)x * cmp_width;
	const uint64_t *b = cmp_urows + *(const size_t *)y * cmp_width;
	size_t j;

	for (j = 0; j < cmp_width; j++)
		if (a[j] != b[j])
			return a[j] < b[j] ? -1 : 1;
	return 0;
}

/* group_rows() for rows of 64-bit words. */
static size_t group_urows(const uint64_t *rows, size_t n, size_t width,
			  size_t *idx, size_t *first, long *cnt)
{
	size_t i, np = 0;

	for (i = 0; i < n; i++)
		idx[i] = i;
	cmp_urows = rows;
	cmp_width = width;
	qsort(idx, n, sizeof(*idx), cmp_urow);
	for (i = 0; i < n; i++) {
		if (np && !cmp_urow(&idx[first[np - 1]], &idx[i])) {
			cnt[np - 1]++;
			continue;
		}
		first[np] = i;
		cnt[np++] = 1;
	}
	cmp_urows = NULL;
	return np;
}

/* The mean per-code kappa of two annotators' sets as reported: each code
 * present or absent (code_2x2()), its kappa counted when
 * agree_code_reported() keeps it. */
struct multi_ctx {
	int k;
	size_t np;
	const uint64_t *ab;	/* np x 2: the pattern's two sets */
};

static int multi_fn(const long *w, void *vctx, double *value)
{
	const struct multi_ctx *c = vctx;
	long both[AGREE_MULTI_MAX] = { 0 }, only_a[AGREE_MULTI_MAX] = { 0 };
	long only_b[AGREE_MULTI_MAX] = { 0 }, n = 0;
	double sum = 0;
	size_t p;
	int code, defined = 0;

	/* each pattern adds its weight to the cells of the codes it has */
	for (p = 0; p < c->np; p++) {
		uint64_t a = c->ab[2 * p], b = c->ab[2 * p + 1], m;
		long x = w[p];

		if (!x)
			continue;
		n += x;
		for (m = a & b; m; m &= m - 1)
			both[__builtin_ctzll(m)] += x;
		for (m = a & ~b; m; m &= m - 1)
			only_a[__builtin_ctzll(m)] += x;
		for (m = b & ~a; m; m &= m - 1)
			only_b[__builtin_ctzll(m)] += x;
	}
	for (code = 0; code < c->k; code++) {
		struct agree_code one;
		struct agree_stat ks;

		code_2x2(both[code], only_a[code], only_b[code],
			 n - both[code] - only_a[code] - only_b[code], &one);
		ks = agree_code_reported(&one);
		if (ks.defined) {
			sum += ks.value;
			defined++;
		}
	}
	if (!defined)
		return 0;
	*value = sum / defined;
	return 1;
}

int agree_boot_multi(int k, const uint64_t *a, const uint64_t *b, size_t n,
		     const struct agree_boot_opts *o,
		     const struct agree_stat *value, struct agree_ci *out,
		     struct err *e)
{
	struct multi_ctx ctx;
	uint64_t *rows, *ab;
	size_t i, np, *idx, *first;
	long *cnt;
	int ret;

	if (k < 1 || k > AGREE_MULTI_MAX)
		return err_set(e, ERR_INPUT, "select-many dimension has %d "
			       "codes, need 1..%d", k, AGREE_MULTI_MAX);
	memset(out, 0, sizeof(*out));
	ci_raw_wald(value, NULL, out);
	rows = xcalloc(2 * n + 1, sizeof(*rows));
	for (i = 0; i < n; i++) {
		rows[2 * i] = a[i];
		rows[2 * i + 1] = b[i];
	}
	idx = xcalloc(n + 1, sizeof(*idx));
	first = xcalloc(n + 1, sizeof(*first));
	cnt = xcalloc(n + 1, sizeof(*cnt));
	np = group_urows(rows, n, 2, idx, first, cnt);
	ab = xcalloc(2 * np + 1, sizeof(*ab));
	for (i = 0; i < np; i++) {
		ab[2 * i] = rows[2 * idx[first[i]]];
		ab[2 * i + 1] = rows[2 * idx[first[i]] + 1];
	}
	ctx.k = k;
	ctx.np = np;
	ctx.ab = ab;
	ret = agree_boot_patterns(cnt, np, multi_fn, &ctx, o, value, out,
				  NULL, e);
	free(rows);
	free(idx);
	free(first);
	free(cnt);
	free(ab);
	return ret;
}

/* The mean per-code Fleiss' kappa of units given as patterns: per
 * pattern and code, how many of its m coders chose the code. */
struct multi_fleiss_ctx {
	int k;
	size_t np;
	const double *yes;	/* np x k */
	const double *m;	/* np */
};

static int multi_fleiss_fn(const long *w, void *vctx, double *value)
{
	const struct multi_fleiss_ctx *c = vctx;
	double sum = 0, units = 0;
	size_t p;
	int code, defined = 0;

	for (p = 0; p < c->np; p++)
		units += (double)w[p];
	if (units <= 0)
		return 0;
	for (code = 0; code < c->k; code++) {
		double share = 0, po = 0, pe;

		for (p = 0; p < c->np; p++) {
			double y = c->yes[p * (size_t)c->k + (size_t)code];
			double m = c->m[p], x = (double)w[p];

			if (!w[p])
				continue;
			share += x * y / m;
			po += x * (y * (y - 1) + (m - y) * (m - y - 1)) /
			      (m * (m - 1));
		}
		share /= units;
		po /= units;
		if (share <= 0 || share >= 1)
			continue;
		pe = share * share + (1 - share) * (1 - share);
		if (1 - pe <= NEAR_ZERO)
			continue;
		sum += (po - pe) / (1 - pe);
		defined++;
	}
	if (!defined)
		return 0;
	*value = sum / defined;
	return 1;
}

int agree_boot_multi_fleiss(int k, const uint64_t *sets,
			    const unsigned char *present, size_t n,
			    int n_coders, const struct agree_boot_opts *o,
			    const struct agree_stat *value,
			    struct agree_ci *out, struct err *e)
{
	struct multi_fleiss_ctx ctx;
	size_t R = (size_t)n_coders, w = 2 * R, u, r, nu = 0, np, i;
	size_t *idx, *first;
	uint64_t *rows;
	double *yes, *m;
	long *cnt;
	int ret, code;

	if (k < 1 || k > AGREE_MULTI_MAX || n_coders < 2)
		return err_set(e, ERR_INPUT, "select-many dimension: %d codes, "
			       "%d coders", k, n_coders);
	memset(out, 0, sizeof(*out));
	ci_raw_wald(value, NULL, out);
	/* a unit: per coder, whether they submitted it and their set */
	rows = xcalloc(n * w + 1, sizeof(*rows));
	for (u = 0; u < n; u++) {
		size_t seen = 0;

		for (r = 0; r < R; r++)
			seen += present[r * n + u] != 0;
		if (seen < 2)
			continue;
		for (r = 0; r < R; r++) {
			rows[nu * w + 2 * r] = present[r * n + u] != 0;
			rows[nu * w + 2 * r + 1] = present[r * n + u] ?
						   sets[r * n + u] : 0;
		}
		nu++;
	}
	idx = xcalloc(nu + 1, sizeof(*idx));
	first = xcalloc(nu + 1, sizeof(*first));
	cnt = xcalloc(nu + 1, sizeof(*cnt));
	np = group_urows(rows, nu, w, idx, first, cnt);
	yes = xcalloc(np * (size_t)k + 1, sizeof(*yes));
	m = xcalloc(np + 1, sizeof(*m));
	for (i = 0; i < np; i++) {
		const uint64_t *x = rows + idx[first[i]] * w;

		for (r = 0; r < R; r++) {
			if (!x[2 * r])
				continue;
			m[i]++;
			for (code = 0; code < k; code++)
				yes[i * (size_t)k + (size_t)code] +=
					(double)(x[2 * r + 1] >> code & 1);
		}
	}
	ctx.k = k;
	ctx.np = np;
	ctx.yes = yes;
	ctx.m = m;
	ret = agree_boot_patterns(cnt, np, multi_fleiss_fn, &ctx, o, value,
				  out, NULL, e);
	free(rows);
	free(idx);
	free(first);
	free(cnt);
	free(yes);
	free(m);
	return ret;
}

/* ---- interpretation ---------------------------------------------------- */

static const struct {
	enum agree_band band;
	double lower;		/* lower end of the published band */
	double upper;		/* upper end, owned by the band */
	const char *name;
} bands[] = {
	{ AGREE_BAND_POOR, -1, 0, "poor" },
	{ AGREE_BAND_SLIGHT, 0, .20, "slight" },
	{ AGREE_BAND_FAIR, .20, .40, "fair" },
	{ AGREE_BAND_MODERATE, .40, .60, "moderate" },
	{ AGREE_BAND_SUBSTANTIAL, .60, .80, "substantial" },
	{ AGREE_BAND_ALMOST_PERFECT, .80, 1, "almost perfect" },
};

#define NR_BANDS (sizeof(bands) / sizeof(bands[0]))

enum agree_band agree_band(const struct agree_stat *s)
{
	size_t i;

	if (!s || !s->defined || !isfinite(s->value))
		return AGREE_BAND_NONE;
	if (s->value < -BAND_EPS)
		return AGREE_BAND_POOR;
	for (i = 1; i < NR_BANDS; i++)
		if (s->value <= bands[i].upper + BAND_EPS)
			return bands[i].band;
	return AGREE_BAND_ALMOST_PERFECT;
}

void agree_band_range(double low, double high, enum agree_band *from,
		      enum agree_band *to)
{
	struct agree_stat lo = { low, 1, NULL }, hi = { high, 1, NULL };

	*from = agree_band(&lo);
	*to = agree_band(&hi);
}

const char *agree_band_name(enum agree_band band)
{
	size_t i;

	for (i = 0; i < NR_BANDS; i++)
		if (bands[i].band == band)
			return bands[i].name;
	return "undefined";
}

double agree_band_lower(enum agree_band band)
{
	size_t i;

	for (i = 0; i < NR_BANDS; i++)
		if (bands[i].band == band)
			return bands[i].lower;
	return -1;
}

/*
 * Gwet 2014, ch. 6: with X ~ N(coef, se^2) truncated to [-1, 1],
 *   P(X >= lower) = (Q(a) - Q(b)) / (Q(c) - Q(b)),
 *   a = (lower - coef)/se, b = (1 - coef)/se, c = (-1 - coef)/se,
 * Q the upper normal tail (exact in the tails, unlike 1 - Phi).
 */
struct agree_stat agree_band_cumprob(double coef, double se, double lower)
{
	struct agree_stat s;
	double a, b, c, den, v;

	if (!isfinite(se) || se < 0) {
		stat_undef(&s, WHY_SE_BAD);
		return s;
	}
	if (!isfinite(coef) || coef < -1 - BAND_EPS || coef > 1 + BAND_EPS) {
		stat_undef(&s, WHY_COEF_BAD);
		return s;
	}
	if (lower <= -1) {
		stat_set(&s, 1);
		return s;
	}
	if (se == 0) {
		stat_set(&s, coef >= lower ? 1 : 0);
		return s;
	}
	a = (lower - coef) / se;
	b = (1 - coef) / se;
	c = (-1 - coef) / se;
	den = normal_sf(c) - normal_sf(b);
	if (!(den > 0)) {
		stat_set(&s, coef >= lower ? 1 : 0);
		return s;
	}
	v = (normal_sf(a) - normal_sf(b)) / den;
	stat_set(&s, v < 0 ? 0 : v > 1 ? 1 : v);
	return s;
}

enum agree_band agree_band_benchmark(double coef, double se)
{
	size_t i;

	for (i = NR_BANDS; i-- > 0;) {
		struct agree_stat p = agree_band_cumprob(coef, se,
							 bands[i].lower);

		if (!p.defined)
			return AGREE_BAND_NONE;
		if (p.value > 0.95)
			return bands[i].band;
	}
	return AGREE_BAND_POOR;
}
