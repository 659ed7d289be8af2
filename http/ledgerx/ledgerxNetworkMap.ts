// The map of a ledgerX network (GET /networks/ledgerx/{id}/map), in the style of the consortium
// map: its organizations, each with its orderer groups (party id, joined, the four roles with
// their endpoints, metrics URLs and status) and its committers (the five services likewise), and
// the network's client endpoints (routers take transactions, assemblers deliver ordered blocks,
// sidecars deliver committed blocks with statuses, query services answer state and statuses).
import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../application/deps.ts';
import type { LedgerXNetworkRow } from '../../projections/ledgerx/ledgerxNetworks.ts';
import { listNodes, type NodeRow } from '../../projections/nodes.ts';
import { LEDGERX_COMMITTER_ROLES, LEDGERX_ORDERER_ROLES, metricsUrl, type LedgerXCommitterGroupConfig, type LedgerXOrdererGroupConfig } from '../../domain/ledgerx/ledgerxNode.ts';

const Str = Type.Union([Type.String(), Type.Null()]);
const RoleView = Type.Object({
  role: Type.String(), node_id: Type.Integer(), name: Type.String(), status: Type.String(),
  endpoint: Type.String({ description: 'host:port of its gRPC service' }), monitoring_port: Type.Integer(), metrics_url: Str,
});
const GroupCommon = {
  node_id: Type.Integer(), name: Type.String(), status: Type.String({ description: 'the group\'s own status (its roles carry theirs)' }),
  joined: Type.Boolean(), joined_at: Str, external_ip: Type.String(),
};
export const LedgerXMapSchema = Type.Object({
  network_id: Type.Integer(), name: Type.String(), channel_name: Type.String(), orderer_type: Type.Literal('arma'),
  organizations: Type.Array(Type.Object({
    organization_id: Type.Integer(), msp_id: Type.String(),
    orderer_groups: Type.Array(Type.Object({ ...GroupCommon, party_id: Type.Union([Type.Integer(), Type.Null()]), roles: Type.Array(RoleView, { description: 'router, batcher, consenter, assembler' }) })),
    committers: Type.Array(Type.Object({ ...GroupCommon, services: Type.Array(RoleView, { description: 'sidecar, coordinator, vc (validator-committer), verifier, query (query-service)' }) })),
  })),
  endpoints: Type.Object({
    broadcast: Type.Array(Type.String(), { description: 'routers: where clients send transactions' }),
    deliver: Type.Array(Type.String(), { description: 'assemblers: ordered blocks' }),
    committed_blocks: Type.Array(Type.String(), { description: 'committers\' sidecars: committed blocks with each transaction\'s status (Deliver, BlockQueryService)' }),
    query: Type.Array(Type.String(), { description: 'committers\' query services: state, namespace policies, transaction statuses' }),
  }),
});

async function rowsOf(deps: AppDeps, ids: number[]): Promise<Map<number, NodeRow>> {
  if (!ids.length) return new Map();
  return new Map((await listNodes(deps.pool, { limit: 10_000, offset: 0, ids })).items.map((r) => [r.id, r]));
}

export async function ledgerXNetworkMap(deps: AppDeps, network: LedgerXNetworkRow) {
  const groups = await rowsOf(deps, network.nodes.map((m) => m.nodeId));
  const roleIds = [...groups.values()].flatMap((g) => Object.values((g.config as unknown as { roleNodeIds?: Record<string, number> }).roleNodeIds ?? {}));
  const roles = await rowsOf(deps, roleIds);
  const endpoints = { broadcast: [] as string[], deliver: [] as string[], committed_blocks: [] as string[], query: [] as string[] };
  const roleView = (role: string, nodeId: number, ip: string, port: number, monitoringPort: number) => {
    const r = roles.get(nodeId);
    return { role, node_id: nodeId, name: r?.name ?? String(nodeId), status: r?.status ?? 'deleted', endpoint: `${ip}:${port}`, monitoring_port: monitoringPort, metrics_url: metricsUrl(ip, monitoringPort) ?? null };
  };
  const organizations = new Map<string, { organization_id: number; msp_id: string; orderer_groups: unknown[]; committers: unknown[] }>();
  const orgOf = (m: LedgerXNetworkRow['nodes'][number]) => {
    let o = organizations.get(m.mspId);
    if (!o) organizations.set(m.mspId, (o = { organization_id: m.organizationId, msp_id: m.mspId, orderer_groups: [], committers: [] }));
    return o;
  };
  for (const m of network.nodes) {
    const g = groups.get(m.nodeId);
    const common = { node_id: m.nodeId, name: g?.name ?? String(m.nodeId), status: g?.status ?? 'deleted', joined: m.joinedAt !== null, joined_at: m.joinedAt };
    if (m.role === 'committer') {
      const c = g?.config as unknown as LedgerXCommitterGroupConfig | undefined;
      const services = c ? LEDGERX_COMMITTER_ROLES.map((r) => roleView(r, c.roleNodeIds[r], c.externalIp, c[`${r}Port`], c[`${r}MonitoringPort`])) : [];
      if (c) endpoints.committed_blocks.push(`${c.externalIp}:${c.sidecarPort}`), endpoints.query.push(`${c.externalIp}:${c.queryPort}`);
      orgOf(m).committers.push({ ...common, external_ip: c?.externalIp ?? '', services });
    } else {
      const c = g?.config as unknown as LedgerXOrdererGroupConfig | undefined;
      const view = c ? LEDGERX_ORDERER_ROLES.map((r) => roleView(r, c.roleNodeIds[r], c.externalIp, c[`${r}Port`], c[`${r}MonitoringPort`])) : [];
      if (c) endpoints.broadcast.push(`${c.externalIp}:${c.routerPort}`), endpoints.deliver.push(`${c.externalIp}:${c.assemblerPort}`);
      orgOf(m).orderer_groups.push({ ...common, party_id: m.partyId, external_ip: c?.externalIp ?? '', roles: view });
    }
  }
  return { network_id: network.id, name: network.name, channel_name: network.channelName, orderer_type: 'arma' as const, organizations: [...organizations.values()], endpoints };
}
