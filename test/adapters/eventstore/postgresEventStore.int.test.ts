import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { eventStoreContract } from './eventStoreContract.ts';
import { freshDatabase } from '../../helpers/postgres.ts';
import { migrate } from '../../../adapters/postgres/migrate.ts';
import { postgresEventStore } from '../../../adapters/eventstore/postgresEventStore.ts';

async function makeStore() {
  const db = await freshDatabase();
  await migrate(db.pool);
  const store = postgresEventStore(db.pool, { url: db.url, pollIntervalMs: 200 });
  return { db, store };
}

eventStoreContract('postgres', async () => {
  const { db, store } = await makeStore();
  return { store, cleanup: async () => { await store.close(); await db.close(); } };
});

const meta = () => ({ timestamp: new Date().toISOString() });

test('the database itself refuses UPDATE, DELETE and TRUNCATE on events', async () => {
  const { db, store } = await makeStore();
  await store.append('x-1', 0, [{ id: randomUUID(), type: 'A', data: {} }], meta());
  for (const sql of [`UPDATE events SET type = 'B'`, 'DELETE FROM events', 'TRUNCATE events']) {
    try {
      await db.pool.query(sql);
      assert.unreachable(sql + ' was allowed');
    } catch (err) {
      assert.match((err as Error).message, /append-only/);
    }
  }
  await store.close();
  await db.close();
});

test('a row changed behind the service (trigger and body constraint removed by the table owner) is caught by verify, which names its position', async () => {
  const { db, store } = await makeStore();
  for (let i = 0; i < 30; i++) await store.append(`acct-${i % 3}`, 'any', [{ id: randomUUID(), type: 'Deposited', data: { amount: i } }], meta());
  assert.ok((await store.verify(1)).ok);
  await db.pool.query('ALTER TABLE events DISABLE TRIGGER events_append_only');
  await db.pool.query('ALTER TABLE events DROP CONSTRAINT events_body_matches_columns');
  await db.pool.query(`UPDATE events SET data = '{"amount": 1000000}' WHERE position = 17`);
  await db.pool.query('ALTER TABLE events ENABLE TRIGGER events_append_only');
  const v = await store.verify(1);
  assert.is(v.ok, false);
  assert.is(v.firstMismatch?.position, 17);
  assert.is(v.firstMismatch?.reason, 'hash_mismatch');
  // a range that ends before the tampered row still verifies
  assert.ok((await store.verify(1, 16)).ok);
  await store.close();
  await db.close();
});

test('a hash recomputed by the tamperer breaks the link to the next event', async () => {
  const { db, store } = await makeStore();
  for (let i = 0; i < 5; i++) await store.append('s', 'any', [{ id: randomUUID(), type: 'E', data: { i } }], meta());
  await db.pool.query('ALTER TABLE events DISABLE TRIGGER events_append_only');
  await db.pool.query(`UPDATE events SET hash = repeat('a', 64) WHERE position = 3`);
  await db.pool.query('ALTER TABLE events ENABLE TRIGGER events_append_only');
  const v = await store.verify(1);
  assert.is(v.firstMismatch?.position, 3);
  await store.close();
  await db.close();
});

test('an append that lands while the subscriber is busy wakes it (no wait for the poll interval)', async () => {
  const db = await freshDatabase();
  await migrate(db.pool);
  // A one-minute poll: only a wake-up can deliver the second event within the test's 10 s.
  const store = postgresEventStore(db.pool, { pollIntervalMs: 60_000 });
  const seen: string[] = [];
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let second!: () => void;
  const gotSecond = new Promise<void>((r) => (second = r));
  const sub = store.subscribe(0, async (batch) => {
    for (const e of batch) seen.push(e.type);
    if (seen.length === 1) await gate; // busy while the next append lands
    if (seen.includes('Second')) second();
  });
  await store.append('w', 0, [{ id: randomUUID(), type: 'First', data: {} }], meta());
  while (seen.length === 0) await new Promise((r) => setTimeout(r, 10));
  await store.append('w', 1, [{ id: randomUUID(), type: 'Second', data: {} }], meta());
  release();
  await Promise.race([gotSecond, new Promise((_, rej) => setTimeout(() => rej(new Error('the append during the handler was not delivered: lost wake-up')), 10_000))]);
  await sub.close();
  assert.equal(seen, ['First', 'Second']);
  await store.close();
  await db.close();
});

test.run();
