// The default event store: one PostgreSQL table, appends through append_events() (one round
// trip, serialized by an advisory lock), subscriptions woken by LISTEN/NOTIFY and by local appends.
import pg from 'pg';
import { EventEmitter } from 'node:events';
import { DuplicateEventError, WrongExpectedVersionError } from '../../domain/shared/errors.ts';
import { canonicalEventText, GENESIS_HASH, verifyRun } from '../../domain/shared/eventChain.ts';
import type {
  AppendResult,
  ChainVerification,
  EventMetadata,
  EventStore,
  ExpectedVersion,
  NewEvent,
  RecordedEvent,
  Subscription,
} from '../../domain/shared/eventStore.ts';
import { batchSubscription } from './batchSubscription.ts';

const COLUMNS = 'position, stream_id, version, id, type, data, metadata, prev_hash, hash';

function toRecorded(r: Record<string, unknown>): RecordedEvent {
  return {
    position: Number(r.position),
    streamId: r.stream_id as string,
    version: r.version as number,
    id: r.id as string,
    type: r.type as string,
    data: r.data as RecordedEvent['data'],
    metadata: r.metadata as EventMetadata,
    prevHash: r.prev_hash as string,
    hash: r.hash as string,
  };
}

export interface PostgresEventStoreOptions {
  /** Connection string for the LISTEN connection (subscriptions); without it, subscriptions poll. */
  url?: string;
  /** How often a subscription polls when no notification arrives. */
  pollIntervalMs?: number;
}

export function postgresEventStore(pool: pg.Pool, opts: PostgresEventStoreOptions = {}): EventStore {
  const wake = new EventEmitter();
  wake.setMaxListeners(0);
  const pollMs = opts.pollIntervalMs ?? 1000;
  let listener: pg.Client | null = null;
  let listening: Promise<void> | null = null;
  let closed = false;

  function ensureListener(): Promise<void> {
    if (listening || !opts.url) return listening ?? Promise.resolve();
    listening = (async () => {
      const c = new pg.Client({ connectionString: opts.url });
      c.on('error', () => {
        listener = null;
        listening = null;
      });
      c.on('notification', () => wake.emit('append'));
      await c.connect();
      await c.query('LISTEN lnm_events');
      listener = c;
    })().catch(() => {
      listening = null; // fall back to polling; a later subscribe retries
    });
    return listening;
  }

  async function append(streamId: string, expectedVersion: ExpectedVersion, events: NewEvent[], metadata: EventMetadata): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append needs at least one event');
    const bodies = events.map((e) => canonicalEventText({ id: e.id, type: e.type, data: e.data, metadata }));
    let rows: Array<Record<string, unknown>>;
    try {
      const res = await pool.query(
        'SELECT * FROM append_events($1, $2, $3::uuid[], $4::text[], $5::jsonb[], $6::jsonb, $7::text[])',
        [
          streamId,
          expectedVersion === 'any' ? -1 : expectedVersion,
          events.map((e) => e.id),
          events.map((e) => e.type),
          events.map((e) => JSON.stringify(e.data)),
          JSON.stringify(metadata),
          bodies,
        ],
      );
      rows = res.rows;
    } catch (err) {
      const e = err as { code?: string; detail?: string; constraint?: string };
      if (e.code === 'LNM01') throw new WrongExpectedVersionError(streamId, expectedVersion, Number(e.detail));
      if (e.code === '23505' && e.constraint === 'events_id_key') {
        const m = /\(id\)=\(([^)]+)\)/.exec(e.detail ?? '');
        throw new DuplicateEventError(m?.[1] ?? events[0].id);
      }
      if (e.code === '23505' && e.constraint === 'events_stream_version_key') {
        throw new WrongExpectedVersionError(streamId, expectedVersion, -1);
      }
      throw err;
    }
    const recorded: RecordedEvent[] = rows.map((r, i) => ({
      position: Number(r.out_position),
      streamId,
      version: r.out_version as number,
      id: events[i].id,
      type: events[i].type,
      data: events[i].data,
      metadata,
      prevHash: r.out_prev_hash as string,
      hash: r.out_hash as string,
    }));
    const last = recorded[recorded.length - 1];
    wake.emit('append');
    return { nextVersion: last.version, lastPosition: last.position, events: recorded };
  }

  async function readStream(streamId: string, fromVersion = 1): Promise<RecordedEvent[]> {
    const res = await pool.query(`SELECT ${COLUMNS} FROM events WHERE stream_id = $1 AND version >= $2 ORDER BY version`, [streamId, fromVersion]);
    return res.rows.map(toRecorded);
  }

  async function readAll(fromPosition: number, limit: number): Promise<RecordedEvent[]> {
    const res = await pool.query(`SELECT ${COLUMNS} FROM events WHERE position > $1 ORDER BY position LIMIT $2`, [fromPosition, limit]);
    return res.rows.map(toRecorded);
  }

  async function headPosition(): Promise<number> {
    const res = await pool.query('SELECT coalesce(max(position), 0) AS p FROM events');
    return Number(res.rows[0].p);
  }

  function subscribe(fromCheckpoint: number, handler: (batch: RecordedEvent[]) => Promise<void>, onError?: (err: unknown) => void): Subscription {
    return batchSubscription({ fromCheckpoint, readAll, handler, onError, wake, pollMs, start: ensureListener });
  }

  async function verify(fromPosition: number, toPosition?: number): Promise<ChainVerification> {
    const from = Math.max(1, fromPosition);
    const to = toPosition ?? (await headPosition());
    let prev = GENESIS_HASH;
    if (from > 1) {
      const r = await pool.query('SELECT hash FROM events WHERE position = $1', [from - 1]);
      if (r.rowCount === 0) return { ok: false, checked: 0, fromPosition: from, toPosition: to, firstMismatch: { position: from - 1, reason: 'gap', expected: 'an event', actual: 'none' } };
      prev = r.rows[0].hash;
    }
    let next = from;
    let checked = 0;
    const batchSize = 5000;
    while (next <= to) {
      // A bounded range (not an open one with LIMIT) keeps the plan an index range scan even
      // when the table's statistics are stale.
      const res = await pool.query(`SELECT ${COLUMNS} FROM events WHERE position BETWEEN $1 AND $2 ORDER BY position`, [next, Math.min(to, next + batchSize - 1)]);
      if (res.rows.length === 0) {
        return { ok: false, checked, fromPosition: from, toPosition: to, firstMismatch: { position: next, reason: 'gap', expected: String(next), actual: 'missing' } };
      }
      const events = res.rows.map(toRecorded);
      const r = verifyRun(prev, events, next);
      if (!r.ok) return { ok: false, checked: checked + (r.position - next), fromPosition: from, toPosition: to, firstMismatch: { position: r.position, reason: r.reason, expected: r.expected, actual: r.actual } };
      checked += events.length;
      prev = r.lastHash;
      next = events[events.length - 1].position + 1;
    }
    return { ok: true, checked, fromPosition: from, toPosition: to };
  }

  return {
    kind: 'postgres',
    append,
    readStream,
    readAll,
    headPosition,
    subscribe,
    verify,
    async ping() {
      await pool.query('SELECT 1');
    },
    async close() {
      if (closed) return;
      closed = true;
      wake.emit('append');
      await listening;
      await listener?.end().catch(() => {});
    },
  };
}
