// Starting a consortium network (POST /networks/{networkId}/start): every member peer and
// orderer asked to start, returned once each settled (running or failed).
import { runCommand, type CommandInput } from '../commands.ts';
import { nodeAggregate, nodeStream } from '../../domain/nodes/node.ts';
import { consortiumNetworkMembers, type ConsortiumNetworkRow } from '../../projections/consortium/consortiumNetworks.ts';
import type { NodeRow } from '../../projections/nodes.ts';
import { awaitSettled } from '../evm/evmNodeCreate.ts';
import { consortiumNetworkOr404 } from './consortiumChannelAccess.ts';

export async function startConsortiumNetwork(input: CommandInput, networkId: number): Promise<{ network: ConsortiumNetworkRow; nodes: NodeRow[] }> {
  const { deps } = input;
  const network = await consortiumNetworkOr404(deps, networkId);
  const members = await consortiumNetworkMembers(deps.pool, network.id);
  for (const m of members) await runCommand(input, nodeStream(m.nodeId), nodeAggregate, { type: 'StartNode', nodeId: m.nodeId, at: deps.clock().toISOString() });
  const settled = await Promise.all(members.map((m) => awaitSettled(input, m.nodeId)));
  return { network, nodes: settled.filter((n): n is NodeRow => !!n) };
}
