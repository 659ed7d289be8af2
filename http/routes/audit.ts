import { Type, type Static } from '@sinclair/typebox';
import { defineRoute, type RouteDef } from '../route.ts';
import { Page, PageQuery, page } from '../pagination.ts';
import { getAuditEntry, listAuditLog } from '../../projections/auditLog.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../domain/shared/errors.ts';
import { listAuditCheckpoints, signAuditCheckpoint, verifyAudit } from '../../application/audit/auditVerify.ts';
import { MAX_RETENTION_DAYS } from '../../domain/settings/settings.ts';
import type { AppDeps } from '../../application/deps.ts';

const tags = ['audit'];
const DateOrDateTime = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}([T ][0-9:.]+(Z|[+-]\\d{2}:?\\d{2})?)?$', description: 'YYYY-MM-DD or an ISO 8601 date-time (UTC when no offset)' });

export const AuditQuery = Type.Object({
  ...PageQuery,
  user_id: Type.Optional(Type.Integer({ minimum: 1 })),
  start_date: Type.Optional(DateOrDateTime),
  end_date: Type.Optional(DateOrDateTime),
  action: Type.Optional(Type.String({ maxLength: 64 })),
  resource_type: Type.Optional(Type.String({ maxLength: 64 })),
  status: Type.Optional(Type.Union([Type.Literal('success'), Type.Literal('failed'), Type.Literal('denied')])),
  days: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_RETENTION_DAYS, description: 'only the last N days' })),
  include_archived: Type.Optional(Type.Boolean({ description: 'also entries older than archive_after_days' })),
}, { additionalProperties: false });

const AuditEntrySchema = Type.Object({
  id: Type.Integer({ description: 'the event position in the hash-chained store' }),
  timestamp: Type.String({ format: 'date-time' }),
  user_id: Type.Union([Type.Integer(), Type.Null()]),
  username: Type.Union([Type.String(), Type.Null()]),
  user: Type.String(),
  ip_address: Type.Union([Type.String(), Type.Null()]),
  user_agent: Type.Union([Type.String(), Type.Null()]),
  session_id: Type.Union([Type.String(), Type.Null()]),
  action: Type.String(),
  resource_type: Type.String(),
  resource_id: Type.Union([Type.String(), Type.Null()]),
  resource_name: Type.Union([Type.String(), Type.Null()]),
  status: Type.String(),
  error_message: Type.Union([Type.String(), Type.Null()]),
  reason: Type.Union([Type.String(), Type.Null()]),
  details: Type.Unknown(),
  before: Type.Unknown(),
  after: Type.Unknown(),
  duration_ms: Type.Union([Type.Integer(), Type.Null()]),
  method: Type.Union([Type.String(), Type.Null()]),
  endpoint: Type.Union([Type.String(), Type.Null()]),
  request_id: Type.Union([Type.String(), Type.Null()]),
  response_code: Type.Union([Type.Integer(), Type.Null()]),
  event_type: Type.String({ description: 'the domain event behind the entry' }),
  event: Type.Union([Type.String(), Type.Null()], { description: 'its public event name (e.g. security.api_key.created), when it has one' }),
});

const CheckpointSchema = Type.Object({ height: Type.Integer(), head_hash: Type.String(), at: Type.String({ format: 'date-time' }) });

/** A date-only end bound means the whole day. */
export function dateBound(v: string | undefined, end: boolean): string | undefined {
  if (!v) return undefined;
  const d = /^\d{4}-\d{2}-\d{2}$/.test(v) ? new Date(v + (end ? 'T23:59:59.999Z' : 'T00:00:00.000Z')) : new Date(/Z|[+-]\d{2}:?\d{2}$/.test(v) ? v : v + 'Z');
  if (Number.isNaN(d.getTime())) throw new ValidationError(`${end ? 'end_date' : 'start_date'} is not a valid date.`, [{ field: end ? 'end_date' : 'start_date', message: 'is not a valid date' }]);
  return d.toISOString();
}

export async function queryAudit(deps: AppDeps, q: Static<typeof AuditQuery>, limitOverride?: number) {
  const { audit } = await deps.security.settings();
  const start = dateBound(q.start_date, false);
  const end = dateBound(q.end_date, true);
  if (start && end && start > end) throw new ValidationError('start_date is after end_date.', [{ field: 'start_date', message: 'must not be after end_date' }]);
  const limit = limitOverride ?? q.limit ?? deps.config.defaultPageSize;
  const offset = q.offset ?? 0;
  const r = await listAuditLog(deps.pool, {
    limit, offset, userId: q.user_id, startDate: start, endDate: end, action: q.action, resourceType: q.resource_type, status: q.status, days: q.days,
    archiveAfterDays: audit.archive_after_days, retentionDays: audit.retention_days, includeArchived: q.include_archived || !!start, now: deps.clock(),
  });
  return { ...r, limit, offset };
}

const listRoute = (path: string): RouteDef =>
  defineRoute({
    method: 'get', path, summary: 'List audit log entries, newest first', tags, permission: 'SYSTEM_MONITOR', query: AuditQuery,
    description: 'Filters combine. Entries older than archive_after_days are left out unless include_archived=true or a start_date reaches back to them.',
    responses: { 200: { description: 'a page of entries', schema: Page(AuditEntrySchema) } },
    async handler({ deps, query }) {
      const r = await queryAudit(deps, query);
      return { body: page(r.items, r.total, r.limit, r.offset) };
    },
  });

const getRoute = (path: string, param: 'id' | 'logId'): RouteDef =>
  defineRoute({
    method: 'get', path, summary: 'Read one audit log entry', tags, permission: 'SYSTEM_MONITOR',
    params: Type.Object({ [param]: Type.Integer({ minimum: 1 }) }, { additionalProperties: false }),
    responses: { 200: { description: 'the entry', schema: AuditEntrySchema }, 404: { description: 'no such entry' } },
    async handler({ deps, params }) {
      const id = (params as Record<string, number>)[param];
      const e = await getAuditEntry(deps.pool, id);
      if (!e) throw new NotFoundError('Audit log entry', id);
      return { body: e };
    },
  });

export const auditRoutes = [
  listRoute('/audit/logs'),
  listRoute('/audit-logs'),
  defineRoute({
    method: 'post', path: '/audit-logs/verify', summary: 'Verify the audit trail over a range of entry ids: the hash chain, the listing against its events, and the chain\'s head against the signed checkpoints', tags, permission: 'SYSTEM_MONITOR',
    description: 'end_id may be left out: the range then ends at the newest entry (the head). Invalid when an entry does not match the hash chain, when a listed entry differs from its event (or is missing, or has no event), or when the chain no longer ends as a signed checkpoint recorded it (a truncated or rewritten tail; docs/audit.md).',
    body: Type.Object({ start_id: Type.Integer({ minimum: 1 }), end_id: Type.Optional(Type.Integer({ minimum: 1, description: 'the last entry to check; default the newest' })) }, { additionalProperties: false }),
    responses: {
      200: {
        description: 'the outcome (valid false names first_invalid_id and the reason)',
        schema: Type.Object({ valid: Type.Boolean(), start_id: Type.Integer(), end_id: Type.Integer(), checked: Type.Integer(), first_invalid_id: Type.Optional(Type.Integer()),
          listed: Type.Optional(Type.Integer({ description: 'entries of the listing compared with their events (when valid: all of the range)' })),
          reason: Type.Optional(Type.String({ description: 'hash_mismatch, broken_link, gap, unexpected_withheld (a withheld stub that the last restore of this server does not account for), listing_mismatch (a listed entry differs from its event), listing_missing, listing_extra, truncated or head_rewritten (the chain no longer ends as a signed checkpoint recorded it), checkpoint_forged (a checkpoint without this service\'s signature)' })),
          withheld: Type.Optional(Type.Integer({ description: 'entries of the range whose content was withheld from the backup this server was restored from (include_in_backups false): their links were checked, their hashes could not be recomputed' })),
          checkpoint: Type.Optional(Type.Union([CheckpointSchema, Type.Null()], { description: 'the newest signed checkpoint compared (the failing one when invalid for it)' })),
          message: Type.String() }),
      },
    },
    async handler({ deps, body, identity, requestId, ctx }) {
      return { body: await verifyAudit({ deps, identity, requestId, ctx }, body) };
    },
  }),
  defineRoute({
    method: 'get', path: '/audit-logs/checkpoints', summary: 'The newest signed checkpoints of the audit chain\'s head (kept outside the database)', tags, permission: 'SYSTEM_MONITOR',
    query: Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })) }, { additionalProperties: false }),
    responses: { 200: { description: 'newest first; signed false for a checkpoint whose signature is not this service\'s', schema: Type.Object({ items: Type.Array(Type.Object({ height: Type.Union([Type.Integer(), Type.Null()]), head_hash: Type.Union([Type.String(), Type.Null()]), at: Type.Union([Type.String(), Type.Null()]), signer: Type.Union([Type.String(), Type.Null()]), signed: Type.Boolean() })) }) } },
    async handler({ deps, query, identity, requestId, ctx }) {
      return { body: { items: await listAuditCheckpoints({ deps, identity, requestId, ctx }, query.limit ?? 20) } };
    },
  }),
  defineRoute({
    method: 'post', path: '/audit-logs/checkpoints', summary: 'Sign a checkpoint of the audit chain\'s head now', tags, permission: 'SYSTEM_MONITOR',
    description: 'The height and head hash, signed with a key derived from KEY_ENCRYPTION_KEY and appended to DATA_DIR/audit-checkpoints.jsonl; the signature is itself an audit entry (AuditCheckpointSigned). The server also signs one every AUDIT_CHECKPOINT_INTERVAL_SECONDS when the chain moved.',
    responses: { 201: { description: 'the checkpoint', schema: CheckpointSchema }, 409: { description: 'the chain is empty' } },
    async handler({ deps, identity, requestId, ctx }) {
      const c = await signAuditCheckpoint({ deps, identity, requestId, ctx });
      if (!c) throw new ConflictError('There is nothing to sign a checkpoint of.');
      return { status: 201, body: { height: c.height, head_hash: c.headHash, at: c.at } };
    },
  }),
  getRoute('/audit/logs/:id', 'id'),
  getRoute('/audit-logs/:logId', 'logId'),
];
