// The projected cache (application/projectedCache.ts) over a real projector and PostgreSQL, with
// two projectors on one database standing for two servers: a value is kept until an event of a
// relevant stream is projected, by whichever server appended it; then the next read sees the
// change. Overlapping and failed loads are not kept; a rebuild empties it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { freshDatabase } from '../helpers/postgres.ts';
import { migrate } from '../../adapters/postgres/migrate.ts';
import { postgresEventStore } from '../../adapters/eventstore/postgresEventStore.ts';
import { createProjector } from '../../projections/projector.ts';
import type { Projection } from '../../projections/projection.ts';
import { projectedCache } from '../../application/projectedCache.ts';

const accounts: Projection = {
  name: 'test_accounts',
  handles: ['Opened', 'Deposited'],
  tables: ['test_accounts'],
  apply(e) {
    if (e.type === 'Opened') return [{ text: 'INSERT INTO test_accounts (id, balance) VALUES ($1, 0)', values: [e.streamId] }];
    return [{ text: 'UPDATE test_accounts SET balance = balance + $2 WHERE id = $1', values: [e.streamId, e.data.amount] }];
  },
};
const meta = () => ({ timestamp: new Date().toISOString() });
const relevant = (e: { streamId: string }) => e.streamId.startsWith('acct-');

async function setup() {
  const db = await freshDatabase();
  await migrate(db.pool);
  await db.pool.query('CREATE TABLE test_accounts (id text PRIMARY KEY, balance bigint)');
  // Two servers on one database: each its own store connection and projector.
  const storeA = postgresEventStore(db.pool, { url: db.url, pollIntervalMs: 200 });
  const storeB = postgresEventStore(db.pool, { url: db.url, pollIntervalMs: 200 });
  const a = createProjector({ pool: db.pool, store: storeA, projections: [accounts] });
  const b = createProjector({ pool: db.pool, store: storeB, projections: [accounts] });
  await a.start();
  await b.start();
  const loads = { n: 0 };
  const balance = (pool: pg.Pool) => async () => {
    loads.n++;
    return Number((await pool.query('SELECT balance FROM test_accounts WHERE id = $1', ['acct-1'])).rows[0]?.balance ?? -1);
  };
  const close = async () => {
    await a.stop();
    await b.stop();
    await storeA.close();
    await storeB.close();
    await db.close();
  };
  return { db, storeA, storeB, a, b, loads, balance: balance(db.pool), close };
}

test('kept until a relevant event is projected, on the server that appended it and on another one', async () => {
  const s = await setup();
  try {
    const first = await s.storeA.append('acct-1', 0, [{ id: randomUUID(), type: 'Opened', data: {} }], meta());
    await s.a.waitFor(first.lastPosition);
    await s.b.waitFor(first.lastPosition);
    const cacheA = projectedCache(s.a, relevant);
    const cacheB = projectedCache(s.b, relevant);
    assert.is(await cacheA.get('k', s.balance), 0);
    assert.is(await cacheA.get('k', s.balance), 0);
    assert.is(await cacheB.get('k', s.balance), 0);
    assert.is(s.loads.n, 2, 'one load per server, then hits');
    // Server A appends: once its projection has it (what a command waits for before answering), both see it.
    const dep = await s.storeA.append('acct-1', 'any', [{ id: randomUUID(), type: 'Deposited', data: { amount: 5 } }], meta());
    await s.a.waitFor(dep.lastPosition);
    assert.is(await cacheA.get('k', s.balance), 5);
    await s.b.waitFor(dep.lastPosition);
    assert.is(await cacheB.get('k', s.balance), 5, 'the other server forgot it when its projector applied the event');
    // Server B appends: the same the other way round.
    const dep2 = await s.storeB.append('acct-1', 'any', [{ id: randomUUID(), type: 'Deposited', data: { amount: 2 } }], meta());
    await s.b.waitFor(dep2.lastPosition);
    await s.a.waitFor(dep2.lastPosition);
    assert.is(await cacheA.get('k', s.balance), 7);
    assert.is(await cacheB.get('k', s.balance), 7);
    // An event of another stream keeps what is kept.
    const n = s.loads.n;
    const other = await s.storeA.append('other-1', 'any', [{ id: randomUUID(), type: 'Noted', data: {} }], meta());
    await s.a.waitFor(other.lastPosition);
    assert.is(await cacheA.get('k', s.balance), 7);
    assert.is(s.loads.n, n);
    cacheA.close();
    cacheB.close();
  } finally {
    await s.close();
  }
});

test('a load that overlaps an invalidation is not kept; a failed load is not kept; a rebuild empties it', async () => {
  const s = await setup();
  try {
    const first = await s.storeA.append('acct-1', 0, [{ id: randomUUID(), type: 'Opened', data: {} }], meta());
    await s.a.waitFor(first.lastPosition);
    const cache = projectedCache(s.a, relevant);
    // The load reads the old balance, then the deposit is projected before the load ends.
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const slow = cache.get('k', async () => {
      const v = await s.balance();
      await gate;
      return v;
    });
    await new Promise((r) => setTimeout(r, 50));
    const dep = await s.storeA.append('acct-1', 'any', [{ id: randomUUID(), type: 'Deposited', data: { amount: 3 } }], meta());
    await s.a.waitFor(dep.lastPosition);
    release();
    assert.is(await slow, 0);
    assert.is(await cache.get('k', s.balance), 3, 'the overlapping load was not kept');
    // Failures are not kept.
    await cache.get('bad', async () => {
      throw new Error('no such thing');
    }).then(() => assert.unreachable('should fail'), (e: Error) => assert.is(e.message, 'no such thing'));
    assert.is(await cache.get('bad', async () => 1), 1);
    // A rebuild empties the tables and the cache.
    assert.ok(cache.size() > 0);
    await s.a.rebuild();
    assert.is(cache.size(), 0);
    // Without a projector that reports applied events, nothing is kept.
    const bare = projectedCache({}, relevant);
    let loads = 0;
    await bare.get('k', async () => ++loads);
    await bare.get('k', async () => ++loads);
    assert.is(loads, 2);
    cache.close();
  } finally {
    await s.close();
  }
});

test.run();
