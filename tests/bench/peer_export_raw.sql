# SPDX-License-Identifier: MIT
-- The peer of `bugcoder export --raw`: the sqlite3 shell (-csv -header)
-- writing one row per label (per chosen code), the same columns in the
-- same order: the item's name, the annotator, the dimension and code, the
-- codebook version, when it was labelled and submitted, and the
-- citations for that dimension ('|'-joined, as the export writes them).
-- The owner's view: every label, under the annotators' names.
.bail on
SELECT i.repo || '#' || i.number AS item, m.name AS annotator,
       l.dimension, l.code, l.codebook_version, l.labeled_at,
       s.submitted_at,
       (SELECT group_concat(
                 CASE e.pane
                   WHEN 'diff' THEN 'diff:' || e.path || ':' ||
                                    CASE WHEN e.old_side THEN 'old:'
                                         ELSE '' END
                   ELSE CASE WHEN e.comment THEN 'issue:comment:' ||
                                                 e.comment || ':'
                             ELSE 'issue:body:' END
                 END || e.line_from ||
                 CASE WHEN e.line_to != e.line_from THEN '-' || e.line_to
                      ELSE '' END, '|')
          FROM (SELECT * FROM evidence x WHERE x.item_id = l.item_id AND
                x.member_id = l.member_id AND x.dimension = l.dimension
                ORDER BY x.id) e) AS evidence
FROM labels l
JOIN items i ON i.id = l.item_id
JOIN members m ON m.id = l.member_id
LEFT JOIN submissions s ON s.item_id = l.item_id AND
                           s.member_id = l.member_id
ORDER BY l.item_id, l.member_id, l.dimension, l.code;
