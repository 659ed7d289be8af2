// Placing a node on a node host (config.hostId): the host must be registered, reachable at its
// last check and below its capacity, and the node runs under its Docker Engine (a process on
// another machine cannot be started from here).
import type { CommandInput } from '../commands.ts';
import { ConflictError, ValidationError } from '../../domain/shared/errors.ts';
import type { NodeEngineKind } from '../../domain/nodes/nodeEngine.ts';
import { getNodeHost, nodesOnHost, type NodeHostRow } from '../../projections/nodeHosts.ts';

export async function placementHost(input: CommandInput, hostId: number, engine: NodeEngineKind | undefined): Promise<NodeHostRow> {
  const { pool } = input.deps;
  const host = await getNodeHost(pool, hostId);
  if (!host) throw new ValidationError(`No node host ${hostId} is registered (GET /hosts lists them).`, [{ field: 'config.hostId', message: `no host ${hostId}` }], 'UNKNOWN_HOST');
  if (engine === 'process') throw new ValidationError(`A node on host ${host.name} runs under its Docker Engine: engine must be docker or left out.`, [{ field: 'config.engine', message: 'must be docker on a node host' }]);
  if (!host.reachable) throw new ConflictError(`Host ${host.name} is not reachable: ${host.lastError ?? 'its last check failed'}.`, { hostId }, 'HOST_UNREACHABLE');
  if (host.maxNodes !== null && (await nodesOnHost(pool, hostId)) >= host.maxNodes) throw new ConflictError(`Host ${host.name} is full: it takes ${host.maxNodes} node(s).`, { hostId }, 'HOST_FULL');
  return host;
}
