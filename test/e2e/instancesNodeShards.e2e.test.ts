// Node work spread over three `lnm serve` instances on one DATABASE_URL (issue 25): the nodes are
// partitioned over 16 shard leases (sagas/nodeShards.ts) and each live instance holds a fair
// share, so node work runs on more than one instance, every shard on exactly one; a node started
// there has one node.started; a backup schedule every 3 s runs once per tick; and when the
// instance watching a node is killed with kill -9 while that node (a real anvil) is killed too,
// another instance takes the shard and raises node.downtime within the documented bound.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { adminAuth, call, type TestServer } from '../helpers/server.ts';
import { startS3Server, type S3Server } from '../helpers/s3Server.ts';
import { alive, pidOf, until } from './evm/evmLifecycle.ts';
import { leasesHeld, startInstancesBehindNginx, type Instances } from '../helpers/instances.ts';

const t = suite('several instances: node work spread by shard');
const LEASE_S = 3;
const SHARDS = 16;
// Lease expiry + one renewal period (the survivors' next round) + one probe interval (1 s) + slack.
const DOWNTIME_BOUND_MS = (LEASE_S + LEASE_S / 3 + 1 + 2) * 1000;
let servers: TestServer[] = [];
let s3: S3Server | undefined;
let cluster: Instances | undefined;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const api = (s: TestServer, method: string, p: string, body?: unknown) => call(s.api, method, p, { headers: adminAuth(), body });
const hasRestic = (() => {
  try {
    execFileSync('restic', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** The node shards each instance says it holds, null for one that does not answer. */
const shardsHeld = async (list: TestServer[]) => (await leasesHeld(list, 'node-shard-')).map((h) => h?.map(Number) ?? null);

const start = () => cluster!.start();

t.before(async () => {
  cluster = await startInstancesBehindNginx({ count: 3, nginx: false, leaseSeconds: LEASE_S, env: { LNM_ALLOW_PRIVATE_TARGETS: 'true', KEY_ENCRYPTION_KEY: 'node-shards-e2e-key-encryption-key-0123456' } });
  servers = cluster.servers;
});

t.after(async () => {
  await cluster?.stop();
  await s3?.stop();
  s3?.remove();
});

t('the 16 node shards are spread over the three instances, each held by exactly one', async () => {
  const held = await until('every instance holding its share', async () => {
    const h = await shardsHeld(servers);
    return h.every((x) => x !== null && x.length >= 4) && h.flat().length === SHARDS ? (h as number[][]) : null;
  });
  const all = held.flat().sort((a, b) => a - b);
  assert.equal(all, Array.from({ length: SHARDS }, (_, k) => k), `no shard twice, none missing: ${JSON.stringify(held)}`);
  assert.ok(held.every((h) => h.length <= Math.ceil(SHARDS / 3)), JSON.stringify(held));
});

let nodes: { id: number }[] = [];

t('four anvil nodes started through the three instances: one node.started each, started by more than one instance', async () => {
  assert.is((await api(servers[0], 'POST', '/settings', { nodeHealthCheckIntervalSeconds: 1, nodeDowntimeThreshold: 1 })).status, 200);
  const held = (await shardsHeld(servers)) as number[][];
  for (let i = 0; i < 4; i++) {
    let r = await api(servers[i % 3], 'POST', '/networks', { name: `sharded-anvil-${i}`, type: 'evm', genesis: { chain_id: 31880 + i, consensus: 'QBFT', block_time: 1 } });
    assert.is(r.status, 201, r.text);
    r = await api(servers[(i + 1) % 3], 'POST', `/networks/${r.json.id}/start`);
    assert.is(r.status, 200, r.text);
    assert.is(r.json.nodes[0].status, 'running', r.text);
    nodes.push(r.json.nodes[0]);
  }
  // The instance that started a node is the one whose data directory holds its pid file: the
  // holder of the node's shard, whichever instance took the request.
  const starters = nodes.map((n) => servers.findIndex((s) => pidOf(s, n.id) !== null));
  for (const [i, n] of nodes.entries()) assert.ok(starters[i] >= 0 && held[starters[i]].includes(n.id % SHARDS), `node ${n.id} (shard ${n.id % SHARDS}) started by instance ${starters[i]} holding ${JSON.stringify(held)}`);
  const owners = new Set(nodes.map((n) => held.findIndex((h) => h.includes(n.id % SHARDS))));
  console.log(`  nodes ${nodes.map((n) => n.id)} on shards ${nodes.map((n) => n.id % SHARDS)}, started by instances ${starters}`);
  assert.ok(owners.size > 1 ? new Set(starters).size > 1 : true, 'nodes of shards held by different instances were started by different instances');
  await sleep(3000);
  for (const n of nodes) {
    for (const s of servers) {
      const events = (await api(s, 'GET', `/nodes/${n.id}/events?limit=500`)).json.items.map((e: { event: string }) => e.event);
      assert.is(events.filter((e: string) => e === 'node.started').length, 1, events.join(','));
      assert.not.ok(events.includes('node.downtime'), events.join(','));
    }
  }
});

t('kill -9 of the instance watching a node, and of the node: node.downtime from another instance within the bound', async () => {
  const node = nodes[0];
  const shard = node.id % SHARDS;
  const held = (await shardsHeld(servers)) as number[][];
  const watcher = held.findIndex((h) => h.includes(shard));
  assert.ok(watcher >= 0, JSON.stringify(held));
  const pid = servers.map((s) => pidOf(s, node.id)).find((p) => p !== null) ?? null;
  assert.ok(alive(pid), 'the anvil runs');
  const killedAt = Date.now();
  await servers[watcher].kill();
  process.kill(pid!, 'SIGKILL');
  const rest = servers.filter((_, i) => i !== watcher);
  const down = await until('node.downtime', async () => {
    const items = (await api(rest[0], 'GET', `/nodes/${node.id}/events?limit=500`)).json.items as { event: string }[];
    return items.some((e) => e.event === 'node.downtime') ? Date.now() - killedAt : null;
  }, DOWNTIME_BOUND_MS * 3);
  // The survivors' rounds are not in step: the last of the dead instance's shards may be claimed a round later.
  const after = await until('the survivors holding every shard', async () => {
    const h = (await shardsHeld(rest)) as number[][];
    return h.flat().length === SHARDS ? h : null;
  }, DOWNTIME_BOUND_MS);
  const allHeldMs = Date.now() - killedAt;
  console.log(`  node.downtime ${down} ms after the kill -9 of its watcher (bound ${DOWNTIME_BOUND_MS} ms); all 16 shards held again after ${allHeldMs} ms: ${JSON.stringify(after)}`);
  assert.ok(down <= DOWNTIME_BOUND_MS, `${down} ms > ${DOWNTIME_BOUND_MS} ms`);
  assert.ok(after.some((h) => h.includes(shard)), 'a survivor holds the shard');
  assert.ok(allHeldMs <= DOWNTIME_BOUND_MS, `${allHeldMs} ms`);
  const events = (await api(rest[1], 'GET', `/nodes/${node.id}/events?limit=500`)).json.items.map((e: { event: string }) => e.event);
  assert.is(events.filter((e: string) => e === 'node.downtime').length, 1, events.join(','));
  servers[watcher] = await start();
});

t('a backup schedule every 3 s with three instances runs once per tick', async () => {
  if (!hasRestic) return void console.log('  skipped: restic not on PATH');
  s3 = await startS3Server(['backups']);
  let r = await api(servers[2], 'POST', '/backups/targets', {
    name: 'shards-s3', endpoint: s3.endpoint, bucket_name: 'backups', bucket_path: 'lnm', region: 'us-east-1', access_key_id: s3.accessKeyId,
    secret_access_key: s3.secretAccessKey, force_path_style: true, repository_password: 'repository-password-for-tests', ca_certificate: s3.caPem,
  });
  assert.is(r.status, 201, r.text);
  r = await api(servers[0], 'POST', '/backups/schedules', { name: 'every-3s', cron_expression: '*/3 * * * * *', target_id: r.json.id });
  assert.is(r.status, 201, r.text);
  const scheduleId = r.json.id;
  const from = Date.now();
  await sleep(16_000);
  r = await api(servers[1], 'PUT', `/backups/schedules/${scheduleId}/disable`);
  assert.is(r.status, 200, r.text);
  const took = Date.now() - from;
  await sleep(1000);
  const runs = (await api(servers[1], 'GET', `/backups?schedule_id=${scheduleId}&limit=100`)).json.items as { id: number; created_at?: string; createdAt?: string; started_at?: string }[];
  const times = runs.map((b) => Date.parse(String(b.created_at ?? b.createdAt ?? b.started_at))).sort((a, b) => a - b);
  const ticks = new Map<number, number>();
  for (const at of times) ticks.set(Math.floor(at / 3000), (ticks.get(Math.floor(at / 3000)) ?? 0) + 1);
  console.log(`  ${runs.length} backups in ${took} ms at 3 s ticks, per tick: ${JSON.stringify([...ticks.values()])}`);
  assert.ok(times.every((x) => Number.isFinite(x)), JSON.stringify(runs[0]));
  assert.ok(runs.length >= 2, `${runs.length} backups`);
  assert.ok(runs.length <= Math.ceil(took / 3000) + 1, `${runs.length} backups for ${Math.ceil(took / 3000)} ticks`);
  assert.ok([...ticks.values()].every((n) => n === 1), `one backup per tick: ${JSON.stringify([...ticks.entries()])}`);
});

t.run();
