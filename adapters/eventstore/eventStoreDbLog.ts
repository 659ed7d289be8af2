// The one thing the EventStoreDB adapter needs from the server: a single append-only stream
// (the log) with compare-and-swap appends. Kept this narrow so the store's ordering, version and
// hash-chain logic (eventStoreDbLogStore.ts) does not depend on the client library.
import type { JsonObject } from '../../domain/shared/eventStore.ts';

/** An event as read back from the log; `revision` is its 0-based place in the log stream. */
export interface LogEvent {
  revision: number;
  /** The server-side event id (not the application's event id, see eventStoreDbCodec.ts). */
  logEventId: string;
  type: string;
  /** Parsed JSON for JSON events, raw bytes otherwise. */
  data: unknown;
  metadata: unknown;
}

export interface NewLogEvent {
  logEventId: string;
  type: string;
  data: JsonObject;
  metadata: JsonObject;
}

export interface EventLog {
  /**
   * Appends only if the log's last revision is `afterRevision` (-1: the log must not exist yet).
   * 'conflict' means another writer got there first and nothing was written.
   */
  append(afterRevision: number, events: NewLogEvent[]): Promise<'ok' | 'conflict'>;
  /** Events with revision >= fromRevision, ascending, at most maxCount; [] past the end or when the log does not exist. */
  read(fromRevision: number, maxCount: number): Promise<LogEvent[]>;
  /** The last revision, -1 when the log is empty or does not exist. */
  lastRevision(): Promise<number>;
  /** Calls onAppend (at least once) after events are appended by anyone; best effort, callers also poll. */
  watch(onAppend: () => void): { close(): Promise<void> };
  close(): Promise<void>;
}
