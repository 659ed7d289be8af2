import type pg from 'pg';
import type { Projection } from '../projection.ts';
import type { ContractDeployedData } from '../../domain/evm/evmContract.ts';

export const evmContractsProjection: Projection = {
  name: 'evm-contracts',
  handles: ['ContractDeployed', 'NetworkDeleted'],
  tables: ['evm_contracts'],
  apply(e) {
    if (e.type === 'NetworkDeleted') return [{ text: 'DELETE FROM evm_contracts WHERE network_id = $1', values: [(e.data as { networkId: number }).networkId] }];
    if (e.type !== 'ContractDeployed' || !/^evm-contract-\d+$/.test(e.streamId)) return [];
    const c = e.data as unknown as ContractDeployedData;
    return [{
      text: `INSERT INTO evm_contracts (id, network_id, name, address, abi, bytecode, args, constructor_args, transaction_hash, block_number, deployer, node_id, created_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
      values: [c.contractId, c.networkId, c.name, c.address, c.abi ? JSON.stringify(c.abi) : null, c.bytecode, c.args ? JSON.stringify(c.args) : null, c.constructorArgs, c.transactionHash, c.blockNumber, c.from, c.nodeId, c.at],
    }];
  },
};

export interface EvmContractRow {
  id: number;
  networkId: number;
  name: string;
  address: string;
  abi: unknown[] | null;
  bytecode: string;
  args: unknown[] | null;
  constructorArgs: string | null;
  transactionHash: string;
  blockNumber: number;
  deployer: string;
  nodeId: number;
  createdAt: string;
}

const row = (r: Record<string, any>): EvmContractRow => ({
  id: r.id, networkId: r.network_id, name: r.name, address: r.address, abi: r.abi, bytecode: r.bytecode, args: r.args, constructorArgs: r.constructor_args,
  transactionHash: r.transaction_hash, blockNumber: Number(r.block_number), deployer: r.deployer, nodeId: r.node_id, createdAt: new Date(r.created_at).toISOString(),
});

/** The contracts deployed on a network, oldest first (the order an import deploys them in). */
export async function listEvmContracts(pool: pg.Pool, networkId: number, limit = 10_000, offset = 0): Promise<{ items: EvmContractRow[]; total: number }> {
  const r = await pool.query('SELECT *, count(*) OVER () AS total FROM evm_contracts WHERE network_id = $1 ORDER BY id LIMIT $2 OFFSET $3', [networkId, limit, offset]);
  const total = r.rows[0] ? Number(r.rows[0].total) : Number((await pool.query('SELECT count(*) AS n FROM evm_contracts WHERE network_id = $1', [networkId])).rows[0].n);
  return { items: r.rows.map(row), total };
}

export async function getEvmContract(pool: pg.Pool, id: number): Promise<EvmContractRow | null> {
  const r = await pool.query('SELECT * FROM evm_contracts WHERE id = $1', [id]);
  return r.rows[0] ? row(r.rows[0]) : null;
}

/** The contracts of a network at these addresses (any case): the explorer decodes their logs. */
export async function evmContractsAt(pool: pg.Pool, networkId: number, addresses: string[]): Promise<EvmContractRow[]> {
  if (!addresses.length) return [];
  const r = await pool.query('SELECT * FROM evm_contracts WHERE network_id = $1 AND lower(address) = ANY($2::text[]) ORDER BY id', [networkId, addresses.map((a) => a.toLowerCase())]);
  return r.rows.map(row);
}

/** The deployments the service sent on a network from an address (the deployer) or that created the contract at it, newest first. */
export async function evmContractsOfAccount(pool: pg.Pool, networkId: number, address: string, limit = 100): Promise<EvmContractRow[]> {
  const r = await pool.query('SELECT * FROM evm_contracts WHERE network_id = $1 AND (lower(address) = $2 OR lower(deployer) = $2) ORDER BY id DESC LIMIT $3', [networkId, address.toLowerCase(), limit]);
  return r.rows.map(row);
}
