// Launching one Fabric 2.5 peer: the files in its node directory and its command, for either
// engine (the docker engine binds the node directory at the same path, so one spec serves both).
//
//   <nodeDir>/core.yaml   the release's core.yaml with this node's settings (fabricConfigYaml.ts)
//   <nodeDir>/msp/, tls/  fabricMsp.ts nodeMspFiles (keys 0600)
//   <nodeDir>/data/       peer.fileSystemPath (ledgers, chaincodes) and ledger snapshots
// process: <bin>/peer node start; docker: image "fabric-peer" (image table), `peer node start`
// (the command of Fabric's own images, which have no entrypoint). FABRIC_CFG_PATH = node dir.
//
// No Docker inside the peer: vm.endpoint is empty, so the peer neither builds chaincode images
// nor reports a docker check on /healthz. Chaincode runs as a service through the external
// builders in chaincode.externalBuilders: the ccaas builder written into the node directory
// (ccaasBuilder.ts), then any `externalBuilders` the deps add.
import path from 'node:path';
import { NODE_DIR_PLACEHOLDER, NodeStartFailedError, type NodeLaunchSpec } from '../../domain/nodes/nodeEngine.ts';
import { consortiumNodeKey, isOrdererConfig, type ConsortiumPeerConfig } from '../../domain/consortium/consortiumNode.ts';
import type { ConsortiumNodeMaterial, ConsortiumNodeTarget } from '../../domain/consortium/consortiumPorts.ts';
import { nodeDirectory } from '../engines/nodeDirectory.ts';
import { fabricConfigWith, type FabricSetting } from './fabricConfigYaml.ts';
import { mspPaths, nodeMspFiles } from './fabricMsp.ts';
import { nodeConfigIssues, nodePorts, splitEndpoint } from './fabricNodeConfig.ts';
import { ccaasBuilder, ccaasBuilderFiles } from './ccaasBuilder.ts';
import type { ExternalBuilder } from './externalBuilder.ts';

export const PEER_CONFIG_FILE = 'core.yaml';
export const FABRIC_DATA_DIR = 'data';

export interface FabricLaunchDeps {
  dataDir: string;
  /** Absolute path of the binary for the process engine; null when only the docker engine can run it. */
  command: string | null;
  /** Text of the release's core.yaml (peer) or orderer.yaml (orderer). */
  baseConfig: string;
}

export interface PeerLaunchDeps extends FabricLaunchDeps {
  /** chaincode.externalBuilders after the node's own ccaas builder (the release's default names a path that is not here). */
  externalBuilders?: ExternalBuilder[];
}

/** Throws NodeStartFailedError invalid-spec naming every bad field of the node's config. */
export function assertNodeConfig(t: ConsortiumNodeTarget, displayName: string): void {
  const issues = nodeConfigIssues(t.node.config);
  if (issues.length) {
    throw new NodeStartFailedError('invalid-spec', `Cannot start ${displayName}: ${issues.map((i) => `${i.field} ${i.message}`).join('; ')}.`, { nodeKey: consortiumNodeKey(t.node.nodeId), issues });
  }
}

// Fabric's default log format colours the level with escape codes; a node's log is a file
// read by people and by the engines' failure-line search, so the same fields without colour.
const LOG_FORMAT = '%{time:2006-01-02 15:04:05.000 MST} %{id:04x} %{level:.4s} [%{module}] %{shortfunc} -> %{message}';

/** Environment of a Fabric node under either engine: its config dir is the node directory. */
export const fabricNodeEnv = (): Record<string, string> => ({ FABRIC_CFG_PATH: NODE_DIR_PLACEHOLDER, FABRIC_LOGGING_FORMAT: LOG_FORMAT });

export const fabricDisplayName = (t: ConsortiumNodeTarget) => `${t.node.role} ${t.node.name} of organization ${t.organization.name}`;

export function peerSettings(c: ConsortiumPeerConfig, mspId: string, nodeDir: string, externalBuilders: ExternalBuilder[]): FabricSetting[] {
  const at = (p: string) => path.join(nodeDir, p);
  const external = splitEndpoint(c.externalEndpoint)!;
  return [
    [['peer', 'id'], c.hostname],
    [['peer', 'listenAddress'], `${c.listenAddress}:${c.port}`],
    [['peer', 'address'], c.externalEndpoint],
    [['peer', 'chaincodeListenAddress'], `${c.listenAddress}:${c.chaincodePort}`, 'commentedOut'],
    [['peer', 'chaincodeAddress'], `${external.host}:${c.chaincodePort}`, 'commentedOut'],
    // Gossip starts from the peer itself; anchor peers (channel config) introduce the others.
    [['peer', 'gossip', 'bootstrap'], c.externalEndpoint],
    [['peer', 'gossip', 'endpoint'], c.externalEndpoint],
    [['peer', 'gossip', 'externalEndpoint'], c.externalEndpoint],
    [['peer', 'tls', 'enabled'], true],
    [['peer', 'tls', 'cert', 'file'], at(mspPaths.tlsServerCert)],
    [['peer', 'tls', 'key', 'file'], at(mspPaths.tlsServerKey)],
    [['peer', 'tls', 'rootcert', 'file'], at(mspPaths.tlsCa)],
    [['peer', 'fileSystemPath'], at(FABRIC_DATA_DIR)],
    [['peer', 'mspConfigPath'], at(mspPaths.dir)],
    [['peer', 'localMspId'], mspId],
    [['peer', 'gateway', 'enabled'], true],
    [['vm', 'endpoint'], ''],
    [['chaincode', 'externalBuilders'], externalBuilders],
    [['ledger', 'snapshots', 'rootDir'], at(`${FABRIC_DATA_DIR}/snapshots`)],
    [['operations', 'listenAddress'], `${c.listenAddress}:${c.operationsPort}`],
    [['operations', 'tls', 'enabled'], false],
    [['metrics', 'provider'], 'prometheus'],
  ];
}

export function peerLaunchSpec(t: ConsortiumNodeTarget, material: ConsortiumNodeMaterial, deps: PeerLaunchDeps): NodeLaunchSpec {
  const nodeKey = consortiumNodeKey(t.node.nodeId);
  const displayName = fabricDisplayName(t);
  if (t.node.role !== 'peer' || isOrdererConfig(t.node.config)) throw new NodeStartFailedError('invalid-spec', `Cannot start ${displayName} as a peer: it is recorded as ${t.node.nodeType}.`, { nodeKey });
  assertNodeConfig(t, displayName);
  const nodeDir = nodeDirectory(deps.dataDir, nodeKey);
  const config = fabricConfigWith(deps.baseConfig, peerSettings(t.node.config, t.node.mspId, nodeDir, [ccaasBuilder(nodeDir), ...(deps.externalBuilders ?? [])]), PEER_CONFIG_FILE);
  const env = fabricNodeEnv();
  return {
    nodeKey,
    displayName,
    ...(deps.command ? { process: { command: deps.command, args: ['node', 'start'], env } } : {}),
    docker: { image: 'fabric-peer', args: ['peer', 'node', 'start'], env },
    files: [{ path: PEER_CONFIG_FILE, content: config }, ...nodeMspFiles(material), ...ccaasBuilderFiles()],
    ports: nodePorts(t.node.config).map(([, p]) => p),
  };
}
