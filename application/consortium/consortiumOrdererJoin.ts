// Joining an orderer to a consortium network's channel through its channel participation API
// (mutual TLS, the organization's admin TLS client), idempotently, recorded with RecordNodeJoined.
import { runCommand, type CommandInput } from '../commands.ts';
import { ValidationError } from '../../domain/shared/errors.ts';
import { CONSORTIUM_NETWORKS_STREAM, consortiumNetworks } from '../../domain/consortium/consortiumNetwork.ts';
import type { ConsortiumNetworkRow } from '../../projections/consortium/consortiumNetworks.ts';
import type { NodeRow } from '../../projections/nodes.ts';
import { consortiumOf } from './consortiumContext.ts';
import { adminEndpoint, assertRunning, consortiumNetworkOr404, consortiumNodeOr404 } from './consortiumChannelAccess.ts';

export interface ChannelJoined {
  network: ConsortiumNetworkRow;
  node: NodeRow;
  /** The node had the channel before this call (joining twice changes nothing). */
  alreadyJoined: boolean;
  /** What an orderer's channel participation API reports. */
  orderer?: { status: string; consensusRelation: string; height: number };
}

export async function joinOrdererToChannel(input: CommandInput, networkId: number, ordererId: number): Promise<ChannelJoined> {
  const { deps } = input;
  const network = await consortiumNetworkOr404(deps, networkId);
  const node = await consortiumNodeOr404(deps, ordererId, 'orderer');
  const org = network.ordererOrganizations.find((o) => o.organizationId === node.organizationId);
  if (!org) throw new ValidationError(`Orderer ${node.name} belongs to an organization that is not an orderer organization of channel ${network.channelName}.`, [{ field: 'ordererId', message: 'an orderer of another organization' }]);
  assertRunning(node, `join channel ${network.channelName}`);
  const consortium = consortiumOf(deps);
  const endpoint = await adminEndpoint(deps, node);
  const client = await consortium.credentials.adminTlsClient(node.organizationId!);
  const before = await consortium.channels.ordererChannel(endpoint, client, network.channelName);
  const info = before ?? (await consortium.channels.joinOrderer(endpoint, client, network.channelName, Buffer.from(network.genesisBlock, 'base64')));
  await runCommand(input, CONSORTIUM_NETWORKS_STREAM, consortiumNetworks, { type: 'RecordNodeJoined', networkId: network.id, node: { nodeId: node.id, role: 'orderer', organizationId: node.organizationId!, mspId: org.mspId }, at: deps.clock().toISOString() });
  return { network, node, alreadyJoined: before !== null, orderer: { status: info.status, consensusRelation: info.consensusRelation, height: info.height } };
}
