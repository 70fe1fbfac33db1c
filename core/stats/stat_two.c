/* SPDX-License-Identifier: MIT */
/*
 * stat_two: two annotators, one code per item: the k x k table, Cohen's
 * kappa (plain and weighted) with its standard errors, Scott's pi,
 * Bennett's S, Gwet's AC1/AC2, Krippendorff's alpha over the table, and
 * per code the collapsed 2 x 2 table.  API in agree.h; the notation of
 * the formulas is in stat_int.h.
 *
 * Which q.  Unweighted kappa, Scott's pi and alpha do not change when an
 * unused code is added to the table.  Bennett's S (pe = 1/q) and Gwet's AC1
 * (divisor q - 1) do.  Here q is always the table's k, which the report
 * sets to the number of codes in the codebook dimension: the annotators
 * chose among all of them, and chance agreement is about that choice.  To
 * reproduce tools that use the observed codes only (irr's kappa2 builds its
 * levels from the data), build the table over the observed codes.
 */
#include "core/stats/agree.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/buf.h"
#include "core/stats/stat_int.h"

int stat_check_table(const struct agree_table *t, struct err *e)
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
void stat_alpha_from_coincidence(int k, const double *o, const double *d,
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
	stat_alpha_from_coincidence(t->k, o, d, (size_t)out->n, &out->alpha);
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

	if (stat_check_table(t, e) < 0)
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

	if (stat_check_table(t, e) < 0)
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
void stat_code_2x2(long a, long b, long c, long d, struct agree_code *out)
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

	if (stat_check_table(t, e) < 0)
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
	stat_code_2x2(a, row - a, col - a, total - row - col + a, out);
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
