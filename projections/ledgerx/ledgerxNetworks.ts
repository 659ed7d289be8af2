import type pg from 'pg';
import type { Projection } from '../projection.ts';
import { LEDGERX_NETWORKS_STREAM, type LedgerXNetworkCreatedData } from '../../domain/ledgerx/ledgerxNetwork.ts';
import { registerOrganizationUsageCheck } from '../organizations.ts';

// A network whose genesis block names an organization keeps it from being deleted.
registerOrganizationUsageCheck(async (pool, organizationId) => {
  const r = await pool.query('SELECT DISTINCT n.id, n.name FROM ledgerx_networks n JOIN ledgerx_network_nodes m ON m.network_id = n.id WHERE m.organization_id = $1 ORDER BY n.id LIMIT 20', [organizationId]);
  return r.rows.map((n) => ({ kind: 'network', id: n.id, name: n.name }));
});

export const ledgerXNetworksProjection: Projection = {
  name: 'ledgerx-networks',
  handles: ['LedgerXNetworkCreated', 'LedgerXOrdererGroupJoined', 'LedgerXCommitterJoined', 'LedgerXNetworkDeleted'],
  tables: ['ledgerx_networks', 'ledgerx_network_nodes'],
  apply(e) {
    if (e.streamId !== LEDGERX_NETWORKS_STREAM) return [];
    const d = e.data as Record<string, any>;
    switch (e.type) {
      case 'LedgerXNetworkCreated': {
        const c = e.data as unknown as LedgerXNetworkCreatedData;
        return [
          { text: 'INSERT INTO ledgerx_networks (id, name, channel_name, description, genesis_block, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $6)', values: [c.networkId, c.name, c.channelName, c.description, c.genesisBlock, c.at] },
          ...c.parties.map((p) => ({ text: `INSERT INTO ledgerx_network_nodes (network_id, node_id, role, party_id, organization_id, msp_id) VALUES ($1, $2, 'orderer-group', $3, $4, $5)`, values: [c.networkId, p.nodeId, p.partyId, p.organizationId, p.mspId] })),
        ];
      }
      case 'LedgerXOrdererGroupJoined':
        return [{ text: 'UPDATE ledgerx_network_nodes SET joined_at = $3 WHERE network_id = $1 AND node_id = $2', values: [d.networkId, d.nodeId, d.at] }, { text: 'UPDATE ledgerx_networks SET updated_at = $2 WHERE id = $1', values: [d.networkId, d.at] }];
      case 'LedgerXCommitterJoined':
        return [{ text: `INSERT INTO ledgerx_network_nodes (network_id, node_id, role, party_id, organization_id, msp_id, joined_at) VALUES ($1, $2, 'committer', NULL, $3, $4, $5) ON CONFLICT DO NOTHING`, values: [d.networkId, d.nodeId, d.organizationId, d.mspId, d.at] }];
      case 'LedgerXNetworkDeleted':
        return [{ text: 'DELETE FROM ledgerx_network_nodes WHERE network_id = $1', values: [d.networkId] }, { text: 'DELETE FROM ledgerx_networks WHERE id = $1', values: [d.networkId] }];
      default:
        return [];
    }
  },
};

export interface LedgerXNetworkRow {
  id: number;
  name: string;
  platform: 'LEDGERX';
  channelName: string;
  description: string | null;
  createdAt: string;
  updatedAt: string;
  nodes: { nodeId: number; role: string; partyId: number | null; organizationId: number; mspId: string; joinedAt: string | null }[];
}

const iso = (v: unknown) => (v ? new Date(v as string).toISOString() : null);

async function withNodes(pool: pg.Pool, rows: Record<string, any>[]): Promise<LedgerXNetworkRow[]> {
  if (!rows.length) return [];
  const m = await pool.query('SELECT * FROM ledgerx_network_nodes WHERE network_id = ANY($1) ORDER BY party_id, node_id', [rows.map((r) => r.id)]);
  return rows.map((r) => ({
    id: r.id, name: r.name, platform: 'LEDGERX' as const, channelName: r.channel_name, description: r.description, createdAt: iso(r.created_at)!, updatedAt: iso(r.updated_at)!,
    nodes: m.rows.filter((n) => n.network_id === r.id).map((n) => ({ nodeId: n.node_id, role: n.role, partyId: n.party_id, organizationId: n.organization_id, mspId: n.msp_id, joinedAt: iso(n.joined_at) })),
  }));
}

export async function listLedgerXNetworks(pool: pg.Pool, opts: { limit: number; offset: number }): Promise<{ items: LedgerXNetworkRow[]; total: number }> {
  const total = Number((await pool.query('SELECT count(*) FROM ledgerx_networks')).rows[0].count);
  const r = await pool.query('SELECT id, name, channel_name, description, created_at, updated_at FROM ledgerx_networks ORDER BY id LIMIT $1 OFFSET $2', [opts.limit, opts.offset]);
  return { items: await withNodes(pool, r.rows), total };
}

export async function getLedgerXNetwork(pool: pg.Pool, by: { id: number } | { name: string }): Promise<LedgerXNetworkRow | null> {
  const r = 'id' in by
    ? await pool.query('SELECT id, name, channel_name, description, created_at, updated_at FROM ledgerx_networks WHERE id = $1', [by.id])
    : await pool.query('SELECT id, name, channel_name, description, created_at, updated_at FROM ledgerx_networks WHERE name = $1', [by.name]);
  return (await withNodes(pool, r.rows))[0] ?? null;
}

export async function ledgerXGenesisBlock(pool: pg.Pool, id: number): Promise<Uint8Array | null> {
  const r = await pool.query('SELECT genesis_block FROM ledgerx_networks WHERE id = $1', [id]);
  return r.rows[0] ? new Uint8Array(Buffer.from(r.rows[0].genesis_block, 'base64')) : null;
}

/** The network an orderer group is a party of, if any. */
export async function ledgerXNetworkOfNode(pool: pg.Pool, nodeId: number): Promise<number | null> {
  const r = await pool.query('SELECT network_id FROM ledgerx_network_nodes WHERE node_id = $1 LIMIT 1', [nodeId]);
  return r.rows[0]?.network_id ?? null;
}
