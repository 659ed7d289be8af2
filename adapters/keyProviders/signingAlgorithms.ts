// Which key is which, and which hash goes with it: shared by every key provider and by the
// X.509 builder so that "a P-384 key signs with SHA-384" is decided in one place.
//
//   keySpecOfKey(key)        KeyObject (public or private) -> KeySpec; ValidationError if unsupported
//   keySpecOfPublicKeyPem()  same, from an SPKI PEM
//   defaultHashFor(spec)     P-256, secp256k1, RSA -> sha256; P-384 -> sha384; P-521 -> sha512;
//                            Ed25519 -> null (pure Ed25519 hashes internally with SHA-512)
//   describeKeySpec(spec)    "EC P-256", "RSA 4096", "Ed25519" (for messages)
//   sameKeySpec(a, b)
import { createPublicKey, type KeyObject } from 'node:crypto';
import type { EcCurve, HashName, KeySpec } from '../../domain/keys/keyProvider.ts';
import { ValidationError } from '../../domain/shared/errors.ts';

/** OpenSSL curve names as node:crypto reports them, to the names of the port. */
const curveOfOpenSslName: Record<string, EcCurve> = {
  prime256v1: 'P-256',
  'P-256': 'P-256',
  secp384r1: 'P-384',
  'P-384': 'P-384',
  secp521r1: 'P-521',
  'P-521': 'P-521',
  secp256k1: 'secp256k1',
};

export const openSslCurveName: Record<EcCurve, string> = {
  'P-256': 'prime256v1',
  'P-384': 'secp384r1',
  'P-521': 'secp521r1',
  secp256k1: 'secp256k1',
};

export function keySpecOfKey(key: KeyObject, field = 'privateKey'): KeySpec {
  const type = key.asymmetricKeyType;
  const details = key.asymmetricKeyDetails ?? {};
  if (type === 'ec') {
    const curve = curveOfOpenSslName[details.namedCurve ?? ''];
    if (!curve) throw unsupported(field, `EC curve ${details.namedCurve ?? 'unknown'}`);
    return { algorithm: 'EC', curve };
  }
  if (type === 'rsa') {
    const bits = details.modulusLength;
    if (bits !== 2048 && bits !== 4096) throw unsupported(field, `RSA ${bits ?? 'unknown'}-bit`);
    return { algorithm: 'RSA', keySize: bits };
  }
  if (type === 'ed25519') return { algorithm: 'ED25519' };
  throw unsupported(field, `${type ?? 'unknown'} key`);
}

export function keySpecOfPublicKeyPem(publicKeyPem: string, field = 'publicKey'): KeySpec {
  return keySpecOfKey(createPublicKey(publicKeyPem), field);
}

export function defaultHashFor(spec: KeySpec): HashName | null {
  if (spec.algorithm === 'ED25519') return null;
  if (spec.algorithm === 'RSA') return 'sha256';
  switch (spec.curve) {
    case 'P-384':
      return 'sha384';
    case 'P-521':
      return 'sha512';
    default:
      return 'sha256';
  }
}

export function describeKeySpec(spec: KeySpec): string {
  if (spec.algorithm === 'EC') return `EC ${spec.curve ?? '(no curve)'}`;
  if (spec.algorithm === 'RSA') return `RSA ${spec.keySize ?? '(no size)'}`;
  return 'Ed25519';
}

export function sameKeySpec(a: KeySpec, b: KeySpec): boolean {
  if (a.algorithm !== b.algorithm) return false;
  if (a.algorithm === 'EC') return a.curve === b.curve;
  if (a.algorithm === 'RSA') return a.keySize === b.keySize;
  return true;
}

export const supportedKeySpecsText = 'EC P-256, P-384, P-521 and secp256k1; RSA 2048 and 4096; Ed25519';

function unsupported(field: string, what: string): ValidationError {
  return new ValidationError(`Unsupported key: ${what}. Supported: ${supportedKeySpecsText}.`, [
    { field, message: `unsupported key type (${what})` },
  ]);
}
