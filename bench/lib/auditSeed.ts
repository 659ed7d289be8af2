// Seeds a server's database with realistic audit history: security facts (logins, failed logins,
// logouts, denied requests, sensitive reads, failed writes) spread over the last 60 days, each
// append carrying the request metadata a real request would. Appends go through the real
// store, so the hash chain covers them and the server's projector builds the audit log.
import { randomUUID } from 'node:crypto';
import type { EventStore, NewEvent } from '../../domain/shared/eventStore.ts';

const kinds: Array<{ weight: number; make: (u: number) => NewEvent }> = [
  { weight: 50, make: (u) => ({ id: randomUUID(), type: 'LoginSucceeded', data: { userId: 1000 + u, username: `user${u}`, responseCode: 200 } }) },
  { weight: 15, make: (u) => ({ id: randomUUID(), type: 'LoginFailed', data: { username: `user${u}`, reason: 'invalid username or password', responseCode: 401 } }) },
  { weight: 15, make: (u) => ({ id: randomUUID(), type: 'LoggedOut', data: { userId: 1000 + u, username: `user${u}` } }) },
  { weight: 8, make: (u) => ({ id: randomUUID(), type: 'AccessDenied', data: { action: 'DELETE', resourceType: 'node', resourceId: String(u), message: 'NODE_DELETE is not a permission of VIEWER', permission: 'NODE_DELETE', responseCode: 403 } }) },
  { weight: 8, make: (u) => ({ id: randomUUID(), type: 'SensitiveRead', data: { action: 'READ', resourceType: 'key', resourceId: String(u), resourceName: `org${u % 7}-admin-key`, details: { field: 'certificate' } } }) },
  { weight: 4, make: (u) => ({ id: randomUUID(), type: 'RequestFailed', data: { action: 'UPDATE', resourceType: 'network', resourceId: String(u % 20), message: 'peer unreachable', code: 'UNAVAILABLE', responseCode: 503 } }) },
];
const totalWeight = kinds.reduce((a, k) => a + k.weight, 0);

function pick(i: number): (u: number) => NewEvent {
  // A fixed, well-mixed pattern: no randomness, so every run seeds the same distribution.
  let x = (i * 7919) % totalWeight;
  for (const k of kinds) {
    if (x < k.weight) return k.make;
    x -= k.weight;
  }
  return kinds[0].make;
}

export async function seedAuditHistory(store: EventStore, total: number, perAppend = 25): Promise<{ ms: number }> {
  const t0 = Date.now();
  const start = Date.now() - 60 * 86_400_000;
  const appends = Math.ceil(total / perAppend);
  const step = (60 * 86_400_000) / appends;
  for (let a = 0; a < appends; a++) {
    const ts = new Date(start + a * step);
    const u = a % 40;
    const n = Math.min(perAppend, total - a * perAppend);
    const events = Array.from({ length: n }, (_, j) => pick(a * perAppend + j)(u));
    await store.append(`security-${ts.toISOString().slice(0, 10)}`, 'any', events, {
      timestamp: ts.toISOString(),
      requestStartedAt: new Date(ts.getTime() - 12).toISOString(),
      requestId: randomUUID(),
      ip: `10.0.${u}.${a % 250}`,
      userAgent: 'Mozilla/5.0 (X11; Linux x86_64) lnm-bench',
      method: 'POST',
      endpoint: '/api/v1/auth/login',
      actor: { userId: 1000 + u, username: `user${u}`, kind: 'session' },
    });
  }
  return { ms: Date.now() - t0 };
}
