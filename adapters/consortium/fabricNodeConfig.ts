// What is wrong with a consortium node's recorded config before anything is written for it
// (empty when nothing is), and the pieces of it both launch files use.
import { isIP } from 'node:net';
import type { ConsortiumNodeConfig } from '../../domain/consortium/consortiumNode.ts';
import { isOrdererConfig } from '../../domain/consortium/consortiumNode.ts';
import type { FieldIssue } from '../../domain/shared/errors.ts';

const HOSTNAME = /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

export function isHostName(h: string): boolean {
  return isIP(h) !== 0 || HOSTNAME.test(h);
}

/** host:port of "host:port" (IPv6 in brackets), or null when it is not one. */
export function splitEndpoint(endpoint: string): { host: string; port: number } | null {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+):(\d{1,5})$/.exec(endpoint);
  if (!m) return null;
  const port = Number(m[2]);
  const host = m[1].replace(/^\[|\]$/g, '');
  return port >= 1 && port <= 65535 && isHostName(host) ? { host, port } : null;
}

/** The node's ports, named as in its config. */
export function nodePorts(config: ConsortiumNodeConfig): [string, number][] {
  const c = config;
  return isOrdererConfig(c)
    ? [['port', c.port], ['adminPort', c.adminPort], ['operationsPort', c.operationsPort]]
    : [['port', c.port], ['chaincodePort', c.chaincodePort], ['operationsPort', c.operationsPort]];
}

export function nodeConfigIssues(config: ConsortiumNodeConfig): FieldIssue[] {
  const issues: FieldIssue[] = [];
  if (isIP(config.listenAddress) === 0) issues.push({ field: 'config.listenAddress', message: 'must be an IP address (0.0.0.0 or 127.0.0.1)' });
  if (!HOSTNAME.test(config.hostname ?? '')) issues.push({ field: 'config.hostname', message: 'must be a DNS host name' });
  if (!splitEndpoint(config.externalEndpoint ?? '')) issues.push({ field: 'config.externalEndpoint', message: 'must be host:port' });
  (config.domainNames ?? []).forEach((d, i) => {
    if (!isHostName(d)) issues.push({ field: `config.domainNames[${i}]`, message: 'must be a DNS name or an IP address' });
  });
  const seen = new Map<number, string>();
  for (const [name, port] of nodePorts(config)) {
    if (!Number.isInteger(port) || port < 1 || port > 65535) issues.push({ field: `config.${name}`, message: 'must be a port number 1-65535' });
    else if (seen.has(port)) issues.push({ field: `config.${name}`, message: `is the same port as config.${seen.get(port)}` });
    else seen.set(port, name);
  }
  return issues;
}

/**
 * The names the node's TLS certificate must carry as SANs: its host name, its extra domain
 * names, the host of its external endpoint, and loopback (this service reaches it there).
 */
export function nodeTlsHosts(config: ConsortiumNodeConfig): string[] {
  const external = splitEndpoint(config.externalEndpoint)?.host;
  return [...new Set([config.hostname, ...(config.domainNames ?? []), ...(external ? [external] : []), 'localhost', '127.0.0.1'])];
}

/** Where the service reaches the node's own HTTP endpoints: loopback when it listens on every address. */
export function localAddress(config: ConsortiumNodeConfig): string {
  return config.listenAddress === '0.0.0.0' || config.listenAddress === '::' ? '127.0.0.1' : config.listenAddress;
}
