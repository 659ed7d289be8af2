// Exactly-once effects in normal operation with three `lnm serve` instances on one DATABASE_URL
// (issue 25): the background work runs on the one instance holding its lease, so 100 events
// written through all three instances give 100 deliveries per webhook (counted at real receivers,
// one per event id), and a node started through one instance has one node.started.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { adminAuth, call, type TestServer } from '../helpers/server.ts';
import { startInstancesBehindNginx, type Instances } from '../helpers/instances.ts';
import { startReceiver, type Receiver } from '../helpers/webhookReceiver.ts';

const t = suite('several instances: effects exactly once');
const SECRET = 'whsec-instances-exactly-once-9b2d';
const EVENTS = 100;
let cluster: Instances | undefined;
let servers: TestServer[] = [];
let receivers: Receiver[] = [];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const api = (s: TestServer, method: string, p: string, body?: unknown) => call(s.api, method, p, { headers: adminAuth(), body });

async function until(what: string, cond: () => Promise<boolean> | boolean, ms = 60_000) {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`not in time: ${what}`);
    await sleep(200);
  }
}

t.before(async () => {
  cluster = await startInstancesBehindNginx({ count: 3, nginx: false, env: { LNM_ALLOW_PRIVATE_TARGETS: 'true' } });
  servers = cluster.servers;
  receivers = await Promise.all([startReceiver({ secret: SECRET }), startReceiver({ secret: SECRET })]);
});

t.after(async () => {
  await cluster?.stop();
  await Promise.all(receivers.map((r) => r.close()));
});

t('100 events written through three instances: 100 deliveries per webhook, one per event', async () => {
  // Each webhook made through a different instance.
  for (const [i, rx] of receivers.entries()) {
    const r = await api(servers[i], 'POST', '/webhooks', { name: `once-${i}`, url: rx.url, events: ['security.user.role_changed'], secret: SECRET });
    assert.is(r.status, 201, r.text);
  }
  const u = await api(servers[2], 'POST', '/users', { username: 'role-flipper', password: 'correct-horse-battery', role: 'VIEWER' });
  assert.is(u.status, 201, u.text);
  for (let i = 0; i < EVENTS; i++) {
    const r = await api(servers[i % 3], 'PUT', `/users/${u.json.id}/role`, { role: i % 2 === 0 ? 'OPERATOR' : 'VIEWER' });
    assert.is(r.status, 200, r.text);
  }
  await until(`${EVENTS} deliveries at each receiver`, () => receivers.every((rx) => rx.received.length >= EVENTS));
  // Time for a duplicate from another instance to show up: a few lease renewals.
  await sleep(4000);
  for (const rx of receivers) {
    const ids = rx.received.map((q) => q.json?.id as string);
    assert.is(rx.received.length, EVENTS, `${rx.received.length} deliveries`);
    assert.is(new Set(ids).size, EVENTS, 'one delivery per event id');
    assert.ok(rx.received.every((q) => q.signatureValid === true));
  }
});

t('an anvil node started through one instance has exactly one node.started', async () => {
  let r = await api(servers[0], 'POST', '/networks', { name: 'once-anvil', type: 'evm', genesis: { chain_id: 31871, consensus: 'QBFT', block_time: 1 } });
  assert.is(r.status, 201, r.text);
  r = await api(servers[1], 'POST', `/networks/${r.json.id}/start`);
  assert.is(r.status, 200, r.text);
  const node = r.json.nodes[0];
  assert.is(node.status, 'running', r.text);
  // Long enough for every instance's sagas and health probes to have run several times.
  await sleep(5000);
  for (const s of servers) {
    const events = (await api(s, 'GET', `/nodes/${node.id}/events?limit=500`)).json.items.map((e: { event: string }) => e.event);
    assert.is(events.filter((e: string) => e === 'node.started').length, 1, events.join(','));
    assert.not.ok(events.includes('node.start_failed'), events.join(','));
  }
  assert.is((await api(servers[2], 'GET', `/nodes/${node.id}`)).json.status, 'running');
});

t.run();
