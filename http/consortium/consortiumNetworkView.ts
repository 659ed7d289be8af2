// The consortium network read shape: the channel's record (organizations, orderer endpoints,
// anchor peers, config sequence) and its member nodes with whether each joined.
import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../application/deps.ts';
import { CONSORTIUM_NETWORK_STATUS } from '../../domain/consortium/consortiumNetwork.ts';
import { consortiumNetworkMembers, type ConsortiumNetworkRow } from '../../projections/consortium/consortiumNetworks.ts';
import { listNodes } from '../../projections/nodes.ts';
import { bftFaultsTolerated, bftQuorum } from '../../domain/consortium/consortiumDefaults.ts';

const MemberView = Type.Object({ node_id: Type.Integer(), name: Type.String(), role: Type.String(), organization_id: Type.Integer(), msp_id: Type.String(), status: Type.String(), joined: Type.Boolean(), joined_at: Type.Union([Type.String(), Type.Null()]) });
export const ConsortiumNetworkView = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  type: Type.Literal('consortium'),
  platform: Type.Literal('CONSORTIUM'),
  channel_name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  status: Type.String({ description: 'genesis_created: the record keeps it; readiness is per node (see nodes[].status and joined)' }),
  consensus: Type.String(),
  imported: Type.Boolean(),
  organizations: Type.Array(Type.Object({ organization_id: Type.Union([Type.Integer(), Type.Null()]), msp_id: Type.String() })),
  orderer_organizations: Type.Array(Type.Object({ organization_id: Type.Union([Type.Integer(), Type.Null()]), msp_id: Type.String() })),
  orderer_endpoints: Type.Array(Type.String()),
  anchor_peers: Type.Record(Type.String(), Type.Array(Type.Object({ host: Type.String(), port: Type.Integer() }))),
  config_sequence: Type.Integer(),
  nodes: Type.Array(MemberView),
  ordering: Type.Object({
    orderers: Type.Integer({ description: 'orderers of the channel recorded here' }),
    running: Type.Integer({ description: 'of them, running (the health monitor\'s status: not stopped, down or in error)' }),
    faults_tolerated: Type.Integer({ description: 'smartbft: floor((n-1)/3); etcdraft: floor((n-1)/2)' }),
    quorum: Type.Integer({ description: 'running orderers needed to order: smartbft ceil((n+f+1)/2), etcdraft a majority' }),
    can_order: Type.Boolean({ description: 'running >= quorum' }),
    reason: Type.Union([Type.String(), Type.Null()], { description: 'why it cannot order, naming the orderers that are not running' }),
  }, { description: 'whether the channel can cut blocks with the orderers that run now' }),
  created_at: Type.String(),
  updated_at: Type.String(),
});

export async function consortiumNetworkView(deps: AppDeps, n: ConsortiumNetworkRow) {
  const members = await consortiumNetworkMembers(deps.pool, n.id);
  const rows = new Map((await listNodes(deps.pool, { limit: 10_000, offset: 0, ids: members.map((m) => m.nodeId) })).items.map((r) => [r.id, r]));
  const org = (o: { organizationId: number | null; mspId: string }) => ({ organization_id: o.organizationId, msp_id: o.mspId });
  const orderers = members.filter((m) => m.role === 'orderer');
  const notRunning = orderers.filter((m) => rows.get(m.nodeId)?.status !== 'running').map((m) => rows.get(m.nodeId)?.name ?? String(m.nodeId));
  const total = orderers.length;
  const bft = n.consensus === 'smartbft';
  const faults = bft ? bftFaultsTolerated(total) : Math.floor((total - 1) / 2);
  const quorum = bft ? bftQuorum(total) : Math.floor(total / 2) + 1;
  const running = total - notRunning.length;
  return {
    id: n.id,
    name: n.name,
    type: 'consortium' as const,
    platform: 'CONSORTIUM' as const,
    channel_name: n.channelName,
    description: n.description,
    status: CONSORTIUM_NETWORK_STATUS,
    consensus: n.consensus,
    imported: n.imported,
    organizations: n.organizations.map(org),
    orderer_organizations: n.ordererOrganizations.map(org),
    orderer_endpoints: n.ordererEndpoints,
    anchor_peers: n.anchorPeers,
    config_sequence: n.configSequence,
    nodes: members.map((m) => ({
      node_id: m.nodeId, name: rows.get(m.nodeId)?.name ?? String(m.nodeId), role: m.role, organization_id: m.organizationId, msp_id: m.mspId,
      status: rows.get(m.nodeId)?.status ?? 'deleted', joined: m.joinedAt !== null, joined_at: m.joinedAt,
    })),
    ordering: {
      orderers: total, running, faults_tolerated: Math.max(0, faults), quorum, can_order: total > 0 && running >= quorum,
      reason: total > 0 && running >= quorum ? null : total === 0 ? 'no orderer of the channel is a node of this service' : `${running} of ${total} ${bft ? 'SmartBFT' : 'raft'} orderers run, ${quorum} are needed; not running: ${notRunning.join(', ') || '(none recorded)'}`,
    },
    created_at: n.createdAt,
    updated_at: n.updatedAt,
  };
}

