-- The append-only, hash-chained event store. Positions are gapless in commit order because
-- every append takes one transaction-scoped advisory lock (message-db's approach).
CREATE TABLE events (
  position    bigint      PRIMARY KEY,
  stream_id   text        NOT NULL,
  version     integer     NOT NULL,
  id          uuid        NOT NULL,
  type        text        NOT NULL,
  data        jsonb       NOT NULL,
  metadata    jsonb       NOT NULL,
  prev_hash   text        NOT NULL,
  hash        text        NOT NULL,
  recorded_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT events_stream_version_key UNIQUE (stream_id, version),
  CONSTRAINT events_id_key UNIQUE (id)
);
CREATE INDEX events_type_position_idx ON events (type, position);

CREATE FUNCTION events_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'the events table is append-only: % refused', TG_OP USING ERRCODE = 'LNM02';
END $$;

CREATE TRIGGER events_append_only BEFORE UPDATE OR DELETE ON events
  FOR EACH ROW EXECUTE FUNCTION events_refuse_change();
CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events
  FOR EACH STATEMENT EXECUTE FUNCTION events_refuse_change();

-- Appends a batch to one stream in one round trip. p_expected = -1 means "any version".
-- p_bodies are the canonical texts of the events (computed by the caller, see
-- domain/shared/eventChain.ts); hash = sha256(prev_hash|position|stream|version|body).
CREATE FUNCTION append_events(
  p_stream text, p_expected integer, p_ids uuid[], p_types text[], p_data jsonb[], p_metadata jsonb, p_bodies text[]
) RETURNS TABLE (out_position bigint, out_version integer, out_prev_hash text, out_hash text)
LANGUAGE plpgsql AS $$
DECLARE
  v_current integer;
  v_pos bigint;
  v_prev text;
  v_hash text;
  i integer;
BEGIN
  PERFORM pg_advisory_xact_lock(7243001);
  SELECT coalesce(max(e.version), 0) INTO v_current FROM events e WHERE e.stream_id = p_stream;
  IF p_expected >= 0 AND v_current <> p_expected THEN
    RAISE EXCEPTION 'wrong expected version' USING ERRCODE = 'LNM01', DETAIL = v_current::text;
  END IF;
  SELECT e.position, e.hash INTO v_pos, v_prev FROM events e ORDER BY e.position DESC LIMIT 1;
  IF v_pos IS NULL THEN
    v_pos := 0;
    v_prev := repeat('0', 64);
  END IF;
  FOR i IN 1 .. array_length(p_ids, 1) LOOP
    v_pos := v_pos + 1;
    v_current := v_current + 1;
    v_hash := encode(sha256(convert_to(v_prev || '|' || v_pos || '|' || p_stream || '|' || v_current || '|' || p_bodies[i], 'UTF8')), 'hex');
    INSERT INTO events (position, stream_id, version, id, type, data, metadata, prev_hash, hash)
      VALUES (v_pos, p_stream, v_current, p_ids[i], p_types[i], p_data[i], p_metadata, v_prev, v_hash);
    out_position := v_pos; out_version := v_current; out_prev_hash := v_prev; out_hash := v_hash;
    RETURN NEXT;
    v_prev := v_hash;
  END LOOP;
  PERFORM pg_notify('lnm_events', v_pos::text);
END $$;
