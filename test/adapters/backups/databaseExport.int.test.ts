// The database part of a backup without its audit entries (include_in_backups false): the
// audit-only events go out as hash-only stubs, the restored chain verifies through them (in the
// file and in the store), a stub or a kept event changed in the backup is still caught, and the
// read models are rebuilt without them. With the setting true everything is exported in full.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freshDatabase, type FreshDatabase } from '../../helpers/postgres.ts';
import { migrate } from '../../../adapters/postgres/migrate.ts';
import { postgresEventStore } from '../../../adapters/eventstore/postgresEventStore.ts';
import { backfillEventBodies } from '../../../adapters/eventstore/postgresBodyBackfill.ts';
import { exportDatabase, importDatabase, readManifest, recordRestore, verifyEventsFile, ExportedChainError } from '../../../adapters/backups/databaseExport.ts';
import { auditOnlyTypesToWithhold } from '../../../domain/audit/auditEntry.ts';
import { allProjections, typesReadModelsNeed } from '../../../projections/index.ts';
import { createProjector } from '../../../projections/projector.ts';
import { WITHHELD_EVENT_TYPE } from '../../../domain/shared/eventChain.ts';
import type { EventStore } from '../../../domain/shared/eventStore.ts';

const MARKER = 'audit-marker-7f3a9c';
const t = suite<{ db?: FreshDatabase; store?: EventStore; dir: string }>('backup export without the audit entries', { dir: '' });
const meta = (i: number) => ({ timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(), requestId: randomUUID(), actor: { userId: 1, username: 'admin', kind: 'session' } });
const withhold = auditOnlyTypesToWithhold(typesReadModelsNeed());

t.before.each(async (ctx) => {
  ctx.db = await freshDatabase();
  await migrate(ctx.db.pool);
  ctx.store = postgresEventStore(ctx.db.pool, { verifyRangeSize: 5 });
  ctx.dir = mkdtempSync(path.join(tmpdir(), 'lnm-export-'));
  const s = ctx.store;
  await s.append('user-1', 0, [{ id: randomUUID(), type: 'UserCreated', data: { userId: 1, username: 'alice', role: 'ADMIN', email: null, passwordHash: 'x', at: meta(0).timestamp } }], meta(0));
  for (let i = 1; i <= 6; i++) {
    await s.append('security-2026-01-01', 'any', [{ id: randomUUID(), type: 'LoginFailed', data: { username: `${MARKER}-${i}`, reason: 'wrong password', responseCode: 401 } }], { ...meta(i), ip: '10.9.8.7' } as never);
    await s.append('logins-1', 'any', [{ id: randomUUID(), type: 'LoginSucceeded', data: { userId: 1, username: 'alice', responseCode: 200 } }], meta(i));
    await s.append('logins-1', 'any', [{ id: randomUUID(), type: 'LoggedOut', data: { userId: 1, username: 'alice' } }], meta(i));
  }
  await s.append('user-1', 1, [{ id: randomUUID(), type: 'UserRoleChanged', data: { userId: 1, username: 'alice', from: 'ADMIN', to: 'OPERATOR', at: meta(9).timestamp } }], meta(9));
});
t.after.each(async (ctx) => {
  await ctx.store?.close();
  await ctx.db?.close();
  rmSync(ctx.dir, { recursive: true, force: true });
});

/** What lnm restore does with the database part: import, then the restore on the chain. */
async function restoreInto(dir: string, opts: { record?: boolean } = {}) {
  const db = await freshDatabase();
  await migrate(db.pool);
  await importDatabase(db.pool, dir);
  const store = postgresEventStore(db.pool, { verifyRangeSize: 5 });
  const manifest = await readManifest(dir);
  if (opts.record !== false) await recordRestore(store, { backupId: 7, snapshotId: 'f'.repeat(64), manifest, withheld: manifest.withheld ?? 0, at: meta(30).timestamp });
  return { db, store };
}

async function tamper(db: FreshDatabase, sql: string) {
  await db.pool.query('ALTER TABLE events DISABLE TRIGGER events_append_only');
  await db.pool.query(sql);
  await db.pool.query('ALTER TABLE events ENABLE TRIGGER events_append_only');
}

function editLine(dir: string, position: number, edit: (row: Record<string, unknown>) => void) {
  const file = path.join(dir, 'events.jsonl');
  const lines = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
  const row = lines.find((r) => Number(r.position) === position)!;
  edit(row);
  writeFileSync(file, lines.map((r) => JSON.stringify(r)).join('\n') + '\n');
}

t('what is withheld: the audit-only events no read model needs (LoginSucceeded and OidcSignInSucceeded give last_login_at, so they stay)', () => {
  assert.equal(withhold.sort(), ['AccessDenied', 'LoggedOut', 'LoginFailed', 'OidcSignInFailed', 'RequestFailed', 'RequestSucceeded', 'SensitiveRead', 'UnauthorizedAccessDetected']);
  assert.equal(auditOnlyTypesToWithhold(typesReadModelsNeed([...allProjections, { name: 'x', handles: '*', tables: [], apply: () => [] }])), []);
});

t('without the audit entries: stubs carry no content, the chain verifies through them, in the file and in the store', async ({ dir, store, db }) => {
  const m = await exportDatabase(db!.pool, dir, { withholdTypes: withhold });
  assert.is(m.eventPosition, 20);
  assert.is(m.withheld, 12);
  assert.is(m.auditIncluded, false);
  const text = readFileSync(path.join(dir, 'events.jsonl'), 'utf8');
  assert.not.ok(text.includes(MARKER), 'the failed logins are in the export');
  assert.not.ok(text.includes('10.9.8.7'), "the failed logins' metadata is in the export");
  assert.not.ok(text.includes('LoggedOut') || text.includes('LoginFailed'));
  assert.ok(text.includes('LoginSucceeded') && text.includes('UserRoleChanged'));
  const stub = text.split('\n').map((l) => l && JSON.parse(l)).find((r) => r && r.withheld);
  assert.equal(Object.keys(stub).sort(), ['hash', 'id', 'position', 'prev_hash', 'stream_id', 'version', 'withheld']);

  assert.equal(await verifyEventsFile(dir, await readManifest(dir)), { lastHash: m.lastHash, withheld: 12 });
  const restored = await restoreInto(dir);
  try {
    const v = await restored.store.verify(1);
    assert.equal(v, { ok: true, checked: 21, fromPosition: 1, toPosition: 21, withheld: 12 });
    assert.equal(await restored.store.verify(3, 9), { ok: true, checked: 7, fromPosition: 3, toPosition: 9, withheld: 4 });
    // The start-up backfill of rows without a body (pre-0600) leaves the stubs alone: no body is theirs to fill.
    assert.equal(await backfillEventBodies(restored.db.pool), { filled: 0, unmatched: 0, firstUnmatched: null });
    const back = await restored.store.readAll(0, 100);
    assert.is(back.filter((e) => e.withheld).length, 12);
    assert.is(back.at(-1)!.type, 'EventStoreRestored');
    assert.ok(back.filter((e) => e.withheld).every((e) => e.type === WITHHELD_EVENT_TYPE && Object.keys(e.data).length === 0));
    // The read models are rebuilt without the withheld content; the audit log lists each stub as WITHHELD, saying why.
    const projector = createProjector({ pool: restored.db.pool, store: restored.store, projections: allProjections });
    await projector.rebuild();
    const user = (await restored.db.pool.query('SELECT role, last_login_at FROM users WHERE id = 1')).rows[0];
    assert.is(user.role, 'OPERATOR');
    assert.ok(user.last_login_at, 'last_login_at comes from the kept LoginSucceeded events');
    // Every position has its entry: the 8 kept events, the restore itself and the 12 stubs.
    const listed = (await restored.db.pool.query(`SELECT count(*) FILTER (WHERE action <> 'WITHHELD') AS kept, count(*) FILTER (WHERE action = 'WITHHELD' AND reason LIKE 'withheld from the backup%' AND ts IS NOT NULL) AS stubs FROM audit_log`)).rows[0];
    assert.equal([Number(listed.kept), Number(listed.stubs)], [9, 12]);
    // The restored store goes on: new events link to the restored head, and a backup of it keeps its stubs as stubs.
    await restored.store.append('logins-1', 'any', [{ id: randomUUID(), type: 'LoggedOut', data: { userId: 1, username: 'alice' } }], meta(20));
    assert.equal(await restored.store.verify(1), { ok: true, checked: 22, fromPosition: 1, toPosition: 22, withheld: 12 });
    const again = mkdtempSync(path.join(tmpdir(), 'lnm-export-'));
    try {
      const m2 = await exportDatabase(restored.db.pool, again, { withholdTypes: [] });
      assert.is(m2.withheld, 12);
      assert.ok(readFileSync(path.join(again, 'events.jsonl'), 'utf8').includes('LoggedOut'), 'the new LoggedOut is in full');
      assert.equal((await verifyEventsFile(again, m2)).withheld, 12);
    } finally {
      rmSync(again, { recursive: true, force: true });
    }
  } finally {
    await restored.store.close();
    await restored.db.close();
  }
  void store;
});

t('a stub or a kept event changed in the backup is caught', async ({ dir, db }) => {
  const m = await exportDatabase(db!.pool, dir, { withholdTypes: withhold });
  const manifest = await readManifest(dir);
  const original = readFileSync(path.join(dir, 'events.jsonl'), 'utf8');
  const rejects = async (re: RegExp) => {
    try {
      await verifyEventsFile(dir, manifest);
    } catch (err) {
      assert.instance(err, ExportedChainError);
      assert.match((err as Error).message, re);
      return;
    }
    assert.unreachable('the changed export verified');
  };
  // Position 2 is a withheld LoginFailed, 3 a kept LoginSucceeded, 4 a withheld LoggedOut.
  editLine(dir, 2, (r) => (r.hash = 'f'.repeat(64)));
  await rejects(/position 3 \(broken_link/);
  writeFileSync(path.join(dir, 'events.jsonl'), original);
  editLine(dir, 2, (r) => (r.prev_hash = '0'.repeat(64)));
  await rejects(/position 2 \(broken_link/);
  writeFileSync(path.join(dir, 'events.jsonl'), original);
  editLine(dir, 3, (r) => ((r.data as Record<string, unknown>).username = 'mallory'));
  await rejects(/position 3 \(hash_mismatch/);
  writeFileSync(path.join(dir, 'events.jsonl'), original);
  // A kept event turned into a stub links as before, but the count no longer matches the manifest.
  editLine(dir, 3, (r) => {
    for (const k of ['type', 'data', 'metadata', 'body', 'recorded_at']) delete r[k];
    r.withheld = true;
  });
  await rejects(/13 withheld entries, its manifest says 12/);
  writeFileSync(path.join(dir, 'events.jsonl'), original);
  void m;
});

t('in the restored store, a changed stub, a row turned into a stub, or stubs no restore accounts for are caught', async ({ dir, db }) => {
  await exportDatabase(db!.pool, dir, { withholdTypes: withhold });
  const check = async (sql: string | null, opts: { record?: boolean }, expected: { position: number; reason: string }) => {
    const restored = await restoreInto(dir, opts);
    try {
      if (sql) await tamper(restored.db, sql);
      const v = await restored.store.verify(1);
      assert.is(v.ok, false, JSON.stringify(v));
      assert.equal({ position: v.firstMismatch?.position, reason: v.firstMismatch?.reason }, expected, JSON.stringify(v));
    } finally {
      await restored.store.close();
      await restored.db.close();
    }
  };
  // Position 4 is a stub (LoggedOut), 3 a kept LoginSucceeded.
  await check(`UPDATE events SET hash = repeat('e', 64) WHERE position = 4`, {}, { position: 5, reason: 'broken_link' });
  await check(`UPDATE events SET withheld = true, type = '$withheld', data = '{}', metadata = '{}', body = NULL WHERE position = 3`, {}, { position: 2, reason: 'unexpected_withheld' });
  await check(null, { record: false }, { position: 2, reason: 'unexpected_withheld' });
});

t('with the audit entries (the default) every event is exported in full', async ({ dir, db }) => {
  const m = await exportDatabase(db!.pool, dir);
  assert.is(m.withheld, undefined);
  assert.is(m.auditIncluded, true);
  const text = readFileSync(path.join(dir, 'events.jsonl'), 'utf8');
  for (let i = 1; i <= 6; i++) assert.ok(text.includes(`${MARKER}-${i}`));
  assert.not.ok(text.includes('"withheld":true'));
  const restored = await restoreInto(dir);
  try {
    assert.equal(await restored.store.verify(1), { ok: true, checked: 21, fromPosition: 1, toPosition: 21 });
  } finally {
    await restored.store.close();
    await restored.db.close();
  }
});

t.run();
