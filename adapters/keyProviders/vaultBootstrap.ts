// Bringing up a Vault the service manages (CREATE mode), independent of how its container is run:
//   bootstrapVault(address, opts)   fresh Vault -> initialized, unsealed, transit and KV v2 mounted;
//                                   returns { rootToken, unsealKeys } for the caller to store encrypted
//   ensureUnsealed(address, keys)   after a restart of the managed Vault (it comes back sealed)
// Both can wait for the server to answer (a container that is still starting).
import { ConflictError, PreconditionFailedError, UnavailableError } from '../../domain/shared/errors.ts';
import { createVaultClient, isVaultUnreachable, mapVaultError, vaultUnreachable, type VaultClient } from './vaultClient.ts';

export interface VaultBootstrapOptions {
  secretShares?: number;
  secretThreshold?: number;
  transitPath?: string;
  kvPath?: string;
  /** Keep polling sys/health this long while nothing answers (container start). Default 0: one try. */
  waitMs?: number;
}

export interface VaultBootstrapResult {
  rootToken: string;
  unsealKeys: string[];
}

interface Health {
  initialized: boolean;
  sealed: boolean;
}

async function waitForHealth(client: VaultClient, address: string, waitMs: number): Promise<Health> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      const h = await client.health({ standbyok: true });
      return { initialized: h?.initialized === true, sealed: h?.sealed === true };
    } catch (err) {
      if (!isVaultUnreachable(err)) throw mapVaultError(err, { address, path: 'sys/health' });
      if (Date.now() >= deadline) throw vaultUnreachable(address, err);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

async function unsealWith(client: VaultClient, address: string, keys: string[]): Promise<void> {
  for (const key of keys) {
    let res: { sealed?: boolean };
    try {
      res = await client.unseal({ key });
    } catch (err) {
      const e = mapVaultError(err, { address, path: 'sys/unseal' });
      // The message never repeats the key; Vault's own ("cipher: message authentication failed") does not either.
      throw new UnavailableError(`Vault at ${address} refused the stored unseal keys: ${e.message}`, { sealed: true, address });
    }
    if (res?.sealed === false) return;
  }
  throw new UnavailableError(`Vault at ${address} is still sealed: the stored unseal keys are fewer than its threshold.`, { sealed: true, address });
}

async function ensureMount(client: VaultClient, address: string, path: string, type: 'transit' | 'kv'): Promise<void> {
  const mounts = await client.read('sys/mounts').catch((err) => {
    throw mapVaultError(err, { address, path: 'sys/mounts' });
  });
  const existing = (mounts?.data ?? mounts)?.[`${path}/`];
  if (existing) {
    const ok = existing.type === type && (type !== 'kv' || String(existing.options?.version) === '2');
    if (!ok) throw new ConflictError(`Vault at ${address} already has a ${existing.type} engine at ${path}/, not ${type === 'kv' ? 'KV version 2' : 'transit'}.`);
    return;
  }
  const body = type === 'transit' ? { type: 'transit' } : { type: 'kv', options: { version: '2' } };
  await client.write(`sys/mounts/${path}`, body).catch((err) => {
    throw mapVaultError(err, { address, path: `sys/mounts/${path}` });
  });
}

export async function bootstrapVault(address: string, opts: VaultBootstrapOptions = {}): Promise<VaultBootstrapResult> {
  const shares = opts.secretShares ?? 1;
  const threshold = opts.secretThreshold ?? 1;
  const anonymous = createVaultClient({ address, token: '' });
  const health = await waitForHealth(anonymous, address, opts.waitMs ?? 0);
  if (health.initialized) {
    throw new ConflictError(`Vault at ${address} is already initialized; connect to it with operation IMPORT and a token instead.`, { address });
  }
  let init: { keys?: string[]; root_token?: string };
  try {
    init = await anonymous.init({ secret_shares: shares, secret_threshold: threshold });
  } catch (err) {
    throw mapVaultError(err, { address, path: 'sys/init' });
  }
  const unsealKeys = init.keys ?? [];
  const rootToken = init.root_token ?? '';
  await unsealWith(anonymous, address, unsealKeys.slice(0, threshold));
  const root = createVaultClient({ address, token: rootToken });
  await ensureMount(root, address, opts.transitPath ?? 'transit', 'transit');
  await ensureMount(root, address, opts.kvPath ?? 'secret', 'kv');
  return { rootToken, unsealKeys };
}

/** Unseals a managed Vault if it is sealed. Returns whether it had to. */
export async function ensureUnsealed(address: string, unsealKeys: string[], opts: { waitMs?: number } = {}): Promise<{ wasSealed: boolean }> {
  const anonymous = createVaultClient({ address, token: '' });
  const health = await waitForHealth(anonymous, address, opts.waitMs ?? 0);
  if (!health.initialized) throw new PreconditionFailedError(`Vault at ${address} is not initialized; it must be bootstrapped first.`, { address });
  if (!health.sealed) return { wasSealed: false };
  // Shares someone else half-entered would be combined with ours.
  await anonymous.unseal({ reset: true }).catch((err) => {
    throw mapVaultError(err, { address, path: 'sys/unseal' });
  });
  await unsealWith(anonymous, address, unsealKeys);
  return { wasSealed: true };
}
