-- An observation cache, not event-sourced state: the latest health-probe reading of each node
-- (status, block height, peer count and when it was taken), written by the node-health saga
-- every probe interval and read by the node lists (GET /nodes, /nodes/platform/{platform}), so a
-- list never probes a node inside the request. Readings every few seconds per node would bloat
-- the hash-chained event log, so they are not events: this table is overwritten in place, is not
-- a projection (a projections rebuild leaves it alone, the events cannot rebuild it), and may be
-- lost at any time; the next probe of each running node writes it again. UNLOGGED for that
-- reason: no WAL for a cache, and PostgreSQL empties it after a crash.
CREATE UNLOGGED TABLE node_observations (
  node_id      bigint PRIMARY KEY,
  -- healthy: answered the probe; unreachable: running but its JSON-RPC (or P2P port) did not
  -- answer in time; not_running: the engine saw its process or container gone
  status       text NOT NULL CHECK (status IN ('healthy', 'unreachable', 'not_running')),
  -- as of healthy_at, the last probe that answered (kept through later failed probes)
  block_height bigint,
  peer_count   integer,
  healthy_at   timestamptz,
  error        text,
  observed_at  timestamptz NOT NULL
);
