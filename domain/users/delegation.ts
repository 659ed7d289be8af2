// Credentials that make other credentials (an API key creating an API key, an API key issuing a
// node-sharing invitation) delegate what they hold: what they make may not hold more. Its scopes
// are within the maker's own (its role's permissions, narrowed by an API key's scopes) and it
// ends no later than the maker does. Left out, they are the maker's: its scopes, its expiry.
import { AppError } from '../shared/errors.ts';
import { rolePermissions, type Permission } from './permissions.ts';
import type { Role } from './roles.ts';

/** Who delegates: the caller's role, and when it authenticated with an API key, the key's scopes and expiry. */
export interface Delegator {
  role: Role;
  /** An API key's scopes; absent for a password, session or OpenID sign-in (the whole role). */
  scopes?: readonly string[];
  /** When the delegating credential stops working (an API key's expiry); absent or null: never. */
  expiresAt?: string | null;
}

export type DelegationRule = 'scopes within the delegating credential' | 'expiry within the delegating credential';

/** 403 DELEGATION_EXCEEDED: what was asked for is more than the credential asking holds. */
export class DelegationExceededError extends AppError {
  constructor(rule: DelegationRule, message: string, extra: Record<string, unknown> = {}) {
    super(403, 'DELEGATION_EXCEEDED', message, { extra: { rule, ...extra } });
  }
}

/** The permissions a delegator may hand on. */
export function delegableScopes(d: Delegator): Permission[] {
  const all = rolePermissions[d.role];
  if (!d.scopes || d.scopes.includes('*')) return [...all];
  return all.filter((p) => d.scopes!.includes(p));
}

/**
 * The scopes of what is made: the requested ones, each of which the delegator's API key must
 * hold (the role check, a 400, is the caller's), or, left out, everything the delegator may hand on.
 */
export function delegatedScopes(d: Delegator, requested: readonly string[] | undefined): string[] {
  const mine = delegableScopes(d);
  if (requested === undefined) return mine;
  if (!d.scopes) return [...requested];
  const beyond = requested.filter((s) => !(mine as string[]).includes(s));
  if (beyond.length) {
    throw new DelegationExceededError('scopes within the delegating credential',
      `An API key can only give scopes it holds itself: ${beyond.join(', ')} ${beyond.length === 1 ? 'is' : 'are'} not among this key's scopes.`,
      { scopes: beyond });
  }
  return [...requested];
}

/**
 * When what is made expires: `requested` (an ISO time; null: never; undefined: not said). A
 * delegator that expires caps it: not said, it is the delegator's own expiry (or `fallback` when
 * that is sooner); never, or later, is refused. No delegator (the command line): no limit.
 */
export function delegatedExpiry(d: Pick<Delegator, 'expiresAt'> | null, requested: string | null | undefined, fallback: string | null = null): string | null {
  const limit = d?.expiresAt ?? null;
  if (limit === null) return requested === undefined ? fallback : requested;
  if (requested === undefined) return fallback !== null && Date.parse(fallback) < Date.parse(limit) ? fallback : limit;
  if (requested === null || Date.parse(requested) > Date.parse(limit)) {
    throw new DelegationExceededError('expiry within the delegating credential',
      `A credential made with an API key cannot outlive that key: it expires at ${limit}, and ${requested === null ? 'no expiry' : requested} is later.`,
      { limit });
  }
  return requested;
}

/**
 * A password for an account of `role` (a new user, a password reset, a role given) is a credential
 * with every permission of that role and no expiry: an API key hands one out only when it holds
 * every one of those permissions and does not expire itself.
 */
export function assertAccountDelegable(d: Delegator | null, role: Role): void {
  if (!d?.scopes) return;
  const mine: string[] = delegableScopes(d);
  const beyond = rolePermissions[role].filter((p) => !mine.includes(p));
  if (beyond.length) {
    const named = beyond.length > 5 ? `${beyond.slice(0, 5).join(', ')} and ${beyond.length - 5} more` : beyond.join(', ');
    throw new DelegationExceededError('scopes within the delegating credential',
      `An API key can only give an account the role ${role} when it holds every permission of that role itself: ${named} ${beyond.length === 1 ? 'is' : 'are'} not among this key's scopes.`,
      { role, scopes: beyond });
  }
  // A password never expires.
  delegatedExpiry(d, null);
}
