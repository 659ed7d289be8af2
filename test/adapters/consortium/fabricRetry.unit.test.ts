// Fabric's "not now" (SERVICE_UNAVAILABLE: no raft leader yet) is waited out by the service for
// a bounded time; anything else fails at once; what outlasts the bound is a 503 with Retry-After.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { common } from '@hyperledger/fabric-protos';
import { retryableStatuses, retryWhileUnavailable } from '../../../adapters/consortium/fabricRetry.ts';
import { FabricRefusedError, FabricUnavailableError } from '../../../domain/consortium/consortiumChannelPorts.ts';
import { errorBody } from '../../../http/errors.ts';

const notNow = () => new FabricUnavailableError('no leader', 'orderer0', 'ch', 'SERVICE_UNAVAILABLE');

function fakeTime() {
  let t = 0;
  const pauses: number[] = [];
  return { now: () => t, sleep: async (ms: number) => void (pauses.push(ms), (t += ms)), pauses };
}

test('SERVICE_UNAVAILABLE, and only it, is a status worth retrying', () => {
  assert.ok(retryableStatuses.has(common.Status.SERVICE_UNAVAILABLE));
  for (const s of [common.Status.NOT_FOUND, common.Status.FORBIDDEN, common.Status.BAD_REQUEST, common.Status.INTERNAL_SERVER_ERROR]) assert.not.ok(retryableStatuses.has(s));
});

test('a leader election is waited out: the attempt is repeated with growing pauses until it goes through', async () => {
  const time = fakeTime();
  let calls = 0;
  const r = await retryWhileUnavailable(async () => {
    if (++calls < 5) throw notNow();
    return 'config block';
  }, time);
  assert.is(r, 'config block');
  assert.equal(time.pauses, [250, 500, 1000, 2000]);
});

test('a refusal is not retried', async () => {
  const time = fakeTime();
  let calls = 0;
  const refused = new FabricRefusedError('not joined', 'peer0', 'ch', 'NOT_FOUND', 'NOT_FOUND');
  const err = await retryWhileUnavailable(async () => {
    calls++;
    throw refused;
  }, time).catch((e) => e);
  assert.is(err, refused);
  assert.is(calls, 1);
});

test('past the bound the last "not now" is the answer: a 503 FABRIC_UNAVAILABLE that tells when to retry', async () => {
  const time = fakeTime();
  const err = await retryWhileUnavailable(async () => {
    throw notNow();
  }, { ...time, withinMs: 5_000 }).catch((e) => e);
  assert.instance(err, FabricUnavailableError);
  assert.ok(time.now() <= 5_000, `gave up within the bound (${time.now()} ms)`);
  const { status, body } = errorBody(err, 'req');
  assert.is(status, 503);
  assert.is(body.code, 'FABRIC_UNAVAILABLE');
  assert.equal((body.context as { retryAfterSeconds: number }).retryAfterSeconds, 5);
});

test.run();
