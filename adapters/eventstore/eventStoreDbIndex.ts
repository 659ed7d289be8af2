// An in-memory index of the log: stream versions, event ids seen, each stream's positions and the
// last hash. It is a pure function of the log prefix it has applied, so a check made against an
// index at head h is exactly the check the log would give at h; the log's compare-and-swap append
// (expected revision h - 1) then proves no one wrote in between. That is what makes per-stream
// versions and duplicate ids safe across processes without multi-stream transactions.
import { chainHash, GENESIS_HASH } from '../../domain/shared/eventChain.ts';
import type { EventMetadata, ExpectedVersion, NewEvent, RecordedEvent } from '../../domain/shared/eventStore.ts';

export interface LogIndex {
  /** Highest position applied (0: nothing). */
  head: number;
  /** Hash of the event at `head` (the genesis hash when empty). */
  lastHash: string;
  /** Positions of each stream's events, in version order (version v is at index v - 1). */
  streams: Map<string, number[]>;
  ids: Set<string>;
}

export function emptyIndex(): LogIndex {
  return { head: 0, lastHash: GENESIS_HASH, streams: new Map(), ids: new Set() };
}

export function streamVersion(index: LogIndex, streamId: string): number {
  return index.streams.get(streamId)?.length ?? 0;
}

/** Adds events that follow the head directly; anything else means the caller lost track of the log. */
export function applyToIndex(index: LogIndex, events: RecordedEvent[]): void {
  for (const e of events) {
    if (e.position !== index.head + 1) throw new Error(`log index at position ${index.head} cannot apply position ${e.position}`);
    let positions = index.streams.get(e.streamId);
    if (!positions) index.streams.set(e.streamId, (positions = []));
    // Versions come from the log as written; a foreign event with an odd version still takes
    // its place so the index never disagrees with what readStream returns.
    positions.push(e.position);
    index.ids.add(e.id);
    index.head = e.position;
    index.lastHash = e.hash;
  }
}

/**
 * Takes back events applied on top of the index (planned for a batch whose compare-and-swap then
 * failed): the index returns to `head` and `lastHash` as they were before.
 */
export function unapplyFromIndex(index: LogIndex, events: RecordedEvent[], head: number, lastHash: string): void {
  for (const e of [...events].reverse()) {
    const positions = index.streams.get(e.streamId);
    if (positions?.[positions.length - 1] !== e.position) throw new Error(`log index cannot take back position ${e.position}`);
    positions.pop();
    if (positions.length === 0) index.streams.delete(e.streamId);
    index.ids.delete(e.id);
  }
  index.head = head;
  index.lastHash = lastHash;
}

export type AppendPlan =
  | { kind: 'ok'; records: RecordedEvent[] }
  | { kind: 'wrong_version'; actual: number }
  | { kind: 'duplicate'; eventId: string };

/** What appending would record at the index's head: positions, versions and the hash chain. */
export function planAppend(index: LogIndex, streamId: string, expected: ExpectedVersion, events: NewEvent[], metadata: EventMetadata): AppendPlan {
  const actual = streamVersion(index, streamId);
  if (expected !== 'any' && expected !== actual) return { kind: 'wrong_version', actual };
  const inBatch = new Set<string>();
  for (const e of events) {
    if (index.ids.has(e.id) || inBatch.has(e.id)) return { kind: 'duplicate', eventId: e.id };
    inBatch.add(e.id);
  }
  let prevHash = index.lastHash;
  const records = events.map((e, i) => {
    const base = { position: index.head + 1 + i, streamId, version: actual + 1 + i, id: e.id, type: e.type, data: e.data, metadata };
    const hash = chainHash(prevHash, base);
    const rec: RecordedEvent = { ...base, prevHash, hash };
    prevHash = hash;
    return rec;
  });
  return { kind: 'ok', records };
}
