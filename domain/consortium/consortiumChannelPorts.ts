// What the consortium routes and sagas need to do with a channel: build its genesis block, join
// orderers and peers, read and change its configuration, read its blocks. adapters/consortium/
// implements it over Fabric's channel participation API (HTTPS) and gRPC services.
import { AppError } from '../shared/errors.ts';
import type { ChannelCapabilities } from './capabilityRules.ts';
import type { ChannelBatchSettings, ChannelGenesisInput, ChannelOrganization, ChannelPolicy, Endpoint, OrdererOrganization, FabricSigner, RaftConsenter, RaftOptions, SmartBftOptions, TlsClientIdentity } from './consortiumPorts.ts';

/** A peer or orderer did not answer (not running, port closed, TLS handshake failed, timeout). */
export class FabricNodeUnreachableError extends AppError {
  constructor(
    message: string,
    readonly node: string,
    readonly channelName: string | null,
  ) {
    super(503, 'FABRIC_NODE_UNREACHABLE', message, { expose: true, extra: { node, channelName } });
  }
}

/** A peer or orderer answered with a refusal; `fabricMessage` is what Fabric said. 409 unless Fabric called the request malformed (400). */
/**
 * Fabric answered "not now" (common.Status SERVICE_UNAVAILABLE: no raft leader yet after a join,
 * an election under way, quorum lost). The service retries such answers itself for a while; one
 * that outlasts that is a 503 with Retry-After, never a refusal.
 */
export class FabricUnavailableError extends AppError {
  constructor(
    message: string,
    readonly node: string,
    readonly channelName: string | null,
    readonly fabricStatus: string,
  ) {
    super(503, 'FABRIC_UNAVAILABLE', message, { expose: true, extra: { node, channelName, fabricStatus, retryAfterSeconds: 5 } });
  }
}

export class FabricRefusedError extends AppError {
  constructor(
    message: string,
    readonly node: string,
    readonly channelName: string | null,
    /** Fabric's status: HTTP status (participation API), common.Status name (deliver, broadcast), chaincode status, or gRPC code. */
    readonly fabricStatus: number | string | null,
    readonly fabricMessage: string,
    status: 400 | 409 = 409,
  ) {
    super(status, 'FABRIC_REFUSED', message, { extra: { node, channelName, fabricStatus, fabricMessage } });
  }
}

/** What the orderer's channel participation API says about one channel. */
export interface OrdererChannelInfo {
  name: string;
  /** "active", "onboarding", "inactive", "failed" */
  status: string;
  /** "consenter", "follower", "config-tracker", "other" */
  consensusRelation: string;
  height: number;
}

/** Decoded channel configuration in configtxlator's JSON shape (common.Config: channel_group, sequence). */
export interface ChannelConfigJson {
  channel_group: ConfigGroupJson;
  sequence: string;
}

export interface ConfigGroupJson {
  groups: Record<string, ConfigGroupJson>;
  mod_policy: string;
  policies: Record<string, { mod_policy: string; policy: { type: number; value: unknown }; version: string }>;
  values: Record<string, { mod_policy: string; value: unknown; version: string }>;
  version: string;
}

/** A config block as fetched: its number, raw bytes (for configtxlator or an import) and the decoded config. */
export interface ChannelConfigBlock {
  blockNumber: number;
  block: Uint8Array;
  config: ChannelConfigJson;
}

/** A change to the channel configuration, applied to the current config to get the desired one. */
export type ChannelConfigChange =
  | { kind: 'anchorPeers'; mspId: string; anchorPeers: { host: string; port: number }[] }
  | { kind: 'addOrganization'; organization: ChannelOrganization }
  | { kind: 'removeOrganization'; mspId: string }
  /** Policies of a group (default the Application group: SPEC's Readers/Writers/Admins). */
  | { kind: 'policies'; policies: Record<string, ChannelPolicy>; groupPath?: string[] }
  /** The Application group's ACLs: resource (e.g. qscc/GetChainInfo) to policy reference; the others kept. */
  | { kind: 'acls'; acls: Record<string, string> }
  /** The orderer's batch settings (the Orderer group's BatchTimeout and BatchSize); what is not given is kept. */
  | { kind: 'batch'; batch: Partial<ChannelBatchSettings> }
  /** An organization's MSP revocation_list (CRLs, PEM), in every group of the channel that defines the organization. */
  | { kind: 'revocationList'; mspId: string; crlPems: string[] }
  /**
   * A consenter added (its endpoint added to its organization's orderer Endpoints). etcdraft: an
   * entry of the raft metadata. BFT: a ConsenterMapping entry with the next unique id, its MSP id and
   * `identityCertPem` (required there), and the BlockValidation policy recomputed for the new set.
   */
  | { kind: 'addConsenter'; consenter: RaftConsenter; mspId: string; identityCertPem?: string }
  /** A consenter removed by host and port (its endpoint removed from its organization's Endpoints when given; BFT: BlockValidation recomputed). */
  | { kind: 'removeConsenter'; host: string; port: number; mspId?: string }
  /** A consenter's TLS certificates replaced (same host and port: Fabric's certificate rotation); BFT: its identity too when given (BlockValidation recomputed). */
  | { kind: 'replaceConsenterCertificate'; consenter: RaftConsenter; identityCertPem?: string }
  /** A BFT channel's SmartBFT options (the ConsensusType metadata): those given set, the others kept; checked as at creation. */
  | { kind: 'smartBftOptions'; options: Partial<SmartBftOptions> }
  /** An etcdraft channel's options (etcdraft.Options in the ConsensusType metadata): those given set, the others and the consenters kept; checked as Fabric does. */
  | { kind: 'raftOptions'; options: Partial<RaftOptions> }
  /** The Capabilities of /Channel, /Channel/Orderer and /Channel/Application, per level asked (capabilityRules.ts checks them first). */
  | { kind: 'capabilities'; capabilities: ChannelCapabilities }
  /** An organization's MSP: CA certificates added, explicit admins set (wherever the channel defines the organization). */
  | { kind: 'mspUpdate'; mspId: string; update: MspUpdate }
  /** An orderer organization's Endpoints (host:port of its orderers) set. */
  | { kind: 'ordererEndpoints'; mspId: string; endpoints: string[] }
  /** An orderer organization's group removed from /Channel/Orderer. */
  | { kind: 'addOrdererOrganization'; organization: OrdererOrganization }
  | { kind: 'removeOrdererOrganization'; mspId: string }
  /** The ConsensusType's State alone (type and metadata kept): maintenance (a consensus migration's phases 1 to 4), normal. */
  | { kind: 'consensusState'; state: 'normal' | 'maintenance' }
  /**
   * An etcdraft channel in maintenance switched to BFT (a consensus migration's phase 3, Fabric 3.x):
   * ConsensusType BFT with `options` (state kept: maintenance), a ConsenterMapping of the same
   * consenters (ids 1..n in the raft order, their TLS certificates byte for byte as the raft
   * metadata holds them, as Fabric's maintenance filter demands, with the MSP id and identity
   * certificate of `identities` by host:port) and BlockValidation by a quorum of those identities.
   */
  | { kind: 'migrateToBft'; options: SmartBftOptions; identities: Array<{ host: string; port: number; mspId: string; identityCertPem: string }> };

/** What an MSP update adds (PEM certificates; those the MSP has already are kept once) and, given, the admins it sets. */
export interface MspUpdate {
  rootCerts?: string[];
  intermediateCerts?: string[];
  tlsRootCerts?: string[];
  tlsIntermediateCerts?: string[];
  /** The MSP's explicit admin certificates (replacing those it has; [] removes them: NodeOUs' admin OU then alone says who is admin). */
  admins?: string[];
}

/** One difference between the channel config before and after a change (configtxlator's JSON paths; an array element added has before null, one removed after null). */
export interface ConfigDiffEntry {
  path: string;
  before: unknown;
  after: unknown;
}

/** A change computed and not submitted (dry run): the diff, the signatures it would need. */
export interface ConfigUpdatePreview {
  sequence: number;
  /** Nothing would change. */
  unchanged: boolean;
  diff: ConfigDiffEntry[];
  /** Modification policies the update must satisfy. */
  policies: string[];
  requiredOrganizations: string[];
  heldOrganizations: string[];
  missingOrganizations: string[];
  unmet: UnmetPolicy[];
}

/**
 * Whose admin signatures a config update needs, evaluated before anything is signed or submitted:
 * the modification policies it must satisfy, every organization whose admin signature those
 * policies count, the ones the signers at hand hold, and the ones still missing (any `moreNeeded`
 * of each unmet policy's would do).
 */
export interface SignatureRequirement {
  policies: string[];
  requiredOrganizations: string[];
  heldOrganizations: string[];
  missingOrganizations: string[];
  unmet: UnmetPolicy[];
}

/** A modification policy the available signers do not satisfy, and whose admins could satisfy it. */
export interface UnmetPolicy {
  /** e.g. /Channel/Application/Admins */
  policyPath: string;
  rule: string;
  /** Organizations whose admin signatures are missing (any `moreNeeded` of them would do). */
  missingOrganizations: string[];
  moreNeeded: number;
}

export type ChannelConfigUpdateResult =
  | { status: 'updated'; sequence: number; blockNumber: number; signedBy: string[]; diff: ConfigDiffEntry[] }
  /** Nothing to change: the desired config equals the current one. */
  | { status: 'unchanged'; sequence: number }
  /** Not submitted: the signers held do not satisfy the modification policy. */
  | ({ status: 'signatures-missing' } & SignatureRequirement);

export interface ChainInfo {
  height: number;
  currentBlockHash: string;
  previousBlockHash: string;
}

export interface BlockTransaction {
  txId: string;
  /** Header type name: CONFIG, ENDORSER_TRANSACTION, ... */
  type: string;
  creatorMspId: string | null;
  timestamp: string | null;
  /** Peer validation code name (VALID, MVCC_READ_CONFLICT, ...); null where the block has no filter. */
  validationCode: string | null;
}

export interface BlockSummary {
  number: number;
  /** Hex SHA-256 of the block header's ASN.1 encoding (what the next block's previous_hash holds). */
  hash: string;
  previousHash: string;
  dataHash: string;
  transactionCount: number;
  /** Timestamp of the first transaction's channel header. */
  timestamp: string | null;
}

export interface BlockDetail extends BlockSummary {
  transactions: BlockTransaction[];
}

export interface TransactionDetail extends BlockTransaction {
  blockNumber: number;
}

/** One page of blocks, newest first (the explorer's /blocks). */
export interface BlockPage {
  height: number;
  blocks: BlockSummary[];
}

/** Who is in the channel according to its config (the explorer's /map). */
export interface ChannelMembers {
  peerOrganizations: { mspId: string; anchorPeers: { host: string; port: number }[] }[];
  ordererOrganizations: { mspId: string; endpoints: string[] }[];
  consenters: { host: string; port: number }[];
  sequence: number;
}

/** A node whose Deliver service serves the channel's blocks (an orderer or a peer that joined). */
export interface ChannelBlockSource {
  kind: 'orderer' | 'peer';
  endpoint: Endpoint;
}

/** A peer to read from, with an identity of an organization that may read the channel. */
export interface PeerReader {
  peer: Endpoint;
  signer: FabricSigner;
}

/**
 * A use case's rules checked against the config an update is computed from (the one read of the
 * channel's config per update): called by the port once it has read the current config, before it
 * computes anything; what it throws is the update's answer, nothing computed or submitted.
 */
export type ConfigCheck = (config: ChannelConfigJson) => void | Promise<void>;

/** A config update prepared for signatures gathered in several places (node sharing). */
export type PreparedConfigUpdate =
  | { status: 'unchanged'; sequence: number }
  | ({ status: 'prepared'; sequence: number; updateBytes: Uint8Array; signWith: string[]; diff: ConfigDiffEntry[] } & SignatureRequirement);

/** One organization's ConfigSignature, detached from the envelope (base64 of the protobuf fields). */
export interface DetachedConfigSignature {
  mspId: string;
  signatureHeader: string;
  signature: string;
}

export interface ConsortiumChannels {
  buildGenesisBlock(input: ChannelGenesisInput): Uint8Array;
  /** Idempotent: a channel the orderer already has is answered with its current info. */
  joinOrderer(admin: Endpoint, client: TlsClientIdentity, channelName: string, genesisBlock: Uint8Array): Promise<OrdererChannelInfo>;
  listOrdererChannels(admin: Endpoint, client: TlsClientIdentity): Promise<OrdererChannelInfo[]>;
  ordererChannel(admin: Endpoint, client: TlsClientIdentity, channelName: string): Promise<OrdererChannelInfo | null>;
  /** The orderer removes the channel and its ledger (channel participation DELETE); `removed: false` when it had none. */
  leaveOrderer(admin: Endpoint, client: TlsClientIdentity, channelName: string): Promise<{ removed: boolean }>;
  /** Idempotent: a peer that already has the channel answers `alreadyJoined: true`. */
  joinPeer(peer: Endpoint, admin: FabricSigner, genesisBlock: Uint8Array): Promise<{ channelName: string; alreadyJoined: boolean }>;
  peerChannels(peer: Endpoint, signer: FabricSigner): Promise<string[]>;
  /** The newest config block, delivered by an orderer or a peer. */
  fetchConfigBlock(source: ChannelBlockSource, signer: FabricSigner, channelName: string): Promise<ChannelConfigBlock>;
  decodeChannelConfig(block: Uint8Array): ChannelConfigJson;
  /** A genesis or config block given by a caller (import): its channel, number and config; ValidationError when it is not one. */
  readConfigBlock(block: Uint8Array): ChannelConfigBlock & { channelName: string };
  /** Computes, signs (with the signers the modification policy needs), submits and waits for the new config. */
  updateChannelConfig(request: {
    orderer: Endpoint;
    /** A BFT channel's running consenters: the update goes to each of them (with `orderer`) until a quorum accepted it. */
    consenters?: Endpoint[];
    channelName: string;
    /** Several changes go into one config transaction (e.g. SPEC's body with organizations and policies). */
    change: ChannelConfigChange | ChannelConfigChange[];
    signers: FabricSigner[];
    check?: ConfigCheck;
    timeoutMs?: number;
  }): Promise<ChannelConfigUpdateResult>;
  /** Computes the update and its diff against the current config, submits nothing. */
  previewConfigUpdate(request: { orderer: Endpoint; channelName: string; change: ChannelConfigChange | ChannelConfigChange[]; signers: FabricSigner[]; check?: ConfigCheck }): Promise<ConfigUpdatePreview>;
  /** The distributed form of updateChannelConfig: prepare, sign anywhere, submit with every signature. */
  prepareConfigUpdate?(request: { orderer: Endpoint; channelName: string; change: ChannelConfigChange | ChannelConfigChange[]; signers: FabricSigner[]; check?: ConfigCheck }): Promise<PreparedConfigUpdate>;
  signConfigUpdate?(updateBytes: Uint8Array, signer: FabricSigner): Promise<DetachedConfigSignature>;
  /** The channel and the config paths the update writes (what a signer is asked to approve). */
  describeConfigUpdate?(updateBytes: Uint8Array): { channelName: string; changes: string[] };
  submitConfigUpdate?(request: { orderer: Endpoint; consenters?: Endpoint[]; channelName: string; updateBytes: Uint8Array; signatures: DetachedConfigSignature[]; submitter: FabricSigner; timeoutMs?: number }): Promise<{ sequence: number; blockNumber: number }>;
  /** The channel's current sequence and the update's policies evaluated against its current config with those organizations' signatures. */
  evaluateConfigUpdate?(request: { orderer: Endpoint; channelName: string; updateBytes: Uint8Array; signedBy: string[]; reader: FabricSigner }): Promise<{ sequence: number; requirement: SignatureRequirement }>;
  /** A signature made elsewhere verified against the channel's MSPs: the signer's organization, or a ValidationError naming why it is refused. */
  verifyDetachedSignature?(request: { orderer: Endpoint; channelName: string; updateBytes: Uint8Array; signature: { signatureHeader: string; signature: string }; reader: FabricSigner; now: Date }): Promise<DetachedConfigSignature>;
  /** The CONFIG_UPDATE file `peer channel signconfigtx -f` signs offline, and the signatures read back from a signed one. */
  configUpdateFile?(channelName: string, updateBytes: Uint8Array, signatures: DetachedConfigSignature[]): Uint8Array;
  /** The signer a ConfigSignature's header names (its certificate's subject), for display; null when it is not a SignatureHeader with a certificate. */
  signerOfConfigSignature?(signatureHeader: string): string | null;
  signaturesOfConfigUpdateFile?(file: Uint8Array, updateBytes: Uint8Array): Array<{ signatureHeader: string; signature: string }>;
  chainInfo(reader: PeerReader, channelName: string): Promise<ChainInfo>;
  block(reader: PeerReader, channelName: string, blockNumber: number): Promise<BlockDetail>;
  channelMembers(config: ChannelConfigJson): ChannelMembers;
  transaction(reader: PeerReader, channelName: string, txId: string): Promise<TransactionDetail>;
}
