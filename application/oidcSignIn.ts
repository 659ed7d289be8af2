// The user behind verified OpenID Connect claims (from a sign-in's ID token or a bearer access
// token): the account linked to (issuer, subject), created on first sign-in, never matched by
// e-mail; its role follows the provider's claims at every sign-in (LNM_OIDC_ROLE_MAP), a change
// being an ordinary ChangeRole, so it is audited and published as security.user.role_changed.
import { randomBytes } from 'node:crypto';
import { runCommand, type CommandInput } from './commands.ts';
import { USERS_STREAM, userDirectory } from '../domain/users/userDirectory.ts';
import { OidcFailure, parseRoleMap, roleFromClaims, usernameForClaims } from '../domain/users/oidc.ts';
import type { Role } from '../domain/users/roles.ts';
import type { OidcPublicSettings } from '../domain/users/ports.ts';
import { AppError } from '../domain/shared/errors.ts';
import { findUserByExternalIdentity, type UserRow } from '../projections/users.ts';

export interface OidcUser {
  user: UserRow;
  created: boolean;
  previousRole: Role | null;
}

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,189}$/;

export function roleFor(claims: Record<string, unknown>, s: OidcPublicSettings): Role | null {
  return roleFromClaims(claims, { claim: s.roleClaim, map: s.roleMap as Record<string, Role>, defaultRole: s.defaultRole as Role | null });
}

export { parseRoleMap };

/** Finds or creates the user of verified claims and brings its role in line with them. */
export async function userForOidcClaims(input: CommandInput, claims: Record<string, unknown>): Promise<OidcUser> {
  const { deps } = input;
  const settings = deps.security.oidc!.settings;
  const subject = typeof claims.sub === 'string' ? claims.sub : '';
  if (!subject) throw new OidcFailure('bad token', 'The token carries no subject (sub).');
  const role = roleFor(claims, settings);
  if (!role) throw new OidcFailure('no role', `Your account at the OpenID provider is in no group that ${settings.roleClaim} maps to a role here, and there is no default role.`);
  const at = () => deps.clock().toISOString();
  // A system action: the provider, not a signed-in user, decides the account and its role.
  const system: CommandInput = { ...input, identity: null };
  for (let attempt = 0; attempt < 3; attempt++) {
    const found = await findUserByExternalIdentity(deps.pool, settings.issuer, subject);
    if (found) {
      if (found.role === role) return { user: found, created: false, previousRole: found.role };
      try {
        await runCommand(system, USERS_STREAM, userDirectory, { type: 'ChangeRole', userId: found.id, role, at: at() });
      } catch (err) {
        if (err instanceof AppError && err.code === 'LAST_ADMIN') {
          throw new AppError(409, 'LAST_ADMIN', `The OpenID provider no longer gives ${found.username} the ADMIN role, but it is the last ADMIN here: make another user ADMIN first.`);
        }
        throw err;
      }
      return { user: { ...found, role }, created: false, previousRole: found.role };
    }
    const names = new Set((await deps.pool.query('SELECT lower(username) AS u FROM users')).rows.map((r: { u: string }) => r.u));
    const username = usernameForClaims(claims, (n) => names.has(n.toLowerCase()));
    const email = typeof claims.email === 'string' && EMAIL.test(claims.email) ? claims.email : null;
    const userId = await deps.nextId('user');
    // No usable password: a hash of 32 random bytes nobody keeps. The account signs in through the provider.
    const passwordHash = await deps.security.passwords.hash(randomBytes(32).toString('base64url'));
    try {
      await runCommand(system, USERS_STREAM, userDirectory, { type: 'CreateUser', userId, username, role, email, passwordHash, external: { issuer: settings.issuer, subject }, at: at() });
    } catch (err) {
      // Another request created this account (or took the name) meanwhile: look again.
      if (err instanceof AppError && (err.code === 'DUPLICATE_EXTERNAL_IDENTITY' || err.code === 'DUPLICATE_USERNAME')) continue;
      throw err;
    }
    const user = await findUserByExternalIdentity(deps.pool, settings.issuer, subject);
    if (user) return { user, created: true, previousRole: null };
  }
  throw new AppError(409, 'OIDC_USER_CONFLICT', 'The account could not be created: try signing in again.');
}
