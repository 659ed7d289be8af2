// What requests without valid credentials may write to the audit log (issue 36, item 5). They
// cost the sender nothing, and events are never deleted: once a client is throttled, a flood of
// its refusals must not grow the store. Per key (client address and reason), the first
// `allowance` refusals of a minute are recorded one by one; the ones after them in that minute
// are only counted, and the count goes into the next recorded one (`repeated`, with
// `repeatedSince` and up to 20 of the distinct usernames tried). A count no later refusal
// carries is written on its own once its minute is over (`drain`, every 10 s by the server:
// flushRefusalAggregates), as one aggregate event of the refusal's type (`aggregated: true`):
// at most `allowance` + 1 events a minute per address and reason, and no refusal uncounted. The
// counts live in this process (a restart loses at most a minute's count); the map is bounded.
import type { AppDeps } from '../../application/deps.ts';
import type { JsonObject } from '../../domain/shared/eventStore.ts';
import { storable } from '../../domain/shared/storableText.ts';

export const REFUSAL_AUDIT_WINDOW_MS = 60_000;
const MAX_KEYS = 10_000;
const MAX_DETAILS = 20;

export interface AuditDue {
  /** Whether this refusal is to be recorded. */
  due: boolean;
  /** What to add to the recorded event: the refusals counted and not recorded before it. */
  carried: { repeated: number; repeatedSince: string; repeatedUsernames?: string[] } | null;
}

/** How a count no later refusal carried is written: the event type and the data of a refusal of this key. */
export interface Aggregate {
  type: string;
  data: JsonObject;
  ip: string | null;
}

export interface DrainedCount {
  aggregate: Aggregate;
  carried: NonNullable<AuditDue['carried']>;
}

export interface RefusalAuditThrottle {
  /** `detail`: the username tried, kept (up to 20 distinct) for the carried count; `aggregate`: how to write the count if nothing carries it. */
  due(key: string, now: number, opts?: { allowance?: number; detail?: string; aggregate?: Aggregate }): AuditDue;
  /** The counts of minutes that are over and that no refusal carried (removed here). */
  drain(now: number): DrainedCount[];
}

interface Window {
  until: number;
  recorded: number;
  repeated: number;
  since: number | null;
  details: Set<string>;
  aggregate?: Aggregate;
}

const carriedOf = (w: Window) => ({ repeated: w.repeated, repeatedSince: new Date(w.since!).toISOString(), ...(w.details.size ? { repeatedUsernames: [...w.details] } : {}) });

export function createRefusalAuditThrottle(windowMs = REFUSAL_AUDIT_WINDOW_MS): RefusalAuditThrottle {
  const windows = new Map<string, Window>();
  return {
    due(key, now, opts = {}) {
      const allowance = opts.allowance ?? 1;
      const w = windows.get(key);
      if (w && now < w.until) {
        if (w.recorded < allowance) {
          w.recorded++;
          return { due: true, carried: null };
        }
        w.repeated++;
        w.since ??= now;
        if (opts.aggregate) w.aggregate = opts.aggregate;
        if (opts.detail !== undefined && w.details.size < MAX_DETAILS) w.details.add(opts.detail);
        return { due: false, carried: null };
      }
      if (!w && windows.size >= MAX_KEYS) windows.clear();
      windows.set(key, { until: now + windowMs, recorded: 1, repeated: 0, since: null, details: new Set() });
      if (!w?.repeated) return { due: true, carried: null };
      return { due: true, carried: carriedOf(w) };
    },
    drain(now) {
      const out: DrainedCount[] = [];
      for (const [key, w] of windows) {
        if (now < w.until) continue;
        windows.delete(key);
        if (w.repeated && w.aggregate) out.push({ aggregate: w.aggregate, carried: carriedOf(w) });
      }
      return out;
    },
  };
}

/** Every 10 s while the server runs: writes the counts no later refusal carried. */
export const REFUSAL_FLUSH_EVERY_MS = 10_000;

/** Writes each drained count as one aggregate event of its refusal's type (security stream of the day); how many. */
export async function flushRefusalAggregates(deps: Pick<AppDeps, 'store' | 'clock' | 'newId'>, throttle: RefusalAuditThrottle = refusalAudit, opts: { all?: boolean } = {}): Promise<number> {
  const now = deps.clock();
  // all: at a shutdown, the counts of minutes not yet over too.
  const drained = throttle.drain(opts.all ? Number.POSITIVE_INFINITY : now.getTime());
  for (const { aggregate, carried } of drained) {
    const data = storable({ ...aggregate.data, ...carried, aggregated: true }) as JsonObject;
    await deps.store.append(`security-${now.toISOString().slice(0, 10)}`, 'any', [{ id: deps.newId(), type: aggregate.type, data }], { timestamp: now.toISOString(), ip: aggregate.ip, actor: null });
  }
  return drained.length;
}

/** The one throttle of this process for refusals of requests without valid credentials (bearer tokens, throttled sign-ins, failed unauthenticated requests). */
export const refusalAudit = createRefusalAuditThrottle();
