// One chaincode definition of a consortium network as an aggregate (stream chaincode-<id>): a
// name and version on the network's channel, with its sequence, endorsement policy and source
// (a Node.js chaincode's files). What happened to it on the real peers is recorded as it
// happens: installed on a peer (the package id), approved by an organization (its transaction),
// committed (blockchain.chaincode.deployed, or .upgraded for a sequence above 1), the chaincode
// server assigned (a node of its own), and for a definition that requires it the Init
// transaction sent (its transaction; Fabric refuses every other invoke until then). A new version of a committed chaincode is a new record
// with the next sequence. Invocations go to chaincode-<id>-invocations (blockchain.chaincode.invoked).
import { ConflictError, NotFoundError, ValidationError, type FieldIssue } from '../shared/errors.ts';
import { assertNever, type Decider, type DomainEvent } from '../shared/decider.ts';

export const chaincodeStream = (chaincodeId: number) => `chaincode-${chaincodeId}`;
export const chaincodeInvocationsStream = (chaincodeId: number) => `chaincode-${chaincodeId}-invocations`;

/** Fabric's chaincode name rule (lifecycle: ^[a-zA-Z0-9]+([-_][a-zA-Z0-9]+)*$). */
export const CHAINCODE_NAME = /^[a-zA-Z0-9]+([-_][a-zA-Z0-9]+)*$/;
/** Fabric's chaincode version rule (^[A-Za-z0-9_.+-]+$). */
export const CHAINCODE_VERSION = /^[A-Za-z0-9_.+-]+$/;
/** Reserved names: the system chaincodes. */
const RESERVED = new Set(['_lifecycle', 'lscc', 'cscc', 'qscc', 'escc', 'vscc']);

export interface ChaincodeSourceFile {
  path: string;
  content: string;
}

/**
 * Where the chaincode server's code comes from: a Node.js chaincode's files (run by the service
 * with fabric-shim, as a process or in the chaincode-node image), or a container image that runs a
 * chaincode server itself (Fabric's chaincode-as-a-service images: it reads CHAINCODE_ID and
 * CHAINCODE_SERVER_ADDRESS), always under the docker engine.
 */
export type ChaincodeSource = { kind: 'files'; files: ChaincodeSourceFile[] } | { kind: 'image'; image: string };

/** An image reference as Docker takes it: [registry[:port]/]name[:tag][@digest], lower-case name. */
export const IMAGE_REFERENCE = /^(?:[a-zA-Z0-9](?:[a-zA-Z0-9.-]*[a-zA-Z0-9])?(?::\d+)?\/)?[a-z0-9]+(?:[._-][a-z0-9]+)*(?:\/[a-z0-9]+(?:[._-][a-z0-9]+)*)*(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(?:@sha256:[a-f0-9]{64})?$/;

/** One private data collection, as Fabric's collections_config.json gives it. */
export interface ChaincodeCollection {
  name: string;
  /** Signature policy of the member organizations: OR('Org1MSP.member','Org2MSP.member'). */
  policy: string;
  requiredPeerCount: number;
  maxPeerCount: number;
  /** Blocks after which private data is purged; 0 keeps it. */
  blockToLive: number;
  memberOnlyRead: boolean;
  memberOnlyWrite: boolean;
}

export interface ChaincodeRegisteredData {
  chaincodeId: number;
  networkId: number;
  channelName: string;
  name: string;
  version: string;
  sequence: number;
  language: 'node';
  /** Signature policy text, a channel policy reference, or null for the channel's /Channel/Application/Endorsement. */
  endorsementPolicy: string | null;
  initRequired: boolean;
  /**
   * initRequired only: the Init transaction's function and args (fabric-contract-api calls that
   * transaction; no function runs its default initiator). Absent in records made before it existed.
   */
  init?: { function: string | null; args: string[] } | null;
  /** Private data collections (Fabric's collections_config.json shape), part of the definition. */
  collections: ChaincodeCollection[] | null;
  source: ChaincodeSource;
  /**
   * Whether the peers dial the chaincode server over mutual TLS (its server certificate and the
   * peers' client certificate issued by the owner organization's TLS CA). Set on records made
   * since it existed (default true); absent in older ones: plain text.
   */
  tls?: boolean;
  /**
   * The operator's choice of where the chaincode server runs: a registered Kubernetes cluster
   * (its NodePort reached by peers outside it); absent: with the owner organization's peers.
   */
  placement?: { hostId: number } | null;
  /** The record of the previous version on this network (an upgrade), or null. */
  previousChaincodeId: number | null;
  /** A definition another instance shared through node sharing (its org approves it here), or absent. */
  sharedFrom?: { sharingPeerId: number; instanceId: string; chaincodeId: number } | null;
  at: string;
}

export type ChaincodeEvent =
  | DomainEvent<'ChaincodeRegistered', ChaincodeRegisteredData>
  | DomainEvent<'ChaincodeServerAssigned', { chaincodeId: number; name: string; nodeId: number; address: string; packageId: string; at: string }>
  | DomainEvent<'ChaincodeInstalled', { chaincodeId: number; name: string; networkId: number; peerId: number; peerName: string; mspId: string; packageId: string; at: string }>
  | DomainEvent<'ChaincodeApproved', { chaincodeId: number; name: string; networkId: number; mspId: string; sequence: number; txId: string | null; blockNumber: number | null; at: string }>
  | DomainEvent<'ChaincodeDeployed', ChaincodeCommittedData>
  | DomainEvent<'ChaincodeUpgraded', ChaincodeCommittedData>
  | DomainEvent<'ChaincodeInitialized', { chaincodeId: number; name: string; networkId: number; version: string; function: string | null; txId: string | null; blockNumber: number | null; at: string }>;

export interface ChaincodeCommittedData {
  chaincodeId: number;
  networkId: number;
  name: string;
  version: string;
  sequence: number;
  packageId: string;
  txId: string | null;
  blockNumber: number | null;
  approvedBy: string[];
  at: string;
}

export type ChaincodeCommand =
  | ({ type: 'RegisterChaincode' } & ChaincodeRegisteredData)
  | { type: 'AssignChaincodeServer'; chaincodeId: number; nodeId: number; address: string; packageId: string; at: string }
  | { type: 'RecordChaincodeInstalled'; chaincodeId: number; peerId: number; peerName: string; mspId: string; packageId: string; at: string }
  | { type: 'RecordChaincodeApproved'; chaincodeId: number; mspId: string; txId: string | null; blockNumber: number | null; at: string }
  | { type: 'RecordChaincodeCommitted'; chaincodeId: number; txId: string | null; blockNumber: number | null; approvedBy: string[]; at: string }
  | { type: 'RecordChaincodeInitialized'; chaincodeId: number; txId: string | null; blockNumber: number | null; at: string };

export interface ChaincodeState {
  chaincode: ChaincodeRegisteredData | null;
  server: { nodeId: number; address: string; packageId: string } | null;
  installedOn: Record<string, string>;
  approvedBy: string[];
  committed: { txId: string | null; blockNumber: number | null } | null;
  initialized: { txId: string | null; blockNumber: number | null } | null;
}

export function chaincodeRequestIssues(c: { name: string; version: string; sequence?: number }): FieldIssue[] {
  const issues: FieldIssue[] = [];
  if (!CHAINCODE_NAME.test(c.name) || RESERVED.has(c.name)) issues.push({ field: 'name', message: 'must be letters and digits, groups joined by single "-" or "_" (Fabric\'s rule), and not a system chaincode' });
  if (!CHAINCODE_VERSION.test(c.version)) issues.push({ field: 'version', message: 'must be letters, digits, ".", "_", "+" or "-" (Fabric\'s rule)' });
  if (c.sequence !== undefined && (!Number.isInteger(c.sequence) || c.sequence < 1)) issues.push({ field: 'sequence', message: 'must be an integer from 1' });
  return issues;
}

function existing(state: ChaincodeState, id: number): ChaincodeRegisteredData {
  if (!state.chaincode) throw new NotFoundError('Chaincode', id);
  return state.chaincode;
}

export const consortiumChaincode: Decider<ChaincodeState, ChaincodeCommand, ChaincodeEvent> = {
  initialState: () => ({ chaincode: null, server: null, installedOn: {}, approvedBy: [], committed: null, initialized: null }),

  evolve(state, e) {
    switch (e.type) {
      case 'ChaincodeRegistered':
        return { ...state, chaincode: e.data };
      case 'ChaincodeServerAssigned':
        return { ...state, server: { nodeId: e.data.nodeId, address: e.data.address, packageId: e.data.packageId } };
      case 'ChaincodeInstalled':
        return { ...state, installedOn: { ...state.installedOn, [String(e.data.peerId)]: e.data.packageId } };
      case 'ChaincodeApproved':
        return { ...state, approvedBy: [...new Set([...state.approvedBy, e.data.mspId])] };
      case 'ChaincodeDeployed':
      case 'ChaincodeUpgraded':
        return { ...state, committed: { txId: e.data.txId, blockNumber: e.data.blockNumber } };
      case 'ChaincodeInitialized':
        return { ...state, initialized: { txId: e.data.txId, blockNumber: e.data.blockNumber } };
      default:
        return assertNever(e);
    }
  },

  decide(c, state) {
    switch (c.type) {
      case 'RegisterChaincode': {
        if (state.chaincode) throw new ConflictError(`Chaincode ${c.chaincodeId} already exists.`);
        const issues = chaincodeRequestIssues(c);
        if (c.init && !c.initRequired) issues.push({ field: 'init', message: 'only for a chaincode with initRequired true' });
        if (c.source.kind === 'files' && !c.source.files.length) issues.push({ field: 'source.files', message: 'give at least package.json and the chaincode\'s main file' });
        if (c.source.kind === 'image' && (c.source.image.length > 255 || !IMAGE_REFERENCE.test(c.source.image))) issues.push({ field: 'source.image', message: 'must be an image reference such as lnm-chaincode-asset-registry:local or registry.example.com/team/cc:1.0' });
        if (issues.length) throw new ValidationError(`Invalid chaincode: ${issues.map((i) => `${i.field} ${i.message}`).join('; ')}.`, issues);
        const { type: _t, ...data } = c;
        return [{ type: 'ChaincodeRegistered', data }];
      }
      case 'AssignChaincodeServer': {
        const cc = existing(state, c.chaincodeId);
        if (state.server) return [];
        return [{ type: 'ChaincodeServerAssigned', data: { chaincodeId: cc.chaincodeId, name: cc.name, nodeId: c.nodeId, address: c.address, packageId: c.packageId, at: c.at } }];
      }
      case 'RecordChaincodeInstalled': {
        const cc = existing(state, c.chaincodeId);
        if (state.installedOn[String(c.peerId)] === c.packageId) return [];
        return [{ type: 'ChaincodeInstalled', data: { chaincodeId: cc.chaincodeId, name: cc.name, networkId: cc.networkId, peerId: c.peerId, peerName: c.peerName, mspId: c.mspId, packageId: c.packageId, at: c.at } }];
      }
      case 'RecordChaincodeApproved': {
        const cc = existing(state, c.chaincodeId);
        if (state.approvedBy.includes(c.mspId)) return [];
        return [{ type: 'ChaincodeApproved', data: { chaincodeId: cc.chaincodeId, name: cc.name, networkId: cc.networkId, mspId: c.mspId, sequence: cc.sequence, txId: c.txId, blockNumber: c.blockNumber, at: c.at } }];
      }
      case 'RecordChaincodeCommitted': {
        const cc = existing(state, c.chaincodeId);
        if (state.committed) return [];
        if (!state.server) throw new ConflictError(`Chaincode ${cc.name} ${cc.version} has no package yet: install it first.`);
        const data: ChaincodeCommittedData = { chaincodeId: cc.chaincodeId, networkId: cc.networkId, name: cc.name, version: cc.version, sequence: cc.sequence, packageId: state.server.packageId, txId: c.txId, blockNumber: c.blockNumber, approvedBy: c.approvedBy, at: c.at };
        return [{ type: cc.sequence > 1 ? 'ChaincodeUpgraded' : 'ChaincodeDeployed', data }];
      }
      case 'RecordChaincodeInitialized': {
        const cc = existing(state, c.chaincodeId);
        if (!cc.initRequired) throw new ConflictError(`Chaincode ${cc.name} ${cc.version} does not require Init.`);
        if (!state.committed) throw new ConflictError(`Chaincode ${cc.name} ${cc.version} is not committed yet: Init comes after the commit.`);
        if (state.initialized) return [];
        return [{ type: 'ChaincodeInitialized', data: { chaincodeId: cc.chaincodeId, name: cc.name, networkId: cc.networkId, version: cc.version, function: cc.init?.function ?? null, txId: c.txId, blockNumber: c.blockNumber, at: c.at } }];
      }
      default:
        return assertNever(c);
    }
  },
};
