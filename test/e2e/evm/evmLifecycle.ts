// The lifecycle of a one-validator evm network through the API, run by the process-engine and
// the docker-engine e2e tests alike: create, start, blocks at the genesis block time, deploy
// and call a contract, logs (tail and WebSocket), stop, start, a kill from outside seen as
// node.downtime, node.recovery after a restart, delete.
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Contract, JsonRpcProvider } from 'ethers';
import WebSocket from 'ws';
import { call, adminAuth, type TestServer } from '../../helpers/server.ts';
import { COUNTER_ABI, COUNTER_BYTECODE } from './counterContract.ts';

// Hand-assembled: the constructor stores its uint256 argument in slot 0; the runtime returns
// slot 0 for any call, so get() answers the stored value.
const RUNTIME = '600054600052602060' + '00f3';
const CONSTRUCTOR = '6020' + '60203803' + '6000' + '39' + '600051600055' + '600b601b600039' + '600b6000f3';
export const STORE_BYTECODE = '0x' + CONSTRUCTOR + RUNTIME;
export const STORE_ABI = ['constructor(uint256 v)', 'function get() view returns (uint256)'];

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function until<T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(250);
  }
}

export async function api(s: TestServer, method: string, p: string, body?: unknown) {
  return call(s.api, method, p, { headers: adminAuth(), body });
}

/** A running one-validator anvil-backed evm network (IBFT 2.0 genesis, 1 s blocks) with the counter contract deployed through the service. */
export interface CounterNetwork {
  id: number;
  nodeId: number;
  rpcUrl: string;
  contractId: number;
  address: string;
  deployer: string;
  deployTx: string;
}

/** Creates network `name` (chain id `chainId`) and its validator `<name>-validator`, starts it and deploys the counter contract. */
export async function startCounterNetwork(s: TestServer, name: string, chainId: number): Promise<CounterNetwork> {
  let r = await api(s, 'POST', '/networks', { name, type: 'evm', genesis: { chain_id: chainId, consensus: 'IBFT_2', block_time: 1, gas_limit: '0x1C9C380', validators: [], accounts: {} } });
  assert.is(r.status, 201, r.text);
  const id = r.json.id as number;
  r = await api(s, 'POST', `/networks/${id}/nodes`, { name: `${name}-validator`, type: 'validator' });
  assert.is(r.status, 201, r.text);
  const nodeId = r.json.id as number;
  r = await api(s, 'POST', `/nodes/${nodeId}/start`);
  assert.is(r.json.status, 'running', r.text);
  const rpcUrl = r.json.endpoints.rpc_http as string;
  r = await api(s, 'POST', '/sc/evm/deploy', { networkId: id, name: 'counter', bytecode: COUNTER_BYTECODE, abi: COUNTER_ABI });
  assert.is(r.status, 200, r.text);
  return { id, nodeId, rpcUrl, contractId: r.json.contract_id, address: r.json.address, deployer: r.json.from, deployTx: r.json.transaction_hash };
}

async function events(s: TestServer, nodeId: number): Promise<Array<{ event: string; data: Record<string, unknown> }>> {
  const r = await api(s, 'GET', `/nodes/${nodeId}/events?limit=500`);
  return r.json.items;
}

export interface LifecycleOptions {
  engine: 'process' | 'docker';
  name: string;
  chainId: number;
  /** Kills the node's process or container from outside the service. */
  killNode(s: TestServer, nodeId: number): Promise<void>;
  /** Whether the node's process or container is gone. */
  nodeGone(s: TestServer, nodeId: number): Promise<boolean>;
}

export async function runEvmLifecycle(s: TestServer, o: LifecycleOptions): Promise<void> {
  // Health checks every second, down after two failed probes.
  let r = await api(s, 'POST', '/settings', { nodeHealthCheckIntervalSeconds: 1, nodeDowntimeThreshold: 2 });
  assert.is(r.status, 200, r.text);

  r = await api(s, 'POST', '/networks', {
    name: o.name, type: 'evm', engine: o.engine, validatorBalance: '1000000000000000000000',
    genesis: { chain_id: o.chainId, consensus: 'QBFT', block_time: 1 },
  });
  assert.is(r.status, 201, r.text);
  const network = r.json;
  assert.is(network.status, 'created');
  assert.is(network.type, 'evm');
  assert.is(network.chain_id, o.chainId);
  assert.is(network.client, 'anvil');
  assert.is(network.engine, o.engine);
  assert.match(network.genesis_block_hash, /^0x[0-9a-f]{64}$/);
  assert.ok(network.created_at);
  assert.is(network.validators.length, 1);
  assert.ok(network.validators[0].key_held);

  r = await api(s, 'POST', `/networks/${network.id}/start`);
  assert.is(r.status, 200, r.text);
  assert.is(r.json.nodes.length, 1);
  const node = r.json.nodes[0];
  assert.is(node.status, 'running', JSON.stringify(node));
  assert.is(node.engine, o.engine);
  assert.is(node.role, 'validator');
  assert.is(node.validator_address, network.validators[0].address);
  assert.is((await api(s, 'GET', `/networks/evm/${network.id}`)).json.status, 'running');

  const rpc = new JsonRpcProvider(node.endpoints.rpc_http, o.chainId, { staticNetwork: true });
  try {
    // genesis_block_hash is the hash of block 0 as the running node reports it.
    assert.is((await rpc.getBlock(0))!.hash, network.genesis_block_hash);

    // block_height grows, one block per genesis block_time (1 s), read from the node's timestamps.
    const first = (await api(s, 'GET', `/nodes/${node.id}`)).json;
    assert.type(first.block_height, 'number');
    assert.type(first.peer_count, 'number');
    assert.type(first.uptime_seconds, 'number');
    const later = await until('block_height to grow by 3', async () => {
      const n = (await api(s, 'GET', `/nodes/${node.id}`)).json;
      return n.block_height >= first.block_height + 3 ? n : null;
    });
    // The node mines on the 1 s interval: no two blocks closer than that, and at least one pair of the last
    // three exactly 1 s apart (a 2 s block time could not give that; a loaded machine can delay a tick).
    const recent = await Promise.all([3, 2, 1, 0].map((back) => rpc.getBlock(later.block_height - back)));
    const gaps = recent.slice(1).map((blk, i) => blk!.timestamp - recent[i]!.timestamp);
    assert.ok(gaps.every((g) => g >= 1), `block gaps ${gaps}`);
    assert.is(Math.min(...gaps), 1, `block gaps ${gaps}`);

    // Deploy with constructor arguments, signed by the validator key in the key provider.
    r = await api(s, 'POST', '/sc/evm/deploy', { networkId: network.id, bytecode: STORE_BYTECODE, abi: STORE_ABI, args: ['424242'] });
    assert.is(r.status, 200, r.text);
    assert.match(r.json.address, /^0x[0-9a-fA-F]{40}$/);
    assert.match(r.json.transaction_hash, /^0x[0-9a-f]{64}$/);
    assert.type(r.json.block_number, 'number');
    assert.is(r.json.from, network.validators[0].address);
    const receipt = await rpc.getTransactionReceipt(r.json.transaction_hash);
    assert.is(receipt!.contractAddress, r.json.address);
    assert.is(receipt!.blockNumber, r.json.block_number);
    const store = new Contract(r.json.address, STORE_ABI, rpc);
    assert.is(await store.get(), 424242n);

    // Logs: the last lines, and a live follow over WebSocket.
    r = await api(s, 'GET', `/nodes/${node.id}/logs?tail=5`);
    assert.is(r.status, 200, r.text);
    assert.ok(r.json.lines.length > 0 && r.json.lines.length <= 5, JSON.stringify(r.json));
    const wsUrl = `${s.api.replace('http', 'ws')}/nodes/${node.id}/logs`;
    const ws = new WebSocket(wsUrl, { headers: adminAuth() });
    const received: string[] = [];
    ws.on('message', (m) => received.push(m.toString()));
    await new Promise<void>((res, rej) => (ws.once('open', () => res()), ws.once('error', rej)));
    await api(s, 'POST', '/sc/evm/deploy', { networkId: network.id, bytecode: STORE_BYTECODE, abi: STORE_ABI, args: ['7'] });
    const txLine = await until('a followed log line about the transaction', async () => received.find((l) => /transaction|eth_sendRawTransaction/i.test(l)), 20_000);
    assert.ok(txLine);
    ws.close();
    const refused = await new Promise<number>((res) => {
      const anon = new WebSocket(wsUrl);
      anon.once('unexpected-response', (_req, resp) => res(resp.statusCode ?? 0));
      anon.once('open', () => res(101));
      anon.once('error', () => undefined);
    });
    assert.is(refused, 401);

    // Stop, then start again: the chain keeps its blocks and its block 0.
    r = await api(s, 'POST', `/nodes/${node.id}/stop`);
    assert.is(r.status, 200, r.text);
    assert.is(r.json.status, 'stopped');
    assert.ok(await o.nodeGone(s, node.id));
    assert.is((await api(s, 'GET', `/networks/evm/${network.id}`)).json.status, 'stopped');
    r = await api(s, 'POST', `/nodes/${node.id}/start`);
    assert.is(r.json.status, 'running', r.text);
    assert.is((await rpc.getBlock(0))!.hash, network.genesis_block_hash);
    assert.is(await store.get(), 424242n);

    // Killed from outside: node.downtime within seconds, node.recovery after a restart.
    await o.killNode(s, node.id);
    const down = await until('node.downtime', async () => (await events(s, node.id)).find((e) => e.event === 'node.downtime'), 30_000);
    assert.is(down.data.nodeId, node.id);
    assert.is(down.data.nodeName, node.name);
    assert.is(down.data.nodeType, 'EVM_FULLNODE');
    assert.type(down.data.lastHealthyAt, 'string');
    assert.type(down.data.consecutiveFailures, 'number');
    assert.is((await api(s, 'GET', `/nodes/${node.id}`)).json.status, 'down');
    assert.is((await api(s, 'GET', `/networks/evm/${network.id}`)).json.status, 'error');
    r = await api(s, 'POST', `/nodes/${node.id}/restart`);
    assert.is(r.json.status, 'running', r.text);
    await until('node.recovery', async () => (await events(s, node.id)).find((e) => e.event === 'node.recovery'), 30_000);
    const names = (await events(s, node.id)).map((e) => e.event);
    for (const n of ['node.created', 'node.started', 'node.stopped', 'node.downtime', 'node.recovery']) assert.ok(names.includes(n), `${n} in ${names.join(', ')}`);

    // The validators of an anvil chain: the genesis one, said plainly, no voting.
    r = await api(s, 'GET', `/networks/${network.id}/validators`);
    assert.is(r.json.voting, false);
    assert.equal(r.json.validators.map((v: { address: string }) => v.address), [network.validators[0].address]);
    assert.match(r.json.note, /anvil/);
  } finally {
    rpc.destroy();
  }

  r = await api(s, 'DELETE', `/networks/evm/${network.id}`);
  assert.is(r.status, 204, r.text);
  await until('the node to be removed', () => o.nodeGone(s, node.id), 30_000);
  assert.is((await api(s, 'GET', `/nodes/${node.id}`)).status, 404);
}

export function pidOf(s: TestServer, nodeId: number): number | null {
  try {
    return JSON.parse(readFileSync(path.join(s.dataDir, 'nodes', `node-${nodeId}`, 'node.pid.json'), 'utf8')).pid;
  } catch {
    return null;
  }
}

export function alive(pid: number | null): boolean {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    // A zombie counts as gone.
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** Ends every node process a test server left under its data directory (nodes outlive the service by design). */
export function killLeftoverNodes(dataDir: string): void {
  let dirs: string[] = [];
  try {
    dirs = readdirSync(path.join(dataDir, 'nodes'));
  } catch {
    return;
  }
  for (const d of dirs) {
    try {
      const pid = JSON.parse(readFileSync(path.join(dataDir, 'nodes', d, 'node.pid.json'), 'utf8')).pid as number;
      if (alive(pid)) process.kill(pid, 'SIGKILL');
    } catch {
      /* no pid file: not a process node, or never started */
    }
  }
}
