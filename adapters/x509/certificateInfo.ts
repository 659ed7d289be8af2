// Reading certificates for API responses and checks (node:crypto's X509Certificate, with the
// validity dates taken from the DER so they are exact ISO strings).
//
//   parseCertificatePem(pem, field = 'certificate') -> CertificateInfo; ValidationError naming
//       `field` when the text holds no parseable PEM certificate. Only the first block is read.
//   certificateKeyUsages(pem) -> KeyUsageName[] | null  (null: no keyUsage extension)
import { X509Certificate } from 'node:crypto';
import { AsnConvert } from '@peculiar/asn1-schema';
import { BasicConstraints, Certificate, KeyUsage, KeyUsageFlags, id_ce_basicConstraints, id_ce_keyUsage } from '@peculiar/asn1-x509';
import { ValidationError } from '../../domain/shared/errors.ts';
import { keyUsageNames, type KeyUsageName } from './extensions.ts';
import { pemLabels, pemToDer, toPem } from './pem.ts';

export interface CertificateInfo {
  /** Normalised PEM of this one certificate. */
  pem: string;
  /** "CN=peer0, O=Org1" in certificate order. */
  subject: string;
  commonName: string | null;
  issuer: string;
  /** Upper-case hex. */
  serialNumber: string;
  notBefore: string;
  notAfter: string;
  /** basicConstraints cA (node's X509Certificate.ca also folds in keyUsage; we keep them apart). */
  isCA: boolean;
  selfIssued: boolean;
  publicKeyPem: string;
  /** SHA-256 over the DER, upper-case hex pairs joined by colons. */
  fingerprintSha256: string;
  /** As node prints them: "DNS:peer0.org1", "IP Address:127.0.0.1". */
  subjectAltNames: string[];
}

export function parseCertificatePem(pem: string, field = 'certificate'): CertificateInfo {
  const { x509, asn } = decode(pem, field);
  const subject = x509.subject.split('\n').join(', ');
  return {
    pem: toPem('CERTIFICATE', x509.raw),
    subject,
    commonName: /(?:^|\n)CN=([^\n]*)/.exec(x509.subject)?.[1] ?? null,
    issuer: x509.issuer.split('\n').join(', '),
    serialNumber: x509.serialNumber.toUpperCase(),
    notBefore: asn.tbsCertificate.validity.notBefore.getTime().toISOString(),
    notAfter: asn.tbsCertificate.validity.notAfter.getTime().toISOString(),
    isCA: basicConstraintsCa(asn),
    selfIssued: x509.subject === x509.issuer,
    publicKeyPem: x509.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    fingerprintSha256: x509.fingerprint256,
    subjectAltNames: x509.subjectAltName ? x509.subjectAltName.split(', ') : [],
  };
}

export function certificateKeyUsages(pem: string, field = 'certificate'): KeyUsageName[] | null {
  const { asn } = decode(pem, field);
  const ext = asn.tbsCertificate.extensions?.find((e) => e.extnID === id_ce_keyUsage);
  if (!ext) return null;
  const flags = AsnConvert.parse(ext.extnValue.buffer, KeyUsage).toNumber();
  return keyUsageNames.filter((n) => flags & KeyUsageFlags[n]);
}

function basicConstraintsCa(asn: Certificate): boolean {
  const ext = asn.tbsCertificate.extensions?.find((e) => e.extnID === id_ce_basicConstraints);
  return ext ? AsnConvert.parse(ext.extnValue.buffer, BasicConstraints).cA : false;
}

function decode(pem: string, field: string): { x509: X509Certificate; asn: Certificate } {
  const der = typeof pem === 'string' ? pemToDer(pem, 'CERTIFICATE') : null;
  if (!der) {
    const found = typeof pem === 'string' ? pemLabels(pem) : [];
    const what = found.length ? `found a ${found[0]} block instead` : 'no "-----BEGIN CERTIFICATE-----" block found';
    throw new ValidationError(`The ${field} is not a PEM certificate: ${what}.`, [{ field, message: `not a PEM certificate (${what})` }]);
  }
  try {
    return { x509: new X509Certificate(der), asn: AsnConvert.parse(der, Certificate) };
  } catch {
    throw new ValidationError(`The ${field} PEM block does not contain a valid X.509 certificate.`, [{ field, message: 'not a valid X.509 certificate' }]);
  }
}
