import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { groupCommit, type Outcome } from '../../../adapters/eventstore/groupCommit.ts';

/** A commit function whose batches the test releases by hand. */
function manualCommit() {
  const batches: Array<{ requests: number[]; settle(outcomes: Array<Outcome<string>> | Error): void }> = [];
  const commit = (requests: number[]) =>
    new Promise<Array<Outcome<string>>>((resolve, reject) => {
      batches.push({ requests, settle: (o) => (o instanceof Error ? reject(o) : resolve(o)) });
    });
  return { batches, commit };
}
const allOk = (requests: number[]): Array<Outcome<string>> => requests.map((r) => ({ ok: true, value: `done ${r}` }));
const tick = () => new Promise((r) => setImmediate(r));

test('a lone request is committed at once, on its own (no added wait)', async () => {
  const m = manualCommit();
  const gc = groupCommit<number, string>({ commit: m.commit, weight: () => 1, maxWeight: 100 });
  const p = gc.submit(1);
  // Synchronously, before any timer or tick: the commit has started.
  assert.equal(m.batches.map((b) => b.requests), [[1]]);
  m.batches[0].settle(allOk([1]));
  assert.is(await p, 'done 1');
});

test('requests that arrive while a commit is in flight go together in the next one, in order', async () => {
  const m = manualCommit();
  const gc = groupCommit<number, string>({ commit: m.commit, weight: () => 1, maxWeight: 100 });
  const first = gc.submit(1);
  const rest = [2, 3, 4].map((n) => gc.submit(n));
  assert.is(m.batches.length, 1);
  assert.is(gc.pending(), 4);
  m.batches[0].settle(allOk([1]));
  await first;
  await tick();
  assert.equal(m.batches.map((b) => b.requests), [[1], [2, 3, 4]]);
  m.batches[1].settle(allOk([2, 3, 4]));
  assert.equal(await Promise.all(rest), ['done 2', 'done 3', 'done 4']);
  assert.is(gc.pending(), 0);
});

test('each request gets its own outcome: one refused does not fail its batch neighbours', async () => {
  const m = manualCommit();
  const gc = groupCommit<number, string>({ commit: m.commit, weight: () => 1, maxWeight: 100 });
  const blocker = gc.submit(0);
  const ps = [1, 2, 3].map((n) => gc.submit(n).then((v) => v, (e: Error) => `refused: ${e.message}`));
  m.batches[0].settle(allOk([0]));
  await blocker;
  await tick();
  m.batches[1].settle([{ ok: true, value: 'done 1' }, { ok: false, error: new Error('conflict') }, { ok: true, value: 'done 3' }]);
  assert.equal(await Promise.all(ps), ['done 1', 'refused: conflict', 'done 3']);
});

test('a commit that throws fails every request of its batch and none of the next batch', async () => {
  const m = manualCommit();
  const gc = groupCommit<number, string>({ commit: m.commit, weight: () => 1, maxWeight: 2 });
  const ps = [1, 2, 3].map((n) => gc.submit(n).then((v) => v, (e: Error) => `failed: ${e.message}`));
  m.batches[0].settle(new Error('connection lost'));
  await tick();
  assert.equal(m.batches[1].requests, [2, 3]);
  m.batches[1].settle(allOk([2, 3]));
  assert.equal(await Promise.all(ps), ['failed: connection lost', 'done 2', 'done 3']);
});

test('a batch holds at most maxWeight, and a request heavier than that still goes (alone)', async () => {
  const m = manualCommit();
  const gc = groupCommit<number, string>({ commit: m.commit, weight: (n) => n, maxWeight: 5 });
  const ps = [1, 2, 3, 9, 1].map((n) => gc.submit(n));
  for (let i = 0; i < 4; i++) {
    m.batches[i].settle(allOk(m.batches[i].requests));
    await tick();
  }
  await Promise.all(ps);
  assert.equal(m.batches.map((b) => b.requests), [[1], [2, 3], [9], [1]]);
});

test.run();
