// Importing a CA certificate with its private key: the organization and key provider checked,
// the private key put straight into the provider (never shown again), the key recorded as an
// imported CA.
import { runCommand, type CommandInput } from '../commands.ts';
import { ValidationError } from '../../domain/shared/errors.ts';
import { keyStream, keys } from '../../domain/keys/keys.ts';
import { certificateRecord } from '../../domain/keys/certificateRenewal.ts';
import { defaultKeyProviderId, getKeyProvider } from '../../projections/keyProviders.ts';
import { getOrganization } from '../../projections/organizations.ts';

export interface CaImportRequest {
  name: string;
  description?: string | null;
  organizationId?: number | null;
  /** Default: the organization's provider, else the default provider. */
  providerId?: number;
  /** PEM. */
  certificate: string;
  /** PEM, unencrypted; write-only. */
  privateKey: string;
}

export async function importCaKey(input: CommandInput, req: CaImportRequest): Promise<number> {
  const { deps } = input;
  const org = req.organizationId ? await getOrganization(deps.pool, req.organizationId) : null;
  if (req.organizationId && !org) throw new ValidationError(`Organization ${req.organizationId} does not exist.`, [{ field: 'organizationId', message: 'no such organization' }]);
  const providerId = req.providerId ?? org?.providerId ?? (await defaultKeyProviderId(deps.pool));
  if (!(await getKeyProvider(deps.pool, providerId))) throw new ValidationError(`Key provider ${providerId} does not exist.`, [{ field: 'providerId', message: 'no such key provider' }]);
  const keyId = await deps.nextId('key');
  const now = deps.clock();
  const imported = await deps.keys.importCa(providerId, `${req.name.replace(/[^A-Za-z0-9_-]+/g, '-').slice(0, 48)}-${keyId}`, { certificate: req.certificate, privateKey: req.privateKey }, now);
  await runCommand(input, keyStream(keyId), keys, {
    type: 'CreateKey', keyId, name: req.name, description: req.description ?? null, purpose: 'CA', providerId, organizationId: req.organizationId ?? null, spec: imported.spec,
    material: { handle: imported.handle, publicKeyPem: imported.publicKeyPem, ethereumAddress: imported.spec.curve === 'secp256k1' ? deps.keys.ethereumAddress(imported.publicKeyPem) : null },
    imported: true, certificate: certificateRecord(imported.certificate, null, null), at: now.toISOString(),
  });
  return keyId;
}
