// The launch of one Fabric-X orderer role (`arma <router|batcher|consensus|assembler>
// --config=<dir>/local_config.yaml`) of fabric-x-orderer 1.0.x: the role's local config (the
// keys this release reads, as armageddon writes them), its MSP and TLS folders from the
// organization's CAs (fabricMsp.ts), the party's bootstrap (genesis) block, and its store.
//
// Orderer 1.0.x reads its monitoring port from Operations.ListenPort (older releases read
// General.MonitoringListenPort; the yaml is parsed loosely, so a wrong key gives a random port):
// this writes Operations.ListenAddress and Operations.ListenPort. Routers and assemblers speak
// plain gRPC to clients (as armageddon's UseTLSRouter/UseTLSAssembler "none"); batchers and
// consenters use TLS among the party's roles.
import path from 'node:path';
import { stringify } from 'yaml';
import type { NodeFile, NodeLaunchSpec } from '../../domain/nodes/nodeEngine.ts';
import type { ConsortiumNodeMaterial } from '../../domain/consortium/consortiumPorts.ts';
import type { LedgerXRoleNodeCreatedData } from '../../domain/ledgerx/ledgerxNode.ts';
import { mspPaths, nodeMspFiles } from '../consortium/fabricMsp.ts';
import { nodeDirectory } from '../engines/nodeDirectory.ts';

export const ARMA_CONFIG_FILE = 'local_config.yaml';
export const ARMA_BLOCK_FILE = 'bootstrap.block';
/** The arma subcommand of each role. */
export const armaCommand = { router: 'router', batcher: 'batcher', consenter: 'consensus', assembler: 'assembler' } as const;

export interface ArmaJoin {
  partyId: number;
  block: Uint8Array;
}

/** The local config yaml of a role, paths absolute under its node directory. */
export function armaLocalConfig(node: LedgerXRoleNodeCreatedData, partyId: number, nodeDir: string, listenAddress = '0.0.0.0'): string {
  const at = (p: string) => path.join(nodeDir, p);
  const role = node.role;
  const internalTls = role === 'batcher' || role === 'consenter';
  const general: Record<string, unknown> = {
    ListenAddress: listenAddress,
    ListenPort: node.config.grpcPort,
    TLS: { Enabled: internalTls, PrivateKey: at(mspPaths.tlsServerKey), Certificate: at(mspPaths.tlsServerCert), RootCAs: [at(mspPaths.tlsCa)], ClientAuthRequired: false },
    Keepalive: { ClientInterval: '1m0s', ClientTimeout: '20s', ServerInterval: '2h0m0s', ServerTimeout: '20s', ServerMinInterval: '1m0s' },
    Backoff: { BaseDelay: '1s', Multiplier: 1.6, MaxDelay: '2m0s' },
    MaxRecvMsgSize: 104857600,
    MaxSendMsgSize: 104857600,
    Bootstrap: { Method: 'block', File: at(ARMA_BLOCK_FILE) },
  };
  if (role === 'consenter') {
    general.Cluster = {
      SendBufferSize: 2000, ClientCertificate: at(mspPaths.tlsServerCert), ClientPrivateKey: at(mspPaths.tlsServerKey), RPCTimeout: '1m0s',
      ReplicationBufferSize: 52428800, ReplicationMaxRetryInterval: '10s', ReplicationMinRetryInterval: '200ms', ReplicationMaxRetryDuration: '1m0s', CertExpirationWarningThreshold: '168h0m0s',
    };
  }
  Object.assign(general, { LocalMSPDir: at(mspPaths.dir), LocalMSPID: node.mspId, BCCSP: { Default: 'SW', SW: { Security: 256, Hash: 'SHA2' } }, LogSpec: 'info' });
  const doc: Record<string, unknown> = { PartyID: partyId, General: general, FileStore: { Location: at('store') } };
  if (role === 'router') doc.Router = { NumberOfConnectionsPerBatcher: 10, NumberOfStreamsPerConnection: 5 };
  if (role === 'batcher') doc.Batcher = { ShardID: 1, BatchSequenceGap: 10, MemPoolMaxSize: 1000000, SubmitTimeout: '500ms' };
  if (role === 'consenter') doc.Consensus = { WALDir: at('store/wal') };
  if (role === 'assembler') doc.Assembler = { PrefetchBufferMemoryBytes: 1073741824, RestartLedgerScanTimeout: '5s', PrefetchEvictionTtl: '1h0m0s', PopWaitMonitorTimeout: '1s', ReplicationChannelSize: 100, BatchRequestsChannelSize: 1000 };
  doc.Operations = { ListenAddress: listenAddress, ListenPort: node.config.monitoringPort, TLS: { Enabled: false, ClientAuthRequired: false } };
  doc.Metrics = { Provider: 'prometheus', MetricsLogInterval: '10s' };
  return stringify(doc);
}

export function armaLaunchSpec(node: LedgerXRoleNodeCreatedData, material: ConsortiumNodeMaterial, join: ArmaJoin, deps: { dataDir: string; arma: string; nodeKey: string; displayName: string }): NodeLaunchSpec {
  const nodeDir = nodeDirectory(deps.dataDir, deps.nodeKey);
  const files: NodeFile[] = [
    ...nodeMspFiles(material),
    { path: ARMA_BLOCK_FILE, content: join.block },
    { path: ARMA_CONFIG_FILE, content: armaLocalConfig(node, join.partyId, nodeDir) },
  ];
  return {
    nodeKey: deps.nodeKey,
    displayName: deps.displayName,
    process: { command: deps.arma, args: [armaCommand[node.role], `--config=${path.join(nodeDir, ARMA_CONFIG_FILE)}`] },
    // The docker engine binds the node directory at the same path, so the same paths hold.
    docker: { image: 'fabric-x-arma', args: ['arma', armaCommand[node.role], `--config=${path.join(nodeDir, ARMA_CONFIG_FILE)}`] },
    files,
    ports: [node.config.grpcPort, node.config.monitoringPort],
  };
}
