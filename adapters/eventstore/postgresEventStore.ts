// The default event store: one PostgreSQL table; appends gathered by group commit and written
// through append_batch() (one round trip per batch, serialized by an advisory lock);
// subscriptions woken by LISTEN/NOTIFY and by local appends.
import pg from 'pg';
import { EventEmitter } from 'node:events';
import { DuplicateEventError } from '../../domain/shared/errors.ts';
import { canonicalEventText } from '../../domain/shared/eventChain.ts';
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
import { batchSubscription, sharedReads } from './batchSubscription.ts';
import { groupCommit } from './groupCommit.ts';
import { appendBatch, type PendingAppend } from './postgresAppendBatch.ts';
import { toRecorded, verifyChain } from './postgresChainVerify.ts';
import type { Notices } from '../postgres/notices.ts';

const COLUMNS = 'position, stream_id, version, id, type, data, metadata, prev_hash, hash, withheld';

export interface PostgresEventStoreOptions {
  /** Connection string for the LISTEN connection (subscriptions); without it, subscriptions poll. */
  url?: string;
  /** How often a subscription polls when no notification arrives. */
  pollIntervalMs?: number;
  /** Group commit: at most this many events in one transaction (default 1000). */
  maxBatchEvents?: number;
  /** The instance's one listening connection (adapters/postgres/notices.ts); used instead of `url` when given. */
  notices?: Pick<Notices, 'on'>;
  /** verify(): positions per statement of the check in PostgreSQL (default 25,000; tests use small ranges to cross seams). */
  verifyRangeSize?: number;
}

export function postgresEventStore(pool: pg.Pool, opts: PostgresEventStoreOptions = {}): EventStore {
  const wake = new EventEmitter();
  wake.setMaxListeners(0);
  const pollMs = opts.pollIntervalMs ?? 1000;
  let listener: pg.Client | null = null;
  let listening: Promise<void> | null = null;
  let closed = false;
  const writer = groupCommit<PendingAppend, AppendResult>({
    commit: (batch) => appendBatch(pool, batch),
    weight: (a) => a.events.length,
    maxWeight: opts.maxBatchEvents ?? 1000,
  });

  function ensureListener(): Promise<void> {
    if (opts.notices && !listening) {
      listening = opts.notices.on('lnm_events', () => wake.emit('append')).catch(() => {
        listening = null;
      });
    }
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
    const ids = new Set(events.map((e) => e.id));
    if (ids.size !== events.length) throw new DuplicateEventError(events.find((e, i) => events.findIndex((x) => x.id === e.id) !== i)!.id);
    const bodies = events.map((e) => canonicalEventText({ id: e.id, type: e.type, data: e.data, metadata }));
    const result = await writer.submit({ streamId, expectedVersion, events, metadata, bodies });
    wake.emit('append');
    return result;
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

  const subscriptionReads = sharedReads(readAll);

  function subscribe(fromCheckpoint: number, handler: (batch: RecordedEvent[]) => Promise<void>, onError?: (err: unknown) => void): Subscription {
    return batchSubscription({ fromCheckpoint, readAll: subscriptionReads, handler, onError, wake, pollMs, start: ensureListener });
  }

  async function verify(fromPosition: number, toPosition?: number): Promise<ChainVerification> {
    return verifyChain(pool, Math.max(1, fromPosition), toPosition ?? (await headPosition()), opts.verifyRangeSize);
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
