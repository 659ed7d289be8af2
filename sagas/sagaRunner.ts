// Runs sagas: each keeps its own checkpoint, skips events it already handled (by event id),
// and owns durable timers in saga_timers that fire after a restart too.
import type pg from 'pg';
import { createHash } from 'node:crypto';
import type { EventStore, RecordedEvent, Subscription } from '../domain/shared/eventStore.ts';
import type { Saga, SagaContext, SagaTimer } from './saga.ts';

export interface SagaRunner {
  start(): Promise<void>;
  stop(): Promise<void>;
  checkpoint(name: string): Promise<number>;
}

export interface SagaRunnerOptions {
  pool: pg.Pool;
  store: EventStore;
  sagas: Saga[];
  log?: (msg: string, extra?: Record<string, unknown>) => void;
  timerPollMs?: number;
  /** Due timers fired at once (default 16). */
  timerConcurrency?: number;
  clock?: () => Date;
  /** How many partitions of a partitioned saga run at once (default 4). */
  partitionConcurrency?: number;
  /** The fencing check of the lease this runner works under (bin/server.ts): asked before each
   * batch and each timer; false means the lease was lost, and nothing more is handled. */
  fence?: () => Promise<boolean>;
}

/** A deterministic UUID for an event a saga emits in reaction to `sourceEventId`. */
export function sagaEventId(saga: string, sourceEventId: string, index = 0): string {
  const h = createHash('sha256').update(`${saga}|${sourceEventId}|${index}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h[16], 16) & 0x3) | 0x8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * The checkpoint writes of one pool's sagas made in the same turn of the event loop, as one
 * statement. Every saga reads every batch of events (most hold none of its own: a node shard's
 * saga takes one node in sixteen) and moves its checkpoint after each, so one append was followed
 * by some forty UPDATEs, one PostgreSQL write transaction each. The writes of a turn are sent
 * after it, together, one statement after the other; each caller's promise settles when its
 * statement has (a failure fails them all, and each saga resumes from its stored checkpoint as
 * before). A checkpoint never moves back.
 */
const checkpointWrites = new WeakMap<object, (name: string, position: number) => Promise<void>>();

export function checkpointWriter(pool: pg.Pool): (name: string, position: number) => Promise<void> {
  const known = checkpointWrites.get(pool);
  if (known) return known;
  let gathering: Map<string, number> | null = null;
  let written: Promise<void> = Promise.resolve();
  // One statement at a time: two multi-row updates of the same rows could deadlock each other.
  let previous: Promise<unknown> = Promise.resolve();
  const write = (name: string, position: number): Promise<void> => {
    if (!gathering) {
      const batch = (gathering = new Map<string, number>());
      written = new Promise<void>((resolve, reject) => {
        setImmediate(() => {
          gathering = null;
          const names = [...batch.keys()].sort();
          const sent = previous.then(() => pool.query(
            `UPDATE saga_checkpoints AS c SET position = v.position
             FROM unnest($1::text[], $2::bigint[]) AS v(name, position)
             WHERE c.name = v.name AND c.position < v.position`,
            [names, names.map((n) => batch.get(n)!)],
          ));
          previous = sent.catch(() => undefined);
          sent.then(() => resolve(), reject);
        });
      });
    }
    gathering.set(name, Math.max(gathering.get(name) ?? 0, position));
    return written;
  };
  checkpointWrites.set(pool, write);
  return write;
}

/**
 * The timer writes (schedule or move) of one pool's sagas, gathered: those asked for in the same
 * turn, and those asked for while the previous statement is on its way, go to PostgreSQL as one
 * multi-row upsert. The health monitor reschedules every node's timer after every probe; one
 * statement per probe was, with the node stream read, most of a probe's own CPU (socket writes to
 * PostgreSQL). Each caller's promise settles when the statement holding its write has (a failure
 * fails the writes of that statement, as a failed single upsert did): a timer is never reported
 * moved before it is stored, and one not yet moved keeps its old due time, so it fires again after
 * a crash. Statements go one at a time, rows in id order (two multi-row upserts of the same rows
 * could deadlock each other); of two writes of one id in a statement, the later one is kept.
 * `after()` settles once every write asked for so far has (a cancel waits for it, so a cancel
 * never lands before a schedule asked for earlier).
 *
 * A write given `gatherMs` (the runner passes TIMER_GATHER_MS for a reschedule made by a timer's
 * own handler) starts a statement that waits that long for others instead of one turn: the probes
 * of one round fire together but end a few milliseconds apart (each waits for its node's answer),
 * so per turn they went out one or two rows a statement, about one statement per probe. Gathered
 * for 20 ms, a round of 24 Fabric nodes every second went from 0.7 to 0.2-0.3 statements per
 * probe and the service's CPU per probe down by about a third (docs/benchmarks.md). The wait
 * holds only the timer's handler (the next due time is an interval away); a write made while
 * handling an event goes after its turn as before, and joins a gathering statement if one waits.
 */
export interface TimerWriter {
  schedule(id: string, saga: string, dueAt: Date, payload: Record<string, unknown>, gatherMs?: number): Promise<void>;
  after(): Promise<void>;
}

/** How long a reschedule made by a timer's handler waits for others to join its statement. */
export const TIMER_GATHER_MS = 20;

const timerWriters = new WeakMap<object, TimerWriter>();

export function timerWriter(pool: pg.Pool): TimerWriter {
  const known = timerWriters.get(pool);
  if (known) return known;
  type Row = { saga: string; dueAt: string; payload: string };
  let gathering: { rows: Map<string, Row>; written: Promise<void> } | null = null;
  // The last statement sent (settled either way): the next one goes only after it.
  let previous: Promise<unknown> = Promise.resolve();
  let last: Promise<void> = Promise.resolve();
  const send = (rows: Map<string, Row>) => {
    const ids = [...rows.keys()].sort();
    return pool.query(
      `INSERT INTO saga_timers (id, saga, due_at, payload)
       SELECT * FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::jsonb[])
       ON CONFLICT (id) DO UPDATE SET due_at = EXCLUDED.due_at, payload = EXCLUDED.payload, fired_at = NULL`,
      [ids, ids.map((i) => rows.get(i)!.saga), ids.map((i) => rows.get(i)!.dueAt), ids.map((i) => rows.get(i)!.payload)],
    );
  };
  const writer: TimerWriter = {
    schedule(id, saga, dueAt, payload, gatherMs) {
      if (!gathering) {
        const rows = new Map<string, Row>();
        // Sent after this turn (or gatherMs), and not before the statement on its way has
        // settled: what is asked for meanwhile joins this one.
        const written = new Promise<void>((resolve, reject) => {
          const turn = new Promise<void>((r) => (gatherMs ? setTimeout(r, gatherMs) : setImmediate(r)));
          const sent = Promise.all([turn, previous]).then(() => {
            if (gathering?.rows === rows) gathering = null;
            return send(rows);
          });
          previous = sent.catch(() => undefined);
          sent.then(() => resolve(), reject);
        });
        gathering = { rows, written };
        last = written.catch(() => undefined);
      }
      gathering.rows.delete(id);
      gathering.rows.set(id, { saga, dueAt: dueAt.toISOString(), payload: JSON.stringify(payload) });
      return gathering.written;
    },
    after: () => last,
  };
  timerWriters.set(pool, writer);
  return writer;
}

/** The service's clock (a runner given none uses it, so runners of one pool share one timer poll). */
const systemClock = () => new Date();

type DueRow = { id: string; saga: string; due_at: Date; payload: Record<string, unknown> };
interface TimerPollClient {
  sagas: string[];
  stopped(): boolean;
  /** Its timers handed over and not yet settled (waiting for a free worker or firing), id to saga:
   * not asked for again, and counted against the saga's 100. */
  held: ReadonlyMap<string, string>;
  fire(rows: DueRow[]): void;
}

/** Due timers handed over per saga at most (those still held count): a backlog is bounded in memory. */
const DUE_PER_SAGA = 100;

/**
 * One timer poll per pool, clock and period for all the runners on them: the node shards' 16
 * runners and the work pieces' each polled saga_timers 4 times a second, some 80 queries a second
 * that found nothing most of the time. The shared poll asks once for the due timers of every
 * runner and hands each runner its own rows; a runner fires them as it did (its concurrency, its
 * fence). A runner still firing earlier timers is asked for too (its held timers left out, so none
 * fires twice): a slow probe does not hold back the runner's other due timers by a poll. The
 * polls keep to a fixed grid of the wall clock (multiples of the period): a repeating timer
 * (setInterval) starts its next period when the late tick ran, so on a busy event loop its ticks
 * slid later by a few milliseconds each, and every timer due on an interval of the period (the
 * health probes) waited a little longer each round: uneven spacing between a node's probes. A
 * tick that comes while the poll's query is still on its way polls again once that one is done.
 */
const timerPolls = new WeakMap<object, Map<string, { add(c: TimerPollClient): void; remove(c: TimerPollClient): void }>>();
const clockIds = new WeakMap<() => Date, number>();
let clocksSeen = 0;

/** Milliseconds from `nowMs` to the next multiple of `periodMs`, at least a quarter period away. */
export function untilNextPoll(nowMs: number, periodMs: number): number {
  const wait = periodMs - (nowMs % periodMs);
  return wait < periodMs / 4 ? wait + periodMs : wait;
}

function sharedTimerPoll(pool: pg.Pool, clock: () => Date, pollMs: number, log: (msg: string, extra?: Record<string, unknown>) => void) {
  if (!clockIds.has(clock)) clockIds.set(clock, clocksSeen++);
  const key = `${clockIds.get(clock)}|${pollMs}`;
  let polls = timerPolls.get(pool);
  if (!polls) timerPolls.set(pool, (polls = new Map()));
  const known = polls.get(key);
  if (known) return known;
  const clients = new Set<TimerPollClient>();
  let loop: NodeJS.Timeout | null = null;
  let polling = false;
  let again = false;
  const poll = async () => {
    if (polling) {
      again = true;
      return;
    }
    const ready = [...clients].filter((c) => !c.stopped());
    const bySaga = new Map<string, TimerPollClient>();
    const room = new Map<string, number>();
    const held: string[] = [];
    for (const c of ready) {
      const heldOf = new Map<string, number>();
      for (const [id, saga] of c.held) {
        held.push(id);
        heldOf.set(saga, (heldOf.get(saga) ?? 0) + 1);
      }
      for (const s of c.sagas) {
        const left = DUE_PER_SAGA - (heldOf.get(s) ?? 0);
        if (left > 0) {
          bySaga.set(s, c);
          room.set(s, left);
        }
      }
    }
    if (!bySaga.size) return;
    polling = true;
    try {
      const names = [...bySaga.keys()];
      // Per saga at most its room (100 less those it holds): one saga's backlog never crowds out the others'.
      const due = await pool.query(
        `SELECT t.id, t.saga, t.due_at, t.payload FROM (
           SELECT id, saga, due_at, payload, row_number() OVER (PARTITION BY saga ORDER BY due_at) AS n
           FROM saga_timers WHERE fired_at IS NULL AND due_at <= $1 AND saga = ANY($2) AND NOT (id = ANY($4))) AS t
         JOIN unnest($2::text[], $3::int[]) AS r(saga, room) ON r.saga = t.saga
         WHERE t.n <= r.room ORDER BY t.due_at`,
        [clock().toISOString(), names, names.map((n) => room.get(n)!), held],
      );
      const rowsOf = new Map<TimerPollClient, DueRow[]>();
      for (const row of due.rows as DueRow[]) {
        const c = bySaga.get(row.saga)!;
        rowsOf.set(c, [...(rowsOf.get(c) ?? []), row]);
      }
      for (const [c, rows] of rowsOf) if (clients.has(c)) c.fire(rows);
    } catch (err) {
      log('timer poll failed', { error: (err as Error).message });
    } finally {
      polling = false;
      if (again) {
        again = false;
        if (loop) void poll();
      }
    }
  };
  const tick = () => {
    loop = setTimeout(() => {
      tick();
      void poll();
    }, untilNextPoll(Date.now(), pollMs));
    loop.unref();
  };
  const shared = {
    add(c: TimerPollClient) {
      clients.add(c);
      if (!loop) tick();
      void poll();
    },
    remove(c: TimerPollClient) {
      clients.delete(c);
      if (!clients.size && loop) {
        clearTimeout(loop);
        loop = null;
      }
    },
  };
  polls.set(key, shared);
  return shared;
}

export function createSagaRunner({ pool, store, sagas, log = () => {}, timerPollMs = 250, clock = systemClock, partitionConcurrency = 4, timerConcurrency = 16, fence }: SagaRunnerOptions): SagaRunner {
  const subs: Subscription[] = [];
  const writeCheckpoint = checkpointWriter(pool);
  const writeTimer = timerWriter(pool);
  let stopped = true;
  // Only this runner's own timers: several runners (the singleton work, each node shard) share the table.
  const timerSagas = sagas.filter((s) => s.onTimer).map((s) => s.name);

  // `rescheduled` is given for a timer's own handler: its writes gather (TIMER_GATHER_MS).
  const context = (saga: Saga, rescheduled?: Set<string>): SagaContext => ({
    async schedule(id, dueAt, payload = {}) {
      rescheduled?.add(id);
      await writeTimer.schedule(id, saga.name, dueAt, payload, rescheduled ? TIMER_GATHER_MS : undefined);
    },
    async cancel(id) {
      await writeTimer.after();
      await pool.query('DELETE FROM saga_timers WHERE id = $1 AND saga = $2', [id, saga.name]);
    },
    now: clock,
    log: (msg, extra) => log(`[${saga.name}] ${msg}`, extra),
  });

  async function processBatch(saga: Saga, batch: RecordedEvent[]): Promise<void> {
    if (fence && !(await fence())) throw new Error('the lease on this work was lost');
    const ctx = context(saga);
    const handleOnce = async (e: RecordedEvent) => {
      const done = await pool.query('SELECT 1 FROM saga_processed WHERE saga = $1 AND event_id = $2', [saga.name, e.id]);
      if (done.rowCount === 0) {
        await saga.handle(e, ctx);
        await pool.query('INSERT INTO saga_processed (saga, event_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [saga.name, e.id]);
      }
    };
    const mine = batch.filter((e) => saga.handles.includes(e.type) && (!saga.accepts || saga.accepts(e)));
    if (saga.handleBatch) {
      if (mine.length) await saga.handleBatch(mine, ctx);
    } else if (saga.partitionBy) {
      const partitions = new Map<string, RecordedEvent[]>();
      for (const e of mine) {
        const key = saga.partitionBy(e);
        partitions.set(key, [...(partitions.get(key) ?? []), e]);
      }
      const queue = [...partitions.values()];
      const worker = async () => {
        for (let events = queue.shift(); events; events = queue.shift()) for (const e of events) await handleOnce(e);
      };
      // Every worker runs to the end before the checkpoint moves, even when one fails.
      const results = await Promise.allSettled(Array.from({ length: Math.min(partitionConcurrency, queue.length) }, worker));
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) throw failed.reason;
    } else {
      for (const e of mine) await handleOnce(e);
    }
    await writeCheckpoint(saga.name, batch[batch.length - 1].position);
  }

  async function startSaga(saga: Saga): Promise<void> {
    const head = saga.startAt === 'head' ? await store.headPosition() : 0;
    await pool.query('INSERT INTO saga_checkpoints (name, position) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [saga.name, head]);
    const from = Number((await pool.query('SELECT position FROM saga_checkpoints WHERE name = $1', [saga.name])).rows[0].position);
    const sub = store.subscribe(from, (batch) => processBatch(saga, batch), (err) => {
      log(`saga ${saga.name} failed; it resumes from its checkpoint`, { error: (err as Error).message });
      const i = subs.indexOf(sub);
      if (i >= 0) subs.splice(i, 1);
      setTimeout(() => {
        if (!stopped) void startSaga(saga).catch(() => {});
      }, 1000).unref();
    });
    subs.push(sub);
  }

  // The due timers the shared poll handed over: fired a few at a time (each has its own id, so no
  // two handle the same thing): one slow timer (a probe waiting out its timeout) must not hold up
  // the others, and those handed over while some still fire join the queue.
  const held = new Map<string, string>();
  const queue: DueRow[] = [];
  let workers = 0;
  const fireOne = async (row: DueRow) => {
    const saga = sagas.find((s) => s.name === row.saga);
    if (!saga?.onTimer) return;
    const timer: SagaTimer = { id: row.id, dueAt: new Date(row.due_at).toISOString(), payload: row.payload };
    const rescheduled = new Set<string>();
    try {
      if (fence && !(await fence())) return;
      await saga.onTimer(timer, context(saga, rescheduled));
      // Marked fired only if still due at the same time; a timer the saga rescheduled inside
      // onTimer (the health monitor's every probe) has a new due time already: nothing to mark.
      if (!rescheduled.has(row.id)) await pool.query('UPDATE saga_timers SET fired_at = now() WHERE id = $1 AND due_at = $2', [row.id, row.due_at]);
    } catch (err) {
      log(`timer ${row.id} of ${saga.name} failed; it fires again`, { error: (err as Error).message });
    }
  };
  const work = async () => {
    try {
      while (!stopped && queue.length) {
        const row = queue.shift()!;
        try {
          await fireOne(row);
        } finally {
          held.delete(row.id);
        }
      }
    } finally {
      workers--;
    }
  };
  function fireDueTimers(rows: DueRow[]): void {
    if (stopped) return;
    for (const row of rows) {
      if (held.has(row.id)) continue;
      held.set(row.id, row.saga);
      queue.push(row);
    }
    while (workers < timerConcurrency && queue.length) {
      workers++;
      void work();
    }
  }
  const pollClient: TimerPollClient = { sagas: timerSagas, stopped: () => stopped, held, fire: fireDueTimers };
  const timerPoll = sharedTimerPoll(pool, clock, timerPollMs, log);

  return {
    async start() {
      stopped = false;
      held.clear();
      for (const s of sagas) await startSaga(s);
      if (timerSagas.length) timerPoll.add(pollClient);
    },
    async stop() {
      stopped = true;
      timerPoll.remove(pollClient);
      // Timers handed over and not started stay due in the database: they fire after a restart.
      for (const row of queue.splice(0)) held.delete(row.id);
      await Promise.all(subs.splice(0).map((s) => s.close()));
      while (workers > 0) await new Promise((r) => setTimeout(r, 20));
    },
    async checkpoint(name) {
      const r = await pool.query('SELECT position FROM saga_checkpoints WHERE name = $1', [name]);
      return r.rowCount ? Number(r.rows[0].position) : 0;
    },
  };
}
