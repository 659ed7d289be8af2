// The docker engine of each registered node host: one createDockerEngine per host over a
// dockerode client with the host's mutual TLS material, in remote mode (node files uploaded
// through the engine, ports at the host's external address). Made on first use and kept: a
// host's address and certificates never change (a new host is registered instead).
import type { NodeHostDirectory } from '../../domain/hosts/hostPorts.ts';
import { createDockerEngine, type DockerNodeEngine } from './dockerEngine.ts';
import { remoteDocker } from './remoteDockerHost.ts';

/** The engine of host `hostId`, or null when no such host is registered (or it is a kubernetes host: no nodes are placed there yet). */
export type HostEngines = (hostId: number) => Promise<DockerNodeEngine | null>;

export function createHostEngines(opts: { directory: NodeHostDirectory; dataDir: string; images: Record<string, string>; namePrefix: string }): HostEngines {
  const engines = new Map<number, Promise<DockerNodeEngine | null>>();
  return (hostId) => {
    let engine = engines.get(hostId);
    if (!engine) {
      engine = opts.directory.connection(hostId).then((c) => (c && c.kind !== 'kubernetes' ? createDockerEngine({ dataDir: opts.dataDir, images: opts.images, namePrefix: opts.namePrefix, docker: remoteDocker(c), remote: { address: c.externalIp } }) : null));
      // A host not (yet) registered is asked again next time.
      engine.then((e) => e ?? engines.delete(hostId), () => engines.delete(hostId));
      engines.set(hostId, engine);
    }
    return engine;
  };
}
