-- The public event name (security.api_key.created, node.started, ...) of an audit entry, when it has one.
ALTER TABLE audit_log ADD COLUMN event_name text;
