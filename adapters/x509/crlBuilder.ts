// Builds and signs a v2 certificate revocation list for a CA (GET /organizations/{id}/crl).
//
//   buildCrl({ thisUpdate, nextUpdate, crlNumber, revoked: [{ serialNumber, revokedAt, reason? }] }, issuer)
//     -> { pem, der }   label "X509 CRL"; serials are hex as node:crypto prints them
//
// The CRL carries the CA's subject as issuer, the CA's key id as AKI and a CRL number; entries
// carry a reason code when one is given. The signer must hold the CA key (checked).
import { AsnConvert } from '@peculiar/asn1-schema';
import { CertificateList, RevokedCertificate, TBSCertList, Time, Version } from '@peculiar/asn1-x509';
import { ValidationError } from '../../domain/shared/errors.ts';
import { signatureAlgorithmFor } from './certificateSigner.ts';
import { authorityKeyIdentifier, crlNumber, crlReason, type RevocationReason } from './extensions.ts';
import { readIssuingCa, type CertificateIssuer } from './issuingCa.ts';
import { toPem } from './pem.ts';
import { serialFromHex } from './serialNumber.ts';

export interface RevokedCertificateEntry {
  serialNumber: string;
  revokedAt: Date;
  reason?: RevocationReason;
}

export interface CrlRequest {
  thisUpdate: Date;
  nextUpdate: Date;
  /** Monotonically increasing per CA; relying parties keep the highest they have seen. */
  crlNumber: number;
  revoked: RevokedCertificateEntry[];
}

export interface SignedCrl {
  pem: string;
  der: Buffer;
}

export async function buildCrl(request: CrlRequest, issuer: CertificateIssuer): Promise<SignedCrl> {
  if (Number.isNaN(request.thisUpdate.getTime()) || Number.isNaN(request.nextUpdate.getTime()) || request.nextUpdate <= request.thisUpdate) {
    throw new ValidationError('CRL nextUpdate must be a valid date later than thisUpdate.', [{ field: 'nextUpdate', message: 'must be later than thisUpdate' }]);
  }
  const ca = readIssuingCa(issuer);

  const signatureAlgorithm = signatureAlgorithmFor(issuer.signer.spec);
  const revoked = request.revoked.map(
    (r) =>
      new RevokedCertificate({
        userCertificate: new Uint8Array(serialFromHex(r.serialNumber)).buffer,
        revocationDate: new Time(r.revokedAt),
        crlEntryExtensions: r.reason ? [crlReason(r.reason)] : undefined,
      }),
  );
  const tbs = new TBSCertList({
    version: Version.v2,
    signature: signatureAlgorithm,
    issuer: ca.subject,
    thisUpdate: new Time(request.thisUpdate),
    nextUpdate: new Time(request.nextUpdate),
    // An empty list is omitted, not encoded as an empty SEQUENCE (RFC 5280 5.1.2.6).
    revokedCertificates: revoked.length ? revoked : undefined,
    crlExtensions: [authorityKeyIdentifier(ca.authorityKeyId), crlNumber(request.crlNumber)],
  });
  const signature = await issuer.signer.sign(Buffer.from(AsnConvert.serialize(tbs)));
  const der = Buffer.from(AsnConvert.serialize(new CertificateList({ tbsCertList: tbs, signatureAlgorithm, signature: new Uint8Array(signature).buffer })));
  return { pem: toPem('X509 CRL', der), der };
}
