import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { GENESIS_HASH, verifyRun } from '../../../domain/shared/eventChain.ts';
import type { NewEvent, RecordedEvent } from '../../../domain/shared/eventStore.ts';
import { applyToIndex, emptyIndex, planAppend, streamVersion } from '../../../adapters/eventstore/eventStoreDbIndex.ts';

const meta = { timestamp: '2026-11-21T04:00:00.000Z' };
let n = 0;
const ev = (type: string): NewEvent => ({ id: `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`, type, data: { n } });

function mustPlan(...args: Parameters<typeof planAppend>): RecordedEvent[] {
  const p = planAppend(...args);
  if (p.kind !== 'ok') throw new Error('expected ok, got ' + JSON.stringify(p));
  return p.records;
}

test('an empty index plans a new stream at versions 1..n and positions 1..n, chained from the genesis hash', () => {
  const idx = emptyIndex();
  const recs = mustPlan(idx, 'a', 0, [ev('A'), ev('B')], meta);
  assert.equal(recs.map((r) => [r.position, r.version, r.streamId]), [[1, 1, 'a'], [2, 2, 'a']]);
  assert.is(recs[0].prevHash, GENESIS_HASH);
  assert.is(recs[1].prevHash, recs[0].hash);
  assert.ok(verifyRun(GENESIS_HASH, recs, 1).ok);
  // planning alone changes nothing
  assert.is(idx.head, 0);
  assert.is(streamVersion(idx, 'a'), 0);
});

test('applied events move the head and the chain; the next plan continues both across streams', () => {
  const idx = emptyIndex();
  const first = mustPlan(idx, 'a', 0, [ev('A'), ev('B')], meta);
  applyToIndex(idx, first);
  const second = mustPlan(idx, 'b', 0, [ev('C')], meta);
  applyToIndex(idx, second);
  const third = mustPlan(idx, 'a', 2, [ev('D')], meta);
  assert.equal(third.map((r) => [r.position, r.version]), [[4, 3]]);
  applyToIndex(idx, third);
  assert.equal(idx.streams.get('a'), [1, 2, 4]);
  assert.equal(idx.streams.get('b'), [3]);
  assert.is(idx.lastHash, third[0].hash);
  assert.ok(verifyRun(GENESIS_HASH, [...first, ...second, ...third], 1).ok);
});

test('a wrong expected version names the actual version; any skips the check', () => {
  const idx = emptyIndex();
  applyToIndex(idx, mustPlan(idx, 'a', 0, [ev('A')], meta));
  assert.equal(planAppend(idx, 'a', 0, [ev('B')], meta), { kind: 'wrong_version', actual: 1 });
  assert.equal(planAppend(idx, 'a', 5, [ev('B')], meta), { kind: 'wrong_version', actual: 1 });
  assert.equal(planAppend(idx, 'new', 1, [ev('B')], meta), { kind: 'wrong_version', actual: 0 });
  assert.equal(mustPlan(idx, 'a', 'any', [ev('B')], meta)[0].version, 2);
});

test('an id already in the log, or twice in one batch, is a duplicate', () => {
  const idx = emptyIndex();
  const once = ev('Once');
  applyToIndex(idx, mustPlan(idx, 'a', 0, [once], meta));
  assert.equal(planAppend(idx, 'other', 0, [ev('X'), once], meta), { kind: 'duplicate', eventId: once.id });
  const twice = ev('Twice');
  assert.equal(planAppend(idx, 'b', 0, [twice, twice], meta), { kind: 'duplicate', eventId: twice.id });
});

test('the index refuses events that do not follow its head (it would silently lose the log order)', () => {
  const idx = emptyIndex();
  const recs = mustPlan(idx, 'a', 0, [ev('A'), ev('B')], meta);
  assert.throws(() => applyToIndex(idx, [recs[1]]), /at position 0 cannot apply position 2/);
  applyToIndex(idx, recs);
  assert.throws(() => applyToIndex(idx, [recs[1]]), /at position 2 cannot apply position 2/);
});

test.run();
