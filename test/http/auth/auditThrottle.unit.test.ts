// The refusal audit throttle (issue 36, item 5): per key, the first `allowance` refusals of a
// minute are recorded, the rest counted; the count, when it started and the usernames tried go
// into the next recorded refusal, so nothing is lost and nothing grows without bound.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createRefusalAuditThrottle } from '../../../http/auth/auditThrottle.ts';

const T0 = Date.parse('2026-11-29T06:00:00Z');

test('the first refusal of a minute is recorded, the rest are counted into the next recorded one with their usernames', () => {
  const t = createRefusalAuditThrottle(60_000);
  assert.equal(t.due('login\n10.0.0.1\nlocked out', T0, { detail: 'alice' }), { due: true, carried: null });
  for (let i = 1; i <= 149; i++) assert.equal(t.due('login\n10.0.0.1\nlocked out', T0 + i * 3, { detail: `user-${i % 25}` }), { due: false, carried: null });
  // Another address or reason has its own minute.
  assert.is(t.due('login\n10.0.0.2\nlocked out', T0 + 10).due, true);
  assert.is(t.due('login\n10.0.0.1\ntoo fast after failures', T0 + 10).due, true);
  const next = t.due('login\n10.0.0.1\nlocked out', T0 + 60_000, { detail: 'bob' });
  assert.is(next.due, true);
  assert.is(next.carried!.repeated, 149);
  assert.is(next.carried!.repeatedSince, new Date(T0 + 3).toISOString());
  assert.is(next.carried!.repeatedUsernames!.length, 20, 'at most 20 distinct usernames are kept');
  // The count starts afresh after it was carried.
  assert.equal(t.due('login\n10.0.0.1\nlocked out', T0 + 60_001), { due: false, carried: null });
  assert.is(t.due('login\n10.0.0.1\nlocked out', T0 + 120_000).carried!.repeated, 1);
});

test('an allowance records that many refusals a minute one by one before counting', () => {
  const t = createRefusalAuditThrottle(60_000);
  const dues = Array.from({ length: 30 }, (_, i) => t.due('request\n10.0.0.1\nVALIDATION_FAILED', T0 + i, { allowance: 20 }).due);
  assert.is(dues.filter(Boolean).length, 20);
  assert.equal(dues.slice(0, 20), Array(20).fill(true));
  assert.is(t.due('request\n10.0.0.1\nVALIDATION_FAILED', T0 + 60_000, { allowance: 20 }).carried!.repeated, 10);
});

test.run();
