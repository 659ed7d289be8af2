export type Role = 'ADMIN' | 'OPERATOR' | 'VIEWER';

/** Who is calling, as resolved by the authentication middleware. */
export interface Identity {
  userId: number;
  username: string;
  role: Role;
  /** How the caller authenticated. */
  method: 'session' | 'basic' | 'api_key' | 'oidc_token';
  sessionId?: string;
  apiKeyId?: number;
  /** API keys carry their own scopes (a subset of the role's permissions). */
  scopes?: string[];
  /** An API key's expiry (null: none); what the key makes may not outlive it (domain/users/delegation.ts). */
  expiresAt?: string | null;
}
