import type pg from 'pg';
import type { Projection } from './projection.ts';
import { NODE_SHARING_STREAM, type PeerConnectedData, type PeerMetadata, type SharedNetwork, type SharedNode, type SharedOrganization } from '../domain/sharing/nodeSharing.ts';

export const nodeSharingProjection: Projection = {
  name: 'node-sharing',
  handles: ['PeerConnected', 'PeerNodesSynced', 'PeerRevoked'],
  tables: ['sharing_peers'],
  apply(e) {
    if (e.streamId !== NODE_SHARING_STREAM) return [];
    switch (e.type) {
      case 'PeerConnected': {
        const d = e.data as unknown as PeerConnectedData;
        return [{
          text: `INSERT INTO sharing_peers (id, instance_id, url, tls_certificate, tls_fingerprint, public_jwk, role, invitation_id, shares_with_peer, peer_shares, status, created_at, updated_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 'active', $11, $11)`,
          values: [d.peerId, d.instanceId, d.url, d.tlsCertificate, d.tlsFingerprint, JSON.stringify(d.publicJwk), d.role, d.invitationId, d.sharesWithPeer, d.peerShares, d.at],
        }];
      }
      case 'PeerNodesSynced': {
        const d = e.data as unknown as PeerMetadata & { peerId: number; at: string };
        return [{ text: 'UPDATE sharing_peers SET nodes = $2, organizations = $4, networks = $5, last_sync_at = $3, updated_at = $3 WHERE id = $1', values: [d.peerId, JSON.stringify(d.nodes), d.at, JSON.stringify(d.organizations ?? []), JSON.stringify(d.networks ?? [])] }];
      }
      case 'PeerRevoked': {
        const d = e.data as unknown as { peerId: number; at: string };
        return [{ text: `UPDATE sharing_peers SET status = 'revoked', updated_at = $2 WHERE id = $1`, values: [d.peerId, d.at] }];
      }
      default:
        return [];
    }
  },
};

export interface SharingPeerRow {
  id: number;
  instanceId: string;
  url: string;
  tlsCertificate: string;
  tlsFingerprint: string;
  publicJwk: Record<string, string>;
  role: 'inviter' | 'acceptor';
  invitationId: string;
  sharesWithPeer: boolean;
  peerShares: boolean;
  status: 'active' | 'revoked';
  nodes: SharedNode[];
  organizations: SharedOrganization[];
  networks: SharedNetwork[];
  lastSyncAt: string | null;
  createdAt: string;
}

const iso = (v: unknown) => (v ? new Date(v as string).toISOString() : null);
const toRow = (r: Record<string, any>): SharingPeerRow => ({
  id: r.id, instanceId: r.instance_id, url: r.url, tlsCertificate: r.tls_certificate, tlsFingerprint: r.tls_fingerprint, publicJwk: r.public_jwk,
  role: r.role, invitationId: r.invitation_id, sharesWithPeer: r.shares_with_peer, peerShares: r.peer_shares, status: r.status, nodes: r.nodes, organizations: r.organizations ?? [], networks: r.networks ?? [],
  lastSyncAt: iso(r.last_sync_at), createdAt: iso(r.created_at)!,
});

export async function listSharingPeers(pool: pg.Pool, limit: number, offset: number): Promise<{ items: SharingPeerRow[]; total: number }> {
  const r = await pool.query('SELECT *, count(*) OVER () AS total FROM sharing_peers ORDER BY id LIMIT $1 OFFSET $2', [limit, offset]);
  return { items: r.rows.map(toRow), total: Number(r.rows[0]?.total ?? 0) };
}

export async function getSharingPeer(pool: pg.Pool, id: number): Promise<SharingPeerRow | null> {
  const r = await pool.query('SELECT * FROM sharing_peers WHERE id = $1', [id]);
  return r.rows[0] ? toRow(r.rows[0]) : null;
}

/** The peer a signed request claims to come from: the newest relationship with that instance. */
export async function sharingPeerByInstance(pool: pg.Pool, instanceId: string): Promise<SharingPeerRow | null> {
  const r = await pool.query('SELECT * FROM sharing_peers WHERE instance_id = $1 ORDER BY id DESC LIMIT 1', [instanceId]);
  return r.rows[0] ? toRow(r.rows[0]) : null;
}

/** The public MSP of an organization an active peer shares with this instance (to add it to a channel here). */
export async function sharedOrganization(pool: pg.Pool, mspId: string): Promise<SharedOrganization | null> {
  const r = await pool.query(
    `SELECT o FROM sharing_peers p, jsonb_array_elements(p.organizations) o WHERE p.status = 'active' AND p.peer_shares AND o->>'mspId' = $1 ORDER BY p.last_sync_at DESC NULLS LAST LIMIT 1`,
    [mspId],
  );
  return r.rows[0]?.o ?? null;
}
