// Writes a batch of independent appends through append_batch() (migrations/0600): one statement,
// one transaction, one WAL flush; each append gets its own outcome (written, wrong expected
// version, duplicate event id). A batch of one goes through append_events() as before.
import type pg from 'pg';
import { DuplicateEventError, ValidationError, WrongExpectedVersionError } from '../../domain/shared/errors.ts';
import type { AppendResult, EventMetadata, ExpectedVersion, NewEvent, RecordedEvent } from '../../domain/shared/eventStore.ts';
import type { Outcome } from './groupCommit.ts';

export interface PendingAppend {
  streamId: string;
  expectedVersion: ExpectedVersion;
  events: NewEvent[];
  metadata: EventMetadata;
  /** canonicalEventText() of each event: what its hash covers, stored as the row's body. */
  bodies: string[];
}

async function appendBatchOnce(pool: pg.Pool, batch: PendingAppend[]): Promise<Array<Outcome<AppendResult>>> {
  const res = await pool.query({
    name: 'lnm-append-batch',
    text: 'SELECT * FROM append_batch($1::text[], $2::int[], $3::int[], $4::jsonb[], $5::uuid[], $6::text[], $7::jsonb[], $8::text[])',
    values: [
      batch.map((a) => a.streamId),
      batch.map((a) => (a.expectedVersion === 'any' ? -1 : a.expectedVersion)),
      batch.map((a) => a.events.length),
      batch.map((a) => JSON.stringify(a.metadata)),
      batch.flatMap((a) => a.events.map((e) => e.id)),
      batch.flatMap((a) => a.events.map((e) => e.type)),
      batch.flatMap((a) => a.events.map((e) => JSON.stringify(e.data))),
      batch.flatMap((a) => a.bodies),
    ],
  });
  const rowsByAppend = batch.map(() => [] as Array<Record<string, unknown>>);
  for (const r of res.rows) rowsByAppend[(r.out_append as number) - 1].push(r);
  return batch.map((a, i): Outcome<AppendResult> => {
    const rows = rowsByAppend[i];
    const status = rows[0]?.out_status;
    if (status === 'wrong_version') return { ok: false, error: new WrongExpectedVersionError(a.streamId, a.expectedVersion, Number(rows[0].out_detail)) };
    if (status === 'duplicate') return { ok: false, error: new DuplicateEventError(rows[0].out_detail as string) };
    if (status !== 'ok' || rows.length !== a.events.length) return { ok: false, error: new Error(`append_batch returned ${rows.length} rows (status ${String(status)}) for an append of ${a.events.length} events`) };
    return { ok: true, value: recorded(a, rows) };
  });
}

/**
 * An error PostgreSQL itself reported for the statement (it has an SQLSTATE). The statement ran
 * in its own implicit transaction, so such an error means that transaction was rolled back and
 * nothing of the batch was written. Without one (connection reset, timeout) the outcome is unknown.
 */
function rolledBack(err: unknown): boolean {
  return typeof (err as { code?: unknown })?.code === 'string' && /^[0-9A-Z]{5}$/.test((err as { code: string }).code);
}

/**
 * One batch. When the batch statement fails as a whole and PostgreSQL says so (so nothing was
 * written), each append is retried alone, in order: the error then belongs to the append that
 * caused it (say, a string PostgreSQL refuses in jsonb) and its neighbours are written. When the
 * outcome is unknown (the connection broke), every append fails with that error and none is
 * acknowledged; a retry by the caller is safe, since a written event id is refused the second time.
 */
export async function appendBatch(pool: pg.Pool, batch: PendingAppend[]): Promise<Array<Outcome<AppendResult>>> {
  const outcomes: Array<Outcome<AppendResult>> = [];
  for (const part of splitAtSharedIds(batch)) outcomes.push(...(await appendPart(pool, part)));
  return outcomes;
}

/**
 * Batches in which no event id is in two appends. When one is (a saga retrying its effect
 * while the first try is still queued), the later append goes in a later transaction, so it is
 * checked against the first one's committed outcome: a duplicate if that was written, written
 * if that was refused.
 */
function splitAtSharedIds(batch: PendingAppend[]): PendingAppend[][] {
  const parts: PendingAppend[][] = [[]];
  let seen = new Set<string>();
  for (const a of batch) {
    if (a.events.some((e) => seen.has(e.id))) {
      parts.push([]);
      seen = new Set();
    }
    for (const e of a.events) seen.add(e.id);
    parts[parts.length - 1].push(a);
  }
  return parts;
}

async function appendPart(pool: pg.Pool, batch: PendingAppend[]): Promise<Array<Outcome<AppendResult>>> {
  if (batch.length === 1) return [await appendAlone(pool, batch[0])];
  try {
    return await appendBatchOnce(pool, batch);
  } catch (err) {
    if (!rolledBack(err)) throw err;
    const outcomes: Array<Outcome<AppendResult>> = [];
    for (const a of batch) {
      try {
        outcomes.push(await appendAlone(pool, a));
      } catch (error) {
        outcomes.push({ ok: false, error });
      }
    }
    return outcomes;
  }
}

/**
 * One append on its own goes through append_events(), which costs less per call than
 * append_batch() (no per-batch bookkeeping). Both calls are named prepared statements: each
 * connection has PostgreSQL parse and plan the call once, not once per append. That saving is
 * what pays for the body constraint's parse of each written row (migration 1140), so a lone
 * writer appends as fast as before group commit (README, Benchmarks: the A/B under the table).
 */
async function appendAlone(pool: pg.Pool, a: PendingAppend): Promise<Outcome<AppendResult>> {
  let rows: Array<Record<string, unknown>>;
  try {
    const res = await pool.query({ name: 'lnm-append-events', text: 'SELECT * FROM append_events($1, $2, $3::uuid[], $4::text[], $5::jsonb[], $6::jsonb, $7::text[])', values: [
      a.streamId,
      a.expectedVersion === 'any' ? -1 : a.expectedVersion,
      a.events.map((e) => e.id),
      a.events.map((e) => e.type),
      a.events.map((e) => JSON.stringify(e.data)),
      JSON.stringify(a.metadata),
      a.bodies,
    ] });
    rows = res.rows;
  } catch (err) {
    const e = err as { code?: string; detail?: string };
    if (e.code === 'LNM01') return { ok: false, error: new WrongExpectedVersionError(a.streamId, a.expectedVersion, Number(e.detail)) };
    const typed = typedError(a, err);
    if (typed !== err) return { ok: false, error: typed };
    throw err;
  }
  return { ok: true, value: recorded(a, rows) };
}

function recorded(a: PendingAppend, rows: Array<Record<string, unknown>>): AppendResult {
  const events: RecordedEvent[] = rows.map((r, j) => ({
    position: Number(r.out_position),
    streamId: a.streamId,
    version: r.out_version as number,
    id: a.events[j].id,
    type: a.events[j].type,
    data: a.events[j].data,
    metadata: a.metadata,
    prevHash: r.out_prev_hash as string,
    hash: r.out_hash as string,
  }));
  const last = events[events.length - 1];
  return { nextVersion: last.version, lastPosition: last.position, events };
}

/**
 * The unique constraints are the backstop behind append_batch's own checks (a writer that
 * bypassed the chain lock, or one id twice in one append): their violations keep their types.
 */
function typedError(a: PendingAppend, err: unknown): unknown {
  const e = err as { code?: string; detail?: string; constraint?: string };
  if (e.code === '23505' && e.constraint === 'events_id_key') {
    const m = /\(id\)=\(([^)]+)\)/.exec(e.detail ?? '');
    return new DuplicateEventError(m?.[1] ?? a.events[0].id);
  }
  if (e.code === '23505' && e.constraint === 'events_stream_version_key') return new WrongExpectedVersionError(a.streamId, a.expectedVersion, -1);
  // The body constraint (migration 1140): the canonical text hashed and the columns stored
  // disagree, so the event was built with a value JSON does not keep as it is (a Date, a Buffer,
  // anything with toJSON). A fault in the code that built it, named as such.
  if (e.code === '23514' && e.constraint === 'events_body_matches_columns') {
    return new Error(`event ${a.events[0].type} on ${a.streamId} cannot be stored: its data does not read back as the canonical text its hash covers (a value with toJSON, such as a Date?)`);
  }
  // Text jsonb cannot hold (a NUL character, \u0000): bad input, not a server fault.
  if (e.code === '22P05') return new ValidationError(`The event cannot be stored: ${(err as Error).message}.`, undefined, 'UNSTORABLE_TEXT');
  return err;
}
