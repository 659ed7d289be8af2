// The EventStore port over one append-only log stream (see eventStoreDbLog.ts): gapless positions
// from log revisions, per-stream versions and duplicate ids from an index of the log that is
// proven current by each compare-and-swap append, and the same SHA-256 chain as postgres.
import { EventEmitter } from 'node:events';
import { DuplicateEventError, UnavailableError, WrongExpectedVersionError } from '../../domain/shared/errors.ts';
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
import { decodeLogEvent, encodeLogEvent, positionOfRevision, revisionOfPosition } from './eventStoreDbCodec.ts';
import { applyToIndex, emptyIndex, planAppend, unapplyFromIndex } from './eventStoreDbIndex.ts';
import { groupCommit, type Outcome } from './groupCommit.ts';
import type { EventLog } from './eventStoreDbLog.ts';
import { verifyLog } from './eventStoreDbVerify.ts';
import { batchSubscription, sharedReads } from './batchSubscription.ts';

export interface LogStoreOptions {
  /** Name of the log stream, for error messages. */
  logStream: string;
  /** Server event ids for log events (fresh per attempt, see eventStoreDbCodec.ts). */
  newLogEventId: () => string;
  /** How often a subscription polls when no append is noticed. */
  pollIntervalMs?: number;
  /** Appends give up after this many lost races against other writers. */
  maxAppendAttempts?: number;
  /** Called with a failed attempt number before retrying; used to back off under contention. */
  backoff?: (attempt: number) => Promise<void>;
}

const READ_BATCH = 1000;

interface PendingLogAppend {
  streamId: string;
  expectedVersion: ExpectedVersion;
  events: NewEvent[];
  metadata: EventMetadata;
}

/** A one-at-a-time queue: the index is shared by every caller in this process. */
function serialized() {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(fn: () => Promise<T>): Promise<T> => {
    const run = tail.then(fn, fn);
    tail = run.catch(() => {});
    return run;
  };
}

export function logEventStore(log: EventLog, opts: LogStoreOptions): EventStore {
  const index = emptyIndex();
  const exclusive = serialized();
  const wake = new EventEmitter();
  wake.setMaxListeners(0);
  const pollMs = opts.pollIntervalMs ?? 1000;
  const maxAttempts = opts.maxAppendAttempts ?? 50;
  let watcher: { close(): Promise<void> } | null = null;
  let closed = false;

  const decode = (events: Awaited<ReturnType<EventLog['read']>>) => events.map((e) => decodeLogEvent(e, opts.logStream));

  /** Brings the index to the log's end; call only inside `exclusive`. */
  async function catchUp(): Promise<void> {
    for (;;) {
      const batch = await readAll(index.head, READ_BATCH);
      applyToIndex(index, batch);
      if (batch.length < READ_BATCH) return;
    }
  }

  /**
   * One compare-and-swap append for a whole batch (group commit): each append is planned against
   * the index with the appends before it in the batch applied, so a second append to a stream
   * sees the first and an event id already planned is a duplicate. A refusal is only trusted
   * once the index has caught up; a lost race takes the batch's plans back, catches up and plans
   * again. A failed write (outcome unknown) fails every append of the batch.
   */
  async function commitBatch(batch: PendingLogAppend[]): Promise<Array<Outcome<RecordedEvent[]>>> {
    let current = false;
    let lostRaces = 0;
    for (;;) {
      const head = index.head;
      const lastHash = index.lastHash;
      const planned: RecordedEvent[] = [];
      const outcomes: Array<Outcome<RecordedEvent[]>> = [];
      let untrusted = false;
      for (const a of batch) {
        const plan = planAppend(index, a.streamId, a.expectedVersion, a.events, a.metadata);
        if (plan.kind === 'ok') {
          applyToIndex(index, plan.records);
          planned.push(...plan.records);
          outcomes.push({ ok: true, value: plan.records });
        } else if (!current) {
          untrusted = true;
          break;
        } else if (plan.kind === 'wrong_version') {
          outcomes.push({ ok: false, error: new WrongExpectedVersionError(a.streamId, a.expectedVersion, plan.actual) });
        } else {
          outcomes.push({ ok: false, error: new DuplicateEventError(plan.eventId) });
        }
      }
      if (untrusted) {
        unapplyFromIndex(index, planned, head, lastHash);
        await catchUp();
        current = true;
        continue;
      }
      if (planned.length === 0) return outcomes;
      let outcome: Awaited<ReturnType<EventLog['append']>>;
      try {
        outcome = await log.append(revisionOfPosition(head), planned.map((r) => encodeLogEvent(r, opts.newLogEventId())));
      } catch (err) {
        unapplyFromIndex(index, planned, head, lastHash);
        throw err;
      }
      if (outcome === 'ok') return outcomes;
      unapplyFromIndex(index, planned, head, lastHash);
      if (++lostRaces >= maxAttempts) {
        const streams = [...new Set(batch.map((a) => a.streamId))].join(', ');
        throw new UnavailableError(`Could not append to ${streams}: the log ${opts.logStream} kept moving (${maxAttempts} lost races with other writers).`);
      }
      await opts.backoff?.(lostRaces);
      await catchUp();
      current = true;
    }
  }

  const writer = groupCommit<PendingLogAppend, RecordedEvent[]>({
    commit: (batch) => exclusive(() => commitBatch(batch)),
    weight: (a) => a.events.length,
    maxWeight: 1000,
  });

  async function append(streamId: string, expectedVersion: ExpectedVersion, events: NewEvent[], metadata: EventMetadata): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append needs at least one event');
    const recorded = await writer.submit({ streamId, expectedVersion, events, metadata });
    wake.emit('append');
    const last = recorded[recorded.length - 1];
    return { nextVersion: last.version, lastPosition: last.position, events: recorded };
  }

  async function readStream(streamId: string, fromVersion = 1): Promise<RecordedEvent[]> {
    // Catch up first so a read after another process's append sees it.
    const positions = await exclusive(async () => {
      await catchUp();
      return (index.streams.get(streamId) ?? []).slice(Math.max(0, fromVersion - 1));
    });
    const out: RecordedEvent[] = [];
    // Events of one stream usually sit in runs (one append = one run), read each run at once.
    for (let i = 0; i < positions.length; ) {
      let j = i + 1;
      while (j < positions.length && positions[j] === positions[j - 1] + 1 && j - i < READ_BATCH) j++;
      const run = decode(await log.read(revisionOfPosition(positions[i]), j - i));
      for (const e of run) if (e.streamId === streamId) out.push(e);
      i = j;
    }
    return out;
  }

  async function readAll(fromPosition: number, limit: number): Promise<RecordedEvent[]> {
    if (limit <= 0) return [];
    const from = Math.max(0, fromPosition);
    const events = decode(await log.read(revisionOfPosition(from + 1), limit));
    // A truncated log (stream $maxCount, $tb) starts later than asked: never skip silently.
    if (events.length > 0 && events[0].position !== from + 1) {
      throw new Error(`The log ${opts.logStream} has no event at position ${from + 1} (it starts at ${events[0].position}): was the stream truncated?`);
    }
    return events;
  }

  async function headPosition(): Promise<number> {
    return positionOfRevision(await log.lastRevision());
  }

  function ensureWatcher(): void {
    if (watcher || closed) return;
    watcher = log.watch(() => wake.emit('append'));
  }

  const subscriptionReads = sharedReads(readAll);

  function subscribe(fromCheckpoint: number, handler: (batch: RecordedEvent[]) => Promise<void>, onError?: (err: unknown) => void): Subscription {
    ensureWatcher();
    return batchSubscription({ fromCheckpoint, readAll: subscriptionReads, handler, onError, wake, pollMs });
  }

  return {
    kind: 'eventstoredb',
    append,
    readStream,
    readAll,
    headPosition,
    subscribe,
    verify: (fromPosition: number, toPosition?: number): Promise<ChainVerification> => verifyLog(log, fromPosition, toPosition, opts.logStream),
    async ping() {
      await log.lastRevision();
    },
    async close() {
      if (closed) return;
      closed = true;
      wake.emit('append');
      await watcher?.close().catch(() => {});
      await log.close();
    },
  };
}
