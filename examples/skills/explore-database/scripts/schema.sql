-- Every table with its columns, in one read-only query (SQLite 3.16+).
SELECT m.name AS table_name, p.cid, p.name AS column_name, p.type, p.pk
FROM sqlite_master AS m
JOIN pragma_table_info(m.name) AS p
WHERE m.type = 'table'
ORDER BY m.name, p.cid;
