import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { freshDatabase, recordingPool } from '../helpers/postgres.ts';
import { migrate } from '../../adapters/postgres/migrate.ts';
import { postgresEventStore } from '../../adapters/eventstore/postgresEventStore.ts';
import { checkpointWriter, createSagaRunner, sagaEventId, timerWriter } from '../../sagas/sagaRunner.ts';
import type { Saga } from '../../sagas/saga.ts';
import { DuplicateEventError } from '../../domain/shared/errors.ts';

const meta = () => ({ timestamp: new Date().toISOString() });
const until = async (cond: () => Promise<boolean> | boolean, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
};

async function setup() {
  const db = await freshDatabase();
  await migrate(db.pool);
  const store = postgresEventStore(db.pool, { url: db.url, pollIntervalMs: 100 });
  return { db, store };
}

test('a saga reacts once per event, records its effect with a derived id, and resumes from its checkpoint after a restart', async () => {
  const { db, store } = await setup();
  const effects: string[] = [];
  const saga: Saga = {
    name: 'greeter',
    handles: ['UserRegistered'],
    async handle(e) {
      effects.push(e.id);
      try {
        await store.append(`greeting-${e.data.name}`, 'any', [{ id: sagaEventId('greeter', e.id), type: 'GreetingSent', data: { to: e.data.name } }], meta());
      } catch (err) {
        if (!(err instanceof DuplicateEventError)) throw err;
      }
    },
  };
  const r1 = createSagaRunner({ pool: db.pool, store, sagas: [saga] });
  await r1.start();
  for (const name of ['ann', 'bob']) await store.append(`user-${name}`, 0, [{ id: randomUUID(), type: 'UserRegistered', data: { name } }], meta());
  await until(() => effects.length === 2);
  await r1.stop();
  const cp = await r1.checkpoint('greeter');
  assert.ok(cp >= 2);
  await store.append('user-cy', 0, [{ id: randomUUID(), type: 'UserRegistered', data: { name: 'cy' } }], meta());
  const r2 = createSagaRunner({ pool: db.pool, store, sagas: [saga] });
  await r2.start();
  await until(() => effects.length === 3);
  await new Promise((r) => setTimeout(r, 300));
  await r2.stop();
  assert.is(effects.length, 3, 'no event handled twice');
  const greetings = (await store.readAll(0, 100)).filter((e) => e.type === 'GreetingSent');
  assert.equal(greetings.map((g) => g.data.to).sort(), ['ann', 'bob', 'cy']);
  await store.close();
  await db.close();
});

test('a partitioned saga handles different partitions side by side, each in log order, and moves its checkpoint only after the whole batch', async () => {
  const { db, store } = await setup();
  // Appended before the saga starts, so they arrive in one batch.
  for (const [node, step] of [[1, 'a'], [2, 'a'], [1, 'b'], [3, 'a'], [2, 'b']] as const) {
    await store.append(`node-${node}-${step}`, 0, [{ id: randomUUID(), type: 'Step', data: { node, step } }], meta());
  }
  const log: string[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const gates = new Map<number, () => void>();
  const saga: Saga = {
    name: 'partitioned',
    handles: ['Step'],
    startAt: 'beginning',
    partitionBy: (e) => String(e.data.node),
    async handle(e) {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      log.push(`start ${e.data.node}${e.data.step}`);
      // Node 1's first step waits until node 2 and node 3 have started theirs.
      if (e.data.node === 1 && e.data.step === 'a') await new Promise<void>((r) => gates.set(1, r));
      log.push(`end ${e.data.node}${e.data.step}`);
      inFlight--;
    },
  };
  const runner = createSagaRunner({ pool: db.pool, store, sagas: [saga] });
  await runner.start();
  await until(() => log.includes('start 2a') && log.includes('start 3a') && gates.has(1));
  assert.is(await runner.checkpoint('partitioned'), 0, 'no checkpoint while node 1 is still busy');
  gates.get(1)!();
  await until(async () => (await runner.checkpoint('partitioned')) >= 5);
  await runner.stop();
  assert.ok(maxInFlight >= 2, `partitions overlapped (max ${maxInFlight} at once)`);
  assert.ok(log.indexOf('end 1a') < log.indexOf('start 1b'), 'node 1 in log order');
  assert.ok(log.indexOf('end 2a') < log.indexOf('start 2b'), 'node 2 in log order');
  assert.ok(log.indexOf('start 2a') < log.indexOf('end 1a'), 'node 2 did not wait for node 1');
  await store.close();
  await db.close();
});

test('an effect repeated after a crash (before the checkpoint was stored) is detected by its derived event id', async () => {
  const { db, store } = await setup();
  const src = randomUUID();
  await store.append('s', 0, [{ id: sagaEventId('x', src), type: 'Done', data: {} }], meta());
  try {
    await store.append('s', 'any', [{ id: sagaEventId('x', src), type: 'Done', data: {} }], meta());
    assert.unreachable();
  } catch (err) {
    assert.instance(err, DuplicateEventError);
  }
  assert.is.not(sagaEventId('x', src, 0), sagaEventId('x', src, 1));
  await store.close();
  await db.close();
});

test('a durable timer scheduled before a restart fires after it', async () => {
  const { db, store } = await setup();
  const fired: string[] = [];
  const saga: Saga = {
    name: 'reminder',
    handles: ['Remind'],
    async handle(e, ctx) {
      await ctx.schedule(`remind-${e.data.what}`, new Date(Date.now() + 400), { what: e.data.what });
    },
    async onTimer(t) {
      fired.push(String(t.payload.what));
    },
  };
  const r1 = createSagaRunner({ pool: db.pool, store, sagas: [saga], timerPollMs: 50 });
  await r1.start();
  await store.append('r', 0, [{ id: randomUUID(), type: 'Remind', data: { what: 'backup' } }], meta());
  await until(async () => (await db.pool.query('SELECT 1 FROM saga_timers')).rowCount === 1);
  await r1.stop(); // the "crash": the timer is only in the database now
  assert.equal(fired, []);
  const r2 = createSagaRunner({ pool: db.pool, store, sagas: [saga], timerPollMs: 50 });
  await r2.start();
  await until(() => fired.length === 1);
  await new Promise((r) => setTimeout(r, 300));
  await r2.stop();
  assert.equal(fired, ['backup'], 'fires once');
  await store.close();
  await db.close();
});

test('many sagas on one runner: each event handled by the saga it belongs to, and every checkpoint reaches the last event', async () => {
  const { db, store } = await setup();
  const seen = new Map<string, number>();
  // Twenty sagas, like the node shards': each takes only its own events and reads every batch.
  const sagas: Saga[] = Array.from({ length: 20 }, (_, k) => ({
    name: `shard-like#${k}`,
    handles: ['Ping'],
    accepts: (e) => Number(e.data.n) % 20 === k,
    async handle(e) {
      seen.set(`${k}`, Number(e.data.n));
    },
  }));
  const runner = createSagaRunner({ pool: db.pool, store, sagas });
  await runner.start();
  for (let n = 0; n < 10; n++) await store.append(`ping-${n}`, 0, [{ id: randomUUID(), type: 'Ping', data: { n } }], meta());
  const head = await store.headPosition();
  await until(async () => (await Promise.all(sagas.map((s) => runner.checkpoint(s.name)))).every((p) => p >= head));
  await runner.stop();
  assert.is(seen.size, 10, 'each event handled by the one saga it belongs to');
  await store.close();
  await db.close();
});

test('checkpoint writes asked for in one turn go out as one statement, and a checkpoint never moves back', async () => {
  // How many sagas meet in one turn while the runner runs depends on the machine's load (so the
  // number of statements per append is a bench figure, not a test's); what the writer promises
  // is deterministic: the writes of one turn are one statement.
  const { db, store } = await setup();
  const log: string[] = [];
  const pool = recordingPool(db.pool, log);
  const names = Array.from({ length: 20 }, (_, k) => `writer#${k}`);
  for (const n of names) await db.pool.query('INSERT INTO saga_checkpoints (name, position) VALUES ($1, 5)', [n]);
  const write = checkpointWriter(pool);
  await Promise.all(names.map((n, k) => write(n, 10 + k)));
  assert.is(log.filter((q) => /UPDATE saga_checkpoints/.test(q)).length, 1, 'twenty writes of one turn: one statement');
  await Promise.all(names.map((n) => write(n, 7)));
  const rows = (await db.pool.query('SELECT name, position FROM saga_checkpoints WHERE name = ANY($1) ORDER BY name', [names])).rows as { name: string; position: string }[];
  for (const r of rows) assert.is(Number(r.position), 10 + names.indexOf(r.name), `${r.name} did not move back`);
  assert.is(log.filter((q) => /UPDATE saga_checkpoints/.test(q)).length, 2);
  await store.close();
  await db.close();
});

test('timer writes of one turn go out as one statement, a cancel lands after them, and a rescheduled timer still fires after a restart', async () => {
  const { db, store } = await setup();
  const log: string[] = [];
  const pool = recordingPool(db.pool, log);
  const upserts = () => log.filter((q) => /INSERT INTO saga_timers/.test(q)).length;
  const fired: string[] = [];
  // Twenty timers rescheduled by their own onTimer, as the health monitor's probes do, all due at once.
  const saga: Saga = {
    name: 'prober',
    handles: ['Cancel'],
    async handle(e, ctx) {
      await ctx.cancel(String(e.data.id));
    },
    async onTimer(t, ctx) {
      fired.push(t.id);
      await ctx.schedule(t.id, new Date(Date.now() + 60_000), { round: Number(t.payload.round ?? 0) + 1 });
    },
  };
  const ids = Array.from({ length: 20 }, (_, k) => `probe-${k}`);
  for (const id of ids) await db.pool.query(`INSERT INTO saga_timers (id, saga, due_at, payload) VALUES ($1, 'prober', now() - interval '1 second', '{}')`, [id]);
  const runner = createSagaRunner({ pool, store, sagas: [saga], timerPollMs: 50, timerConcurrency: 20 });
  await runner.start();
  await until(async () => (await db.pool.query(`SELECT 1 FROM saga_timers WHERE payload->>'round' = '1'`)).rowCount === 20);
  assert.is(fired.length, 20);
  assert.is(upserts(), 1, 'twenty reschedules of one poll: one statement');
  // A cancel asked for after a schedule never lands before it (the timer stays cancelled).
  const write = timerWriter(pool);
  const scheduled = write.schedule('probe-0', 'prober', new Date(Date.now() + 120_000), { round: 9 });
  await store.append('c', 0, [{ id: randomUUID(), type: 'Cancel', data: { id: 'probe-0' } }], meta());
  await scheduled;
  await until(async () => (await db.pool.query(`SELECT 1 FROM saga_timers WHERE id = 'probe-0'`)).rowCount === 0);
  await runner.stop();
  // The "crash": the rescheduled timers are in the database only; a new runner fires them when due.
  await db.pool.query(`UPDATE saga_timers SET due_at = now() - interval '1 second' WHERE saga = 'prober'`);
  const again = createSagaRunner({ pool: db.pool, store, sagas: [saga], timerPollMs: 50, timerConcurrency: 20 });
  await again.start();
  await until(() => fired.length === 39);
  await again.stop();
  assert.is((await db.pool.query(`SELECT 1 FROM saga_timers WHERE saga = 'prober' AND payload->>'round' = '2'`)).rowCount, 19);
  // A statement that fails fails the writes it held, and the next statement goes on.
  assert.ok(await write.schedule('bad', null as unknown as string, new Date(), {}).then(() => false, () => true), 'rejected (saga is NOT NULL)');
  await write.schedule('good', 'prober', new Date(), {});
  assert.is((await db.pool.query(`SELECT 1 FROM saga_timers WHERE id = 'good'`)).rowCount, 1);
  await store.close();
  await db.close();
});

test('reschedules by timers that end a few milliseconds apart share a statement', async () => {
  const { db, store } = await setup();
  const log: string[] = [];
  const pool = recordingPool(db.pool, log);
  const upserts = () => log.filter((q) => /INSERT INTO saga_timers/.test(q)).length;
  // Twenty probes due at once whose answers arrive 0-10 ms apart, each in its own turn.
  const saga: Saga = {
    name: 'slow-prober',
    handles: [],
    async handle() {},
    async onTimer(t, ctx) {
      await new Promise((r) => setTimeout(r, Number(t.id.split('-')[1]) / 2));
      await ctx.schedule(t.id, new Date(Date.now() + 60_000), { round: 1 });
    },
  };
  for (let k = 0; k < 20; k++) await db.pool.query(`INSERT INTO saga_timers (id, saga, due_at, payload) VALUES ($1, 'slow-prober', now() - interval '1 second', '{}')`, [`p-${k}`]);
  const runner = createSagaRunner({ pool, store, sagas: [saga], timerPollMs: 50, timerConcurrency: 20 });
  await runner.start();
  await until(async () => (await db.pool.query(`SELECT 1 FROM saga_timers WHERE payload->>'round' = '1'`)).rowCount === 20);
  assert.ok(upserts() <= 2, `${upserts()} statements for 20 reschedules 0-10 ms apart`);
  await runner.stop();
  await store.close();
  await db.close();
});

test('runners on one pool share one timer poll: the due timers of ten runners are found by one query, each fired by its own runner', async () => {
  const { db, store } = await setup();
  const log: string[] = [];
  const pool = recordingPool(db.pool, log);
  let now = new Date();
  const clock = () => now;
  const fired = new Map<string, string>();
  const runners = Array.from({ length: 10 }, (_, k) => {
    const saga: Saga = {
      name: `shard-timer#${k}`,
      handles: [],
      async handle() {},
      async onTimer(t) {
        fired.set(t.id, `shard-timer#${k}`);
      },
    };
    return createSagaRunner({ pool, store, sagas: [saga], timerPollMs: 200, clock });
  });
  for (let k = 0; k < 10; k++) await db.pool.query(`INSERT INTO saga_timers (id, saga, due_at, payload) VALUES ($1, $2, $3, '{}')`, [`t${k}`, `shard-timer#${k}`, new Date(now.getTime() + 3_600_000).toISOString()]);
  for (const r of runners) await r.start();
  await new Promise((r) => setTimeout(r, 300));
  const polls = () => log.filter((q) => /FROM saga_timers WHERE fired_at IS NULL/.test(q)).length;
  const before = polls();
  now = new Date(now.getTime() + 3_601_000);
  await until(() => fired.size === 10);
  const used = polls() - before;
  for (const r of runners) await r.stop();
  // Each runner polling on its own needs at least ten queries to find ten runners' timers.
  assert.ok(used < 10, `${used} timer polls found the due timers of 10 runners`);
  for (let k = 0; k < 10; k++) assert.is(fired.get(`t${k}`), `shard-timer#${k}`, 'each timer fired by the runner of its saga');
  await store.close();
  await db.close();
});

test('a runner still firing a slow timer is handed its other due timers by the next poll, and the slow one is not handed over twice', async () => {
  const { db, store } = await setup();
  const log: string[] = [];
  const pool = recordingPool(db.pool, log);
  let now = new Date();
  const clock = () => now;
  const fired: string[] = [];
  // Polls made before each quick timer fired.
  const pollsAtFire: number[] = [];
  const polls = () => log.filter((q) => /FROM saga_timers WHERE fired_at IS NULL/.test(q)).length;
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const saga: Saga = {
    name: 'slow-and-quick',
    handles: [],
    async handle() {},
    async onTimer(t) {
      fired.push(t.id);
      if (t.id !== 'slow') pollsAtFire.push(polls());
      // A probe waiting out its timeout, here until the test lets it go.
      if (t.id === 'slow') await gate;
    },
  };
  await db.pool.query(`INSERT INTO saga_timers (id, saga, due_at, payload) VALUES ('slow', 'slow-and-quick', $1, '{}')`, [new Date(now.getTime() - 1000).toISOString()]);
  const quick = Array.from({ length: 30 }, (_, k) => `quick-${k}`);
  for (const id of quick) await db.pool.query(`INSERT INTO saga_timers (id, saga, due_at, payload) VALUES ($1, 'slow-and-quick', $2, '{}')`, [id, new Date(now.getTime() + 3_600_000).toISOString()]);
  const runner = createSagaRunner({ pool, store, sagas: [saga], timerPollMs: 50, timerConcurrency: 64, clock });
  await runner.start();
  await until(() => fired.includes('slow'));
  const before = polls();
  now = new Date(now.getTime() + 3_601_000);
  // Before: a runner still firing was left out of the shared poll, so its other due timers waited
  // until the slow one ended (here: never, until the gate opens).
  await until(() => quick.every((id) => fired.includes(id)));
  // All handed over by one poll (with 64 workers, each starts as it is handed over), the first
  // or second after the clock moved.
  assert.is(new Set(pollsAtFire).size, 1, 'the 30 timers due at once handed over in one poll');
  const used = pollsAtFire[0] - before;
  assert.ok(used <= 2, `${used} polls to hand over 30 timers due at once to a busy runner`);
  // More polls while the slow timer still runs: it is held, never handed over again.
  const seen = polls();
  await until(() => polls() >= seen + 3);
  assert.is(fired.filter((id) => id === 'slow').length, 1, 'the slow timer fired once while it ran');
  assert.is(fired.length, 31);
  release();
  await runner.stop();
  assert.is((await db.pool.query(`SELECT 1 FROM saga_timers WHERE fired_at IS NOT NULL`)).rowCount, 31, 'each marked fired once done');
  await store.close();
  await db.close();
});

test.run();
