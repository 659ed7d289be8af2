// When geth sealers start sealing under their keys (adapters/evm/gethSealing.ts), on real geth
// 1.13: a sealer of a three-signer Clique network started alone seals nothing (before, it sealed
// a block 1 of its own at once, as each sealer of a network being started did: the block-1
// fork); it mines as a standby account that is no signer. A second sealer added: the two peer,
// are switched to their keys and seal one chain from genesis, each in turn. A third added to the
// chain already going reaches its head and seals on the same chain. Process engine; skipped,
// saying why, where geth is not found (LNM_GETH_BIN, else PATH).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { requires } from '../../helpers/requirements.ts';
import { gethMissing, gethServiceEnv } from '../../helpers/programs.ts';
import { api, killLeftoverNodes, sleep, until } from './evmLifecycle.ts';

const it = requires(test, 'geth', gethMissing);
let s: TestServer;
let networkId = 0;
const sealers: Array<{ id: number; rpc: string; signer: string }> = [];

async function rpc<T = any>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = (await r.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}
const height = async (url: string) => Number(await rpc<string>(url, 'eth_blockNumber'));
const hashAt = async (url: string, n: number) => (await rpc<{ hash: string }>(url, 'eth_getBlockByNumber', ['0x' + n.toString(16), false])).hash;
const sealsAsItself = async (n: { rpc: string; signer: string }) => (await rpc<boolean>(n.rpc, 'eth_mining')) && (await rpc<string>(n.rpc, 'eth_coinbase')).toLowerCase() === n.signer;

async function addSealer(name: string) {
  const r = await api(s, 'POST', `/networks/${networkId}/nodes`, { name, type: 'validator' });
  assert.is(r.status, 201, r.text);
  const v = await until(`${name} running`, async () => {
    const got = (await api(s, 'GET', `/nodes/${r.json.id}`)).json;
    return got.status === 'running' ? got : null;
  }, 60_000);
  const sealer = { id: v.id as number, rpc: v.endpoints.rpc_http as string, signer: String(v.validator_address).toLowerCase() };
  sealers.push(sealer);
  return sealer;
}

it.before(async () => {
  s = await startServer({ env: gethServiceEnv() });
  const r = await api(s, 'POST', '/networks', { name: 'clique-sealing', type: 'evm', validatorCount: 3, genesis: { chain_id: 43830, consensus: 'CLIQUE', block_time: 1 } });
  assert.is(r.status, 201, r.text);
  assert.is(r.json.client, 'geth');
  networkId = r.json.id;
});

it.after(async () => {
  await s?.stop();
  if (s) killLeftoverNodes(s.dataDir);
});

it('a sealer started alone seals nothing: it mines as a standby account that is no signer', async () => {
  const a = await addSealer('sealer-a');
  // Clique's period (1 s) and the out-of-turn wiggle (at most 1 s with three signers) pass several
  // times over: with --mine under its key, a lone sealer sealed its own block 1 in this time.
  await sleep(5000);
  assert.is(await height(a.rpc), 0, 'no block sealed alone');
  assert.not.ok(await sealsAsItself(a), 'not sealing under its key');
  assert.is(await rpc<boolean>(a.rpc, 'eth_mining'), true, 'mining (so geth imports the blocks it is sent) as the standby');
});

it('a second sealer: the two peer, seal under their keys, one chain from genesis, each in turn', async () => {
  const b = await addSealer('sealer-b');
  const [a] = sealers;
  for (const n of [a, b]) await until(`node ${n.id} seals under its key`, () => sealsAsItself(n), 60_000);
  for (const n of [a, b]) await until(`node ${n.id} at block 4`, async () => (await height(n.rpc)) >= 4, 60_000);
  const signers = new Set<string>();
  for (let n = 1; n <= 4; n++) signers.add((await rpc<string>(a.rpc, 'clique_getSigner', ['0x' + n.toString(16)])).toLowerCase());
  assert.equal([...signers].sort(), [a.signer, b.signer].sort(), 'blocks 1..4 sealed by both');
  assert.is(await hashAt(a.rpc, 1), await hashAt(b.rpc, 1), 'one block 1');
});

it('a third sealer joining the chain already going reaches its head and seals on the same chain', async () => {
  const c = await addSealer('sealer-c');
  const [a] = sealers;
  const target = await height(a.rpc);
  await until(`node ${c.id} at block ${target}`, async () => (await height(c.rpc)) >= target, 60_000);
  await until(`node ${c.id} seals under its key`, () => sealsAsItself(c), 60_000);
  let scanned = target;
  await until('a block sealed by the third sealer', async () => {
    const top = await height(a.rpc);
    for (; scanned < top; scanned++) if ((await rpc<string>(a.rpc, 'clique_getSigner', ['0x' + (scanned + 1).toString(16)])).toLowerCase() === c.signer) return true;
    return false;
  }, 60_000);
  const top = Math.min(...(await Promise.all(sealers.map((n) => height(n.rpc)))));
  for (const n of [1, top]) assert.is(new Set(await Promise.all(sealers.map((x) => hashAt(x.rpc, n)))).size, 1, `one block ${n} on the three`);
});

it.run();
