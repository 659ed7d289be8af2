// What requests without valid credentials may write to the audit log (issue 36, item 5). They
// cost the sender nothing, and events are never deleted: once a client is throttled, a flood of
// its refusals must not grow the store. Per key (client address and reason), the first
// `allowance` refusals of a minute are recorded one by one; the ones after them in that minute
// are only counted, and the count goes into the next recorded one (`repeated`, with
// `repeatedSince` and up to 20 of the distinct usernames tried): at most `allowance` events a
// minute per address and reason, and no refusal uncounted. The counts live in this process (a
// restart loses at most a minute's count); the map is bounded.
export const REFUSAL_AUDIT_WINDOW_MS = 60_000;
const MAX_KEYS = 10_000;
const MAX_DETAILS = 20;

export interface AuditDue {
  /** Whether this refusal is to be recorded. */
  due: boolean;
  /** What to add to the recorded event: the refusals counted and not recorded before it. */
  carried: { repeated: number; repeatedSince: string; repeatedUsernames?: string[] } | null;
}

export interface RefusalAuditThrottle {
  /** `detail`: the username tried, kept (up to 20 distinct) for the carried count. */
  due(key: string, now: number, opts?: { allowance?: number; detail?: string }): AuditDue;
}

interface Window {
  until: number;
  recorded: number;
  repeated: number;
  since: number | null;
  details: Set<string>;
}

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
        if (opts.detail !== undefined && w.details.size < MAX_DETAILS) w.details.add(opts.detail);
        return { due: false, carried: null };
      }
      if (!w && windows.size >= MAX_KEYS) windows.clear();
      windows.set(key, { until: now + windowMs, recorded: 1, repeated: 0, since: null, details: new Set() });
      if (!w?.repeated) return { due: true, carried: null };
      return { due: true, carried: { repeated: w.repeated, repeatedSince: new Date(w.since!).toISOString(), ...(w.details.size ? { repeatedUsernames: [...w.details] } : {}) } };
    },
  };
}

/** The one throttle of this process for refusals of requests without valid credentials (bearer tokens, throttled sign-ins, failed unauthenticated requests). */
export const refusalAudit = createRefusalAuditThrottle();
