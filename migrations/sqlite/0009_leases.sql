-- 0009: nothing on SQLite. Several server nodes on one database (--node,
-- the nodes and room_leases tables of postgresql/0009_leases.sql) need
-- PostgreSQL; this file keeps the two engines' schema versions in step.
SELECT 1;
