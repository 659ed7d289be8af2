// Where the service's gauges are read at scrape time: the event store head, the projection and
// saga checkpoint tables, and the nodes read model (one small query each).
import type pg from 'pg';
import type { EventStore } from '../../domain/shared/eventStore.ts';
import type { ServiceGaugeSources } from './serviceMetrics.ts';

export function serviceGaugeSources(pool: pg.Pool, store: EventStore, names: { projections: string[]; sagas: string[] }): ServiceGaugeSources {
  const byName = (rows: Array<{ name: string; position: string }>, wanted: string[]) =>
    Object.fromEntries(wanted.map((n) => [n, Number(rows.find((r) => r.name === n)?.position ?? 0)]));
  return {
    headPosition: () => store.headPosition(),
    async checkpoints() {
      const [p, s] = await Promise.all([
        pool.query('SELECT name, position FROM projection_checkpoints WHERE name = ANY($1)', [names.projections]),
        pool.query('SELECT name, position FROM saga_checkpoints WHERE name = ANY($1)', [names.sagas]),
      ]);
      return { projections: byName(p.rows, names.projections), sagas: byName(s.rows, names.sagas) };
    },
    async nodeCounts() {
      const r = await pool.query('SELECT platform, status, count(*)::int AS count FROM nodes GROUP BY platform, status');
      return r.rows.map((row) => ({ platform: String(row.platform), status: String(row.status), count: Number(row.count) }));
    },
    async webhookDeliveries() {
      const r = await pool.query('SELECT status, count(*)::int AS count FROM webhook_deliveries GROUP BY status');
      return r.rows.map((row) => ({ status: String(row.status), count: Number(row.count) }));
    },
  };
}
