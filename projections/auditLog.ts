// The audit log read model: every event of the store, as describeForAudit reads it, with the
// request facts from the event's metadata. The id of an entry is the event's position, so
// /audit-logs/verify can recompute the hash chain over a range of entry ids.
import type pg from 'pg';
import type { Projection } from './projection.ts';
import { describeForAudit } from '../domain/audit/auditEntry.ts';
import { publicEventOf } from '../domain/shared/publicEvents.ts';

export const auditLogProjection: Projection = {
  name: 'audit_log',
  handles: '*',
  tables: ['audit_log'],
  apply(e) {
    const a = describeForAudit(e);
    if (!a) return [];
    const m = e.metadata as Record<string, any>;
    const started = m.requestStartedAt ? Date.parse(m.requestStartedAt) : NaN;
    const duration = Number.isFinite(started) ? Math.max(0, Date.parse(m.timestamp) - started) : (typeof m.durationMs === 'number' ? m.durationMs : null);
    return [
      {
        text: `INSERT INTO audit_log (id, event_id, event_type, ts, user_id, username, auth_method, ip_address, user_agent, session_id, action, resource_type,
                 resource_id, resource_name, status, error_message, reason, before, after, details, duration_ms, method, endpoint, request_id, response_code, event_name)
               VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20,$21,$22,$23,$24,$25,$26) ON CONFLICT (id) DO NOTHING`,
        values: [
          e.position, e.id, e.type, m.timestamp, m.actor?.userId ?? null, m.actor?.username ?? null, m.actor?.kind ?? null, m.ip ?? null, m.userAgent ?? null,
          m.sessionId ?? null, a.action, a.resourceType, a.resourceId, a.resourceName, a.status, a.errorMessage, a.reason,
          a.before === null ? null : JSON.stringify(a.before), a.after === null ? null : JSON.stringify(a.after), a.details === null ? null : JSON.stringify(a.details),
          duration, m.method ?? null, m.endpoint ?? null, m.requestId ?? null, (e.data as Record<string, any>).responseCode ?? m.responseCode ?? null, publicEventOf(e.type)?.name ?? null,
        ],
      },
    ];
  },
};

export interface AuditQuery {
  limit: number;
  offset: number;
  userId?: number;
  startDate?: string;
  endDate?: string;
  action?: string;
  resourceType?: string;
  status?: string;
  days?: number;
  /** Entries older than this are archived: left out unless includeArchived. */
  archiveAfterDays: number;
  retentionDays: number;
  includeArchived?: boolean;
  now: Date;
}

const iso = (v: unknown) => (v ? new Date(v as string).toISOString() : null);

export function toAuditEntry(r: Record<string, any>) {
  return {
    id: Number(r.id),
    timestamp: iso(r.ts),
    user_id: r.user_id,
    username: r.username,
    user: r.username ?? (r.user_id === null ? 'system' : String(r.user_id)),
    auth_method: r.auth_method,
    ip_address: r.ip_address,
    user_agent: r.user_agent,
    session_id: r.session_id,
    action: r.action,
    resource_type: r.resource_type,
    resource_id: r.resource_id,
    resource_name: r.resource_name,
    status: r.status,
    error_message: r.error_message,
    reason: r.reason,
    details: r.details,
    before: r.before,
    after: r.after,
    duration_ms: r.duration_ms,
    method: r.method,
    endpoint: r.endpoint,
    request_id: r.request_id,
    response_code: r.response_code,
    event_type: r.event_type,
    event: r.event_name ?? null,
    event_id: r.event_id,
  };
}
export type AuditEntry = ReturnType<typeof toAuditEntry>;

export async function listAuditLog(pool: pg.Pool, q: AuditQuery): Promise<{ items: AuditEntry[]; total: number }> {
  const cond: string[] = [];
  const args: unknown[] = [];
  const add = (sql: string, v: unknown) => {
    args.push(v);
    cond.push(sql.replace('?', `$${args.length}`));
  };
  const day = 86_400_000;
  const floors = [new Date(q.now.getTime() - q.retentionDays * day)];
  if (!q.includeArchived) floors.push(new Date(q.now.getTime() - q.archiveAfterDays * day));
  if (q.days !== undefined) floors.push(new Date(q.now.getTime() - q.days * day));
  if (q.startDate) floors.push(new Date(q.startDate));
  add('ts >= ?', new Date(Math.max(...floors.map((d) => d.getTime()))).toISOString());
  if (q.endDate) add('ts <= ?', q.endDate);
  if (q.userId !== undefined) add('user_id = ?', q.userId);
  if (q.action) add('action = ?', q.action);
  if (q.resourceType) add('resource_type = ?', q.resourceType);
  if (q.status) add('status = ?', q.status);
  const where = cond.length ? 'WHERE ' + cond.join(' AND ') : '';
  const rows = await pool.query(`SELECT * FROM audit_log ${where} ORDER BY ts DESC, id DESC LIMIT ${q.limit} OFFSET ${q.offset}`, args);
  const total = await pool.query(`SELECT count(*) FROM audit_log ${where}`, args);
  return { items: rows.rows.map(toAuditEntry), total: Number(total.rows[0].count) };
}

export async function getAuditEntry(pool: pg.Pool, id: number): Promise<AuditEntry | null> {
  const r = await pool.query('SELECT * FROM audit_log WHERE id = $1', [id]);
  return r.rows[0] ? toAuditEntry(r.rows[0]) : null;
}
