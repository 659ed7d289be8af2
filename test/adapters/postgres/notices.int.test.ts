// The instance's listening connection (adapters/postgres/notices.ts): a notification committed
// before barrier() is called has been handed over when it resolves; instances on one database
// know of each other; and a projector hearing another's committed position catches up at once, so
// its caches learn of a change another instance acknowledged before they answer.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { freshDatabase } from '../../helpers/postgres.ts';
import { migrate } from '../../../adapters/postgres/migrate.ts';
import { openNotices } from '../../../adapters/postgres/notices.ts';
import { postgresEventStore } from '../../../adapters/eventstore/postgresEventStore.ts';
import { createProjector, PROJECTED_CHANNEL } from '../../../projections/projector.ts';
import type { Projection } from '../../../projections/projection.ts';
import type { RecordedEvent } from '../../../domain/shared/eventStore.ts';

test('barrier(): every notification committed before the call has been delivered when it resolves', async () => {
  const db = await freshDatabase();
  const n = await openNotices(db.url);
  const heard = new Set<string>();
  await n.on('lnm_test', (p) => heard.add(p));
  try {
    for (let i = 0; i < 300; i++) {
      await db.pool.query(`SELECT pg_notify('lnm_test', $1)`, [`m${i}`]);
      assert.ok(await n.barrier());
      assert.ok(heard.has(`m${i}`), `m${i} not yet heard after the barrier`);
    }
    // Concurrent callers share round trips and all resolve.
    const all = await Promise.all(Array.from({ length: 50 }, () => n.barrier()));
    assert.ok(all.every(Boolean));
  } finally {
    await n.close();
  }
});

test('instances on one database know of each other: at once for the newcomer, after one round trip for the others', async () => {
  const db = await freshDatabase();
  const a = await openNotices(db.url);
  try {
    assert.is(a.peers(), false, 'alone');
    const b = await openNotices(db.url);
    try {
      assert.is(b.peers(), true, 'the newcomer sees the instance already listening');
      await a.barrier();
      assert.is(a.peers(), true, 'the first one heard the hello');
    } finally {
      await b.close();
    }
  } finally {
    await a.close();
  }
});

const marks: Projection = {
  name: 'test_marks',
  handles: ['Marked'],
  tables: ['test_marks'],
  apply: (e) => [{ text: 'INSERT INTO test_marks (id) VALUES ($1)', values: [e.streamId] }],
};

test("a projector hearing another's committed position catches up before fresh() resolves", async () => {
  const db = await freshDatabase();
  await migrate(db.pool);
  await db.pool.query('CREATE TABLE test_marks (id text PRIMARY KEY)');
  const nA = await openNotices(db.url);
  const nB = await openNotices(db.url);
  // Instance B's subscription is never woken and polls once a minute: only the notice can tell it.
  const storeA = postgresEventStore(db.pool, { notices: nA, pollIntervalMs: 60_000 });
  const storeB = postgresEventStore(db.pool, { pollIntervalMs: 60_000 });
  const a = createProjector({ pool: db.pool, store: storeA, projections: [marks], notices: nA });
  const b = createProjector({ pool: db.pool, store: storeB, projections: [marks], notices: nB });
  let bHeard = 0;
  await nB.on(PROJECTED_CHANNEL, (p) => b.noticed!(Number(p)));
  const seen = new Set<string>();
  b.onApplied!((batch: readonly RecordedEvent[] | null) => batch?.forEach((e) => seen.add(e.streamId)));
  await a.start();
  await b.start();
  try {
    await nA.barrier();
    for (let i = 0; i < 30; i++) {
      const r = await storeA.append(`mark-${i}`, 0, [{ id: randomUUID(), type: 'Marked', data: {} }], { timestamp: new Date().toISOString() });
      await a.waitFor(r.lastPosition);
      const fresh = b.fresh!();
      assert.ok(fresh !== true, 'with another instance, fresh() takes the round trip');
      if (await fresh) {
        bHeard++;
        assert.ok(seen.has(`mark-${i}`), `B's caches were not told of mark-${i}`);
      } else {
        assert.ok(b.behind!(), 'not fresh only while catching up');
      }
      await b.waitFor(r.lastPosition, 5_000);
      assert.ok(seen.has(`mark-${i}`), `after waitFor, B had not told its caches of mark-${i}`);
      // Caught up and nothing new: B's caches answer again (fresh after one round trip).
      assert.is(await b.fresh!(), true, `B caught up with mark-${i} but is not fresh`);
    }
    // How often B was fresh at once after A's acknowledgement is timing (its catch-up read races
    // the round trip); correctness is that it never was fresh without having been told (above).
  } finally {
    await a.stop();
    await b.stop();
    await storeA.close();
    await storeB.close();
    await nA.close();
    await nB.close();
  }
});

test.run();
