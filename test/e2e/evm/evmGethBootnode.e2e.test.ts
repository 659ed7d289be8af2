// A geth 1.13 bootnode (issue 38): a bootnode added to a Clique network before its start; the
// three sealers started after it are told of the bootnode only (their config's static and
// bootstrap nodes), yet each peers with the bootnode and with both other sealers (met through
// the bootnode's discovery), and they seal one chain together. The bootnode serves no RPC.
// Skipped, saying why, where geth is not found (LNM_GETH_BIN, else PATH).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { requires } from '../../helpers/requirements.ts';
import { gethMissing, gethServiceEnv } from '../../helpers/programs.ts';
import { api, killLeftoverNodes, until } from './evmLifecycle.ts';

const it = requires(test, 'geth', gethMissing);
let s: TestServer;

async function rpc<T = any>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = (await r.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}
const height = async (url: string) => Number(await rpc<string>(url, 'eth_blockNumber'));

it.before(async () => {
  s = await startServer({ env: gethServiceEnv() });
});

it.after(async () => {
  await s?.stop();
  if (s) killLeftoverNodes(s.dataDir);
});

it('three sealers told of the bootnode only peer with it and with each other, and seal one chain', async () => {
  let r = await api(s, 'POST', '/networks', { name: 'clique-boot', type: 'evm', validatorCount: 3, genesis: { chain_id: 43820, consensus: 'CLIQUE', block_time: 1 } });
  assert.is(r.status, 201, r.text);
  assert.is(r.json.client, 'geth');
  const networkId = r.json.id;
  r = await api(s, 'POST', `/networks/${networkId}/nodes`, { name: 'clique-boot-1', type: 'bootnode' });
  assert.is(r.status, 201, r.text);
  assert.is(r.json.role, 'bootnode');
  const bootnodeId = r.json.id;
  r = await api(s, 'POST', `/networks/${networkId}/start`);
  assert.is(r.status, 200, r.text);
  const boot = (await api(s, 'GET', `/nodes/${bootnodeId}`)).json;
  assert.is(boot.status, 'running', JSON.stringify(boot));
  assert.is(boot.endpoints.rpc_http, null, 'a bootnode serves no RPC');
  assert.match(boot.enode, /^enode:\/\/[0-9a-f]{128}@127\.0\.0\.1:\d+$/);
  const sealers: Array<{ id: number; rpc: string }> = [];
  for (const n of (await api(s, 'GET', `/networks/evm/${networkId}/nodes`)).json.items as Array<{ id: number; role: string }>) {
    if (n.role !== 'validator') continue;
    const v = (await api(s, 'GET', `/nodes/${n.id}`)).json;
    assert.is(v.status, 'running', JSON.stringify(v));
    sealers.push({ id: v.id as number, rpc: v.endpoints.rpc_http as string });
  }
  assert.is(sealers.length, 3);
  // The sealers' node directories (each holds its keystore password): told of the bootnode only.
  const sealerDirs = readdirSync(path.join(s.dataDir, 'nodes')).map((d) => path.join(s.dataDir, 'nodes', d)).filter((d) => readdirSync(d).includes('password'));
  assert.is(sealerDirs.length, 3);
  for (const d of sealerDirs) {
    const enodes = [...readFileSync(path.join(d, 'config.toml'), 'utf8').matchAll(/enode:\/\/[0-9a-f]{128}@[^"]+/g)].map((m) => m[0]);
    assert.ok(enodes.length > 0 && enodes.every((e) => e === boot.enode), `${path.basename(d)} is told of the bootnode only: ${enodes.join(', ')}`);
  }
  // Each sealer: the bootnode and the two other sealers, which it learnt of from the bootnode only.
  for (const n of sealers) await until(`node ${n.id} has 3 peers`, async () => Number(await rpc<string>(n.rpc, 'net_peerCount')) >= 3, 90_000);
  for (const n of sealers) await until(`node ${n.id} at block 6`, async () => (await height(n.rpc)) >= 6, 90_000);
  await until('one chain on the three sealers', async () => {
    const top = Math.min(...(await Promise.all(sealers.map((n) => height(n.rpc)))));
    const hashes = await Promise.all(sealers.map(async (n) => (await rpc<{ hash: string }>(n.rpc, 'eth_getBlockByNumber', ['0x' + top.toString(16), false])).hash));
    return new Set(hashes).size === 1;
  }, 60_000);
});

it.run();
