/* SPDX-License-Identifier: MIT */
/*
 * stat_band: the Landis & Koch bands that interpret a coefficient.  API in
 * agree.h.
 */
#include "core/stats/agree.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/buf.h"
#include "core/stats/stat_int.h"

/* Slack at band boundaries (see agree_band()). */
#define BAND_EPS 1e-9

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
