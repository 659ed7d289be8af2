// Peers and orderers of other instances as node sharing describes them: their public endpoint
// and the TLS CA of their organization's public MSP. With a channel spread over two instances,
// A's commit of a chaincode definition asks B's peer for its endorsement here, and B's approval
// is ordered by A's orderer when B runs no orderer of the channel. Only public metadata is used:
// the proposals are signed by this instance's own admin.
import type { AppDeps } from '../deps.ts';
import type { PeerAccess } from '../../domain/consortium/consortiumChaincodePorts.ts';
import type { Endpoint, FabricSigner } from '../../domain/consortium/consortiumPorts.ts';
import type { ConsortiumNetworkRow } from '../../projections/consortium/consortiumNetworks.ts';
import { listSharingPeers, sharedOrganization } from '../../projections/nodeSharing.ts';

function split(endpoint: string | null): { host: string; port: number } | null {
  const m = endpoint ? /^(.+):(\d{1,5})$/.exec(endpoint) : null;
  return m ? { host: m[1], port: Number(m[2]) } : null;
}

/** A peer of `mspId` that an active sharing peer shares (running ones first), reached with `signer`'s proposals; null when none is shared. */
export async function sharedPeerAccess(deps: AppDeps, mspId: string, signer: FabricSigner): Promise<PeerAccess | null> {
  const org = await sharedOrganization(deps.pool, mspId);
  if (!org) return null;
  const { items } = await listSharingPeers(deps.pool, 1000, 0);
  const nodes = items.filter((p) => p.status === 'active' && p.peerShares).flatMap((p) => p.nodes)
    .filter((n) => n.nodeType === 'CONSORTIUM_PEER' && n.mspId === mspId && split(n.endpoint))
    .sort((a, b) => Number(b.status === 'running') - Number(a.status === 'running'));
  if (!nodes.length) return null;
  return { peer: { ...split(nodes[0].endpoint)!, tlsCaCertPem: org.tlsCaCertPem }, signer };
}

/** An orderer of the channel run by a sharing peer: one of the channel's orderer endpoints, with its organization's TLS CA. */
export async function sharedOrdererEndpoint(deps: AppDeps, network: ConsortiumNetworkRow): Promise<Endpoint | null> {
  const { items } = await listSharingPeers(deps.pool, 1000, 0);
  const orderers = items.filter((p) => p.status === 'active' && p.peerShares).flatMap((p) => p.nodes)
    .filter((n) => n.nodeType === 'CONSORTIUM_ORDERER' && n.mspId && n.endpoint && network.ordererEndpoints.includes(n.endpoint))
    .sort((a, b) => Number(b.status === 'running') - Number(a.status === 'running'));
  for (const n of orderers) {
    const org = await sharedOrganization(deps.pool, n.mspId!);
    if (org) return { ...split(n.endpoint)!, tlsCaCertPem: org.tlsCaCertPem };
  }
  return null;
}
