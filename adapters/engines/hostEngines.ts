// The engine of each registered node host: a docker host's createDockerEngine over a dockerode
// client with the host's mutual TLS material, in remote mode (node files uploaded through the
// engine, ports at the host's external address); a kubernetes host's createKubernetesEngine
// with its sealed bearer token or client key (docs/kubernetes.md). Made on first use and kept: a host's
// address and credentials never change (a new host is registered instead).
import type { ClusterNodePorts, NodeHostDirectory } from '../../domain/hosts/hostPorts.ts';
import { NodeStartFailedError } from '../../domain/nodes/nodeEngine.ts';
import { createDockerEngine, type DockerNodeEngine } from './dockerEngine.ts';
import { createKubernetesEngine, type KubernetesNodeEngine } from './kubernetesEngine.ts';
import { clusterConnectionOf } from './kubernetesCluster.ts';
import { remoteDocker } from './remoteDockerHost.ts';

/** The engine of host `hostId`, or null when no such host is registered. */
export type HostEngines = (hostId: number) => Promise<DockerNodeEngine | KubernetesNodeEngine | null>;

/** `copyStallMs`: a cluster claim copy (backup, restore) that moves no data for this long fails (LNM_BACKUP_STALL_SECONDS). */
export function createHostEngines(opts: { directory: NodeHostDirectory; dataDir: string; images: Record<string, string>; namePrefix: string; deploymentId?: string; copyStallMs?: number }): HostEngines {
  const engines = new Map<number, Promise<DockerNodeEngine | KubernetesNodeEngine | null>>();
  return (hostId) => {
    let engine = engines.get(hostId);
    if (!engine) {
      engine = opts.directory.connection(hostId).then((c) => {
        if (!c) return null;
        if (c.kind !== 'kubernetes') return createDockerEngine({ dataDir: opts.dataDir, images: opts.images, namePrefix: opts.namePrefix, docker: remoteDocker(c), remote: { address: c.externalIp } });
        // Deleting a node keeps its claim unless the operator asks (DELETE /nodes/{id}?deleteVolume=true).
        // The cluster's own image names (kubernetes.images) over the service's table.
        return createKubernetesEngine({ dataDir: opts.dataDir, images: { ...opts.images, ...c.kubernetes?.images }, namePrefix: opts.namePrefix, deploymentId: opts.deploymentId, cluster: clusterConnectionOf(c), copyStallMs: opts.copyStallMs });
      });
      // A host not (yet) registered is asked again next time.
      engine.then((e) => e ?? engines.delete(hostId), () => engines.delete(hostId));
      engines.set(hostId, engine);
    }
    return engine;
  };
}

/** NodePorts taken on a cluster ahead of a node's record (its Service made by the cluster's engine). */
export function clusterNodePorts(hostEngines: HostEngines): ClusterNodePorts {
  return {
    async reserve(hostId, nodeKey, ports) {
      const engine = await hostEngines(hostId);
      if (!engine || engine.kind !== 'kubernetes') throw new NodeStartFailedError('engine-unavailable', `Host ${hostId} is not a registered Kubernetes cluster.`, { nodeKey });
      const cluster = engine as KubernetesNodeEngine;
      await cluster.reservePorts(nodeKey, ports);
      return { release: () => cluster.remove(nodeKey) };
    },
    async removeOrphans(hostId, recorded, olderThanMs) {
      const engine = await hostEngines(hostId);
      if (!engine || engine.kind !== 'kubernetes') return { removed: [], failed: [] };
      return (engine as KubernetesNodeEngine).removeOrphans(recorded, olderThanMs);
    },
    async assertNotOthers(hostId, nodeKey, what) {
      const engine = await hostEngines(hostId);
      if (engine?.kind === 'kubernetes') await (engine as KubernetesNodeEngine).assertNotOthers(nodeKey, what);
    },
    async labelUnlabelled(hostId, recorded) {
      const engine = await hostEngines(hostId);
      if (!engine || engine.kind !== 'kubernetes') return { labelled: [], deployment: null, failed: [] };
      return (engine as KubernetesNodeEngine).labelUnlabelled(recorded);
    },
  };
}
