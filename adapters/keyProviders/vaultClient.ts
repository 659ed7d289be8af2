// One node-vault client per Vault connection, and the one place that turns what Vault (or the
// network) answers into the application's errors. Messages name the address and the path,
// never the token: the raw client error is not attached as `cause` because it carries the
// request headers, X-Vault-Token included.
import NodeVault from 'node-vault';
import { AppError, UnavailableError, ValidationError } from '../../domain/shared/errors.ts';

export type VaultClient = NodeVault.client;

export interface VaultTarget {
  address: string;
  /** Empty for the unauthenticated sys endpoints used before a root token exists. */
  token: string;
  namespace?: string;
  /** PEM of the CA that issued Vault's TLS certificate, when it is not a public one. */
  caCertPem?: string;
  timeoutMs?: number;
}

export function createVaultClient(target: VaultTarget): VaultClient {
  const client = NodeVault({
    endpoint: target.address,
    token: target.token || undefined,
    namespace: target.namespace,
    requestOptions: { timeout: target.timeoutMs ?? 10_000, ...(target.caCertPem ? { ca: target.caCertPem } : {}) },
  });
  // node-vault falls back to VAULT_TOKEN / VAULT_PREFIX / VAULT_NAMESPACE from the environment;
  // a provider must talk to its own Vault with its own token only.
  client.token = target.token;
  (client as unknown as { pathPrefix: string }).pathPrefix = '';
  (client as unknown as { namespace?: string }).namespace = target.namespace;
  return client;
}

const networkCodes = new Set(['ECONNREFUSED', 'ENOTFOUND', 'ECONNRESET', 'ETIMEDOUT', 'ECONNABORTED', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'EPIPE', 'ERR_NETWORK', 'ERR_SOCKET_CONNECTION_TIMEOUT']);

export interface VaultErrorContext {
  address: string;
  /** The Vault path requested, e.g. transit/sign/org1-ca (not secret). */
  path: string;
  transitPath?: string;
  kvPath?: string;
}

/** True when the error means "no answer from Vault at all". */
export function isVaultUnreachable(err: unknown): boolean {
  const e = err as { code?: string; response?: unknown; isAxiosError?: boolean };
  return !!e && typeof e === 'object' && !('response' in e && (e.response as { statusCode?: number })?.statusCode) && (networkCodes.has(e.code ?? '') || e.isAxiosError === true);
}

const tlsCode = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS|ERR_SSL/;

export function vaultUnreachable(address: string, err: unknown): UnavailableError {
  const code = (err as { code?: string })?.code ?? 'no response';
  if (tlsCode.test(code)) {
    return new UnavailableError(`Vault at ${address} presented a TLS certificate this server does not trust (${code}). Set caCert to the CA that issued it.`, { vault_reachable: false, address });
  }
  return new UnavailableError(`Vault at ${address} is not reachable (${code}). Check the address and that Vault is running.`, { vault_reachable: false, address });
}

export function vaultSealed(address: string): UnavailableError {
  return new UnavailableError(`Vault at ${address} is sealed. Unseal it with its unseal keys (a managed Vault is unsealed automatically).`, { sealed: true, address });
}

export function mapVaultError(err: unknown, ctx: VaultErrorContext): AppError {
  if (err instanceof AppError) return err;
  const response = (err as { response?: { statusCode?: number } })?.response;
  const status = response?.statusCode;
  if (!status) {
    if (isVaultUnreachable(err)) return vaultUnreachable(ctx.address, err);
    return new AppError(502, 'KEY_PROVIDER_ERROR', `Vault at ${ctx.address} could not be used for ${ctx.path}: ${safeMessage(err)}`);
  }
  const message = safeMessage(err);
  if (status === 503 && /sealed/i.test(message)) return vaultSealed(ctx.address);
  if (status === 403) {
    const transit = ctx.transitPath ?? 'transit';
    const kv = ctx.kvPath ?? 'secret';
    return new AppError(
      403,
      'KEY_PROVIDER_PERMISSION_DENIED',
      `Vault at ${ctx.address} denied ${ctx.path}: permission denied. The token is invalid or expired, or its policy does not allow ` +
        `create, read and update on ${transit}/* and create, read, update, list and delete on ${kv}/*.`,
      { extra: { address: ctx.address, path: ctx.path } },
    );
  }
  if (status === 404 && /no handler for route/i.test(message)) {
    const mount = ctx.path.split('/')[0];
    return new UnavailableError(
      `Vault at ${ctx.address} has no secrets engine mounted at ${mount}/. Enable ${mount === ctx.kvPath ? 'a KV version 2 engine' : 'the transit engine'} there, or correct the provider's paths.`,
      { address: ctx.address, path: ctx.path },
    );
  }
  if (status === 400) return new ValidationError(`Vault rejected ${ctx.path}: ${message}`);
  if (status >= 500) return new UnavailableError(`Vault at ${ctx.address} failed on ${ctx.path}: ${message}`, { address: ctx.address });
  return new AppError(502, 'KEY_PROVIDER_ERROR', `Vault at ${ctx.address} answered ${status} on ${ctx.path}: ${message}`);
}

/** Vault's own error texts never contain the token; network errors may carry a URL, which is not secret. */
function safeMessage(err: unknown): string {
  const m = err instanceof Error ? err.message : String(err);
  return m.replace(/hvs\.[A-Za-z0-9_-]+|s\.[A-Za-z0-9]{24}/g, '[token]').slice(0, 500);
}
