// Exactly-once effects in normal operation with three `lnm serve` instances on one DATABASE_URL
// (issue 25): the background work runs on the one instance holding its lease, so 100 events
// written through all three instances give 100 deliveries per webhook (counted at real receivers,
// one per event id), a node started through one instance has one node.started, and a backup
// schedule every 4 s runs once per tick (one backup per cron slot, against real S3 and restic);
// and a node killed while the instance holding the work is killed -9 is still seen down, once,
// within the documented bound (docs/scaling.md: 15 s).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { adminAuth, call, startServer, type TestServer } from '../helpers/server.ts';
import { freshDatabase } from '../helpers/postgres.ts';
import { startReceiver, type Receiver } from '../helpers/webhookReceiver.ts';
import { startS3Server, type S3Server } from '../helpers/s3Server.ts';
import { alive, pidOf } from './evm/evmLifecycle.ts';

const t = suite('several instances: effects exactly once');
const SECRET = 'whsec-instances-exactly-once-9b2d';
const EVENTS = 100;
let servers: TestServer[] = [];
let receivers: Receiver[] = [];
let s3: S3Server;
let anvilNodeId = 0;
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
  const databaseUrl = (await freshDatabase()).url;
  const start = () => startServer({ databaseUrl, env: { LNM_WORK_LEASE_SECONDS: '3', LNM_ALLOW_PRIVATE_TARGETS: 'true', KEY_ENCRYPTION_KEY: 'several-instances-e2e-key-encryption-key-0123' } });
  servers = [await start()];
  servers.push(...(await Promise.all([start(), start()])));
  receivers = await Promise.all([startReceiver({ secret: SECRET }), startReceiver({ secret: SECRET })]);
  s3 = await startS3Server(['backups']);
});

t.after(async () => {
  await Promise.all(servers.map((s) => s.kill()));
  for (const s of servers) s.reapNodes();
  await Promise.all(receivers.map((r) => r.close()));
  await s3?.stop();
  s3?.remove();
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
  anvilNodeId = node.id;
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

t('a backup schedule every 4 s with three instances runs once per tick', async () => {
  const target = await api(servers[0], 'POST', '/backups/targets', {
    name: 'once-s3', endpoint: s3.endpoint, bucket_name: 'backups', bucket_path: 'once', region: 'us-east-1', access_key_id: s3.accessKeyId,
    secret_access_key: s3.secretAccessKey, force_path_style: true, repository_password: 'repository-password-once', ca_certificate: s3.caPem,
  });
  assert.is(target.status, 201, target.text);
  const schedule = await api(servers[1], 'POST', '/backups/schedules', { name: 'every-4s', cron_expression: '*/4 * * * * *', target_id: target.json.id });
  assert.is(schedule.status, 201, schedule.text);
  const id = schedule.json.id;
  const runs = async () => (await api(servers[2], 'GET', `/backups?schedule_id=${id}&limit=100`)).json.items as Array<{ id: number; status: string; created_at: string }>;
  await until('four scheduled backups', async () => (await runs()).length >= 4, 90_000);
  assert.is((await api(servers[2], 'PUT', `/backups/schedules/${id}/disable`)).status, 200);
  await until('the runs to end', async () => (await runs()).every((b) => b.status !== 'IN_PROGRESS'), 60_000);
  // A run that another instance also fired would be a second backup in the same 4 s cron slot.
  const all = await runs();
  const slots = all.map((b) => Math.floor(Date.parse(b.created_at) / 4000));
  assert.is(new Set(slots).size, all.length, `backups per slot: ${JSON.stringify(all.map((b) => [b.id, b.created_at]))}`);
  assert.ok(all.some((b) => b.status === 'COMPLETED'), JSON.stringify(all));
});

t('kill -9 of the work holder while its node dies too: node.downtime once, within 15 s', async () => {
  const live = async () => (await Promise.all(servers.map(async (s) => (await call(s.api, 'GET', '/health').catch(() => null))?.json?.instance ?? null)));
  const r = await api(servers[0], 'POST', '/settings', { nodeHealthCheckIntervalSeconds: 1, nodeDowntimeThreshold: 2 });
  assert.is(r.status, 200, r.text);
  const holder = (await live()).findIndex((h) => h?.work.includes('background-work'));
  assert.ok(holder >= 0, 'one instance holds the work');
  const pid = servers.map((s) => pidOf(s, anvilNodeId)).find((p) => p && alive(p));
  assert.ok(pid, 'the anvil node runs');
  const before = (await api(servers[(holder + 1) % 3], 'GET', `/nodes/${anvilNodeId}/events?limit=500`)).json.items.filter((e: { event: string }) => e.event === 'node.downtime').length;
  // The holder and the node go at the same moment: nobody is watching when the node dies.
  const killedAt = Date.now();
  await servers[holder].kill();
  process.kill(pid!, 'SIGKILL');
  const survivor = servers[(holder + 1) % 3];
  let seenAfter = 0;
  while (Date.now() - killedAt < 30_000) {
    const events = (await api(survivor, 'GET', `/nodes/${anvilNodeId}/events?limit=500`)).json.items as Array<{ event: string }>;
    if (events.filter((e) => e.event === 'node.downtime').length > before) {
      seenAfter = Date.now() - killedAt;
      break;
    }
    await sleep(200);
  }
  assert.ok(seenAfter > 0, 'node.downtime after the failover');
  assert.ok(seenAfter <= 15_000, `node.downtime ${seenAfter} ms after the kill`);
  await sleep(3000);
  const events = (await api(survivor, 'GET', `/nodes/${anvilNodeId}/events?limit=500`)).json.items as Array<{ event: string }>;
  assert.is(events.filter((e) => e.event === 'node.downtime').length, before + 1, 'one node.downtime');
  assert.is((await api(survivor, 'GET', `/nodes/${anvilNodeId}`)).json.status, 'down');
});

t.run();
