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
}

/** Server-side sessions; the client only holds an opaque token, the store only its hash. */
export interface SessionStore {
  create(input: { userId: number; ip: string | null; userAgent: string | null; now: Date; expiresAt: Date }): Promise<{ token: string; session: SessionRecord }>;
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
  check(username: string, ip: string, now: Date, limits: LoginLimits): { allowed: true; delayMs: number } | { allowed: false; locked: boolean; retryAfterSeconds: number };
  /** After a failed attempt; `lockout` is set once, when this failure starts a lockout. */
  failure(username: string, ip: string, now: Date, limits: LoginLimits): { lockout?: { username: string; ip: string; failures: number; lockedUntil: string } };
  success(username: string, ip: string, now: Date): void;
}
