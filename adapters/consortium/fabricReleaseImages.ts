// The Fabric releases the docker engine can run: images of the configured peer and orderer
// repositories tagged by version, as Hyperledger tags its own (hyperledger/fabric-peer:2.5.12)
// and as .ci/docker.sh tags the ones it builds from the releases it finds (lnm-fabric-peer:3.1.5).
//
//   imageRepository('lnm-fabric-peer:local')      -> 'lnm-fabric-peer' (a registry's :port is kept)
//   releaseImage('lnm-fabric-peer:local', '3.1.5') -> 'lnm-fabric-peer:3.1.5'
//   imageReleases(docker, peerImage, ordererImage)  -> versions (newest first) with both images on the host
//
// The configured image (LNM_IMAGE_FABRIC_PEER / _ORDERER, e.g. lnm-fabric-peer:local) stays the
// image of docker nodes that record no release (made before releases were recorded, or when the
// host has no versioned image).
import type Docker from 'dockerode';
import { compareVersions } from './fabricReleases.ts';

/** A release tag: 2.5.12, 3.1.5 (what `peer version` prints). */
export const RELEASE_TAG = /^\d+\.\d+\.\d+$/;

export function imageRepository(image: string): string {
  const noDigest = image.replace(/@.*$/, '');
  const slash = noDigest.lastIndexOf('/');
  const colon = noDigest.lastIndexOf(':');
  return colon > slash ? noDigest.slice(0, colon) : noDigest;
}

export const releaseImage = (configured: string, version: string) => `${imageRepository(configured)}:${version}`;

/** The release tags of one repository on the Docker host. */
async function tagsOf(docker: Docker, repository: string): Promise<Set<string>> {
  const images = await docker.listImages({ filters: JSON.stringify({ reference: [repository] }) });
  const tags = new Set<string>();
  for (const image of images) {
    for (const ref of image.RepoTags ?? []) {
      if (imageRepository(ref) !== repository) continue;
      const tag = ref.slice(repository.length + 1);
      if (RELEASE_TAG.test(tag)) tags.add(tag);
    }
  }
  return tags;
}

/** The versions with both a peer and an orderer image on the Docker host, newest first. */
export async function imageReleases(docker: Docker, peerImage: string, ordererImage: string): Promise<string[]> {
  const [peers, orderers] = await Promise.all([tagsOf(docker, imageRepository(peerImage)), tagsOf(docker, imageRepository(ordererImage))]);
  return [...peers].filter((v) => orderers.has(v)).sort((a, b) => compareVersions(b, a));
}
