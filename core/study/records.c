/* SPDX-License-Identifier: MIT */
#include "core/study/records.h"

#include <sqlite3.h>

static const char *text(sqlite3_stmt *s, int i)
{
	return (const char *)sqlite3_column_text(s, i);
}

int records_resolutions(struct store *st, const char *round,
			int (*fn)(const struct resolution_row *r, void *data,
				  struct err *e),
			void *data, struct err *e)
{
	sqlite3_stmt *s;
	int rc, ret = -1;

	s = store_prepare(st,
		"SELECT i.repo, i.number, s.dimension, s.coder1, "
		" s.coder1_codes, s.coder2, s.coder2_codes, s.code, "
		" s.rationale, s.cause, m.name, s.resolved_at, "
		" a.round_id IS NOT NULL, r.closed_at IS NOT NULL, "
		" 'resolution', s.item_id "
		"FROM resolutions s JOIN items i ON i.id = s.item_id "
		"LEFT JOIN members m ON m.id = s.adjudicator_id "
		"LEFT JOIN assignments a ON a.item_id = s.item_id "
		"LEFT JOIN rounds r ON r.id = a.round_id "
		"WHERE (?1 IS NULL OR r.name = ?1) "
		"UNION ALL "
		"SELECT i.repo, i.number, '', NULL, NULL, NULL, NULL, '', "
		" t.note, NULL, m.name, t.settled_at, "
		" a.round_id IS NOT NULL, r.closed_at IS NOT NULL, "
		" 'settled', t.item_id "
		"FROM settled t JOIN items i ON i.id = t.item_id "
		"LEFT JOIN members m ON m.id = t.adjudicator_id "
		"LEFT JOIN assignments a ON a.item_id = t.item_id "
		"LEFT JOIN rounds r ON r.id = a.round_id "
		"WHERE (?1 IS NULL OR r.name = ?1) "
		"ORDER BY 16, 15, 3", e);
	if (!s)
		return -1;
	store_bind_text(s, 1, round);
	while ((rc = store_step(st, s, "reading resolutions", e)) > 0) {
		struct resolution_row r;

		r.repo = text(s, 0);
		r.number = sqlite3_column_int64(s, 1);
		r.dimension = text(s, 2);
		r.coder1 = text(s, 3);
		r.coder1_codes = text(s, 4);
		r.coder2 = text(s, 5);
		r.coder2_codes = text(s, 6);
		r.final = text(s, 7);
		r.rationale = text(s, 8);
		r.cause = text(s, 9);
		r.adjudicator = text(s, 10);
		r.resolved_at = text(s, 11);
		r.in_round = sqlite3_column_int(s, 12);
		r.closed = sqlite3_column_int(s, 13);
		r.kind = text(s, 14);
		r.item_id = sqlite3_column_int64(s, 15);
		if (fn(&r, data, e) < 0)
			goto out;
	}
	if (rc == 0)
		ret = 0;
out:
	sqlite3_finalize(s);
	return ret;
}

int records_memos(struct store *st, const char *round,
		  int (*fn)(const struct memo_row *r, void *data,
			    struct err *e),
		  void *data, struct err *e)
{
	sqlite3_stmt *s;
	int rc, ret = -1;

	s = store_prepare(st,
		"WITH k AS (SELECT item_id, member_id, max(at) AS at FROM "
		" (SELECT item_id, member_id, updated_at AS at FROM memos "
		"  UNION ALL SELECT item_id, member_id, set_at FROM flags) "
		" GROUP BY item_id, member_id) "
		"SELECT i.repo, i.number, m.name, (SELECT text FROM memos x "
		"  WHERE x.item_id = k.item_id AND x.member_id = k.member_id), "
		" EXISTS (SELECT 1 FROM flags f WHERE f.item_id = k.item_id "
		"  AND f.member_id = k.member_id AND f.flag = 'discuss'), "
		" EXISTS (SELECT 1 FROM flags f WHERE f.item_id = k.item_id "
		"  AND f.member_id = k.member_id AND f.flag = 'uncertain'), "
		" k.at, k.item_id, k.member_id, "
		" a.round_id IS NOT NULL, r.closed_at IS NOT NULL, "
		" EXISTS (SELECT 1 FROM resolutions x WHERE x.item_id = "
		"  k.item_id) OR EXISTS (SELECT 1 FROM settled x WHERE "
		"  x.item_id = k.item_id) "
		"FROM k JOIN items i ON i.id = k.item_id "
		"JOIN members m ON m.id = k.member_id "
		"LEFT JOIN assignments a ON a.item_id = k.item_id "
		"LEFT JOIN rounds r ON r.id = a.round_id "
		"WHERE (?1 IS NULL OR r.name = ?1) "
		"ORDER BY k.item_id, k.member_id", e);
	if (!s)
		return -1;
	store_bind_text(s, 1, round);
	while ((rc = store_step(st, s, "reading memos and flags", e)) > 0) {
		struct memo_row r;

		r.repo = text(s, 0);
		r.number = sqlite3_column_int64(s, 1);
		r.member = text(s, 2);
		r.memo = text(s, 3);
		r.discuss = sqlite3_column_int(s, 4);
		r.uncertain = sqlite3_column_int(s, 5);
		r.updated_at = text(s, 6);
		r.item_id = sqlite3_column_int64(s, 7);
		r.member_id = sqlite3_column_int64(s, 8);
		r.in_round = sqlite3_column_int(s, 9);
		r.closed = sqlite3_column_int(s, 10);
		r.decided = sqlite3_column_int(s, 11);
		if (fn(&r, data, e) < 0)
			goto out;
	}
	if (rc == 0)
		ret = 0;
out:
	sqlite3_finalize(s);
	return ret;
}

int records_codebooks(struct store *st,
		      int (*fn)(const struct codebook_row *r, void *data,
				struct err *e),
		      void *data, struct err *e)
{
	sqlite3_stmt *s;
	int rc, ret = -1;

	s = store_prepare(st, "SELECT version, json, current FROM codebooks "
			  "ORDER BY id", e);
	if (!s)
		return -1;
	while ((rc = store_step(st, s, "reading codebooks", e)) > 0) {
		struct codebook_row r;

		r.version = text(s, 0);
		r.json = text(s, 1);
		r.len = (size_t)sqlite3_column_bytes(s, 1);
		r.current = sqlite3_column_int(s, 2);
		if (fn(&r, data, e) < 0)
			goto out;
	}
	if (rc == 0)
		ret = 0;
out:
	sqlite3_finalize(s);
	return ret;
}
