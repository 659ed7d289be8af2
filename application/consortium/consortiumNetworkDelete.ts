// Deleting a consortium network: refused (409 naming them) while nodes that joined its channel
// remain; its chaincode servers go with it.
import { runCommand, type CommandInput } from '../commands.ts';
import { CONSORTIUM_NETWORKS_STREAM, consortiumNetworks } from '../../domain/consortium/consortiumNetwork.ts';
import { nodeAggregate, nodeStream } from '../../domain/nodes/node.ts';
import { consortiumNetworkMembers } from '../../projections/consortium/consortiumNetworks.ts';
import { getNode, listNodes } from '../../projections/nodes.ts';
import { consortiumNetworkOr404 } from './consortiumChannelAccess.ts';

export async function deleteConsortiumNetwork(input: CommandInput, networkId: number): Promise<void> {
  const { deps } = input;
  await consortiumNetworkOr404(deps, networkId);
  const joined = (await consortiumNetworkMembers(deps.pool, networkId)).filter((m) => m.joinedAt);
  const names = await Promise.all(joined.map(async (m) => ({ nodeId: m.nodeId, name: (await getNode(deps.pool, m.nodeId))?.name ?? String(m.nodeId) })));
  await runCommand(input, CONSORTIUM_NETWORKS_STREAM, consortiumNetworks, { type: 'DeleteConsortiumNetwork', networkId, joinedNodes: names, at: deps.clock().toISOString() });
  // Its chaincode servers serve only this network's channel and were made by its deploys, not
  // by the user: they go with it (stopped, their files removed by the lifecycle saga), after
  // the deletion was accepted so a refused one leaves them running.
  const servers = (await listNodes(deps.pool, { limit: 10_000, offset: 0, platform: 'CONSORTIUM', networkId })).items.filter((n) => n.role === 'chaincode');
  for (const n of servers) await runCommand(input, nodeStream(n.id), nodeAggregate, { type: 'DeleteNode', nodeId: n.id, at: deps.clock().toISOString() });
}
