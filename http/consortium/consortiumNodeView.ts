// The node read shape for a consortium node: the fields every node has (SPEC "Node read": id,
// name, status, block_height, peer_count, uptime_seconds) plus its organization, Fabric
// endpoints, keys and the networks (channels) it belongs to.
import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../application/deps.ts';
import type { NodeRow } from '../../projections/nodes.ts';
import { isChaincodeServer, isOrdererConfig, type ConsortiumChaincodeNodeCreatedData, type ConsortiumChaincodeServerConfig } from '../../domain/consortium/consortiumNode.ts';
import { nodeNetworks } from '../../projections/consortium/consortiumNetworks.ts';
import { consortiumOf } from '../../application/consortium/consortiumContext.ts';
import { lastProbe, lastReadings } from '../evm/evmNodeView.ts';
import { consortiumNodeRecord } from '../../application/consortium/consortiumNodeRecord.ts';
import type { NodeObservation } from '../../domain/nodes/nodeObservations.ts';
import type { ConsortiumLedgerReadings } from '../../domain/consortium/consortiumPorts.ts';

const Str = Type.Union([Type.String(), Type.Null()]);
const Int = Type.Union([Type.Integer(), Type.Null()]);
export const ConsortiumNodeViewSchema = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  platform: Type.Literal('CONSORTIUM'),
  nodeType: Type.String({ description: 'CONSORTIUM_PEER, CONSORTIUM_ORDERER or CONSORTIUM_CHAINCODE (a chaincode server)' }),
  role: Type.String({ description: 'peer, orderer or chaincode' }),
  status: Type.String({ description: 'created, starting, running, stopping, stopped, error (could not start; see error), down (failed its health checks)' }),
  healthy: Type.Union([Type.Boolean(), Type.Null()], { description: 'GET /nodes/{id}: what the node\'s /healthz answered just now; lists: from last_probe (null when it is not running)' }),
  last_probe: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], { description: 'the health monitor\'s last reading: status, at, healthy_at, error' }),
  block_height: Type.Union([Type.Integer(), Type.Null()], { description: 'a peer or orderer: the height of its highest ledger (its channels\' heights are under networks; 0 before it joins one), from its operations endpoint\'s /metrics; GET /nodes/{id} reads it live, lists from the last probe; null while it is not running and for a chaincode server' }),
  peer_count: Type.Union([Type.Integer(), Type.Null()], { description: 'a peer: the most peers its gossip knows on one channel; an orderer: the most other raft consenters active on one channel; read like block_height' }),
  uptime_seconds: Int,
  client: Type.Literal('fabric'),
  engine: Type.String(),
  fabric_version: Type.Union([Type.String(), Type.Null()], { description: 'the Fabric release a peer or orderer runs, recorded at creation (config.fabricVersion): process engine, its programs; docker engine, a node host\'s Docker or a Kubernetes cluster, its release image (lnm-fabric-peer:<version>); null for docker and node-host nodes run from the configured image (no versioned image there), chaincode servers and nodes made before releases were recorded' }),
  organization_id: Type.Integer(),
  msp_id: Type.String(),
  network_id: Type.Union([Type.Integer(), Type.Null()], { description: 'a chaincode server: the network whose chaincode it runs; peers and orderers: null (see networks)' }),
  networks: Type.Array(Type.Object({ network_id: Type.Integer(), name: Type.String(), channel_name: Type.String(), joined: Type.Boolean(), joined_at: Str, block_height: Type.Optional(Int) }, { description: 'block_height (GET /nodes/{id} of a running node): this node\'s ledger height on that channel' })),
  endpoints: Type.Object({ grpc: Type.String(), external: Type.String(), operations: Str, metrics: Str, admin: Str, chaincode: Str }),
  identity_key_id: Int,
  tls_key_id: Int,
  config: Type.Record(Type.String(), Type.Unknown()),
  error: Str,
  started_at: Str,
  created_at: Type.String(),
  updated_at: Type.String(),
});

export async function consortiumNodeView(deps: AppDeps, row: NodeRow, opts: { live?: boolean; observation?: NodeObservation | null } = {}) {
  const c = row.consortiumConfig!;
  const running = row.status === 'running' || row.status === 'down';
  const record = await consortiumNodeRecord(deps, row);
  const observation = opts.observation !== undefined ? opts.observation : (await lastReadings(deps, [row])).get(row.id) ?? null;
  // Lists answer from the health monitor's last reading; a single read asks /healthz now.
  let healthy: boolean | null = running && observation ? observation.status === 'healthy' : null;
  const server = isChaincodeServer(row) ? (c as unknown as ConsortiumChaincodeServerConfig) : null;
  let ledgers: ConsortiumLedgerReadings | null = null;
  if (running && opts.live !== false && record && deps.consortium) {
    const target = { node: record, organization: { organizationId: record.organizationId, name: record.mspId, mspId: record.mspId } };
    healthy = server
      ? await consortiumOf(deps).chaincodes.servers.live(record as unknown as ConsortiumChaincodeNodeCreatedData, 1500).then(() => true, () => false)
      : await consortiumOf(deps).runtime.live(target, 1500).then(() => true, () => false);
    if (healthy && !server) ledgers = await consortiumOf(deps).runtime.ledgers(target, 1500).catch(() => null);
  }
  const height = (channel: string) => ledgers?.channels.find((c) => c.channel === channel)?.blockHeight ?? null;
  const networks = await nodeNetworks(deps.pool, row.id);
  return {
    id: row.id,
    name: row.name,
    platform: 'CONSORTIUM' as const,
    nodeType: row.nodeType,
    role: row.role,
    status: row.status,
    healthy,
    last_probe: lastProbe(observation),
    block_height: !running || server ? null : ledgers ? ledgers.blockHeight : (observation?.blockHeight ?? null),
    peer_count: !running || server ? null : ledgers ? ledgers.peerCount : (observation?.peerCount ?? null),
    uptime_seconds: running && row.startedAt ? Math.max(0, Math.floor((deps.clock().getTime() - Date.parse(row.startedAt)) / 1000)) : null,
    client: 'fabric' as const,
    engine: row.engine,
    fabric_version: server ? null : (c.fabricVersion ?? null),
    organization_id: row.organizationId!,
    msp_id: record?.mspId ?? '',
    network_id: row.networkId ?? null,
    networks: networks.map((n) => ({ network_id: n.networkId, name: n.name, channel_name: n.channelName, joined: n.joinedAt !== null, joined_at: n.joinedAt, ...(ledgers ? { block_height: height(n.channelName) } : {}) })),
    endpoints: server ? { grpc: `grpc://${server.address}`, external: server.address, operations: null, metrics: null, admin: null, chaincode: server.address } : {
      grpc: `grpcs://127.0.0.1:${c.port}`,
      external: c.externalEndpoint,
      operations: `http://127.0.0.1:${c.operationsPort}/healthz`,
      metrics: `http://127.0.0.1:${c.operationsPort}/metrics`,
      admin: isOrdererConfig(c) ? `https://127.0.0.1:${c.adminPort}/participation/v1/channels` : null,
      chaincode: isOrdererConfig(c) ? null : `127.0.0.1:${c.chaincodePort}`,
    },
    identity_key_id: record?.identityKeyId ?? null,
    tls_key_id: record?.tlsKeyId ?? null,
    config: c as unknown as Record<string, unknown>,
    error: row.error,
    started_at: row.startedAt,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}
