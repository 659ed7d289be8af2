// Signing with a private key held in this process (the database provider, after decryption),
// following the KeyProvider.sign contract:
//   { data, hash }   ECDSA: DER over hash(data); RSA: PKCS#1 v1.5 over hash(data);
//                    Ed25519: pure Ed25519 over data (hash ignored)
//   { digest, hash } ECDSA: DER over the digest as given (keccak256 allowed);
//                    RSA: PKCS#1 v1.5 over DigestInfo(hash, digest) (sha256/384/512 only);
//                    Ed25519: refused (it signs messages, not digests)
//   signWithKeyObject(privateKey, spec, input) -> Buffer
import { constants, privateEncrypt, sign as nodeSign, type KeyObject } from 'node:crypto';
import type { HashName, KeySpec, SignInput } from '../../domain/keys/keyProvider.ts';
import { ValidationError } from '../../domain/shared/errors.ts';
import { signDigestWithScalar } from './signingEcdsa.ts';

export const digestLength: Record<HashName | 'keccak256', number> = { sha256: 32, sha384: 48, sha512: 64, keccak256: 32 };

// DER prefixes of DigestInfo ::= SEQUENCE { AlgorithmIdentifier, OCTET STRING } (RFC 8017 9.2 note 1).
const digestInfoPrefix: Record<HashName, Buffer> = {
  sha256: Buffer.from('3031300d060960864801650304020105000420', 'hex'),
  sha384: Buffer.from('3041300d060960864801650304020205000430', 'hex'),
  sha512: Buffer.from('3051300d060960864801650304020305000440', 'hex'),
};

const hashNames = new Set(['sha256', 'sha384', 'sha512']);

// Exporting the scalar from a KeyObject costs a JWK round trip; keep it per key object.
const scalars = new WeakMap<KeyObject, Uint8Array>();

function scalarOf(privateKey: KeyObject): Uint8Array {
  let d = scalars.get(privateKey);
  if (!d) {
    d = new Uint8Array(Buffer.from(privateKey.export({ format: 'jwk' }).d!, 'base64url'));
    scalars.set(privateKey, d);
  }
  return d;
}

function invalid(field: string, message: string): ValidationError {
  return new ValidationError(message, [{ field, message }]);
}

export function signWithKeyObject(privateKey: KeyObject, spec: KeySpec, input: SignInput): Buffer {
  if ('data' in input) {
    if (spec.algorithm === 'ED25519') return nodeSign(null, input.data, privateKey);
    if (!hashNames.has(input.hash)) throw invalid('hash', `Unsupported hash ${String(input.hash)}; use sha256, sha384 or sha512.`);
    if (spec.algorithm === 'RSA') return nodeSign(input.hash, input.data, { key: privateKey, padding: constants.RSA_PKCS1_PADDING });
    return nodeSign(input.hash, input.data, { key: privateKey, dsaEncoding: 'der' });
  }

  const expected = digestLength[input.hash];
  if (expected === undefined) throw invalid('hash', `Unsupported digest hash ${String(input.hash)}; use sha256, sha384, sha512 or keccak256.`);
  if (input.digest.length !== expected) throw invalid('digest', `A ${input.hash} digest is ${expected} bytes; got ${input.digest.length}.`);
  if (spec.algorithm === 'ED25519') throw invalid('digest', 'Ed25519 keys sign the message itself, not a precomputed digest.');
  if (spec.algorithm === 'RSA') {
    if (input.hash === 'keccak256') throw invalid('hash', 'RSA signatures over keccak256 digests are not defined; use an EC secp256k1 key.');
    const digestInfo = Buffer.concat([digestInfoPrefix[input.hash], input.digest]);
    return privateEncrypt({ key: privateKey, padding: constants.RSA_PKCS1_PADDING }, digestInfo);
  }
  return signDigestWithScalar(spec.curve!, scalarOf(privateKey), input.digest);
}
