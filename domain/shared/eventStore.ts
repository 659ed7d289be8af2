// The event store port: what the domain and the command handler need from any store.
// Adapters: adapters/eventstore/postgresEventStore.ts (default), eventStoreDbEventStore.ts.

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export interface EventMetadata {
  actor?: { userId?: number | null; username?: string | null; apiKeyId?: number | null; kind?: string } | null;
  requestId?: string | null;
  ip?: string | null;
  userAgent?: string | null;
  causationId?: string | null;
  correlationId?: string | null;
  /** ISO 8601 UTC; set by the caller (the domain never reads a clock). */
  timestamp: string;
  [key: string]: JsonValue | undefined | EventMetadata['actor'];
}

export interface NewEvent {
  /** UUID. Deterministic ids (saga effects) make retries idempotent: a second append of the same id fails with DuplicateEventError. */
  id: string;
  type: string;
  data: JsonObject;
}

export interface RecordedEvent {
  /** Global position, gapless, starting at 1, in commit order. */
  position: number;
  streamId: string;
  /** Version of the stream after this event; the first event of a stream has version 1. */
  version: number;
  id: string;
  type: string;
  data: JsonObject;
  metadata: EventMetadata;
  prevHash: string;
  hash: string;
  /**
   * A stub restored from a backup taken with the audit setting include_in_backups false: the
   * position, stream, version, id and both hashes are there, type, data and metadata were left
   * out of the backup (type is WITHHELD_EVENT_TYPE, data and metadata are empty). The chain
   * links through it; its own hash cannot be recomputed. Absent on every other event.
   */
  withheld?: true;
}

/** 0 means "the stream must not exist yet"; 'any' skips the check. */
export type ExpectedVersion = number | 'any';

export interface AppendResult {
  nextVersion: number;
  lastPosition: number;
  events: RecordedEvent[];
}

export interface ChainVerification {
  ok: boolean;
  checked: number;
  fromPosition: number;
  toPosition: number;
  /** The first position whose stored hash or previous-hash link does not match the recomputation. */
  /**
   * unexpected_withheld: a withheld stub that no restore accounts for (see WITHHELD_RESTORE_EVENT):
   * after the last restore's cut, or more or fewer stubs up to it than that restore recorded.
   */
  firstMismatch?: { position: number; reason: 'hash_mismatch' | 'broken_link' | 'gap' | 'unexpected_withheld'; expected: string; actual: string };
  /** Of the positions checked, how many are withheld stubs (see RecordedEvent.withheld); absent when none. */
  withheld?: number;
}

export interface Subscription {
  close(): Promise<void>;
}

export interface EventStore {
  readonly kind: 'postgres' | 'eventstoredb';
  append(streamId: string, expectedVersion: ExpectedVersion, events: NewEvent[], metadata: EventMetadata): Promise<AppendResult>;
  /** Events of one stream from a version (inclusive, default 1), ascending. */
  readStream(streamId: string, fromVersion?: number): Promise<RecordedEvent[]>;
  /** Events with position > fromPosition, ascending, at most `limit`. */
  readAll(fromPosition: number, limit: number): Promise<RecordedEvent[]>;
  /** Current highest position (0 when empty). */
  headPosition(): Promise<number>;
  /**
   * Calls `handler` with batches of the events after `fromCheckpoint`, in order, then with new ones
   * as they are appended. A handler that throws stops the subscription and is reported through onError.
   */
  subscribe(fromCheckpoint: number, handler: (batch: RecordedEvent[]) => Promise<void>, onError?: (err: unknown) => void): Subscription;
  /** Recompute the hash chain over [fromPosition, toPosition] (inclusive). */
  verify(fromPosition: number, toPosition?: number): Promise<ChainVerification>;
  /** A cheap liveness probe for /health. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
