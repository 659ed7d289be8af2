// verify() in PostgreSQL (adapters/eventstore/postgresChainVerify.ts) gives the answers the
// JavaScript recomputation gave before it: the same first entry, reason, expected and actual
// values, and the same count checked, for rows changed, removed or swapped behind the service.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { freshDatabase, recordingPool, type FreshDatabase } from '../../helpers/postgres.ts';
import { migrate } from '../../../adapters/postgres/migrate.ts';
import { postgresEventStore } from '../../../adapters/eventstore/postgresEventStore.ts';
import { BODY_CONSTRAINT_DEF, bodyConstraintHolds } from '../../../adapters/eventstore/postgresChainVerify.ts';
import { GENESIS_HASH, verifyRun } from '../../../domain/shared/eventChain.ts';
import type { ChainVerification, EventStore } from '../../../domain/shared/eventStore.ts';

const meta = (i: number) => ({ timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(), requestId: randomUUID(), actor: { userId: i % 4, username: `u${i % 4}`, kind: 'session' } });

/** The verify of before, recomputed here from the rows as read back: the reference answer. */
async function referenceVerify(store: EventStore, from: number, to: number): Promise<ChainVerification> {
  const events = (await store.readAll(from - 1, 1_000_000)).filter((e) => e.position <= to);
  const prev = from === 1 ? GENESIS_HASH : (await store.readAll(from - 2, 1))[0].hash;
  const r = verifyRun(prev, events, from);
  if (r.ok && events.length === to - from + 1) return { ok: true, checked: to - from + 1, fromPosition: from, toPosition: to };
  if (r.ok) {
    const next = from + events.length;
    return { ok: false, checked: next - from, fromPosition: from, toPosition: to, firstMismatch: { position: next, reason: 'gap', expected: String(next), actual: 'missing' } };
  }
  return { ok: false, checked: r.position - from, fromPosition: from, toPosition: to, firstMismatch: { position: r.position, reason: r.reason, expected: r.expected, actual: r.actual } };
}


const t = suite<{ db?: FreshDatabase; store?: EventStore; queries: string[] }>('postgres event store: verify in the database', { queries: [] });
t.before.each(async (ctx) => {
  ctx.db = await freshDatabase();
  await migrate(ctx.db.pool);
  ctx.queries = [];
  // Ranges of 7 positions: the 100 events span 15 ranges, several checked at once, so seams are crossed.
  ctx.store = postgresEventStore(recordingPool(ctx.db.pool, ctx.queries), { verifyRangeSize: 7 });
  for (let i = 0; i < 50; i++) {
    await ctx.store.append(`acct-${i % 5}`, 'any', [
      { id: randomUUID(), type: 'Deposited', data: { amount: i, note: `deposit ${i}`, tags: ['a', 'é', i % 2 === 0 ? 'even' : 'odd'], nested: { z: 1, a: [1.5, null, true] } } },
      { id: randomUUID(), type: 'Noted', data: { n: i } },
    ], meta(i));
  }
});
t.after.each(async (ctx) => {
  await ctx.store?.close();
  await ctx.db?.close();
});

/** Changes rows with the append-only trigger off; the body constraint stays in force. */
async function tamper(db: FreshDatabase, ...sql: string[]): Promise<void> {
  await db.pool.query('ALTER TABLE events DISABLE TRIGGER events_append_only');
  for (const s of sql) await db.pool.query(s);
  await db.pool.query('ALTER TABLE events ENABLE TRIGGER events_append_only');
}

/** The same as the table's owner could: the body constraint dropped first, so columns can disagree with bodies. */
async function tamperColumns(db: FreshDatabase, ...sql: string[]): Promise<void> {
  await db.pool.query('ALTER TABLE events DROP CONSTRAINT IF EXISTS events_body_matches_columns');
  await tamper(db, ...sql);
}

/** Which database path verify() took: hashes over bodies alone, or each body parsed and compared with its columns. */
const comparedColumns = (queries: string[]) => queries.some((q) => /sha256/.test(q) && /body::jsonb/.test(q));
const hashedBodiesAlone = (queries: string[]) => queries.some((q) => /sha256/.test(q) && !/body::jsonb/.test(q));
const readRowsIntoJs = (queries: string[]) => queries.some((q) => /SELECT position, stream_id, version, id, type, data/.test(q));

async function assertSameAnswers(store: EventStore, ranges: Array<[number, number]>): Promise<void> {
  for (const [from, to] of ranges) assert.equal(await store.verify(from, to), await referenceVerify(store, from, to), `range ${from}..${to}`);
}

t('a sound log verifies in the database alone, hashing the bodies without parsing them: no row is read back into JavaScript', async ({ db, store, queries }) => {
  assert.ok(await bodyConstraintHolds(db!.pool), `the constraint as migrated is ${BODY_CONSTRAINT_DEF}`);
  queries.length = 0;
  const v = await store!.verify(1);
  assert.equal(v, { ok: true, checked: 100, fromPosition: 1, toPosition: 100 });
  assert.ok(hashedBodiesAlone(queries));
  assert.not.ok(comparedColumns(queries), 'no body was parsed');
  assert.not.ok(readRowsIntoJs(queries), 'the JavaScript path was not taken');
  assert.equal(await store!.verify(30, 44), { ok: true, checked: 15, fromPosition: 30, toPosition: 44 });
});

t('with the body constraint in force, a column cannot be made to disagree with its body, even with the trigger off', async ({ db }) => {
  for (const sql of [
    `UPDATE events SET data = jsonb_set(data, '{amount}', '1000000') WHERE position = 17`,
    `UPDATE events SET metadata = jsonb_set(metadata, '{actor,userId}', '99') WHERE position = 40`,
    `UPDATE events SET type = 'Withdrawn' WHERE position = 33`,
    `UPDATE events SET id = '${randomUUID()}' WHERE position = 8`,
    `UPDATE events SET body = replace(body, 'deposit', 'DEPOSIT') WHERE position = 9`,
    `UPDATE events SET body = 'not json' WHERE position = 5`,
  ]) {
    try {
      await tamper(db!, sql);
      assert.unreachable(`${sql} was let through`);
    } catch (err) {
      await db!.pool.query('ALTER TABLE events ENABLE TRIGGER events_append_only');
      assert.ok(['23514', '22P02'].includes((err as { code?: string }).code ?? ''), `${sql}: ${(err as Error).message}`);
    }
  }
});

t('a row whose body and columns were changed together (hash left alone) is named on the fast path, with the answer of before', async ({ db, store, queries }) => {
  await tamper(db!, `UPDATE events SET data = jsonb_set(data, '{amount}', '1000000'), body = replace(body, '"amount":16,', '"amount":1000000,') WHERE position = 33`);
  queries.length = 0;
  const v = await store!.verify(1);
  assert.equal(v.firstMismatch?.position, 33);
  assert.is(v.firstMismatch?.reason, 'hash_mismatch');
  assert.ok(hashedBodiesAlone(queries) && !comparedColumns(queries));
  await assertSameAnswers(store!, [[1, 100], [1, 32], [34, 100], [30, 40]]);
});

t('an altered data column (body left alone, constraint dropped) is named at its position, with the answer of before', async ({ db, store, queries }) => {
  await tamperColumns(db!, `UPDATE events SET data = jsonb_set(data, '{amount}', '1000000') WHERE position = 17`);
  queries.length = 0;
  const v = await store!.verify(1);
  assert.is(v.firstMismatch?.position, 17);
  assert.is(v.firstMismatch?.reason, 'hash_mismatch');
  assert.is(v.checked, 16);
  assert.ok(comparedColumns(queries), 'without the constraint each body is compared with its columns');
  await assertSameAnswers(store!, [[1, 100], [1, 16], [18, 100], [15, 21], [17, 17]]);
  assert.ok((await store!.verify(1, 16)).ok);
});

t('the fast path needs the constraint validated, enforced and as migrated: put back NOT VALID, NOT ENFORCED or weaker, the change is still named', async ({ db, store }) => {
  await tamperColumns(db!, `UPDATE events SET data = jsonb_set(data, '{amount}', '1000000') WHERE position = 17`);
  const expected = await referenceVerify(store!, 1, 100);
  assert.is(expected.firstMismatch?.position, 17);
  const check = "CHECK (body IS NULL OR body::jsonb = jsonb_build_object('data', data, 'id', id::text, 'metadata', metadata, 'type', type))";
  for (const put of [`${check} NOT VALID`, `${check} NOT ENFORCED`, "CHECK (body IS NULL OR body::jsonb ? 'data')", 'CHECK (true)']) {
    await db!.pool.query('ALTER TABLE events DROP CONSTRAINT IF EXISTS events_body_matches_columns');
    await db!.pool.query(`ALTER TABLE events ADD CONSTRAINT events_body_matches_columns ${put}`);
    assert.not.ok(await bodyConstraintHolds(db!.pool), put);
    assert.equal(await store!.verify(1), expected, put);
  }
});

t('altered metadata, type or id are caught too', async ({ db, store }) => {
  await tamperColumns(db!, `UPDATE events SET metadata = jsonb_set(metadata, '{actor,userId}', '99') WHERE position = 40`);
  assert.is((await store!.verify(1)).firstMismatch?.position, 40);
  await tamperColumns(db!, `UPDATE events SET type = 'Withdrawn' WHERE position = 33`);
  assert.is((await store!.verify(1)).firstMismatch?.position, 33);
  await tamperColumns(db!, `UPDATE events SET id = '${randomUUID()}' WHERE position = 8`);
  assert.is((await store!.verify(1)).firstMismatch?.position, 8);
  await assertSameAnswers(store!, [[1, 100], [9, 100], [34, 100]]);
});

t('a deleted row is a gap named at the missing position, on the fast path', async ({ db, store, queries }) => {
  await tamper(db!, 'DELETE FROM events WHERE position = 21');
  queries.length = 0;
  const v = await store!.verify(1);
  assert.ok(hashedBodiesAlone(queries) && !comparedColumns(queries));
  assert.equal(v.firstMismatch, { position: 21, reason: 'gap', expected: '21', actual: '22' });
  await assertSameAnswers(store!, [[1, 100], [1, 20], [15, 28]]);
  assert.is((await store!.verify(22, 100)).firstMismatch?.reason, 'gap', 'a range that starts after the hole has no anchor');
  await tamper(db!, 'DELETE FROM events WHERE position > 95');
  assert.equal((await store!.verify(90, 100)).firstMismatch, { position: 96, reason: 'gap', expected: '96', actual: 'missing' });
});

t('a reordered pair breaks the link at the first of the two, on the fast path', async ({ db, store, queries }) => {
  await tamper(db!, 'UPDATE events SET position = -14 WHERE position = 14', 'UPDATE events SET position = 14 WHERE position = 15', 'UPDATE events SET position = 15 WHERE position = -14');
  queries.length = 0;
  const v = await store!.verify(1);
  assert.ok(hashedBodiesAlone(queries) && !comparedColumns(queries));
  assert.is(v.firstMismatch?.position, 14);
  assert.is(v.firstMismatch?.reason, 'broken_link');
  await assertSameAnswers(store!, [[1, 100], [10, 20]]);
});

t('a hash rewritten in place breaks its own recomputation and the next link, as before', async ({ db, store }) => {
  await tamper(db!, `UPDATE events SET hash = repeat('a', 64) WHERE position = 63`);
  await assertSameAnswers(store!, [[1, 100], [64, 100], [60, 63]]);
  assert.is((await store!.verify(1)).firstMismatch?.position, 63);
});

t('rows without a stored body (written before migration 0600) are checked the old way, with the same answers', async ({ db, store, queries }) => {
  await tamper(db!, 'UPDATE events SET body = NULL WHERE position BETWEEN 30 AND 60');
  queries.length = 0;
  assert.equal(await store!.verify(1), { ok: true, checked: 100, fromPosition: 1, toPosition: 100 });
  assert.ok(queries.some((q) => /SELECT position, stream_id, version, id, type, data/.test(q)), 'the JavaScript path judged the rows without a body');
  await tamperColumns(db!, `UPDATE events SET data = '{"n": -1}' WHERE position = 44`);
  await assertSameAnswers(store!, [[1, 100], [45, 100]]);
  assert.is((await store!.verify(1)).firstMismatch?.position, 44);
});

t('a body that was altered or no longer parses does not change the answer: the columns and hashes decide, as before', async ({ db, store }) => {
  await tamperColumns(db!, `UPDATE events SET body = 'not json' WHERE position = 5`, `UPDATE events SET body = replace(body, 'deposit', 'DEPOSIT') WHERE position = 9`);
  assert.equal(await store!.verify(1), { ok: true, checked: 100, fromPosition: 1, toPosition: 100 });
});

t.run();
