// A four-validator QBFT network on besu through the API of the real server (child process),
// process engine. No real besu can run on this machine, so `besu` on the server's PATH is the
// stand-in (test/standins/besuStandin.ts: it checks options, TOML, genesis and node key as besu
// does, proves peers' node ids over TCP, and produces no blocks). When a real besu is on PATH,
// the same test runs against it and also waits for blocks.
import { test } from 'uvu';
import { requires } from '../../helpers/requirements.ts';
import * as assert from 'uvu/assert';
import { accessSync, constants, readFileSync } from 'node:fs';
import path from 'node:path';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { onGlobalTeardown } from '../../helpers/globalTeardown.ts';
import { api, killLeftoverNodes, until } from './evmLifecycle.ts';
import { installBesu, type InstalledBesu } from '../../standins/besuStandinInstall.ts';

function realBesu(): string | null {
  for (const dir of (process.env.PATH ?? '').split(':').filter(Boolean)) {
    try {
      accessSync(path.join(dir, 'besu'), constants.X_OK);
      return path.join(dir, 'besu');
    } catch {
      /* next */
    }
  }
  return null;
}

let s: TestServer;
let besu: InstalledBesu;
let networkId: number;
let validatorNodes: Array<{ id: number; enode: string; validator_address: string; endpoints: { rpc_http: string } }> = [];
let bootnodeId: number;

async function rpc<T>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = (await r.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

test.before(async () => {
  besu = installBesu({ real: realBesu() });
  onGlobalTeardown(() => besu.remove());
  s = await startServer({ env: { PATH: `${besu.binDir}:${process.env.PATH ?? ''}` } });
  if (!besu.real) console.log('  (no besu on PATH: the besu stand-in runs; block production and devp2p are not exercised)');
});

test.after(async () => {
  await s?.stop();
  if (s) killLeftoverNodes(s.dataDir);
});

test('a four-validator QBFT network on besu starts all its validators', async () => {
  // Health probes every second, down after two failures: a node wrongly probed shows up fast.
  let r = await api(s, 'POST', '/settings', { nodeHealthCheckIntervalSeconds: 1, nodeDowntimeThreshold: 2 });
  assert.is(r.status, 200, r.text);
  r = await api(s, 'POST', '/networks', { name: 'besu-qbft', type: 'evm', client: 'besu', validatorCount: 4, genesis: { chain_id: 43210, consensus: 'QBFT', block_time: 2 } });
  assert.is(r.status, 201, r.text);
  networkId = r.json.id;
  r = await api(s, 'POST', `/networks/${networkId}/start`);
  assert.is(r.status, 200, r.text);
  assert.is(r.json.nodes.length, 4);
  for (const n of r.json.nodes) {
    assert.is(n.status, 'running', JSON.stringify(n));
    assert.is(n.client, 'besu');
    assert.match(n.enode, /^enode:\/\/[0-9a-f]{128}@127\.0\.0\.1:\d+$/);
    assert.ok(n.enode.endsWith(`:${n.config.p2pPort}`));
    assert.ok(n.validator_address);
  }
  validatorNodes = r.json.nodes;
});

test('each node runs with its validator key: the enode it reports is the one the service shows', async () => {
  for (const n of validatorNodes) {
    const info = await rpc<{ enode: string }>(n.endpoints.rpc_http, 'admin_nodeInfo');
    assert.is(info.enode, n.enode);
    assert.is(await rpc<string>(n.endpoints.rpc_http, 'eth_chainId'), '0x' + (43210).toString(16));
  }
});

test('the validators the chain reports are the genesis validators', async () => {
  const network = (await api(s, 'GET', `/networks/evm/${networkId}`)).json;
  const r = await api(s, 'GET', `/networks/${networkId}/validators`);
  assert.is(r.status, 200, r.text);
  assert.is(r.json.source, 'chain');
  const lower = (xs: string[]) => xs.map((x) => x.toLowerCase()).sort();
  assert.equal(lower(r.json.validators.map((v: { address: string }) => v.address)), lower(network.validators.map((v: { address: string }) => v.address)));
  assert.equal(lower(validatorNodes.map((n) => n.validator_address)), lower(network.validators.map((v: { address: string }) => v.address)));
});

test('the validators find each other: every node reports peers', async () => {
  for (const n of validatorNodes) {
    await until(`peers of node ${n.id}`, async () => ((await api(s, 'GET', `/nodes/${n.id}`)).json.peer_count ?? 0) > 0);
  }
});

test('validator votes go to every running validator through qbft_ JSON-RPC, are listed as pending and can be withdrawn', async () => {
  const candidate = '0x' + 'ab'.repeat(20);
  const r = await api(s, 'POST', `/networks/${networkId}/validators/votes`, { address: candidate, add: true });
  assert.is(r.status, 200, r.text);
  assert.equal({ now: r.json.validators_now, after: r.json.validators_after, cast: r.json.votes_cast, needed: r.json.votes_needed, passes: r.json.passes }, { now: 4, after: 5, cast: 4, needed: 3, passes: true });
  // Each node's own answer, read straight from its JSON-RPC, not from the service.
  for (const n of validatorNodes) {
    const pending = await rpc<Record<string, boolean>>(n.endpoints.rpc_http, 'qbft_getPendingVotes');
    assert.equal(Object.entries(pending).map(([a, v]) => [a.toLowerCase(), v]), [[candidate, true]]);
  }
  const listed = (await api(s, 'GET', `/networks/${networkId}/validators/votes`)).json;
  assert.is(listed.nodes.length, 4);
  const d = await api(s, 'DELETE', `/networks/${networkId}/validators/votes/${candidate}`);
  assert.is(d.status, 200, d.text);
  assert.ok(d.json.nodes.every((n: { discarded: boolean }) => n.discarded));
  for (const n of validatorNodes) assert.equal(await rpc(n.endpoints.rpc_http, 'qbft_getPendingVotes'), {});
});

test('a vote that would remove a validator who is not one, or leave too few, is a 400 and no vote is cast', async () => {
  const notOne = await api(s, 'POST', `/networks/${networkId}/validators/votes`, { address: '0x' + 'cd'.repeat(20), add: false });
  assert.is(notOne.status, 400, notOne.text);
  assert.match(notOne.text, 'is not a validator');
  const two = await api(s, 'POST', '/networks/evm', { name: 'besu-two', client: 'besu', validatorCount: 2, genesis: { chain_id: 43113, consensus: 'QBFT' } });
  assert.is(two.status, 201, two.text);
  const start = await api(s, 'POST', `/networks/${two.json.id}/start`);
  assert.equal(start.json.nodes.map((n: { status: string }) => n.status), ['running', 'running'], start.text);
  const r = await api(s, 'POST', `/networks/${two.json.id}/validators/votes`, { address: two.json.validators[0].address, add: false });
  assert.is(r.status, 400, r.text);
  assert.is(r.json.code, 'VALIDATOR_QUORUM');
  assert.match(r.json.message, 'fewer than 2 validators produce no blocks');
  for (const n of start.json.nodes) assert.equal(await rpc(n.endpoints.rpc_http, 'qbft_getPendingVotes'), {}, 'nothing was cast');
  for (const n of start.json.nodes) await api(s, 'POST', `/nodes/${n.id}/stop`);
});

test('the network map shows the wiring the nodes were started with: without a bootnode every validator seeds from the others', async () => {
  const m = (await api(s, 'GET', `/networks/evm/${networkId}/map`)).json;
  assert.is(m.nodes.length, 4);
  for (const n of validatorNodes) {
    const to = m.links.filter((l: { from: number }) => l.from === n.id).map((l: { to: number; kind: string }) => `${l.to}:${l.kind}`).sort();
    assert.equal(to, validatorNodes.filter((o) => o.id !== n.id).map((o) => `${o.id}:static-peer`).sort());
  }
});

test('a bootnode added to the network listens on P2P only and is reached by the validators', async () => {
  const r = await api(s, 'POST', `/networks/${networkId}/nodes`, { name: 'besu-qbft-boot-1', type: 'bootnode' });
  assert.is(r.status, 201, r.text);
  assert.is(r.json.status, 'running', r.text);
  assert.is(r.json.role, 'bootnode');
  assert.is(r.json.endpoints.rpc_http, null);
  assert.match(r.json.enode, /^enode:\/\/[0-9a-f]{128}@127\.0\.0\.1:\d+$/);
  bootnodeId = r.json.id;
  const m = (await api(s, 'GET', `/networks/evm/${networkId}/map`)).json;
  assert.equal(m.links.filter((l: { to: number }) => l.to === bootnodeId).map((l: { from: number; kind: string }) => `${l.from}:${l.kind}`).sort(), validatorNodes.map((n) => `${n.id}:bootnode`).sort(), 'every validator now seeds from the bootnode');
  const bootId = r.json.enode.slice('enode://'.length, 'enode://'.length + 128);
  await until('a validator peered with the bootnode', async () => {
    for (const n of validatorNodes) {
      const peers = await rpc<Array<{ id: string }>>(n.endpoints.rpc_http, 'admin_peers');
      if (peers.some((p) => p.id.replace(/^0x/, '') === bootId)) return true;
    }
    return false;
  });
});

test('a full node made with POST /nodes (EVM_FULLNODE) starts on its own ports, finds its peers through the bootnode and serves metrics', async () => {
  const r = await api(s, 'POST', '/nodes', { name: 'besu-qbft-full-1', platform: 'EVM', nodeType: 'EVM_FULLNODE', networkId, config: {} });
  assert.is(r.status, 201, r.text);
  assert.equal({ role: r.json.role, status: r.json.status, validator: r.json.validator_address }, { role: 'fullnode', status: 'running', validator: null }, r.text);
  const m = (await api(s, 'GET', `/networks/evm/${networkId}/map`)).json;
  assert.equal(m.links.filter((l: { from: number }) => l.from === r.json.id).map((l: { to: number }) => l.to), [bootnodeId], 'a full node seeds from the bootnode');
  await until('full node peers', async () => ((await api(s, 'GET', `/nodes/${r.json.id}`)).json.peer_count ?? 0) > 0);
  const metrics = await fetch(r.json.endpoints.metrics);
  assert.is(metrics.status, 200);
  assert.match(await metrics.text(), 'ethereum_peer_count');
  assert.is((await api(s, 'DELETE', `/nodes/${r.json.id}`)).status, 204);
});

test('the health monitor sees the bootnode, which has no JSON-RPC, as up through its P2P port', async () => {
  await until('a few health probes of the bootnode', async () => ((await api(s, 'GET', `/nodes/${bootnodeId}`)).json.uptime_seconds ?? 0) >= 4);
  const node = (await api(s, 'GET', `/nodes/${bootnodeId}`)).json;
  assert.is(node.status, 'running');
  const events = (await api(s, 'GET', `/nodes/${bootnodeId}/events?limit=100`)).json.items.map((e: { event: string }) => e.event);
  assert.not.ok(events.includes('node.downtime'), events.join(', '));
});

test('node logs show no key material', async () => {
  for (const id of [...validatorNodes.map((n) => n.id), bootnodeId]) {
    const key = readFileSync(path.join(s.dataDir, 'nodes', `node-${id}`, 'key'), 'utf8').trim().replace(/^0x/, '').toLowerCase();
    assert.match(key, /^[0-9a-f]{64}$/);
    const r = await api(s, 'GET', `/nodes/${id}/logs?tail=1000`);
    assert.is(r.status, 200, r.text);
    assert.ok(r.json.lines.length > 0, 'the node printed something');
    assert.not.ok(r.json.lines.join('\n').toLowerCase().includes(key), `node ${id} logs hold its key`);
  }
});

test('stopped nodes start again with the same enodes and find their peers (now through the bootnode)', async () => {
  const ids = [...validatorNodes.map((n) => n.id), bootnodeId];
  for (const id of ids) assert.is((await api(s, 'POST', `/nodes/${id}/stop`)).status < 300, true);
  for (const id of ids) await until(`node ${id} stopped`, async () => (await api(s, 'GET', `/nodes/${id}`)).json.status === 'stopped');
  const r = await api(s, 'POST', `/networks/${networkId}/start`);
  assert.is(r.status, 200, r.text);
  for (const n of r.json.nodes) assert.is(n.status, 'running', JSON.stringify(n));
  for (const n of validatorNodes) {
    const again = (await api(s, 'GET', `/nodes/${n.id}`)).json;
    assert.is(again.enode, n.enode);
    await until(`peers of node ${n.id} after the restart`, async () => ((await api(s, 'GET', `/nodes/${n.id}`)).json.peer_count ?? 0) > 0);
  }
});

test('a besu that exits at once gives a node that never reports running, with besu\'s reason', async () => {
  besu.refuseStarts(true);
  try {
    const r = await api(s, 'POST', `/networks/${networkId}/nodes`, { name: 'besu-qbft-boot-2', type: 'bootnode' });
    assert.is(r.status, 201, r.text);
    assert.is(r.json.status, 'error', r.text);
    assert.match(r.json.error, /Unknown option/);
    const events = (await api(s, 'GET', `/nodes/${r.json.id}/events?limit=100`)).json.items.map((e: { event: string }) => e.event);
    assert.not.ok(events.includes('node.started'), events.join(', '));
  } finally {
    besu.refuseStarts(false);
  }
});

test('a PoW network on besu gets a miner: its node mines with the miner key\'s address as coinbase, and that key is a /keys key', async () => {
  const r = await api(s, 'POST', '/networks/evm', { name: 'besu-pow', client: 'besu', genesis: { chain_id: 43111, consensus: 'PoW' } });
  assert.is(r.status, 201, r.text);
  assert.is(r.json.validators.length, 1);
  const miner = r.json.validators[0];
  assert.is((await api(s, 'GET', `/keys/${miner.key_id}`)).json.ethereumAddress, miner.address);
  const start = await api(s, 'POST', `/networks/${r.json.id}/start`);
  assert.is(start.status, 200, start.text);
  const node = start.json.nodes[0];
  assert.is(node.status, 'running', JSON.stringify(node));
  const toml = readFileSync(path.join(s.dataDir, 'nodes', `node-${node.id}`, 'config.toml'), 'utf8');
  assert.match(toml, 'miner-enabled=true');
  assert.match(toml.toLowerCase(), `miner-coinbase="${miner.address.toLowerCase()}"`);
  const v = (await api(s, 'GET', `/networks/${r.json.id}/validators`)).json;
  assert.equal({ source: v.source, voting: v.voting, addresses: v.validators.map((x: { address: string }) => x.address) }, { source: 'genesis', voting: false, addresses: [miner.address] });
  for (const n of start.json.nodes) await api(s, 'POST', `/nodes/${n.id}/stop`);
});

test('a Clique network on besu: its signers come from the chain (clique_getSigners), voted on through clique_propose', async () => {
  const r = await api(s, 'POST', '/networks/evm', { name: 'besu-clique', client: 'besu', validatorCount: 2, genesis: { chain_id: 43112, consensus: 'Clique', block_time: 2 } });
  assert.is(r.status, 201, r.text);
  const start = await api(s, 'POST', `/networks/${r.json.id}/start`);
  assert.is(start.status, 200, start.text);
  assert.equal(start.json.nodes.map((n: { status: string }) => n.status), ['running', 'running'], start.text);
  const v = (await api(s, 'GET', `/networks/${r.json.id}/validators`)).json;
  assert.is(v.source, 'chain');
  assert.is(v.voting, true);
  assert.equal(v.validators.map((x: { address: string }) => x.address).sort(), r.json.validators.map((x: { address: string }) => x.address).sort());
  for (const n of start.json.nodes) await api(s, 'POST', `/nodes/${n.id}/stop`);
});

requires(test, 'besu', realBesu() ? undefined : 'no real besu on PATH (block production needs one; the stand-in never produces blocks)')('a real besu produces blocks', async () => {
  await until('block_height > 0', async () => ((await api(s, 'GET', `/nodes/${validatorNodes[0].id}`)).json.block_height ?? 0) > 0, 120_000);
  const network = (await api(s, 'GET', `/networks/evm/${networkId}`)).json;
  const block0 = await rpc<{ hash: string }>(validatorNodes[0].endpoints.rpc_http, 'eth_getBlockByNumber', ['0x0', false]);
  assert.is(block0.hash, network.genesis_block_hash);
});

test.run();
