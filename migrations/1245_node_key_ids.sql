-- The keys a node holds as its own (a consortium or ledgerX role node's identity and TLS keys,
-- from its NodeCreated event): what makes a key "in use" by a node (GET /keys used_by,
-- ?unused=true) and what DELETE /nodes/{id}?deleteKeys=true deletes. Nodes recorded before this
-- migration get theirs from their NodeCreated event here when the events are in PostgreSQL; with
-- another event store, `lnm projections rebuild` fills them.
ALTER TABLE nodes ADD COLUMN key_ids integer[] NOT NULL DEFAULT '{}';
UPDATE nodes n
   SET key_ids = ARRAY[(e.data->>'identityKeyId')::integer, (e.data->>'tlsKeyId')::integer]
  FROM events e
 WHERE e.stream_id = 'node-' || n.id AND e.type = 'NodeCreated'
   AND jsonb_typeof(e.data->'identityKeyId') = 'number' AND jsonb_typeof(e.data->'tlsKeyId') = 'number';
CREATE INDEX nodes_key_ids_idx ON nodes USING gin (key_ids);
