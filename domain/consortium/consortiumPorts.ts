// What the consortium routes and sagas need from the outside world, named for the domain.
// adapters/consortium/ implements them against real Fabric 2.5 binaries (process engine) or
// images (docker engine), over Fabric's own gRPC and HTTPS APIs.
import type { LogFollower, NodeEngineKind, NodeStatus } from '../nodes/nodeEngine.ts';
import type { ConsortiumChaincodeNodeCreatedData, ConsortiumNodeCreatedData } from './consortiumNode.ts';
import { AppError } from '../shared/errors.ts';

/** Certificates (PEM) of an organization as Fabric's MSP needs them. */
export interface OrganizationMsp {
  mspId: string;
  /** Signing CA (cacerts) and TLS CA (tlscacerts). */
  signCaCertPem: string;
  tlsCaCertPem: string;
  /** The organization's admin identity (OU admin), issued by the signing CA. */
  adminCertPem: string;
}

/** What is written into a node's directory at start; the two private keys are written 0600 and never logged. */
export interface ConsortiumNodeMaterial {
  organization: OrganizationMsp;
  identityCertPem: string;
  identityKeyPem: string;
  tlsCertPem: string;
  tlsKeyPem: string;
}

export interface ConsortiumNodeTarget {
  node: ConsortiumNodeCreatedData;
  organization: { organizationId: number; name: string; mspId: string };
}

export interface ConsortiumNodeLive {
  /** What /healthz said (status OK). */
  healthy: true;
}

/** A node's ledgers as its operations endpoint reports them (the highest of its channels for the node). */
export interface ConsortiumLedgerReadings {
  blockHeight: number;
  peerCount: number;
  /** bftLeader: a BFT orderer's own consensus_BFT_is_leader (absent on raft channels and peers). */
  channels: { channel: string; blockHeight: number | null; peerCount: number | null; bftLeader?: boolean }[];
}

export interface ConsortiumNodeRuntime {
  /** Whether the Fabric binary (process: LNM_FABRIC_BIN or PATH) or image (docker) of this role is present; the reason when not. */
  available(engine: NodeEngineKind, role: 'peer' | 'orderer', fabricVersion?: string): Promise<{ ok: true } | { ok: false; reason: string }>;
  /** The Fabric releases found (LNM_FABRIC_RELEASES, LNM_FABRIC_BIN or PATH), newest first, each with the version its programs print. */
  releases(): Promise<{ version: string; binDir: string }[]>;
  /**
   * The Fabric releases the docker engine runs: versions with a peer and an orderer image tagged so
   * (lnm-fabric-peer:3.1.5), newest first; none without a Docker Engine. With `hostId`, those of
   * that node host: its Docker's images, or a cluster's images on its nodes (none when it does not answer).
   */
  imageReleases(hostId?: number): Promise<string[]>;
  portsInUse(ports: number[]): Promise<number[]>;
  /** Writes MSP, TLS and config into the node directory, then starts; throws NodeStartFailedError naming the reason. */
  start(target: ConsortiumNodeTarget, material: ConsortiumNodeMaterial): Promise<{ pid: number | null; containerId: string | null; startedAt: string }>;
  /** Restarts the running node in place (its engine's restart, e.g. a cluster's rolling restart), else stops and starts it. */
  restart?(target: ConsortiumNodeTarget, material: ConsortiumNodeMaterial): Promise<{ pid: number | null; containerId: string | null; startedAt: string }>;
  stop(target: ConsortiumNodeTarget): Promise<void>;
  /**
   * `peer node unjoin -c <channel>` on a stopped peer with its own config (FABRIC_CFG_PATH = its node
   * directory, CORE_PEER_FILESYSTEMPATH = its ledger dir): the peer drops the channel's ledger.
   * A docker engine peer (here or on a node host): a one-off container of its image on its node
   * directory or volume; a peer on a Kubernetes cluster: a one-off pod of its StatefulSet's pod
   * template on its claim (NodeEngine.runWhileStopped); an engine without that: ConflictError.
   */
  unjoinPeer(target: ConsortiumNodeTarget, channelName: string): Promise<void>;
  /**
   * `peer node rollback -c <channel> -b <blockNumber>` on a stopped peer with its own config (as
   * unjoinPeer): the peer's ledger of the channel ends at that block (its state rebuilt at the next
   * start), so it takes the blocks after it from the orderers again. `rolledBack: false` when the
   * ledger ends at or below that block already (Fabric's check). Docker engine peers as unjoinPeer.
   */
  rollbackPeer(target: ConsortiumNodeTarget, channelName: string, blockNumber: number): Promise<{ rolledBack: boolean }>;
  /**
   * The stopped node's data directory (ledger, etcdraft WAL and snapshots) copied aside as backup
   * `label` (a consensus migration's, before it changes the channel's type), replacing an older
   * backup of that label; restoreData puts it back in place of the data directory (both with
   * the node stopped), dropBackup deletes it (the node running or not). Nodes of this machine,
   * process or docker engine (a container has its node directory bound into it): copied in the node
   * directory. A node on a Docker node host (its data in its volume there): read out of the volume
   * through the host's engine into a backup here; restoreData leaves it for the node's next start,
   * which empties the volume and puts it back (as after `lnm restore`). A node on a Kubernetes
   * cluster: ConflictError.
   */
  backupData(target: ConsortiumNodeTarget, label: string): Promise<void>;
  restoreData(target: ConsortiumNodeTarget, label: string): Promise<void>;
  dropBackup(target: ConsortiumNodeTarget, label: string): Promise<void>;
  remove(target: ConsortiumNodeTarget, opts?: { deleteVolume?: boolean }): Promise<void>;
  status(target: ConsortiumNodeTarget): Promise<NodeStatus>;
  /** GET /healthz on the operations port; throws with the reason when it is not OK. */
  live(target: ConsortiumNodeTarget, timeoutMs?: number): Promise<ConsortiumNodeLive>;
  /** GET /metrics on the operations port: ledger height and peers known, per channel; throws when it does not answer. */
  ledgers(target: ConsortiumNodeTarget, timeoutMs?: number): Promise<ConsortiumLedgerReadings>;
  /**
   * The health monitor's probe: live() and ledgers() in one, both requests written together on the
   * node's kept connection. Throws as live() does; ledgers is null where /metrics alone failed.
   */
  observe(target: ConsortiumNodeTarget, timeoutMs?: number): Promise<{ live: ConsortiumNodeLive; ledgers: ConsortiumLedgerReadings | null }>;
  logs(target: ConsortiumNodeTarget, tail: number): Promise<string[]>;
  followLogs(target: ConsortiumNodeTarget, onLine: (line: string) => void, tail: number): Promise<LogFollower>;
}

/** Signs as a member of an organization (its admin); the private key stays in the key provider. */
export interface FabricSigner {
  mspId: string;
  certificatePem: string;
  /** ECDSA over SHA-256 of `message`, DER, low-S normalized (Fabric refuses high-S signatures). */
  sign(message: Uint8Array): Promise<Uint8Array>;
}

/** A client identity given out to a program that reads it from files; the caller writes the key 0600 and never logs it. */
export interface ExportedIdentity {
  keyId: number;
  mspId: string;
  certificatePem: string;
  privateKeyPem: string;
}

/** The key's provider cannot give its private key out (Vault transit, AWS KMS). */
export class IdentityNotExportableError extends AppError {
  constructor(keyId: number, provider: string) {
    super(422, 'KEY_NOT_EXPORTABLE', `Key ${keyId} is held by the ${provider} key provider, which signs but never gives a private key out; a program that reads its key from a file needs an identity whose key is in the database provider.`, {
      details: [{ field: 'keyId', message: `its key provider is ${provider}; only database-provider keys can be written to a file` }],
    });
  }
}

/** A TLS client identity for mutual TLS (the orderer's admin endpoint). Key material stays inside the adapter call. */
export interface TlsClientIdentity {
  certificatePem: string;
  privateKeyPem: string;
}

export interface Endpoint {
  host: string;
  port: number;
  /** TLS CA that issued the server's certificate. */
  tlsCaCertPem: string;
  /** Name to check the server certificate against, when not `host`. */
  serverName?: string;
}

export interface ChannelOrganization extends OrganizationMsp {
  anchorPeers?: { host: string; port: number }[];
}

export interface OrdererOrganization extends OrganizationMsp {
  /** host:port of its orderers (OrdererEndpoints of the organization). */
  endpoints: string[];
}

export interface RaftConsenter {
  host: string;
  port: number;
  clientTlsCertPem: string;
  serverTlsCertPem: string;
}

/** How a channel orders: raft (crash faults) or SmartBFT (Byzantine faults; Fabric 3.x orderers only). */
export type ConsortiumConsensus = 'etcdraft' | 'smartbft';

/** A SmartBFT consenter: Fabric's ConsenterMapping entry (common.Consenter). */
export interface BftConsenter extends RaftConsenter {
  /** 1, 2, ...: its SmartBFT id, unique in the channel. */
  id: number;
  mspId: string;
  /** Its signing identity certificate (it signs the blocks it cuts). */
  identityCertPem: string;
}

/** The SmartBFT options of a channel (smartbft.Options); every field is written (Fabric reads a missing one as zero). */
export interface SmartBftOptions {
  requestBatchMaxCount: number;
  requestBatchMaxBytes: number;
  requestBatchMaxInterval: string;
  incomingMessageBufferSize: number;
  requestPoolSize: number;
  requestForwardTimeout: string;
  requestComplainTimeout: string;
  requestAutoRemoveTimeout: string;
  requestMaxBytes: number;
  viewChangeResendInterval: string;
  viewChangeTimeout: string;
  leaderHeartbeatTimeout: string;
  leaderHeartbeatCount: number;
  collectTimeout: string;
  syncOnStart: boolean;
  speedUpViewChange: boolean;
}

/** An etcdraft channel's options (etcdraft.Options in the ConsensusType metadata, next to the consenters). */
export interface RaftOptions {
  /** A Go duration, e.g. 500ms: the time between two raft ticks. */
  tickInterval: string;
  /** Ticks without a leader's heartbeat before a follower campaigns (above heartbeatTick). */
  electionTick: number;
  /** Ticks between a leader's heartbeats. */
  heartbeatTick: number;
  /** Blocks in flight to followers, at most. */
  maxInflightBlocks: number;
  /** Bytes of blocks between two raft snapshots. */
  snapshotIntervalSize: number;
}

export interface ChannelBatchSettings {
  batchTimeout: string; // "2s"
  maxMessageCount: number; // 500
  absoluteMaxBytes: number; // 10 MiB
  preferredMaxBytes: number; // 2 MiB
}

export interface ChannelPolicy {
  type: 'ImplicitMeta' | 'Signature';
  rule: string; // "ANY Readers", "MAJORITY Admins", or "OR('Org1MSP.member')"
}

export interface ChannelGenesisInput {
  channelName: string;
  peerOrganizations: ChannelOrganization[];
  ordererOrganizations: OrdererOrganization[];
  consenters: RaftConsenter[];
  /** A BFT channel (Orderer type BFT, ConsenterMapping, capability V3_0) instead of etcdraft: its consenters and options. */
  smartBft?: { consenters: BftConsenter[]; options: SmartBftOptions };
  batch: ChannelBatchSettings;
  /** Channel-level Readers/Writers/Admins; Fabric's defaults when absent. */
  policies?: Record<string, ChannelPolicy>;
}

/**
 * Mutual TLS between the peers and a chaincode server, all issued by the owner organization's
 * TLS CA: the server presents serverCert and accepts only clients of caCert; the peers trust
 * caCert (connection.json root_cert) and present clientCert (client_cert, client_key).
 */
export interface ChaincodeTlsMaterial {
  caCertPem: string;
  serverCertPem: string;
  serverKeyPem: string;
  clientCertPem: string;
  clientKeyPem: string;
}

/**
 * Certificates and keys of organizations and nodes, assembled from the key records (event
 * store) and the organization's key provider. Private keys leave a provider only into a node's
 * directory (Fabric reads them from files) or into one TLS handshake; never into a response.
 */
export interface ConsortiumCredentials {
  organizationMsp(organizationId: number): Promise<OrganizationMsp>;
  nodeMaterial(node: ConsortiumNodeCreatedData): Promise<ConsortiumNodeMaterial>;
  /** Signs as the organization's admin identity (the key stays in its provider). */
  adminSigner(organizationId: number): Promise<FabricSigner>;
  /**
   * A client identity (an organization's ADMIN key or a node's IDENTITY key) with its private
   * key, for a program that reads it from files (a plugin's x-source consortium-key). Only the
   * database provider can give a private key out: a key in Vault or KMS is an
   * IdentityNotExportableError (422) saying so; a key that is no client identity a ValidationError.
   */
  exportIdentity(keyId: number): Promise<ExportedIdentity>;
  /** A chaincode server's TLS material (its own keys and the peers' client keys, tlsKeyId and clientTlsKeyId); null for a server without TLS. */
  chaincodeServerTls(node: ConsortiumChaincodeNodeCreatedData): Promise<ChaincodeTlsMaterial | null>;
  /** A TLS client certificate of the organization's TLS CA for its admin key: mutual TLS to its orderers' admin endpoints. */
  adminTlsClient(organizationId: number): Promise<TlsClientIdentity>;
}

export interface ConsortiumDefaults {
  engine: NodeEngineKind;
  /** First port tried for a chaincode server (LNM_CHAINCODE_PORT_FROM); 9100 when absent. */
  chaincodePortFrom?: number;
  /** The address peers reach chaincode servers at (LNM_CHAINCODE_HOST); 127.0.0.1 when absent. */
  chaincodeHost?: string;
}
