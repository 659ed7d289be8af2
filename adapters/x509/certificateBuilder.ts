// Builds and signs X.509 v3 certificates. The signing key stays behind a CertificateSigner
// (database, Vault or KMS key); this file only encodes.
//
//   createSelfSignedCa(profile, signer)            -> IssuedCertificate   (org signing CA, TLS CA)
//   issueCertificate(profile, subjectPublicKeyPem, issuer)  -> IssuedCertificate
//       issuer = { certificatePem, signer }: the CA certificate and a signer for its key
//
// Every certificate gets a random positive 128-bit serial, SKI (SHA-1 of the key bits), AKI
// (the issuer's SKI), critical basicConstraints and keyUsage; SAN, EKU and Fabric attributes when asked for. An issued
// certificate never ends after its CA (ValidationError on notAfter).
// Defaults: a CA gets keyCertSign + cRLSign + digitalSignature; a leaf gets digitalSignature.
import { createPublicKey } from 'node:crypto';
import { AsnConvert } from '@peculiar/asn1-schema';
import { Certificate, Extensions, Name, SubjectPublicKeyInfo, TBSCertificate, Validity, Version } from '@peculiar/asn1-x509';
import { ValidationError } from '../../domain/shared/errors.ts';
import { signatureAlgorithmFor, type CertificateSigner } from './certificateSigner.ts';
import { buildName, type SubjectName } from './distinguishedName.ts';
import {
  authorityKeyIdentifier,
  basicConstraints,
  extendedKeyUsage,
  fabricAttributes,
  keyIdentifierOf,
  keyUsage,
  subjectAltName,
  subjectKeyIdentifier,
  type ExtendedKeyUsageName,
  type KeyUsageName,
} from './extensions.ts';
import { readIssuingCa, type CertificateIssuer } from './issuingCa.ts';
import { toPem } from './pem.ts';
import { randomSerialNumber, serialToHex } from './serialNumber.ts';

export type { CertificateIssuer } from './issuingCa.ts';

export interface CertificateProfile {
  subject: SubjectName;
  notBefore: Date;
  notAfter: Date;
  isCa?: boolean;
  /** CA only: how many intermediate CAs may follow. */
  pathLength?: number;
  dnsNames?: string[];
  ipAddresses?: string[];
  keyUsages?: KeyUsageName[];
  extendedKeyUsages?: ExtendedKeyUsageName[];
  /** Fabric's attribute extension (fabricAttributes): what chaincode reads with cid.GetAttributeValue. */
  attributes?: Record<string, string>;
}

export interface IssuedCertificate {
  pem: string;
  der: Buffer;
  /** Upper-case hex, as node:crypto's X509Certificate.serialNumber. */
  serialNumber: string;
}

export async function createSelfSignedCa(profile: Omit<CertificateProfile, 'isCa'>, signer: CertificateSigner): Promise<IssuedCertificate> {
  const full = { ...profile, isCa: true };
  const name = buildName(profile.subject);
  const keyId = keyIdentifierOf(spkiDerOf(signer.publicKeyPem));
  return sign(full, signer.publicKeyPem, name, keyId, signer);
}

export async function issueCertificate(profile: CertificateProfile, subjectPublicKeyPem: string, issuer: CertificateIssuer): Promise<IssuedCertificate> {
  const ca = readIssuingCa(issuer);
  // The last line of defence: callers clamp or refuse with better messages (domain/keys/issuingCaChecks.ts).
  // Compared in whole seconds: both dates are encoded without fractions.
  if (Math.floor(profile.notAfter.getTime() / 1000) > Math.floor(ca.notAfter.getTime() / 1000)) {
    throw new ValidationError(`Certificate notAfter ${profile.notAfter.toISOString()} is later than its CA's notAfter ${ca.notAfter.toISOString()}.`, [
      { field: 'notAfter', message: `must not be later than the CA's notAfter ${ca.notAfter.toISOString()}` },
    ]);
  }
  return sign(profile, subjectPublicKeyPem, ca.subject, ca.authorityKeyId, issuer.signer);
}

function spkiDerOf(publicKeyPem: string): Buffer {
  return createPublicKey(publicKeyPem).export({ type: 'spki', format: 'der' });
}

function checkProfile(p: CertificateProfile): void {
  const bad = (field: string, message: string) => new ValidationError(`Certificate ${field}: ${message}.`, [{ field, message }]);
  if (Number.isNaN(p.notBefore.getTime())) throw bad('notBefore', 'not a valid date');
  if (Number.isNaN(p.notAfter.getTime())) throw bad('notAfter', 'not a valid date');
  if (p.notAfter.getTime() <= p.notBefore.getTime()) throw bad('notAfter', 'must be later than notBefore');
  if (p.pathLength !== undefined && (!p.isCa || !Number.isInteger(p.pathLength) || p.pathLength < 0)) {
    throw bad('pathLength', 'only a CA has a path length, and it is a non-negative integer');
  }
}

async function sign(profile: CertificateProfile, subjectPublicKeyPem: string, issuerName: Name, authorityKeyId: Buffer, signer: CertificateSigner): Promise<IssuedCertificate> {
  checkProfile(profile);
  const spkiDer = spkiDerOf(subjectPublicKeyPem);
  const isCa = profile.isCa ?? false;
  const extensions = [
    basicConstraints(isCa, profile.pathLength),
    keyUsage(profile.keyUsages ?? (isCa ? ['digitalSignature', 'keyCertSign', 'cRLSign'] : ['digitalSignature'])),
    subjectKeyIdentifier(keyIdentifierOf(spkiDer)),
    authorityKeyIdentifier(authorityKeyId),
  ];
  if (profile.extendedKeyUsages?.length) extensions.push(extendedKeyUsage(profile.extendedKeyUsages));
  if (profile.dnsNames?.length || profile.ipAddresses?.length) extensions.push(subjectAltName(profile.dnsNames ?? [], profile.ipAddresses ?? []));
  if (profile.attributes && Object.keys(profile.attributes).length) extensions.push(fabricAttributes(profile.attributes));

  const signatureAlgorithm = signatureAlgorithmFor(signer.spec);
  const serial = randomSerialNumber();
  const tbs = new TBSCertificate({
    version: Version.v3,
    serialNumber: new Uint8Array(serial).buffer,
    signature: signatureAlgorithm,
    issuer: issuerName,
    validity: new Validity({ notBefore: profile.notBefore, notAfter: profile.notAfter }),
    subject: buildName(profile.subject),
    subjectPublicKeyInfo: AsnConvert.parse(spkiDer, SubjectPublicKeyInfo),
    extensions: new Extensions(extensions),
  });
  const signature = await signer.sign(Buffer.from(AsnConvert.serialize(tbs)));
  const der = Buffer.from(
    AsnConvert.serialize(new Certificate({ tbsCertificate: tbs, signatureAlgorithm, signatureValue: new Uint8Array(signature).buffer })),
  );
  return { pem: toPem('CERTIFICATE', der), der, serialNumber: serialToHex(serial) };
}

