// The consortium network read shape: the channel's record (organizations, orderer endpoints,
// anchor peers, config sequence) and its member nodes with whether each joined.
import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../application/deps.ts';
import { CONSORTIUM_NETWORK_STATUS } from '../../domain/consortium/consortiumNetwork.ts';
import { consortiumNetworkMembers, type ConsortiumNetworkRow } from '../../projections/consortium/consortiumNetworks.ts';
import { listNodes } from '../../projections/nodes.ts';

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
  created_at: Type.String(),
  updated_at: Type.String(),
});

export async function consortiumNetworkView(deps: AppDeps, n: ConsortiumNetworkRow) {
  const members = await consortiumNetworkMembers(deps.pool, n.id);
  const rows = new Map((await listNodes(deps.pool, { limit: 10_000, offset: 0, ids: members.map((m) => m.nodeId) })).items.map((r) => [r.id, r]));
  const org = (o: { organizationId: number | null; mspId: string }) => ({ organization_id: o.organizationId, msp_id: o.mspId });
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
    created_at: n.createdAt,
    updated_at: n.updatedAt,
  };
}

