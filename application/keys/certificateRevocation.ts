// Revoking a certificate (recorded on the stream of the CA key that issued it) and serving the
// CRL of an organization's signing CA, signed by that CA key inside its provider.
import { keyStream, keys } from '../../domain/keys/keys.ts';
import { keyRefOf } from '../../domain/keys/certificateRenewal.ts';
import { UnavailableError } from '../../domain/shared/errors.ts';
import type { OrganizationRow } from '../../projections/organizations.ts';
import { runCommand } from '../commands.ts';
import type { CommandInput } from './keyCreation.ts';

export async function revokeCertificate(input: CommandInput, caKeyId: number, serialNumber: string, keyId: number | null, reason: string): Promise<void> {
  await runCommand(input, keyStream(caKeyId), keys, { type: 'RevokeCertificate', caKeyId, serialNumber: serialNumber.toUpperCase(), keyId, reason, at: input.deps.clock().toISOString() });
}

/**
 * The CA's current CRL, PEM. Its number, dates and entries come from the CA key's stream
 * (IssueCrl: the last CRL while current, else the next number), so the same number always
 * lists the same revocations; only the signature bytes may differ between two downloads.
 */
export async function caCrl(input: CommandInput, caKeyId: number): Promise<string> {
  const { deps } = input;
  const { state: ca } = await runCommand(input, keyStream(caKeyId), keys, { type: 'IssueCrl', keyId: caKeyId, at: deps.clock().toISOString() });
  const crl = ca.crl!;
  const revoked = ca.revocations.slice(0, crl.revokedCount);
  return deps.keys.buildCrl(
    { key: keyRefOf(ca), certificatePem: ca.certificate!.certificatePem },
    {
      thisUpdate: new Date(crl.thisUpdate), nextUpdate: new Date(crl.nextUpdate), crlNumber: crl.crlNumber,
      revoked: revoked.map((r) => ({ serialNumber: r.serialNumber, revokedAt: new Date(r.revokedAt), reason: r.reason })),
    },
  );
}

export async function organizationCrl(input: CommandInput, o: OrganizationRow): Promise<string> {
  if (!o.signKeyId) throw new UnavailableError(`Organization ${o.mspId} has no signing CA key.`);
  return caCrl(input, o.signKeyId);
}
