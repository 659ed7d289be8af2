// Validator keys of an evm network are ordinary keys: secp256k1, purpose VALIDATOR, held by the
// network's key provider (providerId, else the default provider) and listed under /keys like any
// other, with their Ethereum address. Generated inside the provider, or imported from a PEM the
// operator hands over; the private key never comes back out through the API.
import { keyStream, keys } from '../../domain/keys/keys.ts';
import type { KeySpec } from '../../domain/keys/keyProvider.ts';
import type { EvmValidator } from '../../domain/evm/evmNetwork.ts';
import { ValidationError } from '../../domain/shared/errors.ts';
import { defaultKeyProviderId, getKeyProvider } from '../../projections/keyProviders.ts';
import { getKey } from '../../projections/keys.ts';
import { runCommand } from '../commands.ts';
import { createKey, providerKeyName, type CommandInput } from '../keys/keyCreation.ts';

export const SECP256K1: KeySpec = { algorithm: 'EC', curve: 'secp256k1' };

const describe = (s: KeySpec) => (s.algorithm === 'EC' ? `EC ${s.curve}` : s.algorithm === 'RSA' ? `RSA ${s.keySize}` : 'Ed25519');

export interface ValidatorKeyProvider {
  providerId: number;
  type: string;
  name: string;
}

/**
 * The provider that will hold the network's validator keys, checked before anything is made:
 * it exists and can hold secp256k1 keys (400 naming what it supports otherwise).
 */
export async function validatorKeyProvider(input: CommandInput, requested: number | undefined, field: string): Promise<ValidatorKeyProvider> {
  const { deps } = input;
  const providerId = requested ?? (await defaultKeyProviderId(deps.pool));
  const row = await getKeyProvider(deps.pool, providerId);
  if (!row) throw new ValidationError(`Key provider ${providerId} does not exist.`, [{ field, message: 'no such key provider' }]);
  const provider = await deps.keys.providers.get(providerId);
  if (!provider.supports(SECP256K1)) {
    throw new ValidationError(
      `Key provider ${row.name} (${row.type}) cannot hold validator keys: evm validators sign with secp256k1, and ${provider.describeSupport()} Choose the database provider or an AWS KMS provider.`,
      [{ field, message: `${row.type} has no secp256k1 keys` }],
    );
  }
  return { providerId, type: row.type, name: row.name };
}

/** Reads every PEM first, so a bad one (wrong curve, not a key) is a 400 before any key is stored. */
export function checkValidatorPems(input: CommandInput, pems: string[]): void {
  const issues = pems.flatMap((pem, i) => {
    const field = `validatorKeys[${i}]`;
    const spec = input.deps.keys.privateKeySpec(pem, field);
    return spec.algorithm === 'EC' && spec.curve === 'secp256k1' ? [] : [{ field, message: `must be an EC secp256k1 key, got ${describe(spec)}` }];
  });
  if (issues.length) throw new ValidationError(`A validator key must be an EC secp256k1 key: ${issues.map((i) => `${i.field} ${i.message.replace(/^must be an EC secp256k1 key, /, '')}`).join('; ')}.`, issues);
}

function validatorOf(keyId: number, providerId: number, type: string, handle: string, publicKeyPem: string, address: string): EvmValidator {
  return { address, keyHandle: handle, keyProvider: type, keyId, providerId, publicKeyPem };
}

/** keyId: the id taken first by a tracked create (which records it before the key is made). */
export async function importValidatorKey(input: CommandInput, p: ValidatorKeyProvider, name: string, pem: string, keyId?: number): Promise<EvmValidator> {
  const { deps } = input;
  keyId ??= await deps.nextId('key');
  const provider = await deps.keys.providers.get(p.providerId);
  const k = await provider.importKey(providerKeyName(name, keyId), pem);
  const address = deps.keys.ethereumAddress(k.publicKeyPem);
  await runCommand(input, keyStream(keyId), keys, {
    type: 'CreateKey', keyId, name, description: 'evm validator key (imported)', purpose: 'VALIDATOR', providerId: p.providerId, organizationId: null,
    spec: SECP256K1, material: { handle: k.handle, publicKeyPem: k.publicKeyPem, ethereumAddress: address }, imported: true, at: deps.clock().toISOString(),
  });
  return validatorOf(keyId, p.providerId, p.type, k.handle, k.publicKeyPem, address);
}

export async function generateValidatorKey(input: CommandInput, p: ValidatorKeyProvider, name: string, keyId?: number): Promise<EvmValidator> {
  keyId = await createKey(input, { name, description: 'evm validator key', purpose: 'VALIDATOR', providerId: p.providerId, organizationId: null, spec: SECP256K1, ...(keyId === undefined ? {} : { keyId }) });
  const k = (await getKey(input.deps.pool, keyId))!;
  return validatorOf(keyId, p.providerId, p.type, k.handle, k.publicKey, k.ethereumAddress!);
}
