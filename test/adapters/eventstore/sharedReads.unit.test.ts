// sharedReads: the subscriptions of a store that ask for the same range in the same turn share one
// query, sent after that turn (so it never began before a caller asked); later asks get their own.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { sharedReads } from '../../../adapters/eventstore/batchSubscription.ts';
import type { RecordedEvent } from '../../../domain/shared/eventStore.ts';

const event = (position: number) => ({ position, streamId: 's', version: position, id: `e${position}`, type: 'T', data: {}, metadata: {}, prevHash: '', hash: '' }) as unknown as RecordedEvent;

function counted() {
  const calls: Array<[number, number]> = [];
  let head = 3;
  const readAll = async (from: number, limit: number) => {
    calls.push([from, limit]);
    return Array.from({ length: Math.max(0, Math.min(limit, head - from)) }, (_, i) => event(from + i + 1));
  };
  return { calls, readAll, append: () => head++ };
}

test('the same range asked in one turn is one query; each caller gets its own array', async () => {
  const c = counted();
  const read = sharedReads(c.readAll);
  const answers = await Promise.all([read(0, 500), read(0, 500), read(0, 500), read(2, 500)]);
  assert.equal(c.calls, [[0, 500], [2, 500]]);
  assert.equal(answers[0].map((e) => e.position), [1, 2, 3]);
  assert.is.not(answers[0], answers[1], 'its own array');
  answers[0].pop();
  assert.is(answers[1].length, 3, 'one caller changing its array changes nobody else\'s');
  assert.equal(answers[3].map((e) => e.position), [3]);
});

test('the query is sent after the turn: an append made in that turn is in it, and a later ask is a new query', async () => {
  const c = counted();
  const read = sharedReads(c.readAll);
  const first = read(0, 500);
  c.append(); // an append signalled in the same turn, after the ask
  const second = read(0, 500);
  assert.equal((await first).map((e) => e.position), [1, 2, 3, 4]);
  assert.is((await second).length, 4);
  const third = await read(0, 500);
  assert.is(third.length, 4);
  assert.is(c.calls.length, 2, 'asked after the first query was sent: a query of its own');
});

test('a failed query fails every caller that shared it, and the next ask queries again', async () => {
  let fail = true;
  let calls = 0;
  const read = sharedReads(async () => {
    calls++;
    if (fail) throw new Error('database gone');
    return [event(1)];
  });
  const results = await Promise.allSettled([read(0, 10), read(0, 10)]);
  assert.equal(results.map((r) => r.status), ['rejected', 'rejected']);
  fail = false;
  assert.is((await read(0, 10)).length, 1);
  assert.is(calls, 2);
});

test.run();
