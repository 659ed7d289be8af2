// How the service reaches a consortium network's nodes: loopback endpoints checked against the
// node's TLS CA and hostname, the organization identities it holds, and the running joined
// node to read a channel from.
import type { AppDeps } from '../deps.ts';
import { consortiumRoutes } from './consortiumRoutes.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../domain/shared/errors.ts';
import type { Endpoint, FabricSigner } from '../../domain/consortium/consortiumPorts.ts';
import type { PeerReader } from '../../domain/consortium/consortiumChannelPorts.ts';
import { isOrdererConfig } from '../../domain/consortium/consortiumNode.ts';
import { getNode, listNodes, type NodeRow } from '../../projections/nodes.ts';
import { consortiumNetworkMembers, getConsortiumNetwork, getConsortiumNetworkByName, type ConsortiumNetworkRow } from '../../projections/consortium/consortiumNetworks.ts';
import { consortiumOf } from './consortiumContext.ts';

export async function consortiumNetworkOr404(deps: AppDeps, id: number): Promise<ConsortiumNetworkRow> {
  const n = await getConsortiumNetwork(deps.pool, id);
  if (!n) throw new NotFoundError('Network', id);
  return n;
}

/** /networks/{networkId}/channels/{channelName}/...: the network, whose channel must be that one. */
export async function channelNetworkOr404(deps: AppDeps, networkId: number, channelName: string): Promise<ConsortiumNetworkRow> {
  const n = await consortiumNetworkOr404(deps, networkId);
  if (n.channelName !== channelName) throw new NotFoundError('Channel', `${channelName} (network ${n.name} is channel ${n.channelName})`);
  return n;
}

export async function consortiumNetworkByNameOr404(deps: AppDeps, name: string): Promise<ConsortiumNetworkRow> {
  const n = await getConsortiumNetworkByName(deps.pool, name);
  if (!n) throw new NotFoundError('Network', name);
  return n;
}

export async function consortiumNodeOr404(deps: AppDeps, id: number, role?: 'peer' | 'orderer'): Promise<NodeRow> {
  const n = await getNode(deps.pool, id);
  if (!n || n.platform !== 'CONSORTIUM') throw new NotFoundError(role === 'orderer' ? 'Orderer' : role === 'peer' ? 'Peer' : 'Node', id);
  if (role && n.role !== role) throw new ValidationError(`Node ${n.name} is a ${n.role}, not a ${role}.`, [{ field: role === 'orderer' ? 'ordererId' : 'peerId', message: `is a ${n.role}` }]);
  return n;
}

async function tlsCaOf(deps: AppDeps, organizationId: number): Promise<string> {
  return (await consortiumOf(deps).credentials.organizationMsp(organizationId)).tlsCaCertPem;
}

/** The node's gRPC endpoint (peer: endorser, deliver, gateway; orderer: broadcast, deliver). */
export async function grpcEndpoint(deps: AppDeps, node: NodeRow): Promise<Endpoint> {
  const c = node.consortiumConfig!;
  return { host: c.externalIp ?? '127.0.0.1', port: c.port, tlsCaCertPem: await tlsCaOf(deps, node.organizationId!), serverName: c.hostname };
}

/** The orderer's channel participation endpoint (mutual TLS). */
export async function adminEndpoint(deps: AppDeps, node: NodeRow): Promise<Endpoint> {
  const c = node.consortiumConfig!;
  if (!isOrdererConfig(c)) throw new ValidationError(`Node ${node.name} is not an orderer.`, [{ field: 'ordererId', message: 'not an orderer' }]);
  return { host: c.externalIp ?? '127.0.0.1', port: c.adminPort, tlsCaCertPem: await tlsCaOf(deps, node.organizationId!), serverName: c.hostname };
}

export function assertRunning(node: NodeRow, action: string): void {
  if (node.status !== 'running') {
    throw new ConflictError(`Node ${node.name} is ${node.status}: it must be running to ${action}. Start it first.`, { nodeId: node.id, status: node.status }, 'NODE_NOT_RUNNING');
  }
}

/** Admin signers of every organization of the network that this service holds. */
export async function networkSigners(deps: AppDeps, network: ConsortiumNetworkRow): Promise<FabricSigner[]> {
  const ids = [...new Set([...network.organizations, ...network.ordererOrganizations].map((o) => o.organizationId).filter((id): id is number => typeof id === 'number'))];
  const out: FabricSigner[] = [];
  for (const id of ids) {
    const signer = await consortiumOf(deps).credentials.adminSigner(id).catch(() => null);
    if (signer) out.push(signer);
  }
  return out;
}

async function runningJoined(deps: AppDeps, network: ConsortiumNetworkRow, role: 'peer' | 'orderer'): Promise<NodeRow[]> {
  const members = (await consortiumNetworkMembers(deps.pool, network.id)).filter((m) => m.role === role && m.joinedAt);
  if (!members.length) return [];
  const rows = (await listNodes(deps.pool, { limit: 10_000, offset: 0, ids: members.map((m) => m.nodeId) })).items;
  return rows.filter((n) => n.status === 'running');
}

/** A running peer that joined the channel, with its organization's admin identity: reads blocks and transactions. */
export async function peerReader(deps: AppDeps, network: ConsortiumNetworkRow): Promise<PeerReader> {
  const peers = await runningJoined(deps, network, 'peer');
  if (!peers.length) throw new ConflictError(`No running peer of network ${network.name} has joined channel ${network.channelName}: join a peer to the channel, or start a joined one.`, { networkId: network.id }, 'NO_JOINED_PEER');
  const peer = peers[0];
  return { peer: await grpcEndpoint(deps, peer), signer: await consortiumOf(deps).credentials.adminSigner(peer.organizationId!) };
}

/**
 * The network and its peer reader for the explorer's reads (chain info, blocks, transactions):
 * read once and kept until an event that changes the network, its members, a node or an
 * organization's keys is projected (consortiumRoutes.ts); a failed look-up (404, no joined peer)
 * is not kept.
 */
export function networkReader(deps: AppDeps, networkId: number): Promise<{ network: ConsortiumNetworkRow; reader: PeerReader }> {
  return consortiumRoutes(deps).get(`reader:${networkId}`, async () => {
    const network = await consortiumNetworkOr404(deps, networkId);
    return { network, reader: await peerReader(deps, network) };
  });
}

/** A running orderer that joined the channel: config reads and config updates go through it. */
export async function joinedOrderer(deps: AppDeps, network: ConsortiumNetworkRow): Promise<{ node: NodeRow; endpoint: Endpoint; signer: FabricSigner }> {
  const orderers = await runningJoined(deps, network, 'orderer');
  if (!orderers.length) throw new ConflictError(`No running orderer of network ${network.name} has joined channel ${network.channelName}: join an orderer to the channel, or start a joined one.`, { networkId: network.id }, 'NO_JOINED_ORDERER');
  const node = orderers[0];
  return { node, endpoint: await grpcEndpoint(deps, node), signer: await consortiumOf(deps).credentials.adminSigner(node.organizationId!) };
}

/**
 * The orderer a config update goes to: a running joined orderer its channel participation API
 * reports as a consenter of the channel (a follower, or a consenter removed from the set, does
 * not order); the first running joined one when none says so or none can be asked. `avoidNodeId`:
 * another consenter if there is one (the one a change removes from the set stops ordering when
 * the change lands, and may not serve the block that removes it). On a smartbft channel,
 * `consenters` lists every running joined active consenter but `avoidNodeId` (with the chosen
 * one): the service's envelopes go to each of them (fabricGrpcBroadcast.ts broadcastToOrdering),
 * since a SmartBFT follower holds a request for requestForwardTimeout before the leader sees it.
 */
export async function orderingOrderer(deps: AppDeps, network: ConsortiumNetworkRow, avoidNodeId?: number): Promise<{ node: NodeRow; endpoint: Endpoint; signer: FabricSigner; consenters?: Endpoint[] }> {
  const first = await joinedOrderer(deps, network);
  const orderers = await runningJoined(deps, network, 'orderer');
  if (orderers.length > 1) {
    const ordered = [...orderers.filter((n) => n.id !== avoidNodeId), ...orderers.filter((n) => n.id === avoidNodeId)];
    const active: NodeRow[] = [];
    for (const node of ordered) {
      const relation = await consortiumOf(deps).channels.ordererChannel(await adminEndpoint(deps, node), await consortiumOf(deps).credentials.adminTlsClient(node.organizationId!), network.channelName).catch(() => null);
      if (relation?.consensusRelation === 'consenter' && relation.status === 'active') {
        active.push(node);
        if (network.consensus !== 'smartbft') break;
      }
    }
    if (active.length) {
      const node = active[0];
      const chosen = { node, endpoint: await grpcEndpoint(deps, node), signer: await consortiumOf(deps).credentials.adminSigner(node.organizationId!) };
      if (network.consensus !== 'smartbft') return chosen;
      const others = active.filter((n) => n.id !== avoidNodeId || n.id === node.id);
      return { ...chosen, consenters: await Promise.all(others.map((n) => grpcEndpoint(deps, n))) };
    }
  }
  return first;
}
