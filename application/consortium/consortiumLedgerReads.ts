// The explorer's reads of a page of blocks, one block and one transaction (GET
// /networks/consortium/{id}/blocks, /blocks/{n} and /transactions/{txId}), kept once read: a block that a peer has committed never changes in
// Fabric (raft does not fork; a block's number, hash and transactions are final), nor does a
// committed transaction's validation code or block. So a block or transaction asked for again is
// answered from memory, without a qscc round trip and its decoding. What is asked of the network
// is still asked per request: it exists, and a running peer has joined its channel (networkReader;
// 404 and 409 as before). Misses (404, refusals, an unreachable peer) are not kept. At most
// MAX_KEPT answers per server, the least recently read dropped first. A page reads its blocks
// through the same kept reads, so the block a user opens from the list it just saw (and the list
// seen again) is answered from memory; only the height is asked each time.
import type { AppDeps } from '../deps.ts';
import { NotFoundError } from '../../domain/shared/errors.ts';
import { FabricRefusedError, type BlockDetail, type BlockPage, type PeerReader, type TransactionDetail } from '../../domain/consortium/consortiumChannelPorts.ts';
import type { ConsortiumNetworkRow } from '../../projections/consortium/consortiumNetworks.ts';
import { consortiumOf } from './consortiumContext.ts';
import { networkReader } from './consortiumChannelAccess.ts';

const MAX_KEPT = 512;
const keptOf = new WeakMap<object, Map<string, Promise<unknown>>>();

function kept<T>(deps: AppDeps, key: string, load: () => Promise<T>): Promise<T> {
  let entries = keptOf.get(deps);
  if (!entries) keptOf.set(deps, (entries = new Map()));
  const hit = entries.get(key) as Promise<T> | undefined;
  if (hit) {
    // Most recently read last: the first entry is the one to drop.
    entries.delete(key);
    entries.set(key, hit);
    return hit;
  }
  if (entries.size >= MAX_KEPT) entries.delete(entries.keys().next().value!);
  const loading = load();
  entries.set(key, loading);
  loading.catch(() => {
    if (entries.get(key) === loading) entries.delete(key);
  });
  return loading;
}

export async function channelBlock(deps: AppDeps, networkId: number, blockNum: number): Promise<BlockDetail> {
  const { network, reader } = await networkReader(deps, networkId);
  return keptBlock(deps, network, reader, blockNum);
}

/** Block numbers of a page, newest first: `offset` blocks below the newest, at most `limit`. */
export function pageBlockNumbers(height: number, offset: number, limit: number): number[] {
  const numbers: number[] = [];
  for (let n = height - 1 - Math.max(0, offset); n >= 0 && numbers.length < Math.max(0, limit); n--) numbers.push(n);
  return numbers;
}

/** A page of blocks newest first (summaries: the transactions stay kept for the block's own read). */
export async function channelBlockPage(deps: AppDeps, networkId: number, page: { offset: number; limit: number }): Promise<BlockPage> {
  const { network, reader } = await networkReader(deps, networkId);
  const { height } = await consortiumOf(deps).channels.chainInfo(reader, network.channelName);
  const blocks = [];
  // One after another: the peer is shared with the channel's own work.
  for (const n of pageBlockNumbers(height, page.offset, page.limit)) {
    const { transactions: _transactions, ...summary } = await keptBlock(deps, network, reader, n);
    blocks.push(summary);
  }
  return { height, blocks };
}

function keptBlock(deps: AppDeps, network: ConsortiumNetworkRow, reader: PeerReader, blockNum: number): Promise<BlockDetail> {
  const channels = consortiumOf(deps).channels;
  return kept(deps, `${network.id}/${network.channelName}/block/${blockNum}`, () =>
    // One question to the peer; only when it refuses (a block past the height: "no such block
    // number [n] in index") is the height asked, to tell a 404 from another refusal.
    channels.block(reader, network.channelName, blockNum).catch(async (err) => {
      if (err instanceof FabricRefusedError && blockNum >= (await channels.chainInfo(reader, network.channelName)).height) throw new NotFoundError('Block', blockNum);
      throw err;
    }));
}

export async function channelTransaction(deps: AppDeps, networkId: number, txId: string): Promise<TransactionDetail> {
  const { network, reader } = await networkReader(deps, networkId);
  return kept(deps, `${network.id}/${network.channelName}/tx/${txId}`, () =>
    consortiumOf(deps).channels.transaction(reader, network.channelName, txId).catch((err) => {
      // qscc: "Failed to get transaction with id ..., error entry not found in index".
      if (err instanceof FabricRefusedError && /not found|no such transaction/i.test(err.fabricMessage)) throw new NotFoundError('Transaction', txId);
      throw err;
    }));
}
