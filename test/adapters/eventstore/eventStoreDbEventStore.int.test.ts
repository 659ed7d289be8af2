// The shared contract against a real EventStoreDB/KurrentDB server, switched on by EVENTSTORE_URL
// (e.g. EVENTSTORE_URL='kurrentdb://127.0.0.1:2113?tls=false'). Every store gets a fresh log
// stream, so reruns against the same server start from an empty log.
import { test as uvuTest } from 'uvu';
import { requires } from '../../helpers/requirements.ts';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { jsonEvent, KurrentDBClient } from '@kurrent/kurrentdb-client';
import { eventStoreContract } from './eventStoreContract.ts';
import { WrongExpectedVersionError } from '../../../domain/shared/errors.ts';
import type { NewEvent } from '../../../domain/shared/eventStore.ts';
import { eventStoreDbEventStore } from '../../../adapters/eventstore/eventStoreDbEventStore.ts';

const url = process.env.EVENTSTORE_URL;

const meta = () => ({ timestamp: new Date().toISOString(), requestId: randomUUID() });
const ev = (type: string, data: Record<string, number | string> = {}): NewEvent => ({ id: randomUUID(), type, data });
const freshLog = () => `lnm-log-test-${randomUUID()}`;

// Registered whether or not a server is configured, so that its tests are counted: as skips without one.
const missing = url ? undefined : 'EVENTSTORE_URL is not set (no EventStoreDB/KurrentDB server can run here)';
eventStoreContract(
  'eventstoredb',
  async () => {
    const store = eventStoreDbEventStore(url!, { logStream: freshLog(), pollIntervalMs: 200 });
    return { store, cleanup: () => store.close() };
  },
  ['eventstoredb', missing],
);
{
  const test = requires(uvuTest, 'eventstoredb', missing);

  test('two service processes (two clients) racing on one stream: exactly one wins, and the log stays gapless and verified', async () => {
    const logStream = freshLog();
    const a = eventStoreDbEventStore(url!, { logStream });
    const b = eventStoreDbEventStore(url!, { logStream });
    try {
      await a.append('net-1', 0, [ev('Opened')], meta());
      const results = await Promise.allSettled([a.append('net-1', 1, [ev('ByA')], meta()), b.append('net-1', 1, [ev('ByB')], meta())]);
      const lost = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[];
      assert.is(lost.length, 1);
      assert.instance(lost[0].reason, WrongExpectedVersionError);
      await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).append(`s-${i}`, 0, [ev('X'), ev('Y')], meta())));
      const all = await b.readAll(0, 100);
      assert.equal(all.map((e) => e.position), Array.from({ length: 22 }, (_, i) => i + 1));
      assert.ok((await a.verify(1)).ok);
    } finally {
      await a.close();
      await b.close();
    }
  });

  test('an event written straight into the log with a forged hash is caught by verify, which names its position', async () => {
    const logStream = freshLog();
    const store = eventStoreDbEventStore(url!, { logStream });
    const client = KurrentDBClient.connectionString(url!);
    try {
      for (let i = 0; i < 4; i++) await store.append('acct', 'any', [ev('Deposited', { amount: i })], meta());
      const [last] = await store.readAll(3, 1);
      await client.appendToStream(
        logStream,
        jsonEvent({
          id: randomUUID(),
          type: 'Deposited',
          data: { amount: 1_000_000 },
          metadata: { lnm: 1, streamId: 'acct', version: 5, id: randomUUID(), prevHash: last.hash, hash: 'f'.repeat(64), metadata: meta() },
        }),
      );
      const v = await store.verify(1);
      assert.is(v.ok, false);
      assert.is(v.firstMismatch?.position, 5);
      assert.is(v.firstMismatch?.reason, 'hash_mismatch');
      assert.ok((await store.verify(1, 4)).ok);
    } finally {
      await client.dispose();
      await store.close();
    }
  });

  test.run();
}
