// OpenID Connect in the HTTP layer: the pending sign-in cookie, bearer access tokens, and the
// audit of every refusal.
//
// The state, nonce and PKCE verifier of a sign-in are kept in a cookie rather than in server
// memory: sealed with AES-256-GCM under a key derived from KEY_ENCRYPTION_KEY (HKDF, so opening
// a forged cookie costs one cheap decryption, not a key derivation; secret and tamper-proof: the
// verifier must not be readable by scripts or the provider), HttpOnly, SameSite=Lax (the
// provider's redirect back is a top-level GET, which Lax lets through), sent only to the callback's
// path, limited to 10 minutes, and cleared by the first callback. That works across restarts and
// behind several instances, and binds the sign-in to the browser that started it, which is what
// makes a forged or swapped callback (login CSRF) fail the state check.
import type Koa from 'koa';
import { timingSafeEqual, createHash } from 'node:crypto';
import type { AppDeps } from '../../application/deps.ts';
import type { Identity } from '../../application/identity.ts';
import { userForOidcClaims } from '../../application/oidcSignIn.ts';
import { AppError, UnauthenticatedError } from '../../domain/shared/errors.ts';
import { OidcFailure, type OidcFailureReason } from '../../domain/users/oidc.ts';
import type { PendingOidcLogin } from '../../domain/users/ports.ts';
import { recordSecurityEvent } from '../../application/securityEvents.ts';
import { refusalAudit } from './auditThrottle.ts';

export const OIDC_COOKIE = 'lnm_oidc';

/** A JWT (three base64url parts): what tells an OIDC access token from an API key (lnm_..., no dots). */
export const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/** Sent only to the callback, at the path browsers reach it by (LNM_OIDC_REDIRECT_URL, which may sit behind a proxy's prefix). */
function cookieOptions(ctx: Koa.Context, deps: AppDeps) {
  const path = new URL(deps.security.oidc!.settings.redirectUrl).pathname;
  return { httpOnly: true, sameSite: 'lax' as const, secure: ctx.secure || deps.config.secureCookies, path, overwrite: true };
}

export function setPendingLogin(ctx: Koa.Context, deps: AppDeps, pending: PendingOidcLogin): void {
  const sealed = deps.security.oidc!.sealPending(pending);
  ctx.cookies.set(OIDC_COOKIE, sealed, { ...cookieOptions(ctx, deps), expires: new Date(pending.expiresAt) });
}

export function clearPendingLogin(ctx: Koa.Context, deps: AppDeps): void {
  ctx.cookies.set(OIDC_COOKIE, '', { ...cookieOptions(ctx, deps), maxAge: 0, expires: new Date(0) });
}

/** The pending sign-in of this browser, checked against the callback's state; throws OidcFailure. */
export async function pendingLoginFor(ctx: Koa.Context, deps: AppDeps, state: string | undefined): Promise<PendingOidcLogin> {
  const raw = ctx.cookies.get(OIDC_COOKIE);
  if (!raw) throw new OidcFailure('bad state', 'This browser has no sign-in in progress: start the single sign-on again from the sign-in page.');
  const pending = deps.security.oidc!.openPending(raw);
  if (!pending) throw new OidcFailure('bad state', 'The sign-in cookie was altered or is not one this server wrote.');
  if (deps.clock().getTime() > pending.expiresAt) throw new OidcFailure('login expired', 'The sign-in took longer than 10 minutes: start again.');
  const digest = (s: string) => createHash('sha256').update(s).digest();
  if (!state || !timingSafeEqual(digest(state), digest(pending.state))) throw new OidcFailure('bad state', 'The callback\'s state does not match the sign-in this browser started.');
  return pending;
}

/** The HTTP answer to a refused sign-in or token: 401 for the caller's credentials, 403 without a role, 502/503 for the provider or this server's client set-up. */
export function oidcHttpError(f: OidcFailure): AppError {
  // The messages name no secret and tell an operator what to fix: shown on 502/503 too.
  const extra = { reason: f.reason };
  switch (f.reason as OidcFailureReason) {
    case 'no role':
      return new AppError(403, 'OIDC_NO_ROLE', f.message, { extra });
    case 'provider unreachable':
      return new AppError(503, 'OIDC_UNAVAILABLE', f.message, { extra, expose: true });
    case 'client rejected':
      return new AppError(502, 'OIDC_CLIENT_REJECTED', f.message, { extra, expose: true });
    default:
      return new AppError(401, 'OIDC_SIGN_IN_FAILED', f.message, { extra });
  }
}

/** Records a refused sign-in or bearer token: an audit entry and the public event security.oidc.sign_in_failed. */
export async function recordOidcFailure(ctx: Koa.Context, deps: AppDeps, stage: 'login' | 'callback' | 'bearer', f: OidcFailure, extra: { username?: string; repeated?: number } = {}): Promise<void> {
  const status = oidcHttpError(f).status;
  await recordSecurityEvent({ identity: null, requestId: ctx.state.requestId, ctx, deps }, 'OidcSignInFailed', {
    stage, reason: f.reason, message: f.message, issuer: deps.security.oidc?.settings.issuer ?? null, username: extra.username ?? null, ...(extra.repeated ? { repeated: extra.repeated } : {}), responseCode: status, at: deps.clock().toISOString(),
  }, { wait: stage !== 'bearer' });
}

// Refused bearer tokens need no credentials to send, so a flood of them must not flood the audit
// log: the refusal audit throttle (http/auth/auditThrottle.ts) records the first of a minute per
// client address and reason, and counts the others into the next recorded one (`repeated`).

/** Authorization: Bearer <JWT>: an access token of the configured provider, with the role its claims map to. */
export async function fromOidcAccessToken(token: string, ctx: Koa.Context, deps: AppDeps): Promise<Identity> {
  const oidc = deps.security.oidc;
  if (!oidc) throw new UnauthenticatedError('Bearer JWTs are accepted only when an OpenID provider is configured (LNM_OIDC_ISSUER); API keys start with lnm_.');
  try {
    const claims = await oidc.verifyAccessToken(token);
    const { user } = await userForOidcClaims({ identity: null, requestId: ctx.state.requestId, ctx, deps }, claims);
    return { userId: user.id, username: user.username, role: user.role, method: 'oidc_token' };
  } catch (err) {
    if (!(err instanceof OidcFailure)) throw err;
    const audit = refusalAudit.due(`bearer\n${ctx.ip || 'unknown'}\n${err.reason}`, deps.clock().getTime());
    if (audit.due) await recordOidcFailure(ctx, deps, 'bearer', err, { repeated: audit.carried?.repeated ?? 0 }).catch((e: Error) => deps.log.warn({ err: e.message }, 'recording a refused bearer token failed'));
    throw oidcHttpError(err);
  }
}
