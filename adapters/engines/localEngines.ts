// The engines a runtime runs its nodes under: on this machine the process engine (made at once)
// or the docker engine (made on first use: a service that never runs a container never talks to
// Docker), chosen by the node's `engine`; a node placed on a node host (docs/hosts.md) runs under
// that host's docker engine instead (placedEngine).
import Docker from 'dockerode';
import { NodeStartFailedError, type NodeEngine, type NodeEngineKind, type NodeStatus } from '../../domain/nodes/nodeEngine.ts';
import { createDockerEngine } from './dockerEngine.ts';
import { createProcessEngine } from './processEngine.ts';

export interface LocalEngines {
  process: NodeEngine;
  docker(): NodeEngine;
  /** The engine of `kind` ('docker', else the process engine). */
  of(kind: NodeEngineKind | string): NodeEngine;
}

/** namePrefix: the deployment's LNM_DOCKER_PREFIX (dockerPrefixFromEnv), the start of its container names. */
export function localEngines(o: { dataDir: string; images: Record<string, string>; namePrefix: string; docker?: Docker; readyTimeoutMs?: number }): LocalEngines {
  const processEngine = createProcessEngine({ dataDir: o.dataDir, ...(o.readyTimeoutMs !== undefined ? { readyTimeoutMs: o.readyTimeoutMs } : {}) });
  let dockerEngine: NodeEngine | null = null;
  const docker = () => (dockerEngine ??= createDockerEngine({ dataDir: o.dataDir, images: o.images, namePrefix: o.namePrefix, docker: o.docker ?? new Docker() }));
  return { process: processEngine, docker, of: (kind) => (kind === 'docker' ? docker() : processEngine) };
}

/**
 * The engine a node runs under: its host's when it is placed on one (`config.hostId`), else the
 * local one of its kind. A host that is not registered (any more) fails the start, naming `what`.
 */
export async function placedEngine(
  local: LocalEngines,
  hostEngine: ((hostId: number) => Promise<NodeEngine | null>) | undefined,
  node: { engine: NodeEngineKind; config: { hostId?: number } },
  what: string,
  nodeKey: string,
): Promise<NodeEngine> {
  const hostId = node.config.hostId;
  if (!hostId) return local.of(node.engine);
  const engine = await hostEngine?.(hostId);
  if (!engine) throw new NodeStartFailedError('engine-unavailable', `${what} is placed on host ${hostId}, which is not registered (any more).`, { nodeKey });
  return engine;
}

/** stop, remove and status of a runtime's node target `T`: its engine (local or its host's) asked about its node key. */
export function placedNodeCalls<T>(engineFor: (t: T) => Promise<NodeEngine>, keyOf: (t: T) => string) {
  return {
    async stop(t: T): Promise<void> {
      await (await engineFor(t)).stop(keyOf(t));
    },
    async remove(t: T, opts?: { deleteVolume?: boolean }): Promise<void> {
      await (await engineFor(t)).remove(keyOf(t), opts);
    },
    async status(t: T): Promise<NodeStatus> {
      return (await engineFor(t)).status(keyOf(t));
    },
  };
}
