-- events and audit_log only grow. With the default scale factors, autovacuum and autoanalyze
-- wait until a table has grown by 20% (10% for analyze) — 100,000 rows on a 500,000-row log — so
-- counts and plans run on a stale visibility map and stale statistics in the meantime (the bench
-- measured count(*) over the audit log at 7-12 ms before a vacuum, 1.4 ms after). Vacuum them in
-- small, frequent steps instead.
ALTER TABLE events SET (autovacuum_vacuum_insert_scale_factor = 0.01, autovacuum_analyze_scale_factor = 0.01);
ALTER TABLE audit_log SET (autovacuum_vacuum_insert_scale_factor = 0.01, autovacuum_analyze_scale_factor = 0.01);
