// Block numbers, hashes and transaction hashes over a node's JSON-RPC, for the block feed.
import type { BlockSource, ObservedBlock } from '../../domain/webhooks/blockFeed.ts';

async function rpc<T>(url: string, method: string, params: unknown[]): Promise<T> {
  const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }), signal: AbortSignal.timeout(3000) });
  const body = (await r.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

export function createEvmBlockSource(): BlockSource {
  return {
    async head(url) {
      return Number(await rpc<string>(url, 'eth_blockNumber', []));
    },
    async block(url, n): Promise<ObservedBlock | null> {
      const b = await rpc<{ number: string; hash: string; transactions: string[] } | null>(url, 'eth_getBlockByNumber', ['0x' + n.toString(16), false]);
      return b ? { number: Number(b.number), hash: b.hash, transactions: b.transactions } : null;
    },
  };
}
