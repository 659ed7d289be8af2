// Builds the web console into web/dist when its sources changed since the last build (a stamp
// of their hashes is kept in web/dist/.build-stamp). Run by `npm install` / `npm ci` (the root
// package's `prepare` script), before `npm start`, and by the browser tests, so a fresh clone
// serves the console with no manual step and a changed source is never served stale.
//   tsx web/scripts/build.ts           build if stale
//   tsx web/scripts/build.ts --force   build anyway
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const webDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const root = path.resolve(webDir, '..');
const dist = path.join(webDir, 'dist');
const stampFile = path.join(dist, '.build-stamp');

function walk(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).sort().flatMap((e) => {
    const p = path.join(dir, e);
    return statSync(p).isDirectory() ? walk(p) : [p];
  });
}

/** A hash over everything the bundle is made from. */
export function sourceStamp(): string {
  const h = createHash('sha256');
  const inputs = [...walk(path.join(webDir, 'src')), ...walk(path.join(webDir, 'public')), ...walk(path.join(root, 'samples', 'chaincode', 'asset-registry')), path.join(webDir, 'index.html'), path.join(webDir, 'vite.config.ts'), path.join(root, 'package-lock.json')];
  for (const f of inputs) {
    if (!existsSync(f)) continue;
    h.update(path.relative(root, f)).update('\0').update(readFileSync(f)).update('\0');
  }
  return h.digest('hex');
}

export function consoleStale(): boolean {
  try {
    return readFileSync(stampFile, 'utf8').trim() !== sourceStamp() || !existsSync(path.join(dist, 'index.html'));
  } catch {
    return true;
  }
}

export async function buildConsole(opts: { force?: boolean; quiet?: boolean } = {}): Promise<'built' | 'fresh'> {
  if (!opts.force && !consoleStale()) return 'fresh';
  const stamp = sourceStamp();
  const { build } = await import('vite');
  await build({ configFile: path.join(webDir, 'vite.config.ts'), logLevel: opts.quiet ? 'warn' : 'info' });
  writeFileSync(stampFile, stamp + '\n');
  return 'built';
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  let vite = true;
  try {
    await import('vite');
  } catch {
    vite = false;
  }
  if (!vite) {
    // A production install (--omit=dev) has no Vite: serve whatever was built before.
    console.log(existsSync(path.join(dist, 'index.html')) ? '[web] Vite is not installed; serving the console built before' : '[web] Vite is not installed (npm install --omit=dev?): the console is not built');
  } else {
    const r = await buildConsole({ force: process.argv.includes('--force') });
    console.log(r === 'fresh' ? '[web] console is up to date' : '[web] console built into web/dist');
  }
}
