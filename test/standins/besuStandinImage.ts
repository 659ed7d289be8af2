// A local image that runs the besu stand-in where hyperledger/besu would run under the docker
// engine (no registry, no besu here): entrypoint `besu`, the same command line, and the besu
// option list the stand-in checks against (read beside its bundle at /opt/golden/evm).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureStandinImage } from './standinImage.ts';

export const besuStandinImage = process.env.LNM_BESU_STANDIN_IMAGE ?? 'lnm-besu-standin:local';
const here = path.dirname(fileURLToPath(import.meta.url));

export function ensureBesuStandinImage(): Promise<string> {
  return ensureStandinImage({
    image: besuStandinImage,
    program: 'besu',
    contents: "import './besuStandin.ts';\n",
    resolveDir: here,
    directories: ['opt/besu'],
    files: [{ path: 'opt/golden/evm/besuCliOptions-24.12.2.txt', from: path.join(here, '..', 'golden', 'evm', 'besuCliOptions-24.12.2.txt') }],
  });
}
