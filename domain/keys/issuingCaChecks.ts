// What a CA key must be before it signs a certificate, and how long what it signs may live.
// A certificate never outlives its CA: past the CA's notAfter the chain no longer verifies, so a
// longer notAfter only hides the real end date. An explicit request (POST /keys/{keyID}/sign)
// asking for more is refused with the latest date it may have; automatic issuance (organization
// identities, renewal, rotation) is cut back to the CA's notAfter instead, because nobody is
// there to choose a shorter validity. Pure: time comes from the caller.
import { ValidationError } from '../shared/errors.ts';
import type { CertificateRecord, KeyState } from './keys.ts';

const DAY_MS = 86_400_000;

export interface ValidityWindow {
  notBefore: Date;
  notAfter: Date;
}

/** The CA's certificate when the key can sign now; a 400 on `field` saying why not otherwise. */
export function issuingCaCertificate(ca: KeyState, caKeyId: number, now: Date, field = 'caKeyId'): CertificateRecord {
  const label = `Key ${ca.name ?? caKeyId} (${caKeyId})`;
  const cert = ca.certificate;
  if (!cert) throw new ValidationError(`${label} has no certificate and cannot sign certificates; give it a CA certificate first.`, [{ field, message: 'not a CA key (no certificate)' }]);
  if (!cert.isCA) throw new ValidationError(`${label} has a certificate that is not a CA certificate (basicConstraints CA:FALSE) and cannot sign certificates.`, [{ field, message: 'not a CA key' }]);
  if (new Date(cert.notAfter).getTime() <= now.getTime()) {
    throw new ValidationError(`The CA certificate of ${label} expired on ${cert.notAfter}; renew it or sign with another CA.`, [{ field, message: `CA certificate expired on ${cert.notAfter}` }]);
  }
  return cert;
}

/**
 * The validity a certificate from this CA gets. mode 'reject': 400 on `field` when the requested
 * notAfter is later than the CA's, naming the CA's notAfter and the most validityDays that fit;
 * mode 'clamp': notAfter cut back to the CA's.
 */
export function validityWithinCa(ca: CertificateRecord, requested: ValidityWindow, mode: 'reject' | 'clamp', field = 'notAfter'): ValidityWindow {
  const caEnd = new Date(ca.notAfter);
  // Certificates carry whole seconds: a request within the CA's last second ends with the CA.
  if (Math.floor(requested.notAfter.getTime() / 1000) <= Math.floor(caEnd.getTime() / 1000)) return requested;
  if (mode === 'reject') {
    const maxDays = Math.floor((caEnd.getTime() - requested.notBefore.getTime()) / DAY_MS);
    const fits = maxDays >= 1 ? `validityDays at most ${maxDays} or notAfter at most ${ca.notAfter}` : `notAfter at most ${ca.notAfter} (less than a day from notBefore)`;
    throw new ValidationError(
      `The certificate would end on ${requested.notAfter.toISOString()}, after its CA certificate ends on ${ca.notAfter}; a certificate cannot outlive its CA. Ask for ${fits}.`,
      [{ field, message: `must not be later than the CA's notAfter ${ca.notAfter} (${fits})` }],
    );
  }
  if (caEnd.getTime() <= requested.notBefore.getTime()) {
    throw new ValidationError(`The CA certificate ends on ${ca.notAfter}, before the new certificate would start; renew the CA first.`, [{ field, message: `CA ends on ${ca.notAfter}` }]);
  }
  return { notBefore: requested.notBefore, notAfter: caEnd };
}
