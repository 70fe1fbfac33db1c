-- The peer of `bugcoder agree`: the sqlite3 shell computing the same
-- count tables with GROUP BY, over the items both annotators submitted.
--  1. per select-one dimension, the confusion table: alice's code x bob's
--     code -> items;
--  2. per code of the select-many dimension (fix_pattern), the 2x2 table
--     of presence: (alice chose it, bob chose it) -> items (the "neither"
--     cell is the items of table 3 less the others);
--  3. per select-many dimension, the items and the items with the same
--     set of codes.
-- CROSS JOIN fixes the join order (item by item through the labels'
-- primary key): without statistics the planner would scan the dimension
-- index instead, several times slower.
.bail on
CREATE TEMP TABLE coders AS
  SELECT (SELECT id FROM members WHERE name = 'alice') AS a,
         (SELECT id FROM members WHERE name = 'bob') AS b;
CREATE TEMP TABLE units AS
  SELECT item_id FROM submissions, coders
  WHERE member_id IN (coders.a, coders.b)
  GROUP BY item_id HAVING count(*) = 2;

SELECT la.dimension, la.code, lb.code, count(*)
FROM coders CROSS JOIN units u
CROSS JOIN labels la ON la.item_id = u.item_id AND la.member_id = coders.a
CROSS JOIN labels lb ON lb.item_id = u.item_id AND lb.member_id = coders.b
              AND lb.dimension = la.dimension
WHERE la.dimension IN ('symptom', 'root_cause', 'stage', 'phase')
GROUP BY 1, 2, 3 ORDER BY 1, 2, 3;

SELECT dimension, code, pa, pb, count(*)
FROM (SELECT l.item_id, l.dimension, l.code,
             max(l.member_id = coders.a) AS pa,
             max(l.member_id = coders.b) AS pb
      FROM coders CROSS JOIN units u
      CROSS JOIN labels l ON l.item_id = u.item_id
                   AND l.member_id IN (coders.a, coders.b)
      WHERE l.dimension = 'fix_pattern'
      GROUP BY l.item_id, l.dimension, l.code)
GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4;

SELECT 'fix_pattern', count(*), sum(sa IS sb)
FROM (SELECT
        (SELECT group_concat(code, ';') FROM
           (SELECT code FROM labels WHERE item_id = u.item_id
              AND member_id = coders.a AND dimension = 'fix_pattern'
              ORDER BY code)) AS sa,
        (SELECT group_concat(code, ';') FROM
           (SELECT code FROM labels WHERE item_id = u.item_id
              AND member_id = coders.b AND dimension = 'fix_pattern'
              ORDER BY code)) AS sb
      FROM units u, coders);
