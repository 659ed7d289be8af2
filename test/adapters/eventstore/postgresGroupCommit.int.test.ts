// Group commit in the PostgreSQL store (adapters/eventstore/groupCommit.ts, append_batch()):
// concurrent appends share transactions, yet each keeps its own checks and outcome.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freshDatabase, type FreshDatabase } from '../../helpers/postgres.ts';
import { migrate } from '../../../adapters/postgres/migrate.ts';
import { postgresEventStore } from '../../../adapters/eventstore/postgresEventStore.ts';
import { DuplicateEventError, ValidationError, WrongExpectedVersionError } from '../../../domain/shared/errors.ts';
import type { AppendResult, EventStore, NewEvent } from '../../../domain/shared/eventStore.ts';

const meta = () => ({ timestamp: new Date().toISOString() });
const ev = (type: string, data: Record<string, string | number> = {}): NewEvent => ({ id: randomUUID(), type, data });
const here = path.dirname(fileURLToPath(import.meta.url));

const t = suite<{ db?: FreshDatabase; store?: EventStore }>('postgres event store: group commit', {});
t.before.each(async (ctx) => {
  ctx.db = await freshDatabase();
  await migrate(ctx.db.pool);
  ctx.store = postgresEventStore(ctx.db.pool);
});
t.after.each(async (ctx) => {
  await ctx.store?.close();
  await ctx.db?.close();
});

/** Rows of the events table with the transaction that wrote each. */
async function rows(db: FreshDatabase) {
  const r = await db.pool.query('SELECT position::int AS position, stream_id, version, id, xmin::text AS tx FROM events ORDER BY position');
  return r.rows as Array<{ position: number; stream_id: string; version: number; id: string; tx: string }>;
}

async function assertGaplessAndVerified(db: FreshDatabase, store: EventStore): Promise<void> {
  const all = await rows(db);
  all.forEach((r, i) => assert.is(r.position, i + 1, 'positions are gapless'));
  const v = await store.verify(1);
  assert.ok(v.ok, JSON.stringify(v.firstMismatch));
  assert.is(v.checked, all.length);
}

t('appends queued behind a commit share one transaction; a conflict in it fails only that append, and a second append to the same stream sees the first', async ({ db, store }) => {
  const s = `acct-${randomUUID()}`;
  const other = `acct-${randomUUID()}`;
  const blocker = store!.append(`blocker-${randomUUID()}`, 0, [ev('Opened')], meta()); // in flight: the next ones queue
  const results = await Promise.allSettled([
    store!.append(s, 0, [ev('Opened')], meta()), // ok: version 1
    store!.append(s, 1, [ev('Deposited', { amount: 5 })], meta()), // ok: sees the append before it in the batch
    store!.append(s, 0, [ev('Opened')], meta()), // conflict: the stream is at 2 by now
    store!.append(other, 0, [ev('Opened'), ev('Deposited', { amount: 1 })], meta()), // ok: a neighbour
    store!.append(s, 'any', [ev('Noted')], meta()), // ok: version 3
  ]);
  await blocker;
  assert.equal(results.map((r) => r.status), ['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
  const conflict = (results[2] as PromiseRejectedResult).reason;
  assert.instance(conflict, WrongExpectedVersionError);
  assert.is((conflict as WrongExpectedVersionError).actual, 2);
  assert.equal((results[4] as PromiseFulfilledResult<AppendResult>).value.nextVersion, 3);
  const written = (await rows(db!)).filter((r) => r.stream_id === s || r.stream_id === other);
  assert.is(written.length, 5);
  assert.is(new Set(written.map((r) => r.tx)).size, 1, 'the four appends after the blocker were one transaction');
  assert.equal((await store!.readStream(s)).map((e) => [e.type, e.version]), [['Opened', 1], ['Deposited', 2], ['Noted', 3]]);
  await assertGaplessAndVerified(db!, store!);
});

t('the same expected version from many writers: exactly one wins per version, whatever the batches', async ({ db, store }) => {
  const s = `race-${randomUUID()}`;
  // Rounds of 12 writers all at the version they read; each round, exactly one must win.
  for (let version = 0; version < 15; version++) {
    const attempts = await Promise.allSettled(Array.from({ length: 12 }, (_, i) => store!.append(s, version, [ev('Changed', { by: i })], meta())));
    assert.is(attempts.filter((a) => a.status === 'fulfilled').length, 1, `one winner at version ${version}`);
    for (const a of attempts) if (a.status === 'rejected') assert.instance(a.reason, WrongExpectedVersionError);
  }
  // Writers that each retry on conflict: every one gets its event in exactly once.
  await Promise.all(Array.from({ length: 20 }, async (_, i) => {
    for (;;) {
      const version = (await store!.readStream(s)).length;
      try {
        return await store!.append(s, version, [ev('Retried', { by: i })], meta());
      } catch (err) {
        if (!(err instanceof WrongExpectedVersionError)) throw err;
      }
    }
  }));
  const read = await store!.readStream(s);
  assert.is(read.length, 35);
  assert.equal(read.map((e) => e.version), Array.from({ length: 35 }, (_, i) => i + 1));
  assert.equal(read.filter((e) => e.type === 'Retried').map((e) => e.data.by).sort((a, b) => Number(a) - Number(b)), Array.from({ length: 20 }, (_, i) => i));
  await assertGaplessAndVerified(db!, store!);
});

t('the same expected version in every batch composition (batches of 1, 2, 3 and all): the first queued wins, the rest conflict', async ({ db }) => {
  for (const maxBatchEvents of [1, 2, 3, 1000]) {
    const store = postgresEventStore(db!.pool, { maxBatchEvents });
    try {
      const s = `composed-${maxBatchEvents}-${randomUUID()}`;
      await store.append(s, 0, [ev('Opened')], meta());
      const blocker = store.append(`blocker-${randomUUID()}`, 0, [ev('B')], meta());
      // Queued behind the blocker: split into batches of maxBatchEvents, in this order.
      const results = await Promise.allSettled(Array.from({ length: 7 }, (_, i) => store.append(s, 1, [ev('Changed', { by: i })], meta())));
      await blocker;
      assert.equal(results.map((r) => r.status), ['fulfilled', 'rejected', 'rejected', 'rejected', 'rejected', 'rejected', 'rejected'], `batches of ${maxBatchEvents}`);
      for (const r of results.slice(1)) {
        assert.instance((r as PromiseRejectedResult).reason, WrongExpectedVersionError);
        assert.is(((r as PromiseRejectedResult).reason as WrongExpectedVersionError).actual, 2);
      }
      assert.equal((await store.readStream(s)).map((e) => [e.version, e.data.by ?? null]), [[1, null], [2, 0]]);
    } finally {
      await store.close();
    }
  }
  await assertGaplessAndVerified(db!, postgresEventStore(db!.pool));
});

t('a duplicate event id in a batch fails only that append (a saga retrying its effect), also against an append queued just before it', async ({ db, store }) => {
  const effect = ev('Done');
  await store!.append(`saga-a-${randomUUID()}`, 0, [effect], meta());
  const repeated = ev('Repeated');
  const blocker = store!.append(`blocker-${randomUUID()}`, 0, [ev('Opened')], meta());
  const results = await Promise.allSettled([
    store!.append(`saga-b-${randomUUID()}`, 0, [effect], meta()), // already in the store
    store!.append(`n-${randomUUID()}`, 0, [ev('Neighbour')], meta()),
    store!.append(`saga-c-${randomUUID()}`, 0, [repeated], meta()), // first try: written
    store!.append(`saga-c2-${randomUUID()}`, 0, [repeated], meta()), // the retry, in the same queue: a duplicate
    store!.append(`n-${randomUUID()}`, 0, [ev('Neighbour')], meta()),
  ]);
  await blocker;
  assert.equal(results.map((r) => r.status), ['rejected', 'fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
  assert.instance((results[0] as PromiseRejectedResult).reason, DuplicateEventError);
  assert.is(((results[0] as PromiseRejectedResult).reason as DuplicateEventError).eventId, effect.id);
  assert.instance((results[3] as PromiseRejectedResult).reason, DuplicateEventError);
  const ids = (await rows(db!)).map((r) => r.id);
  assert.is(ids.filter((id) => id === effect.id).length, 1);
  assert.is(ids.filter((id) => id === repeated.id).length, 1);
  // One id twice in one append is refused before it reaches the database.
  const twice = ev('Twice');
  try {
    await store!.append(`t-${randomUUID()}`, 0, [twice, twice], meta());
    assert.unreachable('an append with one id twice was accepted');
  } catch (err) {
    assert.instance(err, DuplicateEventError);
  }
  await assertGaplessAndVerified(db!, store!);
});

t('a value PostgreSQL refuses fails its own append (400) and the rest of its batch is written', async ({ db, store }) => {
  const blocker = store!.append(`blocker-${randomUUID()}`, 0, [ev('Opened')], meta());
  const results = await Promise.allSettled([
    store!.append(`a-${randomUUID()}`, 0, [ev('Fine')], meta()),
    store!.append(`b-${randomUUID()}`, 0, [ev('Named', { name: 'nul \u0000 inside' })], meta()),
    store!.append(`c-${randomUUID()}`, 0, [ev('Fine')], meta()),
  ]);
  await blocker;
  assert.equal(results.map((r) => r.status), ['fulfilled', 'rejected', 'fulfilled']);
  const err = (results[1] as PromiseRejectedResult).reason;
  assert.instance(err, ValidationError);
  assert.is((err as ValidationError).status, 400);
  assert.is((await rows(db!)).length, 3);
  await assertGaplessAndVerified(db!, store!);
});

t('an event whose data does not keep its canonical text through JSON (a Date) is refused by the body constraint, alone in its batch', async ({ db, store }) => {
  const blocker = store!.append(`blocker-${randomUUID()}`, 0, [ev('Opened')], meta());
  const results = await Promise.allSettled([
    store!.append(`a-${randomUUID()}`, 0, [ev('Fine')], meta()),
    // canonicalJson sees a Date as an object with no keys; JSON.stringify sends its ISO string.
    store!.append(`b-${randomUUID()}`, 0, [{ id: randomUUID(), type: 'Dated', data: { at: new Date(0) as never } }], meta()),
    store!.append(`c-${randomUUID()}`, 0, [ev('Fine')], meta()),
  ]);
  await blocker;
  assert.equal(results.map((r) => r.status), ['fulfilled', 'rejected', 'fulfilled']);
  assert.match(((results[1] as PromiseRejectedResult).reason as Error).message, /Dated on b-.* cannot be stored: its data does not read back as the canonical text/);
  assert.is((await rows(db!)).length, 3);
  await assertGaplessAndVerified(db!, store!);
});

t('10,000 mixed concurrent appends: every acknowledged event exactly once, conflicts only where expected, positions gapless, the chain verifies, commits shared', async ({ db, store }) => {
  const acknowledged: string[] = [];
  let conflicts = 0;
  let unexpected = 0;
  // 40 writers on their own streams (never a conflict), 10 on one shared stream with expected versions.
  const own = Array.from({ length: 40 }, async (_, w) => {
    const s = `own-${w}-${randomUUID()}`;
    let version = 0;
    for (let i = 0; i < 200; i++) {
      const events = Array.from({ length: 1 + (i % 3) }, () => ev('Own', { w, i }));
      try {
        const r = await store!.append(s, version, events, meta());
        version = r.nextVersion;
        acknowledged.push(...events.map((e) => e.id));
      } catch {
        unexpected++;
      }
    }
  });
  const shared = `shared-${randomUUID()}`;
  const contenders = Array.from({ length: 10 }, async (_, w) => {
    for (let i = 0; i < 60; i++) {
      const e = ev('Shared', { w, i });
      try {
        const version = (await store!.readStream(shared)).length;
        await store!.append(shared, version, [e], meta());
        acknowledged.push(e.id);
      } catch (err) {
        if (err instanceof WrongExpectedVersionError) conflicts++;
        else unexpected++;
      }
    }
  });
  await Promise.all([...own, ...contenders]);
  assert.is(unexpected, 0, 'no append failed except by a version conflict on the shared stream');
  const all = await rows(db!);
  assert.ok(all.length >= 10_000, `${all.length} events`);
  assert.is(all.length, acknowledged.length, 'nothing unacknowledged was written, nothing acknowledged is missing');
  assert.equal(new Set(all.map((r) => r.id)), new Set(acknowledged));
  assert.is(new Set(all.map((r) => r.id)).size, all.length, 'no event twice');
  const sharedRows = all.filter((r) => r.stream_id === shared);
  assert.is(sharedRows.length + conflicts, 600, 'every shared-stream attempt either landed or conflicted');
  assert.equal(sharedRows.map((r) => r.version), sharedRows.map((_, i) => i + 1));
  const transactions = new Set(all.map((r) => r.tx)).size;
  const appends = 40 * 200 + sharedRows.length;
  assert.ok(transactions < appends / 2, `${appends} appends in ${transactions} transactions: commits were shared`);
  await assertGaplessAndVerified(db!, store!);
});

t('kill -9 of the writer process during a burst: every acknowledged append is there whole, nothing is half there', async ({ db, store }) => {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(here, 'fixtures', 'burstWriter.ts'), db!.url], { stdio: ['ignore', 'pipe', 'inherit'] });
  const acknowledged: string[][] = [];
  let buffered = '';
  const enough = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`only ${acknowledged.length} appends acknowledged in 60 s`)), 60_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const lines = buffered.split('\n');
      buffered = lines.pop()!; // a line cut by the kill is not an acknowledgement
      for (const l of lines) if (l.startsWith('ACK ')) acknowledged.push(JSON.parse(l.slice(4)));
      if (acknowledged.length >= 300) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.on('exit', () => reject(new Error('the writer exited by itself')));
  });
  await enough;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
  // Statements the dead process had sent may still finish on the server: wait until they have.
  for (let i = 0; i < 100; i++) {
    const r = await db!.pool.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND state = 'active'`);
    if (r.rows[0].n === 0) break;
    await new Promise((r2) => setTimeout(r2, 50));
  }
  const all = await rows(db!);
  const present = new Set(all.map((r) => r.id));
  for (const ids of acknowledged) for (const id of ids) assert.ok(present.has(id), `acknowledged event ${id} is there`);
  // Every append wrote three events of one stream at consecutive versions: whole or absent.
  const perStream = new Map<string, number>();
  for (const r of all) perStream.set(r.stream_id, (perStream.get(r.stream_id) ?? 0) + 1);
  for (const [s, n] of perStream) assert.is(n % 3, 0, `stream ${s} holds whole appends only`);
  await assertGaplessAndVerified(db!, store!);
});

t.run();
