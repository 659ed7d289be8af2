import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SigningKey, Wallet, computeAddress, getBytes } from 'ethers';
import { parse as parseToml } from 'smol-toml';
import { createEvmGenesis, evmGenesisBlockHash } from '../../../domain/evm/evmGenesis.ts';
import { enodeUrl, parseEnodeUrl } from '../../../domain/evm/enode.ts';
import type { EvmNetworkCreatedData, EvmValidator } from '../../../domain/evm/evmNetwork.ts';
import type { EvmNodeCreatedData } from '../../../domain/evm/evmNode.ts';
import type { EvmNodeTarget } from '../../../domain/evm/evmPorts.ts';
import { NodeStartFailedError, type NodeLaunchSpec } from '../../../domain/nodes/nodeEngine.ts';
import { besuEnode, besuLaunchSpec, ensureNodeKey, parseBesuKeyFile, type BesuLaunchDeps } from '../../../adapters/evm/besuLaunch.ts';
import { createProcessEngine } from '../../../adapters/engines/processEngine.ts';

const dataDir = mkdtempSync(path.join(tmpdir(), 'lnm-besu-launch-'));
const wallets = Array.from({ length: 4 }, () => Wallet.createRandom());
const { file, settings } = createEvmGenesis({ chain_id: 2024, consensus: 'QBFT', block_time: 2, validators: wallets.map((w) => w.address) });
const validators: EvmValidator[] = wallets.map((w, i) => ({
  address: settings.validators[i],
  keyHandle: `handle-${i}`,
  keyProvider: 'DATABASE',
  providerId: 1,
  publicKeyPem: null,
}));
// The PEM is what the network record carries; an SPKI of the uncompressed point is enough here.
for (const [i, w] of wallets.entries()) {
  const point = Buffer.from(getBytes(w.signingKey.publicKey));
  const spki = Buffer.concat([Buffer.from('3056301006072a8648ce3d020106052b8104000a034200', 'hex'), point]);
  validators[i].publicKeyPem = `-----BEGIN PUBLIC KEY-----\n${spki.toString('base64')}\n-----END PUBLIC KEY-----\n`;
}
const network: EvmNetworkCreatedData = {
  networkId: 5, name: 'acme', description: null, client: 'besu', engine: 'process', settings, genesis: file,
  genesisBlockHash: evmGenesisBlockHash(file, 'besu'), validators, imported: false, at: '2026-01-01T00:00:00.000Z',
};
const node = (nodeId: number, role: EvmNodeCreatedData['role'], validator: number | null, p2pPort: number): EvmNodeCreatedData => ({
  nodeId, name: `n${nodeId}`, platform: 'EVM', nodeType: 'EVM_FULLNODE', role, networkId: 5, client: 'besu', engine: 'process',
  config: role === 'bootnode'
    ? { p2pPort, rpcHttpPort: null, rpcWsPort: null, metricsPort: 9600 + nodeId, isBootnode: true }
    : { p2pPort, rpcHttpPort: 8500 + nodeId, rpcWsPort: 8600 + nodeId, metricsPort: 9500 + nodeId, isBootnode: false },
  validatorAddress: validator === null ? null : validators[validator].address, resources: null, at: '2026-01-01T00:00:00.000Z',
});
const vNodes = [0, 1, 2, 3].map((i) => node(i + 1, 'validator', i, 30400 + i));
const bootnode = node(9, 'bootnode', null, 30499);
const keys = new Map(validators.map((v, i) => [v.keyHandle!, getBytes(wallets[i].privateKey)]));
const deps: BesuLaunchDeps = {
  dataDir,
  besuCommand: '/opt/besu/bin/besu',
  async validatorKey(v) {
    return keys.get(v.keyHandle!)!;
  },
};
const target = (self: EvmNodeCreatedData, peers: EvmNodeCreatedData[]): EvmNodeTarget => ({ node: self, network, peers });
const fileOf = (spec: NodeLaunchSpec, p: string) => spec.files.find((f) => f.path === p)!;
const toml = (spec: NodeLaunchSpec) => parseToml(String(fileOf(spec, 'config.toml').content)) as Record<string, unknown>;
const sourceOptions = new Set(
  readFileSync(new URL('../../golden/evm/besuCliOptions-24.12.2.txt', import.meta.url), 'utf8').split('\n').filter((l) => l.startsWith('--')).map((l) => l.slice(2)),
);
const nodeDir = (id: number) => path.join(dataDir, 'nodes', `node-${id}`);

test.after(() => rmSync(dataDir, { recursive: true, force: true }));

test('a validator gets the genesis file, a config.toml of besu options and its validator key as node key', async () => {
  const spec = await besuLaunchSpec(target(vNodes[0], vNodes.slice(1)), deps);
  assert.equal(spec.files.map((f) => f.path).sort(), ['config.toml', 'genesis.json', 'key']);
  assert.equal(JSON.parse(String(fileOf(spec, 'genesis.json').content)), file);
  const cfg = toml(spec);
  for (const k of Object.keys(cfg)) assert.ok(sourceOptions.has(k), `${k} is a besu 24.12.2 option`);
  assert.is(cfg['genesis-file'], path.join(nodeDir(1), 'genesis.json'));
  assert.is(cfg['node-private-key-file'], path.join(nodeDir(1), 'key'));
  assert.is(cfg['data-path'], path.join(nodeDir(1), 'data'));
  assert.is(cfg['network-id'], settings.networkId);
  assert.is(cfg['p2p-port'], 30400);
  assert.is(cfg['rpc-http-port'], 8501);
  assert.is(cfg['rpc-ws-port'], 8601);
  assert.is(cfg['metrics-port'], 9501);
  assert.ok((cfg['rpc-http-api'] as string[]).includes('QBFT'));
  assert.equal(spec.ports, [30400, 8501, 8601, 9501]);
});

test('the node key file is secret, 0x-hex of the validator key, whose address is the validator and whose public key is the enode id', async () => {
  const spec = await besuLaunchSpec(target(vNodes[1], []), deps);
  const key = fileOf(spec, 'key');
  assert.ok(key.secret);
  assert.is(key.mode, 0o600);
  assert.match(String(key.content), /^0x[0-9a-f]{64}$/);
  assert.is(String(key.content), wallets[1].privateKey);
  const scalar = parseBesuKeyFile(String(key.content));
  assert.is(computeAddress(SigningKey.computePublicKey(scalar, false)), validators[1].address);
  const enode = await besuEnode(dataDir, network, vNodes[1], { create: false });
  assert.is(parseEnodeUrl(enode!).nodeId, SigningKey.computePublicKey(scalar, false).slice(4));
  assert.is(parseEnodeUrl(enode!).port, 30401);
});

test('the process engine writes the key file with mode 0600', async () => {
  const spec = await besuLaunchSpec(target(vNodes[2], []), deps);
  await createProcessEngine({ dataDir }).prepare(spec);
  assert.is(statSync(path.join(nodeDir(3), 'key')).mode & 0o777, 0o600);
  assert.is(readFileSync(path.join(nodeDir(3), 'key'), 'utf8'), wallets[2].privateKey);
});

test('process and docker run besu with only --config-file, the process engine through the besu found on PATH', async () => {
  const spec = await besuLaunchSpec(target(vNodes[0], []), deps);
  assert.equal(spec.process, { command: '/opt/besu/bin/besu', args: ['--config-file={nodeDir}/config.toml'] });
  assert.equal(spec.docker, { image: 'besu', args: ['--config-file={nodeDir}/config.toml'] });
  const dockerOnly = await besuLaunchSpec(target({ ...vNodes[0], engine: 'docker' }, []), { ...deps, besuCommand: null });
  assert.is(dockerOnly.process, undefined);
  assert.equal(dockerOnly.docker, { image: 'besu', args: ['--config-file={nodeDir}/config.toml'] });
});

test('without a bootnode the validators are bootnodes for each other', async () => {
  const spec = await besuLaunchSpec(target(vNodes[0], vNodes.slice(1)), deps);
  const expected = [1, 2, 3].map((i) => enodeUrl(wallets[i].signingKey.publicKey, '127.0.0.1', 30400 + i));
  assert.equal(toml(spec).bootnodes, expected);
});

test('full nodes of a network without validator nodes (PoW) seed from each other', async () => {
  const full = [node(11, 'fullnode', null, 30511), node(12, 'fullnode', null, 30512)];
  const spec = await besuLaunchSpec(target(full[0], full), deps);
  const other = await besuEnode(dataDir, network, full[1], { create: false });
  assert.ok(other, 'the peer got its node key for its enode');
  assert.equal(toml(spec).bootnodes, [other]);
});

test('with a bootnode, every other node is sent to it; its key is made once and kept', async () => {
  const spec = await besuLaunchSpec(target(vNodes[0], [...vNodes.slice(1), bootnode]), deps);
  const bootKey = parseBesuKeyFile(readFileSync(path.join(nodeDir(9), 'key'), 'utf8'));
  assert.is(statSync(path.join(nodeDir(9), 'key')).mode & 0o777, 0o600);
  assert.equal(toml(spec).bootnodes, [enodeUrl(SigningKey.computePublicKey(bootKey, false), '127.0.0.1', 30499)]);
  const again = await ensureNodeKey(nodeDir(9));
  assert.equal(Buffer.from(again), Buffer.from(bootKey));
  const own = await besuLaunchSpec(target(bootnode, vNodes), deps);
  assert.is(String(fileOf(own, 'key').content), '0x' + Buffer.from(bootKey).toString('hex'));
});

test('a bootnode listens on its P2P port only, serves no RPC or metrics, and seeds from the validators', async () => {
  const spec = await besuLaunchSpec(target(bootnode, vNodes), deps);
  assert.equal(spec.ports, [30499]);
  const cfg = toml(spec);
  assert.is(cfg['rpc-http-enabled'], false);
  assert.is(cfg['rpc-ws-enabled'], false);
  assert.is(cfg['metrics-enabled'], false);
  assert.is(cfg['rpc-http-port'], undefined);
  assert.is(cfg['metrics-port'], undefined);
  assert.is((cfg.bootnodes as string[]).length, 4);
});

test('racing first starts of a full node end with one node key', async () => {
  const dir = path.join(dataDir, 'race');
  const made = await Promise.all(Array.from({ length: 8 }, () => ensureNodeKey(dir)));
  const distinct = new Set(made.map((k) => Buffer.from(k).toString('hex')));
  assert.is(distinct.size, 1);
  assert.is(readFileSync(path.join(dir, 'key'), 'utf8'), '0x' + [...distinct][0]);
});

test('a validator whose key is held by Vault, named by address only, or mismatched cannot start on besu', async () => {
  const vault: EvmNetworkCreatedData = { ...network, validators: validators.map((v, i) => (i === 0 ? { ...v, keyProvider: 'VAULT', providerId: 3 } : v)) };
  const err1 = await besuLaunchSpec({ node: vNodes[0], network: vault, peers: [] }, deps).catch((e) => e);
  assert.instance(err1, NodeStartFailedError);
  assert.is(err1.failure, 'invalid-spec');
  assert.match(err1.message, /VAULT/);
  const named: EvmNetworkCreatedData = { ...network, validators: validators.map((v, i) => (i === 0 ? { ...v, keyHandle: null, keyProvider: null } : v)) };
  const err2 = await besuLaunchSpec({ node: vNodes[0], network: named, peers: [] }, deps).catch((e) => e);
  assert.match(err2.message, /named by address only/);
  const swapped: BesuLaunchDeps = { ...deps, validatorKey: async () => getBytes(wallets[3].privateKey) };
  const err3 = await besuLaunchSpec(target(vNodes[0], []), swapped).catch((e) => e);
  assert.match(err3.message, /not that validator's key/);
  assert.not.match(err3.message, /[0-9a-f]{64}/i, 'no key material in the message');
});

test('a process-engine node without besu on PATH is refused before any file is made', async () => {
  const err = await besuLaunchSpec(target(vNodes[0], []), { ...deps, besuCommand: null }).catch((e) => e);
  assert.instance(err, NodeStartFailedError);
  assert.match(err.message, /PATH/);
});

test.run();
