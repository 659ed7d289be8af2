import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chainHash, GENESIS_HASH, verifyRun } from '../../../domain/shared/eventChain.ts';
import type { RecordedEvent } from '../../../domain/shared/eventStore.ts';
import {
  decodeLogEvent,
  encodeLogEvent,
  logEventProblem,
  MalformedLogEventError,
  positionOfRevision,
  revisionOfPosition,
} from '../../../adapters/eventstore/eventStoreDbCodec.ts';
import type { LogEvent, NewLogEvent } from '../../../adapters/eventstore/eventStoreDbLog.ts';

function recorded(position: number, prevHash: string): RecordedEvent {
  const base = {
    position,
    streamId: 'network-7',
    version: 3,
    id: '5b0f7c1e-4a8f-4a57-9d0b-2f0a4c7e9e01',
    type: 'NodeStarted',
    data: { nodeId: 42, name: 'peer0', tags: ['a', 'b'], extra: { z: 1, a: null } },
    metadata: { timestamp: '2026-11-21T04:00:00.000Z', requestId: 'r-1', actor: { userId: 1, username: 'admin', kind: 'user' } },
  };
  return { ...base, prevHash, hash: chainHash(prevHash, base) };
}

// What the server hands back: the JSON bytes it stored, parsed again.
const stored = (e: NewLogEvent, revision: number): LogEvent => ({
  revision,
  logEventId: e.logEventId,
  type: e.type,
  data: JSON.parse(JSON.stringify(e.data)),
  metadata: JSON.parse(JSON.stringify(e.metadata)),
});

test('log revision r is global position r + 1, so an empty log has head position 0', () => {
  assert.is(positionOfRevision(0), 1);
  assert.is(positionOfRevision(41), 42);
  assert.is(revisionOfPosition(1), 0);
  assert.is(revisionOfPosition(42), 41);
  assert.is(positionOfRevision(-1), 0);
  for (const p of [1, 2, 1000, 2 ** 40]) assert.is(positionOfRevision(revisionOfPosition(p)), p);
});

test('an event stored in the log reads back equal, and its hash still verifies after the JSON round trip', () => {
  const e = recorded(8, 'ab'.repeat(32));
  const back = decodeLogEvent(stored(encodeLogEvent(e, 'c5c1e2a0-0000-4000-8000-000000000001'), 7), 'lnm-log');
  assert.equal(back, e);
  assert.ok(verifyRun('ab'.repeat(32), [back], 8).ok);
});

test('the server event id is the one given, not the application event id (server idempotency must not hide duplicates)', () => {
  const e = recorded(1, GENESIS_HASH);
  const enc = encodeLogEvent(e, 'c5c1e2a0-0000-4000-8000-000000000002');
  assert.is(enc.logEventId, 'c5c1e2a0-0000-4000-8000-000000000002');
  assert.is.not(enc.logEventId, e.id);
  assert.is(enc.type, 'NodeStarted');
  assert.equal(enc.data, e.data);
  assert.equal(enc.metadata, { lnm: 1, streamId: 'network-7', version: 3, id: e.id, prevHash: GENESIS_HASH, hash: e.hash, metadata: e.metadata });
});

test('the position comes from the log revision, so an event moved to another revision no longer verifies', () => {
  const e = recorded(5, GENESIS_HASH);
  const moved = decodeLogEvent(stored(encodeLogEvent(e, 'c5c1e2a0-0000-4000-8000-000000000003'), 9), 'lnm-log');
  assert.is(moved.position, 10);
  const r = verifyRun(GENESIS_HASH, [moved], 10);
  assert.is(r.ok, false);
  assert.is(!r.ok && r.reason, 'hash_mismatch');
});

test('events not written by this service are named with their position and the reason', () => {
  const good = stored(encodeLogEvent(recorded(1, GENESIS_HASH), 'c5c1e2a0-0000-4000-8000-000000000004'), 0);
  assert.is(logEventProblem(good), null);
  const cases: Array<[LogEvent, RegExp]> = [
    [{ ...good, metadata: null }, /metadata is not a JSON object/],
    [{ ...good, metadata: { ...(good.metadata as object), lnm: 2 } }, /metadata\.lnm is 2, expected 1/],
    [{ ...good, metadata: { ...(good.metadata as object), lnm: undefined } }, /metadata\.lnm is missing/],
    [{ ...good, metadata: { ...(good.metadata as object), version: 0 } }, /metadata\.version/],
    [{ ...good, metadata: { ...(good.metadata as object), streamId: '' } }, /metadata\.streamId/],
    [{ ...good, metadata: { ...(good.metadata as object), hash: 'XYZ' } }, /metadata\.hash is not a SHA-256/],
    [{ ...good, metadata: { ...(good.metadata as object), prevHash: 'ab' } }, /metadata\.prevHash/],
    [{ ...good, data: new Uint8Array([1, 2]) }, /data is not a JSON object/],
    [{ ...good, data: [1] }, /data is not a JSON object/],
  ];
  for (const [ev, re] of cases) assert.match(logEventProblem(ev) ?? '', re);
  try {
    decodeLogEvent({ ...good, revision: 16, metadata: {} }, 'lnm-log');
    assert.unreachable('decoded a foreign event');
  } catch (err) {
    assert.instance(err, MalformedLogEventError);
    assert.is((err as MalformedLogEventError).position, 17);
    assert.match((err as Error).message, /position 17 \(revision 16 of lnm-log\)/);
  }
});

test.run();
