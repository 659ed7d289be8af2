// Runs the uvu suites in lanes side by side (test/lanes.ts says how they are kept apart), each
// file's output printed in one piece when it ends, then uvu's totals over all of them.
// Usage: tsx test/uvuEntry.ts [regex]   (TEST_FILTER works too; LNM_TEST_LANES=1 for one lane;
// LNM_TEST_DIR names another directory of *.test.ts files: test/harness/lanes.unit.test.ts;
// LNM_TEST_DURATIONS_OUT=test/durations.json writes this run's seconds per file there, for the order)
import { parse } from 'uvu/parse';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { skipSummary, type SkipRecords } from './helpers/requirements.ts';
import { LaneQueue, laneCount, needsMainNetwork, readDurations, type LaneAsk, type LaneTell, type TestFile } from './lanes.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const filter = process.argv[2] ?? process.env.TEST_FILTER ?? '';
const re = filter ? new RegExp(filter) : null;
const ctx = await parse(process.env.LNM_TEST_DIR ?? 'test', '\\.test\\.ts$', { cwd: process.cwd() });
const files: TestFile[] = (ctx.suites as Array<{ name: string; file: string }>)
  .filter((s) => !re || re.test(s.name))
  .map((s) => ({ name: s.name, file: s.file, mainNetwork: needsMainNetwork(s.name, readFileSync(s.file, 'utf8')) }));

const durationsFile = path.join(here, 'durations.json');
const readOr = (f: string) => {
  try {
    return readFileSync(f, 'utf8');
  } catch {
    return null;
  }
};
const queue = new LaneQueue(files, readDurations(readOr(durationsFile)));
const { lanes, note } = laneCount(process.env, files.length);
if (note) console.log(`[lanes] ${note}`);
if (lanes > 1) console.log(`[lanes] ${files.length} files in ${lanes} lanes (${files.filter((f) => f.mainNetwork).length} use Docker or Kubernetes: the first lane only)`);

const started = Date.now();
let total = 0;
let passed = 0;
let skipped = 0;
const failedFiles: string[] = [];
/** Wall time per test file, to print the slowest: a suite that grows past CI's budget shows here. */
const fileSeconds = new Map<string, number>();
const skips: SkipRecords[] = [];
const running = new Map<number, { name: string; since: number }>();
/** Each lane writes the output of the file it runs here as it comes (test/lane.ts), for the watch below. */
const progressDir = mkdtempSync(path.join(tmpdir(), 'lnm-test-lanes-'));
const progressOf = (index: number) => path.join(progressDir, `lane-${index + 1}.out`);

function startLane(index: number): Promise<void> {
  const inMainNetwork = index === 0;
  const node = [process.execPath, '--import', 'tsx', path.join(here, 'lane.ts')];
  const [cmd, ...args] = inMainNetwork ? node : ['unshare', '--net', ...node];
  const child: ChildProcess = spawn(cmd, args, {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, LNM_TEST_LANE: String(index + 1), LNM_TEST_LANE_PROGRESS: progressOf(index), ...(inMainNetwork ? {} : { LNM_TEST_LANE_NETNS: '1' }) },
  });
  const tell = (m: LaneTell) => child.connected && child.send(m);
  const handOut = () => {
    const f = queue.next(inMainNetwork);
    if (!f) return tell({ type: 'end' });
    running.set(index, { name: f.name, since: Date.now() });
    tell({ type: 'run', name: f.name, file: f.file });
  };
  child.on('message', (raw) => {
    const m = raw as LaneAsk;
    if (m.type === 'ready') handOut();
    else if (m.type === 'done') {
      running.delete(index);
      process.stdout.write(m.output + '\n');
      total += m.total;
      passed += m.passed;
      skipped += m.skipped;
      if (m.failed) failedFiles.push(m.file);
      fileSeconds.set(m.file, m.seconds);
      handOut();
    } else if (m.type === 'skips') skips.push(m.skips);
  });
  return new Promise((resolve) => {
    child.on('exit', (code, signal) => {
      const lost = running.get(index);
      running.delete(index);
      if (lost) {
        // The lane died inside a file (an uncaught exception, a kill): that file failed, the rest go on in a new lane.
        console.log(`\n  FAIL  ${lost.name}: its lane ended (${signal ?? `exit ${code}`}) before the file did\n`);
        total += 1;
        failedFiles.push(lost.name);
        if (queue.left) return resolve(startLane(index));
      }
      resolve();
    });
  });
}

/** The last line of what a lane's file has printed so far. */
function lastLine(index: number): string {
  try {
    const text = readFileSync(progressOf(index), 'utf8').trimEnd();
    return text.slice(text.lastIndexOf('\n') + 1).slice(-160);
  } catch {
    return '';
  }
}
// Which files have been running long, and how far they are: a hang shows in CI's log while it hangs.
const watch = setInterval(() => {
  for (const [index, r] of running) {
    if (Date.now() - r.since > 240_000) console.log(`[lanes] still running in lane ${index + 1}: ${r.name} (${Math.round((Date.now() - r.since) / 60_000)} min): ${lastLine(index)}`);
  }
}, 300_000);
await Promise.all(Array.from({ length: lanes }, (_, i) => startLane(i)));
clearInterval(watch);
rmSync(progressDir, { recursive: true, force: true });

function slowestFiles(n: number): string[] {
  const all = [...fileSeconds.entries()].sort((a, b) => b[1] - a[1]);
  const sum = all.reduce((t, [, s]) => t + s, 0);
  return [`Slowest test files (of ${all.length}, ${Math.round(sum)} s in all, ${Math.round((Date.now() - started) / 1000)} s of wall time in ${lanes} lane${lanes > 1 ? 's' : ''}):`, ...all.slice(0, n).map(([f, s]) => `  ${s.toFixed(0).padStart(5)} s  ${f}`)];
}

// The seconds of this run's files over those of the file named (a filtered run updates its own files only).
const durationsOut = process.env.LNM_TEST_DURATIONS_OUT;
if (durationsOut) {
  const merged = { ...readDurations(readOr(durationsOut)), ...Object.fromEntries([...fileSeconds].map(([f, sec]) => [f, Math.round(sec)])) };
  writeFileSync(durationsOut, JSON.stringify(Object.fromEntries(Object.entries(merged).sort(([a], [b]) => a.localeCompare(b))), null, 1) + '\n');
}

if (failedFiles.length) console.log(`\nFailed files:\n${failedFiles.map((f) => `  ${f}`).join('\n')}`);
// uvu's totals, which test/run.ts reads.
console.log(`\n  Total:     ${total}\n  Passed:    ${passed}\n  Skipped:   ${skipped}\n  Duration:  ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
console.log(`\n${slowestFiles(25).join('\n')}`);
// Which tests were skipped for what missing dependency, for test/run.ts to print beside its closing line.
const summary = skipSummary(skips);
if (process.env.LNM_SKIP_SUMMARY_FILE) writeFileSync(process.env.LNM_SKIP_SUMMARY_FILE, JSON.stringify(summary));
else for (const line of summary) console.log(line);
process.exit(failedFiles.length || passed < total ? 1 : 0);
