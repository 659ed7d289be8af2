// Authentication (session cookie, HTTP Basic, API keys) and authorization (role -> named
// permission, narrowed by an API key's scopes). Every 403 is recorded as an AccessDenied
// event; a failed write is recorded as RequestFailed, so the audit log shows both; a successful
// write that appended no event of its own (a signed transaction) as RequestSucceeded.
import { isStorableText } from '../../domain/shared/storableText.ts';
import type Koa from 'koa';
import type { AccessControl } from '../accessControlPort.ts';
import type { AppDeps } from '../../application/deps.ts';
import type { Identity } from '../../application/identity.ts';
import type { RouteDef } from '../route.ts';
import { AppError, EditionRequiredError, ForbiddenError, UnauthenticatedError } from '../../domain/shared/errors.ts';
import { hasPermission, type Permission } from '../../domain/users/permissions.ts';
import { findApiKeyByHash } from '../../projections/apiKeys.ts';
import { findCredentials, getUser, getUserCredentialVersion } from '../../projections/users.ts';
import { recordSecurityEvent } from '../../application/securityEvents.ts';
import { requestRecorded } from '../../application/commands.ts';
import { attemptLogin } from './login.ts';
import { createVerifiedCredentials, type VerifiedCredentials } from './verifiedCredentials.ts';
import { JWT_SHAPE, fromOidcAccessToken } from './oidc.ts';
import { crossOriginReason, needsSameOrigin } from './requestOrigin.ts';
import { refusalAudit } from './auditThrottle.ts';

export const SESSION_COOKIE = 'lnm_session';
/** Failed requests without credentials (a malformed sign-in) recorded one by one per address, error and minute; the rest are counted. */
const UNAUTHENTICATED_FAILURES_PER_MINUTE = 20;

/** Action and resource type of a route, for audit entries of denied or failed requests. */
export function auditTarget(route: RouteDef, ctx: Koa.Context): { action: string; resourceType: string; resourceId: string | null } {
  const action = route.method === 'post' ? (/\/(start|stop|restart|rotate|renew|deploy|sign|sign-data|test|verify|replay|join|invoke|query)$/.test(route.path) ? 'EXECUTE' : 'CREATE') : route.method === 'delete' ? 'DELETE' : route.method === 'get' ? 'READ' : 'UPDATE';
  const first = route.path.split('/').filter(Boolean)[0] ?? 'unknown';
  // Smart contracts (/sc/evm/..., /sc/consortium/...) are contracts and chaincode.
  const resourceType = first === 'sc' ? (route.path.startsWith('/sc/consortium') ? 'chaincode' : 'contract') : first.replace(/-/g, '_').replace(/s$/, '');
  const p = ctx.params as Record<string, string> | undefined;
  const resourceId = p?.id ?? p?.keyId ?? p?.keyID ?? p?.logId ?? p?.contractId ?? p?.chaincodeId ?? p?.networkId ?? p?.nodeId ?? p?.peerId ?? p?.ordererId ?? p?.providerId ?? p?.name ?? null;
  return { action: route.permission === 'NETWORK_CREATE' ? 'NETWORK_CREATE' : action, resourceType, resourceId };
}

/** The transaction id an answer names (an EVM transaction hash, a consortium tx id), if any. */
export function transactionIdOf(body: unknown): string | null {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return null;
  const b = body as Record<string, unknown>;
  const v = b.transaction_hash ?? b.transactionHash ?? b.tx_id ?? b.txId ?? b.transaction_id;
  return typeof v === 'string' ? v : null;
}

type Fresh = () => true | Promise<boolean>;

/** A credential verified a moment ago, if the cache may answer (with other instances, once their acknowledged changes have been heard). */
async function cached(verified: VerifiedCredentials, presented: string, now: number, fresh: Fresh | undefined): Promise<Identity | undefined> {
  const hit = verified.get(presented, now);
  if (!hit) return undefined;
  const f = fresh?.() ?? true;
  // Nothing ran in between: the hit stands (one HMAC of the header per request, not two).
  if (f === true) return hit;
  return (await f) ? verified.get(presented, now) : undefined;
}

async function fromApiKey(presented: string, deps: AppDeps, verified: VerifiedCredentials, fresh?: Fresh): Promise<Identity> {
  if (deps.config.edition === 'community') throw new EditionRequiredError('API keys', 'pro', deps.config.edition);
  const now = deps.clock();
  const known = await cached(verified, `key ${presented}`, now.getTime(), fresh);
  if (known) return known;
  return verified.remember(`key ${presented}`, now.getTime(), () => lookUpApiKey(presented, deps));
}

async function lookUpApiKey(presented: string, deps: AppDeps): Promise<{ identity: Identity; expiresAt?: number }> {
  const hash = deps.security.apiKeys.hashOf(presented);
  if (!hash) throw new UnauthenticatedError('The API key is malformed.');
  const key = await findApiKeyByHash(deps.pool, hash, deps.clock());
  // The lookup is by SHA-256 of a high-entropy key: nothing to learn from its timing.
  if (!key) throw new UnauthenticatedError('The API key is not valid.');
  if (key.status === 'revoked') throw new UnauthenticatedError('The API key was revoked.');
  if (key.status === 'expired') throw new UnauthenticatedError('The API key has expired.');
  const user = await getUser(deps.pool, key.userId);
  if (!user) throw new UnauthenticatedError('The API key belongs to a user that no longer exists.');
  const identity: Identity = { userId: user.id, username: user.username, role: user.role, method: 'api_key', apiKeyId: key.id, scopes: key.scopes, expiresAt: key.expiresAt };
  return { identity, ...(key.expiresAt ? { expiresAt: Date.parse(key.expiresAt) } : {}) };
}

async function fromBasic(header: string, ctx: Koa.Context, deps: AppDeps, verified: VerifiedCredentials, fresh?: Fresh): Promise<Identity> {
  const now = deps.clock().getTime();
  const known = await cached(verified, header, now, fresh);
  if (known) return known;
  return verified.remember(header, now, async () => ({ identity: await checkBasic(header, ctx, deps) }));
}

async function checkBasic(header: string, ctx: Koa.Context, deps: AppDeps): Promise<Identity> {
  let decoded = '';
  try {
    decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  } catch {
    /* falls through to the error below */
  }
  const i = decoded.indexOf(':');
  // A NUL or a lone surrogate is in no stored username or password, and could not be recorded.
  if (i < 1 || !isStorableText(decoded)) throw new UnauthenticatedError('The Basic credentials are malformed.');
  const user = await attemptLogin(decoded.slice(0, i), decoded.slice(i + 1), ctx, deps);
  return { userId: user.id, username: user.username, role: user.role, method: 'basic' };
}

async function fromSession(token: string, deps: AppDeps): Promise<Identity> {
  const s = await deps.security.sessions.find(token);
  const now = deps.clock();
  if (!s) throw new UnauthenticatedError('The session has ended; log in again.');
  const { general } = await deps.security.settings();
  const idleLimit = new Date(s.lastSeenAt.getTime() + general.sessionIdleTimeoutMinutes * 60_000);
  if (now > s.expiresAt || now > idleLimit) {
    await deps.security.sessions.revoke(s.id, now);
    throw new UnauthenticatedError('The session has expired; log in again.');
  }
  const user = await getUserCredentialVersion(deps.pool, s.userId);
  if (!user) throw new UnauthenticatedError('The session belongs to a user that no longer exists.');
  // Opened with a password since changed or reset, or under a role since lowered (a login racing the change).
  if (user.credentialVersion !== s.credentialVersion) {
    await deps.security.sessions.revoke(s.id, now);
    throw new UnauthenticatedError('The account\'s password or role changed since this session began; log in again.');
  }
  // Touch at most every 30 s: enough precision for the idle timeout, few writes.
  if (now.getTime() - s.lastSeenAt.getTime() > 30_000) await deps.security.sessions.touch(s.id, now);
  return { userId: user.id, username: user.username, role: user.role, method: 'session', sessionId: s.id };
}

export function createAccessControl(opts: { verified?: VerifiedCredentials; fresh?: Fresh } = {}): AccessControl {
  const verified = opts.verified ?? createVerifiedCredentials();
  const fresh = opts.fresh;
  return {
    async authenticate(ctx, deps) {
      // Node keeps the first of two Authorization headers and joins two X-API-Key headers: a
      // request repeating either is ambiguous, so refused (one of each: X-API-Key counts).
      const raw = ctx.req.rawHeaders;
      let authorizations = 0;
      let apiKeys = 0;
      for (let i = 0; i < raw.length; i += 2) {
        const name = raw[i].toLowerCase();
        if (name === 'authorization') authorizations++;
        else if (name === 'x-api-key') apiKeys++;
      }
      if (authorizations > 1 || apiKeys > 1) throw new UnauthenticatedError('The request repeats the Authorization or X-API-Key header: send one credential.');
      const auth = ctx.get('authorization');
      const headerKey = ctx.get('x-api-key');
      if (headerKey) return fromApiKey(headerKey.trim(), deps, verified, fresh);
      if (/^bearer\s/i.test(auth)) {
        // A JWT is an access token of the OpenID provider; anything else is one of our API keys.
        const presented = auth.slice(7).trim();
        return JWT_SHAPE.test(presented) ? fromOidcAccessToken(presented, ctx, deps) : fromApiKey(presented, deps, verified, fresh);
      }
      if (/^basic\s/i.test(auth)) return fromBasic(auth, ctx, deps, verified, fresh);
      if (auth) throw new UnauthenticatedError('Unsupported Authorization scheme: use Basic or Bearer.');
      const token = ctx.cookies.get(SESSION_COOKIE);
      if (token) return fromSession(token, deps);
      return null;
    },
    async authorize(identity, route, ctx, deps) {
      const permission = route.permission as Permission;
      // A session cookie rides along with requests other sites make: those that change state or
      // open a WebSocket must come from this service's origin (http/auth/requestOrigin.ts).
      if (identity.method === 'session' && needsSameOrigin(ctx)) {
        const reason = crossOriginReason(ctx, deps.config.allowedOrigins);
        if (reason) {
          const message = `Refused ${ctx.method} ${ctx.path} made with a session cookie from another origin: ${reason}.`;
          await recordSecurityEvent({ identity, requestId: ctx.state.requestId, ctx, deps }, 'AccessDenied', { ...auditTarget(route, ctx), permission, code: 'CROSS_ORIGIN', message, responseCode: 403 });
          throw new AppError(403, 'CROSS_ORIGIN', message);
        }
      }
      const byRole = hasPermission(identity.role, permission);
      const byScope = identity.method !== 'api_key' || (identity.scopes ?? []).includes(permission) || (identity.scopes ?? []).includes('*');
      if (byRole && byScope) return;
      const message = !byRole
        ? `Your role ${identity.role} lacks the permission ${permission} needed for ${ctx.method} ${ctx.path}.`
        : `This API key's scopes do not include ${permission}, needed for ${ctx.method} ${ctx.path}.`;
      const target = auditTarget(route, ctx);
      ctx.state.denialRecorded = true;
      await recordSecurityEvent({ identity, requestId: ctx.state.requestId, ctx, deps }, 'AccessDenied', {
        ...target,
        permission,
        message,
        responseCode: 403,
      });
      throw new ForbiddenError(message, { permission });
    },
    async after(ctx, route, deps) {
      const status = ctx.status;
      const identity = (ctx.state.identity as Identity | undefined) ?? null;
      const err = ctx.state.error as { code?: string; message?: string } | undefined;
      // A 403 of the handler itself (a delegation beyond the API key, another user's keys) is a
      // denial too: recorded like authorize's, before the answer. authorize's own are recorded there.
      if (status === 403) {
        if (identity && !ctx.state.denialRecorded) {
          await recordSecurityEvent({ identity, requestId: ctx.state.requestId, ctx, deps }, 'AccessDenied', {
            ...auditTarget(route, ctx),
            permission: route.permission,
            code: err?.code ?? null,
            message: err?.message ?? null,
            responseCode: 403,
          });
        }
        return;
      }
      // Reads are not entries; 401s carry no identity.
      if (route.method === 'get' || status === 401) return;
      // Writes by no one (a body refused before credentials were given) are noise, not entries;
      // a public route's failures (a refused sign-in) are recorded, throttled below.
      if (!identity && route.permission !== 'PUBLIC') return;
      if (status < 400) {
        // A success that appended no event of its own (a transaction signed and sent, a
        // signature): recorded here, with the transaction id its answer names.
        if (!identity || requestRecorded(ctx)) return;
        await recordSecurityEvent({ identity, requestId: ctx.state.requestId, ctx, deps }, 'RequestSucceeded', {
          ...auditTarget(route, ctx),
          transactionId: transactionIdOf(ctx.body),
          responseCode: status,
        }, { wait: false });
        return;
      }
      // Failed writes are audited.
      let carried = null;
      if (!identity) {
        // A throttled sign-in (429) is already recorded, at most once a minute, as LoginFailed.
        if (status === 429) return;
        // Without credentials: the first 20 a minute per address and error are recorded one by
        // one, the rest counted into the next recorded one (http/auth/auditThrottle.ts).
        const aggregate = { type: 'RequestFailed', data: { ...auditTarget(route, ctx), code: err?.code ?? null, message: null, responseCode: status }, ip: ctx.ip || null };
        const audit = refusalAudit.due(`request\n${ctx.ip || 'unknown'}\n${err?.code ?? status}`, deps.clock().getTime(), { allowance: UNAUTHENTICATED_FAILURES_PER_MINUTE, aggregate });
        if (!audit.due) return;
        carried = audit.carried;
      }
      await recordSecurityEvent({ identity, requestId: ctx.state.requestId, ctx, deps }, 'RequestFailed', {
        ...auditTarget(route, ctx),
        code: err?.code ?? null,
        message: err?.message ?? null,
        responseCode: status,
        ...(carried ?? {}),
      }, { wait: false });
    },
  };
}

export { findCredentials };
