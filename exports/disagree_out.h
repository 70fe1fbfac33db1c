/* SPDX-License-Identifier: MIT */
/*
 * disagree_out: the disagreement list (`bugcoder disagreements`) as text,
 * CSV or JSON, from core/study/adjudicate's adjudicate_disagreements(): who is
 * named and how is decided there.
 *
 * CSV is long, one record per coder of a disagreement:
 *   item,round,dimension,reason,coder,codes
 * (dimension empty for an item flagged for discussion, codes
 * ';'-joined).  JSON is one document: {"round": R|null, "disagreements":
 * [{"item", "round", "dimension", "reason", "coders": [{"coder", "codes":
 * [...]}]}]}.
 */
#ifndef BUGCODER_DISAGREE_OUT_H
#define BUGCODER_DISAGREE_OUT_H

#include "core/base/buf.h"
#include "core/study/codebook.h"
#include "core/base/err.h"
#include "core/study/member.h"
#include "core/store/store.h"

enum disagree_format {
	DISAGREE_TEXT,
	DISAGREE_CSV,
	DISAGREE_JSON,
};

/* Append the list for actor `a` (round `round`, or all) to `out` in
 * `format`.  0, or -1 with `e` filled; `out` then holds a part. */
int disagreements_write(struct store *st, const struct actor *a,
			const struct codebook *cb, const char *round,
			enum disagree_format format, struct buf *out,
			struct err *e);

#endif
