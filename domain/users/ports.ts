// What the identity context needs from the outside world.

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(password: string, encoded: string): Promise<boolean>;
}

export interface SessionRecord {
  id: string;
  userId: number;
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
  /** The user's credential version its password (or sign-in) was checked against: the session works only while the user is still at it. */
  credentialVersion: number;
}

/** Server-side sessions; the client only holds an opaque token, the store only its hash. */
export interface SessionStore {
  /** A new session, made only while the user is still at `credentialVersion` (null: it has moved on, or the user is gone). */
  create(input: { userId: number; ip: string | null; userAgent: string | null; now: Date; expiresAt: Date; credentialVersion: number }): Promise<{ token: string; session: SessionRecord } | null>;
  find(token: string): Promise<SessionRecord | null>;
  touch(id: string, now: Date): Promise<void>;
  revoke(id: string, now: Date): Promise<void>;
  revokeAllForUser(userId: number, now: Date): Promise<number>;
}

export interface GeneratedApiKey {
  /** The full key: shown once at creation, never stored. */
  key: string;
  hash: string;
  displayPrefix: string;
}

export interface ApiKeyCodec {
  generate(): GeneratedApiKey;
  /** Hash of a presented key, or null when it is not shaped like one of our keys. */
  hashOf(presented: string): string | null;
}

export interface LoginLimits {
  softLimit: number;
  hardLimit: number;
  windowMinutes: number;
  lockoutMinutes: number;
}

/** Brute-force protection over failed logins, per username and per client address. */
export interface LoginGuard {
  /** Before checking a password: refused while locked out or while a slow-down delay runs. */
  check(username: string, ip: string, now: Date, limits: LoginLimits): LoginGate | Promise<LoginGate>;
  /** After a failed attempt; `lockout` is set once, when this failure starts a lockout. */
  failure(username: string, ip: string, now: Date, limits: LoginLimits): LoginFailure | Promise<LoginFailure>;
  success(username: string, ip: string, now: Date): void | Promise<void>;
}

export type LoginGate = { allowed: true; delayMs: number } | { allowed: false; locked: boolean; retryAfterSeconds: number };
export type LoginFailure = { lockout?: { username: string; ip: string; failures: number; lockedUntil: string } };

/** What a sign-in through OpenID Connect keeps between the redirect and the callback. Secret:
 * it travels only sealed (encrypted and authenticated) in a short-lived HttpOnly cookie. */
export interface PendingOidcLogin {
  state: string;
  nonce: string;
  codeVerifier: string;
  /** Epoch ms after which the callback is refused. */
  expiresAt: number;
  /** Local path to land on after the sign-in. */
  returnTo: string;
}

/** The OpenID provider's public facts, as GET /auth/providers shows them (never the client secret). */
export interface OidcPublicSettings {
  issuer: string;
  clientId: string;
  redirectUrl: string;
  scopes: string[];
  roleClaim: string;
  roleMap: Record<string, string>;
  defaultRole: string | null;
  audience: string | null;
}

/** The relying party (openid-client for the code flow, jose for bearer tokens). Failures throw
 * OidcFailure (domain/users/oidc.ts) with the reason; an unreachable provider throws
 * OidcFailure('provider unreachable'). */
export interface OidcRelyingParty {
  readonly settings: OidcPublicSettings;
  /** Discovery (cached once it succeeded); throws when the provider cannot be reached. */
  ready(): Promise<void>;
  /** The provider's authorization URL (code flow, PKCE S256, state, nonce) and what to keep until the callback. */
  beginLogin(returnTo: string, now: Date): Promise<{ url: string; pending: PendingOidcLogin }>;
  /** Checks the callback against the pending login, redeems the code, checks the ID token, reads userinfo for its subject; the claims of both (the ID token's win). */
  completeLogin(callbackUrl: URL, pending: PendingOidcLogin): Promise<Record<string, unknown>>;
  /** Verifies a JWT access token: signature (keys refetched on an unknown kid), issuer, audience, expiry. */
  verifyAccessToken(token: string): Promise<Record<string, unknown>>;
  /** The pending login sealed for a cookie (AES-256-GCM: secret and tamper-proof), and back; null when altered or foreign. */
  sealPending(pending: PendingOidcLogin): string;
  openPending(sealed: string): PendingOidcLogin | null;
  /** Where to send the browser to end the provider's session too, or null when it offers no end_session_endpoint. */
  endSessionUrl(postLogoutRedirect: string | null): Promise<string | null>;
}
