// Runs consortium nodes (Fabric 2.5 peers and orderers) on a node engine: the adapter behind
// domain/consortium/consortiumPorts.ts ConsortiumNodeRuntime, shaped like createEvmNodeRuntime.
//
//   createConsortiumNodeRuntime({ dataDir, env?, externalBuilders? }) -> ConsortiumNodeRuntime
//
// start(): checks the material (fabricMsp.ts), the binary (process: LNM_FABRIC_BIN or PATH) or
// image (docker: LNM_IMAGE_FABRIC_PEER / _ORDERER), and the ports, then writes core.yaml or
// orderer.yaml, MSP and TLS into <dataDir>/nodes/node-<id>/ and starts it. Fabric's default
// config comes from LNM_FABRIC_CFG, else the release next to the binary, else (docker only)
// the image itself. Every refusal is a NodeStartFailedError saying what to do; a node that
// exits at once fails with its own last log line (the engines capture it), never "running".
// live(): GET /healthz on the operations port; {"status":"OK"} or an error with Fabric's reason.
// ledgers(): GET /metrics there (fabricLedgerMetrics.ts). observe() (the health monitor's probe,
// every interval): both written at once on the node's one kept connection
// (system/probeHttp.ts pipelinedGets), so a probe costs the service one write and a read or two.
import { execFile } from 'node:child_process';
import { access, cp, readFile, rm, rmdir } from 'node:fs/promises';
import { promisify } from 'node:util';
import path from 'node:path';
import Docker from 'dockerode';
import { maskSecrets, NodeStartFailedError, type NodeEngine, type NodeEngineKind, type NodeLaunchSpec } from '../../domain/nodes/nodeEngine.ts';
import { consortiumNodeKey, type ConsortiumNodeRole } from '../../domain/consortium/consortiumNode.ts';
import type { ConsortiumLedgerReadings, ConsortiumNodeMaterial, ConsortiumNodeRuntime, ConsortiumNodeTarget } from '../../domain/consortium/consortiumPorts.ts';
import { ConflictError, ValidationError } from '../../domain/shared/errors.ts';
import { localEngines, placedEngine, placedNodeCalls } from '../engines/localEngines.ts';
import { dockerPrefixFromEnv, imageVariable, nodeImagesFromEnv } from '../engines/nodeImages.ts';
import { portsInUse } from '../engines/hostPorts.ts';
import { ledgerReadingsOf } from './fabricLedgerMetrics.ts';
import { pipelinedGets } from '../system/probeHttp.ts';
import { fabricConfigFile, findFabricBinary, findFabricConfigDir, FABRIC_BIN_VARIABLE, FABRIC_CFG_VARIABLE } from './fabricBinaries.ts';
import { imageFabricConfig } from './fabricImageConfig.ts';
import { describeReleases, FABRIC_RELEASES_VARIABLE, fabricReleases, releaseEnv } from './fabricReleases.ts';
import { checkNodeMaterial } from './fabricMsp.ts';
import { imageReleases, releaseImage, releaseRepositories, releasesAmong } from './fabricReleaseImages.ts';
import { localAddress, nodeTlsHosts } from './fabricNodeConfig.ts';
import { assertNodeConfig, fabricDisplayName, FABRIC_DATA_DIR, peerLaunchSpec } from './peerLaunch.ts';
import { nodeDirectory } from '../engines/nodeDirectory.ts';
import { hostedRestoreDir, type DockerNodeEngine } from '../engines/dockerEngine.ts';
import type { KubernetesNodeEngine } from '../engines/kubernetesEngine.ts';
import type { ExternalBuilder } from './externalBuilder.ts';
import { ordererLaunchSpec } from './ordererLaunch.ts';

export interface ConsortiumNodeRuntimeOptions {
  dataDir: string;
  /** LNM_FABRIC_BIN, LNM_FABRIC_CFG, LNM_IMAGE_FABRIC_*, PATH; default process.env. */
  env?: Record<string, string | undefined>;
  /** More chaincode.externalBuilders for every peer, after its own ccaas builder (ccaasBuilder.ts). */
  externalBuilders?: ExternalBuilder[];
  /** The engine of a registered node host (config.hostId; docs/hosts.md); without it nodes on hosts cannot run. */
  hostEngine?: (hostId: number) => Promise<NodeEngine | null>;
}

const execFileAsync = promisify(execFile);

/** <dataDir>/hosted-backups/<nodeKey>/<label>/: the data directory of a node on a Docker node host, read out of its volume (a consensus migration's backup). */
export const HOSTED_BACKUP_DIR = 'hosted-backups';

const softwareOf = (role: ConsortiumNodeRole) => (role === 'peer' ? 'fabric-peer' : 'fabric-orderer');

// Fabric ends a refused start with a Go panic: the reason is its PANI/FATA log line, followed
// by a stack trace longer than the tail the engines keep.
const FABRIC_FATAL = /\b(PANI|FATA)\b|^panic: /;

/** The engine's 'exited' failure, told with Fabric's own last fatal log line when there is one. */
async function withFabricReason(err: unknown, engine: NodeEngine, nodeKey: string, displayName: string): Promise<unknown> {
  if (!(err instanceof NodeStartFailedError) || err.failure !== 'exited') return err;
  const lines = await engine.logs(nodeKey, { tail: 400 }).catch(() => [] as string[]);
  const fatal = lines.filter((l) => FABRIC_FATAL.test(l)).pop();
  if (!fatal) return err;
  const reason = maskSecrets(fatal.replace(/^.*?\b(PANI|FATA)\b\s*/, ''));
  return new NodeStartFailedError('exited', `${displayName} exited right after starting: ${reason}`, { ...err.extra, nodeKey, lastLogLines: [maskSecrets(fatal), ...err.lastLogLines] });
}

/**
 * What a failed Fabric command said: its last line before the usage text Fabric's command line
 * library prints after an error (`Usage:` and the flags), else its last line.
 */
export function fabricCommandError(output: string): string {
  const lines = output.trim().split('\n').filter((l) => l.trim() !== '');
  const usage = lines.findIndex((l) => /^Usage:/.test(l.trim()));
  return (usage > 0 ? lines.slice(0, usage) : lines).pop()?.trim() ?? 'no output';
}

export function createConsortiumNodeRuntime(options: ConsortiumNodeRuntimeOptions): ConsortiumNodeRuntime {
  const env = options.env ?? process.env;
  const dataDir = path.resolve(options.dataDir);
  const images = nodeImagesFromEnv(env);
  const engines = localEngines({ dataDir, images, namePrefix: dockerPrefixFromEnv(env) });
  const docker = engines.docker;
  const keyOf = (t: ConsortiumNodeTarget) => consortiumNodeKey(t.node.nodeId);
  const engineFor = (t: ConsortiumNodeTarget): Promise<NodeEngine> => placedEngine(engines, options.hostEngine, t.node, fabricDisplayName(t), keyOf(t));
  /** Where this service reaches the node's ports. */
  const addressOf = (t: ConsortiumNodeTarget) => t.node.config.externalIp ?? localAddress(t.node.config);

  /** The image a docker node runs: its recorded release's (lnm-fabric-peer:3.1.5), else the configured one. */
  const imageOf = (role: ConsortiumNodeRole, fabricVersion?: string) => (fabricVersion ? releaseImage(images[softwareOf(role)], fabricVersion) : images[softwareOf(role)]);

  async function imagePresent(role: ConsortiumNodeRole, fabricVersion?: string): Promise<{ ok: true } | { ok: false; reason: string }> {
    const software = softwareOf(role);
    const availability = await docker().available();
    if (!availability.ok) return availability;
    const image = imageOf(role, fabricVersion);
    try {
      await new Docker().getImage(image).inspect();
      return { ok: true };
    } catch {
      return { ok: false, reason: `the image ${image} of the Fabric ${role} is not on the Docker host; pull or build it (.ci/docker.sh builds lnm-${software}:local and lnm-${software}:<version> per Fabric release it finds), or set ${imageVariable(software)}` };
    }
  }

  /** The env that finds the programs of a node's release (its recorded fabricVersion), or why there is none. */
  async function envOfRelease(version: string | undefined): Promise<{ ok: true; env: typeof env } | { ok: false; reason: string }> {
    const { releases } = await fabricReleases(env);
    // A node that names no release (made before releases were recorded): LNM_FABRIC_BIN or PATH as
    // before, or the newest release when only LNM_FABRIC_RELEASES is set.
    if (!version) return { ok: true, env: !env[FABRIC_BIN_VARIABLE]?.trim() && releases.length && env[FABRIC_RELEASES_VARIABLE]?.trim() ? releaseEnv(env, releases[0]) : env };
    const release = releases.find((r) => r.version === version);
    if (!release) return { ok: false, reason: `Fabric ${version} is not among the releases this service finds: ${describeReleases(releases)}` };
    return { ok: true, env: releaseEnv(env, release) };
  }

  async function available(engine: NodeEngineKind, role: ConsortiumNodeRole, fabricVersion?: string) {
    if (engine === 'docker') return imagePresent(role, fabricVersion);
    const release = await envOfRelease(fabricVersion);
    if (!release.ok) return release;
    const binary = await findFabricBinary(role, release.env);
    if (!binary.ok) return binary;
    const cfg = await findFabricConfigDir(release.env, role, binary.path);
    return cfg.ok ? { ok: true as const } : cfg;
  }

  /** The release's core.yaml / orderer.yaml: LNM_FABRIC_CFG, the release beside the binary, or (docker) the image's. */
  async function baseConfig(t: ConsortiumNodeTarget, binaryPath: string | undefined, env: typeof options.env & object): Promise<string> {
    const role = t.node.role;
    const file = fabricConfigFile(role);
    // A docker node of a recorded release starts from that release's own configuration, which its
    // image carries (Fabric 3.1's orderer refuses 2.5's orderer.yaml, so LNM_FABRIC_CFG cannot serve both).
    const version = t.node.config.fabricVersion;
    if (t.node.engine === 'docker' && version) {
      const image = imageOf(role, version);
      try {
        return await imageFabricConfig(new Docker(), image, file);
      } catch (err) {
        // A node on a node host or cluster: this machine's Docker may not have its image; the
        // same release's own config directory (LNM_FABRIC_RELEASES) serves as well.
        const release = await envOfRelease(version);
        const dir = release.ok ? await findFabricConfigDir(release.env, role, (await findFabricBinary(role, release.env).then((b) => (b.ok ? b.path : undefined)))) : null;
        if (release.ok && dir?.ok && t.node.config.hostId) return readFile(path.join(dir.dir, file), 'utf8');
        throw new NodeStartFailedError('image-missing', `Cannot start ${fabricDisplayName(t)}: no ${file} to start from in ${image} (${(err as Error).message})${t.node.config.hostId ? ` nor in a Fabric ${version} release this service finds (LNM_FABRIC_RELEASES)` : ''}.`, { nodeKey: keyOf(t) });
      }
    }
    let near = binaryPath;
    if (!near && t.node.engine === 'docker') {
      const found = await findFabricBinary(role, env);
      if (found.ok) near = found.path;
    }
    const dir = await findFabricConfigDir(env, role, near);
    if (dir.ok) return readFile(path.join(dir.dir, file), 'utf8');
    if (t.node.engine === 'docker' && !env[FABRIC_CFG_VARIABLE]) {
      try {
        return await imageFabricConfig(new Docker(), images[softwareOf(role)], file);
      } catch (err) {
        throw new NodeStartFailedError('image-missing', `Cannot start ${fabricDisplayName(t)}: no ${file} to start from (${(err as Error).message}); set ${FABRIC_CFG_VARIABLE}.`, { nodeKey: keyOf(t) });
      }
    }
    throw new NodeStartFailedError('binary-missing', `Cannot start ${fabricDisplayName(t)}: ${dir.reason}.`, { nodeKey: keyOf(t) });
  }

  async function launchSpec(t: ConsortiumNodeTarget, material: ConsortiumNodeMaterial): Promise<NodeLaunchSpec> {
    const nodeKey = keyOf(t);
    const displayName = fabricDisplayName(t);
    let command: string | null = null;
    let launchEnv = env;
    if (t.node.engine === 'process') {
      const release = await envOfRelease(t.node.config.fabricVersion);
      if (!release.ok) throw new NodeStartFailedError('binary-missing', `Cannot start ${displayName}: ${release.reason}.`, { nodeKey, variable: FABRIC_BIN_VARIABLE });
      launchEnv = release.env;
      const binary = await findFabricBinary(t.node.role, release.env);
      if (!binary.ok) throw new NodeStartFailedError('binary-missing', `Cannot start ${displayName}: ${binary.reason}.`, { nodeKey, variable: FABRIC_BIN_VARIABLE });
      command = binary.path;
    } else if (!t.node.config.hostId) {
      // (A node host's engine says whether it has the image when it starts the node.)
      const image = await imagePresent(t.node.role, t.node.config.fabricVersion);
      if (!image.ok) {
        const engineDown = !(await docker().available()).ok;
        throw new NodeStartFailedError(engineDown ? 'engine-unavailable' : 'image-missing', `Cannot start ${displayName}: ${image.reason}.`, { nodeKey, variable: imageVariable(softwareOf(t.node.role)) });
      }
    }
    const deps = { dataDir, command, baseConfig: await baseConfig(t, command ?? undefined, launchEnv) };
    try {
      const spec = t.node.role === 'peer' ? peerLaunchSpec(t, material, { ...deps, externalBuilders: options.externalBuilders }) : ordererLaunchSpec(t, material, deps);
      const version = t.node.config.fabricVersion;
      return t.node.engine === 'docker' && version && spec.docker ? { ...spec, docker: { ...spec.docker, image: imageOf(t.node.role, version) } } : spec;
    } catch (err) {
      if (err instanceof NodeStartFailedError) throw err;
      // A base config that lacks a setting this service writes: another Fabric release.
      throw new NodeStartFailedError('binary-missing', `Cannot start ${displayName}: ${(err as Error).message} Set ${FABRIC_CFG_VARIABLE} to the config directory of Fabric 2.5.`, { nodeKey });
    }
  }

  /** Starts the node; `restarting`: it runs, and its engine restarts it in place (NodeEngine.restart). */
  async function startOn(t: ConsortiumNodeTarget, material: ConsortiumNodeMaterial, restarting: boolean) {
    const nodeKey = keyOf(t);
    const displayName = fabricDisplayName(t);
    if (t.node.mspId !== t.organization.mspId || material.organization.mspId !== t.organization.mspId) {
      throw new NodeStartFailedError('invalid-spec', `Cannot start ${displayName}: the MSP ids of the node (${t.node.mspId}), its organization (${t.organization.mspId}) and its certificates (${material.organization.mspId}) differ.`, { nodeKey });
    }
    assertNodeConfig(t, displayName);
    try {
      checkNodeMaterial(material, nodeTlsHosts(t.node.config));
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
      throw new NodeStartFailedError('invalid-spec', `Cannot start ${displayName}: ${err.message}`, { nodeKey, issues: err.details });
    }
    const engine = await engineFor(t);
    const current = await engine.status(nodeKey);
    // Checked before writing: a running node's files are not rewritten under it.
    if (current.state === 'running' && !restarting) throw new NodeStartFailedError('already-running', `${displayName} is already running.`, { nodeKey });
    const spec = await launchSpec(t, material);
    const busy = t.node.config.hostId ? [] : await portsInUse(spec.ports);
    if (busy.length) throw new NodeStartFailedError('port-in-use', `Cannot start ${displayName}: port ${busy.join(', ')} ${busy.length > 1 ? 'are' : 'is'} already in use on this host.`, { nodeKey, ports: busy });
    await engine.prepare(spec);
    let started;
    try {
      started = restarting ? await engine.restart!(spec) : await engine.start(spec);
    } catch (err) {
      throw await withFabricReason(err, engine, nodeKey, displayName);
    }
    return { pid: started.pid ?? null, containerId: started.containerId ?? null, startedAt: started.startedAt };
  }

  /**
   * A node on a node host keeps its data there (a Docker host: its volume; a Kubernetes cluster:
   * its claim), which this machine reaches through the host's engine only: its backup `label` is
   * read out of it (the data directory) into <dataDir>/hosted-backups/<nodeKey>/<label>/ here
   * (beside, not in, the node directory, whose staging copy every start uploads). null for a node
   * of this machine. `copying` (backup, restore) needs the node stopped.
   */
  async function hostedBackup(t: ConsortiumNodeTarget, label: string, copying = true): Promise<{ engine: DockerNodeEngine | KubernetesNodeEngine; backup: string } | null> {
    if (!t.node.config.hostId) return null;
    if (!/^[a-z0-9-]{1,40}$/.test(label)) throw new ConflictError(`Invalid backup label ${label}.`);
    const displayName = fabricDisplayName(t);
    const engine = await engineFor(t);
    if (!('copyNodeDataOut' in engine)) throw new ConflictError(`${displayName} runs on a node host (host ${t.node.config.hostId}) whose engine copies no node data out: its data is not backed up here.`);
    if (copying && (await engine.status(keyOf(t))).state === 'running') throw new ConflictError(`${displayName} is running: its data is copied only while it is stopped.`);
    return { engine: engine as DockerNodeEngine | KubernetesNodeEngine, backup: path.join(dataDir, HOSTED_BACKUP_DIR, keyOf(t), label) };
  }

  /** The node's data directory and its backup `label` beside it in the node directory; `copying` (backup, restore) needs the node stopped, dropping a backup does not. */
  async function backupPaths(t: ConsortiumNodeTarget, label: string, copying = true) {
    const displayName = fabricDisplayName(t);
    if (!/^[a-z0-9-]{1,40}$/.test(label)) throw new ConflictError(`Invalid backup label ${label}.`);
    // A node of this machine (process or docker engine) keeps its data in its node directory here
    // (a docker container has it bound at the same path, and writes it as this service's uid:gid):
    // copied here. A node on a node host keeps it in the host's volume (hostedBackup).
    if (t.node.config.hostId) throw new ConflictError(`${displayName} runs on a node host (host ${t.node.config.hostId}): its data lives there.`);
    const status = copying ? await (await engineFor(t)).status(keyOf(t)) : null;
    if (status?.state === 'running') throw new ConflictError(`${displayName} is running: its data is copied only while it is stopped.`);
    const nodeDir = nodeDirectory(dataDir, keyOf(t));
    return { data: path.join(nodeDir, FABRIC_DATA_DIR), backup: path.join(nodeDir, `${FABRIC_DATA_DIR}.backup-${label}`) };
  }

  const operationsUrl = (t: ConsortiumNodeTarget) => `http://${addressOf(t)}:${t.node.config.operationsPort}`;
  /** GETs on the node's operations endpoint, on its kept connection; an endpoint that does not answer is said so. */
  async function operationsGets(t: ConsortiumNodeTarget, paths: string[], timeoutMs: number) {
    try {
      return await pipelinedGets(operationsUrl(t), paths, { timeoutMs, maxBytes: 8 * 1024 * 1024 });
    } catch (err) {
      const e = err as Error & { code?: string };
      throw new Error(`the operations endpoint ${operationsUrl(t)}${paths[0]} does not answer (${e.code ?? e.message})`, { cause: err });
    }
  }
  function judgeHealthz(t: ConsortiumNodeTarget, res: { status: number; text: string }): { healthy: true } {
    const url = `${operationsUrl(t)}/healthz`;
    const text = res.text;
    let body: { status?: string; failed_checks?: { component: string; reason: string }[] } = {};
    try {
      body = JSON.parse(text);
    } catch {
      /* reported below */
    }
    if (res.status >= 200 && res.status < 300 && body?.status === 'OK') return { healthy: true };
    const checks = Array.isArray(body?.failed_checks) ? body.failed_checks.map((c) => `${c?.component}: ${c?.reason}`).join('; ') : undefined;
    throw new Error(`${url} answered ${res.status}${checks ? `: ${checks}` : body?.status ? `: ${body.status}` : ` ${text.slice(0, 200)}`}`);
  }
  function readLedgers(t: ConsortiumNodeTarget, res: { status: number; text: string }): ConsortiumLedgerReadings {
    if (res.status < 200 || res.status >= 300) throw new Error(`${operationsUrl(t)}/metrics answered ${res.status}`);
    return ledgerReadingsOf(res.text, t.node.role === 'orderer' ? 'orderer' : 'peer');
  }

  /**
   * `peer node <args>` on the stopped peer with its own config: the offline subcommands (unjoin,
   * rollback) that Fabric runs only while the peer is down. A process-engine peer: the peer program
   * of its own release with FABRIC_CFG_PATH = its node directory (CORE_PEER_FILESYSTEMPATH = its
   * ledger directory). A docker engine peer, here or on a node host: a one-off container of the
   * image its container runs (its release), on its node directory or volume, with its environment;
   * a peer on a Kubernetes cluster: a one-off pod of its StatefulSet's pod template on its claim
   * (NodeEngine.runWhileStopped).
   */
  async function peerNodeCommand(t: ConsortiumNodeTarget, args: string[], verb: string, action: string): Promise<void> {
    const displayName = fabricDisplayName(t);
    const command = `peer node ${args.join(' ')}`;
    if (t.node.role !== 'peer') throw new ConflictError(`${displayName} is not a peer: \`peer node ${args[0]}\` runs on a peer.`);
    const engine = await engineFor(t);
    const status = await engine.status(keyOf(t));
    if (status.state === 'running') throw new ConflictError(`${displayName} is running: \`peer node ${args[0]}\` needs it stopped.`);
    const failed = (output: string) => new ConflictError(`\`${command}\` of ${displayName} failed: ${maskSecrets(fabricCommandError(output))}`);
    if (t.node.engine !== 'process' || t.node.config.hostId) {
      if (!engine.runWhileStopped) throw new ConflictError(`${displayName} runs on the ${engine.kind} engine${t.node.config.hostId ? ' of a node host' : ''}, which runs no command beside a stopped node, so it cannot ${action} here.`);
      const ran = await engine.runWhileStopped(keyOf(t), ['peer', 'node', ...args], { env: { FABRIC_LOGGING_SPEC: 'WARNING' }, timeoutMs: 60_000 });
      if (ran.exitCode !== 0) throw failed(ran.output.join('\n') || `exit code ${ran.exitCode}`);
      return;
    }
    const release = await envOfRelease(t.node.config.fabricVersion);
    if (!release.ok) throw new ConflictError(`Cannot ${verb} ${displayName}: ${release.reason}.`);
    const binary = await findFabricBinary('peer', release.env);
    if (!binary.ok) throw new ConflictError(`Cannot ${verb} ${displayName}: ${binary.reason}.`);
    const nodeDir = nodeDirectory(dataDir, keyOf(t));
    try {
      await execFileAsync(binary.path, ['node', ...args], {
        timeout: 60_000,
        env: { PATH: env.PATH ?? '/usr/bin:/bin', FABRIC_CFG_PATH: nodeDir, CORE_PEER_FILESYSTEMPATH: path.join(nodeDir, FABRIC_DATA_DIR), FABRIC_LOGGING_SPEC: 'WARNING' },
      });
    } catch (err) {
      const e = err as Error & { stderr?: string };
      throw failed(String(e.stderr || e.message));
    }
  }

  const runtime: ConsortiumNodeRuntime = {
    available,
    async releases() {
      return (await fabricReleases(env)).releases.map((r) => ({ version: r.version, binDir: r.binDir }));
    },
    async imageReleases(hostId) {
      if (hostId !== undefined) {
        // A node host's images, of the service's peer and orderer repositories (the release image a node there runs).
        const engine = await options.hostEngine?.(hostId).catch(() => null);
        if (!engine?.imageReferences) return [];
        const refs = await engine.imageReferences(releaseRepositories(images['fabric-peer'], images['fabric-orderer'])).catch(() => [] as string[]);
        return releasesAmong(refs, images['fabric-peer'], images['fabric-orderer']);
      }
      if (!(await docker().available()).ok) return [];
      return imageReleases(new Docker(), images['fabric-peer'], images['fabric-orderer']);
    },
    portsInUse,
    async restart(t, material) {
      // An engine that restarts in place rolls the running node; the others are stopped, then started.
      const engine = await engineFor(t);
      if (!engine.restart) await engine.stop(keyOf(t)).catch(() => undefined);
      return startOn(t, material, !!engine.restart);
    },
    start: (t, material) => startOn(t, material, false),
    ...placedNodeCalls(engineFor, keyOf),
    async remove(t, opts) {
      await (await engineFor(t)).remove(keyOf(t), opts);
      // A migration's backup of a host node, kept after a failure, goes with the node.
      await rm(path.join(dataDir, HOSTED_BACKUP_DIR, keyOf(t)), { recursive: true, force: true });
    },
    async unjoinPeer(t, channelName) {
      await peerNodeCommand(t, ['unjoin', '-c', channelName], 'unjoin', `leave channel ${channelName}`);
    },
    async rollbackPeer(t, channelName, blockNumber) {
      if (!Number.isSafeInteger(blockNumber) || blockNumber < 0) throw new ConflictError(`Invalid block number ${blockNumber} to roll ${fabricDisplayName(t)} back to.`);
      try {
        await peerNodeCommand(t, ['rollback', '-c', channelName, '-b', String(blockNumber)], 'roll back', `be rolled back on channel ${channelName}`);
        return { rolledBack: true };
      } catch (err) {
        // Fabric's own check (blkstorage.ValidateRollbackParams): the ledger ends at or below the block already.
        if (/should be less than the biggest block number/.test((err as Error).message)) return { rolledBack: false };
        throw err;
      }
    },
    async backupData(t, label) {
      const hosted = await hostedBackup(t, label);
      if (hosted) {
        // Read out of the stopped node's volume (or claim) through its host's engine: its data directory.
        await rm(hosted.backup, { recursive: true, force: true });
        const copied = await hosted.engine.copyNodeDataOut(keyOf(t), hosted.backup, { sub: FABRIC_DATA_DIR });
        if (!copied) throw new ConflictError(`${fabricDisplayName(t)} has no container or claim on its host: there is no data to back up.`);
        return;
      }
      const { data, backup } = await backupPaths(t, label);
      await rm(backup, { recursive: true, force: true });
      await cp(data, backup, { recursive: true, preserveTimestamps: true });
    },
    async restoreData(t, label) {
      const hosted = await hostedBackup(t, label);
      if (hosted && hosted.engine.kind === 'kubernetes') {
        // On a cluster: written back into the stopped node's claim now, its data directory only
        // (emptied first; the rest of the claim as it is), through a helper pod (copyNodeDataIn).
        await access(hosted.backup).catch(() => { throw new ConflictError(`${fabricDisplayName(t)} has no backup ${label} to restore.`); });
        try {
          await (hosted.engine as KubernetesNodeEngine).copyNodeDataIn(keyOf(t), hosted.backup, { sub: FABRIC_DATA_DIR });
        } catch (err) {
          // Refused before writing (the node runs): as it is. Part way (a full disk, the helper pod
          // gone): named with the node, as on this machine, the engine's words naming its claim.
          if (err instanceof ConflictError) throw err;
          throw new ConflictError(`the backup ${label} of ${fabricDisplayName(t)} could not be put back: ${lowerFirst((err as Error).message.replace(/\.+$/, ''))} (its data directory in the claim may be left partly written)`);
        }
        return;
      }
      const { data, backup } = hosted ? { data: path.join(hostedRestoreDir(dataDir, keyOf(t)), FABRIC_DATA_DIR), backup: hosted.backup } : await backupPaths(t, label);
      await access(backup).catch(() => { throw new ConflictError(`${fabricDisplayName(t)} has no backup ${label} to restore.`); });
      // On a host: left where the node's next start empties its volume and puts its files back
      // (the staging copy, then this data directory over it), as after `lnm restore`.
      const target = hosted ? path.dirname(data) : data;
      try {
        await rm(target, { recursive: true, force: true });
        await cp(backup, data, { recursive: true, preserveTimestamps: true });
      } catch (err) {
        // Part way (a file that cannot be removed, a full disk): named with the node, its path from the node's own directory.
        throw new ConflictError(`the backup ${label} of ${fabricDisplayName(t)} could not be put back: ${fileErrorOf(err, path.dirname(target))} (its data directory may be left partly removed)`);
      }
    },
    async dropBackup(t, label) {
      // The node may run (a migration drops its backups once the channels left maintenance on BFT).
      const hosted = await hostedBackup(t, label, false);
      const { backup } = hosted ?? (await backupPaths(t, label, false));
      await rm(backup, { recursive: true, force: true });
      if (hosted) await rmdir(path.dirname(backup)).catch(() => undefined);
    },
    async live(t, timeoutMs = 2000) {
      const [healthz] = await operationsGets(t, ['/healthz'], timeoutMs);
      return judgeHealthz(t, healthz);
    },
    async ledgers(t, timeoutMs = 2000) {
      const [metrics] = await operationsGets(t, ['/metrics'], timeoutMs);
      return readLedgers(t, metrics);
    },
    async observe(t, timeoutMs = 2000) {
      let answers;
      try {
        answers = await operationsGets(t, ['/healthz', '/metrics'], timeoutMs);
      } catch (err) {
        // An answer too large or not HTTP (a /metrics of several MiB): /healthz alone decides, no readings.
        const cause = (err as Error & { cause?: Error }).cause;
        if (cause?.name !== 'TooLargeError' && cause?.name !== 'ProtocolError') throw err;
        return { live: await runtime.live(t, timeoutMs), ledgers: null };
      }
      const [healthz, metrics] = answers;
      const live = judgeHealthz(t, healthz);
      // Healthy is /healthz's word; the ledger readings are a bonus that may fail on their own.
      let ledgers: ConsortiumLedgerReadings | null = null;
      try {
        ledgers = readLedgers(t, metrics);
      } catch {
        /* none this time */
      }
      return { live, ledgers };
    },
    async logs(t, tail) {
      return (await engineFor(t)).logs(keyOf(t), { tail });
    },
    async followLogs(t, onLine, tail) {
      return (await engineFor(t)).followLogs(keyOf(t), onLine, { tail });
    },
  };
  return runtime;
}

const lowerFirst = (s: string) => s.charAt(0).toLowerCase() + s.slice(1);

/** A file system error in words, its path relative to `base` (the node's own directory): what to fix, not the server's layout. */
function fileErrorOf(err: unknown, base: string): string {
  const e = err as NodeJS.ErrnoException;
  return e.path ? e.message.split(e.path).join(path.relative(base, e.path) || '.') : e.message;
}
