-- Node work is spread over 16 shards by node id (sagas/nodeShards.ts): the node lifecycle and
-- health sagas run once per shard under their own names. The unsharded sagas' timers and
-- checkpoints move to the shard copies, so a running node keeps being probed after the upgrade
-- and no shard replays the log from its beginning.
INSERT INTO saga_checkpoints (name, position)
  SELECT c.name || '#' || k, c.position FROM saga_checkpoints c, generate_series(0, 15) AS k
   WHERE c.name IN ('node-lifecycle', 'node-health')
ON CONFLICT (name) DO NOTHING;
DELETE FROM saga_checkpoints WHERE name IN ('node-lifecycle', 'node-health');
UPDATE saga_timers SET saga = 'node-health#' || (((payload->>'nodeId')::bigint % 16 + 16) % 16)
 WHERE saga = 'node-health';
