/* SPDX-License-Identifier: MIT */
/*
 * selection: see selection.h.
 */
#include "exports/selection.h"

#include <string.h>

#include "core/study/codebook.h"
#include "core/study/design.h"
#include "core/study/screening.h"
#include "core/study/study.h"
#include "exports/csv_out.h"

struct writer {
	struct csv_out w;
	struct export_opts *o;
	struct err *e;
	int bad;
};

static int row_done(struct writer *x)
{
	if (csvw_end(&x->w) < 0) {
		x->bad = 1;
		return err_set(x->e, ERR_IO, "writing the export failed");
	}
	x->o->rows++;
	if (x->o->stop && *x->o->stop) {
		x->bad = 1;
		return err_set(x->e, ERR_INTERRUPTED, "export interrupted "
			       "after %zu rows", x->o->rows);
	}
	return 0;
}

static int selection_row(const struct design_item *it, void *data)
{
	struct writer *x = data;

	csvw_key(&x->w, it->item);
	csvw_key(&x->w, it->repo);
	csvw_bool(&x->w, !it->missing);
	csvw_bool(&x->w, it->with_fix);
	csvw_key(&x->w, it->screen_round);
	csvw_key(&x->w, it->decision);
	csvw_key(&x->w, it->how);
	csvw_text(&x->w, it->rationale);
	csvw_key(&x->w, it->coding_round);
	csvw_bool(&x->w, it->counted);
	csvw_bool(&x->w, it->coded);
	csvw_key(&x->w, it->status);
	return row_done(x) < 0 ? 1 : 0;
}

static unsigned flags_of(const struct export_opts *o)
{
	return (o->flags & EXPORT_NO_GUARD) ? 0 : CSV_GUARD;
}

int export_selection(struct store *st, const struct actor *a,
		     struct export_opts *o, FILE *out, struct err *e)
{
	static const char *const head[] = {
		"item", "repo", "fetched", "with_fix", "screening_round",
		"decision", "decided", "rationale", "coding_round", "counted",
		"coded", "status", NULL,
	};
	struct codebook cb = CODEBOOK_INIT;
	struct writer x;
	int rc;

	memset(&x, 0, sizeof(x));
	x.o = o;
	x.e = e;
	o->rows = 0;
	if (study_codebook(st, &cb, NULL, e) < 0)
		return -1;
	csvw_init(&x.w, out, flags_of(o));
	csvw_header(&x.w, head);
	rc = csvw_end(&x.w) < 0 ? err_set(e, ERR_IO, "writing the export "
					  "failed") :
	     design_items(st, a, &cb, selection_row, &x, e);
	csvw_release(&x.w);
	codebook_release(&cb);
	if (rc || x.bad)
		return -1;
	if (fflush(out) != 0 || ferror(out))
		return err_set(e, ERR_IO, "writing the export failed");
	return 0;
}

static int answer_row(const struct screening_answer *ans, void *data)
{
	struct writer *x = data;

	csvw_key(&x->w, ans->item);
	csvw_key(&x->w, ans->round);
	csvw_text(&x->w, ans->annotator);
	csvw_key(&x->w, ans->code);
	csvw_key(&x->w, ans->labeled_at);
	csvw_key(&x->w, ans->submitted_at);
	return row_done(x) < 0 ? 1 : 0;
}

int export_screening(struct store *st, const struct actor *a,
		     struct export_opts *o, FILE *out, struct err *e)
{
	static const char *const head[] = {
		"item", "round", "annotator", "answer", "labeled_at",
		"submitted_at", NULL,
	};
	struct writer x;
	int rc;

	memset(&x, 0, sizeof(x));
	x.o = o;
	x.e = e;
	o->rows = 0;
	csvw_init(&x.w, out, flags_of(o));
	csvw_header(&x.w, head);
	rc = csvw_end(&x.w) < 0 ? err_set(e, ERR_IO, "writing the export "
					  "failed") :
	     screening_answers(st, a, answer_row, &x, e);
	csvw_release(&x.w);
	if (rc || x.bad)
		return -1;
	if (fflush(out) != 0 || ferror(out))
		return err_set(e, ERR_IO, "writing the export failed");
	return 0;
}
