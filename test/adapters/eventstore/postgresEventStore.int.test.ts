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

test('a row changed behind the service (trigger disabled by a superuser) is caught by verify, which names its position', async () => {
  const { db, store } = await makeStore();
  for (let i = 0; i < 30; i++) await store.append(`acct-${i % 3}`, 'any', [{ id: randomUUID(), type: 'Deposited', data: { amount: i } }], meta());
  assert.ok((await store.verify(1)).ok);
  await db.pool.query('ALTER TABLE events DISABLE TRIGGER events_append_only');
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

test.run();
