// Signing and verifying a precomputed digest, shared by the Vault and KMS stand-ins. Both real
// services sign digests (Vault `prehashed=true`, KMS `MessageType: DIGEST`), which node:crypto
// cannot do for ECDSA (crypto.sign re-hashes its input), hence @noble/curves for EC.
//   hashBytes(name, data)                        node hash names: sha1, sha224, sha256, sha3-256 ...
//   ecdsaSignDigest(key, digest, 'der'|'p1363')  RFC 6979 ECDSA over the digest as given
//   ecdsaVerifyDigest(publicKey, digest, sig)
//   rsaPkcs1SignDigest / rsaPkcs1VerifyDigest    EMSA-PKCS1-v1_5 (DigestInfo) over the digest
//   rsaPssSignDigest / rsaPssVerifyDigest        EMSA-PSS (MGF1 with the same hash)
//   rsaRawPkcs1Sign                              PKCS#1 v1.5 padding without DigestInfo (Vault hash "none")
import { constants, createHash, privateEncrypt, publicDecrypt, randomBytes, type KeyObject } from 'node:crypto';
import { p256, p384, p521 } from '@noble/curves/nist.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';

type Curve = typeof p256;
const curves: Record<string, Curve> = { prime256v1: p256, secp384r1: p384, secp521r1: p521, secp256k1 };

/** DER of AlgorithmIdentifier OIDs (without tag/length) for DigestInfo. */
const hashOid: Record<string, string> = {
  sha1: '2b0e03021a',
  sha224: '608648016503040204',
  sha256: '608648016503040201',
  sha384: '608648016503040202',
  sha512: '608648016503040203',
  'sha3-224': '608648016503040207',
  'sha3-256': '608648016503040208',
  'sha3-384': '608648016503040209',
  'sha3-512': '60864801650304020a',
};

export function hashBytes(name: string, data: Buffer): Buffer {
  return createHash(name).update(data).digest();
}

export function hashLength(name: string): number {
  return hashBytes(name, Buffer.alloc(0)).length;
}

function curveOf(key: KeyObject): Curve {
  const c = curves[key.asymmetricKeyDetails?.namedCurve ?? ''];
  if (!c) throw new Error(`stand-in: no ECDSA support for curve ${key.asymmetricKeyDetails?.namedCurve}`);
  return c;
}

function b64u(s: string | undefined): Buffer {
  return Buffer.from(s ?? '', 'base64url');
}

function uncompressedPoint(publicKey: KeyObject): Uint8Array {
  const jwk = publicKey.export({ format: 'jwk' });
  return Buffer.concat([Buffer.from([4]), b64u(jwk.x), b64u(jwk.y)]);
}

export function ecdsaSignDigest(privateKey: KeyObject, digest: Buffer, encoding: 'der' | 'p1363' = 'der'): Buffer {
  const curve = curveOf(privateKey);
  const d = b64u(privateKey.export({ format: 'jwk' }).d);
  const sig = curve.sign(digest, d, { prehash: false, lowS: false });
  return Buffer.from(encoding === 'der' ? sig.toDERRawBytes() : sig.toCompactRawBytes());
}

export function ecdsaVerifyDigest(publicKey: KeyObject, digest: Buffer, signature: Buffer, encoding: 'der' | 'p1363' = 'der'): boolean {
  const curve = curveOf(publicKey);
  try {
    return curve.verify(signature, digest, uncompressedPoint(publicKey), { prehash: false, lowS: false, format: encoding === 'der' ? 'der' : 'compact' });
  } catch {
    return false;
  }
}

function digestInfo(hash: string, digest: Buffer): Buffer {
  const oid = Buffer.from(hashOid[hash] ?? '', 'hex');
  if (!oid.length) throw new Error(`stand-in: no DigestInfo for hash ${hash}`);
  const algId = Buffer.concat([Buffer.from([0x06, oid.length]), oid, Buffer.from([0x05, 0x00])]);
  const algSeq = Buffer.concat([Buffer.from([0x30, algId.length]), algId]);
  const octets = Buffer.concat([Buffer.from([0x04, digest.length]), digest]);
  const body = Buffer.concat([algSeq, octets]);
  return Buffer.concat([Buffer.from([0x30, body.length]), body]);
}

export function rsaPkcs1SignDigest(privateKey: KeyObject, hash: string, digest: Buffer): Buffer {
  return privateEncrypt({ key: privateKey, padding: constants.RSA_PKCS1_PADDING }, digestInfo(hash, digest));
}

export function rsaRawPkcs1Sign(privateKey: KeyObject, input: Buffer): Buffer {
  return privateEncrypt({ key: privateKey, padding: constants.RSA_PKCS1_PADDING }, input);
}

export function rsaPkcs1VerifyDigest(publicKey: KeyObject, hash: string | null, digest: Buffer, signature: Buffer): boolean {
  try {
    const recovered = publicDecrypt({ key: publicKey, padding: constants.RSA_PKCS1_PADDING }, signature);
    return recovered.equals(hash === null ? digest : digestInfo(hash, digest));
  } catch {
    return false;
  }
}

function mgf1(hash: string, seed: Buffer, length: number): Buffer {
  const out: Buffer[] = [];
  for (let i = 0; out.length * hashLength(hash) < length; i++) {
    const c = Buffer.alloc(4);
    c.writeUInt32BE(i);
    out.push(hashBytes(hash, Buffer.concat([seed, c])));
  }
  return Buffer.concat(out).subarray(0, length);
}

function modulusBits(key: KeyObject): number {
  return key.asymmetricKeyDetails?.modulusLength ?? 0;
}

/** RFC 8017 EMSA-PSS-ENCODE followed by the raw RSA private operation. saltLength -1 = as long as fits. */
export function rsaPssSignDigest(privateKey: KeyObject, hash: string, digest: Buffer, saltLength: number): Buffer {
  const emBits = modulusBits(privateKey) - 1;
  const emLen = Math.ceil(emBits / 8);
  const hLen = digest.length;
  const sLen = saltLength < 0 ? emLen - hLen - 2 : saltLength;
  const salt = randomBytes(sLen);
  const h = hashBytes(hash, Buffer.concat([Buffer.alloc(8), digest, salt]));
  const db = Buffer.concat([Buffer.alloc(emLen - sLen - hLen - 2), Buffer.from([1]), salt]);
  const mask = mgf1(hash, h, db.length);
  for (let i = 0; i < db.length; i++) db[i] ^= mask[i];
  db[0] &= 0xff >> (8 * emLen - emBits);
  const em = Buffer.concat([db, h, Buffer.from([0xbc])]);
  const padded = Buffer.concat([Buffer.alloc(Math.ceil(modulusBits(privateKey) / 8) - em.length), em]);
  return privateEncrypt({ key: privateKey, padding: constants.RSA_NO_PADDING }, padded);
}

/** EMSA-PSS-VERIFY with the salt length recovered from the encoding. */
export function rsaPssVerifyDigest(publicKey: KeyObject, hash: string, digest: Buffer, signature: Buffer): boolean {
  try {
    const emBits = modulusBits(publicKey) - 1;
    const emLen = Math.ceil(emBits / 8);
    const full = publicDecrypt({ key: publicKey, padding: constants.RSA_NO_PADDING }, signature);
    const em = full.subarray(full.length - emLen);
    const hLen = digest.length;
    if (em[em.length - 1] !== 0xbc) return false;
    const maskedDb = Buffer.from(em.subarray(0, emLen - hLen - 1));
    const h = em.subarray(emLen - hLen - 1, emLen - 1);
    const mask = mgf1(hash, h, maskedDb.length);
    for (let i = 0; i < maskedDb.length; i++) maskedDb[i] ^= mask[i];
    maskedDb[0] &= 0xff >> (8 * emLen - emBits);
    const one = maskedDb.indexOf(1);
    if (one < 0 || maskedDb.subarray(0, one).some((b) => b !== 0)) return false;
    const salt = maskedDb.subarray(one + 1);
    return hashBytes(hash, Buffer.concat([Buffer.alloc(8), digest, salt])).equals(h);
  } catch {
    return false;
  }
}
