// Where a registered host's engine is and how to reach it: the row of node_hosts with its
// client key opened from the sealed text (KEY_ENCRYPTION_KEY). Read afresh each time, so a
// host deleted or re-registered is seen at once.
import type pg from 'pg';
import type { NodeHostDirectory } from '../../domain/hosts/hostPorts.ts';
import { hostSecretContext } from '../../domain/hosts/nodeHosts.ts';
import type { SecretBox } from '../../domain/webhooks/ports.ts';

export function createNodeHostDirectory(pool: pg.Pool, secrets: SecretBox): NodeHostDirectory {
  return {
    async connection(hostId) {
      const r = await pool.query('SELECT name, kind, kubernetes, url, external_ip, ca_certificate, client_certificate, sealed_secrets FROM node_hosts WHERE id = $1', [hostId]);
      const row = r.rows[0];
      if (!row) return null;
      return {
        name: row.name, kind: row.kind, ...(row.kubernetes ? { kubernetes: row.kubernetes } : {}), url: row.url, externalIp: row.external_ip, caCertificate: row.ca_certificate, clientCertificate: row.client_certificate,
        clientKey: await secrets.open(row.sealed_secrets, hostSecretContext(hostId)),
      };
    },
  };
}
