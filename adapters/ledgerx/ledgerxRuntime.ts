// Runs the ledgerX platform's orderer roles (`arma`) under the process engine: the adapter
// behind domain/ledgerx/ledgerxPorts.ts LedgerXRuntime.
//
// A role starts only after its group joined a network: the join (the channel's genesis block and
// the group's party id) is kept in <dataDir>/ledgerx/group-<id>/join.json + bootstrap.block.
// live(): GET /healthz on the role's monitoring port (Operations.ListenPort).
// blockHeight(): the height the sidecar or the assembler exports on its /metrics (fabricXLedgerMetrics.ts).
// An orderer role placed on a Kubernetes cluster (config.hostId) runs under that cluster's engine
// (kubernetesEngine.ts: a StatefulSet of the fabric-x-arma image, the same launch spec) and is
// probed at the cluster's node address (config.externalIp), its ports being NodePorts there; so
// does a committer service placed there (the fabric-x-committer image).
import { probeRequest } from '../system/probeHttp.ts';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { maskSecrets, NodeStartFailedError } from '../../domain/nodes/nodeEngine.ts';
import { nodeKey } from '../../domain/nodes/node.ts';
import type { LedgerXJoin, LedgerXRuntime } from '../../domain/ledgerx/ledgerxPorts.ts';
import { ledgerXNodeHost, type LedgerXCommitterRoleNodeCreatedData, type LedgerXRoleNodeCreatedData } from '../../domain/ledgerx/ledgerxNode.ts';
import type { NodeEngine, NodeLaunchSpec } from '../../domain/nodes/nodeEngine.ts';
import { committerLaunchSpec } from './committerLaunch.ts';
import { closeGrpcHealth, grpcHealthCheck } from './grpcHealth.ts';
import { clientMspFiles } from '../consortium/fabricMsp.ts';
import { localEngines, placedEngine } from '../engines/localEngines.ts';
import { dockerPrefixFromEnv, imageVariable, nodeImagesFromEnv } from '../engines/nodeImages.ts';
import Docker from 'dockerode';
import { portsInUse } from '../engines/hostPorts.ts';
import { findFabricXProgram, FABRIC_X_BIN_VARIABLE } from './fabricXPrograms.ts';
import { armaLaunchSpec } from './armaLaunch.ts';
import { buildLedgerXGenesis } from './ledgerxGenesis.ts';
import { blockHeightOf, heightMetricOf } from './fabricXLedgerMetrics.ts';

export interface LedgerXRuntimeOptions {
  dataDir: string;
  /** LNM_FABRIC_X_BIN, PATH; default process.env. */
  env?: Record<string, string | undefined>;
  /** The engine of a registered node host (config.hostId; docs/kubernetes.md); without it roles on a cluster cannot run. */
  hostEngine?: (hostId: number) => Promise<NodeEngine | null>;
}

const displayName = (n: LedgerXRoleNodeCreatedData | LedgerXCommitterRoleNodeCreatedData) => `ledgerX ${n.role} ${n.name}`;
const isCommitter = (n: { nodeType: string }) => n.nodeType.startsWith('LEDGERX_COMMITTER');
/** Where a role's ports answer: this machine, or the cluster's node address for a role on a cluster. */
const probeHost = (n: { config: { hostId?: number; externalIp?: string } }) => ledgerXNodeHost(n.config);
/** A committer service's gRPC health target (adapters/ledgerx/grpcHealth.ts keeps one client per target). */
const healthAddress = (n: { config: { grpcPort?: number; hostId?: number; externalIp?: string } }) => `${probeHost(n)}:${n.config.grpcPort}`;

export function createLedgerXRuntime(options: LedgerXRuntimeOptions): LedgerXRuntime {
  const env = options.env ?? process.env;
  const dataDir = path.resolve(options.dataDir);
  const images = nodeImagesFromEnv(env);
  // Under the docker engine a role runs in its image (fabric-x-arma, fabric-x-committer) on the
  // host network, the node directory bound at the same path: the launch specs' paths hold.
  const engines = localEngines({ dataDir, images, namePrefix: dockerPrefixFromEnv(env) });
  const engineOf = engines.of;
  const engineFor = (node: LedgerXRoleNodeCreatedData | LedgerXCommitterRoleNodeCreatedData): Promise<NodeEngine> =>
    placedEngine(engines, options.hostEngine, { engine: node.engine ?? 'process', config: node.config as { hostId?: number } }, displayName(node), nodeKey(node.nodeId));

  /** Under docker: the image of `software` is on the Docker host, or why not. */
  async function imagePresent(software: 'fabric-x-arma' | 'fabric-x-committer', name: string, key: string): Promise<void> {
    const availability = await engineOf('docker').available();
    if (!availability.ok) throw new NodeStartFailedError('binary-missing', `Cannot start ${name}: ${availability.reason}.`, { nodeKey: key });
    try {
      await new Docker().getImage(images[software]).inspect();
    } catch {
      throw new NodeStartFailedError('binary-missing', `Cannot start ${name}: the image ${images[software]} is not on the Docker host; build it (.ci/docker.sh builds lnm-${software}:local from the Fabric-X programs) or set ${imageVariable(software)}.`, { nodeKey: key, variable: imageVariable(software) });
    }
  }
  const groupDir = (groupId: number) => path.join(dataDir, 'ledgerx', `group-${groupId}`);

  async function launch(spec: NodeLaunchSpec, name: string, engine: NodeEngine) {
    const key = spec.nodeKey;
    if ((await engine.status(key)).state === 'running') throw new NodeStartFailedError('already-running', `${name} is already running.`, { nodeKey: key });
    // A cluster's NodePorts are taken there (its Service), not on this machine.
    const busy = engine.kind === 'kubernetes' ? [] : await portsInUse(spec.ports);
    if (busy.length) throw new NodeStartFailedError('port-in-use', `Cannot start ${name}: port ${busy.join(', ')} ${busy.length > 1 ? 'are' : 'is'} already in use on this host.`, { nodeKey: key, ports: busy });
    await engine.prepare(spec);
    try {
      const started = await engine.start(spec);
      return { pid: started.pid ?? null, containerId: null, startedAt: started.startedAt };
    } catch (err) {
      if (!(err instanceof NodeStartFailedError) || err.failure !== 'exited') throw err;
      const lines = await engine.logs(key, { tail: 60 }).catch(() => [] as string[]);
      const fatal = lines.filter((l) => /\b(PANI|FATA|ERRO)\b|panic:|Error:/.test(l)).pop();
      if (!fatal) throw err;
      throw new NodeStartFailedError('exited', `${name} exited right after starting: ${maskSecrets(fatal.trim())}`, { ...err.extra, nodeKey: key, lastLogLines: lines.slice(-10).map(maskSecrets) });
    }
  }

  return {
    async available() {
      const arma = await findFabricXProgram('arma', env);
      return arma.ok ? { ok: true } : { ok: false, reason: arma.reason };
    },
    genesis: async (req) => buildLedgerXGenesis(req),
    async writeJoin(groupId, join) {
      const dir = groupDir(groupId);
      await mkdir(dir, { recursive: true, mode: 0o700 });
      await writeFile(path.join(dir, 'bootstrap.block'), join.block);
      await writeFile(path.join(dir, 'join.json'), JSON.stringify({ networkId: join.networkId, channel: join.channel, partyId: join.partyId }));
    },
    async readJoin(groupId) {
      try {
        const meta = JSON.parse(await readFile(path.join(groupDir(groupId), 'join.json'), 'utf8')) as Omit<LedgerXJoin, 'block'>;
        const block = new Uint8Array(await readFile(path.join(groupDir(groupId), 'bootstrap.block')));
        return { ...meta, block };
      } catch {
        return null;
      }
    },
    async removeJoin(groupId) {
      await rm(groupDir(groupId), { recursive: true, force: true });
    },
    async start(node, material) {
      const key = nodeKey(node.nodeId);
      const name = displayName(node);
      const onCluster = !!node.config.hostId;
      const docker = node.engine === 'docker' || onCluster;
      // On a cluster the image is the cluster's (kubernetes.images, imported there): its pod says when it is missing.
      if (docker && !onCluster) await imagePresent('fabric-x-arma', name, key);
      const arma = docker ? { ok: true as const, path: 'arma' } : await findFabricXProgram('arma', env);
      if (!arma.ok) throw new NodeStartFailedError('binary-missing', `Cannot start ${name}: ${arma.reason}.`, { nodeKey: key, variable: FABRIC_X_BIN_VARIABLE });
      const join = await this.readJoin(node.config.groupId);
      if (!join) throw new NodeStartFailedError('invalid-spec', `Cannot start ${name}: its orderer group has not joined a network yet (joining it to a network gives it the genesis block).`, { nodeKey: key });
      return launch(armaLaunchSpec(node, material, join, { dataDir, arma: arma.path, nodeKey: key, displayName: name }), name, await engineFor(node));
    },
    async startCommitter(node, input) {
      const key = nodeKey(node.nodeId);
      const name = displayName(node);
      const onCluster = !!node.config.hostId;
      const docker = node.engine === 'docker' || onCluster;
      // On a cluster the image is the cluster's (kubernetes.images, imported there): its pod says when it is missing.
      if (docker && !onCluster) await imagePresent('fabric-x-committer', name, key);
      const committer = docker ? { ok: true as const, path: 'committer' } : await findFabricXProgram('committer', env);
      if (!committer.ok) throw new NodeStartFailedError('binary-missing', `Cannot start ${name}: ${committer.reason}.`, { nodeKey: key, variable: FABRIC_X_BIN_VARIABLE });
      const join = await this.readJoin(node.config.groupId);
      if (!join) throw new NodeStartFailedError('invalid-spec', `Cannot start ${name}: its committer has not joined a network yet: join it to a network first.`, { nodeKey: key });
      const clientMsp = input.client ? clientMspFiles(input.client.organization, { certPem: input.client.certPem, keyPem: input.client.keyPem }) : [];
      return launch(committerLaunchSpec(node, { databasePassword: input.databasePassword, clientMsp, block: join.block }, { dataDir, committer: committer.path, nodeKey: key, displayName: name }), name, await engineFor(node));
    },
    // A committer service's kept health connection closes with the service.
    async stop(node) {
      try {
        await (await engineFor(node)).stop(nodeKey(node.nodeId));
      } finally {
        if (isCommitter(node)) closeGrpcHealth(healthAddress(node));
      }
    },
    async remove(node, opts) {
      try {
        await (await engineFor(node)).remove(nodeKey(node.nodeId), opts);
      } finally {
        if (isCommitter(node)) closeGrpcHealth(healthAddress(node));
      }
    },
    status: async (node) => (await engineFor(node)).status(nodeKey(node.nodeId)),
    async live(node, timeoutMs) {
      if (isCommitter(node)) return grpcHealthCheck(healthAddress(node), timeoutMs);
      const url = `http://${probeHost(node)}:${node.config.monitoringPort}/healthz`;
      let res: { status: number; text: string };
      try {
        // The health monitor's HTTP (keep-alive, node:http), as for the other platforms' probes.
        res = await probeRequest(url, { timeoutMs });
      } catch (err) {
        throw new Error(`the monitoring endpoint ${url} does not answer (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
      }
      if (res.status < 200 || res.status >= 300) throw new Error(`${url} answered ${res.status} ${res.text.slice(0, 200)}`);
    },
    async blockHeight(node, timeoutMs) {
      if (!heightMetricOf(node.role)) return null;
      const url = `http://${probeHost(node)}:${node.config.monitoringPort}/metrics`;
      const res = await probeRequest(url, { timeoutMs });
      if (res.status < 200 || res.status >= 300) throw new Error(`${url} answered ${res.status}`);
      return blockHeightOf(res.text, node.role);
    },
    logs: async (node, tail) => (await engineFor(node)).logs(nodeKey(node.nodeId), { tail }),
    followLogs: async (node, onLine, tail) => (await engineFor(node)).followLogs(nodeKey(node.nodeId), onLine, { tail }),
    portsInUse,
  };
}
