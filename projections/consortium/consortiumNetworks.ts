import type pg from 'pg';
import type { Projection } from '../projection.ts';
import { CONSORTIUM_NETWORKS_STREAM, type ConsortiumMemberNode, type ConsortiumMemberOrganization, type ConsortiumNetworkCreatedData } from '../../domain/consortium/consortiumNetwork.ts';
import { registerConsortiumAuditDescribers } from '../../domain/consortium/consortiumAuditDescribers.ts';
import { registerOrganizationUsageCheck } from '../organizations.ts';

registerConsortiumAuditDescribers();

// A channel whose config names an organization keeps it from being deleted.
registerOrganizationUsageCheck(async (pool, organizationId) => {
  const r = await pool.query(
    `SELECT id, name FROM consortium_networks WHERE organizations @> $1::jsonb OR orderer_organizations @> $1::jsonb ORDER BY id LIMIT 20`,
    [JSON.stringify([{ organizationId }])],
  );
  return r.rows.map((n) => ({ kind: 'network', id: n.id, name: n.name }));
});

export const consortiumNetworksProjection: Projection = {
  name: 'consortium-networks',
  handles: ['NetworkCreated', 'NetworkNodeAdded', 'NetworkNodeJoined', 'NetworkNodeLeft', 'AnchorPeersUpdated', 'NetworkUpdated', 'NetworkConsensusMigrated', 'NetworkDeleted', 'NodeDeleted'],
  tables: ['consortium_networks', 'consortium_network_nodes'],
  apply(e) {
    const d = e.data as Record<string, any>;
    // A deleted node leaves every channel it was a member of (its ledger is gone with it).
    if (e.type === 'NodeDeleted') return [{ text: 'DELETE FROM consortium_network_nodes WHERE node_id = $1', values: [d.nodeId] }];
    if (e.streamId !== CONSORTIUM_NETWORKS_STREAM) return [];
    switch (e.type) {
      case 'NetworkCreated': {
        const c = e.data as unknown as ConsortiumNetworkCreatedData;
        return [
          {
            text: `INSERT INTO consortium_networks (id, name, channel_name, description, status, consensus, imported, organizations, orderer_organizations, orderer_endpoints, genesis_block, created_at, updated_at)
                   VALUES ($1, $2, $3, $4, 'genesis_created', $5, $6, $7, $8, $9, $10, $11, $11)`,
            values: [c.networkId, c.name, c.channelName, c.description, c.consensus, c.imported, JSON.stringify(c.organizations), JSON.stringify(c.ordererOrganizations), JSON.stringify(c.ordererEndpoints), c.genesisBlock, c.at],
          },
          ...c.nodes.map((n) => member(c.networkId, n)),
        ];
      }
      case 'NetworkNodeAdded':
        return [member(d.networkId, d.node)];
      case 'NetworkNodeJoined':
        return [{ text: 'UPDATE consortium_network_nodes SET joined_at = $3 WHERE network_id = $1 AND node_id = $2', values: [d.networkId, d.nodeId, d.at] }];
      case 'NetworkNodeLeft':
        return [{ text: 'UPDATE consortium_network_nodes SET joined_at = NULL WHERE network_id = $1 AND node_id = $2', values: [d.networkId, d.nodeId] }];
      case 'AnchorPeersUpdated':
        return [{
          text: `UPDATE consortium_networks SET anchor_peers = anchor_peers || jsonb_build_object($2::text, $3::jsonb), config_sequence = GREATEST(config_sequence, $4), updated_at = $5 WHERE id = $1`,
          values: [d.networkId, d.mspId, JSON.stringify(d.anchorPeers), d.configSequence, d.at],
        }];
      case 'NetworkUpdated': {
        const changes = ((d.change as { changes?: unknown[] }).changes ?? [d.change]) as Array<{ kind?: string; organization?: ConsortiumMemberOrganization; mspId?: string }>;
        const addedOrgs = changes.filter((c) => c.kind === 'addOrganization' && c.organization).map((c) => c.organization!);
        const added = addedOrgs.length ? addedOrgs : null;
        const removed = changes.filter((c) => c.kind === 'removeOrganization' && c.mspId).map((c) => c.mspId!);
        const removedOrderer = changes.filter((c) => c.kind === 'removeOrdererOrganization' && c.mspId).map((c) => c.mspId!);
        const addedOrderer = changes.filter((c) => c.kind === 'addOrdererOrganization' && c.organization).map((c) => c.organization!);
        if (addedOrderer.length) {
          return [{
            text: `UPDATE consortium_networks SET config_sequence = GREATEST(config_sequence, $2), updated_at = $3, orderer_organizations = orderer_organizations || $4::jsonb WHERE id = $1`,
            values: [d.networkId, d.configSequence, d.at, JSON.stringify(addedOrderer)],
          }];
        }
        if (removedOrderer.length) {
          return [{
            text: `UPDATE consortium_networks SET config_sequence = GREATEST(config_sequence, $2), updated_at = $3,
                   orderer_organizations = (SELECT COALESCE(jsonb_agg(o), '[]'::jsonb) FROM jsonb_array_elements(orderer_organizations) o WHERE NOT (o->>'mspId' = ANY($4::text[]))) WHERE id = $1`,
            values: [d.networkId, d.configSequence, d.at, removedOrderer],
          }];
        }
        if (removed.length) {
          return [{
            text: `UPDATE consortium_networks SET config_sequence = GREATEST(config_sequence, $2), updated_at = $3, anchor_peers = anchor_peers - $4::text[],
                   organizations = (SELECT COALESCE(jsonb_agg(o), '[]'::jsonb) FROM jsonb_array_elements(organizations) o WHERE NOT (o->>'mspId' = ANY($4::text[]))) WHERE id = $1`,
            values: [d.networkId, d.configSequence, d.at, removed],
          }];
        }
        return [{
          text: `UPDATE consortium_networks SET config_sequence = GREATEST(config_sequence, $2), updated_at = $3${added ? ', organizations = organizations || $4::jsonb' : ''} WHERE id = $1`,
          values: [d.networkId, d.configSequence, d.at, ...(added ? [JSON.stringify(added)] : [])],
        }];
      }
      case 'NetworkConsensusMigrated':
        return [{ text: 'UPDATE consortium_networks SET consensus = $2, config_sequence = GREATEST(config_sequence, $3), updated_at = $4 WHERE id = $1', values: [d.networkId, d.to, d.configSequence, d.at] }];
      case 'NetworkDeleted':
        return [
          { text: 'DELETE FROM consortium_network_nodes WHERE network_id = $1', values: [d.networkId] },
          { text: 'DELETE FROM consortium_networks WHERE id = $1', values: [d.networkId] },
        ];
      default:
        return [];
    }
  },
};

function member(networkId: number, n: ConsortiumMemberNode) {
  return {
    text: 'INSERT INTO consortium_network_nodes (network_id, node_id, role, organization_id, msp_id) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING',
    values: [networkId, n.nodeId, n.role, n.organizationId, n.mspId],
  };
}

export interface ConsortiumNetworkRow {
  id: number;
  name: string;
  channelName: string;
  description: string | null;
  status: string;
  consensus: string;
  imported: boolean;
  organizations: ConsortiumMemberOrganization[];
  ordererOrganizations: ConsortiumMemberOrganization[];
  ordererEndpoints: string[];
  anchorPeers: Record<string, { host: string; port: number }[]>;
  configSequence: number;
  genesisBlock: string;
  createdAt: string;
  updatedAt: string;
}

export interface ConsortiumNetworkMemberRow {
  nodeId: number;
  role: 'peer' | 'orderer';
  organizationId: number;
  mspId: string;
  joinedAt: string | null;
}

const iso = (v: unknown) => (v ? new Date(v as string).toISOString() : null);
const toRow = (r: Record<string, any>): ConsortiumNetworkRow => ({
  id: r.id, name: r.name, channelName: r.channel_name, description: r.description, status: r.status, consensus: r.consensus, imported: r.imported,
  organizations: r.organizations, ordererOrganizations: r.orderer_organizations, ordererEndpoints: r.orderer_endpoints, anchorPeers: r.anchor_peers,
  configSequence: Number(r.config_sequence), genesisBlock: r.genesis_block, createdAt: iso(r.created_at)!, updatedAt: iso(r.updated_at)!,
});

export async function listConsortiumNetworks(pool: pg.Pool, limit: number, offset: number) {
  const r = await pool.query('SELECT *, count(*) OVER () AS total FROM consortium_networks ORDER BY id LIMIT $1 OFFSET $2', [limit, offset]);
  return { items: r.rows.map(toRow), total: r.rows.length ? Number(r.rows[0].total) : 0 };
}

export async function getConsortiumNetwork(pool: pg.Pool, id: number): Promise<ConsortiumNetworkRow | null> {
  const r = await pool.query('SELECT * FROM consortium_networks WHERE id = $1', [id]);
  return r.rows[0] ? toRow(r.rows[0]) : null;
}

export async function getConsortiumNetworkByName(pool: pg.Pool, name: string): Promise<ConsortiumNetworkRow | null> {
  const r = await pool.query('SELECT * FROM consortium_networks WHERE lower(name) = lower($1)', [name]);
  return r.rows[0] ? toRow(r.rows[0]) : null;
}

export async function consortiumNetworkMembers(pool: pg.Pool, networkId: number): Promise<ConsortiumNetworkMemberRow[]> {
  const r = await pool.query('SELECT * FROM consortium_network_nodes WHERE network_id = $1 ORDER BY node_id', [networkId]);
  return r.rows.map((m) => ({ nodeId: m.node_id, role: m.role, organizationId: m.organization_id, mspId: m.msp_id, joinedAt: iso(m.joined_at) }));
}

/** The networks (channels) a node is a member of. */
export async function nodeNetworks(pool: pg.Pool, nodeId: number): Promise<Array<{ networkId: number; name: string; channelName: string; joinedAt: string | null }>> {
  const r = await pool.query('SELECT n.id, n.name, n.channel_name, m.joined_at FROM consortium_network_nodes m JOIN consortium_networks n ON n.id = m.network_id WHERE m.node_id = $1 ORDER BY n.id', [nodeId]);
  return r.rows.map((m) => ({ networkId: m.id, name: m.name, channelName: m.channel_name, joinedAt: iso(m.joined_at) }));
}

/** The network whose channel has this name (channel names are unique among networks). */
export async function getConsortiumNetworkByChannel(pool: pg.Pool, channelName: string): Promise<ConsortiumNetworkRow | null> {
  const r = await pool.query('SELECT * FROM consortium_networks WHERE channel_name = $1 ORDER BY id LIMIT 1', [channelName]);
  return r.rows[0] ? toRow(r.rows[0]) : null;
}
