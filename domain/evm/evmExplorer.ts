// What the evm explorer and the RPC gateway accept, decided before any node is asked: a block
// number or hash, a transaction hash, an address, a search term; and which JSON-RPC methods
// the gateway forwards (reads) and which it refuses (signing, sending, administering). A bad
// value is a 400 naming its field.
import { ValidationError } from '../shared/errors.ts';

const HASH = /^0x[0-9a-fA-F]{64}$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const DECIMAL = /^(0|[1-9][0-9]{0,15})$/;
const HEX_NUMBER = /^0x[0-9a-fA-F]{1,14}$/;

/** A block number (decimal or 0x hex, at most 2^53-1) or a block hash. */
export type BlockRef = { number: number } | { hash: string };

export function parseBlockRef(value: string, field = 'numberOrHash'): BlockRef {
  const v = value.trim();
  if (HASH.test(v)) return { hash: v.toLowerCase() };
  if (DECIMAL.test(v) || HEX_NUMBER.test(v)) {
    const n = Number(v);
    if (Number.isSafeInteger(n)) return { number: n };
  }
  throw new ValidationError(`${field} must be a block number (a non-negative integer, decimal or 0x hex) or a block hash (0x and 64 hex digits); got ${JSON.stringify(value.slice(0, 80))}.`, [{ field, message: 'a block number or a 0x block hash of 64 hex digits' }]);
}

export function parseTxHash(value: string, field = 'hash'): string {
  if (!HASH.test(value)) throw new ValidationError(`${field} must be a transaction hash: 0x and 64 hex digits.`, [{ field, message: '0x and 64 hex digits' }]);
  return value.toLowerCase();
}

export function parseAddress(value: string, field = 'address'): string {
  if (!ADDRESS.test(value)) throw new ValidationError(`${field} must be an address: 0x and 40 hex digits.`, [{ field, message: '0x and 40 hex digits' }]);
  return value.toLowerCase();
}

/** What a search term can be: a block number, a 32-byte hash (a transaction or a block), an address. */
export type SearchTerm = { kind: 'number'; number: number } | { kind: 'hash'; hash: string } | { kind: 'address'; address: string };

export function parseSearchTerm(q: string): SearchTerm {
  const v = q.trim();
  if (HASH.test(v)) return { kind: 'hash', hash: v.toLowerCase() };
  if (ADDRESS.test(v)) return { kind: 'address', address: v.toLowerCase() };
  if (DECIMAL.test(v) || HEX_NUMBER.test(v)) {
    const n = Number(v);
    if (Number.isSafeInteger(n)) return { kind: 'number', number: n };
  }
  throw new ValidationError('q must be a block number, a block or transaction hash (0x and 64 hex digits) or an address (0x and 40 hex digits).', [{ field: 'q', message: 'a block number, a 0x hash of 64 hex digits or a 0x address of 40 hex digits' }]);
}

// The gateway's allowlist: reads only. Filters (eth_newFilter, ...) are left out: they keep state
// on the node. Everything else is refused, named in the answer.
const READS = new Set([
  'eth_blockNumber', 'eth_chainId', 'eth_syncing', 'eth_protocolVersion', 'eth_gasPrice', 'eth_maxPriorityFeePerGas', 'eth_feeHistory', 'eth_blobBaseFee',
  'eth_getBalance', 'eth_getCode', 'eth_getStorageAt', 'eth_getTransactionCount', 'eth_getProof', 'eth_call', 'eth_estimateGas', 'eth_createAccessList',
  'eth_getBlockByNumber', 'eth_getBlockByHash', 'eth_getBlockTransactionCountByNumber', 'eth_getBlockTransactionCountByHash', 'eth_getBlockReceipts',
  'eth_getTransactionByHash', 'eth_getTransactionByBlockNumberAndIndex', 'eth_getTransactionByBlockHashAndIndex', 'eth_getTransactionReceipt',
  'eth_getUncleCountByBlockNumber', 'eth_getUncleCountByBlockHash', 'eth_getUncleByBlockNumberAndIndex', 'eth_getUncleByBlockHashAndIndex',
  'eth_getLogs', 'eth_mining', 'eth_hashrate', 'eth_coinbase', 'eth_accounts',
  'net_version', 'net_listening', 'net_peerCount',
  'web3_clientVersion', 'web3_sha3',
  'clique_getSigners', 'clique_getSignersAtHash', 'clique_proposals', 'clique_getSignerMetrics',
  'qbft_getValidatorsByBlockNumber', 'qbft_getValidatorsByBlockHash', 'qbft_getPendingVotes', 'qbft_getSignerMetrics',
  'ibft_getValidatorsByBlockNumber', 'ibft_getValidatorsByBlockHash', 'ibft_getPendingVotes', 'ibft_getSignerMetrics',
]);

/** Whether the gateway forwards a method: a read of the allowlist. */
export const rpcMethodAllowed = (method: string): boolean => READS.has(method);

/** Why a method is refused, for the answer and the audit entry. */
export function rpcRefusal(method: string): string {
  const what = /^(eth_send|eth_sign|personal_|eth_signTransaction)/.test(method)
    ? 'it signs or sends a transaction'
    : /^(admin_|miner_|debug_|anvil_|evm_|hardhat_|txpool_|clique_propose|clique_discard|qbft_propose|qbft_discard|ibft_propose|ibft_discard)/.test(method)
      ? 'it administers the node or the chain'
      : 'it is not one of the reads the gateway forwards';
  return `The RPC gateway refuses ${method}: ${what}. Only reads are forwarded (docs/evm.md, "RPC gateway").`;
}
