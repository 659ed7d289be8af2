import type pg from 'pg';
import type { Projection } from '../projection.ts';
import type { EvmNetworkCreatedData, EvmValidator } from '../../domain/evm/evmNetwork.ts';
import { registerEvmAuditDescribers } from '../../domain/evm/evmAuditDescribers.ts';

registerEvmAuditDescribers();

export const evmNetworksProjection: Projection = {
  name: 'evm-networks',
  handles: ['NetworkCreated', 'NetworkDeleted'],
  tables: ['evm_networks'],
  apply(e) {
    if (e.streamId !== 'evm-networks') return [];
    const d = e.data as unknown as EvmNetworkCreatedData;
    switch (e.type) {
      case 'NetworkCreated':
        return [{
          text: `INSERT INTO evm_networks (id, name, description, client, engine, consensus, chain_id, genesis_block_hash, block_period, validators, genesis, imported, created_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
          values: [d.networkId, d.name, d.description, d.client, d.engine, d.settings.consensus, d.settings.chainId, d.genesisBlockHash, d.settings.blockPeriodSeconds, JSON.stringify(d.validators), JSON.stringify(e.data), d.imported, d.at],
        }];
      case 'NetworkDeleted':
        return [{ text: 'DELETE FROM evm_networks WHERE id = $1', values: [d.networkId] }];
      default:
        return [];
    }
  },
};

export interface EvmNetworkRow {
  id: number;
  name: string;
  description: string | null;
  client: 'besu' | 'anvil' | 'geth';
  engine: 'process' | 'docker';
  consensus: string;
  chainId: number;
  genesisBlockHash: string;
  blockPeriodSeconds: number;
  validators: Array<Omit<EvmValidator, 'publicKeyPem'>>;
  imported: boolean;
  createdAt: string;
  /** The whole NetworkCreated data (genesis file, settings, key handles): for the runtime, not for responses. */
  record: EvmNetworkCreatedData;
}

const toRow = (r: Record<string, any>): EvmNetworkRow => ({
  id: r.id,
  name: r.name,
  description: r.description,
  client: r.client,
  engine: r.engine,
  consensus: r.consensus,
  chainId: Number(r.chain_id),
  genesisBlockHash: r.genesis_block_hash,
  blockPeriodSeconds: r.block_period,
  validators: (r.validators as EvmValidator[]).map(({ address, keyHandle, keyProvider, keyId, providerId }) => ({ address, keyHandle, keyProvider, keyId: keyId ?? null, providerId: providerId ?? null })),
  imported: r.imported,
  createdAt: new Date(r.created_at).toISOString(),
  record: r.genesis,
});

export async function listEvmNetworks(pool: pg.Pool, limit: number, offset: number): Promise<{ items: EvmNetworkRow[]; total: number }> {
  const r = await pool.query('SELECT * FROM evm_networks ORDER BY id LIMIT $1 OFFSET $2', [limit, offset]);
  const total = Number((await pool.query('SELECT count(*) FROM evm_networks')).rows[0].count);
  return { items: r.rows.map(toRow), total };
}

export async function getEvmNetwork(pool: pg.Pool, id: number): Promise<EvmNetworkRow | null> {
  const r = await pool.query('SELECT * FROM evm_networks WHERE id = $1', [id]);
  return r.rows[0] ? toRow(r.rows[0]) : null;
}

export async function networkNameTaken(pool: pg.Pool, name: string): Promise<boolean> {
  return ((await pool.query('SELECT 1 FROM evm_networks WHERE lower(name) = lower($1)', [name])).rowCount ?? 0) > 0;
}

/** The id of the evm network of this name (any case), or null. */
export async function evmNetworkIdByName(pool: pg.Pool, name: string): Promise<number | null> {
  const r = await pool.query('SELECT id FROM evm_networks WHERE lower(name) = lower($1)', [name]);
  return r.rows[0] ? Number(r.rows[0].id) : null;
}

/** Chain ids the deployment's evm networks use (each is unique: domain/evm/evmNetwork.ts). */
export async function usedChainIds(pool: pg.Pool): Promise<number[]> {
  return (await pool.query('SELECT chain_id FROM evm_networks')).rows.map((r) => Number(r.chain_id));
}

export async function networkWithChainId(pool: pg.Pool, chainId: number): Promise<{ id: number; name: string } | null> {
  return (await pool.query('SELECT id, name FROM evm_networks WHERE chain_id = $1 LIMIT 1', [chainId])).rows[0] ?? null;
}

export async function genesisHashTaken(pool: pg.Pool, hash: string): Promise<boolean> {
  return ((await pool.query('SELECT 1 FROM evm_networks WHERE genesis_block_hash = $1', [hash])).rowCount ?? 0) > 0;
}

/** Names of the networks whose validators use this key (a key in use is not deleted). */
export async function networksUsingKey(pool: pg.Pool, keyId: number): Promise<string[]> {
  const r = await pool.query('SELECT name FROM evm_networks WHERE validators @> $1::jsonb ORDER BY id', [JSON.stringify([{ keyId }])]);
  return r.rows.map((row) => row.name as string);
}
