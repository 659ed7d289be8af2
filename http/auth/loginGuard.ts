// The in-memory LoginGuard over the pure rules of domain/users/loginThrottle.ts. Memory is
// bounded by pruning; a restart forgets counters (lockouts are short and also audited).
import { checkLogin, pruneThrottle, recordFailure, recordSuccess, initialThrottleState, type LoginThrottlePolicy } from '../../domain/users/loginThrottle.ts';
import type { LoginGuard, LoginLimits } from '../../domain/users/ports.ts';

/** Many people can share one address (NAT, a proxy), so an address gets five times the allowance of a username. */
export const IP_ALLOWANCE_FACTOR = 5;

function policyOf(l: LoginLimits): LoginThrottlePolicy {
  const p = { windowMs: l.windowMinutes * 60_000, softLimit: l.softLimit, hardLimit: l.hardLimit, lockoutMs: l.lockoutMinutes * 60_000, baseDelayMs: 1_000, maxDelayMs: 60_000 };
  return { username: p, ip: { ...p, softLimit: p.softLimit * IP_ALLOWANCE_FACTOR, hardLimit: p.hardLimit * IP_ALLOWANCE_FACTOR } };
}

export function createLoginGuard(): LoginGuard {
  let state = initialThrottleState();
  let lastPrune = 0;
  return {
    check(username, ip, now, limits) {
      const t = now.getTime();
      if (t - lastPrune > 60_000) {
        state = pruneThrottle(state, t, policyOf(limits));
        lastPrune = t;
      }
      const c = checkLogin(state, { username, ip }, t, policyOf(limits));
      return c.allowed ? { allowed: true, delayMs: 0 } : { allowed: false, locked: c.reason === 'locked', retryAfterSeconds: Math.max(1, Math.ceil(c.retryAfterMs / 1000)) };
    },
    failure(username, ip, now, limits) {
      const r = recordFailure(state, { username, ip }, now.getTime(), policyOf(limits));
      state = r.state;
      return r.alert ? { lockout: { username: r.alert.username, ip: r.alert.ip, failures: r.alert.failures, lockedUntil: r.alert.lockedUntil } } : {};
    },
    success(username, ip) {
      state = recordSuccess(state, { username, ip });
    },
  };
}
