// Node work spread over service instances: the nodes are partitioned over a fixed number of
// shards by id (node id mod NODE_SHARDS), and each shard is owned through its own lease
// (`node-shard-<k>`, adapters/postgres/leases.ts shardedWork). A shard's node lifecycle and health
// sagas run only on the instance holding its lease, under their own names (`node-health#3`) with
// their own checkpoints and timers, so the holder of shard 3 starts, stops and probes exactly the
// nodes of shard 3. The number is fixed (migrations/1210_node_shards.sql moved the timers of the
// unsharded sagas by it): changing it would move nodes between shards with their timers behind.
import type { RecordedEvent } from '../domain/shared/eventStore.ts';
import type { Saga } from './saga.ts';

export const NODE_SHARDS = 16;

export const nodeShard = (nodeId: number): number => ((nodeId % NODE_SHARDS) + NODE_SHARDS) % NODE_SHARDS;

export const nodeShardLease = (shard: number): string => `node-shard-${shard}`;

/** One copy of a node saga per shard, each taking only the events of its shard's nodes. */
export function shardedSagas(saga: Saga): Saga[] {
  return Array.from({ length: NODE_SHARDS }, (_, shard) => ({
    ...saga,
    name: `${saga.name}#${shard}`,
    shard,
    accepts: (e: RecordedEvent) => nodeShard(Number(e.data.nodeId)) === shard && (!saga.accepts || saga.accepts(e)),
  }));
}
