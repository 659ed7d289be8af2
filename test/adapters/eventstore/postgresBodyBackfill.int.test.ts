// Events written before migration 0600 (no stored body) on a store created with that schema:
// after the upgrade they verify as before, the start-up backfill gives each its body, and then
// verify hashes them in PostgreSQL like any other row. A row changed before the backfill keeps no
// body and is named exactly as before; the append-only trigger lets through nothing but a body
// that hashes to the row's stored hash.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freshDatabase, recordingPool, type FreshDatabase } from '../../helpers/postgres.ts';
import { migrate } from '../../../adapters/postgres/migrate.ts';
import { migrateBefore0600, seedBefore0600 } from '../../helpers/eventStoreBefore0600.ts';
import { postgresEventStore } from '../../../adapters/eventstore/postgresEventStore.ts';
import { backfillEventBodies } from '../../../adapters/eventstore/postgresBodyBackfill.ts';
import { bodyConstraintHolds } from '../../../adapters/eventstore/postgresChainVerify.ts';
import { exportDatabase, importDatabase } from '../../../adapters/backups/databaseExport.ts';
import { canonicalEventText, GENESIS_HASH, verifyRun } from '../../../domain/shared/eventChain.ts';
import type { EventStore } from '../../../domain/shared/eventStore.ts';

/** Verify as it was before any of this: every row re-serialised in JavaScript. */
async function referenceVerify(store: EventStore, from: number, to: number) {
  const events = (await store.readAll(from - 1, 1_000_000)).filter((e) => e.position <= to);
  const r = verifyRun(from === 1 ? GENESIS_HASH : (await store.readAll(from - 2, 1))[0].hash, events, from);
  return r.ok ? { ok: true, checked: events.length } : { ok: false, position: r.position, reason: r.reason, expected: r.expected, actual: r.actual };
}

const readRowsIntoJs = (queries: string[]) => queries.some((q) => /SELECT position, stream_id, version, id, type, data/.test(q));

const OLD_EVENTS = 60;
const t = suite<{ db?: FreshDatabase }>('postgres event store: events from before migration 0600');
t.before.each(async (ctx) => {
  ctx.db = await freshDatabase();
  await migrateBefore0600(ctx.db.pool);
  const cols = await ctx.db.pool.query(`SELECT column_name FROM information_schema.columns WHERE table_name = 'events' AND column_name = 'body'`);
  assert.is(cols.rowCount, 0, 'the old schema has no body column');
  await seedBefore0600(ctx.db.pool, OLD_EVENTS / 2);
});
t.after.each(async (ctx) => {
  await ctx.db?.close();
});

t('after the upgrade the old rows verify, the backfill gives each its body, and then verify hashes them in PostgreSQL alone', async ({ db }) => {
  const r = await migrate(db!.pool);
  assert.ok(r.applied.includes('0600_event_store_group_commit.sql') && r.applied.includes('1140_event_body_constraint.sql'));
  assert.ok(await bodyConstraintHolds(db!.pool), 'rows without a body do not keep the constraint from being validated');
  const queries: string[] = [];
  const store = postgresEventStore(recordingPool(db!.pool, queries), { verifyRangeSize: 7 });
  try {
    assert.is(Number((await db!.pool.query('SELECT count(*) FROM events WHERE body IS NULL')).rows[0].count), OLD_EVENTS);
    assert.equal(await store.verify(1), { ok: true, checked: OLD_EVENTS, fromPosition: 1, toPosition: OLD_EVENTS }, 'verified the old way');
    assert.ok(readRowsIntoJs(queries));

    // Stopped after its first batch (the server closing), then run again: it goes on where it was.
    let asked = 0;
    assert.equal(await backfillEventBodies(db!.pool, { batch: 25, stop: () => asked++ >= 1 }), { filled: 25, unmatched: 0, firstUnmatched: null });
    assert.equal(await backfillEventBodies(db!.pool, { batch: 25 }), { filled: OLD_EVENTS - 25, unmatched: 0, firstUnmatched: null });
    const bodies = await db!.pool.query('SELECT position, body FROM events ORDER BY position');
    const events = await store.readAll(0, 1000);
    for (const [k, row] of bodies.rows.entries()) assert.is(row.body, canonicalEventText(events[k]), `body of ${row.position}`);
    assert.equal(await backfillEventBodies(db!.pool), { filled: 0, unmatched: 0, firstUnmatched: null }, 'nothing left to fill');

    // New appends continue the same chain, and the whole log verifies without reading a row into JavaScript.
    for (let i = 0; i < 10; i++) await store.append(`acct-${i % 4}`, 'any', [{ id: randomUUID(), type: 'Deposited', data: { amount: 100 + i } }], { timestamp: new Date().toISOString(), actor: null });
    queries.length = 0;
    assert.equal(await store.verify(1), { ok: true, checked: OLD_EVENTS + 10, fromPosition: 1, toPosition: OLD_EVENTS + 10 });
    assert.not.ok(readRowsIntoJs(queries), 'the JavaScript path was not taken');
    assert.ok(await bodyConstraintHolds(db!.pool));
  } finally {
    await store.close();
  }
});

t('an old row changed before the upgrade keeps no body and is named exactly as before; its neighbours get theirs', async ({ db }) => {
  await db!.pool.query('ALTER TABLE events DISABLE TRIGGER events_append_only');
  await db!.pool.query(`UPDATE events SET data = jsonb_set(data, '{amount}', '1000000') WHERE position = 23`);
  await db!.pool.query('ALTER TABLE events ENABLE TRIGGER events_append_only');
  await migrate(db!.pool);
  const store = postgresEventStore(db!.pool, { verifyRangeSize: 7 });
  try {
    const before = await store.verify(1);
    assert.is(before.firstMismatch?.position, 23);
    assert.equal(await backfillEventBodies(db!.pool), { filled: OLD_EVENTS - 1, unmatched: 1, firstUnmatched: 23 });
    assert.is((await db!.pool.query('SELECT body FROM events WHERE position = 23')).rows[0].body, null);
    assert.equal(await store.verify(1), before, 'the same answer after the backfill');
    const ref = await referenceVerify(store, 1, OLD_EVENTS);
    assert.equal({ ok: false, position: before.firstMismatch!.position, reason: before.firstMismatch!.reason, expected: before.firstMismatch!.expected, actual: before.firstMismatch!.actual }, ref);
    assert.ok((await store.verify(24, OLD_EVENTS)).ok, 'the range after it verifies on its own');
  } finally {
    await store.close();
  }
});

t('the append-only trigger lets through only a missing body that hashes to the row\'s hash, and nothing else with it', async ({ db }) => {
  await migrate(db!.pool);
  const store = postgresEventStore(db!.pool);
  try {
    const [e] = await store.readAll(5, 1);
    const right = canonicalEventText(e);
    const refused = async (sql: string, args: unknown[]) => {
      try {
        await db!.pool.query(sql, args);
        assert.unreachable(`${sql} ${JSON.stringify(args)} was let through`);
      } catch (err) {
        assert.ok(['LNM02', '23514'].includes((err as { code?: string }).code ?? ''), (err as Error).message);
      }
    };
    await refused('UPDATE events SET body = $1 WHERE position = 6', [right.replace('"n":2', '"n":3')]);
    await refused('UPDATE events SET body = $1, data = $2 WHERE position = 6', [right.replace('"n":2', '"n":3'), '{"n": 3}']);
    await refused('UPDATE events SET body = $1, recorded_at = now() - interval \'1 day\' WHERE position = 6', [right]);
    await refused('UPDATE events SET body = $1 WHERE position = 5', [right]);
    // The same JSON, so the body constraint would take it, but not the text the hash covers.
    await refused('UPDATE events SET body = $1 WHERE position = 6', [right + ' ']);
    await db!.pool.query('UPDATE events SET body = $1 WHERE position = 6', [right]);
    await refused('UPDATE events SET body = $1 WHERE position = 6', [right + ' ']);
    await refused('UPDATE events SET body = NULL WHERE position = 6', []);
    await refused('DELETE FROM events WHERE position = 8', []);
    assert.ok((await store.verify(1)).ok);
  } finally {
    await store.close();
  }
});

t('a backup exported before migration 0600 (no bodies) is imported, backfilled as restore does, and verifies on the fast path', async ({ db }) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'lnm-pre0600-export-'));
  const target = await freshDatabase();
  try {
    // This build's exporter reads the withheld column (migration 1110), which a pre-0600 store
    // lacks; an exporter of that time wrote row_to_json of each old row. Adding the column and
    // taking it out of each line again gives exactly those lines (this is the file's last test).
    await db!.pool.query('ALTER TABLE events ADD COLUMN withheld boolean NOT NULL DEFAULT false');
    const manifest = await exportDatabase(db!.pool, dir);
    assert.is(manifest.rows.events, OLD_EVENTS);
    const eventsFile = path.join(dir, 'events.jsonl');
    const lines = readFileSync(eventsFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.ok(lines.every((l) => l.withheld === false && !('body' in l)));
    writeFileSync(eventsFile, lines.map(({ withheld: _w, ...l }) => JSON.stringify(l)).join('\n') + '\n');
    await migrate(target.pool);
    await importDatabase(target.pool, dir);
    assert.is(Number((await target.pool.query('SELECT count(*) FROM events WHERE body IS NULL')).rows[0].count), OLD_EVENTS);
    assert.equal(await backfillEventBodies(target.pool), { filled: OLD_EVENTS, unmatched: 0, firstUnmatched: null });
    const queries: string[] = [];
    const store = postgresEventStore(recordingPool(target.pool, queries));
    try {
      assert.equal(await store.verify(1), { ok: true, checked: OLD_EVENTS, fromPosition: 1, toPosition: OLD_EVENTS });
      assert.not.ok(readRowsIntoJs(queries), 'the JavaScript path was not taken');
      assert.is((await store.readAll(OLD_EVENTS - 1, 1))[0].hash, manifest.lastHash);
    } finally {
      await store.close();
    }
  } finally {
    await target.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

t.run();
