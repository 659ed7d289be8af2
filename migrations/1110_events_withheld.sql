-- Withheld stubs: a server restored from a backup taken with the audit setting
-- include_in_backups false holds, at the positions of the audit-only events the backup left out,
-- a row with the position, stream, version, id and both hashes but no content (type $withheld,
-- empty data and metadata, no body). verify links the chain through such a row and counts it; it
-- cannot recompute its hash. Only `lnm restore` writes such rows (append_batch never does).
-- A constant default adds the column without rewriting the table or firing a row trigger; the
-- check is NOT VALID so that adding it does not scan the table (no existing row is withheld).
ALTER TABLE events ADD COLUMN withheld boolean NOT NULL DEFAULT false;
ALTER TABLE events ADD CONSTRAINT events_withheld_is_a_stub
  CHECK (NOT withheld OR (type = '$withheld' AND data = '{}'::jsonb AND metadata = '{}'::jsonb AND body IS NULL)) NOT VALID;
CREATE INDEX events_withheld_idx ON events (position) WHERE withheld;
