// The block feed: while an enabled webhook subscribes to blockchain.block.received or
// blockchain.transaction.committed, each running evm network is polled through one of its
// running nodes every second, and every new block becomes BlockObserved (and each of its
// transactions TransactionCommitted, when that type is subscribed) in the network's block
// stream, which the webhook fan-out delivers. With no subscriber nothing is polled or recorded:
// a new subscriber starts at the head. Event ids derive from the block hash, so a block seen
// twice (a restart, two polls) is recorded once.
import type pg from 'pg';
import type { EventStore, NewEvent } from '../domain/shared/eventStore.ts';
import { DuplicateEventError } from '../domain/shared/errors.ts';
import { blockFeedStream, type BlockSource } from '../domain/webhooks/blockFeed.ts';
import { sagaEventId } from './sagaRunner.ts';
import { pollingLoop } from './pollingLoop.ts';

const MAX_BLOCKS_PER_POLL = 50;

export interface BlockFeed {
  poll(): Promise<void>;
  start(): void;
  stop(): Promise<void>;
}

export function createBlockFeed(o: { pool: pg.Pool; store: EventStore; source: BlockSource; intervalMs?: number; clock?: () => Date; log?: (m: string, e?: Record<string, unknown>) => void }): BlockFeed {
  const clock = o.clock ?? (() => new Date());
  const last = new Map<number, number>();

  async function append(networkId: number, events: NewEvent[]) {
    for (const e of events) {
      try {
        await o.store.append(blockFeedStream(networkId), 'any', [e], { timestamp: clock().toISOString(), actor: null });
      } catch (err) {
        if (!(err instanceof DuplicateEventError)) throw err;
      }
    }
  }

  async function poll(): Promise<void> {
    const subs = (await o.pool.query(
      `SELECT bool_or('blockchain.block.received' = ANY(events)) AS blocks, bool_or('blockchain.transaction.committed' = ANY(events)) AS txs FROM webhooks WHERE enabled`,
    )).rows[0];
    if (!subs?.blocks && !subs?.txs) {
      last.clear();
      return;
    }
    // One running node per running evm network, the lowest id.
    const nodes = await o.pool.query(
      `SELECT DISTINCT ON (network_id) network_id, config FROM nodes WHERE platform = 'EVM' AND status = 'running' AND network_id IS NOT NULL AND (config->>'rpcHttpPort') IS NOT NULL ORDER BY network_id, id`,
    );
    for (const n of nodes.rows) {
      const networkId = Number(n.network_id);
      const url = `http://127.0.0.1:${n.config.rpcHttpPort}`;
      try {
        const head = await o.source.head(url);
        const from = last.has(networkId) ? last.get(networkId)! + 1 : head;
        for (let b = Math.max(from, head - MAX_BLOCKS_PER_POLL + 1); b <= head; b++) {
          const block = await o.source.block(url, b);
          if (!block) break;
          const at = clock().toISOString();
          const events: NewEvent[] = [];
          if (subs.blocks) events.push({ id: sagaEventId('block-feed', `${networkId}|${block.hash}`), type: 'BlockObserved', data: { networkId, blockNumber: block.number, blockHash: block.hash, transactionCount: block.transactions.length, at } });
          if (subs.txs) for (const tx of block.transactions) events.push({ id: sagaEventId('block-feed', `${networkId}|${tx}`), type: 'TransactionCommitted', data: { networkId, blockNumber: block.number, transactionHash: tx, at } });
          await append(networkId, events);
          last.set(networkId, block.number);
        }
      } catch (err) {
        o.log?.('block feed poll failed', { networkId, error: (err as Error).message });
      }
    }
  }

  const loop = pollingLoop(poll, () => o.intervalMs ?? 1000, (err) => o.log?.('block feed failed', { error: err.message }));
  return { poll, start: loop.start, stop: loop.stop };
}
