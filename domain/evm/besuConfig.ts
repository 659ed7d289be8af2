// The besu configuration of one evm node, as a TOML config file and as the equivalent command
// line, from one option map (so the two cannot drift).
//
// Roles:
//  - validator and fullnode: P2P with discovery, JSON-RPC over HTTP and WebSocket, metrics, full
//    sync, min-gas-price from the network (0 on a free-gas network, the default). besu has no "validator" switch for IBFT 2.0/QBFT/Clique: a node
//    validates when the address of its node key is in the validator set (genesis extraData or
//    votes). The only difference we emit is for PoW, where a validator is a miner
//    (miner-enabled, miner-coinbase; besu 24.x). Both roles get the consensus API (validators
//    vote with it, fullnodes answer *_getValidatorsByBlockNumber).
//  - bootnode: P2P and discovery only (SPEC: "a bootnode ... only a P2P port"). besu has no
//    stateless bootnode mode, so it still syncs the chain; it only serves no RPC and no metrics.
import { ValidationError } from '../shared/errors.ts';
import type { EvmConsensus } from './evmConsensus.ts';
import type { BesuOptionName, BesuRpcApi } from './besuOptions.ts';
import { parseEnodeUrl } from './enode.ts';

export type EvmNodeRole = 'validator' | 'fullnode' | 'bootnode';

/** SPEC default evm ports. */
export const EVM_DEFAULT_PORTS = { p2p: 30303, rpcHttp: 8545, rpcWs: 8546, metrics: 9545 } as const;

export interface BesuNodeSpec {
  role: EvmNodeRole;
  consensus: EvmConsensus;
  networkId: number;
  dataPath: string;
  genesisFile: string;
  nodePrivateKeyFile: string;
  /** address other nodes reach this one at; also where RPC and metrics listen unless listenAll */
  host?: string;
  /**
   * Listen on every interface (P2P, RPC, metrics) while advertising `host`: a node reached from
   * other machines (its externalIp; docs/hosts.md). The host allow-list then admits `host` too.
   */
  listenAll?: boolean;
  p2pPort?: number;
  rpcHttpPort?: number;
  rpcWsPort?: number;
  metricsPort?: number;
  bootnodes?: string[];
  hostAllowlist?: string[];
  /** PoW validators only: where mining rewards go */
  minerCoinbase?: string;
  /** wei; the network's min_gas_price (default 0: free gas, with the genesis zeroBaseFee) */
  minGasPrice?: bigint;
}

export type BesuOptionValue = string | number | bigint | boolean | string[];
export type BesuOptions = Partial<Record<BesuOptionName, BesuOptionValue>>;

const CONSENSUS_API: Record<EvmConsensus, BesuRpcApi | undefined> = {
  QBFT: 'QBFT',
  IBFT_2: 'IBFT',
  CLIQUE: 'CLIQUE',
  POW: undefined,
};

export function besuRpcApis(consensus: EvmConsensus): BesuRpcApi[] {
  const apis: BesuRpcApi[] = ['ETH', 'NET', 'WEB3', 'ADMIN', 'TXPOOL'];
  const c = CONSENSUS_API[consensus];
  if (c) apis.push(c);
  return apis;
}

function checkPorts(spec: BesuNodeSpec, ports: Record<string, number>): void {
  const issues = Object.entries(ports)
    .filter(([, p]) => !Number.isInteger(p) || p < 1 || p > 65535)
    .map(([field, p]) => ({ field, message: `${p} is not a port (1-65535)` }));
  const used = new Map<number, string>();
  for (const [field, p] of Object.entries(ports)) {
    if (used.has(p)) issues.push({ field, message: `port ${p} is already used for ${used.get(p)}` });
    used.set(p, field);
  }
  if (spec.role === 'validator' && spec.consensus === 'POW' && !/^0x[0-9a-fA-F]{40}$/.test(spec.minerCoinbase ?? '')) {
    issues.push({ field: 'minerCoinbase', message: 'a PoW validator (miner) needs a coinbase address' });
  }
  if (issues.length) throw new ValidationError(`Invalid besu node configuration: ${issues.map((i) => `${i.field} ${i.message}`).join('; ')}.`, issues);
}

export function besuOptions(spec: BesuNodeSpec): BesuOptions {
  const host = spec.host ?? '127.0.0.1';
  const listen = spec.listenAll ? '0.0.0.0' : host;
  const p2pPort = spec.p2pPort ?? EVM_DEFAULT_PORTS.p2p;
  const bootnodes = (spec.bootnodes ?? []).map((b) => {
    parseEnodeUrl(b);
    return b.trim();
  });
  const common: BesuOptions = {
    'data-path': spec.dataPath,
    'genesis-file': spec.genesisFile,
    'network-id': spec.networkId,
    'node-private-key-file': spec.nodePrivateKeyFile,
    'sync-mode': 'FULL',
    'p2p-enabled': true,
    'p2p-host': host,
    ...(spec.listenAll ? { 'p2p-interface': listen } : {}),
    'p2p-port': p2pPort,
    'discovery-enabled': true,
    'nat-method': 'NONE',
    ...(bootnodes.length ? { bootnodes } : {}),
    logging: 'INFO',
  };
  if (spec.role === 'bootnode') {
    checkPorts(spec, { p2pPort });
    return { ...common, 'rpc-http-enabled': false, 'rpc-ws-enabled': false, 'metrics-enabled': false };
  }
  const rpcHttpPort = spec.rpcHttpPort ?? EVM_DEFAULT_PORTS.rpcHttp;
  const rpcWsPort = spec.rpcWsPort ?? EVM_DEFAULT_PORTS.rpcWs;
  const metricsPort = spec.metricsPort ?? EVM_DEFAULT_PORTS.metrics;
  checkPorts(spec, { p2pPort, rpcHttpPort, rpcWsPort, metricsPort });
  const apis = besuRpcApis(spec.consensus);
  return {
    ...common,
    // A bare TOML integer; the genesis validation keeps min_gas_price within a signed 64-bit value.
    'min-gas-price': spec.minGasPrice ?? 0n,
    'rpc-http-enabled': true,
    'rpc-http-host': listen,
    'rpc-http-port': rpcHttpPort,
    'rpc-http-api': apis,
    'rpc-ws-enabled': true,
    'rpc-ws-host': listen,
    'rpc-ws-port': rpcWsPort,
    'rpc-ws-api': apis,
    'host-allowlist': spec.hostAllowlist ?? [...new Set(['localhost', '127.0.0.1', host])],
    'metrics-enabled': true,
    'metrics-host': listen,
    'metrics-port': metricsPort,
    ...(spec.role === 'validator' && spec.consensus === 'POW' ? { 'miner-enabled': true, 'miner-coinbase': spec.minerCoinbase } : {}),
  };
}

const tomlString = (s: string) => JSON.stringify(s); // TOML basic strings share JSON's escapes for these values

function tomlValue(v: BesuOptionValue): string {
  if (Array.isArray(v)) return `[${v.map(tomlString).join(', ')}]`;
  if (typeof v === 'string') return tomlString(v);
  return String(v);
}

/** The TOML config file (besu --config-file). */
export function besuConfigToml(options: BesuOptions): string {
  const lines = ['# besu node configuration, generated; every key is a besu command line option without "--"'];
  for (const [key, value] of Object.entries(options)) if (value !== undefined) lines.push(`${key}=${tomlValue(value)}`);
  return lines.join('\n') + '\n';
}

/** The same options as command line arguments (lists comma-separated, as besu expects). */
export function besuArgs(options: BesuOptions): string[] {
  return Object.entries(options)
    .filter(([, v]) => v !== undefined)
    .map(([key, v]) => `--${key}=${Array.isArray(v) ? v.join(',') : String(v)}`);
}

/** Start besu from a written config file: the node engine writes besuConfigToml to configPath. */
export function besuCommandWithConfigFile(configPath: string): string[] {
  return [`--config-file=${configPath}`];
}
