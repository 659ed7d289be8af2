// The key provider registry: provider id -> KeyProvider. Id 1 is the built-in database provider;
// other ids are VAULT / AWS_KMS providers whose configuration is read from the key_providers
// read model (sealed; opened with KEY_ENCRYPTION_KEY) and whose clients are cached.
//   createKeyProviderRegistry({ pool, database, keyEncryptionKey, vaultEngine? }) -> KeyProviderRegistry
import Docker from 'dockerode';
import type { KeyProvider } from '../../domain/keys/keyProvider.ts';
import type { KeyProviderRegistry, PreparedProviderConfig, ProviderStatusView } from '../../domain/keys/keyServices.ts';
import { DATABASE_PROVIDER_ID } from '../../domain/keyProviders/keyProviders.ts';
import { NotFoundError, UnavailableError } from '../../domain/shared/errors.ts';
import type { SqlQueryable } from './databaseKeyProvider.ts';
import { createKeyEncryption } from './keyEncryption.ts';
import { openConfig, sealConfig } from './registrySealedConfig.ts';
import { parseVaultProviderConfig, type VaultConnection } from './vaultConfig.ts';
import { createVaultKeyProvider } from './vaultKeyProvider.ts';
import { parseAwsKmsProviderConfig, type AwsKmsSettings } from './awsKmsConfig.ts';
import { createAwsKmsKeyProvider } from './awsKmsKeyProvider.ts';

export interface KeyProviderRegistryOptions {
  pool: SqlQueryable;
  database: KeyProvider;
  keyEncryptionKey: string;
  /** Checks that a managed Vault could be run (CREATE mode); default: the local Docker Engine. */
  vaultEngineCheck?: (image: string) => Promise<string | null>;
  kdfIterations?: number;
}

/** Why a managed Vault cannot be started here (no engine, no image), or null. */
async function dockerVaultCheck(image: string): Promise<string | null> {
  const docker = new Docker();
  try {
    await Promise.race([docker.ping(), new Promise((_, reject) => setTimeout(() => reject(new Error('no answer within 3 s')), 3000).unref())]);
  } catch (err) {
    return `no Docker Engine answers (${(err as Error).message})`;
  }
  try {
    await docker.getImage(image).inspect();
  } catch {
    return `the image ${image} is not present and cannot be pulled from this machine`;
  }
  return null;
}

function publicView(type: 'VAULT' | 'AWS_KMS', parsed: unknown): Record<string, unknown> {
  if (type === 'VAULT') {
    const c = parsed as ReturnType<typeof parseVaultProviderConfig>;
    if (c.operation === 'CREATE') return { ...c };
    const { token: _t, caCertPem, ...rest } = c.connection;
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

type Stored = { type: 'VAULT'; config: VaultConnection } | { type: 'AWS_KMS'; config: AwsKmsSettings };

export function createKeyProviderRegistry(opts: KeyProviderRegistryOptions): KeyProviderRegistry {
  const encryption = createKeyEncryption(opts.keyEncryptionKey, { iterations: opts.kdfIterations });
  const cache = new Map<number, Promise<KeyProvider>>();
  const vaultCheck = opts.vaultEngineCheck ?? dockerVaultCheck;

  function instantiate(stored: Stored): KeyProvider {
    return stored.type === 'VAULT' ? createVaultKeyProvider(stored.config) : createAwsKmsKeyProvider(stored.config);
  }

  async function open(type: 'VAULT' | 'AWS_KMS', sealed: string): Promise<Stored> {
    const config = await openConfig<unknown>(encryption, sealed);
    return type === 'VAULT' ? { type, config: config as VaultConnection } : { type, config: config as AwsKmsSettings };
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
          const image = `hashicorp/vault:${parsed.version}`;
          const why = await vaultCheck(image);
          throw new UnavailableError(
            `Vault CREATE mode runs ${image} through the docker node engine, and that cannot be done here: ${why ?? 'managed Vault deployment is not available in this build'}. ` +
              'Start a Vault yourself and register it with operation IMPORT (address, token, mount).',
            { image, engine: 'docker' },
          );
        }
        return { publicConfig: publicView(type, parsed), sealedConfig: await sealConfig(encryption, parsed.connection), operation: 'IMPORT' };
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
  };
}
