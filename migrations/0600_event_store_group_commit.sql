-- Group commit and a verify that runs in the database.
--
-- body: the canonical text each hash was computed over (domain/shared/eventChain.ts), stored as
-- it was hashed, so verify recomputes the chain with sha256() here instead of re-serialising
-- every row in JavaScript. Rows written before this migration keep a NULL body and are
-- verified the old way. Adding a nullable column rewrites nothing and fires no row trigger.
ALTER TABLE events ADD COLUMN body text;

-- The single-append function keeps working for any caller left, and now stores the body too.
CREATE OR REPLACE FUNCTION append_events(
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
    INSERT INTO events (position, stream_id, version, id, type, data, metadata, prev_hash, hash, body)
      VALUES (v_pos, p_stream, v_current, p_ids[i], p_types[i], p_data[i], p_metadata, v_prev, v_hash, p_bodies[i]);
    out_position := v_pos; out_version := v_current; out_prev_hash := v_prev; out_hash := v_hash;
    RETURN NEXT;
    v_prev := v_hash;
  END LOOP;
  PERFORM pg_notify('lnm_events', v_pos::text);
END $$;

-- Several independent appends in one transaction (group commit, see
-- adapters/eventstore/groupCommit.ts). Append a (1-based) has stream p_streams[a], expected
-- version p_expected[a] (-1 = any), metadata p_metadata[a] and the next p_counts[a] entries of
-- the per-event arrays. Each append is checked on its own, in order, after the appends before
-- it in the batch (so a second append to the same stream sees the first one's version):
--   'ok'            one row per event written;
--   'wrong_version' one row, out_detail = the stream's actual version; nothing written;
--   'duplicate'     one row, out_detail = an event id already in the store; nothing written.
-- A refused append takes no position, so positions stay gapless and the chain is one line.
-- The caller does not put one event id in two appends of a batch (it splits such a batch).
-- Anything else (a bad value, a lost connection) fails the whole statement, and with it the
-- transaction: nothing of the batch is written.
-- The stores' state is read with three statements for the whole batch and the rows are
-- written with one INSERT: per-append statements made a batch of 50 cost several times more.
CREATE FUNCTION append_batch(
  p_streams text[], p_expected integer[], p_counts integer[], p_metadata jsonb[],
  p_ids uuid[], p_types text[], p_data jsonb[], p_bodies text[]
) RETURNS TABLE (out_append integer, out_status text, out_detail text, out_position bigint, out_version integer, out_prev_hash text, out_hash text)
LANGUAGE plpgsql AS $$
DECLARE
  v_pos bigint;
  v_prev text;
  v_hash text;
  v_current integer;
  v_versions jsonb;
  v_existing uuid[];
  v_first integer := 1;
  v_last integer;
  a integer;
  i integer;
  w_pos bigint[] := '{}';
  w_ver integer[] := '{}';
  w_event integer[] := '{}';
  w_append integer[] := '{}';
  w_prev text[] := '{}';
  w_hash text[] := '{}';
BEGIN
  PERFORM pg_advisory_xact_lock(7243001);
  SELECT e.position, e.hash INTO v_pos, v_prev FROM events e ORDER BY e.position DESC LIMIT 1;
  IF v_pos IS NULL THEN
    v_pos := 0;
    v_prev := repeat('0', 64);
  END IF;
  -- max() per stream, each answered from the end of the (stream_id, version) index; a GROUP BY
  -- over the streams' rows would read every event of a long stream.
  SELECT coalesce(jsonb_object_agg(s.stream_id, v.v) FILTER (WHERE v.v IS NOT NULL), '{}') INTO v_versions
    FROM (SELECT DISTINCT x AS stream_id FROM unnest(p_streams) AS x) s
    CROSS JOIN LATERAL (SELECT max(e.version) AS v FROM events e WHERE e.stream_id = s.stream_id) v;
  SELECT coalesce(array_agg(e.id), '{}') INTO v_existing FROM events e WHERE e.id = ANY (p_ids);
  FOR a IN 1 .. array_length(p_streams, 1) LOOP
    v_last := v_first + p_counts[a] - 1;
    out_append := a;
    out_position := NULL; out_version := NULL; out_prev_hash := NULL; out_hash := NULL; out_detail := NULL;
    v_current := coalesce((v_versions ->> p_streams[a])::integer, 0);
    IF p_expected[a] >= 0 AND v_current <> p_expected[a] THEN
      out_status := 'wrong_version'; out_detail := v_current::text;
      RETURN NEXT;
    ELSIF cardinality(v_existing) > 0 AND p_ids[v_first:v_last] && v_existing THEN
      out_status := 'duplicate';
      out_detail := (SELECT x::text FROM unnest(p_ids[v_first:v_last]) AS x WHERE x = ANY (v_existing) LIMIT 1);
      RETURN NEXT;
    ELSE
      out_status := 'ok';
      FOR i IN v_first .. v_last LOOP
        v_pos := v_pos + 1;
        v_current := v_current + 1;
        v_hash := encode(sha256(convert_to(v_prev || '|' || v_pos || '|' || p_streams[a] || '|' || v_current || '|' || p_bodies[i], 'UTF8')), 'hex');
        w_pos := w_pos || v_pos; w_ver := w_ver || v_current; w_event := w_event || i; w_append := w_append || a;
        w_prev := w_prev || v_prev; w_hash := w_hash || v_hash;
        out_position := v_pos; out_version := v_current; out_prev_hash := v_prev; out_hash := v_hash;
        RETURN NEXT;
        v_prev := v_hash;
      END LOOP;
      v_versions := v_versions || jsonb_build_object(p_streams[a], v_current);
    END IF;
    v_first := v_last + 1;
  END LOOP;
  IF cardinality(w_pos) > 0 THEN
    INSERT INTO events (position, stream_id, version, id, type, data, metadata, prev_hash, hash, body)
      SELECT w.pos, p_streams[w.a], w.ver, p_ids[w.i], p_types[w.i], p_data[w.i], p_metadata[w.a], w.prev, w.hash, p_bodies[w.i]
      FROM unnest(w_pos, w_ver, w_event, w_append, w_prev, w_hash) AS w(pos, ver, i, a, prev, hash);
    PERFORM pg_notify('lnm_events', v_pos::text);
  END IF;
END $$;
