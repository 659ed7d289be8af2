// Read model of notification providers: configuration without secrets, the notify* switches,
// the default flag (one at a time) and the outcome of the last test.
import type pg from 'pg';
import type { Projection, SqlStatement } from './projection.ts';

const switchColumns = { notifyNodeDowntime: 'notify_node_downtime', notifyBackupSuccess: 'notify_backup_success', notifyBackupFailure: 'notify_backup_failure', notifyS3ConnIssue: 'notify_s3_conn_issue', notifyDiskSpaceWarning: 'notify_disk_space_warning' } as const;
export const switchColumn = (s: keyof typeof switchColumns) => switchColumns[s];
const switchKeys = Object.keys(switchColumns) as Array<keyof typeof switchColumns>;

export const notificationProvidersProjection: Projection = {
  name: 'notification_providers',
  handles: ['NotificationProviderCreated', 'NotificationProviderUpdated', 'NotificationProviderDeleted', 'NotificationProviderTested'],
  tables: ['notification_providers'],
  apply(e) {
    const d = e.data as Record<string, any>;
    const onlyDefault = (id: number): SqlStatement => ({ text: 'UPDATE notification_providers SET is_default = false WHERE is_default AND id <> $1', values: [id] });
    switch (e.type) {
      case 'NotificationProviderCreated': {
        const insert = {
          text: `INSERT INTO notification_providers (id, name, type, is_default, public_config, sealed_secrets, ${switchKeys.map(switchColumn).join(', ')}, created_at, updated_at)
                 VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$12) ON CONFLICT (id) DO NOTHING`,
          values: [d.providerId, d.name, d.providerType, d.isDefault, JSON.stringify(d.publicConfig), d.sealedSecrets, ...switchKeys.map((k) => d[k]), d.at],
        };
        return d.isDefault ? [onlyDefault(d.providerId), insert] : [insert];
      }
      case 'NotificationProviderUpdated': {
        const a = d.after;
        const update = {
          text: `UPDATE notification_providers SET name = $2, is_default = $3, public_config = $4, ${switchKeys.map((k, i) => `${switchColumn(k)} = $${5 + i}`).join(', ')}, updated_at = $10
                 ${d.sealedSecrets === undefined ? '' : ', sealed_secrets = $11'} WHERE id = $1`,
          values: [d.providerId, a.name, a.isDefault, JSON.stringify(a.publicConfig), ...switchKeys.map((k) => a[k]), d.at, ...(d.sealedSecrets === undefined ? [] : [d.sealedSecrets])],
        };
        return a.isDefault ? [onlyDefault(d.providerId), update] : [update];
      }
      case 'NotificationProviderDeleted':
        return [{ text: 'DELETE FROM notification_providers WHERE id = $1', values: [d.providerId] }];
      case 'NotificationProviderTested':
        return [{ text: 'UPDATE notification_providers SET last_test_status = $2, last_test_message = $3, last_tested_at = $4 WHERE id = $1', values: [d.providerId, d.status, d.message, d.testedAt] }];
      default:
        return [];
    }
  },
};

export interface NotificationProviderRow {
  id: number;
  name: string;
  type: 'SMTP' | 'WEBHOOK';
  isDefault: boolean;
  config: Record<string, any>;
  notifyNodeDowntime: boolean;
  notifyBackupSuccess: boolean;
  notifyBackupFailure: boolean;
  notifyS3ConnIssue: boolean;
  notifyDiskSpaceWarning: boolean;
  lastTestStatus: string | null;
  lastTestMessage: string | null;
  lastTestedAt: string | null;
  createdAt: string;
  updatedAt: string;
  sealedSecrets: string | null;
}

const iso = (v: unknown) => (v ? new Date(v as string).toISOString() : null);
const toRow = (r: Record<string, any>): NotificationProviderRow => ({
  id: r.id, name: r.name, type: r.type, isDefault: r.is_default, config: r.public_config,
  ...(Object.fromEntries(switchKeys.map((k) => [k, r[switchColumn(k)]])) as Record<keyof typeof switchColumns, boolean>),
  lastTestStatus: r.last_test_status, lastTestMessage: r.last_test_message, lastTestedAt: iso(r.last_tested_at), createdAt: iso(r.created_at)!, updatedAt: iso(r.updated_at)!, sealedSecrets: r.sealed_secrets,
});

export async function listNotificationProviders(pool: pg.Pool, limit: number, offset: number): Promise<{ items: NotificationProviderRow[]; total: number }> {
  const r = await pool.query('SELECT * FROM notification_providers ORDER BY is_default DESC, id LIMIT $1 OFFSET $2', [limit, offset]);
  const total = Number((await pool.query('SELECT count(*)::int AS n FROM notification_providers')).rows[0].n);
  return { items: r.rows.map(toRow), total };
}

export async function getNotificationProvider(pool: pg.Pool, id: number): Promise<NotificationProviderRow | null> {
  const r = await pool.query('SELECT * FROM notification_providers WHERE id = $1', [id]);
  return r.rows[0] ? toRow(r.rows[0]) : null;
}

export async function notificationProviderNameTaken(pool: pg.Pool, name: string, exceptId = 0): Promise<boolean> {
  return ((await pool.query('SELECT 1 FROM notification_providers WHERE lower(name) = lower($1) AND id <> $2', [name, exceptId])).rowCount ?? 0) > 0;
}

/** Providers that receive a kind: those with its switch on, or the default one ('default'). */
export async function providersFor(pool: pg.Pool, gate: keyof typeof switchColumns | 'default'): Promise<NotificationProviderRow[]> {
  const r = await pool.query(`SELECT * FROM notification_providers WHERE ${gate === 'default' ? 'is_default' : switchColumn(gate)} ORDER BY id`);
  return r.rows.map(toRow);
}
