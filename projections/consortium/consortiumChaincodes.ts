import type pg from 'pg';
import type { Projection } from '../projection.ts';
import type { ChaincodeCollection, ChaincodeRegisteredData } from '../../domain/consortium/consortiumChaincode.ts';

export const consortiumChaincodesProjection: Projection = {
  name: 'consortium-chaincodes',
  handles: ['ChaincodeRegistered', 'ChaincodeServerAssigned', 'ChaincodeInstalled', 'ChaincodeApproved', 'ChaincodeDeployed', 'ChaincodeUpgraded', 'ChaincodeInitialized', 'NetworkDeleted'],
  tables: ['consortium_chaincodes'],
  apply(e) {
    const d = e.data as Record<string, any>;
    if (e.type === 'NetworkDeleted') return [{ text: 'DELETE FROM consortium_chaincodes WHERE network_id = $1', values: [d.networkId] }];
    if (!/^chaincode-\d+$/.test(e.streamId)) return [];
    switch (e.type) {
      case 'ChaincodeRegistered': {
        const c = e.data as unknown as ChaincodeRegisteredData;
        return [{
          text: `INSERT INTO consortium_chaincodes (id, network_id, channel_name, name, version, sequence, language, endorsement_policy, init_required, collections, previous_chaincode_id, status, created_at, updated_at, shared_from, source_kind, source_image)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 'registered', $12, $12, $13, $14, $15)`,
          values: [c.chaincodeId, c.networkId, c.channelName, c.name, c.version, c.sequence, c.language, c.endorsementPolicy, c.initRequired, c.collections ? JSON.stringify(c.collections) : null, c.previousChaincodeId, c.at,
            c.sharedFrom ? JSON.stringify(c.sharedFrom) : null, c.source.kind, c.source.kind === 'image' ? c.source.image : null],
        }];
      }
      case 'ChaincodeServerAssigned':
        return [{ text: 'UPDATE consortium_chaincodes SET server_node_id = $2, server_address = $3, package_id = $4, updated_at = $5 WHERE id = $1', values: [d.chaincodeId, d.nodeId, d.address, d.packageId, d.at] }];
      case 'ChaincodeInstalled':
        return [{
          text: `UPDATE consortium_chaincodes SET installed_on = installed_on || jsonb_build_object($2::text, $3::text), status = CASE WHEN status = 'registered' THEN 'installed' ELSE status END, updated_at = $4 WHERE id = $1`,
          values: [d.chaincodeId, String(d.peerId), d.packageId, d.at],
        }];
      case 'ChaincodeApproved':
        return [{
          text: `UPDATE consortium_chaincodes SET approved_by = approved_by || to_jsonb($2::text), status = CASE WHEN status IN ('registered', 'installed') THEN 'approved' ELSE status END, updated_at = $3 WHERE id = $1`,
          values: [d.chaincodeId, d.mspId, d.at],
        }];
      case 'ChaincodeDeployed':
      case 'ChaincodeUpgraded':
        return [{ text: `UPDATE consortium_chaincodes SET status = 'committed', commit_tx_id = $2, commit_block_number = $3, updated_at = $4 WHERE id = $1`, values: [d.chaincodeId, d.txId, d.blockNumber, d.at] }];
      case 'ChaincodeInitialized':
        return [{ text: 'UPDATE consortium_chaincodes SET init_tx_id = $2, init_block_number = $3, initialized_at = $4, updated_at = $4 WHERE id = $1', values: [d.chaincodeId, d.txId, d.blockNumber, d.at] }];
      default:
        return [];
    }
  },
};

export interface ChaincodeRow {
  id: number;
  networkId: number;
  channelName: string;
  name: string;
  version: string;
  sequence: number;
  language: string;
  endorsementPolicy: string | null;
  initRequired: boolean;
  collections: ChaincodeCollection[] | null;
  previousChaincodeId: number | null;
  /** Shared by another instance (node sharing): its sharing peer, instance id and chaincode id there. */
  sharedFrom: { sharingPeerId: number; instanceId: string; chaincodeId: number } | null;
  source: { kind: 'files' } | { kind: 'image'; image: string };
  status: 'registered' | 'installed' | 'approved' | 'committed';
  packageId: string | null;
  serverNodeId: number | null;
  serverAddress: string | null;
  installedOn: Record<string, string>;
  approvedBy: string[];
  commitTxId: string | null;
  commitBlockNumber: number | null;
  /** initRequired: when the Init transaction was recorded (its tx id is null when another party had sent it). */
  initializedAt: string | null;
  initTxId: string | null;
  initBlockNumber: number | null;
  /**
   * The server's TLS certificates when it was recorded with TLS (null: no server yet, or plain
   * text): its own (serverAuth, renewable through POST .../server/certificates/renew) and the
   * client certificate the peers present (in the package: a new version renews it).
   */
  serverTls: ChaincodeServerTlsRow | null;
  createdAt: string;
  updatedAt: string;
}

export interface ChaincodeServerTlsRow {
  server: { keyId: number; serialNumber: string | null; notAfter: string | null; expiryStatus: string };
  peerClient: { keyId: number; serialNumber: string | null; notAfter: string | null; expiryStatus: string } | null;
}

const iso = (v: unknown) => new Date(v as string).toISOString();

function row(r: Record<string, any>): ChaincodeRow {
  return {
    id: r.id, networkId: r.network_id, channelName: r.channel_name, name: r.name, version: r.version, sequence: r.sequence, language: r.language,
    endorsementPolicy: r.endorsement_policy, initRequired: r.init_required, collections: r.collections, previousChaincodeId: r.previous_chaincode_id,
    sharedFrom: r.shared_from ?? null,
    source: r.source_kind === 'image' ? { kind: 'image', image: r.source_image } : { kind: 'files' },
    status: r.status, packageId: r.package_id, serverNodeId: r.server_node_id, serverAddress: r.server_address, installedOn: r.installed_on, approvedBy: r.approved_by,
    commitTxId: r.commit_tx_id, commitBlockNumber: r.commit_block_number === null ? null : Number(r.commit_block_number),
    initializedAt: r.initialized_at ? iso(r.initialized_at) : null, initTxId: r.init_tx_id, initBlockNumber: r.init_block_number === null || r.init_block_number === undefined ? null : Number(r.init_block_number),
    serverTls: r.tls_server_key_id == null ? null : {
      server: { keyId: r.tls_server_key_id, serialNumber: r.tls_server_serial, notAfter: r.tls_server_not_after ? iso(r.tls_server_not_after) : null, expiryStatus: r.tls_server_expiry },
      peerClient: r.tls_client_key_id == null ? null : { keyId: r.tls_client_key_id, serialNumber: r.tls_client_serial, notAfter: r.tls_client_not_after ? iso(r.tls_client_not_after) : null, expiryStatus: r.tls_client_expiry },
    },
    createdAt: iso(r.created_at), updatedAt: iso(r.updated_at),
  };
}

// A record with its server's TLS certificates: a server recorded with TLS holds its own keys as
// key_ids [server TLS, peers' client TLS] (it has no identity key: projections/nodes.ts ownKeyIds).
const SELECT = `SELECT c.*,
    st.id AS tls_server_key_id, st.serial_number AS tls_server_serial, st.not_after AS tls_server_not_after, st.expiry_status AS tls_server_expiry,
    ct.id AS tls_client_key_id, ct.serial_number AS tls_client_serial, ct.not_after AS tls_client_not_after, ct.expiry_status AS tls_client_expiry
  FROM consortium_chaincodes c
  LEFT JOIN nodes n ON n.id = c.server_node_id AND n.role = 'chaincode' AND n.config->>'tls' = 'true'
  LEFT JOIN keys st ON st.id = n.key_ids[1]
  LEFT JOIN keys ct ON ct.id = n.key_ids[2]`;

export async function getChaincode(pool: pg.Pool, id: number): Promise<ChaincodeRow | null> {
  const r = await pool.query(`${SELECT} WHERE c.id = $1`, [id]);
  return r.rows[0] ? row(r.rows[0]) : null;
}

export async function listChaincodes(pool: pg.Pool, q: { networkId?: number; name?: string; limit: number; offset: number }): Promise<{ items: ChaincodeRow[]; total: number }> {
  const where: string[] = [];
  const values: unknown[] = [];
  if (q.networkId !== undefined) where.push(`c.network_id = $${values.push(q.networkId)}`);
  if (q.name !== undefined) where.push(`c.name = $${values.push(q.name)}`);
  const w = where.length ? `WHERE ${where.join(' AND ')}` : '';
  const total = Number((await pool.query(`SELECT count(*) FROM consortium_chaincodes c ${w}`, values)).rows[0].count);
  const r = await pool.query(`${SELECT} ${w} ORDER BY c.id LIMIT $${values.length + 1} OFFSET $${values.length + 2}`, [...values, q.limit, q.offset]);
  return { items: r.rows.map(row), total };
}

/** The newest version of a chaincode on a network (highest sequence). */
export async function latestChaincode(pool: pg.Pool, networkId: number, name: string): Promise<ChaincodeRow | null> {
  const r = await pool.query(`${SELECT} WHERE c.network_id = $1 AND c.name = $2 ORDER BY c.sequence DESC, c.id DESC LIMIT 1`, [networkId, name]);
  return r.rows[0] ? row(r.rows[0]) : null;
}
