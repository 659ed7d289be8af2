// POST /audit-logs/verify and the audit anchor. Verify checks three things, and names the
// first that fails:
//   1. the hash chain over the range (the event store's verify);
//   2. the listing: each row of audit_log in the range is what its event projects to (a row
//      edited, removed or added behind the service's back is named, with the field);
//   3. the anchor: the newest signed checkpoints (kept outside the database, AuditAnchor) still
//      match the chain: a head below a checkpoint's height is a truncated tail, another hash at
//      its height a rewritten one.
// Checkpoints are signed on demand (POST /audit-logs/checkpoints) and periodically by the server
// (bin/server.ts); each signature is itself audited (AuditCheckpointSigned).
import type { CommandInput } from '../commands.ts';
import { appendForRequest } from '../commands.ts';
import { ValidationError } from '../../domain/shared/errors.ts';
import { judgeCheckpoint, type AuditCheckpoint, type CheckpointFinding } from '../../domain/audit/checkpoints.ts';
import { AUDIT_LOG_COLUMNS, auditRowOf, type AuditLogRow } from '../../projections/auditLog.ts';
import type { RecordedEvent } from '../../domain/shared/eventStore.ts';

/** How many of the newest checkpoints verify compares with the chain. */
const CHECKPOINTS_CHECKED = 20;
const BATCH = 1000;

export interface AuditVerifyRequest {
  start_id: number;
  end_id?: number;
}

export interface AuditVerifyAnswer {
  valid: boolean;
  start_id: number;
  end_id: number;
  checked: number;
  /** Rows of the listing compared with their events (all of the range when valid). */
  listed?: number;
  first_invalid_id?: number;
  reason?: string;
  withheld?: number;
  checkpoint?: { height: number; head_hash: string; at: string } | null;
  message: string;
}

/** A value as PostgreSQL gives it back, in the shape auditRowOf makes it (for comparing). */
function canonical(v: unknown): string {
  if (v instanceof Date) return JSON.stringify(v.toISOString());
  if (v === undefined) return 'null';
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`).join(',')}}`;
  return JSON.stringify(v);
}

function normalise(column: string, v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (column === 'ts') return JSON.stringify(new Date(v as string).toISOString());
  if (column === 'id' || column === 'user_id' || column === 'duration_ms' || column === 'response_code') return String(Number(v));
  return canonical(v);
}

/** The first column where the listed row differs from what its event projects to, or null. */
function differingColumn(e: RecordedEvent, row: Record<string, unknown>): string | null {
  const want: AuditLogRow = auditRowOf(e);
  for (const c of AUDIT_LOG_COLUMNS) {
    // A withheld stub has no timestamp: the projection gives it its predecessor's.
    if (c === 'ts' && e.withheld) continue;
    if (normalise(c, want[c]) !== normalise(c, row[c])) return c;
  }
  return null;
}

type ListingFinding = { ok: true; listed: number } | { ok: false; position: number; reason: 'listing_mismatch' | 'listing_missing' | 'listing_extra'; message: string };

/** Compares the listing (audit_log) over from..to with the events it is a view of. */
async function compareListing(input: CommandInput, from: number, to: number, head: number): Promise<ListingFinding> {
  const { deps } = input;
  await deps.projector.waitFor(to);
  let listed = 0;
  for (let at = from; at <= to; at += BATCH) {
    const upTo = Math.min(to, at + BATCH - 1);
    const events = (await deps.store.readAll(at - 1, upTo - at + 1)).filter((e) => e.position <= upTo);
    const rows = new Map((await deps.pool.query(`SELECT ${AUDIT_LOG_COLUMNS.join(', ')} FROM audit_log WHERE id BETWEEN $1 AND $2`, [at, upTo])).rows.map((r) => [Number(r.id), r as Record<string, unknown>]));
    for (const e of events) {
      const row = rows.get(e.position);
      if (!row) return { ok: false, position: e.position, reason: 'listing_missing', message: `Entry ${e.position} is in the hash chain but not in the listing: its row was removed outside the service.` };
      const column = differingColumn(e, row);
      if (column) return { ok: false, position: e.position, reason: 'listing_mismatch', message: `Entry ${e.position} as listed differs from the event the hash chain holds (field ${column}): the listing was changed outside the service.` };
      rows.delete(e.position);
      listed++;
    }
    const extra = [...rows.keys()].sort((a, b) => a - b)[0];
    if (extra !== undefined) return { ok: false, position: extra, reason: 'listing_extra', message: `Entry ${extra} is listed but the hash chain holds no such event: it was added outside the service.` };
  }
  if (to === head) {
    const beyond = (await deps.pool.query('SELECT min(id) AS id FROM audit_log WHERE id > $1', [head])).rows[0]?.id;
    if (beyond !== null && beyond !== undefined) {
      return { ok: false, position: Number(beyond), reason: 'listing_extra', message: `Entry ${beyond} is listed past the chain's head (${head}): the chain lost its tail, or the listing was added to, outside the service.` };
    }
  }
  return { ok: true, listed };
}

async function hashAt(input: CommandInput, position: number): Promise<string | null> {
  const [e] = await input.deps.store.readAll(position - 1, 1);
  return e && e.position === position ? e.hash : null;
}

/** The newest checkpoints against the chain now: the first that fails, or the newest that holds (null when there is none). */
async function checkAnchor(input: CommandInput, head: number): Promise<CheckpointFinding | null> {
  const anchor = input.deps.auditAnchor;
  if (!anchor) return null;
  let newest: CheckpointFinding | null = null;
  for (const c of await anchor.list(CHECKPOINTS_CHECKED)) {
    const signed = c ? anchor.verify(c) : false;
    const finding = judgeCheckpoint(c, signed, head, c && signed && c.height <= head ? await hashAt(input, c.height) : null);
    if (!finding.ok) return finding;
    newest ??= finding;
  }
  return newest;
}

const view = (c: AuditCheckpoint | null) => (c ? { height: c.height, head_hash: c.headHash, at: c.at } : null);

export async function verifyAudit(input: CommandInput, req: AuditVerifyRequest): Promise<AuditVerifyAnswer> {
  const { deps } = input;
  if (req.end_id !== undefined && req.end_id < req.start_id) throw new ValidationError('end_id must not be below start_id.', [{ field: 'end_id', message: 'must be at least start_id' }]);
  const head = await deps.store.headPosition();
  if (req.start_id > head) throw new ValidationError(`start_id is past the last entry (${head}).`, [{ field: 'start_id', message: `must be at most ${head}` }]);
  const end = Math.min(req.end_id ?? head, head);
  const anchor = await checkAnchor(input, head);
  const checkpoint = anchor ? { checkpoint: view(anchor.checkpoint) } : {};
  const v = await deps.store.verify(req.start_id, end);
  if (!v.ok) {
    return { valid: false, start_id: req.start_id, end_id: v.toPosition, checked: v.checked, first_invalid_id: v.firstMismatch!.position, reason: v.firstMismatch!.reason, ...checkpoint, message: `Entry ${v.firstMismatch!.position} does not match the hash chain (${v.firstMismatch!.reason.replace('_', ' ')}): it was changed outside the service.` };
  }
  if (anchor && !anchor.ok) {
    return { valid: false, start_id: req.start_id, end_id: v.toPosition, checked: v.checked, ...(anchor.checkpoint ? { first_invalid_id: Math.min(anchor.checkpoint.height, head + 1) } : {}), reason: anchor.reason, ...checkpoint, message: anchor.message };
  }
  const listing = await compareListing(input, req.start_id, v.toPosition, head);
  if (!listing.ok) {
    return { valid: false, start_id: req.start_id, end_id: v.toPosition, checked: v.checked, first_invalid_id: listing.position, reason: listing.reason, ...checkpoint, message: listing.message };
  }
  return {
    valid: true, start_id: req.start_id, end_id: v.toPosition, checked: v.checked, listed: listing.listed, ...(v.withheld ? { withheld: v.withheld } : {}), ...checkpoint,
    message: `The hash chain is intact over entries ${req.start_id}-${v.toPosition}, and the listing shows each as its event says.${v.withheld ? ` ${v.withheld} of them were withheld from the backup this server was restored from (audit entries, include_in_backups false): their links were checked, their content is not here.` : ''}${anchor?.ok ? ` The chain still ends as checkpoint ${anchor.checkpoint.height} (${anchor.checkpoint.at}) recorded it.` : ''}`,
  };
}

/**
 * Signs a checkpoint of the chain's head now, keeps it outside the database, and records the
 * signature as an event. `ifMoved`: only when entries other than the last checkpoint's own
 * record were appended since (the periodic one).
 */
export async function signAuditCheckpoint(input: CommandInput, opts: { ifMoved?: boolean } = {}): Promise<AuditCheckpoint | null> {
  const { deps } = input;
  const anchor = deps.auditAnchor;
  if (!anchor) return null;
  const head = await deps.store.headPosition();
  if (head === 0) return null;
  if (opts.ifMoved) {
    const [last] = await anchor.list(1);
    if (last && head <= last.height + 1) return null;
  }
  const headHash = await hashAt(input, head);
  if (!headHash) return null;
  const c = anchor.sign({ height: head, headHash, at: deps.clock().toISOString(), signer: deps.config.instanceId });
  await anchor.save(c);
  const witness = anchor.witnessUrl ? await toWitness(input, anchor.witnessUrl, c) : null;
  const r = await appendForRequest(input, 'audit-checkpoints', [{ id: deps.newId(), type: 'AuditCheckpointSigned', data: { height: c.height, headHash: c.headHash, signer: c.signer, at: c.at, ...(witness ? { witness } : {}) } }]);
  await deps.projector.waitFor(r.lastPosition);
  return c;
}

/** Sends the checkpoint to the external witness (through the outbound policy); the outcome, never thrown. */
async function toWitness(input: CommandInput, url: string, c: AuditCheckpoint): Promise<{ ok: boolean; statusCode: number | null; error: string | null }> {
  const refused = await input.deps.outbound.refusal(url);
  if (refused) return { ok: false, statusCode: null, error: refused };
  const body = JSON.stringify({ height: c.height, head_hash: c.headHash, at: c.at, signer: c.signer, signature: c.signature });
  const r = await input.deps.outbound.post({ url, headers: { 'content-type': 'application/json' }, body, timeoutMs: 10_000 });
  return { ok: r.ok, statusCode: r.statusCode, error: r.error };
}

/** The newest checkpoints, each with whether its signature is this service's. */
export async function listAuditCheckpoints(input: CommandInput, limit: number): Promise<Array<{ height: number | null; head_hash: string | null; at: string | null; signer: string | null; signed: boolean }>> {
  const anchor = input.deps.auditAnchor;
  if (!anchor) return [];
  return (await anchor.list(limit)).map((c) => ({ height: c?.height ?? null, head_hash: c?.headHash ?? null, at: c?.at ?? null, signer: c?.signer ?? null, signed: c ? anchor.verify(c) : false }));
}
