/* SPDX-License-Identifier: MIT */
/*
 * stat_many: more than two annotators: Krippendorff's alpha over units (any
 * metric, missing values allowed), Fleiss' kappa, Cohen's kappa per pair
 * and Conger's kappa.  API in agree.h.
 */
#include "core/stats/agree.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/buf.h"
#include "core/stats/stat_int.h"

int stat_check_counts(const struct agree_counts *c, struct err *e)
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

int stat_check_labels(const struct agree_labels *l, struct err *e)
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
	if (stat_check_labels(l, e) < 0)
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

double stat_unit_total(const struct agree_counts *c, size_t u)
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
		out->n[2 * u + 1] = stat_unit_total(c, u) - x;
	}
}

/*
 * Krippendorff's alpha for any number of coders and missing values; see
 * stat_alpha_from_coincidence() for the formula.  Distances (Krippendorff
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

	if (stat_check_counts(c, e) < 0)
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
		double m = stat_unit_total(c, u);

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
	stat_alpha_from_coincidence(c->k, o, d, units, out);
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

	if (stat_check_counts(c, e) < 0)
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
		double m = stat_unit_total(c, u), pu = 0, peu = 0, ku;

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

	if (stat_check_counts(c, e) < 0)
		return -1;
	memset(out, 0, sizeof(*out));
	kk = (size_t)c->k;
	out->k = c->k;
	p = xcalloc(kk, sizeof(*p));
	for (u = 0; u < c->n_units; u++) {
		const double *x = c->n + u * kk;
		double m = stat_unit_total(c, u), agree = 0;

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

	if (stat_check_counts(c, e) < 0)
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

	if (stat_check_labels(l, e) < 0)
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
void stat_conger_ctx_init(struct conger_ctx *c, const int *v, size_t P,
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

void stat_conger_ctx_release(struct conger_ctx *c)
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

int stat_conger_fn(const long *w, void *vctx, double *value)
{
	return conger_core(vctx, w, value, NULL) > 0;
}

int agree_conger_pe(const struct agree_labels *l, struct agree_stat *kappa,
		    struct agree_stat *pe, struct err *e)
{
	struct conger_ctx ctx;
	double v = 0, chance = 0;
	int rc;

	if (stat_check_labels(l, e) < 0)
		return -1;
	if (l->n_coders < 2)
		return err_set(e, ERR_INPUT, "Conger's kappa needs two coders");
	stat_conger_ctx_init(&ctx, l->v, l->n_units, l->n_coders, l->k);
	rc = conger_core(&ctx, NULL, &v, &chance);
	stat_conger_ctx_release(&ctx);
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
