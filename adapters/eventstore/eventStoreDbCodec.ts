// How a recorded event is stored as one event of the EventStoreDB log stream, and read back.
// The log stream holds every event in commit order, so log revision r is global position r + 1:
// gapless by construction, unlike $all commit positions.
//
// Layout of one log event:
//   event type = the application's type (so the server's UI and projections stay readable)
//   data       = the application's data, as is
//   metadata   = { lnm: 1, streamId, version, id, prevHash, hash, metadata: <application metadata> }
// The server event id is NOT the application's id: the server treats a repeated id at the same
// expected revision as an idempotent retry and reports success without writing, which would hide
// a duplicate written concurrently by another process. Duplicates are detected by the index instead.
import type { EventMetadata, JsonObject, RecordedEvent } from '../../domain/shared/eventStore.ts';
import type { LogEvent, NewLogEvent } from './eventStoreDbLog.ts';

export const LOG_FORMAT = 1;

export function positionOfRevision(revision: number): number {
  return revision + 1;
}

export function revisionOfPosition(position: number): number {
  return position - 1;
}

export function encodeLogEvent(e: RecordedEvent, logEventId: string): NewLogEvent {
  const metadata: JsonObject = {
    lnm: LOG_FORMAT,
    streamId: e.streamId,
    version: e.version,
    id: e.id,
    prevHash: e.prevHash,
    hash: e.hash,
    metadata: e.metadata as JsonObject,
  };
  return { logEventId, type: e.type, data: e.data, metadata };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array);
const HEX64 = /^[0-9a-f]{64}$/;

/** Why a log event cannot be read as one of ours, or null when it can. */
export function logEventProblem(ev: LogEvent): string | null {
  const m = ev.metadata;
  if (!isObject(m)) return 'metadata is not a JSON object';
  if (m.lnm !== LOG_FORMAT) return `metadata.lnm is ${JSON.stringify(m.lnm) ?? 'missing'}, expected ${LOG_FORMAT}`;
  if (typeof m.streamId !== 'string' || m.streamId === '') return 'metadata.streamId is missing';
  if (!Number.isSafeInteger(m.version) || (m.version as number) < 1) return 'metadata.version is not a positive integer';
  if (typeof m.id !== 'string' || m.id === '') return 'metadata.id is missing';
  if (typeof m.prevHash !== 'string' || !HEX64.test(m.prevHash)) return 'metadata.prevHash is not a SHA-256 hex digest';
  if (typeof m.hash !== 'string' || !HEX64.test(m.hash)) return 'metadata.hash is not a SHA-256 hex digest';
  if (!isObject(m.metadata)) return 'metadata.metadata is not a JSON object';
  if (!isObject(ev.data)) return 'data is not a JSON object';
  return null;
}

export class MalformedLogEventError extends Error {
  readonly position: number;
  constructor(logStream: string, ev: LogEvent, problem: string) {
    super(`Event at position ${positionOfRevision(ev.revision)} (revision ${ev.revision} of ${logStream}) was not written by this service: ${problem}.`);
    this.name = 'MalformedLogEventError';
    this.position = positionOfRevision(ev.revision);
  }
}

export function decodeLogEvent(ev: LogEvent, logStream: string): RecordedEvent {
  const problem = logEventProblem(ev);
  if (problem) throw new MalformedLogEventError(logStream, ev, problem);
  const m = ev.metadata as Record<string, unknown>;
  return {
    position: positionOfRevision(ev.revision),
    streamId: m.streamId as string,
    version: m.version as number,
    id: m.id as string,
    type: ev.type,
    data: ev.data as JsonObject,
    metadata: m.metadata as EventMetadata,
    prevHash: m.prevHash as string,
    hash: m.hash as string,
  };
}
