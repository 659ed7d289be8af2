// The managed metrics stack with Debian's real Prometheus under the process engine: it scrapes
// an anvil node (through the service's exporter) and the service itself (with its scrape token);
// the node figures it answers move; a node added later is scraped without a restart; where the
// Fabric programs are here, a Fabric peer added later is scraped on its operations port (a
// counted skip elsewhere: a fresh machine has no Fabric, and the rest needs nothing beyond the
// repository and Debian's prometheus); stop keeps the data, start resumes, undeploy removes it all.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { adminAuth, call, startServer, type TestServer } from '../helpers/server.ts';
import { freePort } from '../../adapters/postgres/embeddedPostgres.ts';
import { alive, killLeftoverNodes, until } from './evm/evmLifecycle.ts';
import { consortiumEnv, organization, apiOf, node as consortiumNode } from './consortium/consortiumApi.ts';
import { fabricMissing } from '../helpers/programs.ts';
import { requires } from '../helpers/requirements.ts';

let s: TestServer;
const auth = adminAuth();
const api = (method: string, p: string, body?: unknown) => call(s.api, method, p, { headers: auth, body });
const promDir = () => path.join(s.dataDir, 'nodes', 'metrics-prometheus');
const promPid = () => JSON.parse(readFileSync(path.join(promDir(), 'node.pid.json'), 'utf8')).pid as number;

test.before(async () => {
  s = await startServer({ env: consortiumEnv() });
});
test.after(async () => {
  await s?.stop();
  if (s) killLeftoverNodes(s.dataDir);
});

async function anvilNode(name: string, chainId: number): Promise<number> {
  let r = await api('POST', '/networks', { name, type: 'evm', genesis: { chain_id: chainId, consensus: 'QBFT', block_time: 1 } });
  assert.is(r.status, 201, r.text);
  r = await api('POST', `/networks/${r.json.id}/start`);
  assert.is(r.json.nodes[0].status, 'running', r.text);
  return r.json.nodes[0].id;
}

const targetsOf = async () => (await api('GET', '/metrics/status')).json;
const nodeUp = (status: any, nodeId: number) => status.lastScrapeErrors !== undefined && status.targets.up > 0 && status;

let anvilId = 0;

test('bad range queries are 400s naming the field; an unknown node is a 404; nothing is deployed yet', async () => {
  let r = await api('GET', '/metrics/status');
  assert.is(r.status, 200, r.text);
  assert.is(r.json.status, 'not_deployed');
  r = await api('GET', '/metrics/node/5?query=up&start=100&end=50&step=5');
  assert.is(r.status, 400, r.text);
  assert.equal(r.json.details.map((d: { field: string }) => d.field), ['end']);
  r = await api('GET', '/metrics/node/5?query=up');
  assert.is(r.status, 400);
  assert.equal(r.json.details.map((d: { field: string }) => d.field).sort(), ['end', 'start', 'step']);
  r = await api('GET', `/metrics/node/5?query=${encodeURIComponent('up{job="x"}')}&start=1&end=2&step=1`);
  assert.is(r.status, 400, r.text);
  r = await api('GET', '/metrics/node/5?query=up&start=0&end=86400&step=1');
  assert.is(r.status, 400, r.text);
  assert.match(r.json.details[0].message, /points/);
  r = await api('GET', '/metrics/node/987654');
  assert.is(r.status, 404, r.text);
  for (const op of ['start', 'stop', 'undeploy']) assert.is((await api('POST', `/metrics/${op}`)).status, 409, op);
});

test('deploy runs Prometheus, which scrapes the service and an anvil node', async () => {
  anvilId = await anvilNode('metrics-anvil', 31901);

  const defaults = await api('GET', '/metrics/defaults');
  assert.is(defaults.status, 200, defaults.text);
  assert.is(defaults.json.available, true, defaults.text);
  assert.is(defaults.json.engine, 'process');
  const port = await freePort();
  const r = await api('POST', '/metrics/deploy', { port, scrapeIntervalSeconds: 5 });
  assert.is(r.status, 201, r.text);
  assert.is(r.json.status, 'running');
  assert.is(r.json.url, `http://127.0.0.1:${port}`);
  assert.match(r.json.version, /^2\./);
  assert.is((await api('POST', '/metrics/deploy', {})).status, 409, 'a second deploy');

  // The scrape token is the service's secret: 0600, and not in the config file.
  const token = readFileSync(path.join(promDir(), 'scrape-token'), 'utf8');
  assert.is(statSync(path.join(promDir(), 'scrape-token')).mode & 0o777, 0o600);
  assert.not.ok(readFileSync(path.join(promDir(), 'prometheus.yml'), 'utf8').includes(token));
  assert.is((await call(s.url, 'GET', '/metrics', { headers: { authorization: `Bearer ${token}` } })).status, 200);
  assert.is((await call(s.url, 'GET', '/metrics', { headers: { authorization: 'Bearer not-the-token' } })).status >= 400, true);

  const status = await until('the service and the anvil node to be scraped', async () => {
    const st = await targetsOf();
    const all = await fetch(`${st.url}/api/v1/targets`).then((x) => x.json() as Promise<any>);
    const healthOf = (pred: (l: Record<string, string>) => boolean) => all.data.activeTargets.find((t: any) => pred(t.labels))?.health;
    const ok = healthOf((l) => l.job === 'lnm') === 'up' && healthOf((l) => l.node_id === String(anvilId)) === 'up';
    return ok && st;
  }, 90_000);
  assert.ok(status.targets.up >= 2, JSON.stringify(status.targets));
});

test('/metrics/node/{id} answers real numbers from Prometheus, and the block height moves', async () => {
  const first = await until('a block height of the anvil node', async () => {
    const r = await api('GET', `/metrics/node/${anvilId}`);
    return r.status === 200 && r.json.blockHeight !== null && r.json;
  });
  assert.is(first.up, true);
  assert.is(first.platform, 'EVM');
  assert.is(first.scrape.job, 'lnm-node-exporter');
  const later = await until('the block height to grow', async () => {
    const r = await api('GET', `/metrics/node/${anvilId}`);
    return r.json.blockHeight > first.blockHeight && r.json;
  }, 60_000);
  assert.ok(later.blockHeight > first.blockHeight);

  // A range over the samples taken so far: the heights rise over time.
  const values = await until('two block-height samples in the range', async () => {
    const now = Math.floor(Date.now() / 1000);
    const r = await api('GET', `/metrics/node/${anvilId}?query=block_height&start=${now - 120}&end=${now}&step=5s`);
    assert.is(r.status, 200, r.text);
    const v = (r.json.range.series[0]?.values ?? []).map((x: [number, string]) => Number(x[1]));
    return v.length >= 2 && v;
  }, 60_000);
  assert.ok(values[values.length - 1] > values[0], `block heights over time: ${values.join(',')}`);
});

test('a node added after deploy is scraped without restarting Prometheus', async () => {
  const pid = promPid();
  const added = await anvilNode('metrics-anvil-late', 31902);
  await until('the new node to be scraped', async () => {
    const r = await api('GET', `/metrics/node/${added}`);
    return r.status === 200 && r.json.up === true && r.json.blockHeight !== null;
  }, 60_000);
  assert.is(promPid(), pid, 'the same Prometheus process');
});

// Needs the Fabric programs: a counted skip, saying why, where they are absent.
requires(test, 'fabric', fabricMissing)('a Fabric peer added after deploy is scraped on its operations port, with real figures', async () => {
  const pid = promPid();
  const org = await organization(apiOf(() => s), 'MetricsOrg', 'MetricsOrgMSP');
  const peer = await consortiumNode(apiOf(() => s), 'metrics-peer0', 'CONSORTIUM_PEER', org.id, { port: await freePort(), chaincodePort: await freePort(), operationsPort: await freePort() });
  await until('the peer to be scraped', async () => {
    const st = await targetsOf();
    const all = await fetch(`${st.url}/api/v1/targets`).then((x) => x.json() as Promise<any>);
    return all.data.activeTargets.find((t: any) => t.labels.node_id === String(peer.id))?.health === 'up';
  }, 90_000);
  const figures = await until('the peer\'s figures', async () => {
    const r = await api('GET', `/metrics/node/${peer.id}`);
    return r.status === 200 && r.json.memoryBytes !== null && r.json.cpuCores !== null && r.json;
  }, 60_000);
  assert.is(figures.up, true);
  assert.ok(figures.memoryBytes > 1_000_000, `resident memory ${figures.memoryBytes}`);
  assert.is(figures.scrape.job, 'nodes');
  assert.is(promPid(), pid, 'the same Prometheus process');
});

test('a restart of the service hands Prometheus over (stopped on the drain, started by the next holder of its lease, data kept); one killed from outside is started again', async () => {
  const before = promPid();
  await s.stop();
  assert.not.ok(alive(before), 'the drain stopped the Prometheus of the instance that let the metrics stack go');
  s = await startServer({ dataDir: s.dataDir, databaseUrl: s.databaseUrl!, port: s.port, env: consortiumEnv() });
  let r = await until('the new holder to start it again', async () => {
    const st = await api('GET', '/metrics/status');
    return st.json.status === 'running' && st;
  }, 30_000);
  assert.is(r.json.instance, (await call(s.api, 'GET', '/health')).json.instance.id, r.text);
  const pid = promPid();
  assert.ok(alive(pid));
  // anvil is scraped through the service's exporter: scrapes made while the service was down
  // failed, so `up` comes back with the first scrape after the restart.
  await until('anvil up again through the restarted service', async () => (await api('GET', `/metrics/node/${anvilId}`)).json?.up === true, 60_000);

  process.kill(pid, 'SIGKILL');
  await until('the engine to see it gone', async () => (await api('GET', '/metrics/status')).json.status === 'exited', 30_000);
  r = await api('POST', '/metrics/start');
  assert.is(r.status, 200, r.text);
  assert.is(r.json.status, 'running');
  assert.is.not(promPid(), pid);
  assert.is((await api('POST', '/metrics/start')).status, 409, 'running now');
});

test('stop keeps the data, start resumes it, undeploy removes it; each is an event', async () => {
  const before = Math.floor(Date.now() / 1000);
  let r = await api('POST', '/metrics/stop');
  assert.is(r.status, 200, r.text);
  assert.is(r.json.status, 'stopped');
  assert.ok(existsSync(path.join(promDir(), 'data')), 'the TSDB stays');
  assert.is((await api('GET', `/metrics/node/${anvilId}`)).status, 503);
  assert.is((await api('POST', '/metrics/stop')).status, 409);

  r = await api('POST', '/metrics/start');
  assert.is(r.status, 200, r.text);
  assert.is(r.json.status, 'running');
  // Samples from before the stop are still there.
  await until('the old samples to be readable', async () => {
    const q = await api('GET', `/metrics/node/${anvilId}?query=up&start=${before - 90}&end=${before}&step=5`);
    return q.status === 200 && q.json.range.series.length > 0 && q.json.range.series[0].values.length > 0;
  }, 30_000);

  r = await api('POST', '/metrics/undeploy');
  assert.is(r.status, 200, r.text);
  assert.is(r.json.status, 'not_deployed');
  assert.not.ok(existsSync(promDir()), 'its directory is gone');
  const audit = await api('GET', '/audit-logs?limit=500&days=1');
  const types = audit.json.items.map((e: { event_type: string }) => e.event_type);
  for (const t of ['MetricsStackDeployed', 'MetricsStackStopped', 'MetricsStackStarted', 'MetricsStackUndeployed']) assert.ok(types.includes(t), `${t} in ${types.join(',')}`);
});

test('without the prometheus program, deploy is a 503 naming it', async () => {
  const other = await startServer({ env: { LNM_PROMETHEUS_BIN: '/nonexistent/prometheus' } });
  try {
    const r = await call(other.api, 'POST', '/metrics/deploy', { headers: auth, body: {} });
    assert.is(r.status, 503, r.text);
    assert.match(r.json.message, /\/nonexistent\/prometheus/);
    assert.is((await call(other.api, 'GET', '/metrics/status', { headers: auth })).json.status, 'not_deployed');
  } finally {
    await other.stop();
  }
});

test.run();
