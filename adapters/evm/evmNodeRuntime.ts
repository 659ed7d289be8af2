// Runs evm nodes on a node engine (process or docker) and reads them over JSON-RPC: the
// adapter behind domain/evm/evmPorts.ts EvmNodeRuntime.
//
// anvil: the genesis file goes into the node directory, anvil's one-off --init bootstrap
// turns it into anvil-state.json (anvilLaunch.ts), then the engine runs anvil --state. The
// bootstrap runs here with the npm-shipped binary under either engine; the docker engine binds
// the node directory at the same path, so the container finds the same state file.
// besu: besuLaunch.ts writes genesis, config.toml and the node key into the node directory and
// runs `besu --config-file=...` (process: the besu on PATH; docker: the configured besu image).
// geth (Clique networks): gethLaunch.ts writes genesis, config.toml, node key and a sealer's
// keystore and password file; the process engine runs `geth init` here, then geth; the docker
// engine (here or on a node host) runs the geth image, whose command inits, then execs geth.
// Without besu or geth, a node that needs it fails to start saying what to install.
import { access, constants, readFile } from 'node:fs/promises';
import path from 'node:path';
import Docker from 'dockerode';
import { NODE_DIR_PLACEHOLDER, NodeStartFailedError, type NodeEngine, type NodeLaunchSpec } from '../../domain/nodes/nodeEngine.ts';
import { nodeKey } from '../../domain/nodes/node.ts';
import type { EvmNodeRuntime, EvmNodeTarget } from '../../domain/evm/evmPorts.ts';
import type { DockerNodeEngine } from '../engines/dockerEngine.ts';
import { localEngines, placedEngine, placedNodeCalls } from '../engines/localEngines.ts';
import { nodeDirectory } from '../engines/nodeDirectory.ts';
import { dockerPrefixFromEnv, nodeImagesFromEnv } from '../engines/nodeImages.ts';
import { acceptsConnections, freeLocalPort, portsInUse } from '../engines/hostPorts.ts';
import { ANVIL_SEED_FILE, ANVIL_STATE_FILE, anvilRunCommand, anvilSeedArgs, anvilSpecFromGenesis, bootstrapAnvilState } from './anvilLaunch.ts';
import { besuEnode, besuLaunchSpec } from './besuLaunch.ts';
import { findGeth, gethLaunchSpec, runGethInit } from './gethLaunch.ts';
import { gethSealsWhenPeered, sealWhenPeered, startSealingIfPeered } from './gethSealing.ts';
import { anvilLogs, anvilRawTail, followAnvilLogs } from './anvilLogs.ts';
import { anvilGenesisMarks, anvilStateCleanupScript, marksJson } from './anvilStateFile.ts';
import type { EvmValidator } from '../../domain/evm/evmNetwork.ts';
import { evmJsonRpc, probeEvmNode } from './jsonRpc.ts';
import { isBft } from '../../domain/evm/evmConsensus.ts';

export interface EvmNodeRuntimeOptions {
  dataDir: string;
  env?: Record<string, string | undefined>;
  /**
   * The 32-byte private key of a validator's key, for besu's node key file (the database key
   * provider's; see evmDeps.ts). Without it, besu validators cannot start.
   */
  validatorKey?: (validator: EvmValidator) => Promise<Uint8Array>;
  /** The engine of a registered node host (config.hostId; docs/hosts.md, docs/kubernetes.md); without it nodes on hosts cannot run. */
  hostEngine?: (hostId: number) => Promise<NodeEngine | null>;
}

async function onPath(binary: string, env: Record<string, string | undefined>): Promise<string | null> {
  for (const dir of (env.PATH ?? '').split(':').filter(Boolean)) {
    const file = path.join(dir, binary);
    try {
      await access(file, constants.X_OK);
      return file;
    } catch {
      /* next */
    }
  }
  return null;
}

export function createEvmNodeRuntime(options: EvmNodeRuntimeOptions): EvmNodeRuntime {
  const env = options.env ?? process.env;
  const dataDir = path.resolve(options.dataDir);
  const images = nodeImagesFromEnv(env);
  const engines = localEngines({ dataDir, images, namePrefix: dockerPrefixFromEnv(env) });
  const engineOf = engines.of;
  const keyOf = (t: EvmNodeTarget) => nodeKey(t.node.nodeId);
  /** Sealers whose start is still polling to switch them to their key (gethSealing.ts): the health probe leaves them to it. */
  const sealingPolls = new Set<string>();
  const engineFor = (t: EvmNodeTarget): Promise<NodeEngine> => placedEngine(engines, options.hostEngine, t.node, `Node ${t.node.name}`, keyOf(t));

  /** Whether the local Docker Engine has the image of `software` (besu, geth). */
  async function imagePresent(software: 'besu' | 'geth'): Promise<boolean> {
    try {
      await new Docker().getImage(images[software]).inspect();
      return true;
    } catch {
      return false;
    }
  }

  function rpcUrl(t: EvmNodeTarget): string | null {
    return t.node.config.rpcHttpPort ? `http://${t.node.config.externalIp ?? '127.0.0.1'}:${t.node.config.rpcHttpPort}` : null;
  }

  async function anvilLaunchSpec(t: EvmNodeTarget): Promise<NodeLaunchSpec> {
    const nodeKey = keyOf(t);
    const nodeDir = nodeDirectory(dataDir, nodeKey);
    const rpcPort = t.node.config.rpcHttpPort;
    if (!rpcPort) throw new NodeStartFailedError('invalid-spec', `Node ${t.node.name} runs on anvil and needs an RPC HTTP port.`, { nodeKey });
    const anvil = anvilSpecFromGenesis(t.network.genesis, t.network.settings, { nodeDir, genesisPath: path.join(nodeDir, 'genesis.json'), rpcPort, ...(t.node.config.hostId ? { listenHost: '0.0.0.0' } : {}) });
    const run = anvilRunCommand(anvil);
    return {
      nodeKey,
      displayName: `${t.node.name} of network ${t.network.name}`,
      process: { command: run.command, args: run.args },
      docker: { image: 'anvil', args: run.args },
      files: [{ path: 'genesis.json', content: JSON.stringify(t.network.genesis, null, 2) + '\n' }],
      ports: [rpcPort],
    };
  }

  const noValidatorKeys = (t: EvmNodeTarget) => async (): Promise<Uint8Array> => {
    throw new NodeStartFailedError('invalid-spec', `Node ${t.node.name} is a ${t.node.client} validator, and this service was started without access to the validator keys.`, { nodeKey: keyOf(t) });
  };

  async function gethCommand(): Promise<string | null> {
    const found = await findGeth(env);
    return found.ok ? found.path : null;
  }

  async function launchSpec(t: EvmNodeTarget): Promise<{ spec: NodeLaunchSpec; bootstrap?: () => Promise<unknown> }> {
    if (t.node.client === 'geth') {
      const geth = await gethLaunchSpec(t, { dataDir, gethCommand: await gethCommand(), validatorKey: options.validatorKey ?? noValidatorKeys(t) });
      const init = geth.init;
      return { spec: geth.spec, ...(init ? { bootstrap: () => runGethInit(init) } : {}) };
    }
    if (t.node.client === 'besu') {
      const besuCommand = t.node.engine === 'process' ? await onPath('besu', env) : null;
      const present = t.node.engine === 'process' ? besuCommand !== null : await imagePresent('besu');
      if (!present) {
        const install = t.node.engine === 'process' ? 'install besu 24.x (https://besu.hyperledger.org) so that `besu` is on the PATH of this service' : `install the besu image ${images.besu} on the Docker host (or set LNM_IMAGE_BESU)`;
        throw new NodeStartFailedError(
          t.node.engine === 'process' ? 'binary-missing' : 'image-missing',
          `Node ${t.node.name} needs the besu client (${t.network.validators.length} validators, or a bootnode or full node, need real peer-to-peer consensus) and it is not installed: ${install}.`,
          { nodeKey: keyOf(t) },
        );
      }
      const validatorKey = options.validatorKey ?? noValidatorKeys(t);
      return { spec: await besuLaunchSpec(t, { dataDir, besuCommand, validatorKey }) };
    }
    const spec = await anvilLaunchSpec(t);
    const nodeDir = nodeDirectory(dataDir, spec.nodeKey);
    // The one-off bootstrap runs here. A node on a node host has its RPC port on that host, never
    // checked free on this machine: its bootstrap takes a free port of this machine instead (on a
    // taken one it would dump the state of whatever answers there).
    const rpcPort = t.node.config.hostId ? await freeLocalPort() : t.node.config.rpcHttpPort!;
    const anvil = anvilSpecFromGenesis(t.network.genesis, t.network.settings, { nodeDir, genesisPath: path.join(nodeDir, 'genesis.json'), rpcPort });
    return { spec, bootstrap: () => bootstrapAnvilState(anvil) };
  }

  /** Starts the node; `restarting`: it runs, and its engine restarts it in place (NodeEngine.restart). */
  async function startOn(t: EvmNodeTarget, restarting: boolean) {
    const engine = await engineFor(t);
    const { spec, bootstrap } = await launchSpec(t);
    // A node on a host has its ports there: the host's engine starts it or says why not.
    const busy = t.node.config.hostId ? [] : await portsInUse(spec.ports);
    if (busy.length) throw new NodeStartFailedError('port-in-use', `Cannot start ${spec.displayName}: port ${busy.join(', ')} is already in use.`, { nodeKey: spec.nodeKey, ports: busy });
    await engine.prepare(spec);
    // anvil on a node host saved its chain in its volume there; the staging copy here holds block 0
    // only and is uploaded at every start: the saved chain comes back into it first, so the
    // bootstrap keeps it (and drops its placeholder block 0s) instead of the upload resetting it.
    const hosted = t.node.config.hostId && engine.kind === 'docker' ? (engine as DockerNodeEngine) : null;
    if (bootstrap && hosted && t.node.client === 'anvil') await hosted.pullNodeFile(spec.nodeKey, ANVIL_STATE_FILE);
    if (bootstrap) {
      try {
        await bootstrap();
      } catch (err) {
        throw new NodeStartFailedError('exited', `Cannot start ${spec.displayName}: building block 0 from the genesis failed: ${(err as Error).message}`, { nodeKey: spec.nodeKey });
      }
    }
    // geth on a cluster needs nothing more: its container runs `geth init` on its volume, then geth (gethLaunch.ts).
    if (engine.kind === 'kubernetes' && t.node.client === 'anvil') {
      // On a cluster the chain lives in the node's volume there; the genesis state built here
      // seeds a new volume (anvilSeedArgs) and is never copied over a chain already there.
      const nodeDir = nodeDirectory(dataDir, spec.nodeKey);
      spec.files.push({ path: ANVIL_SEED_FILE, content: await readFile(path.join(nodeDir, ANVIL_STATE_FILE), 'utf8') });
      spec.seedArgs = anvilSeedArgs(anvilSpecFromGenesis(t.network.genesis, t.network.settings, { nodeDir, genesisPath: path.join(nodeDir, 'genesis.json'), rpcPort: t.node.config.rpcHttpPort!, listenHost: '0.0.0.0' }));
      // Every pod first drops the placeholder block 0s of earlier starts from the state file in its
      // volume (anvilStateFile.ts), as the bootstrap does here before a start on the other engines,
      // with the Node.js of the service's own image: without it block 0 after a restart is often
      // a placeholder, not the genesis block.
      const genesis = JSON.parse(await readFile(path.join(nodeDir, 'genesis.json'), 'utf8')) as Record<string, unknown>;
      spec.podInit = { image: 'service', command: ['node', '-e', anvilStateCleanupScript(), path.join(NODE_DIR_PLACEHOLDER, ANVIL_STATE_FILE), marksJson(anvilGenesisMarks(genesis))] };
    }
    const started = restarting ? await engine.restart!(spec) : await engine.start(spec);
    // Not awaited: the network's next node, this one's first peer, starts after this start returns.
    if (gethSealsWhenPeered(t)) {
      const key = keyOf(t);
      const peerUrls = t.peers.filter((p) => p.nodeId !== t.node.nodeId && p.networkId === t.node.networkId).map((p) => rpcUrl({ ...t, node: p })).filter((u): u is string => !!u);
      sealingPolls.add(key);
      // The network's other signers (a network's start makes its nodes one by one: the first sees no other node yet).
      const otherSigners = t.network.validators.length - 1;
      void sealWhenPeered(rpcUrl(t)!, t.node.validatorAddress!, { peerUrls, otherSigners }).finally(() => sealingPolls.delete(key));
    }
    return { pid: started.pid ?? null, containerId: started.containerId ?? null, startedAt: started.startedAt };
  }

  const runtime: EvmNodeRuntime = {
    async engineAvailable(kind) {
      return engineOf(kind).available();
    },
    async besuAvailable(engine) {
      return engine === 'process' ? (await onPath('besu', env)) !== null : imagePresent('besu');
    },
    async gethAvailable(engine) {
      return engine === 'process' ? (await gethCommand()) !== null : imagePresent('geth');
    },
    portsInUse,
    async restart(t) {
      // An engine that restarts in place rolls the running node; the others are stopped, then started.
      const engine = await engineFor(t);
      if (!engine.restart) await engine.stop(keyOf(t)).catch(() => undefined);
      return startOn(t, !!engine.restart);
    },
    start: (t) => startOn(t, false),
    ...placedNodeCalls(engineFor, keyOf),
    async live(t, timeoutMs = 2000) {
      const url = rpcUrl(t);
      if (!url && t.node.client !== 'anvil') {
        // A bootnode serves no JSON-RPC: it is up when its P2P port takes connections.
        if (await acceptsConnections(t.node.config.p2pPort, t.node.config.externalIp ?? undefined)) return { blockHeight: null, peerCount: null };
        throw new Error(`the P2P port ${t.node.config.p2pPort} does not accept connections`);
      }
      if (!url) throw new Error('node has no RPC port');
      const reading = await probeEvmNode(url, timeoutMs);
      // A standby sealer restarted without the service (a host's engine restarting it), or whose start's poll ran out.
      if (reading.peerCount >= 1 && gethSealsWhenPeered(t) && !sealingPolls.has(keyOf(t))) await startSealingIfPeered(url, t.node.validatorAddress!, timeoutMs).catch(() => false);
      return reading;
    },
    rpcUrl,
    async enode(t) {
      if (t.node.client === 'anvil') return null;
      // geth's node key follows besu's rules (gethLaunch.ts), so its enode is computed the same way.
      return besuEnode(dataDir, t.network, t.node, { create: false }).catch(() => null);
    },
    // anvil's log without the service's own polling (anvilLogs.ts).
    async logs(t, tail) {
      const engine = await engineFor(t);
      if (t.node.client !== 'anvil') return engine.logs(keyOf(t), { tail });
      return anvilLogs(await engine.logs(keyOf(t), { tail: anvilRawTail(tail) }), tail);
    },
    async followLogs(t, onLine, tail) {
      const engine = await engineFor(t);
      if (t.node.client !== 'anvil') return engine.followLogs(keyOf(t), onLine, { tail });
      return followAnvilLogs((raw, rawTail) => engine.followLogs(keyOf(t), raw, { tail: rawTail }), onLine, tail);
    },
    async chainValidators(t) {
      const url = rpcUrl(t);
      if (t.node.client === 'anvil' || !url) return null;
      if (t.network.settings.consensus === 'CLIQUE') return evmJsonRpc(url).cliqueSigners('latest');
      if (!isBft(t.network.settings.consensus)) return null;
      return evmJsonRpc(url).validatorsByBlockNumber(t.network.settings.consensus === 'QBFT' ? 'qbft' : 'ibft', 'latest');
    },
    async validatorVote(t, action, address, add) {
      const url = rpcUrl(t);
      if (!url) throw new Error('node has no RPC port');
      const rpc = evmJsonRpc(url);
      if (t.network.settings.consensus === 'CLIQUE') return action === 'propose' ? rpc.cliquePropose(address, add, t.node.client) : rpc.cliqueDiscard(address, t.node.client);
      const api = t.network.settings.consensus === 'QBFT' ? 'qbft' : 'ibft';
      return action === 'propose' ? rpc.proposeValidatorVote(address, add, api) : rpc.discardValidatorVote(address, api);
    },
    async pendingVotes(t) {
      const url = rpcUrl(t);
      if (!url) throw new Error('node has no RPC port');
      if (t.network.settings.consensus === 'CLIQUE') return evmJsonRpc(url).cliqueProposals();
      return evmJsonRpc(url).pendingVotes(t.network.settings.consensus === 'QBFT' ? 'qbft' : 'ibft');
    },
    async genesisHash(t) {
      const url = rpcUrl(t);
      if (!url) throw new Error('node has no RPC port');
      const b = await evmJsonRpc(url).blockByNumber(0);
      return b?.hash ?? '';
    },
  };
  return runtime;
}
