/* SPDX-License-Identifier: MIT */
/*
 * package_manifest: the two lists of the package's files, written last:
 * manifest.json (study, codebook, date, the audit log's head, and per
 * file its size, rows and SHA-256) and MANIFEST (`sha256sum -c` lines).
 */
#include "exports/package_int.h"

#include <stdlib.h>
#include <string.h>

#include "core/store/audit.h"
#include "core/base/version.h"
#include "exports/export.h"
#include "exports/json_out.h"

int pkg_write_manifest_json(struct pkg *p, struct store *st,
			    const struct actor *a,
			    const struct codebook *cb, const char *now,
			    const struct package_opts *o, struct err *e)
{
	struct buf b = BUF_INIT;
	char *title = store_meta_get(st, "title");
	char head[SHA256_HEX_LEN + 1];
	long long head_id;
	size_t i;
	int ret;

	buf_addstr(&b, "{\n  \"generator\": ");
	json_quote(&b, bugcoder_version_line(),
		   strlen(bugcoder_version_line()));
	buf_addstr(&b, ",\n  \"bugcoder_version\": ");
	json_quote(&b, bugcoder_version(), strlen(bugcoder_version()));
	buf_addstr(&b, ",\n  \"bugcoder_commit\": ");
	json_quote(&b, bugcoder_commit(), strlen(bugcoder_commit()));
	buf_addstr(&b, ",\n  \"created_at\": ");
	json_quote(&b, now, strlen(now));
	buf_addstr(&b, ",\n  \"created_by\": ");
	json_quote(&b, a->name, strlen(a->name));
	buf_addstr(&b, ",\n  \"study_title\": ");
	if (title && *title)
		json_quote(&b, title, strlen(title));
	else
		buf_addstr(&b, "null");
	buf_addstr(&b, ",\n  \"codebook\": {\"name\": ");
	json_quote(&b, cb->name, strlen(cb->name));
	buf_addstr(&b, ", \"version\": ");
	json_quote(&b, cb->version, strlen(cb->version));
	buf_addstr(&b, "},\n  \"round\": ");
	if (o->round)
		json_quote(&b, o->round, strlen(o->round));
	else
		buf_addstr(&b, "null");
	/* the log's head as the package was made: `audit verify --head`
	 * checks that the study's log still begins with this one */
	if (audit_last(st, &head_id, head, e) < 0) {
		buf_release(&b);
		free(title);
		return -1;
	}
	buf_addstr(&b, ",\n  \"audit_head\": ");
	if (head_id)
		buf_addf(&b, "{\"row\": %lld, \"sha256\": \"%s\"}", head_id,
			 head);
	else
		buf_addstr(&b, "null");
	buf_addf(&b, ",\n  \"include_pending\": %s,\n  \"formula_guard\": "
		 "%s,\n  \"files\": [",
		 (o->flags & EXPORT_PENDING) ? "true" : "false",
		 (o->flags & EXPORT_NO_GUARD) ? "false" : "true");
	for (i = 0; i < p->nr; i++) {
		const struct file *f = &p->files[i];

		buf_addstr(&b, i ? ",\n    {\"path\": " : "\n    {\"path\": ");
		json_quote(&b, f->path, strlen(f->path));
		buf_addf(&b, ", \"bytes\": %lld, ", f->size);
		if (f->rows >= 0)
			buf_addf(&b, "\"rows\": %lld, ", f->rows);
		buf_addf(&b, "\"sha256\": \"%s\"}", f->sha);
	}
	buf_addstr(&b, "\n  ]\n}\n");
	ret = pkg_write_text(p, "manifest.json", b.ptr, b.len, e);
	buf_release(&b);
	free(title);
	return ret;
}

static int cmp_file(const void *x, const void *y)
{
	return strcmp(((const struct file *)x)->path,
		      ((const struct file *)y)->path);
}

int pkg_write_manifest(struct pkg *p, struct err *e)
{
	struct buf b = BUF_INIT;
	struct file *sorted;
	size_t i, n = p->nr;
	int ret;

	sorted = xcalloc(n + 1, sizeof(*sorted));
	memcpy(sorted, p->files, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_file);
	for (i = 0; i < n; i++)
		buf_addf(&b, "%s  %s\n", sorted[i].sha, sorted[i].path);
	free(sorted);
	ret = pkg_write_text(p, "MANIFEST", b.ptr, b.len, e);
	buf_release(&b);
	return ret;
}
