// `npm test`: every suite under c8 coverage, then one closing line "N passed, N failed".
// `npm run test:bare` (`--bare`): the same suite as a fresh machine runs it, with every hand-built
// program hidden (test/helpers/bareMachine.ts): a test that needs one must be a counted skip, and
// any failure fails the run. Both take a file filter: `npm test -- 'metricsStack'`.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { bareEnvironment, stillFound } from './helpers/bareMachine.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const c8 = path.join(root, 'node_modules', 'c8', 'bin', 'c8.js');
const args = [
  c8,
  '--reporter=text-summary',
  // Merged file by file: a whole suite leaves about 3 GB of V8 coverage from its hundreds of server
  // processes, which c8's default merge holds at once and ran out of heap on (CI, 01:15).
  '--merge-async',
  '--reports-dir=coverage',
  '--exclude=test/**',
  '--exclude=bench/**',
  process.execPath,
  '--import',
  'tsx',
  path.join(root, 'test', 'uvuEntry.ts'),
  ...process.argv.slice(2).filter((a) => a !== '--bare'),
];
const bare = process.argv.includes('--bare');

const scratch = mkdtempSync(path.join(tmpdir(), 'lnm-test-run-'));
const summaryFile = path.join(scratch, 'skips.json');
let env: Record<string, string | undefined> = process.env;
if (bare) {
  const made = bareEnvironment(process.env, path.join(scratch, 'bare'));
  const left = stillFound(made.env);
  if (left.length) {
    console.log(`[bare] could not hide ${left.join(', ')}\n\n0 passed, 1 failed`);
    process.exit(1);
  }
  console.log(`[bare] the suite as a fresh machine runs it: hidden programs ${made.hiddenPrograms.join(', ') || '(none were here)'}; cleared ${made.clearedSettings.join(', ') || '(no settings were set)'}; images treated as absent ${made.hiddenImages.join(', ')}`);
  env = made.env;
}
const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...env, FORCE_COLOR: '0', NODE_ENV: 'test', LNM_SKIP_SUMMARY_FILE: summaryFile } });

/** What was skipped for which missing dependency, and how to provide it (written by test/uvuEntry.ts). */
function skipLines(): string[] {
  try {
    return JSON.parse(readFileSync(summaryFile, 'utf8')) as string[];
  } catch {
    return [];
  }
}
function cleanUp(): void {
  rmSync(scratch, { recursive: true, force: true });
}
let out = '';
child.stdout.on('data', (b: Buffer) => {
  out += b.toString();
  process.stdout.write(b);
});
child.stderr.on('data', (b: Buffer) => process.stderr.write(b));
child.on('close', (code) => {
  const num = (label: string) => {
    const m = out.match(new RegExp(`\\n\\s*${label}:\\s+(\\d+)`));
    return m ? Number(m[1]) : null;
  };
  const total = num('Total');
  const passed = num('Passed');
  const skipped = num('Skipped') ?? 0;
  if (total === null || passed === null) {
    // The suite runner died before printing totals (a crash at import time, say).
    cleanUp();
    console.log(`\n0 passed, 1 failed`);
    process.exit(code || 1);
  }
  const failed = total - passed;
  const why = skipLines();
  cleanUp();
  if (why.length) console.log(`\n${why.join('\n')}`);
  console.log(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
  process.exit(failed > 0 || code ? 1 : 0);
});
