// The launch of one Fabric-X committer service (`committer start <service> --config=<yaml>`) of
// fabric-x-committer 1.0.x: server.endpoint, monitoring.endpoint (its /metrics port), and per
// service what it calls (coordinator: verifier and vc; sidecar: the coordinator, the orderers
// found in the channel's config block, a client MSP), the database (vc, query) and the ledger
// directory (sidecar). TLS is off between the services, as in Fabric-X's samples. On this machine
// the services call one another at 127.0.0.1; on a Kubernetes cluster (config.hostId) each is a
// pod and they call one another at the cluster's node address, their ports being NodePorts there.
import path from 'node:path';
import { stringify } from 'yaml';
import type { NodeFile, NodeLaunchSpec } from '../../domain/nodes/nodeEngine.ts';
import { ledgerXNodeHost, type LedgerXCommitterRoleNodeCreatedData } from '../../domain/ledgerx/ledgerxNode.ts';
import { nodeDirectory } from '../engines/nodeDirectory.ts';

export const COMMITTER_CONFIG_FILE = 'committer.yaml';
export const COMMITTER_BLOCK_FILE = 'bootstrap.block';

export interface CommitterLaunchInput {
  block: Uint8Array;
  databasePassword: string;
  /** The sidecar's client MSP folder (msp/...), from the organization's admin identity. */
  clientMsp: NodeFile[];
  listenAddress?: string;
}

export function committerConfig(node: LedgerXCommitterRoleNodeCreatedData, nodeDir: string, input: Pick<CommitterLaunchInput, 'databasePassword' | 'listenAddress'>): string {
  const c = node.config;
  const host = input.listenAddress ?? '0.0.0.0';
  const peerHost = ledgerXNodeHost(c);
  const service = (p: number) => `${peerHost}:${p}`;
  const doc: Record<string, unknown> = {
    server: { endpoint: `${host}:${c.grpcPort}` },
    monitoring: { endpoint: `${host}:${c.monitoringPort}` },
  };
  const database = { endpoints: [`${c.database.host}:${c.database.port}`], username: c.database.user, password: input.databasePassword, database: c.database.name, 'load-balance': false };
  if (node.role === 'vc' || node.role === 'query') doc.database = database;
  if (node.role === 'coordinator') {
    doc.verifier = { endpoints: [service(c.groupPorts.verifier)] };
    doc['validator-committer'] = { endpoints: [service(c.groupPorts.vc)] };
  }
  if (node.role === 'sidecar') {
    doc.orderer = { 'fault-tolerance-level': 'BFT', 'latest-known-config-block-path': path.join(nodeDir, COMMITTER_BLOCK_FILE), identity: { 'msp-id': node.mspId, 'msp-dir': path.join(nodeDir, 'msp') } };
    doc.committer = { endpoint: service(c.groupPorts.coordinator) };
    doc.ledger = { path: path.join(nodeDir, 'ledger') };
  }
  doc.logging = { logSpec: 'info' };
  return stringify(doc);
}

export function committerLaunchSpec(node: LedgerXCommitterRoleNodeCreatedData, input: CommitterLaunchInput, deps: { dataDir: string; committer: string; nodeKey: string; displayName: string }): NodeLaunchSpec {
  const nodeDir = nodeDirectory(deps.dataDir, deps.nodeKey);
  const files: NodeFile[] = [{ path: COMMITTER_CONFIG_FILE, content: committerConfig(node, nodeDir, input), secret: node.role === 'vc' || node.role === 'query' }];
  if (node.role === 'sidecar') files.push({ path: COMMITTER_BLOCK_FILE, content: input.block }, ...input.clientMsp);
  return {
    nodeKey: deps.nodeKey,
    displayName: deps.displayName,
    process: { command: deps.committer, args: ['start', node.role, `--config=${path.join(nodeDir, COMMITTER_CONFIG_FILE)}`] },
    docker: { image: 'fabric-x-committer', args: ['committer', 'start', node.role, `--config=${path.join(nodeDir, COMMITTER_CONFIG_FILE)}`] },
    files,
    ports: [node.config.grpcPort, node.config.monitoringPort],
  };
}
