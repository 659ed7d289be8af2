// Launching one geth node (go-ethereum 1.13, the last line whose Clique sealing works) of a
// Clique evm network: the files in its node directory, the one-off `geth init`, its command.
//
//   <nodeDir>/genesis.json   the network's genesis in geth's format (domain/evm/gethGenesis.ts)
//   <nodeDir>/config.toml    [Node.P2P] ListenAddr (in 1.13 --port binds every interface: the
//                            config file binds one address), BootstrapNodes and StaticNodes
//   <nodeDir>/nodekey        the P2P node key, hex as geth reads it (0600)
//   <nodeDir>/keystore/      a sealer's account key (the validator key from the database key
//                            provider) as a v3 keystore file, encrypted with ...
//   <nodeDir>/password       ... a random password made at each start (0600): geth reads it with
//                            --password <file>, so it is never on a command line, in a log line
//                            or in an answer
//   <nodeDir>/data           geth's data directory, initialised by `geth init` before each start
//                            (a no-op once the same genesis is there)
//
// Node keys and peers are besu's rules (besuLaunch.ts): a validator's node key IS its validator
// key, so its enode follows from the validator's public key; a bootnode or full node keeps a key
// made once in its node directory. Seeds (domain/evm/evmSeedNodes.ts) are given both as
// bootstrap nodes (discovery v4, so nodes met through a bootnode find each other) and as static
// nodes (dialled and redialled directly), by their external endpoints, so nodes on other hosts
// peer. A sealer runs --mine with its account unlocked (geth signs Clique blocks with a keystore
// account); one of a network with several signers mines first as a standby account (a random key
// in keystore/standby.json, no signer) and serves `miner` over HTTP, and the service switches it
// to its key once it has peered (gethSealing.ts: the block-1 fork). geth insists on
// --allow-insecure-unlock while HTTP is served, so the node's own RPC port can sign with the
// sealer key (and start or stop its sealing): keep it on loopback (the default) and give wallets
// the service's RPC gateway, which refuses eth_sendTransaction and miner_* (docs/evm.md).
//
// Where geth is found: LNM_GETH_BIN (a directory holding geth), else the PATH
// (adapters/programs/programLocator.ts), for the process engine: `geth init` runs here before
// each start. The docker engine and node hosts run the image `geth` names (lnm-geth:local, built
// by .ci/docker.sh from the same program; LNM_IMAGE_GETH): the same files in the node directory
// (bound, or uploaded into the node's volume on a host), the same args, and the container's
// command runs `geth init` on the node's data directory itself before it execs geth, so a node
// on a host keeps its chain in its volume and the service needs no geth of its own for it.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { computeAddress, encryptKeystoreJsonSync, getAddress, hexlify, SigningKey, Wallet } from 'ethers';
import { NODE_DIR_PLACEHOLDER, NodeStartFailedError, type NodeLaunchSpec } from '../../domain/nodes/nodeEngine.ts';
import { nodeKey as engineKeyOf } from '../../domain/nodes/node.ts';
import type { EvmNodeCreatedData } from '../../domain/evm/evmNode.ts';
import type { EvmNetworkCreatedData, EvmValidator } from '../../domain/evm/evmNetwork.ts';
import type { EvmNodeTarget } from '../../domain/evm/evmPorts.ts';
import { gasPricingOf } from '../../domain/evm/evmGenesis.ts';
import { gethGenesisFile } from '../../domain/evm/gethGenesis.ts';
import { findProgram, type Found, type ProgramEnv, type ProgramFamily } from '../programs/programLocator.ts';
import { nodeDirectory } from '../engines/nodeDirectory.ts';
import { besuEnode, besuPorts, besuSeedNodes, ensureNodeKey } from './besuLaunch.ts';
import { gethSealsWhenPeered } from './gethSealing.ts';

export const GETH_FAMILY: ProgramFamily = {
  binVariable: 'LNM_GETH_BIN',
  release: 'go-ethereum 1.13 (geth 1.13.15 built from its sources, docs/programs.md)',
  noun: 'the geth program',
};

export const GETH_GENESIS_FILE = 'genesis.json';
export const GETH_CONFIG_FILE = 'config.toml';
export const GETH_NODEKEY_FILE = 'nodekey';
export const GETH_PASSWORD_FILE = 'password';
export const GETH_KEYSTORE_DIR = 'keystore';
export const GETH_DATA_DIR = 'data';
/** The JSON-RPC namespaces a geth node serves: reads, Clique votes and the txpool; never admin, personal or debug. */
export const GETH_HTTP_APIS = 'eth,net,web3,clique,txpool';
/** A sealer switched to its key by the service once peered also serves `miner` over HTTP (gethSealing.ts). */
export const GETH_SEALER_HTTP_APIS = `${GETH_HTTP_APIS},miner`;

export function findGeth(env: ProgramEnv): Promise<Found<'path'>> {
  return findProgram(GETH_FAMILY, 'geth', env);
}

export interface GethLaunchDeps {
  dataDir: string;
  /** Absolute path of geth (null: not found). */
  gethCommand: string | null;
  /** The 32-byte private key of a validator's key (database provider only). */
  validatorKey(validator: EvmValidator): Promise<Uint8Array>;
}

const enodeHost = (node: EvmNodeCreatedData) => node.config.externalIp ?? '127.0.0.1';
const tomlString = (s: string) => JSON.stringify(s);
const tomlList = (items: string[]) => `[${items.map(tomlString).join(', ')}]`;

/** config.toml: the P2P section only; every other setting is a flag. */
export function gethConfigToml(o: { listenAddr: string; seeds: string[] }): string {
  return ['[Node.P2P]', `ListenAddr = ${tomlString(o.listenAddr)}`, `BootstrapNodes = ${tomlList(o.seeds)}`, `StaticNodes = ${tomlList(o.seeds)}`, ''].join('\n');
}

const validatorOf = (network: EvmNetworkCreatedData, node: EvmNodeCreatedData): EvmValidator | undefined =>
  network.validators.find((v) => v.address.toLowerCase() === node.validatorAddress?.toLowerCase());

async function sealerKey(t: EvmNodeTarget, deps: GethLaunchDeps, fail: (why: string) => never): Promise<{ key: Uint8Array; address: string }> {
  const v = validatorOf(t.network, t.node);
  if (!v?.keyHandle) fail(`its validator ${t.node.validatorAddress ?? '(none)'} was named by address only, so this service holds no key for it and geth has no account to seal with`);
  const provider = v.keyProvider ?? 'DATABASE';
  if (provider !== 'DATABASE') fail(`its validator key is held by a ${provider} key provider, and geth reads its sealer key from a keystore file; only database-provider keys can be handed to a node`);
  const key = await deps.validatorKey(v);
  if (computeAddress(SigningKey.computePublicKey(key, false)).toLowerCase() !== v.address.toLowerCase()) fail(`the key held for validator ${v.address} is not that validator's key`);
  return { key, address: getAddress(v.address) };
}

export interface GethLaunch {
  spec: NodeLaunchSpec;
  /** `geth init` of the data directory from genesis.json, run here after the files are written, before the start (process engine; null: the container runs it). */
  init: { command: string; args: string[] } | null;
}

/**
 * A container's command (the image has /bin/sh and geth, no entrypoint): `geth init` of the data
 * directory ($1, the node directory), then geth with the remaining args. init is a no-op once the
 * same genesis is there; its output goes to the container's log like geth's.
 */
export const GETH_CONTAINER_START = 'geth --datadir "$1/data" init "$1/genesis.json" && shift && exec geth "$@"';

/** Whether the node runs on this machine's process engine (else on a Docker Engine: here or a node host). */
const onProcessEngine = (t: EvmNodeTarget) => t.node.engine === 'process' && !t.node.config.hostId;

export async function gethLaunchSpec(t: EvmNodeTarget, deps: GethLaunchDeps): Promise<GethLaunch> {
  const nodeKey = engineKeyOf(t.node.nodeId);
  const nodeDir = nodeDirectory(deps.dataDir, nodeKey);
  const displayName = `${t.node.name} of network ${t.network.name}`;
  const fail = (why: string): never => {
    throw new NodeStartFailedError('invalid-spec', `Cannot start ${displayName} on geth: ${why}.`, { nodeKey });
  };
  const processEngine = onProcessEngine(t);
  if (processEngine && !deps.gethCommand) throw new NodeStartFailedError('binary-missing', `Cannot start ${displayName}: geth is not installed (set LNM_GETH_BIN to the directory holding geth 1.13, or put geth on the PATH).`, { nodeKey });
  const genesis = (() => {
    try {
      return gethGenesisFile(t.network.genesis, t.network.settings);
    } catch (err) {
      return fail((err as Error).message.replace(/\.$/, ''));
    }
  })();
  const sealer = t.node.role === 'validator' ? await sealerKey(t, deps, fail) : null;
  const p2pKey = sealer ? sealer.key : await ensureNodeKey(nodeDir);
  const seeds: string[] = [];
  for (const peer of besuSeedNodes(t.node, t.peers)) {
    const enode = await besuEnode(deps.dataDir, t.network, peer, { create: true });
    if (enode) seeds.push(enode);
  }
  const c = t.node.config;
  const listenAll = c.externalIp !== undefined;
  const bind = listenAll ? '0.0.0.0' : '127.0.0.1';
  const dir = NODE_DIR_PLACEHOLDER;
  const pricing = gasPricingOf(t.network.settings, t.network.genesis);
  const standby = gethSealsWhenPeered(t);
  const args = [
    '--config', `${dir}/${GETH_CONFIG_FILE}`,
    '--datadir', `${dir}/${GETH_DATA_DIR}`,
    '--nodekey', `${dir}/${GETH_NODEKEY_FILE}`,
    '--networkid', String(t.network.settings.networkId),
    '--syncmode', 'full',
    '--ipcdisable',
    // The engine API (always on in 1.13) on a free loopback port: several nodes share this host.
    '--authrpc.addr', '127.0.0.1', '--authrpc.port', '0',
    '--nat', listenAll ? `extip:${enodeHost(t.node)}` : 'none',
    '--miner.gaslimit', BigInt(t.network.genesis.gasLimit).toString(),
    '--miner.gasprice', pricing.minGasPrice.toString(),
    // geth raises a limit below 1 to 1; transactions sent through a node's JSON-RPC are local and exempt.
    '--txpool.pricelimit', (pricing.minGasPrice > 0n ? pricing.minGasPrice : 1n).toString(),
  ];
  if (t.node.role !== 'bootnode') {
    if (c.rpcHttpPort) args.push('--http', '--http.addr', bind, '--http.port', String(c.rpcHttpPort), '--http.api', standby ? GETH_SEALER_HTTP_APIS : GETH_HTTP_APIS);
    if (c.rpcWsPort) args.push('--ws', '--ws.addr', bind, '--ws.port', String(c.rpcWsPort), '--ws.api', GETH_HTTP_APIS);
    if (c.metricsPort) args.push('--metrics', '--metrics.addr', bind, '--metrics.port', String(c.metricsPort));
  }
  const files: NodeLaunchSpec['files'] = [
    { path: GETH_GENESIS_FILE, content: JSON.stringify(genesis, null, 2) + '\n' },
    { path: GETH_CONFIG_FILE, content: gethConfigToml({ listenAddr: `${bind}:${c.p2pPort}`, seeds }) },
    { path: GETH_NODEKEY_FILE, content: Buffer.from(p2pKey).toString('hex'), secret: true, mode: 0o600 },
  ];
  if (sealer) {
    const password = randomBytes(32).toString('hex');
    // The password is random and kept beside the file (0600): scrypt's cost would protect nothing more.
    const keystore = encryptKeystoreJsonSync({ address: sealer.address, privateKey: hexlify(sealer.key) }, password, { scrypt: { N: 1 << 12 } });
    files.push(
      { path: `${GETH_KEYSTORE_DIR}/sealer.json`, content: keystore, secret: true, mode: 0o600 },
      { path: GETH_PASSWORD_FILE, content: password, secret: true, mode: 0o600 },
    );
    // The standby account: made at each start, no signer, so Clique seals nothing for it (gethSealing.ts).
    const standbyWallet = standby ? Wallet.createRandom() : null;
    if (standbyWallet) files.push({ path: `${GETH_KEYSTORE_DIR}/standby.json`, content: encryptKeystoreJsonSync({ address: standbyWallet.address, privateKey: standbyWallet.privateKey }, password, { scrypt: { N: 1 << 12 } }), secret: true, mode: 0o600 });
    args.push(
      '--keystore', `${dir}/${GETH_KEYSTORE_DIR}`,
      '--mine', '--miner.etherbase', standbyWallet?.address ?? sealer.address,
      // One password line serves every unlocked account.
      '--unlock', standbyWallet ? `${sealer.address},${standbyWallet.address}` : sealer.address, '--password', `${dir}/${GETH_PASSWORD_FILE}`, '--allow-insecure-unlock',
    );
  }
  return {
    spec: {
      nodeKey,
      displayName,
      ...(deps.gethCommand ? { process: { command: deps.gethCommand, args } } : {}),
      docker: { image: 'geth', args: ['/bin/sh', '-c', GETH_CONTAINER_START, 'geth-start', dir, ...args] },
      files,
      ports: besuPorts(t.node),
    },
    init: processEngine && deps.gethCommand ? { command: deps.gethCommand, args: ['--datadir', path.join(nodeDir, GETH_DATA_DIR), 'init', path.join(nodeDir, GETH_GENESIS_FILE)] } : null,
  };
}

/** Runs `geth init`; a failure says geth's last lines (init reads no secret). */
export function runGethInit(init: NonNullable<GethLaunch['init']>, timeoutMs = 60_000): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(init.command, init.args, { timeout: timeoutMs, env: { PATH: process.env.PATH ?? '' }, maxBuffer: 4 * 1024 * 1024 }, (err, _stdout, stderr) => {
      if (!err) return resolve();
      const tail = String(stderr).trim().split('\n').slice(-3).join(' | ');
      reject(new Error(`geth init failed: ${tail || err.message}`));
    });
  });
}
