-- The peer of `bugcoder items` (as the owner): the sqlite3 shell listing
-- every item in import order with the same columns - the item, its title,
-- the number of fixes, lines and files changed, days open, comments, how
-- many members submitted it, and its round.
.bail on
SELECT i.repo || '#' || i.number, i.title,
       (SELECT count(*) FROM fixes f WHERE f.item_id = i.id),
       i.lines_changed, i.changed_files, printf('%.1f', i.days_open),
       i.comment_count,
       (SELECT count(*) FROM submissions s WHERE s.item_id = i.id),
       (SELECT r.name FROM assignments a JOIN rounds r ON r.id = a.round_id
        WHERE a.item_id = i.id)
FROM items i ORDER BY i.id;
SELECT count(*) || ' items' FROM items;
