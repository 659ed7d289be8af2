// Read model of outbound webhooks. The sealed secret and sealed header values are kept for the
// delivery worker and never shown: views say only whether a secret is set, and header names
// with masked values.
import type pg from 'pg';
import type { Projection } from './projection.ts';
import { maskHeaders } from '../domain/shared/secretHeaders.ts';

export const webhooksProjection: Projection = {
  name: 'webhooks',
  handles: ['WebhookCreated', 'WebhookUpdated', 'WebhookDisabled', 'WebhookDeleted'],
  tables: ['webhooks'],
  apply(e) {
    const d = e.data as Record<string, any>;
    switch (e.type) {
      case 'WebhookCreated':
        return [{
          text: `INSERT INTO webhooks (id, name, url, events, custom_headers, timeout_seconds, max_retries, sealed_secret, sealed_headers, enabled, created_at, updated_at)
                 VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$10,true,$9,$9) ON CONFLICT (id) DO NOTHING`,
          values: [d.webhookId, d.name, d.url, d.events, JSON.stringify(d.customHeaders), d.timeoutSeconds, d.maxRetries, d.sealedSecret, d.at, d.sealedHeaders ?? null],
        }];
      case 'WebhookUpdated': {
        const a = d.after;
        const extra: unknown[] = [];
        const set = (column: string, value: unknown) => `, ${column} = $${9 + extra.push(value)}`;
        const secret = d.sealedSecret === undefined ? '' : set('sealed_secret', d.sealedSecret);
        const headers = d.sealedHeaders === undefined ? '' : set('sealed_headers', d.sealedHeaders);
        return [{
          text: `UPDATE webhooks SET name = $2, url = $3, events = $4, custom_headers = $5, timeout_seconds = $6, max_retries = $7, enabled = $8,
                 disabled_at = CASE WHEN $8 THEN NULL ELSE disabled_at END, disabled_reason = CASE WHEN $8 THEN NULL ELSE disabled_reason END, updated_at = $9${secret}${headers} WHERE id = $1`,
          values: [d.webhookId, a.name, a.url, a.events, JSON.stringify(a.customHeaders), a.timeoutSeconds, a.maxRetries, d.enabled, d.at, ...extra],
        }];
      }
      case 'WebhookDisabled':
        return [{ text: 'UPDATE webhooks SET enabled = false, disabled_at = $2, disabled_reason = $3, updated_at = $2 WHERE id = $1', values: [d.webhookId, d.at, `${d.consecutiveFailures} consecutive failed deliveries; last: ${d.lastError}`] }];
      case 'WebhookDeleted':
        return [{ text: 'DELETE FROM webhooks WHERE id = $1', values: [d.webhookId] }];
      default:
        return [];
    }
  },
};

export interface WebhookRow {
  id: number;
  name: string;
  url: string;
  events: string[];
  customHeaders: Record<string, string>;
  timeoutSeconds: number;
  maxRetries: number;
  hasSecret: boolean;
  enabled: boolean;
  disabledAt: string | null;
  disabledReason: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface WebhookForDelivery extends WebhookRow {
  sealedSecret: string | null;
  /** Sealed real header values; null with headers set only for a webhook saved before sealing (customHeaders then in clear). */
  sealedHeaders: string | null;
}

const iso = (v: unknown) => (v ? new Date(v as string).toISOString() : null);
const toRow = (r: Record<string, any>): WebhookForDelivery => ({
  id: r.id, name: r.name, url: r.url, events: r.events, customHeaders: r.custom_headers, timeoutSeconds: r.timeout_seconds, maxRetries: r.max_retries,
  hasSecret: r.sealed_secret !== null, sealedSecret: r.sealed_secret, sealedHeaders: r.sealed_headers ?? null, enabled: r.enabled, disabledAt: iso(r.disabled_at), disabledReason: r.disabled_reason, createdAt: iso(r.created_at)!, updatedAt: iso(r.updated_at)!,
});
const view = ({ sealedSecret: _s, sealedHeaders: _h, ...rest }: WebhookForDelivery): WebhookRow => ({ ...rest, customHeaders: maskHeaders(rest.customHeaders ?? {}) });

export async function listWebhooks(pool: pg.Pool, limit: number, offset: number): Promise<{ items: WebhookRow[]; total: number }> {
  const r = await pool.query('SELECT *, count(*) OVER () AS total FROM webhooks ORDER BY id LIMIT $1 OFFSET $2', [limit, offset]);
  const total = r.rows[0] ? Number(r.rows[0].total) : Number((await pool.query('SELECT count(*)::int AS n FROM webhooks')).rows[0].n);
  return { items: r.rows.map((x) => view(toRow(x))), total };
}

export async function getWebhook(pool: pg.Pool, id: number): Promise<WebhookRow | null> {
  const r = await pool.query('SELECT * FROM webhooks WHERE id = $1', [id]);
  return r.rows[0] ? view(toRow(r.rows[0])) : null;
}

export async function webhookForDelivery(pool: pg.Pool, id: number): Promise<WebhookForDelivery | null> {
  const r = await pool.query('SELECT * FROM webhooks WHERE id = $1', [id]);
  return r.rows[0] ? toRow(r.rows[0]) : null;
}

export async function webhookNameTaken(pool: pg.Pool, name: string, exceptId?: number): Promise<boolean> {
  const r = await pool.query('SELECT 1 FROM webhooks WHERE lower(name) = lower($1) AND id <> $2', [name, exceptId ?? 0]);
  return (r.rowCount ?? 0) > 0;
}

export interface DeliveryRecord {
  id: string;
  webhookId: number;
  eventId: string;
  eventType: string;
  status: string;
  attempt: number;
  maxAttempts: number;
  responseCode: number | null;
  responseTimeMs: number | null;
  error: string | null;
  responseExcerpt: string | null;
  nextRetryAt: string | null;
  createdAt: string;
  completedAt: string | null;
  attempts: Array<{ attempt: number; at: string; responseCode: number | null; responseTimeMs: number; error: string | null }>;
}

export async function listDeliveries(pool: pg.Pool, webhookId: number, opts: { limit: number; offset: number; status?: string; id?: string }): Promise<{ items: DeliveryRecord[]; total: number }> {
  const filters: unknown[] = [webhookId];
  let where = 'webhook_id = $1';
  if (opts.status) where += ` AND status = $${filters.push(opts.status)}`;
  if (opts.id) where += ` AND id = $${filters.push(opts.id)}`;
  const n = filters.length;
  const r = await pool.query(
    `SELECT d.*, count(*) OVER () AS total,
            COALESCE((SELECT json_agg(json_build_object('attempt', a.attempt, 'at', a.at, 'responseCode', a.response_code, 'responseTimeMs', a.response_time_ms, 'error', a.error) ORDER BY a.attempt)
                      FROM webhook_delivery_attempts a WHERE a.delivery_id = d.id), '[]') AS attempt_list
       FROM webhook_deliveries d WHERE ${where} ORDER BY created_at DESC, id LIMIT $${n + 1} OFFSET $${n + 2}`,
    [...filters, opts.limit, opts.offset],
  );
  const items = r.rows.map((x): DeliveryRecord => ({
    id: x.id, webhookId: x.webhook_id, eventId: x.event_id, eventType: x.event_type, status: x.status, attempt: x.attempts, maxAttempts: x.max_attempts,
    responseCode: x.response_code, responseTimeMs: x.response_time_ms, error: x.error, responseExcerpt: x.response_excerpt,
    nextRetryAt: iso(x.next_attempt_at), createdAt: iso(x.created_at)!, completedAt: iso(x.completed_at),
    attempts: (x.attempt_list as Array<Record<string, any>>).map((a) => ({ ...a, at: new Date(a.at).toISOString() })) as DeliveryRecord['attempts'],
  }));
  const total = items.length ? Number(r.rows[0].total) : Number((await pool.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE ${where}`, filters)).rows[0].n);
  return { items, total };
}
