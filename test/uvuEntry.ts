// Runs the uvu suites in one process: unit first, then integration, then end to end.
// Usage: tsx test/uvuEntry.ts [regex]   (TEST_FILTER works too)
import { parse } from 'uvu/parse';
import { run } from 'uvu/run';
import { runGlobalTeardown } from './helpers/globalTeardown.ts';

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

await run(suites, { bail: false });
const code = process.exitCode ?? 0;
await runGlobalTeardown();
process.exit(code);
