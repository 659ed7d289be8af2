// Deleting an evm network: each of its nodes deleted (the lifecycle saga stops and removes
// them), then the network. Its validator keys stay under /keys (they may hold funds or be reused),
// unless deleteKeys asks for them to go too (application/keys/ownerKeysDelete.ts).
import { runCommand, type CommandInput } from '../commands.ts';
import { EVM_NETWORKS_STREAM, evmNetworks } from '../../domain/evm/evmNetwork.ts';
import { nodeAggregate, nodeStream } from '../../domain/nodes/node.ts';
import { networkOr404 } from './evmContext.ts';
import { networkNodes } from './evmNodeCreate.ts';
import { assertMayDeleteKeys, deleteOwnerKeys } from '../keys/ownerKeysDelete.ts';

/** deleteKeys: also delete its validator keys the service holds (one still used by another network is kept). */
export async function deleteEvmNetwork(input: CommandInput, networkId: number, opts: { deleteKeys?: boolean } = {}): Promise<void> {
  const { deps } = input;
  const network = await networkOr404(deps, networkId);
  if (opts.deleteKeys) assertMayDeleteKeys(input);
  for (const n of await networkNodes(input, networkId)) await runCommand(input, nodeStream(n.id), nodeAggregate, { type: 'DeleteNode', nodeId: n.id, at: deps.clock().toISOString() });
  await runCommand(input, EVM_NETWORKS_STREAM, evmNetworks, { type: 'DeleteNetwork', networkId, nodeCount: 0, at: deps.clock().toISOString() });
  if (opts.deleteKeys) await deleteOwnerKeys(input, `evm network ${network.name}`, network.validators.map((v) => v.keyId).filter((k): k is number => typeof k === 'number'));
}
