// Revoking a certificate (recorded on the stream of the CA key that issued it) and serving the
// CRL of an organization's signing CA, signed by that CA key inside its provider.
import { keyStream, keys } from '../../domain/keys/keys.ts';
import { keyRefOf, loadKey } from '../../domain/keys/certificateRenewal.ts';
import { UnavailableError, ValidationError } from '../../domain/shared/errors.ts';
import type { OrganizationRow } from '../../projections/organizations.ts';
import { revokedCertificates } from '../../projections/keys.ts';
import type { AppDeps } from '../deps.ts';
import { runCommand } from '../commands.ts';
import type { CommandInput } from './keyCreation.ts';

const CRL_VALIDITY_MS = 7 * 86_400_000;

export async function revokeCertificate(input: CommandInput, caKeyId: number, serialNumber: string, keyId: number | null, reason: string): Promise<void> {
  await runCommand(input, keyStream(caKeyId), keys, { type: 'RevokeCertificate', caKeyId, serialNumber: serialNumber.toUpperCase(), keyId, reason, at: input.deps.clock().toISOString() });
}

export async function caCrl(deps: AppDeps, caKeyId: number): Promise<string> {
  const ca = await loadKey(deps.store, caKeyId);
  if (!ca.certificate?.isCA) throw new ValidationError(`Key ${ca.name} is not a CA and has no CRL.`, [{ field: 'keyId', message: 'not a CA' }]);
  const now = deps.clock();
  const revoked = await revokedCertificates(deps.pool, caKeyId);
  return deps.keys.buildCrl(
    { key: keyRefOf(ca), certificatePem: ca.certificate.certificatePem },
    { thisUpdate: now, nextUpdate: new Date(now.getTime() + CRL_VALIDITY_MS), crlNumber: Math.floor(now.getTime() / 1000), revoked: revoked.map((r) => ({ serialNumber: r.serialNumber, revokedAt: r.revokedAt, reason: r.reason ?? undefined })) },
  );
}

export async function organizationCrl(deps: AppDeps, o: OrganizationRow): Promise<string> {
  if (!o.signKeyId) throw new UnavailableError(`Organization ${o.mspId} has no signing CA key.`);
  return caCrl(deps, o.signKeyId);
}
