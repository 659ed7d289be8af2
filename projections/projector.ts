// Runs the projections: reads events after the lowest checkpoint, applies each batch and
// advances the checkpoints in one transaction (exactly-once per projection), and lets writers
// wait until their events are visible (read-your-writes).
import type pg from 'pg';
import type { EventStore, RecordedEvent, Subscription } from '../domain/shared/eventStore.ts';
import { UnavailableError } from '../domain/shared/errors.ts';
import type { Projection } from './projection.ts';

export interface Projector {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Resolves when every projection has applied `position`. */
  waitFor(position: number, timeoutMs?: number): Promise<void>;
  /** Lowest checkpoint over all projections. */
  position(): number;
  /** Empties every projection table and replays from position 0 up to the head. */
  rebuild(): Promise<{ events: number }>;
  lastError(): string | null;
  /**
   * Calls `listener` with each batch of events once the projection tables hold it (after its
   * commit, before waitFor of its positions resolves), whoever appended the events (this server
   * or another one on the same database: every server's projector sees every event); `null`
   * when the tables were emptied (rebuild). Returns the unsubscribe. For caches over projections.
   */
  onApplied?(listener: AppliedListener): () => void;
  /**
   * Another projector on the database (another instance, or this one) committed every projection
   * up to `position` (PostgreSQL NOTIFY lnm_projected, heard on the instance's one listening
   * connection). The tables already hold it: this projector catches up at once (tells its applied
   * listeners and releases its waiters) instead of waiting for its own subscription and the
   * checkpoints' row locks.
   */
  noticed?(position: number): void;
  /**
   * Whether this projector's caches may answer now: true at once when no other instance is on the
   * database (this projector tells its listeners of every change before its waiters go on);
   * otherwise, after one shared round trip on the listening connection, whether every change
   * another instance acknowledged before the call has been heard and caught up with.
   */
  fresh?(): true | Promise<boolean>;
  /** Whether a notice named a position this projector's listeners have not been told of yet: caches answer from the tables meanwhile. */
  behind?(): boolean;
}

/** The channel every projector notifies with its committed position (the shared checkpoint). */
export const PROJECTED_CHANNEL = 'lnm_projected';

export type AppliedListener = (batch: readonly RecordedEvent[] | null) => void;

export interface ProjectorOptions {
  pool: pg.Pool;
  store: EventStore;
  projections: Projection[];
  log?: (msg: string, extra?: Record<string, unknown>) => void;
  /** The instance's listening connection (adapters/postgres/notices.ts): for fresh(). */
  notices?: { barrier(): Promise<boolean>; peers(): boolean };
}

export function createProjector({ pool, store, projections, log = () => {}, notices }: ProjectorOptions): Projector {
  let current = 0;
  let sub: Subscription | null = null;
  let error: string | null = null;
  const waiters: Array<{ position: number; resolve: () => void }> = [];
  const appliedListeners = new Set<AppliedListener>();
  const applied = (batch: readonly RecordedEvent[] | null) => {
    for (const l of appliedListeners) {
      try {
        l(batch);
      } catch (err) {
        log('a listener of applied events failed', { error: (err as Error).message });
      }
    }
  };
  const byType = new Map<string, Projection[]>();
  const everything = projections.filter((p) => p.handles === '*');
  for (const p of projections) if (p.handles !== '*') for (const t of p.handles) byType.set(t, [...(byType.get(t) ?? []), p]);
  const handlersOf = (type: string) => [...(byType.get(type) ?? []), ...everything];

  function release() {
    for (let i = waiters.length - 1; i >= 0; i--) {
      if (waiters[i].position <= current) {
        waiters[i].resolve();
        waiters.splice(i, 1);
      }
    }
  }

  async function readCheckpoints(client: pg.PoolClient | pg.Pool, lock: boolean): Promise<Map<string, number>> {
    const names = projections.map((p) => p.name);
    await client.query(
      `INSERT INTO projection_checkpoints (name, position) SELECT unnest($1::text[]), 0 ON CONFLICT (name) DO NOTHING`,
      [names],
    );
    const res = await client.query(`SELECT name, position FROM projection_checkpoints WHERE name = ANY($1) ${lock ? 'FOR UPDATE' : ''}`, [names]);
    return new Map(res.rows.map((r) => [r.name as string, Number(r.position)]));
  }

  async function applyBatch(batch: RecordedEvent[]): Promise<void> {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      // Row locks on the checkpoints make a second projector (another server on the same
      // database) wait, and the position filter makes it skip what this one applied.
      const checkpoints = await readCheckpoints(client, true);
      for (const e of batch) {
        for (const p of handlersOf(e.type)) {
          if (e.position <= (checkpoints.get(p.name) ?? 0)) continue;
          for (const st of p.apply(e)) await client.query(st.text, st.values);
        }
      }
      const last = batch[batch.length - 1].position;
      const moved = await client.query(`UPDATE projection_checkpoints SET position = $1 WHERE name = ANY($2) AND position < $1`, [last, projections.map((p) => p.name)]);
      // Delivered at commit to every instance's listening connection (the shared checkpoint).
      if (moved.rowCount) await client.query(`SELECT pg_notify('${PROJECTED_CHANNEL}', $1)`, [String(last)]);
      await client.query('COMMIT');
      current = Math.max(current, last);
      error = null;
      applied(batch);
      release();
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      error = (err as Error).message;
      throw err;
    } finally {
      client.release();
    }
  }

  function subscribeFrom(from: number) {
    sub = store.subscribe(from, applyBatch, (err) => {
      log('projection failed; retrying', { error: (err as Error).message });
      sub = null;
      // Retry from the committed checkpoint after a pause; events are never skipped.
      setTimeout(() => {
        if (stopped) return;
        void readCheckpoints(pool, false).then((m) => subscribeFrom(Math.min(...m.values())), () => subscribeFrom(current));
      }, 1000).unref();
    });
  }

  // Catching up after a notice: the events up to the noticed position are read (for the
  // listeners' relevance checks), not applied: the noticing projector committed them.
  let noticedUpTo = 0;
  let catching: Promise<void> | null = null;
  async function catchUp(): Promise<void> {
    while (noticedUpTo > current && !stopped) {
      const target = noticedUpTo;
      const limit = Math.min(1000, target - current);
      const upTo = (await store.readAll(current, limit)).filter((e) => e.position <= target);
      if (upTo.length) applied(upTo);
      current = Math.max(current, upTo.length < limit ? target : upTo[upTo.length - 1].position);
      release();
    }
  }

  function noticed(position: number): void {
    if (position <= current || stopped) return;
    noticedUpTo = Math.max(noticedUpTo, position);
    let failed = false;
    catching ??= catchUp()
      .catch((err: Error) => {
        failed = true; // behind() stays true until the subscription has applied the events
        log('catching up with another instance failed; the subscription still applies the events', { error: err.message });
      })
      .finally(() => {
        catching = null;
        if (!failed && noticedUpTo > current) noticed(noticedUpTo);
      });
  }

  let stopped = true;
  return {
    async start() {
      stopped = false;
      const m = await readCheckpoints(pool, false);
      current = projections.length ? Math.min(...m.values()) : await store.headPosition();
      subscribeFrom(current);
    },
    async stop() {
      stopped = true;
      await sub?.close();
      sub = null;
    },
    waitFor(position, timeoutMs = 10_000) {
      if (position <= current) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const w = { position, resolve: () => { clearTimeout(t); resolve(); } };
        const t = setTimeout(() => {
          const i = waiters.indexOf(w);
          if (i >= 0) waiters.splice(i, 1);
          reject(new UnavailableError(`The change was saved (event position ${position}) but the read models have not caught up yet${error ? ' (a projection is failing: see GET /api/v1/health)' : ''}. Retry the read shortly.`));
        }, timeoutMs);
        waiters.push(w);
      });
    },
    position: () => current,
    noticed,
    behind: () => noticedUpTo > current,
    fresh() {
      if (noticedUpTo > current) return Promise.resolve(false);
      if (!notices?.peers()) return true;
      return notices.barrier().then((ok) => ok && noticedUpTo <= current);
    },
    lastError: () => error,
    onApplied(listener) {
      appliedListeners.add(listener);
      return () => void appliedListeners.delete(listener);
    },
    async rebuild() {
      const wasRunning = !stopped;
      if (wasRunning) await this.stop();
      const tables = [...new Set(projections.flatMap((p) => p.tables))];
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        if (tables.length) await client.query(`TRUNCATE ${tables.join(', ')}`);
        await client.query(`UPDATE projection_checkpoints SET position = 0 WHERE name = ANY($1)`, [projections.map((p) => p.name)]);
        await client.query('COMMIT');
        applied(null);
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw err;
      } finally {
        client.release();
      }
      current = 0;
      let events = 0;
      for (;;) {
        const batch = await store.readAll(current, 1000);
        if (batch.length === 0) break;
        await applyBatch(batch);
        events += batch.length;
      }
      if (wasRunning) await this.start();
      return { events };
    },
  };
}
