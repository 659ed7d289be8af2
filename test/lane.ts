// One lane of `npm test` (started by test/uvuEntry.ts, over an IPC channel): it asks for a test
// file, runs that file's uvu suites, answers with the counts and the file's output, and asks
// again, until none is left for it; then it runs the global teardown (its own embedded
// PostgreSQL, child servers) and sends what it skipped. A lane other than the first runs in a
// network namespace of its own (test/lanes.ts says why); it brings that namespace's loopback up.
import { execFileSync } from 'node:child_process';
import { appendFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import type { LaneAsk, LaneTell } from './lanes.ts';

// Before uvu is first imported (by the first test file): run suites only when told, not on a timer.
const g = globalThis as unknown as { UVU_DEFER: number; UVU_INDEX: number; UVU_QUEUE: unknown[][] };
g.UVU_DEFER = 1;
g.UVU_QUEUE = [];

const { runGlobalTeardown } = await import('./helpers/globalTeardown.ts');
const { skipRecords } = await import('./helpers/requirements.ts');

if (process.env.LNM_TEST_LANE_NETNS === '1') {
  execFileSync('ip', ['link', 'set', 'lo', 'up']);
  // Fabric's peer refuses to start without a non-loopback IPv4 interface ("no non-loopback, IPv4
  // interface detected"): a veth pair inside the namespace gives it one, reaching nothing outside.
  execFileSync('ip', ['link', 'add', 'lnmlane0', 'type', 'veth', 'peer', 'name', 'lnmlane1']);
  execFileSync('ip', ['addr', 'add', '10.215.0.1/24', 'dev', 'lnmlane0']);
  for (const dev of ['lnmlane0', 'lnmlane1']) execFileSync('ip', ['link', 'set', dev, 'up']);
}

process.on('unhandledRejection', (err) => {
  console.error('unhandled rejection during tests:', err);
});

type Result = [string | true, number, number, number];
const BEFORE_HOOK_DROPPED = (missing: number, total: number) =>
  `  ${missing} of ${total} tests did not run and none failed: a before hook threw (uvu drops its error). Make the suite with requires or requiresAll (test/helpers/requirements.ts) to see it.`;

/** This file's output so far, for the coordinator to show the tail of a file that runs long. */
const progressFile = process.env.LNM_TEST_LANE_PROGRESS;

/** Runs one file's suites the way uvu's exec does, with its output kept to send in one piece. */
async function runFile(name: string, file: string): Promise<LaneAsk> {
  const started = Date.now();
  let output = '';
  if (progressFile) writeFileSync(progressFile, '');
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string | Uint8Array) => {
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
    output += text;
    if (progressFile) appendFileSync(progressFile, text);
    return true;
  }) as typeof process.stdout.write;
  let total = 0;
  let passed = 0;
  let skipped = 0;
  let failed = false;
  try {
    g.UVU_QUEUE.length = 0;
    g.UVU_INDEX = 0;
    g.UVU_QUEUE.push([name]);
    output += `${name}\n`;
    try {
      await import(pathToFileURL(file).href);
    } catch (err) {
      output += `\n  FAIL  ${name} could not be loaded: ${err instanceof Error ? err.stack : String(err)}\n`;
      return { type: 'done', file: name, total: 1, passed: 0, skipped: 0, failed: true, seconds: (Date.now() - started) / 1000, output };
    }
    const suites = g.UVU_QUEUE[0].slice(1) as Array<() => Promise<Result>>;
    for (const runSuite of suites) {
      let result: Result;
      try {
        result = await runSuite();
      } catch (err) {
        // An after hook that throws escapes uvu's runner.
        result = [`  an after hook threw: ${err instanceof Error ? err.stack : String(err)}`, 0, 0, 1];
      }
      const [errs, ran, skip, max] = result;
      total += max;
      passed += ran;
      skipped += skip;
      if (errs !== true) {
        failed = true;
        output += `\n${errs}\n`;
      } else if (ran < max) {
        failed = true;
        output += `\n${BEFORE_HOOK_DROPPED(max - ran, max)}\n`;
      }
    }
  } finally {
    process.stdout.write = write;
  }
  return { type: 'done', file: name, total, passed, skipped, failed, seconds: (Date.now() - started) / 1000, output };
}

const send = (m: LaneAsk) => new Promise<void>((resolve) => process.send!(m, () => resolve()));
const next = () =>
  new Promise<LaneTell>((resolve) => {
    process.once('message', (m) => resolve(m as LaneTell));
  });

await send({ type: 'ready' });
for (;;) {
  const told = await next();
  if (told.type === 'end') break;
  await send(await runFile(told.name, told.file));
}
await runGlobalTeardown();
await send({ type: 'skips', skips: skipRecords() });
process.disconnect();
process.exit(0);
