// The health monitor's observation cache: readings recorded at once go to PostgreSQL together
// (one statement), the newest reading of a node wins within a batch and across batches, a failed
// probe keeps the last healthy figures, and a write that fails rejects every record() in it.
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { freshDatabase, recordingPool } from '../../helpers/postgres.ts';
import { postgresNodeObservations } from '../../../adapters/postgres/nodeObservations.ts';

// The table as its migration makes it.
const DDL = readFileSync(new URL('../../../migrations/0650_node_observations.sql', import.meta.url), 'utf8');

test('concurrent readings are written in few statements; the newest of a node wins; failures keep the healthy figures', async () => {
  const db = await freshDatabase();
  await db.pool.query(DDL);
  const log: string[] = [];
  const obs = postgresNodeObservations(recordingPool(db.pool, log));
  const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
  // 50 nodes at once, node 1 three times (out of order): one write in flight, the rest in the next.
  await Promise.all([
    ...Array.from({ length: 50 }, (_, i) => obs.record({ nodeId: i + 1, status: 'healthy', blockHeight: 10 + i, peerCount: 1, error: null, at: at(5) })),
    obs.record({ nodeId: 1, status: 'healthy', blockHeight: 99, peerCount: 3, error: null, at: at(9) }),
    obs.record({ nodeId: 1, status: 'healthy', blockHeight: 50, peerCount: 2, error: null, at: at(7) }),
  ]);
  const inserts = log.filter((q) => q.includes('INSERT INTO node_observations'));
  assert.ok(inserts.length <= 3, `${inserts.length} statements for 52 readings`);
  let latest = await obs.latest([1, 2, 50]);
  assert.is(latest.get(1)!.blockHeight, 99);
  assert.is(latest.get(1)!.observedAt, at(9));
  assert.is(latest.get(2)!.blockHeight, 11);
  assert.is(latest.get(50)!.blockHeight, 59);
  // An older reading never overwrites a newer one; a failed probe keeps the last healthy figures.
  await obs.record({ nodeId: 1, status: 'unreachable', blockHeight: null, peerCount: null, error: 'old', at: at(8) });
  await obs.record({ nodeId: 2, status: 'unreachable', blockHeight: null, peerCount: null, error: 'no answer', at: at(10) });
  latest = await obs.latest([1, 2]);
  assert.is(latest.get(1)!.status, 'healthy');
  assert.is(latest.get(2)!.status, 'unreachable');
  assert.is(latest.get(2)!.blockHeight, 11);
  assert.is(latest.get(2)!.healthyAt, at(5));
  assert.is(latest.get(2)!.error, 'no answer');
  // A write that fails rejects its callers, and the next one writes again.
  await db.pool.query('ALTER TABLE node_observations RENAME TO gone');
  const failed = await Promise.allSettled([obs.record({ nodeId: 3, status: 'healthy', blockHeight: 1, peerCount: 0, error: null, at: at(20) })]);
  assert.is(failed[0].status, 'rejected');
  await db.pool.query('ALTER TABLE gone RENAME TO node_observations');
  await obs.record({ nodeId: 3, status: 'healthy', blockHeight: 7, peerCount: 0, error: null, at: at(21) });
  assert.is((await obs.latest([3])).get(3)!.blockHeight, 7);
  await db.close();
});

test('readings of one probe round that end a few milliseconds apart share a statement', async () => {
  const db = await freshDatabase();
  await db.pool.query(DDL);
  const log: string[] = [];
  const obs = postgresNodeObservations(recordingPool(db.pool, log));
  const at = new Date().toISOString();
  // 24 probes ending 0-12 ms after the first, each in its own turn (as the answers of 24 nodes arrive).
  await Promise.all(
    Array.from({ length: 24 }, (_, i) => new Promise((r) => setTimeout(r, i / 2)).then(() => obs.record({ nodeId: i + 1, status: 'healthy', blockHeight: i, peerCount: 0, error: null, at }))),
  );
  const inserts = log.filter((q) => q.includes('INSERT INTO node_observations')).length;
  assert.ok(inserts <= 2, `${inserts} statements for 24 readings 0-12 ms apart`);
  assert.is((await obs.latest(Array.from({ length: 24 }, (_, i) => i + 1))).size, 24);
  await db.close();
});

test.run();
