// Password checks shared by POST /auth/login and HTTP Basic: brute-force guard, constant
// answers (no response tells whether a username exists), a verify cache for Basic.
import type Koa from 'koa';
import { createHmac, randomBytes } from 'node:crypto';
import type { AppDeps } from '../../application/deps.ts';
import { AppError, UnauthenticatedError } from '../../domain/shared/errors.ts';
import { findCredentials, type UserRow } from '../../projections/users.ts';
import { recordSecurityEvent } from '../../application/securityEvents.ts';
import { refusalAudit } from './auditThrottle.ts';
import { localLoginAllowed } from '../../domain/users/oidc.ts';

const INVALID = 'Invalid username or password.';
// Checked against when the username does not exist, so both paths cost one scrypt.
let dummyHash: Promise<string> | null = null;
const verified = new Map<string, number>();
const CACHE_MS = 5 * 60_000;
// Keyed by an HMAC under a key of this process: nothing derived from a password outlives it.
const cacheSecret = randomBytes(32);

export class TooManyAttemptsError extends AppError {
  constructor(retryAfterSeconds: number) {
    super(429, 'TOO_MANY_ATTEMPTS', `Too many failed logins; try again in ${retryAfterSeconds} s.`, { extra: { retryAfterSeconds } });
  }
}

export async function attemptLogin(username: string, password: string, ctx: Koa.Context, deps: AppDeps): Promise<UserRow & { credentialVersion: number }> {
  const ip = ctx.ip || 'unknown';
  const now = deps.clock();
  const { general } = await deps.security.settings();
  const limits = { softLimit: general.loginSoftLimit, hardLimit: general.loginHardLimit, windowMinutes: general.loginWindowMinutes, lockoutMinutes: general.loginLockoutMinutes };
  const gate = await deps.security.guard.check(username.toLowerCase(), ip, now, limits);
  const input = { identity: null, requestId: ctx.state.requestId as string, ctx, deps };
  if (!localLoginAllowed(deps.security.localLogin ?? { mode: 'on' }, username)) {
    await recordSecurityEvent(input, 'LoginFailed', { username, reason: 'local login disabled', responseCode: 401 }, { wait: false });
    throw new AppError(401, 'LOCAL_LOGIN_DISABLED', `Password login is switched off on this server${deps.security.oidc ? ': sign in with single sign-on (the OpenID provider)' : ''}.`);
  }
  if (!gate.allowed) {
    // Hammering through a slow-down counts as failing: it leads to the lockout and its alert.
    const lockout = gate.locked ? undefined : (await deps.security.guard.failure(username.toLowerCase(), ip, now, limits)).lockout;
    ctx.set('Retry-After', String(gate.retryAfterSeconds));
    // Throttled: the first refusal of a minute per address and reason is recorded, the others are
    // counted into the next recorded one (http/auth/auditThrottle.ts), so a locked-out client
    // cannot grow the event store without bound.
    const reason = gate.locked ? 'locked out' : 'too fast after failures';
    const audit = refusalAudit.due(`login\n${ip}\n${reason}`, now.getTime(), { detail: username, aggregate: { type: 'LoginFailed', data: { username: null, reason, responseCode: 429 }, ip } });
    if (audit.due) await recordSecurityEvent(input, 'LoginFailed', { username, reason, responseCode: 429, ...(audit.carried ?? {}) }, { wait: false });
    if (lockout) await recordSecurityEvent(input, 'UnauthorizedAccessDetected', { ...lockout }, { wait: false });
    throw new TooManyAttemptsError(gate.retryAfterSeconds);
  }
  if (gate.delayMs > 0) await new Promise((r) => setTimeout(r, gate.delayMs));
  const cred = await findCredentials(deps.pool, username);
  const cacheKey = cred ? createHmac('sha256', cacheSecret).update(`${cred.id}\0${password}\0${cred.passwordHash}`).digest('hex') : '';
  let ok = false;
  if (cred && (verified.get(cacheKey) ?? 0) > now.getTime()) ok = true;
  else if (cred) ok = await deps.security.passwords.verify(password, cred.passwordHash);
  else await deps.security.passwords.verify(password, await (dummyHash ??= deps.security.passwords.hash('not-a-password')));
  if (ok && cred) {
    verified.set(cacheKey, now.getTime() + CACHE_MS);
    if (verified.size > 10_000) verified.clear();
    await deps.security.guard.success(username.toLowerCase(), ip, now);
    return cred;
  }
  const { lockout } = await deps.security.guard.failure(username.toLowerCase(), ip, now, limits);
  await recordSecurityEvent(input, 'LoginFailed', { username, reason: cred ? 'wrong password' : 'unknown user', responseCode: 401 }, { wait: false });
  if (lockout) await recordSecurityEvent(input, 'UnauthorizedAccessDetected', { ...lockout }, { wait: false });
  throw new UnauthenticatedError(INVALID);
}
