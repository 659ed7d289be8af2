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
//   TLS (a server recorded with config.tls, the default): its certificate, key and the CA of the
//     peers' client certificates go into its node directory (tls/, the key 0600; on a cluster the
//     Secret's items), named by fabric-shim's --chaincode-tls-* flags or, for an image, by
//     variables (tlsOf): the server then refuses plain text and clients without a certificate.
// Containers are on the host network (like docker-engine peers), so the address in the ccaas
// package is the same for peers under either engine. Healthy = its gRPC port accepts a connection.
//   on a Kubernetes cluster (config.hostId, docs/kubernetes.md): the cluster's kubernetes engine
//     runs the same launch spec (image or chaincode-node image) as a StatefulSet of one replica
//     with a Service made ahead of the start (reserveOnCluster): peers in the cluster dial its
//     cluster IP, peers outside and this service's probe its NodePort at the cluster's address.
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';
import Docker from 'dockerode';
import type { ConsortiumChaincodeNodeCreatedData } from '../../domain/consortium/consortiumNode.ts';
import type { ChaincodeSource } from '../../domain/consortium/consortiumChaincode.ts';
import type { ChaincodeServerRuntime } from '../../domain/consortium/consortiumChaincodePorts.ts';
import type { ChaincodeTlsMaterial } from '../../domain/consortium/consortiumPorts.ts';
import { NODE_DIR_PLACEHOLDER, NodeStartFailedError, type NodeEngine, type NodeFile, type NodeLaunchSpec } from '../../domain/nodes/nodeEngine.ts';
import { localEngines, placedEngine } from '../engines/localEngines.ts';
import type { KubernetesNodeEngine } from '../engines/kubernetesEngine.ts';
import { dockerPrefixFromEnv, imageVariable, nodeImagesFromEnv } from '../engines/nodeImages.ts';
import { nodeKey } from '../../domain/nodes/node.ts';
import { chaincodeFiles } from './chaincodePackage.ts';

const require = createRequire(import.meta.url);

/** The software name of the image that runs a files-source chaincode under the docker engine (nodeImages.ts). */
export const CHAINCODE_NODE_SOFTWARE = 'chaincode-node';
/** Where that image keeps fabric-shim (.ci/docker.sh). */
const IMAGE_SHIM_CLI = '/opt/lnm/node_modules/fabric-shim/cli.js';

/** Where a chaincode server's TLS files are, in its node directory (a Secret's items on a cluster). */
const TLS_DIR = 'tls';

/**
 * The server's TLS files and how it is told them: fabric-shim's CLI flags for files sources; for
 * an image, Fabric's ccaas samples' variables (CHAINCODE_TLS_CERT, CHAINCODE_TLS_KEY,
 * CHAINCODE_CLIENT_CA_CERT: file paths) and fabric-shim's own (CORE_CHAINCODE_TLS_CERT_FILE,
 * CORE_CHAINCODE_TLS_KEY_FILE, CORE_CHAINCODE_TLS_CLIENT_CACERT_FILE), so an image that starts
 * fabric-chaincode-node needs nothing more.
 */
function tlsOf(tls: ChaincodeTlsMaterial | null): { files: NodeFile[]; args: string[]; env: Record<string, string> } {
  if (!tls) return { files: [], args: [], env: {} };
  const at = (name: string) => `${NODE_DIR_PLACEHOLDER}/${TLS_DIR}/${name}`;
  return {
    files: [
      { path: `${TLS_DIR}/server.crt`, content: tls.serverCertPem },
      { path: `${TLS_DIR}/server.key`, content: tls.serverKeyPem, secret: true },
      { path: `${TLS_DIR}/client-ca.crt`, content: tls.caCertPem },
    ],
    args: ['--chaincode-tls-cert-file', at('server.crt'), '--chaincode-tls-key-file', at('server.key'), '--chaincode-tls-client-cacert-file', at('client-ca.crt')],
    env: {
      CHAINCODE_TLS_DISABLED: 'false', CHAINCODE_TLS_CERT: at('server.crt'), CHAINCODE_TLS_KEY: at('server.key'), CHAINCODE_CLIENT_CA_CERT: at('client-ca.crt'),
      CORE_CHAINCODE_TLS_CERT_FILE: at('server.crt'), CORE_CHAINCODE_TLS_KEY_FILE: at('server.key'), CORE_CHAINCODE_TLS_CLIENT_CACERT_FILE: at('client-ca.crt'),
    },
  };
}

export function chaincodeLaunchSpec(node: ConsortiumChaincodeNodeCreatedData, source: ChaincodeSource, tlsMaterial: ChaincodeTlsMaterial | null = null): NodeLaunchSpec {
  const c = node.config;
  const address = `${c.listenAddress}:${c.port}`;
  const base = { nodeKey: nodeKey(node.nodeId), displayName: `chaincode server ${node.name} (${c.chaincodeName} ${c.version})`, ports: [c.port] };
  const tls = tlsOf(tlsMaterial);
  if (source.kind === 'image') {
    return { ...base, docker: { image: source.image, args: [], env: { CHAINCODE_ID: c.packageId, CHAINCODE_SERVER_ADDRESS: address, ...tls.env } }, files: tls.files };
  }
  const server = ['server', '--chaincode-address', address, '--chaincode-id', c.packageId, '--module-path', `${NODE_DIR_PLACEHOLDER}/chaincode`, ...tls.args];
  const env = { CORE_CHAINCODE_LOGGING_LEVEL: 'info' };
  const nodeModules = path.dirname(path.dirname(require.resolve('fabric-contract-api/package.json')));
  return {
    ...base,
    process: { command: process.execPath, args: [require.resolve('fabric-shim/cli.js'), ...server], env: { ...env, NODE_PATH: nodeModules } },
    docker: { image: CHAINCODE_NODE_SOFTWARE, args: [IMAGE_SHIM_CLI, ...server], env },
    files: [...chaincodeFiles(source.files).map((f) => ({ path: `chaincode/${f.path}`, content: f.content })), ...tls.files],
  };
}

export function createChaincodeServerRuntime(options: { dataDir: string; env?: Record<string, string | undefined>; docker?: Docker; hostEngine?: (hostId: number) => Promise<NodeEngine | null> }): ChaincodeServerRuntime {
  const dataDir = path.resolve(options.dataDir);
  const images = nodeImagesFromEnv(options.env ?? process.env);
  const engines = localEngines({ dataDir, images, namePrefix: dockerPrefixFromEnv(options.env ?? process.env), docker: options.docker });
  const docker = engines.docker;
  const engineOf = (node: ConsortiumChaincodeNodeCreatedData): Promise<NodeEngine> => placedEngine(engines, options.hostEngine, node, `chaincode server ${node.name}`, nodeKey(node.nodeId));
  async function clusterEngine(hostId: number, key: string): Promise<KubernetesNodeEngine> {
    const engine = await options.hostEngine?.(hostId);
    if (!engine || engine.kind !== 'kubernetes') throw new NodeStartFailedError('engine-unavailable', `Host ${hostId} is not a registered Kubernetes cluster: a chaincode server cannot be placed there.`, { nodeKey: key });
    return engine as KubernetesNodeEngine;
  }
  return {
    async reserveOnCluster(hostId, nodeId, port) {
      const key = nodeKey(nodeId);
      const engine = await clusterEngine(hostId, key);
      const { clusterIp, nodeAddress } = await engine.expose(key, [port]);
      return { clusterAddress: `${clusterIp}:${port}`, nodePortAddress: `${nodeAddress}:${port}`, release: () => engine.remove(key, { deleteVolume: true }) };
    },
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
    async start(node, source, tls) {
      const spec = chaincodeLaunchSpec(node, source, tls);
      const engine = await engineOf(node);
      if (source.kind === 'image' && engine.kind === 'process') throw new NodeStartFailedError('invalid-spec', `${spec.displayName} runs the image ${source.image}: only the docker and kubernetes engines run images.`, { nodeKey: spec.nodeKey });
      if ((await engine.status(spec.nodeKey)).state === 'running') throw new NodeStartFailedError('already-running', `${spec.displayName} is already running.`, { nodeKey: spec.nodeKey });
      await engine.prepare(spec);
      const started = await engine.start(spec);
      return { pid: started.pid ?? null, containerId: started.containerId ?? null, startedAt: started.startedAt };
    },
    stop: async (node) => (await engineOf(node)).stop(nodeKey(node.nodeId)),
    // A server's Service and claim go with it: it keeps no ledger.
    remove: async (node) => (await engineOf(node)).remove(nodeKey(node.nodeId), { deleteVolume: true }),
    status: async (node) => (await engineOf(node)).status(nodeKey(node.nodeId)),
    live: (node, timeoutMs) =>
      new Promise<void>((resolve, reject) => {
        const [host, port] = reachAt(node);
        const socket = net.connect({ host, port, timeout: timeoutMs });
        socket.once('connect', () => (socket.destroy(), resolve()));
        socket.once('timeout', () => (socket.destroy(), reject(new Error(`the chaincode server ${host}:${port} did not accept a connection within ${timeoutMs} ms`))));
        socket.once('error', (err) => reject(new Error(`the chaincode server ${host}:${port} does not answer (${err.message})`)));
      }),
  };
}

/** Where this service reaches a chaincode server: its NodePort on a cluster, else its port here. */
function reachAt(node: ConsortiumChaincodeNodeCreatedData): [string, number] {
  const external = node.config.externalAddress?.match(/^(.+):(\d+)$/);
  if (external) return [external[1], Number(external[2])];
  return [node.config.listenAddress === '0.0.0.0' ? '127.0.0.1' : node.config.listenAddress, node.config.port];
}
