// When a geth sealer starts sealing under its own key (issue 38, the block-1 fork).
//
// Why the chain forked at block 1: a sealer run with --mine seals at once (the in-turn signer of
// block 1 without delay, an out-of-turn one within Clique's wiggle), and the nodes of a network
// start one after another, so every sealer of a new network was alone for a moment and sealed a
// block 1 of its own (bench/evmGeth.ts recorded three different block 1s on three sealers). It
// never sent that block to anyone (no peer then); once peered, a node learns a peer's chain only
// from the handshake's total difficulty, and geth 1.13 syncs to a heavier peer only with 5 peers
// or on its forced cycle every 10 s: the chain stood still up to 10 s, or longer where the block
// 1s weighed the same. Withholding --mine alone does not help: a geth node that has neither
// finished a sync nor started mining discards every block it is sent ("Syncing, discarded
// propagated block", eth/handler.go; StartMining marks the node synced), so a sealer that waits
// for its peers before mining misses their first blocks and, its peers' difficulty learnt at
// genesis, never syncs to them.
//
// So a sealer of a network with several signers runs --mine from its start, but as a standby
// account: a random key made at each start, kept in its keystore beside the sealer key, with the
// same password file. geth marks itself synced and imports its peers' blocks, and Clique refuses
// to seal for an account that is no signer (no signature is made). The service switches it to the
// sealer key (miner_stop, miner_setEtherbase, miner_start: Clique takes its signer at
// StartMining) once the node is peered with the network's other signers (for the first 10 s after
// its start; after that one peer is enough) and its head is as high as every other node's of the
// network that answers: the sealers of a network being started seal from one genesis together
// (with one peer only, the first two sealed and the third, joining a chain already going, had no
// block until geth's forced sync 10 s later), and one joining a chain already going first
// reaches its head. Who switches: the node's start
// (sealWhenPeered, polling in the background, since the next node's start is awaited after this
// one's) and every health probe of a running sealer that is not sealing under its key and has a
// peer, unless its start's poll is still on (a restart the service did not make, such as a node
// host's engine restarting its containers, or a start whose poll ran out).
import { keptJsonRpcCall } from './jsonRpc.ts';
import type { EvmNodeTarget } from '../../domain/evm/evmPorts.ts';

/**
 * Whether the node is a geth sealer that starts as a standby and is switched to its key once
 * peered (else: --mine with its key at start). Not on a network with a bootnode (seen among the
 * start's peers): there the sealers meet through discovery, and with the standby the bootnode
 * e2e test's chain stalled below block 6 for 90 s (not understood yet; docs/status.md).
 */
export function gethSealsWhenPeered(t: EvmNodeTarget): boolean {
  const bootnode = t.peers.some((p) => p.role === 'bootnode' && p.networkId === t.node.networkId);
  return t.node.client === 'geth' && t.node.role === 'validator' && t.network.validators.length > 1 && !!t.node.config.rpcHttpPort && !bootnode;
}

const quantity = (v: unknown) => (typeof v === 'string' ? Number(BigInt(v)) : 0);

/** The highest head among the nodes at `urls` that answer (0: none answers). */
async function highestHead(urls: string[], timeoutMs: number): Promise<number> {
  const heads = await Promise.all(urls.map((u) => keptJsonRpcCall<string>(u, 'eth_blockNumber', [], timeoutMs).then(quantity, () => 0)));
  return Math.max(0, ...heads);
}

type Readiness = 'sealing' | 'ready' | 'wait';

async function readiness(url: string, sealer: string, timeoutMs: number, peerUrls: string[], minPeers = 1): Promise<Readiness> {
  const [coinbase, mining] = await Promise.all([keptJsonRpcCall<string>(url, 'eth_coinbase', [], timeoutMs), keptJsonRpcCall<boolean>(url, 'eth_mining', [], timeoutMs)]);
  if (mining && coinbase.toLowerCase() === sealer.toLowerCase()) return 'sealing';
  if (quantity(await keptJsonRpcCall<string>(url, 'net_peerCount', [], timeoutMs)) < Math.max(1, minPeers)) return 'wait';
  if (peerUrls.length) {
    const [own, highest] = await Promise.all([keptJsonRpcCall<string>(url, 'eth_blockNumber', [], timeoutMs).then(quantity), highestHead(peerUrls, timeoutMs)]);
    if (own < highest) return 'wait';
  }
  return 'ready';
}

/** miner_stop, miner_setEtherbase(sealer), miner_start (Clique authorizes its signer when mining starts). */
async function switchToSealer(url: string, sealer: string, timeoutMs: number): Promise<void> {
  await keptJsonRpcCall<null>(url, 'miner_stop', [], timeoutMs);
  for (let i = 0; i < 20 && (await keptJsonRpcCall<boolean>(url, 'eth_mining', [], timeoutMs)); i++) await new Promise((r) => setTimeout(r, 50).unref());
  await keptJsonRpcCall<boolean>(url, 'miner_setEtherbase', [sealer], timeoutMs);
  await keptJsonRpcCall<null>(url, 'miner_start', [], timeoutMs);
}

/** The health probe's step: switches a peered standby sealer to its key. True when it seals under it; throws when the node does not answer. */
export async function startSealingIfPeered(url: string, sealer: string, timeoutMs = 2000): Promise<boolean> {
  const r = await readiness(url, sealer, timeoutMs, []);
  if (r === 'ready') await switchToSealer(url, sealer, timeoutMs);
  return r !== 'wait';
}

/**
 * Polls the node every `intervalMs` until it seals under `sealer` or `untilMs` ran out (the
 * health probe then takes over); switches it once it has `otherSigners` peers (one after
 * `allSignersMs`) and its head is as high as the highest of `peerUrls` that answer. Never
 * throws; its timers do not hold the process.
 */
export async function sealWhenPeered(url: string, sealer: string, opts: { peerUrls?: string[]; otherSigners?: number; allSignersMs?: number; untilMs?: number; intervalMs?: number } = {}): Promise<boolean> {
  const start = Date.now();
  const deadline = start + (opts.untilMs ?? 120_000);
  const interval = opts.intervalMs ?? 200;
  while (Date.now() < deadline) {
    const minPeers = Date.now() - start < (opts.allSignersMs ?? 10_000) ? (opts.otherSigners ?? 1) : 1;
    const r = await readiness(url, sealer, 1000, opts.peerUrls ?? [], minPeers).catch((): Readiness => 'wait');
    if (r === 'sealing') return true;
    if (r === 'ready' && (await switchToSealer(url, sealer, 1000).then(() => true, () => false))) return true;
    await new Promise((r) => setTimeout(r, interval).unref());
  }
  return false;
}
