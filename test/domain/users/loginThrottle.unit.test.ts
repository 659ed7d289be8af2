import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  checkLogin,
  defaultLoginThrottlePolicy,
  delayAfter,
  initialThrottleState,
  pruneThrottle,
  recordFailure,
  recordSuccess,
  type LoginAttempt,
  type LoginThrottleState,
  type UnauthorizedAccessAlert,
} from '../../../domain/users/loginThrottle.ts';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const sec = 1_000;
const min = 60 * sec;
const alice: LoginAttempt = { username: 'alice', ip: '10.0.0.1' };

/** Fails `n` times, each attempt made as soon as the throttle allows; returns state, clock and alerts. */
function failRepeatedly(n: number, a: LoginAttempt, s = initialThrottleState(), now = T0) {
  const alerts: UnauthorizedAccessAlert[] = [];
  for (let i = 0; i < n; i++) {
    const c = checkLogin(s, a, now);
    if (!c.allowed) now = c.until;
    const r = recordFailure(s, a, now);
    s = r.state;
    if (r.alert) alerts.push(r.alert);
  }
  return { s, now, alerts };
}

test('the first five failures within the window impose no delay', () => {
  const { s, now } = failRepeatedly(5, alice);
  assert.equal(checkLogin(s, alice, now), { allowed: true });
});

test('the sixth failure makes the next attempt wait 2 s, the seventh 4 s (2^(n-5) s)', () => {
  let { s, now } = failRepeatedly(6, alice);
  const c6 = checkLogin(s, alice, now);
  assert.equal(c6, { allowed: false, reason: 'delayed', retryAfterMs: 2 * sec, until: now + 2 * sec });
  assert.equal(checkLogin(s, alice, now + 2 * sec), { allowed: true });
  s = recordFailure(s, alice, (now += 2 * sec)).state;
  const c7 = checkLogin(s, alice, now + 1);
  assert.is(c7.allowed, false);
  if (!c7.allowed) assert.is(c7.retryAfterMs, 4 * sec - 1);
});

test('the delay is capped', () => {
  const p = defaultLoginThrottlePolicy.username;
  assert.is(delayAfter(5, p), 0);
  assert.is(delayAfter(9, p), 16 * sec);
  assert.is(delayAfter(40, p), p.maxDelayMs);
});

test('the tenth failure locks the username for 15 minutes and raises one unauthorized-access alert', () => {
  const { s, now, alerts } = failRepeatedly(10, alice);
  const c = checkLogin(s, alice, now + 1);
  assert.is(c.allowed, false);
  if (!c.allowed) {
    assert.is(c.reason, 'locked');
    assert.is(c.until, now + 15 * min);
  }
  assert.equal(alerts, [
    { username: 'alice', ip: '10.0.0.1', failures: 10, lockedUntil: new Date(now + 15 * min).toISOString(), locked: ['username', 'ip'] },
  ]);
});

test('failures during a lockout neither extend it nor raise another alert', () => {
  let { s, now } = failRepeatedly(10, alice);
  const lockEnd = now + 15 * min;
  for (let i = 1; i <= 20; i++) {
    const r = recordFailure(s, alice, now + i * sec);
    assert.is(r.alert, null);
    s = r.state;
  }
  const c = checkLogin(s, alice, now + 30 * sec);
  assert.is(!c.allowed && c.until, lockEnd);
});

test('after the lockout ends the key starts afresh, and a second lockout raises a second alert', () => {
  let { s, now } = failRepeatedly(10, alice);
  now += 15 * min;
  assert.equal(checkLogin(s, alice, now), { allowed: true });
  const again = failRepeatedly(10, alice, s, now);
  assert.is(again.alerts.length, 1);
});

test('failures older than the window are forgotten', () => {
  let { s, now } = failRepeatedly(7, alice);
  now += 15 * min + 1;
  assert.equal(checkLogin(s, alice, now), { allowed: true });
  s = recordFailure(s, alice, now).state;
  assert.equal(checkLogin(s, alice, now), { allowed: true }, 'one failure in the window: no delay');
});

test('a success clears the username key but not the address key', () => {
  let { s, now } = failRepeatedly(7, alice);
  s = recordSuccess(s, alice);
  assert.not.ok('user:alice' in s.entries);
  // the address still has 7 failures, so a different username from it is delayed
  const c = checkLogin(s, { username: 'bob', ip: alice.ip }, now);
  assert.is(c.allowed, false);
  assert.equal(checkLogin(s, { username: 'alice', ip: '10.0.0.2' }, now), { allowed: true });
});

test('usernames match case-insensitively', () => {
  const { s, now } = failRepeatedly(10, alice);
  assert.is(checkLogin(s, { username: 'ALICE', ip: '192.0.2.9' }, now + 1).allowed, false);
});

test('password spraying from one address (one guess per username) locks the address', () => {
  let s: LoginThrottleState = initialThrottleState();
  const alerts: UnauthorizedAccessAlert[] = [];
  let now = T0;
  for (let i = 0; i < 10; i++) {
    const a = { username: `user${i}`, ip: '203.0.113.7' };
    const c = checkLogin(s, a, now);
    if (!c.allowed) now = c.until;
    const r = recordFailure(s, a, now);
    s = r.state;
    if (r.alert) alerts.push(r.alert);
  }
  assert.equal(alerts.map((a) => [a.username, a.locked]), [['user9', ['ip']]]);
  const c = checkLogin(s, { username: 'someone-else', ip: '203.0.113.7' }, now + 1);
  assert.is(!c.allowed && c.reason, 'locked');
});

test('a username attacked from many addresses is locked for every address', () => {
  let s = initialThrottleState();
  let now = T0;
  for (let i = 0; i < 10; i++) {
    const a = { username: 'alice', ip: `198.51.100.${i}` };
    const c = checkLogin(s, a, now);
    if (!c.allowed) now = c.until;
    s = recordFailure(s, a, now).state;
  }
  assert.is(checkLogin(s, { username: 'alice', ip: '198.51.100.200' }, now + 1).allowed, false);
});

test('rebuilding from the recorded failures gives the same verdict as the live state', () => {
  const times = [0, 1, 2, 3, 4, 5, 8, 13].map((t) => T0 + t * sec);
  let live = initialThrottleState();
  for (const t of times) live = recordFailure(live, alice, t).state;
  const json = JSON.parse(JSON.stringify(live)) as LoginThrottleState;
  assert.equal(checkLogin(json, alice, T0 + 14 * sec), checkLogin(live, alice, T0 + 14 * sec));
  const c = checkLogin(json, alice, T0 + 14 * sec);
  assert.equal(c, { allowed: false, reason: 'delayed', retryAfterMs: 8 * sec - 1 * sec, until: T0 + 13 * sec + 8 * sec });
});

test('prune drops keys with nothing to remember and keeps running lockouts', () => {
  let s = failRepeatedly(3, { username: 'bob', ip: '10.0.0.9' }, initialThrottleState(), T0 - 10 * min).s;
  const locked = failRepeatedly(10, alice, s);
  s = locked.s;
  const later = pruneThrottle(s, locked.now + 16 * min);
  assert.equal(Object.keys(later.entries), []);
  const during = pruneThrottle(s, locked.now + 14 * min);
  assert.equal(Object.keys(during.entries).sort(), ['ip:10.0.0.1', 'user:alice']);
});

test('stricter policies can be passed in', () => {
  const strict = { ...defaultLoginThrottlePolicy.username, softLimit: 1, hardLimit: 3 };
  const policy = { username: strict, ip: defaultLoginThrottlePolicy.ip };
  let s = initialThrottleState();
  let alert = null;
  for (let i = 0; i < 3; i++) {
    const r = recordFailure(s, alice, T0 + i * min, policy);
    s = r.state;
    alert = r.alert ?? alert;
  }
  assert.equal(alert?.locked, ['username']);
  assert.is(checkLogin(s, alice, T0 + 3 * min, policy).allowed, false);
});

test.run();
