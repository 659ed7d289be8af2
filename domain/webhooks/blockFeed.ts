// The block feed's domain events (blockchain.block.received, blockchain.transaction.committed):
// high volume, so they are recorded only while an enabled webhook subscribes to them. One stream
// per network; a block's event id is derived from (network, block hash) by the feed, so a block
// observed twice is recorded once.
export const blockFeedStream = (networkId: number) => `evm-network-blocks-${networkId}`;

export interface ObservedBlock {
  number: number;
  hash: string;
  transactions: string[];
}

export interface BlockSource {
  /** Head block number of the node at `rpcUrl`. */
  head(rpcUrl: string): Promise<number>;
  block(rpcUrl: string, n: number): Promise<ObservedBlock | null>;
}
