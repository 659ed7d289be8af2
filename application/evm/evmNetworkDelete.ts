// Deleting an evm network: each of its nodes deleted (the lifecycle saga stops and removes
// them), then the network. Its validator keys stay under /keys (they may hold funds or be reused).
import { runCommand, type CommandInput } from '../commands.ts';
import { EVM_NETWORKS_STREAM, evmNetworks } from '../../domain/evm/evmNetwork.ts';
import { nodeAggregate, nodeStream } from '../../domain/nodes/node.ts';
import { networkOr404 } from './evmContext.ts';
import { networkNodes } from './evmNodeCreate.ts';

export async function deleteEvmNetwork(input: CommandInput, networkId: number): Promise<void> {
  const { deps } = input;
  await networkOr404(deps, networkId);
  for (const n of await networkNodes(input, networkId)) await runCommand(input, nodeStream(n.id), nodeAggregate, { type: 'DeleteNode', nodeId: n.id, at: deps.clock().toISOString() });
  await runCommand(input, EVM_NETWORKS_STREAM, evmNetworks, { type: 'DeleteNetwork', networkId, nodeCount: 0, at: deps.clock().toISOString() });
}
