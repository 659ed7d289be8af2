// The evm explorer (GET /networks/evm/{id}/blocks, /blocks/{numberOrHash}, /transactions/{hash},
// /accounts/{address}, /search): read from the first running node of the network over JSON-RPC
// (the EvmRpcPort), shaped for people (decimal amounts, ISO times), a transaction's logs decoded
// with the ABI of the contract the service deployed at their address (domain/evm/evmLogs.ts, as
// an invoke's events are). Immutable answers are kept in a bounded LRU (domain/shared/lruCache.ts):
// blocks at least CONFIRMATIONS below the head, and mined transactions with their receipts (both
// keyed by network and chain id). The head, balances, nonces and codes are always asked afresh.
import { getAddress } from 'ethers';
import type { CommandInput } from '../commands.ts';
import { NotFoundError } from '../../domain/shared/errors.ts';
import { lruCache } from '../../domain/shared/lruCache.ts';
import { abiInterface, callRevertReason, decodeEvent } from '../../domain/evm/evmLogs.ts';
import { cliqueSealer, type CliqueHeaderJson } from '../../domain/evm/cliqueSeal.ts';
import { parseAddress, parseBlockRef, parseSearchTerm, parseTxHash, type BlockRef } from '../../domain/evm/evmExplorer.ts';
import { evmContractsAt, evmContractsOfAccount, type EvmContractRow } from '../../projections/evm/evmContracts.ts';
import type { EvmNetworkRow } from '../../projections/evm/evmNetworks.ts';
import { evmOf, networkOr404 } from './evmContext.ts';
import { runningNode } from './evmContractCall.ts';
import { evmContractRoutes } from './evmContractRoutes.ts';

/** Blocks this far below the head are kept (a BFT chain is final at once; a PoW chain may reorganise its last few). */
export const EXPLORER_CONFIRMATIONS = 6;
const RPC_TIMEOUT_MS = 5000;
/** The cache's bounds: entries, and the summed JSON length of the answers kept. */
export const EXPLORER_CACHE_LIMITS = { maxEntries: 5000, maxSize: 32 * 1024 * 1024 };
const cache = lruCache<unknown>(EXPLORER_CACHE_LIMITS);

type Raw = Record<string, any>;

interface Reach {
  network: EvmNetworkRow;
  rpcUrl: string;
  nodeId: number;
  call<T>(method: string, params: unknown[]): Promise<T>;
  key(what: string): string;
}

/** The network and its first running node's URL, kept between requests like a contract call's route (evmContractRoutes.ts: forgotten when a node or network event is projected). */
function located(input: CommandInput, networkId: number): Promise<{ network: EvmNetworkRow; rpcUrl: string; nodeId: number }> {
  return evmContractRoutes(input.deps).get(`explorer:${networkId}`, async () => {
    const network = await networkOr404(input.deps, networkId);
    return { network, ...(await runningNode(input, network, undefined)) };
  });
}

async function reach(input: CommandInput, networkId: number): Promise<Reach> {
  const { network, rpcUrl, nodeId } = await located(input, networkId);
  const rpc = evmOf(input.deps).rpc;
  return {
    network, rpcUrl, nodeId,
    call: (method, params) => rpc.call(rpcUrl, method, params, RPC_TIMEOUT_MS),
    key: (what) => `${network.id}:${network.chainId}:${what}`,
  };
}

const dec = (hex: unknown): string | null => (typeof hex === 'string' && /^0x[0-9a-fA-F]*$/.test(hex) ? BigInt(hex === '0x' ? 0 : hex).toString() : null);
const num = (hex: unknown): number | null => (typeof hex === 'string' && /^0x[0-9a-fA-F]+$/.test(hex) ? Number(BigInt(hex)) : null);
const addr = (a: unknown): string | null => (typeof a === 'string' && /^0x[0-9a-fA-F]{40}$/.test(a) ? getAddress(a) : null);

export interface ExplorerTransactionSummary {
  hash: string;
  from: string | null;
  to: string | null;
  value: string | null;
  nonce: number | null;
  transaction_index: number | null;
}

export interface ExplorerBlock {
  number: number;
  hash: string;
  parent_hash: string;
  timestamp: string;
  miner: string | null;
  /** Clique networks: the signer that sealed the block (its `miner` is the address voted on); null elsewhere and for block 0. */
  sealer: string | null;
  gas_used: string | null;
  gas_limit: string | null;
  base_fee_per_gas: string | null;
  size: number | null;
  extra_data: string;
  state_root: string;
  transactions_root: string;
  receipts_root: string;
  transaction_count: number;
  transactions: ExplorerTransactionSummary[];
}

const txSummary = (t: Raw): ExplorerTransactionSummary => ({ hash: t.hash, from: addr(t.from), to: addr(t.to), value: dec(t.value), nonce: num(t.nonce), transaction_index: num(t.transactionIndex) });

function blockView(b: Raw, clique: boolean): ExplorerBlock {
  const txs = (b.transactions ?? []) as Raw[];
  return {
    number: num(b.number) ?? 0,
    hash: b.hash,
    parent_hash: b.parentHash,
    timestamp: new Date((num(b.timestamp) ?? 0) * 1000).toISOString(),
    miner: addr(b.miner),
    sealer: clique ? cliqueSealer(b as unknown as CliqueHeaderJson) : null,
    gas_used: dec(b.gasUsed),
    gas_limit: dec(b.gasLimit),
    base_fee_per_gas: dec(b.baseFeePerGas),
    size: num(b.size),
    extra_data: b.extraData,
    state_root: b.stateRoot,
    transactions_root: b.transactionsRoot,
    receipts_root: b.receiptsRoot,
    transaction_count: txs.length,
    transactions: txs.map((t) => (typeof t === 'string' ? { hash: t, from: null, to: null, value: null, nonce: null, transaction_index: null } : txSummary(t))),
  };
}

const remember = (key: string, value: unknown) => cache.set(key, value, JSON.stringify(value).length);

/** A block by number or hash with its transactions, from the cache when it is deep enough; null when the node has none. */
async function readBlock(r: Reach, ref: BlockRef, head: () => Promise<number>): Promise<ExplorerBlock | null> {
  const key = 'number' in ref ? r.key(`block:${ref.number}`) : r.key(`block:${ref.hash}`);
  const hit = cache.get(key) as ExplorerBlock | undefined;
  if (hit) return hit;
  const raw = 'number' in ref
    ? await r.call<Raw | null>('eth_getBlockByNumber', ['0x' + ref.number.toString(16), true])
    : await r.call<Raw | null>('eth_getBlockByHash', [ref.hash, true]);
  if (!raw) return null;
  const block = blockView(raw, r.network.consensus === 'CLIQUE');
  if (block.number <= (await head()) - EXPLORER_CONFIRMATIONS) {
    remember(r.key(`block:${block.number}`), block);
    remember(r.key(`block:${block.hash.toLowerCase()}`), block);
  }
  return block;
}

function headOnce(r: Reach): () => Promise<number> {
  let h: Promise<number> | null = null;
  return () => (h ??= r.call<string>('eth_blockNumber', []).then((x) => num(x) ?? 0));
}

/** The blocks newest first, a page of them: total is the head's number + 1 (block 0 included). */
export async function listEvmBlocks(input: CommandInput, networkId: number, page: { limit: number; offset: number }): Promise<{ items: Array<Omit<ExplorerBlock, 'transactions'>>; total: number }> {
  const r = await reach(input, networkId);
  const head = headOnce(r);
  const top = await head();
  const numbers: number[] = [];
  for (let n = top - page.offset; n >= 0 && numbers.length < page.limit; n--) numbers.push(n);
  const blocks = await Promise.all(numbers.map((n) => readBlock(r, { number: n }, head)));
  const items = blocks.filter((b): b is ExplorerBlock => b !== null).map(({ transactions: _t, ...rest }) => rest);
  return { items, total: top + 1 };
}

export async function getEvmBlock(input: CommandInput, networkId: number, numberOrHash: string): Promise<ExplorerBlock & { confirmations: number }> {
  const ref = parseBlockRef(numberOrHash);
  const r = await reach(input, networkId);
  const head = headOnce(r);
  const block = await readBlock(r, ref, head);
  if (!block) throw new NotFoundError('Block', numberOrHash);
  return { ...block, confirmations: Math.max(0, (await head()) - block.number) };
}

export interface ExplorerLog {
  log_index: number | null;
  address: string | null;
  /** The contract the service deployed at the log's address, when it did. */
  contract_id: number | null;
  contract_name: string | null;
  /** Decoded with that contract's ABI; null when the ABI does not describe the event. */
  name: string | null;
  args: Record<string, unknown> | null;
  topics: string[];
  data: string;
}

export interface ExplorerTransaction {
  hash: string;
  status: 'success' | 'reverted' | 'pending';
  block_number: number | null;
  block_hash: string | null;
  transaction_index: number | null;
  from: string | null;
  to: string | null;
  contract_address: string | null;
  value: string | null;
  nonce: number | null;
  type: number | null;
  gas: string | null;
  gas_price: string | null;
  gas_used: string | null;
  effective_gas_price: string | null;
  cumulative_gas_used: string | null;
  input: string;
  /** Why a reverted transaction reverted: replayed as a call on the state of the block before its own, decoded with the ABI of the contract the service deployed at `to` (Error(string), a panic, a custom error); null when it did not revert or the replay does not revert. */
  revert_reason: string | null;
  logs: ExplorerLog[];
}

/** A reverted transaction replayed as eth_call on its parent block's state: the reason it gives, or null. */
async function replayRevert(input: CommandInput, r: Reach, t: Raw): Promise<string | null> {
  const block = num(t.blockNumber);
  if (block === null || block === 0 || typeof t.to !== 'string') return null;
  const known = (await evmContractsAt(input.deps.pool, r.network.id, [t.to]))[0];
  try {
    await r.call('eth_call', [{ from: t.from, to: t.to, data: t.input, value: t.value, gas: t.gas }, '0x' + (block - 1).toString(16)]);
    return null;
  } catch (err) {
    const e = err as { rpcData?: unknown; rpcMessage?: unknown };
    if (typeof e.rpcMessage !== 'string') return null; // the node did not answer: no reason rather than a failed read
    return callRevertReason(abiInterface(known?.abi ?? null), e.rpcData, e.rpcMessage, t.to, t.input);
  }
}

async function decodedLogs(input: CommandInput, network: EvmNetworkRow, logs: Raw[]): Promise<ExplorerLog[]> {
  const contracts = await evmContractsAt(input.deps.pool, network.id, [...new Set(logs.map((l) => String(l.address ?? '').toLowerCase()))]);
  const byAddress = new Map<string, { contract: EvmContractRow; iface: ReturnType<typeof abiInterface> }>(contracts.map((c) => [c.address.toLowerCase(), { contract: c, iface: abiInterface(c.abi) }]));
  return logs.map((l) => {
    const known = byAddress.get(String(l.address ?? '').toLowerCase());
    const event = decodeEvent(known?.iface ?? null, { topics: (l.topics ?? []) as string[], data: String(l.data ?? '0x') });
    return { log_index: num(l.logIndex), address: addr(l.address), contract_id: known?.contract.id ?? null, contract_name: known?.contract.name ?? null, ...event };
  });
}

/** A transaction with its receipt (status, gas, logs decoded for the contracts the service knows); kept once mined. */
export async function getEvmTransaction(input: CommandInput, networkId: number, hash: string): Promise<ExplorerTransaction> {
  const h = parseTxHash(hash);
  const r = await reach(input, networkId);
  const key = r.key(`tx:${h}`);
  const hit = cache.get(key) as ExplorerTransaction | undefined;
  if (hit) return hit;
  const [t, receipt] = await Promise.all([r.call<Raw | null>('eth_getTransactionByHash', [h]), r.call<Raw | null>('eth_getTransactionReceipt', [h])]);
  if (!t) throw new NotFoundError('Transaction', h);
  const mined = receipt && receipt.blockHash ? receipt : null;
  const view: ExplorerTransaction = {
    hash: t.hash,
    status: !mined ? 'pending' : num(mined.status) === 1 ? 'success' : 'reverted',
    block_number: num(t.blockNumber),
    block_hash: t.blockHash ?? null,
    transaction_index: num(t.transactionIndex),
    from: addr(t.from),
    to: addr(t.to),
    contract_address: mined ? addr(mined.contractAddress) : null,
    value: dec(t.value),
    nonce: num(t.nonce),
    type: num(t.type),
    gas: dec(t.gas),
    gas_price: dec(t.gasPrice),
    gas_used: mined ? dec(mined.gasUsed) : null,
    effective_gas_price: mined ? dec(mined.effectiveGasPrice) : null,
    cumulative_gas_used: mined ? dec(mined.cumulativeGasUsed) : null,
    input: t.input,
    revert_reason: mined && num(mined.status) !== 1 ? await replayRevert(input, r, t) : null,
    logs: mined ? await decodedLogs(input, r.network, (mined.logs ?? []) as Raw[]) : [],
  };
  if (mined) remember(key, view);
  return view;
}

export interface ExplorerAccount {
  address: string;
  balance: string;
  nonce: number;
  code_size: number;
  /** The contract the service deployed at this address, when it did. */
  contract: { id: number; name: string } | null;
  /** Transactions the service sent from this address or to it: its recorded deployments, newest first (invokes are not recorded). */
  service_transactions: Array<{ transaction_hash: string; block_number: number; kind: 'deployment'; contract_id: number; contract_name: string; from: string; to: string | null; contract_address: string }>;
}

export async function getEvmAccount(input: CommandInput, networkId: number, address: string): Promise<ExplorerAccount> {
  const a = parseAddress(address);
  const r = await reach(input, networkId);
  const [balance, nonce, code, records] = await Promise.all([
    r.call<string>('eth_getBalance', [a, 'latest']),
    r.call<string>('eth_getTransactionCount', [a, 'latest']),
    r.call<string>('eth_getCode', [a, 'latest']),
    evmContractsOfAccount(input.deps.pool, r.network.id, a),
  ]);
  const own = records.find((c) => c.address.toLowerCase() === a) ?? null;
  return {
    address: getAddress(a),
    balance: dec(balance) ?? '0',
    nonce: num(nonce) ?? 0,
    code_size: typeof code === 'string' && code.length > 2 ? (code.length - 2) / 2 : 0,
    contract: own ? { id: own.id, name: own.name } : null,
    service_transactions: records.map((c) => ({ transaction_hash: c.transactionHash, block_number: c.blockNumber, kind: 'deployment' as const, contract_id: c.id, contract_name: c.name, from: getAddress(c.deployer), to: null, contract_address: getAddress(c.address) })),
  };
}

export interface ExplorerSearchResult {
  q: string;
  kind: 'block' | 'transaction' | 'account' | 'contract';
  /** The block's number, the transaction's hash or the address. */
  id: string | number;
  /** The block a transaction is in (null while pending); a block's own number. */
  block_number: number | null;
  /** Where to read it, relative to /api/v1. */
  path: string;
}

/** What a term is (a block number, a transaction or block hash, an address) and where to read it; nothing of that is a 404. */
export async function searchEvm(input: CommandInput, networkId: number, q: string): Promise<ExplorerSearchResult> {
  const term = parseSearchTerm(q);
  const r = await reach(input, networkId);
  const base = `/networks/evm/${r.network.id}`;
  if (term.kind === 'number') {
    const head = num(await r.call<string>('eth_blockNumber', [])) ?? 0;
    if (term.number > head) throw new NotFoundError('Block', term.number);
    return { q, kind: 'block', id: term.number, block_number: term.number, path: `${base}/blocks/${term.number}` };
  }
  if (term.kind === 'hash') {
    const t = await r.call<Raw | null>('eth_getTransactionByHash', [term.hash]);
    if (t) return { q, kind: 'transaction', id: t.hash, block_number: num(t.blockNumber), path: `${base}/transactions/${t.hash}` };
    const b = await r.call<Raw | null>('eth_getBlockByHash', [term.hash, false]);
    if (b) return { q, kind: 'block', id: num(b.number) ?? 0, block_number: num(b.number), path: `${base}/blocks/${b.hash}` };
    throw new NotFoundError('Transaction or block', term.hash);
  }
  const code = await r.call<string>('eth_getCode', [term.address, 'latest']);
  const address = getAddress(term.address);
  return { q, kind: typeof code === 'string' && code.length > 2 ? 'contract' : 'account', id: address, block_number: null, path: `${base}/accounts/${address}` };
}
