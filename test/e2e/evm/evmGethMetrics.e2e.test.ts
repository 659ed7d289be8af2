// geth 1.13 under the managed metrics stack (Debian's real Prometheus, process engine): a Clique
// network of two geth sealers is scraped on each sealer's metrics port at geth's own path
// (/debug/metrics/prometheus), and GET /metrics/node/{id} answers the sealer's block height,
// peers and CPU from geth's series (chain_head_block, p2p_peers, system_cpu_procload_total),
// the height moving with the chain. Skipped, saying why, where geth is not found (LNM_GETH_BIN,
// else PATH); Prometheus is Debian's `prometheus` as in metricsStack.e2e.test.ts.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { requires } from '../../helpers/requirements.ts';
import { gethMissing, gethServiceEnv } from '../../helpers/programs.ts';
import { freePort } from '../../../adapters/postgres/embeddedPostgres.ts';
import { api, killLeftoverNodes, until } from './evmLifecycle.ts';

const it = requires(test, 'geth', gethMissing);
let s: TestServer;

async function height(url: string): Promise<number> {
  const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }) });
  return Number(((await r.json()) as { result: string }).result);
}

it.before(async () => {
  s = await startServer({ env: gethServiceEnv() });
});

it.after(async () => {
  await s?.stop();
  if (s) killLeftoverNodes(s.dataDir);
});

it('Prometheus scrapes geth sealers at /debug/metrics/prometheus; the node summary reads geth\'s height, peers and CPU', async () => {
  let r = await api(s, 'POST', '/networks', { name: 'clique-metrics', type: 'evm', validatorCount: 2, genesis: { chain_id: 43850, consensus: 'CLIQUE', block_time: 1 } });
  assert.is(r.status, 201, r.text);
  assert.is(r.json.client, 'geth');
  const networkId = r.json.id;
  r = await api(s, 'POST', `/networks/${networkId}/start`);
  assert.is(r.status, 200, r.text);
  const sealers: Array<{ id: number; rpc: string }> = [];
  for (const n of (await api(s, 'GET', `/networks/evm/${networkId}/nodes`)).json.items as Array<{ id: number }>) {
    const v = (await api(s, 'GET', `/nodes/${n.id}`)).json;
    assert.is(v.status, 'running', JSON.stringify(v));
    sealers.push({ id: v.id as number, rpc: v.endpoints.rpc_http as string });
  }
  assert.is(sealers.length, 2);

  r = await api(s, 'POST', '/metrics/deploy', { port: await freePort(), scrapeIntervalSeconds: 5 });
  assert.is(r.status, 201, r.text);
  const url = r.json.url as string;

  // Both sealers' targets up, scraped at geth's path (a failed scrape's error is printed).
  const targets = await until('both geth sealers to be scraped', async () => {
    const all = await fetch(`${url}/api/v1/targets`).then((x) => x.json() as Promise<any>);
    const mine = sealers.map((n) => all.data.activeTargets.find((t: any) => t.labels.node_id === String(n.id)));
    for (const t of mine) if (t?.lastError) console.log(`node ${t.labels.node_id}: ${t.scrapeUrl}: ${t.lastError}`);
    return mine.every((t: any) => t?.health === 'up') && mine;
  }, 90_000);
  for (const t of targets) assert.match(t.scrapeUrl, /\/debug\/metrics\/prometheus$/);

  const [first] = sealers;
  let last = '';
  const summary = await until('the sealer\'s height, peers and CPU from Prometheus', async () => {
    const m = await api(s, 'GET', `/metrics/node/${first.id}`);
    assert.is(m.status, 200, m.text);
    last = m.text;
    return m.json.up === true && m.json.blockHeight !== null && m.json.peers !== null && m.json.cpuCores !== null && m.json;
  }, 60_000).catch((err: Error) => assert.unreachable(`${err.message}; last answer: ${last}`));
  assert.is(summary.scrape.job, 'nodes');
  assert.ok(summary.blockHeight > 0, `block height ${summary.blockHeight}`);
  assert.ok(summary.blockHeight <= (await height(first.rpc)), 'a height the node has reached');
  assert.is(summary.peers, 1, 'peered with the other sealer');
  assert.ok(summary.cpuCores >= 0, `cpu ${summary.cpuCores}`);
  await until('the block height to move', async () => {
    const m = await api(s, 'GET', `/metrics/node/${first.id}`);
    return m.json.blockHeight > summary.blockHeight && m.json;
  }, 60_000);
});

it.run();
