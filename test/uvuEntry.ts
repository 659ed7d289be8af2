// Runs the uvu suites in one process: unit first, then integration, then end to end.
// Usage: tsx test/uvuEntry.ts [regex]   (TEST_FILTER works too)
import { parse } from 'uvu/parse';
import { writeFileSync } from 'node:fs';
import { runGlobalTeardown } from './helpers/globalTeardown.ts';
import { skipSummary } from './helpers/requirements.ts';

const filter = process.argv[2] ?? process.env.TEST_FILTER ?? '';
const rank = (f: string) => (f.includes('.unit.') ? 0 : f.includes('.int.') ? 1 : 2);

const ctx = await parse('test', '\\.test\\.ts$', { cwd: process.cwd() });
const re = filter ? new RegExp(filter) : null;
const suites = ctx.suites
  .filter((s: { name: string }) => !re || re.test(s.name))
  .sort((a: { name: string }, b: { name: string }) => rank(a.name) - rank(b.name) || a.name.localeCompare(b.name));

process.on('unhandledRejection', (err) => {
  console.error('unhandled rejection during tests:', err);
});

/**
 * uvu's run (uvu/run), with one check added: uvu's suite runner returns from its `finally`, so an
 * error thrown by a suite's before hook is dropped, its tests count as neither passed nor failed,
 * and the run would exit 0. A suite that ran fewer tests than it has, with no failure reported, is
 * reported as failed here.
 */
async function run(list: Array<{ name: string; file: string }>): Promise<void> {
  const g = globalThis as unknown as { UVU_DEFER: number; UVU_INDEX: number; UVU_QUEUE: unknown[][] };
  g.UVU_DEFER = 1;
  const uvu = (await import('uvu')) as unknown as { exec(bail?: boolean): Promise<void> };
  let idx = 0;
  for (const s of list) {
    g.UVU_INDEX = idx++;
    g.UVU_QUEUE.push([s.name]);
    await import('file:///' + s.file);
  }
  type Result = [string | true, number, number, number];
  for (const group of g.UVU_QUEUE) {
    const file = String(group[0]);
    for (let i = 1; i < group.length; i++) {
      const runSuite = group[i] as () => Promise<Result>;
      group[i] = async (): Promise<Result> => {
        const started = Date.now();
        const [errs, ran, skipped, total] = await runSuite();
        fileSeconds.set(file, (fileSeconds.get(file) ?? 0) + (Date.now() - started) / 1000);
        if (errs !== true || ran >= total) return [errs, ran, skipped, total];
        return [`  ${total - ran} of ${total} tests did not run and none failed: a before hook threw (uvu drops its error). Make the suite with requires or requiresAll (test/helpers/requirements.ts) to see it.`, ran, skipped, total];
      };
    }
  }
  await uvu.exec(false);
}

/** Wall time per test file, to print the slowest: a suite that grows past CI's budget shows here. */
const fileSeconds = new Map<string, number>();
function slowestFiles(n: number): string[] {
  const all = [...fileSeconds.entries()].sort((a, b) => b[1] - a[1]);
  const sum = all.reduce((t, [, s]) => t + s, 0);
  return [`Slowest test files (of ${all.length}, ${Math.round(sum)} s in all):`, ...all.slice(0, n).map(([f, s]) => `  ${s.toFixed(0).padStart(5)} s  ${f}`)];
}

let code = 0;
try {
  await run(suites);
  code = Number(process.exitCode ?? 0);
} catch (err) {
  // uvu's reporter itself can throw (it expects err.details to be a string; our ValidationError
  // carries an array there). Report the escaped error instead of dying silently.
  console.error('\nA test threw an error the reporter could not format:', err);
  code = 1;
}
await runGlobalTeardown();
console.log(`\n${slowestFiles(25).join('\n')}`);
// Which tests were skipped for what missing dependency, for test/run.ts to print beside its closing line.
const summary = skipSummary();
if (process.env.LNM_SKIP_SUMMARY_FILE) writeFileSync(process.env.LNM_SKIP_SUMMARY_FILE, JSON.stringify(summary));
else for (const line of summary) console.log(line);
process.exit(code);
