// The node-sharing listener (pro): the instance-to-instance API over HTTPS with this instance's
// self-signed certificate, on LNM_SHARING_PORT. Off when the port is unset or the edition is
// community; the sharing routes then answer 503 (pro) or 403 (community).
import https from 'node:https';
import type { Config } from './config.ts';
import type { AppDeps, Logger } from '../application/deps.ts';
import { createSharingDeps } from '../adapters/sharing/sharingDeps.ts';
import { loadOrCreateInstanceTls } from '../adapters/sharing/sharingTls.ts';
import { peerApi } from '../http/sharing/peerApi.ts';

export async function startSharingListener(config: Config, deps: AppDeps, log: Logger): Promise<{ close(): Promise<void> } | null> {
  deps.sharing = createSharingDeps(null);
  if (config.sharingPort === null || config.sharingPort === undefined || config.edition === 'community') return null;
  const host = config.sharingHost ?? '127.0.0.1';
  const tls = await loadOrCreateInstanceTls(config.dataDir, deps.config.instanceId, [...new Set([host, '127.0.0.1', 'localhost'])], new Date());
  const server = https.createServer({ key: tls.keyPem, cert: tls.certificatePem, minVersion: 'TLSv1.2' }, peerApi(deps).callback());
  // Anyone can connect: a client that trickles its headers or body is cut off, not waited for.
  server.headersTimeout = 10_000;
  server.requestTimeout = 60_000;
  server.maxHeadersCount = 50;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.sharingPort!, config.host, () => resolve());
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : config.sharingPort;
  const url = `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
  deps.sharing = createSharingDeps({ url, certificatePem: tls.certificatePem, fingerprint: tls.fingerprint });
  log.info({ url, fingerprint: tls.fingerprint }, 'node sharing listener');
  return {
    close: () => new Promise<void>((r) => {
      server.close(() => r());
      server.closeAllConnections?.();
    }),
  };
}
