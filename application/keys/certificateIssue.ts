// Issuing an X.509 certificate for a key, signed by a CA key (default: the signing CA of the
// key's organization; the key itself with isCA gives a self-signed CA). The CA must hold a CA
// certificate that has not expired; an asked-for validity past its notAfter is refused (400
// naming the latest allowed), the default one is cut back to it. The certificate replaces the
// key's current one (RecordCertificate).
import { runCommand, type CommandInput } from '../commands.ts';
import { ValidationError } from '../../domain/shared/errors.ts';
import { keyStream, keys, type CertificateProfileData } from '../../domain/keys/keys.ts';
import { certificateRecord, keyRefOf, loadKey } from '../../domain/keys/certificateRenewal.ts';
import { issuingCaCertificate, validityWithinCa } from '../../domain/keys/issuingCaChecks.ts';
import { getOrganization } from '../../projections/organizations.ts';

export interface CertificateRequest {
  caKeyId?: number;
  commonName: string;
  organization?: string;
  organizationalUnits?: string[];
  country?: string;
  province?: string;
  locality?: string;
  dnsNames?: string[];
  ipAddresses?: string[];
  /** Default 365. */
  validityDays?: number;
  /** ISO 8601. */
  notBefore?: string;
  notAfter?: string;
  keyUsages?: string[];
  extendedKeyUsages?: string[];
  isCA?: boolean;
}

export async function issueKeyCertificate(input: CommandInput, keyId: number, req: CertificateRequest): Promise<{ caKeyId: number; serialNumber: string }> {
  const { deps } = input;
  const subject = await loadKey(deps.store, keyId);
  let caKeyId = req.caKeyId;
  if (caKeyId === undefined && subject.organizationId) caKeyId = (await getOrganization(deps.pool, subject.organizationId))?.signKeyId ?? undefined;
  if (caKeyId === undefined) throw new ValidationError('caKeyId is required: the key belongs to no organization whose signing CA could sign.', [{ field: 'caKeyId', message: 'required' }]);
  const now = deps.clock();
  const notBefore = req.notBefore ? new Date(req.notBefore) : new Date(now.getTime() - 60_000);
  const notAfter = req.notAfter ? new Date(req.notAfter) : new Date(notBefore.getTime() + (req.validityDays ?? 365) * 86_400_000);
  const isCa = req.isCA ?? false;
  const profile: CertificateProfileData = {
    commonName: req.commonName, organization: req.organization, organizationalUnits: req.organizationalUnits, country: req.country, province: req.province, locality: req.locality,
    dnsNames: req.dnsNames, ipAddresses: req.ipAddresses, keyUsages: req.keyUsages, extendedKeyUsages: req.extendedKeyUsages, isCa,
    validityDays: Math.max(1, Math.round((notAfter.getTime() - notBefore.getTime()) / 86_400_000)),
  };
  const request = { ...profile, notBefore, notAfter };
  let details;
  if (caKeyId === keyId) {
    if (!isCa) throw new ValidationError('A key can only sign its own certificate as a self-signed CA (isCA: true).', [{ field: 'caKeyId', message: 'self-signing needs isCA' }]);
    details = await deps.keys.selfSignedCa(keyRefOf(subject), request);
  } else {
    const issuerId = caKeyId;
    const ca = await loadKey(deps.store, issuerId).catch(() => {
      throw new ValidationError(`CA key ${issuerId} does not exist.`, [{ field: 'caKeyId', message: 'no such key' }]);
    });
    const caCertificate = issuingCaCertificate(ca, issuerId, now);
    // A validity the caller asked for is refused past the CA's end, not silently shortened;
    // the default (365 days) is only a default, so it is cut to the CA's end.
    const asked = req.notAfter !== undefined || req.validityDays !== undefined;
    const window = validityWithinCa(caCertificate, request, asked ? 'reject' : 'clamp', req.notAfter ? 'notAfter' : 'validityDays');
    details = await deps.keys.issueCertificate(subject.material!.publicKeyPem, { ...request, ...window }, { key: keyRefOf(ca), certificatePem: caCertificate.certificatePem });
  }
  await runCommand(input, keyStream(keyId), keys, { type: 'RecordCertificate', keyId, certificate: certificateRecord(details, caKeyId, profile), reason: 'signed', at: now.toISOString() });
  return { caKeyId, serialNumber: details.serialNumber };
}
