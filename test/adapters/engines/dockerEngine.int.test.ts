import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import Docker from 'dockerode';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Server } from 'node:net';
import { createDockerEngine } from '../../../adapters/engines/dockerEngine.ts';
import { NodeStartFailedError, type NodeEngine, type NodeLaunchSpec } from '../../../domain/nodes/nodeEngine.ts';
import { anvilImage, dockerSkipReason } from '../../helpers/dockerAvailability.ts';
import { requires } from '../../helpers/requirements.ts';
import { anvilSpec, eventually, freePort, killAndWait, occupyPort, rpc, startNodeInServiceProcess } from './fixtures.ts';

const docker = new Docker();
const skipReason = await dockerSkipReason();

// Unique per run: several checkouts may share this machine's Docker Engine.
const key = (name: string) => `t${process.pid}-${name}`;
const spec = (name: string, port: number, extra: Partial<NodeLaunchSpec> = {}) => {
  const base = anvilSpec(key(name), port, extra);
  return { ...base, docker: extra.docker ?? { ...base.docker!, image: anvilImage } };
};

const test = suite<{ dataDir: string; engine: NodeEngine; port: number; names: string[] }>('docker engine with the local anvil image', {
  dataDir: '',
  engine: undefined as unknown as NodeEngine,
  port: 0,
  names: [],
});
const live = requires(test, 'docker', skipReason);

test.before(async (ctx) => {
  ctx.dataDir = await mkdtemp(path.join(tmpdir(), 'lnm-docker-engine-'));
  ctx.engine = createDockerEngine({ dataDir: ctx.dataDir, docker });
  ctx.port = await freePort();
});

test.after(async (ctx) => {
  if (!skipReason) for (const name of ctx.names) await ctx.engine.remove(key(name), { timeoutMs: 2000 }).catch(() => undefined);
  await rm(ctx.dataDir, { recursive: true, force: true });
});

async function startFailure(engine: NodeEngine, s: NodeLaunchSpec): Promise<NodeStartFailedError> {
  try {
    await engine.start(s);
  } catch (err) {
    assert.instance(err, NodeStartFailedError);
    return err as NodeStartFailedError;
  }
  throw new Error('start() succeeded where it had to fail');
}

test('without a Docker Engine, available() says so and start() fails with that reason', async ({ dataDir, port }) => {
  const absent = createDockerEngine({ dataDir, docker: new Docker({ socketPath: '/nonexistent/docker.sock' }) });
  const availability = await absent.available();
  assert.is(availability.ok, false);
  assert.match(availability.ok ? '' : availability.reason, '/nonexistent/docker.sock');
  const err = await startFailure(absent, spec('absent', port));
  assert.is(err.failure, 'engine-unavailable');
  const status = await absent.status(key('absent'));
  assert.is(status.state, 'unknown');
  assert.match(status.reason ?? '', 'did not answer');
});

live('available() answers ok when the Docker Engine runs', async ({ engine }) => {
  assert.equal(await engine.available(), { ok: true });
});

live('a started anvil container answers JSON-RPC on the host network, labelled and never restarted', async ({ engine, port, names, dataDir }) => {
  names.push('a');
  await engine.prepare(spec('a', port));
  assert.is((await stat(path.join(dataDir, 'nodes', key('a'), 'keys/validator.key'))).mode & 0o777, 0o600);
  // Named by its software; the engine's image table says which image that is.
  const byName = { ...spec('a', port), docker: { image: 'anvil', args: spec('a', port).docker.args } };
  const started = await createDockerEngine({ dataDir, docker, images: { anvil: anvilImage } }).start(byName);
  assert.ok(started.containerId);
  assert.is(await rpc(port, 'eth_blockNumber'), '0x0');
  const info = await docker.getContainer(started.containerId!).inspect();
  assert.is(info.Config.Image, anvilImage);
  assert.is(info.Config.Labels['lnm.node'], key('a'));
  assert.is(info.HostConfig.RestartPolicy?.Name, 'no');
  assert.is(info.HostConfig.AutoRemove, false);
  const status = await engine.status(key('a'));
  assert.is(status.state, 'running');
  assert.is(status.containerId, started.containerId);
});

live('logs show the node output and followLogs delivers new lines', async ({ engine, port }) => {
  const lines = await engine.logs(key('a'), { tail: 500 });
  // anvil prints its dev accounts' private keys and mnemonic at startup: never passed on.
  assert.ok(lines.some((l) => l.includes('Private Keys')));
  assert.not.ok(lines.some((l) => /0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80|test junk/.test(l)), lines.join('\n'));
  assert.ok(lines.some((l) => l.includes(`127.0.0.1:${port}`)), lines.join('\n'));
  assert.is((await engine.logs(key('a'), { tail: 2 })).length, 2);
  const seen: string[] = [];
  const follower = await engine.followLogs(key('a'), (l) => seen.push(l));
  try {
    await rpc(port, 'eth_chainId');
    await eventually('eth_chainId in the followed log', () => (seen.some((l) => l.includes('eth_chainId')) ? true : undefined));
  } finally {
    follower.close();
  }
});

live('a second engine (a restarted service) sees the container running', async ({ engine, dataDir }) => {
  const again = createDockerEngine({ dataDir, docker });
  assert.is((await again.status(key('a'))).state, 'running');
  assert.is((await again.status(key('a'))).containerId, (await engine.status(key('a'))).containerId);
});

live('a container killed from outside shows as exited with code 137 (SIGKILL)', async ({ engine }) => {
  const { containerId } = await engine.status(key('a'));
  await docker.getContainer(containerId!).kill({ signal: 'SIGKILL' });
  const status = await eventually('exited', async () => {
    const s = await engine.status(key('a'));
    return s.state === 'exited' ? s : undefined;
  });
  assert.is(status.exitCode, 137);
  assert.is(status.signal, 'SIGKILL');
});

live('start after an exit replaces the container; stop leaves it stopped for every engine', async ({ engine, dataDir, port }) => {
  await engine.start(spec('a', port));
  assert.is(await rpc(port, 'eth_blockNumber'), '0x0');
  await engine.stop(key('a'), { timeoutMs: 5000 });
  assert.is((await engine.status(key('a'))).state, 'stopped');
  assert.is((await createDockerEngine({ dataDir, docker }).status(key('a'))).state, 'stopped');
  const answers = await rpc(port, 'eth_blockNumber').then(() => true, () => false);
  assert.is(answers, false);
});

live("runWhileStopped runs a command in a one-off container of the stopped node's image, removed after; refused while the node runs or has no container", async ({ engine, port }) => {
  const ran = await engine.runWhileStopped!(key('a'), ['--version']);
  assert.is(ran.exitCode, 0, ran.output.join('\n'));
  assert.match(ran.output.join('\n'), /anvil/);
  const onceLeft = await docker.listContainers({ all: true, filters: { label: [`lnm.node-once=${key('a')}`] } });
  assert.is(onceLeft.length, 0, 'the one-off container removed');
  const failed = await engine.runWhileStopped!(key('a'), ['--no-such-flag']);
  assert.ok(failed.exitCode !== 0, 'its exit code answered');
  await engine.start(spec('a', port));
  const refused = await engine.runWhileStopped!(key('a'), ['--version']).then(() => null, (err: Error) => err.message);
  assert.match(refused ?? 'it ran', 'needs it stopped');
  await engine.stop(key('a'), { timeoutMs: 5000 });
  const none = await engine.runWhileStopped!(key('never-made'), ['--version']).then(() => null, (err: Error) => err.message);
  assert.match(none ?? 'it ran', 'has no container');
});

live('remove deletes the container and the node directory', async ({ engine, dataDir }) => {
  const { containerId } = await engine.status(key('a'));
  await engine.remove(key('a'), { timeoutMs: 5000 });
  assert.is((await engine.status(key('a'))).state, 'unknown');
  const containerLeft = await docker.getContainer(containerId!).inspect().then(() => true, () => false);
  assert.is(containerLeft, false);
  const dirLeft = await stat(path.join(dataDir, 'nodes', key('a'))).then(() => true, () => false);
  assert.is(dirLeft, false);
});

live('a container outlives a crash of the service process that started it, and the next service run stops it', async ({ engine, dataDir, names }) => {
  names.push('crash');
  const port = await freePort();
  const { child, started } = await startNodeInServiceProcess('docker', dataDir, key('crash'), port);
  await killAndWait(child);
  assert.is(await rpc(port, 'eth_blockNumber'), '0x0');
  const status = await engine.status(key('crash'));
  assert.is(status.state, 'running');
  assert.is(status.containerId, started.containerId);
  await engine.stop(key('crash'), { timeoutMs: 5000 });
  assert.is((await engine.status(key('crash'))).state, 'stopped');
});

live("a container of the same name made by another service (other data directory) is reported, never stopped or removed", async ({ engine, dataDir }) => {
  const port = await freePort();
  const other = await docker.createContainer({
    name: `lnm-${key('foreign')}`,
    Image: anvilImage,
    Cmd: ['--host', '127.0.0.1', '--port', String(port)],
    Labels: { 'lnm.node': key('foreign'), 'lnm.data-dir': '/srv/another-service' },
    HostConfig: { NetworkMode: 'host' },
  });
  try {
    await other.start();
    const status = await engine.status(key('foreign'));
    assert.is(status.state, 'unknown');
    assert.match(status.reason ?? '', '/srv/another-service');
    const err = await startFailure(engine, spec('foreign', await freePort()));
    assert.is(err.failure, 'already-running');
    await engine.remove(key('foreign'), { timeoutMs: 1000 });
    assert.is((await other.inspect()).State.Running, true);
    const dirLeft = await stat(path.join(dataDir, 'nodes', key('foreign'))).then(() => true, () => false);
    assert.is(dirLeft, false);
  } finally {
    await other.remove({ force: true });
  }
});

live('deployments with their own prefixes (LNM_DOCKER_PREFIX) run the same node key side by side on one Docker Engine, each managing only its own container', async ({ engine, dataDir }) => {
  const otherDir = await mkdtemp(path.join(tmpdir(), 'lnm-docker-engine-other-'));
  const other = createDockerEngine({ dataDir: otherDir, docker, namePrefix: `lnm-t${process.pid}-b-` });
  const [p1, p2] = [await freePort(), await freePort()];
  try {
    // The default prefix refuses a container of the same name from another data directory and says how to avoid it.
    const clash = await docker.createContainer({ name: `lnm-${key('shared')}`, Image: anvilImage, Labels: { 'lnm.node': key('shared'), 'lnm.data-dir': otherDir } });
    const refused = await startFailure(engine, spec('shared', p1));
    assert.match(refused.message, 'LNM_DOCKER_PREFIX');
    await clash.remove({ force: true });

    await engine.start(spec('shared', p1));
    await other.start(spec('shared', p2));
    assert.is(await rpc(p1, 'eth_blockNumber'), '0x0');
    assert.is(await rpc(p2, 'eth_blockNumber'), '0x0');
    const mine = await engine.status(key('shared'));
    const theirs = await other.status(key('shared'));
    assert.is(mine.state, 'running');
    assert.is(theirs.state, 'running');
    assert.is.not(mine.containerId, theirs.containerId);
    assert.is((await docker.getContainer(theirs.containerId!).inspect()).Name, `/lnm-t${process.pid}-b-${key('shared')}`);
    // Stopping and removing one leaves the other running.
    await other.remove(key('shared'), { timeoutMs: 2000 });
    assert.is((await other.status(key('shared'))).state, 'unknown');
    assert.is((await engine.status(key('shared'))).state, 'running');
    assert.is(await rpc(p1, 'eth_blockNumber'), '0x0');
  } finally {
    await other.remove(key('shared'), { timeoutMs: 2000 }).catch(() => undefined);
    await engine.remove(key('shared'), { timeoutMs: 2000 }).catch(() => undefined);
    await docker.getContainer(`lnm-${key('shared')}`).remove({ force: true }).catch(() => undefined);
    await rm(otherDir, { recursive: true, force: true });
  }
});

live('a missing image fails the start and names the image', async ({ engine, port, names }) => {
  names.push('noimage');
  const err = await startFailure(engine, spec('noimage', port, { docker: { image: 'lnm-nonexistent:never', args: [] } }));
  assert.is(err.failure, 'image-missing');
  assert.match(err.message, 'lnm-nonexistent:never');
});

live('a port already in use fails the start and names the port', async ({ engine, names }) => {
  names.push('busy');
  const port = await freePort();
  const holder: Server = await occupyPort(port);
  try {
    const err = await startFailure(engine, spec('busy', port));
    assert.is(err.failure, 'port-in-use');
    assert.match(err.message, String(port));
  } finally {
    await new Promise((r) => holder.close(r));
  }
});

live('a container that exits at once fails the start with its last log lines', async ({ engine, names }) => {
  names.push('badargs');
  const port = await freePort();
  const err = await startFailure(engine, spec('badargs', port, { docker: { image: anvilImage, args: ['--port', 'not-a-port'] } }));
  assert.is(err.failure, 'exited');
  assert.ok(err.lastLogLines.some((l) => l.includes('not-a-port')), err.lastLogLines.join('\n'));
  assert.is((await engine.status(key('badargs'))).state, 'exited');
});

test.run();
