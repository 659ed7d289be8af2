// Runs the uvu suites in one process: unit first, then integration, then end to end.
// Usage: tsx test/uvuEntry.ts [regex]   (TEST_FILTER works too)
import { parse } from 'uvu/parse';
import { run } from 'uvu/run';
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

let code = 0;
try {
  await run(suites, { bail: false });
  code = Number(process.exitCode ?? 0);
} catch (err) {
  // uvu's reporter itself can throw (it expects err.details to be a string; our ValidationError
  // carries an array there). Report the escaped error instead of dying silently.
  console.error('\nA test threw an error the reporter could not format:', err);
  code = 1;
}
await runGlobalTeardown();
// Which tests were skipped for what missing dependency, for test/run.ts to print beside its closing line.
const summary = skipSummary();
if (process.env.LNM_SKIP_SUMMARY_FILE) writeFileSync(process.env.LNM_SKIP_SUMMARY_FILE, JSON.stringify(summary));
else for (const line of summary) console.log(line);
process.exit(code);
