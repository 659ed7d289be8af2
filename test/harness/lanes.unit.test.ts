// `npm test` runs its files in lanes (test/lanes.ts): which file may go to which lane, the order
// they go out in, the second lane's own network, and what the coordinator (test/uvuEntry.ts)
// counts when a file fails, when a before hook's error is dropped and when a lane dies.
import { test, suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile, execFileSync } from 'node:child_process';
import net from 'node:net';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { LaneQueue, laneCount, needsMainNetwork, readDurations, type TestFile } from '../lanes.ts';
import { requires } from '../helpers/requirements.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

test('a file that uses Docker or Kubernetes runs in the main network; a unit test only when it talks to the engine', () => {
  assert.ok(needsMainNetwork('e2e/x.e2e.test.ts', "const it = requires(test, 'docker', dockerMissing);"));
  assert.ok(needsMainNetwork('e2e/hosts/k.e2e.test.ts', 'on the Kubernetes test cluster'));
  assert.ok(needsMainNetwork('adapters/d.int.test.ts', "engine: 'docker'"));
  assert.not.ok(needsMainNetwork('e2e/evm.e2e.test.ts', "const r = await api('POST', '/networks/evm', { client: 'anvil' });"));
  assert.ok(needsMainNetwork('adapters/c.unit.test.ts', "import Docker from 'dockerode';"));
  assert.not.ok(needsMainNetwork('domain/n.unit.test.ts', "assert.is(kind, 'docker');"));
});

test('the main-network lane takes its own files first, another lane only the rest; long files before unit tests', () => {
  const f = (name: string, mainNetwork = false): TestFile => ({ name, file: `/t/${name}`, mainNetwork });
  const q = new LaneQueue([f('a.unit.test.ts'), f('d.e2e.test.ts', true), f('b.int.test.ts'), f('c.e2e.test.ts'), f('e.int.test.ts', true)]);
  assert.is(q.next(false)?.name, 'c.e2e.test.ts');
  assert.is(q.next(true)?.name, 'd.e2e.test.ts');
  assert.is(q.next(true)?.name, 'e.int.test.ts');
  assert.is(q.next(false)?.name, 'b.int.test.ts');
  assert.is(q.left, 1);
  assert.is(q.next(true)?.name, 'a.unit.test.ts');
  assert.is(q.next(false), null);
  assert.is(q.next(true), null);
  // A namespace lane never gets a main-network file, even when nothing else is left.
  assert.is(new LaneQueue([f('x.e2e.test.ts', true)]).next(false), null);
});

test('measured seconds order each queue longest first; a file not measured goes by its kind', () => {
  const f = (name: string, mainNetwork = false): TestFile => ({ name, file: `/t/${name}`, mainNetwork });
  const durations = readDurations(JSON.stringify({ 'slow.int.test.ts': 300, 'quick.e2e.test.ts': 5, 'dock.e2e.test.ts': 20, 'big.e2e.test.ts': 200, bad: 'x', neg: -1 }));
  assert.equal(durations, { 'slow.int.test.ts': 300, 'quick.e2e.test.ts': 5, 'dock.e2e.test.ts': 20, 'big.e2e.test.ts': 200 });
  const q = new LaneQueue([f('quick.e2e.test.ts'), f('new.e2e.test.ts'), f('slow.int.test.ts'), f('a.unit.test.ts'), f('dock.e2e.test.ts', true), f('big.e2e.test.ts', true)], durations);
  // The main-network lane: its own files by seconds, then the others'.
  assert.is(q.next(true)?.name, 'big.e2e.test.ts');
  assert.is(q.next(true)?.name, 'dock.e2e.test.ts');
  // The others: 300 s, then a new end-to-end file (60 s assumed), then 5 s, then a unit file.
  assert.equal([q.next(false)?.name, q.next(true)?.name, q.next(false)?.name, q.next(false)?.name, q.next(false)], ['slow.int.test.ts', 'new.e2e.test.ts', 'quick.e2e.test.ts', 'a.unit.test.ts', null]);
  // A missing or broken file orders by kind alone.
  assert.equal(readDurations(null), {});
  assert.equal(readDurations('[1,2]'), {});
  assert.equal(readDurations('{'), {});
});

test('LNM_TEST_LANES: one lane when asked, when a single file runs, or a clear note for a bad value', () => {
  assert.is(laneCount({ LNM_TEST_LANES: '1' }, 50).lanes, 1);
  assert.is(laneCount({}, 1).lanes, 1);
  const bad = laneCount({ LNM_TEST_LANES: 'two' }, 50);
  assert.is(bad.lanes, 1);
  assert.match(bad.note ?? '', /LNM_TEST_LANES=two is not a whole number/);
});

// Whether this machine can make a network namespace (root, unshare, ip): the lanes' own check.
const netnsMissing = laneCount({ LNM_TEST_LANES: '2' }, 2).note;
const withNetns = requires(suite('lanes in their own network'), 'netns', netnsMissing);

withNetns('a second lane binds a port this machine already listens on (as a default port, 7051, taken in both)', async () => {
  // A port free here now (7051 itself may be held by something else on a developer's machine).
  const held = net.createServer();
  await new Promise<void>((resolve, reject) => held.once('error', reject).listen(0, '127.0.0.1', () => resolve()));
  const port = (held.address() as net.AddressInfo).port;
  try {
    const out = execFileSync('unshare', ['--net', 'sh', '-c', `ip link set lo up && exec ${process.execPath} -e "const s=require('net').createServer().listen(${port},'127.0.0.1',()=>{console.log('bound '+s.address().port);s.close()})"`], { encoding: 'utf8' });
    assert.is(out.trim(), `bound ${port}`);
  } finally {
    held.close();
  }
});

/** Runs the coordinator over a directory of small test files; its output and exit code. */
function coordinator(files: Record<string, string>, lanes: string): Promise<{ code: number; out: string }> {
  const dir = mkdtempSync(path.join(root, 'test', 'harness', '.lanes-'));
  for (const [name, body] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), `import { test } from 'uvu';\nimport * as assert from 'uvu/assert';\n${body}\ntest.run();\n`);
  }
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', path.join(root, 'test', 'uvuEntry.ts')], { cwd: root, env: { ...process.env, FORCE_COLOR: '0', LNM_TEST_DIR: path.relative(root, dir), LNM_TEST_LANES: lanes, LNM_SKIP_SUMMARY_FILE: '' } }, (err, stdout, stderr) => {
      rmSync(dir, { recursive: true, force: true });
      resolve({ code: typeof err?.code === 'number' ? err.code : 0, out: stdout + stderr });
    });
  });
}

const files = {
  'a.unit.test.ts': "test('passes', () => { assert.ok(true); });\ntest('passes too', () => { assert.ok(true); });",
  'b.unit.test.ts': "test('fails', () => { assert.is(1, 2, 'one is not two'); });",
  'c.unit.test.ts': "test.before(() => { throw new Error('set-up broke'); });\ntest('never runs', () => {});",
  'd.unit.test.ts': "test('ends its lane', () => { process.exit(3); });",
  'e.unit.test.ts': "test('after the lost lane', () => { assert.ok(true); });",
};

for (const lanes of ['1', '2']) {
  test(`${lanes} lane(s): every file counted, a failure, a dropped before hook and a dead lane each fail, the others still run`, async () => {
    const r = await coordinator(files, lanes);
    assert.is(r.code, 1, r.out);
    assert.match(r.out, /Total:\s+6\n/, r.out);
    assert.match(r.out, /Passed:\s+3\n/, r.out);
    assert.match(r.out, /one is not two/);
    assert.match(r.out, /1 of 1 tests did not run and none failed: a before hook threw/);
    assert.match(r.out, /FAIL {2}d\.unit\.test\.ts: its lane ended \(exit 3\) before the file did/);
    const failed = r.out.slice(r.out.indexOf('Failed files:')).split('\n').slice(1, 4).map((l) => l.trim()).sort();
    assert.equal(failed, ['b.unit.test.ts', 'c.unit.test.ts', 'd.unit.test.ts']);
    assert.match(r.out, /e\.unit\.test\.ts\n• {3}\(1 \/ 1\)/, 'the file after the dead lane ran');
  });
}

test('all passing: exit 0 and the totals test/run.ts reads', async () => {
  const r = await coordinator({ 'a.unit.test.ts': files['a.unit.test.ts'], 'e.unit.test.ts': files['e.unit.test.ts'] }, '2');
  assert.is(r.code, 0, r.out);
  assert.match(r.out, /Total:\s+3\n\s+Passed:\s+3\n/);
});

test.run();
withNetns.run();
