// A Clique network on real geth 1.13 (issue 38), made and run through the real server: `auto`
// picks geth for Clique; three sealers started by POST /networks/{id}/start peer with each other
// and every node has the blocks, each sealer sealing some (clique_getSigner); the keystore
// password is a 0600 file, on no command line and in no answer; a fourth signer is voted in
// through the validator vote routes (clique_propose on every sealer, the majority rule said in
// the answer) and voted out again; a full node added later follows the chain; a contract is deployed and invoked, and the explorer answers
// what the node's own JSON-RPC answers for the same block and transaction. Skipped, saying why,
// where geth is not found (LNM_GETH_BIN, else PATH).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { Wallet } from 'ethers';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { requires } from '../../helpers/requirements.ts';
import { gethMissing, gethServiceEnv } from '../../helpers/programs.ts';
import { api, killLeftoverNodes, until } from './evmLifecycle.ts';
import { COUNTER_ABI, COUNTER_BYTECODE } from './counterContract.ts';
import { GETH_METRICS_PATH } from '../../../domain/evm/evmClient.ts';

const it = requires(test, 'geth', gethMissing);
let s: TestServer;
const net = { id: 0, nodes: [] as Array<{ id: number; rpc: string; signer: string }> };

async function rpc<T = any>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = (await r.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}
const height = async (url: string) => Number(await rpc<string>(url, 'eth_blockNumber'));
const signers = async (url: string) => (await rpc<string[]>(url, 'clique_getSigners', ['latest'])).map((a) => a.toLowerCase());

it.before(async () => {
  s = await startServer({ env: gethServiceEnv() });
  let r = await api(s, 'POST', '/networks', { name: 'clique-geth', type: 'evm', validatorCount: 3, genesis: { chain_id: 43800, consensus: 'CLIQUE', block_time: 1 } });
  assert.is(r.status, 201, r.text);
  assert.is(r.json.client, 'geth', 'auto picks geth for Clique');
  net.id = r.json.id;
  r = await api(s, 'POST', `/networks/${net.id}/start`);
  assert.is(r.status, 200, r.text);
  for (const n of r.json.nodes as Array<{ id: number }>) {
    const v = await api(s, 'GET', `/nodes/${n.id}`);
    assert.is(v.json.status, 'running', v.text);
    net.nodes.push({ id: n.id, rpc: v.json.endpoints.rpc_http, signer: String(v.json.validator_address).toLowerCase() });
  }
});

it.after(async () => {
  await s?.stop();
  if (s) killLeftoverNodes(s.dataDir);
});

it('three sealers peer, every node has the blocks, and each sealer seals', async () => {
  assert.is(net.nodes.length, 3);
  for (const n of net.nodes) await until(`node ${n.id} at block 8`, async () => (await height(n.rpc)) >= 8, 90_000);
  for (const n of net.nodes) assert.ok(Number(await rpc<string>(n.rpc, 'net_peerCount')) >= 2, `node ${n.id} peers with the other two`);
  // Two of three signers can keep a Clique chain going alone (each may seal one block in two), so
  // a sealer that peered last may seal its first block a little later: read on until all three did.
  const sealers = new Set<string>();
  let scanned = 0;
  await until('a block sealed by each of the three sealers', async () => {
    const top = await height(net.nodes[0].rpc);
    for (; scanned < top; scanned++) sealers.add((await rpc<string>(net.nodes[0].rpc, 'clique_getSigner', ['0x' + (scanned + 1).toString(16)])).toLowerCase());
    return sealers.size === 3;
  }, 120_000);
  assert.equal([...sealers].sort(), net.nodes.map((n) => n.signer).sort(), `blocks 1..${scanned} sealed by each of the three`);
  const top = Math.min(...(await Promise.all(net.nodes.map((n) => height(n.rpc)))));
  const hashes = await Promise.all(net.nodes.map(async (n) => (await rpc<{ hash: string }>(n.rpc, 'eth_getBlockByNumber', ['0x' + top.toString(16), false])).hash));
  assert.is(new Set(hashes).size, 1, 'one chain');
  const v = await api(s, 'GET', `/nodes/${net.nodes[0].id}`);
  assert.ok(v.json.endpoints.metrics.endsWith(GETH_METRICS_PATH), v.json.endpoints.metrics);
  const metrics = await fetch(v.json.endpoints.metrics);
  assert.is(metrics.status, 200);
  assert.match(await metrics.text(), /^chain_head_block /m, 'geth serves Prometheus metrics where the metrics stack scrapes it');
  assert.match(v.json.enode, /^enode:\/\/[0-9a-f]{128}@127\.0\.0\.1:\d+$/);
  const listed = (await api(s, 'GET', `/networks/${net.id}/validators`)).json;
  assert.is(listed.source, 'chain');
  assert.is(listed.voting, true);
  assert.equal(listed.validators.map((x: { address: string }) => x.address.toLowerCase()).sort(), net.nodes.map((n) => n.signer).sort());
});

it('the sealer keystore password is a 0600 file, on no command line and in no answer', async () => {
  const dirs = readdirSync(path.join(s.dataDir, 'nodes')).map((d) => path.join(s.dataDir, 'nodes', d)).filter((d) => readdirSync(d).includes('password'));
  assert.is(dirs.length, 3, 'each sealer has a password file');
  for (const d of dirs) {
    const password = readFileSync(path.join(d, 'password'), 'utf8');
    assert.is(statSync(path.join(d, 'password')).mode & 0o777, 0o600);
    assert.is(statSync(path.join(d, 'keystore', 'sealer.json')).mode & 0o777, 0o600);
    const pid = JSON.parse(readFileSync(path.join(d, 'node.pid.json'), 'utf8')).pid;
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    assert.ok(cmdline.includes('--password') && !cmdline.includes(password), 'geth reads the password from its file');
    const view = await api(s, 'GET', `/networks/evm/${net.id}/nodes`);
    assert.not.ok(view.text.includes(password));
    const logs = await api(s, 'GET', `/nodes/${net.nodes[0].id}/logs?tail=500`);
    assert.not.ok(logs.text.includes(password));
  }
});

it('a fourth signer is voted in by the majority, then voted out', async () => {
  const fourth = Wallet.createRandom().address;
  let r = await api(s, 'POST', `/networks/${net.id}/validators/votes`, { address: fourth, add: true });
  assert.is(r.status, 200, r.text);
  assert.is(r.json.validators_now, 3);
  assert.is(r.json.votes_needed, 2);
  assert.is(r.json.votes_cast, 3);
  assert.ok(r.json.passes, r.text);
  assert.match(r.json.rule, /more than half of the 3 signers \(2\)/);
  r = await api(s, 'GET', `/networks/${net.id}/validators/votes`);
  assert.is(r.status, 200, r.text);
  assert.ok(r.json.nodes.every((n: { votes: Record<string, boolean> }) => n.votes[fourth] === true), r.text);
  await until('the fourth signer voted in', async () => (await signers(net.nodes[1].rpc)).includes(fourth.toLowerCase()), 60_000);
  for (const n of net.nodes) await until(`node ${n.id} sees four signers`, async () => (await signers(n.rpc)).length === 4, 30_000);

  r = await api(s, 'POST', `/networks/${net.id}/validators/votes`, { address: fourth, add: false });
  assert.is(r.status, 200, r.text);
  assert.is(r.json.validators_now, 4);
  assert.is(r.json.votes_needed, 3);
  assert.is(r.json.votes_cast, 3);
  await until('the fourth signer voted out', async () => !(await signers(net.nodes[2].rpc)).includes(fourth.toLowerCase()), 60_000);
  assert.equal((await signers(net.nodes[0].rpc)).sort(), net.nodes.map((n) => n.signer).sort());
  const before = await height(net.nodes[0].rpc);
  await until('blocks go on with three signers', async () => (await height(net.nodes[0].rpc)) >= before + 3, 30_000);

  r = await api(s, 'POST', `/networks/${net.id}/validators/votes`, { address: net.nodes[0].signer, add: true });
  assert.is(r.status, 400, 'already a signer');
  r = await api(s, 'DELETE', `/networks/${net.id}/validators/votes/${fourth}`);
  assert.is(r.status, 200, r.text);
});

it('a full node added to the running network peers with the sealers and follows the chain', async () => {
  const r = await api(s, 'POST', '/nodes', { name: 'clique-geth-full', platform: 'EVM', nodeType: 'EVM_FULLNODE', networkId: net.id, config: {} });
  assert.is(r.status, 201, r.text);
  assert.is(r.json.client, 'geth');
  assert.equal({ role: r.json.role, status: r.json.status }, { role: 'fullnode', status: 'running' }, r.text);
  const url = r.json.endpoints.rpc_http as string;
  const target = await height(net.nodes[0].rpc);
  await until('the full node at the sealers\' height', async () => (await height(url)) >= target, 60_000);
  assert.ok(Number(await rpc<string>(url, 'net_peerCount')) >= 1, 'it peers');
  const b = '0x' + target.toString(16);
  assert.is((await rpc<{ hash: string }>(url, 'eth_getBlockByNumber', [b, false])).hash, (await rpc<{ hash: string }>(net.nodes[0].rpc, 'eth_getBlockByNumber', [b, false])).hash);
  assert.is(await rpc<boolean>(url, 'eth_mining').catch(() => false), false, 'a full node does not seal');
  await until('its health seen by the service', async () => ((await api(s, 'GET', `/nodes/${r.json.id}`)).json.block_height ?? 0) >= target, 30_000);
});

it('a contract deployed and invoked; the explorer answers what the node answers', async () => {
  let r = await api(s, 'POST', '/sc/evm/deploy', { networkId: net.id, name: 'counter', bytecode: COUNTER_BYTECODE, abi: COUNTER_ABI });
  assert.is(r.status, 200, r.text);
  const contractId = r.json.contract_id;
  r = await api(s, 'POST', `/sc/evm/contracts/${contractId}/invoke`, { function: 'set', args: ['4242'] });
  assert.is(r.status, 200, r.text);
  const tx = r.json.transaction_hash as string;
  const block = r.json.block_number as number;
  r = await api(s, 'POST', `/sc/evm/contracts/${contractId}/query`, { function: 'get' });
  assert.is(r.status, 200, r.text);
  assert.equal(r.json.result, ['4242']);

  const node = net.nodes[2].rpc;
  r = await api(s, 'GET', `/networks/evm/${net.id}/blocks/${block}`);
  assert.is(r.status, 200, r.text);
  const b = await rpc<Record<string, any>>(node, 'eth_getBlockByNumber', ['0x' + block.toString(16), false]);
  assert.is(r.json.hash, b.hash);
  assert.is(r.json.parent_hash, b.parentHash);
  assert.is(r.json.number, Number(b.number));
  assert.is(r.json.state_root, b.stateRoot);
  assert.is(r.json.gas_used, BigInt(b.gasUsed).toString());
  assert.is(r.json.timestamp, new Date(Number(b.timestamp) * 1000).toISOString());
  assert.equal(r.json.transactions.map((x: { hash: string }) => x.hash), b.transactions);
  assert.ok(b.transactions.includes(tx), 'the block holds the invoke');
  assert.is(r.json.miner, b.miner, 'the miner field as the node has it (a Clique vote target)');
  assert.is(r.json.sealer.toLowerCase(), (await rpc<string>(node, 'clique_getSigner', [b.hash])).toLowerCase(), 'the sealer recovered from the seal is clique_getSigner\'s');
  const list = await api(s, 'GET', `/networks/evm/${net.id}/blocks?limit=6&offset=0`);
  assert.is(list.status, 200, list.text);
  for (const item of list.json.items as Array<{ hash: string; sealer: string }>) assert.is(item.sealer.toLowerCase(), (await rpc<string>(node, 'clique_getSigner', [item.hash])).toLowerCase());
  assert.is((await api(s, 'GET', `/networks/evm/${net.id}/blocks/0`)).json.sealer, null, 'block 0 has no seal');
  r = await api(s, 'GET', `/networks/evm/${net.id}/transactions/${tx}`);
  assert.is(r.status, 200, r.text);
  const [t, receipt] = await Promise.all([rpc<Record<string, any>>(node, 'eth_getTransactionByHash', [tx]), rpc<Record<string, any>>(node, 'eth_getTransactionReceipt', [tx])]);
  assert.is(r.json.hash, t.hash);
  assert.is(r.json.status, 'success');
  assert.is(r.json.block_hash, receipt.blockHash);
  assert.is(r.json.from.toLowerCase(), t.from.toLowerCase());
});

test.run();
