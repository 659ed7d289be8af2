// Placing a node on a node host (config.hostId): the host must be registered, reachable at its
// last check and below its capacity, and the node runs under its Docker Engine (a process on
// another machine cannot be started from here).
import type { CommandInput } from '../commands.ts';
import { ConflictError, ValidationError } from '../../domain/shared/errors.ts';
import type { NodeEngineKind } from '../../domain/nodes/nodeEngine.ts';
import { getNodeHost, listNodeHosts, nodesOnHost, type NodeHostRow } from '../../projections/nodeHosts.ts';

/** Where a node asked to be placed: a host by id, or by labels (the placement rule below). */
export interface PlacementRequest {
  hostId?: number;
  hostLabels?: Record<string, string>;
}

/**
 * The host a node goes to, or null for this service's machine. By labels: among the hosts that
 * carry every label given, reachable at their last check and below their capacity, the one with
 * the fewest nodes (the lowest id on a tie). None fits: 409 NO_HOST_FITS saying why.
 */
export async function placeNode(input: CommandInput, req: PlacementRequest, engine: NodeEngineKind | undefined): Promise<NodeHostRow | null> {
  if (req.hostId !== undefined && req.hostLabels !== undefined) throw new ValidationError('Give config.hostId or config.hostLabels, not both.', [{ field: 'config.hostLabels', message: 'not with hostId' }]);
  if (req.hostId !== undefined) return placementHost(input, req.hostId, engine);
  if (req.hostLabels === undefined) return null;
  const { pool } = input.deps;
  const labelled = await listNodeHosts(pool, req.hostLabels);
  const wanted = Object.entries(req.hostLabels).map(([k, v]) => `${k}=${v}`).join(', ') || 'any labels';
  if (!labelled.length) throw new ConflictError(`No node host carries ${wanted}.`, { hostLabels: req.hostLabels }, 'NO_HOST_FITS');
  const candidates: Array<{ host: NodeHostRow; nodes: number }> = [];
  for (const host of labelled.filter((h) => h.reachable)) {
    const nodes = await nodesOnHost(pool, host.id);
    if (host.maxNodes === null || nodes < host.maxNodes) candidates.push({ host, nodes });
  }
  if (!candidates.length) throw new ConflictError(`The node hosts with ${wanted} (${labelled.map((h) => h.name).join(', ')}) are unreachable or full.`, { hostLabels: req.hostLabels }, 'NO_HOST_FITS');
  candidates.sort((a, b) => a.nodes - b.nodes || a.host.id - b.host.id);
  return placementHost(input, candidates[0].host.id, engine);
}

export async function placementHost(input: CommandInput, hostId: number, engine: NodeEngineKind | undefined): Promise<NodeHostRow> {
  const { pool } = input.deps;
  const host = await getNodeHost(pool, hostId);
  if (!host) throw new ValidationError(`No node host ${hostId} is registered: pick one of the registered node hosts, or register it first.`, [{ field: 'config.hostId', message: `no host ${hostId}` }], 'UNKNOWN_HOST');
  if (host.kind === 'kubernetes') throw new ValidationError(`Host ${host.name} is a Kubernetes cluster: placing nodes on a cluster is not wired yet (docs/kubernetes.md).`, [{ field: 'config.hostId', message: 'a kubernetes host takes no nodes yet' }], 'HOST_KIND_UNSUPPORTED');
  if (engine === 'process') throw new ValidationError(`A node on host ${host.name} runs under its Docker Engine: engine must be docker or left out.`, [{ field: 'config.engine', message: 'must be docker on a node host' }]);
  if (!host.reachable) throw new ConflictError(`Host ${host.name} is not reachable: ${host.lastError ?? 'its last check failed'}.`, { hostId }, 'HOST_UNREACHABLE');
  if (host.maxNodes !== null && (await nodesOnHost(pool, hostId)) >= host.maxNodes) throw new ConflictError(`Host ${host.name} is full: it takes ${host.maxNodes} node(s).`, { hostId }, 'HOST_FULL');
  return host;
}
