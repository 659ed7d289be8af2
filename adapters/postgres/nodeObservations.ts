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
const UPSERT = `
INSERT INTO node_observations (node_id, status, block_height, peer_count, healthy_at, error, observed_at)
VALUES ($1, $2, $3, $4, $5, $6, $7)
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

export function postgresNodeObservations(pool: SqlQueryable): NodeObservations {
  return {
    async record(r) {
      const healthy = r.status === 'healthy';
      await pool.query(UPSERT, [r.nodeId, r.status, healthy ? r.blockHeight : null, healthy ? r.peerCount : null, healthy ? r.at : null, r.error, r.at]);
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
