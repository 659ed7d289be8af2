// The latest thing the health monitor saw of a node: an observation cache, not event-sourced
// state (see migrations/0650_node_observations.sql). The health saga writes one reading per
// probe; node lists read them instead of probing every node inside the request.
import type { NodeReading } from './nodeOperations.ts';

export type NodeObservationStatus = 'healthy' | 'unreachable' | 'not_running';

/** One probe's outcome, as the health saga stores it. */
export interface ProbeOutcome extends NodeReading {
  nodeId: number;
  status: NodeObservationStatus;
  /** why the probe failed; null when healthy */
  error: string | null;
  /** ISO time of the probe */
  at: string;
}

export interface NodeObservation {
  nodeId: number;
  status: NodeObservationStatus;
  /** figures of the last probe that answered, taken at healthyAt */
  blockHeight: number | null;
  peerCount: number | null;
  healthyAt: string | null;
  error: string | null;
  /** ISO time of the latest probe, answered or not */
  observedAt: string;
}

export interface NodeObservations {
  /** Stores a probe's reading; an older reading never overwrites a newer one. */
  record(outcome: ProbeOutcome): Promise<void>;
  forget(nodeId: number): Promise<void>;
  latest(nodeIds: number[]): Promise<Map<number, NodeObservation>>;
}
