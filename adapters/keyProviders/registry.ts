// The key provider registry: provider id -> KeyProvider. Id 1 is the built-in database provider;
// other ids are VAULT / AWS_KMS providers whose configuration is read from the key_providers
// read model (sealed; opened with KEY_ENCRYPTION_KEY) and whose clients are cached.
// Vault CREATE mode (managed Vault containers, vaultManaged.ts) needs `managedVault` (the data
// directory); without it CREATE answers 503. The registry is also the ManagedVaultControl.
//   createKeyProviderRegistry({ pool, database, keyEncryptionKey, managedVault? }) -> KeyProviderRegistry & ManagedVaultControl
import type { KeyProvider } from '../../domain/keys/keyProvider.ts';
import type { KeyProviderRegistry, PreparedProviderConfig, ProviderStatusView } from '../../domain/keys/keyServices.ts';
import { DATABASE_PROVIDER_ID } from '../../domain/keyProviders/keyProviders.ts';
import type { ManagedVaultControl } from '../../domain/keyProviders/managedVault.ts';
import { NotFoundError, UnavailableError } from '../../domain/shared/errors.ts';
import type { SqlQueryable } from './databaseKeyProvider.ts';
import { createKeyEncryption } from './keyEncryption.ts';
import { openConfig, sealConfig } from './registrySealedConfig.ts';
import { parseVaultProviderConfig } from './vaultConfig.ts';
import { createVaultKeyProvider } from './vaultKeyProvider.ts';
import { createManagedVaults, type ManagedVaultOptions, type StoredVaultConfig } from './vaultManaged.ts';
import { defaultVaultImage } from './vaultManagedLaunch.ts';
import { parseAwsKmsProviderConfig, type AwsKmsSettings } from './awsKmsConfig.ts';
import { createAwsKmsKeyProvider } from './awsKmsKeyProvider.ts';

export interface KeyProviderRegistryOptions {
  pool: SqlQueryable;
  database: KeyProvider;
  keyEncryptionKey: string;
  /** Vault CREATE mode: where managed Vaults keep their data, their image, the engine. */
  managedVault?: ManagedVaultOptions;
  kdfIterations?: number;
}

function publicView(type: 'VAULT' | 'AWS_KMS', parsed: unknown): Record<string, unknown> {
  if (type === 'VAULT') {
    const c = parsed as StoredVaultConfig;
    const { token: _t, caCertPem, managed, ...rest } = c;
    if (managed) {
      // Never the root token nor the unseal keys.
      const { unsealKeys: _k, ...shown } = managed;
      return { operation: 'CREATE', mode: 'docker', ...rest, ...shown, containerName: `lnm-${managed.containerKey}`, tokenSet: true };
    }
    return { operation: 'IMPORT', ...rest, hasCaCert: Boolean(caCertPem), tokenSet: true };
  }
  const s = parsed as AwsKmsSettings;
  const auth = s.auth;
  const authView =
    auth.method === 'STATIC' ? { method: 'STATIC', accessKeyId: auth.accessKeyId }
      : auth.method === 'ASSUME_ROLE' ? { method: 'ASSUME_ROLE', roleArn: auth.roleArn, externalIdSet: Boolean(auth.externalId), roleSessionName: auth.roleSessionName, stsEndpointUrl: auth.stsEndpointUrl ?? null }
        : auth.method === 'PROFILE' ? { method: 'PROFILE', profile: auth.profile }
          : { method: 'INSTANCE_ROLE' };
  return { operation: 'IMPORT', region: s.region, aliasPrefix: s.aliasPrefix, kmsKeyId: s.kmsKeyId ?? null, endpointUrl: s.endpointUrl ?? null, auth: authView };
}

type Stored = { type: 'VAULT'; config: StoredVaultConfig } | { type: 'AWS_KMS'; config: AwsKmsSettings };

export function createKeyProviderRegistry(opts: KeyProviderRegistryOptions): KeyProviderRegistry & ManagedVaultControl {
  const encryption = createKeyEncryption(opts.keyEncryptionKey, { iterations: opts.kdfIterations });
  const cache = new Map<number, Promise<KeyProvider>>();
  const managedVaults = opts.managedVault ? createManagedVaults(opts.managedVault) : null;

  function instantiate(stored: Stored): KeyProvider {
    if (stored.type === 'AWS_KMS') return createAwsKmsKeyProvider(stored.config);
    const base = createVaultKeyProvider(stored.config);
    return stored.config.managed && managedVaults ? managedVaults.wrap(stored.config, base) : base;
  }

  async function open(type: 'VAULT' | 'AWS_KMS', sealed: string): Promise<Stored> {
    const config = await openConfig<unknown>(encryption, sealed);
    return type === 'VAULT' ? { type, config: config as StoredVaultConfig } : { type, config: config as AwsKmsSettings };
  }

  async function usedBy(containerKey: string): Promise<string | null> {
    const { rows } = await opts.pool.query("SELECT name FROM key_providers WHERE type = 'VAULT' AND public_config->>'containerKey' = $1", [containerKey]);
    return rows[0]?.name ?? null;
  }

  function noManagedVaults(image: string): UnavailableError {
    return new UnavailableError(
      `Vault CREATE mode runs ${image} through the docker node engine, and that cannot be done here: managed Vault deployment is not configured in this service. ` +
        'Start a Vault yourself and register it with operation IMPORT (address, token, mount).',
      { image, engine: 'docker' },
    );
  }

  async function load(providerId: number): Promise<KeyProvider> {
    const { rows } = await opts.pool.query('SELECT type, sealed_config FROM key_providers WHERE id = $1', [providerId]);
    if (!rows[0]) throw new NotFoundError('Key provider', providerId);
    return instantiate(await open(rows[0].type, rows[0].sealed_config));
  }

  return {
    async get(providerId) {
      if (providerId === DATABASE_PROVIDER_ID) return opts.database;
      let p = cache.get(providerId);
      if (!p) {
        p = load(providerId);
        cache.set(providerId, p);
        p.catch(() => cache.delete(providerId));
      }
      return p;
    },

    async prepare(type, body): Promise<PreparedProviderConfig> {
      if (type === 'VAULT') {
        const parsed = parseVaultProviderConfig({ vaultConfig: body.vaultConfig, config: body.config });
        if (parsed.operation === 'CREATE') {
          if (!managedVaults) throw noManagedVaults(defaultVaultImage(parsed.version));
          const stored = await managedVaults.deploy(parsed, usedBy);
          try {
            return { publicConfig: publicView(type, stored), sealedConfig: await sealConfig(encryption, stored), operation: 'CREATE' };
          } catch (err) {
            await managedVaults.remove(stored.managed!.containerKey).catch(() => undefined);
            throw err;
          }
        }
        return { publicConfig: publicView(type, parsed.connection), sealedConfig: await sealConfig(encryption, parsed.connection), operation: 'IMPORT' };
      }
      const settings = parseAwsKmsProviderConfig({ awsKmsConfig: body.awsKmsConfig, config: body.config });
      return { publicConfig: publicView(type, settings), sealedConfig: await sealConfig(encryption, settings), operation: 'IMPORT' };
    },

    async probe(type, sealed): Promise<ProviderStatusView> {
      return instantiate(await open(type, sealed)).status();
    },

    forget(providerId) {
      cache.delete(providerId);
    },

    async containerRunning(providerId) {
      if (providerId === DATABASE_PROVIDER_ID) return null;
      // The container key is not secret: read from the public configuration, nothing to decrypt.
      const { rows } = await opts.pool.query("SELECT type, public_config->>'containerKey' AS key FROM key_providers WHERE id = $1", [providerId]);
      if (!rows[0]) throw new NotFoundError('Key provider', providerId);
      if (rows[0].type !== 'VAULT' || !rows[0].key) return null;
      if (!managedVaults) return false;
      return managedVaults.running(rows[0].key).catch(() => false);
    },

    async discardPrepared(sealedConfig) {
      const stored = await openConfig<StoredVaultConfig>(encryption, sealedConfig);
      if (stored.managed && managedVaults) await managedVaults.remove(stored.managed.containerKey);
    },

    async removeManaged(publicConfig) {
      const key = publicConfig.operation === 'CREATE' ? publicConfig.containerKey : undefined;
      if (typeof key === 'string' && managedVaults) await managedVaults.remove(key);
    },
  };
}
