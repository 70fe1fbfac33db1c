-- The peer of `bugcoder status`: the sqlite3 shell computing the same
-- figures: per repository and for all items, the items, those with a fix,
-- the fixes, the share of fixes of at most 10 lines, and the medians of
-- days open, comments and lines changed; the counts of members, rounds,
-- labels, submissions, open proposals and resolutions; and, over the items
-- both annotators submitted (alice and bob: the study has no rounds), how
-- many agree on every dimension, how many differ only where a resolution
-- decides, how many still differ, and how many are flagged for discussion.
.bail on
CREATE TEMP TABLE coders AS
  SELECT (SELECT id FROM members WHERE name = 'alice') AS a,
         (SELECT id FROM members WHERE name = 'bob') AS b;

-- per repository, then "all"
WITH per AS (
  SELECT repo, count(*) AS n, sum(has_fix) AS fixed,
         sum(small_fix) AS small, sum(small_fix IS NOT NULL) AS judged
  FROM items GROUP BY repo),
nfix AS (
  SELECT j.repo, count(*) AS n FROM fixes f JOIN items j ON j.id = f.item_id
  GROUP BY j.repo)
SELECT per.repo, per.n, per.fixed, nfix.n,
       printf('%.0f%%', 100.0 * per.small / per.judged)
FROM per LEFT JOIN nfix USING (repo)
UNION ALL
SELECT 'all', count(*), sum(has_fix), (SELECT count(*) FROM fixes),
       printf('%.0f%%', 100.0 * sum(small_fix) / sum(small_fix IS NOT NULL))
FROM items;

-- medians, per repository and for all items
WITH d AS (
  SELECT repo, days_open AS v,
         row_number() OVER (PARTITION BY repo ORDER BY days_open) AS k,
         count(*) OVER (PARTITION BY repo) AS c
  FROM items WHERE days_open IS NOT NULL)
SELECT repo, printf('%.1f', avg(v)) FROM d
WHERE k IN ((c + 1) / 2, (c + 2) / 2) GROUP BY repo;
WITH d AS (
  SELECT days_open AS v, row_number() OVER (ORDER BY days_open) AS k,
         count(*) OVER () AS c
  FROM items WHERE days_open IS NOT NULL)
SELECT 'all', printf('%.1f', avg(v)) FROM d WHERE k IN ((c + 1) / 2, (c + 2) / 2);
WITH d AS (
  SELECT repo, comment_count AS v,
         row_number() OVER (PARTITION BY repo ORDER BY comment_count) AS k,
         count(*) OVER (PARTITION BY repo) AS c
  FROM items)
SELECT repo, printf('%.1f', avg(v)) FROM d
WHERE k IN ((c + 1) / 2, (c + 2) / 2) GROUP BY repo;
WITH d AS (
  SELECT comment_count AS v, row_number() OVER (ORDER BY comment_count) AS k,
         count(*) OVER () AS c
  FROM items)
SELECT 'all', printf('%.1f', avg(v)) FROM d WHERE k IN ((c + 1) / 2, (c + 2) / 2);
WITH d AS (
  SELECT repo, lines_changed AS v,
         row_number() OVER (PARTITION BY repo ORDER BY lines_changed) AS k,
         count(*) OVER (PARTITION BY repo) AS c
  FROM items WHERE lines_changed IS NOT NULL)
SELECT repo, printf('%.1f', avg(v)) FROM d
WHERE k IN ((c + 1) / 2, (c + 2) / 2) GROUP BY repo;
WITH d AS (
  SELECT lines_changed AS v, row_number() OVER (ORDER BY lines_changed) AS k,
         count(*) OVER () AS c
  FROM items WHERE lines_changed IS NOT NULL)
SELECT 'all', printf('%.1f', avg(v)) FROM d WHERE k IN ((c + 1) / 2, (c + 2) / 2);

SELECT (SELECT count(*) FROM members WHERE active),
       (SELECT count(*) FROM rounds),
       (SELECT count(*) FROM labels),
       (SELECT count(*) FROM submissions),
       (SELECT count(*) FROM proposals WHERE status = 'open'),
       (SELECT count(*) FROM resolutions),
       (SELECT count(*) FROM items WHERE NOT has_fix),
       (SELECT count(*) FROM items WHERE diff_partial);

-- the agreement line: items, agreed, resolved, disagreements left, flagged
CREATE TEMP TABLE units AS
  SELECT item_id FROM submissions, coders
  WHERE member_id IN (coders.a, coders.b)
  GROUP BY item_id HAVING count(*) = 2;
-- each coder's set of codes per item and dimension, in one pass over the
-- labels' primary key (item, member, dimension, code): codes in key order
CREATE TEMP TABLE pairs AS
  WITH sets AS (
    SELECT item_id, member_id, dimension, group_concat(code, ';') AS codes
    FROM labels GROUP BY item_id, member_id, dimension)
  SELECT item_id, dimension,
         max(CASE WHEN member_id = (SELECT a FROM coders) THEN codes END) AS ca,
         max(CASE WHEN member_id = (SELECT b FROM coders) THEN codes END) AS cb
  FROM sets GROUP BY item_id, dimension;
-- the items where the coders differ, and whether a difference is left
CREATE TEMP TABLE differ AS
  SELECT p.item_id, max(r.code IS NULL) AS open
  FROM pairs p
  LEFT JOIN resolutions r ON r.item_id = p.item_id
                         AND r.dimension = p.dimension
  WHERE p.ca IS NOT p.cb AND p.item_id IN (SELECT item_id FROM units)
  GROUP BY p.item_id;
SELECT (SELECT count(*) FROM units),
       (SELECT count(*) FROM units) - (SELECT count(*) FROM differ),
       (SELECT count(*) FROM differ WHERE NOT open),
       (SELECT count(*) FROM differ WHERE open),
       (SELECT count(DISTINCT f.item_id) FROM flags f
          WHERE f.flag = 'discuss' AND f.item_id IN (SELECT item_id FROM units));
