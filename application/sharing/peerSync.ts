// Syncing with a peer instance: its current node metadata pulled (and this instance's pushed,
// when it shares with the peer) over pinned TLS, and recorded. A revoked peer is a 403.
import { runCommand, type CommandInput } from '../commands.ts';
import { ForbiddenError, NotFoundError } from '../../domain/shared/errors.ts';
import { NODE_SHARING_STREAM, nodeSharing } from '../../domain/sharing/nodeSharing.ts';
import { getSharingPeer } from '../../projections/nodeSharing.ts';
import { instanceIdentity, localMetadata } from './sharingContext.ts';
import { MetadataBody, checkedAnswer, receivedMetadata } from './sharingBodies.ts';
import { signedCall } from './peerCalls.ts';

export async function syncPeer(input: CommandInput, peerId: number): Promise<void> {
  const { deps } = input;
  const peer = await getSharingPeer(deps.pool, peerId);
  if (!peer) throw new NotFoundError('Peer', peerId);
  if (peer.status !== 'active') throw new ForbiddenError(`Peer ${peer.id} was revoked.`);
  const me = await instanceIdentity(input);
  const mine = peer.sharesWithPeer ? await localMetadata(deps, peer.organizations.map((o) => o.mspId)) : { nodes: [], organizations: [], networks: [] };
  const r = await signedCall(deps, me, peer.instanceId, peer.url, peer.tlsCertificate, '/sharing/v1/sync', mine);
  await runCommand(input, NODE_SHARING_STREAM, nodeSharing, { type: 'RecordPeerNodes', peerId: peer.id, ...(peer.peerShares ? receivedMetadata(checkedAnswer(MetadataBody, r.body, 'POST /sharing/v1/sync')) : { nodes: [], organizations: [], networks: [] }), at: deps.clock().toISOString() });
}
