// Default ports across deployments (docs/kubernetes.md): a node placed on a Kubernetes cluster
// whose ports are NodePorts takes them on the cluster (its Service made there) before it is
// recorded. The ports a deployment allocates come from its own records, so another deployment on
// the same cluster (another database, another LNM_DOCKER_PREFIX, another namespace) may hold the
// default one: such a default port moves up (by 10, as the allocation does) until the cluster
// gives it; a port the operator gave stays as given, a 409 naming it when the cluster has it
// taken. Nothing is made on a refusal.
import type { CommandInput } from '../commands.ts';
import { ConflictError } from '../../domain/shared/errors.ts';
import { NodeStartFailedError } from '../../domain/nodes/nodeEngine.ts';
import { nodeKey } from '../../domain/nodes/node.ts';
import { NODE_PORT_RANGE } from '../../domain/hosts/nodeHosts.ts';
import type { NodeHostRow } from '../../projections/nodeHosts.ts';
import { takesNodePorts } from './hostPlacement.ts';

/** How many refusals of the cluster a create goes through before it gives up. */
const MAX_TRIES = 40;

export interface ClusterPortsRequest<F extends string> {
  /** The node's ports by field (null: a port it does not have). */
  ports: Record<F, number | null>;
  /** Fields the operator gave: never moved. */
  given: ReadonlySet<F>;
  /** Ports this deployment has assigned: never chosen. */
  assigned: ReadonlySet<number>;
  /** How a field is named in a refusal (config.rpcHttpPort). */
  fieldName: (f: F) => string;
}

/**
 * Takes `req.ports` on `host` for node `nodeId` (nothing when the host does not take NodePorts or
 * the hosts are not wired): the ports as the cluster gave them, and release() for a node that
 * could not be recorded after all.
 */
export async function takeClusterNodePorts<F extends string>(input: Pick<CommandInput, 'deps'>, host: NodeHostRow | null, nodeId: number, req: ClusterPortsRequest<F>): Promise<{ ports: Record<F, number | null>; release(): Promise<void> }> {
  const nodePorts = input.deps.hosts?.nodePorts;
  const ports = { ...req.ports };
  if (!host || !takesNodePorts(host) || !nodePorts) return { ports, release: async () => undefined };
  const takenThere = new Set<number>();
  for (let tries = 0; ; tries++) {
    const values = Object.values(ports).filter((p): p is number => typeof p === 'number');
    try {
      const reserved = await nodePorts.reserve(host.id, nodeKey(nodeId), values);
      return { ports, release: () => reserved.release().catch(() => undefined) };
    } catch (err) {
      if (!(err instanceof NodeStartFailedError) || err.failure !== 'port-in-use') throw err;
      const taken = ((err.extra as { ports?: number[] } | undefined)?.ports ?? values).filter((p) => values.includes(p));
      for (const p of taken) {
        takenThere.add(p);
        const f = (Object.keys(ports) as F[]).find((k) => ports[k] === p)!;
        if (req.given.has(f)) {
          throw new ConflictError(`Port ${p} (${req.fieldName(f)}) is taken on cluster ${host.name} by another Service (another deployment sharing the cluster?): choose another NodePort, or leave it out to have a free one chosen.`, { field: req.fieldName(f), port: p, hostId: host.id }, 'PORT_IN_USE');
        }
        let next = p + 10;
        const inUse = () => req.assigned.has(next) || takenThere.has(next) || Object.values(ports).includes(next);
        while (next <= NODE_PORT_RANGE.max && inUse()) next += 10;
        if (next > NODE_PORT_RANGE.max || tries >= MAX_TRIES) throw new ConflictError(`No free NodePort left on cluster ${host.name} for ${req.fieldName(f)} (${[...takenThere].join(', ')} taken there by other Services).`, { field: req.fieldName(f), hostId: host.id }, 'PORT_IN_USE');
        ports[f] = next;
      }
    }
  }
}
