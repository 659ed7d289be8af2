import type pg from 'pg';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { SessionRecord, SessionStore } from '../../domain/users/ports.ts';

const hashToken = (t: string) => createHash('sha256').update(t).digest('hex');
const toRecord = (r: Record<string, any>): SessionRecord => ({ id: r.id, userId: r.user_id, createdAt: r.created_at, lastSeenAt: r.last_seen_at, expiresAt: r.expires_at, credentialVersion: r.credential_version });

export function postgresSessionStore(pool: pg.Pool): SessionStore {
  return {
    async create({ userId, ip, userAgent, now, expiresAt, credentialVersion }) {
      const token = randomBytes(32).toString('base64url');
      const id = randomUUID();
      // One statement: no session for a password (or role) the user no longer has. A reset
      // committed after this statement's snapshot is caught when the session is used.
      const r = await pool.query(
        `INSERT INTO sessions (id, token_hash, user_id, created_at, last_seen_at, expires_at, ip, user_agent, credential_version)
         SELECT $1,$2,$3,$4,$4,$5,$6,$7,$8 WHERE EXISTS (SELECT 1 FROM users WHERE id = $3 AND credential_version = $8)`,
        [id, hashToken(token), userId, now, expiresAt, ip, userAgent, credentialVersion],
      );
      if (!r.rowCount) return null;
      return { token, session: { id, userId, createdAt: now, lastSeenAt: now, expiresAt, credentialVersion } };
    },
    async find(token) {
      const r = await pool.query('SELECT * FROM sessions WHERE token_hash = $1 AND revoked_at IS NULL', [hashToken(token)]);
      return r.rows[0] ? toRecord(r.rows[0]) : null;
    },
    async touch(id, now) {
      await pool.query('UPDATE sessions SET last_seen_at = $2 WHERE id = $1', [id, now]);
    },
    async revoke(id, now) {
      await pool.query('UPDATE sessions SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL', [id, now]);
    },
    async revokeAllForUser(userId, now) {
      const r = await pool.query('UPDATE sessions SET revoked_at = $2 WHERE user_id = $1 AND revoked_at IS NULL', [userId, now]);
      return r.rowCount ?? 0;
    },
  };
}
