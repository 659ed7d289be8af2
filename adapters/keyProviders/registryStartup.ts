// Start-up of the key services: KEY_ENCRYPTION_KEY (given, or generated into the data directory
// with mode 0600), the canary check that fails the start loudly when the key differs from the one
// the stored keys were made with (nothing is written then), the database provider and the registry.
import type { KeyServices } from '../../domain/keys/keyServices.ts';
import { createDatabaseKeyProvider, type SqlQueryable } from './databaseKeyProvider.ts';
import { verifyKeyEncryptionKey } from './databaseKeyEncryptionCheck.ts';
import { resolveKeyEncryptionKey } from './keyEncryptionKeyFile.ts';
import { createKeyProviderRegistry } from './registry.ts';
import { createRegistryKeyServices } from './registryKeyServices.ts';

export interface KeyServicesStartup {
  keyEncryptionKey: string | null;
  dataDir: string;
  pool: SqlQueryable;
  log: (obj: Record<string, unknown>, msg: string) => void;
  kdfIterations?: number;
  /** LNM_IMAGE_VAULT: the image of managed Vaults (Vault CREATE mode); default hashicorp/vault:<version>. */
  vaultImage?: string | null;
}

export async function openKeyServices(opts: KeyServicesStartup): Promise<KeyServices> {
  const kek = resolveKeyEncryptionKey({ env: { KEY_ENCRYPTION_KEY: opts.keyEncryptionKey ?? undefined }, dataDir: opts.dataDir });
  if (kek.source === 'generated') opts.log({ path: kek.path }, 'KEY_ENCRYPTION_KEY generated into the data directory (mode 0600); back it up: stored private keys cannot be decrypted without it');
  const check = await verifyKeyEncryptionKey(opts.pool, kek.key, { kdfIterations: opts.kdfIterations });
  opts.log({ source: kek.source, check: check.outcome }, 'key encryption key checked');
  const database = createDatabaseKeyProvider({ pool: opts.pool, keyEncryptionKey: kek.key, kdfIterations: opts.kdfIterations });
  return createRegistryKeyServices(createKeyProviderRegistry({
      pool: opts.pool,
      database,
      keyEncryptionKey: kek.key,
      kdfIterations: opts.kdfIterations,
      managedVault: { dataDir: opts.dataDir, image: opts.vaultImage ?? null },
    }));
}
