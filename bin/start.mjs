#!/usr/bin/env node
// `npm start`: runs the server compiled at install (dist/lnm.mjs, bin/compile.ts) with plain
// node, no TypeScript compiled at start. Before that, a check that costs milliseconds: when a
// source of the server or of the console is newer than what was built from it (or nothing was),
// the build scripts run first (they compare hashes and build only what changed).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const at = (...p) => path.join(root, ...p);

/** The newest modification time under the given files and directories. */
function newest(paths) {
  let t = 0;
  for (const p of paths) {
    if (!existsSync(p)) continue;
    const s = statSync(p);
    t = Math.max(t, s.isDirectory() ? newest(readdirSync(p).map((e) => path.join(p, e))) : s.mtimeMs);
  }
  return t;
}
const builtAt = (file) => (existsSync(file) ? statSync(file).mtimeMs : 0);

function run(script) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', at(script)], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

const server = ['adapters', 'application', 'bin', 'domain', 'http', 'projections', 'sagas', 'plugins', 'package-lock.json'].map((p) => at(p));
if (newest(server) > builtAt(at('dist', '.build-stamp'))) run('bin/compile.ts');
const web = [at('web', 'src'), at('web', 'public'), at('web', 'index.html'), at('web', 'vite.config.ts'), at('samples', 'chaincode', 'asset-registry'), at('package-lock.json')];
if (newest(web) > builtAt(at('web', 'dist', '.build-stamp'))) run('web/scripts/build.ts');

await import(pathToFileURL(at('dist', 'lnm.mjs')).href);
