import type pg from 'pg';
import type { Projection } from './projection.ts';

export const apiKeysProjection: Projection = {
  name: 'api_keys',
  handles: ['ApiKeyCreated', 'ApiKeyRevoked', 'ApiKeyExpired', 'UserDeleted'],
  tables: ['api_keys'],
  apply(e) {
    const d = e.data as Record<string, any>;
    switch (e.type) {
      case 'ApiKeyCreated':
        return [{ text: 'INSERT INTO api_keys (id, user_id, username, name, key_hash, display_prefix, scopes, expires_at, created_at) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9)', values: [d.apiKeyId, d.userId, d.username, d.name, d.keyHash, d.displayPrefix, d.scopes, d.expiresAt, d.at] }];
      case 'ApiKeyRevoked':
        return [{ text: 'UPDATE api_keys SET revoked_at = $2, revoked_reason = $3 WHERE id = $1', values: [d.apiKeyId, d.at, d.reason] }];
      case 'UserDeleted':
        // A deleted user's keys stop working at once.
        return [{ text: `UPDATE api_keys SET revoked_at = $2, revoked_reason = 'user deleted' WHERE user_id = $1 AND revoked_at IS NULL`, values: [d.userId, d.at] }];
      default:
        return [];
    }
  },
};

export interface ApiKeyRow {
  id: number;
  userId: number;
  username: string;
  name: string;
  displayPrefix: string;
  scopes: string[];
  expiresAt: string | null;
  createdAt: string;
  revokedAt: string | null;
  status: 'active' | 'revoked' | 'expired';
}

const iso = (v: unknown) => (v ? new Date(v as string).toISOString() : null);
const toRow = (r: Record<string, any>, now: Date): ApiKeyRow => ({
  id: r.id,
  userId: r.user_id,
  username: r.username,
  name: r.name,
  displayPrefix: r.display_prefix,
  scopes: r.scopes,
  expiresAt: iso(r.expires_at),
  createdAt: iso(r.created_at)!,
  revokedAt: iso(r.revoked_at),
  status: r.revoked_at ? 'revoked' : r.expires_at && new Date(r.expires_at) <= now ? 'expired' : 'active',
});

export async function listApiKeys(pool: pg.Pool, now: Date, limit: number, offset: number, userId?: number) {
  const where = userId === undefined ? '' : 'WHERE user_id = $3';
  const r = await pool.query(`SELECT *, count(*) OVER () AS total FROM api_keys ${where} ORDER BY id LIMIT $1 OFFSET $2`, [limit, offset, ...(userId === undefined ? [] : [userId])]);
  return { items: r.rows.map((x) => toRow(x, now)), total: r.rows.length ? Number(r.rows[0].total) : 0 };
}

export async function getApiKey(pool: pg.Pool, id: number, now: Date): Promise<ApiKeyRow | null> {
  const r = await pool.query('SELECT * FROM api_keys WHERE id = $1', [id]);
  return r.rows[0] ? toRow(r.rows[0], now) : null;
}

export async function findApiKeyByHash(pool: pg.Pool, keyHash: string, now: Date): Promise<ApiKeyRow | null> {
  const r = await pool.query('SELECT * FROM api_keys WHERE key_hash = $1', [keyHash]);
  return r.rows[0] ? toRow(r.rows[0], now) : null;
}
