// A local Docker image that runs the Vault stand-in where the real hashicorp/vault image would
// run (no registry and no Vault binary exist here). It is assembled without any base image: the
// stand-in's server mode bundled into one file by esbuild, this machine's node binary, /bin/sh
// and the shared libraries ldd lists for them, imported as a root filesystem. `/bin/vault` takes
// the real command line (`vault server -config=...`), the entrypoint is `vault`, and the usual
// /vault/{config,file,logs} directories exist as in the real image.
// The image is labelled with a hash of what went into it and rebuilt only when that changes.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const vaultStandinImage = process.env.LNM_VAULT_STANDIN_IMAGE ?? 'lnm-vault-standin:local';
const LABEL = 'lnm.image.recipe';
const here = path.dirname(fileURLToPath(import.meta.url));

async function bundle(): Promise<string> {
  const out = await build({
    stdin: { contents: "import { main } from './vaultStandinServer.ts';\nmain(process.argv.slice(2));\n", resolveDir: here, sourcefile: 'vault-standin-main.ts', loader: 'ts' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    write: false,
    logLevel: 'silent',
  });
  return out.outputFiles[0].text;
}

function librariesOf(binary: string): string[] {
  const out = execFileSync('ldd', [binary], { encoding: 'utf8' });
  const libs: string[] = [];
  for (const line of out.split('\n')) {
    const m = /=>\s+(\/\S+)/.exec(line) ?? /^\s*(\/\S+)/.exec(line);
    if (m) libs.push(m[1]);
  }
  return libs;
}

function run(cmd: string, args: string[]): string {
  return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/** Builds the image when missing or out of date; returns its name. Throws when docker cannot. */
export async function ensureVaultStandinImage(): Promise<string> {
  const code = await bundle();
  const node = process.execPath;
  const shell = '/bin/sh';
  const launcher = '#!/bin/sh\nexec /usr/local/bin/node /opt/vault-standin/vault.mjs "$@"\n';
  const sum = createHash('sha256').update(code).update(launcher).update(readFileSync(fileURLToPath(import.meta.url))).update(node).update(process.version).digest('hex');
  let current = '';
  try {
    current = run('docker', ['image', 'inspect', '-f', `{{ index .Config.Labels "${LABEL}" }}`, vaultStandinImage]);
  } catch {
    current = '';
  }
  if (current === sum) return vaultStandinImage;

  const root = mkdtempSync(path.join(tmpdir(), 'lnm-vault-image-'));
  try {
    const fs = path.join(root, 'rootfs');
    for (const d of ['usr/local/bin', 'bin', 'tmp', 'etc', 'opt/vault-standin', 'vault/config', 'vault/file', 'vault/logs']) mkdirSync(path.join(fs, d), { recursive: true });
    chmodSync(path.join(fs, 'tmp'), 0o1777);
    copyFileSync(node, path.join(fs, 'usr/local/bin/node'));
    chmodSync(path.join(fs, 'usr/local/bin/node'), 0o755);
    copyFileSync(shell, path.join(fs, 'bin/sh'));
    chmodSync(path.join(fs, 'bin/sh'), 0o755);
    for (const lib of new Set([...librariesOf(node), ...librariesOf(shell)])) {
      mkdirSync(path.join(fs, path.dirname(lib)), { recursive: true });
      copyFileSync(lib, path.join(fs, lib));
    }
    writeFileSync(path.join(fs, 'opt/vault-standin/vault.mjs'), code);
    writeFileSync(path.join(fs, 'bin/vault'), launcher, { mode: 0o755 });
    writeFileSync(path.join(fs, 'etc/passwd'), 'root:x:0:0:root:/root:/bin/false\nvault:x:100:1000:vault:/home/vault:/bin/false\n');
    writeFileSync(path.join(fs, 'etc/group'), 'root:x:0:\nvault:x:1000:\n');
    const tar = path.join(root, 'rootfs.tar');
    run('tar', ['-C', fs, '-cf', tar, '.']);
    run('docker', ['import', '--change', 'ENTRYPOINT ["vault"]', '--change', 'CMD ["server", "-config=/vault/config"]', '--change', 'ENV PATH=/bin:/usr/local/bin', '--change', `LABEL ${LABEL}=${sum}`, tar, vaultStandinImage]);
    // The previous build is now untagged: drop it rather than pile them up.
    try {
      run('docker', ['image', 'prune', '-f', '--filter', `label=${LABEL}`]);
    } catch {
      /* only housekeeping */
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return vaultStandinImage;
}
