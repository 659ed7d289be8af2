-- A verify that reads each row's body once instead of parsing it (adapters/eventstore/
-- postgresChainVerify.ts). Each hash covers a row's body (migration 0600); what remained was to
-- show that the body still says what the id, type, data and metadata columns say, and parsing
-- every body to compare took most of verify's time. This constraint makes PostgreSQL hold that
-- agreement on every insert and every update, so a validated, enforced constraint in the
-- catalog proves it for every row, and verify checks the catalog once instead of each row.
--
-- One parse per row written: the body is the canonical text of exactly these four fields
-- (domain/shared/eventChain.ts canonicalEventText), so equal jsonb means the same event.
--
-- Added NOT VALID (enforced for new rows at once, existing rows not scanned), then validated
-- below if every existing row agrees. If one does not (a row changed behind the service's back),
-- the migration still succeeds, the constraint stays NOT VALID, and verify keeps comparing row by
-- row and names that row: the evidence is left as it is.
ALTER TABLE events ADD CONSTRAINT events_body_matches_columns CHECK (
  body IS NULL OR body::jsonb = jsonb_build_object('data', data, 'id', id::text, 'metadata', metadata, 'type', type)
) NOT VALID;

DO $$
BEGIN
  ALTER TABLE events VALIDATE CONSTRAINT events_body_matches_columns;
EXCEPTION WHEN check_violation OR invalid_text_representation THEN
  RAISE WARNING 'events_body_matches_columns left NOT VALID: a stored body disagrees with its columns (%); verify compares row by row', SQLERRM;
END $$;

-- Rows written before migration 0600 have no body. The start-up backfill
-- (adapters/eventstore/postgresBodyBackfill.ts) gives each one the canonical text of its columns,
-- found through this index (empty once done), and the append-only trigger lets exactly that
-- through: an UPDATE that changes nothing but a NULL body, to the text whose SHA-256 (with the
-- row's own previous hash, position, stream and version) is the row's stored hash. A body that
-- does not hash to it is refused, so a changed row cannot be given a body that hides the change.
CREATE INDEX events_body_missing_idx ON events (position) WHERE body IS NULL;

CREATE OR REPLACE FUNCTION events_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND OLD.body IS NULL AND NEW.body IS NOT NULL
     AND (to_jsonb(NEW) - 'body')::text = (to_jsonb(OLD) - 'body')::text
     AND NEW.hash = encode(sha256(convert_to(NEW.prev_hash || '|' || NEW.position || '|' || NEW.stream_id || '|' || NEW.version || '|' || NEW.body, 'UTF8')), 'hex') THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'the events table is append-only: % refused', TG_OP USING ERRCODE = 'LNM02';
END $$;
