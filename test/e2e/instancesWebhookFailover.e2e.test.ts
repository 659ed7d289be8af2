// A kill -9 in the middle of a webhook fan-out with three `lnm serve` instances on one DATABASE_URL
// (issue 25): two webhooks at slow real receivers (0.5 s per answer), 100 events written one after
// another through the three instances; once deliveries have begun the instance delivering them
// is killed with kill -9 (between two writes), and the rest are written through the survivors. A survivor takes the work over and every event reaches every receiver at least once.
// A duplicate is allowed only across the failover (first sent before the kill, again after it)
// and is the same delivery: the same envelope id (SPEC: the idempotency key), event, timestamp
// and data, validly signed.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { adminAuth, call, type TestServer } from '../helpers/server.ts';
import { workHolders } from '../helpers/nginx.ts';
import { FAILOVER_BOUND_MS, oneWorkHolder, startInstancesBehindNginx, type Instances } from '../helpers/instances.ts';
import { startReceiver, type Receiver } from '../helpers/webhookReceiver.ts';

const t = suite('several instances: kill -9 in the middle of a webhook fan-out');
const SECRET = 'whsec-instances-failover-51c7';
const EVENTS = 100;
let cluster: Instances | undefined;
let receivers: Receiver[] = [];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const api = (s: TestServer, method: string, p: string, body?: unknown) => call(s.api, method, p, { headers: adminAuth(), body });

async function until(what: string, cond: () => Promise<boolean> | boolean, ms: number) {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`not in time: ${what}`);
    await sleep(50);
  }
}

t.before(async () => {
  cluster = await startInstancesBehindNginx({ count: 3, nginx: false, env: { LNM_ALLOW_PRIVATE_TARGETS: 'true' } });
  receivers = await Promise.all([startReceiver({ secret: SECRET }), startReceiver({ secret: SECRET })]);
  // Slow receivers, so the fan-out is still under way when the instance delivering it dies.
  for (const rx of receivers) rx.delayMs = 500;
});

t.after(async () => {
  await cluster?.stop();
  await Promise.all(receivers.map((r) => r.close()));
});

t('kill -9 of the delivering instance mid fan-out: every event reaches every webhook, duplicates only across the failover and the same delivery', async () => {
  const { servers } = cluster!;
  const holder = await oneWorkHolder(servers, 20_000);
  assert.is(typeof holder, 'number');
  const others = servers.filter((_, i) => i !== holder);
  for (const [i, rx] of receivers.entries()) {
    const r = await api(others[i % others.length], 'POST', '/webhooks', { name: `failover-${i}`, url: rx.url, events: ['security.user.role_changed'], secret: SECRET });
    assert.is(r.status, 201, r.text);
  }
  const u = await api(others[0], 'POST', '/users', { username: 'role-flipper', password: 'correct-horse-battery', role: 'VIEWER' });
  assert.is(u.status, 201, u.text);
  const flip = (s: TestServer, i: number) => api(s, 'PUT', `/users/${u.json.id}/role`, { role: i % 2 === 0 ? 'OPERATOR' : 'VIEWER' });
  // The events are written one after another through the three instances, the one about to die
  // included; the kill waits for the write under way (so no write is lost with it), after it the
  // survivors take every write.
  let killed = false;
  let pause: Promise<void> | null = null;
  let writing: Promise<unknown> = Promise.resolve();
  const writer = (async () => {
    for (let i = 0; i < EVENTS; i++) {
      if (pause) await pause;
      const target = killed ? others[i % 2] : servers[i % 3];
      writing = flip(target, i);
      const r = (await writing) as Awaited<ReturnType<typeof flip>>;
      assert.is(r.status, 200, r.text);
    }
  })();
  let killedAt = 0;
  let receivedAtKill: number[] = [];
  let tookOver = -1;
  const killer = (async () => {
    await until('the fan-out under way at both receivers', () => receivers.every((rx) => rx.received.length >= 10), 60_000);
    let resume = () => {};
    pause = new Promise<void>((r) => (resume = r));
    await writing;
    killedAt = Date.now();
    receivedAtKill = receivers.map((rx) => new Set(rx.received.map((q) => q.json?.id)).size);
    await servers[holder].kill();
    killed = true;
    pause = null;
    resume();
    await until('a survivor holding the work', async () => {
      if ((await workHolders(others)).length !== 1) return false;
      tookOver = Date.now() - killedAt;
      return true;
    }, FAILOVER_BOUND_MS * 3);
  })();
  await Promise.all([writer, killer]);
  assert.ok(receivedAtKill.every((n) => n < EVENTS), `the fan-out was over before the kill: ${receivedAtKill.join(', ')}`);
  await until(`every one of ${EVENTS} events at each receiver`, () => receivers.every((rx) => new Set(rx.received.map((q) => q.json?.id)).size >= EVENTS), 60_000);
  const allAt = Date.now() - killedAt;
  // Time for a late duplicate from any instance to show up: a few lease renewals.
  await sleep(4000);

  const summary: string[] = [];
  for (const [n, rx] of receivers.entries()) {
    assert.ok(rx.received.every((q) => q.signatureValid === true), 'every delivery validly signed');
    assert.ok(rx.received.every((q) => q.json?.event === 'security.user.role_changed'), 'only the subscribed event');
    const byId = new Map<string, typeof rx.received>();
    for (const q of rx.received) byId.set(q.json.id, [...(byId.get(q.json.id) ?? []), q]);
    assert.is(byId.size, EVENTS, `receiver ${n}: ${byId.size} distinct events`);
    let duplicates = 0;
    for (const [id, copies] of byId) {
      if (copies.length === 1) continue;
      duplicates += copies.length - 1;
      // The same delivery sent again: its envelope, not a new one (instance may differ: it says who sent it).
      const same = (q: (typeof copies)[number]) => JSON.stringify([q.json.id, q.json.event, q.json.timestamp, q.json.data]);
      assert.ok(copies.every((q) => same(q) === same(copies[0])), `event ${id}: copies differ`);
      assert.ok(copies[0].at <= killedAt + 1000, `event ${id}: first sent ${copies[0].at - killedAt} ms after the kill, and again`);
      assert.ok(copies.slice(1).every((q) => q.at >= killedAt), `event ${id}: sent twice before the kill`);
    }
    summary.push(`receiver ${n}: ${receivedAtKill[n]} events before the kill, ${rx.received.length} deliveries of ${byId.size} events, ${duplicates} resent across the failover`);
  }
  console.log(`  work taken over ${tookOver} ms after the kill -9 (bound ${FAILOVER_BOUND_MS} ms); every event at both receivers ${allAt} ms after it; ${summary.join('; ')}`);
  assert.ok(tookOver <= FAILOVER_BOUND_MS, `work taken over after ${tookOver} ms`);
});

t.run();
