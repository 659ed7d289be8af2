import type pg from 'pg';
import type { Projection, SqlStatement } from './projection.ts';
import { registerOrganizationUsageCheck } from './organizations.ts';
import type { NodeStatus } from '../domain/nodes/node.ts';
import type { NodeConfig, NodeRecord } from '../domain/nodes/nodeRecord.ts';
import type { ConsortiumNodeConfig } from '../domain/consortium/consortiumNode.ts';
import type { EvmNodeConfig } from '../domain/evm/evmNode.ts';

const status = (id: unknown, s: NodeStatus, at: unknown, extra = ''): SqlStatement => ({
  text: `UPDATE nodes SET status = $2, updated_at = $3${extra} WHERE id = $1`,
  values: [id, s, at],
});

export const nodesProjection: Projection = {
  // The checkpoint keeps its first name (nodes were evm-only then): a new name would replay into the same table.
  name: 'evm-nodes',
  handles: ['NodeCreated', 'NodeStartRequested', 'NodeStarted', 'NodeStartFailed', 'NodeStopRequested', 'NodeStopped', 'NodeConfigChanged', 'NodeDeleted', 'NodeDowntime', 'NodeRecovered'],
  tables: ['nodes'],
  apply(e) {
    if (!e.streamId.startsWith('node-')) return [];
    const d = e.data as Record<string, any>;
    switch (e.type) {
      case 'NodeCreated': {
        const c = e.data as unknown as NodeRecord;
        return [{
          text: `INSERT INTO nodes (id, name, platform, node_type, role, network_id, organization_id, client, engine, config, validator_address, resources, status, created_at, updated_at, key_ids)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, 'created', $13, $13, $14)`,
          values: [c.nodeId, c.name, c.platform, c.nodeType, c.role, c.networkId, c.platform === 'CONSORTIUM' || c.platform === 'LEDGERX' ? c.organizationId : null, c.client, c.engine, JSON.stringify(c.config), c.platform === 'EVM' ? c.validatorAddress : null, c.resources ? JSON.stringify(c.resources) : null, c.at, ownKeyIds(c)],
        }];
      }
      case 'NodeStartRequested':
        return [status(d.nodeId, 'starting', d.at, ', error = NULL')];
      case 'NodeStarted':
        return [{ text: `UPDATE nodes SET status = 'running', error = NULL, started_at = $2, updated_at = $3 WHERE id = $1`, values: [d.nodeId, d.startedAt, d.at] }];
      case 'NodeStartFailed':
        return [{ text: `UPDATE nodes SET status = 'error', error = $2, started_at = NULL, updated_at = $3 WHERE id = $1`, values: [d.nodeId, d.reason, d.at] }];
      case 'NodeStopRequested':
        return [status(d.nodeId, 'stopping', d.at)];
      case 'NodeStopped':
        return [status(d.nodeId, 'stopped', d.at, ', started_at = NULL')];
      case 'NodeConfigChanged': {
        const { name, ...config } = d.after as NodeConfig & { name: string };
        return [{ text: 'UPDATE nodes SET name = $2, config = $3, updated_at = $4 WHERE id = $1', values: [d.nodeId, name, JSON.stringify(config), d.at] }];
      }
      case 'NodeDeleted':
        return [{ text: 'DELETE FROM nodes WHERE id = $1', values: [d.nodeId] }];
      case 'NodeDowntime':
        return [{ text: `UPDATE nodes SET status = 'down', down_since = $2, updated_at = $2 WHERE id = $1`, values: [d.nodeId, d.at] }];
      case 'NodeRecovered':
        return [{ text: `UPDATE nodes SET status = CASE WHEN status = 'down' THEN 'running' ELSE status END, down_since = NULL, updated_at = $2 WHERE id = $1`, values: [d.nodeId, d.at] }];
      default:
        return [];
    }
  },
};

/** The keys a node holds as its own (identity, then TLS; a chaincode server's TLS and peer-client keys), from its NodeCreated data; none for evm nodes and groups. */
function ownKeyIds(c: NodeRecord): number[] {
  const k = c as unknown as { identityKeyId?: unknown; tlsKeyId?: unknown; clientTlsKeyId?: unknown };
  return [k.identityKeyId, k.tlsKeyId, k.clientTlsKeyId].filter((id): id is number => typeof id === 'number');
}

export interface NodeRow {
  id: number;
  name: string;
  platform: string;
  nodeType: string;
  role: string;
  networkId: number | null;
  /** Consortium nodes: the organization they belong to. */
  organizationId: number | null;
  client: 'besu' | 'anvil' | 'geth' | 'fabric';
  engine: 'process' | 'docker';
  /** Evm: EvmNodeConfig; consortium: ConsortiumNodeConfig (see platform). */
  config: EvmNodeConfig;
  consortiumConfig: ConsortiumNodeConfig | null;
  validatorAddress: string | null;
  resources: Record<string, string> | null;
  /** Its own keys (identity, then TLS): consortium peers and orderers, ledgerX role nodes. */
  keyIds: number[];
  status: NodeStatus;
  error: string | null;
  startedAt: string | null;
  downSince: string | null;
  createdAt: string;
  updatedAt: string;
}

const iso = (v: unknown) => (v ? new Date(v as string).toISOString() : null);
const toRow = (r: Record<string, any>): NodeRow => ({
  id: r.id,
  name: r.name,
  platform: r.platform,
  nodeType: r.node_type,
  role: r.role,
  networkId: r.network_id,
  organizationId: r.organization_id,
  client: r.client,
  engine: r.engine,
  config: r.config,
  consortiumConfig: r.platform === 'CONSORTIUM' ? r.config : null,
  validatorAddress: r.validator_address,
  resources: r.resources,
  keyIds: (r.key_ids ?? []).map(Number),
  status: r.status,
  error: r.error,
  startedAt: iso(r.started_at),
  downSince: iso(r.down_since),
  createdAt: iso(r.created_at)!,
  updatedAt: iso(r.updated_at)!,
});

export async function listNodes(pool: pg.Pool, opts: { limit: number; offset: number; platform?: string; status?: string; networkId?: number; organizationId?: number; ids?: number[] }): Promise<{ items: NodeRow[]; total: number }> {
  const where: string[] = [];
  const args: unknown[] = [];
  if (opts.organizationId !== undefined) where.push(`organization_id = $${args.push(opts.organizationId)}`);
  if (opts.ids) where.push(`id = ANY($${args.push(opts.ids)})`);
  if (opts.platform) where.push(`platform = $${args.push(opts.platform)}`);
  if (opts.status) where.push(`status = $${args.push(opts.status)}`);
  if (opts.networkId !== undefined) where.push(`network_id = $${args.push(opts.networkId)}`);
  const w = where.length ? `WHERE ${where.join(' AND ')}` : '';
  const total = Number((await pool.query(`SELECT count(*) FROM nodes ${w}`, args)).rows[0].count);
  const r = await pool.query(`SELECT * FROM nodes ${w} ORDER BY id LIMIT $${args.length + 1} OFFSET $${args.length + 2}`, [...args, opts.limit, opts.offset]);
  return { items: r.rows.map(toRow), total };
}

export async function getNode(pool: pg.Pool, id: number): Promise<NodeRow | null> {
  const r = await pool.query('SELECT * FROM nodes WHERE id = $1', [id]);
  return r.rows[0] ? toRow(r.rows[0]) : null;
}

export async function nodeNameTaken(pool: pg.Pool, name: string, exceptId?: number): Promise<boolean> {
  const r = await pool.query('SELECT 1 FROM nodes WHERE lower(name) = lower($1) AND id <> $2', [name, exceptId ?? -1]);
  return r.rowCount! > 0;
}

/** The id of the node of this name (names are unique, case-insensitively), if one is recorded. */
export async function nodeIdByName(pool: pg.Pool, name: string): Promise<number | null> {
  const r = await pool.query('SELECT id FROM nodes WHERE lower(name) = lower($1)', [name]);
  return r.rows[0] ? Number(r.rows[0].id) : null;
}

/** Config fields that hold host ports, of every platform. */
const NODE_PORT_FIELDS = ['p2pPort', 'rpcHttpPort', 'rpcWsPort', 'metricsPort', 'port', 'chaincodePort', 'adminPort', 'operationsPort', 'grpcPort', 'monitoringPort'];

/** Every host port assigned to a node (any platform), with the node holding it. */
export async function assignedPorts(pool: pg.Pool): Promise<Map<number, string>> {
  const r = await pool.query('SELECT name, config FROM nodes');
  const out = new Map<number, string>();
  for (const row of r.rows) for (const k of NODE_PORT_FIELDS) if (row.config?.[k]) out.set(Number(row.config[k]), row.name);
  return out;
}

// An organization's consortium nodes keep it from being deleted.
registerOrganizationUsageCheck(async (pool, organizationId) => {
  const r = await pool.query('SELECT id, name FROM nodes WHERE organization_id = $1 ORDER BY id LIMIT 20', [organizationId]);
  return r.rows.map((n) => ({ kind: 'node', id: n.id, name: n.name }));
});
