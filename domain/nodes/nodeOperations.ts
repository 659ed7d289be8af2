// What the lifecycle saga and the health monitor do to one node, whatever its platform: each
// platform builds these from the node's record (evm: sagas/evmNodeTarget.ts, consortium:
// sagas/consortium/consortiumNodeOperations.ts), so the sagas themselves stay neutral.
import type { NodeStatus as EngineNodeStatus } from './nodeEngine.ts';
import type { NodeRecord } from './nodeRecord.ts';

/** What a probe of a running node saw; null where the platform has no such figure. */
export interface NodeReading {
  blockHeight: number | null;
  peerCount: number | null;
}

export interface NodeOperations {
  /** Writes config and key material, then starts; throws NodeStartFailedError with the reason. */
  start(): Promise<{ pid: number | null; containerId: string | null; startedAt: string }>;
  /** Restarts the running node in place where its engine can (a cluster rolls its pod); absent: the saga stops, then starts. */
  restart?(): Promise<{ pid: number | null; containerId: string | null; startedAt: string }>;
  stop(): Promise<void>;
  /** Stops it and deletes what it had; a volume kept apart from the node (a cluster's claim) only with deleteVolume. */
  remove(opts?: { deleteVolume?: boolean }): Promise<void>;
  status(): Promise<EngineNodeStatus>;
  /**
   * Asks the node itself (JSON-RPC, /healthz); throws with the reason when it does not answer.
   * `readings: false` (the health monitor between two ledger readings): health alone, where the
   * figures cost the node a request of their own (a Fabric node's /metrics); the reading's figures
   * may then be null. A platform whose health answer carries them (EVM's JSON-RPC batch) ignores it.
   */
  probe(timeoutMs: number, opts?: { readings?: boolean }): Promise<NodeReading>;
}

/** `start` needs everything (peers, key material); `observe` only what status and probes need. */
export type NodeOperationsPurpose = 'start' | 'observe';

/** A node's operations; null when its platform is not served here or what it needs is gone. */
export type NodeOperationsFor = (node: NodeRecord, purpose: NodeOperationsPurpose) => Promise<NodeOperations | null>;

/** Dispatches to the platform that owns the record. */
export function byPlatform(platforms: Partial<Record<NodeRecord['platform'], NodeOperationsFor>>): NodeOperationsFor {
  return async (node, purpose) => platforms[node.platform]?.(node, purpose) ?? null;
}
