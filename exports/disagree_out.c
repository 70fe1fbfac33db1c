/* SPDX-License-Identifier: MIT */
/*
 * disagree_out: see disagree_out.h.
 */
#include "exports/disagree_out.h"

#include <string.h>

#include "core/study/adjudicate.h"
#include "core/study/consensus.h"
#include "exports/csv_out.h"
#include "exports/json_out.h"

/* Take the "}\n" that jsonw_end() wrote back off, to add members. */
static void reopen(struct buf *b)
{
	if (b->len >= 2) {
		b->len -= 2;
		b->ptr[b->len] = '\0';
	}
}

struct writer {
	enum disagree_format format;
	struct buf *out;
	struct csv_out csv;
	size_t n;		/* entries written */
};

static int text_row(const struct disagreement *d, struct writer *w)
{
	size_t k;

	buf_addf(w->out, "%s", d->item);
	if (d->round)
		buf_addf(w->out, " (%s)", d->round);
	if (d->dimension)
		buf_addf(w->out, "  %s:", d->dimension);
	else
		buf_addstr(w->out, "  flagged for discussion; labels agree");
	for (k = 0; d->dimension && k < d->nr_coders; k++)
		buf_addf(w->out, "%s %s %s", k ? " |" : "", d->coders[k],
			 d->codes[k] && *d->codes[k] ? d->codes[k] :
			 "(none)");
	buf_addch(w->out, '\n');
	return 0;
}

static int csv_row(const struct disagreement *d, struct writer *w)
{
	size_t k;

	for (k = 0; k < d->nr_coders; k++) {
		csvw_key(&w->csv, d->item);
		csvw_key(&w->csv, d->round);
		csvw_key(&w->csv, d->dimension);
		csvw_key(&w->csv, d->reason);
		csvw_text(&w->csv, d->coders[k]);
		csvw_key(&w->csv, d->codes[k]);
		csvw_end(&w->csv);
	}
	return 0;
}

static int json_row(const struct disagreement *d, struct writer *w)
{
	struct buf obj = BUF_INIT;
	struct json_out j;
	size_t k;

	jsonw_begin(&j, &obj);
	jsonw_str(&j, "item", d->item);
	jsonw_str(&j, "round", d->round);
	jsonw_str(&j, "dimension", d->dimension);
	jsonw_str(&j, "reason", d->reason);
	jsonw_end(&j);
	/* the coders: an array of objects, spliced before the close */
	reopen(&obj);
	buf_addstr(&obj, ",\"coders\":[");
	for (k = 0; k < d->nr_coders; k++) {
		struct buf one = BUF_INIT;

		jsonw_begin(&j, &one);
		jsonw_str(&j, "coder", d->coders[k]);
		jsonw_list(&j, "codes", d->codes[k] ? d->codes[k] : "", ';',
			   0);
		jsonw_end(&j);
		reopen(&one);
		buf_addf(&obj, "%s%s}", k ? "," : "", one.ptr);
		buf_release(&one);
	}
	buf_addstr(&obj, "]}");
	buf_addf(w->out, "%s\n  %s", w->n ? "," : "", obj.ptr);
	buf_release(&obj);
	return 0;
}

static int row(const struct disagreement *d, void *data)
{
	struct writer *w = data;
	int rc;

	switch (w->format) {
	case DISAGREE_CSV:
		rc = csv_row(d, w);
		break;
	case DISAGREE_JSON:
		rc = json_row(d, w);
		break;
	default:
		rc = text_row(d, w);
	}
	w->n++;
	return rc;
}

int disagreements_write(struct store *st, const struct actor *a,
			const struct codebook *cb, const char *round,
			enum disagree_format format, struct buf *out,
			struct err *e)
{
	static const char *const cols[] = {
		"item", "round", "dimension", "reason", "coder", "codes", NULL
	};
	struct writer w;
	int ret = -1;

	memset(&w, 0, sizeof(w));
	w.format = format;
	w.out = out;
	/* records are kept in the writer's buffer (no FILE), then moved */
	csvw_init(&w.csv, NULL, CSV_GUARD);
	if (round && consensus_check_round(st, round, e) < 0)
		goto out;
	if (format == DISAGREE_CSV) {
		csvw_header(&w.csv, cols);
		csvw_end(&w.csv);
	} else if (format == DISAGREE_JSON) {
		struct json_out j;
		struct buf head = BUF_INIT;

		jsonw_begin(&j, &head);
		jsonw_str(&j, "round", round);
		jsonw_end(&j);
		reopen(&head);
		buf_addf(out, "%s,\"disagreements\":[", head.ptr);
		buf_release(&head);
	}
	if (adjudicate_disagreements(st, a, cb, round, row, &w, e) < 0)
		goto out;
	switch (format) {
	case DISAGREE_CSV:
		buf_add(out, w.csv.row.ptr, w.csv.row.len);
		break;
	case DISAGREE_JSON:
		buf_addstr(out, w.n ? "\n]}\n" : "]}\n");
		break;
	default:
		buf_addf(out, "%zu open disagreement%s\n", w.n,
			 w.n == 1 ? "" : "s");
	}
	ret = 0;
out:
	csvw_release(&w.csv);
	return ret;
}
