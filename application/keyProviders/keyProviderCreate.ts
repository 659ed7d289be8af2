// Adding a Vault or AWS KMS key provider: the name checked, its configuration prepared (its
// secrets sealed; a managed Vault started for operation CREATE), the provider reached before it
// is saved (400 when unreachable or refused), then recorded. A managed Vault started for a
// provider that was not saved is removed with its data.
import { runCommand, type CommandInput } from '../commands.ts';
import { DATABASE_PROVIDER_ID, keyProviderStream, keyProviders } from '../../domain/keyProviders/keyProviders.ts';
import { ConflictError, ValidationError } from '../../domain/shared/errors.ts';
import type { JsonObject } from '../../domain/shared/eventStore.ts';
import { listKeyProviders } from '../../projections/keyProviders.ts';

export interface KeyProviderRequest {
  name: string;
  type: 'VAULT' | 'AWS_KMS';
  isDefault?: boolean;
  vaultConfig?: Record<string, unknown>;
  awsKmsConfig?: Record<string, unknown>;
  config?: Record<string, unknown>;
}

export async function createKeyProvider(input: CommandInput, req: KeyProviderRequest): Promise<number> {
  const { deps } = input;
  if ((await listKeyProviders(deps.pool)).some((p) => p.name.toLowerCase() === req.name.toLowerCase())) throw new ConflictError(`A key provider named ${req.name} exists already.`, { field: 'name' });
  if (req.type === 'VAULT' && req.awsKmsConfig) throw new ValidationError('A VAULT provider takes vaultConfig or config, not awsKmsConfig.', [{ field: 'awsKmsConfig', message: 'not for VAULT' }]);
  if (req.type === 'AWS_KMS' && req.vaultConfig) throw new ValidationError('An AWS_KMS provider takes awsKmsConfig or config, not vaultConfig.', [{ field: 'vaultConfig', message: 'not for AWS_KMS' }]);
  const prepared = await deps.keys.providers.prepare(req.type, req);
  let providerId: number;
  try {
    const status = await deps.keys.providers.probe(req.type, prepared.sealedConfig);
    const usable = req.type === 'VAULT' ? status.vault_reachable === true && status.sealed === false && status.vault_initialized === true : status.kms_reachable === true && status.kms_status === 'available';
    if (!usable) {
      throw new ValidationError(`The ${req.type === 'VAULT' ? 'Vault' : 'AWS KMS'} provider is not usable: ${status.detail ?? JSON.stringify(status)}`, [{ field: req.type === 'VAULT' ? 'vaultConfig' : 'awsKmsConfig', message: String(status.detail ?? 'not reachable') }]);
    }
    providerId = await deps.nextId('key_provider');
    while (providerId <= DATABASE_PROVIDER_ID) providerId = await deps.nextId('key_provider');
    await runCommand(input, keyProviderStream(providerId), keyProviders, {
      type: 'CreateKeyProvider', providerId, name: req.name, providerType: req.type, isDefault: req.isDefault ?? false,
      publicConfig: prepared.publicConfig as JsonObject, sealedConfig: prepared.sealedConfig, at: deps.clock().toISOString(),
    });
  } catch (err) {
    // A managed Vault started for a provider that was not saved is removed with its data.
    if (prepared.operation === 'CREATE') {
      await deps.keys.providers.discardPrepared(prepared.sealedConfig).catch((e: Error) => deps.log.error({ err: e.message }, 'removing the managed Vault of an unsaved provider failed'));
    }
    throw err;
  }
  return providerId;
}
