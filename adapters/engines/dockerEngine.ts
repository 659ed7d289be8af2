// The docker engine: each node is one container of the local Docker Engine, named
// <prefix><nodeKey> (the deployment's LNM_DOCKER_PREFIX, default lnm-) and labelled lnm.node=<nodeKey>, on the host network, with its node
// directory bound at the same path. Restart policy "no" and no auto-remove: containers keep
// running while the service is stopped, and a stopped node keeps its container for its logs.
//
// On a remote host (options.remote: a Docker Engine on another machine, docs/hosts.md) nothing
// is shared but the engine's API: the node directory here is the staging copy prepare() writes,
// and every start uploads it through the engine (putArchive) into a volume lnm-<nodeKey>-files
// mounted at the same path in the container. The node's data stays in that volume across
// restarts. Its ports are the remote host's (not checked here before start; awaited at its
// address), and its restart policy is unless-stopped: a host that reboots or whose engine
// restarts brings its running nodes back, a node stopped through the service stays stopped.
// A backup reads that volume through the engine (copyNodeDataOut: the archive of the node
// directory in its container, GET /containers/{id}/archive); `lnm restore` leaves the volume's
// files under <dataDir>/hosted-restore/<nodeKey>/, and the node's next start empties the volume
// and puts them back through the engine (putArchive) over the staging copy.
// A command a program runs only while its node is down (Fabric's `peer node unjoin`) runs in a
// one-off container like the stopped node's (runWhileStopped: its image by id, env, user, the bound
// directory or the volume; no network), labelled lnm.node-once and removed after.
import Docker from 'dockerode';
import { extract, pack } from 'tar-fs';
import { constants as osConstants } from 'node:os';
import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import path from 'node:path';
import { ConflictError, NotFoundError } from '../../domain/shared/errors.ts';
import {
  ENGINE_FILES,
  failureLine,
  maskSecrets,
  NodeStartFailedError,
  redactLogLine,
  type EngineAvailability,
  type LogFollower,
  type NodeEngine,
  type NodeLaunchSpec,
  type NodeStarted,
  type NodeStatus,
} from '../../domain/nodes/nodeEngine.ts';
import { keyedMutex } from './keyedMutex.ts';
import { assertLaunchSpec, envWithNodeDir, nodeDirectory, nodeLifecycle, withNodeDir } from './nodeDirectory.ts';
import { awaitStartup, portsInUse } from './hostPorts.ts';
import { demuxLogBuffer, lineSink, splitLines } from './dockerLogs.ts';

export interface DockerEngineOptions {
  dataDir: string;
  /** Default: DOCKER_HOST, else /var/run/docker.sock. */
  docker?: Docker;
  /** Container names are <namePrefix><nodeKey>. */
  namePrefix?: string;
  /**
   * Software name -> image reference (see nodeImages.ts). A spec's docker.image that is a key
   * here is replaced by its image; any other value is used as the image reference itself.
   */
  images?: Record<string, string>;
  /** Pull an image that is not on the host before start (needs a reachable registry). */
  pullMissingImages?: boolean;
  /**
   * Who the node runs as; default this service's uid:gid, so the node can read its 0600 key
   * files and the service can delete what the node wrote. null keeps the image's user.
   */
  user?: string | null;
  graceMs?: number;
  readyTimeoutMs?: number;
  /** Replaces the image's entrypoint for every container of this engine (default: the image's own). */
  entrypoint?: string[];
  /** The engine is on another machine: node files go through the engine, ports are at `address`. */
  remote?: { address: string };
}

/** Where `lnm restore` leaves the volume files of a node on a host, until its next start puts them back: <dataDir>/hosted-restore/<nodeKey>/. */
export const HOSTED_RESTORE_DIR = 'hosted-restore';
/** <dataDir>/hosted-restore/<nodeKey>/: what the node's next start on its host puts into its emptied volume (over the staging copy). */
export const hostedRestoreDir = (dataDir: string, nodeKey: string) => path.join(path.resolve(dataDir), HOSTED_RESTORE_DIR, path.basename(nodeDirectory(dataDir, nodeKey)));

/** The docker engine, and on a remote host the copy of a node's volume out of it (backups). */
export interface DockerNodeEngine extends NodeEngine {
  /**
   * Copies the node's directory as its container sees it (on a remote host: the volume, with
   * what the node wrote) into `intoDir`, through the engine's archive API. Regular files and
   * directories only (links and devices are counted in `skipped`). null when the node has no
   * container (never started, or removed): there is nothing on the host to read. `sub`: one
   * directory of it only (a Fabric node's data/: a consensus migration's backup), its files
   * landing in `intoDir`.
   */
  copyNodeDataOut(nodeKey: string, intoDir: string, opts?: { sub?: string }): Promise<{ files: number; bytes: number; skipped: number } | null>;
  /**
   * Copies one file of the node's directory as its container sees it (on a remote host: the
   * volume) over the staging copy here, for a start that must keep what the node wrote there.
   * false when the node has no container or the file is not there.
   */
  pullNodeFile(nodeKey: string, file: string): Promise<boolean>;
}

/** Present in the node directory after stop(): tells 'stopped' from 'exited'. */
const STOPPED_MARK = 'node.stopped.json';

interface DockerError extends Error {
  statusCode?: number;
}

const isNotFound = (err: unknown) => (err as DockerError)?.statusCode === 404;

function signalOf(exitCode: number): string | undefined {
  if (exitCode <= 128) return undefined;
  return Object.entries(osConstants.signals).find(([, n]) => n === exitCode - 128)?.[0];
}

export function createDockerEngine(options: DockerEngineOptions): DockerNodeEngine {
  const docker = options.docker ?? new Docker();
  const prefix = options.namePrefix ?? 'lnm-';
  const graceMs = options.graceMs ?? 1000;
  const readyTimeoutMs = options.readyTimeoutMs ?? 60_000;
  const user = options.user === undefined ? `${process.getuid?.() ?? 0}:${process.getgid?.() ?? 0}` : options.user;
  const serial = keyedMutex();
  const dataDir = path.resolve(options.dataDir);
  const dirOf = (nodeKey: string) => nodeDirectory(dataDir, nodeKey);
  const nameOf = (nodeKey: string) => `${prefix}${nodeKey}`;
  const remote = options.remote;
  const volumeOf = (nodeKey: string) => `${prefix}${nodeKey}-files`;
  const restoreDirOf = (nodeKey: string) => hostedRestoreDir(dataDir, nodeKey);

  /** The staging copy of the node's files, uploaded into its container's volume (remote hosts). */
  async function uploadNodeFiles(container: Docker.Container, dir: string): Promise<void> {
    const archive = pack(dir, { ignore: (name) => path.dirname(name) === dir && ENGINE_FILES.includes(path.basename(name)) });
    await container.putArchive(archive, { path: dir });
  }

  async function inspect(nodeKey: string): Promise<Docker.ContainerInspectInfo | undefined> {
    try {
      return await docker.getContainer(nameOf(nodeKey)).inspect();
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /** Why a container holding the node's name is not ours to manage (another service's, or no service's). */
  function foreignReason(info: Docker.ContainerInspectInfo): string | undefined {
    const labels = info.Config.Labels ?? {};
    if (labels['lnm.node'] === undefined) return `a container named ${info.Name.replace(/^\//, '')} exists that this service did not create`;
    if (labels['lnm.data-dir'] !== dataDir) return `the container ${info.Name.replace(/^\//, '')} belongs to the service with data directory ${labels['lnm.data-dir']} (deployments sharing one Docker Engine each need their own LNM_DOCKER_PREFIX)`;
    return undefined;
  }

  /** The node's container if this service made it; another's is never stopped or removed. */
  async function ownContainer(nodeKey: string): Promise<Docker.ContainerInspectInfo | undefined> {
    const info = await inspect(nodeKey);
    return info && !foreignReason(info) ? info : undefined;
  }

  async function exists(file: string): Promise<boolean> {
    return stat(file).then(
      () => true,
      () => false,
    );
  }

  async function tailOf(nodeKey: string, tail: number): Promise<string[]> {
    const buf = (await docker.getContainer(nameOf(nodeKey)).logs({ stdout: true, stderr: true, follow: false, tail })) as unknown as Buffer;
    return splitLines(demuxLogBuffer(Buffer.isBuffer(buf) ? buf : Buffer.from(String(buf))));
  }

  async function ensureImage(spec: NodeLaunchSpec, image: string): Promise<void> {
    try {
      await docker.getImage(image).inspect();
      return;
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    if (!options.pullMissingImages) {
      throw new NodeStartFailedError('image-missing', `Cannot start ${spec.displayName}: the image ${image} is not on this Docker host. Pull or build it, or configure another image.`, { nodeKey: spec.nodeKey, image });
    }
    try {
      const stream = await docker.pull(image);
      await new Promise<void>((resolve, reject) => docker.modem.followProgress(stream, (err: Error | null) => (err ? reject(err) : resolve())));
    } catch (err) {
      throw new NodeStartFailedError('image-missing', `Cannot start ${spec.displayName}: the image ${image} is not on this Docker host and pulling it failed: ${(err as Error).message}`, { nodeKey: spec.nodeKey, image });
    }
  }

  /** The tags of these repositories on the Docker host (NodeEngine.imageReferences). */
  async function imageReferences(repositories: string[]): Promise<string[]> {
    const images = await docker.listImages({ filters: JSON.stringify({ reference: repositories }) });
    return images.flatMap((image) => image.RepoTags ?? []).filter((ref) => repositories.some((r) => ref.startsWith(`${r}:`)));
  }

  async function removeLeftovers(nodeKey: string): Promise<void> {
    const info = await ownContainer(nodeKey);
    if (info) await docker.getContainer(info.Id).remove({ force: true, v: true });
    if (remote) {
      await docker.getVolume(volumeOf(nodeKey)).remove().catch((err: DockerError) => {
        if (!isNotFound(err)) throw err;
      });
    }
    // Retried as the process engine's removal is (adapters/engines/processEngine.ts).
    await rm(dirOf(nodeKey), { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    await rm(restoreDirOf(nodeKey), { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }

  async function startNode(spec: NodeLaunchSpec): Promise<NodeStarted> {
    assertLaunchSpec(spec, 'docker');
    const run = spec.docker!;
    const image = options.images?.[run.image] ?? run.image;
    const dir = dirOf(spec.nodeKey);
    const availability = await engine.available();
    if (!availability.ok) throw new NodeStartFailedError('engine-unavailable', `Cannot start ${spec.displayName}: ${availability.reason}.`, { nodeKey: spec.nodeKey });

    const existing = await inspect(spec.nodeKey);
    const foreign = existing && foreignReason(existing);
    if (foreign) throw new NodeStartFailedError('already-running', `Cannot start ${spec.displayName}: ${foreign}.`, { nodeKey: spec.nodeKey });
    if (existing?.State.Running) {
      throw new NodeStartFailedError('already-running', `${spec.displayName} is already running (container ${existing.Id.slice(0, 12)}).`, { nodeKey: spec.nodeKey, containerId: existing.Id });
    }
    await ensureImage(spec, image);
    const taken = remote ? [] : await portsInUse(spec.ports);
    if (taken.length) {
      throw new NodeStartFailedError('port-in-use', `Cannot start ${spec.displayName}: port ${taken.join(', ')} ${taken.length > 1 ? 'are' : 'is'} already in use on this host.`, { nodeKey: spec.nodeKey, ports: taken });
    }
    // A container from an earlier run holds the name: this start replaces it.
    if (existing) await docker.getContainer(existing.Id).remove({ force: true });
    // Restored from a backup (`lnm restore`): the volume starts again from the backup's files only.
    const restored = remote && (await exists(restoreDirOf(spec.nodeKey))) ? restoreDirOf(spec.nodeKey) : null;
    if (restored) {
      await docker.getVolume(volumeOf(spec.nodeKey)).remove().catch((err: DockerError) => {
        if (!isNotFound(err)) throw err;
      });
    }
    if (remote) await docker.createVolume({ Name: volumeOf(spec.nodeKey), Labels: { 'lnm.node': spec.nodeKey, 'lnm.data-dir': dataDir } });
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await rm(path.join(dir, STOPPED_MARK), { force: true });

    const container = await docker.createContainer({
      name: nameOf(spec.nodeKey),
      Image: image,
      ...(options.entrypoint ? { Entrypoint: options.entrypoint } : {}),
      Cmd: withNodeDir(run.args, dir),
      Env: Object.entries(envWithNodeDir(run.env, dir)).map(([k, v]) => `${k}=${v}`),
      Labels: { 'lnm.node': spec.nodeKey, 'lnm.data-dir': dataDir },
      WorkingDir: dir,
      ...(user ? { User: user } : {}),
      Tty: false,
      HostConfig: {
        NetworkMode: 'host',
        ...(remote ? { Mounts: [{ Type: 'volume' as const, Source: volumeOf(spec.nodeKey), Target: dir }] } : { Binds: [`${dir}:${dir}`] }),
        RestartPolicy: { Name: remote ? 'unless-stopped' : 'no' },
        AutoRemove: false,
        LogConfig: { Type: 'json-file', Config: { 'max-size': '50m', 'max-file': '2' } },
      },
    });
    if (remote) await uploadNodeFiles(container, dir);
    // The node's own files as the backup read them go in last: they are what it wrote over the staging copy.
    if (restored) await container.putArchive(pack(restored), { path: dir });
    try {
      await container.start();
    } catch (err) {
      throw new NodeStartFailedError('exited', `Cannot start ${spec.displayName}: the Docker Engine refused to start its container: ${maskSecrets((err as Error).message)}`, { nodeKey: spec.nodeKey, containerId: container.id });
    }
    const outcome = await awaitStartup({
      ports: spec.ports,
      host: remote?.address,
      alive: async () => (await container.inspect()).State.Running,
      graceMs,
      readyTimeoutMs,
    });
    const info = await container.inspect();
    if (outcome === 'exited') {
      const last = (await tailOf(spec.nodeKey, 20)).map((l) => maskSecrets(redactLogLine(l)));
      throw new NodeStartFailedError(
        'exited',
        `${spec.displayName} exited right after starting (exit code ${info.State.ExitCode})${last.length ? `: ${failureLine(last)}` : ' and printed nothing'}`,
        { nodeKey: spec.nodeKey, containerId: info.Id, exitCode: info.State.ExitCode, lastLogLines: last },
      );
    }
    // Put back once: later starts keep what the node writes from here on.
    if (restored) await rm(restored, { recursive: true, force: true });
    return { containerId: info.Id, pid: info.State.Pid || undefined, startedAt: new Date(info.State.StartedAt).toISOString() };
  }

  async function copyNodeDataOut(nodeKey: string, intoDir: string, opts: { sub?: string } = {}): Promise<{ files: number; bytes: number; skipped: number } | null> {
    const info = await ownContainer(nodeKey);
    if (!info) return null;
    const from = opts.sub ? path.join(dirOf(nodeKey), opts.sub) : dirOf(nodeKey);
    if (path.dirname(from) !== dirOf(nodeKey) && from !== dirOf(nodeKey)) throw new Error(`${opts.sub} is not a directory name of the node directory`);
    await rm(intoDir, { recursive: true, force: true });
    await mkdir(intoDir, { recursive: true, mode: 0o700 });
    const counts = { files: 0, bytes: 0, skipped: 0 };
    const archive = await docker.getContainer(info.Id).getArchive({ path: from });
    // The archive's top entry is the directory itself (node-<id>/, data/): stripped, so its files land in intoDir.
    await pipeline(archive, extract(intoDir, {
      strip: 1,
      ignore: (_name, header) => {
        if (!header || header.type === 'directory') return false;
        if (header.type !== 'file') {
          counts.skipped++;
          return true;
        }
        counts.files++;
        counts.bytes += header.size ?? 0;
        return false;
      },
    }));
    return counts;
  }

  async function pullNodeFile(nodeKey: string, file: string): Promise<boolean> {
    const info = await ownContainer(nodeKey);
    if (!info) return false;
    const dir = dirOf(nodeKey);
    const from = path.join(dir, file);
    if (path.dirname(from) !== dir) throw new Error(`${file} is not a file name of the node directory`);
    let archive: NodeJS.ReadableStream;
    try {
      archive = await docker.getContainer(info.Id).getArchive({ path: from });
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
    await mkdir(dir, { recursive: true, mode: 0o700 });
    // The archive holds the one file under its own name: a regular file only.
    await pipeline(archive, extract(dir, { ignore: (name, header) => header?.type !== 'file' || path.resolve(name) !== from }));
    return true;
  }

  async function stopNode(nodeKey: string, opts: { timeoutMs?: number }): Promise<void> {
    const info = await ownContainer(nodeKey);
    if (info?.State.Running) {
      // Docker sends SIGTERM, then SIGKILL after t seconds.
      await docker.getContainer(info.Id).stop({ t: Math.max(1, Math.ceil((opts.timeoutMs ?? 10_000) / 1000)) }).catch((err: DockerError) => {
        if (err.statusCode !== 304 && !isNotFound(err)) throw err;
      });
    }
    if (await exists(dirOf(nodeKey))) await writeFile(path.join(dirOf(nodeKey), STOPPED_MARK), JSON.stringify({ stopped: true }));
  }

  /** NodeEngine.runWhileStopped: a one-off container of the node's image on its directory (the volume on a remote host). */
  async function runWhileStopped(nodeKey: string, args: string[], opts: { env?: Record<string, string>; timeoutMs?: number }): Promise<{ exitCode: number; output: string[] }> {
    const info = await ownContainer(nodeKey);
    if (!info) throw new ConflictError(`Node ${nodeKey} has no container on this Docker host: there is nothing to run \`${args.join(' ')}\` against.`);
    if (info.State.Running) throw new ConflictError(`Node ${nodeKey} is running: \`${args.join(' ')}\` needs it stopped.`);
    const dir = dirOf(nodeKey);
    const once = docker.getContainer((await docker.createContainer({
      name: `${nameOf(nodeKey)}-once-${Date.now().toString(36)}`,
      // The image the node's container runs (its release), by id: a tag moved since does not change it.
      Image: info.Image,
      ...(options.entrypoint ? { Entrypoint: options.entrypoint } : {}),
      Cmd: args,
      Env: [...(info.Config.Env ?? []), ...Object.entries(opts.env ?? {}).map(([k, v]) => `${k}=${v}`)],
      Labels: { 'lnm.node-once': nodeKey, 'lnm.data-dir': dataDir },
      WorkingDir: dir,
      ...(info.Config.User ? { User: info.Config.User } : {}),
      Tty: false,
      HostConfig: {
        NetworkMode: 'none',
        ...(remote ? { Mounts: [{ Type: 'volume' as const, Source: volumeOf(nodeKey), Target: dir }] } : { Binds: [`${dir}:${dir}`] }),
        RestartPolicy: { Name: 'no' },
        AutoRemove: false,
      },
    })).id);
    try {
      await once.start();
      const timeoutMs = opts.timeoutMs ?? 60_000;
      let timer: NodeJS.Timeout | undefined;
      const ended = await Promise.race([
        once.wait() as Promise<{ StatusCode: number }>,
        new Promise<null>((resolve) => {
          timer = setTimeout(() => resolve(null), timeoutMs);
        }),
      ]).finally(() => clearTimeout(timer));
      const buf = (await once.logs({ stdout: true, stderr: true, follow: false })) as unknown as Buffer;
      const output = splitLines(demuxLogBuffer(Buffer.isBuffer(buf) ? buf : Buffer.from(String(buf)))).map((l) => maskSecrets(redactLogLine(l)));
      if (!ended) throw new ConflictError(`\`${args.join(' ')}\` on node ${nodeKey} did not end within ${timeoutMs / 1000} s${output.length ? `: ${failureLine(output)}` : ''}`);
      return { exitCode: ended.StatusCode, output };
    } finally {
      await once.remove({ force: true }).catch(() => undefined);
    }
  }

  const engine: DockerNodeEngine = {
    runWhileStopped: (nodeKey, args, opts = {}) => serial(nodeKey, () => runWhileStopped(nodeKey, args, opts)),
    kind: 'docker',
    copyNodeDataOut: (nodeKey, intoDir, opts) => serial(nodeKey, () => copyNodeDataOut(nodeKey, intoDir, opts)),
    pullNodeFile: (nodeKey, file) => serial(nodeKey, () => pullNodeFile(nodeKey, file)),
    imageReferences,

    async available(): Promise<EngineAvailability> {
      try {
        await Promise.race([docker.ping(), new Promise((_, reject) => setTimeout(() => reject(new Error('no answer within 3 s')), 3000).unref())]);
        return { ok: true };
      } catch (err) {
        const modem = docker.modem as { socketPath?: string; host?: string; port?: number };
        const where = modem.socketPath ?? (modem.host ? `${modem.host}:${modem.port ?? ''}` : 'the default socket');
        return { ok: false, reason: `the Docker Engine at ${where} does not answer (${(err as Error).message}); start dockerd or use the process engine` };
      }
    },

    ...nodeLifecycle('docker', dirOf, serial, { startNode, stopNode, removeLeftovers }),

    async status(nodeKey): Promise<NodeStatus> {
      const dir = dirOf(nodeKey);
      let info;
      try {
        info = await inspect(nodeKey);
      } catch (err) {
        return { state: 'unknown', reason: `the Docker Engine did not answer: ${(err as Error).message}` };
      }
      const foreign = info && foreignReason(info);
      if (foreign) return { state: 'unknown', reason: foreign };
      if (!info) {
        if (await exists(dir)) return { state: 'stopped' };
        return { state: 'unknown', reason: `node ${nodeKey} is not known to the docker engine (no container ${nameOf(nodeKey)}, no directory ${dir})` };
      }
      const base = { containerId: info.Id, startedAt: new Date(info.State.StartedAt).toISOString() };
      if (info.State.Running) return { state: 'running', pid: info.State.Pid || undefined, ...base };
      if (await exists(path.join(dir, STOPPED_MARK))) return { state: 'stopped', exitCode: info.State.ExitCode, ...base };
      if (info.State.Status === 'created') return { state: 'stopped', ...base };
      const signal = signalOf(info.State.ExitCode);
      const why = [info.State.OOMKilled ? 'out of memory' : '', info.State.Error ?? ''].filter(Boolean).join('; ');
      return {
        state: 'exited',
        exitCode: info.State.ExitCode,
        signal,
        reason: `container ${info.Id.slice(0, 12)} exited with code ${info.State.ExitCode}${signal ? ` (${signal})` : ''}${why ? `: ${why}` : ''}`,
        ...base,
      };
    },

    async logs(nodeKey, opts = {}) {
      if (!(await ownContainer(nodeKey))) {
        if (await exists(dirOf(nodeKey))) return [];
        throw new NotFoundError('Node', nodeKey);
      }
      return (await tailOf(nodeKey, opts.tail ?? 100)).map(redactLogLine);
    },

    async followLogs(nodeKey, onLine, opts = {}): Promise<LogFollower> {
      if (!(await ownContainer(nodeKey))) throw new NotFoundError('Node', nodeKey);
      const stream = (await docker.getContainer(nameOf(nodeKey)).logs({ stdout: true, stderr: true, follow: true, tail: opts.tail ?? 0 })) as NodeJS.ReadableStream & { destroy(): void };
      const deliver = (line: string) => onLine(redactLogLine(line));
      docker.modem.demuxStream(stream, lineSink(deliver), lineSink(deliver));
      stream.on('error', () => undefined);
      return { close: () => stream.destroy() };
    },
  };
  return engine;
}
