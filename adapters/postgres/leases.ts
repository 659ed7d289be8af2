// Leases in PostgreSQL with fencing tokens (migrations/1190_leases.sql). An instance acquires a
// named lease for a time to live and renews it before it runs out; another instance takes it only
// once it has expired (or was released), and the token then grows by one. Whoever writes an effect
// of the work checks its token still holds (`holds`), so an instance that lost its lease (paused
// past its expiry, cut off from the database) cannot act on it any more. Times are the database's
// clock, so instances on different hosts need not agree on theirs.
import type pg from 'pg';

export interface Lease {
  name: string;
  token: number;
}

export interface Leases {
  /** The lease, new (a higher token) or renewed (the same token), or null while another holds it. */
  acquire(name: string, ttlMs: number): Promise<Lease | null>;
  /** Extends a lease this holder still has under that token; false when it was lost. */
  renew(lease: Lease, ttlMs: number): Promise<boolean>;
  /** Whether the lease is still this holder's under that token and unexpired (the fencing check). */
  holds(lease: Lease): Promise<boolean>;
  /** Gives the lease up at once, so another instance takes it without waiting for the expiry. */
  release(lease: Lease): Promise<void>;
}

export function postgresLeases(pool: pg.Pool, holder: string): Leases {
  return {
    async acquire(name, ttlMs) {
      const r = await pool.query(
        `INSERT INTO leases (name, holder, token, expires_at) VALUES ($1, $2, 1, now() + $3 * interval '1 millisecond')
         ON CONFLICT (name) DO UPDATE SET
           token = CASE WHEN leases.holder = EXCLUDED.holder AND leases.expires_at > now() THEN leases.token ELSE leases.token + 1 END,
           acquired_at = CASE WHEN leases.holder = EXCLUDED.holder AND leases.expires_at > now() THEN leases.acquired_at ELSE now() END,
           holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at
         WHERE leases.holder = EXCLUDED.holder OR leases.expires_at <= now()
         RETURNING token`,
        [name, holder, ttlMs],
      );
      return r.rowCount ? { name, token: Number(r.rows[0].token) } : null;
    },
    async renew(lease, ttlMs) {
      const r = await pool.query(
        `UPDATE leases SET expires_at = now() + $4 * interval '1 millisecond'
          WHERE name = $1 AND holder = $2 AND token = $3 AND expires_at > now()`,
        [lease.name, holder, lease.token, ttlMs],
      );
      return r.rowCount === 1;
    },
    async holds(lease) {
      const r = await pool.query('SELECT 1 FROM leases WHERE name = $1 AND holder = $2 AND token = $3 AND expires_at > now()', [lease.name, holder, lease.token]);
      return r.rowCount === 1;
    },
    async release(lease) {
      await pool.query(`UPDATE leases SET expires_at = now() WHERE name = $1 AND holder = $2 AND token = $3`, [lease.name, holder, lease.token]);
    },
  };
}

export interface LeasedWork {
  /** Tries for the lease now and every renewal period after, until stopped; resolves after the first try. */
  start(): Promise<void>;
  /** Stops the work if it runs and releases the lease. */
  stop(): Promise<void>;
  /** The lease while held, else null. */
  held(): Lease | null;
  /**
   * The fencing check without a query: true while the lease is held and this instance's own clock
   * says it cannot have run out yet. The expiry is counted from before the acquire or renewal was
   * sent, less a fifth of the time to live for clock drift, so it errs towards stopping early; an
   * instance paused past it sees false and does not act.
   */
  valid(): boolean;
}

/**
 * Runs work only while this instance holds the named lease: started once acquired, stopped as
 * soon as a renewal fails (lost to another instance, or the database did not answer before the
 * lease ran out). Renewed every third of the time to live, so a dead holder's work moves to
 * another instance within ttl + ttl/3.
 */
export function leasedWork(leases: Leases, name: string, ttlMs: number, work: { start(lease: Lease): Promise<void> | void; stop(): Promise<void> }, log: (msg: string, extra?: Record<string, unknown>) => void = () => {}): LeasedWork {
  let lease: Lease | null = null;
  let validUntil = 0;
  const tick = async () => {
    if (loop.stopped()) return;
    const sentAt = performance.now();
    try {
      if (lease) {
        if (await leases.renew(lease, ttlMs)) validUntil = sentAt + ttlMs * 0.8;
        else {
          log('lease lost; its work stops', { lease: name, token: lease.token });
          lease = null;
          await work.stop();
        }
      } else {
        const got = await leases.acquire(name, ttlMs);
        if (got && !loop.stopped()) {
          lease = got;
          validUntil = sentAt + ttlMs * 0.8;
          log('lease acquired; its work starts here', { lease: name, token: got.token });
          await work.start(got);
        }
      }
    } catch (err) {
      log('lease round failed', { lease: name, error: (err as Error).message });
    }
  };
  const loop = renewalRounds(tick, ttlMs);
  return {
    start: () => loop.start(),
    async stop() {
      await loop.halt();
      if (lease) {
        const l = lease;
        lease = null;
        await work.stop();
        await leases.release(l).catch(() => {});
      }
    },
    held: () => lease,
    valid: () => lease !== null && performance.now() < validUntil,
  };
}

export interface ShardedWork {
  /** Claims a fair share of the shards now and every renewal period after, until stopped. */
  start(): Promise<void>;
  /** Stops the work of every held shard and releases their leases. */
  stop(): Promise<void>;
  /** The shards held now (their work runs here). */
  held(): number[];
  /** The fencing check of one shard without a query (see LeasedWork.valid). */
  valid(shard: number): boolean;
}

/**
 * Work partitioned over a fixed number of shards, each owned through its own lease, spread over
 * the live instances. Each instance keeps a presence lease (`instance:<holder>`, renewed first in
 * each round, so it runs out no later than the holder's shard leases); every round it counts the
 * live instances, renews what it holds, gives back shards above its fair share (ceil(shards /
 * live)) so a newcomer can take them, and claims free or expired shards up to its share. One round
 * is a handful of queries every ttl/3, whatever the number of nodes. A dead instance's shards are
 * taken by the others within ttl + ttl/3, like a single lease.
 */
export function shardedWork(
  pool: pg.Pool,
  leases: Leases,
  holder: string,
  options: { shards: number; leaseName: (shard: number) => string; ttlMs: number },
  work: { start(shard: number, lease: Lease): Promise<void> | void; stop(shard: number): Promise<void> },
  log: (msg: string, extra?: Record<string, unknown>) => void = () => {},
): ShardedWork {
  const { shards, leaseName, ttlMs } = options;
  const held = new Map<number, { lease: Lease; validUntil: number }>();
  const presenceName = `instance:${holder}`;
  let presence: Lease | null = null;
  // This instance's order of preference: from a holder-dependent shard (instances starting
  // together do not race for the same ones), striding across the ring by a step coprime with the
  // count (it visits every shard), so one instance's shards are spread, not a run of neighbouring node ids.
  const offset = [...holder].reduce((a, c) => (a * 31 + c.charCodeAt(0)) >>> 0, 7) % shards;
  const step = coprimeStep(shards);
  const preferred = Array.from({ length: shards }, (_, i) => (offset + i * step) % shards);
  const rank = (shard: number) => preferred.indexOf(shard);
  const drop = async (shard: number, release: boolean) => {
    const h = held.get(shard);
    if (!h) return;
    held.delete(shard);
    await work.stop(shard).catch((err: Error) => log('shard work did not stop cleanly', { shard, error: err.message }));
    if (release) await leases.release(h.lease).catch(() => {});
  };
  const tick = async () => {
    if (loop.stopped()) return;
    const sentAt = performance.now();
    try {
      presence = await leases.acquire(presenceName, ttlMs);
      const live = Number((await pool.query(`SELECT count(*) AS n FROM leases WHERE name LIKE 'instance:%' AND expires_at > now()`)).rows[0].n);
      const share = Math.ceil(shards / Math.max(1, live));
      for (const [shard, h] of [...held]) {
        if (await leases.renew(h.lease, ttlMs)) h.validUntil = sentAt + ttlMs * 0.8;
        else {
          log('shard lease lost; its work stops', { lease: h.lease.name, token: h.lease.token });
          await drop(shard, false);
        }
      }
      // Above the fair share (an instance joined): give back the shards last in this instance's
      // order of preference, so what it keeps stays spread over the node ids.
      for (const shard of [...held.keys()].sort((a, b) => rank(b) - rank(a)).slice(0, Math.max(0, held.size - share))) {
        log('shard handed over to even out the work', { shard, live, share });
        await drop(shard, true);
      }
      if (held.size < share && !loop.stopped()) {
        // Taken by others; this holder's own unexpired ones (from before a restart under the same id) are renewed by acquire.
        const taken = new Set((await pool.query(`SELECT name FROM leases WHERE name = ANY($1) AND expires_at > now() AND holder <> $2`, [Array.from({ length: shards }, (_, k) => leaseName(k)), holder])).rows.map((r) => r.name as string));
        // One line for the round, not one per shard (a first start takes all of them at once).
        const acquired: Lease[] = [];
        try {
          for (let i = 0; i < shards && held.size < share && !loop.stopped(); i++) {
            const shard = preferred[i];
            if (held.has(shard) || taken.has(leaseName(shard))) continue;
            const got = await leases.acquire(leaseName(shard), ttlMs);
            if (!got) continue;
            held.set(shard, { lease: got, validUntil: sentAt + ttlMs * 0.8 });
            acquired.push(got);
            await work.start(shard, got);
          }
        } finally {
          if (acquired.length === 1) log('shard lease acquired; its work starts here', { lease: acquired[0].name, token: acquired[0].token });
          else if (acquired.length > 1) log(`${acquired.length} shard leases acquired; their work starts here`, { leases: acquired.map((l) => `${l.name}#${l.token}`) });
        }
      }
    } catch (err) {
      log('shard lease round failed', { error: (err as Error).message });
    }
  };
  const loop = renewalRounds(tick, ttlMs);
  return {
    start: () => loop.start(),
    async stop() {
      await loop.halt();
      // Presence first: the others' next round counts one instance fewer and takes the released
      // shards up to their new share at once, not one round later.
      if (presence) await leases.release(presence).catch(() => {});
      presence = null;
      for (const shard of [...held.keys()]) await drop(shard, true);
    },
    held: () => [...held.keys()].sort((a, b) => a - b),
    valid: (shard) => {
      const h = held.get(shard);
      return h !== undefined && performance.now() < h.validUntil;
    },
  };
}

/** A step near shards/2 that shares no factor with shards, so (i * step) % shards visits every shard. */
function coprimeStep(shards: number): number {
  const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
  for (let step = Math.max(1, Math.floor(shards / 2) - 1); step > 1; step--) if (gcd(step, shards) === 1) return step;
  return 1;
}

/**
 * The renewal rounds leasedWork and shardedWork share: a first round at start, then one every
 * third of the ttl (200 ms at least); halt waits for the running round.
 */
function renewalRounds(tick: () => Promise<void>, ttlMs: number) {
  let timer: NodeJS.Timeout | null = null;
  let stopped = true;
  let round: Promise<void> = Promise.resolve();
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      round = tick().finally(schedule);
    }, Math.max(200, Math.floor(ttlMs / 3)));
    timer.unref();
  };
  return {
    stopped: () => stopped,
    async start() {
      stopped = false;
      round = tick().finally(schedule);
      await round;
    },
    async halt() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await round;
    },
  };
}
