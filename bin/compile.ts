// Compiles the server once, at install (`npm install` / `npm ci` run the root package's
// `prepare`): bin/lnm.ts and everything it imports from this repository bundled by esbuild into
// dist/lnm.mjs (packages stay in node_modules, imported at run time). `npm start` runs that file
// (bin/start.mjs), so no TypeScript is compiled at start. dist/.build-stamp holds a hash of the
// sources it was made from: bin/start.mjs rebuilds when a source is newer than the bundle and
// its hash differs.
//   tsx bin/compile.ts           build if stale
//   tsx bin/compile.ts --force   build anyway
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const SERVER_SOURCES = ['adapters', 'application', 'bin', 'domain', 'http', 'projections', 'sagas', 'plugins'];
const dist = path.join(root, 'dist');
export const bundleFile = path.join(dist, 'lnm.mjs');
const stampFile = path.join(dist, '.build-stamp');

function walk(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).sort().flatMap((e) => {
    const p = path.join(dir, e);
    return statSync(p).isDirectory() ? walk(p) : p.endsWith('.ts') ? [p] : [];
  });
}

export function serverStamp(): string {
  const h = createHash('sha256');
  for (const f of [...SERVER_SOURCES.flatMap((d) => walk(path.join(root, d))), path.join(root, 'package-lock.json')]) {
    if (!existsSync(f)) continue;
    h.update(path.relative(root, f)).update('\0').update(readFileSync(f)).update('\0');
  }
  return h.digest('hex');
}

export function serverStale(): boolean {
  try {
    return !existsSync(bundleFile) || readFileSync(stampFile, 'utf8').trim() !== serverStamp();
  } catch {
    return true;
  }
}

export async function compileServer(opts: { force?: boolean } = {}): Promise<'built' | 'fresh'> {
  if (!opts.force && !serverStale()) return 'fresh';
  const stamp = serverStamp();
  const { build } = await import('esbuild');
  mkdirSync(dist, { recursive: true });
  await build({
    entryPoints: [path.join(root, 'bin', 'lnm.ts')],
    outfile: bundleFile,
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: true,
    logLevel: 'warning',
  });
  writeFileSync(stampFile, stamp + '\n');
  return 'built';
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const r = await compileServer({ force: process.argv.includes('--force') });
  process.stdout.write(r === 'built' ? `[server] compiled into ${path.relative(root, bundleFile)}\n` : '[server] dist/lnm.mjs is current\n');
}
