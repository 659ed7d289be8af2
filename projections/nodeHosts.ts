// Read model of node hosts (remote Docker Engines and Kubernetes clusters) and the queries routes and use cases read.
import type pg from 'pg';
import type { Projection } from './projection.ts';
import type { KubernetesClusterFindings, KubernetesHostSettings, NodeHostKind } from '../domain/hosts/nodeHosts.ts';

export const nodeHostsProjection: Projection = {
  name: 'node_hosts',
  handles: ['NodeHostRegistered', 'NodeHostUpdated', 'NodeHostDeleted', 'NodeHostObserved'],
  tables: ['node_hosts'],
  apply(e) {
    const d = e.data as Record<string, any>;
    switch (e.type) {
      case 'NodeHostRegistered': {
        const o = d.observation;
        return [{
          text: `INSERT INTO node_hosts (id, name, url, external_ip, ca_certificate, client_certificate, sealed_secrets, labels, max_nodes, reachable, engine_version, running_nodes, last_error, checked_at, created_at, updated_at, kind, kubernetes, kubernetes_check)
                 VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$14,$14,$15,$16,$17) ON CONFLICT (id) DO NOTHING`,
          values: [d.hostId, d.name, d.address.url, d.address.externalIp, d.address.caCertificate, d.address.clientCertificate, d.sealedSecrets, JSON.stringify(d.labels), d.capacity.maxNodes, o.reachable, o.engineVersion, o.runningNodes, o.reason, d.at, d.address.kind ?? 'docker', d.address.kubernetes ? JSON.stringify(d.address.kubernetes) : null, o.kubernetes ? JSON.stringify(o.kubernetes) : null],
        }];
      }
      case 'NodeHostUpdated':
        return [{ text: 'UPDATE node_hosts SET name = $2, labels = $3, max_nodes = $4, updated_at = $5 WHERE id = $1', values: [d.hostId, d.name, JSON.stringify(d.labels), d.capacity.maxNodes, d.at] }];
      case 'NodeHostDeleted':
        return [{ text: 'DELETE FROM node_hosts WHERE id = $1', values: [d.hostId] }];
      case 'NodeHostObserved': {
        const o = d.observation;
        return [{ text: 'UPDATE node_hosts SET reachable = $2, engine_version = $3, running_nodes = $4, last_error = $5, checked_at = $6, kubernetes_check = $7 WHERE id = $1', values: [d.hostId, o.reachable, o.engineVersion, o.runningNodes, o.reason, d.at, o.kubernetes ? JSON.stringify(o.kubernetes) : null] }];
      }
      default:
        return [];
    }
  },
};

export interface NodeHostRow {
  id: number;
  name: string;
  kind: NodeHostKind;
  kubernetes: KubernetesHostSettings | null;
  url: string;
  externalIp: string;
  caCertificate: string;
  clientCertificate: string;
  sealedSecrets: string;
  labels: Record<string, string>;
  maxNodes: number | null;
  reachable: boolean;
  engineVersion: string | null;
  runningNodes: number | null;
  lastError: string | null;
  /** A kubernetes host: the last recorded cluster check's findings (null when it did not get an answer). */
  kubernetesCheck: KubernetesClusterFindings | null;
  checkedAt: string;
  createdAt: string;
  updatedAt: string;
}

const iso = (v: unknown) => new Date(v as string).toISOString();

function rowOf(r: Record<string, any>): NodeHostRow {
  return {
    id: r.id, name: r.name, kind: r.kind ?? 'docker', kubernetes: r.kubernetes ?? null, url: r.url, externalIp: r.external_ip, caCertificate: r.ca_certificate, clientCertificate: r.client_certificate, sealedSecrets: r.sealed_secrets,
    labels: r.labels ?? {}, maxNodes: r.max_nodes, reachable: r.reachable, engineVersion: r.engine_version, runningNodes: r.running_nodes, lastError: r.last_error, kubernetesCheck: r.kubernetes_check ?? null,
    checkedAt: iso(r.checked_at), createdAt: iso(r.created_at), updatedAt: iso(r.updated_at),
  };
}

export async function listNodeHosts(pool: pg.Pool, labels: Record<string, string> = {}): Promise<NodeHostRow[]> {
  const r = await pool.query('SELECT * FROM node_hosts WHERE labels @> $1::jsonb ORDER BY id', [JSON.stringify(labels)]);
  return r.rows.map(rowOf);
}

export async function getNodeHost(pool: pg.Pool, id: number): Promise<NodeHostRow | null> {
  const r = await pool.query('SELECT * FROM node_hosts WHERE id = $1', [id]);
  return r.rows[0] ? rowOf(r.rows[0]) : null;
}

export async function nodeHostNamed(pool: pg.Pool, name: string): Promise<number | null> {
  const r = await pool.query('SELECT id FROM node_hosts WHERE lower(name) = lower($1)', [name]);
  return r.rows[0]?.id ?? null;
}

/** Nodes placed on the host (config.hostId). */
export async function nodesOnHost(pool: pg.Pool, hostId: number): Promise<number> {
  const r = await pool.query(`SELECT count(*)::int AS n FROM nodes WHERE config->>'hostId' = $1`, [String(hostId)]);
  return r.rows[0].n;
}
