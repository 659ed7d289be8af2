// Creating an evm node: role, ports (checked for ranges and conflicts, or allocated), the
// validator it signs as, then NodeCreated and, since a node created for a network starts
// automatically, StartNode. Shared by POST /nodes, POST /networks/{id}/nodes and network start.
import { runCommand, type CommandInput } from '../commands.ts';
import { ConflictError, ValidationError, type FieldIssue } from '../../domain/shared/errors.ts';
import { nodeAggregate, nodeStream } from '../../domain/nodes/node.ts';
import { type EvmNodeConfig, type EvmNodeRole } from '../../domain/evm/evmNode.ts';
import { EVM_DEFAULT_PORTS } from '../../domain/evm/besuConfig.ts';
import type { NodeEngineKind } from '../../domain/nodes/nodeEngine.ts';
import { assignedPorts, getNode, listNodes, nodeNameTaken, type NodeRow } from '../../projections/nodes.ts';
import type { EvmNetworkRow } from '../../projections/evm/evmNetworks.ts';
import { evmOf } from './evmContext.ts';
import { placeNode, takesNodePorts, type PlacementOnCluster } from '../hosts/hostPlacement.ts';

/** Every evm client's nodes (anvil, geth, besu) may go to a Kubernetes cluster (docs/kubernetes.md). */
export const EVM_ON_CLUSTER: PlacementOnCluster = { allowed: true };
import { NODE_PORT_RANGE } from '../../domain/hosts/nodeHosts.ts';
import { getNodeHost } from '../../projections/nodeHosts.ts';
import { oneAtATime } from '../nodes/portAllocation.ts';
import { takeClusterNodePorts } from '../hosts/clusterNodePorts.ts';
import { isIPv4 } from 'node:net';

type Input = CommandInput;

export const MIN_NODE_PORT = 1024;
const NODE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;
const PORT_FIELDS = ['p2pPort', 'rpcHttpPort', 'rpcWsPort', 'metricsPort'] as const;
type PortField = (typeof PORT_FIELDS)[number];
const DEFAULT_OF: Record<PortField, number> = { p2pPort: EVM_DEFAULT_PORTS.p2p, rpcHttpPort: EVM_DEFAULT_PORTS.rpcHttp, rpcWsPort: EVM_DEFAULT_PORTS.rpcWs, metricsPort: EVM_DEFAULT_PORTS.metrics };
const CLUSTER_DEFAULT_OF: Record<PortField, number> = { p2pPort: 30303, rpcHttpPort: 31545, rpcWsPort: 31546, metricsPort: 31645 };

export interface EvmNodeRequest {
  name: string;
  role?: EvmNodeRole;
  ports: Partial<Record<PortField, number | null>>;
  isBootnode: boolean;
  engine?: NodeEngineKind;
  client?: 'besu' | 'geth' | 'anvil' | 'auto';
  /** The node host it is placed on (docs/hosts.md); left out: this service's machine. */
  hostId?: number;
  /** Or the labels of the host it is placed on (the placement rule of application/hosts/hostPlacement.ts). */
  hostLabels?: Record<string, string>;
  /** On this machine: the IPv4 address nodes on other hosts reach it at (besu listens on every interface then). */
  externalIp?: string;
  resources?: { cpu?: string; memory?: string } | null;
  /** How the placement is named in refusals (default config: hostId/hostLabels of POST /nodes; a network's start: placement). */
  placementField?: string;
  /** body field names for messages (snake_case body of POST /networks/{id}/nodes). */
  fieldNames?: Partial<Record<PortField, string>>;
}

/** Checks ranges and conflicts, fills in free ports; 400 for bad values, 409 for taken ones. */
async function resolvePorts(input: Input, req: EvmNodeRequest, network: EvmNetworkRow, role: EvmNodeRole, exceptNodeId?: number, onHost = false, onCluster = false): Promise<EvmNodeConfig> {
  const { deps } = input;
  const field = (f: PortField) => req.fieldNames?.[f] ?? `config.${f}`;
  const issues: FieldIssue[] = [];
  // On a Kubernetes cluster a node's ports are NodePorts (kubernetesEngine.ts): the cluster's range.
  const [low, high] = onCluster ? [NODE_PORT_RANGE.min, NODE_PORT_RANGE.max] : [MIN_NODE_PORT, 65535];
  for (const f of PORT_FIELDS) {
    const v = req.ports[f];
    if (v !== undefined && v !== null && (!Number.isInteger(v) || v < low || v > high)) issues.push({ field: field(f), message: `must be a port from ${low} to ${high}${onCluster ? ' (a NodePort of the Kubernetes cluster)' : ''}, got ${v}` });
  }
  if (role === 'bootnode') {
    for (const f of ['rpcHttpPort', 'rpcWsPort'] as const) if (req.ports[f]) issues.push({ field: field(f), message: 'a bootnode has a peer-to-peer port only; leave out the RPC ports' });
  }
  const given = PORT_FIELDS.map((f) => req.ports[f]).filter((v): v is number => typeof v === 'number');
  if (new Set(given).size !== given.length) issues.push({ field: 'config', message: 'each port must be different' });
  if (issues.length) throw new ValidationError(`Invalid node ports: ${issues.map((i) => `${i.field} ${i.message}`).join('; ')}.`, issues);

  const assigned = await assignedPorts(deps.pool);
  if (exceptNodeId !== undefined) {
    const self = await getNode(deps.pool, exceptNodeId);
    for (const f of PORT_FIELDS) if (self?.config[f]) assigned.delete(self.config[f]!);
  }
  // Ports of a node on a node host are that host's: this machine's listeners say nothing of them.
  const runtime = onHost ? { portsInUse: async () => [] as number[] } : evmOf(deps).runtime;
  for (const f of PORT_FIELDS) {
    const v = req.ports[f];
    if (typeof v !== 'number') continue;
    const owner = assigned.get(v);
    if (owner) throw new ConflictError(`Port ${v} (${field(f)}) is already assigned to node ${owner}.`, { field: field(f), port: v }, 'PORT_TAKEN');
  }
  const busy = await runtime.portsInUse(given);
  if (busy.length) throw new ConflictError(`Port ${busy.join(', ')} is already in use on this host.`, { ports: busy }, 'PORT_IN_USE');

  const wanted: Record<PortField, boolean> = {
    p2pPort: true,
    rpcHttpPort: role !== 'bootnode',
    // anvil serves WebSocket on its HTTP port and has no metrics endpoint.
    rpcWsPort: role !== 'bootnode' && network.client !== 'anvil',
    metricsPort: network.client !== 'anvil',
  };
  const chosen = new Set(given);
  const config = { isBootnode: role === 'bootnode' } as EvmNodeConfig;
  for (const f of PORT_FIELDS) {
    const v = req.ports[f];
    if (typeof v === 'number') {
      (config as unknown as Record<string, number>)[f] = v;
      continue;
    }
    if (!wanted[f] || v === null) {
      (config as unknown as Record<string, null>)[f] = null;
      continue;
    }
    let p = onCluster ? CLUSTER_DEFAULT_OF[f] : DEFAULT_OF[f];
    for (;;) {
      if (p > high) throw new ConflictError(`No free port left for ${field(f)}.`);
      if (!assigned.has(p) && !chosen.has(p) && (await runtime.portsInUse([p])).length === 0) break;
      p += 10;
    }
    chosen.add(p);
    (config as unknown as Record<string, number>)[f] = p;
  }
  return config;
}

export async function checkNodeName(input: Input, name: string, exceptId?: number): Promise<void> {
  if (!NODE_NAME.test(name)) throw new ValidationError('Node name must be 1-63 letters, digits, ".", "_" or "-", starting with a letter or digit.', [{ field: 'name', message: 'letters, digits, ".", "_", "-"' }]);
  if (await nodeNameTaken(input.deps.pool, name, exceptId)) throw new ConflictError(`A node named ${name} already exists.`, { field: 'name' }, 'NAME_TAKEN');
}

export async function networkNodes(input: Input, networkId: number): Promise<NodeRow[]> {
  return (await listNodes(input.deps.pool, { limit: 10_000, offset: 0, networkId })).items;
}

export { oneAtATime } from '../nodes/portAllocation.ts';

/** Creates the node and asks for its start; returns its id. */
export async function createEvmNode(input: Input, network: EvmNetworkRow, req: EvmNodeRequest): Promise<number> {
  const nodeId = await oneAtATime(input.deps.pool, () => recordEvmNode(input, network, req));
  await runCommand(input, nodeStream(nodeId), nodeAggregate, { type: 'StartNode', nodeId, at: input.deps.clock().toISOString() });
  return nodeId;
}

async function recordEvmNode(input: Input, network: EvmNetworkRow, req: EvmNodeRequest): Promise<number> {
  const { deps } = input;
  await checkNodeName(input, req.name);
  if (req.client && req.client !== 'auto' && req.client !== network.client) {
    throw new ValidationError(`Network ${network.name} runs on ${network.client} (its genesis block hash is that client's); a node of it cannot run ${req.client}.`, [{ field: 'client', message: `must be ${network.client} or auto` }]);
  }
  const existing = await networkNodes(input, network.id);
  const bound = new Set(existing.map((n) => n.validatorAddress?.toLowerCase()).filter(Boolean));
  const free = network.validators.find((v) => !bound.has(v.address.toLowerCase()));
  const role: EvmNodeRole = req.role ?? (req.isBootnode ? 'bootnode' : free ? 'validator' : 'fullnode');
  if (network.client === 'anvil') {
    if (existing.length > 0) throw new ConflictError(`Network ${network.name} runs on anvil, a single-node development chain, and already has its node ${existing[0].name}.`, { networkId: network.id }, 'SINGLE_NODE_CHAIN');
    if (role !== 'validator') throw new ValidationError(`Network ${network.name} runs on anvil, a single-node development chain: its one node is the validator; it has no ${role}s.`, [{ field: 'type', message: 'must be validator on an anvil network' }]);
  }
  if (role === 'validator' && !free) throw new ConflictError(`Every validator of network ${network.name} already has a node.`, { networkId: network.id }, 'NO_FREE_VALIDATOR');
  const host = await placeNode(input, req, req.engine, EVM_ON_CLUSTER, { field: req.placementField });
  if (req.externalIp !== undefined) {
    if (!isIPv4(req.externalIp) || req.externalIp === '0.0.0.0') throw new ValidationError(`config.externalIp must be an IPv4 address other hosts reach this machine at, got ${JSON.stringify(req.externalIp)}.`, [{ field: 'config.externalIp', message: 'an IPv4 address' }]);
    if (host) throw new ValidationError(`Node ${req.name} is placed on host ${host.name}, where it is reached at that host's address (${host.externalIp}); leave out config.externalIp.`, [{ field: 'config.externalIp', message: 'not with a node host' }]);
    if (network.client === 'anvil') throw new ValidationError(`Network ${network.name} runs on anvil, which has no peer-to-peer layer: config.externalIp is for besu nodes reached from other hosts.`, [{ field: 'config.externalIp', message: 'besu networks only' }]);
  }
  const engine = host ? 'docker' : (req.engine ?? network.engine);
  if (!host) {
    const available = await evmOf(deps).runtime.engineAvailable(engine);
    if (!available.ok) throw new ValidationError(`The ${engine} engine cannot run nodes here: ${available.reason}`, [{ field: 'engine', message: available.reason }]);
  }
  const resolved = await resolvePorts(input, req, network, role, undefined, host !== null, takesNodePorts(host));
  const nodeId = await deps.nextId('node');
  // On a cluster the ports are taken there first: a default one another deployment holds moves up.
  const taken = await takeClusterNodePorts(input, host, nodeId, {
    ports: Object.fromEntries(PORT_FIELDS.map((f) => [f, resolved[f] ?? null])) as Record<PortField, number | null>,
    given: new Set(PORT_FIELDS.filter((f) => typeof req.ports[f] === 'number')),
    assigned: new Set((await assignedPorts(deps.pool)).keys()),
    fieldName: (f) => req.fieldNames?.[f] ?? `config.${f}`,
  });
  const config = { ...resolved, ...taken.ports } as EvmNodeConfig;
  if (host) Object.assign(config, { hostId: host.id, externalIp: host.externalIp });
  else if (req.externalIp !== undefined) config.externalIp = req.externalIp;
  const at = deps.clock().toISOString();
  try {
    await runCommand(input, nodeStream(nodeId), nodeAggregate, {
      type: 'CreateNode', nodeId, name: req.name, platform: 'EVM', nodeType: 'EVM_FULLNODE', role, networkId: network.id,
      client: network.client, engine, config, validatorAddress: role === 'validator' ? free!.address : null, resources: req.resources ?? null, at,
    });
  } catch (err) {
    await taken.release();
    throw err;
  }
  return nodeId;
}

export async function updateEvmNodePorts(input: Input, network: EvmNetworkRow, node: NodeRow, ports: EvmNodeRequest['ports']): Promise<EvmNodeConfig> {
  const merged = { ...node.config, ...Object.fromEntries(Object.entries(ports).filter(([, v]) => v !== undefined)) };
  const { hostId, externalIp } = node.config as EvmNodeConfig;
  const onCluster = hostId !== undefined && takesNodePorts(await getNodeHost(input.deps.pool, hostId));
  const config = await resolvePorts(input, { name: node.name, ports: merged, isBootnode: node.config.isBootnode }, network, node.role as EvmNodeRole, node.id, hostId !== undefined, onCluster);
  return { ...config, ...(hostId !== undefined ? { hostId } : {}), ...(externalIp !== undefined ? { externalIp } : {}) };
}

/**
 * Waits (bounded) until the lifecycle saga has recorded the outcome of a start or stop.
 * `whileWaiting`, when given, is called about every 2 s while the node is still starting or
 * stopping (first after 1 s) with its row; it may throw to end the wait early (a node host gone).
 */
export async function awaitSettled(input: Input, nodeId: number, timeoutMs = 90_000, whileWaiting?: (row: NodeRow) => Promise<void>): Promise<NodeRow | null> {
  const deadline = Date.now() + timeoutMs;
  let ask = Date.now() + 1000;
  for (;;) {
    const row = await getNode(input.deps.pool, nodeId);
    if (!row || (row.status !== 'starting' && row.status !== 'stopping') || Date.now() > deadline) return row;
    if (whileWaiting && Date.now() >= ask) {
      await whileWaiting(row);
      ask = Date.now() + 2000;
    }
    await new Promise((r) => setTimeout(r, 150));
  }
}
