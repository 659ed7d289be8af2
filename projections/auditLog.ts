// The audit log read model: every event of the store, as describeForAudit reads it, with the
// request facts from the event's metadata. The id of an entry is the event's position, so
// /audit-logs/verify can recompute the hash chain over a range of entry ids. Every position has
// its row: an event that is bookkeeping rather than an action (a name claimed, a block observed)
// is listed as action BOOKKEEPING, and a stub whose content a backup withheld as action WITHHELD,
// each saying so in `reason`, so the listing never skips an id that verify counts.
import type pg from 'pg';
import type { Projection } from './projection.ts';
import type { RecordedEvent } from '../domain/shared/eventStore.ts';
import { describeForAudit, type AuditFields } from '../domain/audit/auditEntry.ts';
import { publicEventOf } from '../domain/shared/publicEvents.ts';

export const AUDIT_LOG_COLUMNS = ['id', 'event_id', 'event_type', 'ts', 'user_id', 'username', 'auth_method', 'ip_address', 'user_agent', 'session_id', 'action', 'resource_type',
  'resource_id', 'resource_name', 'status', 'error_message', 'reason', 'before', 'after', 'details', 'duration_ms', 'method', 'endpoint', 'request_id', 'response_code', 'event_name'] as const;
export type AuditLogRow = Record<(typeof AUDIT_LOG_COLUMNS)[number], unknown>;

/** How an event without an entry of its own is listed: bookkeeping, or a withheld stub. */
function placeholder(e: RecordedEvent): AuditFields {
  const prefix = e.streamId.replace(/-\d+$/, '').replace(/-[0-9a-f-]{36}$/, '');
  return {
    action: e.withheld ? 'WITHHELD' : 'BOOKKEEPING', resourceType: prefix.replace(/-/g, '_') || 'unknown', resourceId: /-(\d+)$/.exec(e.streamId)?.[1] ?? null, resourceName: null,
    status: 'success', errorMessage: null, before: null, after: null, details: null,
    reason: e.withheld
      ? 'withheld from the backup this server was restored from (audit include_in_backups false): linked in the hash chain, its content is not here'
      : `bookkeeping (${e.type}): recorded by the service, not an action anyone took`,
  };
}

/**
 * The row an event projects to (ts null for a withheld stub: it has no timestamp; the
 * projection gives it its predecessor's). Verify compares the table with exactly this.
 */
export function auditRowOf(e: RecordedEvent): AuditLogRow {
  const a = describeForAudit(e) ?? placeholder(e);
  const m = e.metadata as Record<string, any>;
  const started = m.requestStartedAt ? Date.parse(m.requestStartedAt) : NaN;
  const duration = Number.isFinite(started) ? Math.max(0, Date.parse(m.timestamp) - started) : (typeof m.durationMs === 'number' ? m.durationMs : null);
  // A refused sign-in has no actor: the name that was tried is its user.
  const tried = a.action === 'LOGIN' && a.status !== 'success' ? a.resourceName : null;
  return {
    id: e.position, event_id: e.id, event_type: e.type, ts: m.timestamp ?? null, user_id: m.actor?.userId ?? null, username: m.actor?.username ?? tried ?? null,
    auth_method: m.actor?.kind ?? null, ip_address: m.ip ?? null, user_agent: m.userAgent ?? null, session_id: m.sessionId ?? null,
    action: a.action, resource_type: a.resourceType, resource_id: a.resourceId, resource_name: a.resourceName, status: a.status, error_message: a.errorMessage, reason: a.reason,
    before: a.before, after: a.after, details: a.details, duration_ms: duration, method: m.method ?? null, endpoint: m.endpoint ?? null, request_id: m.requestId ?? null,
    response_code: (e.data as Record<string, any>)?.responseCode ?? m.responseCode ?? null, event_name: publicEventOf(e.type)?.name ?? null,
  };
}

const JSON_COLUMNS = new Set(['before', 'after', 'details']);

export const auditLogProjection: Projection = {
  name: 'audit_log',
  handles: '*',
  tables: ['audit_log'],
  apply(e) {
    const row = auditRowOf(e);
    const values = AUDIT_LOG_COLUMNS.map((c) => (JSON_COLUMNS.has(c) ? (row[c] === null ? null : JSON.stringify(row[c])) : row[c]));
    const tsIndex = AUDIT_LOG_COLUMNS.indexOf('ts') + 1;
    return [
      {
        text: `INSERT INTO audit_log (${AUDIT_LOG_COLUMNS.join(', ')})
               VALUES (${AUDIT_LOG_COLUMNS.map((c, i) => (c === 'ts' ? `COALESCE($${tsIndex}::timestamptz, (SELECT max(ts) FROM audit_log WHERE id < $1), 'epoch')` : `$${i + 1}`)).join(',')}) ON CONFLICT (id) DO NOTHING`,
        values,
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
