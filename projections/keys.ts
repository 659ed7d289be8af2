// Read model of keys (public half, current certificate, rotation, expiry status) and of every
// certificate a CA issued, with revocations (what the CRL lists).
import type pg from 'pg';
import type { Projection, SqlStatement } from './projection.ts';
import { registerKeyAuditDescribers } from '../domain/keys/keyAuditDescribers.ts';

// The audit log reads these events through describers registered with the read model that owns them.
registerKeyAuditDescribers();

export const keysProjection: Projection = {
  name: 'keys',
  handles: ['KeyCreated', 'KeyCertificateIssued', 'KeyRotationConfigured', 'KeyRotated', 'CertificateRevoked', 'CertificateExpiring', 'CertificateExpired', 'KeyDeleted'],
  tables: ['keys', 'certificates'],
  apply(e) {
    const d = e.data as Record<string, any>;
    switch (e.type) {
      case 'KeyCreated':
        return [{
          text: `INSERT INTO keys (id, name, description, purpose, provider_id, organization_id, algorithm, curve, key_size, handle, public_key_pem, ethereum_address, imported, created_at, updated_at)
                 VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$14) ON CONFLICT (id) DO NOTHING`,
          values: [d.keyId, d.name, d.description, d.purpose, d.providerId, d.organizationId, d.algorithm, d.curve, d.keySize, d.handle, d.publicKeyPem, d.ethereumAddress, d.imported, d.at],
        }];
      case 'KeyCertificateIssued': {
        const statements: SqlStatement[] = [{
          text: `UPDATE keys SET certificate_pem = $2, serial_number = $3, subject = $4, not_before = $5, not_after = $6, is_ca = $7, issuer_key_id = $8, expiry_status = 'valid', updated_at = $9 WHERE id = $1`,
          values: [d.keyId, d.certificatePem, d.serialNumber, d.subject, d.notBefore, d.notAfter, d.isCA, d.issuerKeyId, d.at],
        }];
        statements.push({
          text: 'INSERT INTO certificates (serial_number, issuer_key_id, key_id, not_after, issued_at) VALUES ($1,$2,$3,$4,$5) ON CONFLICT DO NOTHING',
          values: [d.serialNumber, d.issuerKeyId ?? d.keyId, d.keyId, d.notAfter, d.at],
        });
        return statements;
      }
      case 'KeyRotationConfigured':
        return [{ text: 'UPDATE keys SET rotation_enabled = $2, rotation_interval_days = $3, updated_at = $4 WHERE id = $1', values: [d.keyId, d.enabled, d.intervalDays, d.at] }];
      case 'KeyRotated':
        return [{ text: 'UPDATE keys SET handle = $2, public_key_pem = $3, ethereum_address = $4, last_rotated_at = $5, updated_at = $5 WHERE id = $1', values: [d.keyId, d.handle, d.publicKeyPem, d.ethereumAddress, d.at] }];
      case 'CertificateRevoked':
        return [{
          text: `INSERT INTO certificates (serial_number, issuer_key_id, key_id, not_after, issued_at, revoked_at, revocation_reason) VALUES ($1,$2,$3,$4,$4,$4,$5)
                 ON CONFLICT (issuer_key_id, serial_number) DO UPDATE SET revoked_at = EXCLUDED.revoked_at, revocation_reason = EXCLUDED.revocation_reason`,
          values: [d.serialNumber, d.caKeyId, d.keyId ?? 0, d.revokedAt, d.reason],
        }];
      case 'CertificateExpiring':
        return [{ text: `UPDATE keys SET expiry_status = 'expiring' WHERE id = $1 AND serial_number = $2`, values: [d.keyId, d.serialNumber] }];
      case 'CertificateExpired':
        return [{ text: `UPDATE keys SET expiry_status = 'expired' WHERE id = $1 AND serial_number = $2`, values: [d.keyId, d.serialNumber] }];
      case 'KeyDeleted':
        return [{ text: 'DELETE FROM keys WHERE id = $1', values: [d.keyId] }];
      default:
        return [];
    }
  },
};

export interface KeyRow {
  id: number;
  name: string;
  description: string | null;
  purpose: string;
  providerId: number;
  providerName: string;
  providerType: string;
  organizationId: number | null;
  algorithm: 'EC' | 'RSA' | 'ED25519';
  curve: string | null;
  keySize: number | null;
  handle: string;
  publicKey: string;
  ethereumAddress: string | null;
  imported: boolean;
  certificate: null | { pem: string; serialNumber: string; subject: string; notBefore: string; notAfter: string; isCA: boolean; issuerKeyId: number | null };
  expiresAt: string | null;
  expiryStatus: string;
  isCA: boolean;
  rotation: { enabled: boolean; intervalDays: number | null; lastRotatedAt: string | null };
  /** What uses the key now: an organization (its CAs, admin), a node (its identity, TLS), an evm network (a validator). */
  usedBy: KeyUser[];
  createdAt: string;
  updatedAt: string;
}

export interface KeyUser {
  type: 'organization' | 'node' | 'network';
  id: number;
  name: string;
  /** What the key is to it: signing CA, TLS CA, admin, identity, TLS, validator. */
  as: string;
}

const iso = (v: unknown) => (v ? new Date(v as string).toISOString() : null);
const toRow = (r: Record<string, any>): KeyRow => ({
  id: r.id, name: r.name, description: r.description, purpose: r.purpose,
  providerId: r.provider_id, providerName: r.provider_name ?? (r.provider_id === 1 ? 'Database' : String(r.provider_id)), providerType: r.provider_type ?? 'DATABASE',
  organizationId: r.organization_id, algorithm: r.algorithm, curve: r.curve, keySize: r.key_size, handle: r.handle,
  publicKey: r.public_key_pem, ethereumAddress: r.ethereum_address, imported: r.imported,
  certificate: r.certificate_pem
    ? { pem: r.certificate_pem, serialNumber: r.serial_number, subject: r.subject, notBefore: iso(r.not_before)!, notAfter: iso(r.not_after)!, isCA: r.is_ca, issuerKeyId: r.issuer_key_id }
    : null,
  expiresAt: iso(r.not_after), expiryStatus: r.expiry_status, isCA: r.is_ca,
  rotation: { enabled: r.rotation_enabled, intervalDays: r.rotation_interval_days, lastRotatedAt: iso(r.last_rotated_at) },
  usedBy: r.used_by ?? [],
  createdAt: iso(r.created_at)!, updatedAt: iso(r.updated_at)!,
});

// What uses key k, read where each user is recorded: organizations (their three keys), nodes
// (their own keys, migration 1245) and evm networks (their validators' keyId).
const usedBy = `(SELECT coalesce(jsonb_agg(u.v ORDER BY u.ord, u.id), '[]'::jsonb) FROM (
    SELECT 1 AS ord, o.id, jsonb_build_object('type', 'organization', 'id', o.id, 'name', o.msp_id, 'as', CASE k.id WHEN o.sign_key_id THEN 'signing CA' WHEN o.tls_key_id THEN 'TLS CA' ELSE 'admin' END) AS v
      FROM organizations o WHERE k.id IN (o.sign_key_id, o.tls_key_id, o.admin_key_id)
    UNION ALL
    SELECT 2, n.id, jsonb_build_object('type', 'node', 'id', n.id, 'name', n.name, 'as', CASE WHEN n.key_ids[1] = k.id THEN 'identity' ELSE 'TLS' END)
      FROM nodes n WHERE n.key_ids @> ARRAY[k.id]
    UNION ALL
    SELECT 3, e.id, jsonb_build_object('type', 'network', 'id', e.id, 'name', e.name, 'as', 'validator')
      FROM evm_networks e WHERE e.validators @> jsonb_build_array(jsonb_build_object('keyId', k.id))
  ) u)`;

const select = `SELECT k.*, p.name AS provider_name, p.type AS provider_type, ${usedBy} AS used_by, count(*) OVER () AS total FROM keys k LEFT JOIN key_providers p ON p.id = k.provider_id`;

export interface KeyFilter {
  organizationId?: number;
  providerId?: number;
  algorithm?: string;
  curve?: string;
  purpose?: string;
  isCA?: boolean;
  /** true: only keys nothing uses; false: only keys in use. */
  unused?: boolean;
  /** Only these keys. */
  ids?: number[];
}

export async function listKeys(pool: pg.Pool, filter: KeyFilter, limit: number, offset: number) {
  const where: string[] = [];
  const values: unknown[] = [];
  const add = (sql: string, v: unknown) => {
    values.push(v);
    where.push(sql.replace('?', `$${values.length}`));
  };
  if (filter.organizationId !== undefined) add('k.organization_id = ?', filter.organizationId);
  if (filter.providerId !== undefined) add('k.provider_id = ?', filter.providerId);
  if (filter.algorithm !== undefined) add('k.algorithm = ?', filter.algorithm);
  if (filter.curve !== undefined) add('k.curve = ?', filter.curve);
  if (filter.purpose !== undefined) add('k.purpose = ?', filter.purpose);
  if (filter.isCA !== undefined) add('k.is_ca = ?', filter.isCA);
  if (filter.ids !== undefined) add('k.id = ANY(?)', filter.ids);
  if (filter.unused !== undefined) where.push(`jsonb_array_length(${usedBy}) ${filter.unused ? '=' : '>'} 0`);
  values.push(limit, offset);
  const r = await pool.query(`${select} ${where.length ? 'WHERE ' + where.join(' AND ') : ''} ORDER BY k.id LIMIT $${values.length - 1} OFFSET $${values.length}`, values);
  return { items: r.rows.map(toRow), total: r.rows.length ? Number(r.rows[0].total) : 0 };
}

export async function getKey(pool: pg.Pool, id: number): Promise<KeyRow | null> {
  const r = await pool.query(`${select} WHERE k.id = $1`, [id]);
  return r.rows[0] ? toRow(r.rows[0]) : null;
}

export async function findCertificate(pool: pg.Pool, serialNumber: string): Promise<{ issuerKeyId: number; keyId: number; revokedAt: string | null } | null> {
  const r = await pool.query('SELECT issuer_key_id, key_id, revoked_at FROM certificates WHERE serial_number = $1 ORDER BY issued_at DESC LIMIT 1', [serialNumber]);
  return r.rows[0] ? { issuerKeyId: r.rows[0].issuer_key_id, keyId: r.rows[0].key_id, revokedAt: iso(r.rows[0].revoked_at) } : null;
}

/** Whether the CA key revoked this serial number, when and why (null: not revoked). */
export async function certificateRevocation(pool: pg.Pool, issuerKeyId: number, serialNumber: string): Promise<{ revokedAt: string; reason: string } | null> {
  const r = await pool.query('SELECT revoked_at, revocation_reason FROM certificates WHERE issuer_key_id = $1 AND serial_number = $2 AND revoked_at IS NOT NULL', [issuerKeyId, serialNumber]);
  return r.rows[0] ? { revokedAt: iso(r.rows[0].revoked_at)!, reason: r.rows[0].revocation_reason } : null;
}
