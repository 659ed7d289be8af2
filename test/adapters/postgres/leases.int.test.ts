// Leases with fencing tokens on a real PostgreSQL: one holder at a time, a renewal keeps the token,
// a takeover after expiry grows it and fences the old holder out, release hands over at once, and
// leasedWork starts and stops the work with the lease.
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { freshDatabase, type FreshDatabase } from '../../helpers/postgres.ts';
import { leasedWork, postgresLeases } from '../../../adapters/postgres/leases.ts';

const DDL = readFileSync(new URL('../../../migrations/1190_leases.sql', import.meta.url), 'utf8');
let db: FreshDatabase;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test.before(async () => {
  db = await freshDatabase();
  await db.pool.query(DDL);
});
test.after(async () => db?.close());

test('one holder at a time; expiry hands over with a higher token and fences the old holder out', async () => {
  const a = postgresLeases(db.pool, 'A');
  const b = postgresLeases(db.pool, 'B');
  const la = await a.acquire('work-1', 300);
  assert.ok(la);
  assert.is(la!.token, 1);
  assert.is(await b.acquire('work-1', 300), null);
  // Renewing (by acquire or renew) keeps the token.
  assert.equal(await a.acquire('work-1', 300), { name: 'work-1', token: 1 });
  assert.ok(await a.renew(la!, 300));
  await sleep(400);
  assert.not.ok(await a.holds(la!));
  const lb = await b.acquire('work-1', 5_000);
  assert.equal(lb, { name: 'work-1', token: 2 });
  // A, back from a pause, can neither renew nor pass the fencing check, nor take it back.
  assert.not.ok(await a.renew(la!, 5_000));
  assert.not.ok(await a.holds(la!));
  assert.is(await a.acquire('work-1', 5_000), null);
  assert.ok(await b.holds(lb!));
  // Released: the other takes it at once.
  await b.release(lb!);
  assert.not.ok(await b.holds(lb!));
  assert.equal(await a.acquire('work-1', 5_000), { name: 'work-1', token: 3 });
  // Another name is another lease.
  assert.equal(await b.acquire('work-2', 5_000), { name: 'work-2', token: 1 });
});

test('concurrent acquirers: exactly one wins', async () => {
  const contenders = Array.from({ length: 8 }, (_, i) => postgresLeases(db.pool, `I${i}`));
  const got = await Promise.all(contenders.map((l) => l.acquire('race', 5_000)));
  assert.is(got.filter(Boolean).length, 1);
});

test('leasedWork runs the work on one instance; when it stops, another takes over within the ttl', async () => {
  const running = new Set<string>();
  const work = (id: string) => ({ start() { running.add(id); }, async stop() { running.delete(id); } });
  const ttl = 600;
  const wa = leasedWork(postgresLeases(db.pool, 'A'), 'background', ttl, work('A'));
  const wb = leasedWork(postgresLeases(db.pool, 'B'), 'background', ttl, work('B'));
  await wa.start();
  await sleep(100);
  await wb.start();
  await sleep(ttl * 2);
  assert.equal([...running], ['A']);
  assert.ok(wa.held());
  assert.is(wb.held(), null);
  const t = Date.now();
  await wa.stop();
  while (!running.has('B') && Date.now() - t < ttl * 3) await sleep(20);
  assert.equal([...running], ['B']);
  assert.ok(wb.held()!.token > 1);
  // An instance whose lease was taken from under it (here: expired by hand) stops its work.
  await db.pool.query(`UPDATE leases SET holder = 'C', token = token + 1 WHERE name = 'background'`);
  const t2 = Date.now();
  while (running.has('B') && Date.now() - t2 < ttl * 3) await sleep(20);
  assert.equal([...running], []);
  await wb.stop();
});

test.run();
