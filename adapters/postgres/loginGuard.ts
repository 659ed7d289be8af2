// The LoginGuard over PostgreSQL: the pure rules of domain/users/loginThrottle.ts, with the
// counters in the login_throttle table, so several
// instances on one database count every attempt together. An attempt locks its two rows
// (username and address, in key order) for the read-modify-write. Rows without failures in
// the window and without a running lockout are pruned now and then.
import type pg from 'pg';
import { checkLogin, recordFailure, recordSuccess, type LoginThrottlePolicy, type LoginThrottleState, type UnauthorizedAccessAlert } from '../../domain/users/loginThrottle.ts';
import type { LoginGuard, LoginLimits } from '../../domain/users/ports.ts';

const IP_ALLOWANCE_FACTOR = 5;

function policyOf(l: LoginLimits): LoginThrottlePolicy {
  const p = { windowMs: l.windowMinutes * 60_000, softLimit: l.softLimit, hardLimit: l.hardLimit, lockoutMs: l.lockoutMinutes * 60_000, baseDelayMs: 1_000, maxDelayMs: 60_000 };
  return { username: p, ip: { ...p, softLimit: p.softLimit * IP_ALLOWANCE_FACTOR, hardLimit: p.hardLimit * IP_ALLOWANCE_FACTOR } };
}

const keysOf = (username: string, ip: string) => [`ip:${ip}`, `user:${username.toLowerCase()}`].sort();

export function postgresLoginGuard(pool: pg.Pool): LoginGuard {
  let lastPrune = 0;
  async function read(client: pg.PoolClient | pg.Pool, keys: string[], lock: boolean): Promise<LoginThrottleState> {
    const r = await client.query(`SELECT key, entry FROM login_throttle WHERE key = ANY($1) ORDER BY key${lock ? ' FOR UPDATE' : ''}`, [keys]);
    return { entries: Object.fromEntries(r.rows.map((row) => [row.key, row.entry])) };
  }
  async function update(username: string, ip: string, change: (s: LoginThrottleState) => LoginThrottleState): Promise<LoginThrottleState> {
    const keys = keysOf(username, ip);
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      // The rows exist before they are locked, so two first attempts do not both insert.
      await client.query(`INSERT INTO login_throttle (key, entry) SELECT k, '{"failures":[],"lockedUntil":null}'::jsonb FROM unnest($1::text[]) k ON CONFLICT DO NOTHING`, [keys]);
      const before = await read(client, keys, true);
      const after = change(before);
      for (const k of keys) {
        const e = after.entries[k] ?? { failures: [], lockedUntil: null };
        await client.query('UPDATE login_throttle SET entry = $2, updated_at = now() WHERE key = $1', [k, JSON.stringify(e)]);
      }
      await client.query('COMMIT');
      return after;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    } finally {
      client.release();
    }
  }
  return {
    async check(username, ip, now, limits) {
      const t = now.getTime();
      if (t - lastPrune > 60_000) {
        lastPrune = t;
        const windowMs = Math.max(limits.windowMinutes, limits.lockoutMinutes) * 60_000;
        void pool.query(`DELETE FROM login_throttle WHERE updated_at < now() - $1 * interval '1 millisecond'`, [windowMs]).catch(() => {});
      }
      const state = await read(pool, keysOf(username, ip), false);
      const c = checkLogin(state, { username, ip }, t, policyOf(limits));
      return c.allowed ? { allowed: true, delayMs: 0 } : { allowed: false, locked: c.reason === 'locked', retryAfterSeconds: Math.max(1, Math.ceil(c.retryAfterMs / 1000)) };
    },
    async failure(username, ip, now, limits) {
      let alert: UnauthorizedAccessAlert | null = null as UnauthorizedAccessAlert | null;
      await update(username, ip, (s) => {
        const r = recordFailure(s, { username, ip }, now.getTime(), policyOf(limits));
        alert = r.alert;
        return r.state;
      });
      return alert ? { lockout: { username: alert.username, ip: alert.ip, failures: alert.failures, lockedUntil: alert.lockedUntil } } : {};
    },
    async success(username, ip) {
      await update(username, ip, (s) => recordSuccess(s, { username, ip }));
    },
  };
}
