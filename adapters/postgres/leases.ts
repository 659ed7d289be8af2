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
  let timer: NodeJS.Timeout | null = null;
  let stopped = true;
  let round: Promise<void> = Promise.resolve();
  let validUntil = 0;
  const tick = async () => {
    if (stopped) return;
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
        if (got && !stopped) {
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
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      round = tick().finally(schedule);
    }, Math.max(200, Math.floor(ttlMs / 3)));
    timer.unref();
  };
  return {
    async start() {
      stopped = false;
      round = tick().finally(schedule);
      await round;
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await round;
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
