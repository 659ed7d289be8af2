import type { RecordedEvent } from '../domain/shared/eventStore.ts';
import type { WorkPiece } from './workPieces.ts';

export interface SagaTimer {
  id: string;
  dueAt: string;
  payload: Record<string, unknown>;
}

export interface SagaContext {
  /** Schedule (or move) a durable timer; the same id replaces an earlier one. */
  schedule(id: string, dueAt: Date, payload?: Record<string, unknown>): Promise<void>;
  cancel(id: string): Promise<void>;
  now(): Date;
  log(msg: string, extra?: Record<string, unknown>): void;
}

/**
 * A process manager. `handle` is called at least once per event of the listed types (after a
 * crash it may be called again for the last events), so its effects must be idempotent: the
 * events it appends carry ids derived from the source event id (see sagaEventId).
 */
export interface Saga {
  name: string;
  handles: readonly string[];
  /** Where a saga that has never run starts: from the beginning of the log, or from its head. */
  startAt?: 'beginning' | 'head';
  handle(event: RecordedEvent, ctx: SagaContext): Promise<void>;
  /**
   * Optional: all events of a batch (of the listed types) at once, in log order, instead of
   * `handle` one by one. For sagas whose effects are idempotent by construction (deterministic
   * ids, inserts that ignore conflicts): no per-event processed record is kept, so after a crash
   * the batch is simply handled again.
   */
  handleBatch?(events: RecordedEvent[], ctx: SagaContext): Promise<void>;
  /**
   * Events of different partitions do not depend on each other (one node's start need not wait
   * for another's): within a batch, partitions are handled concurrently, each in log order. The
   * checkpoint moves only once the whole batch is done. Without it, events run one by one.
   */
  partitionBy?(event: RecordedEvent): string;
  /**
   * Optional: which events of the listed types are this saga's at all (a node shard's saga takes
   * only its own nodes' events, sagas/nodeShards.ts). The others are skipped without a query.
   */
  accepts?(event: RecordedEvent): boolean;
  /** The node shard whose lease this saga runs under (sagas/nodeShards.ts). */
  shard?: number;
  /** Or the piece of background work whose lease it runs under (sagas/workPieces.ts). */
  piece?: WorkPiece;
  onTimer?(timer: SagaTimer, ctx: SagaContext): Promise<void>;
}
