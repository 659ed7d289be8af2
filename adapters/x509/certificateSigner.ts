// Who signs a certificate or CRL. The builders never see a private key: they hand the DER of the
// to-be-signed structure to `sign`, so a key in the database, in Vault transit or in AWS KMS
// signs the same way.
//   keyProviderSigner(provider, handle, spec, publicKeyPem)  -> CertificateSigner over KeyProvider.sign
//   privateKeySigner(privateKey)                             -> CertificateSigner over a local KeyObject
//   signatureAlgorithmFor(spec)                              -> the AlgorithmIdentifier written into
//       the certificate: ecdsa-with-SHA256 (P-256, secp256k1), -SHA384 (P-384), -SHA512 (P-521),
//       sha256WithRSAEncryption (RSA, parameters NULL), Ed25519 (no parameters)
import { createPublicKey, sign as nodeSign, type KeyObject } from 'node:crypto';
import { AlgorithmIdentifier } from '@peculiar/asn1-x509';
import type { KeyProvider, KeySpec } from '../../domain/keys/keyProvider.ts';
import { defaultHashFor, keySpecOfKey } from '../keyProviders/signingAlgorithms.ts';

export type TbsSigner = (tbsDer: Buffer) => Promise<Buffer>;

export interface CertificateSigner {
  /** SPKI PEM of the signing key: selects the signature algorithm and gives the authority key id. */
  publicKeyPem: string;
  spec: KeySpec;
  /** Returns the signature in X.509 form: DER ECDSA-Sig-Value, PKCS#1 v1.5 bytes or raw Ed25519. */
  sign: TbsSigner;
}

const oids = {
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  ecdsaWithSha384: '1.2.840.10045.4.3.3',
  ecdsaWithSha512: '1.2.840.10045.4.3.4',
  sha256WithRsa: '1.2.840.113549.1.1.11',
  ed25519: '1.3.101.112',
};

// DER of ASN.1 NULL: RSA algorithm identifiers carry explicit NULL parameters (RFC 4055).
const asnNull = new Uint8Array([0x05, 0x00]).buffer;

export function signatureAlgorithmFor(spec: KeySpec): AlgorithmIdentifier {
  if (spec.algorithm === 'ED25519') return new AlgorithmIdentifier({ algorithm: oids.ed25519 });
  if (spec.algorithm === 'RSA') return new AlgorithmIdentifier({ algorithm: oids.sha256WithRsa, parameters: asnNull });
  const hash = defaultHashFor(spec);
  const algorithm = hash === 'sha384' ? oids.ecdsaWithSha384 : hash === 'sha512' ? oids.ecdsaWithSha512 : oids.ecdsaWithSha256;
  return new AlgorithmIdentifier({ algorithm });
}

export function keyProviderSigner(provider: KeyProvider, handle: string, spec: KeySpec, publicKeyPem: string): CertificateSigner {
  // Ed25519 ignores the hash; the port's type still wants one.
  const hash = defaultHashFor(spec) ?? 'sha512';
  return { publicKeyPem, spec, sign: (tbs) => provider.sign(handle, spec, { data: tbs, hash }) };
}

export function privateKeySigner(privateKey: KeyObject): CertificateSigner {
  const spec = keySpecOfKey(privateKey);
  const hash = defaultHashFor(spec);
  const publicKeyPem = createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }).toString();
  return {
    publicKeyPem,
    spec,
    sign: async (tbs) => nodeSign(hash, tbs, spec.algorithm === 'EC' ? { key: privateKey, dsaEncoding: 'der' } : privateKey),
  };
}
