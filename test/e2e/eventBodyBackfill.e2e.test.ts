// The server started on a database whose events were written before migration 0600 (no stored
// bodies): it migrates, fills the bodies in the background while it serves, logs a row it could
// not fill, and the audit verify over HTTP gives the answers it gave before.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { adminAuth, call, startServer, type TestServer } from '../helpers/server.ts';
import { freshDatabase, type FreshDatabase } from '../helpers/postgres.ts';
import { migrateBefore0600, seedBefore0600 } from '../helpers/eventStoreBefore0600.ts';

const t = suite<{ db?: FreshDatabase; server?: TestServer }>('server start on an event store from before migration 0600');
const OLD_EVENTS = 400;
const CHANGED = 123;

t.before(async (ctx) => {
  ctx.db = await freshDatabase();
  await migrateBefore0600(ctx.db.pool);
  await seedBefore0600(ctx.db.pool, OLD_EVENTS / 2);
  await ctx.db.pool.query('ALTER TABLE events DISABLE TRIGGER events_append_only');
  await ctx.db.pool.query(`UPDATE events SET data = jsonb_set(data, '{amount}', '1000000') WHERE position = ${CHANGED}`);
  await ctx.db.pool.query('ALTER TABLE events ENABLE TRIGGER events_append_only');
  ctx.server = await startServer({ databaseUrl: ctx.db.url });
});
t.after(async (ctx) => {
  await ctx.server?.stop();
  await ctx.db?.close();
});

t('every old row but the changed one gets its body, the changed one is logged, and verify names it as before', async ({ db, server }) => {
  const deadline = Date.now() + 30_000;
  while (!/event bodies backfilled/.test(server!.output())) {
    assert.ok(Date.now() < deadline, `no backfill in the log:\n${server!.output().slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const missing = await db!.pool.query('SELECT position FROM events WHERE body IS NULL ORDER BY position');
  assert.equal(missing.rows.map((r) => Number(r.position)), [CHANGED]);
  assert.match(server!.output(), new RegExp(`"unmatched":1,"firstPosition":${CHANGED}`));
  const h = adminAuth();
  const head = (await call(server!.api, 'GET', '/health')).json.eventStore.headPosition;
  assert.ok(head > OLD_EVENTS, 'the server appended after the old events (its first admin)');
  const all = await call(server!.api, 'POST', '/audit-logs/verify', { headers: h, body: { start_id: 1, end_id: head } });
  assert.is(all.json.valid, false);
  assert.is(all.json.first_invalid_id, CHANGED);
  for (const [start, end] of [[1, CHANGED - 1], [CHANGED + 1, head]]) {
    const part = await call(server!.api, 'POST', '/audit-logs/verify', { headers: h, body: { start_id: start, end_id: end } });
    assert.is(part.json.valid, true, `${start}..${end}`);
  }
});

t.run();
