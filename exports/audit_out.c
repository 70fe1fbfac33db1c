/* SPDX-License-Identifier: MIT */
/*
 * audit_out: see audit_out.h.
 */
#include "exports/audit_out.h"

#include <errno.h>
#include <string.h>

#include "core/base/buf.h"
#include "exports/csv_out.h"
#include "exports/json_out.h"
#include "core/study/auditlog.h"

struct writer {
	enum audit_format fmt;
	FILE *out;
	struct csv_out csv;
	struct buf line;
	long long rows;
	int failed;
};

static int write_row(const struct audit_row *r, void *data)
{
	struct writer *w = data;

	w->rows++;
	if (w->fmt == AUDIT_CSV) {
		csvw_int(&w->csv, r->id);
		csvw_key(&w->csv, r->at);
		csvw_key(&w->csv, r->actor);
		csvw_key(&w->csv, r->for_member);
		csvw_key(&w->csv, r->action);
		csvw_key(&w->csv, r->item);
		csvw_key(&w->csv, r->dimension);
		csvw_text(&w->csv, r->old);
		csvw_text(&w->csv, r->new_value);
		csvw_text(&w->csv, r->detail);
		csvw_key(&w->csv, r->hash);
		if (csvw_end(&w->csv) < 0)
			w->failed = 1;
	} else {
		struct json_out j;

		buf_setlen(&w->line, 0);
		jsonw_begin(&j, &w->line);
		jsonw_int(&j, "id", r->id);
		jsonw_str(&j, "at", r->at);
		jsonw_str(&j, "actor", r->actor);
		jsonw_str(&j, "for_member", r->for_member);
		jsonw_str(&j, "action", r->action);
		jsonw_str(&j, "item", r->item);
		jsonw_str(&j, "dimension", r->dimension);
		jsonw_str(&j, "old", r->old);
		jsonw_str(&j, "new", r->new_value);
		jsonw_str(&j, "detail", r->detail);
		jsonw_str(&j, "hash", r->hash);
		jsonw_end(&j);
		if (fwrite(w->line.ptr, 1, w->line.len, w->out) !=
		    w->line.len)
			w->failed = 1;
	}
	return w->failed;
}

long long audit_out_write(struct store *st, const struct actor *a,
			  const struct audit_filter *f, enum audit_format fmt,
			  FILE *out, struct err *e)
{
	static const char *const header[] = {
		"id", "at", "actor", "for_member", "action", "item",
		"dimension", "old", "new", "detail", "hash", NULL
	};
	struct writer w = { .fmt = fmt, .out = out, .line = BUF_INIT };
	long long ret = -1;
	int rc;

	csvw_init(&w.csv, out, CSV_GUARD);
	if (fmt == AUDIT_CSV) {
		csvw_header(&w.csv, header);
		if (csvw_end(&w.csv) < 0)
			w.failed = 1;
	}
	rc = w.failed ? 1 : audit_list(st, a, f, write_row, &w, e);
	if (rc < 0)
		goto out;
	if (w.failed || fflush(out) != 0 || ferror(out)) {
		err_set(e, ERR_IO, "writing the audit log: %s",
			strerror(errno ? errno : EIO));
		goto out;
	}
	ret = w.rows;
out:
	csvw_release(&w.csv);
	buf_release(&w.line);
	return ret;
}
