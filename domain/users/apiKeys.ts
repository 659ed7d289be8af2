// API keys (pro edition): one stream per key. Only the SHA-256 of the key is ever stored.
import type { Decider } from '../shared/decider.ts';
import { assertNever } from '../shared/decider.ts';
import { ConflictError, NotFoundError } from '../shared/errors.ts';

export const apiKeyStream = (id: number) => `api-key-${id}`;

export interface ApiKeyState {
  status: 'none' | 'active' | 'revoked' | 'expired';
  apiKeyId?: number;
  userId?: number;
  name?: string;
}

export type ApiKeyEvent =
  | { type: 'ApiKeyCreated'; data: { apiKeyId: number; userId: number; username: string; name: string; keyHash: string; displayPrefix: string; scopes: string[]; expiresAt: string | null; at: string } }
  | { type: 'ApiKeyRevoked'; data: { apiKeyId: number; userId: number; name: string; byUserId: number | null; reason: string; at: string } }
  | { type: 'ApiKeyExpired'; data: { apiKeyId: number; userId: number; name: string; at: string } };

export type ApiKeyCommand =
  | { type: 'CreateApiKey'; apiKeyId: number; userId: number; username: string; name: string; keyHash: string; displayPrefix: string; scopes: string[]; expiresAt: string | null; at: string }
  | { type: 'RevokeApiKey'; apiKeyId: number; byUserId: number | null; reason: string; at: string }
  | { type: 'ExpireApiKey'; apiKeyId: number; at: string };

export const apiKeys: Decider<ApiKeyState, ApiKeyCommand, ApiKeyEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve(s, e) {
    switch (e.type) {
      case 'ApiKeyCreated':
        return { status: 'active', apiKeyId: e.data.apiKeyId, userId: e.data.userId, name: e.data.name };
      case 'ApiKeyRevoked':
        return { ...s, status: 'revoked' };
      case 'ApiKeyExpired':
        return { ...s, status: 'expired' };
      default:
        return assertNever(e);
    }
  },
  decide(c, s) {
    switch (c.type) {
      case 'CreateApiKey':
        if (s.status !== 'none') throw new ConflictError(`API key ${c.apiKeyId} exists already.`);
        return [{ type: 'ApiKeyCreated', data: { apiKeyId: c.apiKeyId, userId: c.userId, username: c.username, name: c.name, keyHash: c.keyHash, displayPrefix: c.displayPrefix, scopes: c.scopes, expiresAt: c.expiresAt, at: c.at } }];
      case 'RevokeApiKey':
        if (s.status === 'none') throw new NotFoundError('API key', c.apiKeyId);
        if (s.status === 'revoked') return [];
        return [{ type: 'ApiKeyRevoked', data: { apiKeyId: c.apiKeyId, userId: s.userId!, name: s.name!, byUserId: c.byUserId, reason: c.reason, at: c.at } }];
      case 'ExpireApiKey':
        // Only an active key expires; a revoked one stays revoked.
        if (s.status !== 'active') return [];
        return [{ type: 'ApiKeyExpired', data: { apiKeyId: c.apiKeyId, userId: s.userId!, name: s.name!, at: c.at } }];
      default:
        return assertNever(c);
    }
  },
};
