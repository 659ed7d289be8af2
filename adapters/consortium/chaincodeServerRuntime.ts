// Runs chaincode servers (chaincode as a service) on the node engines.
//   files source, process engine: the chaincode's files (TypeScript transpiled, chaincodePackage.ts)
//     go to <dataDir>/nodes/node-<id>/chaincode/, and fabric-shim's own CLI
//     (`fabric-chaincode-node server`) runs them with this service's Node.js, in server mode with
//     the package id and listen address; fabric-contract-api and fabric-shim resolve from the
//     service's node_modules (NODE_PATH), so a chaincode brings only its own code.
//   files source, docker engine: the same files and CLI in a container of the chaincode-node image
//     (LNM_IMAGE_CHAINCODE_NODE, default lnm-chaincode-node:local from .ci/docker.sh: Node.js as
//     the entrypoint, fabric-shim and fabric-contract-api in /opt/lnm/node_modules on NODE_PATH).
//   image source (docker engine only): the image runs its chaincode server itself, as Fabric's
//     chaincode-as-a-service images do, told its package id and address by CHAINCODE_ID and
//     CHAINCODE_SERVER_ADDRESS.
// Containers are on the host network (like docker-engine peers), so the address in the ccaas
// package is the same for peers under either engine. Healthy = its gRPC port accepts a connection.
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';
import Docker from 'dockerode';
import type { ConsortiumChaincodeNodeCreatedData } from '../../domain/consortium/consortiumNode.ts';
import type { ChaincodeSource } from '../../domain/consortium/consortiumChaincode.ts';
import type { ChaincodeServerRuntime } from '../../domain/consortium/consortiumChaincodePorts.ts';
import { NODE_DIR_PLACEHOLDER, NodeStartFailedError, type NodeEngine, type NodeLaunchSpec } from '../../domain/nodes/nodeEngine.ts';
import { localEngines } from '../engines/localEngines.ts';
import { dockerPrefixFromEnv, imageVariable, nodeImagesFromEnv } from '../engines/nodeImages.ts';
import { nodeKey } from '../../domain/nodes/node.ts';
import { chaincodeFiles } from './chaincodePackage.ts';

const require = createRequire(import.meta.url);

/** The software name of the image that runs a files-source chaincode under the docker engine (nodeImages.ts). */
export const CHAINCODE_NODE_SOFTWARE = 'chaincode-node';
/** Where that image keeps fabric-shim (.ci/docker.sh). */
const IMAGE_SHIM_CLI = '/opt/lnm/node_modules/fabric-shim/cli.js';

export function chaincodeLaunchSpec(node: ConsortiumChaincodeNodeCreatedData, source: ChaincodeSource): NodeLaunchSpec {
  const c = node.config;
  const address = `${c.listenAddress}:${c.port}`;
  const base = { nodeKey: nodeKey(node.nodeId), displayName: `chaincode server ${node.name} (${c.chaincodeName} ${c.version})`, ports: [c.port] };
  if (source.kind === 'image') {
    return { ...base, docker: { image: source.image, args: [], env: { CHAINCODE_ID: c.packageId, CHAINCODE_SERVER_ADDRESS: address } }, files: [] };
  }
  const server = ['server', '--chaincode-address', address, '--chaincode-id', c.packageId, '--module-path', `${NODE_DIR_PLACEHOLDER}/chaincode`];
  const env = { CORE_CHAINCODE_LOGGING_LEVEL: 'info' };
  const nodeModules = path.dirname(path.dirname(require.resolve('fabric-contract-api/package.json')));
  return {
    ...base,
    process: { command: process.execPath, args: [require.resolve('fabric-shim/cli.js'), ...server], env: { ...env, NODE_PATH: nodeModules } },
    docker: { image: CHAINCODE_NODE_SOFTWARE, args: [IMAGE_SHIM_CLI, ...server], env },
    files: chaincodeFiles(source.files).map((f) => ({ path: `chaincode/${f.path}`, content: f.content })),
  };
}

export function createChaincodeServerRuntime(options: { dataDir: string; env?: Record<string, string | undefined>; docker?: Docker }): ChaincodeServerRuntime {
  const dataDir = path.resolve(options.dataDir);
  const images = nodeImagesFromEnv(options.env ?? process.env);
  const engines = localEngines({ dataDir, images, namePrefix: dockerPrefixFromEnv(options.env ?? process.env), docker: options.docker });
  const docker = engines.docker;
  const engineOf = (node: ConsortiumChaincodeNodeCreatedData): NodeEngine => engines.of(node.engine);
  return {
    async checkImage(image) {
      const availability = await docker().available();
      if (!availability.ok) return { ok: false, engineDown: true, reason: availability.reason };
      const ref = images[image] ?? image;
      try {
        await (options.docker ?? new Docker()).getImage(ref).inspect();
        return { ok: true };
      } catch {
        const hint = image === CHAINCODE_NODE_SOFTWARE ? ` (.ci/docker.sh builds it; ${imageVariable(CHAINCODE_NODE_SOFTWARE)} names another)` : '';
        return { ok: false, engineDown: false, reason: `the image ${ref} is not on the Docker host: build or pull it first${hint}` };
      }
    },
    async start(node, source) {
      const spec = chaincodeLaunchSpec(node, source);
      const engine = engineOf(node);
      if (source.kind === 'image' && node.engine !== 'docker') throw new NodeStartFailedError('invalid-spec', `${spec.displayName} runs the image ${source.image}: only the docker engine runs images.`, { nodeKey: spec.nodeKey });
      if ((await engine.status(spec.nodeKey)).state === 'running') throw new NodeStartFailedError('already-running', `${spec.displayName} is already running.`, { nodeKey: spec.nodeKey });
      await engine.prepare(spec);
      const started = await engine.start(spec);
      return { pid: started.pid ?? null, containerId: started.containerId ?? null, startedAt: started.startedAt };
    },
    stop: (node) => engineOf(node).stop(nodeKey(node.nodeId)),
    remove: (node) => engineOf(node).remove(nodeKey(node.nodeId)),
    status: (node) => engineOf(node).status(nodeKey(node.nodeId)),
    live: (node, timeoutMs) =>
      new Promise<void>((resolve, reject) => {
        const host = node.config.listenAddress === '0.0.0.0' ? '127.0.0.1' : node.config.listenAddress;
        const socket = net.connect({ host, port: node.config.port, timeout: timeoutMs });
        socket.once('connect', () => (socket.destroy(), resolve()));
        socket.once('timeout', () => (socket.destroy(), reject(new Error(`the chaincode server ${host}:${node.config.port} did not accept a connection within ${timeoutMs} ms`))));
        socket.once('error', (err) => reject(new Error(`the chaincode server ${host}:${node.config.port} does not answer (${err.message})`)));
      }),
  };
}
