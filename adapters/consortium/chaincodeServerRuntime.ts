// Runs chaincode servers (chaincode as a service) on the process engine: the chaincode's files
// (TypeScript transpiled, chaincodePackage.ts) go to <dataDir>/nodes/node-<id>/chaincode/, and
// fabric-shim's own CLI (`fabric-chaincode-node server`) runs them with this service's Node.js,
// in server mode with the package id and listen address. fabric-contract-api and fabric-shim
// resolve from the service's node_modules (NODE_PATH), so a chaincode brings only its own code.
// Healthy = its gRPC port accepts a connection.
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';
import type { ConsortiumChaincodeNodeCreatedData } from '../../domain/consortium/consortiumNode.ts';
import type { ChaincodeSourceFile } from '../../domain/consortium/consortiumChaincode.ts';
import type { ChaincodeServerRuntime } from '../../domain/consortium/consortiumChaincodePorts.ts';
import { NODE_DIR_PLACEHOLDER, NodeStartFailedError, type NodeLaunchSpec } from '../../domain/nodes/nodeEngine.ts';
import { createProcessEngine } from '../engines/processEngine.ts';
import { nodeKey } from '../../domain/nodes/node.ts';
import { chaincodeFiles } from './chaincodePackage.ts';

const require = createRequire(import.meta.url);


export function chaincodeLaunchSpec(node: ConsortiumChaincodeNodeCreatedData, files: ChaincodeSourceFile[]): NodeLaunchSpec {
  const cli = require.resolve('fabric-shim/cli.js');
  const nodeModules = path.dirname(path.dirname(require.resolve('fabric-contract-api/package.json')));
  const c = node.config;
  return {
    nodeKey: nodeKey(node.nodeId),
    displayName: `chaincode server ${node.name} (${c.chaincodeName} ${c.version})`,
    process: {
      command: process.execPath,
      args: [cli, 'server', '--chaincode-address', `${c.listenAddress}:${c.port}`, '--chaincode-id', c.packageId, '--module-path', `${NODE_DIR_PLACEHOLDER}/chaincode`],
      env: { NODE_PATH: nodeModules, CORE_CHAINCODE_LOGGING_LEVEL: 'info' },
    },
    files: chaincodeFiles(files).map((f) => ({ path: `chaincode/${f.path}`, content: f.content })),
    ports: [c.port],
  };
}

export function createChaincodeServerRuntime(options: { dataDir: string }): ChaincodeServerRuntime {
  const engine = createProcessEngine({ dataDir: path.resolve(options.dataDir) });
  return {
    async start(node, files) {
      const spec = chaincodeLaunchSpec(node, files);
      if ((await engine.status(spec.nodeKey)).state === 'running') throw new NodeStartFailedError('already-running', `${spec.displayName} is already running.`, { nodeKey: spec.nodeKey });
      await engine.prepare(spec);
      const started = await engine.start(spec);
      return { pid: started.pid ?? null, containerId: null, startedAt: started.startedAt };
    },
    stop: (node) => engine.stop(nodeKey(node.nodeId)),
    remove: (node) => engine.remove(nodeKey(node.nodeId)),
    status: (node) => engine.status(nodeKey(node.nodeId)),
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
