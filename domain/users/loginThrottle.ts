// Brute-force protection for logins, keyed by username and by client IP address. Pure: the
// clock arrives as `now` (epoch milliseconds); state is plain data, so it can live in memory and
// be rebuilt by replaying failed/succeeded login events through the same functions.
//
//   initialThrottleState()                              empty state
//   checkLogin(state, attempt, now, policy?)            may this attempt proceed? (call BEFORE the password check)
//   recordFailure(state, attempt, now, policy?)         -> { state, alert }; alert = raise security.unauthorized_access
//   recordSuccess(state, attempt)                       clears the username key
//   pruneThrottle(state, now, policy?)                  drops keys with nothing left to remember
//
// Rules, per key: failures older than `windowMs` are forgotten. After more than `softLimit`
// failures, each further attempt must wait 2^(n - softLimit) x baseDelayMs after the last one
// (capped at maxDelayMs). Reaching `hardLimit` failures locks the key for `lockoutMs`; the
// failure list is cleared then, so the key starts afresh when the lockout ends. The lockout
// produces exactly one alert. Failures recorded while locked count but never extend the lock.
// Success clears only the username key: clearing the IP key would let an attacker holding one
// valid account reset the counter between guesses at other accounts.
// The same rules apply to usernames that exist and those that do not, so nothing here tells
// which is which.

export interface ThrottlePolicy {
  windowMs: number;
  softLimit: number;
  hardLimit: number;
  lockoutMs: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export interface LoginThrottlePolicy {
  username: ThrottlePolicy;
  /** Raise these where many users share one address (NAT, a corporate proxy). */
  ip: ThrottlePolicy;
}

const perKey: ThrottlePolicy = {
  windowMs: 15 * 60_000,
  softLimit: 5,
  hardLimit: 10,
  lockoutMs: 15 * 60_000,
  baseDelayMs: 1_000,
  maxDelayMs: 60_000,
};

export const defaultLoginThrottlePolicy: LoginThrottlePolicy = { username: perKey, ip: perKey };

export interface ThrottleEntry {
  /** Epoch ms of the failures inside the window, oldest first. */
  failures: number[];
  /** Epoch ms until which the key is locked, or null. */
  lockedUntil: number | null;
}

export interface LoginThrottleState {
  /** Keys are `user:<lower-cased username>` and `ip:<address>`. */
  entries: Record<string, ThrottleEntry>;
}

export interface LoginAttempt {
  username: string;
  ip: string;
}

export type LoginCheck =
  | { allowed: true }
  | { allowed: false; reason: 'delayed' | 'locked'; retryAfterMs: number; until: number };

/** The data of a security.unauthorized_access event. */
export interface UnauthorizedAccessAlert {
  username: string;
  ip: string;
  /** Failures that led to the lockout (the larger of the username's and the address's). */
  failures: number;
  /** ISO 8601 UTC end of the lockout. */
  lockedUntil: string;
  /** Which keys this failure locked. */
  locked: Array<'username' | 'ip'>;
}

type Kind = 'username' | 'ip';

export const initialThrottleState = (): LoginThrottleState => ({ entries: {} });

const keyOf = (kind: Kind, a: LoginAttempt) => (kind === 'username' ? `user:${a.username.toLowerCase()}` : `ip:${a.ip}`);

const recent = (e: ThrottleEntry | undefined, now: number, p: ThrottlePolicy) =>
  (e?.failures ?? []).filter((t) => t > now - p.windowMs && t <= now);

/** Wait required after `n` failures, before the next attempt. */
export function delayAfter(n: number, p: ThrottlePolicy): number {
  if (n <= p.softLimit) return 0;
  return Math.min(p.maxDelayMs, p.baseDelayMs * 2 ** Math.min(n - p.softLimit, 30));
}

function keyCheck(e: ThrottleEntry | undefined, now: number, p: ThrottlePolicy): LoginCheck {
  if (e?.lockedUntil != null && e.lockedUntil > now) {
    return { allowed: false, reason: 'locked', retryAfterMs: e.lockedUntil - now, until: e.lockedUntil };
  }
  const failures = recent(e, now, p);
  const until = failures.length ? failures[failures.length - 1] + delayAfter(failures.length, p) : now;
  return until > now ? { allowed: false, reason: 'delayed', retryAfterMs: until - now, until } : { allowed: true };
}

export function checkLogin(
  s: LoginThrottleState,
  a: LoginAttempt,
  now: number,
  policy: LoginThrottlePolicy = defaultLoginThrottlePolicy,
): LoginCheck {
  const checks = (['username', 'ip'] as const).map((k) => keyCheck(s.entries[keyOf(k, a)], now, policy[k]));
  // The stricter key wins: a lock over a delay, then the longer wait.
  let verdict: LoginCheck = { allowed: true };
  for (const c of checks) {
    if (c.allowed) continue;
    if (verdict.allowed || (c.reason === 'locked' && verdict.reason === 'delayed') || (c.reason === verdict.reason && c.until > verdict.until)) verdict = c;
  }
  return verdict;
}

export function recordFailure(
  s: LoginThrottleState,
  a: LoginAttempt,
  now: number,
  policy: LoginThrottlePolicy = defaultLoginThrottlePolicy,
): { state: LoginThrottleState; alert: UnauthorizedAccessAlert | null } {
  const entries = { ...s.entries };
  const locked: Kind[] = [];
  let failures = 0;
  let lockedUntil = 0;
  for (const kind of ['username', 'ip'] as const) {
    const p = policy[kind];
    const key = keyOf(kind, a);
    const before = entries[key];
    const stillLocked = before?.lockedUntil != null && before.lockedUntil > now;
    const list = [...recent(before, now, p), now].slice(-Math.max(p.hardLimit, 1) * 2);
    if (!stillLocked && list.length >= p.hardLimit) {
      entries[key] = { failures: [], lockedUntil: now + p.lockoutMs };
      locked.push(kind);
      failures = Math.max(failures, list.length);
      lockedUntil = Math.max(lockedUntil, now + p.lockoutMs);
    } else {
      entries[key] = { failures: list, lockedUntil: stillLocked ? before!.lockedUntil : null };
    }
  }
  const alert = locked.length
    ? { username: a.username, ip: a.ip, failures, lockedUntil: new Date(lockedUntil).toISOString(), locked }
    : null;
  return { state: { entries }, alert };
}

export function recordSuccess(s: LoginThrottleState, a: LoginAttempt): LoginThrottleState {
  const key = keyOf('username', a);
  if (!(key in s.entries)) return s;
  const entries = { ...s.entries };
  delete entries[key];
  return { entries };
}

/** Drops keys with no failure in the window and no running lock (bounds memory under spraying). */
export function pruneThrottle(
  s: LoginThrottleState,
  now: number,
  policy: LoginThrottlePolicy = defaultLoginThrottlePolicy,
): LoginThrottleState {
  const entries: Record<string, ThrottleEntry> = {};
  for (const [key, e] of Object.entries(s.entries)) {
    const p = key.startsWith('ip:') ? policy.ip : policy.username;
    const failures = recent(e, now, p);
    const lockedUntil = e.lockedUntil != null && e.lockedUntil > now ? e.lockedUntil : null;
    if (failures.length || lockedUntil != null) entries[key] = { failures, lockedUntil };
  }
  return { entries };
}
