// The refusal audit throttle (issue 36, item 5): per key, the first `allowance` refusals of a
// minute are recorded, the rest counted; the count, when it started and the usernames tried go
// into the next recorded refusal, so nothing is lost and nothing grows without bound.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createRefusalAuditThrottle, flushRefusalAggregates } from '../../../http/auth/auditThrottle.ts';
import type { NewEvent, EventMetadata } from '../../../domain/shared/eventStore.ts';

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

test('a count no later refusal carries is drained once its minute is over and written as one aggregate event', async () => {
  const t = createRefusalAuditThrottle(60_000);
  const aggregate = { type: 'LoginFailed', data: { username: null, reason: 'locked out', responseCode: 429 }, ip: '10.0.0.9' };
  assert.is(t.due('login\n10.0.0.9\nlocked out', T0, { aggregate }).due, true);
  for (let i = 1; i <= 40; i++) t.due('login\n10.0.0.9\nlocked out', T0 + i, { detail: `u${i % 3}`, aggregate });
  // A key with nothing counted drains to nothing.
  t.due('login\n10.0.0.8\nlocked out', T0, { aggregate });
  assert.equal(t.drain(T0 + 59_999), [], 'not before the minute is over');
  const appended: Array<{ stream: string; events: NewEvent[]; meta: EventMetadata }> = [];
  const store = { append: async (stream: string, _v: unknown, events: NewEvent[], meta: EventMetadata) => void appended.push({ stream, events, meta }) };
  const n = await flushRefusalAggregates({ store: store as never, clock: () => new Date(T0 + 60_000), newId: () => 'id-1' }, t);
  assert.is(n, 1);
  assert.is(appended.length, 1);
  assert.is(appended[0].stream, 'security-2026-11-29');
  assert.is(appended[0].events[0].type, 'LoginFailed');
  assert.equal(appended[0].events[0].data, { username: null, reason: 'locked out', responseCode: 429, repeated: 40, repeatedSince: new Date(T0 + 1).toISOString(), repeatedUsernames: ['u1', 'u2', 'u0'], aggregated: true });
  assert.is(appended[0].meta.ip, '10.0.0.9');
  // Drained: the next refusal starts a fresh minute and carries nothing; a second flush writes nothing.
  assert.equal(t.due('login\n10.0.0.9\nlocked out', T0 + 60_001, { aggregate }), { due: true, carried: null });
  assert.is(await flushRefusalAggregates({ store: store as never, clock: () => new Date(T0 + 200_000), newId: () => 'id-2' }, t), 0);
  // At a shutdown, the minutes not yet over are written too.
  t.due('login\n10.0.0.9\nlocked out', T0 + 60_002, { aggregate });
  assert.is(t.due('login\n10.0.0.9\nlocked out', T0 + 60_003, { aggregate }).due, false);
  assert.is(await flushRefusalAggregates({ store: store as never, clock: () => new Date(T0 + 60_003), newId: () => 'id-3' }, t, { all: true }), 1);
});

test.run();
