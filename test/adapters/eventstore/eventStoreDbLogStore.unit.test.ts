// The EventStoreDB adapter's logic (ordering, versions, duplicates, hash chain, subscriptions)
// over an in-memory log with the server's append rule: an append lands only when the log's last
// revision is the expected one. No EventStoreDB server runs here; the int test runs the same
// contract against a real one when EVENTSTORE_URL is set.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EventEmitter } from 'node:events';
import { randomUUID } from 'node:crypto';
import { eventStoreContract } from './eventStoreContract.ts';
import { DuplicateEventError, UnavailableError, WrongExpectedVersionError } from '../../../domain/shared/errors.ts';
import type { EventStore, NewEvent } from '../../../domain/shared/eventStore.ts';
import type { EventLog, LogEvent } from '../../../adapters/eventstore/eventStoreDbLog.ts';
import { logEventStore, type LogStoreOptions } from '../../../adapters/eventstore/eventStoreDbLogStore.ts';
import { MalformedLogEventError } from '../../../adapters/eventstore/eventStoreDbCodec.ts';

interface StoredEvent {
  logEventId: string;
  type: string;
  data: string;
  metadata: string;
}

/** One log stream as the server keeps it: JSON bytes, compare-and-swap appends, async at every call. */
function memoryLog() {
  const events: StoredEvent[] = [];
  // Like a stream with $tb set: reads start at the first revision kept.
  const truncation = { before: 0 };
  const appended = new EventEmitter();
  appended.setMaxListeners(0);
  const tick = () => new Promise((r) => setImmediate(r));
  const toLogEvent = (e: StoredEvent, revision: number): LogEvent => ({
    revision,
    logEventId: e.logEventId,
    type: e.type,
    data: JSON.parse(e.data),
    metadata: JSON.parse(e.metadata),
  });
  const log = (): EventLog => ({
    async append(afterRevision, batch) {
      await tick();
      if (afterRevision !== events.length - 1) return 'conflict';
      for (const e of batch) events.push({ logEventId: e.logEventId, type: e.type, data: JSON.stringify(e.data), metadata: JSON.stringify(e.metadata) });
      appended.emit('append');
      await tick();
      return 'ok';
    },
    async read(fromRevision, maxCount) {
      await tick();
      const from = Math.max(fromRevision, truncation.before);
      return events.slice(from, from + maxCount).map((e, i) => toLogEvent(e, from + i));
    },
    async lastRevision() {
      await tick();
      return events.length - 1;
    },
    watch(onAppend) {
      appended.on('append', onAppend);
      return { close: async () => void appended.off('append', onAppend) };
    },
    async close() {},
  });
  return { events, truncation, log };
}

const meta = () => ({ timestamp: new Date().toISOString(), requestId: randomUUID() });
const ev = (type: string, data: Record<string, number | string> = {}): NewEvent => ({ id: randomUUID(), type, data });
const options = (extra: Partial<LogStoreOptions> = {}): LogStoreOptions => ({ logStream: 'lnm-log', newLogEventId: randomUUID, pollIntervalMs: 60_000, ...extra });

/** Two stores over one log: two service processes sharing a server. */
function twoWriters() {
  const mem = memoryLog();
  return { mem, a: logEventStore(mem.log(), options()), b: logEventStore(mem.log(), options()) };
}

eventStoreContract('eventstoredb adapter over an in-memory log', async () => {
  const store = logEventStore(memoryLog().log(), options({ pollIntervalMs: 50 }));
  return { store, cleanup: () => store.close() };
});

test('two processes racing on one stream at the same expected version: one wins, the other gets the actual version', async () => {
  const { a, b } = twoWriters();
  await a.append('net-1', 0, [ev('Opened')], meta());
  const results = await Promise.allSettled([a.append('net-1', 1, [ev('ByA')], meta()), b.append('net-1', 1, [ev('ByB')], meta())]);
  const lost = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[];
  assert.is(lost.length, 1);
  assert.instance(lost[0].reason, WrongExpectedVersionError);
  assert.is((lost[0].reason as WrongExpectedVersionError).actual, 2);
  assert.equal((await b.readStream('net-1')).map((e) => e.version), [1, 2]);
  assert.equal(await a.readStream('net-1'), await b.readStream('net-1'));
});

test('two processes writing different streams at once keep positions gapless and one chain', async () => {
  const { a, b } = twoWriters();
  const writes: Array<Promise<unknown>> = [];
  for (let i = 0; i < 10; i++) {
    writes.push(a.append(`a-${i}`, 0, [ev('X'), ev('Y')], meta()));
    writes.push(b.append(`b-${i}`, 0, [ev('X')], meta()));
  }
  await Promise.all(writes);
  const all = await a.readAll(0, 100);
  assert.equal(all.map((e) => e.position), Array.from({ length: 30 }, (_, i) => i + 1));
  const v = await b.verify(1);
  assert.ok(v.ok, JSON.stringify(v.firstMismatch));
  assert.is(v.checked, 30);
});

test('a process that has not seen the latest events still appends at the right version (no false conflict)', async () => {
  const { a, b } = twoWriters();
  await b.headPosition(); // b has read nothing into its index
  await a.append('org-1', 0, [ev('Created'), ev('Renamed')], meta());
  const r = await b.append('org-1', 2, [ev('Deleted')], meta());
  assert.is(r.nextVersion, 3);
  assert.is(r.lastPosition, 3);
});

test('an event id appended by another process is a duplicate here too', async () => {
  const { a, b } = twoWriters();
  const once = ev('Once');
  await a.append('s-1', 0, [once], meta());
  try {
    await b.append('s-2', 0, [once], meta());
    assert.unreachable('duplicate accepted');
  } catch (err) {
    assert.instance(err, DuplicateEventError);
    assert.is((err as DuplicateEventError).eventId, once.id);
  }
  assert.is(await a.headPosition(), 1);
});

test('a writer that keeps losing the race to another process gives up with 503, having written nothing', async () => {
  const mem = memoryLog();
  const rival = logEventStore(mem.log(), options());
  const inner = mem.log();
  // The rival gets in first before every attempt of this writer.
  const contested: EventLog = { ...inner, append: async (after, batch) => (await rival.append(`rival-${randomUUID()}`, 0, [ev('R')], meta()), inner.append(after, batch)) };
  const backoffs: number[] = [];
  const loser = logEventStore(contested, options({ maxAppendAttempts: 3, backoff: async (n) => void backoffs.push(n) }));
  try {
    await loser.append('mine', 0, [ev('M')], meta());
    assert.unreachable('append succeeded');
  } catch (err) {
    assert.instance(err, UnavailableError);
    assert.match((err as Error).message, /lnm-log kept moving \(3 lost races/);
  }
  assert.equal(backoffs, [1, 2]);
  assert.is((await rival.readAll(0, 10)).filter((e) => e.streamId === 'mine').length, 0);
  assert.ok((await rival.verify(1)).ok);
});

test('group commit: appends queued behind one in flight go in one compare-and-swap, each with its own outcome', async () => {
  const mem = memoryLog();
  const inner = mem.log();
  const casBatches: number[] = [];
  const counting: EventLog = { ...inner, append: async (after, batch) => (casBatches.push(batch.length), inner.append(after, batch)) };
  const store = logEventStore(counting, options());
  await store.append('acct', 0, [ev('Opened')], meta());
  casBatches.length = 0;
  const dup = ev('Once');
  const blocker = store.append('blocker', 0, [ev('B')], meta());
  const results = await Promise.allSettled([
    store.append('acct', 1, [ev('Deposited')], meta()), // ok
    store.append('acct', 2, [ev('Deposited')], meta()), // ok: sees the one before it in the batch
    store.append('acct', 1, [ev('Late')], meta()), // conflict, alone
    store.append('other', 0, [dup, ev('X')], meta()), // ok
    store.append('third', 0, [dup], meta()), // duplicate of the neighbour's event
  ]);
  await blocker;
  assert.equal(results.map((r) => r.status), ['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'rejected']);
  assert.instance((results[2] as PromiseRejectedResult).reason, WrongExpectedVersionError);
  assert.is(((results[2] as PromiseRejectedResult).reason as WrongExpectedVersionError).actual, 3);
  assert.instance((results[4] as PromiseRejectedResult).reason, DuplicateEventError);
  assert.equal(casBatches, [1, 4], 'the blocker alone, then the four accepted events of the batch in one append');
  assert.equal((await store.readStream('acct')).map((e) => e.version), [1, 2, 3]);
  const all = await store.readAll(0, 100);
  all.forEach((e, i) => assert.is(e.position, i + 1));
  assert.ok((await store.verify(1)).ok);
});

test('group commit: a batch that loses the race to another process is planned again on the caught-up log', async () => {
  const mem = memoryLog();
  const rival = logEventStore(mem.log(), options());
  const inner = mem.log();
  let raced = false;
  // The rival writes to 'shared' just before this writer's first batch lands.
  const contested: EventLog = { ...inner, append: async (after, batch) => {
    if (!raced && batch.length > 1) {
      raced = true;
      await rival.append('shared', 1, [ev('RivalWrote')], meta());
    }
    return inner.append(after, batch);
  } };
  const store = logEventStore(contested, options());
  await store.append('shared', 0, [ev('Opened')], meta());
  const blocker = store.append('blocker', 0, [ev('B')], meta());
  const results = await Promise.allSettled([
    store.append('shared', 1, [ev('Mine')], meta()), // planned ok, refused once the rival's event is seen
    store.append('own', 0, [ev('A')], meta()),
    store.append('own', 1, [ev('B')], meta()),
  ]);
  await blocker;
  assert.ok(raced);
  assert.equal(results.map((r) => r.status), ['rejected', 'fulfilled', 'fulfilled']);
  assert.is(((results[0] as PromiseRejectedResult).reason as WrongExpectedVersionError).actual, 2);
  assert.equal((await store.readStream('shared')).map((e) => e.type), ['Opened', 'RivalWrote']);
  assert.equal((await store.readStream('own')).map((e) => e.version), [1, 2]);
  const all = await store.readAll(0, 100);
  all.forEach((e, i) => assert.is(e.position, i + 1));
  assert.ok((await store.verify(1)).ok);
});

test('an event changed in the log behind the service is caught by verify, which names its position', async () => {
  const mem = memoryLog();
  const store = logEventStore(mem.log(), options());
  for (let i = 0; i < 12; i++) await store.append(`acct-${i % 3}`, 'any', [ev('Deposited', { amount: i })], meta());
  assert.ok((await store.verify(1)).ok);
  mem.events[6].data = JSON.stringify({ amount: 1_000_000 });
  const v = await store.verify(1);
  assert.is(v.ok, false);
  assert.is(v.firstMismatch?.position, 7);
  assert.is(v.firstMismatch?.reason, 'hash_mismatch');
  assert.is(v.checked, 6);
  assert.ok((await store.verify(1, 6)).ok);
  // a range starting after it still links to its stored hash
  assert.ok((await store.verify(8)).ok);
});

test('a rewritten hash breaks the link to the next event', async () => {
  const mem = memoryLog();
  const store = logEventStore(mem.log(), options());
  for (let i = 0; i < 5; i++) await store.append('s', 'any', [ev('E', { i })], meta());
  const m = JSON.parse(mem.events[2].metadata);
  mem.events[2].metadata = JSON.stringify({ ...m, hash: 'a'.repeat(64) });
  const v = await store.verify(1);
  assert.is(v.firstMismatch?.position, 3);
  assert.is((await store.verify(4)).firstMismatch?.reason, 'broken_link');
});

test('an event slipped into the log by another program is named by verify, and reads and appends refuse to go past it', async () => {
  const mem = memoryLog();
  const store = logEventStore(mem.log(), options());
  await store.append('s', 0, [ev('A')], meta());
  mem.events.push({ logEventId: randomUUID(), type: 'Foreign', data: '{"x":1}', metadata: '{}' });
  await store.append('s', 1, [ev('B')], meta()).then(
    () => assert.unreachable('appended after a foreign event'),
    (err) => assert.instance(err, MalformedLogEventError),
  );
  const v = await store.verify(1);
  assert.is(v.ok, false);
  assert.is(v.firstMismatch?.position, 2);
  assert.match(v.firstMismatch?.actual ?? '', /metadata\.lnm is missing/);
  await store.readAll(0, 10).then(
    () => assert.unreachable('read a foreign event'),
    (err) => assert.match((err as Error).message, /position 2 \(revision 1 of lnm-log\) was not written by this service/),
  );
});

test('a log whose start was truncated is reported, not silently skipped, by reads, appends and verify', async () => {
  const mem = memoryLog();
  const writer = logEventStore(mem.log(), options());
  for (let i = 0; i < 4; i++) await writer.append('s', i, [ev('E', { i })], meta());
  mem.truncation.before = 2;
  const fresh = logEventStore(mem.log(), options());
  await fresh.readAll(0, 10).then(
    () => assert.unreachable('read past a truncation'),
    (err) => assert.match((err as Error).message, /lnm-log has no event at position 1 \(it starts at 3\)/),
  );
  await fresh.append('s', 4, [ev('E')], meta()).then(
    () => assert.unreachable('appended to a truncated log'),
    (err) => assert.match((err as Error).message, /no event at position 1/),
  );
  assert.equal((await fresh.readAll(2, 10)).map((e) => e.position), [3, 4]);
  const v = await fresh.verify(1);
  assert.equal(v.firstMismatch, { position: 1, reason: 'gap', expected: '1', actual: '3' });
});

test('verify past the end reports the first missing position as a gap', async () => {
  const mem = memoryLog();
  const store = logEventStore(mem.log(), options());
  await store.append('s', 0, [ev('A'), ev('B')], meta());
  const v = await store.verify(1, 5);
  assert.equal(v.firstMismatch, { position: 3, reason: 'gap', expected: '3', actual: 'missing' });
  assert.equal((await store.verify(4, 5)).firstMismatch?.position, 3);
});

test('a subscription is woken by appends from another process, not only by its own', async () => {
  const { a, b } = twoWriters();
  const seen: string[] = [];
  let resolveDone!: () => void;
  const done = new Promise<void>((r) => (resolveDone = r));
  const sub = b.subscribe(0, async (batch) => {
    for (const e of batch) seen.push(e.type);
    if (seen.length === 3) resolveDone();
  });
  await a.append('x', 0, [ev('One')], meta());
  await a.append('x', 1, [ev('Two'), ev('Three')], meta());
  // pollIntervalMs is a minute: only the log's wake-up signal can deliver within the timeout
  await Promise.race([done, new Promise((_, rej) => setTimeout(() => rej(new Error('subscription was not woken')), 10_000).unref())]);
  await sub.close();
  assert.equal(seen, ['One', 'Two', 'Three']);
  await Promise.all([a.close(), b.close()]);
});

test('a handler that throws stops its subscription and is reported once', async () => {
  const store: EventStore = logEventStore(memoryLog().log(), options());
  await store.append('x', 0, [ev('A')], meta());
  const errors: unknown[] = [];
  let calls = 0;
  const sub = store.subscribe(
    0,
    async () => {
      calls++;
      throw new Error('projection broke');
    },
    (err) => errors.push(err),
  );
  await new Promise<void>((resolve) => {
    const check = () => (errors.length > 0 ? resolve() : setTimeout(check, 5));
    check();
  });
  await store.append('x', 1, [ev('B')], meta());
  await sub.close();
  assert.is(calls, 1);
  assert.is(errors.length, 1);
  assert.match((errors[0] as Error).message, /projection broke/);
});

test.run();
