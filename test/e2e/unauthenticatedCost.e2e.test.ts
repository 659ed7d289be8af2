// What unauthenticated traffic may write (issue 36, item 5): 150 sign-in attempts from one
// address appended ~300 events, and a locked-out address still appended 2 per request (LoginFailed
// and RequestFailed), without bound. Now every attempt before the throttle is still audited with
// the tried username, and once throttled, at most one LoginFailed a minute per address and reason
// is recorded (the others are counted into the next one: auditThrottle.unit.test.ts).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import pg from 'pg';
import { call, startServer, type TestServer } from '../helpers/server.ts';

let s: TestServer;
let db: pg.Client;

test.before(async () => {
  s = await startServer();
  db = new pg.Client({ connectionString: s.databaseUrl! });
  await db.connect();
});
test.after(async () => {
  await db?.end();
  await s?.stop();
});

const eventCount = async () => Number((await db.query('SELECT count(*) AS n FROM events')).rows[0].n);
const eventsOfType = async (type: string, since: number) => (await db.query('SELECT data FROM events WHERE type = $1 AND position > $2 ORDER BY position', [type, since])).rows.map((r) => r.data);

test('150 failed sign-ins from one address: each before the throttle audited with its username, the throttled ones no longer an event each', async () => {
  const start = Number((await db.query('SELECT coalesce(max(position), 0) AS p FROM events')).rows[0].p);
  const before = await eventCount();
  const statuses: Record<number, number> = {};
  for (let i = 0; i < 150; i++) {
    const r = await call(s.api, 'POST', '/auth/login', { body: { username: `guess-${i % 3}`, password: `wrong-password-${i}` } });
    statuses[r.status] = (statuses[r.status] ?? 0) + 1;
  }
  assert.ok((statuses[429] ?? 0) > 100, JSON.stringify(statuses));
  // Each refusal's events are appended before its answer (only the projection is not waited for).
  const appended = (await eventCount()) - before;
  const failed = await eventsOfType('LoginFailed', start);
  const refusedBeforeThrottle = failed.filter((d) => d.responseCode === 401);
  assert.is(refusedBeforeThrottle.length, statuses[401], 'every refusal before the throttle is audited');
  assert.ok(refusedBeforeThrottle.every((d) => /^guess-[0-2]$/.test(d.username)), 'with the username tried');
  const throttled = failed.filter((d) => d.responseCode === 429);
  // One per address and reason this minute ('too fast after failures', 'locked out').
  assert.ok(throttled.length >= 1 && throttled.length <= 2, JSON.stringify(throttled));
  assert.is((await eventsOfType('RequestFailed', start)).length, 0, 'no RequestFailed for a refused sign-in');
  assert.ok(appended <= statuses[401] + 3 + 3, `${appended} events for 150 attempts (${JSON.stringify(statuses)})`);
});

test.run();
