// Adding a peer or orderer to a consortium network: the node created in one of the network's
// organizations for that role (default: the first), on the Fabric release asked for (default: the
// newest found, as POST /nodes), recorded as a member, and returned once its first start settled. It joins the channel afterwards (consortiumOrdererJoin.ts, consortiumPeerJoin.ts).
import { runCommand, type CommandInput } from '../commands.ts';
import { ValidationError } from '../../domain/shared/errors.ts';
import { CONSORTIUM_NETWORKS_STREAM, consortiumNetworks } from '../../domain/consortium/consortiumNetwork.ts';
import { getNode, type NodeRow } from '../../projections/nodes.ts';
import { awaitSettled } from '../evm/evmNodeCreate.ts';
import { consortiumNetworkOr404 } from './consortiumChannelAccess.ts';
import { createConsortiumNode } from './consortiumNodeCreate.ts';

export interface ConsortiumNetworkNodeRequest {
  name: string;
  nodeType: 'CONSORTIUM_PEER' | 'CONSORTIUM_ORDERER';
  organizationId?: number;
  /** A Fabric release the service finds (config.fabricVersion of POST /nodes); an unknown one is the node create's 400. */
  fabricVersion?: string;
}

export async function addConsortiumNetworkNode(input: CommandInput, networkId: number, req: ConsortiumNetworkNodeRequest): Promise<NodeRow> {
  const { deps } = input;
  const network = await consortiumNetworkOr404(deps, networkId);
  const orgs = req.nodeType === 'CONSORTIUM_PEER' ? network.organizations : network.ordererOrganizations;
  const organizationId = req.organizationId ?? orgs.find((o) => o.organizationId !== null)?.organizationId ?? undefined;
  if (organizationId !== undefined && !orgs.some((o) => o.organizationId === organizationId)) {
    throw new ValidationError(`Organization ${organizationId} is not a ${req.nodeType === 'CONSORTIUM_PEER' ? 'peer' : 'orderer'} organization of network ${network.name}.`, [{ field: 'organizationId', message: 'not an organization of this network for that node type' }]);
  }
  const nodeId = await createConsortiumNode(input, { name: req.name, nodeType: req.nodeType, organizationId, fabricVersion: req.fabricVersion, config: {} });
  const node = (await getNode(deps.pool, nodeId))!;
  await runCommand(input, CONSORTIUM_NETWORKS_STREAM, consortiumNetworks, { type: 'AddNetworkNode', networkId: network.id, node: { nodeId, role: node.role as 'peer' | 'orderer', organizationId: node.organizationId!, mspId: orgs.find((o) => o.organizationId === node.organizationId)!.mspId }, at: deps.clock().toISOString() });
  return (await awaitSettled(input, nodeId)) ?? node;
}
