import type pg from 'pg';
import type { Projection } from './projection.ts';

const RANK = (role: string) => `(CASE ${role} WHEN 'ADMIN' THEN 2 WHEN 'OPERATOR' THEN 1 ELSE 0 END)`;

export const usersProjection: Projection = {
  name: 'users',
  handles: ['UserCreated', 'UserUpdated', 'UserPasswordChanged', 'UserRoleChanged', 'UserDeleted', 'LoginSucceeded', 'OidcSignInSucceeded'],
  tables: ['users'],
  apply(e) {
    const d = e.data as Record<string, any>;
    switch (e.type) {
      case 'UserCreated':
        return [{ text: 'INSERT INTO users (id, username, role, email, password_hash, created_at, updated_at, oidc_issuer, oidc_subject) VALUES ($1, $2, $3, $4, $5, $6, $6, $7, $8)', values: [d.userId, d.username, d.role, d.email, d.passwordHash, d.at, d.external?.issuer ?? null, d.external?.subject ?? null] }];
      case 'UserUpdated':
        return [{ text: 'UPDATE users SET username = $2, email = $3, updated_at = $4 WHERE id = $1', values: [d.userId, d.after.username, d.after.email, d.at] }];
      case 'UserPasswordChanged':
        // A new password ends what the old one opened: the credential version sessions carry.
        return [{ text: 'UPDATE users SET password_hash = $2, updated_at = $3, credential_version = credential_version + 1 WHERE id = $1', values: [d.userId, d.passwordHash, d.at] }];
      case 'UserRoleChanged':
        // A downgrade ends the sessions opened under the higher role too; an upgrade keeps them.
        return [{ text: `UPDATE users SET role = $2, updated_at = $3, credential_version = credential_version + (CASE WHEN ${RANK('$2')} < ${RANK('role')} THEN 1 ELSE 0 END) WHERE id = $1`, values: [d.userId, d.to, d.at] }];
      case 'UserDeleted':
        return [{ text: 'DELETE FROM users WHERE id = $1', values: [d.userId] }];
      case 'LoginSucceeded':
      case 'OidcSignInSucceeded':
        return [{ text: 'UPDATE users SET last_login_at = $2 WHERE id = $1', values: [d.userId, e.metadata.timestamp] }];
      default:
        return [];
    }
  },
};

export interface UserRow {
  id: number;
  username: string;
  role: 'ADMIN' | 'OPERATOR' | 'VIEWER';
  email: string | null;
  createdAt: string;
  updatedAt: string;
  lastLoginAt: string | null;
}

const COLS = 'id, username, role, email, created_at, updated_at, last_login_at';
const toUser = (r: Record<string, any>): UserRow => ({
  id: r.id,
  username: r.username,
  role: r.role,
  email: r.email,
  createdAt: new Date(r.created_at).toISOString(),
  updatedAt: new Date(r.updated_at).toISOString(),
  lastLoginAt: r.last_login_at ? new Date(r.last_login_at).toISOString() : null,
});

export async function listUsers(pool: pg.Pool, limit: number, offset: number, role?: string): Promise<{ items: UserRow[]; total: number }> {
  const where = role ? 'WHERE role = $3' : '';
  const args: unknown[] = [limit, offset, ...(role ? [role] : [])];
  const r = await pool.query(`SELECT ${COLS}, count(*) OVER () AS total FROM users ${where} ORDER BY id LIMIT $1 OFFSET $2`, args);
  const total = r.rows.length ? Number(r.rows[0].total) : Number((await pool.query(`SELECT count(*) FROM users ${role ? 'WHERE role = $1' : ''}`, role ? [role] : [])).rows[0].count);
  return { items: r.rows.map(toUser), total };
}

export async function getUser(pool: pg.Pool, id: number): Promise<UserRow | null> {
  const r = await pool.query(`SELECT ${COLS} FROM users WHERE id = $1`, [id]);
  return r.rows[0] ? toUser(r.rows[0]) : null;
}

/** For authentication only: includes the password hash and the credential version it belongs to. */
export async function findCredentials(pool: pg.Pool, username: string): Promise<(UserRow & { passwordHash: string; credentialVersion: number }) | null> {
  const r = await pool.query(`SELECT ${COLS}, password_hash, credential_version FROM users WHERE lower(username) = lower($1)`, [username]);
  return r.rows[0] ? { ...toUser(r.rows[0]), passwordHash: r.rows[0].password_hash, credentialVersion: r.rows[0].credential_version } : null;
}

/** A user with its credential version (raised by a password change or reset and a role downgrade), for checking a session. */
export async function getUserCredentialVersion(pool: pg.Pool, id: number): Promise<(UserRow & { credentialVersion: number }) | null> {
  const r = await pool.query(`SELECT ${COLS}, credential_version FROM users WHERE id = $1`, [id]);
  return r.rows[0] ? { ...toUser(r.rows[0]), credentialVersion: r.rows[0].credential_version } : null;
}

/** The user linked to an OpenID Connect account (issuer, subject), or null. */
export async function findUserByExternalIdentity(pool: pg.Pool, issuer: string, subject: string): Promise<UserRow | null> {
  const r = await pool.query(`SELECT ${COLS} FROM users WHERE oidc_issuer = $1 AND oidc_subject = $2`, [issuer, subject]);
  return r.rows[0] ? toUser(r.rows[0]) : null;
}

/** Whether the user is linked to an OpenID Connect account. */
export async function isExternalUser(pool: pg.Pool, id: number): Promise<boolean> {
  return (await pool.query('SELECT 1 FROM users WHERE id = $1 AND oidc_issuer IS NOT NULL', [id])).rowCount! > 0;
}

export async function countUsers(pool: pg.Pool): Promise<number> {
  return Number((await pool.query('SELECT count(*) FROM users')).rows[0].count);
}
