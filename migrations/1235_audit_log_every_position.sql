-- The audit listing has a row for every event position (bookkeeping events and withheld stubs
-- included, docs/audit.md): the audit_log projection is replayed from the start once, which
-- inserts only the rows it lacked (its inserts do nothing on an existing id).
UPDATE projection_checkpoints SET position = 0 WHERE name = 'audit_log';
-- A refused sign-in names the user that was tried (it has no actor), as the projection now does.
UPDATE audit_log SET username = resource_name
 WHERE action = 'LOGIN' AND status <> 'success' AND user_id IS NULL AND username IS NULL AND resource_name IS NOT NULL;
