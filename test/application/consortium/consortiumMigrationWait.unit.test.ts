// A consensus migration's waiting steps are bounded by the request's waitSeconds
// (application/consortium/consortiumConsensusMigrate.ts `retrying`): each attempt is given the time
// left, and a config update uses it as its wait for the new config block (the adapter's own default,
// 60 s, before: "given up after 30 s" could come after 60 s or more).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CONFIG_BLOCK_WAIT_MS, LAST_ATTEMPT_MS, configUpdateWait, retrying } from '../../../application/consortium/consortiumConsensusMigrate.ts';

const ADAPTER_DEFAULT_WAIT_MS = 60_000; // adapters/consortium/configUpdate.ts updateChannelConfig without timeoutMs
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('each attempt is given the time left of the step, shrinking, never under the last attempt floor', async () => {
  const given: number[] = [];
  let calls = 0;
  const r = await retrying('step', async (leftMs) => {
    given.push(leftMs);
    if (++calls < 2) throw new Error('orderer not ready');
    return 'done';
  }, 30_000);
  assert.is(r, 'done');
  assert.is(given.length, 2);
  assert.ok(given[0] > 29_000 && given[0] <= 30_000, `first attempt given ${given[0]} ms of 30000`);
  assert.ok(given[1] < given[0] - 1500, `the second attempt (after the 2 s pause) is given less: ${given[1]} ms`);
  assert.ok(given.every((g) => g >= LAST_ATTEMPT_MS));
});

test('an attempt that waits out what it is given ends the step near its bound, not after the adapter default', async () => {
  const started = Date.now();
  const boundMs = 1000;
  // The attempt behaves as a config update whose new block never comes: it waits what it is given
  // (the adapter's 60 s when given nothing), then fails.
  const err = await retrying('channel c1 into maintenance', async (leftMs?: number) => {
    await sleep(Math.min(leftMs ?? ADAPTER_DEFAULT_WAIT_MS, ADAPTER_DEFAULT_WAIT_MS));
    throw new Error('served no new config');
  }, boundMs).then(() => null, (e: Error) => e);
  const took = Date.now() - started;
  assert.ok(err, 'the step fails');
  assert.match(err!.message, /channel c1 into maintenance \(given up after 1 s\): served no new config/);
  assert.ok(took < LAST_ATTEMPT_MS + 3000, `the step took ${took} ms: at most the last attempt's ${LAST_ATTEMPT_MS} ms, not ${ADAPTER_DEFAULT_WAIT_MS}`);
});

test('a config update waits the time left of its step, at most a minute: a long step still submits again after a minute', () => {
  assert.equal(configUpdateWait(12_000), { timeoutMs: 12_000 });
  assert.equal(configUpdateWait(180_000), { timeoutMs: CONFIG_BLOCK_WAIT_MS });
  assert.is(CONFIG_BLOCK_WAIT_MS, ADAPTER_DEFAULT_WAIT_MS, 'as long as a config update waits of its own');
});

test('a refusal is not retried: said at once', async () => {
  const { ValidationError } = await import('../../../domain/shared/errors.ts');
  let calls = 0;
  const started = Date.now();
  const err = await retrying('switch', async () => {
    calls++;
    throw new ValidationError('rule x', []);
  }, 30_000).then(() => null, (e: Error) => e);
  assert.is(calls, 1);
  assert.match(err!.message, /^switch: rule x/);
  assert.ok(Date.now() - started < 1000);
});

test.run();
