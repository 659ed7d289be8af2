// What the ledgerX explorer and namespaces need from a running network: the committer's sidecar
// (its block query service: chain info and committed blocks, each carrying its transactions'
// statuses), its query service (transaction statuses, namespace policies, the config version)
// and a router (Broadcast of a signed transaction). adapters/ledgerx/fabricXLedger.ts implements
// it over gRPC with the messages of fabric-x-common 0.2.8.
import { AppError } from '../shared/errors.ts';
import type { FabricSigner } from '../consortium/consortiumPorts.ts';

export interface LedgerXEndpoint {
  host: string;
  port: number;
}

/** A Fabric-X service (sidecar, query service, router) did not answer. */
export class LedgerXServiceUnreachableError extends AppError {
  constructor(message: string, readonly service: string) {
    super(503, 'LEDGERX_SERVICE_UNREACHABLE', message, { expose: true, extra: { service } });
  }
}

/** A Fabric-X service answered with a refusal; `fabricStatus` is its gRPC code or common.Status name. */
export class LedgerXRefusedError extends AppError {
  constructor(message: string, readonly service: string, readonly fabricStatus: string, status: 400 | 409 | 422 = 422) {
    super(status, 'LEDGERX_REFUSED', message, { extra: { service, fabricStatus } });
  }
}

/** A namespace's endorsement policy: signatures of organizations' members or admins (an MSP rule), or one key (a threshold rule). */
export type LedgerXNamespacePolicy =
  | { type: 'MSP'; principals: { mspId: string; role: 'member' | 'admin' }[]; signaturesRequired: number }
  | { type: 'THRESHOLD'; scheme: string; publicKeyPem: string | null }
  | { type: 'UNKNOWN' };

export interface LedgerXNamespace {
  name: string;
  /** The version of its policy in the meta-namespace (0 when created, +1 per update). */
  version: number;
  policy: LedgerXNamespacePolicy;
}

export interface LedgerXChainInfo {
  height: number;
  currentBlockHash: string;
  previousBlockHash: string;
}

export interface LedgerXTransaction {
  txId: string;
  /** CONFIG or MESSAGE (a Fabric-X transaction), as the envelope's channel header says. */
  type: string;
  creatorMspId: string | null;
  timestamp: string | null;
  /** committerpb.Status name from the block's TRANSACTIONS_FILTER (COMMITTED, ABORTED_MVCC_CONFLICT, ...); null when absent. */
  status: string | null;
  namespaces: { nsId: string; nsVersion: number; readsOnly: number; readWrites: number; blindWrites: number; keys: string[] }[];
}

export interface LedgerXBlock {
  number: number;
  hash: string;
  previousHash: string;
  dataHash: string;
  transactionCount: number;
  timestamp: string | null;
  transactions: LedgerXTransaction[];
}

export interface LedgerXTxStatus {
  txId: string;
  status: string;
  statusCode: number;
  blockNumber: number;
  txNumber: number;
}

export interface LedgerXLedger {
  chainInfo(sidecar: LedgerXEndpoint): Promise<LedgerXChainInfo>;
  /** null: no such block (past the height). */
  block(sidecar: LedgerXEndpoint, number: number): Promise<LedgerXBlock | null>;
  /** null: the committer never saw the transaction. */
  txStatus(query: LedgerXEndpoint, txId: string): Promise<LedgerXTxStatus | null>;
  namespaces(query: LedgerXEndpoint): Promise<LedgerXNamespace[]>;
  /** The version of the channel's config transaction (a meta-namespace transaction names it). */
  configVersion(query: LedgerXEndpoint): Promise<number>;
  /**
   * A transaction on the meta-namespace that creates `name` with `policy`: endorsed by every signer
   * (the meta-namespace's policy is the channel's LifecycleEndorsement, a majority of the
   * organizations' Endorsement policies), the envelope signed by the first, sent through the router.
   * Answers once the router accepted it; its commit is read through txStatus.
   */
  submitNamespace(req: { router: LedgerXEndpoint; channel: string; name: string; policy: Exclude<LedgerXNamespacePolicy, { type: 'UNKNOWN' }>; metaVersion: number; signers: FabricSigner[] }): Promise<{ txId: string }>;
}
