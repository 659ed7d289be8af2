// The Fabric releases the docker engine can run: images of the configured peer and orderer
// repositories tagged by version, as Hyperledger tags its own (hyperledger/fabric-peer:2.5.12)
// and as .ci/docker.sh tags the ones it builds from the releases it finds (lnm-fabric-peer:3.1.5).
//
//   imageRepository('lnm-fabric-peer:local')      -> 'lnm-fabric-peer' (a registry's :port is kept)
//   releaseImage('lnm-fabric-peer:local', '3.1.5') -> 'lnm-fabric-peer:3.1.5'
//   imageReleases(docker, peerImage, ordererImage)  -> versions (newest first) with both images on the host
//   releasesAmong(references, peerImage, ordererImage) -> the same from any engine's image list
//     (a node host's Docker, a cluster's nodes: NodeEngine.imageReferences)
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

/**
 * The versions with both a peer and an orderer image among these image references
 * (repository:tag, NodeEngine.imageReferences), newest first.
 */
export function releasesAmong(references: string[], peerImage: string, ordererImage: string): string[] {
  const tagsOf = (repository: string) => new Set(references.filter((ref) => imageRepository(ref) === repository).map((ref) => ref.slice(repository.length + 1)).filter((tag) => RELEASE_TAG.test(tag)));
  const [peers, orderers] = [tagsOf(imageRepository(peerImage)), tagsOf(imageRepository(ordererImage))];
  return [...peers].filter((v) => orderers.has(v)).sort((a, b) => compareVersions(b, a));
}

/** The repositories whose release tags releasesAmong reads. */
export const releaseRepositories = (peerImage: string, ordererImage: string) => [imageRepository(peerImage), imageRepository(ordererImage)];

/** The versions with both a peer and an orderer image on the Docker host, newest first. */
export async function imageReleases(docker: Docker, peerImage: string, ordererImage: string): Promise<string[]> {
  const repositories = releaseRepositories(peerImage, ordererImage);
  const images = await docker.listImages({ filters: JSON.stringify({ reference: repositories }) });
  return releasesAmong(images.flatMap((image) => image.RepoTags ?? []), peerImage, ordererImage);
}
