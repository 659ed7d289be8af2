// What a certificate or CRL takes from the CA that signs it: the CA's subject name (written as
// the issuer) and its key id (written as the AKI). Also refuses a signer whose key is not the
// CA's, which would otherwise produce documents nobody can verify.
//   readIssuingCa(issuer) -> { subject: Name, authorityKeyId: Buffer, notAfter: Date }
import { createPublicKey, X509Certificate } from 'node:crypto';
import { AsnConvert } from '@peculiar/asn1-schema';
import { Certificate, SubjectKeyIdentifier, id_ce_subjectKeyIdentifier, type Name } from '@peculiar/asn1-x509';
import { ValidationError } from '../../domain/shared/errors.ts';
import type { CertificateSigner } from './certificateSigner.ts';
import { keyIdentifierOf } from './extensions.ts';
import { pemToDer } from './pem.ts';

export interface CertificateIssuer {
  certificatePem: string;
  signer: CertificateSigner;
}

export interface IssuingCa {
  subject: Name;
  authorityKeyId: Buffer;
  /** The CA's own end: nothing it signs may outlive it. */
  notAfter: Date;
}

export function readIssuingCa(issuer: CertificateIssuer): IssuingCa {
  const caDer = pemToDer(issuer.certificatePem, 'CERTIFICATE');
  if (!caDer) throw new ValidationError('The CA certificate is not a PEM certificate.', [{ field: 'caCertificate', message: 'not a PEM certificate' }]);
  const caX509 = new X509Certificate(caDer);
  if (!caX509.ca) throw new ValidationError('The issuing certificate is not a CA certificate.', [{ field: 'caCertificate', message: 'not a CA' }]);
  const caSpki = caX509.publicKey.export({ type: 'spki', format: 'der' });
  if (!caSpki.equals(createPublicKey(issuer.signer.publicKeyPem).export({ type: 'spki', format: 'der' }))) {
    throw new ValidationError('The signing key does not belong to the issuing CA certificate.', [{ field: 'caKey', message: 'does not match the CA certificate' }]);
  }
  const ca = AsnConvert.parse(caDer, Certificate);
  const ski = ca.tbsCertificate.extensions?.find((e) => e.extnID === id_ce_subjectKeyIdentifier);
  const authorityKeyId = ski ? Buffer.from(AsnConvert.parse(ski.extnValue.buffer, SubjectKeyIdentifier).buffer) : keyIdentifierOf(caSpki);
  return { subject: ca.tbsCertificate.subject, authorityKeyId, notAfter: ca.tbsCertificate.validity.notAfter.getTime() };
}
