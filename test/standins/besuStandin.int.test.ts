// The besu stand-in refuses what besu refuses and counts only peers that prove their node id.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Wallet } from 'ethers';
import { createEvmGenesis } from '../../domain/evm/evmGenesis.ts';
import { freePort } from '../../adapters/postgres/embeddedPostgres.ts';
import { installBesu } from './besuStandinInstall.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'lnm-besu-standin-'));
const besu = installBesu();
const bin = path.join(besu.binDir, 'besu');
const children: ChildProcess[] = [];
const wallets = [Wallet.createRandom(), Wallet.createRandom()];
const { file } = createEvmGenesis({ chain_id: 777, consensus: 'QBFT', block_time: 2, validators: wallets.map((w) => w.address) });
writeFileSync(path.join(dir, 'genesis.json'), JSON.stringify(file));

test.after(() => {
  for (const c of children) c.kill('SIGKILL');
  besu.remove();
  rmSync(dir, { recursive: true, force: true });
});

function run(args: string[]): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (b: Buffer) => (out += b));
  child.stderr!.on('data', (b: Buffer) => (out += b));
  return { child, output: () => out, exited: new Promise((r) => child.once('exit', (code) => r(code))) };
}

async function until(what: string, probe: () => Promise<boolean> | boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function config(name: string, lines: string[]): string {
  const f = path.join(dir, `${name}.toml`);
  writeFileSync(f, lines.join('\n') + '\n');
  return f;
}

async function rpc(port: number, method: string): Promise<any> {
  const r = await fetch(`http://127.0.0.1:${port}`, { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [] }) });
  return (await r.json()) as any;
}

test('an option besu does not have is refused on the command line, like besu', async () => {
  const p = run(['--genesis-file', path.join(dir, 'genesis.json'), '--rpc-http-enabeld=true']);
  assert.is(await p.exited, 2);
  assert.match(p.output(), "Unknown option: '--rpc-http-enabeld=true'");
});

test('an unknown key in the TOML config file is refused, like besu', async () => {
  const p = run([`--config-file=${config('bad-key', [`genesis-file="${path.join(dir, 'genesis.json')}"`, 'rpc-http-portt=8545'])}`]);
  assert.is(await p.exited, 1);
  assert.match(p.output(), 'Unknown options in TOML configuration file: rpc-http-portt');
});

test('a genesis without a consensus section or a malformed node key is refused', async () => {
  writeFileSync(path.join(dir, 'no-consensus.json'), JSON.stringify({ ...file, config: { chainId: 777 } }));
  const p1 = run([`--genesis-file=${path.join(dir, 'no-consensus.json')}`, `--data-path=${path.join(dir, 'd1')}`]);
  assert.is(await p1.exited, 1);
  assert.match(p1.output(), 'expected one of config.qbft');
  writeFileSync(path.join(dir, 'short-key'), '0x1234');
  const p2 = run([`--genesis-file=${path.join(dir, 'genesis.json')}`, `--node-private-key-file=${path.join(dir, 'short-key')}`, `--data-path=${path.join(dir, 'd2')}`]);
  assert.is(await p2.exited, 1);
  assert.match(p2.output(), 'does not contain valid keyPair');
});

test('a bootnode whose enode names another node id is not counted as a peer; the right id is', async () => {
  const [pA, pB, pC, rB, rC] = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort()]);
  writeFileSync(path.join(dir, 'key-a'), wallets[0].privateKey);
  writeFileSync(path.join(dir, 'key-b'), wallets[1].privateKey);
  writeFileSync(path.join(dir, 'key-c'), Wallet.createRandom().privateKey);
  const common = (name: string, p2p: number) => [`genesis-file="${path.join(dir, 'genesis.json')}"`, `data-path="${path.join(dir, name)}"`, `node-private-key-file="${path.join(dir, `key-${name}`)}"`, `p2p-port=${p2p}`];
  run([`--config-file=${config('a', common('a', pA))}`]);
  const idOf = (w: { signingKey: { publicKey: string } }) => w.signingKey.publicKey.slice(4);
  // B is told A's address with a node id A does not hold.
  const wrong = `enode://${idOf(Wallet.createRandom())}@127.0.0.1:${pA}`;
  const b = run([`--config-file=${config('b', [...common('b', pB), `bootnodes=["${wrong}"]`, 'rpc-http-enabled=true', `rpc-http-port=${rB}`])}`]);
  await until('B refusing A', () => b.output().includes('node id mismatch'));
  assert.is((await rpc(rB, 'net_peerCount')).result, '0x0');
  const right = `enode://${idOf(wallets[0])}@127.0.0.1:${pA}`;
  run([`--config-file=${config('c', [...common('c', pC), `bootnodes=["${right}"]`, 'rpc-http-enabled=true', `rpc-http-port=${rC}`])}`]);
  await until('C peered with A', async () => (await rpc(rC, 'net_peerCount').catch(() => ({}))).result === '0x1');
});

test('JSON-RPC answers chain id and block 0, decodes validators from extraData, and never serves a block', async () => {
  const [p2p, port] = await Promise.all([freePort(), freePort()]);
  writeFileSync(path.join(dir, 'key-r'), wallets[0].privateKey);
  run([`--config-file=${config('r', [`genesis-file="${path.join(dir, 'genesis.json')}"`, `data-path="${path.join(dir, 'r')}"`, `node-private-key-file="${path.join(dir, 'key-r')}"`, `p2p-port=${p2p}`, 'rpc-http-enabled=true', `rpc-http-port=${port}`, 'rpc-http-api=["ETH","NET","QBFT"]'])}`]);
  await until('RPC up', async () => (await rpc(port, 'eth_chainId').catch(() => null)) !== null);
  assert.is((await rpc(port, 'eth_chainId')).result, '0x309');
  assert.is((await rpc(port, 'eth_blockNumber')).result, '0x0');
  const r = await fetch(`http://127.0.0.1:${port}`, { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'qbft_getValidatorsByBlockNumber', params: ['latest'] }) });
  const validators = ((await r.json()) as { result: string[] }).result;
  assert.equal(validators.sort(), wallets.map((w) => w.address.toLowerCase()).sort());
  const block = await fetch(`http://127.0.0.1:${port}`, { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getBlockByNumber', params: ['0x0', false] }) });
  assert.ok(((await block.json()) as { error?: unknown }).error);
  assert.is((await rpc(port, 'admin_nodeInfo')).error.message, 'Method not enabled');
});

test.run();
