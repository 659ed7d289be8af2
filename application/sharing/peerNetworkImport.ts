// Importing a peer instance's channel that an organization of this instance was added to: the
// peer must be active and share the channel; the channel is recorded here from its block 0 as
// the peer shared it (importSharedNetwork), and the peer relationship notes which local network
// it became.
import { runCommand, type CommandInput } from '../commands.ts';
import { ForbiddenError, NotFoundError } from '../../domain/shared/errors.ts';
import { NODE_SHARING_STREAM, nodeSharing } from '../../domain/sharing/nodeSharing.ts';
import { getSharingPeer } from '../../projections/nodeSharing.ts';
import { importSharedNetwork } from './sharedNetworkImport.ts';

export async function importPeerNetwork(input: CommandInput, peerId: number, peerNetworkId: number, name?: string): Promise<{ networkId: number; name: string; channelName: string; peerId: number }> {
  const peer = await getSharingPeer(input.deps.pool, peerId);
  if (!peer) throw new NotFoundError('Peer', peerId);
  if (peer.status !== 'active') throw new ForbiddenError(`Peer ${peer.id} was revoked.`);
  const shared = peer.networks.find((n) => n.networkId === peerNetworkId);
  if (!shared) throw new NotFoundError('Shared network', peerNetworkId);
  const id = await importSharedNetwork(input, shared, name ?? shared.name);
  await runCommand(input, NODE_SHARING_STREAM, nodeSharing, { type: 'RecordSharedNetworkReceived', peerId: peer.id, peerNetworkId: shared.networkId, localNetworkId: id, channelName: shared.channelName, at: input.deps.clock().toISOString() });
  return { networkId: id, name: name ?? shared.name, channelName: shared.channelName, peerId: peer.id };
}
