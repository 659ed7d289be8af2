// Running anvil as the single-node development chain of a one-validator evm network.
//
// anvil 1.7 refuses --init together with --state/--dump-state, and ignores the genesis
// gasLimit and fork milestones (it uses --gas-limit and --hardfork). So a node is started in
// two steps:
//  1. bootstrapAnvilState (at every prepare; builds the file only the first time): anvil --init
//     <genesis> --no-mining, read the state with anvil_dumpState, write it to
//     <nodeDir>/anvil-state.json, stop.
//  2. anvilRunCommand (every start): anvil --state <that file>, which loads the chain and writes
//     it back on exit (SIGTERM or SIGINT; a SIGKILL loses what came after the last dump) and
//     every --state-interval seconds, so a restart keeps block 0 and every block mined since.
//     Blocks are mined every --block-time seconds (the genesis block period).
// Both steps pass the same chain id, hardfork and gas limit, so block 0 is the block whose hash
// anvilGenesisBlockHash computes.
//
// bootstrapAnvilState must run before EVERY start, not only the first: on an existing state
// file it drops the placeholder block 0s that each `anvil --state` start adds to the file
// (anvilStateFile.ts). Without that, anvil 1.7.1 (which writes blocks in hash-map order and keeps
// the block 0 it reads last) often restarts with a placeholder as block 0: a block 0 hash that
// is not genesis_block_hash and differs on every start.
// It throws UnavailableError when the saved chain holds no block 0 of this genesis at all.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { UnavailableError } from '../../domain/shared/errors.ts';
import { anvilHardforkFor, gasPricingOf, type EvmGenesisFile } from '../../domain/evm/evmGenesis.ts';
import type { EvmGenesisSettings } from '../../domain/evm/evmGenesisInput.ts';
import type { AnvilHardfork } from '../../domain/evm/genesisBlockHash.ts';
import { evmJsonRpc } from './jsonRpc.ts';
import { dropPlaceholderGenesisBlocks } from './anvilStateFile.ts';

export const ANVIL_STATE_FILE = 'anvil-state.json';
const STATE_INTERVAL_SECONDS = 10;

export interface AnvilNodeSpec {
  nodeDir: string;
  /** The address the running node listens on: 127.0.0.1, or 0.0.0.0 on a node host (reached from this service). */
  listenHost?: string;
  /** the genesis file written for this network (read by bootstrapAnvilState only) */
  genesisPath: string;
  chainId: number;
  /** decimal or 0x hex */
  gasLimit: string;
  hardfork: AnvilHardfork;
  /** wei, decimal: the genesis baseFeePerGas (0 on a free-gas network, which anvil keeps at 0) */
  baseFee: string;
  /** wei, decimal: the network's min_gas_price (0 on a free-gas network), the price anvil suggests */
  gasPrice: string;
  blockTimeSeconds: number;
  rpcPort: number;
  /** override the binary; default ANVIL_PATH or the one shipped in node_modules */
  anvilPath?: string;
}

export interface LaunchCommand {
  command: string;
  args: string[];
}

/** The anvil binary shipped by the @foundry-rs/anvil npm package for this platform. */
export function anvilBinaryPath(): string {
  if (process.env.ANVIL_PATH) return process.env.ANVIL_PATH;
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  const pkg = `@foundry-rs/anvil-${process.platform}-${arch}`;
  const require = createRequire(import.meta.url);
  try {
    return path.join(path.dirname(require.resolve(`${pkg}/package.json`)), 'bin', process.platform === 'win32' ? 'anvil.exe' : 'anvil');
  } catch {
    throw new UnavailableError(`The anvil binary for ${process.platform}-${arch} is not installed (npm package ${pkg}); set ANVIL_PATH.`);
  }
}

/** What a one-validator network needs to know to run on anvil, taken from its genesis file. */
export function anvilSpecFromGenesis(
  file: EvmGenesisFile,
  settings: Pick<EvmGenesisSettings, 'blockPeriodSeconds' | 'minGasPrice' | 'baseFee'>,
  node: { nodeDir: string; genesisPath: string; rpcPort: number; anvilPath?: string; listenHost?: string },
): AnvilNodeSpec {
  const pricing = gasPricingOf(settings, file);
  return {
    ...node,
    chainId: Number(file.config.chainId),
    gasLimit: file.gasLimit,
    hardfork: anvilHardforkFor(file),
    baseFee: pricing.baseFee.toString(),
    gasPrice: pricing.minGasPrice.toString(),
    blockTimeSeconds: settings.blockPeriodSeconds,
  };
}

function chainArgs(spec: AnvilNodeSpec, host = spec.listenHost ?? '127.0.0.1'): string[] {
  return [
    '--host', host,
    '--port', String(spec.rpcPort),
    '--chain-id', String(spec.chainId),
    '--hardfork', spec.hardfork,
    '--gas-limit', BigInt(spec.gasLimit).toString(),
    // anvil keeps a base fee of 0 constant (it skips the EIP-1559 update for it), so a
    // free-gas network stays free; it enforces the base fee only, never a minimum gas price.
    '--base-fee', spec.baseFee,
    '--gas-price', spec.gasPrice,
    ...(BigInt(spec.baseFee) === 0n ? ['--disable-min-priority-fee'] : []),
    // no generated dev accounts: the funded accounts are the genesis accounts, nothing else
    '--accounts', '0',
    '--color', 'never',
  ];
}

export function anvilStatePath(spec: Pick<AnvilNodeSpec, 'nodeDir'>): string {
  return path.join(spec.nodeDir, ANVIL_STATE_FILE);
}

/** The long-running node: loads and keeps saving <nodeDir>/anvil-state.json. */
export function anvilRunCommand(spec: AnvilNodeSpec): LaunchCommand {
  return {
    command: spec.anvilPath ?? anvilBinaryPath(),
    args: [
      ...chainArgs(spec),
      '--state', anvilStatePath(spec),
      '--state-interval', String(STATE_INTERVAL_SECONDS),
      '--block-time', String(spec.blockTimeSeconds),
    ],
  };
}

/** The genesis state as a node on a Kubernetes cluster gets it: a file beside its own state file. */
export const ANVIL_SEED_FILE = 'anvil-genesis-state.json';

/**
 * A node on a Kubernetes cluster, whose volume this machine cannot write: on a new volume it
 * first runs with these args, loading the bootstrapped genesis state (a file of its ConfigMap)
 * and writing it into its own state file, mining nothing; then with anvilRunCommand's args.
 */
export function anvilSeedArgs(spec: AnvilNodeSpec): string[] {
  return [...chainArgs(spec), '--load-state', path.join(spec.nodeDir, ANVIL_SEED_FILE), '--dump-state', anvilStatePath(spec), '--state-interval', '1', '--no-mining'];
}

/** The one-off process that turns the genesis file into block 0, mining nothing. */
export function anvilBootstrapCommand(spec: AnvilNodeSpec): LaunchCommand {
  return {
    command: spec.anvilPath ?? anvilBinaryPath(),
    // Runs here, on this machine, whatever host the node runs on.
    args: [...chainArgs(spec, '127.0.0.1'), '--init', spec.genesisPath, '--no-mining'],
  };
}

async function waitForRpc(url: string, deadline: number, exited: () => string | null): Promise<void> {
  const rpc = evmJsonRpc(url, { timeoutMs: 1000 });
  for (;;) {
    const why = exited();
    if (why !== null) throw new UnavailableError(`anvil exited before answering: ${why}`);
    try {
      await rpc.blockNumber();
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 150));
    }
  }
}

/**
 * Step 1, run before every start: write <nodeDir>/anvil-state.json holding block 0 of the
 * genesis. Uses the node's own RPC port, so run it while the node is stopped. Idempotent: an
 * existing state file is the chain so far and is kept, minus the placeholder block 0s earlier
 * starts left in it (reads the genesis file at genesisPath). Returns the state file path.
 */
export async function bootstrapAnvilState(spec: AnvilNodeSpec, opts: { timeoutMs?: number } = {}): Promise<string> {
  if (existsSync(anvilStatePath(spec))) {
    const genesis = JSON.parse(await readFile(spec.genesisPath, 'utf8')) as Record<string, unknown>;
    await dropPlaceholderGenesisBlocks(anvilStatePath(spec), genesis);
    return anvilStatePath(spec);
  }
  const { command, args } = anvilBootstrapCommand(spec);
  await mkdir(spec.nodeDir, { recursive: true });
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  let exit: string | null = null;
  child.stderr.on('data', (b: Buffer) => (stderr = (stderr + b.toString()).slice(-2000)));
  child.on('exit', (code, signal) => (exit = `code ${code ?? signal}${stderr ? `: ${stderr.trim()}` : ''}`));
  child.on('error', (err) => (exit = err.message));
  try {
    const url = `http://127.0.0.1:${spec.rpcPort}`;
    await waitForRpc(url, Date.now() + (opts.timeoutMs ?? 15000), () => exit);
    const dumped = await evmJsonRpc(url, { timeoutMs: opts.timeoutMs ?? 15000 }).call<string>('anvil_dumpState');
    const state = gunzipSync(Buffer.from(dumped.replace(/^0x/, ''), 'hex'));
    const target = anvilStatePath(spec);
    await writeFile(`${target}.tmp`, state);
    await rename(`${target}.tmp`, target);
    return target;
  } finally {
    if (exit === null) {
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await gone;
    }
  }
}
