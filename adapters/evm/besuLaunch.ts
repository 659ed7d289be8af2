// Launching one besu node of an evm network: the files in its node directory and its command.
//
//   <nodeDir>/genesis.json  the network's genesis file (besu format; genesis_block_hash was
//                           computed from this file for client besu when the network was made)
//   <nodeDir>/config.toml   besuConfigToml(besuOptions(...)), absolute paths (the docker engine
//                           binds the node directory at the same path)
//   <nodeDir>/key           the node key as besu writes it: 0x + 64 hex digits, mode 0600
//   <nodeDir>/data          besu's data path (besu creates it)
// command: besu --config-file={nodeDir}/config.toml (process: the besu found on PATH; docker:
// image "besu" with the same args).
//
// Node keys: a validator's node key IS its validator key (besu signs blocks with its node key
// and validates when that key's address is in the validator set), read from the database key
// provider. Bootnodes and full nodes have no key in any provider: theirs is generated once into
// their node directory, on first need, and kept for the node's life (a new key would change
// its enode and strand the peers that know the old one). It is not made a /keys key because it
// signs nothing a user cares about, is deleted with the node, and would otherwise need a key
// provider that can export it.
//
// Peers: a non-bootnode gets --bootnodes = the enodes of the network's bootnodes. Without any
// bootnode, the network's other validators serve as bootnodes for each other (every validator
// lists every other one, not just the first: no single node whose absence stops the others
// from meeting); full nodes list the validators, or each other where there is none (PoW). A bootnode lists the network's other bootnodes and its validators, so one added
// to a running network joins it at once. Enodes use 127.0.0.1: all nodes of a network run on
// this host (process engine, or docker with the host network).
import { link, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { randomBytes, randomUUID } from 'node:crypto';
import path from 'node:path';
import { SigningKey, computeAddress, hexlify } from 'ethers';
import { NODE_DIR_PLACEHOLDER, NodeStartFailedError, type NodeLaunchSpec } from '../../domain/nodes/nodeEngine.ts';
import { nodeKey as engineKeyOf } from '../../domain/nodes/node.ts';
import { type EvmNodeCreatedData } from '../../domain/evm/evmNode.ts';
import type { EvmNetworkCreatedData, EvmValidator } from '../../domain/evm/evmNetwork.ts';
import type { EvmNodeTarget } from '../../domain/evm/evmPorts.ts';
import { besuCommandWithConfigFile, besuConfigToml, besuOptions, type BesuOptions } from '../../domain/evm/besuConfig.ts';
import { enodeUrl } from '../../domain/evm/enode.ts';
import { seedNodes } from '../../domain/evm/evmSeedNodes.ts';
import { nodeDirectory } from '../engines/nodeDirectory.ts';
import { gasPricingOf } from '../../domain/evm/evmGenesis.ts';

export const BESU_KEY_FILE = 'key';
export const BESU_CONFIG_FILE = 'config.toml';
export const BESU_GENESIS_FILE = 'genesis.json';
export const BESU_DATA_DIR = 'data';
// Where a node is reached by its peers: its externalIp (a node on a node host: that host's
// address; a node here given one: an address other hosts reach this machine at), else loopback.
const enodeHost = (node: EvmNodeCreatedData) => node.config.externalIp ?? '127.0.0.1';
const KEY_TEXT = /^(0x)?([0-9a-fA-F]{64})$/;

export interface BesuLaunchDeps {
  dataDir: string;
  /** Absolute path of the besu binary for the process engine (null: not installed). */
  besuCommand: string | null;
  /** The 32-byte private key of a validator's key (database provider only). */
  validatorKey(validator: EvmValidator): Promise<Uint8Array>;
}

/** besu's key file format: the private key as 0x-prefixed hex, nothing else. */
export function besuKeyFileText(privateKey: Uint8Array): string {
  if (privateKey.length !== 32) throw new Error('a besu node key is 32 bytes');
  return hexlify(privateKey);
}

export function parseBesuKeyFile(text: string): Uint8Array {
  const m = KEY_TEXT.exec(text.trim());
  if (!m) throw new Error('the node key file does not hold 32 bytes of hex');
  return Uint8Array.from(Buffer.from(m[2], 'hex'));
}

async function readKeyFile(file: string): Promise<Uint8Array | null> {
  try {
    return parseBesuKeyFile(await readFile(file, 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/**
 * The node key of a bootnode or full node: read from <nodeDir>/key, or made there once. The
 * file appears atomically and is never replaced (link() fails when it exists), so two starts
 * racing (a node and a peer that needs its enode) end with the same key.
 */
export async function ensureNodeKey(nodeDir: string): Promise<Uint8Array> {
  const file = path.join(nodeDir, BESU_KEY_FILE);
  const existing = await readKeyFile(file);
  if (existing) return existing;
  await mkdir(nodeDir, { recursive: true, mode: 0o700 });
  let key: Uint8Array;
  do key = randomBytes(32);
  while (!isValidSecp256k1Scalar(key));
  const tmp = path.join(nodeDir, `.key-${randomUUID()}`);
  await writeFile(tmp, besuKeyFileText(key), { mode: 0o600, flag: 'wx' });
  try {
    await link(tmp, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    key = (await readKeyFile(file))!;
  } finally {
    await rm(tmp, { force: true });
  }
  return key;
}

const SECP256K1_N = BigInt('0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141');
function isValidSecp256k1Scalar(key: Uint8Array): boolean {
  const k = BigInt('0x' + Buffer.from(key).toString('hex'));
  return k > 0n && k < SECP256K1_N;
}

const validatorOf = (network: EvmNetworkCreatedData, node: EvmNodeCreatedData): EvmValidator | undefined =>
  network.validators.find((v) => v.address.toLowerCase() === node.validatorAddress?.toLowerCase());

/**
 * A node's enode URL. Validators: from the validator key's public key (no secret needed).
 * Others: from the key in their node directory, made there when `create` and it is missing;
 * null when it is missing and not to be made (a node never started, seen from a read).
 */
export async function besuEnode(dataDir: string, network: EvmNetworkCreatedData, node: EvmNodeCreatedData, opts: { create: boolean }): Promise<string | null> {
  if (node.role === 'validator') {
    const v = validatorOf(network, node);
    return v?.publicKeyPem ? enodeUrl(v.publicKeyPem, enodeHost(node), node.config.p2pPort) : null;
  }
  const dir = nodeDirectory(dataDir, engineKeyOf(node.nodeId));
  const key = opts.create ? await ensureNodeKey(dir) : await readKeyFile(path.join(dir, BESU_KEY_FILE));
  return key ? enodeUrl(SigningKey.computePublicKey(key, false), enodeHost(node), node.config.p2pPort) : null;
}

/** The nodes this one is told about (see the header and domain/evm/evmSeedNodes.ts). */
export function besuSeedNodes(self: EvmNodeCreatedData, peers: EvmNodeCreatedData[]): EvmNodeCreatedData[] {
  return seedNodes(self, peers.filter((p) => p.nodeId !== self.nodeId && p.networkId === self.networkId));
}

async function nodeKeyOf(t: EvmNodeTarget, deps: BesuLaunchDeps, nodeDir: string, fail: (why: string) => never): Promise<Uint8Array> {
  if (t.node.role !== 'validator') return ensureNodeKey(nodeDir);
  const v = validatorOf(t.network, t.node);
  if (!v?.keyHandle) fail(`its validator ${t.node.validatorAddress ?? '(none)'} was named by address only, so this service holds no key for it and besu has no node key to sign with`);
  const provider = v.keyProvider ?? 'DATABASE';
  if (provider !== 'DATABASE') fail(`its validator key is held by a ${provider} key provider, and besu reads its node key from a file; only database-provider keys can be handed to a node`);
  const key = await deps.validatorKey(v);
  // A wrong key would make a node that runs but never validates: refuse it here instead.
  if (computeAddress(SigningKey.computePublicKey(key, false)).toLowerCase() !== v.address.toLowerCase()) fail(`the key held for validator ${v.address} is not that validator's key`);
  return key;
}

/** Options with the features whose port the node does not have switched off. */
function withoutMissingPorts(options: BesuOptions, node: EvmNodeCreatedData): BesuOptions {
  const out: BesuOptions = { ...options };
  const off = (feature: 'rpc-http' | 'rpc-ws' | 'metrics') => {
    for (const k of Object.keys(out) as (keyof BesuOptions)[]) if (k.startsWith(`${feature}-`)) delete out[k];
    out[`${feature}-enabled`] = false;
  };
  if (node.role !== 'bootnode') {
    if (node.config.rpcHttpPort === null) off('rpc-http');
    if (node.config.rpcWsPort === null) off('rpc-ws');
    if (node.config.metricsPort === null) off('metrics');
  }
  return out;
}

/** Host ports the node listens on: P2P, and for non-bootnodes the RPC and metrics ports it has. */
export function besuPorts(node: EvmNodeCreatedData): number[] {
  const c = node.config;
  if (node.role === 'bootnode') return [c.p2pPort];
  return [c.p2pPort, c.rpcHttpPort, c.rpcWsPort, c.metricsPort].filter((p): p is number => typeof p === 'number');
}

export async function besuLaunchSpec(t: EvmNodeTarget, deps: BesuLaunchDeps): Promise<NodeLaunchSpec> {
  const nodeKey = engineKeyOf(t.node.nodeId);
  const nodeDir = nodeDirectory(deps.dataDir, nodeKey);
  const displayName = `${t.node.name} of network ${t.network.name}`;
  const fail = (why: string): never => {
    throw new NodeStartFailedError('invalid-spec', `Cannot start ${displayName} on besu: ${why}.`, { nodeKey });
  };
  if (t.node.engine === 'process' && !deps.besuCommand) fail('besu is not on the PATH of this service');
  const key = await nodeKeyOf(t, deps, nodeDir, fail);
  const bootnodes: string[] = [];
  for (const peer of besuSeedNodes(t.node, t.peers)) {
    const enode = await besuEnode(deps.dataDir, t.network, peer, { create: true });
    if (enode) bootnodes.push(enode);
  }
  const c = t.node.config;
  const options = besuOptions({
    role: t.node.role,
    consensus: t.network.settings.consensus,
    networkId: t.network.settings.networkId,
    dataPath: path.join(nodeDir, BESU_DATA_DIR),
    genesisFile: path.join(nodeDir, BESU_GENESIS_FILE),
    nodePrivateKeyFile: path.join(nodeDir, BESU_KEY_FILE),
    host: enodeHost(t.node),
    // Reached from other machines: listen on every interface, advertise the external address.
    listenAll: c.externalIp !== undefined,
    p2pPort: c.p2pPort,
    ...(c.rpcHttpPort ? { rpcHttpPort: c.rpcHttpPort } : {}),
    ...(c.rpcWsPort ? { rpcWsPort: c.rpcWsPort } : {}),
    ...(c.metricsPort ? { metricsPort: c.metricsPort } : {}),
    bootnodes,
    ...(t.node.role === 'validator' && t.node.validatorAddress ? { minerCoinbase: t.node.validatorAddress } : {}),
    minGasPrice: gasPricingOf(t.network.settings, t.network.genesis).minGasPrice,
  });
  const args = besuCommandWithConfigFile(`${NODE_DIR_PLACEHOLDER}/${BESU_CONFIG_FILE}`);
  return {
    nodeKey,
    displayName,
    ...(deps.besuCommand ? { process: { command: deps.besuCommand, args } } : {}),
    docker: { image: 'besu', args },
    files: [
      { path: BESU_GENESIS_FILE, content: JSON.stringify(t.network.genesis, null, 2) + '\n' },
      { path: BESU_CONFIG_FILE, content: besuConfigToml(withoutMissingPorts(options, t.node)) },
      { path: BESU_KEY_FILE, content: besuKeyFileText(key), secret: true, mode: 0o600 },
    ],
    ports: besuPorts(t.node),
  };
}
