// The consortium credentials' cache (an organization's MSP and admin signer, asked for by every
// chaincode query): read once, read again after an event of an organization or key stream (a
// rotation, a revocation), kept across events of other streams, never kept when a read overlaps
// such an event. Real PostgreSQL event store and its subscription.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { freshDatabase } from '../../helpers/postgres.ts';
import { migrate } from '../../../adapters/postgres/migrate.ts';
import { postgresEventStore } from '../../../adapters/eventstore/postgresEventStore.ts';
import { invalidatedCache } from '../../../adapters/consortium/consortiumCredentials.ts';

const meta = () => ({ timestamp: new Date().toISOString() });
const ev = (type: string) => [{ id: crypto.randomUUID(), type, data: { n: 1 } }];

async function eventually(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within 10 s: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('read once; read again after an organization or key event, not after others; an overlapping read is not kept', async () => {
  const db = await freshDatabase();
  await migrate(db.pool);
  const store = postgresEventStore(db.pool, { url: db.url });
  const cached = invalidatedCache(store);
  let loads = 0;
  const load = async () => ++loads;
  assert.is(await cached('admin-1', load), 1);
  assert.is(await cached('admin-1', load), 1, 'kept');
  await store.append('node-7', 'any', ev('NodeStarted'), meta());
  await new Promise((r) => setTimeout(r, 300));
  assert.is(await cached('admin-1', load), 1, 'an event of another stream changes nothing');

  await store.append('key-3', 'any', ev('KeyRotated'), meta());
  await eventually('the key event empties the cache', async () => (await cached('admin-1', load)) === 2);
  await store.append('organization-1', 'any', ev('OrganizationUpdated'), meta());
  await eventually('the organization event empties the cache', async () => (await cached('admin-1', load)) === 3);

  // A read still in progress when an invalidating event arrives answers its caller but is not kept.
  let release!: () => void;
  const slow = cached('msp-1', () => new Promise<number>((r) => (release = () => r(100))));
  await store.append('key-4', 'any', ev('KeyRevoked'), meta());
  await new Promise((r) => setTimeout(r, 500));
  release();
  assert.is(await slow, 100);
  await new Promise((r) => setTimeout(r, 20));
  assert.is(await cached('msp-1', async () => 200), 200, 'the overlapping read was dropped');
  await store.close();
  await db.close();
});

test.run();
