-- The peer of `bugcoder import`: the sqlite3 shell loading the same JSON
-- Lines file with readfile() and its JSON functions into the items,
-- comments and fixes tables of a fresh study schema, with the same effort
-- figures.  bench.py runs it as
--   sqlite3 FRESH.db  with ".parameter set @jsonl PATH" first.
-- A JSON Lines file becomes one JSON array: JSON text never holds a raw
-- newline, so every newline is a record boundary.
.bail on
BEGIN;
CREATE TEMP TABLE src AS
  SELECT value AS j
  FROM json_each('[' || replace(rtrim(CAST(readfile(@jsonl) AS TEXT),
                                      char(10)), char(10), ',') || ']');
INSERT INTO items (repo, number, title, body, state, state_reason, author,
                   created_at, closed_at, url, labels, has_fix, days_open,
                   comment_count, additions, deletions, changed_files,
                   lines_changed, small_fix, source, imported_at)
  SELECT repo, number, title, body, state, state_reason, author,
         created_at, closed_at, url, labels, nfix > 0,
         julianday(closed_at) - julianday(created_at), ncomments,
         a, d, f, a + d, a + d <= 10, @jsonl,
         strftime('%Y-%m-%dT%H:%M:%SZ', 'now')
  FROM (SELECT json_extract(j, '$.repo') AS repo,
               json_extract(j, '$.number') AS number,
               json_extract(j, '$.title') AS title,
               json_extract(j, '$.body') AS body,
               json_extract(j, '$.state') AS state,
               json_extract(j, '$.state_reason') AS state_reason,
               json_extract(j, '$.author') AS author,
               json_extract(j, '$.created_at') AS created_at,
               json_extract(j, '$.closed_at') AS closed_at,
               json_extract(j, '$.url') AS url,
               coalesce(json_extract(j, '$.labels'), '[]') AS labels,
               json_array_length(j, '$.fixes') AS nfix,
               json_array_length(j, '$.comments') AS ncomments,
               (SELECT sum(json_extract(value, '$.additions'))
                  FROM json_each(j, '$.fixes')) AS a,
               (SELECT sum(json_extract(value, '$.deletions'))
                  FROM json_each(j, '$.fixes')) AS d,
               (SELECT sum(json_extract(value, '$.changed_files'))
                  FROM json_each(j, '$.fixes')) AS f
        FROM src);
INSERT INTO comments (item_id, position, author, created_at, body)
  SELECT i.id, c.key, json_extract(c.value, '$.author'),
         json_extract(c.value, '$.created_at'),
         json_extract(c.value, '$.body')
  FROM src
  JOIN items i ON i.repo = json_extract(src.j, '$.repo')
              AND i.number = json_extract(src.j, '$.number'),
       json_each(src.j, '$.comments') c;
INSERT INTO fixes (item_id, position, number, title, body, url, merged_at,
                   additions, deletions, changed_files, diff)
  SELECT i.id, x.key, json_extract(x.value, '$.number'),
         json_extract(x.value, '$.title'), json_extract(x.value, '$.body'),
         json_extract(x.value, '$.url'), json_extract(x.value, '$.merged_at'),
         json_extract(x.value, '$.additions'),
         json_extract(x.value, '$.deletions'),
         json_extract(x.value, '$.changed_files'),
         json_extract(x.value, '$.diff')
  FROM src
  JOIN items i ON i.repo = json_extract(src.j, '$.repo')
              AND i.number = json_extract(src.j, '$.number'),
       json_each(src.j, '$.fixes') x;
DROP TABLE src;
COMMIT;
