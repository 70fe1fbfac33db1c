/* SPDX-License-Identifier: MIT */
/*
 * auditlog: see auditlog.h.
 */
#include "core/study/auditlog.h"

#include <stdlib.h>

#include "core/study/access.h"
#include "core/study/item.h"

int audit_list(struct store *st, const struct actor *a,
	       const struct audit_filter *f, audit_row_fn fn, void *data,
	       struct err *e)
{
	sqlite3_stmt *s;
	int rc, ret = 0;

	s = store_prepare(st, "SELECT " AUDIT_ROW_COLUMNS ", i.repo, i.number "
			  "FROM audit a LEFT JOIN items i ON i.id = a.item_id "
			  "WHERE (?1 OR (a.actor = ?2 AND a.for_member IS NULL) "
			  "       OR a.for_member = ?2) "
			  "  AND (?3 = 0 OR a.item_id = ?3) "
			  "  AND (?4 IS NULL OR (a.actor = ?4 AND "
			  "       a.for_member IS NULL) OR a.for_member = ?4) "
			  "ORDER BY a.id", e);
	if (!s)
		return -1;
	sqlite3_bind_int(s, 1, access_whole_log(a));
	store_bind_text(s, 2, a->name);
	sqlite3_bind_int64(s, 3, f ? f->item_id : 0);
	store_bind_text(s, 4, f ? f->member : NULL);
	while ((rc = store_step(st, s, "reading the audit log", e)) > 0) {
		struct audit_row r;
		char *name = NULL;

		audit_read_row(s, &r);
		if (!access_whole_log(a))
			r.detail = NULL;
		if (sqlite3_column_type(s, 11) != SQLITE_NULL)
			name = item_name((const char *)
					 sqlite3_column_text(s, 11),
					 sqlite3_column_int64(s, 12));
		r.item = name;
		ret = fn(&r, data);
		free(name);
		if (ret)
			break;
	}
	if (!ret && rc < 0)
		ret = -1;
	sqlite3_finalize(s);
	return ret;
}
