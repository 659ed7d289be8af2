// The EventStoreDB/KurrentDB event store (EVENT_STORE=eventstoredb): every event in one log
// stream, so positions are gapless and one hash chain covers everything. Design: docs/eventstoredb.md.
import { randomUUID } from 'node:crypto';
import { KurrentDBClient } from '@kurrent/kurrentdb-client';
import './protobufStatusShim.ts';
import type { EventStore } from '../../domain/shared/eventStore.ts';
import { clientLog } from './eventStoreDbClientLog.ts';
import { logEventStore } from './eventStoreDbLogStore.ts';

export const DEFAULT_LOG_STREAM = 'lnm-log';

export interface EventStoreDbOptions {
  /** The stream holding every event; tests use a fresh one per run. */
  logStream?: string;
  pollIntervalMs?: number;
  /** Delay before re-opening the server subscription that wakes subscribers after it drops. */
  resubscribeMs?: number;
}

/** `url`: a KurrentDB connection string, e.g. kurrentdb://127.0.0.1:2113?tls=false (esdb:// works too). */
export function eventStoreDbEventStore(url: string, opts: EventStoreDbOptions = {}): EventStore {
  const client = KurrentDBClient.connectionString(url);
  const logStream = opts.logStream ?? DEFAULT_LOG_STREAM;
  return logEventStore(clientLog(client, logStream, { resubscribeMs: opts.resubscribeMs }), {
    logStream,
    newLogEventId: randomUUID,
    pollIntervalMs: opts.pollIntervalMs,
    // Writers that keep losing the race spread out instead of retrying in lock step.
    backoff: (attempt) => new Promise((resolve) => setTimeout(resolve, Math.min(200, 2 ** attempt) * Math.random())),
  });
}
