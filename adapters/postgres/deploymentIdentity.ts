// The deployment's own id (migrations/1270_deployment_identity.sql): one value per database,
// shared by every replica on it, where the instance id is per replica. Made at the first start
// that finds none: every starting server offers a fresh UUID with INSERT ... ON CONFLICT DO NOTHING
// and reads back the one row, so servers starting together agree on the first one written (the
// way the key-encryption canary is made, databaseKeyEncryptionCheck.ts). A UUID is a valid
// Kubernetes label value: the kubernetes engine labels its objects lnm.deployment=<id>.
//
//   deploymentIdentity(pool) -> { id, createdAt, created }
import { randomUUID } from 'node:crypto';

export interface Queryable {
  query(text: string, values?: unknown[]): Promise<{ rows: Array<Record<string, any>>; rowCount: number | null }>;
}

export interface DeploymentIdentity {
  id: string;
  createdAt: string;
  /** Whether this call made it (the first start on this database). */
  created: boolean;
}

export async function deploymentIdentity(pool: Queryable, newId: () => string = randomUUID): Promise<DeploymentIdentity> {
  const inserted = await pool.query('INSERT INTO deployment_identity (id, deployment_id) VALUES (1, $1) ON CONFLICT (id) DO NOTHING', [newId()]);
  const row = (await pool.query('SELECT deployment_id, created_at FROM deployment_identity WHERE id = 1')).rows[0];
  if (!row) throw new Error('the deployment id could not be read back from deployment_identity');
  return { id: row.deployment_id as string, createdAt: new Date(row.created_at).toISOString(), created: inserted.rowCount === 1 };
}
