// Local Docker images that run a stand-in where the real image would run (no registry is
// reachable here, so no base image can be pulled). Each is assembled without a base image: the
// stand-in bundled into one file by esbuild, this machine's node binary, /bin/sh and the shared
// libraries ldd lists for them, imported as a root filesystem with `docker import`. A launcher
// named like the real program (`/bin/besu`, `/bin/vault`) takes the real command line.
// An image is labelled with a hash of what went into it and rebuilt only when that changes.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const LABEL = 'lnm.image.recipe';

export interface StandinImageRecipe {
  /** Image reference to build, e.g. lnm-besu-standin:local. */
  image: string;
  /** The program the launcher is named after: /bin/<program>, also the entrypoint. */
  program: string;
  /** esbuild input: a module that starts the stand-in when run. */
  contents: string;
  /** Directory that `contents` imports are resolved from. */
  resolveDir: string;
  /** Extra directories the real image has (created empty). */
  directories?: string[];
  /** Default arguments (the image's CMD). */
  cmd?: string[];
  /** Data files the stand-in reads at run time: copied to `path` (inside the image) from `from`. */
  files?: Array<{ path: string; from: string }>;
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
export async function ensureStandinImage(r: StandinImageRecipe): Promise<string> {
  const bundled = await build({
    stdin: { contents: r.contents, resolveDir: r.resolveDir, sourcefile: `${r.program}-standin-main.ts`, loader: 'ts' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    write: false,
    logLevel: 'silent',
    // Bundled CommonJS dependencies call require(): give the ESM bundle one.
    banner: { js: "import { createRequire as __lnmCreateRequire } from 'node:module'; const require = __lnmCreateRequire(import.meta.url);" },
  });
  const code = bundled.outputFiles[0].text;
  const node = process.execPath;
  const shell = '/bin/sh';
  const launcher = `#!/bin/sh\nexec /usr/local/bin/node /opt/standin/${r.program}.mjs "$@"\n`;
  const hash = createHash('sha256').update(code).update(launcher).update(readFileSync(fileURLToPath(import.meta.url))).update(node).update(process.version).update(JSON.stringify([r.program, r.directories ?? [], r.cmd ?? []]));
  for (const f of r.files ?? []) hash.update(f.path).update(readFileSync(f.from));
  const sum = hash.digest('hex');
  let current = '';
  try {
    current = run('docker', ['image', 'inspect', '-f', `{{ index .Config.Labels "${LABEL}" }}`, r.image]);
  } catch {
    current = '';
  }
  if (current === sum) return r.image;

  const root = mkdtempSync(path.join(tmpdir(), 'lnm-standin-image-'));
  try {
    const fs = path.join(root, 'rootfs');
    for (const d of ['usr/local/bin', 'bin', 'tmp', 'etc', 'opt/standin', ...(r.directories ?? [])]) mkdirSync(path.join(fs, d), { recursive: true });
    chmodSync(path.join(fs, 'tmp'), 0o1777);
    copyFileSync(node, path.join(fs, 'usr/local/bin/node'));
    chmodSync(path.join(fs, 'usr/local/bin/node'), 0o755);
    copyFileSync(shell, path.join(fs, 'bin/sh'));
    chmodSync(path.join(fs, 'bin/sh'), 0o755);
    for (const lib of new Set([...librariesOf(node), ...librariesOf(shell)])) {
      mkdirSync(path.join(fs, path.dirname(lib)), { recursive: true });
      copyFileSync(lib, path.join(fs, lib));
    }
    writeFileSync(path.join(fs, `opt/standin/${r.program}.mjs`), code);
    for (const f of r.files ?? []) {
      mkdirSync(path.join(fs, path.dirname(f.path)), { recursive: true });
      copyFileSync(f.from, path.join(fs, f.path));
    }
    writeFileSync(path.join(fs, `bin/${r.program}`), launcher, { mode: 0o755 });
    writeFileSync(path.join(fs, 'etc/passwd'), 'root:x:0:0:root:/root:/bin/false\n');
    writeFileSync(path.join(fs, 'etc/group'), 'root:x:0:\n');
    const tar = path.join(root, 'rootfs.tar');
    run('tar', ['-C', fs, '-cf', tar, '.']);
    const changes = ['--change', `ENTRYPOINT ["${r.program}"]`, '--change', 'ENV PATH=/bin:/usr/local/bin', '--change', `LABEL ${LABEL}=${sum}`];
    if (r.cmd?.length) changes.push('--change', `CMD ${JSON.stringify(r.cmd)}`);
    run('docker', ['import', ...changes, tar, r.image]);
    // The previous build is now untagged: drop it rather than pile them up.
    try {
      run('docker', ['image', 'prune', '-f', '--filter', `label=${LABEL}`]);
    } catch {
      /* only housekeeping */
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return r.image;
}
