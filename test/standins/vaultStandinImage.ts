// A local Docker image that runs the Vault stand-in where the real hashicorp/vault image would
// run (no registry and no Vault binary exist here), built by standinImage.ts: `/bin/vault`
// takes the real command line (`vault server -config=...`), the entrypoint is `vault`, and the
// usual /vault/{config,file,logs} directories exist as in the real image.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureStandinImage } from './standinImage.ts';

export const vaultStandinImage = process.env.LNM_VAULT_STANDIN_IMAGE ?? 'lnm-vault-standin:local';
const here = path.dirname(fileURLToPath(import.meta.url));

/** Builds the image when missing or out of date; returns its name. Throws when docker cannot. */
export function ensureVaultStandinImage(): Promise<string> {
  return ensureStandinImage({
    image: vaultStandinImage,
    program: 'vault',
    contents: "import { main } from './vaultStandinServer.ts';\nmain(process.argv.slice(2));\n",
    resolveDir: here,
    directories: ['vault/config', 'vault/file', 'vault/logs'],
    cmd: ['server', '-config=/vault/config'],
  });
}
