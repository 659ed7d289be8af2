// A small JSON-RPC 2.0 client for evm nodes (SPEC "Evm node JSON-RPC"): fetch-based, one
// timeout per call, typed results. An unreachable or silent node is an UnavailableError (503)
// naming the node; an error answered by the node is an EvmRpcError carrying the RPC code.
import { getAddress } from 'ethers';
import { keptAgents, probeRequest } from '../system/probeHttp.ts';
import { AppError, UnavailableError } from '../../domain/shared/errors.ts';
import type { EvmRpcPort } from '../../domain/evm/evmPorts.ts';

export class EvmRpcError extends AppError {
  readonly rpcCode: number;
  readonly method: string;
  /** The node's message as it gave it. */
  readonly rpcMessage: string;
  /** The error's data member (an eth_call's revert data), not shown in the response. */
  readonly rpcData: unknown;
  constructor(method: string, rpcCode: number, rpcMessage: string, endpoint: string, rpcData: unknown = undefined) {
    const hint = rpcCode === -32601 ? ' (the node does not offer this method; is its API group enabled in rpc-http-api?)' : '';
    super(502, 'EVM_RPC_ERROR', `Node ${endpoint} answered ${method} with error ${rpcCode}: ${rpcMessage}${hint}`, {
      extra: { method, rpcCode },
    });
    this.rpcCode = rpcCode;
    this.method = method;
    this.rpcMessage = rpcMessage;
    this.rpcData = rpcData;
  }
}

export interface SyncStatus {
  startingBlock: number;
  currentBlock: number;
  highestBlock: number;
}

export interface AdminNodeInfo {
  enode: string;
  id: string;
  name: string;
  listenAddr?: string;
  ports?: { discovery?: number; listener?: number };
  [key: string]: unknown;
}

export interface BlockSummary {
  number: number;
  hash: string;
  parentHash: string;
  stateRoot: string;
  timestamp: number;
  gasLimit: bigint;
  extraData: string;
  miner: string;
}

export type BftApi = 'qbft' | 'ibft';

export interface EvmJsonRpcOptions {
  /** per call, default 5000 ms */
  timeoutMs?: number;
}

/** The URL as it may appear in messages: no user info, no query (they can carry credentials). */
function displayEndpoint(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname === '/' ? '' : u.pathname}`;
  } catch {
    return '(invalid url)';
  }
}

const quantity = (hex: unknown, what: string): number => {
  if (typeof hex !== 'string' || !/^0x[0-9a-fA-F]+$/.test(hex)) throw new Error(`${what} is not a hex quantity: ${JSON.stringify(hex)}`);
  return Number(BigInt(hex));
};

/** fetch refuses URLs with user info (and would echo them in its error): send them as Basic auth. */
function splitCredentials(url: string): { target: string; headers: Record<string, string> } {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  try {
    const u = new URL(url);
    if (u.username || u.password) {
      headers.authorization = 'Basic ' + Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString('base64');
      u.username = '';
      u.password = '';
    }
    return { target: u.toString(), headers };
  } catch {
    return { target: url, headers };
  }
}

/**
 * Block height and peer count in one batch request over a kept-alive connection (the health
 * probe; adapters/system/probeHttp.ts). A node that refuses batches is asked twice, once per method. Errors as evmJsonRpc's.
 */
export async function probeEvmNode(url: string, timeoutMs: number): Promise<{ blockHeight: number; peerCount: number }> {
  const endpoint = displayEndpoint(url);
  const { target, headers } = splitCredentials(url);
  let answer: { status: number; text: string };
  try {
    answer = await probeRequest(target, { method: 'POST', headers, body: '[{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]},{"jsonrpc":"2.0","id":2,"method":"net_peerCount","params":[]}]', timeoutMs });
  } catch (err) {
    const e = err as Error & { code?: string };
    const reason = e.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : (e.code ?? e.name); // never e.message: it can quote the URL
    throw new UnavailableError(`EVM node ${endpoint} is unreachable (eth_blockNumber): ${reason}.`, { endpoint, method: 'eth_blockNumber' });
  }
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    body = null;
  }
  if (!Array.isArray(body)) {
    const rpc = evmJsonRpc(url, { timeoutMs });
    const [blockHeight, peerCount] = await Promise.all([rpc.blockNumber(), rpc.peerCount().catch(() => 0)]);
    return { blockHeight, peerCount };
  }
  const byId = new Map((body as Array<{ id?: unknown; result?: unknown; error?: { code?: number; message?: string } }>).map((r) => [r?.id, r]));
  const height = byId.get(1);
  if (!height) throw new UnavailableError(`EVM node ${endpoint} answered eth_blockNumber without a result.`, { endpoint, method: 'eth_blockNumber' });
  if (height.error) throw new EvmRpcError('eth_blockNumber', height.error.code ?? 0, height.error.message ?? 'unknown error', endpoint);
  const peers = byId.get(2);
  let peerCount = 0;
  try {
    peerCount = peers && !peers.error ? quantity(peers.result, 'net_peerCount') : 0;
  } catch {
    peerCount = 0;
  }
  return { blockHeight: quantity(height.result, 'eth_blockNumber'), peerCount };
}

// Contract queries: up to 16 connections per node kept open (the probes keep their own two).
const callAgents = keptAgents(16, 4);

/**
 * One JSON-RPC call as one POST over a kept connection (adapters/system/probeHttp.ts), for the
 * hot path of contract queries: no fetch, no ethers provider (which holds each request back a
 * timer tick to batch it). Errors as evmJsonRpc's; an error answered by the node keeps its data.
 */
export async function keptJsonRpcCall<T>(url: string, method: string, params: unknown[], timeoutMs: number): Promise<T> {
  const { target, headers } = splitCredentials(url);
  let answer: { status: number; text: string };
  try {
    answer = await probeRequest(target, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }), timeoutMs, agents: callAgents });
  } catch (err) {
    const e = err as Error & { code?: string };
    const reason = e.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : (e.code ?? e.name); // never e.message: it can quote the URL
    const endpoint = displayEndpoint(url);
    throw new UnavailableError(`EVM node ${endpoint} is unreachable (${method}): ${reason}.`, { endpoint, method });
  }
  let body: { result?: unknown; error?: { code?: number; message?: string; data?: unknown } };
  try {
    body = JSON.parse(answer.text);
  } catch {
    body = {};
  }
  if (body?.error) throw new EvmRpcError(method, body.error.code ?? 0, body.error.message ?? 'unknown error', displayEndpoint(url), body.error.data);
  if (!body || typeof body !== 'object' || !('result' in body)) {
    const endpoint = displayEndpoint(url);
    throw new UnavailableError(`EVM node ${endpoint} answered ${method} with HTTP ${answer.status} and no JSON-RPC result.`, { endpoint, method, httpStatus: answer.status });
  }
  return body.result as T;
}

export function evmJsonRpc(url: string, opts: EvmJsonRpcOptions = {}) {
  const endpoint = displayEndpoint(url);
  const { target, headers } = splitCredentials(url);
  const timeoutMs = opts.timeoutMs ?? 5000;
  let nextId = 1;

  async function call<T>(method: string, params: unknown[] = []): Promise<T> {
    let response: Response;
    try {
      response = await fetch(target, {
        method: 'POST',
        headers,
        body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      const e = err as Error & { cause?: { code?: string } };
      const reason =
        e.name === 'TimeoutError' || e.name === 'AbortError'
          ? `no answer within ${timeoutMs} ms`
          : (e.cause?.code ?? e.name); // never e.message: it can quote the URL
      throw new UnavailableError(`EVM node ${endpoint} is unreachable (${method}): ${reason}.`, { endpoint, method });
    }
    const text = await response.text();
    let body: { result?: unknown; error?: { code?: number; message?: string } };
    try {
      body = JSON.parse(text);
    } catch {
      throw new UnavailableError(`EVM node ${endpoint} answered ${method} with HTTP ${response.status} and no JSON-RPC body.`, {
        endpoint,
        method,
        httpStatus: response.status,
      });
    }
    if (body.error) throw new EvmRpcError(method, body.error.code ?? 0, body.error.message ?? 'unknown error', endpoint);
    if (!('result' in body)) throw new UnavailableError(`EVM node ${endpoint} answered ${method} without a result.`, { endpoint, method });
    return body.result as T;
  }

  return {
    endpoint,
    call,
    async chainId(): Promise<number> {
      return quantity(await call('eth_chainId'), 'eth_chainId');
    },
    async blockNumber(): Promise<number> {
      return quantity(await call('eth_blockNumber'), 'eth_blockNumber');
    },
    async peerCount(): Promise<number> {
      return quantity(await call('net_peerCount'), 'net_peerCount');
    },
    /** false when the node is not syncing. */
    async syncing(): Promise<false | SyncStatus> {
      const r = await call<false | Record<string, string>>('eth_syncing');
      if (r === false) return false;
      return {
        startingBlock: quantity(r.startingBlock, 'startingBlock'),
        currentBlock: quantity(r.currentBlock, 'currentBlock'),
        highestBlock: quantity(r.highestBlock, 'highestBlock'),
      };
    },
    async nodeInfo(): Promise<AdminNodeInfo> {
      return call<AdminNodeInfo>('admin_nodeInfo');
    },
    async blockByNumber(tag: number | 'latest' | 'earliest'): Promise<BlockSummary | null> {
      const param = typeof tag === 'number' ? '0x' + tag.toString(16) : tag;
      const b = await call<Record<string, string> | null>('eth_getBlockByNumber', [param, false]);
      if (!b) return null;
      return {
        number: quantity(b.number, 'number'),
        hash: b.hash,
        parentHash: b.parentHash,
        stateRoot: b.stateRoot,
        timestamp: quantity(b.timestamp, 'timestamp'),
        gasLimit: BigInt(b.gasLimit),
        extraData: b.extraData,
        miner: b.miner,
      };
    },
    /** qbft_getValidatorsByBlockNumber / ibft_getValidatorsByBlockNumber */
    async validatorsByBlockNumber(api: BftApi, tag: number | 'latest' = 'latest'): Promise<string[]> {
      const param = typeof tag === 'number' ? '0x' + tag.toString(16) : tag;
      const r = await call<string[]>(`${api}_getValidatorsByBlockNumber`, [param]);
      return r.map((a) => getAddress(a));
    },
    /** Clique signers at a block (besu CLIQUE API). */
    async cliqueSigners(tag: number | 'latest' = 'latest'): Promise<string[]> {
      const param = typeof tag === 'number' ? '0x' + tag.toString(16) : tag;
      return (await call<string[]>('clique_getSigners', [param])).map((a) => getAddress(a));
    },
    /**
     * A Clique signer vote: geth's clique_propose answers null (the vote is kept, true here), besu's
     * clique_propose true when recorded. The vote rides in the `miner` field of the blocks this
     * node seals until more than half of the signers voted the same way.
     */
    async cliquePropose(address: string, add: boolean, client: string): Promise<boolean> {
      const r = await call<boolean | null>('clique_propose', [getAddress(address), add]);
      return client === 'geth' ? r === null || r === true : r === true;
    },
    async cliqueDiscard(address: string, client: string): Promise<boolean> {
      const r = await call<boolean | null>('clique_discard', [getAddress(address)]);
      return client === 'geth' ? r === null || r === true : r === true;
    },
    /** This node's Clique votes: address -> true (add) / false (remove) (geth and besu clique_proposals). */
    async cliqueProposals(): Promise<Record<string, boolean>> {
      const r = (await call<Record<string, boolean> | null>('clique_proposals')) ?? {};
      return Object.fromEntries(Object.entries(r).map(([a, v]) => [getAddress(a), v]));
    },
    /** The address that sealed a Clique block (the `miner` field holds the vote target, not the sealer). */
    async cliqueSigner(tag: number | 'latest' = 'latest'): Promise<string> {
      const param = typeof tag === 'number' ? '0x' + tag.toString(16) : tag;
      return getAddress(await call<string>('clique_getSigner', [param]));
    },
    /** Vote to add (true) or remove (false) a validator; besu answers true when the vote was recorded. */
    async proposeValidatorVote(address: string, add: boolean, api: BftApi = 'qbft'): Promise<boolean> {
      return call<boolean>(`${api}_proposeValidatorVote`, [getAddress(address), add]);
    },
    async discardValidatorVote(address: string, api: BftApi = 'qbft'): Promise<boolean> {
      return call<boolean>(`${api}_discardValidatorVote`, [getAddress(address)]);
    },
    /** Address -> true (vote to add) / false (vote to remove). */
    async pendingVotes(api: BftApi = 'qbft'): Promise<Record<string, boolean>> {
      const r = await call<Record<string, boolean>>(`${api}_getPendingVotes`);
      return Object.fromEntries(Object.entries(r).map(([a, v]) => [getAddress(a), v]));
    },
    async signerMetrics(api: BftApi = 'qbft'): Promise<Array<{ address: string; proposedBlockCount: number; lastProposedBlockNumber: number }>> {
      const r = await call<Array<Record<string, string>>>(`${api}_getSignerMetrics`);
      return r.map((m) => ({
        address: getAddress(m.address),
        proposedBlockCount: quantity(m.proposedBlockCount, 'proposedBlockCount'),
        lastProposedBlockNumber: quantity(m.lastProposedBlockNumber, 'lastProposedBlockNumber'),
      }));
    },
  };
}

export type EvmJsonRpc = ReturnType<typeof evmJsonRpc>;

// The explorer's reads and the RPC gateway: up to 16 connections per node of their own.
const gatewayAgents = keptAgents(16, 4);

/** JSON-RPC to a node for the explorer and the gateway (domain/evm/evmPorts.ts EvmRpcPort). */
export function createEvmRpcPort(): EvmRpcPort {
  return {
    call: keptJsonRpcCall,
    async forward(url, body, opts) {
      const { target, headers } = splitCredentials(url);
      const endpoint = displayEndpoint(url);
      try {
        return await probeRequest(target, { method: 'POST', headers, body, timeoutMs: opts.timeoutMs, agents: gatewayAgents, maxBytes: opts.maxBytes });
      } catch (err) {
        const e = err as Error & { code?: string };
        if (e.name === 'TimeoutError') throw new AppError(504, 'RPC_TIMEOUT', `EVM node ${endpoint} gave no answer within ${opts.timeoutMs} ms.`, { extra: { endpoint, timeoutMs: opts.timeoutMs }, expose: true });
        if (e.name === 'TooLargeError') throw new AppError(502, 'RPC_RESPONSE_TOO_LARGE', `EVM node ${endpoint} answered more than ${opts.maxBytes} bytes, more than the gateway passes on; ask for less (a narrower eth_getLogs range, fewer calls in a batch).`, { extra: { endpoint, maxBytes: opts.maxBytes }, expose: true });
        throw new UnavailableError(`EVM node ${endpoint} is unreachable: ${e.code ?? e.name}.`, { endpoint }); // never e.message: it can quote the URL
      }
    },
  };
}
