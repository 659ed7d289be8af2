// Sign-in through an OpenID provider (authorization code flow with PKCE, state and nonce) and
// GET /auth/providers, which tells a client (the web console) how it can sign in.
import { Type } from '@sinclair/typebox';
import { defineRoute } from '../route.ts';
import { startSession } from './auth.ts';
import { userForOidcClaims } from '../../application/oidcSignIn.ts';
import { AppError } from '../../domain/shared/errors.ts';
import { OidcFailure } from '../../domain/users/oidc.ts';
import { hasPermission } from '../../domain/users/permissions.ts';
import { clearPendingLogin, oidcHttpError, pendingLoginFor, recordOidcFailure, setPendingLogin } from '../auth/oidc.ts';
import { recordSecurityEvent } from '../../application/securityEvents.ts';
import type { AppDeps } from '../../application/deps.ts';

const tags = ['auth'];
const LOGIN_PATH = '/api/v1/auth/oidc/login';

function oidcOr404(deps: AppDeps) {
  if (!deps.security.oidc) throw new AppError(404, 'OIDC_NOT_CONFIGURED', 'Sign-in through an OpenID provider is not configured on this server (LNM_OIDC_ISSUER).');
  return deps.security.oidc;
}

/** A local path only (no scheme, no host, no //): the sign-in must not become an open redirect. */
const safeReturnTo = (p: string | undefined) => (p && /^\/(?![/\\])[\x21-\x7e]*$/.test(p) && p.length <= 512 ? p : '/');

const ProvidersSchema = Type.Object({
  oidc: Type.Object({
    enabled: Type.Boolean(),
    loginUrl: Type.Union([Type.String(), Type.Null()], { description: 'GET it in the browser to start the sign-in (?returnTo=/local/path to land there afterwards)' }),
    issuer: Type.Union([Type.String(), Type.Null()]),
    clientId: Type.Union([Type.String(), Type.Null()]),
    scopes: Type.Array(Type.String()),
    redirectUrl: Type.Union([Type.String(), Type.Null()]),
    bearerTokens: Type.Boolean({ description: 'JWT access tokens of the provider are accepted as Authorization: Bearer (LNM_OIDC_AUDIENCE set)' }),
    configuration: Type.Optional(Type.Object({
      roleClaim: Type.String(),
      roleMap: Type.Record(Type.String(), Type.String()),
      defaultRole: Type.Union([Type.String(), Type.Null()]),
      audience: Type.Union([Type.String(), Type.Null()]),
    }, { description: 'only for a caller holding SETTINGS_READ; the client secret is never shown' })),
  }),
  local: Type.Object({
    enabled: Type.Boolean({ description: 'password login (POST /auth/login, HTTP Basic) is possible for someone' }),
    mode: Type.Union([Type.Literal('on'), Type.Literal('off'), Type.Literal('break-glass')]),
    breakGlassUsers: Type.Optional(Type.Array(Type.String(), { description: 'only for a caller holding SETTINGS_READ' })),
  }),
});

export const oidcRoutes = [
  defineRoute({
    method: 'get', path: '/auth/providers', summary: 'How to sign in: whether OIDC is on and where to start it, whether password login is on', tags, permission: 'PUBLIC',
    responses: { 200: { description: 'the sign-in methods', schema: ProvidersSchema } },
    async handler({ deps, identity }) {
      const oidc = deps.security.oidc;
      const s = oidc?.settings;
      const privileged = identity ? hasPermission(identity.role, 'SETTINGS_READ') : false;
      const local = deps.security.localLogin ?? { mode: 'on' as const };
      return {
        body: {
          oidc: {
            enabled: !!oidc,
            loginUrl: oidc ? LOGIN_PATH : null,
            issuer: s?.issuer ?? null,
            clientId: s?.clientId ?? null,
            scopes: s?.scopes ?? [],
            redirectUrl: s?.redirectUrl ?? null,
            bearerTokens: !!s?.audience,
            ...(s && privileged ? { configuration: { roleClaim: s.roleClaim, roleMap: s.roleMap, defaultRole: s.defaultRole, audience: s.audience } } : {}),
          },
          local: {
            enabled: local.mode !== 'off',
            mode: local.mode === 'only' ? 'break-glass' : local.mode,
            ...(local.mode === 'only' && privileged ? { breakGlassUsers: local.usernames } : {}),
          },
        },
      };
    },
  }),
  defineRoute({
    method: 'get', path: '/auth/oidc/login', summary: 'Start a sign-in at the OpenID provider: redirects the browser there', tags, permission: 'PUBLIC',
    description: 'Answers 302 to the provider\'s authorization endpoint (code flow, PKCE S256, state, nonce) and sets a short-lived sealed cookie (lnm_oidc, HttpOnly, 10 minutes) that the callback checks the state against.',
    query: Type.Object({ returnTo: Type.Optional(Type.String({ maxLength: 512, description: 'local path to land on after the sign-in (default /)' })) }, { additionalProperties: false }),
    responses: {
      302: { description: 'to the provider; Location holds the authorization URL' },
      404: { description: 'OIDC is not configured' },
      503: { description: 'the provider cannot be reached (OIDC_UNAVAILABLE)' },
    },
    async handler({ deps, ctx, query }) {
      const oidc = oidcOr404(deps);
      try {
        const { url, pending } = await oidc.beginLogin(safeReturnTo(query.returnTo), deps.clock());
        setPendingLogin(ctx, deps, pending);
        return { status: 302, headers: { Location: url, 'Cache-Control': 'no-store' } };
      } catch (err) {
        if (!(err instanceof OidcFailure)) throw err;
        await recordOidcFailure(ctx, deps, 'login', err);
        throw oidcHttpError(err);
      }
    },
  }),
  defineRoute({
    method: 'get', path: '/auth/oidc/callback', summary: 'Where the OpenID provider sends the browser back: checks state, redeems the code, signs in', tags, permission: 'PUBLIC',
    description: 'On success: 303 to the returnTo path with the session cookie (lnm_session) the rest of the API uses. The account is the one linked to the provider\'s (issuer, subject), created on first sign-in; its role follows the role claim at every sign-in (a change is security.user.role_changed). Every refusal is audited with its reason (security.oidc.sign_in_failed).',
    query: Type.Object({
      code: Type.Optional(Type.String({ maxLength: 4096 })),
      state: Type.Optional(Type.String({ maxLength: 1024 })),
      iss: Type.Optional(Type.String({ maxLength: 2048 })),
      session_state: Type.Optional(Type.String({ maxLength: 1024 })),
      error: Type.Optional(Type.String({ maxLength: 256 })),
      error_description: Type.Optional(Type.String({ maxLength: 2048 })),
      error_uri: Type.Optional(Type.String({ maxLength: 2048 })),
    }, { additionalProperties: true, description: 'what the provider appends to the redirect URL; providers add parameters of their own, which are let through' }),
    responses: {
      303: { description: 'signed in; Set-Cookie: lnm_session; Location: the returnTo path' },
      401: { description: 'refused: bad state, expired login, code rejected (expired or replayed), bad ID token (OIDC_SIGN_IN_FAILED, reason in the body)' },
      403: { description: 'the provider\'s claims map to no role (OIDC_NO_ROLE)' },
      404: { description: 'OIDC is not configured' },
      502: { description: 'the provider refused this server\'s client credentials (OIDC_CLIENT_REJECTED)' },
      503: { description: 'the provider cannot be reached (OIDC_UNAVAILABLE)' },
    },
    async handler(input) {
      const { deps, ctx, query } = input;
      const oidc = oidcOr404(deps);
      let username: string | undefined;
      try {
        const pending = await pendingLoginFor(ctx, deps, query.state).finally(() => clearPendingLogin(ctx, deps));
        // The URL the provider redirected to, as configured (the server may sit behind a proxy).
        const callbackUrl = new URL(oidc.settings.redirectUrl);
        callbackUrl.search = ctx.querystring;
        const claims = await oidc.completeLogin(callbackUrl, pending);
        const { user, created, previousRole } = await userForOidcClaims(input, claims);
        username = user.username;
        const { identity } = await startSession(ctx, deps, user);
        await recordSecurityEvent({ ...input, identity }, 'OidcSignInSucceeded', {
          userId: user.id, username: user.username, issuer: oidc.settings.issuer, subject: String(claims.sub), role: user.role, previousRole, created, responseCode: 303, at: deps.clock().toISOString(),
        }, { streamId: `logins-${user.id}` });
        return { status: 303, headers: { Location: pending.returnTo, 'Cache-Control': 'no-store' } };
      } catch (err) {
        if (!(err instanceof OidcFailure)) throw err;
        await recordOidcFailure(ctx, deps, 'callback', err, { username });
        throw oidcHttpError(err);
      }
    },
  }),
];
