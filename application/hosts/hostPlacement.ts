// Placing a node on a node host (config.hostId): the host must be registered, reachable at its
// last check (a Kubernetes cluster: checked again now) and below its capacity, and the node runs
// under its Docker Engine or in a pod of the cluster (a process on another machine cannot be
// started from here).
import type { CommandInput } from '../commands.ts';
import { AppError, ConflictError, UnavailableError, ValidationError } from '../../domain/shared/errors.ts';
import { NodeStartFailedError, type NodeEngineKind } from '../../domain/nodes/nodeEngine.ts';
import { nodeKey } from '../../domain/nodes/node.ts';
import { getNodeHost, listNodeHosts, nodesOnHost, type NodeHostRow } from '../../projections/nodeHosts.ts';
import { clusterPortRange, type NodePlacement } from '../../domain/hosts/nodeHosts.ts';

/** Where a node asked to be placed: a host by id, or by labels (the placement rule below). */
export type PlacementRequest = NodePlacement;

/**
 * How a placement is named in refusals and how many nodes it is for: the node routes place one
 * node from `config` (the defaults); a network create checks its `placement` for every node its
 * start or quick start will make (`field: 'placement'`, `nodes`: that count, so a host without
 * room for them all is full), with the engine named by `engineField`.
 */
export interface PlacementOptions {
  field?: string;
  engineField?: string;
  nodes?: number;
}

/**
 * The host a node goes to, or null for this service's machine. By labels: among the hosts that
 * carry every label given, reachable at their last check and below their capacity, the one with
 * the fewest nodes (the lowest id on a tie). None fits: 409 NO_HOST_FITS saying why.
 */
export async function placeNode(input: CommandInput, req: PlacementRequest, engine: NodeEngineKind | undefined, onCluster: PlacementOnCluster = NO_CLUSTER, options: PlacementOptions = {}): Promise<NodeHostRow | null> {
  const field = options.field ?? 'config';
  const count = options.nodes ?? 1;
  if (req.hostId !== undefined && req.hostLabels !== undefined) throw new ValidationError(`Give ${field}.hostId or ${field}.hostLabels, not both.`, [{ field: `${field}.hostLabels`, message: 'not with hostId' }]);
  if (req.hostId !== undefined) return placementHost(input, req.hostId, engine, onCluster, options);
  if (req.hostLabels === undefined) return null;
  const { pool } = input.deps;
  const labelled = (await listNodeHosts(pool, req.hostLabels)).filter((h) => h.kind !== 'kubernetes' || onCluster.allowed);
  const wanted = Object.entries(req.hostLabels).map(([k, v]) => `${k}=${v}`).join(', ') || 'any labels';
  if (!labelled.length) throw new ConflictError(`No node host carries ${wanted}.`, { hostLabels: req.hostLabels }, 'NO_HOST_FITS');
  const candidates: Array<{ host: NodeHostRow; nodes: number }> = [];
  for (const host of labelled.filter((h) => h.reachable)) {
    const nodes = await nodesOnHost(pool, host.id);
    if (host.maxNodes === null || nodes + count <= host.maxNodes) candidates.push({ host, nodes });
  }
  if (!candidates.length) throw new ConflictError(`The node hosts with ${wanted} (${labelled.map((h) => h.name).join(', ')}) are unreachable or full.`, { hostLabels: req.hostLabels }, 'NO_HOST_FITS');
  candidates.sort((a, b) => a.nodes - b.nodes || a.host.id - b.host.id);
  return placementHost(input, candidates[0].host.id, engine, onCluster, options);
}

/** Whether the node may go to a Kubernetes cluster, and why not when it may not. */
export interface PlacementOnCluster {
  allowed: boolean;
  why?: string;
}
const NO_CLUSTER: PlacementOnCluster = { allowed: false, why: 'this kind of node does not run on a Kubernetes cluster' };

export async function placementHost(input: CommandInput, hostId: number, engine: NodeEngineKind | undefined, onCluster: PlacementOnCluster = NO_CLUSTER, options: PlacementOptions = {}): Promise<NodeHostRow> {
  const { pool } = input.deps;
  const field = options.field ?? 'config';
  const count = options.nodes ?? 1;
  const host = await getNodeHost(pool, hostId);
  if (!host) throw new ValidationError(`No node host ${hostId} is registered: pick one of the registered node hosts, or register it first.`, [{ field: `${field}.hostId`, message: `no host ${hostId}` }], 'UNKNOWN_HOST');
  if (host.kind === 'kubernetes' && !onCluster.allowed) throw new ValidationError(`Host ${host.name} is a Kubernetes cluster: ${onCluster.why ?? NO_CLUSTER.why} (docs/kubernetes.md).`, [{ field: `${field}.hostId`, message: onCluster.why ?? NO_CLUSTER.why! }], 'HOST_KIND_UNSUPPORTED');
  if (engine === 'process') throw new ValidationError(`A node on host ${host.name} runs ${host.kind === 'kubernetes' ? 'in a pod of the cluster' : 'under its Docker Engine'}: engine must be docker or left out.`, [{ field: options.engineField ?? 'config.engine', message: 'must be docker on a node host' }]);
  if (host.kind === 'kubernetes') await checkCluster(input, host);
  else if (!host.reachable) throw new ConflictError(`Host ${host.name} is not reachable: ${host.lastError ?? 'its last check failed'}.`, { hostId }, 'HOST_UNREACHABLE');
  const placed = host.maxNodes === null ? 0 : await nodesOnHost(pool, hostId);
  if (host.maxNodes !== null && placed + count > host.maxNodes) {
    const room = count > 1 ? ` and has ${placed}: not room for the ${count} nodes asked` : '';
    throw new ConflictError(`Host ${host.name} is full: it takes ${host.maxNodes} node(s)${room}.`, { hostId }, 'HOST_FULL');
  }
  return host;
}

/**
 * A cluster is checked again at every node create (the check of registration: namespace,
 * permissions, storage class), so a node is never recorded for a cluster that cannot take it:
 * a problem is a 400 HOST_UNREACHABLE naming its field; a cluster that does not answer, a 503.
 */
async function checkCluster(input: CommandInput, host: NodeHostRow): Promise<void> {
  const hosts = input.deps.hosts;
  const connection = await hosts?.directory?.connection(host.id);
  if (!hosts || !connection) throw new UnavailableError(`Host ${host.name} is a Kubernetes cluster and this server cannot reach its registry of hosts.`);
  const check = await hosts.probe.probe(connection);
  if (check.reachable) return;
  const problems = check.problems?.length ? check.problems : [{ field: 'url', message: check.reason ?? 'unreachable' }];
  const why = problems.map((p) => p.message).join('; ');
  if (problems.every((p) => p.field === 'url')) throw clusterUnreachable(`Cluster ${host.name} cannot take nodes now: ${why}.`, host.id);
  throw new ValidationError(`Cluster ${host.name} cannot take nodes: ${why}.`, problems.map((p) => ({ field: `host.${p.field}`, message: p.message })), 'HOST_UNREACHABLE');
}

const clusterUnreachable = (message: string, hostId: number) => new AppError(503, 'HOST_UNREACHABLE', message, { extra: { hostId }, expose: true });

/** The Kubernetes cluster a node is placed on when its last check found it unreachable; else null. */
export async function unreachableClusterOf(deps: Pick<CommandInput['deps'], 'pool'>, node: { config: { hostId?: number } } | null): Promise<NodeHostRow | null> {
  const hostId = node?.config.hostId;
  if (!hostId) return null;
  const host = await getNodeHost(deps.pool, hostId);
  return host && host.kind === 'kubernetes' && !host.reachable ? host : null;
}

/** Whether the node is placed on a registered Kubernetes cluster. */
export async function onKubernetesCluster(input: Pick<CommandInput, 'deps'>, node: { config: { hostId?: number } } | null): Promise<boolean> {
  const hostId = node?.config.hostId;
  return !!hostId && (await getNodeHost(input.deps.pool, hostId))?.kind === 'kubernetes';
}

/**
 * A node on a cluster that does not answer cannot be started, stopped, changed or deleted: what
 * the cluster runs is unknown until it answers again, so the operation is a 503 saying why
 * (the node's read shows it `unreachable`, not stopped).
 */
export async function assertNodeClusterReachable(input: CommandInput, node: { name: string; config: { hostId?: number } } | null): Promise<void> {
  const host = await unreachableClusterOf(input.deps, node);
  if (host) throw clusterUnreachable(`Node ${node!.name} runs on Kubernetes cluster ${host.name}, which does not answer (${host.lastError ?? 'its last check failed'}): what runs there is unknown until it answers again.`, host.id);
}

/**
 * A start or restart of a node on a cluster one of whose objects (StatefulSet, Service, Secret,
 * ConfigMap, claim of its name) carries another deployment's id is refused here, a 409
 * NODE_START_FAILED naming the object and that deployment, before the start is recorded: the
 * engine's start would refuse it too, but then as the node's error (docs/kubernetes.md, "Two
 * deployments on one cluster"). Reads only; a cluster that does not answer the reads leaves it to
 * the start itself.
 */
export async function assertNodeObjectsNotOthers(input: Pick<CommandInput, 'deps'>, node: { id: number; config: { hostId?: number } } | null, what: string): Promise<void> {
  const hostId = node?.config.hostId;
  const nodePorts = input.deps.hosts?.nodePorts;
  if (!hostId || !nodePorts || (await getNodeHost(input.deps.pool, hostId))?.kind !== 'kubernetes') return;
  try {
    await nodePorts.assertNotOthers(hostId, nodeKey(node.id), what);
  } catch (err) {
    if (err instanceof NodeStartFailedError && err.failure === 'already-running') throw err;
  }
}

/**
 * Whether a node on `host` takes node ports of a Kubernetes cluster (NodePort and LoadBalancer
 * exposure: the cluster's NodePort range and the cluster's default ports); a hostPort cluster's
 * nodes take any port, as on a Docker host.
 */
export function takesNodePorts(host: Pick<NodeHostRow, 'kind' | 'kubernetes'> | null | undefined): boolean {
  return host?.kind === 'kubernetes' && clusterPortRange(host.kubernetes) !== null;
}
