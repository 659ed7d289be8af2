// A Docker Engine on another machine, reached over TCP with mutual TLS (dockerd --tlsverify):
// the client for it, and the probe the hosts registry runs at creation and periodically.
// The client key is only ever handed to node:tls; no message built here carries it.
import { createPrivateKey, X509Certificate } from 'node:crypto';
import Docker from 'dockerode';
import type { NodeHostConnection, NodeHostProbe } from '../../domain/hosts/hostPorts.ts';
import type { NodeHostObservation } from '../../domain/hosts/nodeHosts.ts';

const PROBE_TIMEOUT_MS = 5000;

/** host and port of tcp://host:port (or https://host:port); null when it is not such a URL. */
export function engineAddress(url: string): { host: string; port: number } | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  if (u.protocol !== 'tcp:' && u.protocol !== 'https:') return null;
  if (!u.hostname || (u.pathname && u.pathname !== '/') || u.search || u.username || u.password) return null;
  const port = u.port ? Number(u.port) : 2376;
  return { host: u.hostname.replace(/^\[|\]$/g, ''), port };
}

/** What is wrong with the PEMs of a connection, by field; empty when each parses and the key fits the certificate. */
export function connectionPemIssues(c: NodeHostConnection): { field: string; message: string }[] {
  const issues: { field: string; message: string }[] = [];
  let cert: X509Certificate | null = null;
  try {
    new X509Certificate(c.caCertificate);
  } catch {
    issues.push({ field: 'tls.caCertificate', message: 'is not a PEM certificate' });
  }
  try {
    cert = new X509Certificate(c.clientCertificate);
  } catch {
    issues.push({ field: 'tls.clientCertificate', message: 'is not a PEM certificate' });
  }
  try {
    const key = createPrivateKey(c.clientKey);
    if (cert && !cert.checkPrivateKey(key)) issues.push({ field: 'tls.clientKey', message: 'does not belong to the client certificate' });
  } catch {
    issues.push({ field: 'tls.clientKey', message: 'is not a PEM private key' });
  }
  return issues;
}

export function remoteDocker(c: NodeHostConnection): Docker {
  const address = engineAddress(c.url);
  if (!address) throw new Error(`${c.url} is not a tcp://host:port address`);
  return new Docker({ protocol: 'https', host: address.host, port: address.port, ca: c.caCertificate, cert: c.clientCertificate, key: c.clientKey, timeout: PROBE_TIMEOUT_MS * 6 });
}

// The reason of a failed call in words, without anything of the request (never the key).
function reasonOf(err: unknown, url: string): string {
  const e = err as NodeJS.ErrnoException & { reason?: string };
  const code = e?.code ?? '';
  if (code === 'ECONNREFUSED') return `nothing listens at ${url} (connection refused)`;
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return `${url} cannot be reached (${code})`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `the host name of ${url} does not resolve`;
  if (code === 'TIMEOUT') return `${url} did not answer within ${PROBE_TIMEOUT_MS / 1000} s`;
  if (/CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS/.test(code) || /certificate|alert|ssl|tls/i.test(e?.message ?? '')) {
    return `the TLS handshake with ${url} failed: ${(e.message ?? code).split('\n')[0]} (check the CA, the client certificate and the engine's --tlsverify certificates)`;
  }
  return `${url} did not answer as a Docker Engine: ${(e?.message ?? String(err)).split('\n')[0]}`;
}

function withTimeout<T>(p: Promise<T>): Promise<T> {
  return Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })), PROBE_TIMEOUT_MS).unref())]);
}

export function createRemoteDockerProbe(): NodeHostProbe {
  return {
    async probe(c): Promise<NodeHostObservation> {
      if (!engineAddress(c.url)) return { reachable: false, engineVersion: null, runningNodes: null, reason: `${c.url} is not a tcp://host:port address` };
      const issues = connectionPemIssues(c);
      if (issues.length) return { reachable: false, engineVersion: null, runningNodes: null, reason: issues.map((i) => `${i.field} ${i.message}`).join('; ') };
      try {
        const docker = remoteDocker(c);
        const version = await withTimeout(docker.version());
        const running = await withTimeout(docker.listContainers({ filters: { label: ['lnm.node'], status: ['running'] } }));
        return { reachable: true, engineVersion: version.Version ?? null, runningNodes: running.length, reason: null };
      } catch (err) {
        return { reachable: false, engineVersion: null, runningNodes: null, reason: reasonOf(err, c.url) };
      }
    },
  };
}
