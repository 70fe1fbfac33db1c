-- The peer of `bugcoder export`: the sqlite3 shell (-csv -header) writing
-- one row per agreed item, the same columns: the item and its effort
-- figures, then per dimension of the LLM codebook the agreed code(s) - the
-- common set of alice's and bob's codes (';'-joined in key order), else
-- the adjudicator's resolution - and whether it was agreed or
-- adjudicated.  Items not agreed yet (a difference left unresolved, or a
-- coder yet to submit) are left out, as the export leaves them out.
.bail on
CREATE TEMP TABLE coders AS
  SELECT (SELECT id FROM members WHERE name = 'alice') AS a,
         (SELECT id FROM members WHERE name = 'bob') AS b;
WITH
-- both annotators submitted
units AS (
  SELECT item_id FROM submissions
  WHERE member_id IN (SELECT a FROM coders UNION ALL SELECT b FROM coders)
  GROUP BY item_id HAVING count(*) = 2),
-- each coder's set of codes per item and dimension, in one pass over the
-- labels' primary key (item, member, dimension, code): codes come in key
-- order
sets AS (
  SELECT item_id, member_id, dimension, group_concat(code, ';') AS codes
  FROM labels GROUP BY item_id, member_id, dimension),
p AS (
  SELECT item_id,
         max(CASE WHEN member_id = (SELECT a FROM coders) AND dimension = 'symptom'
                  THEN codes END) AS symptom_a,
         max(CASE WHEN member_id = (SELECT b FROM coders) AND dimension = 'symptom'
                  THEN codes END) AS symptom_b,
         max(CASE WHEN member_id = (SELECT a FROM coders) AND dimension = 'root_cause'
                  THEN codes END) AS root_cause_a,
         max(CASE WHEN member_id = (SELECT b FROM coders) AND dimension = 'root_cause'
                  THEN codes END) AS root_cause_b,
         max(CASE WHEN member_id = (SELECT a FROM coders) AND dimension = 'fix_pattern'
                  THEN codes END) AS fix_pattern_a,
         max(CASE WHEN member_id = (SELECT b FROM coders) AND dimension = 'fix_pattern'
                  THEN codes END) AS fix_pattern_b,
         max(CASE WHEN member_id = (SELECT a FROM coders) AND dimension = 'stage'
                  THEN codes END) AS stage_a,
         max(CASE WHEN member_id = (SELECT b FROM coders) AND dimension = 'stage'
                  THEN codes END) AS stage_b,
         max(CASE WHEN member_id = (SELECT a FROM coders) AND dimension = 'phase'
                  THEN codes END) AS phase_a,
         max(CASE WHEN member_id = (SELECT b FROM coders) AND dimension = 'phase'
                  THEN codes END) AS phase_b
  FROM sets GROUP BY item_id),
fx AS (
  SELECT item_id, group_concat(number, ';') AS numbers
  FROM (SELECT item_id, number FROM fixes ORDER BY item_id, position)
  GROUP BY item_id)
SELECT i.repo || '#' || i.number AS item, i.repo, i.number, i.url, i.title,
       i.created_at, i.closed_at, printf('%.2f', i.days_open) AS days_open,
       i.comment_count AS comments, fx.numbers AS fix_numbers,
       i.additions, i.deletions, i.changed_files, i.lines_changed,
       CASE i.small_fix WHEN 1 THEN 'true' WHEN 0 THEN 'false' END
         AS small_fix,
       CASE WHEN p.symptom_a IS p.symptom_b THEN p.symptom_a ELSE r0.code END
         AS symptom,
       CASE WHEN p.symptom_a IS p.symptom_b THEN 'agreed' ELSE 'adjudicated' END
         AS symptom_status,
       CASE WHEN p.root_cause_a IS p.root_cause_b THEN p.root_cause_a ELSE r1.code END
         AS root_cause,
       CASE WHEN p.root_cause_a IS p.root_cause_b THEN 'agreed' ELSE 'adjudicated' END
         AS root_cause_status,
       CASE WHEN p.fix_pattern_a IS p.fix_pattern_b THEN p.fix_pattern_a ELSE r2.code END
         AS fix_pattern,
       CASE WHEN p.fix_pattern_a IS p.fix_pattern_b THEN 'agreed' ELSE 'adjudicated' END
         AS fix_pattern_status,
       CASE WHEN p.stage_a IS p.stage_b THEN p.stage_a ELSE r3.code END
         AS stage,
       CASE WHEN p.stage_a IS p.stage_b THEN 'agreed' ELSE 'adjudicated' END
         AS stage_status,
       CASE WHEN p.phase_a IS p.phase_b THEN p.phase_a ELSE r4.code END
         AS phase,
       CASE WHEN p.phase_a IS p.phase_b THEN 'agreed' ELSE 'adjudicated' END
         AS phase_status
FROM units u
JOIN items i ON i.id = u.item_id
JOIN p ON p.item_id = i.id
LEFT JOIN fx ON fx.item_id = i.id
LEFT JOIN resolutions r0 ON r0.item_id = i.id AND r0.dimension = 'symptom'
LEFT JOIN resolutions r1 ON r1.item_id = i.id AND r1.dimension = 'root_cause'
LEFT JOIN resolutions r2 ON r2.item_id = i.id AND r2.dimension = 'fix_pattern'
LEFT JOIN resolutions r3 ON r3.item_id = i.id AND r3.dimension = 'stage'
LEFT JOIN resolutions r4 ON r4.item_id = i.id AND r4.dimension = 'phase'
WHERE (p.symptom_a IS p.symptom_b OR r0.code IS NOT NULL)
  AND (p.root_cause_a IS p.root_cause_b OR r1.code IS NOT NULL)
  AND (p.fix_pattern_a IS p.fix_pattern_b OR r2.code IS NOT NULL)
  AND (p.stage_a IS p.stage_b OR r3.code IS NOT NULL)
  AND (p.phase_a IS p.phase_b OR r4.code IS NOT NULL)
ORDER BY i.id;
