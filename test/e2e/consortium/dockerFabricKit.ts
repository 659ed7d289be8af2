// What the consortium suites on the docker engine with the per-release Fabric images share
// (consortiumDockerReleases, consortiumDockerBftQuickStart, consortiumDockerUpgrade): the Docker
// Engine and the images they need (each absence a reason to skip, as a fresh CI machine has none
// of them), a server of the docker engine with its own container names (other runs share the
// Docker Engine), and its removal with every container it made.
import Docker from 'dockerode';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { dockerSkipReason, imagesMissing } from '../../helpers/dockerAvailability.ts';
import { imageReleases } from '../../../adapters/consortium/fabricReleaseImages.ts';
import { apiOf, consortiumEnv, removeConsortiumNodes, until } from './consortiumApi.ts';

export const docker = new Docker();
export const dockerImages = { LNM_IMAGE_FABRIC_PEER: 'lnm-fabric-peer:local', LNM_IMAGE_FABRIC_ORDERER: 'lnm-fabric-orderer:local', LNM_IMAGE_CHAINCODE_NODE: 'lnm-chaincode-node:local' };
export { SAMPLE_IMAGE } from './rollingUpgradeKit.ts';
import { SAMPLE_IMAGE } from './rollingUpgradeKit.ts';
export const dockerMissing = await dockerSkipReason();
/** The Fabric releases with a peer and an orderer image tagged by version, newest first. */
export const dockerReleases = dockerMissing ? [] : await imageReleases(docker, dockerImages.LNM_IMAGE_FABRIC_PEER, dockerImages.LNM_IMAGE_FABRIC_ORDERER);
export const chaincodeImagesMissing = dockerMissing ? undefined : await imagesMissing([dockerImages.LNM_IMAGE_CHAINCODE_NODE, SAMPLE_IMAGE]);

/** The newest release of each line asked for (e.g. ['2.5.', '3.1.']), or why one is missing. */
export async function releaseImages(lines: string[]): Promise<{ versions: string[]; missing: string | undefined }> {
  const versions = lines.map((l) => dockerReleases.find((v) => v.startsWith(l)) ?? '');
  if (dockerMissing) return { versions, missing: undefined };
  if (versions.some((v) => !v)) {
    const named = lines.map((l) => `:${l}x`).join(' and ');
    return { versions, missing: `no Fabric images tagged by version for ${lines.map((l) => l.slice(0, -1)).join(' and ')} (lnm-fabric-peer and lnm-fabric-orderer ${named}; found: ${dockerReleases.join(', ') || 'none'}); run .ci/docker.sh as root with those releases in LNM_FABRIC_RELEASES` };
  }
  return { versions, missing: await imagesMissing(versions.flatMap((v) => [`lnm-fabric-peer:${v}`, `lnm-fabric-orderer:${v}`])) };
}

/** A server of the docker engine with the images above and its own container name prefix. */
export function startDockerServer(prefix: string, env: Record<string, string> = {}): Promise<TestServer> {
  return startServer({ env: consortiumEnv({ LNM_NODE_ENGINE: 'docker', LNM_DOCKER_PREFIX: `${prefix}${process.pid % 100000}-`, ...dockerImages, ...env }) });
}

export const ourContainers = (dataDir: string) => docker.listContainers({ all: true, filters: { label: [`lnm.data-dir=${dataDir}`] } });

/** Its nodes deleted, any container of its left removed, the server stopped. */
export async function stopDockerServer(server: TestServer | undefined): Promise<void> {
  if (!server) return;
  await removeConsortiumNodes(apiOf(() => server), server.dataDir);
  await until('containers removed', async () => ((await ourContainers(server.dataDir)).length === 0 ? true : null), 30_000).catch(() => undefined);
  for (const c of await ourContainers(server.dataDir)) await docker.getContainer(c.Id).remove({ force: true }).catch(() => undefined);
  await server.stop();
}
