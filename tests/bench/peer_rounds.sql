-- The peer of `bugcoder round list` (as the owner): the sqlite3 shell
-- listing every round with the same figures - open or closed, its items,
-- the items every annotator of the round submitted ("done"), its
-- annotators, and how its items were chosen.
.bail on
SELECT r.name, CASE WHEN r.closed_at IS NULL THEN 'open' ELSE 'closed' END,
       (SELECT count(*) FROM assignments a WHERE a.round_id = r.id),
       (SELECT count(*) FROM assignments a
        WHERE a.round_id = r.id
          AND (SELECT count(*) FROM submissions s
               JOIN round_annotators ra ON ra.member_id = s.member_id
               WHERE ra.round_id = r.id AND s.item_id = a.item_id) =
              (SELECT count(*) FROM round_annotators ra
               WHERE ra.round_id = r.id)),
       (SELECT group_concat(m.name, ',') FROM round_annotators ra
        JOIN members m ON m.id = ra.member_id WHERE ra.round_id = r.id),
       r.spec, r.seed, r.stratify
FROM rounds r ORDER BY r.id;
