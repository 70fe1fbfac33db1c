/* SPDX-License-Identifier: MIT */
/*
 * drift_out: `agree --drift` as text, JSON or CSV (see core/drift.h for
 * what the figures are).  CSV is long, one record a figure:
 *   kind,annotator,round,dimension,code,value
 * kind "time" (value: median seconds an item; code: the number of items
 * timed), "count" (value: how many times the code was chosen in the
 * round), "chi2" and "p" (round empty; code: df).
 */
#ifndef BUGCODER_DRIFT_OUT_H
#define BUGCODER_DRIFT_OUT_H

#include "core/buf.h"
#include "core/drift.h"

enum drift_format {
	DRIFT_TEXT,
	DRIFT_JSON,
	DRIFT_CSV,
};

/* Append `d` to `out` in `format`. */
void drift_write(const struct drift *d, enum drift_format format,
		 struct buf *out);

#endif
