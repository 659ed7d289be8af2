// Launching one Fabric 2.5 orderer (raft, channel participation, no system channel), for either
// engine (the node directory is bound at the same path under docker).
//
//   <nodeDir>/orderer.yaml  the release's orderer.yaml with this node's settings
//   <nodeDir>/msp/, tls/    fabricMsp.ts nodeMspFiles (keys 0600)
//   <nodeDir>/data/         ledger (FileLedger), etcdraft WAL and snapshots
// process: <bin>/orderer; docker: image "fabric-orderer" (image table), `orderer`.
//
// TLS: the gRPC port serves the node's TLS certificate and is also the cluster port (raft
// messages between orderers), where the same certificate is the client certificate: it is the
// one the channel config names for this consenter. The admin endpoint (channel participation:
// joins, osnadmin) takes only clients holding a certificate of the organization's TLS CA.
import path from 'node:path';
import { NodeStartFailedError, type NodeLaunchSpec } from '../../domain/nodes/nodeEngine.ts';
import { consortiumNodeKey, isOrdererConfig, type ConsortiumOrdererConfig } from '../../domain/consortium/consortiumNode.ts';
import type { ConsortiumNodeMaterial, ConsortiumNodeTarget } from '../../domain/consortium/consortiumPorts.ts';
import { nodeDirectory } from '../engines/nodeDirectory.ts';
import { fabricConfigWith, type FabricSetting } from './fabricConfigYaml.ts';
import { mspPaths, nodeMspFiles } from './fabricMsp.ts';
import { nodePorts } from './fabricNodeConfig.ts';
import { assertNodeConfig, FABRIC_DATA_DIR, fabricDisplayName, fabricNodeEnv, type FabricLaunchDeps } from './peerLaunch.ts';

export const ORDERER_CONFIG_FILE = 'orderer.yaml';

export function ordererSettings(c: ConsortiumOrdererConfig, mspId: string, nodeDir: string): FabricSetting[] {
  const at = (p: string) => path.join(nodeDir, p);
  return [
    [['General', 'ListenAddress'], c.listenAddress],
    [['General', 'ListenPort'], c.port],
    [['General', 'TLS', 'Enabled'], true],
    [['General', 'TLS', 'PrivateKey'], at(mspPaths.tlsServerKey)],
    [['General', 'TLS', 'Certificate'], at(mspPaths.tlsServerCert)],
    [['General', 'TLS', 'RootCAs'], [at(mspPaths.tlsCa)]],
    [['General', 'TLS', 'ClientAuthRequired'], false],
    [['General', 'Cluster', 'ClientCertificate'], at(mspPaths.tlsServerCert)],
    [['General', 'Cluster', 'ClientPrivateKey'], at(mspPaths.tlsServerKey)],
    // Fabric 2.5 only: 3.x has no system channel and no bootstrap settings.
    [['General', 'BootstrapMethod'], 'none', 'ifPresent'],
    [['General', 'BootstrapFile'], '', 'ifPresent'],
    [['General', 'LocalMSPDir'], at(mspPaths.dir)],
    [['General', 'LocalMSPID'], mspId],
    [['FileLedger', 'Location'], at(`${FABRIC_DATA_DIR}/ledger`)],
    [['Consensus', 'WALDir'], at(`${FABRIC_DATA_DIR}/etcdraft/wal`)],
    [['Consensus', 'SnapDir'], at(`${FABRIC_DATA_DIR}/etcdraft/snapshot`)],
    [['Operations', 'ListenAddress'], `${c.listenAddress}:${c.operationsPort}`],
    [['Operations', 'TLS', 'Enabled'], false],
    [['Metrics', 'Provider'], 'prometheus'],
    [['Admin', 'ListenAddress'], `${c.listenAddress}:${c.adminPort}`],
    [['Admin', 'TLS', 'Enabled'], true],
    [['Admin', 'TLS', 'Certificate'], at(mspPaths.tlsServerCert)],
    [['Admin', 'TLS', 'PrivateKey'], at(mspPaths.tlsServerKey)],
    [['Admin', 'TLS', 'ClientAuthRequired'], true],
    [['Admin', 'TLS', 'ClientRootCAs'], [at(mspPaths.tlsCa)]],
    [['ChannelParticipation', 'Enabled'], true],
  ];
}

export function ordererLaunchSpec(t: ConsortiumNodeTarget, material: ConsortiumNodeMaterial, deps: FabricLaunchDeps): NodeLaunchSpec {
  const nodeKey = consortiumNodeKey(t.node.nodeId);
  const displayName = fabricDisplayName(t);
  if (t.node.role !== 'orderer' || !isOrdererConfig(t.node.config)) throw new NodeStartFailedError('invalid-spec', `Cannot start ${displayName} as an orderer: it is recorded as ${t.node.nodeType}.`, { nodeKey });
  assertNodeConfig(t, displayName);
  const nodeDir = nodeDirectory(deps.dataDir, nodeKey);
  const config = fabricConfigWith(deps.baseConfig, ordererSettings(t.node.config, t.node.mspId, nodeDir), ORDERER_CONFIG_FILE);
  const env = fabricNodeEnv();
  return {
    nodeKey,
    displayName,
    ...(deps.command ? { process: { command: deps.command, args: [], env } } : {}),
    docker: { image: 'fabric-orderer', args: ['orderer'], env },
    files: [{ path: ORDERER_CONFIG_FILE, content: config }, ...nodeMspFiles(material)],
    ports: nodePorts(t.node.config).map(([, p]) => p),
  };
}
