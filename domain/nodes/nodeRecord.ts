// The platforms' node records, in one place: the node aggregate (node.ts) handles every
// platform's node the same way and names none of them; a new platform adds its created-data
// type here and nowhere else in domain/nodes.
import type { EvmNodeCreatedData } from '../evm/evmNode.ts';
import type { ConsortiumChaincodeNodeCreatedData, ConsortiumNodeCreatedData } from '../consortium/consortiumNode.ts';
import type { LedgerXNodeCreatedData } from '../ledgerx/ledgerxNode.ts';

export type NodeRecord = EvmNodeCreatedData | ConsortiumNodeCreatedData | ConsortiumChaincodeNodeCreatedData | LedgerXNodeCreatedData;
type NodeConfigOf<R extends NodeRecord> = R['config'];
export type NodeConfig = NodeConfigOf<EvmNodeCreatedData> | NodeConfigOf<ConsortiumNodeCreatedData> | NodeConfigOf<ConsortiumChaincodeNodeCreatedData> | NodeConfigOf<LedgerXNodeCreatedData>;
