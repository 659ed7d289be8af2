// The log (eventStoreDbLog.ts) on one EventStoreDB/KurrentDB stream, through the KurrentDB
// Node.js client: appends with an expected revision, forward reads, and a live subscription
// used only as a wake-up signal.
import {
  BACKWARDS,
  END,
  ErrorType,
  FORWARDS,
  jsonEvent,
  type KurrentDBClient,
  NO_STREAM,
  StreamNotFoundError,
  WrongExpectedVersionError,
} from '@kurrent/kurrentdb-client';
import './protobufStatusShim.ts';
import { UnavailableError } from '../../domain/shared/errors.ts';
import type { EventLog, LogEvent } from './eventStoreDbLog.ts';

const isStreamNotFound = (err: unknown) => err instanceof StreamNotFoundError || (err as { type?: unknown })?.type === ErrorType.STREAM_NOT_FOUND;
const isWrongExpectedVersion = (err: unknown) =>
  err instanceof WrongExpectedVersionError || (err as { type?: unknown })?.type === ErrorType.WRONG_EXPECTED_VERSION;

const UNREACHABLE = new Set<unknown>([ErrorType.UNAVAILABLE, ErrorType.DEADLINE_EXCEEDED, ErrorType.NOT_LEADER, ErrorType.TIMEOUT]);

// Appends can also fail with a bare gRPC status: 14 UNAVAILABLE, 4 DEADLINE_EXCEEDED.
const UNREACHABLE_GRPC = new Set<unknown>([14, 4]);

/** Server outages become 503s; the message names no address, since the URL may carry credentials. */
function unreachable(err: unknown): unknown {
  const e = err as { type?: unknown; code?: unknown };
  if (!UNREACHABLE.has(e?.type) && !UNREACHABLE_GRPC.has(e?.code)) return err;
  return new UnavailableError('The EventStoreDB/KurrentDB server is unreachable.', { reason: String(e.type ?? `grpc status ${e.code}`) });
}

export interface ClientLogOptions {
  /** Delay before re-opening the wake-up subscription after it drops. */
  resubscribeMs?: number;
}

export function clientLog(client: KurrentDBClient, stream: string, opts: ClientLogOptions = {}): EventLog {
  async function readRaw(options: Parameters<KurrentDBClient['readStream']>[1]): Promise<LogEvent[]> {
    const out: LogEvent[] = [];
    try {
      for await (const resolved of client.readStream(stream, options)) {
        const e = resolved.event;
        if (!e) continue;
        out.push({ revision: Number(e.revision), logEventId: e.id, type: e.type, data: e.data, metadata: e.metadata });
      }
    } catch (err) {
      if (isStreamNotFound(err)) return [];
      throw unreachable(err);
    }
    return out;
  }

  return {
    async append(afterRevision, events) {
      try {
        await client.appendToStream(
          stream,
          events.map((e) => jsonEvent({ id: e.logEventId, type: e.type, data: e.data, metadata: e.metadata })),
          { streamState: afterRevision < 0 ? NO_STREAM : BigInt(afterRevision) },
        );
        return 'ok';
      } catch (err) {
        if (isWrongExpectedVersion(err)) return 'conflict';
        throw unreachable(err);
      }
    },

    read(fromRevision, maxCount) {
      if (maxCount <= 0) return Promise.resolve([]);
      return readRaw({ fromRevision: BigInt(Math.max(0, fromRevision)), maxCount, direction: FORWARDS });
    },

    async lastRevision() {
      const [last] = await readRaw({ fromRevision: END, maxCount: 1, direction: BACKWARDS });
      return last ? last.revision : -1;
    },

    watch(onAppend) {
      let open = true;
      let sub: ReturnType<KurrentDBClient['subscribeToStream']> | null = null;
      let retry: NodeJS.Timeout | null = null;
      // A dropped subscription only costs latency (subscribers poll); open a new one later and
      // wake everyone once, since appends made meanwhile were not signalled.
      const later = () => {
        if (open) retry = setTimeout(restart, opts.resubscribeMs ?? 5000).unref();
      };
      const start = (reopened = false) => {
        if (!open) return;
        let s: NonNullable<typeof sub>;
        try {
          s = client.subscribeToStream(stream, { fromRevision: END });
        } catch {
          return later();
        }
        sub = s;
        s.on('data', () => onAppend());
        const drop = () => {
          if (sub !== s) return;
          sub = null;
          later();
        };
        s.on('error', drop);
        s.on('end', drop);
        s.on('close', drop);
        if (reopened) onAppend();
      };
      const restart = () => start(true);
      start();
      return {
        async close() {
          open = false;
          if (retry) clearTimeout(retry);
          const s = sub;
          sub = null;
          await s?.unsubscribe().catch(() => {});
        },
      };
    },

    async close() {
      await client.dispose();
    },
  };
}
