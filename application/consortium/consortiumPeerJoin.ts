// Joining a peer to a consortium network's channel (JoinChain signed by its organization's
// admin), idempotently, recorded with RecordNodeJoined.
import { runCommand, type CommandInput } from '../commands.ts';
import { ValidationError } from '../../domain/shared/errors.ts';
import { CONSORTIUM_NETWORKS_STREAM, consortiumNetworks } from '../../domain/consortium/consortiumNetwork.ts';
import type { ChannelJoined } from './consortiumOrdererJoin.ts';
import { consortiumOf } from './consortiumContext.ts';
import { assertRunning, consortiumNetworkOr404, consortiumNodeOr404, grpcEndpoint } from './consortiumChannelAccess.ts';

export async function joinPeerToChannel(input: CommandInput, networkId: number, peerId: number): Promise<ChannelJoined> {
  const { deps } = input;
  const network = await consortiumNetworkOr404(deps, networkId);
  const node = await consortiumNodeOr404(deps, peerId, 'peer');
  const org = network.organizations.find((o) => o.organizationId === node.organizationId);
  if (!org) throw new ValidationError(`Peer ${node.name} belongs to an organization that is not an application organization of channel ${network.channelName}.`, [{ field: 'peerId', message: 'a peer of another organization' }]);
  assertRunning(node, `join channel ${network.channelName}`);
  const consortium = consortiumOf(deps);
  const result = await consortium.channels.joinPeer(await grpcEndpoint(deps, node), await consortium.credentials.adminSigner(node.organizationId!), Buffer.from(network.genesisBlock, 'base64'));
  await runCommand(input, CONSORTIUM_NETWORKS_STREAM, consortiumNetworks, { type: 'RecordNodeJoined', networkId: network.id, node: { nodeId: node.id, role: 'peer', organizationId: node.organizationId!, mspId: org.mspId }, at: deps.clock().toISOString() });
  return { network, node, alreadyJoined: result.alreadyJoined };
}
