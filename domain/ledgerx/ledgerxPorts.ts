// What the ledgerX platform needs from the outside world: running Fabric-X's orderer roles
// (adapters/ledgerx/ledgerxRuntime.ts) and building a network's genesis block
// (adapters/ledgerx/ledgerxGenesis.ts).
import type { NodeStatus } from '../nodes/nodeEngine.ts';
import type { ConsortiumNodeMaterial } from '../consortium/consortiumPorts.ts';
import type { LedgerXCommitterRoleNodeCreatedData, LedgerXRoleNodeCreatedData } from './ledgerxNode.ts';
import type { OrganizationMsp } from '../consortium/consortiumPorts.ts';
import type { LogFollower } from '../nodes/nodeEngine.ts';
import type { LedgerXConsensusSettings } from './ledgerxConsensus.ts';

type AnyRole = LedgerXRoleNodeCreatedData | LedgerXCommitterRoleNodeCreatedData;

export interface LedgerXJoin {
  networkId: number;
  channel: string;
  partyId: number;
  block: Uint8Array;
}

export interface LedgerXGenesisRole {
  host: string;
  port: number;
  tlsCertPem: string;
  signCertPem: string;
}

export interface LedgerXGenesisParty {
  partyId: number;
  mspId: string;
  signCaCertPem: string;
  tlsCaCertPem: string;
  /** Known certificates of the MSP (Fabric-X identities may name a certificate by its id): the organization's admin. */
  knownCertPems?: string[];
  router: LedgerXGenesisRole;
  batcher: LedgerXGenesisRole;
  consenter: LedgerXGenesisRole;
  assembler: LedgerXGenesisRole;
}

export interface LedgerXGenesisRequest {
  channel: string;
  parties: LedgerXGenesisParty[];
  /** SmartBFT and batching settings; fabric-x-orderer's defaults when absent. */
  settings?: LedgerXConsensusSettings;
}

export interface LedgerXRuntime {
  /** arma found: LNM_FABRIC_X_BIN or PATH. */
  available(): Promise<{ ok: true } | { ok: false; reason: string }>;
  /** Block 0 of the network's channel, encoded by the service. */
  genesis(req: LedgerXGenesisRequest): Promise<Uint8Array>;
  /** The network a group joined (its block and party id), kept beside its roles' directories. */
  writeJoin(groupId: number, join: LedgerXJoin): Promise<void>;
  readJoin(groupId: number): Promise<LedgerXJoin | null>;
  removeJoin(groupId: number): Promise<void>;
  start(node: LedgerXRoleNodeCreatedData, material: ConsortiumNodeMaterial): Promise<{ pid: number | null; containerId: string | null; startedAt: string }>;
  /** A committer service; the sidecar also gets the channel's block and a client MSP. */
  startCommitter(node: LedgerXCommitterRoleNodeCreatedData, input: { databasePassword: string; client: { organization: OrganizationMsp; certPem: string; keyPem: string } | null }): Promise<{ pid: number | null; containerId: string | null; startedAt: string }>;
  stop(node: AnyRole): Promise<void>;
  /** deleteVolume: a role on a Kubernetes cluster loses its claim too (kept otherwise). */
  remove(node: AnyRole, opts?: { deleteVolume?: boolean }): Promise<void>;
  status(node: AnyRole): Promise<NodeStatus>;
  /** Orderer roles: GET /healthz on the monitoring port; committer services: gRPC health. Throws with the reason. */
  live(node: AnyRole, timeoutMs: number): Promise<void>;
  /** The block height the role exports on its /metrics: the sidecar's and the assembler's ledgers; null for the other roles (they keep none). Throws when /metrics does not answer. */
  blockHeight(node: AnyRole, timeoutMs: number): Promise<number | null>;
  logs(node: AnyRole, tail: number): Promise<string[]>;
  followLogs(node: AnyRole, onLine: (line: string) => void, tail: number): Promise<LogFollower>;
  portsInUse(ports: number[]): Promise<number[]>;
}
