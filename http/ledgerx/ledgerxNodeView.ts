// The node read shape of a ledgerX node: the fields every node has (SPEC "Node read") plus, for
// an orderer group, `ledgerXOrdererGroup` (externalIp, routerPort, routerMonitoringPort and the
// four roles' metrics URLs) and its roles; for a role node, `ledgerXChild` (its group, role,
// ports and metricsUrl). A metrics URL is http://<externalIp>:<monitoringPort>/metrics, left out
// when either is zero (SPEC).
import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../application/deps.ts';
import type { NodeRow } from '../../projections/nodes.ts';
import { lastProbe, lastReadings } from '../evm/evmNodeView.ts';
import type { NodeObservation } from '../../domain/nodes/nodeObservations.ts';
import { LEDGERX_COMMITTER_ROLES, LEDGERX_ORDERER_ROLES, metricsUrl, type LedgerXCommitterGroupConfig, type LedgerXOrdererGroupConfig, type LedgerXRoleConfig } from '../../domain/ledgerx/ledgerxNode.ts';

const Str = Type.Union([Type.String(), Type.Null()]);
export const LedgerXNodeViewSchema = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  platform: Type.Literal('LEDGERX'),
  nodeType: Type.String({ description: 'LEDGERX_ORDERER_GROUP, or a role of one: LEDGERX_ORDERER_ROUTER, _BATCHER, _CONSENTER, _ASSEMBLER' }),
  role: Type.String({ description: 'orderer-group, router, batcher, consenter or assembler' }),
  status: Type.String(),
  healthy: Type.Union([Type.Boolean(), Type.Null()]),
  last_probe: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()]),
  block_height: Type.Union([Type.Integer(), Type.Null()], { description: 'from the health monitor\'s last probe: the height the committer sidecar (sidecar_ledger_block_height) or the orderer assembler (assembler_ledger_blocks_count_total) exports on its /metrics; a group: its sidecar\'s or assembler\'s; null for the roles that keep no ledger and while the node is not running' }),
  peer_count: Type.Union([Type.Integer(), Type.Null()], { description: 'always null: no Fabric-X role exports a count of peers' }),
  uptime_seconds: Type.Union([Type.Integer(), Type.Null()]),
  client: Type.Literal('fabric-x'),
  engine: Type.String(),
  organization_id: Type.Integer(),
  network_id: Type.Union([Type.Integer(), Type.Null()]),
  ledgerXOrdererGroup: Type.Optional(Type.Object({
    externalIp: Type.String(), routerPort: Type.Integer(), routerMonitoringPort: Type.Integer(),
    batcherPort: Type.Integer(), consenterPort: Type.Integer(), assemblerPort: Type.Integer(),
    batcherMonitoringPort: Type.Integer(), consenterMonitoringPort: Type.Integer(), assemblerMonitoringPort: Type.Integer(),
    routerMetricsUrl: Type.Optional(Type.String()), batcherMetricsUrl: Type.Optional(Type.String()), consenterMetricsUrl: Type.Optional(Type.String()), assemblerMetricsUrl: Type.Optional(Type.String()),
    roles: Type.Array(Type.Object({ role: Type.String(), nodeId: Type.Integer() })),
  })),
  ledgerXCommitter: Type.Optional(Type.Object({
    externalIp: Type.String(),
    sidecarPort: Type.Integer(), coordinatorPort: Type.Integer(), vcPort: Type.Integer(), verifierPort: Type.Integer(), queryPort: Type.Integer(),
    sidecarMonitoringPort: Type.Integer(), coordinatorMonitoringPort: Type.Integer(), vcMonitoringPort: Type.Integer(), verifierMonitoringPort: Type.Integer(), queryMonitoringPort: Type.Integer(),
    sidecarMetricsUrl: Type.Optional(Type.String()), coordinatorMetricsUrl: Type.Optional(Type.String()), vcMetricsUrl: Type.Optional(Type.String()), verifierMetricsUrl: Type.Optional(Type.String()), queryMetricsUrl: Type.Optional(Type.String()),
    database: Type.Object({ host: Type.String(), port: Type.Integer(), name: Type.String(), user: Type.String(), external: Type.Optional(Type.Boolean({ description: 'given at creation as a connection string (the service neither made it nor drops it)' })) }, { description: 'its PostgreSQL database (the password is never shown)' }),
    roles: Type.Array(Type.Object({ role: Type.String(), nodeId: Type.Integer() })),
  }, { description: 'LEDGERX_COMMITTER: its services\' ports and metrics URLs (vc is the validator-committer, query the query-service)' })),
  ledgerXChild: Type.Optional(Type.Object({ groupId: Type.Integer(), role: Type.String(), grpcPort: Type.Integer(), monitoringPort: Type.Integer(), metricsUrl: Type.Optional(Type.String()) })),
  config: Type.Record(Type.String(), Type.Unknown()),
  error: Str,
  started_at: Str,
  created_at: Type.String(),
  updated_at: Type.String(),
});

/** A committer's database given at creation keeps its password sealed in the record: never shown, not even sealed. */
function withoutSealed(config: Record<string, unknown>): Record<string, unknown> {
  const database = config.database as { sealedPassword?: string } | undefined;
  if (!database?.sealedPassword) return config;
  const { sealedPassword: _s, ...rest } = database;
  return { ...config, database: rest };
}

export async function ledgerXNodeView(deps: AppDeps, row: NodeRow, opts: { observation?: NodeObservation | null } = {}) {
  const running = row.status === 'running' || row.status === 'down';
  const observation = opts.observation !== undefined ? opts.observation : (await lastReadings(deps, [row])).get(row.id) ?? null;
  const config = withoutSealed(row.config as unknown as Record<string, unknown>);
  const base = {
    id: row.id,
    name: row.name,
    platform: 'LEDGERX' as const,
    nodeType: row.nodeType,
    role: row.role,
    status: row.status,
    healthy: running && observation ? observation.status === 'healthy' : null,
    last_probe: lastProbe(observation),
    block_height: running && observation ? observation.blockHeight : null,
    peer_count: null,
    uptime_seconds: running && row.startedAt ? Math.max(0, Math.floor((deps.clock().getTime() - Date.parse(row.startedAt)) / 1000)) : null,
    client: 'fabric-x' as const,
    engine: row.engine,
    organization_id: row.organizationId!,
    network_id: row.networkId ?? null,
    config,
    error: row.error,
    started_at: row.startedAt,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
  if (row.nodeType === 'LEDGERX_ORDERER_GROUP') {
    const c = row.config as unknown as LedgerXOrdererGroupConfig;
    const { roleNodeIds, ...ports } = c;
    const urls = Object.fromEntries(LEDGERX_ORDERER_ROLES.flatMap((r) => {
      const u = metricsUrl(c.externalIp, c[`${r}MonitoringPort`]);
      return u ? [[`${r}MetricsUrl`, u]] : [];
    }));
    return { ...base, ledgerXOrdererGroup: { ...ports, ...urls, roles: LEDGERX_ORDERER_ROLES.map((r) => ({ role: r, nodeId: roleNodeIds[r] })) } };
  }
  if (row.nodeType === 'LEDGERX_COMMITTER') {
    const c = config as unknown as LedgerXCommitterGroupConfig;
    const { roleNodeIds, ...ports } = c;
    const urls = Object.fromEntries(LEDGERX_COMMITTER_ROLES.flatMap((r) => {
      const u = metricsUrl(c.externalIp, c[`${r}MonitoringPort`]);
      return u ? [[`${r}MetricsUrl`, u]] : [];
    }));
    return { ...base, ledgerXCommitter: { ...ports, ...urls, roles: LEDGERX_COMMITTER_ROLES.map((r) => ({ role: r, nodeId: roleNodeIds[r] })) } };
  }
  const c = row.config as unknown as LedgerXRoleConfig;
  const u = metricsUrl(c.externalIp, c.monitoringPort);
  return { ...base, ledgerXChild: { groupId: c.groupId, role: c.role, grpcPort: c.grpcPort, monitoringPort: c.monitoringPort, ...(u ? { metricsUrl: u } : {}) } };
}
