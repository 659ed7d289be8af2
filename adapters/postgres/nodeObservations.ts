// NodeObservations over the node_observations table (an UNLOGGED observation cache, overwritten
// in place; see migrations/0650_node_observations.sql).
import type { NodeObservation, NodeObservations } from '../../domain/nodes/nodeObservations.ts';

const iso = (v: Date | string | null): string | null => (v === null ? null : new Date(v).toISOString());

const toObservation = (r: Record<string, any>): NodeObservation => ({
  nodeId: Number(r.node_id),
  status: r.status,
  blockHeight: r.block_height === null ? null : Number(r.block_height),
  peerCount: r.peer_count,
  healthyAt: iso(r.healthy_at),
  error: r.error,
  observedAt: iso(r.observed_at)!,
});

// A failed probe keeps the figures (and their time) of the last probe that answered.
const COLUMNS = 7;
const upsert = (rows: number) => `
INSERT INTO node_observations (node_id, status, block_height, peer_count, healthy_at, error, observed_at)
VALUES ${Array.from({ length: rows }, (_, r) => `(${Array.from({ length: COLUMNS }, (_, c) => `$${r * COLUMNS + c + 1}`).join(', ')})`).join(', ')}
ON CONFLICT (node_id) DO UPDATE SET
  status = EXCLUDED.status,
  block_height = CASE WHEN EXCLUDED.healthy_at IS NULL THEN node_observations.block_height ELSE EXCLUDED.block_height END,
  peer_count = CASE WHEN EXCLUDED.healthy_at IS NULL THEN node_observations.peer_count ELSE EXCLUDED.peer_count END,
  healthy_at = COALESCE(EXCLUDED.healthy_at, node_observations.healthy_at),
  error = EXCLUDED.error,
  observed_at = EXCLUDED.observed_at
WHERE node_observations.observed_at <= EXCLUDED.observed_at`;

/** Anything with pg's query(text, values) (a pool or a client). */
export interface SqlQueryable {
  query(text: string, values?: unknown[]): Promise<{ rows: any[] }>;
}

type Outcome = Parameters<NodeObservations['record']>[0];

/**
 * Readings that arrive within gatherMs of the first (default 20 ms), or while a write is on its
 * way, go to PostgreSQL together: one statement for many probes instead of one round trip each.
 * The probes of a round fire together and end a few milliseconds apart (each waits for its
 * node's answer); written as each ended they went out one or two a statement. record() resolves
 * once its reading is written (or rejects with that write's error).
 */
export function postgresNodeObservations(pool: SqlQueryable, { gatherMs = 20 }: { gatherMs?: number } = {}): NodeObservations {
  let queue: Array<{ outcome: Outcome; done: (err?: unknown) => void }> = [];
  let writing = false;

  async function drain(): Promise<void> {
    writing = true;
    if (gatherMs > 0) await new Promise((r) => setTimeout(r, gatherMs));
    while (queue.length) {
      const batch = queue.slice(0, 200);
      queue = queue.slice(batch.length);
      // One row per node in a statement (ON CONFLICT cannot touch a row twice): the newest reading wins.
      const newest = new Map<number, Outcome>();
      for (const { outcome } of batch) {
        const had = newest.get(outcome.nodeId);
        if (!had || had.at <= outcome.at) newest.set(outcome.nodeId, outcome);
      }
      const values = [...newest.values()].flatMap((r) => {
        const healthy = r.status === 'healthy';
        return [r.nodeId, r.status, healthy ? r.blockHeight : null, healthy ? r.peerCount : null, healthy ? r.at : null, r.error, r.at];
      });
      let failure: unknown;
      try {
        await pool.query(upsert(newest.size), values);
      } catch (err) {
        failure = err ?? new Error('the observation write failed');
      }
      for (const b of batch) b.done(failure);
    }
    writing = false;
  }

  return {
    record(r) {
      return new Promise<void>((resolve, reject) => {
        queue.push({ outcome: r, done: (err) => (err === undefined ? resolve() : reject(err)) });
        if (!writing) void drain();
      });
    },
    async forget(nodeId) {
      await pool.query('DELETE FROM node_observations WHERE node_id = $1', [nodeId]);
    },
    async latest(nodeIds) {
      if (!nodeIds.length) return new Map();
      const r = await pool.query('SELECT * FROM node_observations WHERE node_id = ANY($1::bigint[])', [nodeIds]);
      return new Map(r.rows.map((row) => [Number(row.node_id), toObservation(row)]));
    },
  };
}
