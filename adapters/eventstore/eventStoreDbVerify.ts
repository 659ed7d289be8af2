// Recomputes the hash chain over a range of the log, naming the first position that does not
// match. Reads the server directly (not the index), so an event changed or slipped into the log
// behind the service's back is caught.
import { GENESIS_HASH, verifyRun } from '../../domain/shared/eventChain.ts';
import type { ChainVerification, RecordedEvent } from '../../domain/shared/eventStore.ts';
import { decodeLogEvent, logEventProblem, positionOfRevision, revisionOfPosition } from './eventStoreDbCodec.ts';
import type { EventLog } from './eventStoreDbLog.ts';

const BATCH = 1000;

export async function verifyLog(log: EventLog, fromPosition: number, toPosition?: number, logStream = 'log'): Promise<ChainVerification> {
  const from = Math.max(1, fromPosition);
  const to = toPosition ?? positionOfRevision(await log.lastRevision());
  const fail = (checked: number, position: number, reason: 'hash_mismatch' | 'broken_link' | 'gap', expected: string, actual: string): ChainVerification => ({
    ok: false,
    checked,
    fromPosition: from,
    toPosition: to,
    firstMismatch: { position, reason, expected, actual },
  });

  let prev = GENESIS_HASH;
  if (from > 1) {
    const [before] = await log.read(revisionOfPosition(from - 1), 1);
    if (!before || positionOfRevision(before.revision) !== from - 1) return fail(0, from - 1, 'gap', 'an event', 'none');
    const problem = logEventProblem(before);
    if (problem) return fail(0, from - 1, 'hash_mismatch', 'an event written by this service', problem);
    prev = decodeLogEvent(before, logStream).hash;
  }

  let next = from;
  let checked = 0;
  while (next <= to) {
    const raw = await log.read(revisionOfPosition(next), Math.min(BATCH, to - next + 1));
    if (raw.length === 0) return fail(checked, next, 'gap', String(next), 'missing');
    // Events that are not ours cannot be hashed; stop the run just before the first one.
    const events: RecordedEvent[] = [];
    let foreign: { position: number; problem: string } | null = null;
    for (const r of raw) {
      const problem = logEventProblem(r);
      if (problem) {
        foreign = { position: positionOfRevision(r.revision), problem };
        break;
      }
      events.push(decodeLogEvent(r, logStream));
    }
    const res = verifyRun(prev, events, next);
    if (!res.ok) return fail(checked + (res.position - next), res.position, res.reason, res.expected, res.actual);
    checked += events.length;
    if (foreign) {
      if (foreign.position !== next + events.length) return fail(checked, next + events.length, 'gap', String(next + events.length), String(foreign.position));
      return fail(checked, foreign.position, 'hash_mismatch', 'an event written by this service', foreign.problem);
    }
    prev = res.lastHash;
    next = events[events.length - 1].position + 1;
  }
  return { ok: true, checked, fromPosition: from, toPosition: to };
}
