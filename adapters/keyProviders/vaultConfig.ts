// The Vault provider's configuration, in both shapes SPEC.md shows:
//   { vaultConfig: { operation: 'IMPORT', address, token, mount } }     mount = the KV v2 mount
//   { vaultConfig: { operation: 'CREATE', mode: 'docker', network: 'bridge', port: 8200, version } }
//   { config: { address, token, transitPath, kvPath } }                 (always IMPORT)
// Optional in every shape: transitPath (default "transit"), kvPath (default: mount, else "secret"),
// namespace (Vault Enterprise), caCert (PEM of the CA behind Vault's TLS certificate). The token is returned for the caller to store encrypted; it never
// appears in an error.
import { readProviderConfigBody } from './providerConfigBody.ts';
import { ValidationError } from '../../domain/shared/errors.ts';

export interface VaultConnection {
  address: string;
  token: string;
  transitPath: string;
  kvPath: string;
  namespace?: string;
  caCertPem?: string;
}

export type VaultProviderConfig =
  | { operation: 'IMPORT'; connection: VaultConnection }
  | { operation: 'CREATE'; mode: 'docker'; network: string; port: number; version: string; transitPath: string; kvPath: string };

const mountPattern = /^[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)*$/;

export function parseVaultProviderConfig(body: { vaultConfig?: unknown; config?: unknown }): VaultProviderConfig {
  const { field, raw, issues, str } = readProviderConfigBody(body, 'vaultConfig', 'A Vault provider');
  const mountPath = (name: string, dflt: string): string => {
    const v = (str(name) ?? dflt).replace(/^\/+|\/+$/g, '');
    if (!mountPattern.test(v)) issues.push({ field: `${field}.${name}`, message: 'must be a mount path such as "transit" or "kv/keys"' });
    return v;
  };
  const operation = field === 'config' ? 'IMPORT' : (str('operation') ?? 'IMPORT').toUpperCase();
  const transitPath = mountPath('transitPath', 'transit');
  const kvPath = mountPath('kvPath', str('mount') ?? 'secret');

  if (operation === 'CREATE') {
    const version = str('version');
    if (!version) issues.push({ field: `${field}.version`, message: 'required for CREATE (the Vault image version, e.g. 1.17)' });
    const mode = str('mode') ?? 'docker';
    if (mode !== 'docker') issues.push({ field: `${field}.mode`, message: 'only "docker" is supported' });
    const port = raw.port === undefined ? 8200 : Number(raw.port);
    if (!Number.isInteger(port) || port < 1 || port > 65535) issues.push({ field: `${field}.port`, message: 'must be a TCP port (1-65535)' });
    const network = str('network') ?? 'bridge';
    if (issues.length) throw new ValidationError('Invalid Vault provider configuration.', issues);
    return { operation: 'CREATE', mode: 'docker', network, port, version: version!, transitPath, kvPath };
  }
  if (operation !== 'IMPORT') {
    throw new ValidationError('Invalid Vault provider configuration.', [{ field: `${field}.operation`, message: 'must be CREATE or IMPORT' }]);
  }
  const address = str('address');
  const token = str('token');
  if (!address) issues.push({ field: `${field}.address`, message: 'required: the Vault URL, e.g. https://vault.example.com:8200' });
  else {
    let url: URL | null = null;
    try {
      url = new URL(address);
    } catch {
      url = null;
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) issues.push({ field: `${field}.address`, message: 'must be an http(s) URL' });
  }
  if (!token) issues.push({ field: `${field}.token`, message: 'required: a Vault token whose policy allows the transit and KV paths' });
  const namespace = str('namespace');
  const caCertPem = str('caCert');
  if (caCertPem && !/-----BEGIN CERTIFICATE-----/.test(caCertPem)) issues.push({ field: `${field}.caCert`, message: 'must be a PEM certificate' });
  if (issues.length) throw new ValidationError('Invalid Vault provider configuration.', issues);
  return { operation: 'IMPORT', connection: { address: address!.replace(/\/+$/, ''), token: token!, transitPath, kvPath, namespace, ...(caCertPem ? { caCertPem } : {}) } };
}
