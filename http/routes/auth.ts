import { Type } from '@sinclair/typebox';
import type Koa from 'koa';
import { defineRoute } from '../route.ts';
import { runCommand } from '../../application/commands.ts';
import { PasswordSchema, RoleSchema, UserSchema } from './schemas.ts';
import { attemptLogin } from '../auth/login.ts';
import { SESSION_COOKIE } from '../auth/accessControl.ts';
import { recordSecurityEvent } from '../../application/securityEvents.ts';
import { assertPassword } from './users.ts';
import { USERS_STREAM, userDirectory } from '../../domain/users/userDirectory.ts';
import { rolePermissions } from '../../domain/users/permissions.ts';
import { UnauthenticatedError } from '../../domain/shared/errors.ts';
import { getUser, getUserCredentialVersion, isExternalUser, type UserRow } from '../../projections/users.ts';
import type { Identity } from '../../application/identity.ts';
import type { AppDeps } from '../../application/deps.ts';

const tags = ['auth'];

export function setSessionCookie(ctx: Koa.Context, deps: AppDeps, token: string | null, expires?: Date) {
  ctx.cookies.set(SESSION_COOKIE, token ?? '', {
    httpOnly: true,
    sameSite: 'lax',
    secure: ctx.secure || deps.config.secureCookies,
    path: '/',
    overwrite: true,
    ...(token ? { expires } : { maxAge: 0, expires: new Date(0) }),
  });
}

/** A new server-side session for the user and its cookie (password login and OIDC sign-in alike). */
export async function startSession(ctx: Koa.Context, deps: AppDeps, user: { id: number; username: string; role: UserRow['role']; credentialVersion?: number }): Promise<{ identity: Identity; expiresAt: Date }> {
  const { general } = await deps.security.settings();
  const now = deps.clock();
  const expiresAt = new Date(now.getTime() + general.sessionAbsoluteTimeoutHours * 3_600_000);
  // The version the password was checked against (a sign-in through the provider: the current one).
  const credentialVersion = user.credentialVersion ?? (await getUserCredentialVersion(deps.pool, user.id))?.credentialVersion ?? -1;
  const made = await deps.security.sessions.create({ userId: user.id, ip: ctx.ip || null, userAgent: ctx.get('user-agent') || null, now, expiresAt, credentialVersion });
  // The password was changed or reset (or the role lowered) while it was being checked.
  if (!made) throw new UnauthenticatedError('The account\'s password or role changed during the login; log in again.');
  const { token, session } = made;
  setSessionCookie(ctx, deps, token, expiresAt);
  return { identity: { userId: user.id, username: user.username, role: user.role, method: 'session', sessionId: session.id }, expiresAt };
}

export const authRoutes = [
  defineRoute({
    method: 'post', path: '/auth/login', summary: 'Log in with username and password; sets the session cookie', tags, permission: 'PUBLIC',
    description: 'Repeated failures for one username or from one address are slowed down and then locked out (429 with Retry-After). The answer never tells whether a username exists.',
    body: Type.Object({ username: Type.String({ minLength: 1, maxLength: 64 }), password: Type.String({ minLength: 1, maxLength: 1024 }) }, { additionalProperties: false }),
    responses: {
      200: { description: 'logged in; Set-Cookie: lnm_session (HttpOnly, SameSite=Lax, Secure over TLS)', schema: Type.Object({ user: UserSchema, expiresAt: Type.String({ format: 'date-time' }) }) },
      401: { description: 'invalid username or password' },
      429: { description: 'too many failed attempts' },
    },
    async handler(input) {
      const { deps, body, ctx } = input;
      const user = await attemptLogin(body.username, body.password, ctx, deps);
      const { identity, expiresAt } = await startSession(ctx, deps, user);
      await recordSecurityEvent({ ...input, identity }, 'LoginSucceeded', { userId: user.id, username: user.username, responseCode: 200 }, { streamId: `logins-${user.id}` });
      return { body: { user: (await getUser(deps.pool, user.id))!, expiresAt: expiresAt.toISOString() } };
    },
  }),
  defineRoute({
    method: 'post', path: '/auth/logout', summary: 'End the current session', tags, permission: 'ACCOUNT_SELF',
    description: 'A user signed in through the OpenID provider gets 200 with endSessionUrl when the provider has an end_session_endpoint: send the browser there to end the provider\'s session too.',
    responses: {
      200: { description: 'logged out here; the provider\'s session ends at endSessionUrl', schema: Type.Object({ endSessionUrl: Type.String({ format: 'uri' }) }) },
      204: { description: 'logged out; the cookie is cleared' },
    },
    async handler(input) {
      const { deps, identity, ctx } = input;
      if (identity?.sessionId) await deps.security.sessions.revoke(identity.sessionId, deps.clock());
      setSessionCookie(ctx, deps, null);
      await recordSecurityEvent(input, 'LoggedOut', { userId: identity!.userId, username: identity!.username }, { streamId: `logins-${identity!.userId}` });
      if (deps.security.oidc && (await isExternalUser(deps.pool, identity!.userId))) {
        // The provider may be down: the session here is over either way.
        const endSessionUrl = await deps.security.oidc.endSessionUrl(null).catch(() => null);
        if (endSessionUrl) return { status: 200, body: { endSessionUrl } };
      }
      return { status: 204 };
    },
  }),
  defineRoute({
    method: 'get', path: '/auth/me', summary: 'The current user, how they authenticated, their permissions and the running edition', tags, permission: 'ACCOUNT_SELF',
    responses: {
      200: {
        description: 'current user',
        schema: Type.Object({ id: Type.Integer(), username: Type.String(), role: RoleSchema, email: Type.Union([Type.String(), Type.Null()]), authMethod: Type.String(), permissions: Type.Array(Type.String()), edition: Type.String(), apiKeyId: Type.Optional(Type.Integer()) }),
      },
    },
    async handler({ deps, identity }) {
      const user = await getUser(deps.pool, identity!.userId);
      if (!user) throw new UnauthenticatedError();
      const perms = rolePermissions[user.role].filter((p) => identity!.method !== 'api_key' || identity!.scopes?.includes(p) || identity!.scopes?.includes('*'));
      return { body: { id: user.id, username: user.username, role: user.role, email: user.email, authMethod: identity!.method, permissions: [...perms], edition: deps.config.edition, ...(identity!.apiKeyId ? { apiKeyId: identity!.apiKeyId } : {}) } };
    },
  }),
  defineRoute({
    method: 'post', path: '/auth/change-password', summary: 'Change your own password (ends all your sessions, this one included)', tags, permission: 'ACCOUNT_SELF',
    body: Type.Object({ currentPassword: Type.String({ minLength: 1, maxLength: 1024 }), newPassword: PasswordSchema }, { additionalProperties: false }),
    responses: { 204: { description: 'changed; log in again' }, 401: { description: 'current password is wrong' } },
    async handler(input) {
      const { deps, identity, body, ctx } = input;
      const user = await attemptLogin(identity!.username, body.currentPassword, ctx, deps);
      assertPassword(body.newPassword, user.username, 'newPassword');
      const passwordHash = await deps.security.passwords.hash(body.newPassword);
      await runCommand(input, USERS_STREAM, userDirectory, { type: 'ChangePassword', userId: user.id, passwordHash, byUserId: user.id, at: deps.clock().toISOString() });
      await deps.security.sessions.revokeAllForUser(user.id, deps.clock());
      setSessionCookie(ctx, deps, null);
      return { status: 204 };
    },
  }),
];
