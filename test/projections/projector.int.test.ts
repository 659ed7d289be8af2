import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { freshDatabase } from '../helpers/postgres.ts';
import { migrate } from '../../adapters/postgres/migrate.ts';
import { postgresEventStore } from '../../adapters/eventstore/postgresEventStore.ts';
import { createProjector } from '../../projections/projector.ts';
import type { Projection } from '../../projections/projection.ts';

const accounts: Projection = {
  name: 'test_accounts',
  handles: ['Opened', 'Deposited'],
  tables: ['test_accounts'],
  apply(e) {
    if (e.type === 'Opened') return [{ text: 'INSERT INTO test_accounts (id, owner, balance, opened_at) VALUES ($1, $2, 0, $3)', values: [e.streamId, e.data.owner, e.metadata.timestamp] }];
    return [{ text: 'UPDATE test_accounts SET balance = balance + $2, version = $3 WHERE id = $1', values: [e.streamId, e.data.amount, e.version] }];
  },
};

async function setup() {
  const db = await freshDatabase();
  await migrate(db.pool);
  await db.pool.query('CREATE TABLE test_accounts (id text PRIMARY KEY, owner text, balance bigint, version int DEFAULT 1, opened_at timestamptz)');
  const store = postgresEventStore(db.pool, { url: db.url, pollIntervalMs: 200 });
  const projector = createProjector({ pool: db.pool, store, projections: [accounts] });
  return { db, store, projector };
}
const meta = () => ({ timestamp: new Date().toISOString() });
const dump = async (pool: import('pg').Pool) => (await pool.query('SELECT * FROM test_accounts ORDER BY id')).rows;

test('a write is visible in the read model as soon as waitFor(position) resolves', async () => {
  const { db, store, projector } = await setup();
  await projector.start();
  for (let i = 0; i < 20; i++) {
    const id = `acct-${i}`;
    const r = await store.append(id, 0, [{ id: randomUUID(), type: 'Opened', data: { owner: `o${i}` } }, { id: randomUUID(), type: 'Deposited', data: { amount: i } }], meta());
    await projector.waitFor(r.lastPosition);
    const row = (await db.pool.query('SELECT balance FROM test_accounts WHERE id = $1', [id])).rows[0];
    assert.is(Number(row.balance), i);
  }
  await projector.stop();
  await store.close();
  await db.close();
});

test('rebuild from position 0 yields exactly the same tables as live projection', async () => {
  const { db, store, projector } = await setup();
  await projector.start();
  let last = 0;
  for (let i = 0; i < 200; i++) {
    const id = `acct-${i % 17}`;
    const events = i < 17 ? [{ id: randomUUID(), type: 'Opened', data: { owner: `o${i}` } }] : [{ id: randomUUID(), type: 'Deposited', data: { amount: i } }];
    last = (await store.append(id, 'any', events, meta())).lastPosition;
  }
  await projector.waitFor(last);
  const live = await dump(db.pool);
  assert.is(live.length, 17);
  const r = await projector.rebuild();
  assert.is(r.events, 200);
  assert.equal(await dump(db.pool), live);
  await projector.stop();
  await store.close();
  await db.close();
});

test('a projector that starts after a restart resumes from its checkpoint and applies nothing twice', async () => {
  const { db, store, projector } = await setup();
  await projector.start();
  const r1 = await store.append('a', 0, [{ id: randomUUID(), type: 'Opened', data: { owner: 'x' } }, { id: randomUUID(), type: 'Deposited', data: { amount: 5 } }], meta());
  await projector.waitFor(r1.lastPosition);
  await projector.stop();
  const r2 = await store.append('a', 2, [{ id: randomUUID(), type: 'Deposited', data: { amount: 7 } }], meta());
  const second = createProjector({ pool: db.pool, store, projections: [accounts] });
  await second.start();
  await second.waitFor(r2.lastPosition);
  assert.equal((await dump(db.pool)).map((r) => Number(r.balance)), [12]);
  await second.stop();
  await store.close();
  await db.close();
});

test('waitFor gives up with a 503 error that says the write was saved when the read model lags', async () => {
  const { db, store, projector } = await setup();
  try {
    await projector.waitFor(999, 200);
    assert.unreachable('should time out');
  } catch (err) {
    assert.is((err as { status: number }).status, 503);
    assert.match((err as Error).message, /saved/);
  }
  await store.close();
  await db.close();
});

test.run();
