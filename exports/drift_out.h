/* SPDX-License-Identifier: MIT */
/*
 * drift_out: `agree --drift` as text, JSON or CSV (see core/study/drift.h for
 * what the figures are).  CSV is long, one record a figure:
 *   kind,annotator,round,dimension,code,value
 * kind "time" (value: median seconds an item; code: the number of items
 * timed), "count" (value: how many times the code was chosen in the
 * round), "chi2" and "p" (round empty; code: df; p is the Monte Carlo
 * p-value when the expected counts are small, and then
 * "p_chi_square" gives the approximation's and
 * "cells_expected_under_5" how many cells (code: of how many) expect
 * fewer than 5).
 */
#ifndef BUGCODER_DRIFT_OUT_H
#define BUGCODER_DRIFT_OUT_H

#include "core/base/buf.h"
#include "core/study/drift.h"

enum drift_format {
	DRIFT_TEXT,
	DRIFT_JSON,
	DRIFT_CSV,
};

/* Append `d` to `out` in `format`. */
void drift_write(const struct drift *d, enum drift_format format,
		 struct buf *out);

#endif
