// Fabric's default core.yaml / orderer.yaml read out of a Fabric image, for a docker-engine node
// on a host that has no Fabric release of its own (LNM_FABRIC_CFG unset, no binaries): Fabric's
// images keep them in /etc/hyperledger/fabric (FABRIC_CFG_PATH of the image).
//   imageFabricConfig(docker, image, file) -> the file's text
// The container is created, never started: the Docker Engine hands out files of a created
// container's filesystem as a tar stream, so nothing runs and no shell is needed in the image.
import type Docker from 'dockerode';

export const IMAGE_FABRIC_CFG_PATH = '/etc/hyperledger/fabric';

async function collect(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(Buffer.isBuffer(c) ? c : Buffer.from(c));
  return Buffer.concat(chunks);
}

/** The first regular file of a tar archive (ustar headers: size in octal at 124, type at 156). */
function firstFileOfTar(tar: Buffer): Buffer | null {
  for (let at = 0; at + 512 <= tar.length; ) {
    const header = tar.subarray(at, at + 512);
    if (header.every((b) => b === 0)) return null;
    const size = parseInt(header.subarray(124, 136).toString('ascii').replace(/\0.*$/, '').trim() || '0', 8);
    const type = String.fromCharCode(header[156]);
    if (type === '0' || type === '\0') return tar.subarray(at + 512, at + 512 + size);
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return null;
}

export async function imageFabricConfig(docker: Docker, image: string, file: string): Promise<string> {
  const container = await docker.createContainer({ Image: image, Cmd: ['true'], Labels: { 'lnm.purpose': 'read-fabric-config' } });
  try {
    const content = firstFileOfTar(await collect(await container.getArchive({ path: `${IMAGE_FABRIC_CFG_PATH}/${file}` })));
    if (!content) throw new Error(`the image ${image} has no ${IMAGE_FABRIC_CFG_PATH}/${file}`);
    return content.toString('utf8');
  } finally {
    await container.remove({ force: true }).catch(() => undefined);
  }
}
