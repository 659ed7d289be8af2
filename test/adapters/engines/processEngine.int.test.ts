import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, rm, stat, writeFile, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Server } from 'node:net';
import { createProcessEngine } from '../../../adapters/engines/processEngine.ts';
import { groupMembers, procStat } from '../../../adapters/engines/procfs.ts';
import { ValidationError } from '../../../domain/shared/errors.ts';
import { NodeStartFailedError, type NodeEngine } from '../../../domain/nodes/nodeEngine.ts';
import { anvilBinary, anvilSpec, eventually, freePort, killAndWait, occupyPort, rpc, startNodeInServiceProcess } from './fixtures.ts';

const test = suite<{ dataDir: string; engine: NodeEngine; port: number; keys: string[] }>('process engine with a real anvil', {
  dataDir: '',
  engine: undefined as unknown as NodeEngine,
  port: 0,
  keys: [],
});

test.before(async (ctx) => {
  ctx.dataDir = await mkdtemp(path.join(tmpdir(), 'lnm-process-engine-'));
  ctx.engine = createProcessEngine({ dataDir: ctx.dataDir });
  ctx.port = await freePort();
});

test.after(async (ctx) => {
  for (const key of ctx.keys) await ctx.engine.remove(key, { timeoutMs: 2000 }).catch(() => undefined);
  await rm(ctx.dataDir, { recursive: true, force: true });
});

async function startFailure(engine: NodeEngine, spec: Parameters<NodeEngine['start']>[0]): Promise<NodeStartFailedError> {
  try {
    await engine.start(spec);
  } catch (err) {
    assert.instance(err, NodeStartFailedError);
    return err as NodeStartFailedError;
  }
  throw new Error('start() succeeded where it had to fail');
}

test('prepare writes the node files, key material readable by the owner only', async ({ engine, dataDir, port, keys }) => {
  keys.push('node-1');
  await engine.prepare(anvilSpec('node-1', port));
  const dir = path.join(dataDir, 'nodes', 'node-1');
  assert.is(await readFile(path.join(dir, 'config/node.toml'), 'utf8'), `port = ${port}\n`);
  assert.is((await stat(path.join(dir, 'keys/validator.key'))).mode & 0o777, 0o600);
  assert.is((await stat(path.join(dir, 'config/node.toml'))).mode & 0o777, 0o644);
  assert.is((await engine.status('node-1')).state, 'stopped');
});

test('a started anvil answers JSON-RPC and its output lands in the log', async ({ engine, port }) => {
  const started = await engine.start(anvilSpec('node-1', port));
  assert.ok(started.pid && started.pid > 0);
  assert.is(await rpc(port, 'eth_blockNumber'), '0x0');
  const status = await engine.status('node-1');
  assert.is(status.state, 'running');
  assert.is(status.pid, started.pid);
  const lines = await engine.logs('node-1', { tail: 500 });
  // anvil prints its dev accounts' private keys and mnemonic at startup: never passed on.
  assert.ok(lines.some((l) => l.includes('Private Keys')));
  assert.not.ok(lines.some((l) => /0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80|test junk/.test(l)), lines.join('\n'));
  assert.ok(lines.some((l) => l.includes(`127.0.0.1:${port}`)), `log should say where it listens:\n${lines.join('\n')}`);
  assert.is((await engine.logs('node-1', { tail: 3 })).length, 3);
});

test('starting a running node again is refused', async ({ engine, port }) => {
  const err = await startFailure(engine, anvilSpec('node-1', port));
  assert.is(err.failure, 'already-running');
});

test('a second engine over the same data directory (a restarted service) sees the node running', async ({ engine, dataDir }) => {
  const again = createProcessEngine({ dataDir });
  const first = await engine.status('node-1');
  const second = await again.status('node-1');
  assert.is(second.state, 'running');
  assert.is(second.pid, first.pid);
  assert.is(second.startedAt, first.startedAt);
});

test('followLogs delivers new lines as the node writes them', async ({ dataDir, port }) => {
  const again = createProcessEngine({ dataDir });
  const seen: string[] = [];
  const follower = await again.followLogs('node-1', (line) => seen.push(line));
  try {
    await rpc(port, 'eth_chainId');
    await eventually('eth_chainId in the followed log', () => (seen.some((l) => l.includes('eth_chainId')) ? true : undefined));
  } finally {
    follower.close();
  }
});

test('a node killed from outside shows as exited, with the signal', async ({ engine }) => {
  const { pid } = await engine.status('node-1');
  process.kill(pid!, 'SIGKILL');
  // The exit code/signal is recorded when this service reaps the child, a moment after it died.
  const status = await eventually('exited state with its signal', async () => {
    const s = await engine.status('node-1');
    return s.state === 'exited' && s.signal ? s : undefined;
  });
  assert.is(status.signal, 'SIGKILL');
  assert.match(status.reason ?? '', 'SIGKILL');
});

test('stop ends the node (and its process group) and leaves it stopped; a new engine agrees', async ({ engine, dataDir, port }) => {
  const { pid } = await engine.start(anvilSpec('node-1', port));
  await engine.stop('node-1', { timeoutMs: 5000 });
  assert.is((await engine.status('node-1')).state, 'stopped');
  assert.is((await createProcessEngine({ dataDir }).status('node-1')).state, 'stopped');
  assert.throws(() => process.kill(pid!, 0));
  const answers = await rpc(port, 'eth_blockNumber').then(() => true, () => false);
  assert.is(answers, false, 'a stopped node must not answer');
});

test('a node started by one engine is stopped by another (after a restart of the service)', async ({ engine, dataDir, port }) => {
  const { pid } = await engine.start(anvilSpec('node-1', port));
  await createProcessEngine({ dataDir }).stop('node-1', { timeoutMs: 5000 });
  assert.throws(() => process.kill(pid!, 0));
  assert.is((await engine.status('node-1')).state, 'stopped');
});

test('a pid file naming a live process that is not the node (pid reuse) is neither running nor killed', async ({ engine, dataDir, port, keys }) => {
  keys.push('node-reused');
  await engine.prepare(anvilSpec('node-reused', port));
  const dir = path.join(dataDir, 'nodes', 'node-reused');
  // This test process stands for the stranger that got the node's old pid.
  await writeFile(path.join(dir, 'node.pid.json'), JSON.stringify({ pid: process.pid, command: anvilBinary, startedAt: new Date(0).toISOString() }));
  assert.is((await engine.status('node-reused')).state, 'exited');
  // Same pid and command line but another start time: still a stranger.
  const startTicks = (await procStat(process.pid))!.startTicks + 1;
  await writeFile(path.join(dir, 'node.pid.json'), JSON.stringify({ pid: process.pid, command: process.execPath, startTicks, startedAt: new Date(0).toISOString() }));
  assert.is((await engine.status('node-reused')).state, 'exited');
  // Pid and start time right, but recorded before a reboot.
  const own = (await procStat(process.pid))!.startTicks;
  await writeFile(path.join(dir, 'node.pid.json'), JSON.stringify({ pid: process.pid, command: process.execPath, startTicks: own, bootId: 'an-earlier-boot', startedAt: new Date(0).toISOString() }));
  assert.is((await engine.status('node-reused')).state, 'exited');
  await engine.stop('node-reused', { timeoutMs: 500 });
  assert.is((await engine.status('node-reused')).state, 'stopped');
});

test('remove stops the node and deletes its directory', async ({ engine, dataDir, port }) => {
  await engine.start(anvilSpec('node-1', port));
  await engine.remove('node-1', { timeoutMs: 5000 });
  assert.is((await engine.status('node-1')).state, 'unknown');
  const exists = await stat(path.join(dataDir, 'nodes', 'node-1')).then(() => true, () => false);
  assert.is(exists, false);
});

test('a missing binary fails the start with its path in the message', async ({ engine, port, keys }) => {
  keys.push('node-nobinary');
  const spec = anvilSpec('node-nobinary', port, { process: { command: '/opt/nowhere/besu', args: [] } });
  const err = await startFailure(engine, spec);
  assert.is(err.failure, 'binary-missing');
  assert.match(err.message, '/opt/nowhere/besu');
  assert.is.not((await engine.status('node-nobinary')).state, 'running');
});

test('a port already in use fails the start and names the port', async ({ engine, keys }) => {
  keys.push('node-busy');
  const port = await freePort();
  const holder: Server = await occupyPort(port);
  try {
    const err = await startFailure(engine, anvilSpec('node-busy', port));
    assert.is(err.failure, 'port-in-use');
    assert.match(err.message, String(port));
    assert.is.not((await engine.status('node-busy')).state, 'running');
  } finally {
    await new Promise((r) => holder.close(r));
  }
});

test('a node that exits at once fails the start with its own last log lines, never running', async ({ engine, keys }) => {
  keys.push('node-badargs');
  const port = await freePort();
  const spec = anvilSpec('node-badargs', port, { process: { command: anvilBinary, args: ['--port', 'not-a-port'] } });
  const err = await startFailure(engine, spec);
  assert.is(err.failure, 'exited');
  assert.ok(err.lastLogLines.some((l) => l.includes('not-a-port')), err.lastLogLines.join('\n'));
  assert.match(err.message, 'exit code 2');
  assert.is((await engine.status('node-badargs')).state, 'exited');
});

test('stop kills the whole process group with SIGKILL when the node ignores SIGTERM', async ({ engine, keys }) => {
  keys.push('node-stubborn');
  const spec = { nodeKey: 'node-stubborn', displayName: 'stubborn', files: [], ports: [], process: { command: '/bin/sh', args: ['-c', 'trap "" TERM; sleep 300 & wait; sleep 300'] } };
  const { pid } = await engine.start(spec);
  const members = await eventually('the sleep child', async () => {
    const m = await groupMembers(pid!);
    return m.length >= 2 ? m : undefined;
  });
  await engine.stop('node-stubborn', { timeoutMs: 300 });
  assert.equal(await groupMembers(pid!), []);
  // Gone, or a zombie waiting for this test process (their parent) to reap it.
  for (const member of members) assert.ok([undefined, 'Z'].includes((await procStat(member))?.state), `process ${member} still runs`);
  assert.is((await engine.status('node-stubborn')).state, 'stopped');
});

test('a node gets its own environment and {nodeDir}, not the service secrets', async ({ engine, dataDir, keys }) => {
  keys.push('node-env');
  process.env.LNM_TEST_SERVICE_SECRET = 'service-only';
  try {
    const spec = {
      nodeKey: 'node-env',
      displayName: 'env printer',
      files: [{ path: 'config/hello.txt', content: 'hello from the node dir\n' }],
      ports: [],
      process: { command: '/bin/sh', args: ['-c', 'env; cat "$1"; exec sleep 300', 'sh', '{nodeDir}/config/hello.txt'], env: { NODE_HOME: '{nodeDir}' } },
    };
    await engine.prepare(spec);
    await engine.start(spec);
    const lines = await eventually('the output', async () => {
      const l = await engine.logs('node-env', { tail: 200 });
      return l.includes('hello from the node dir') ? l : undefined;
    });
    assert.ok(lines.includes(`NODE_HOME=${path.join(dataDir, 'nodes', 'node-env')}`), lines.join('\n'));
    assert.not.ok(lines.some((l) => l.includes('LNM_TEST_SERVICE_SECRET')));
    // The shell exec'd into sleep: a changed command line is still the node it started.
    assert.is((await engine.status('node-env')).state, 'running');
  } finally {
    delete process.env.LNM_TEST_SERVICE_SECRET;
  }
});

test('a node outlives a crash of the service process that started it, and the next service run stops it', async ({ engine, dataDir, keys }) => {
  keys.push('node-crash');
  const port = await freePort();
  const { child, started } = await startNodeInServiceProcess('process', dataDir, 'node-crash', port);
  await killAndWait(child);
  assert.is(await rpc(port, 'eth_blockNumber'), '0x0');
  const status = await engine.status('node-crash');
  assert.is(status.state, 'running');
  assert.is(status.pid, started.pid);
  await engine.stop('node-crash', { timeoutMs: 5000 });
  assert.is((await engine.status('node-crash')).state, 'stopped');
  const answers = await rpc(port, 'eth_blockNumber').then(() => true, () => false);
  assert.is(answers, false);
});

test('two starts of the same node at once run it once; the other is refused as already running', async ({ engine, keys }) => {
  keys.push('node-twice');
  const port = await freePort();
  const results = await Promise.allSettled([engine.start(anvilSpec('node-twice', port)), engine.start(anvilSpec('node-twice', port))]);
  assert.equal(results.map((r) => r.status).sort(), ['fulfilled', 'rejected']);
  const refused = results.find((r): r is PromiseRejectedResult => r.status === 'rejected')!.reason;
  assert.is(refused.failure, 'already-running');
  assert.is(await rpc(port, 'eth_blockNumber'), '0x0');
});

test('a node that stays alive but never opens its port counts as started once the ready timeout passes', async ({ dataDir, keys }) => {
  keys.push('node-quiet');
  const engine = createProcessEngine({ dataDir, readyTimeoutMs: 800 });
  assert.equal(await engine.available(), { ok: true });
  const port = await freePort();
  const spec = { nodeKey: 'node-quiet', displayName: 'quiet', files: [], ports: [port], process: { command: '/bin/sleep', args: ['300'] } };
  const { pid } = await engine.start(spec);
  const status = await engine.status('node-quiet');
  assert.is(status.state, 'running');
  assert.is(status.pid, pid);
});

test('node keys that would escape the data directory are refused', async ({ engine }) => {
  const refused = await engine.status('../etc').then(() => false, (e) => e instanceof ValidationError);
  assert.ok(refused);
});

test.run();
