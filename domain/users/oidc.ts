// OpenID Connect sign-in: the pure rules. Which role a provider's claims give (a claim such as
// `groups` mapped through LNM_OIDC_ROLE_MAP, else the default role, else no access), who may
// still use a local password (LNM_LOCAL_LOGIN), the reasons a sign-in or a bearer token is
// refused, and the username a first sign-in gets. The provider itself (discovery, PKCE, token
// and key checks) is a port (OidcRelyingParty in ports.ts) served by openid-client and jose.
import { ROLES, type Role } from './roles.ts';
import { usernameIssue } from './userDirectory.ts';

/** Why a sign-in or a bearer token was refused: what the audit entry and the event say. */
export const OIDC_FAILURE_REASONS = [
  'bad state', // the callback's state does not match the one this browser started with (or none was started)
  'login expired', // the pending sign-in (state, nonce, PKCE verifier) is older than its 10 minutes
  'provider error', // the provider answered the callback with an error (access_denied, ...)
  'code rejected', // the token endpoint refused the code: expired, already used, or not for this client
  'client rejected', // the token endpoint refused this server's client credentials
  'bad id token', // nonce, issuer, audience or signature of the ID token did not check out
  'bad userinfo', // the userinfo endpoint answered for another subject, refused the access token, or answered badly
  'unknown issuer', // a bearer token from an issuer other than LNM_OIDC_ISSUER
  'wrong audience', // a bearer token not meant for LNM_OIDC_AUDIENCE
  'expired token', // a bearer token past its exp
  'bad token', // a bearer token that is not a valid JWT of the provider (signature, unknown key, missing claims)
  'no role', // the claims map to no role and LNM_OIDC_DEFAULT_ROLE is none
  'provider unreachable', // discovery, the token endpoint or the userinfo endpoint could not be reached (or took over 10 s)
] as const;
export type OidcFailureReason = (typeof OIDC_FAILURE_REASONS)[number];

/** A refused sign-in or token, with the reason to audit; the message never carries a secret. */
export class OidcFailure extends Error {
  constructor(readonly reason: OidcFailureReason, message: string) {
    super(message);
  }
}

export interface RoleMapping {
  /** The claim holding the user's groups or roles: a string or an array of strings. */
  claim: string;
  /** Claim value -> role. A user in several mapped groups gets the highest role. */
  map: Record<string, Role>;
  /** Role of a user in no mapped group; null: no access. */
  defaultRole: Role | null;
}

/** Parses `admins=ADMIN,ops=OPERATOR`; throws an Error naming the bad part. */
export function parseRoleMap(text: string): Record<string, Role> {
  const out: Record<string, Role> = {};
  for (const part of text.split(',').map((p) => p.trim()).filter(Boolean)) {
    const i = part.lastIndexOf('=');
    const group = i > 0 ? part.slice(0, i).trim() : '';
    const role = i > 0 ? part.slice(i + 1).trim().toUpperCase() : '';
    if (!group || !(ROLES as readonly string[]).includes(role)) throw new Error(`"${part}" is not GROUP=ROLE with ROLE one of ${ROLES.join(', ')}`);
    out[group] = role as Role;
  }
  return out;
}

const rank: Record<Role, number> = { ADMIN: 3, OPERATOR: 2, VIEWER: 1 };

/** The values of a claim: a string, an array of strings, or a space-separated string (scope-like). */
export function claimValues(claims: Record<string, unknown>, claim: string): string[] {
  // Dotted names reach into nested objects (realm_access.roles).
  let v: unknown = claims;
  for (const k of claim.split('.')) v = v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined;
  if (typeof v === 'string') return v.split(/[\s,]+/).filter(Boolean);
  if (Array.isArray(v)) return v.filter((x): x is string => typeof x === 'string');
  return [];
}

/** The role the claims give, or null for no access. */
export function roleFromClaims(claims: Record<string, unknown>, m: RoleMapping): Role | null {
  let best: Role | null = null;
  for (const value of claimValues(claims, m.claim)) {
    const role = m.map[value];
    if (role && (!best || rank[role] > rank[best])) best = role;
  }
  return best ?? m.defaultRole;
}

/** LNM_LOCAL_LOGIN: everyone, no one, or only the listed break-glass usernames. */
export type LocalLoginPolicy = { mode: 'on' } | { mode: 'off' } | { mode: 'only'; usernames: string[] };

export function parseLocalLogin(text: string): LocalLoginPolicy {
  const t = text.trim();
  if (t === '' || t.toLowerCase() === 'on') return { mode: 'on' };
  if (t.toLowerCase() === 'off') return { mode: 'off' };
  const usernames = t.split(',').map((u) => u.trim()).filter(Boolean);
  const bad = usernames.find((u) => usernameIssue(u));
  if (bad) throw new Error(`"${bad}" is not a username (on, off, or a comma-separated list of break-glass usernames)`);
  return { mode: 'only', usernames };
}

export function localLoginAllowed(p: LocalLoginPolicy, username: string): boolean {
  if (p.mode === 'on') return true;
  if (p.mode === 'off') return false;
  return p.usernames.some((u) => u.toLowerCase() === username.toLowerCase());
}

/**
 * The username of a first sign-in: preferred_username, else the e-mail, else `oidc-<subject>`,
 * kept within the username rules; `taken` says whether a name is in use, and a taken name gets a
 * numeric suffix. The account is linked by (issuer, subject) only: the name is a label.
 */
export function usernameForClaims(claims: Record<string, unknown>, taken: (name: string) => boolean): string {
  const clean = (s: unknown) => (typeof s === 'string' ? s.replace(/[^A-Za-z0-9._@-]/g, '-').replace(/^[^A-Za-z0-9]+/, '').slice(0, 56) : '');
  const candidates = [clean(claims.preferred_username), clean(claims.email), clean(`oidc-${String(claims.sub ?? '')}`)].filter((c) => c && !usernameIssue(c));
  const base = candidates[0] ?? 'oidc-user';
  if (!taken(base)) return base;
  for (let i = 2; i < 10_000; i++) if (!taken(`${base}-${i}`)) return `${base}-${i}`;
  return `${base}-${Date.now()}`;
}
