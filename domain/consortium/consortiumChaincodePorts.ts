// What the chaincode routes need from the outside: the chaincode lifecycle on real peers
// (_lifecycle), the chaincode servers, and transactions through a peer's gateway.
// adapters/consortium/consortiumChaincodes.ts implements it.
import type { NodeStatus } from '../nodes/nodeEngine.ts';
import type { ChaincodeCollection, ChaincodeSource, ChaincodeSourceFile } from './consortiumChaincode.ts';
import type { ConsortiumChaincodeNodeCreatedData } from './consortiumNode.ts';
import type { ChaincodeTlsMaterial, Endpoint, FabricSigner } from './consortiumPorts.ts';

export interface ChaincodeDefinition {
  name: string;
  version: string;
  sequence: number;
  /** A signature policy ("AND('Org1MSP.peer','Org2MSP.peer')"), a channel policy reference ("/Channel/Application/Endorsement"), or null for that reference. */
  endorsementPolicy: string | null;
  initRequired: boolean;
  collections: ChaincodeCollection[] | null;
}

export interface CommittedTx {
  txId: string;
  blockNumber: number;
  validationCode: string;
}

export interface PeerAccess {
  peer: Endpoint;
  signer: FabricSigner;
}

export interface InvokeRequest {
  /** A peer of the caller's organization whose gateway runs the transaction. */
  gateway: PeerAccess;
  channelName: string;
  chaincodeName: string;
  fn: string;
  args: string[];
  transient?: Record<string, string>;
  /** Organizations whose peers must endorse (default: the gateway's own choice from the policy). */
  endorsingOrganizations?: string[];
}

export interface InvokeResult {
  txId: string;
  result: Uint8Array;
  /** Submit only. */
  validationCode?: string;
  blockNumber?: number;
}

export interface ChaincodeServerRuntime {
  /** Whether the docker engine answers and has the image (a reference, or a software name of the image table such as "chaincode-node"). */
  checkImage(image: string): Promise<{ ok: true } | { ok: false; engineDown: boolean; reason: string }>;
  /**
   * The server of node `nodeId` on the Kubernetes cluster `hostId`, made reachable before it runs
   * (its Service): `clusterAddress` is what pods of the cluster dial (the Service's cluster IP and
   * port), `nodePortAddress` what peers outside it dial (the NodePort at the cluster's address).
   * A NodePort taken on the cluster is a NodeStartFailedError 'port-in-use'; release() removes
   * what was made (a server record that could not be written).
   */
  reserveOnCluster(hostId: number, nodeId: number, port: number): Promise<{ clusterAddress: string; nodePortAddress: string; release(): Promise<void> }>;
  /** tls: the server's key material (null: plain text), written into its own files only (a Secret on a cluster). */
  start(node: ConsortiumChaincodeNodeCreatedData, source: ChaincodeSource, tls: ChaincodeTlsMaterial | null): Promise<{ pid: number | null; containerId: string | null; startedAt: string }>;
  stop(node: ConsortiumChaincodeNodeCreatedData): Promise<void>;
  remove(node: ConsortiumChaincodeNodeCreatedData): Promise<void>;
  status(node: ConsortiumChaincodeNodeCreatedData): Promise<NodeStatus>;
  live(node: ConsortiumChaincodeNodeCreatedData, timeoutMs: number): Promise<void>;
}

export interface ConsortiumChaincodes {
  /** The ccaas package (metadata.json + code.tar.gz with connection.json; with tls its root_cert, client_cert and client_key) and its package id. */
  packageOf(label: string, address: string, tls: ChaincodeTlsMaterial | null): { bytes: Uint8Array; packageId: string };
  /** Checks that the files (null for an image source) give a runnable Node.js chaincode (package.json with main; TypeScript compiles) and that the policy parses; ValidationError otherwise. */
  checkDefinition(files: ChaincodeSourceFile[] | null, endorsementPolicy: string | null, collections: ChaincodeCollection[] | null): void;
  /** Files of a .tar.gz given as the source; ValidationError when it is not one. */
  filesOfArchive(archive: Uint8Array): ChaincodeSourceFile[];
  installed(peer: PeerAccess): Promise<{ packageId: string; label: string }[]>;
  install(peer: PeerAccess, packageBytes: Uint8Array, packageId: string): Promise<{ packageId: string; alreadyInstalled: boolean }>;
  committedDefinition(peer: PeerAccess, channelName: string, name: string): Promise<{ sequence: number; version: string; approvals: Record<string, boolean> } | null>;
  commitReadiness(peer: PeerAccess, channelName: string, definition: ChaincodeDefinition): Promise<Record<string, boolean>>;
  approveForMyOrg(request: PeerAccess & { orderer: Endpoint; consenters?: Endpoint[]; channelName: string; definition: ChaincodeDefinition; packageId: string }): Promise<CommittedTx>;
  commitDefinition(request: { endorsers: PeerAccess[]; orderer: Endpoint; consenters?: Endpoint[]; channelName: string; definition: ChaincodeDefinition }): Promise<CommittedTx>;
  /** The Init transaction (is_init) of an initRequired definition, endorsed by each peer given; null when that version was initialized already. */
  initialize(request: { endorsers: PeerAccess[]; orderer: Endpoint; consenters?: Endpoint[]; channelName: string; chaincodeName: string; fn: string | null; args: string[] }): Promise<CommittedTx | null>;
  submit(request: InvokeRequest): Promise<InvokeResult>;
  evaluate(request: InvokeRequest): Promise<InvokeResult>;
  servers: ChaincodeServerRuntime;
}
