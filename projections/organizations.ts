// Read model of organizations, and the check other contexts extend so that an organization
// still used (by nodes, networks, ...) is not deleted.
import type pg from 'pg';
import type { Projection } from './projection.ts';
import type { OrganizationUsage } from '../domain/organizations/organizations.ts';

export const organizationsProjection: Projection = {
  name: 'organizations',
  handles: ['OrganizationCreated', 'OrganizationUpdated', 'OrganizationDeleted'],
  tables: ['organizations'],
  apply(e) {
    const d = e.data as Record<string, any>;
    switch (e.type) {
      case 'OrganizationCreated':
        return [{ text: 'INSERT INTO organizations (id, name, msp_id, description, provider_id, sign_key_id, tls_key_id, admin_key_id, created_at, updated_at) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$9) ON CONFLICT (id) DO NOTHING', values: [d.organizationId, d.name, d.mspId, d.description, d.providerId, d.signKeyId, d.tlsKeyId, d.adminKeyId, d.at] }];
      case 'OrganizationUpdated':
        return [{ text: 'UPDATE organizations SET name = $2, description = $3, updated_at = $4 WHERE id = $1', values: [d.organizationId, d.after.name, d.after.description, d.at] }];
      case 'OrganizationDeleted':
        return [{ text: 'DELETE FROM organizations WHERE id = $1', values: [d.organizationId] }];
      default:
        return [];
    }
  },
};

export interface OrganizationRow {
  id: number;
  name: string;
  mspId: string;
  description: string | null;
  providerId: number;
  signKeyId: number | null;
  tlsKeyId: number | null;
  adminKeyId: number | null;
  createdAt: string;
  updatedAt: string;
}

const toRow = (r: Record<string, any>): OrganizationRow => ({
  id: r.id, name: r.name, mspId: r.msp_id, description: r.description, providerId: r.provider_id,
  signKeyId: r.sign_key_id, tlsKeyId: r.tls_key_id, adminKeyId: r.admin_key_id,
  createdAt: new Date(r.created_at).toISOString(), updatedAt: new Date(r.updated_at).toISOString(),
});

export async function listOrganizations(pool: pg.Pool, limit: number, offset: number) {
  const r = await pool.query('SELECT *, count(*) OVER () AS total FROM organizations ORDER BY id LIMIT $1 OFFSET $2', [limit, offset]);
  return { items: r.rows.map(toRow), total: r.rows.length ? Number(r.rows[0].total) : 0 };
}

export async function getOrganization(pool: pg.Pool, id: number): Promise<OrganizationRow | null> {
  const r = await pool.query('SELECT * FROM organizations WHERE id = $1', [id]);
  return r.rows[0] ? toRow(r.rows[0]) : null;
}

/** Case-sensitive, as mspIds are. */
export async function getOrganizationByMspId(pool: pg.Pool, mspId: string): Promise<OrganizationRow | null> {
  const r = await pool.query('SELECT * FROM organizations WHERE msp_id = $1', [mspId]);
  return r.rows[0] ? toRow(r.rows[0]) : null;
}

/** What uses an organization, as another context's read model sees it. */
export type OrganizationUsageCheck = (pool: pg.Pool, organizationId: number) => Promise<OrganizationUsage[]>;

const usageChecks: OrganizationUsageCheck[] = [];

/**
 * Nodes, networks and any later context register here (at module load of their projection):
 * DELETE /organizations/{id} is refused with 409 while any check reports a use.
 */
export function registerOrganizationUsageCheck(check: OrganizationUsageCheck): void {
  usageChecks.push(check);
}

export async function organizationUsage(pool: pg.Pool, organizationId: number): Promise<OrganizationUsage[]> {
  const all = await Promise.all(usageChecks.map((c) => c(pool, organizationId)));
  return all.flat();
}
