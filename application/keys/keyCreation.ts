// Creating a key: check the provider supports the algorithm (400 naming what it supports),
// generate the pair inside the provider, optionally issue its certificate (self-signed CA or by
// a CA key), then record KeyCreated. The private key never leaves the provider.
import type { KeySpec } from '../../domain/keys/keyProvider.ts';
import { keyStream, keys, type CertificateProfileData, type KeyPurpose } from '../../domain/keys/keys.ts';
import { issueFromProfile } from '../../domain/keys/certificateRenewal.ts';
import { NotFoundError, ValidationError } from '../../domain/shared/errors.ts';
import { getKeyProvider } from '../../projections/keyProviders.ts';
import { getKey } from '../../projections/keys.ts';
import { runCommand, type CommandInput } from '../commands.ts';

export type { CommandInput };

export interface NewKey {
  name: string;
  description?: string | null;
  purpose: KeyPurpose;
  providerId: number;
  organizationId: number | null;
  spec: KeySpec;
  /** 'self' for a self-signed CA; a CA key id otherwise. */
  certificate?: { profile: CertificateProfileData; issuer: 'self' | number };
  /** The key's id when the caller took it first (a tracked create records it before the key is made). */
  keyId?: number;
}

/** Names keys get inside a provider: Vault key names and KMS aliases allow [A-Za-z0-9_-]. */
export function providerKeyName(name: string, keyId: number): string {
  const slug = name.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^[-_]+|[-_]+$/g, '').slice(0, 48);
  return `${slug || 'key'}-${keyId}`;
}

const describe = (spec: KeySpec) => (spec.algorithm === 'EC' ? `ECDSA ${spec.curve}` : spec.algorithm === 'RSA' ? `RSA ${spec.keySize}` : 'Ed25519');

export async function createKey(input: CommandInput, k: NewKey): Promise<number> {
  const { deps } = input;
  const providerRow = await getKeyProvider(deps.pool, k.providerId);
  if (!providerRow) throw new ValidationError(`Key provider ${k.providerId} does not exist.`, [{ field: 'providerId', message: 'no such key provider' }]);
  const provider = await deps.keys.providers.get(k.providerId);
  if (!provider.supports(k.spec)) {
    throw new ValidationError(`Key provider ${providerRow.name} (${providerRow.type}) cannot create ${describe(k.spec)} keys. ${provider.describeSupport()}`, [
      { field: k.spec.algorithm === 'EC' ? 'curve' : 'algorithm', message: `not supported by ${providerRow.type}: ${provider.describeSupport()}` },
    ]);
  }
  const keyId = k.keyId ?? (await deps.nextId('key'));
  const generated = await provider.generateKey(providerKeyName(k.name, keyId), k.spec);
  const material = {
    handle: generated.handle,
    publicKeyPem: generated.publicKeyPem,
    ethereumAddress: k.spec.curve === 'secp256k1' ? deps.keys.ethereumAddress(generated.publicKeyPem) : null,
  };
  const now = deps.clock();
  let certificate;
  try {
    certificate = k.certificate
      ? await issueFromProfile({ store: deps.store, services: deps.keys, now }, keyId, { providerId: k.providerId, handle: material.handle, spec: k.spec, publicKeyPem: material.publicKeyPem }, k.certificate.profile, k.certificate.issuer === 'self' ? keyId : k.certificate.issuer)
      : undefined;
  } catch (err) {
    // Nothing is recorded yet: without this the new private key would stay in the provider, unlisted.
    await provider.deleteKey(generated.handle).catch((e) => deps.log.warn({ keyId, err: (e as Error).message }, 'could not remove the key material of a failed key creation'));
    throw err;
  }
  await runCommand(input, keyStream(keyId), keys, {
    type: 'CreateKey', keyId, name: k.name, description: k.description ?? null, purpose: k.purpose, providerId: k.providerId, organizationId: k.organizationId,
    spec: k.spec, material, imported: false, certificate, at: now.toISOString(),
  });
  return keyId;
}

export function notFoundKey(id: number): NotFoundError {
  return new NotFoundError('Key', id);
}

/** Deletes a key made by a creation that failed later, record and provider material; failures are logged, the original error wins. Whether the key is gone (true when it already was). */
export async function discardKey(input: CommandInput, keyId: number): Promise<boolean> {
  const { deps } = input;
  try {
    if (!(await getKey(deps.pool, keyId))) return true;
    const r = await runCommand(input, keyStream(keyId), keys, { type: 'DeleteKey', keyId, usedBy: [], at: deps.clock().toISOString() });
    const deleted = r.events.find((e) => e.type === 'KeyDeleted');
    if (deleted) await (await deps.keys.providers.get(Number(deleted.data.providerId))).deleteKey(String(deleted.data.handle)).catch((err) => deps.log.warn({ keyId, err: (err as Error).message }, 'provider could not delete the key material of a failed creation'));
    return true;
  } catch (err) {
    deps.log.warn({ keyId, err: (err as Error).message }, 'could not remove a key of a failed creation');
    return false;
  }
}
