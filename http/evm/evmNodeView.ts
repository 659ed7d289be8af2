// The node read shape (SPEC "Node read"): id, name, status, block_height, peer_count,
// uptime_seconds, plus what an operator needs. A single node (GET /nodes/{id}) reads its figures
// live from the node's JSON-RPC, bounded by a short timeout; lists take them from the health
// monitor's last reading (last_probe), so a node that hangs slows no list.
import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../application/deps.ts';
import type { NodeRow } from '../../projections/nodes.ts';
import { getEvmNetwork } from '../../projections/evm/evmNetworks.ts';
import { evmOf, targetOf } from '../../application/evm/evmContext.ts';
import type { NodeObservation } from '../../domain/nodes/nodeObservations.ts';
import { GETH_METRICS_PATH } from '../../domain/evm/evmClient.ts';
import { unreachableClusterOf } from '../../application/hosts/hostPlacement.ts';

const Int = Type.Union([Type.Integer(), Type.Null()]);
const Time = Type.Union([Type.String(), Type.Null()]);
const LastProbe = Type.Union([
  Type.Object({
    status: Type.String({ description: 'healthy (answered), unreachable (running but did not answer in time) or not_running (its process or container is gone)' }),
    at: Type.String({ description: 'when the health monitor took this reading' }),
    block_height: Int,
    peer_count: Int,
    healthy_at: Time,
    error: Type.Union([Type.String(), Type.Null()]),
  }, { description: 'the health monitor\'s last reading of this node; block_height and peer_count are those of the last probe that answered, taken at healthy_at' }),
  Type.Null(),
], { description: 'null until the health monitor first probes the node (every nodeHealthCheckIntervalSeconds)' });
export const NodeViewSchema = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  platform: Type.String(),
  nodeType: Type.String(),
  role: Type.String({ description: 'validator, fullnode or bootnode' }),
  status: Type.String({ description: 'created, starting, running, stopping, stopped, error (could not start; see error), down (failed its health checks), unreachable (on a Kubernetes cluster that does not answer: its state there is unknown; see error)' }),
  block_height: Type.Union([Type.Integer(), Type.Null()], { description: 'GET /nodes/{id}: read live (null when the node does not answer within 1.5 s); lists: from last_probe' }),
  peer_count: Type.Union([Type.Integer(), Type.Null()], { description: 'as block_height' }),
  last_probe: LastProbe,
  uptime_seconds: Int,
  client: Type.String({ description: 'besu, geth (Clique networks) or anvil (a single-node development chain)' }),
  engine: Type.String({ description: 'process or docker' }),
  host_id: Type.Union([Type.Integer(), Type.Null()], { description: 'the node host it runs on (GET /hosts/{id}: a Docker Engine, or a Kubernetes cluster where it is a StatefulSet); null: this service\'s machine' }),
  network_id: Int,
  endpoints: Type.Object({ rpc_http: Type.Union([Type.String(), Type.Null()]), rpc_ws: Type.Union([Type.String(), Type.Null()]), p2p: Type.Union([Type.String(), Type.Null()]), metrics: Type.Union([Type.String(), Type.Null()]) }),
  enode: Type.Union([Type.String(), Type.Null()], { description: 'besu and geth: the node\'s enode URL (its node public key, 127.0.0.1 and its P2P port); null on anvil, and for a bootnode or full node never started (its node key is made at its first start)' }),
  validator_address: Type.Union([Type.String(), Type.Null()]),
  config: Type.Object({ p2pPort: Type.Integer(), rpcHttpPort: Int, rpcWsPort: Int, metricsPort: Int, isBootnode: Type.Boolean() }),
  error: Type.Union([Type.String(), Type.Null()]),
  started_at: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String(),
  updated_at: Type.String(),
});

export function lastProbe(o: NodeObservation | null | undefined) {
  if (!o) return null;
  return { status: o.status, at: o.observedAt, block_height: o.blockHeight, peer_count: o.peerCount, healthy_at: o.healthyAt, error: o.error };
}

/** The health monitor's last readings of these nodes, for lists. */
export async function lastReadings(deps: AppDeps, rows: NodeRow[]): Promise<Map<number, NodeObservation>> {
  if (!deps.observations) return new Map();
  return (await deps.observations.latest(rows.map((r) => r.id)).catch(() => null)) ?? new Map();
}

/** A page of nodes as lists show them: figures from the last reading, no probe inside the request. */
export async function listedNodeViews(deps: AppDeps, rows: NodeRow[]) {
  const readings = await lastReadings(deps, rows);
  return Promise.all(rows.map((n) => nodeView(deps, n, { live: false, observation: readings.get(n.id) ?? null })));
}

/**
 * live (default true): read block height and peers from the node now (1.5 s at most). false: take
 * them from observation (the health monitor's last reading), read here when not given.
 */
export async function nodeView(deps: AppDeps, row: NodeRow, opts: { live?: boolean; observation?: NodeObservation | null } = {}) {
  let blockHeight: number | null = null;
  let peerCount: number | null = null;
  const running = row.status === 'running' || row.status === 'down';
  // A node on a Kubernetes cluster that does not answer: what runs there is unknown (not stopped).
  const cluster = running ? await unreachableClusterOf(deps, row) : null;
  const network = row.networkId === null ? null : await getEvmNetwork(deps.pool, row.networkId);
  // Reads need no peers: only a start wires them.
  const target = network ? targetOf(row, network) : null;
  const enode = target && row.client !== 'anvil' ? await evmOf(deps).runtime.enode(target) : null;
  const observation = opts.observation !== undefined ? opts.observation : (await lastReadings(deps, [row])).get(row.id) ?? null;
  if (running && opts.live !== false) {
    if (target) {
      const live = await evmOf(deps).runtime.live(target, 1500).catch(() => null);
      blockHeight = live?.blockHeight ?? null;
      peerCount = live?.peerCount ?? null;
    }
  } else if (running && observation) {
    blockHeight = observation.blockHeight;
    peerCount = observation.peerCount;
  }
  const c = row.config;
  // A node on a node host is reached at that host's address (docs/hosts.md).
  const ip = c.externalIp ?? '127.0.0.1';
  // anvil has no peer-to-peer layer: no enode, and its p2p port is reserved only.
  const p2p = row.client === 'anvil' ? null : `${ip}:${c.p2pPort}`;
  return {
    id: row.id,
    name: row.name,
    platform: row.platform,
    nodeType: row.nodeType,
    role: row.role,
    status: cluster ? 'unreachable' : row.status,
    block_height: blockHeight,
    peer_count: peerCount,
    last_probe: lastProbe(observation),
    uptime_seconds: running && row.startedAt ? Math.max(0, Math.floor((deps.clock().getTime() - Date.parse(row.startedAt)) / 1000)) : null,
    client: row.client,
    engine: row.engine,
    host_id: c.hostId ?? null,
    network_id: row.networkId,
    endpoints: {
      rpc_http: c.rpcHttpPort ? `http://${ip}:${c.rpcHttpPort}` : null,
      rpc_ws: c.rpcWsPort && row.client !== 'anvil' ? `ws://${ip}:${c.rpcWsPort}` : c.rpcHttpPort && row.client === 'anvil' ? `ws://${ip}:${c.rpcHttpPort}` : null,
      p2p,
      metrics: c.metricsPort && row.client !== 'anvil' ? `http://${ip}:${c.metricsPort}${row.client === 'geth' ? GETH_METRICS_PATH : '/metrics'}` : null,
    },
    enode,
    validator_address: row.validatorAddress,
    config: c,
    error: cluster ? `cluster ${cluster.name} does not answer: ${cluster.lastError ?? 'its last check failed'}` : row.error,
    started_at: row.startedAt,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}
