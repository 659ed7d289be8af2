// Read models of backup targets, schedules and backups.
import type pg from 'pg';
import type { Projection } from './projection.ts';

export const backupsProjection: Projection = {
  name: 'backups',
  handles: [
    'BackupTargetCreated', 'BackupTargetUpdated', 'BackupTargetDeleted', 'BackupTargetConnectionFailed', 'BackupTargetConnectionRestored',
    'BackupScheduleCreated', 'BackupScheduleEnabled', 'BackupScheduleDisabled', 'BackupScheduleDeleted',
    'BackupRequested', 'BackupRunStarted', 'BackupCompleted', 'BackupFailed', 'BackupDeleted',
  ],
  tables: ['backup_targets', 'backup_schedules', 'backups'],
  apply(e) {
    const d = e.data as Record<string, any>;
    switch (e.type) {
      case 'BackupTargetCreated':
        return [{ text: 'INSERT INTO backup_targets (id, name, public_config, sealed_secrets, created_at, updated_at) VALUES ($1,$2,$3,$4,$5,$5) ON CONFLICT (id) DO NOTHING', values: [d.targetId, d.name, JSON.stringify(d.publicConfig), d.sealedSecrets, d.at] }];
      case 'BackupTargetUpdated':
        return [{ text: 'UPDATE backup_targets SET name = $2, public_config = $3, sealed_secrets = $4, updated_at = $5, reachable = true, last_error = null WHERE id = $1', values: [d.targetId, d.name, JSON.stringify(d.publicConfig), d.sealedSecrets, d.at] }];
      case 'BackupTargetDeleted':
        return [{ text: 'DELETE FROM backup_targets WHERE id = $1', values: [d.targetId] }];
      case 'BackupTargetConnectionFailed':
        return [{ text: 'UPDATE backup_targets SET reachable = false, last_error = $2 WHERE id = $1', values: [d.targetId, d.reason] }];
      case 'BackupTargetConnectionRestored':
        return [{ text: 'UPDATE backup_targets SET reachable = true, last_error = null WHERE id = $1', values: [d.targetId] }];
      case 'BackupScheduleCreated':
        return [{ text: `INSERT INTO backup_schedules (id, name, description, cron_expression, target_id, node_ids, retention, enabled, created_at, updated_at)
                 VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$9) ON CONFLICT (id) DO NOTHING`, values: [d.scheduleId, d.name, d.description, d.cronExpression, d.targetId, d.nodeIds === null ? null : JSON.stringify(d.nodeIds), JSON.stringify(d.retention), d.enabled, d.at] }];
      case 'BackupScheduleEnabled':
      case 'BackupScheduleDisabled':
        return [{ text: 'UPDATE backup_schedules SET enabled = $2, updated_at = $3 WHERE id = $1', values: [d.scheduleId, e.type === 'BackupScheduleEnabled', d.at] }];
      case 'BackupScheduleDeleted':
        return [{ text: 'DELETE FROM backup_schedules WHERE id = $1', values: [d.scheduleId] }];
      case 'BackupRequested': {
        const insert = { text: `INSERT INTO backups (id, target_id, node_id, schedule_id, status, created_at) VALUES ($1,$2,$3,$4,'IN_PROGRESS',$5) ON CONFLICT (id) DO NOTHING`, values: [d.backupId, d.targetId, d.nodeId, d.scheduleId, d.at] };
        return d.scheduleId === null ? [insert] : [insert, { text: 'UPDATE backup_schedules SET last_backup_id = $2, last_run_at = $3 WHERE id = $1', values: [d.scheduleId, d.backupId, d.at] }];
      }
      case 'BackupRunStarted':
        return [{ text: 'UPDATE backups SET started_at = $2 WHERE id = $1', values: [d.backupId, d.at] }];
      case 'BackupCompleted':
        return [{ text: `UPDATE backups SET status = 'COMPLETED', snapshot_id = $2, event_position = $3, size_added = $4, total_size = $5, files = $6, duration_ms = $7, completed_at = $8 WHERE id = $1`, values: [d.backupId, d.snapshotId, d.eventPosition, d.dataAdded, d.totalSize, d.files, d.durationMs, d.at] }];
      case 'BackupFailed':
        return [{ text: `UPDATE backups SET status = 'FAILED', error = $2, completed_at = $3 WHERE id = $1`, values: [d.backupId, d.error, d.at] }];
      case 'BackupDeleted':
        return [{ text: 'DELETE FROM backups WHERE id = $1', values: [d.backupId] }];
      default:
        return [];
    }
  },
};

const iso = (v: unknown) => (v ? new Date(v as string).toISOString() : null);
const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));

export interface BackupTargetRow {
  id: number;
  name: string;
  publicConfig: Record<string, any>;
  sealedSecrets: string;
  reachable: boolean;
  lastError: string | null;
  createdAt: string;
  updatedAt: string;
}

const targetRow = (r: Record<string, any>): BackupTargetRow => ({ id: r.id, name: r.name, publicConfig: r.public_config, sealedSecrets: r.sealed_secrets, reachable: r.reachable, lastError: r.last_error, createdAt: iso(r.created_at)!, updatedAt: iso(r.updated_at)! });

export async function listBackupTargets(pool: pg.Pool, page?: { limit: number; offset: number }): Promise<BackupTargetRow[]> {
  const r = await pool.query('SELECT * FROM backup_targets ORDER BY id LIMIT $1 OFFSET $2', [page?.limit ?? null, page?.offset ?? 0]);
  return r.rows.map(targetRow);
}

export async function getBackupTarget(pool: pg.Pool, id: number): Promise<BackupTargetRow | null> {
  const r = await pool.query('SELECT * FROM backup_targets WHERE id = $1', [id]);
  return r.rowCount ? targetRow(r.rows[0]) : null;
}

export async function backupTargetNamed(pool: pg.Pool, name: string): Promise<number | null> {
  const r = await pool.query('SELECT id FROM backup_targets WHERE lower(name) = lower($1)', [name]);
  return r.rowCount ? r.rows[0].id : null;
}

export function toBackup(r: Record<string, any>) {
  return {
    id: r.id, status: r.status, provider: 'S3', target_id: r.target_id, node_id: r.node_id, schedule_id: r.schedule_id, error: r.error,
    snapshot_id: r.snapshot_id, event_position: num(r.event_position), size_added: num(r.size_added), total_size: num(r.total_size), files: num(r.files),
    duration_ms: num(r.duration_ms), created_at: iso(r.created_at), started_at: iso(r.started_at), completed_at: iso(r.completed_at),
  };
}

export async function listBackups(pool: pg.Pool, page: { limit: number; offset: number }, filter: { scheduleId?: number } = {}) {
  const r = await pool.query('SELECT * FROM backups WHERE ($3::int IS NULL OR schedule_id = $3) ORDER BY id DESC LIMIT $1 OFFSET $2', [page.limit, page.offset, filter.scheduleId ?? null]);
  const total = await pool.query('SELECT count(*)::int AS n FROM backups WHERE ($1::int IS NULL OR schedule_id = $1)', [filter.scheduleId ?? null]);
  return { items: r.rows.map(toBackup), total: total.rows[0].n as number };
}

export async function getBackup(pool: pg.Pool, id: number) {
  const r = await pool.query('SELECT * FROM backups WHERE id = $1', [id]);
  return r.rowCount ? toBackup(r.rows[0]) : null;
}

export function toSchedule(r: Record<string, any>) {
  return {
    id: r.id, name: r.name, description: r.description, cron_expression: r.cron_expression, target_id: r.target_id, node_ids: r.node_ids,
    retention: r.retention, enabled: r.enabled, last_backup_id: r.last_backup_id, last_run_at: iso(r.last_run_at), created_at: iso(r.created_at), updated_at: iso(r.updated_at),
  };
}

export async function listBackupSchedules(pool: pg.Pool, page?: { limit: number; offset: number }) {
  const r = await pool.query('SELECT * FROM backup_schedules ORDER BY id LIMIT $1 OFFSET $2', [page?.limit ?? null, page?.offset ?? 0]);
  return r.rows.map(toSchedule);
}

export async function getBackupSchedule(pool: pg.Pool, id: number) {
  const r = await pool.query('SELECT * FROM backup_schedules WHERE id = $1', [id]);
  return r.rowCount ? toSchedule(r.rows[0]) : null;
}

export async function schedulesUsingTarget(pool: pg.Pool, targetId: number): Promise<number> {
  return (await pool.query('SELECT count(*)::int AS n FROM backup_schedules WHERE target_id = $1', [targetId])).rows[0].n;
}

/** The read-model side of the backup sagas (domain/backups/backupPorts.ts BackupCatalog). */
export function backupCatalog(pool: pg.Pool, nextId: (kind: string) => Promise<number>): import('../domain/backups/backupPorts.ts').BackupCatalog {
  return {
    async target(id) {
      const t = await getBackupTarget(pool, id);
      return t ? { targetId: t.id, name: t.name, publicConfig: t.publicConfig, sealedSecrets: t.sealedSecrets } : null;
    },
    async schedule(id) {
      const s = await getBackupSchedule(pool, id);
      return s ? { scheduleId: s.id, name: s.name, targetId: s.target_id, nodeIds: s.node_ids, retention: s.retention, enabled: s.enabled, lastBackupId: s.last_backup_id } : null;
    },
    async backupStatus(id) {
      return (await getBackup(pool, id))?.status ?? null;
    },
    async backupsWithSnapshots(snapshotIds) {
      if (snapshotIds.length === 0) return [];
      // restic names snapshots by full id in `forget --json`; backups keep the full id too.
      const r = await pool.query('SELECT id FROM backups WHERE snapshot_id = ANY($1::text[]) ORDER BY id', [snapshotIds]);
      return r.rows.map((x) => x.id as number);
    },
    async targetIds() {
      return (await pool.query('SELECT id FROM backup_targets ORDER BY id')).rows.map((x) => x.id as number);
    },
    nextBackupId: () => nextId('backup'),
  };
}
