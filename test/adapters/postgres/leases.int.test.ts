// Leases with fencing tokens on a real PostgreSQL: one holder at a time, a renewal keeps the token,
// a takeover after expiry grows it and fences the old holder out, release hands over at once, and
// leasedWork starts and stops the work with the lease; shardedWork spreads shards over holders.
import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { freshDatabase, type FreshDatabase } from '../../helpers/postgres.ts';
import { leasedWork, postgresLeases, shardedWork } from '../../../adapters/postgres/leases.ts';

const DDL = readFileSync(new URL('../../../migrations/1190_leases.sql', import.meta.url), 'utf8');
// A suite of its own: uvu's default `test` is shared by every file run in one process, so another
// file's after hook (or run) would end this file's pool under it.
const test = suite('leases');
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


test('shardedWork: shards spread fairly over live holders, each on one; a newcomer gets its share; a dead holder\'s shards move within ttl + ttl/3', async () => {
  const SHARDS = 8;
  // Long enough that a loaded CI machine's event-loop delays stay inside the slack below.
  const TTL = 1500;
  const running = new Map<number, string[]>();
  const dead = new Set<string>();
  // What the rounds say (a failed round is logged and retried a third of the ttl later).
  const said: string[] = [];
  const make = (holder: string) => {
    const real = postgresLeases(db.pool, holder);
    // A holder marked dead reaches the database no more, as after a kill -9: its leases run out.
    const cut = <A extends unknown[], R>(f: (...a: A) => Promise<R>) => (...a: A) => (dead.has(holder) ? Promise.reject(new Error('dead')) : f(...a));
    const leases = { acquire: cut(real.acquire), renew: cut(real.renew), holds: cut(real.holds), release: cut(real.release) };
    return shardedWork(db.pool, leases, holder, { shards: SHARDS, leaseName: (k) => `shard-${k}`, ttlMs: TTL }, {
      start: (k) => void running.set(k, [...(running.get(k) ?? []), holder]),
      stop: async (k) => void running.set(k, (running.get(k) ?? []).filter((h) => h !== holder)),
    }, (msg, extra) => void said.push(`${holder}: ${msg} ${JSON.stringify(extra ?? {})}`));
  };
  const a = make('SA');
  await a.start();
  // Its first round takes every shard; a round that failed (a loaded machine) is retried ttl/3 later.
  const first = Date.now() + 10_000;
  while (a.held().length !== SHARDS && Date.now() < first) await sleep(50);
  assert.is(a.held().length, SHARDS, `alone, it holds every shard; the rounds said: ${said.filter((l) => !/acquired/.test(l)).join(' | ')}`);
  const b = make('SB');
  await b.start();
  const end = Date.now() + 15_000;
  while ((a.held().length !== SHARDS / 2 || b.held().length !== SHARDS / 2) && Date.now() < end) await sleep(50);
  assert.is(a.held().length, SHARDS / 2, `A ${a.held()} B ${b.held()}`);
  assert.is(b.held().length, SHARDS / 2);
  assert.equal([...a.held(), ...b.held()].sort((x, y) => x - y), Array.from({ length: SHARDS }, (_, k) => k));
  for (let k = 0; k < SHARDS; k++) assert.is(running.get(k)?.length, 1, `shard ${k} runs on ${running.get(k)}`);
  for (const k of a.held()) assert.ok(a.valid(k) && !b.valid(k));
  const aShards = a.held();
  const killedAt = Date.now();
  dead.add('SA');
  while (b.held().length !== SHARDS && Date.now() - killedAt < 4 * TTL) await sleep(20);
  const took = Date.now() - killedAt;
  assert.is(b.held().length, SHARDS, `B holds ${b.held()} after ${took} ms`);
  assert.ok(took <= TTL + TTL / 3 + 1500, `${took} ms`);
  // The dead holder's own clock fences it out of the shards it had.
  for (const k of aShards) assert.ok(b.valid(k) && !a.valid(k));
  await a.stop();
  await b.stop();
  assert.is(b.held().length, 0);
});

test.run();
