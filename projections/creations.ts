// Read model of creates that make several things (domain/creations/creation.ts).
import type pg from 'pg';
import type { Projection } from './projection.ts';
import { registerCreationAuditDescribers } from '../domain/creations/creationAuditDescribers.ts';
import type { CreationKind, MadeResource } from '../domain/creations/creation.ts';

registerCreationAuditDescribers();

export const creationsProjection: Projection = {
  name: 'creations',
  handles: ['CreationStarted', 'CreationResourceMade', 'CreationCompleted', 'CreationFailed', 'CreationUndone'],
  tables: ['creations'],
  apply(e) {
    const d = e.data as Record<string, any>;
    switch (e.type) {
      case 'CreationStarted':
        return [{ text: `INSERT INTO creations (id, kind, name, instance, status, started_at) VALUES ($1,$2,$3,$4,'IN_PROGRESS',$5) ON CONFLICT (id) DO NOTHING`, values: [d.creationId, d.kind, d.name, d.instance, d.at] }];
      case 'CreationResourceMade':
        return [{ text: `UPDATE creations SET step = $2, made = made || $3::jsonb WHERE id = $1`, values: [d.creationId, d.step, JSON.stringify([{ resource: d.resource, id: d.id }])] }];
      case 'CreationCompleted':
        return [{ text: `UPDATE creations SET status = 'COMPLETED', step = NULL, resource_id = $2, finished_at = $3 WHERE id = $1`, values: [d.creationId, d.resourceId, d.at] }];
      case 'CreationFailed':
        return [{
          text: `UPDATE creations SET status = 'FAILED', step = $2, message = $3, interrupted = $4, made = $5, removed = $6, left_over = $7, finished_at = $8 WHERE id = $1`,
          values: [d.creationId, d.step, d.message, d.interrupted, JSON.stringify(d.made), JSON.stringify(d.removed), JSON.stringify(d.left), d.at],
        }];
      case 'CreationUndone':
        // UNDONE: what it made is removed (removed grows by what the undo removed; left_over is what it could not).
        return [{ text: `UPDATE creations SET status = CASE WHEN jsonb_array_length($3::jsonb) = 0 THEN 'UNDONE' ELSE status END, removed = removed || $2::jsonb, left_over = $3 WHERE id = $1`, values: [d.creationId, JSON.stringify(d.removed), JSON.stringify(d.left)] }];
      default:
        return [];
    }
  },
};

export interface OpenCreationRow {
  id: number;
  kind: CreationKind;
  name: string;
  made: MadeResource[];
}

/** Creates this instance started that have not ended. */
export async function openCreationsOf(pool: pg.Pool, instance: string): Promise<OpenCreationRow[]> {
  const r = await pool.query(`SELECT id, kind, name, made FROM creations WHERE status = 'IN_PROGRESS' AND instance = $1 ORDER BY id`, [instance]);
  return r.rows.map((x) => ({ id: Number(x.id), kind: x.kind, name: x.name, made: x.made }));
}

export interface CreationRow {
  id: number;
  kind: CreationKind;
  name: string;
  status: 'IN_PROGRESS' | 'COMPLETED' | 'FAILED' | 'UNDONE';
  step: string | null;
  message: string | null;
  interrupted: boolean;
  made: MadeResource[];
  removed: MadeResource[];
  left: Array<MadeResource & { reason?: string }>;
  resourceId: number | null;
  startedAt: string;
  finishedAt: string | null;
}

export async function getCreation(pool: pg.Pool, id: number): Promise<CreationRow | null> {
  const r = await pool.query('SELECT * FROM creations WHERE id = $1', [id]);
  const x = r.rows[0];
  if (!x) return null;
  return {
    id: Number(x.id), kind: x.kind, name: x.name, status: x.status, step: x.step, message: x.message, interrupted: x.interrupted,
    made: x.made, removed: x.removed, left: x.left_over, resourceId: x.resource_id === null ? null : Number(x.resource_id),
    startedAt: new Date(x.started_at).toISOString(), finishedAt: x.finished_at ? new Date(x.finished_at).toISOString() : null,
  };
}
