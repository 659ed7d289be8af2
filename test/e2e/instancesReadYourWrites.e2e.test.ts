// Read-your-writes across instances (issue 25): two `lnm serve` instances on one PostgreSQL. A
// write acknowledged with a 2xx by one is read on the other at once, in both directions and
// hundreds of times, for resources read straight from the tables (organizations, nodes) and for
// reads answered from an instance's caches (the settings cache: who may read GET /metrics; the
// verified-credentials cache: a revoked API key). The second instance's caches learn of the write
// from the first's projector notifying the position it committed (lnm_projected, docs/scaling.md);
// without that they keep answering from before it for a moment, and this test counts misses.
// Nodes created at once on both instances with no port given never share a port (the allocation
// holds a PostgreSQL advisory lock, not only an in-process one).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { adminAuth, call, startServer, type TestServer } from '../helpers/server.ts';
import { freshDatabase } from '../helpers/postgres.ts';
import { onGlobalTeardown } from '../helpers/globalTeardown.ts';
import { installBesu } from '../standins/besuStandinInstall.ts';

const t = suite('read-your-writes across instances');
let servers: TestServer[] = [];
let besuNetwork = 0;
const h = adminAuth();

t.before(async () => {
  const databaseUrl = (await freshDatabase()).url;
  // No besu on PATH: nodes are recorded (their ports allocated) and their start fails, quickly.
  const start = () => startServer({ databaseUrl, env: { PATH: '/usr/bin:/bin', LNM_NODE_ENGINE: 'process', KEY_ENCRYPTION_KEY: 'read-your-writes-e2e-key-encryption-key-0123' } });
  // A besu network is only made where besu is: by a third instance with the besu stand-in on PATH, stopped before the two start.
  const standin = installBesu({ real: null });
  onGlobalTeardown(() => standin.remove());
  const maker = await startServer({ databaseUrl, env: { PATH: `${standin.binDir}:/usr/bin:/bin`, LNM_NODE_ENGINE: 'process', KEY_ENCRYPTION_KEY: 'read-your-writes-e2e-key-encryption-key-0123' } });
  const r = await call(maker.api, 'POST', '/networks', { headers: h, body: { name: 'ryw-besu', type: 'evm', validatorCount: 4, genesis: { chain_id: 39001, consensus: 'QBFT', block_time: 2 } } });
  assert.is(r.status, 201, r.text);
  besuNetwork = r.json.id;
  await maker.stop();
  servers = [await start()];
  servers.push(await start());
});
t.after(async () => {
  await Promise.all(servers.map((s) => s.kill()));
});

/** Writer and reader of iteration i: A then B, B then A, alternately. */
const pair = (i: number) => (i % 2 === 0 ? [servers[0], servers[1]] : [servers[1], servers[0]]) as [TestServer, TestServer];

t('settings: a change on one instance decides the very next request on the other (its settings cache)', async () => {
  const misses: string[] = [];
  for (let i = 0; i < 120; i++) {
    const [w, r] = pair(i);
    const metricsAccess = i % 2 === 0 ? 'loopback' : 'authenticated';
    const set = await call(w.api, 'POST', '/settings', { headers: h, body: { metricsAccess } });
    assert.is(set.status, 200, set.text + w.output().split('\n').filter((l) => /"level":(50|40)/.test(l)).slice(-5).join('\n'));
    // Unauthenticated from 127.0.0.1: allowed only under loopback.
    const m = await fetch(r.url + '/metrics');
    await m.arrayBuffer();
    if (m.status !== (metricsAccess === 'loopback' ? 200 : 401)) misses.push(`#${i} metricsAccess=${metricsAccess}: GET /metrics answered ${m.status}`);
  }
  assert.equal(misses, [], `${misses.length} of 120 reads missed the other instance's write`);
});

t('API keys: a key revoked on one instance is refused by the other at once, though it had just accepted it', async () => {
  const misses: string[] = [];
  for (let i = 0; i < 40; i++) {
    const [w, r] = pair(i);
    const made = await call(w.api, 'POST', '/api-keys', { headers: h, body: { name: `ryw-${i}`, scopes: ['USER_READ'] } });
    assert.is(made.status, 201, made.text);
    const key = { authorization: `Bearer ${made.json.key}` };
    const before = await call(r.api, 'GET', '/users', { headers: key });
    if (before.status !== 200) misses.push(`#${i}: a new key answered ${before.status} on the other instance`);
    // Once more, so the reader has it in its verified-credentials cache for certain.
    await call(r.api, 'GET', '/users', { headers: key });
    assert.is((await call(w.api, 'DELETE', `/api-keys/${made.json.id}`, { headers: h })).status, 204);
    const after = await call(r.api, 'GET', '/users', { headers: key });
    if (after.status !== 401) {
      let tries = 0;
      const t0 = Date.now();
      while ((await call(r.api, 'GET', '/users', { headers: key })).status !== 401 && tries < 100) tries++;
      misses.push(`#${i}: a revoked key answered ${after.status} on the other instance (401 after ${tries} more tries, ${Date.now() - t0} ms)`);
    }
  }
  assert.equal(misses, [], `${misses.length} misses`);
});

t('organizations and nodes: made on one instance, read on the other at once', async () => {
  const misses: string[] = [];
  for (let i = 0; i < 30; i++) {
    const [w, r] = pair(i);
    const org = await call(w.api, 'POST', '/organizations', { headers: h, body: { name: `RYW Org ${i}`, mspId: `Ryw${i}MSP` } });
    assert.is(org.status, 201, org.text);
    const read = await call(r.api, 'GET', `/organizations/${org.json.id}`, { headers: h });
    if (read.status !== 200 || read.json.mspId !== `Ryw${i}MSP`) misses.push(`organization #${i}: ${read.status}`);
    const node = await call(w.api, 'POST', `/networks/${besuNetwork}/nodes`, { headers: h, body: { name: `ryw-boot-${i}`, type: 'bootnode' } });
    assert.is(node.status, 201, node.text);
    const got = await call(r.api, 'GET', `/nodes/${node.json.id}`, { headers: h });
    if (got.status !== 200 || got.json.name !== `ryw-boot-${i}`) misses.push(`node #${i}: ${got.status}`);
  }
  assert.equal(misses, [], `${misses.length} misses`);
});

t('nodes created at once on both instances, with no port given, never share a port', async () => {
  for (let round = 0; round < 3; round++) {
    const made = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        call(servers[i % 2].api, 'POST', `/networks/${besuNetwork}/nodes`, { headers: h, body: { name: `ryw-par-${round}-${i}`, type: 'bootnode' } }),
      ),
    );
    for (const m of made) assert.is(m.status, 201, m.text);
  }
  const list = await call(servers[0].api, 'GET', `/nodes?limit=500`, { headers: h });
  assert.is(list.status, 200, list.text);
  const ports: number[] = list.json.items.map((n: { config: { p2pPort: number } }) => n.config.p2pPort);
  assert.ok(ports.length >= 66, `${ports.length} nodes`);
  const seen = new Map<number, number>();
  for (const p of ports) seen.set(p, (seen.get(p) ?? 0) + 1);
  const doubled = [...seen].filter(([, n]) => n > 1).map(([p]) => p);
  assert.equal(doubled, [], `ports handed out twice: ${doubled.join(', ')}`);
});

t.run();
