// Deleting a key provider (not the built-in database one): refused while keys are held in it;
// then forgotten by the service, and a managed Vault's container removed (a container that
// could not be removed is reported in the log: the provider is gone either way).
import { runCommand, type CommandInput } from '../commands.ts';
import { DATABASE_PROVIDER_ID, keyProviderStream, keyProviders } from '../../domain/keyProviders/keyProviders.ts';
import { ValidationError } from '../../domain/shared/errors.ts';
import { getKeyProvider, keyCountOfProvider } from '../../projections/keyProviders.ts';

export async function deleteKeyProvider(input: CommandInput, providerId: number): Promise<void> {
  const { deps } = input;
  if (providerId === DATABASE_PROVIDER_ID) throw new ValidationError('The built-in database key provider cannot be deleted.', [{ field: 'id', message: 'built in' }]);
  const before = await getKeyProvider(deps.pool, providerId);
  await runCommand(input, keyProviderStream(providerId), keyProviders, { type: 'DeleteKeyProvider', providerId, keyCount: await keyCountOfProvider(deps.pool, providerId), at: deps.clock().toISOString() });
  deps.keys.providers.forget(providerId);
  if (before) {
    // The provider is gone either way; a container that could not be removed is reported in the log.
    await deps.keys.providers.removeManaged(before.config).catch((e: Error) => deps.log.error({ providerId, err: e.message }, 'removing the managed Vault container of a deleted provider failed'));
  }
}
