// Read model of key providers. The built-in database provider (id 1) is not a row: the queries
// add it, default unless another provider is marked default.
import type pg from 'pg';
import type { Projection } from './projection.ts';
import { DATABASE_PROVIDER_ID } from '../domain/keyProviders/keyProviders.ts';

export const keyProvidersProjection: Projection = {
  name: 'key_providers',
  handles: ['KeyProviderCreated', 'KeyProviderDeleted'],
  tables: ['key_providers'],
  apply(e) {
    const d = e.data as Record<string, any>;
    switch (e.type) {
      case 'KeyProviderCreated': {
        const insert = { text: 'INSERT INTO key_providers (id, name, type, is_default, public_config, sealed_config, created_at) VALUES ($1,$2,$3,$4,$5,$6,$7) ON CONFLICT (id) DO NOTHING', values: [d.providerId, d.name, d.providerType, d.isDefault, JSON.stringify(d.publicConfig), d.sealedConfig, d.at] };
        // One default at a time: a new default takes over.
        return d.isDefault ? [{ text: 'UPDATE key_providers SET is_default = false WHERE is_default', values: [] }, insert] : [insert];
      }
      case 'KeyProviderDeleted':
        return [{ text: 'DELETE FROM key_providers WHERE id = $1', values: [d.providerId] }];
      default:
        return [];
    }
  },
};

export interface KeyProviderRow {
  id: number;
  name: string;
  type: 'DATABASE' | 'VAULT' | 'AWS_KMS';
  isDefault: boolean;
  config: Record<string, unknown>;
  builtIn: boolean;
  createdAt: string | null;
}

const toRow = (r: Record<string, any>): KeyProviderRow => ({
  id: r.id, name: r.name, type: r.type, isDefault: r.is_default, config: r.public_config, builtIn: false, createdAt: new Date(r.created_at).toISOString(),
});

function databaseProvider(isDefault: boolean): KeyProviderRow {
  return { id: DATABASE_PROVIDER_ID, name: 'Database', type: 'DATABASE', isDefault, builtIn: true, createdAt: null, config: { encryption: 'AES-256-GCM, key derived by PBKDF2-SHA256 from KEY_ENCRYPTION_KEY with a salt per key' } };
}

export async function listKeyProviders(pool: pg.Pool): Promise<KeyProviderRow[]> {
  const r = await pool.query('SELECT * FROM key_providers ORDER BY id');
  const rows = r.rows.map(toRow);
  return [databaseProvider(!rows.some((p) => p.isDefault)), ...rows];
}

export async function getKeyProvider(pool: pg.Pool, id: number): Promise<KeyProviderRow | null> {
  return (await listKeyProviders(pool)).find((p) => p.id === id) ?? null;
}

export async function defaultKeyProviderId(pool: pg.Pool): Promise<number> {
  const r = await pool.query('SELECT id FROM key_providers WHERE is_default LIMIT 1');
  return r.rows[0]?.id ?? DATABASE_PROVIDER_ID;
}

export async function keyCountOfProvider(pool: pg.Pool, id: number): Promise<number> {
  const r = await pool.query('SELECT count(*)::int AS n FROM keys WHERE provider_id = $1', [id]);
  return r.rows[0].n;
}
